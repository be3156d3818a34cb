"""floor_temporal, ceil_temporal and round_temporal (issue #13) against
pyarrow 26: every temporal type x every unit x the three functions x several
multiples x every combination of RoundTemporalOptions' flags, over values
around 1970, before it, leap days, month, quarter and year ends and week
edges, with nulls and slices; then a random sweep over the whole range of
every type (where pyarrow's arithmetic wraps, the library's wraps alike);
pyarrow's errors; options objects, chunked arrays, scalars and UTC zones (other zones:
test_round_temporal_zoned.py)."""

import datetime
import random
import warnings

import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

OPS = ("floor_temporal", "ceil_temporal", "round_temporal")
UNITS = ("nanosecond", "microsecond", "millisecond", "second", "minute", "hour", "day", "week",
         "month", "quarter", "year")  # fmt: skip
DURATION_UNITS = UNITS[:8]
TICKS_PER_DAY = {"s": 86400, "ms": 86400 * 10**3, "us": 86400 * 10**6, "ns": 86400 * 10**9}
TIMESTAMPS = [pa.timestamp(u) for u in ("s", "ms", "us", "ns")]
DATES = [pa.date32(), pa.date64()]
TIMES = [pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns")]
DURATIONS = [pa.duration(u) for u in ("s", "ms", "us", "ns")]
TYPES = TIMESTAMPS + DATES + TIMES + DURATIONS
FLAGS = [
    {"week_starts_monday": m, "ceil_is_strictly_greater": s, "calendar_based_origin": c}
    for m in (True, False)
    for s in (False, True)
    for c in (False, True)
]


def _days(y, m, d):
    return (datetime.date(y, m, d) - datetime.date(1970, 1, 1)).days


# Days at the edges the calendar units care about: 1970 and around it, leap days,
# century years, month, quarter and year ends, ISO week edges (Monday 2021-01-04,
# Sunday 2010-01-03), far before and after.
EDGE_DAYS = [_days(*ymd) for ymd in (
    (1970, 1, 1), (1969, 12, 31), (1970, 1, 5), (1970, 1, 4), (1600, 2, 29), (1900, 2, 28),
    (1900, 3, 1), (2000, 2, 29), (2000, 3, 1), (2004, 12, 31), (2005, 1, 1), (2020, 3, 31),
    (2020, 4, 1), (2020, 6, 30), (2020, 9, 30), (2020, 12, 31), (2021, 1, 4), (2010, 1, 3),
    (2008, 12, 29), (1, 1, 1), (9999, 12, 31), (1582, 10, 15), (1969, 1, 1))]  # fmt: skip


def _storage(t):
    return pa.int32() if t in (pa.date32(), pa.time32("s"), pa.time32("ms")) else pa.int64()


def edge_values(t):
    """The edge days in `t`'s ticks, a tick either side of each, noon, and the
    ends of the day for times; a null; sliced by one."""
    rng = random.Random(str(t))
    if t == pa.date32():
        v = EDGE_DAYS + [d + k for d in EDGE_DAYS[:6] for k in (-3, -1, 1, 3)]
    elif t in TIMES:
        per_day = TICKS_PER_DAY[t.unit]
        v = [0, 1, per_day - 1, per_day // 2, per_day // 2 - 1, per_day // 3, per_day // 24]
        v += [rng.randrange(per_day) for _ in range(20)]
    else:
        per_day = TICKS_PER_DAY["ms" if t == pa.date64() else t.unit]
        v = []
        for d in EDGE_DAYS:
            base = d * per_day
            if not (-(2**63) <= base - per_day and base + per_day < 2**63):
                continue
            v += [base] if t == pa.date64() else [base, base - 1, base + 1, base + per_day // 2]
        if t != pa.date64():
            v += [rng.randrange(-(10**4) * per_day, 10**4 * per_day) for _ in range(20)]
    return pa.array([None] + v + [None], _storage(t)).view(t).slice(1)


def _call(name, a, **kw):
    return getattr(pc, name)(a, **kw)


def _expect_same(name, a, kw):
    """am's answer is pyarrow's, or both refuse alike."""
    try:
        want = _call(name, a, **kw)
    except pa.ArrowInvalid as e:
        with pytest.raises(pa.ArrowInvalid, match=str(e)):
            getattr(am, name)(a, **kw)
        return
    got = getattr(am, name)(a, **kw)
    got = got.to_pyarrow() if isinstance(got, am.Array) else got
    assert got.equals(want), (name, a.type, kw, got, want)


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_every_unit_multiple_and_flag_matches_pyarrow(t, no_fallback):
    a = edge_values(t)
    units = DURATION_UNITS + ("month",) if t in DURATIONS else UNITS
    for unit in units:
        for multiple in (1, 2, 3, 5, 7, 12, 100):
            for flags in FLAGS:
                for name in OPS:
                    _expect_same(name, a, dict(multiple=multiple, unit=unit, **flags))


def _random_array(rng, t, n):
    bits = 32 if _storage(t) == pa.int32() else 64
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    if rng.random() < 0.5:  # somewhere in the range, at some scale
        hi = 2 ** rng.randint(4, bits - 1)
        lo = -hi
    v = [rng.randint(lo, hi) if rng.random() > 0.1 else None for _ in range(n)]
    v += [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1, 0, -1]
    off = rng.randrange(3)
    return pa.array(v, _storage(t)).view(t).slice(off)


def test_random_sweep_over_the_whole_range(no_fallback):
    """2,000 random (type, unit, function, multiple, flags) over 60 values each,
    drawn from the whole storage range or a random scale of it: pyarrow's
    wrapped values where its arithmetic overflows are the library's too."""
    rng = random.Random(20261205)
    multiples = (1, 2, 3, 7, 13, 60, 1000, 86400, 2**31 - 1, 1227133513)
    for _ in range(2000):
        t = rng.choice(TYPES)
        units = DURATION_UNITS if t in DURATIONS else UNITS
        kw = dict(
            multiple=rng.choice(multiples) if rng.random() < 0.7 else rng.randint(1, 2**31 - 1),
            unit=rng.choice(units),
            **rng.choice(FLAGS),
        )
        if t in DURATIONS:
            kw["calendar_based_origin"] = False
            if kw["unit"] == "week":
                kw["multiple"] = min(kw["multiple"], (2**31 - 1) // 7)
        _expect_same(rng.choice(OPS), _random_array(rng, t, 60), kw)


def test_utc_zones_run_in_the_library(no_fallback):
    for tz in ("UTC", "Etc/UTC", "+00:00"):
        a = edge_values(pa.timestamp("ms")).cast(pa.timestamp("ms", tz))
        for unit in ("hour", "day", "week", "month", "year"):
            for name in OPS:
                got = getattr(am, name)(a, 3, unit).to_pyarrow()
                assert got.type == a.type
                assert got.equals(_call(name, a, multiple=3, unit=unit))


def test_another_time_zone_runs_in_the_library(no_fallback):
    """In local time (test_round_temporal_zoned.py has the rest)."""
    a = pa.array([0, 86_400_000 * 45 + 1, None], pa.timestamp("ms", "Europe/Paris"))
    for name in OPS:
        got = getattr(am, name)(a, unit="day").to_pyarrow()
        assert got.equals(getattr(pc, name)(a, unit="day"))
        assert got.type == a.type


def test_options_objects_and_their_rules(no_fallback):
    a = edge_values(pa.timestamp("s"))
    opts = pc.RoundTemporalOptions(2, "week", week_starts_monday=False,
                                   ceil_is_strictly_greater=True, calendar_based_origin=True)  # fmt: skip
    for name in OPS:
        got = getattr(am, name)(a, options=opts).to_pyarrow()
        assert got.equals(getattr(pc, name)(a, options=opts))
    # positional multiple and unit, as pyarrow's signature
    assert am.ceil_temporal(a, 15, "minute").to_pyarrow().equals(pc.ceil_temporal(a, 15, "minute"))
    with pytest.raises(TypeError, match="both an 'options' argument and additional arguments"):
        am.floor_temporal(a, 2, options=opts)
    with pytest.raises(TypeError, match="expected a RoundTemporalOptions"):
        am.floor_temporal(a, options=pc.RoundOptions())


def test_chunked_arrays_keep_their_chunks(no_fallback):
    t = pa.timestamp("us")
    c = pa.chunked_array([edge_values(t), edge_values(t).slice(3, 5)], t)
    got = am.round_temporal(c, 6, "hour")
    assert isinstance(got, pa.ChunkedArray) and got.num_chunks == 2
    assert got.equals(pc.round_temporal(c, 6, "hour"))


def test_scalars_run_in_pyarrow():
    s = pa.scalar(86_401, pa.timestamp("s"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        assert am.floor_temporal(s, unit="day") == pc.floor_temporal(s, unit="day")


def test_ceil_is_strictly_greater_as_documented(no_fallback):
    """pyarrow's example: 1970-01-01T00:00:00 ceiled to 3 hours."""
    a = pa.array([0], pa.timestamp("s"))
    assert am.ceil_temporal(a, 3, "hour").to_pyarrow().cast(pa.int64()).to_pylist() == [0]
    strict = am.ceil_temporal(a, 3, "hour", ceil_is_strictly_greater=True).to_pyarrow()
    assert strict.cast(pa.int64()).to_pylist() == [3 * 3600]


def test_a_multiple_below_one_is_refused():
    """Divergence: pyarrow 26 divides by it (0 kills the process with SIGFPE);
    the library refuses it, for a non-empty array, as pyarrow's own checks."""
    a = pa.array([1, None], pa.timestamp("s"))
    for name in OPS:
        for multiple in (0, -1, -(2**31)):
            with pytest.raises(pa.ArrowInvalid, match=f"{name}: the multiple must be positive"):
                getattr(am, name)(a, multiple=multiple)
        assert getattr(am, name)(a.slice(0, 0), multiple=0).to_pylist() == []


def test_pyarrow_errors_in_its_words():
    d = pa.array([1, None], pa.duration("ms"))
    cases = [
        (d, {"calendar_based_origin": True}),
        (d, {"unit": "week", "multiple": (2**31 - 1) // 7 + 1}),
        (d, {"unit": "month"}),
        (d, {"unit": "quarter"}),
        (d, {"unit": "year"}),
        (pa.array([None], pa.duration("s")), {"unit": "year"}),  # nulls only: checked too
    ]
    for a, kw in cases:
        for name in OPS:
            _expect_same(name, a, kw)
    for name in OPS:  # an empty array is never checked
        assert getattr(am, name)(d.slice(0, 0), unit="year").to_pylist() == []
    with pytest.raises(ValueError, match='"fortnight" is not a valid Calendar unit'):
        am.floor_temporal(d, unit="fortnight")
    for a in (pa.array([1], pa.int64()), pa.array([1.5])):
        with pytest.raises(pa.ArrowNotImplementedError, match="has no kernel matching input"):
            am.floor_temporal(a)


def test_a_float_or_bool_multiple_is_converted_as_pyarrow(no_fallback):
    """A float or bool multiple is truncated as pyarrow's options class converts
    it, in the library; one outside 32 bits is pyarrow's OverflowError."""
    a = edge_values(pa.timestamp("s"))
    assert am.floor_temporal(a, multiple=2.5).equals(pc.floor_temporal(a, multiple=2.5))
    assert am.floor_temporal(a, multiple=True).equals(pc.floor_temporal(a, multiple=True))
    with pytest.raises(OverflowError, match="value too large to convert to int"):
        am.floor_temporal(a, multiple=2**31)


def test_the_result_keeps_the_input_validity_and_offset(no_fallback):
    raw = pa.array([None, 5, None, 86_401, 7], pa.timestamp("s"))
    for off in range(4):
        a = raw.slice(off)
        got = am.floor_temporal(a, unit="minute")
        assert got.null_count == a.null_count
        assert got.to_pyarrow().equals(pc.floor_temporal(a, unit="minute"))
