"""Time zones in the conformance suite (issue #13): the field extractions (year ...
iso_year, ``am_temporal_field``), the casts to dates, times of day and strings (``am_cast``)
and ``strftime`` of timestamps with a time zone, which read local wall times, floor/ceil/
round_temporal of them (``am_round_temporal``: in local time, a rounded local time the
clocks skipped or repeated refused), and ``assume_timezone``
(``am_assume_timezone``), over zones with DST both ways, a 30-minute DST (Lord Howe), a
45-minute offset (Chatham), abolished DST (Sao Paulo), none (Kolkata), UTC and fixed
offsets; instants around the clock changes of many years, before the first transition
(local mean time, offsets of seconds), past the TZif files' last transition, every unit,
nulls; and the refusals (unknown zones, a zone already set, ambiguous and nonexistent
local times under "raise", types without a kernel).

A zoned input is an array input with its zone beside the type, {"type": "timestamp[s]",
"tz": "America/New_York", ...}; an expected timestamp array carries its zone the same way.
Every case with a zoned input, and every assume_timezone case, lives in
cases/timezone.json.gz (``file_of``).

Expected values are pyarrow 26's on the generating machine's tz database (Debian's tzdata
2025b), except past the last transition the files list (2037) in zones that still change
their clocks: there the library applies the files' POSIX TZ rule and pyarrow keeps the last
offset (conformance/README.md, Divergences: tz-footer). Those cases expect pyarrow's
calendar at the offsets of Python's zoneinfo (which applies the rule), keep pyarrow's own
answer in "pyarrow", and the generator checks that pyarrow still differs.
"""

import datetime
from collections import OrderedDict

import casefmt as cf
import temporal_cases

# is_dst and local_timestamp: am_zone_function's ops, in the order of am_zone_op.
ZONE_OPS = ["is_dst", "local_timestamp"]
OPS = ["assume_timezone"] + ZONE_OPS
FILE = "timezone"
FIELDS = temporal_cases.FIELD_OPS
TIME_FIELDS = {"second", "millisecond", "microsecond", "nanosecond"}  # of the value, as pyarrow
ZONES = [
    "America/New_York",
    "Europe/London",
    "Australia/Lord_Howe",  # DST of 30 minutes
    "Asia/Kolkata",
    "Pacific/Chatham",  # +12:45 / +13:45
    "America/Sao_Paulo",  # DST until 2019
    "Europe/Dublin",  # "negative" DST: winter is the daylight type
    "Pacific/Apia",  # skipped 2011-12-30
    "UTC",
    "+05:30",
    "-0800",
]
UNITS = ["s", "ms", "us", "ns"]
PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}
CHOICES = ["raise", "earliest", "latest"]
DELTAS = [-3601, -3600, -1801, -1800, -1, 0, 1, 1799, 1800, 3599, 3600]
# Seconds of 1900-01-01 and 2037-12-01: the stretch where the files list every transition
# (and timestamp[ns] reaches).
LISTED = (-2208988800, 2143238400)
CAST_TARGETS = ["date32[day]", "date64[ms]", "time32[s]", "time32[ms]", "time64[us]",
                "time64[ns]"]  # fmt: skip
SHAPES = [(65, "some-nulls", 7), (1003, "no-nulls", 63)]  # the second: a gen spec past INLINE_MAX


def _zoneinfo(zone):
    """Python's zoneinfo of a zone (None for a fixed offset or a name it has not)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if zone[0] in "+-":
        return None
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _offset(zone, t):
    """UTC offset (seconds) of `zone` at UTC second t, by Python's zoneinfo (the files'
    POSIX rule past their last transition)."""
    zi = _zoneinfo(zone)
    if zi is None:
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        return sign * (int(digits[:2]) * 3600 + int(digits[2:4]) * 60)
    when = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(
        seconds=t
    )
    return int(when.astimezone(zi).utcoffset().total_seconds())


def transitions(zone):
    """UTC seconds of the zone's transitions within LISTED: the first few, the last few,
    and a pair of years in between."""
    from zoneinfo import _zoneinfo as pure

    if _zoneinfo(zone) is None:
        return [0]
    times = [t for t in pure.ZoneInfo.no_cache(zone)._trans_utc if LISTED[0] <= t < LISTED[1]]
    years = {1916, 1945, 1970, 1996, 2010, 2011, 2019, 2020, 2036, 2037}
    pick = [t for t in times if _year(t) in years]
    return sorted(set(times[:3] + pick + times[-2:])) or [0]


def _year(t):
    return (datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=t)).year


def _seconds(y, m=1, d=1, h=0):
    return int((datetime.datetime(y, m, d, h) - datetime.datetime(1970, 1, 1)).total_seconds())


def _ticks(unit, seconds):
    """Values of `unit` at these seconds, with fractions of a second that vary (and keep
    negative values' floors honest)."""
    per = PER_SECOND[unit]
    return [s * per + (i * 7919) % per for i, s in enumerate(seconds)]


def around(zone):
    """UTC seconds around each listed transition of the zone, and null slots."""
    vals = [t + d for t in transitions(zone) for d in DELTAS]
    return vals[:3] + [None] + vals[3:] + [None]


# Before the first transition (local mean time), and past the last listed one (2037).
FAR_PAST = [_seconds(1000, 6, 1), _seconds(1500, 3, 1, 12), _seconds(1700, 1, 1, 5),
            _seconds(1800, 1, 1), -(2**34)]  # fmt: skip
FAR_FUTURE = [_seconds(2038, 7, 1), _seconds(2100, 3, 14, 7), _seconds(2100, 11, 7, 6),
              _seconds(2500, 6, 30, 23), _seconds(5000, 1, 1), _seconds(9999, 6, 30, 23)]  # fmt: skip


def far(unit, future):
    """Far instants the unit holds (timestamp[ns] spans 1677-2262)."""
    vals = FAR_FUTURE if future else FAR_PAST
    if unit == "ns":
        vals = [v for v in vals if -(2**63) < v * 10**9 < 2**63]
    return vals


def zoned(g, t, zone, values, offset=3):
    inp = g.inline(t, values, offset)
    inp["tz"] = zone
    return inp


# ---- pyarrow, and the footer's offsets ---------------------------------------------------


def evaluate(op, params, args):
    import pyarrow.compute as pc

    if op in ZONE_OPS:
        return getattr(pc, op)(args[0])
    opts = pc.AssumeTimezoneOptions(params["timezone"], ambiguous=params.get("ambiguous", "raise"),
                                    nonexistent=params.get("nonexistent", "raise"))  # fmt: skip
    return pc.assume_timezone(args[0], options=opts)


def map_error(exc):
    """am_status of pyarrow's refusals here, None for the others."""
    msg = str(exc)
    words = ("Cannot locate or parse timezone", "Timestamp doesn't exist in timezone",
             "Timestamp is ambiguous in timezone", "Timestamps already have a timezone",
             "Local time does not exist: ", "Local time is ambiguous: ",
             "Timestamps have no timezone. Cannot determine DST.")  # fmt: skip
    return "AM_EINVAL" if any(w in msg for w in words) else None


def file_of(case):
    """The case file of a case with a zoned input or of assume_timezone, else None."""
    if case["op"] in OPS or any("tz" in inp for inp in case["inputs"]):
        return FILE
    return None


def _local_array(inp, zone):
    """The zoned input's local wall times as a naive timestamp array (zoneinfo's offsets)."""
    import pyarrow as pa

    arr = cf.build_input({k: v for k, v in inp.items() if k != "tz"})
    per = PER_SECOND[arr.type.unit]
    vals = [None if v is None else v + _offset(zone, v // per) * per for v in cf.array_values(arr)]
    return pa.array(vals, arr.type)


def _to_utc(zone, unit, local, ambiguous, nonexistent):
    """assume_timezone of one local value by zoneinfo's offsets: None where it refuses."""
    per = PER_SECOND[unit]
    s = local // per
    base = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=s)
    zi = _zoneinfo(zone)
    if zi is None:
        return local - _offset(zone, 0) * per
    u0, u1 = (int(base.replace(tzinfo=zi, fold=f).timestamp()) for f in (0, 1))
    if u0 == u1:
        return local - (s - u0) * per
    if u0 < u1:  # ambiguous: fold 0 is the earlier instant
        if ambiguous == "raise":
            return None
        return local - (s - (u0 if ambiguous == "earliest" else u1)) * per
    if nonexistent == "raise":  # a gap: its end is the transition in (u1, u0]
        return None
    lo, hi = u1, u0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _offset(zone, mid) == _offset(zone, u1) else (lo, mid)
    return hi * per - (1 if nonexistent == "earliest" else 0)


def _wrap(x):
    return (x + 2**63) % 2**64 - 2**63


def _cycled(zone, unit, local, fn):
    """fn(local) with `local` (ticks) moved by whole 400-year cycles into the years
    Python's datetime holds (the POSIX rule repeats after 400 years: 146097 days), then
    moved back; fn returns UTC ticks or None."""
    cycle = 146097 * 86400 * PER_SECOND[unit]
    limit = _seconds(9000) * PER_SECOND[unit]
    k = max(0, -(-(local - limit) // cycle))
    r = fn(local - k * cycle)
    return None if r is None else r + k * cycle


# Nanoseconds of the rounding units below months.
PERIOD_NS = dict(zip(["nanosecond", "microsecond", "millisecond", "second", "minute", "hour",
                      "day", "week"],
                     [1, 10**3, 10**6, 10**9, 60 * 10**9, 3600 * 10**9, 86400 * 10**9,
                      7 * 86400 * 10**9]))  # fmt: skip


def round_model(op, params, zone, unit, values):
    """floor/ceil/round_temporal of zoned `values` (UTC ticks, None for null) as
    core/round_temporal_zoned.h says pyarrow rounds them, at zoneinfo's offsets (the
    footer's rule past 2037): the local values rounded by pyarrow's own kernel without a
    zone, taken back by zoneinfo's reading of a local time. None where a rounded local
    time does not exist or is ambiguous (the call fails)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    per, failed = PER_SECOND[unit], []

    def core(o, local):
        opts = pc.RoundTemporalOptions(**params)
        r = getattr(pc, o)(pa.array([local], pa.timestamp(unit)), options=opts)
        return r.cast(pa.int64())[0].as_py()

    def to_local(v):
        return _wrap(_cycled(zone, unit, v, lambda x: x + _offset(zone, x // per) * per))

    def to_sys(local):
        r = _cycled(zone, unit, local, lambda x: _to_utc(zone, unit, x, "raise", "raise"))
        if r is None:
            failed.append(local)
            return 0
        return _wrap(r)

    def one(v):
        t = to_local(v)
        if params["unit"] in ("month", "quarter", "year"):
            f = 0 if op == "ceil_temporal" else to_sys(core("floor_temporal", t))
            if op == "floor_temporal":
                return f
            c = to_sys(core("ceil_temporal", t))
            return c if op == "ceil_temporal" or _wrap(t - f) >= _wrap(c - t) else f
        shift = 0
        if params["unit"] == "week" and not (params["calendar_based_origin"]
                                             and params["multiple"] != 1):  # fmt: skip
            shift = (3 if params["week_starts_monday"] else 4) * 86400 * per
        f = _wrap(to_sys(_wrap(core("floor_temporal", t) + shift)) - shift)
        if op == "floor_temporal":
            return f
        cl = to_local(f)
        cs = to_sys(cl)
        tick, period = 10**9 // per, PERIOD_NS[params["unit"]]
        m = params["multiple"]  # a step of m units in ticks, truncated (chrono's duration_cast)
        step = m * (period // tick) if period >= tick else m // (tick // period)
        c = to_sys(_wrap(cl + step)) if params["ceil_is_strictly_greater"] or cs < v else cs
        return c if op == "ceil_temporal" or _wrap(v - f) >= _wrap(c - v) else f

    out = [None if v is None else one(v) for v in values]
    return None if failed else out


def footer_expected(g, case):
    """What the library answers past the listed transitions: pyarrow's calendar at
    zoneinfo's offsets (fields and casts of the local times, assume_timezone and the
    rounding by them)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    op, params, inp = case["op"], case["params"], case["inputs"][0]
    if op == "is_dst":  # zoneinfo's daylight saving at each instant
        arr = cf.build_input(inp)
        per, zi = PER_SECOND[arr.type.unit], _zoneinfo(inp["tz"])
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        got = [None if v is None else zi is not None and bool(
                   (epoch + datetime.timedelta(seconds=v // per)).astimezone(zi).dst())
               for v in cf.array_values(arr)]  # fmt: skip
        result = pa.array(got, pa.bool_())
    elif op == "local_timestamp":  # the sum wraps at the int64 ends, as pyarrow's
        arr = cf.build_input({k: v for k, v in inp.items() if k != "tz"})
        per = PER_SECOND[arr.type.unit]
        result = pa.array([None if v is None else _wrap(v + _offset(inp["tz"], v // per) * per)
                           for v in cf.array_values(arr)], arr.type)  # fmt: skip
    elif op in temporal_cases.ROUND_OPS:
        arr = cf.build_input(inp)
        got = round_model(op, params, inp["tz"], arr.type.unit, cf.array_values(arr))
        if got is None:
            return {"error": "AM_EINVAL"}
        result = pa.array(got, arr.type)
    elif op == "assume_timezone":
        arr = cf.build_input(inp)
        unit, zone = arr.type.unit, params["timezone"]
        got = [None if v is None else _to_utc(zone, unit, v, params.get("ambiguous", "raise"),
                                              params.get("nonexistent", "raise"))
               for v in cf.array_values(arr)]  # fmt: skip
        if any(r is None and v is not None for r, v in zip(got, cf.array_values(arr))):
            return {"error": "AM_EINVAL"}
        result = pa.array(got, pa.timestamp(unit, zone))
    else:
        local = _local_array(inp, inp["tz"])
        if op == "cast":
            result = pc.cast(local, cf.PA_TYPE[params["to"]], safe=params["safe"])
        else:
            result = temporal_cases.evaluate(op, params, [local])
    t = cf.type_name(result.type)
    exp = OrderedDict([("type", t), ("values", cf.encode_values(t, cf.array_values(result)))])
    if getattr(result.type, "tz", None):
        exp["tz"] = result.type.tz
    return exp


# ---- the C ABI ---------------------------------------------------------------------------


def call(case, arrays, scalars, out):
    """(function name, status, out) of the case's call (assume_timezone, is_dst,
    local_timestamp; the fields and
    casts of zoned inputs are temporal_cases' and the cast's calls)."""
    from amabi import lib

    p = case["params"]
    if case["op"] in ZONE_OPS:
        rc = lib.am_zone_function(ZONE_OPS.index(case["op"]), arrays[0], out)
        return "am_zone_function", rc, out
    choices = [CHOICES.index(p.get(k, "raise")) for k in ("ambiguous", "nonexistent")]
    rc = lib.am_assume_timezone(arrays[0], p["timezone"].encode(), *choices, out)
    return "am_assume_timezone", rc, out


def add(g, cid, op, params, inputs, future=False):
    """A case; past the listed transitions (`future`), expected by footer_expected where
    pyarrow's answer differs from it (a tz-footer divergence)."""
    g.add(cid, op, params, "unary", inputs)
    if not future:
        return
    case = g.CASES[cid]
    ours = footer_expected(g, case)
    if ours != case["expected"]:
        case["pyarrow"] = case["expected"]
        case["expected"] = ours
        case["divergence"] = "tz-footer"


# ---- cases -------------------------------------------------------------------------------


def gen_fields(g):
    for zone in ZONES:
        for unit in UNITS:
            t = f"timestamp[{unit}]"
            near = zoned(g, t, zone, _ticks(unit, [v for v in around(zone) if v is not None]))
            near["values"][6] = None  # a null among them
            past = zoned(g, t, zone, _ticks(unit, far(unit, False)) + [None])
            future = zoned(g, t, zone, _ticks(unit, far(unit, True)) + [None])
            for op in FIELDS:
                base = f"{op}/{t}/unary/tz={zone}"
                params = OrderedDict()
                if op == "day_of_week":
                    params = OrderedDict([("week_start", 3), ("count_from_zero", False)])
                add(g, base + "/transitions", op, params, [near])
                add(g, base + "/far-past", op, params, [past])
                add(g, base + "/far-future", op, params, [future], future=True)
                n, nulls, off = SHAPES[0] if op not in ("year", "hour") else SHAPES[1]
                cid = g.sweep_id(op, t, "unary", n, nulls, off, extra=f"tz={zone}")
                lo, hi = (v * PER_SECOND[unit] for v in LISTED)
                inp = g.gen_input(t, n, nulls, off, cid, lo=str(lo), hi=str(hi))
                inp["tz"] = zone
                add(g, cid, op, params, [inp])


def gen_casts(g):
    for zone in ZONES:
        for unit in UNITS:
            t = f"timestamp[{unit}]"
            near = zoned(g, t, zone, _ticks(unit, [v for v in around(zone) if v is not None]))
            whole = zoned(g, t, zone, [None if v is None else v * PER_SECOND[unit]
                                       for v in around(zone)])  # fmt: skip
            future = zoned(g, t, zone, [v * PER_SECOND[unit] for v in far(unit, True)] + [None])
            for to in CAST_TARGETS:
                for safe in (True, False):
                    base = f"cast/{t}->{to}/unary/tz={zone}/{'safe' if safe else 'unsafe'}"
                    params = OrderedDict([("to", to), ("safe", safe)])
                    add(g, base + "/transitions", "cast", params, [near])
                    add(g, base + "/whole-seconds", "cast", params, [whole])
                    add(g, base + "/far-future", "cast", params, [future], future=True)
            n, nulls, off = SHAPES[0]
            cid = g.sweep_id("cast", f"{t}->date32[day]", "unary", n, nulls, off,
                             extra=f"tz={zone}")  # fmt: skip
            lo, hi = (v * PER_SECOND[unit] for v in LISTED)
            inp = g.gen_input(t, n, nulls, off, cid, lo=str(lo), hi=str(hi))
            inp["tz"] = zone
            add(g, cid, "cast", OrderedDict([("to", "date32[day]"), ("safe", True)]), [inp])


def gen_texts(g):
    """Zoned timestamps to strings (am_cast: the local time and "%z", "Z" in UTC) and
    strftime of their local times (`%z`, `%Z`), around the transitions and before the
    first; past the listed ones the library and pyarrow differ in the zones with DST
    (tz-footer), so no case goes there."""
    for zone in ZONES:
        for unit in UNITS:
            t = f"timestamp[{unit}]"
            near = zoned(g, t, zone, _ticks(unit, [v for v in around(zone) if v is not None]))
            near["values"][5] = None
            past = zoned(g, t, zone, _ticks(unit, far(unit, False)) + [None])
            for name, inp in (("transitions", near), ("far-past", past)):
                to = "string" if unit in ("s", "us") else "large_string"
                params = OrderedDict([("to", to), ("safe", True)])
                add(g, f"cast/{t}->{to}/unary/tz={zone}/{name}", "cast", params, [inp])
                params = OrderedDict([("format", "%Y-%m-%dT%H:%M:%S %z %Z %a %j")])
                add(g, f"strftime/{t}/unary/tz={zone}/{name}", "strftime", params, [inp])


def local_times(zone):
    """Local wall times (seconds) around the zone's transitions: the wall clock just
    before and after each change, read at both offsets (inside the gaps and overlaps)."""
    out = []
    for t in transitions(zone):
        before, after = _offset(zone, t - 1), _offset(zone, t)
        for wall in {t + before, t + after}:
            out += [wall + d for d in (-1801, -1, 0, 1, 900, 1799, 1800, 3600)]
    return out


def gen_assume(g):
    for zone in ZONES:
        walls = local_times(zone)
        for unit in UNITS:
            t = f"timestamp[{unit}]"
            per = PER_SECOND[unit]
            near = g.inline(t, _ticks(unit, walls[:2]) + [None] + _ticks(unit, walls[2:]), 3)
            future = g.inline(t, _ticks(unit, far(unit, True)) + [None], 3)
            for amb in CHOICES:
                for non in CHOICES:
                    params = OrderedDict([("timezone", zone), ("ambiguous", amb),
                                          ("nonexistent", non)])  # fmt: skip
                    base = f"assume_timezone/{t}/unary/{zone}/{amb},{non}"
                    add(g, base + "/transitions", "assume_timezone", params, [near])
                    add(g, base + "/far-future", "assume_timezone", params, [future], future=True)
            # one local time a clock change skipped or repeated, under raise; a null slot
            # holding one is not read
            params = OrderedDict([("timezone", zone), ("ambiguous", "raise"),
                                  ("nonexistent", "raise")])  # fmt: skip
            refused = [w for w in walls if _to_utc(zone, "s", w, "raise", "raise") is None]
            plain = [w for w in walls if w not in refused]
            for k, wall in enumerate(refused[:6] + plain[:2]):
                cid = f"assume_timezone/{t}/unary/{zone}/raise/wall{k}"
                add(g, cid, "assume_timezone", params, [g.inline(t, [wall * per, 0], 1)])
            if refused:
                hidden = g.inline(t, [plain[0] * per, None], 0, null_fill=str(refused[0] * per))
                add(g, f"assume_timezone/{t}/unary/{zone}/raise/null-slot", "assume_timezone",
                    params, [hidden])  # fmt: skip
            n, nulls, off = SHAPES[0] if unit != "us" else SHAPES[1]
            cid = g.sweep_id("assume_timezone", t, "unary", n, nulls, off, extra=zone)
            lo, hi = (v * per for v in LISTED)
            inp = g.gen_input(t, n, nulls, off, cid, lo=str(lo), hi=str(hi))
            latest = OrderedDict([("timezone", zone), ("ambiguous", "latest"),
                                  ("nonexistent", "earliest")])  # fmt: skip
            add(g, cid, "assume_timezone", latest, [inp])


def gen_refusals(g):
    """Unknown zones everywhere, a zone already set, types without a kernel."""
    bad = ["Nowhere/Land", "", "+25:00", "+05", "posixrules", "right/UTC", "../zoneinfo/UTC",
           "utc", "America", "zone.tab"]  # fmt: skip
    t = "timestamp[s]"
    for zone in bad:
        params = OrderedDict([("timezone", zone), ("ambiguous", "raise"), ("nonexistent", "raise")])
        add(g, f"assume_timezone/{t}/unary/unknown-zone/{zone}", "assume_timezone", params,
            [g.inline(t, [0, None])])  # fmt: skip
        if zone:  # pyarrow refuses an empty zone in a type
            for op in ("year", "hour", "second"):
                add(g, f"{op}/{t}/unary/unknown-zone/{zone}", op, OrderedDict(),
                    [zoned(g, t, zone, [0, None], 0)])  # fmt: skip
            add(g, f"cast/{t}->date32[day]/unary/unknown-zone/{zone}", "cast",
                OrderedDict([("to", "date32[day]"), ("safe", True)]),
                [zoned(g, t, zone, [0, None], 0)])  # fmt: skip
    params = OrderedDict([("timezone", "Asia/Kolkata"), ("ambiguous", "raise"),
                          ("nonexistent", "raise")])  # fmt: skip
    for zone in ("UTC", "Asia/Kolkata"):
        add(g, f"assume_timezone/{t}/unary/already-zoned/{zone}", "assume_timezone", params,
            [zoned(g, t, zone, [0, None], 0)])  # fmt: skip
    for other in cf.TYPES + ["date32[day]", "time64[us]", "duration[s]"]:
        add(g, f"assume_timezone/{other}/unary/type-error", "assume_timezone", params,
            [g.inline(other, [None if other == "bool" else 1, None])])  # fmt: skip


def _rounding_refusal(op, params, zone, unit, v, future):
    """Whether the rounding of the one value `v` fails: by pyarrow, or past the listed
    transitions by the library's offsets (round_model)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if future:
        return round_model(op, params, zone, unit, [v]) is None
    try:
        getattr(pc, op)(pa.array([v], pa.timestamp(unit, zone)),
                        options=pc.RoundTemporalOptions(**params))  # fmt: skip
    except pa.ArrowInvalid as e:
        assert str(e).startswith(("Local time does not exist: ", "Local time is ambiguous: "))
        return True
    return False


def add_rounding(g, cid, op, params, zone, unit, values, future=False):
    """A rounding case over `values` (ticks) less those whose rounding fails alone (their
    refusals are cases of their own: gen_rounding_refusals), a null among them, unless
    none is left; returns the values left out. Values of the listed transitions' last
    years may round past them (a ceil of 15 quarters: 2041): those cases are checked
    against the footer's offsets too (`future`)."""
    future = future or max(values) >= _seconds(2030) * PER_SECOND[unit]
    refused = [v for v in values if _rounding_refusal(op, params, zone, unit, v, future)]
    kept = [v for v in values if v not in refused]
    if kept:
        kept = kept[:3] + [None] + kept[3:]
        add(g, cid, op, params, [zoned(g, f"timestamp[{unit}]", zone, kept)], future=future)
    return refused


ROUND_FLAG_SETS = temporal_cases.FLAG_SETS[1:]


def gen_rounding(g):
    """floor/ceil/round_temporal of zoned timestamps: each zone x function x calendar
    unit (the timestamp unit turning with them, so that each zone meets all four) over
    the instants around its transitions, before the first (local mean time) and past the
    listed ones; multiples 2 and 15 and two of the flag sets (multiple 3) for the units
    from seconds up around the transitions; the refusals; drawn inputs."""
    units = temporal_cases.CALENDAR_UNITS
    for zi, zone in enumerate(ZONES):
        secs = [v for v in around(zone) if v is not None]
        refusals = {}
        for op in temporal_cases.ROUND_OPS:
            for ui, cu in enumerate(units):
                unit = UNITS[(zi + ui) % len(UNITS)]
                t = f"timestamp[{unit}]"
                base = f"{op}/{t}/unary/tz={zone}/{cu}"
                near = _ticks(unit, secs)
                params = temporal_cases.round_params(1, cu)
                refused = add_rounding(g, base + "/transitions", op, params, zone, unit, near)
                refusals.setdefault(op, []).extend((params, unit, v) for v in refused[:2])
                add_rounding(g, base + "/far-past", op, params, zone, unit,
                             _ticks(unit, far(unit, False)))  # fmt: skip
                add_rounding(g, base + "/far-future", op, params, zone, unit,
                             _ticks(unit, far(unit, True)), future=True)  # fmt: skip
                if ui < units.index("second"):
                    continue
                flag_sets = [ROUND_FLAG_SETS[(zi + ui + k) % len(ROUND_FLAG_SETS)] for k in (0, 3)]
                choices = [(m, temporal_cases.FLAG_SETS[0]) for m in (2, 15)]
                choices += [(3, flags) for flags in flag_sets]
                for m, flags in choices:
                    params = temporal_cases.round_params(m, cu, flags)
                    cid = f"{base}/multiple{m}/{temporal_cases.flags_name(flags)}/transitions"
                    refused = add_rounding(g, cid, op, params, zone, unit, near)
                    refusals[op].extend((params, unit, v) for v in refused[:1])
        gen_rounding_refusals(g, zone, refusals)
        for op, cu, m in (("floor_temporal", "day", 1), ("round_temporal", "minute", 15)):
            unit = UNITS[zi % len(UNITS)]
            t = f"timestamp[{unit}]"
            n, nulls, off = SHAPES[0]
            cid = g.sweep_id(op, t, "unary", n, nulls, off, extra=f"tz={zone}/{cu}")
            lo, hi = (v * PER_SECOND[unit] for v in LISTED)
            inp = g.gen_input(t, n, nulls, off, cid, lo=str(lo), hi=str(hi))
            inp["tz"] = zone
            add(g, cid, op, temporal_cases.round_params(m, cu), [inp])


def gen_rounding_refusals(g, zone, refusals):
    """Values whose rounding met a local time that does not exist or is ambiguous: a few
    per function (alone, and after one that rounds), and one hidden under a null slot
    (not read: it rounds)."""
    for op, found in refusals.items():
        for k, (params, unit, v) in enumerate(found[:: max(1, len(found) // 4)][:4]):
            t = f"timestamp[{unit}]"
            cid = f"{op}/{t}/unary/tz={zone}/{params['unit']}/refused{k}"
            add(g, cid, op, params, [zoned(g, t, zone, [v], 0)])
            add(g, cid + "/after-one", op, params, [zoned(g, t, zone, [0, v, None], 1)])
        if found and op == "floor_temporal":
            params, unit, v = found[0]
            t = f"timestamp[{unit}]"
            hidden = g.inline(t, [0, None], 0, null_fill=str(v))
            hidden["tz"] = zone
            add(g, f"{op}/{t}/unary/tz={zone}/{params['unit']}/refused-in-a-null-slot", op,
                params, [hidden])  # fmt: skip


def gen_zone_functions(g):
    """is_dst and local_timestamp: each zone x unit around the transitions, before the
    first (local mean time), past the listed ones (tz-footer where pyarrow keeps the last
    offset), near the int64 ends (local_timestamp wraps as pyarrow's), a drawn input,
    empty; timestamps without a zone (is_dst refuses, local_timestamp returns them),
    unknown zones (not read when empty) and the types without a kernel."""
    ends = [2**63 - 1, -(2**63) + 1, None]
    steady = ("Asia/Kolkata", "UTC", "+05:30", "-0800")
    for zone in ZONES:
        for unit in UNITS:
            t = f"timestamp[{unit}]"
            near = zoned(g, t, zone, _ticks(unit, [v for v in around(zone) if v is not None]))
            near["values"][4] = None
            past = zoned(g, t, zone, _ticks(unit, far(unit, False)) + [None])
            future = zoned(g, t, zone, _ticks(unit, far(unit, True)) + [None])
            for op in ZONE_OPS:
                base = f"{op}/{t}/unary/tz={zone}"
                add(g, base + "/transitions", op, OrderedDict(), [near])
                add(g, base + "/far-past", op, OrderedDict(), [past])
                add(g, base + "/far-future", op, OrderedDict(), [future], future=True)
                # the int64 ends: timestamp[ns] (2262, past the listed transitions); the
                # other units where the offset never changes again (Python's datetime
                # ends in 9999, so no footer offsets there)
                if unit == "ns" or zone in steady:
                    add(g, base + "/int64-ends", op, OrderedDict(), [zoned(g, t, zone, ends, 0)],
                        future=unit == "ns")  # fmt: skip
                add(g, base + "/empty", op, OrderedDict(), [zoned(g, t, zone, [], 0)])
                n, nulls, off = SHAPES[0] if unit != "ms" else SHAPES[1]
                cid = g.sweep_id(op, t, "unary", n, nulls, off, extra=f"tz={zone}")
                lo, hi = (v * PER_SECOND[unit] for v in LISTED)
                inp = g.gen_input(t, n, nulls, off, cid, lo=str(lo), hi=str(hi))
                inp["tz"] = zone
                add(g, cid, op, OrderedDict(), [inp])
    for op in ZONE_OPS:
        for unit in UNITS:
            t = f"timestamp[{unit}]"
            add(g, f"{op}/{t}/unary/no-zone", op, OrderedDict(), [g.inline(t, [0, None, -1], 1)])
            add(g, f"{op}/{t}/unary/no-zone/empty", op, OrderedDict(), [g.inline(t, [])])
        for zone in ("Nowhere/Land", "+25:00", "utc"):
            t = "timestamp[s]"
            add(g, f"{op}/{t}/unary/unknown-zone/{zone}", op, OrderedDict(),
                [zoned(g, t, zone, [0, None], 0)])  # fmt: skip
            add(g, f"{op}/{t}/unary/unknown-zone/{zone}/null-only", op, OrderedDict(),
                [zoned(g, t, zone, [None], 0)])  # fmt: skip
            add(g, f"{op}/{t}/unary/unknown-zone/{zone}/empty", op, OrderedDict(),
                [zoned(g, t, zone, [], 0)])  # fmt: skip
        for other in cf.TYPES + temporal_cases.DATES + temporal_cases.TIMES + ["duration[s]"]:
            add(g, f"{op}/{other}/unary/type-error", op, OrderedDict(),
                [g.inline(other, [None if other == "bool" else 1, None])])  # fmt: skip


def gen(g):
    gen_fields(g)
    gen_casts(g)
    gen_texts(g)
    gen_rounding(g)
    gen_assume(g)
    gen_refusals(g)
    gen_zone_functions(g)
