"""Temporal types in the conformance suite (issue #13): the field extractions (year ...
iso_year, ``am_temporal_field``) over every unit of timestamps (no time zone), dates and
times, the rounding functions (floor_temporal, ceil_temporal, round_temporal,
``am_round_temporal``) over those and durations, and the existing ops that take temporal
arrays (filter, take, compare, add and
subtract, min, max, count, is_null, drop_null, sort_indices) with temporal inputs. How
generate.py makes the cases (``gen``, with generate.py's helpers passed in as ``g``),
how pyarrow.compute evaluates the fields (``evaluate``), and how a runner calls the C ABI
for them (``call``).

Every case with a temporal input lives in cases/temporal.json.gz (``file_of``), whatever
its op, so the other families' files are unchanged. Values are the storage integers
(casefmt.TEMPORAL_STORAGE). Field values: timestamps within about 8,000 years of 1970
(pyarrow's calendar keeps years in 16 bits), negative ones included; dates likewise;
times within the day. Every expected value is pyarrow 26's, exactly.
"""

from collections import OrderedDict

import casefmt as cf
from casefmt import TEMPORAL_TYPES, TYPES

FIELD_OPS = [
    "year",
    "month",
    "day",
    "day_of_week",
    "day_of_year",
    "hour",
    "minute",
    "second",
    "millisecond",
    "microsecond",
    "nanosecond",
    "quarter",
    "iso_week",
    "iso_year",
]
# The rounding functions (RoundTemporalOptions), in the order of am_round_temporal_op.
ROUND_OPS = ["floor_temporal", "ceil_temporal", "round_temporal"]
OPS = FIELD_OPS + ROUND_OPS
FILE = "temporal"
DATE_FIELDS = {"year", "month", "day", "day_of_week", "day_of_year", "quarter", "iso_week",
               "iso_year"}  # fmt: skip
TIMESTAMPS = TEMPORAL_TYPES[:4]
DATES = ["date32[day]", "date64[ms]"]
TIMES = ["time32[s]", "time32[ms]", "time64[us]", "time64[ns]"]
DURATIONS = TEMPORAL_TYPES[-4:]
# Ticks of the unit in a second (date32: a day is the unit; date64: milliseconds).
PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9, "day": 1}
YEARS_8000 = 8000 * 366 * 86400  # seconds


def unit(t):
    return t[t.index("[") + 1 : t.index("]")]


def takes(op, t):
    """Whether pyarrow's field `op` has a kernel for type `t`."""
    if t in TIMESTAMPS:
        return True
    return t in DATES if op in DATE_FIELDS else t in TIMES


def value_range(t):
    """(lo, hi) of the storage values a field case draws for type `t`."""
    if t == "date32[day]":
        return -YEARS_8000 // 86400, YEARS_8000 // 86400
    if t in TIMES:
        return 0, 86400 * PER_SECOND[unit(t)] - 1
    if t == "timestamp[ns]":
        return cf.int_range("int64")
    return -YEARS_8000 * PER_SECOND[unit(t)], YEARS_8000 * PER_SECOND[unit(t)]


def days(y, m, d):
    import datetime

    return (datetime.date(y, m, d) - datetime.date(1970, 1, 1)).days


def special_values(t):
    """Leap days, century years, year ends and starts, ISO week edges, before and after
    1970, in `t`'s unit; the day's last tick for times."""
    if t in TIMES:
        per = PER_SECOND[unit(t)]
        return [0, 1, 3599 * per, 3600 * per, 86399 * per + per - 1, 43200 * per + 1, None]
    dates = [days(y, m, d) for y, m, d in ((1600, 2, 29), (1900, 3, 1), (1904, 2, 29),
             (1969, 12, 31), (1970, 1, 1), (2000, 2, 29), (2004, 12, 31), (2005, 1, 1),
             (2008, 12, 29), (2010, 1, 3), (2020, 12, 31), (2021, 1, 4), (1, 1, 1),
             (9999, 12, 31))]  # fmt: skip
    if t == "date32[day]":
        return dates + [None]
    per_day = 86400 * (1000 if t == "date64[ms]" else PER_SECOND[unit(t)])
    lo, hi = value_range(t)
    vals = [d * per_day for d in dates] + [d * per_day - 1 for d in dates[:6]]
    return [v for v in vals if lo <= v <= hi] + [per_day // 2 + 1, None]


# The rounding functions' units (RoundTemporalOptions.unit), in the order of
# am_calendar_unit; a duration takes those up to weeks.
CALENDAR_UNITS = ["nanosecond", "microsecond", "millisecond", "second", "minute", "hour", "day",
                  "week", "month", "quarter", "year"]  # fmt: skip
DURATION_UNITS = CALENDAR_UNITS[:8]
# pyarrow's refusals of options a duration does not take (AM_EINVAL).
DURATION_REFUSALS = {
    "calendar_based_origin is not supported for duration inputs",
    "Duration week multiple would not fit in 32-bit integer",
    "Duration values can only be rounded using units from nanoseconds through weeks",
}
# RoundTemporalOptions' flags: (week_starts_monday, ceil_is_strictly_greater,
# calendar_based_origin), named in case ids.
FLAG_SETS = [(m, st, c) for m in (True, False) for st in (False, True) for c in (False, True)]
ROUND_MULTIPLES = [1, 2, 3, 7, 12, 2**31 - 1]  # the last wraps pyarrow's arithmetic


def round_params(multiple, unit, flags=FLAG_SETS[0]):
    return OrderedDict([("multiple", multiple), ("unit", unit),
                        ("week_starts_monday", flags[0]),
                        ("ceil_is_strictly_greater", flags[1]),
                        ("calendar_based_origin", flags[2])])  # fmt: skip


def flags_name(flags):
    monday, strict, calendar = flags
    return ",".join(
        ["monday" if monday else "sunday"] + ["strict"] * strict + ["calendar"] * calendar
    )


def round_values(t):
    """Values where the units' boundaries fall: the special days (leap days, year
    ends and starts, ISO week edges) and quarter ends, a tick either side of their
    midnight, noon (a tie of round to days) and noon less a tick; whole days for
    date64 (pyarrow's validation refuses others); for times the day's edges, hours and
    the 90-minute tie; for durations the same distances around 0, and 2^62 either way."""
    if t in TIMES:
        per = PER_SECOND[unit(t)]
        return [0, 1, per - 1, 3599 * per, 3600 * per, 5400 * per, 43200 * per - 1, 43200 * per,
                43200 * per + 1, 86399 * per, 86400 * per - 1, None]  # fmt: skip
    quarters = [days(2020, m, d) for m, d in ((3, 31), (4, 1), (6, 30), (7, 1), (9, 30), (10, 1))]
    dates = [v for v in special_values("date32[day]") if v is not None] + quarters
    if t == "date32[day]":
        return sorted(set(dates + [d + k for d in dates[:8] for k in (-3, 2)])) + [None]
    if t in DURATIONS:
        per_day = 86400 * PER_SECOND[unit(t)]
        base = [0, 1, per_day // 2, per_day - 1, per_day, 7 * per_day + 1, 45 * per_day + 3, 2**62]
        return sorted(set(base + [-v for v in base])) + [None]
    per_day = 86400 * (1000 if t == "date64[ms]" else PER_SECOND[unit(t)])
    lo, hi = value_range(t)
    steps = [0] if t == "date64[ms]" else [0, -1, 1, per_day // 2, per_day // 2 - 1]
    vals = [d * per_day + k for d in dates for k in steps]
    return sorted(v for v in set(vals) if lo <= v <= hi) + [None]


def round_sweep(g, cid, t, n, nulls, off):
    """A drawn input of `t` for the rounding functions (times before 23:00, so that
    rounding to the hour stays within the day)."""
    if t == "date64[ms]":
        return _pair(g, cid, t, n, nulls, off)
    if t in DURATIONS:
        return g.gen_input(t, n, nulls, off, cid, lo=str(-(2**62)), hi=str(2**62))
    lo, hi = value_range(t)
    if t in TIMES:
        hi -= 3600 * PER_SECOND[unit(t)]
    return g.gen_input(t, n, nulls, off, cid, lo=str(lo), hi=str(hi))


def _validates(op, params, inp):
    """Whether pyarrow's result for the input passes Arrow's full validation (or
    pyarrow refuses it). pyarrow's rounding takes a time past 24 hours or below 0 and
    a date64 off a whole day (its arithmetic's wraps) where Arrow's validation does
    not, and the runners validate every result: such cases are not generated (the
    Python tests compare them)."""
    import pyarrow as pa

    try:
        evaluate(op, params, [cf.build_input(inp)]).validate(full=True)
    except pa.ArrowInvalid as e:
        return "within the acceptable range" not in str(e) and "whole number of days" not in str(e)
    return True


def add_rounding(g, cid, op, params, t, values=None, drawn=None):
    """g.add of a rounding case over `drawn`, or over `values` (inline, offset 3) less
    those whose result does not validate; none left: no case."""
    if drawn is not None:
        if _validates(op, params, drawn):
            g.add(cid, op, params, "unary", [drawn])
        return
    if t in TIMES or t == "date64[ms]":
        values = [v for v in values if v is None or _validates(op, params, g.inline(t, [v]))]
        if all(v is None for v in values):
            return
    g.add(cid, op, params, "unary", [g.inline(t, values, 3)])


def gen_rounding(g):
    """floor/ceil/round_temporal: every type x unit it takes, each function, a drawn
    input with pyarrow's default options, then the edge values under six multiples and
    under every flag set (multiple 3); every shape once per type; a duration's
    refused options, and the numeric types."""
    for op in ROUND_OPS:
        for t in TEMPORAL_TYPES:
            units = DURATION_UNITS if t in DURATIONS else CALENDAR_UNITS
            edges = round_values(t)
            for u in units:
                cid = g.sweep_id(op, t, "unary", 65, "some-nulls", 7, extra=u)
                drawn = round_sweep(g, cid, t, 65, "some-nulls", 7)
                add_rounding(g, cid, op, round_params(1, u), t, drawn=drawn)
                for m in ROUND_MULTIPLES:
                    cid = f"{op}/{t}/unary/{u}/multiple{m}/edges"
                    add_rounding(g, cid, op, round_params(m, u), t, edges)
                for flags in FLAG_SETS[1:]:
                    cid = f"{op}/{t}/unary/{u}/multiple3/{flags_name(flags)}/edges"
                    add_rounding(g, cid, op, round_params(3, u, flags), t, edges)
            for n, nulls, off in (SHAPES[0], SHAPES[1], SHAPES[3]):
                cid = g.sweep_id(op, t, "unary", n, nulls, off, extra="minute")
                drawn = round_sweep(g, cid, t, n, nulls, off)
                add_rounding(g, cid, op, round_params(1, "minute"), t, drawn=drawn)
            if t in DURATIONS:
                for u in CALENDAR_UNITS[8:]:
                    cid = f"{op}/{t}/unary/{u}/refused"
                    g.add(cid, op, round_params(1, u), "unary", [g.inline(t, [1, None])])
                cid = f"{op}/{t}/unary/week/multiple-times-7-overflows"
                params = round_params((2**31 - 1) // 7 + 1, "week")
                g.add(cid, op, params, "unary", [g.inline(t, [1, None])])
                cid = f"{op}/{t}/unary/year/only-nulls-refused"
                g.add(cid, op, round_params(1, "year"), "unary", [g.inline(t, [None, None])])
        for t in TYPES:  # pyarrow has no kernel for the numeric types
            params = round_params(1, "day")
            g.add(f"{op}/{t}/unary/type-error", op, params, "unary", [g.inline(t, [None])])


# ---- pyarrow ---------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow.compute as pc

    if op in ROUND_OPS:
        return getattr(pc, op)(args[0], options=pc.RoundTemporalOptions(**params))
    if op == "day_of_week":
        return pc.day_of_week(
            args[0],
            week_start=params.get("week_start", 1),
            count_from_zero=params.get("count_from_zero", True),
        )
    return pc.call_function(op, [args[0]])


def map_error(exc):
    """am_status of pyarrow's refusal of a week_start or of a checked temporal cast, None
    for the others."""
    msg = str(exc)
    if "week_start must follow ISO convention" in msg:
        return "AM_EINVAL"
    if "would lose data" in msg or "would result in out of bounds timestamp" in msg:
        return "AM_EINVAL"
    if msg in DURATION_REFUSALS:
        return "AM_EINVAL"
    if "is not within the acceptable range of [0, " in msg:  # time +- duration
        return "AM_EINVAL"
    return None


def file_of(case):
    """The case file of a case with a temporal input (this family's), else None."""
    if case["op"] in OPS or case["params"].get("to") in TEMPORAL_TYPES:
        return FILE
    for inp in case["inputs"]:
        t = inp["scalar"]["type"] if "scalar" in inp else inp["type"]
        if t in TEMPORAL_TYPES:
            return FILE
    return None


# ---- the C ABI ---------------------------------------------------------------------------


def call(case, arrays, scalars, out):
    """(function name, status, out) of the case's call."""
    from amabi import lib

    p = case["params"]
    if case["op"] in ROUND_OPS:
        from amabi import ffi

        o = ffi.new("am_round_temporal_options *")
        o.multiple = p["multiple"]
        o.unit = CALENDAR_UNITS.index(p["unit"])
        o.week_starts_monday = p["week_starts_monday"]
        o.ceil_is_strictly_greater = p["ceil_is_strictly_greater"]
        o.calendar_based_origin = p["calendar_based_origin"]
        rc = lib.am_round_temporal(ROUND_OPS.index(case["op"]), arrays[0], o, out)
        return "am_round_temporal", rc, out
    rc = lib.am_temporal_field(
        FIELD_OPS.index(case["op"]),
        arrays[0],
        p.get("week_start", 1),
        1 if p.get("count_from_zero", True) else 0,
        out,
    )
    return "am_temporal_field", rc, out


# ---- cases -------------------------------------------------------------------------------

SHAPES = [  # (length, nulls, offset): empty, every null pattern, sliced, an unknown count
    (0, "no-nulls", 0),
    (7, "all-nulls", 1),
    (65, "some-nulls", 7),
    (1003, "no-nulls", 63),  # past INLINE_MAX: a gen spec and a digest
    (64, "some-nulls", 0),
]


def gen_fields(g):
    for op in FIELD_OPS:
        for t in TEMPORAL_TYPES:
            if not takes(op, t):
                g.add(f"{op}/{t}/unary/type-error", op, {}, "unary", [g.inline(t, [1, None])])
                continue
            lo, hi = value_range(t)
            for n, nulls, off in SHAPES:
                cid = g.sweep_id(op, t, "unary", n, nulls, off)
                inp = g.gen_input(t, n, nulls, off, cid, lo=str(lo), hi=str(hi))
                g.add(cid, op, {}, "unary", [inp])
            g.add(f"{op}/{t}/unary/special", op, {}, "unary", [g.inline(t, special_values(t), 3)])
        for t in TYPES:  # pyarrow has no kernel for the numeric types
            g.add(f"{op}/{t}/unary/type-error", op, {}, "unary", [g.inline(t, [None])])
    for t in TIMESTAMPS[:1] + DATES:  # DayOfWeekOptions
        vals = special_values(t)
        for ws in range(1, 8):
            for zero in (True, False):
                params = OrderedDict([("week_start", ws), ("count_from_zero", zero)])
                cid = f"day_of_week/{t}/unary/week_start{ws}/{'zero' if zero else 'one'}"
                g.add(cid, "day_of_week", params, "unary", [g.inline(t, vals)])
        for ws in (0, 8):
            cid = f"day_of_week/{t}/unary/week_start{ws}/invalid"
            g.add(cid, "day_of_week", {"week_start": ws}, "unary", [g.inline(t, vals)])


def _pair(g, key, t, n, nulls, off, role="value"):
    if t == "date64[ms]":  # whole days only: pyarrow's validation refuses others
        days_ = [-800000, -36524, -1, 0, 1, 59, 365, 10957, 18000, 2932896]
        choices = [str(d * 86_400_000) for d in days_]
        return g.gen_input(t, n, nulls, off, key, role=role, kind="choice", choices=choices)
    lo, hi = value_range(t) if t not in DURATIONS else (-(10**12), 10**12)
    if t in TIMESTAMPS and unit(t) != "ns":
        lo, hi = lo // 1000, hi // 1000  # room to reach the finer unit of another side
    return g.gen_input(t, n, nulls, off, key, role=role, lo=str(lo), hi=str(hi))


def gen_existing(g):
    """The functions of other families over temporal inputs (their results typed as
    pyarrow types them), in this family's file."""
    for t in TEMPORAL_TYPES:
        for k, (n, nulls, off) in enumerate(SHAPES[1:4]):
            cid = g.sweep_id("filter", t, "array-array", n, nulls, off)
            mask = g.gen_input("bool", n, g.other(nulls, 1), 0, cid + "/mask")
            g.add(cid, "filter", {}, "array-array", [_pair(g, cid, t, n, nulls, off), mask])
            cid = g.sweep_id("take", t, "array-array", n, nulls, off)
            idx = g.gen_input(
                "int32", n, "no-nulls", 0, cid + "/idx", lo="0", hi=str(max(n - 1, 0))
            )
            g.add(cid, "take", {}, "array-array", [_pair(g, cid, t, n, nulls, off), idx])
            for op in ("min", "max"):
                cid = g.sweep_id(op, t, "unary", n, nulls, off)
                g.add(cid, op, {}, "unary", [_pair(g, cid, t, n, nulls, off)])
            cid = g.sweep_id("count-only_valid", t, "unary", n, nulls, off)
            g.add(cid, "count", {"mode": "only_valid"}, "unary", [_pair(g, cid, t, n, nulls, off)])
            for op in ("is_null", "drop_null"):
                cid = g.sweep_id(op, t, "unary", n, nulls, off)
                g.add(cid, op, {}, "unary", [_pair(g, cid, t, n, nulls, off)])
            cid = g.sweep_id("array_sort_indices", t, "unary", n, nulls, off)
            g.add(cid, "array_sort_indices", {}, "unary", [_pair(g, cid, t, n, nulls, off)])
            cmp = list(g.CMP)[k % 6]
            cid = g.sweep_id("compare", t, "array-array", n, nulls, off, extra=cmp)
            inputs = [_pair(g, cid, t, n, nulls, off), _pair(g, cid + "/r", t, n, "some-nulls", 0)]
            g.add(cid, "compare", {"cmp": cmp}, "array-array", inputs)
        for op in ("sum", "mean"):  # pyarrow has no kernel: nor has the library
            g.add(f"{op}/{t}/unary/type-error", op, {}, "unary", [g.inline(t, [1, None])])
        for op in ("is_nan", "is_inf", "is_finite"):  # of durations alone in pyarrow
            g.add(f"{op}/{t}/unary/temporal", op, {}, "unary", [g.inline(t, [0, None])])
    # Mixed units and families: compare aligns units; arithmetic types as pyarrow does
    # (timestamp - timestamp: duration; timestamp +- duration: timestamp; date32 - date32:
    # duration[s]; timestamp + timestamp, duration - timestamp: no kernel).
    pairs = [(a, b) for a in TIMESTAMPS for b in TIMESTAMPS] + [
        (a, b) for a in TIMESTAMPS for b in DURATIONS
    ]
    pairs += [(b, a) for a in TIMESTAMPS[:2] for b in DURATIONS[:2]]
    pairs += [(a, a) for a in DATES + TIMES + DURATIONS] + [("date32[day]", "date64[ms]")]
    pairs += [("timestamp[s]", "int64"), ("duration[s]", "int64")]
    for a, b in pairs:
        n, nulls, off = 65, "some-nulls", 1
        for op, arith in (("compare", "lt"), ("arith", "add"), ("arith", "subtract")):
            if op == "compare" and a in DURATIONS and b in TIMESTAMPS:
                continue
            cid = f"{op}/{a}/array-array/{b}/{arith}"
            right = g.gen_input(b, n, "some-nulls", 0, cid + "/r", lo="-1000000", hi="1000000")
            params = {"cmp": arith} if op == "compare" else {"arith": arith}
            g.add(cid, op, params, "array-array", [_pair(g, cid, a, n, nulls, off), right])
        for op in ("add_checked", "subtract_checked"):
            cid = f"{op}/{a}/array-array/{b}"
            right = g.gen_input(b, n, "some-nulls", 0, cid + "/r", lo="-1000000", hi="1000000")
            g.add(cid, op, {}, "array-array", [_pair(g, cid, a, n, nulls, off), right])
    big = [2**62, -(2**62), None]
    g.add("subtract_checked/timestamp[s]/array-array/overflow", "subtract_checked", {},
          "array-array", [g.inline("timestamp[s]", big), g.inline("timestamp[s]", big[::-1])])  # fmt: skip
    g.add("add_checked/duration[ms]/array-array/overflow", "add_checked", {}, "array-array",
          [g.inline("duration[ms]", big), g.inline("duration[ms]", big)])  # fmt: skip


ARITH_OPS = [("arith", {"arith": "add"}), ("arith", {"arith": "subtract"}),
             ("add_checked", {}), ("subtract_checked", {})]  # fmt: skip


def _arith_id(op, params, left, form, right, detail):
    """A case id: `op/left/form/right/detail`, am_arith's op after it."""
    tail = f"/{params['arith']}" if op == "arith" else ""
    return f"{op}/{left}/{form}/{right}/{detail}{tail}"


def _dated(g, key, t, n=65, nulls="some-nulls", off=1, role="value"):
    """Dates within a century of 1970 (a timestamp[ns] holds them), date64 whole days."""
    if t == "date64[ms]":
        choices = [str(d * 86_400_000) for d in (-36524, -1, 0, 1, 59, 365, 10957, 18000, 36524)]
        return g.gen_input(t, n, nulls, off, key, role=role, kind="choice", choices=choices)
    return g.gen_input(t, n, nulls, off, key, role=role, lo="-36524", hi="36524")


def _quarter_day(t):
    return 86400 * PER_SECOND[unit(t)] // 4


def _timed(g, key, t, n=65, nulls="some-nulls", off=1):
    """Times of day in its middle half; null slots hold noon (pyarrow adds those too)."""
    q = _quarter_day(t)
    return g.gen_input(t, n, nulls, off, key, lo=str(q), hi=str(3 * q), null_fill=str(2 * q))


def _short(g, key, t, n=65, nulls="some-nulls", off=0):
    """Durations within a quarter of a day (of their own unit)."""
    q = _quarter_day(t)
    return g.gen_input(t, n, nulls, off, key, role="value", lo=str(-q), hi=str(q))


def gen_date_time_arith(g):
    """add / subtract (and _checked) of dates with durations and timestamps, and of times
    with durations, as pyarrow 26 dispatches them: a date is a timestamp without a zone in
    the finer unit (date32 counting as seconds): date +- duration and duration + date a
    timestamp, timestamp - date and date - timestamp a duration; time +- duration and
    duration + time a time of the finer unit (time32 up to milliseconds), refused outside
    the day (every slot, a null one's value too, the last one named); duration - date,
    duration - time, date + date, time + time refused. Array-array and array-scalar,
    then the edges: the day's bounds, a null slot outside them, time32's 32-bit wrap of
    the duration, overflows, a date beyond timestamp[ns]."""
    for op, params in ARITH_OPS:

        def cid_of(left, right, detail, form="array-array", op=op, params=params):
            return _arith_id(op, params, left, form, right, detail)

        for a in DATES:
            for b in DURATIONS:
                for left, right in ((a, b), (b, a)):
                    cid = cid_of(left, right, "date-duration")
                    make = [_dated if x in DATES else _short for x in (left, right)]
                    g.add(cid, op, params, "array-array",
                          [make[0](g, cid, left), make[1](g, cid + "/r", right)])  # fmt: skip
                cid = cid_of(a, b, "date-duration", "array-scalar")
                g.add(cid, op, params, "array-scalar",
                      [_dated(g, cid, a), g.scalar(b, -1000)])  # fmt: skip
            for b in TIMESTAMPS + DATES[DATES.index(a) :]:  # each pair of dates once
                for left, right in sorted({(a, b), (b, a)}):
                    cid = cid_of(left, right, "date-timestamp")
                    make = [_dated if x in DATES else _pair for x in (left, right)]
                    ins = [make[0](g, cid, left, 65, "some-nulls", 1),
                           make[1](g, cid + "/r", right, 65, "some-nulls", 0)]  # fmt: skip
                    g.add(cid, op, params, "array-array", ins)
        for a in TIMES:
            for b in DURATIONS:
                cid = cid_of(a, b, "time-duration")
                g.add(cid, op, params, "array-array", [_timed(g, cid, a), _short(g, cid + "/r", b)])
                cid = cid_of(b, a, "duration-time")
                g.add(cid, op, params, "array-array",
                      [_short(g, cid, b, off=1), _timed(g, cid + "/r", a, off=0)])  # fmt: skip
                cid = cid_of(a, b, "time-duration", "array-scalar")
                g.add(cid, op, params, "array-scalar",
                      [_timed(g, cid, a), g.scalar(b, _quarter_day(b) // 3)])  # fmt: skip
            cid = cid_of(a, a, "time-time")
            g.add(cid, op, params, "array-array", [_timed(g, cid, a), _timed(g, cid + "/r", a)])
        # the edges, in seconds and nanoseconds
        for t, d in (("time32[s]", "duration[s]"), ("time32[ms]", "duration[s]"),
                     ("time64[us]", "duration[ns]"), ("time64[ns]", "duration[ns]")):  # fmt: skip
            edge = [0, 1, 86400 * PER_SECOND[unit(t)] - 1, 5, 7, None]
            steps = [0, -1, 1, 2**32, -(2**32) + 3, 4]  # a day's bounds, the 32-bit wrap
            g.add(cid_of(t, d, "edges"), op, params, "array-array",
                  [g.inline(t, edge, 1, null_fill="0"), g.inline(d, steps, 0)])  # fmt: skip
            g.add(
                cid_of(t, d, "in-range"),
                op,
                params,
                "array-array",
                [g.inline(t, [5, None, 9], 0, null_fill="7"), g.inline(d, [0, 3, None], 0)],
            )
            g.add(cid_of(t, d, "null-slot-outside"), op, params, "array-array",
                  [g.inline(t, [5, None], 0, null_fill="0"), g.inline(d, [0, -3], 0)])  # fmt: skip
            big = [2**62, -(2**62), 2**63 - 1, -(2**63), None]
            g.add(cid_of(t, d, "overflow"), op, params, "array-array",
                  [g.inline(t, [3, 4, 5, 6, 7], 0), g.inline(d, big, 0)])  # fmt: skip
        big = [2**31 - 1, -(2**31), 0, None]
        g.add(cid_of("date32[day]", "duration[s]", "overflow"), op, params, "array-array",
              [g.inline("date32[day]", big, 0),
               g.inline("duration[s]", [2**63 - 1, -(2**63), 1, 1], 0)])  # fmt: skip
        g.add(cid_of("date32[day]", "duration[ns]", "out-of-bounds"), op, params,
              "array-array", [g.inline("date32[day]", [0, 2**31 - 1, 120000, None], 0),
                              g.inline("duration[ns]", [1, 1, 1, 1], 0)])  # fmt: skip
        g.add(cid_of("date64[ms]", "duration[ms]", "overflow"), op, params, "array-array",
              [g.inline("date64[ms]", [86_400_000 * 106751991167, 0, None], 0),
               g.inline("duration[ms]", [2**63 - 1, -(2**63), 1], 0)])  # fmt: skip


MULDIV_OPS = [("arith", {"arith": "multiply"}), ("multiply_checked", {}),
              ("arith", {"arith": "divide"}), ("divide_checked", {})]  # fmt: skip
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
I64_MAX, I64_MIN = 2**63 - 1, -(2**63)


def _factor(g, key, t, n=65, nulls="some-nulls", off=0):
    """Integers of type t without zeros (a valid zero divisor fails the whole call)."""
    choices = [1, 2, 3, 7, 100, 127] + ([-1, -2, -9, -100] if not t.startswith("u") else [])
    return g.gen_input(t, n, nulls, off, key, kind="choice", choices=[str(c) for c in choices])


def gen_duration_arith(g):
    """multiply / divide (and _checked) with durations, as pyarrow 26 dispatches them:
    duration x integer and integer x duration a duration of its unit, duration / integer a
    duration (the integer cast to int64 first), duration / duration float64 in the finer
    unit; integer / duration, duration x duration and every other pair refused. Every
    duration unit with every integer type, array-array and array-scalar both ways, every
    pair of units for the ratio; then the edges: wrapping and overflow, MIN / -1, zero
    divisors (in valid and in null slots), a uint64 past int64, null scalars, a ratio's
    unit cast past int64 and its infinities; and abs, negate, sign and their checked
    variants of durations."""
    for op, params in MULDIV_OPS:

        def cid_of(left, right, detail, form="array-array", op=op, params=params):
            return _arith_id(op, params, left, form, right, detail)

        for d in DURATIONS:
            for t in INTS:
                cid = cid_of(d, t, "duration-integer")
                g.add(cid, op, params, "array-array",
                      [_pair(g, cid, d, 65, "some-nulls", 1), _factor(g, cid + "/r", t)])  # fmt: skip
                cid = cid_of(t, d, "integer-duration")
                g.add(cid, op, params, "array-array",
                      [_factor(g, cid, t, off=1), _pair(g, cid + "/r", d, 65, "some-nulls", 0)])  # fmt: skip
                cid = cid_of(d, t, "duration-integer", "array-scalar")
                g.add(cid, op, params, "array-scalar",
                      [_pair(g, cid, d, 65, "some-nulls", 1), g.scalar(t, 3)])  # fmt: skip
                cid = cid_of(t, d, "integer-duration", "array-scalar")
                g.add(cid, op, params, "array-scalar",
                      [_factor(g, cid, t, off=1), g.scalar(d, -7)])  # fmt: skip
            for e in DURATIONS:
                cid = cid_of(d, e, "duration-duration")
                g.add(cid, op, params, "array-array",
                      [_pair(g, cid, d, 65, "some-nulls", 1), _factor(g, cid + "/r", e)])  # fmt: skip
            cid = cid_of(d, d, "duration-duration", "array-scalar")
            g.add(cid, op, params, "array-scalar",
                  [_pair(g, cid, d, 65, "some-nulls", 1), g.scalar(d, 1000)])  # fmt: skip
        # the edges
        big = [I64_MAX, 3, None, I64_MIN, I64_MIN, -5]
        g.add(cid_of("duration[s]", "int64", "overflow"), op, params, "array-array",
              [g.inline("duration[s]", big), g.inline("int64", [2, 3, 4, -1, 1, 7])])  # fmt: skip
        g.add(cid_of("int8", "duration[ns]", "overflow"), op, params, "array-array",
              [g.inline("int8", [2, 3, 4, -1, 1, 7]), g.inline("duration[ns]", big)])  # fmt: skip
        g.add(cid_of("duration[ms]", "int64", "zero-divisor"), op, params, "array-array",
              [g.inline("duration[ms]", [5, 3]), g.inline("int64", [0, 1])])  # fmt: skip
        g.add(cid_of("duration[ms]", "int32", "zero-in-null-slot"), op, params,
              "array-array", [g.inline("duration[ms]", [5, None, 9]),
                              g.inline("int32", [2, 0, None])])  # fmt: skip
        g.add(cid_of("duration[us]", "uint64", "past-int64"), op, params, "array-array",
              [g.inline("duration[us]", [1, 2]), g.inline("uint64", [2**63, 1])])  # fmt: skip
        g.add(cid_of("duration[us]", "uint64", "past-int64-in-null-slot"), op, params,
              "array-array", [g.inline("duration[us]", [1, 2]),
                              g.inline("uint64", [None, 1], null_fill=str(2**63))])  # fmt: skip
        g.add(cid_of("duration[us]", "uint64", "past-int64", "array-scalar"), op, params,
              "array-scalar", [g.inline("duration[us]", [1, 2]), g.scalar("uint64", 2**63)])  # fmt: skip
        for t in ("int8", "uint64", "duration[s]", "duration[ns]"):
            g.add(cid_of("duration[s]", t, "null-scalar", "array-scalar"), op, params,
                  "array-scalar", [g.inline("duration[s]", [1, None, -3]), g.scalar(t, None)])  # fmt: skip
        g.add(cid_of("duration[s]", "int8", "zero-scalar", "array-scalar"), op, params,
              "array-scalar", [g.inline("duration[s]", [1, None, -3]), g.scalar("int8", 0)])  # fmt: skip
        g.add(cid_of("duration[s]", "duration[ms]", "zero-divisor"), op, params, "array-array",
              [g.inline("duration[s]", [7, 1, 0, 0, None, -3]),
               g.inline("duration[ms]", [2, 0, 0, 5, 1, 0])])  # fmt: skip
        g.add(cid_of("duration[s]", "duration[ms]", "past-int64"), op, params, "array-array",
              [g.inline("duration[s]", [I64_MAX, 1]), g.inline("duration[ms]", [1, 1])])  # fmt: skip
        g.add(cid_of("duration[ns]", "duration[ns]", "ends"), op, params, "array-array",
              [g.inline("duration[ns]", [I64_MAX, I64_MIN, 2**53 + 1, -1]),
               g.inline("duration[ns]", [3, 7, 1, I64_MIN])])  # fmt: skip
        g.add(cid_of("duration[ms]", "duration[ms]", "empty"), op, params, "array-array",
              [g.inline("duration[ms]", []), g.inline("duration[ms]", [])])  # fmt: skip
        # refused: pyarrow has no kernel
        for a, b in (("duration[s]", "float64"), ("float32", "duration[ms]"),
                     ("duration[us]", "bool"), ("duration[us]", "timestamp[ms]"),
                     ("timestamp[s]", "int64"), ("date32[day]", "int32"),
                     ("time32[s]", "int64"), ("int64", "time64[ns]")):  # fmt: skip
            cid = cid_of(a, b, "no-kernel")
            right = g.inline(b, [True, None] if b == "bool" else [1, None])
            g.add(cid, op, params, "array-array", [g.inline(a, [1, None]), right])
    for op in ("abs", "abs_checked", "negate", "negate_checked", "sign"):
        for d in DURATIONS:
            cid = g.sweep_id(op, d, "unary", 65, "some-nulls", 1)
            g.add(cid, op, {}, "unary", [_pair(g, cid, d, 65, "some-nulls", 1)])
            g.add(f"{op}/{d}/unary/ends", op, {}, "unary",
                  [g.inline(d, [I64_MIN, -5, 0, 7, None, I64_MAX], 3)])  # fmt: skip
    for op in ("sqrt", "bit_wise_not", "floor"):
        g.add(f"{op}/duration[s]/unary/type-error", op, {}, "unary",
              [g.inline("duration[s]", [1, None])])  # fmt: skip


# Storage values at the edges of the unit changes: exact and inexact multiples of 1000
# and of a day in milliseconds, negative ones (truncation toward zero and the floor of a
# day), and values past what a finer unit holds.
CAST_EDGES = [0, 1, -1, 1000, -1001, 1001, 86_400_000, -86_400_001, 2**40, 2**62, -(2**62)]


def gen_casts(g):
    """cast between every pair of temporal types and their storage integers: a drawn
    input safe and unsafe, and the edges safe, unsafe and with each time check lifted
    (CastOptions allow_time_truncate / allow_time_overflow); one case for a pair pyarrow
    has no cast for."""
    import pyarrow as pa
    import pyarrow.compute as pc

    types = TEMPORAL_TYPES + ["int32", "int64"]
    for src in types:
        lo, hi = (
            value_range(src) if src in TIMES else cf.int_range(cf.TEMPORAL_STORAGE.get(src, src))
        )
        for dst in types:
            if src == dst or (src not in TEMPORAL_TYPES and dst not in TEMPORAL_TYPES):
                continue
            # valid times only (pyarrow's validation refuses others), and timestamps to a
            # time of day within 2^40: past that pyarrow's result is its arithmetic's wrap
            top = 86399 if dst in TIMES and src not in TIMESTAMPS else 2**40 if dst in TIMES else hi
            bottom = 0 if dst in TIMES and src not in TIMESTAMPS else -top if dst in TIMES else lo
            edges = [v for v in CAST_EDGES if max(lo, bottom) <= v <= min(hi, top)] + [None]
            whole_days = dst == "date64[ms]" and src not in TEMPORAL_TYPES  # (as validated)
            if whole_days:
                edges = [0, 86_400_000, -86_400_000, 10**4 * 86_400_000, None]
            try:
                pc.cast(pa.array([], cf.PA_TYPE[src]), cf.PA_TYPE[dst])
            except pa.ArrowNotImplementedError:
                cid = f"cast/{src}->{dst}/unsupported"
                g.add(cid, "cast", {"to": dst, "safe": True}, "unary", [g.inline(src, [1, None])])
                continue
            n, nulls, off = SHAPES[2]
            for safe in (True, False):
                cid = g.sweep_id(
                    "cast",
                    f"{src}->{dst}",
                    "unary",
                    n,
                    nulls,
                    off,
                    extra="safe" if safe else "unsafe",
                )
                if src in TEMPORAL_TYPES:
                    drawn = _pair(g, cid, src, n, nulls, off)
                elif whole_days:
                    days_ = [-36524, -1, 0, 1, 59, 18000]
                    drawn = g.gen_input(src, n, nulls, off, cid, kind="choice",
                                        choices=[str(d * 86_400_000) for d in days_])  # fmt: skip
                else:
                    drawn = g.gen_input(src, n, nulls, off, cid, lo=str(max(lo, bottom, -10**5)),
                                        hi=str(min(hi, top, 10**5)))  # fmt: skip
                g.add(cid, "cast", {"to": dst, "safe": safe}, "unary", [drawn])
            for how, params in (
                ("safe", {"safe": True}),
                ("unsafe", {"safe": False}),
                ("allow_time_truncate", {"safe": True, "allow": ["time_truncate"]}),
                ("allow_time_overflow", {"safe": True, "allow": ["time_overflow"]}),
            ):
                cid = f"cast/{src}->{dst}/edges/{how}"
                g.add(cid, "cast", {"to": dst, **params}, "unary", [g.inline(src, edges, 3)])


def gen(g):
    import string_cases  # the text functions' calls are its (strftime, casts to strings)

    gen_fields(g)
    gen_rounding(g)
    gen_existing(g)
    gen_date_time_arith(g)
    gen_duration_arith(g)
    gen_casts(g)
    string_cases.gen_temporal_casts(g)
    string_cases.gen_strftime(g)
