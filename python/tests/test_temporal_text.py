"""Temporal values and text (issue #13) against pyarrow.compute: am.cast between
strings and timestamps (every unit, with and without a time zone), dates,
times and durations; am.strftime and am.strptime with their options. Random
instants over each unit's whole range (negative ones, and the far ones whose
text pyarrow writes through its `date` library's integer wraps), every
directive the library writes or reads, texts pyarrow reads and refuses, zoned
timestamps in their local time (the tz database's zones), and what runs in
pyarrow (counted): other locales, directives not done here. The C library's side is conformance/cases/strings.json's
temporal casts, strptime and strftime cases."""

import random
import warnings

import numpy as np
import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

pytestmark = pytest.mark.usefixtures("no_fallback")  # conftest.py

UNITS = ["s", "ms", "us", "ns"]
DATES_AND_TIMES = [pa.date32(), pa.date64(), pa.time32("s"), pa.time32("ms"), pa.time64("us"),
                   pa.time64("ns")]  # fmt: skip
PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def _outcome(fn):
    try:
        result = fn()
        return (result.to_pyarrow() if isinstance(result, am.Array) else result), None
    except Exception as e:  # noqa: BLE001 - the message is compared
        return None, e


def _same(want_fn, got_fn):
    want, want_error = _outcome(want_fn)
    got, got_error = _outcome(got_fn)
    if want_error is not None:
        assert got_error is not None, (want_error, got)
        assert str(want_error) in str(got_error)
        return
    assert got_error is None, got_error
    assert got.type == want.type
    same = np.asarray(pc.fill_null(pc.equal(want, got), True))
    bad = np.nonzero(~same)[0][:5]
    assert not len(bad), [(want[i].as_py(), got[i].as_py()) for i in bad]
    assert got.null_count == want.null_count


def _instants(unit, n, seed):
    """n random values of a unit: over all of int64, within the years 1 to
    9999, within a day of the epoch, and the edges."""
    rng = np.random.default_rng(seed)
    per = PER_SECOND[unit]
    near = rng.integers(-86_400 * per, 86_400 * per, n)
    edges = np.array([0, 1, -1, 2**63 - 1, -(2**63), -(2**63) + 1, per - 1, -per], np.int64)
    parts = [rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64), near, edges]
    if unit != "ns":
        parts.append(rng.integers(-62_135_596_800, 253_402_300_799, n) * per)
    return np.concatenate(parts)


def _array(values, t, nulls_every=7):
    """values as an array of type t (from the storage integers), every
    nulls_every-th slot null."""
    storage = pa.int32() if t.bit_width == 32 else pa.int64()
    mask = np.arange(len(values)) % nulls_every == 3
    return pa.array(values, storage, mask=mask).cast(t) if not pa.types.is_time(t) else (
        pa.Array.from_buffers(t, len(values), [pa.array(~mask).buffers()[1],
                                               pa.py_buffer(np.asarray(values).tobytes())]))  # fmt: skip


# ---- casts to strings


def _writable(values, t):
    """The values whose text pyarrow writes: in UTC it fails a whole array that
    holds one of a year its `date` library keeps as -32768 (tested below)."""
    if t.tz is None:
        return values
    fine = [_outcome(lambda v=v: pc.strftime(pa.array([int(v)], pa.int64()).cast(t),
                                             format="%Y"))[1] is None for v in values]  # fmt: skip
    return values[np.array(fine)]


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("tz", [None, "UTC"])
@pytest.mark.parametrize("to", [pa.string(), pa.large_string()])
def test_timestamps_to_strings_as_pyarrow(unit, tz, to):
    t = pa.timestamp(unit, tz)
    a = _array(_writable(_instants(unit, 10_000, 3), t), t)
    _same(lambda: pc.cast(a, to), lambda: am.cast(a, to))


def _days_from_civil(y, m, d):
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


@pytest.mark.parametrize("unit", ["s", "ms"])
def test_a_utc_value_pyarrow_cannot_write_fails_as_there(unit):
    # the `date` library holds the year -32768 and fails the stream on it
    v = _days_from_civil(-32768, 6, 15) * 86_400 * PER_SECOND[unit]
    a = pa.array([0, v], pa.int64()).cast(pa.timestamp(unit, "UTC"))
    _same(lambda: pc.cast(a, pa.string()), lambda: am.cast(a, pa.string()))
    _same(lambda: pc.strftime(a, format="%Y"), lambda: am.strftime(a, format="%Y"))
    assert _outcome(lambda: am.cast(a, pa.string()))[1] is not None
    plain = a.cast(pa.int64()).cast(pa.timestamp(unit))  # no zone: Arrow's range check
    _same(lambda: pc.cast(plain, pa.string()), lambda: am.cast(plain, pa.string()))


@pytest.mark.parametrize("t", DATES_AND_TIMES + [pa.duration(u) for u in UNITS])
def test_dates_times_and_durations_to_strings_as_pyarrow(t):
    rng = np.random.default_rng(11)
    info = np.iinfo(np.int32 if t.bit_width == 32 else np.int64)
    values = np.concatenate([
        rng.integers(info.min, info.max, 20_000, dtype=info.dtype),
        rng.integers(-(10**7), 10**7, 20_000).astype(info.dtype),
        np.array([0, 1, -1, info.max, info.min], info.dtype),
        (rng.integers(-(10**6), 10**6, 5000) * 86_400_000).astype(info.dtype),
        rng.integers(0, 86_400, 5000).astype(info.dtype),
    ])  # fmt: skip
    a = _array(values, t)
    for to in (pa.string(), pa.large_string()):
        _same(lambda to=to: pc.cast(a, to), lambda to=to: am.cast(a, to))


def test_the_texts_of_the_issue():
    """'2020-01-01 00:00:00.000000', 'Z' for UTC, Arrow's out-of-range text."""
    for a in (pa.array([0, 1, -1, 1_577_836_800_123_456], pa.timestamp("us")),
              pa.array([0, -62_135_596_800], pa.timestamp("s", "UTC")),
              pa.array([2**62], pa.timestamp("s"))):  # fmt: skip
        assert am.cast(a, pa.string()).to_pylist() == pc.cast(a, pa.string()).to_pylist()


# Zones the library reads from the tz database (core/timezone.c): DST zones
# agree with pyarrow up to 2037 (after it the library applies the file's rule
# and pyarrow keeps the last offset: the header's divergence), zones without
# rules everywhere.
DST_ZONES = ["America/New_York", "Europe/London", "Australia/Lord_Howe", "Pacific/Chatham"]
STEADY_ZONES = ["+01:00", "-0530", "+00:00", "Etc/UTC", "Asia/Kolkata", "Etc/GMT+5"]


def _zoned_instants(unit, zone, seed):
    per = PER_SECOND[unit]
    rng = np.random.default_rng(seed)
    if zone in DST_ZONES:  # 1800 to 2037, and the clock changes of 2020 +- a second
        values = rng.integers(-5_364_662_400, 2_145_916_800, 3000) * per
        changes = np.array([1583650800, 1604210400, 1585443600, 1603587600]) * per
        return np.concatenate([values, changes, changes - per, changes + per])
    return _instants(unit, 3000, seed)


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("zone", DST_ZONES + STEADY_ZONES)
def test_zoned_timestamps_to_strings_as_pyarrow(unit, zone):
    t = pa.timestamp(unit, zone)
    a = _array(_writable(_zoned_instants(unit, zone, 7), t), t)
    before = am.fallbacks()
    _same(lambda: pc.cast(a, pa.string()), lambda: am.cast(a, pa.string()))
    for f in ("%Y-%m-%dT%H:%M:%S%z %Z", "%a %d %b %Y %I:%M:%S %p %Z", "%F %T %z"):
        _same(lambda f=f: pc.strftime(a, format=f), lambda f=f: am.strftime(a, format=f))
    assert am.fallbacks() == before  # the library's, not pyarrow's


def test_an_unknown_zone_fails_as_in_pyarrow():
    a = pa.array([0, None], pa.timestamp("s", "Nowhere/Land"))
    _same(lambda: pc.cast(a, pa.string()), lambda: am.cast(a, pa.string()))
    _same(lambda: pc.strftime(a, format="%Y"), lambda: am.strftime(a, format="%Y"))
    assert _outcome(lambda: am.strftime(a, format="%Y"))[1] is not None


# ---- casts from strings

ISO = ["2020-01-01", "2020-01-01 12:00:00", "2020-01-01T12:00:00", "2020-01-01 12:00",
       "2020-01-01 12", "2020-01-01T12", "2020-01-01 12:00:00.5", "2020-01-01 12:00:00.123456789",
       "2020-01-01 12:00:00.1234567891", "2020-01-01 12:00:00Z", "2020-01-01T12:00:00+01:00",
       "2020-01-01T12:00:00+0100", "2020-01-01T12:00:00+01", "2020-01-01T12:00:00-05:30",
       "2020-01-01Z", "2020-01-01 12:00Z", "2020-01-01 12Z", "2020-1-1", "20200101",
       "2020-01-01 ", "2020-01-01  12:00:00", "2020-02-30", "2020-02-29", "2021-02-29",
       "2020-13-01", "2020-01-01 24:00:00", "2020-01-01 23:59:60", "2020-01-01 12:60:00",
       "1900-01-01", "0001-01-01", "0000-01-01", "9999-12-31 23:59:59", "-0001-01-01",
       "+2020-01-01", "10000-01-01", "2020-01-01 12:00:00.", "2020-01-01 12:00:00,5",
       "2020-01-01t12:00:00", "2020-01-01 12:00:00z", "2020-01-01 12:00:00 Z",
       "2020-01-01 12:00:00+1:00", "2020-01-01 12:00:00+01:0", "2020-01-01 12:00:00+24:00",
       "2020-01-01 12:00:00+23:59", "2020-01-01 12:00:00.5Z", "2020-01-01 12:00:00.5+01:00",
       "", "1677-09-21 00:12:43.145224192", "1677-09-21 00:12:43.145224193",
       "2262-04-11 23:47:16.854775807", "2262-04-11 23:47:16.854775808", "2020-01-01 1:00:00",
       "2020-01-01 01:0:00", "2020-01-01 12:00:00.000000000000", "2020-01-01 12:00:00-00:00",
       "2020-01-01 12:00:00+00", "2020-01-01TZ", "2020-01-01T12:00-05"]  # fmt: skip


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("tz", [None, "UTC", "America/New_York", "+01:00"])
def test_iso_texts_read_as_pyarrow_reads_them(unit, tz):
    t = pa.timestamp(unit, tz)
    for text in ISO:  # alone (its outcome, its message), and with good and bad neighbours
        for texts in ([text], [text, "2020-01-01 00:00Z", None, text], ["2020-01-01", text]):
            a = pa.array(texts)
            _same(lambda a=a: pc.cast(a, t), lambda a=a: am.cast(a, t))
    large = pa.array(ISO[:9], pa.large_string())
    _same(lambda: pc.cast(large, pa.timestamp(unit)), lambda: am.cast(large, pa.timestamp(unit)))


@pytest.mark.parametrize("unit", UNITS)
def test_written_timestamps_read_back_as_pyarrow_reads_them(unit):
    values = _instants(unit, 20_000, 17)
    texts = pc.cast(_array(values, pa.timestamp(unit)), pa.string())
    readable = pa.array([x for x in texts.to_pylist() if x is None or not x.startswith("<")])
    _same(lambda: pc.cast(readable, pa.timestamp(unit)),
          lambda: am.cast(readable, pa.timestamp(unit)))  # fmt: skip
    zoned = pc.cast(_array(values[-20_000:], pa.timestamp(unit, "UTC")), pa.string())
    if unit == "ns":  # every ns text reads back; the others' far years do not
        _same(lambda: pc.cast(zoned, pa.timestamp(unit, "UTC")),
              lambda: am.cast(zoned, pa.timestamp(unit, "UTC")))  # fmt: skip


@pytest.mark.parametrize("t", [pa.date32(), pa.date64()])
def test_dates_read_as_pyarrow_reads_them(t):
    texts = ["2020-01-01", "0000-01-01", "9999-12-31", "1969-12-31", "2020-02-29", "2021-02-29",
             "2020-1-01", "2020-01-01 00:00:00", "2020-01-01Z", " 2020-01-01", None]  # fmt: skip
    for text in texts:
        a = pa.array([text, "1970-01-02"])
        _same(lambda a=a: pc.cast(a, t), lambda a=a: am.cast(a, t))
    days = pc.cast(pa.array(np.arange(-800_000, 2_900_000, 97), pa.int32()).cast(pa.date32()),
                   pa.string())  # fmt: skip
    _same(lambda: pc.cast(days, t), lambda: am.cast(days, t))


def test_strings_to_times_and_durations_are_pyarrows_refusal():
    for t in (pa.time32("s"), pa.time64("ns"), pa.duration("s")):
        before = am.fallbacks().get("cast", 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
            with pytest.raises(pa.ArrowNotImplementedError, match="Unsupported cast"):
                am.cast(pa.array(["00:00:00"]), t)
        assert am.fallbacks().get("cast", 0) == before + 1


# ---- strftime

DIRECTIVES = ["%Y-%m-%dT%H:%M:%S", "%Y", "%m", "%d", "%H", "%M", "%S", "%y", "%j", "%b", "%B",
              "%a", "%A", "%p", "%I", "%%", "%F", "%T", "%D", "%e", "%C", "%h", "%n%t", "%R",
              "%u", "%w", "x %Y y", "%s %k %f", "%", "%-d", "%5Y", "abc%",
              "%d/%m/%Y %I:%M:%S %p"]  # fmt: skip


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("tz", [None, "UTC"])
def test_strftime_of_timestamps_as_pyarrow(unit, tz):
    t = pa.timestamp(unit, tz)
    a = _array(_writable(_instants(unit, 3000, 23), t), t)
    for f in DIRECTIVES + (["%z %Z", "%Y-%m-%d %H:%M:%S%z"] if tz else []):
        _same(lambda f=f: pc.strftime(a, format=f), lambda f=f: am.strftime(a, format=f))


@pytest.mark.parametrize("t", DATES_AND_TIMES)
def test_strftime_of_dates_and_times_as_pyarrow(t):
    rng = np.random.default_rng(41)
    info = np.iinfo(np.int32 if t.bit_width == 32 else np.int64)
    values = np.concatenate([rng.integers(info.min, info.max, 3000, dtype=info.dtype),
                             rng.integers(-(10**6), 10**6, 3000).astype(info.dtype)])  # fmt: skip
    a = _array(values, t)
    ok = [_outcome(lambda x=x: pc.strftime(pa.array([x], t), format="%Y"))[1] is None for x in a]
    a = pa.array([x for x, k in zip(a, ok) if k], t)
    for f in DIRECTIVES:
        _same(lambda f=f: pc.strftime(a, format=f), lambda f=f: am.strftime(a, format=f))


def test_strftime_defaults_chunks_and_refusals():
    a = pa.chunked_array([[0, None], [], [1_577_836_800_250]], pa.timestamp("ms"))
    assert am.strftime(a).to_pylist() == pc.strftime(a).to_pylist()
    assert am.strftime(a, "%S").to_pylist() == ["00.000", None, "00.250"]
    with pytest.raises(ValueError, match="Timezone not present, cannot convert to string"):
        am.strftime(a, format="%H %z")
    with pytest.raises(pa.ArrowInvalid, match="Timezone not present"):
        pc.strftime(a, format="%H %z")
    with warnings.catch_warnings():  # a duration: pyarrow's own refusal, counted
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        with pytest.raises(pa.ArrowNotImplementedError, match="has no kernel matching input"):
            am.strftime(pa.array([1], pa.duration("s")))


@pytest.mark.parametrize(
    ("args", "kwargs", "x"),
    [
        ((), {"format": "%c"}, pa.array([0], pa.timestamp("s"))),
        ((), {"format": "%U %x"}, pa.array([0], pa.date32())),
        ((), {"format": "%Ey"}, pa.array([0], pa.timestamp("s"))),
        ((), {"options": pc.StrftimeOptions("%Y")}, pa.array([0], pa.timestamp("s"))),
        ((), {"format": "%Y"}, pa.scalar(0, pa.timestamp("s"))),
    ],
    ids=["c", "U-x", "E-modifier", "options-object", "scalar"],
)
def test_strftime_runs_in_pyarrow_where_the_library_does_not(args, kwargs, x):
    before = am.fallbacks().get("strftime", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        got = am.strftime(x, *args, **kwargs)
    assert am.fallbacks().get("strftime", 0) == before + 1
    want = pc.strftime(x, *args, **kwargs)
    assert got.equals(want)


def test_strftime_in_another_locale_runs_in_pyarrow():
    before = am.fallbacks().get("strftime", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        with pytest.raises(pa.ArrowInvalid, match="locale"):  # not installed here
            am.strftime(pa.array([0], pa.timestamp("s")), locale="xx_NOWHERE")
    assert am.fallbacks().get("strftime", 0) == before + 1


# ---- strptime

FORMATS = ["%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S %Z",
           "%y-%m-%d", "%j %Y", "%Y %j", "%I:%M %p %Y-%m-%d", "%p %H %Y-%m-%d", "%b %d %Y",
           "%B %d, %Y", "%a %Y-%m-%d", "%A, %d %B %Y", "%Y%m%d", "%d/%m/%Y %%", "%F %T", "%D",
           "%H:%M", "%Y", "%m/%d", "%Y-%m-%d%n%H", "%e/%m/%Y", "%C%y", "%a %j %Y", "%j", "%R %F",
           "%-d/%m/%Y", "%h %e", "%z", "%Z", "%Y-%m-%dT%H:%M:%S%z%Z"]  # fmt: skip
PIECES = ["2020", "1999", "0", "69", "68", "99", "00", "01", "1", "12", "13", "31", "32", "366",
          "365", "060", "-", "/", ":", " ", "  ", "\t", "T", "Z", "+0100", "-05:30", "+01",
          "+2400", "+0160", "AM", "PM", "pm", "Jan", "january", "Sept", "Mon", "Monday", "wed",
          "UTC", "%", "x", "2021-02-29", "2020-02-30", "24", "59", "60", "61", "62", "1677",
          "2262", "9999"]  # fmt: skip


def _texts(f, seed):
    rnd = random.Random(seed)
    texts = ["".join(rnd.choice(PIECES) for _ in range(rnd.randint(1, 8))) for _ in range(400)]
    values = np.random.default_rng(seed).integers(-(10**11), 2 * 10**11, 400)
    written = f.replace("%Z", "UTC").replace("%z", "+0130")
    texts += pc.strftime(pa.array(values, pa.timestamp("s", "UTC")), format=written).to_pylist()
    return pa.array(texts + [None])


@pytest.mark.parametrize("f", FORMATS)
def test_strptime_reads_as_pyarrow_reads(f):
    a = _texts(f, len(f))
    for unit in UNITS:
        _same(lambda u=unit: pc.strptime(a, format=f, unit=u, error_is_null=True),
              lambda u=unit: am.strptime(a, format=f, unit=u, error_is_null=True))  # fmt: skip
        # the first text that does not read names the error
        _same(lambda u=unit: pc.strptime(a, format=f, unit=u),
              lambda u=unit: am.strptime(a, format=f, unit=u))  # fmt: skip


def test_strptime_zone_types_and_options():
    a = pa.array(["2020-01-01T12:00:00+0100", None, "x"])
    got = am.strptime(a, format="%Y-%m-%dT%H:%M:%S%z", unit="ms", error_is_null=True)
    assert got.to_pyarrow().type == pa.timestamp("ms", "UTC")
    assert got.to_pyarrow().to_pylist()[0].hour == 11
    opts = pc.StrptimeOptions("%Y-%m-%dT%H:%M:%S%z", "us", True)
    assert am.strptime(a, options=opts).to_pyarrow().equals(pc.strptime(a, options=opts))
    assert am.strptime(a, "%Y", "s", True).to_pylist() == [None, None, None]
    with pytest.raises(TypeError, match="both an 'options' argument"):
        am.strptime(a, "%Y", "s", options=opts)
    with pytest.raises(ValueError, match="not a valid time unit"):
        am.strptime(a, format="%Y", unit="xs")
    with pytest.raises(ValueError, match="Failed to parse string: 'x' as a scalar of type"):
        am.strptime(pa.array(["2020", "x", "y"]), format="%Y", unit="s")
    with pytest.raises(ValueError, match="the format is empty"):  # divergence: pyarrow crashes
        am.strptime(pa.array([""]), format="", unit="s")


@pytest.mark.parametrize("f", ["%s", "%c", "%U %Y", "%Ey", "%G-%V"])
def test_strptime_runs_in_pyarrow_where_the_library_does_not(f):
    a = pa.array(["1577836800", "Wed Jan  1 00:00:00 2020", "01 2020", "20", "2020-01"])
    before = am.fallbacks().get("strptime", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        got = am.strptime(a, format=f, unit="s", error_is_null=True)
    assert am.fallbacks().get("strptime", 0) == before + 1
    assert got.equals(pc.strptime(a, format=f, unit="s", error_is_null=True))
