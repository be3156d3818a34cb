"""cast from and to decimal128 / decimal256 against pyarrow.compute.cast:
every result's bytes, or the error's class and words, are pyarrow's (its
digits where they are not the nearest ones, too)."""

import random
import struct

import pytest

import arrowmetal as am
from arrowmetal._capi import ffi, lib

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

from .test_decimal import IDS, TYPES, array

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
TARGETS = [pa.decimal128(5, 2), pa.decimal128(38, 0), pa.decimal128(20, 12), pa.decimal256(40, 5),
           pa.decimal256(76, 70), pa.float32(), pa.float64()] + [pa.type_for_alias(t) for t in INTS]  # fmt: skip
FLAG_SETS = [{"safe": True}, {"safe": False}, {"allow_decimal_truncate": True},
             {"allow_int_overflow": True}, {"allow_float_truncate": True}]  # fmt: skip


pytestmark = pytest.mark.usefixtures("no_fallback")  # conftest.py


def outcome(fn):
    try:
        r = fn()
    except (ValueError, TypeError, NotImplementedError) as e:
        return (
            "error",
            ValueError if isinstance(e, ValueError) else type(e),
            str(e).split(": ", 1)[-1] if "am_cast" in str(e) else str(e),
        )
    return ("ok", r.to_pyarrow() if hasattr(r, "to_pyarrow") else r)


def cast_both(values, target, flags):
    if "safe" in flags:
        args = {"target_type": target, "safe": flags["safe"]}
    else:
        args = {"options": pc.CastOptions(target, **flags)}
    return outcome(lambda: am.cast(values, **args)), outcome(lambda: pc.cast(values, **args))


def assert_same(ours, theirs):
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "error":
        assert ours[1:] == (ValueError, theirs[2]), (ours, theirs)
        return
    got, want = ours[1], theirs[1]
    assert got.type == want.type
    assert got.is_null().to_pylist() == want.is_null().to_pylist()
    valid = pc.is_valid(want)
    # bytes, not values: float NaN payloads and decimals beyond their precision
    # (an unchecked cast keeps what the width holds) compare too
    g, w = got.filter(valid), want.filter(valid)
    width = g.type.byte_width
    assert (
        g.buffers()[1].to_pybytes()[: len(g) * width]
        == w.buffers()[1].to_pybytes()[w.offset * width : (w.offset + len(w)) * width]
    )


@pytest.mark.parametrize("t", TYPES, ids=IDS)
@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_decimal_sources_match_pyarrow_under_every_flag_set(t, target):
    values = array(t, seed=3, n=24)
    for part in (values, values.slice(5, 11)):
        for flags in FLAG_SETS:
            assert_same(*cast_both(part, target, flags))
        # the values pyarrow can cast safely, so that the checked path is seen to succeed
        keep = pc.is_valid(pc.cast(part, target, safe=False))
        assert_same(*cast_both(part.filter(keep).slice(0, 1), target, {"safe": True}))


@pytest.mark.parametrize("source", INTS)
def test_integer_sources_match_pyarrow_and_its_precision_rule(source):
    t = pa.type_for_alias(source)
    lo, hi = pc.min_max(pa.array([0], t).cast(t)).values()
    bounds = pa.array([0, 1, None, -1 if source[0] == "i" else 2], t)
    for target in TARGETS[:5] + [pa.decimal128(3, 0), pa.decimal128(10, -2), pa.decimal256(76, 56)]:
        for flags in ({"safe": True}, {"safe": False}):
            assert_same(*cast_both(bounds, target, flags))
    info = {"int8": (-128, 127), "uint64": (0, 2**64 - 1), "int64": (-(2**63), 2**63 - 1)}
    if source in info:
        edge = pa.array(list(info[source]), t)
        assert_same(*cast_both(edge, pa.decimal128(38, 18), {"safe": True}))
        assert_same(*cast_both(edge, pa.decimal256(76, 50), {"safe": True}))
    assert lo.is_valid and hi.is_valid


def random_floats(rng, n):
    out = []
    for _ in range(n):
        k = rng.random()
        if k < 0.3:
            out.append(rng.uniform(-1, 1) * 10 ** rng.randint(-12, 12))
        elif k < 0.5:
            out.append(rng.randint(-(10**6), 10**6) / 10 ** rng.randint(0, 6))
        elif k < 0.6:
            out.append(struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0])
        else:
            out.append(rng.uniform(-1, 1) * 10 ** rng.randint(-40, 80))
    return out


@pytest.mark.parametrize("single", [False, True], ids=["float64", "float32"])
def test_float_sources_match_pyarrows_digits(single):
    """Random floats to random decimal types: pyarrow's digits exactly,
    including those its stepwise scaling leaves one unit off the nearest."""
    rng = random.Random(11 + single)
    ft = pa.float32() if single else pa.float64()
    for _ in range(150):
        wide = rng.random() < 0.5
        p = rng.randint(1, 76 if wide else 38)
        s = rng.randint(-3, p) if rng.random() < 0.1 else rng.randint(0, p)
        target = (pa.decimal256 if wide else pa.decimal128)(p, s)
        values = pa.array(random_floats(rng, 6), pa.float64()).cast(ft, safe=False)
        for v in values:  # one at a time: a failing value fails the whole cast
            for flags in ({"safe": True}, {"safe": False}):
                assert_same(*cast_both(pa.array([v.as_py()], ft), target, flags))


def test_pyarrows_known_float_digits_and_errors():
    third = pa.array([1 / 3])
    got = am.cast(third, pa.decimal128(38, 37)).to_pyarrow()
    assert str(got[0]) == "0.3333333333333333148296162562473909930"  # nearest: ...9929
    ties = pa.array([0.125, -0.125, 0.375, 2.5e-2])
    assert_same(*cast_both(ties, pa.decimal128(5, 2), {"safe": True}))
    for bad in (float("nan"), float("inf"), -1e10):
        for target in (pa.decimal128(5, 2), pa.decimal256(5, 2)):
            assert_same(*cast_both(pa.array([bad, 1.0]), target, {"safe": True}))
            assert_same(*cast_both(pa.array([bad, 1.0]), target, {"allow_float_truncate": True}))


def test_a_scale_up_that_wraps_passes_as_in_pyarrow():
    """Arrow sees a wrapped scale-up only when it changes the sign: 3e37 to
    decimal128(38, 10) wraps to a 38-digit value and passes."""
    wraps = pa.array([3 * 10**37], pa.decimal128(38, 0))
    assert_same(*cast_both(wraps, pa.decimal128(38, 10), {"safe": True}))
    widened = am.cast(wraps, pa.decimal256(76, 20)).to_pyarrow()
    assert widened.to_pylist() == pc.cast(wraps, pa.decimal256(76, 20)).to_pylist()


def test_the_c_calls_refuse_what_they_cannot_do():
    a = am.array(pa.array([1, 2], pa.int32()))
    out = ffi.new("am_array **")
    assert lib.am_cast(a._ptr, lib.AM_DECIMAL128, lib.AM_CAST_SAFE, out) == lib.AM_EINVAL
    assert "am_cast_decimal" in ffi.string(lib.am_last_error()).decode()
    assert lib.am_cast_decimal(a._ptr, lib.AM_INT64, 5, 0, 1, out) == lib.AM_ETYPE
    assert lib.am_cast_decimal(a._ptr, lib.AM_DECIMAL128, 39, 0, 1, out) == lib.AM_EINVAL
    assert lib.am_cast_decimal(a._ptr, lib.AM_DECIMAL128, 12, 0, 0x40, out) == lib.AM_EINVAL
    d = am.array(pa.array([1], pa.decimal128(5, 2)))
    assert lib.am_cast(d._ptr, lib.AM_BOOL, lib.AM_CAST_SAFE, out) == lib.AM_ETYPE
