"""pyarrow.compute's temporal field extractions (year, month, day,
day_of_week, day_of_year, hour, minute, second, millisecond, microsecond,
nanosecond, quarter, iso_week, iso_year) on am_temporal_field, with
pyarrow's names and DayOfWeekOptions (count_from_zero, week_start),
assume_timezone (am_assume_timezone, AssumeTimezoneOptions), is_dst and
local_timestamp (am_zone_function), and strftime /
strptime (StrftimeOptions, StrptimeOptions) on am_strftime / am_strptime.

Timestamps, date32/date64 and time32/time64 run in the library (int64
results, nulls where the input is). A timestamp with a time zone is read in
local time, as pyarrow reads it, from the system's tz database (the library's
core/timezone.c; an unknown zone raises pyarrow's ArrowInvalid). pyarrow
scalars run in pyarrow.compute, counted and announced as every fallback (see
_fallback). Other input types end in pyarrow's own error.
"""

from __future__ import annotations

from . import _fallback
from ._capi import lib
from ._chunked import is_chunked, map_pieces
from ._compute import _FALLBACK, _input_fallback, _on_operand, _options
from ._dispatch import SCALAR, dispatch
from ._errors import ArrowMetalInvalid, ArrowMetalTypeError, ArrowMetalUnsupported
from ._options import ASSUME_CHOICES, OptionsSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# pyarrow's names, in the order of am_temporal_field_op.
FIELDS = (
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
)

__all__ = [
    "assume_timezone",
    "day",
    "day_of_week",
    "day_of_year",
    "hour",
    "is_dst",
    "iso_week",
    "iso_year",
    "local_timestamp",
    "microsecond",
    "millisecond",
    "minute",
    "month",
    "nanosecond",
    "quarter",
    "second",
    "strftime",
    "strptime",
    "year",
]

_DOW_SPEC = OptionsSpec(
    "day_of_week", "DayOfWeekOptions", {"count_from_zero": True, "week_start": 1}
)
_ASSUME_SPEC = OptionsSpec(
    "assume_timezone",
    "AssumeTimezoneOptions",
    {"timezone": None, "ambiguous": "raise", "nonexistent": "raise"},
)


def _field(name: str, op: int, x: Any, week_start: int, count_from_zero: bool, device: Any) -> Any:
    def call(p: Any, o: Any) -> int:
        return lib.am_temporal_field(op, p, week_start, 1 if count_from_zero else 0, o)

    return _each(call, x, device)


def _each(call: Callable[[Any, Any], int], x: Any, device: Any) -> Any:
    """call(handle, out) on array `x`, or on each chunk of a ChunkedArray."""
    if type(x).__module__ != "arrowmetal._array":
        d = dispatch(type(x))
        if d[0] == SCALAR:  # pyarrow's scalar result: pyarrow computes it
            raise ArrowMetalUnsupported("a scalar input")
    if is_chunked(x):
        return map_pieces(lambda a: _on_operand(call, a, device), (x,))
    return _on_operand(call, x, device)


def _run(
    name: str,
    op: int,
    x: Any,
    kwargs: dict[str, Any],
    week_start: int = 1,
    count_from_zero: bool = True,
    device: Any = None,
) -> Any:
    try:
        return _field(name, op, x, week_start, count_from_zero, device)
    except ArrowMetalUnsupported as e:  # a scalar
        return _fallback.run(name, str(e), (x,), kwargs)
    except ArrowMetalTypeError as e:
        return _input_fallback(name, e, (x,), (x,), kwargs)


def _make(name: str, op: int) -> Callable[..., Any]:
    def function(values: Any, /, *, memory_pool: Any = None, device: Any = None) -> Any:
        return _run(name, op, values, {}, device=device)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"pyarrow.compute.{name}: the {name.replace('_', ' ')} of each timestamp (in local "
        "time where it has a time zone), date or time, as int64; null where the input is "
        "(am_temporal_field)."
    )
    return function


def day_of_week(
    values: Any,
    /,
    *,
    count_from_zero: bool = True,
    week_start: int = 1,
    options: Any = None,
    memory_pool: Any = None,
    device: Any = None,
) -> Any:
    """pyarrow.compute.day_of_week: the weekday of each timestamp or date,
    week_start (1 Monday .. 7 Sunday) counted as 0 (count_from_zero) or 1."""
    given = {"count_from_zero": count_from_zero, "week_start": week_start}
    fields, reason = _options(_DOW_SPEC, options, given)
    if fields is _FALLBACK:
        return _fallback.run("day_of_week", reason, (values,), {"options": options})
    kwargs = {"options": options} if options is not None else given
    ws = fields["week_start"]  # an int: integer_fields converted it as pyarrow does
    if ws >= 2**31:  # a uint32 to pyarrow, past the C ABI's int32: refused in its words here
        raise ArrowMetalInvalid(
            "am_temporal_field: week_start must follow ISO convention (Monday=1, Sunday=7). "
            f"Got week_start={ws}"
        )
    return _run("day_of_week", 3, values, kwargs, ws, bool(fields["count_from_zero"]), device)


year = _make("year", 0)
month = _make("month", 1)
day = _make("day", 2)
day_of_year = _make("day_of_year", 4)
hour = _make("hour", 5)
minute = _make("minute", 6)
second = _make("second", 7)
millisecond = _make("millisecond", 8)
microsecond = _make("microsecond", 9)
nanosecond = _make("nanosecond", 10)
quarter = _make("quarter", 11)
iso_week = _make("iso_week", 12)
iso_year = _make("iso_year", 13)
assert [FIELDS[i] for i in range(14)] == [  # the functions' ops are their positions
    f.__name__ for f in (year, month, day, day_of_week, day_of_year, hour, minute, second,
                         millisecond, microsecond, nanosecond, quarter, iso_week, iso_year)
]  # fmt: skip


def _make_zone(name: str, op: int, doc: str) -> Callable[..., Any]:
    def function(values: Any, /, *, memory_pool: Any = None, device: Any = None) -> Any:
        def call(p: Any, o: Any) -> int:
            return lib.am_zone_function(op, p, o)

        try:
            return _each(call, values, device)
        except ArrowMetalUnsupported as e:  # a scalar
            return _fallback.run(name, str(e), (values,), {})
        except ArrowMetalTypeError as e:
            return _input_fallback(name, e, (values,), (values,), {})

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


is_dst = _make_zone(
    "is_dst",
    lib.AM_ZONE_IS_DST,
    "pyarrow.compute.is_dst: whether each timestamp falls in daylight time in its time "
    "zone (bool, null where the input is); a timestamp without a zone raises pyarrow's "
    "ArrowInvalid (am_zone_function).",
)
local_timestamp = _make_zone(
    "local_timestamp",
    lib.AM_ZONE_LOCAL_TIMESTAMP,
    "pyarrow.compute.local_timestamp: each timestamp's local wall time in its time zone, "
    "as a timestamp of the same unit without a zone (one without a zone as it is; "
    "am_zone_function).",
)


def _choice(field: str, value: Any) -> int:
    """am_assume_choice of a choice name (an options object holds its enum
    value); pyarrow's ValueError otherwise."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(ASSUME_CHOICES):
        return value
    if isinstance(value, str) and value in ASSUME_CHOICES:
        return ASSUME_CHOICES.index(value)
    raise ValueError(f"\"{value}\" is not a valid '{field}' timestamp handling")


def assume_timezone(
    timestamps: Any,
    /,
    timezone: str | None = None,
    *,
    ambiguous: str = "raise",
    nonexistent: str = "raise",
    options: Any = None,
    memory_pool: Any = None,
    device: Any = None,
) -> Any:
    """pyarrow.compute.assume_timezone: the local wall times of naive
    timestamps read in `timezone` (an IANA zone of the system's tz database,
    or "+HH:MM"), as UTC instants typed timestamp[unit, tz=timezone];
    ambiguous and nonexistent ("raise", "earliest", "latest") say what a
    time the clocks went back over or skipped becomes (am_assume_timezone)."""
    given = {"timezone": timezone, "ambiguous": ambiguous, "nonexistent": nonexistent}
    fields, reason = _options(_ASSUME_SPEC, options, given)
    kwargs = {"options": options} if options is not None else given
    if fields is _FALLBACK:
        return _fallback.run("assume_timezone", reason, (timestamps,), kwargs)
    amb = _choice("ambiguous", fields["ambiguous"])
    non = _choice("nonexistent", fields["nonexistent"])
    zone = fields["timezone"]
    if options is None and given == _ASSUME_SPEC.defaults:  # no option given at all
        _fallback.without_options("assume_timezone", timestamps)
    if not isinstance(zone, str):
        raise TypeError(f"expected bytes, {type(zone).__name__} found")
    encoded = zone.encode()

    def call(p: Any, o: Any) -> int:
        return lib.am_assume_timezone(p, encoded, amb, non, o)

    try:
        return _each(call, timestamps, device)
    except ArrowMetalUnsupported as e:  # a scalar
        return _fallback.run("assume_timezone", str(e), (timestamps,), kwargs)
    except ArrowMetalTypeError as e:
        return _input_fallback("assume_timezone", e, (timestamps,), (timestamps,), kwargs)


_STRFTIME_SPEC = OptionsSpec(
    "strftime", "StrftimeOptions", {"format": "%Y-%m-%dT%H:%M:%S", "locale": "C"}
)
_STRPTIME_SPEC = OptionsSpec(
    "strptime", "StrptimeOptions", {"format": None, "unit": None, "error_is_null": False}
)
# StrptimeOptions' unit: pyarrow's names, and its TimeUnit values as serialized.
_UNITS = {"s": lib.AM_TIMESTAMP_S, "ms": lib.AM_TIMESTAMP_MS, "us": lib.AM_TIMESTAMP_US,
          "ns": lib.AM_TIMESTAMP_NS}  # fmt: skip
_UNIT_OF_ENUM = dict(enumerate(_UNITS))


def strftime(
    timestamps: Any,
    /,
    format: str = "%Y-%m-%dT%H:%M:%S",
    locale: str = "C",
    *,
    options: Any = None,
    memory_pool: Any = None,
    device: Any = None,
) -> Any:
    """pyarrow.compute.strftime (am_strftime): each timestamp (a zoned one in
    its local time, %z and %Z its offset and abbreviation), date or time as
    text under `format`, as pyarrow writes it (%S with the unit's fraction). A
    locale other than "C", an options object (whose locale pyarrow does not
    expose), the directives %c %x %X %r %g %G %U %V %W and scalars run in
    pyarrow (counted)."""
    given = {"format": format, "locale": locale}
    kwargs = {"options": options} if options is not None else given
    if options is not None and not isinstance(options, dict):
        return _fallback.run("strftime", "StrftimeOptions does not expose its locale",
                             (timestamps,), kwargs)  # fmt: skip
    fields, reason = _options(_STRFTIME_SPEC, options, given)
    if fields is _FALLBACK:
        return _fallback.run("strftime", reason, (timestamps,), kwargs)
    fmt, loc = fields["format"], fields["locale"]
    if not isinstance(fmt, str) or not isinstance(loc, str):
        raise TypeError("strftime: format and locale are str")
    data, where = fmt.encode(), loc.encode()
    try:
        return _each(lambda p, o: lib.am_strftime(p, data, where, o), timestamps, device)
    except ArrowMetalUnsupported as e:
        return _fallback.run("strftime", str(e), (timestamps,), kwargs)
    except ArrowMetalTypeError as e:
        return _input_fallback("strftime", e, (timestamps,), (timestamps,), kwargs)


def strptime(
    strings: Any,
    /,
    format: str | None = None,
    unit: str | None = None,
    error_is_null: bool = False,
    *,
    options: Any = None,
    memory_pool: Any = None,
    device: Any = None,
) -> Any:
    """pyarrow.compute.strptime (am_strptime): each string read under `format`
    as a timestamp of `unit` ("s", "ms", "us", "ns"), as pyarrow reads it on
    Linux (glibc's strptime); "%z" in the format gives a UTC timestamp. A value
    that does not read raises, or is null with error_is_null. The directives
    %s %c %x %X %r %u %w %U %W %V %g %G and scalars run in pyarrow (counted)."""
    given = {"format": format, "unit": unit, "error_is_null": error_is_null}
    kwargs = {"options": options} if options is not None else given
    fields, reason = _options(_STRPTIME_SPEC, options, given)
    if fields is _FALLBACK:
        return _fallback.run("strptime", reason, (strings,), kwargs)
    fmt, u = fields["format"], fields["unit"]
    if options is None and given == _STRPTIME_SPEC.defaults:  # no option given at all
        _fallback.without_options("strptime", strings)
    if fmt is None or u is None:
        raise TypeError("strptime() needs a format and a unit (or options=StrptimeOptions)")
    u = _UNIT_OF_ENUM.get(u, u)  # an options object's TimeUnit value
    if u not in _UNITS:
        raise ValueError(f'"{u}" is not a valid time unit')
    data, t, null = fmt.encode(), _UNITS[u], 1 if fields["error_is_null"] else 0
    try:
        return _each(lambda p, o: lib.am_strptime(p, data, t, null, o), strings, device)
    except ArrowMetalUnsupported as e:
        return _fallback.run("strptime", str(e), (strings,), kwargs)
    except ArrowMetalTypeError as e:
        return _input_fallback("strptime", e, (strings,), (strings,), kwargs)
