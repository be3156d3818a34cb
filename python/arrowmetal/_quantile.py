"""pyarrow.compute's quantile, tdigest and approximate_median (branch
quantile), on the C library's am_quantile and am_tdigest.

pyarrow's names, argument order, keyword arguments and options objects
(QuantileOptions, TDigestOptions, ScalarAggregateOptions), every field
honoured. Keyword arguments are checked by building pyarrow's own options
object from them, so a bad value is refused with pyarrow's error; the fields
are then read from that object as from one passed in. quantile and tdigest
give an am.Array of len(q) slots (float64, or for quantile's lower, higher
and nearest the input's type), as pyarrow gives a DoubleArray;
approximate_median gives a Scalar. A ChunkedArray counts as one array, as in
pyarrow.
"""

from __future__ import annotations

from . import _fallback
from ._array import Array, wrap
from ._capi import ffi, lib
from ._chunked import combined
from ._compute import _FALLBACK, _input_fallback, _operand, _options
from ._errors import ArrowMetalTypeError, error_from_status
from ._options import OptionsSpec
from ._results import result_value
from ._state import drop, tls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Union

    import pyarrow as pa

    from ._typing import AggregateOptions, ArrayLike, DeviceLike, ReductionResult

    QuantileQ = Union[float, Sequence[float]]

__all__ = ["approximate_median", "quantile", "tdigest"]

_error = error_from_status

# pyarrow's QuantileOptions.interpolation, in its C++ enum's order (the C
# library's am_quantile_interpolation has the same values).
INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")

_Q_SPEC = OptionsSpec(
    "quantile",
    "QuantileOptions",
    {"q": 0.5, "interpolation": "linear", "skip_nulls": True, "min_count": 0},
)
_T_SPEC = OptionsSpec(
    "tdigest",
    "TDigestOptions",
    {"q": 0.5, "delta": 100, "buffer_size": 500, "skip_nulls": True, "min_count": 0},
)
_M_SPEC = OptionsSpec(
    "approximate_median", "ScalarAggregateOptions", {"skip_nulls": True, "min_count": 1}
)


def _fields(spec: OptionsSpec, options: Any, given: dict[str, Any]) -> Any:
    """(fields, None) or (_FALLBACK, reason). Keywords go through pyarrow's
    own options class, which refuses what pyarrow refuses."""
    if options is None:
        import pyarrow.compute as pc

        options = getattr(pc, spec.class_name)(**given)
        given = dict(spec.defaults)
    return _options(spec, options, given)


def _interpolation(value: Any) -> int:
    if isinstance(value, int):
        return value
    return INTERPOLATIONS.index(value)


def _call(name: str, run: Any, array: Any, kwargs: dict[str, Any], device: Any) -> Array:
    array = combined(array)
    try:
        p, tmp = _operand(array, device)
        try:
            out = tls.out
            rc = run(p, out)
            if rc:
                raise _error(rc)
            return wrap(out[0])
        finally:
            if tmp is not None:
                drop(tmp)
    except ArrowMetalTypeError as e:
        return _input_fallback(name, e, (array,), (array,), kwargs)


def _q_list(q: Any) -> list[float]:
    return [float(q)] if isinstance(q, (int, float)) else [float(v) for v in q]


def quantile(
    array: ArrayLike,
    /,
    q: QuantileQ = 0.5,
    *,
    interpolation: str = "linear",
    skip_nulls: bool = True,
    min_count: int = 0,
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Array:
    """Exact quantiles (pyarrow.compute.quantile; QuantileOptions): len(q)
    slots, float64 for linear and midpoint, the input's type for lower,
    higher and nearest; null where skip_nulls is False and a null exists, or
    fewer than min_count values are valid; NaN values are dropped (am_quantile).
    """
    given = {
        "q": q,
        "interpolation": interpolation,
        "skip_nulls": skip_nulls,
        "min_count": min_count,
    }
    fields, reason = _fields(_Q_SPEC, options, given)
    kwargs = {"options": options} if options is not None else given
    if fields is _FALLBACK:
        return _fallback.run("quantile", reason, (array,), kwargs)
    qs = _q_list(fields["q"])
    buf = ffi.new("double[]", qs or [0.0])
    interp = _interpolation(fields["interpolation"])
    skip = 1 if fields["skip_nulls"] else 0
    mc = int(fields["min_count"])

    def run(p: Any, out: Any) -> int:
        return lib.am_quantile(p, buf, len(qs), interp, skip, mc, out)

    return _call("quantile", run, array, kwargs, device)


def tdigest(
    array: ArrayLike,
    /,
    q: QuantileQ = 0.5,
    *,
    delta: int = 100,
    buffer_size: int = 500,
    skip_nulls: bool = True,
    min_count: int = 0,
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Array:
    """Approximate quantiles from a merging t-digest (pyarrow.compute.tdigest;
    TDigestOptions): len(q) float64 slots, NaN for a q outside [0, 1]; on the
    CPU pyarrow's own digest and results (am_tdigest)."""
    given = {
        "q": q,
        "delta": delta,
        "buffer_size": buffer_size,
        "skip_nulls": skip_nulls,
        "min_count": min_count,
    }
    fields, reason = _fields(_T_SPEC, options, given)
    kwargs = {"options": options} if options is not None else given
    if fields is _FALLBACK:
        return _fallback.run("tdigest", reason, (array,), kwargs)
    qs = _q_list(fields["q"])
    buf = ffi.new("double[]", qs or [0.0])
    d, b = int(fields["delta"]), int(fields["buffer_size"])
    skip = 1 if fields["skip_nulls"] else 0
    mc = int(fields["min_count"])

    def run(p: Any, out: Any) -> int:
        return lib.am_tdigest(p, buf, len(qs), d, b, skip, mc, out)

    return _call("tdigest", run, array, kwargs, device)


def approximate_median(
    array: ArrayLike,
    /,
    *,
    skip_nulls: bool = True,
    min_count: int = 1,
    options: AggregateOptions | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ReductionResult:
    """The t-digest's median (pyarrow.compute.approximate_median;
    ScalarAggregateOptions): a float64 Scalar, null under the options' rules
    or when no value is left (am_tdigest with q = 0.5, delta 100, buffer 500).
    """
    given = {"skip_nulls": skip_nulls, "min_count": min_count}
    fields, reason = _fields(_M_SPEC, options, given)
    kwargs = {"options": options} if options is not None else given
    if fields is _FALLBACK:
        return _fallback.run("approximate_median", reason, (array,), kwargs)
    buf = ffi.new("double[]", [0.5])
    skip = 1 if fields["skip_nulls"] else 0
    mc = int(fields["min_count"])

    def run(p: Any, out: Any) -> int:
        return lib.am_tdigest(p, buf, 1, 100, 500, skip, mc, out)

    result = _call("approximate_median", run, array, kwargs, device)
    if not isinstance(result, Array):  # pyarrow ran it (an input type without a kernel)
        return result
    from ._exporters import read_values

    value = read_values(result._ptr)[0]
    s = ffi.new("am_scalar *")
    s.type = lib.AM_FLOAT64
    if value is None:
        s.is_null = 1
    else:
        s.f64 = value
    return result_value(s)
