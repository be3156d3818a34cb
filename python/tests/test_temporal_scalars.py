"""Temporal scalars (pyarrow's and numpy's) meeting temporal arrays, against
pyarrow 26: compare in both operand orders for every unit, date, time and
duration, with and without a time zone; the zone and unit pairs the library
cannot read natively (pyarrow's answer or error, counted); fill_null, index
and full with temporal values. A scalar reaches am_scalar as its storage
integer, never as the truth of its Python value (the bug of issue #13's
dictionary work)."""

import datetime
import warnings

import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")
np = pytest.importorskip("numpy")

COMPARE = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
TYPES = [pa.timestamp(u, tz) for u in ("s", "ms", "us", "ns") for tz in (None, "America/New_York")]
TYPES += [pa.date32(), pa.date64(), pa.time32("s"), pa.time32("ms")]
TYPES += [pa.time64("us"), pa.time64("ns")] + [pa.duration(u) for u in ("s", "ms", "us", "ns")]


def _array(t):
    """Values around the scalar (index 3) on both sides, a null, a value
    whose truth differs from the scalar's (0) and, where the type allows,
    one before 1970."""
    step = 86_400_000 if t == pa.date64() else 1
    lo = 0 if pa.types.is_time(t) else -3
    values = [step * v for v in (lo, 0, 1, 2, 3, 40_000)] + [None]
    storage = pa.int32() if t.bit_width == 32 else pa.int64()
    return pa.array(values, storage).view(t)


def _native(function, *args):
    """function(*args), checked to have run without pyarrow."""
    before = sum(am.fallbacks().values())
    result = function(*args)
    assert sum(am.fallbacks().values()) == before, "ran in pyarrow"
    return result


def _same(got, expected):
    got = got.to_pyarrow() if isinstance(got, am.Array) else got
    assert got.equals(expected), (got, expected)


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_compare_with_a_scalar_of_the_same_type(t):
    a = _array(t)
    for s in (a[3], a[0], a[6], pa.scalar(None, t)):
        for op in COMPARE:
            _same(_native(getattr(am, op), a, s), getattr(pc, op)(a, s))
            _same(_native(getattr(am, op), s, a), getattr(pc, op)(s, a))


def test_compare_across_units_runs_natively():
    for a, s in [
        (_array(pa.timestamp("us")), pa.scalar(2, pa.timestamp("s"))),
        (
            _array(pa.timestamp("s", "Asia/Tokyo")),
            pa.scalar(2000, pa.timestamp("ms", "Asia/Tokyo")),
        ),
        # the same unit in another zone: both are instants, pyarrow compares them
        (_array(pa.timestamp("ms", "UTC")), pa.scalar(2, pa.timestamp("ms", "Asia/Tokyo"))),
        (_array(pa.date32()), pa.scalar(2 * 86_400_000, pa.date64())),
        (_array(pa.time32("s")), pa.scalar(2_000_000, pa.time64("us"))),
        (_array(pa.duration("ms")), pa.scalar(2, pa.duration("s"))),
    ]:
        for op in COMPARE:
            _same(_native(getattr(am, op), a, s), getattr(pc, op)(a, s))


def test_zones_the_library_cannot_read_go_to_pyarrow():
    naive = _array(pa.timestamp("us"))
    utc = _array(pa.timestamp("us", "UTC"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        # a scalar reaches the library without its zone: these must not be
        # read in the array's
        for a, s in [(utc, naive[3]), (naive, utc[3]), (utc, pa.scalar(None, pa.timestamp("us")))]:
            with pytest.raises(ValueError, match="Cannot compare timestamp with timezone"):
                am.equal(a, s)
        with pytest.raises(ValueError, match="Cannot compare timestamp with timezone"):
            am.less(utc, np.datetime64(3, "us"))
        tokyo_s = pa.scalar(1, pa.timestamp("s", "Asia/Tokyo"))
        with pytest.raises(pa.ArrowNotImplementedError):
            am.equal(utc, tokyo_s)  # other zone, other unit: pyarrow has no kernel
    tokyo_us = pa.scalar(2, pa.timestamp("us", "Asia/Tokyo"))  # other zone, same unit
    _same(_native(am.greater, tokyo_us, utc), pc.greater(tokyo_us, utc))


def test_numpy_scalars():
    for a, s in [
        (_array(pa.timestamp("us")), np.datetime64(2, "us")),
        (_array(pa.timestamp("ms")), np.datetime64(2000, "us")),
        (_array(pa.timestamp("s")), np.datetime64("NaT", "s")),
        (_array(pa.duration("s")), np.timedelta64(3, "s")),
        (_array(pa.duration("ns")), np.timedelta64(1, "us")),
    ]:
        for op in COMPARE:
            _same(_native(getattr(am, op), a, s), getattr(pc, op)(a, s))


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_fill_null_with_a_temporal_scalar(t):
    a = _array(t)
    s = a[3]
    if getattr(t, "tz", None) is None:  # a zoned scalar here goes to pyarrow
        _same(_native(am.fill_null, a, s), pc.fill_null(a, s))
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
            _same(am.fill_null(a, s), pc.fill_null(a, s))


def test_index_of_temporal_values():
    # am_index has no temporal kernel: pyarrow answers (counted), once the
    # value is converted without failing
    a = _array(pa.timestamp("us", "UTC"))
    d = _array(pa.date32())
    before = am.fallbacks().get("index", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        for v in (
            a[2],
            a[3].as_py(),
            40_000,
            pa.scalar(None, a.type),
            a[3].cast(pa.timestamp("us")),
        ):
            assert am.index(a, v).as_py() == pc.index(a, v).as_py(), v
        for v in (datetime.date(1970, 1, 3), d[1], 2):
            assert am.index(d, v).as_py() == pc.index(d, v).as_py(), v
    assert am.fallbacks()["index"] == before + 8


def test_full_of_a_temporal_type():
    ts = pa.timestamp("ms")
    when = datetime.datetime(2020, 2, 29, 12, 30)
    for value in (when, pa.scalar(when, ts), np.datetime64("2020-02-29T12:30", "ms"), 7):
        got = am.full(value, 2, type=ts).to_pyarrow()
        assert got.equals(pa.array([value, value], ts)), value
    assert am.full(np.datetime64("NaT", "ms"), 2, type=ts).to_pyarrow().null_count == 2
    d = am.full(datetime.date(1900, 3, 1), 1, type=pa.date32()).to_pyarrow()
    assert d.equals(pa.array([datetime.date(1900, 3, 1)], pa.date32()))
    with pytest.raises(OverflowError, match="does not fit in date32"):
        am.full(2**40, 1, type=pa.date32())
