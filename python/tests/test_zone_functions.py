"""am.is_dst and am.local_timestamp (am_zone_function) against pyarrow.compute: every
zone of the system's tz database around its listed clock changes, random sweeps of a
few zones in every unit with nulls and offsets, the int64 ends (local_timestamp wraps
as pyarrow's), empty arrays (no zone read, as pyarrow), timestamps without a zone,
unknown zones and the types without a kernel with pyarrow's error classes and words,
chunked arrays, threads and a GPU array; past the files' last transition against
Python's zoneinfo (the header's Divergence). Nothing falls back except the inputs
pyarrow has no kernel for (counted). Skipped where the system has no tz database."""

import datetime
import random
import threading
import warnings
import zoneinfo

import pytest

import arrowmetal as am

from .zone_database import (
    CUDA,
    LISTED,
    NEEDS_DATABASE,
    PER,
    UNITS,
    database_zones,
    outcome,
    same,
    transitions,
)

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")
np = pytest.importorskip("numpy")

pytestmark = NEEDS_DATABASE

OPS = ["is_dst", "local_timestamp"]
ZONES = ["America/New_York", "Europe/London", "Australia/Lord_Howe", "Europe/Dublin",
         "Africa/Casablanca", "Antarctica/Troll", "Pacific/Apia", "Asia/Kolkata", "UTC",
         "+05:30", "-0800"]  # fmt: skip


def test_every_zone_around_its_clock_changes():
    rng = random.Random(2)
    zones = database_zones()
    assert len(zones) > 400
    checked = 0
    for zone in zones:
        times = np.array(transitions(zone) or [0], dtype=np.int64)
        v = (times[:, None] + np.array([-3601, -1, 0, 1, 1799, 3600])).ravel()
        unit = rng.choice(UNITS)
        a = pa.array(v * PER[unit] + rng.randrange(PER[unit]), pa.timestamp(unit, tz=zone))
        for op in OPS:
            same(getattr(am, op)(a), getattr(pc, op)(a))
        checked += len(v)
    assert checked > 50_000


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("zone", ZONES)
def test_random_sweep(zone, unit):
    rng = np.random.default_rng(abs(hash((zone, unit))) % 2**32)
    lo, hi = (x * PER[unit] for x in LISTED)
    v = rng.integers(lo, hi, 3000).tolist()
    v[::13] = [None] * len(v[::13])
    a = pa.array(v, pa.timestamp(unit, tz=zone)).slice(7)
    for op in OPS:
        same(getattr(am, op)(a), getattr(pc, op)(a))
        same(getattr(am, op)(am.array(a)), getattr(pc, op)(a))


@pytest.mark.parametrize("zone", ["Asia/Tokyo", "Asia/Kolkata", "UTC", "-0800"])
def test_int64_ends_wrap_as_pyarrow(zone):
    """local_timestamp's sum wraps at the ends of int64 (pyarrow's arithmetic)."""
    for unit in UNITS:
        a = pa.array([2**63 - 1, -(2**63) + 1, None, 0], pa.timestamp(unit, tz=zone))
        for op in OPS:
            same(getattr(am, op)(a), getattr(pc, op)(a))


def test_past_the_listed_transitions_follows_the_rule():
    """After 2037 the library reads the files' POSIX rule (as zoneinfo): New York keeps
    daylight time in the summers; pyarrow keeps the last listed offset (Divergence)."""
    zone = "America/New_York"
    zi = zoneinfo.ZoneInfo(zone)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    secs = [int((datetime.datetime(y, m, 15, 12, tzinfo=datetime.timezone.utc) - epoch)
                .total_seconds()) for y in (2040, 2100, 2500) for m in (1, 7)]  # fmt: skip
    a = pa.array(secs, pa.timestamp("s", tz=zone))
    want = [bool((epoch + datetime.timedelta(seconds=s)).astimezone(zi).dst()) for s in secs]
    assert am.is_dst(a).to_pyarrow().to_pylist() == want == [False, True] * 3
    local = [s + int((epoch + datetime.timedelta(seconds=s)).astimezone(zi).utcoffset()
                     .total_seconds()) for s in secs]  # fmt: skip
    assert am.local_timestamp(a).to_pyarrow().cast(pa.int64()).to_pylist() == local
    assert pc.is_dst(a).to_pylist() == [False] * 6  # pyarrow: winter time for ever


def test_refusals_and_empty_arrays_as_pyarrow():
    cases = [
        pa.array([0, None], pa.timestamp("s")),  # is_dst: "Timestamps have no timezone"
        pa.array([], pa.timestamp("ms")),
        pa.array([0], pa.timestamp("s", tz="Nowhere/Land")),
        pa.array([None], pa.timestamp("s", tz="Nowhere/Land")),  # the zone is read
        pa.array([], pa.timestamp("s", tz="Nowhere/Land")),  # not read: no rows
        pa.array([1], pa.int64()),
        pa.array([1.5], pa.float64()),
    ]
    for a in cases:
        for op in OPS:
            assert outcome(getattr(am, op), a, no_kernel=True) == outcome(
                getattr(pc, op), a, no_kernel=True
            ), (op, a.type)


def test_types_without_a_kernel_fall_back_counted():
    """pyarrow's own error for dates, times and durations (the library says AM_ETYPE;
    the call falls back to pyarrow, counted)."""
    before = am.fallbacks().get("is_dst", 0)
    for t in (pa.date32(), pa.time32("s"), pa.duration("s")):
        a = pa.array([1, None], pa.int32() if t.bit_width == 32 else pa.int64()).cast(t)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
            assert outcome(am.is_dst, a, no_kernel=True) == outcome(pc.is_dst, a, no_kernel=True)
    assert am.fallbacks()["is_dst"] == before + 3


def test_chunked_and_threads():
    zone = "Europe/London"
    chunks = [pa.array(np.arange(k * 10**6, (k + 1) * 10**6, 997) * 600,
                       pa.timestamp("s", tz=zone)) for k in range(3)]  # fmt: skip
    c = pa.chunked_array(chunks)
    for op in OPS:
        same(getattr(am, op)(c), getattr(pc, op)(c))
    a = pa.concat_arrays(chunks)
    want = {op: getattr(pc, op)(a) for op in OPS}
    errors = []

    def work():
        try:
            for _ in range(20):
                for op in OPS:
                    same(getattr(am, op)(a), want[op])
        except AssertionError as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.skipif(not CUDA, reason="no CUDA device")
def test_gpu_array_runs_on_a_host_copy():
    a = pa.array([0, 1_700_000_000, None, -1_000_000_000], pa.timestamp("s", tz="Europe/Paris"))
    g = am.array(a, device="cuda")
    for op in OPS:
        r = getattr(am, op)(g)
        assert r.backend == "cuda"
        same(r, getattr(pc, op)(a))
