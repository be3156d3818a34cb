"""Time zones (issue #13) against pyarrow.compute: the field extractions and the
casts to dates and times of day of timestamps with a time zone (local wall time),
and am.assume_timezone with AssumeTimezoneOptions. Every zone of the system's tz
database around its clock changes; random sweeps of a few zones in every unit,
nulls and offsets; fixed offsets; past the files' last transition against Python's
zoneinfo (the footer's rule, where pyarrow keeps the last offset: the header's
Divergence); pyarrow's messages; unknown zones, a zone file that does not parse,
threads, chunked arrays, a GPU array; nothing falls back. The C library's side is
conformance/cases/timezone.json. Skipped, with the reason, where the system has no
tz database (pyarrow reads /usr/share/zoneinfo on Linux; Debian's tzdata package)."""

import datetime
import os
import random
import threading
import warnings
import zoneinfo

import pytest

import arrowmetal as am

from .zone_database import (
    CUDA,
    DATABASE,
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

pytestmark = [pytest.mark.usefixtures("no_fallback"), NEEDS_DATABASE]

FIELDS = am._temporal.FIELDS
LOCAL_FIELDS = [f for f in FIELDS if f not in ("second", "millisecond", "microsecond",
                                              "nanosecond")]  # fmt: skip
ZONES = ["America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata",
         "Pacific/Chatham", "America/Sao_Paulo", "Europe/Dublin", "UTC", "+05:30", "-0800"]  # fmt: skip


def test_every_zone_around_its_clock_changes():
    """Each zone's listed transitions +-{0, 1, 1800, 3600} s, its local times read
    (casts to date32 and time64[ns]) and the local times around them assumed back
    (every choice pair), in a unit drawn per zone."""
    rng = random.Random(1)
    zones = database_zones()
    assert len(zones) > 400
    checked = 0
    for zone in zones:
        times = np.array(transitions(zone) or [0], dtype=np.int64)
        v = (times[:, None] + np.array([-3600, -1801, -1, 0, 1, 1800, 3599])).ravel()
        unit = rng.choice(UNITS)
        ticks = v * PER[unit] + rng.randrange(PER[unit])
        a = pa.array(ticks, pa.timestamp(unit, tz=zone))
        for to in (pa.date32(), pa.time64("ns")):
            same(am.cast(a, to), pc.cast(a, to))
        naive = pa.array(ticks, pa.timestamp(unit))
        for amb, non in (("earliest", "latest"), ("latest", "earliest")):
            want = pc.assume_timezone(naive, zone, ambiguous=amb, nonexistent=non)
            same(am.assume_timezone(naive, zone, ambiguous=amb, nonexistent=non), want)
        checked += len(ticks)
    assert checked > 50_000


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("zone", ZONES)
def test_random_sweep_of_every_field(zone, unit):
    rng = np.random.default_rng(abs(hash((zone, unit))) % 2**32)
    lo, hi = (x * PER[unit] for x in LISTED)
    v = rng.integers(lo, hi, 2000).tolist()
    v[::17] = [None] * len(v[::17])
    a = pa.array(v, pa.timestamp(unit, tz=zone)).slice(5)
    for name in FIELDS:
        same(getattr(am, name)(a), getattr(pc, name)(a))
    for ws in (1, 4, 7):
        same(am.day_of_week(a, week_start=ws, count_from_zero=False),
              pc.day_of_week(a, week_start=ws, count_from_zero=False))  # fmt: skip
    for to in (pa.date32(), pa.date64(), pa.time32("s"), pa.time32("ms"), pa.time64("us"),
               pa.time64("ns")):  # fmt: skip
        for safe in (True, False):
            assert outcome(am.cast, a, to, safe=safe) == outcome(pc.cast, a, to, safe=safe)
    naive = pa.array(v, pa.timestamp(unit)).slice(5)
    for amb in ("earliest", "latest"):
        for non in ("earliest", "latest"):
            same(am.assume_timezone(naive, zone, ambiguous=amb, nonexistent=non),
                  pc.assume_timezone(naive, zone, ambiguous=amb, nonexistent=non))  # fmt: skip


def test_local_mean_time_keeps_utc_seconds():
    # New York before 1883 is -4:56:02: pyarrow's second ... nanosecond are UTC's
    a = pa.array([-5_000_000_000_123_456_789, None], pa.timestamp("ns", tz="America/New_York"))
    for name in FIELDS:
        same(getattr(am, name)(a), getattr(pc, name)(a))
    same(am.cast(a, pa.time64("ns")), pc.cast(a, pa.time64("ns")))
    local_second = am.cast(a, pa.time64("ns")).to_pyarrow()[0].as_py().second
    assert am.second(a).to_pylist()[0] != local_second  # 58 past the minute in UTC, 56 locally


def _utc_offset(zone, t):
    when = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(
        seconds=int(t)
    )
    return int(when.astimezone(zoneinfo.ZoneInfo(zone)).utcoffset().total_seconds())


@pytest.mark.parametrize("zone", ["America/New_York", "Europe/London", "Australia/Lord_Howe",
                                  "Pacific/Chatham", "America/Sao_Paulo", "Europe/Dublin"])  # fmt: skip
def test_past_the_listed_transitions_the_footer_rule_holds(zone):
    """2038-9999: local times by the files' POSIX rule, as Python's zoneinfo reads
    them; pyarrow keeps the last listed offset (Divergence), so it differs wherever
    the zone still changes its clocks."""
    rng = np.random.default_rng(7)
    v = rng.integers(2_150_000_000, 253_000_000_000, 3000)
    a = pa.array(v, pa.timestamp("s", tz=zone))
    days = am.cast(a, pa.date32()).to_pyarrow().cast("int32").to_numpy().astype(np.int64)
    tod = am.cast(a, pa.time64("ns")).to_pyarrow().cast("int64").to_numpy() // 10**9
    got = days * 86400 + tod - v
    want = np.array([_utc_offset(zone, t) for t in v])
    assert np.array_equal(got, want)
    theirs = pc.cast(a, pa.date32()).cast("int32").to_numpy().astype(np.int64) * 86400
    theirs += pc.cast(a, pa.time64("ns")).cast("int64").to_numpy() // 10**9 - v
    still_changing = zone != "America/Sao_Paulo"  # Sao Paulo's rule has no DST since 2019
    assert (not np.array_equal(theirs, want)) == still_changing
    # and back: a local time read in the zone, earliest of two, the gap's end
    local = v + want
    back = am.assume_timezone(pa.array(local, pa.timestamp("s")), zone, ambiguous="earliest",
                              nonexistent="latest")  # fmt: skip
    back = back.to_pyarrow().cast("int64").to_numpy()
    assert np.all(back <= v)  # v itself, or an earlier reading of an ambiguous time
    assert np.mean(back == v) > 0.99


def test_pyarrow_messages():
    ny = "America/New_York"
    cases = [
        (pa.array([1425781800, None], pa.timestamp("s")), ny, {}),  # 2015-03-08 02:30
        (pa.array([1446341400_000_000_123], pa.timestamp("ns")), ny, {}),  # 2015-11-01 01:30
        (pa.array([1446341400_000, 1425781800_000], pa.timestamp("ms")), ny, {}),  # the last
        (pa.array([1446341400_000_000], pa.timestamp("us")), ny, {"ambiguous": "latest"}),
        (pa.array([1, None], pa.timestamp("s")), "Nowhere/Land", {}),
        (pa.array([1], pa.timestamp("s")), "+25:00", {}),
        (pa.array([1], pa.timestamp("s")), "", {}),
        (pa.array([1], pa.timestamp("s", tz="UTC")), ny, {}),
        (pa.array([1], pa.timestamp("s")), "posixrules", {}),
    ]
    for arr, zone, kw in cases:
        assert outcome(am.assume_timezone, arr, zone, **kw) == outcome(
            pc.assume_timezone, arr, zone, **kw
        ), (arr, zone, kw)
    unknown = pa.array([1, None], pa.timestamp("s", tz="Nowhere/Land"))
    for fn in ("year", "second", "day_of_week"):
        assert outcome(getattr(am, fn), unknown) == outcome(getattr(pc, fn), unknown)
    assert outcome(am.cast, unknown, pa.date32()) == outcome(pc.cast, unknown, pa.date32())


def test_null_slots_are_not_read():
    # a null over 2015-03-08 02:30 (nonexistent in New York) does not raise
    base = pa.array([0, 1425781800], pa.timestamp("s"))
    masked = pa.Array.from_buffers(base.type, 2, [pa.py_buffer(bytes([1])), base.buffers()[1]])
    same(am.assume_timezone(masked, "America/New_York"),
          pc.assume_timezone(masked, "America/New_York"))  # fmt: skip


def test_options_as_pyarrow_takes_them():
    a = pa.array([1446341400, 1425781800, None], pa.timestamp("s"))
    opts = pc.AssumeTimezoneOptions("America/New_York", ambiguous="latest", nonexistent="earliest")
    same(am.assume_timezone(a, options=opts), pc.assume_timezone(a, options=opts))
    same(am.assume_timezone(a, options={"timezone": "Asia/Kolkata"}),
          pc.assume_timezone(a, "Asia/Kolkata"))  # fmt: skip
    same(am.assume_timezone(a, timezone="+05:30"), pc.assume_timezone(a, timezone="+05:30"))
    with pytest.raises(ValueError, match="\"bogus\" is not a valid 'ambiguous'"):
        am.assume_timezone(a, "UTC", ambiguous="bogus")
    with pytest.raises(ValueError, match="is not a valid 'nonexistent'"):
        am.assume_timezone(a, "UTC", nonexistent=3)
    with pytest.raises(TypeError, match="both an 'options' argument"):
        am.assume_timezone(a, "UTC", options=opts)
    with pytest.raises(pa.ArrowInvalid, match="cannot be called without options"):
        am.assume_timezone(a)
    with pytest.raises(TypeError, match="expected bytes, NoneType found"):
        am.assume_timezone(a, ambiguous="earliest")
    with pytest.raises(pa.ArrowNotImplementedError, match="no kernel matching input types"):
        am.assume_timezone(pa.array([1, 2]), "UTC")


def test_chunked_arrays_and_scalars():
    c = pa.chunked_array([[1446341400, None], [], [0]], pa.timestamp("s"))
    got = am.assume_timezone(c, "Europe/London", ambiguous="earliest")
    assert isinstance(got, pa.ChunkedArray)
    assert got.equals(pc.assume_timezone(c, "Europe/London", ambiguous="earliest"))
    zoned = pa.chunked_array([[0, 1_700_000_000], [None]], pa.timestamp("s", tz="Asia/Tokyo"))
    assert am.hour(zoned).equals(pc.hour(zoned))
    s = pa.scalar(1446341400, pa.timestamp("s"))
    before = am.fallbacks().get("assume_timezone", 0)
    with warnings.catch_warnings():  # a scalar runs in pyarrow, counted
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        r = am.assume_timezone(s, "Asia/Kolkata")
    assert r == pc.assume_timezone(s, "Asia/Kolkata")
    assert am.fallbacks()["assume_timezone"] == before + 1


def test_threads_load_zones_once_and_agree():
    zones = ["Africa/Cairo", "America/Santiago", "Asia/Tehran", "Europe/Moscow",
             "Pacific/Auckland", "America/Havana", "Australia/Adelaide", "Asia/Gaza"]  # fmt: skip
    arrays = {z: pa.array(list(range(-10**9, 2 * 10**9, 7_777_777)), pa.timestamp("s", tz=z))
              for z in zones}  # fmt: skip
    want = {z: pc.hour(a) for z, a in arrays.items()}
    errors = []

    def work(k):
        try:
            for i in range(len(zones)):
                z = zones[(i + k) % len(zones)]
                assert am.hour(arrays[z]).to_pyarrow().equals(want[z]), z
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_a_zone_file_that_does_not_parse_is_refused(tmp_path, monkeypatch):
    (tmp_path / "Test").mkdir()
    with open(os.path.join(DATABASE, "America/New_York"), "rb") as f:
        good = f.read()
    (tmp_path / "Test" / "Copy").write_bytes(good)
    (tmp_path / "Test" / "Cut").write_bytes(good[:300])
    (tmp_path / "Test" / "Text").write_bytes(
        b"this is not a zone file, it only looks long enough\n"
    )
    monkeypatch.setenv("TZDIR", str(tmp_path))
    a = pa.array([1_700_000_000, None], pa.timestamp("s"))
    got = am.assume_timezone(a, "Test/Copy").to_pyarrow()
    assert got.cast("int64").equals(pc.assume_timezone(a, "America/New_York").cast("int64"))
    for name, why in (("Test/Cut", "truncated data"), ("Test/Text", "no TZif magic")):
        with pytest.raises(
            pa.ArrowInvalid, match=f"Test.{name[5:]} is not a valid TZif file .{why}"
        ):
            am.assume_timezone(a, name)
    with pytest.raises(pa.ArrowInvalid, match="Test/Missing not found in timezone database"):
        am.assume_timezone(a, "Test/Missing")


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_gpu_arrays_convert_on_the_host_and_stay_on_the_gpu():
    zone = "America/New_York"
    v = list(range(1_400_000_000, 1_500_000_000, 86_413)) + [None]
    a = pa.array(v, pa.timestamp("ms", tz=zone))
    g = am.array(a, device="cuda")
    for name in ("year", "hour", "minute", "second", "iso_week"):
        r = getattr(am, name)(g)
        assert r.backend == "cuda"
        same(r, getattr(pc, name)(a))
    for to in (pa.date32(), pa.time32("ms")):
        r = am.cast(g, to)
        assert r.backend == "cuda"
        same(r, pc.cast(a, to))
    naive = pa.array(v, pa.timestamp("ms"))
    r = am.assume_timezone(am.array(naive, device="cuda"), zone, ambiguous="latest",
                           nonexistent="latest")  # fmt: skip
    assert r.backend == "cuda"
    same(r, pc.assume_timezone(naive, zone, ambiguous="latest", nonexistent="latest"))
