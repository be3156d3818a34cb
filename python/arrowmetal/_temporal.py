"""pyarrow.compute's temporal field extractions (year, month, day,
day_of_week, day_of_year, hour, minute, second, millisecond, microsecond,
nanosecond, quarter, iso_week, iso_year) on am_temporal_field, with
pyarrow's names and DayOfWeekOptions (count_from_zero, week_start).

Timestamps without a time zone, date32/date64 and time32/time64 run in the
library (int64 results, nulls where the input is). A timestamp with a time
zone is read in local time by pyarrow, which needs a time-zone database the
C library does not have: those calls run in pyarrow.compute, counted and
announced as every fallback (see _fallback), as do pyarrow scalars. Other
input types end in pyarrow's own error.
"""

from __future__ import annotations

from . import _fallback
from ._capi import lib
from ._chunked import is_chunked, map_pieces
from ._compute import _FALLBACK, _input_fallback, _on_operand, _options
from ._dispatch import SCALAR, dispatch
from ._errors import ArrowMetalTypeError, ArrowMetalUnsupported
from ._options import OptionsSpec

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

__all__ = list(FIELDS)

_DOW_SPEC = OptionsSpec(
    "day_of_week", "DayOfWeekOptions", {"count_from_zero": True, "week_start": 1}
)


def _field(name: str, op: int, x: Any, week_start: int, count_from_zero: bool, device: Any) -> Any:
    def call(p: Any, o: Any) -> int:
        return lib.am_temporal_field(op, p, week_start, 1 if count_from_zero else 0, o)

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
    except ArrowMetalUnsupported as e:  # a time zone (local time) or a scalar
        return _fallback.run(name, str(e), (x,), kwargs)
    except ArrowMetalTypeError as e:
        return _input_fallback(name, e, (x,), (x,), kwargs)


def _make(name: str, op: int) -> Callable[..., Any]:
    def function(values: Any, /, *, memory_pool: Any = None, device: Any = None) -> Any:
        return _run(name, op, values, {}, device=device)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"pyarrow.compute.{name}: the {name.replace('_', ' ')} of each timestamp (UTC; a time "
        "zone runs in pyarrow), date or time, as int64; null where the input is "
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
    ws = fields["week_start"]
    if not isinstance(ws, int) or isinstance(ws, bool):
        raise TypeError("an integer is required")
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
