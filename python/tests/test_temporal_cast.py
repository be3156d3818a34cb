"""am.cast with temporal types (issue #13) against pyarrow.compute.cast: every pair
of temporal types and their storage integers, safe and unsafe and with CastOptions'
time checks lifted, target time zones, chunked inputs, and a local day or time
of day under a time zone other than UTC (test_timezone.py sweeps the zones). The
C library's side is conformance/cases/temporal.json's cast cases."""

import itertools
import os

import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

TEMPORAL = (
    [pa.timestamp(u) for u in ("s", "ms", "us", "ns")]
    + [pa.duration(u) for u in ("s", "ms", "us", "ns")]
    + [pa.date32(), pa.date64(), pa.time32("s"), pa.time32("ms")]
    + [pa.time64("us"), pa.time64("ns")]
)
TYPES = TEMPORAL + [pa.int32(), pa.int64(), pa.int16(), pa.float64()]
EDGES = [0, 1, -1, 1000, -1001, 1001, 86_400_000, -86_400_001, 2**40, None]


def _array(t):
    if pa.types.is_time(t):
        values = [v for v in EDGES if v is None or 0 <= v < 86400]
    elif pa.types.is_date64(t):
        values = [0, 86_400_000, -86_400_000, None]
    elif t.bit_width <= 32:
        half = 2 ** (t.bit_width - 1)
        values = [v for v in EDGES if v is None or -half <= v < half]
    else:
        values = EDGES
    if pa.types.is_floating(t):
        return pa.array([1.5, None], t)
    storage = pa.int64() if t.bit_width == 64 else pa.int32() if t.bit_width == 32 else t
    return pa.array(values, storage).cast(t)


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the kind of error is compared
        return None, e


def _same(got, want):
    if isinstance(got, am.Array):
        got = got.to_pyarrow()
    assert got.type == want.type
    storage = pa.int64() if want.type.bit_width == 64 else pa.int32()
    assert (
        got.cast(storage).equals(want.cast(storage))
        if want.type.bit_width >= 32
        else got.equals(want)
    )


pytestmark = pytest.mark.usefixtures("no_fallback")  # conftest.py


@pytest.mark.parametrize("safe", [True, False])
@pytest.mark.parametrize(("src", "dst"), [p for p in itertools.product(TYPES, TYPES) if p[0] != p[1]
                                          and (p[0] in TEMPORAL or p[1] in TEMPORAL)])  # fmt: skip
def test_every_pair_matches_pyarrow(src, dst, safe):
    a = _array(src)
    want, want_error = _outcome(lambda: pc.cast(a, dst, safe=safe))
    got, got_error = _outcome(lambda: am.cast(a, dst, safe=safe))
    if want_error is None:
        assert got_error is None, got_error
        _same(got, want)
    elif isinstance(want_error, pa.ArrowNotImplementedError):
        assert isinstance(got_error, (TypeError, am.ArrowMetalError)), got_error
        assert f"Unsupported cast from {src} to" in str(got_error)
    else:  # pyarrow's words, its value named
        assert isinstance(got_error, ValueError), got_error
        assert str(want_error) in str(got_error)


def test_options_lift_one_time_check_each():
    ms = pa.array([1001, -1001, None], pa.timestamp("ms"))
    lift = pc.CastOptions(pa.timestamp("s"), allow_time_truncate=True)
    _same(am.cast(ms, options=lift), pc.cast(ms, options=lift))
    wrong = pc.CastOptions(pa.timestamp("s"), allow_time_overflow=True)
    with pytest.raises(ValueError, match="would lose data: 1001"):
        am.cast(ms, options=wrong)
    big = pa.array([2**62, 1], pa.timestamp("s"))
    lift = pc.CastOptions(pa.timestamp("ns"), allow_time_overflow=True)
    _same(am.cast(big, options=lift), pc.cast(big, options=lift))
    with pytest.raises(ValueError, match="out of bounds timestamp: 4611686018427387904"):
        am.cast(big, pa.timestamp("ns"))


@pytest.mark.parametrize("to_tz", [None, "UTC", "Asia/Tokyo", "+05:30"])
@pytest.mark.parametrize("from_tz", [None, "UTC", "Europe/Paris"])
@pytest.mark.parametrize("unit", ["s", "ms", "ns"])
def test_target_time_zones(from_tz, to_tz, unit):
    a = pa.array([1000, -86_401_000, None, 5], pa.timestamp("ms", tz=from_tz))
    dst = pa.timestamp(unit, tz=to_tz)
    want, want_error = _outcome(lambda: pc.cast(a, dst))
    got, got_error = _outcome(lambda: am.cast(a, dst))
    if want_error is not None:
        assert str(want_error) in str(got_error)  # the target with its time zone, as pyarrow
    else:
        _same(got, want)
    if from_tz in (None, "UTC"):
        for to in (pa.date32(), pa.date64(), pa.time32("ms"), pa.time64("us")):
            _same(am.cast(a, to), pc.cast(a, to))


def test_chunked_keeps_its_chunks():
    c = pa.chunked_array([[1001, None], [5000]], pa.timestamp("ms"))
    got = am.cast(c, pa.date32())
    assert isinstance(got, pa.ChunkedArray) and got.num_chunks == 2
    assert got.equals(pc.cast(c, pa.date32()))


def test_integers_become_timestamps():
    # am.cast(int64, timestamp) raised "Unsupported cast" before, where pyarrow casts
    a = pa.array([1, None, -5])
    _same(am.cast(a, pa.timestamp("s")), pc.cast(a, pa.timestamp("s")))
    _same(am.cast(a, pa.duration("us")), pc.cast(a, pa.duration("us")))
    with pytest.raises(TypeError, match="Unsupported cast from int32 to timestamp"):
        am.cast(pa.array([1], pa.int32()), pa.timestamp("s"))


@pytest.mark.skipif(
    not os.path.isfile("/usr/share/zoneinfo/Asia/Tokyo"), reason="no tz database (tzdata)"
)
def test_a_local_day_runs_in_the_library():
    # the zones' sweeps: python/tests/test_timezone.py
    a = pa.array([0, 3600 * 20, None], pa.timestamp("s", tz="Asia/Tokyo"))
    for to in (pa.date32(), pa.time32("s")):
        _same(am.cast(a, to), pc.cast(a, to))


def test_the_c_call_refuses_an_unknown_zone_and_flag():
    from arrowmetal._capi import ffi, lib

    arr = am.array(pa.array([0], pa.timestamp("s", tz="Nowhere/Land")))
    out = ffi.new("am_array **")
    assert lib.am_cast(arr.handle, lib.AM_DATE32, lib.AM_CAST_SAFE, out) == lib.AM_EINVAL
    assert b"Cannot locate or parse timezone 'Nowhere/Land'" in ffi.string(lib.am_last_error())
    assert lib.am_cast(arr.handle, lib.AM_DATE32, 64, out) == lib.AM_EINVAL  # an unknown flag
