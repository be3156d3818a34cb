"""floor_temporal, ceil_temporal and round_temporal of timestamps in a time zone other
than UTC (issue #13) against pyarrow 26, which rounds them in local time and refuses a
rounded local time that the clocks skipped or repeated: zones with DST both ways, 30-
and 45-minute offsets (Kolkata, Kathmandu, Chatham, Lord Howe's 30-minute DST), skipped
midnights (Sao Paulo until 2018, Beirut), fixed offsets; every unit and function around
each zone's clock changes, values and messages alike (the last failing row's, as
pyarrow's); a random sweep; pyarrow's surprises kept (a week's offset read mid-week,
round to months comparing local with UTC); nulls not read; chunked arrays; large
arrays split over threads; past 2037 the footer's rule (the header's Divergence); a GPU
array. Nothing falls back. The C library's side is conformance/cases/timezone.json."""

import datetime
import os
import random
import re
import zoneinfo

import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")
np = pytest.importorskip("numpy")

DATABASE = "/usr/share/zoneinfo"
pytestmark = [
    pytest.mark.usefixtures("no_fallback"),
    pytest.mark.skipif(
        not os.path.isfile(os.path.join(DATABASE, "America/New_York"))
        or os.environ.get("TZDIR", DATABASE) != DATABASE,
        reason=f"no tz database at {DATABASE} (Debian: apt-get install tzdata), or TZDIR "
        "points elsewhere (pyarrow reads that one only)",
    ),
]

OPS = ("floor_temporal", "ceil_temporal", "round_temporal")
CALENDAR_UNITS = ("nanosecond", "microsecond", "millisecond", "second", "minute", "hour", "day",
                  "week", "month", "quarter", "year")  # fmt: skip
FLAGS = [
    {"week_starts_monday": m, "ceil_is_strictly_greater": s, "calendar_based_origin": c}
    for m in (True, False)
    for s in (False, True)
    for c in (False, True)
]
UNITS = ("s", "ms", "us", "ns")
PER = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}
DST_ZONES = ["America/New_York", "Europe/London", "Australia/Lord_Howe", "Pacific/Chatham",
             "America/Sao_Paulo", "Europe/Dublin", "Asia/Beirut", "Pacific/Apia"]  # fmt: skip
# Zones whose offsets after 2037 are pyarrow's too (no DST in their rule), and fixed
# offsets: compared over the whole range.
STEADY_ZONES = ["Asia/Kolkata", "Asia/Kathmandu", "Asia/Tokyo", "America/Sao_Paulo",
                "+05:30", "-0800", "+12:45"]  # fmt: skip
# 1900-01-01 .. 2037-12-01: the files list every transition there (pyarrow agrees).
LISTED = (-2208988800, 2143238400)
CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]


def transitions(zone):
    from zoneinfo import _zoneinfo as pure

    times = pure.ZoneInfo.no_cache(zone)._trans_utc
    return [t for t in times if LISTED[0] <= t < LISTED[1]]


def outcome(fn, *args, **kwargs):
    """The result as pyarrow data, or ("ArrowInvalid", message) with the library's
    function name taken off its message."""
    try:
        r = fn(*args, **kwargs)
        return ("ok", r.to_pyarrow() if isinstance(r, am.Array) else r)
    except pa.ArrowInvalid as e:
        return ("ArrowInvalid", re.sub(r"^am_round_temporal: ", "", str(e)))


def same(name, a, **kw):
    """am's outcome is pyarrow's (values, or the error and its message); which."""
    got, want = outcome(getattr(am, name), a, **kw), outcome(getattr(pc, name), a, **kw)
    if got[0] == want[0] == "ok":
        assert got[1].equals(want[1]), (name, a.type, kw, got[1], want[1])
    else:
        assert got == want, (name, a.type, kw)
    return want[0]


def test_every_unit_around_every_clock_change():
    """Each zone's listed transitions up to 2020 +-{0, 1, 1799, 1800, 3599, 3600, 5400} s
    in two units turning per zone, every function and calendar unit, multiple 1 and one
    of 2, 3, 15 with a flag set: alone (most round; those whose rounded local time is
    skipped or repeated raise pyarrow's error) and the whole array (the last failing
    row's message). (Up to 2020: a ceil by 15 years stays before 2037, where the
    footer's Divergence begins.)"""
    rng = random.Random(13)
    counts = {"ok": 0, "ArrowInvalid": 0}
    for k, zone in enumerate(DST_ZONES + ["Asia/Kolkata", "Asia/Kathmandu"]):
        times = [t for t in transitions(zone) if t < 1_577_836_800]
        times = times[:4] + rng.sample(times, min(12, len(times))) + times[-4:]
        deltas = (-5400, -3600, -3599, -1800, -1799, -1, 0, 1, 1799, 1800, 3599, 3600, 5400)
        for unit in (UNITS[k % 4], UNITS[(k + 1) % 4]):
            per = PER[unit]
            v = [(t + d) * per + rng.randrange(per) for t in times for d in deltas]
            whole = pa.array(v, pa.timestamp(unit, tz=zone))
            for cu in CALENDAR_UNITS:
                for multiple, flags in ((1, FLAGS[0]), (rng.choice((2, 3, 15)), rng.choice(FLAGS))):
                    kw = dict(multiple=multiple, unit=cu, **flags)
                    for name in OPS:
                        counts[same(name, whole, **kw)] += 1
                        for i in range(0, len(v), 5):
                            counts[same(name, whole.slice(i, 1), **kw)] += 1
    assert counts["ok"] > 20_000 and counts["ArrowInvalid"] > 5_000, counts


@pytest.mark.parametrize("unit", UNITS)
def test_random_sweep(unit):
    """Random arrays, zones, functions, units, multiples and flags: DST zones between
    1900 and 2030 with multiples that keep the results before 2037 (the footer's
    Divergence past it), steady zones over the whole range and every multiple
    (timestamp[s] within +-2^62: the ends are the header's Divergence)."""
    rng = random.Random(f"zoned-{unit}")
    multiples = (1, 1, 2, 3, 7, 15, 60, 1000, 86400, 2**31 - 1)
    for _ in range(600):
        zone = rng.choice(DST_ZONES + STEADY_ZONES)
        cu = rng.choice(CALENDAR_UNITS)
        multiple = rng.choice(multiples)
        if zone in DST_ZONES:
            lo, hi = LISTED[0] * PER[unit], 1_893_456_000 * PER[unit]  # 2030
            multiple = rng.choice((1, 2, 3, 7) if cu in ("day", "week", "month", "quarter", "year")
                                  else (1, 2, 3, 7, 15, 60))  # fmt: skip
        else:
            hi = 2**62 if unit == "s" else 2**63 - 1
            hi = min(hi, 2 ** rng.randint(20, 63) - 1)
            lo = -hi - 1
        v = [rng.randint(lo, hi) if rng.random() > 0.1 else None for _ in range(rng.randint(1, 40))]
        if unit != "s" and zone not in DST_ZONES:
            v += [-(2**63), 2**63 - 1]
        a = pa.array(v, pa.int64()).view(pa.timestamp(unit, tz=zone)).slice(rng.randrange(2))
        kw = dict(multiple=multiple, unit=cu, **rng.choice(FLAGS))
        same(rng.choice(OPS), a, **kw)


def _utc(zone, y, m, d, h=0, mi=0):
    local = datetime.datetime(y, m, d, h, mi, tzinfo=zoneinfo.ZoneInfo(zone))
    return int(local.timestamp())


def test_the_clock_changes_pyarrow_refuses():
    """Rounding to the hour inside New York's repeated hour, to the second there, to the
    day where Sao Paulo's and Beirut's midnights were skipped, ceil into a gap: refused
    with pyarrow's message; the hours of 30- and 45-minute offsets round in local time."""
    ny = "America/New_York"
    cases = [
        (ny, _utc(ny, 2021, 11, 7, 1, 30), "floor_temporal", {"unit": "hour"}),
        (ny, _utc(ny, 2021, 11, 7, 1, 30) * 1000 + 7, "floor_temporal", {"unit": "second"}),
        (ny, _utc(ny, 2021, 3, 14, 1, 30), "ceil_temporal", {"unit": "hour"}),
        ("America/Sao_Paulo", _utc("America/Sao_Paulo", 2018, 11, 4, 12), "floor_temporal",
         {"unit": "day"}),
        ("Asia/Beirut", _utc("Asia/Beirut", 2021, 3, 28, 12), "round_temporal", {"unit": "day"}),
        ("Australia/Lord_Howe", _utc("Australia/Lord_Howe", 2021, 4, 4, 1, 50), "floor_temporal",
         {"unit": "minute", "multiple": 15}),
    ]  # fmt: skip
    for zone, v, name, kw in cases:
        unit = "ms" if v > 10**11 else "s"
        a = pa.array([v, None], pa.timestamp(unit, tz=zone))
        assert same(name, a, **kw) == "ArrowInvalid", (zone, name, kw)
        got = outcome(getattr(am, name), a, **kw)[1]
        assert got.startswith(("Local time does not exist: ", "Local time is ambiguous: "))
    for zone in ("Asia/Kolkata", "Asia/Kathmandu", "Pacific/Chatham", "Australia/Lord_Howe"):
        a = pa.array([_utc(zone, 2021, 6, 1, 18, 47), None], pa.timestamp("s", tz=zone))
        for name in OPS:
            assert same(name, a, unit="hour") == "ok"
            local = am.cast(getattr(am, name)(a, unit="hour"), pa.time32("s"))
            local = local.to_pyarrow()[0].as_py()
            assert local.minute == 0  # an hour of local time, whatever the offset


def test_the_last_failing_row_names_the_error():
    """pyarrow keeps each failing row's error over the one before: so does the library,
    also across the threads of a large array (both kinds, in both orders)."""
    ny = "America/New_York"
    amb = _utc(ny, 2021, 11, 7, 1, 30)  # floors into the repeated 01:00
    gap = _utc(ny, 2021, 3, 14, 1, 30)  # ceils into the skipped 02:00
    for order in ((amb, 0, gap), (gap, 0, amb), (amb, gap, None)):
        a = pa.array(order, pa.timestamp("s", tz=ny))
        assert same("ceil_temporal", a, unit="hour") == "ArrowInvalid"
    rng = np.random.default_rng(5)
    v = rng.integers(LISTED[0], LISTED[1], 600_000)
    v[[1000, 250_000, 400_000, 599_000]] = [amb, gap, amb + 1, gap + 2]
    for tail in (599_001, 599_000, 400_001):  # the last failure in different parts
        a = pa.array(v[:tail], pa.timestamp("s", tz=ny))
        assert same("ceil_temporal", a, unit="hour") == "ArrowInvalid"


def test_pyarrow_surprises_are_kept():
    """A week's offset is read where pyarrow reads it (3 or 4 days after its start: a
    New York week from the Sunday of the spring change starts at Saturday 23:00), and
    round to months compares the local value with UTC candidates."""
    ny = "America/New_York"
    sunday = pa.array([_utc(ny, 2021, 3, 14, 12)], pa.timestamp("s", tz=ny))
    for name in OPS:
        assert same(name, sunday, unit="week", week_starts_monday=False) == "ok"
    got = am.floor_temporal(sunday, unit="week", week_starts_monday=False)
    assert am.hour(got).to_pylist() == [23]  # not the local midnight: pyarrow's answer
    kolkata = pa.array(range(_utc("Asia/Kolkata", 2021, 1, 1), _utc("Asia/Kolkata", 2021, 3, 1),
                             1800), pa.timestamp("s", tz="Asia/Kolkata"))  # fmt: skip
    for cu in ("month", "quarter", "year"):
        assert same("round_temporal", kolkata, unit=cu) == "ok"


def test_nulls_are_not_read():
    ny = "America/New_York"
    base = pa.array([0, _utc(ny, 2021, 11, 7, 1, 30)], pa.timestamp("s", tz=ny))
    masked = pa.Array.from_buffers(base.type, 2, [pa.py_buffer(bytes([1])), base.buffers()[1]])
    for name in OPS:
        assert same(name, masked, unit="hour") == "ok"
        assert same(name, masked.slice(1), unit="hour") == "ok"


def test_chunked_arrays():
    ny = "America/New_York"
    t = pa.timestamp("ms", tz=ny)
    good = pa.chunked_array([[0, None, 1_700_000_000_000], [], [86_400_000]], t)
    for name in OPS:
        got = getattr(am, name)(good, 6, "hour")
        assert isinstance(got, pa.ChunkedArray)
        assert got.equals(getattr(pc, name)(good, 6, "hour"))
    amb = _utc(ny, 2021, 11, 7, 1, 30) * 1000
    bad = pa.chunked_array([[0], [amb, 1], [amb + 60_000]], t)  # the first failing chunk's
    assert outcome(am.floor_temporal, bad, unit="hour") == outcome(
        pc.floor_temporal, bad, unit="hour"
    )


def _offset(zone, t):
    when = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    when += datetime.timedelta(seconds=int(t))
    return int(when.astimezone(zoneinfo.ZoneInfo(zone)).utcoffset().total_seconds())


@pytest.mark.parametrize("zone", ["America/New_York", "Europe/London", "Australia/Lord_Howe"])
def test_past_2037_local_midnights_follow_the_footer_rule(zone):
    """floor_temporal to days past the listed transitions is the local midnight at
    zoneinfo's offsets (the files' rule); pyarrow keeps the last listed offset (the
    header's Divergence), so it differs in the summers."""
    rng = np.random.default_rng(11)
    v = rng.integers(2_150_000_000, 4_000_000_000, 400)
    a = pa.array(v, pa.timestamp("s", tz=zone))
    got = am.floor_temporal(a, unit="day").to_pyarrow().cast("int64").to_numpy()
    epoch, zi = datetime.datetime(1970, 1, 1), zoneinfo.ZoneInfo(zone)
    want = []
    for t in v:  # the local midnight (these zones change their clocks later in the night)
        local = int(t) + _offset(zone, t)
        midnight = epoch + datetime.timedelta(seconds=local - local % 86400)
        want.append(int(midnight.replace(tzinfo=zi).timestamp()))
    assert list(got) == want
    theirs = pc.floor_temporal(a, unit="day").cast("int64").to_numpy()
    assert not np.array_equal(theirs, got)


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_gpu_arrays_round_on_the_host_and_stay_on_the_gpu():
    zone = "Asia/Kolkata"
    v = list(range(1_400_000_000_000, 1_500_000_000_000, 86_413_007)) + [None]
    a = pa.array(v, pa.timestamp("ms", tz=zone))
    g = am.array(a, device="cuda")
    for name in OPS:
        for unit in ("minute", "hour", "day", "week", "month"):
            r = getattr(am, name)(g, unit=unit)
            assert r.backend == "cuda"
            assert r.to_pyarrow().equals(getattr(pc, name)(a, unit=unit))
    zone = "America/New_York"  # a repeated hour: refused alike
    ny = pa.array([_utc(zone, 2021, 11, 7, 1, 30) * 1000], pa.timestamp("ms", tz=zone))
    got = outcome(am.floor_temporal, am.array(ny, device="cuda"), unit="hour")
    assert got == outcome(pc.floor_temporal, ny, unit="hour")
