"""Strings and binary on a GPU (issue #13): placement and its round trip, the C
Device Data Interface both ways, every string call over arrays that live on
the device against pyarrow.compute (results stay there), and bad device
imports refused with a message. Each test runs on the CPU device and, where
the CUDA backend works (the H200 in benchmarks/device_run.sh), on CUDA; the
string conformance cases run on CUDA too (conformance/run_all.py)."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am

CUDA = {name: ok for name, ok, _ in am.backends()}["cuda"]
CUDA_REASON = {name: reason for name, _, reason in am.backends()}["cuda"]
pytestmark = pytest.mark.usefixtures("no_fallback")
needs_cuda = pytest.mark.skipif(not CUDA, reason=f"no usable CUDA backend: {CUDA_REASON}")


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=needs_cuda)])
def device(request):
    return request.param


WORDS = ["", "a", "ab", "abc", "b", "héllo", "é", "a\x00b", "zz" * 30, "aXa", "a%b", "a_b", "ab\\"]
TEXT = [pa.string(), pa.large_string()]
BYTES = [pa.binary(), pa.large_binary()]


def sample(t, n, seed, nulls=0.25, offset=0):
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(WORDS), n + offset)
    mask = rng.random(n + offset) < nulls
    values = [None if m else WORDS[k] for k, m in zip(pick, mask)]
    if t in BYTES:
        values = [None if v is None else v.encode() for v in values]
    return pa.array(values, t).slice(offset)


def placed(arr, device):
    a = am.array(arr, device=device)
    assert a.backend == device
    return a


def host(x):
    return x.to_pyarrow() if isinstance(x, am.Array) else x


@pytest.mark.parametrize("t", [*TEXT, *BYTES, pa.binary(3)])
@pytest.mark.parametrize(("n", "offset"), [(0, 0), (1, 0), (37, 5), (5000, 13)])
def test_placement_round_trips(device, t, n, offset):
    if t == pa.binary(3):
        rng = np.random.default_rng(n)
        raw = [None if rng.random() < 0.2 else bytes(rng.integers(0, 256, 3).tolist())
               for _ in range(n + offset)]  # fmt: skip
        arr = pa.array(raw, t).slice(offset)
    else:
        arr = sample(t, n, seed=n, offset=offset)
    a = placed(arr, device)
    assert len(a) == n and a.null_count == arr.null_count
    back = a.to_pyarrow()
    back.validate(full=True)
    assert back.equals(arr)
    assert a[1:3].to_pyarrow().equals(arr[1:3]) if n >= 3 else True
    assert a.to_device("cpu").to_pyarrow().equals(arr)


class _DeviceOnly:
    """Hands an array over by the C Device Data Interface alone."""

    def __init__(self, source):
        self.source = source

    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
        return self.source.__arrow_c_device_array__()


@pytest.mark.parametrize("t", [pa.string(), pa.large_binary()])
def test_device_interface_round_trip(device, t):
    arr = sample(t, 3000, seed=4, offset=3)
    a = placed(arr, device)
    b = am.array(_DeviceOnly(a))
    assert b.backend == device
    assert b.to_pyarrow().equals(arr)
    assert am.utf8_length(b).to_pyarrow().equals(pc.utf8_length(arr)) if t in TEXT else True


def _device_import(offsets_ptr, data_ptr, length):
    """am_import_device of a utf8 CUDA array over raw pointers: the status, the
    message and how many times the struct was released."""
    from arrowmetal._capi import ffi, lib

    schema = ffi.new("struct ArrowSchema *")
    schema.format = keep_format = ffi.new("char[]", b"u")
    schema.name = keep_name = ffi.new("char[]", b"")
    released = []

    @ffi.callback("void(struct ArrowSchema *)")
    def release_schema(sch):
        sch.release = ffi.NULL

    schema.release = release_schema

    @ffi.callback("void(struct ArrowArray *)")
    def release(arr):
        released.append(1)
        arr.release = ffi.NULL

    buffers = ffi.new("void *[3]", [ffi.NULL, ffi.cast("void *", offsets_ptr),
                                    ffi.cast("void *", data_ptr)])  # fmt: skip
    dev = ffi.new("struct ArrowDeviceArray *")
    dev.array.length = length
    dev.array.null_count = 0
    dev.array.n_buffers = 3
    dev.array.buffers = ffi.cast("const void **", buffers)
    dev.array.release = release
    dev.device_type = lib.ARROW_DEVICE_CUDA
    dev.device_id = 0
    out = ffi.new("am_array **")
    cuda = ffi.new("am_device **")
    assert lib.am_device_open(b"cuda:0", cuda) == lib.AM_OK
    rc = lib.am_import_device(schema, dev, cuda[0], out)
    message = ffi.string(lib.am_last_error()).decode()
    del keep_format, keep_name
    if rc == lib.AM_OK:
        lib.am_release(out[0])
    return rc, message, len(released)


@needs_cuda
def test_bad_device_imports_are_refused():
    torch = pytest.importorskip("torch")
    from arrowmetal._capi import lib

    data = torch.zeros(16, dtype=torch.uint8, device="cuda")
    bad = torch.tensor([0, 5, 3, 6], dtype=torch.int32, device="cuda")
    good = torch.tensor([0, 2, 3, 6], dtype=torch.int32, device="cuda")
    torch.cuda.synchronize()
    rc, message, released = _device_import(bad.data_ptr(), data.data_ptr(), 3)
    assert rc == lib.AM_EINVAL and "never decrease (value 3 at slot 2)" in message, message
    assert released == 1
    host_bytes = np.zeros(16, np.uint8)
    rc, message, released = _device_import(good.data_ptr(), host_bytes.ctypes.data, 3)
    assert rc == lib.AM_EINVAL and "not CUDA device memory" in message, message
    assert released == 1
    rc, message, released = _device_import(good.data_ptr() + 2, data.data_ptr(), 2)
    assert rc == lib.AM_EINVAL and "not aligned" in message, message
    assert released == 1
    rc, message, released = _device_import(good.data_ptr(), data.data_ptr(), 3)
    assert rc == lib.AM_OK and released == 1, message


@pytest.mark.parametrize("t", TEXT + BYTES[:1])
def test_functions_on_the_device_match_pyarrow(device, t):
    arr = sample(t, 4000, seed=7, offset=11)
    a = placed(arr, device)
    names = ["binary_length"]
    if t in TEXT:
        names += ["utf8_length", "ascii_upper", "ascii_lower", "utf8_upper", "utf8_lower",
                  "utf8_trim_whitespace", "ascii_ltrim_whitespace"]  # fmt: skip
    for name in names:
        got = getattr(am, name)(a)
        assert got.backend == device, name
        assert host(got).equals(getattr(pc, name)(arr)), name
    for pattern in ["", "a", "ab", "é", "zz"]:
        for name in ["starts_with", "ends_with", "match_substring", "find_substring",
                     "count_substring"]:  # fmt: skip
            if t in BYTES and name in ("starts_with", "ends_with", "match_substring"):
                p = pattern.encode()
            else:
                p = pattern
            got = getattr(am, name)(a, p)
            assert got.backend == device
            assert host(got).equals(getattr(pc, name)(arr, p)), (name, pattern)
    for pattern in ["a%", "%b", "%a%", "a_", "%\\%%", "a\\_b", "_%_", "ab\\", "%", ""]:
        got = am.match_like(a, pattern)
        assert host(got).equals(pc.match_like(arr, pattern)), pattern
    folding = ["abc", "ABC", None, "xa", "", "\u212a", "ſtraẞe", "ǅ"] * 50
    if t in BYTES:
        folding = [None if w is None else w.encode() for w in folding]
    folding = pa.array(folding, t)
    for name, p in [("match_substring", "A"), ("find_substring", "k"), ("match_like", "%SS%"),
                    ("count_substring", "s"), ("starts_with", "ǆ")]:  # fmt: skip
        p = p.encode() if t in BYTES else p
        got = getattr(am, name)(placed(folding, device), p, ignore_case=True)  # on the host
        assert host(got).equals(getattr(pc, name)(folding, p, ignore_case=True)), name
    if t in TEXT:
        # a LIKE expression RE2 refuses (not UTF-8): the device declines, the host fails
        for module, x in [(pc, arr), (am, a)]:
            with pytest.raises(pa.ArrowInvalid, match="invalid UTF-8"):
                module.match_like(x, b"a\xff_")
        got = am.utf8_slice_codeunits(a, 1, 3)
        assert host(got).equals(pc.utf8_slice_codeunits(arr, 1, 3))


@pytest.mark.parametrize("t", [pa.string(), pa.large_binary()])
def test_compare_select_and_nulls_on_the_device(device, t):
    arr = sample(t, 3000, seed=1, offset=5)
    other = sample(t, 3000, seed=2, offset=1)
    a, b = placed(arr, device), placed(other, device)
    value = "ab" if t in TEXT else b"ab"
    for name in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]:
        got = getattr(am, name)(a, b)
        assert got.backend == device
        assert host(got).equals(getattr(pc, name)(arr, other)), name
        assert host(getattr(am, name)(a, value)).equals(getattr(pc, name)(arr, value)), name
    mask = pc.greater(pc.binary_length(arr), 1)
    for mode in ["drop", "emit_null"]:
        got = am.filter(a, placed(mask, device), null_selection_behavior=mode)
        assert got.backend == device
        assert host(got).equals(pc.filter(arr, mask, null_selection_behavior=mode)), mode
    rng = np.random.default_rng(9)
    for it in [pa.int32(), pa.int64(), pa.int8()]:
        raw = rng.integers(0, min(len(arr), 127), 2000)
        idx = pa.array([None if k % 7 == 0 else int(k) for k in raw], it)
        got = am.take(a, placed(idx, device))
        assert host(got).equals(pc.take(arr, idx)), it
    with pytest.raises(IndexError, match="out of bounds"):
        am.take(a, placed(pa.array([0, len(arr)], pa.int64()), device))
    assert host(am.drop_null(a)).equals(pc.drop_null(arr))
    assert host(am.is_null(a)).equals(pc.is_null(arr))
    assert host(am.is_valid(a)).equals(pc.is_valid(arr))
    assert host(am.fill_null(a, value)).equals(pc.fill_null(arr, value))
    assert host(am.coalesce(a, b)).equals(pc.coalesce(arr, other))
    cond = pc.is_valid(other)
    assert host(am.if_else(placed(cond, device), a, b)).equals(pc.if_else(cond, arr, other))
    from arrowmetal._array import wrap
    from arrowmetal._capi import ffi, lib

    out = ffi.new("am_array **")
    handles = ffi.new("am_array *[]", [a.handle, b.handle])
    assert lib.am_concat(handles, 2, ffi.NULL, out) == lib.AM_OK
    joined = wrap(out[0])
    assert joined.backend == device
    assert joined.to_pyarrow().equals(pa.concat_arrays([arr, other]))
    for name in ["min", "max", "first", "last"]:
        assert getattr(am, name)(a).as_py() == getattr(pc, name)(arr).as_py(), name


def test_casts_sorts_groups_and_joins_with_device_strings(device):
    words = pa.array([str(k % 17) if k % 5 else None for k in range(500)])
    a = placed(words, device)
    ints = am.cast(a, pa.int64())
    assert ints.backend == device
    assert host(ints).equals(pc.cast(words, pa.int64()))
    back = am.cast(placed(pa.array(range(100)), device), pa.string())
    assert back.backend == device
    assert host(back).equals(pc.cast(pa.array(range(100)), pa.string()))
    assert host(am.sort_indices(a)).equals(pc.sort_indices(words))
    table = pa.table({"k": words, "v": pa.array(range(500))})
    got = am.group_by(am.table(table, device=device), "k").aggregate([("v", "sum")])
    want = table.group_by("k", use_threads=False).aggregate([("v", "sum")])
    assert got.sort_by("k").equals(want.sort_by("k"))
    right = pa.table({"k": pa.array([str(k) for k in range(10)]), "w": pa.array(range(10))})
    got = am.join(am.table(table, device=device), am.table(right, device=device), "k",
                  join_type="inner")  # fmt: skip
    want = table.join(right, "k", join_type="inner")
    assert pa.table(got).sort_by("v").equals(want.sort_by("v"))


def _sorted(table):
    # by every column (a join's may share names)
    table = table.rename_columns([f"c{i}" for i in range(table.num_columns)])
    return table.sort_by([(name, "ascending") for name in table.column_names])


@pytest.mark.parametrize("t", [*TEXT, *BYTES])
@pytest.mark.parametrize(("n", "offset"), [(1, 0), (37, 5), (5000, 13)])
def test_group_by_string_keys_on_the_device(device, t, n, offset):
    # on a GPU, string keys group there as ids (abi/string_key_ids.c)
    keys = sample(t, n, seed=n + 7, offset=offset)
    rng = np.random.default_rng(n)
    table = pa.table({
        "k": keys,
        "j": pa.array(rng.integers(0, 3, n)),
        "v": pa.array(rng.integers(-50, 50, n), mask=rng.random(n) < 0.1),
    })  # fmt: skip
    aggs = [
        ("v", "sum"),
        ("v", "count"),
        ("v", "min"),
        ("v", "max"),
        ("v", "mean"),
        ([], "count_all"),
    ]
    for by in (["k"], ["k", "j"], ["j", "k"]):
        got = am.group_by(am.table(table, device=device), by).aggregate(aggs)
        want = table.group_by(by, use_threads=False).aggregate(aggs)
        assert got.schema == want.schema, by
        assert _sorted(got).equals(_sorted(want)), by
        if by == ["k"]:  # groups in the order of their first rows, as pyarrow's here
            assert got.column("k").equals(want.column("k"))


def test_group_by_all_equal_and_all_null_string_keys(device):
    for keys in (pa.array(["x"] * 300), pa.array([None] * 300, pa.string())):
        table = pa.table({"k": keys, "v": pa.array(range(300))})
        got = am.group_by(am.table(table, device=device), "k").aggregate([("v", "sum")])
        assert got.equals(table.group_by("k", use_threads=False).aggregate([("v", "sum")]))


JOINS = ["inner", "left outer", "right outer", "full outer",
         "left semi", "left anti", "right semi", "right anti"]  # fmt: skip


@pytest.mark.parametrize("t", [pa.string(), pa.large_binary()])
@pytest.mark.parametrize("join_type", JOINS)
def test_join_by_string_keys_on_the_device(device, t, join_type):
    left = pa.table({"k": sample(t, 400, seed=1), "j": pa.array(np.arange(400) % 3),
                     "v": pa.array(range(400))})  # fmt: skip
    right = pa.table({"k": sample(t, 60, seed=2, offset=3), "j": pa.array(np.arange(60) % 2),
                      "w": pa.array(range(60))})  # fmt: skip
    for by in ("k", ["k", "j"]):
        got = am.join(am.table(left, device=device), am.table(right, device=device), by,
                      join_type=join_type)  # fmt: skip
        want = left.join(right, by, join_type=join_type)
        got = pa.table(got)
        assert got.schema == want.schema, by
        assert _sorted(got).equals(_sorted(want)), by


def test_join_by_string_keys_with_an_empty_side(device):
    left = pa.table({"k": pa.array(["a", None, "b"]), "v": pa.array([1, 2, 3])})
    empty = pa.table({"k": pa.array([], pa.string()), "w": pa.array([], pa.int64())})
    for a, b in ((left, empty), (empty, left.rename_columns(["k", "w"]))):
        for join_type in JOINS:
            got = am.join(am.table(a, device=device), am.table(b, device=device), "k",
                          join_type=join_type)  # fmt: skip
            want = a.join(b, "k", join_type=join_type)
            assert _sorted(pa.table(got)).equals(_sorted(want)), join_type


@needs_cuda
def test_string_keys_group_and_join_without_a_host_copy():
    # 200,000 keys of 17 distinct values: a host round trip would copy their
    # bytes and offsets to the host; ids on the GPU leave the host only the
    # results (17 groups, the join's index pairs on the device)
    words = pa.array([f"key-{k % 17:04d}" for k in range(200_000)])
    table = am.table(pa.table({"k": words, "v": pa.array(range(200_000))}), device="cuda")
    right = am.table(pa.table({"k": pa.array([f"key-{k:04d}" for k in range(20)]),
                               "w": pa.array(range(20))}), device="cuda")  # fmt: skip
    key_bytes = words.nbytes
    for run in (
        lambda: am.group_by(table, "k").aggregate([("v", "sum")]),
        lambda: am.join(table, right, "k", join_type="left semi"),
    ):
        run()  # kernels compiled, pools warm
        before = am.memory_info("cpu")["bytes_in_use"]
        am.reset_peak_memory("cpu")
        run()
        grew = am.memory_info("cpu")["peak_bytes"] - before
        assert grew < key_bytes // 4, (grew, key_bytes)
