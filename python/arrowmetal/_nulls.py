"""pyarrow.compute's null-handling functions, with its names, argument order
and options (branch nulls): is_null, is_valid, is_nan, is_finite, is_inf.

As everywhere in the package: am.Array inputs give an am.Array; ChunkedArray
inputs a ChunkedArray with the chunks kept; scalars a Python value (pyarrow
gives its Scalar); inputs of types ArrowMetal has no kernel for run in
pyarrow.compute (see _fallback).
"""

from __future__ import annotations

from . import _fallback
from ._array import Array, wrap
from ._capi import ffi, lib
from ._chunked import is_chunked, map_pieces
from ._compute import _FALLBACK, _input_fallback, _on_operand, _options
from ._devices import device_ptr
from ._dispatch import SCALAR, dispatch
from ._errors import ArrowMetalTypeError, error_from_status
from ._exporters import read_values
from ._options import OptionsSpec
from ._state import tls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, overload

    import pyarrow as pa

    from ._typing import (
        ArrayLike,
        DeviceLike,
        ElementwiseResult,
        NullOptions,
        PlainScalar,
        PyValue,
        ScalarLike,
        UnaryFunction,
    )

__all__ = ["is_finite", "is_inf", "is_nan", "is_null", "is_valid"]

_error = error_from_status
_am_is = lib.am_is


def _predicate(op: int, flags: int, x: Any, device: DeviceLike | None) -> Array | PyValue:
    """am_is(op, flags, x): a boolean am.Array, or for a scalar its value."""
    out = tls.out
    if type(x) is Array:
        rc = _am_is(op, flags, x._ptr, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])
    kind, fill = dispatch(type(x))
    if kind == SCALAR:
        s = ffi.new("am_scalar *")
        fill(x, s, None)
        rc = lib.am_full(s, 1, device_ptr(device), out)
        if rc:
            raise _error(rc)
        one = wrap(out[0])
        result = _predicate(op, flags, one, device)
        assert isinstance(result, Array)
        return read_values(result._ptr)[0]
    return _on_operand(lambda p, o: _am_is(op, flags, p, o), x, device)


_NULL_SPEC = OptionsSpec("is_null", "NullOptions", {"nan_is_null": False})


if TYPE_CHECKING:

    @overload
    def is_null(
        values: Array,
        /,
        *,
        nan_is_null: bool = False,
        options: NullOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def is_null(
        values: PlainScalar,
        /,
        *,
        nan_is_null: bool = False,
        options: NullOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> PyValue: ...
    @overload
    def is_null(
        values: ArrayLike | ScalarLike,
        /,
        *,
        nan_is_null: bool = False,
        options: NullOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ElementwiseResult: ...


def is_null(
    values: ArrayLike | ScalarLike,
    /,
    *,
    nan_is_null: bool = False,
    options: NullOptions | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ElementwiseResult:
    """True where a slot is null, and with nan_is_null=True where it is NaN too
    (pyarrow.compute.is_null; NullOptions). Never null (am_is)."""
    try:
        if options is not None:
            fields, reason = _options(_NULL_SPEC, options, {"nan_is_null": nan_is_null})
            if fields is _FALLBACK:
                return _fallback.run("is_null", reason, (values,), {"options": options})
            nan_is_null = fields["nan_is_null"]
        flags = lib.AM_NAN_IS_NULL if nan_is_null else 0
        if is_chunked(values):
            return map_pieces(lambda a: _predicate(lib.AM_IS_NULL, flags, a, device), (values,))
        return _predicate(lib.AM_IS_NULL, flags, values, device)
    except ArrowMetalTypeError as e:
        kwargs = {"options": options} if options is not None else {"nan_is_null": nan_is_null}
        return _input_fallback("is_null", e, (values,), (values,), kwargs)


def _make_predicate(name: str, op: int, doc: str) -> UnaryFunction:
    def predicate(
        values: ArrayLike | ScalarLike,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ElementwiseResult:
        try:
            if is_chunked(values):
                return map_pieces(lambda a: _predicate(op, 0, a, device), (values,))
            return _predicate(op, 0, values, device)
        except ArrowMetalTypeError as e:
            return _input_fallback(name, e, (values,), (values,), {})

    predicate.__name__ = predicate.__qualname__ = name
    predicate.__doc__ = doc
    return predicate  # type: ignore[return-value]  # the overloads of UnaryFunction


is_valid = _make_predicate(
    "is_valid",
    lib.AM_IS_VALID,
    "True where a slot is not null (pyarrow.compute.is_valid). Never null (am_is).",
)
is_nan = _make_predicate(
    "is_nan",
    lib.AM_IS_NAN,
    "True where a number is NaN (pyarrow.compute.is_nan): never for an integer; null "
    "where the input is null; booleans raise TypeError (am_is).",
)
is_finite = _make_predicate(
    "is_finite",
    lib.AM_IS_FINITE,
    "True where a number is neither NaN nor an infinity (pyarrow.compute.is_finite): "
    "always for an integer; null where the input is null; booleans raise TypeError (am_is).",
)
is_inf = _make_predicate(
    "is_inf",
    lib.AM_IS_INF,
    "True where a number is +inf or -inf (pyarrow.compute.is_inf): never for an integer; "
    "null where the input is null; booleans raise TypeError (am_is).",
)
