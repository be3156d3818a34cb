"""pyarrow.compute's aggregates beyond sum, min, max, mean and count: any, all,
product, min_max, variance, stddev, first, last, first_last and index, on the
C library's am_aggregate, am_min_max, am_first_last and am_index.

pyarrow's names, argument order, keyword arguments and options objects
(ScalarAggregateOptions, VarianceOptions), every field honoured: the C
library applies skip_nulls, min_count and ddof itself. Bad option values are
refused as pyarrow refuses them (a negative min_count is OverflowError, a
string TypeError). Results are Scalars like the other reductions' (_results);
min_max and first_last give a StructScalar (``r['min']``, ``r.as_py()`` ->
``{'min': .., 'max': ..}``). Inside ``am.batch()`` a result is pending until
the batch ends (PendingScalar, or PendingAggregate for the two-field results
and for index with ``start``, whose value is computed then).
"""

from __future__ import annotations

import math
import sys

from . import _fallback
from ._batch import PendingScalar, check_settled, pending_repr
from ._capi import ffi, lib
from ._compute import _FALLBACK, _input_fallback, _operand, _options
from ._errors import ArrowMetalTypeError, error_from_status
from ._options import OptionsSpec, c_integer, integer_fields
from ._results import StructScalar, result_value, valid_of
from ._scalars import temporal_storage
from ._state import BatchRecord, drop, tls
from ._types import (
    KIND_BINARY,
    KIND_BOOL,
    KIND_DECIMAL,
    KIND_FLOAT,
    KIND_FLOAT16,
    KIND_SIGNED,
    KIND_TEMPORAL,
    KINDS,
    TYPE_NAMES,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Union

    import pyarrow as pa

    from ._results import NullScalar, Scalar
    from ._typing import (
        AggregateOptions,
        ArrayLike,
        ArrowScalar,
        DeviceLike,
        ReductionResult,
        ScalarLike,
        StructResult,
        VarianceOptions,
    )

    Result = Union[Scalar, NullScalar, StructScalar]

__all__ = [
    "PendingAggregate",
    "all",
    "any",
    "first",
    "first_last",
    "index",
    "last",
    "min_max",
    "product",
    "stddev",
    "variance",
]

_error = error_from_status
_am_aggregate = lib.am_aggregate
_am_min_max = lib.am_min_max
_am_first_last = lib.am_first_last
_am_index = lib.am_index
_am_array_type = lib.am_array_type
_am_length = lib.am_length
_am_slice = lib.am_slice


class PendingAggregate:
    """A result made inside ``am.batch()`` that is computed from the scalars
    the C library writes when the batch ends: min_max's and first_last's
    StructScalar, index's position after ``start``. ``.value`` gives it then;
    before, it raises (as PendingScalar)."""

    __slots__ = ("_batch", "_make", "_s", "_value")

    def __init__(
        self, scalars: tuple[Any, ...], make: Callable[..., Result], batch: BatchRecord | None
    ) -> None:
        self._s: tuple[Any, ...] | None = scalars
        self._make = make
        self._batch: BatchRecord = batch  # type: ignore[assignment]  # made while one is open
        self._value: Result | None = None

    @property
    def ready(self) -> bool:
        """True once the value (or the batch's error) is known."""
        return self._batch.done

    @property
    def value(self) -> Result:
        """The result, once the batch has ended; before, it raises."""
        if self._value is None:
            check_settled(self._batch)
            self._value = self._make(*(result_value(s) for s in self._s))  # type: ignore[union-attr]
            self._s = None
        return self._value

    def as_py(self) -> Any:
        """The Python value: a dict for min_max and first_last, an int for index."""
        return self.value.as_py()

    @property
    def is_valid(self) -> bool:
        return self.value.is_valid

    @property
    def type(self) -> Any:
        return self.value.type

    def __getitem__(self, key: str | int) -> Scalar | NullScalar:
        value = self.value
        if not isinstance(value, StructScalar):
            raise TypeError(f"{type(value).__name__} has no fields")
        return value[key]

    def __eq__(self, other: object) -> bool:
        return self.value == (other.value if isinstance(other, PendingAggregate) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return pending_repr(self)


# ---------------------------------------------------------------------------
# Options: pyarrow's conversions of the fields into their C++ types.


def _c_options(fields: dict[str, Any]) -> Any:
    """am_aggregate_options of resolved fields (pyarrow's messages on bad ones)."""
    opts = ffi.new("am_aggregate_options *")
    opts.skip_nulls = 1 if fields["skip_nulls"] else 0
    opts.min_count = fields["min_count"]  # converted by integer_fields or pyarrow's class
    opts.ddof = fields.get("ddof", 0)
    return opts


_SA_DEFAULTS = {"skip_nulls": True, "min_count": 1}
_VAR_DEFAULTS = {"ddof": 0, "skip_nulls": True, "min_count": 0}


def _fields(spec: OptionsSpec, given: dict[str, Any], options: Any) -> Any:
    """The call's option fields, or _FALLBACK with the reason (a field of a
    newer pyarrow this package does not know)."""
    if options is None:
        return integer_fields(spec.class_name, given), None
    return _options(spec, options, given)


def _pending_or_value(call: Callable[..., int], p: Any, opts: Any, count: int) -> Any:
    """Makes the C call with `count` fresh scalars (inside a batch) or the
    thread's scalar; returns the scalars' values, or the pending scalars."""
    st = tls.fast
    if count == 1 and st is not None:
        s = st[0]
        rc = call(p, opts, s) if opts is not None else call(p, s)
        if rc:
            raise _error(rc)
        return (result_value(s),), None
    scalars = tuple(ffi.new("am_scalar *") for _ in range(count))
    rc = call(p, opts, *scalars) if opts is not None else call(p, *scalars)
    if rc:
        raise _error(rc)
    if st is None:  # a batch is open: the values come when it ends
        return None, scalars
    return tuple(result_value(s) for s in scalars), None


def _run(
    name: str,
    call: Callable[..., int],
    fields_or_reason: tuple[Any, Any],
    array: Any,
    options: Any,
    kwargs: dict[str, Any],
    device: DeviceLike | None,
    make: Callable[..., Result] | None = None,
) -> Any:
    fields, reason = fields_or_reason
    if fields is _FALLBACK:
        return _fallback.run(name, reason, (array,), {"options": options})
    opts = _c_options(fields)
    try:
        p, tmp = _operand(array, device)
        try:
            values, pending = _pending_or_value(call, p, opts, 2 if make else 1)
        finally:
            if tmp is not None:
                drop(tmp)
    except ArrowMetalTypeError as e:
        return _input_fallback(name, e, (array,), (array,), kwargs)
    if pending is not None:
        if make is None:
            return PendingScalar(pending[0], tls.batch)  # type: ignore[arg-type]  # one is open
        return PendingAggregate(pending, make, tls.batch)
    return make(*values) if make else values[0]


def _op_call(op: int) -> Callable[..., int]:
    return lambda p, opts, out: _am_aggregate(op, p, opts, out)


def _kwargs(fields: dict[str, Any], options: Any) -> dict[str, Any]:
    return {"options": options} if options is not None else dict(fields)


# ---------------------------------------------------------------------------
# The functions


def _scalar_aggregate(name: str, op: int, doc: str) -> Callable[..., ReductionResult]:
    spec = OptionsSpec(name, "ScalarAggregateOptions", _SA_DEFAULTS)
    call = _op_call(op)

    def function(
        array: ArrayLike | ArrowScalar,
        /,
        *,
        skip_nulls: bool = True,
        min_count: int = 1,
        options: AggregateOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ReductionResult:
        given = {"skip_nulls": skip_nulls, "min_count": min_count}
        found = _fields(spec, given, options)
        return _run(name, call, found, array, options, _kwargs(given, options), device)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _moments(name: str, op: int, doc: str) -> Callable[..., ReductionResult]:
    spec = OptionsSpec(name, "VarianceOptions", _VAR_DEFAULTS)
    call = _op_call(op)

    def function(
        array: ArrayLike | ArrowScalar,
        /,
        *,
        ddof: int = 0,
        skip_nulls: bool = True,
        min_count: int = 0,
        options: VarianceOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ReductionResult:
        given = {"ddof": ddof, "skip_nulls": skip_nulls, "min_count": min_count}
        found = _fields(spec, given, options)
        return _run(name, call, found, array, options, _kwargs(given, options), device)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _struct(
    name: str, call: Callable[..., int], names: tuple[str, str], doc: str
) -> Callable[..., StructResult]:
    spec = OptionsSpec(name, "ScalarAggregateOptions", _SA_DEFAULTS)

    def make(a: Scalar | NullScalar, b: Scalar | NullScalar) -> StructScalar:
        return StructScalar(names, (a, b))

    def function(
        array: ArrayLike | ArrowScalar,
        /,
        *,
        skip_nulls: bool = True,
        min_count: int = 1,
        options: AggregateOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> StructResult:
        given = {"skip_nulls": skip_nulls, "min_count": min_count}
        found = _fields(spec, given, options)
        kwargs = _kwargs(given, options)
        return _run(name, call, found, array, options, kwargs, device, make)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


any = _scalar_aggregate(
    "any",
    lib.AM_AGG_ANY,
    """Whether any valid value is true (pyarrow.compute.any; booleans only).
    skip_nulls=False is Kleene logic: [False, None] gives None, [True, None]
    True. Fewer than min_count valid values give None.""",
)
all = _scalar_aggregate(
    "all",
    lib.AM_AGG_ALL,
    """Whether every valid value is true (pyarrow.compute.all; booleans only).
    skip_nulls=False is Kleene logic: [True, None] gives None, [False, None]
    False. Fewer than min_count valid values give None.""",
)
product = _scalar_aggregate(
    "product",
    lib.AM_AGG_PRODUCT,
    """Product of the valid values (pyarrow.compute.product): signed integers
    -> int64 and unsigned integers and booleans -> uint64, wrapping in 64 bits;
    floats -> float64, multiplied in slot order. Nothing valid gives None
    (1 with min_count=0).""",
)
variance = _moments(
    "variance",
    lib.AM_AGG_VARIANCE,
    """Variance of the valid values (pyarrow.compute.variance), float64: the sum
    of squared deviations over count - ddof (ddof=0: the population variance).
    None when count <= ddof, when fewer than min_count are valid, or (with
    skip_nulls=False) when any is null. Computed per block and merged with
    Chan et al.'s formula: stable, and within a few units in the last place
    of pyarrow's.""",
)
stddev = _moments(
    "stddev",
    lib.AM_AGG_STDDEV,
    """Standard deviation of the valid values (pyarrow.compute.stddev): the
    square root of variance (see there for ddof, skip_nulls and min_count).""",
)
first = _scalar_aggregate(
    "first",
    lib.AM_AGG_FIRST,
    """The first valid value (pyarrow.compute.first); with skip_nulls=False the
    first value, None when it is null.""",
)
last = _scalar_aggregate(
    "last",
    lib.AM_AGG_LAST,
    """The last valid value (pyarrow.compute.last); with skip_nulls=False the
    last value, None when it is null.""",
)
min_max = _struct(
    "min_max",
    _am_min_max,
    ("min", "max"),
    """The smallest and the largest valid value in one pass
    (pyarrow.compute.min_max): a StructScalar, r['min'] and r['max'], as_py()
    -> {'min': .., 'max': ..}; NaN is skipped (all NaN gives NaN). Its fields
    are None where nothing is valid, fewer than min_count are, or (with
    skip_nulls=False) any is null.""",
)
first_last = _struct(
    "first_last",
    _am_first_last,
    ("first", "last"),
    """first and last in one call (pyarrow.compute.first_last): a StructScalar,
    r['first'] and r['last'], as_py() -> {'first': .., 'last': ..}.""",
)


# ---------------------------------------------------------------------------
# index


def _value_scalar(value: Any, t: int) -> Any:
    """`value` as an am_scalar of am type `t`, converted as
    pyarrow.compute.index converts it (pa.scalar(value, type=data.type));
    without pyarrow, bools, ints and floats by the same rules."""
    if hasattr(value, "as_py") and hasattr(value, "is_valid"):  # pyarrow's or ours
        value = value.as_py()
    if KINDS[t] == KIND_BINARY:  # no index of strings here yet: pyarrow's (counted)
        raise ArrowMetalTypeError("no kernel for index of strings", lib.AM_ETYPE)
    if KINDS[t] == KIND_DECIMAL:  # nor of decimals: pyarrow's (counted)
        raise ArrowMetalTypeError("no kernel for index of decimals", lib.AM_ETYPE)
    s = ffi.new("am_scalar *")
    s.type = t
    pa: Any = sys.modules.get("pyarrow")
    if pa is None:
        try:
            import pyarrow as pa  # type: ignore[no-redef, unused-ignore]
        except ImportError:
            pa = None
    kind = KINDS[t]
    if kind == KIND_TEMPORAL and value is not None and not isinstance(value, int):
        value = temporal_storage(value, t)  # its integer (as_py(): a datetime)
    elif pa is not None and value is not None and kind != KIND_TEMPORAL:
        from ._results import _pyarrow_type

        value = pa.scalar(value, type=_pyarrow_type(t)).as_py()
    elif value is not None:
        value = _convert(value, t)
    if value is None:
        s.is_null = 1
    elif kind == KIND_FLOAT or kind == KIND_FLOAT16:
        s.f64 = float(value)
    elif kind == KIND_SIGNED or kind == KIND_BOOL or kind == KIND_TEMPORAL:
        s.i64 = int(value)
    else:
        s.u64 = int(value)
    return s


def _convert(value: Any, t: int) -> bool | int | float:
    """pyarrow's conversion of a Python value to type `t`, where pyarrow is
    missing: bools only to bool, numbers only to numbers, integers in range."""
    kind = KINDS[t]
    name = TYPE_NAMES[t]
    if kind == KIND_BOOL:
        if not isinstance(value, bool):
            raise ArrowMetalTypeError(f"cannot convert {value!r} to bool", lib.AM_ETYPE)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArrowMetalTypeError(f"cannot convert {value!r} to {name}", lib.AM_ETYPE)
    if kind == KIND_FLOAT or kind == KIND_FLOAT16:
        return float(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ArrowMetalTypeError(f"cannot convert {value!r} to {name}", lib.AM_ETYPE)
        value = int(value)
    from ._types import INT_RANGES

    lo, hi = INT_RANGES[t]
    if not lo <= value <= hi:
        from ._errors import ArrowMetalInvalid

        raise ArrowMetalInvalid(f"Value {value} too large to fit in {name}", lib.AM_EINVAL)
    return value


def index(
    data: ArrayLike,
    value: ScalarLike,
    start: int | None = None,
    end: int | None = None,
    *,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ReductionResult | PendingAggregate:
    """The first position of `value` in `data` (pyarrow.compute.index), int64;
    -1 where it is not there (a null value is never found, NaN neither; 0.0
    finds -0.0). `value` is converted to the array's type first, as pyarrow
    does; `start` and `end` search ``data[start:end]`` (non-negative), and the
    position counts from the start of `data`."""
    kwargs = {"start": start, "end": end} if start is not None or end is not None else {}
    try:
        p, tmp = _operand(data, device)
        view = None
        try:
            if start is not None or end is not None:
                view = _view(p, start, end)
            handle = view if view is not None else p
            if lib.am_array_is_dictionary(handle):  # pyarrow has no kernel: its error first
                _fallback.refuse_as_pyarrow(
                    "index", (data,), "index: dictionary arrays have no kernel", value=value
                )
            s = _value_scalar(value, _am_array_type(handle))
            values, pending = _pending_or_value(
                lambda h, out: _am_index(h, s, out), handle, None, 1
            )
        finally:
            if view is not None:
                drop(view)
            if tmp is not None:
                drop(tmp)
    except ArrowMetalTypeError as e:
        return _input_fallback("index", e, (data,), (data, value), kwargs)
    offset = start or 0

    def shifted(found: Scalar | NullScalar) -> Scalar | NullScalar:
        at = found.as_py()
        return (
            valid_of(lib.AM_INT64, at + offset) if offset and at is not None and at >= 0 else found
        )

    if pending is not None:
        if not offset:
            return PendingScalar(pending[0], tls.batch)  # type: ignore[arg-type]  # one is open
        return PendingAggregate(pending, shifted, tls.batch)
    return shifted(values[0])


def _view(p: Any, start: int | None, end: int | None) -> Any:
    """data.slice(start, end - start) as pyarrow.compute.index takes it, with
    Array.slice's errors (a negative offset IndexError, a negative length
    ValueError)."""
    offset = 0 if start is None else c_integer(start, "int64_t")
    if offset < 0:
        raise IndexError("Offset must be non-negative")
    length = _am_length(p) if end is None else c_integer(end, "int64_t") - offset
    if length < 0:
        raise ValueError("Length must be non-negative")
    out = ffi.new("am_array **")
    rc = _am_slice(p, offset, length, out)
    if rc:
        raise _error(rc)
    return out[0]
