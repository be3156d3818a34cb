"""pyarrow.compute's cumulative functions, with its names, argument order and
options: cumulative_sum, cumulative_sum_checked,
cumulative_prod, cumulative_prod_checked, cumulative_min, cumulative_max,
cumulative_mean (am_cumulative).

As pyarrow: the options are CumulativeOptions(start=None, skip_nulls=False),
as an object or as keywords; `start` is converted to the values' type by a
safe cast (pyarrow's errors), and cumulative_mean checks it that way but
does not use it. A ChunkedArray is scanned across its chunks and comes back
as one chunk (none when it holds no slot), as pyarrow's does; a scalar
gives an array of one slot. Inputs of types ArrowMetal has no kernel for
run in pyarrow.compute (see _fallback).
"""

from __future__ import annotations

from . import _fallback
from ._array import wrap
from ._capi import ffi, lib
from ._chunked import is_chunked
from ._compute import _FALLBACK, _input_fallback, _operand, _options
from ._dispatch import SCALAR, dispatch
from ._errors import ArrowMetalInvalid, ArrowMetalTypeError, error_from_status
from ._options import OptionsSpec
from ._state import drop, tls
from ._types import ARROW_NAMES, TYPE_COUNT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pyarrow as pa

    from ._typing import ArrayLike, CumulativeFunction, DeviceLike, ScalarLike

__all__ = [
    "cumulative_max",
    "cumulative_mean",
    "cumulative_min",
    "cumulative_prod",
    "cumulative_prod_checked",
    "cumulative_sum",
    "cumulative_sum_checked",
]

_DEFAULTS = {"start": None, "skip_nulls": False}


def _typed_start(options: Any, value: Any) -> Any:
    """The start of a CumulativeOptions object as the scalar it holds: its
    value with its type (a typed null is a start, which pyarrow scans from
    zero; no start at all is the null type)."""
    import pyarrow as pa

    struct = pa.ipc.open_file(options.serialize()).schema.field(0).type
    t = struct.field("start").type
    return None if pa.types.is_null(t) else pa.scalar(value, type=t)


def _start_scalar(start: Any, am_type: int) -> Any:
    """The am_scalar of `start` in the values' type (pyarrow's safe cast and
    its errors), or NULL for None."""
    if start is None:
        return ffi.NULL
    import pyarrow as pa

    s = start if isinstance(start, pa.Scalar) else pa.scalar(start)
    if not s.is_valid:  # pyarrow scans from its value, zero
        out = ffi.new("am_scalar *")
        out.type = am_type
        out.is_null = 1
        return out
    if am_type != lib.AM_BOOL and 0 < am_type < TYPE_COUNT:  # else the kernel refuses the values
        try:
            s = s.cast(pa.type_for_alias(ARROW_NAMES[am_type]), safe=True)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise ArrowMetalInvalid(str(e), lib.AM_EINVAL) from None
    out = ffi.new("am_scalar *")
    dispatch(type(s))[1](s, out, None)
    return out


def _cumulative(
    op: int, values: Any, start: Any, skip_nulls: bool, device: DeviceLike | None
) -> Any:
    import pyarrow as pa

    if is_chunked(values):
        # One scan across the chunks, one chunk back (pyarrow's shape).
        if len(values) == 0:
            whole = _cumulative(op, pa.array([], type=values.type), start, skip_nulls, device)
            return pa.chunked_array([], type=whole.type)
        whole = _cumulative(op, pa.concat_arrays(values.chunks), start, skip_nulls, device)
        return pa.chunked_array([whole.to_pyarrow()])
    kind = dispatch(type(values))[0]
    if kind == SCALAR:  # pyarrow gives an array of one slot
        s = values if isinstance(values, pa.Scalar) else pa.scalar(values)
        values = pa.array([s.as_py()], type=s.type)
    p, tmp = _operand(values, device)
    try:
        s = _start_scalar(start, lib.am_array_type(p))
        out = tls.out
        rc = lib.am_cumulative(op, p, s, 1 if skip_nulls else 0, out)
        if rc:
            raise error_from_status(rc)
        return wrap(out[0])
    finally:
        if tmp is not None:
            drop(tmp)


def _make(name: str, op: int, doc: str) -> CumulativeFunction:
    spec = OptionsSpec(name, "CumulativeOptions", _DEFAULTS)

    def function(
        values: ArrayLike | ScalarLike,
        /,
        start: Any = None,
        *,
        skip_nulls: bool = False,
        options: pa.compute.CumulativeOptions | dict[str, Any] | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Any:
        given = {"start": start, "skip_nulls": skip_nulls}
        if options is not None:
            fields, reason = _options(spec, options, given)
            if fields is _FALLBACK:
                return _fallback.run(name, reason, (values,), {"options": options})
            start, skip_nulls = fields["start"], fields["skip_nulls"]
            if not isinstance(options, dict):
                start = _typed_start(options, start)
        try:
            return _cumulative(op, values, start, bool(skip_nulls), device)
        except ArrowMetalTypeError as e:
            kwargs = {"options": options} if options is not None else given
            return _input_fallback(name, e, (values,), (values,), kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


_COMMON = (
    " Nulls: with skip_nulls=False every slot from the first null on is null; with "
    "True null slots stay null and are passed over. A ChunkedArray is scanned across "
    "its chunks and comes back as one chunk (am_cumulative)."
)

cumulative_sum = _make(
    "cumulative_sum",
    lib.AM_CUMULATIVE_SUM,
    "Running sum of the values from `start` (default 0), in their type; integers wrap "
    "around (pyarrow.compute.cumulative_sum)." + _COMMON,
)
cumulative_sum_checked = _make(
    "cumulative_sum_checked",
    lib.AM_CUMULATIVE_SUM_CHECKED,
    "Running sum of the values from `start` (default 0); raises ArrowMetalOverflowError "
    "where an integer running sum leaves its type (pyarrow.compute.cumulative_sum_checked)."
    + _COMMON,
)
cumulative_prod = _make(
    "cumulative_prod",
    lib.AM_CUMULATIVE_PROD,
    "Running product of the values from `start` (default 1), in their type; integers "
    "wrap around (pyarrow.compute.cumulative_prod)." + _COMMON,
)
cumulative_prod_checked = _make(
    "cumulative_prod_checked",
    lib.AM_CUMULATIVE_PROD_CHECKED,
    "Running product of the values from `start` (default 1); raises "
    "ArrowMetalOverflowError where an integer running product leaves its type "
    "(pyarrow.compute.cumulative_prod_checked)." + _COMMON,
)
cumulative_min = _make(
    "cumulative_min",
    lib.AM_CUMULATIVE_MIN,
    "Running minimum of the values from `start` (default: the type's highest value, "
    "+inf for floats); NaN is passed over (pyarrow.compute.cumulative_min)." + _COMMON,
)
cumulative_max = _make(
    "cumulative_max",
    lib.AM_CUMULATIVE_MAX,
    "Running maximum of the values from `start` (default: the type's lowest value, "
    "-inf for floats); NaN is passed over (pyarrow.compute.cumulative_max)." + _COMMON,
)
cumulative_mean = _make(
    "cumulative_mean",
    lib.AM_CUMULATIVE_MEAN,
    "Running mean of the values as float64 (the float64 running sum over the count of "
    "values so far); `start` is checked against the values' type and otherwise ignored, "
    "as pyarrow does (pyarrow.compute.cumulative_mean)." + _COMMON,
)
