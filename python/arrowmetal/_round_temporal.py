"""pyarrow.compute's floor_temporal, ceil_temporal and round_temporal on
am_round_temporal, with pyarrow's signature and RoundTemporalOptions
(multiple, unit, week_starts_monday, ceil_is_strictly_greater,
calendar_based_origin).

Timestamps, dates, times and durations run in the library, on the array's
device; the values are pyarrow's bit for bit (core/round_temporal.h). A
timestamp in a time zone other than UTC rounds in local time, as pyarrow's
(core/round_temporal_zoned.h: on the CPU, a GPU array's on a host copy with
the result moved back), refusing a rounded local time that the clocks
skipped or repeated with pyarrow's ArrowInvalid ("Local time does not
exist: ...", "Local time is ambiguous: ..."). pyarrow scalars and options
pyarrow itself converts (a float or bool multiple, a multiple outside 32
bits) run in pyarrow.compute, counted and announced as every fallback (see
_fallback). A multiple below 1 is refused with ArrowInvalid (pyarrow 26
divides by it and dies on 0). Other input types end in pyarrow's own error.
"""

from __future__ import annotations

from . import _fallback
from ._capi import ffi, lib
from ._chunked import is_chunked, map_pieces
from ._compute import _FALLBACK, _input_fallback, _on_operand, _options
from ._dispatch import SCALAR, dispatch
from ._errors import ArrowMetalTypeError, ArrowMetalUnsupported
from ._options import CALENDAR_UNITS, OptionsSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["ceil_temporal", "floor_temporal", "round_temporal"]

# pyarrow's names, in the order of am_round_temporal_op.
OPS = ("floor_temporal", "ceil_temporal", "round_temporal")
_DEFAULTS = {
    "multiple": 1,
    "unit": "day",
    "week_starts_monday": True,
    "ceil_is_strictly_greater": False,
    "calendar_based_origin": False,
}
_SPECS = {name: OptionsSpec(name, "RoundTemporalOptions", _DEFAULTS) for name in OPS}


def _native_options(fields: dict[str, Any]) -> Any:
    """The am_round_temporal_options of the fields, or None where pyarrow's
    own conversions decide (a multiple that is not a plain int of 32 bits);
    a unit name pyarrow does not know raises its ValueError."""
    unit = fields["unit"]
    if unit not in CALENDAR_UNITS:
        raise ValueError(f'"{unit}" is not a valid Calendar unit')
    multiple = fields["multiple"]
    if type(multiple) is not int or not -(2**31) <= multiple < 2**31:
        return None
    o = ffi.new("am_round_temporal_options *")
    o.multiple = multiple
    o.unit = CALENDAR_UNITS.index(unit)
    o.week_starts_monday = 1 if fields["week_starts_monday"] else 0
    o.ceil_is_strictly_greater = 1 if fields["ceil_is_strictly_greater"] else 0
    o.calendar_based_origin = 1 if fields["calendar_based_origin"] else 0
    return o


def _round(op: int, x: Any, o: Any, device: Any) -> Any:
    def call(p: Any, out: Any) -> int:
        return lib.am_round_temporal(op, p, o, out)

    # pyarrow's scalar result: pyarrow computes it
    if type(x).__module__ != "arrowmetal._array" and dispatch(type(x))[0] == SCALAR:
        raise ArrowMetalUnsupported("a scalar input")
    if is_chunked(x):
        return map_pieces(lambda a: _on_operand(call, a, device), (x,))
    return _on_operand(call, x, device)


def _make(op: int) -> Callable[..., Any]:
    name = OPS[op]

    def function(
        timestamps: Any,
        /,
        multiple: int = 1,
        unit: str = "day",
        *,
        week_starts_monday: bool = True,
        ceil_is_strictly_greater: bool = False,
        calendar_based_origin: bool = False,
        options: Any = None,
        memory_pool: Any = None,
        device: Any = None,
    ) -> Any:
        given = {
            "multiple": multiple,
            "unit": unit,
            "week_starts_monday": week_starts_monday,
            "ceil_is_strictly_greater": ceil_is_strictly_greater,
            "calendar_based_origin": calendar_based_origin,
        }
        kwargs = {"options": options} if options is not None else dict(given)
        fields, reason = _options(_SPECS[name], options, given)
        if fields is _FALLBACK:
            return _fallback.run(name, reason, (timestamps,), kwargs)
        o = _native_options(fields)
        if o is None:
            reason = f"a multiple of {type(fields['multiple']).__name__} {fields['multiple']!r}"
            return _fallback.run(name, reason, (timestamps,), kwargs)
        try:
            return _round(op, timestamps, o, device)
        except ArrowMetalUnsupported as e:  # a scalar
            return _fallback.run(name, str(e), (timestamps,), kwargs)
        except ArrowMetalTypeError as e:
            return _input_fallback(name, e, (timestamps,), (timestamps,), kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"pyarrow.compute.{name} with RoundTemporalOptions: each timestamp, date, time or "
        "duration rounded as pyarrow rounds it (am_round_temporal); a timestamp in a time zone "
        "other than UTC in local time."
    )
    return function


floor_temporal = _make(0)
ceil_temporal = _make(1)
round_temporal = _make(2)
assert [f.__name__ for f in (floor_temporal, ceil_temporal, round_temporal)] == list(OPS)
