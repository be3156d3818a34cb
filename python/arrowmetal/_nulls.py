"""pyarrow.compute's null-handling functions, with its names, argument order
and options: is_null, is_valid, is_nan, is_finite, is_inf,
fill_null, coalesce, if_else, drop_null, fill_null_forward, fill_null_backward.

As everywhere in the package: am.Array inputs give an am.Array; ChunkedArray
inputs a ChunkedArray with the chunks kept; scalars a Scalar as pyarrow's
(_exporters.read_scalar); inputs of types ArrowMetal has no kernel for run in
pyarrow.compute (see _fallback).
"""

from __future__ import annotations

from . import _fallback
from ._array import Array, wrap
from ._batch import batch
from ._capi import ffi, lib
from ._chunked import is_chunked, map_pieces
from ._compute import _FALLBACK, _import_operand, _input_fallback, _on_operand, _options
from ._devices import device_ptr
from ._dispatch import ARRAY, SCALAR, dispatch
from ._errors import ArrowMetalInvalid, ArrowMetalTypeError, error_from_status
from ._exporters import read_scalar
from ._options import OptionsSpec
from ._state import drop, tls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, overload

    import pyarrow as pa

    from ._typing import (
        ArrayLike,
        ArrayResult,
        DeviceLike,
        ElementwiseResult,
        NullOptions,
        PlainScalar,
        ScalarLike,
        ScalarResult,
        UnaryFunction,
    )

__all__ = [
    "coalesce",
    "drop_null",
    "fill_null",
    "fill_null_backward",
    "fill_null_forward",
    "if_else",
    "is_finite",
    "is_inf",
    "is_nan",
    "is_null",
    "is_valid",
]

_error = error_from_status
_am_is = lib.am_is
_am_drop_null = lib.am_drop_null


def _predicate(op: int, flags: int, x: Any, device: DeviceLike | None) -> Array | ScalarResult:
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
        return read_scalar(result._ptr)
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
    ) -> ScalarResult: ...
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


# ---------------------------------------------------------------------------
# fill_null, coalesce


def _scalar_arg(x: Any, fill: Any) -> Any:
    """An am_scalar of a Python, numpy or pyarrow scalar: None as a null
    without a type (pyarrow's null type)."""
    s = ffi.new("am_scalar *")
    if x is None:
        s.type = lib.AM_TYPE_INVALID
        s.is_null = 1
    else:
        fill(x, s, None)
    return s


def _call_values(cfn: Any, values: tuple[Any, ...], device: DeviceLike | None) -> Array:
    """cfn(arrays, scalars, count, out) over values in argument order: arrays
    imported (or kept, or am.Array), scalars as am_scalar."""
    n = len(values)
    arrays = ffi.new("am_array *[]", max(n, 1))
    scalars = ffi.new("am_scalar *[]", max(n, 1))
    keep = []
    tmps: list[Any] = []
    out = tls.out
    try:
        for k, x in enumerate(values):
            kind, fill = dispatch(type(x))
            if kind == ARRAY:
                arrays[k] = x._ptr
            elif kind == SCALAR:
                s = _scalar_arg(x, fill)
                keep.append(s)
                scalars[k] = s
            else:
                arrays[k] = _import_operand(x, fill, device_ptr(device), out, tmps)
        rc = cfn(arrays, scalars, n, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])
    finally:
        for p in tmps:
            drop(p)


def _on_values(cfn: Any, values: tuple[Any, ...], device: DeviceLike | None) -> Any:
    """_call_values, or for scalars alone a Scalar (computed on one-slot
    arrays, as pyarrow gives a scalar)."""
    kinds = [dispatch(type(x))[0] for x in values]
    if values and all(k == SCALAR for k in kinds):
        one = []
        for x in values:
            s = _scalar_arg(x, dispatch(type(x))[1])
            if s.type == lib.AM_TYPE_INVALID:
                one.append(x)  # the null type: refused as pyarrow does, below
                continue
            out = tls.out
            rc = lib.am_full(s, 1, device_ptr(device), out)
            if rc:
                raise _error(rc)
            one.append(wrap(out[0]))
        result = _call_values(cfn, tuple(one), device)
        return read_scalar(result._ptr)
    return _call_values(cfn, values, device)


def _coalesce(arrays: Any, scalars: Any, n: int, out: Any) -> int:
    return lib.am_coalesce(arrays, scalars, n, out)


def _fill_null(arrays: Any, scalars: Any, n: int, out: Any) -> int:
    fill = arrays[1] if scalars[1] == ffi.NULL else ffi.NULL
    return lib.am_fill_null(arrays[0], fill, scalars[1], out)


def coalesce(
    *values: ArrayLike | ScalarLike,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ElementwiseResult:
    """Each slot from the first value that is valid there (pyarrow.compute.coalesce):
    arrays of one length and scalars, converted to their common type (numbers
    to the common numeric type with a safe cast, bools with bools); null where
    every value is (am_coalesce). Scalars alone give a Scalar."""
    try:
        if not values:
            raise ArrowMetalInvalid(
                "VarArgs function 'coalesce' needs at least 1 arguments but only 0 passed",
                lib.AM_EINVAL,
            )
        if any(is_chunked(x) for x in values):
            return map_pieces(lambda *vs: _on_values(_coalesce, vs, device), values)
        return _on_values(_coalesce, values, device)
    except ArrowMetalTypeError as e:
        return _input_fallback("coalesce", e, values, values, {})


def fill_null(
    values: ArrayLike | ScalarLike,
    fill_value: ArrayLike | ScalarLike,
    *,
    device: DeviceLike | None = None,
) -> ElementwiseResult:
    """The null slots of `values` replaced by `fill_value`, a scalar or an array
    of the same length (pyarrow.compute.fill_null). The result has the values'
    type: a scalar fill is converted to it as pyarrow converts the Python value
    (a float to an integer type truncates; a value that does not fit raises
    OverflowError); an array fill must have that type (am_fill_null)."""
    try:
        if is_chunked(values) or is_chunked(fill_value):
            return map_pieces(
                lambda v, f: _on_values(_fill_null, (v, f), device), (values, fill_value)
            )
        if values is None:  # pyarrow fails too: None has no type
            raise ArrowMetalTypeError("fill_null: values None has no type", lib.AM_ETYPE)
        if dispatch(type(values))[0] == SCALAR:
            return _on_values(_fill_null, (values, fill_value), device)
        return _call_values(_fill_null, (values, fill_value), device)
    except ArrowMetalTypeError as e:
        args = (values, fill_value)
        return _input_fallback("fill_null", e, args, args, {})


def _if_else(arrays: Any, scalars: Any, n: int, out: Any) -> int:
    return lib.am_if_else(arrays[0], arrays[1], scalars[1], arrays[2], scalars[2], out)


def _length_of(values: tuple[Any, ...]) -> int | None:
    """The length of the first array among `values` (None: scalars only)."""
    for x in values:
        kind = dispatch(type(x))[0]
        if kind == ARRAY:
            return len(x)
        if kind != SCALAR:
            return len(x)
    return None


def if_else(
    cond: ArrayLike | ScalarLike,
    left: ArrayLike | ScalarLike,
    right: ArrayLike | ScalarLike,
    /,
    *,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ElementwiseResult:
    """`left` where `cond` is true, `right` where it is false, null where it is null
    (pyarrow.compute.if_else). The sides, arrays of cond's length or scalars, are
    converted to their common type (am_if_else); a scalar condition applies to
    every slot. Scalars alone give a Scalar."""
    args = (cond, left, right)
    try:
        if any(is_chunked(x) for x in args):
            return map_pieces(lambda c, x, y: if_else(c, x, y, device=device), args)
        if dispatch(type(cond))[0] == SCALAR:
            n = _length_of((left, right))
            if n is None and cond is None:
                return None  # a null condition (pyarrow's null type too): null
            if n is not None:  # a scalar condition over array sides: an array of it
                s = _scalar_arg(cond, dispatch(type(cond))[1])
                if s.type == lib.AM_TYPE_INVALID:
                    s.type = lib.AM_BOOL  # None: a null condition, as pa.scalar(None, bool)
                out = tls.out
                rc = lib.am_full(s, n, device_ptr(device), out)
                if rc:
                    raise _error(rc)
                return _call_values(_if_else, (wrap(out[0]), left, right), device)
        return _on_values(_if_else, args, device)
    except ArrowMetalTypeError as e:
        return _input_fallback("if_else", e, args, args, {})


# ---------------------------------------------------------------------------
# drop_null


def _drop_null_chunks(input: Any, device: DeviceLike | None) -> pa.ChunkedArray[Any]:
    """Each chunk without its nulls, as pyarrow gives them: the chunks left
    empty are left out, but for one when every chunk is."""
    import pyarrow as pa

    with batch():
        results = [_on_operand(_am_drop_null, chunk, device) for chunk in input.chunks]
    chunks = [r.to_pyarrow() for r in results]
    kept = [c for c in chunks if len(c)]
    return pa.chunked_array(kept or chunks[:1], type=input.type)


def drop_null(
    input: ArrayLike,
    /,
    *,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ArrayResult:
    """The valid slots of `input`, in order (pyarrow.compute.drop_null; am_drop_null)."""
    try:
        if type(input) is Array:
            out = tls.out
            rc = _am_drop_null(input._ptr, out)
            if rc:
                raise _error(rc)
            return wrap(out[0])
        if is_chunked(input):
            return _drop_null_chunks(input, device)
        if dispatch(type(input))[0] == SCALAR:
            raise ArrowMetalTypeError(
                f"drop_null takes an array, not a scalar ({type(input).__name__})", lib.AM_ETYPE
            )
        return _on_operand(_am_drop_null, input, device)
    except ArrowMetalTypeError as e:
        return _input_fallback("drop_null", e, (input,), (input,), {})


# ---------------------------------------------------------------------------
# fill_null_forward, fill_null_backward


def _fill_direction(direction: int, values: Any, device: DeviceLike | None) -> Any:
    """am_fill_null_direction on an array (an am.Array); a scalar is an
    array of one slot, as pyarrow takes it (a null stays null)."""
    call = lambda p, o: lib.am_fill_null_direction(direction, p, o)
    if type(values) is Array:
        return _on_operand(call, values, device)
    if is_chunked(values):
        # The fill crosses chunk boundaries (as pyarrow's does): one array,
        # filled, then cut again where the chunks were.
        import pyarrow as pa

        if values.num_chunks == 0:
            return values
        whole = _on_operand(call, pa.concat_arrays(values.chunks), device)
        chunks, at = [], 0
        for chunk in values.chunks:
            chunks.append(whole.slice(at, len(chunk)).to_pyarrow())
            at += len(chunk)
        return pa.chunked_array(chunks, type=values.type)
    kind, fill = dispatch(type(values))
    if kind == SCALAR:  # pyarrow's: an array of one slot
        return _on_operand(call, _full_one(_scalar_arg(values, fill), device), device)
    return _on_operand(call, values, device)


def _full_one(s: Any, device: DeviceLike | None) -> Array:
    out = tls.out
    rc = lib.am_full(s, 1, device_ptr(device), out)
    if rc:
        raise _error(rc)
    return wrap(out[0])


def _make_fill_direction(name: str, direction: int, doc: str) -> UnaryFunction:
    def function(
        values: ArrayLike | ScalarLike,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ElementwiseResult:
        try:
            return _fill_direction(direction, values, device)
        except ArrowMetalTypeError as e:
            return _input_fallback(name, e, (values,), (values,), {})

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function  # type: ignore[return-value]  # the overloads of UnaryFunction


fill_null_forward = _make_fill_direction(
    "fill_null_forward",
    lib.AM_FILL_FORWARD,
    "Each null slot takes the value of the nearest valid slot before it; one with "
    "none stays null (pyarrow.compute.fill_null_forward; am_fill_null_direction). "
    "Across the chunks of a ChunkedArray, whose boundaries are kept.",
)
fill_null_backward = _make_fill_direction(
    "fill_null_backward",
    lib.AM_FILL_BACKWARD,
    "Each null slot takes the value of the nearest valid slot after it; one with "
    "none stays null (pyarrow.compute.fill_null_backward; am_fill_null_direction). "
    "Across the chunks of a ChunkedArray, whose boundaries are kept.",
)
