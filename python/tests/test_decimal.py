"""decimal128 / decimal256 against pyarrow.compute: import and export
zero-copy, the calls that move slots, the null functions; every result
compared with pyarrow's (values, type, precision and scale)."""

import decimal
import random

import pytest

import arrowmetal as am
from arrowmetal._capi import ffi, lib

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

D = decimal.Decimal
# (constructor, precision, scale): narrow, wide, the widest of each width, a
# scale of 0 and one of the precision.
TYPES = [
    (pa.decimal128, 5, 2),
    (pa.decimal128, 18, 0),
    (pa.decimal128, 38, 10),
    (pa.decimal128, 7, 7),
    (pa.decimal256, 40, 5),
    (pa.decimal256, 76, 20),
]
IDS = [f"{c.__name__[-3:]}_{p}_{s}" for c, p, s in TYPES]


def values(precision, scale, n=40, seed=0):
    """Values of the type: random, negative, zero, at the precision's edges
    (10^p - 1 and its negation), and nulls."""
    rng = random.Random(seed * 1000 + precision * 10 + scale)
    top = 10**precision - 1
    out = [top, -top, 0, 1, -1, None]
    while len(out) < n:
        digits = rng.randint(1, precision)
        v = rng.randint(-(10**digits - 1), 10**digits - 1)
        out.append(None if rng.random() < 0.15 else v)
    return [None if v is None else D(f"{v}E{-scale}") for v in out]


def array(t, seed=0, n=40):
    ctor, p, s = t
    return pa.array(values(p, s, n, seed), ctor(p, s))


def same(ours, theirs):
    got = ours.to_pyarrow() if hasattr(ours, "to_pyarrow") else ours
    assert got.type == theirs.type
    assert got.to_pylist() == theirs.to_pylist()


pytestmark = pytest.mark.usefixtures("no_fallback")  # conftest.py


@pytest.mark.parametrize("t", TYPES, ids=IDS)
def test_import_export_round_trip_keeps_precision_scale_and_buffers(t):
    a = array(t)
    ours = am.array(a)
    wide = ",256" if t[0] is pa.decimal256 else ""
    assert ours.arrow_format == f"d:{t[1]},{t[2]}{wide}"
    assert lib.am_array_decimal_precision(ours._ptr) == t[1]
    assert lib.am_array_decimal_scale(ours._ptr) == t[2]
    back = ours.to_pyarrow()
    assert back.equals(a)
    assert back.buffers()[1].address == a.buffers()[1].address  # zero-copy both ways
    sliced = am.array(a.slice(3, 20))
    assert sliced.to_pyarrow().equals(a.slice(3, 20))


@pytest.mark.parametrize("t", TYPES, ids=IDS)
@pytest.mark.parametrize("offset", [0, 5])
def test_selection_matches_pyarrow(t, offset):
    a = array(t).slice(offset)
    n = len(a)
    rng = random.Random(n)
    idx = pa.array([rng.choice([None, *range(n)]) for _ in range(25)], pa.int32())
    mask = pa.array([rng.choice([True, False, None]) for _ in range(n)])
    same(am.take(a, idx), pc.take(a, idx))
    same(am.take(a, idx.cast(pa.uint16())), pc.take(a, idx.cast(pa.uint16())))
    same(am.filter(a, mask), pc.filter(a, mask))
    same(
        am.filter(a, mask, null_selection_behavior="emit_null"),
        pc.filter(a, mask, null_selection_behavior="emit_null"),
    )
    same(am.drop_null(a), pc.drop_null(a))
    same(am.is_null(a), pc.is_null(a))
    same(am.is_valid(a), pc.is_valid(a))
    assert am.count(a).as_py() == pc.count(a).as_py()
    assert am.count(a, mode="only_null").as_py() == pc.count(a, mode="only_null").as_py()
    joined = am.array(pa.chunked_array([a, a.slice(2, 7)]))  # am_concat of the chunks
    same(joined, pa.concat_arrays([a, a.slice(2, 7)]))


def test_take_out_of_bounds_and_mixed_concat_are_refused():
    a = array(TYPES[0])
    with pytest.raises(IndexError):
        am.take(a, pa.array([0, 400]))
    handles = [am.array(a), am.array(array(TYPES[1]))]
    out = ffi.new("am_array **")
    rc = lib.am_concat(ffi.new("am_array *[]", [h._ptr for h in handles]), 2, ffi.NULL, out)
    assert rc == lib.AM_ETYPE
    assert "decimal128(5, 2) and decimal128(18, 0)" in ffi.string(lib.am_last_error()).decode()


@pytest.mark.parametrize("t", TYPES, ids=IDS)
def test_null_functions_match_pyarrow(t):
    ctor, p, s = t
    a, b = array(t, 1), array(t, 2)
    cond = pa.array([random.Random(i).choice([True, False, None]) for i in range(len(a))])
    fill = pa.scalar(D(f"1E{-s}"), ctor(p, s))
    same(am.fill_null(a, b), pc.fill_null(a, b))
    same(am.fill_null(a, fill), pc.fill_null(a, fill))
    if p > s:
        same(am.fill_null(a, 3), pc.fill_null(a, 3))
    else:  # no digit left of the point for a 3
        for f in (am.fill_null, pc.fill_null):
            with pytest.raises(pa.ArrowInvalid):
                f(a, 3)
    same(am.coalesce(a, b, fill), pc.coalesce(a, b, fill))
    same(am.if_else(cond, a, b), pc.if_else(cond, a, b))
    same(am.if_else(cond, a, fill), pc.if_else(cond, a, fill))
    same(am.if_else(cond, fill, b), pc.if_else(cond, fill, b))


def test_a_python_decimal_fill_is_rescaled_or_refused_as_pyarrow_does():
    a = pa.array([D("1.23"), None, D("-4.50")], pa.decimal128(5, 2))
    same(am.fill_null(a, D("0.5")), pc.fill_null(a, D("0.5")))
    same(am.fill_null(a, pa.scalar(D("2"), pa.decimal256(40, 0))), pc.fill_null(a, D("2")))
    with pytest.raises(pa.ArrowInvalid, match="Rescaling Decimal value would cause data loss"):
        pc.fill_null(a, D("1.234"))
    with pytest.raises(am.ArrowMetalInvalid, match="Rescaling Decimal value would cause data loss"):
        am.fill_null(a, D("1.234"))
    with pytest.raises(am.ArrowMetalInvalid, match="does not fit in precision 5"):
        am.fill_null(a, D("1234.5"))


def test_decimal32_and_64_are_refused_clearly():
    for t in (pa.decimal32(5, 2), pa.decimal64(12, 2)):
        with pytest.raises(am.ArrowMetalTypeError, match=r"decimal(32|64).* is not supported"):
            am.array(pa.array([D("1.5")], t))


COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
# pairs of types pyarrow compares (a common type exists), scales apart too
PAIRS = [(TYPES[0], TYPES[0]), (TYPES[0], TYPES[1]), (TYPES[2], TYPES[3]), (TYPES[1], TYPES[4])]


@pytest.mark.parametrize(("tl", "tr"), PAIRS, ids=[f"{i}" for i in range(len(PAIRS))])
@pytest.mark.parametrize("name", COMPARE)
def test_compare_matches_pyarrow_across_scales_and_widths(tl, tr, name):
    a, b = array(tl, 3), array(tr, 4)
    same(getattr(am, name)(a, b), getattr(pc, name)(a, b))
    same(getattr(am, name)(a.slice(4), b.slice(4)), getattr(pc, name)(a.slice(4), b.slice(4)))
    for scalar in (b[0], b[3], a[7], pa.scalar(None, b.type)):
        same(getattr(am, name)(a, scalar), getattr(pc, name)(a, scalar))
    same(getattr(am, name)(a, D("1")), getattr(pc, name)(a, D("1")))


def test_compare_without_a_common_type_fails_as_pyarrow():
    a = pa.array([D(1)], pa.decimal128(38, 0))
    b = pa.array([D("1.0")], pa.decimal128(38, 1))
    with pytest.raises(pa.ArrowInvalid, match=r"Decimal precision out of range \[1, 38\]: 39"):
        pc.equal(a, b)
    with pytest.raises(pa.ArrowInvalid, match=r"Decimal precision out of range \[1, 38\]: 39"):
        am.equal(a, b)


def _scalar_same(ours, theirs):
    assert ours.type == theirs.type
    assert ours.as_py() == theirs.as_py()


@pytest.mark.parametrize("t", TYPES, ids=IDS)
@pytest.mark.parametrize("name", ["sum", "mean", "min", "max"])
def test_aggregates_match_pyarrow(t, name):
    a = array(t, 5)
    for x in (a, a.slice(6, 9), a.slice(0, 0), pa.array([None, None], a.type)):
        _scalar_same(getattr(am, name)(x), getattr(pc, name)(x))
        for kw in ({"skip_nulls": False}, {"min_count": 0}, {"min_count": 30}):
            _scalar_same(getattr(am, name)(x, **kw), getattr(pc, name)(x, **kw))
    r, e = am.min_max(a), pc.min_max(a)
    assert r.as_py() == e.as_py()


def test_sum_and_mean_wrap_at_the_width_as_pyarrow():
    for t in (pa.decimal128(38, 0), pa.decimal256(76, 3)):
        top = D("9" * t.precision + f"E-{t.scale}")
        a = pa.array([top, top, top], t)
        _scalar_same(am.sum(a), pc.sum(a))
        _scalar_same(am.mean(a), pc.mean(a))
    # half away from zero
    for v in (["0.01", "0.02"], ["-0.01", "-0.02"], ["0.01", "0.01", "0.02"]):
        a = pa.array([D(x) for x in v], pa.decimal128(5, 2))
        _scalar_same(am.mean(a), pc.mean(a))


@pytest.mark.parametrize("t", TYPES, ids=IDS)
def test_hash_functions_match_pyarrow(t):
    base = array(t, 6, n=12)
    a = pa.concat_arrays([base, base.slice(2, 6), base.slice(0, 3)])  # repeats
    same(am.unique(a), pc.unique(a))
    ours, theirs = am.value_counts(a), pc.value_counts(a)
    assert ours.to_pylist() == theirs.to_pylist()
    for mode in ("only_valid", "only_null", "all"):
        assert am.count_distinct(a, mode=mode).as_py() == pc.count_distinct(a, mode=mode).as_py()
    wider = pa.decimal256(min(t[1] + 1, 76), t[2] + 1 if t[1] < 76 else t[2])
    for value_set in (base.slice(1, 5), base.cast(wider)):
        for skip in (True, False):
            kw = {"value_set": value_set, "skip_nulls": skip}
            same(am.is_in(a, **kw), pc.is_in(a, **kw))
            same(am.index_in(a, **kw), pc.index_in(a, **kw))


ARITH = ["add", "subtract", "multiply", "divide"]
ARITH_PAIRS = [
    (TYPES[0], TYPES[0]),
    (TYPES[0], TYPES[1]),
    (TYPES[1], TYPES[4]),
    (TYPES[3], TYPES[0]),
]


@pytest.mark.parametrize(("tl", "tr"), ARITH_PAIRS, ids=[f"{i}" for i in range(len(ARITH_PAIRS))])
@pytest.mark.parametrize("name", ARITH + [f"{n}_checked" for n in ARITH])
def test_arithmetic_matches_pyarrow_types_and_values(tl, tr, name):
    a, b = array(tl, 7), array(tr, 8)
    if name.startswith("divide"):  # no zero divisors here: that error has its own test
        b = pc.if_else(pc.equal(b, 0), pa.scalar(D(1), b.type), b)
    same(getattr(am, name)(a, b), getattr(pc, name)(a, b))
    for scalar in (b[1], 3):
        same(getattr(am, name)(a, scalar), getattr(pc, name)(a, scalar))


def test_arithmetic_errors_are_pyarrows():
    big = pa.array([D("9" * 38)], pa.decimal128(38, 0))
    for name in ("add", "multiply"):
        with pytest.raises(pa.ArrowInvalid, match=r"Decimal precision out of range \[1, 38\]"):
            getattr(am, name)(big, big)
    a = pa.array([D("1.23"), None], pa.decimal128(5, 2))
    zero = pa.array([D("0"), D("0")], pa.decimal128(3, 1))
    with pytest.raises(pa.ArrowInvalid, match="Divide by zero"):
        pc.divide(a, zero)
    with pytest.raises(am.ArrowMetalZeroDivisionError, match="Divide by zero"):
        am.divide(a, zero)


@pytest.mark.skipif(not {n: ok for n, ok, _ in am.backends()}["cuda"], reason="needs a CUDA device")
def test_gpu_devices_refuse_decimals_cleanly():
    # decimals live in host memory only so far (issue #13): a clear refusal, not a crash
    for t in (pa.decimal128(5, 2), pa.decimal256(40, 2)):
        with pytest.raises(am.ArrowMetalError, match="decimals are not yet on cuda"):
            am.array(pa.array([D("1.25"), None], t), device="cuda")
