"""am.join against pa.Table.join: every join type, one and two keys of
several types with nulls, NaN and both zeros, key coalescing and suffixes,
the inputs it takes, pyarrow's refusals, fallbacks, the C ABI's order,
checks and messages, and GPU-resident keys (skipped without CUDA)."""

import struct

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal._capi import ffi, lib

from .string_keys import string_column

CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]
JOIN_TYPES = ["inner", "left outer", "right outer", "full outer", "left semi", "left anti",
              "right semi", "right anti"]  # fmt: skip


def column(t, n, seed, card=6, nulls=0.2):
    rng = np.random.default_rng(seed)
    if t == "bool":
        v = rng.random(n) < 0.5
    elif t.startswith("float"):
        v = (rng.integers(0, card, n) / 2).astype(t)
        v[rng.random(n) < 0.1] = np.nan
        v[rng.random(n) < 0.1] = -0.0
    else:
        v = rng.integers(0, card, n).astype(t)
    return pa.array(v, mask=rng.random(n) < nulls)


def canon(v):
    return ("f", struct.pack("<d", v).hex()) if isinstance(v, float) else ("v", repr(v))


def rows(t):
    cols = [t.column(i).to_pylist() for i in range(t.num_columns)]
    return sorted(tuple(canon(x) for x in r) for r in zip(*cols))


def same(left, right, keys, **kw):
    got = am.join(left, right, keys, **kw)
    want = left.join(right, keys, **kw)
    assert got.schema == want.schema
    assert rows(got) == rows(want)
    return got


@pytest.mark.parametrize("kt", ["int8", "uint32", "int64", "float32", "float64", "bool"])
@pytest.mark.parametrize("join_type", JOIN_TYPES)
def test_join_types_and_key_types(kt, join_type):
    left = pa.table({"a": column(kt, 120, 1), "x": column("int64", 120, 2, 100),
                     "s": pa.array([str(i) for i in range(120)])})  # fmt: skip
    right = pa.table({"b": column(kt, 50, 3), "x": column("float64", 50, 4, 100)})
    for coalesce in (True, False):
        same(left, right, "a", right_keys="b", join_type=join_type, left_suffix="_l",
             right_suffix="_r", coalesce_keys=coalesce)  # fmt: skip


@pytest.mark.parametrize("join_type", ["inner", "right outer", "left outer", "full outer"])
@pytest.mark.parametrize("nulls", [0.0, 0.1])
def test_long_inputs_probe_over_the_pool(join_type, nulls):
    """Past the pool's threshold the joins write the left rows' pairs part by
    part (cpu/join.c's probe_job), and left and full outer joins then mark
    the unmatched rows' right indices null by 64-aligned ranges. Keys with
    and without nulls, repeated right keys."""
    left = pa.table({"k": column("int64", 200_000, 7, card=20_000, nulls=nulls),
                     "l": column("int32", 200_000, 8, 1000, nulls=0)})  # fmt: skip
    right = pa.table({"k": column("int64", 30_000, 9, card=20_000, nulls=nulls),
                      "r": column("int32", 30_000, 10, 1000, nulls=0)})  # fmt: skip
    same(left, right, "k", join_type=join_type)


@pytest.mark.parametrize("join_type", JOIN_TYPES)
def test_two_keys_same_names(join_type):
    left = pa.table({"k": column("int16", 200, 5), "k2": column("bool", 200, 6),
                     "v": column("int32", 200, 7)})  # fmt: skip
    right = pa.table({"k": column("int16", 80, 8), "k2": column("bool", 80, 9),
                      "w": column("uint8", 80, 10)})  # fmt: skip
    same(left, right, ["k", "k2"], join_type=join_type)


def test_null_keys_never_match_and_nan_matches_nan():
    left = pa.table({"k": pa.array([None, float("nan"), 0.0, -0.0]), "v": [1, 2, 3, 4]})
    right = pa.table({"k": pa.array([None, float("nan"), -0.0]), "w": [5, 6, 7]})
    got = same(left, right, "k", join_type="inner")
    assert sorted(zip(got.column("v").to_pylist(), got.column("w").to_pylist())) == [
        (2, 6),
        (4, 7),
    ]


def test_inputs_and_defaults():
    left = pa.table({"k": column("int32", 100, 11), "v": column("int32", 100, 12)})
    right = pa.table({"k": column("int32", 40, 13), "w": column("int32", 40, 14)})
    same(left, right, "k")  # "left outer", coalesced keys
    want = left.join(right, "k")
    got = am.join(left.to_batches()[0], pa.Table.from_batches(right.to_batches(max_chunksize=7)),
                  "k")  # fmt: skip
    assert rows(got) == rows(want)


def test_pyarrow_refusals_and_fallbacks():
    left = pa.table({"k": pa.array([1, 2], pa.int32()), "v": [1, 2]})
    right = pa.table({"k": pa.array([1, 2], pa.int64()), "w": [1, 2]})
    with pytest.raises(pa.ArrowInvalid):
        am.join(left, right, "k")
    with pytest.raises(ValueError):
        am.join(left, left, "k", join_type="sideways")
    import decimal

    decimals = pa.table({"s": [decimal.Decimal("1.5"), decimal.Decimal(2)], "v": [1, 2]})
    before = am.fallbacks().get("join", 0)
    got = am.join(decimals, decimals, "s", join_type="inner", right_suffix="_r")  # the library's
    assert rows(got) == rows(decimals.join(decimals, "s", join_type="inner", right_suffix="_r"))
    assert am.fallbacks().get("join", 0) == before
    other = pa.table({"k": pa.array([1, 2], pa.int32()), "w": [1, 2]})
    with pytest.warns(am.ArrowMetalFallbackWarning):
        got = am.join(left, other, "k", join_type="inner", filter_expression=pc.field("v") > 1)
    assert got.num_rows == 1
    assert am.fallbacks()["join"] == before + 1


def indices(left_keys, right_keys, join_type):
    lk = ffi.new("am_array *[]", [k._ptr for k in left_keys] or [ffi.NULL])
    rk = ffi.new("am_array *[]", [k._ptr for k in right_keys] or [ffi.NULL])
    li, ri = ffi.new("am_array **"), ffi.new("am_array **")
    rc = lib.am_join_indices(lk, rk, len(left_keys), join_type, li, ri)
    msg = ffi.string(lib.am_last_error()).decode() if rc else ""
    w = am._array.wrap
    return (
        rc,
        msg,
        (w(li[0]) if li[0] != ffi.NULL else None),
        (w(ri[0]) if ri[0] != ffi.NULL else None),
    )


def test_c_abi_order():
    left = am.array(pa.array([1, 2, None, 2, 5], pa.int32()))
    right = am.array(pa.array([2, 2, None, 7, 1], pa.int32()))
    want = {
        lib.AM_JOIN_INNER: ([0, 1, 1, 3, 3], [4, 0, 1, 0, 1]),
        lib.AM_JOIN_LEFT_OUTER: ([0, 1, 1, 2, 3, 3, 4], [4, 0, 1, None, 0, 1, None]),
        lib.AM_JOIN_RIGHT_OUTER: ([0, 1, 1, 3, 3, None, None], [4, 0, 1, 0, 1, 2, 3]),
        lib.AM_JOIN_LEFT_SEMI: ([0, 1, 3], None),
        lib.AM_JOIN_LEFT_ANTI: ([2, 4], None),
        lib.AM_JOIN_RIGHT_SEMI: (None, [0, 1, 4]),
        lib.AM_JOIN_RIGHT_ANTI: (None, [2, 3]),
    }
    for jt, (lw, rw) in want.items():
        rc, msg, li, ri = indices([left], [right], jt)
        assert rc == lib.AM_OK, msg
        assert (li.to_pylist() if li is not None else None) == lw
        assert (ri.to_pylist() if ri is not None else None) == rw


def test_c_abi_checks_and_messages():
    a = am.array(pa.array([1, 2, 3], pa.int32()))
    b = am.array(pa.array([1, 2], pa.int32()))
    c = am.array(pa.array([1, 2], pa.int64()))
    cases = [
        (([a], [c], lib.AM_JOIN_INNER), lib.AM_ETYPE,
         "Incompatible data types for corresponding join field keys: int32 and int64"),
        (([a, b], [b, b], lib.AM_JOIN_INNER), lib.AM_EINVAL, "left key 1 has 2 rows"),
        (([a], [b], 9), lib.AM_EINVAL, "unknown join type 9"),
        (([], [], lib.AM_JOIN_INNER), lib.AM_EINVAL, "one or more keys"),
    ]  # fmt: skip
    for args, code, text in cases:
        rc, msg, li, ri = indices(*args)
        assert rc == code and msg.startswith("am_join_indices") and text in msg, msg
        assert li is None and ri is None


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_gpu_resident_keys():
    lk, rk = column("int64", 100001, 15, 5000), column("int64", 3000, 16, 5000)
    g, h = am.array(lk, device="cuda"), am.array(rk, device="cuda")
    rc, msg, li, ri = indices([g], [h], lib.AM_JOIN_INNER)
    assert rc == lib.AM_OK, msg
    assert str(li.device).startswith("cuda") and str(ri.device).startswith("cuda")
    got = sorted(zip(li.to_pylist(), ri.to_pylist()))
    left = pa.table({"k": lk, "i": pa.array(range(len(lk)))})
    right = pa.table({"k": rk, "j": pa.array(range(len(rk)))})
    want = left.join(right, "k", join_type="inner")
    assert got == sorted(zip(want.column("i").to_pylist(), want.column("j").to_pylist()))


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_gpu_join_out_of_memory_names_the_sizes():
    """A GPU join whose build side does not fit the device: AM_ENOMEM naming the
    rows and bytes (ops_join.c), no crash, and the device joins again once memory
    is freed. In a fresh process: the device is filled on purpose."""
    import textwrap

    from .fresh import run_python

    code = textwrap.dedent("""
        import numpy as np, pyarrow as pa
        import arrowmetal as am
        from arrowmetal._capi import ffi, lib
        n = 100_000_000  # 0.8 GB of int64 keys a side
        lk = am.array(pa.array(np.arange(n, dtype=np.int64)), device="cuda")
        rk = am.array(pa.array(np.arange(n, dtype=np.int64)), device="cuda")
        held = []
        while True:  # fill the device until a 256 MiB array no longer fits
            try:
                held.append(am.full(1, 1 << 25, type="int64", device="cuda"))
            except am.ArrowMetalMemoryError:
                break
            assert len(held) < 4096
        li, ri = ffi.new("am_array **"), ffi.new("am_array **")
        lh, rh = ffi.new("am_array *[]", [lk.handle]), ffi.new("am_array *[]", [rk.handle])
        rc = lib.am_join_indices(lh, rh, 1, lib.AM_JOIN_INNER, li, ri)
        message = ffi.string(lib.am_last_error()).decode()
        assert rc == lib.AM_ENOMEM, (rc, message)
        assert "does not fit device memory" in message and "100000000 left" in message, message
        held.clear()
        small_l = am.array(pa.array([1, 2, 2, None], pa.int64()), device="cuda")
        small_r = am.array(pa.array([2, None, 1], pa.int64()), device="cuda")
        lh, rh = ffi.new("am_array *[]", [small_l.handle]), ffi.new("am_array *[]", [small_r.handle])
        rc = lib.am_join_indices(lh, rh, 1, lib.AM_JOIN_INNER, li, ri)
        assert rc == lib.AM_OK, ffi.string(lib.am_last_error()).decode()
        lib.am_release(li[0])
        lib.am_release(ri[0])
        print(message)
    """)
    import os

    env = {}
    if os.environ.get("ARROWMETAL_NVRTC"):
        env["ARROWMETAL_NVRTC"] = os.environ["ARROWMETAL_NVRTC"]
    out = run_python(code, **env)
    assert out.returncode == 0, out.stdout + out.stderr


# ---- string and binary keys (cpu/hash_bytes.c) --------------------------------


@pytest.mark.parametrize("t", [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()],
                         ids=str)  # fmt: skip
@pytest.mark.parametrize("join_type", JOIN_TYPES)
def test_string_keys(t, join_type):
    """One string key and a string key beside an integer one, run here (no
    fallback): equal bytes match, null keys never do."""
    left = pa.table({"s": string_column(400, 1, t), "k": column("int8", 400, 2, card=2),
                     "v": column("int32", 400, 3)})  # fmt: skip
    right = pa.table({"s": string_column(150, 4, t), "k": column("int8", 150, 5, card=2),
                      "w": string_column(150, 6, t)})  # fmt: skip
    before = am.fallbacks().get("join", 0)
    same(left, right, "s", join_type=join_type, right_suffix="_r")
    same(left, right, ["s", "k"], join_type=join_type)
    assert am.fallbacks().get("join", 0) == before


def test_string_key_edges():
    empty = pa.table({"s": pa.array([], pa.string()), "v": pa.array([], pa.int64())})
    one = pa.table({"s": pa.array(["x"]), "v": pa.array([1])})
    nulls = pa.table({"s": pa.array([None, "", None], pa.string()), "v": pa.array([1, 2, 3])})
    for a, b in ((empty, one), (one, empty), (one, one), (nulls, nulls), (nulls, one)):
        for join_type in ("inner", "full outer", "left anti"):
            same(a, b, "s", join_type=join_type, right_suffix="_r")
    fixed = pa.table({"f": pa.array([b"abc", b"\x00\x00\x00", None, b"abc"], pa.binary(3)),
                      "v": pa.array([1, 2, 3, 4])})  # fmt: skip
    same(fixed, fixed, "f", join_type="inner", right_suffix="_r")
    # utf8 against large_utf8: pyarrow's refusal, as for numbers of two widths
    with pytest.raises(pa.ArrowInvalid):
        am.join(one, pa.table({"s": pa.array(["x"], pa.large_string())}), "s")


@pytest.mark.parametrize("join_type", ["inner", "full outer", "right anti"])
def test_string_key_long_right_side_groups_both_sides(join_type):
    """Past cpu/join.c's STRING_PROBE_ROWS right rows one string key is
    grouped with the left keys (hashes first, cpu/hash_bytes.c) rather than
    probed: the same pairs."""
    left = pa.table({"s": string_column(30_000, 11, card=40_000), "v": column("int32", 30_000, 1)})
    right = pa.table({"s": string_column(20_000, 12, card=40_000), "w": column("int32", 20_000, 2)})
    same(left, right, "s", join_type=join_type)
