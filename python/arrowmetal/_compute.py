"""Compute functions with pyarrow.compute's names and argument order.

Results: reductions give Scalars like pyarrow's (``.as_py()``, ``.is_valid``,
``.type``; a valid one is also the Python int or float, see _results; a
PendingScalar inside am.batch()), everything else an am.Array. Inputs may be
am.Array, Arrow array producers, numpy arrays, Python sequences and, where
pyarrow.compute takes them, scalars.

Each public function has a fast path for am.Array inputs written out in full:
no helper calls, no isinstance checks, C functions and per-thread buffers
bound to closure or module variables. The general paths (``binary``,
``_operand``) take every other input; am.Array's operators use them too.
"""

from __future__ import annotations

import sys

from . import _fallback
from ._array import ARITH, BINARY, COMPARE, LOGIC, Array, wrap
from ._batch import PendingScalar
from ._capi import NAME_ARRAY, ffi, import_capsules, lib
from ._chunked import is_chunked, map_pieces
from ._decimals import decimal_reduction, decimal_target
from ._devices import CPU, device_ptr
from ._dispatch import ARRAY, DISPATCH, IMPORT, SCALAR, dispatch, import_handle
from ._errors import (
    ArrowMetalInvalid,
    ArrowMetalTypeError,
    ArrowMetalUnsupported,
    ScalarInputError,
    error_from_status,
)
from ._exporters import read_scalar
from ._importers import (
    PYARROW_IMPORTS,
    borrow,
    capsule_error,
    import_c_array,
    import_c_array_or_device,
    import_pyarrow,
)
from ._options import OptionsSpec, resolve
from ._results import VALID, null_of, result_value, valid_of
from ._scalars import WORD0_FLOAT64, WORD0_INT64, fill_float, fill_int
from ._state import drop, tls
from ._types import (
    KIND_DECIMAL,
    KIND_FLOAT,
    KIND_FLOAT16,
    KIND_SIGNED,
    KINDS,
    NUMBER_KINDS,
    TYPE_NAMES,
    type_id,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, overload

    import pyarrow as pa

    from ._results import NullScalar, Scalar
    from ._typing import (
        AggregateOptions,
        ArrayLike,
        ArrayResult,
        ArrowScalar,
        BinaryFunction,
        CastOptions,
        CountMode,
        CountOptions,
        CountResult,
        DeviceLike,
        ElementwiseResult,
        FilterOptions,
        NullSelection,
        ReductionFunction,
        ReductionResult,
        ScalarLike,
        ScalarResult,
        TypeLike,
        UnaryFunction,
    )

__all__ = [
    "add",
    "and_",
    "and_kleene",
    "and_not",
    "and_not_kleene",
    "cast",
    "count",
    "divide",
    "equal",
    "filter",
    "greater",
    "greater_equal",
    "invert",
    "less",
    "less_equal",
    "max",
    "mean",
    "min",
    "multiply",
    "not_equal",
    "or_",
    "or_kleene",
    "subtract",
    "sum",
    "take",
    "xor",
]

_error = error_from_status
_NULL = ffi.NULL
_new = object.__new__
_new_scalar = ffi.new
_SCALAR_PTR = ffi.typeof("am_scalar *")  # parsed once: ffi.new of a ctype skips the parse

_am_compare = lib.am_compare
_am_compare_scalar = lib.am_compare_scalar
_am_arith = lib.am_arith
_am_arith_scalar = lib.am_arith_scalar
_am_binary = lib.am_binary
_am_binary_scalar = lib.am_binary_scalar
_am_not = lib.am_not
_am_logic = lib.am_logic
_am_logic_scalar = lib.am_logic_scalar
_am_logic_scalar_left = lib.am_logic_scalar_left
_am_unary = lib.am_unary
_am_filter = lib.am_filter
_am_filter_nulls = lib.am_filter_nulls
_am_take = lib.am_take
_am_count = lib.am_count
_am_cast = lib.am_cast
_am_cast_decimal = lib.am_cast_decimal
_am_cast_timestamp = lib.am_cast_timestamp
_am_full = lib.am_full
_am_length = lib.am_length
_am_null_count = lib.am_null_count
_am_array_type = lib.am_array_type
_am_array_device = lib.am_array_device
_am_release = lib.am_release
_imports_get = PYARROW_IMPORTS.get

# ---------------------------------------------------------------------------
# Options and fallbacks


def _options(spec: OptionsSpec, options: Any, given: dict[str, Any]) -> tuple[Any, Any]:
    """The call's option fields (pyarrow's rules for options= and keywords),
    or, when pyarrow's options carry a field this package does not know, the
    marker _FALLBACK with the reason."""
    fields = resolve(spec, options, given)
    unknown = fields.keys() - spec.defaults.keys()
    if unknown:
        return _FALLBACK, f"no support for the option field {min(unknown)!r}"
    return fields, None


_FALLBACK = object()


def _input_fallback(
    name: str,
    exc: BaseException,
    inputs: tuple[Any, ...],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    """A type error: pyarrow.compute runs the call when an input is of a
    type ArrowMetal has no kernel for, else the error stands."""
    reason = _fallback.unsupported_input(inputs)
    if reason is None and isinstance(exc, ScalarInputError):
        reason = "a scalar input"
    if reason is None:
        raise exc
    return _fallback.run(name, reason, args, kwargs)


def _reduce_kwargs(skip_nulls: bool, min_count: int, options: Any) -> dict[str, Any]:
    if options is not None:
        return {"options": options}
    return {"skip_nulls": skip_nulls, "min_count": min_count}


# ---------------------------------------------------------------------------
# Reductions


def _pending(cfn: Any, p: Any, *extra: Any) -> PendingScalar:
    """Inside a batch: the result is written when the batch ends."""
    s = _new_scalar(_SCALAR_PTR)
    rc = cfn(p, *extra, s)
    if rc:
        raise _error(rc)
    return PendingScalar(s, tls.batch)  # type: ignore[arg-type]  # a batch is open


def _null_like(value: Any) -> Any:
    """A null pyarrow Scalar of `value`'s exact type."""
    import pyarrow as pa

    return pa.scalar(None, type=value.type)


def _reduce_then(cfn: Any, p: Any, post: Callable[[Any], Any] | None) -> Any:
    """cfn's result over `p`, through `post` when given (inside a batch, once
    the batch has ended)."""
    st = tls.fast
    if st is None:
        from ._aggregates import PendingAggregate

        s = _new_scalar(_SCALAR_PTR)
        rc = cfn(p, s)
        if rc:
            raise _error(rc)
        return PendingAggregate((s,), post or (lambda v: v), tls.batch)
    s = st[0]
    rc = cfn(p, s)
    if rc:
        raise _error(rc)
    value = result_value(s)
    return post(value) if post is not None else value


def _reduce_general(
    spec: OptionsSpec,
    cfn: Any,
    rtype: Callable[[int], int],
    empty: Callable[[int], Scalar | NullScalar],
    array: Any,
    skip_nulls: bool,
    min_count: int,
    options: Any,
    device: DeviceLike | None,
) -> ReductionResult:
    given = {"skip_nulls": skip_nulls, "min_count": min_count}
    fields, reason = _options(spec, options, given)  # min_count converted as pyarrow does
    if fields is _FALLBACK:
        return _fallback.run(spec.function, reason, (array,), {"options": options})
    skip_nulls, min_count = fields["skip_nulls"], fields["min_count"]
    p, tmp = _operand(array, device)
    try:
        kind = KINDS[_am_array_type(p)]
        if kind == KIND_DECIMAL:  # a result of the array's parameters
            return decimal_reduction(spec.function, p, skip_nulls, min_count)
        # (float16 takes no reduction: the library's refusal, never a null result)
        if (not skip_nulls or min_count != 1) and kind != KIND_FLOAT16:
            nulls = _am_null_count(p)
            valid = _am_length(p) - nulls
            to_null = (not skip_nulls and nulls > 0) or valid < min_count
            if kind not in NUMBER_KINDS or lib.am_array_is_dictionary(p):
                # temporal, string and dictionary values: the library's kernel
                # check first (pyarrow's order), and a null of its result's
                # exact type (a timestamp's zone)
                return _reduce_then(cfn, p, _null_like if to_null else None)
            t = rtype(_am_array_type(p))
            if to_null:
                return null_of(t)
            if valid == 0:
                return empty(t)
        st = tls.fast
        if st is None:
            return _pending(cfn, p)
        s = st[0]
        rc = cfn(p, s)
        if rc:
            raise _error(rc)
        return result_value(s)
    finally:
        if tmp is not None:
            drop(tmp)


def _make_reduction(
    name: str,
    cfn: Any,
    rtype: Callable[[int], int],
    empty: Callable[[int], Scalar | NullScalar],
    doc: str,
) -> ReductionFunction:
    spec = OptionsSpec(name, "ScalarAggregateOptions", {"skip_nulls": True, "min_count": 1})

    # The path tuned for latency: one thread-local read, the C calls, and the
    # result read as raw words of the thread's am_scalar (word 0 holds type
    # and is_null together). An Arrow PyCapsule producer (pyarrow) is imported
    # inline: its two capsules go to one C call that reads and imports them.
    def reduction(
        array: ArrayLike | ArrowScalar,
        /,
        *,
        skip_nulls: bool = True,
        min_count: int = 1,
        options: AggregateOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ReductionResult:
        try:
            st = tls.fast
            if st is not None and skip_nulls is True and min_count == 1 and options is None:
                s = st[0]
                if type(array) is Array:
                    rc = cfn(array._ptr, s)
                    if rc:
                        raise _error(rc)
                else:
                    d = DISPATCH.get(type(array))
                    if d is None:
                        return _reduce_general(
                            spec, cfn, rtype, empty, array, True, 1, None, device
                        )
                    dev = _NULL if device is None else device_ptr(device)
                    out = st[3]
                    f = d[1]
                    p = borrow(array, dev) if f is import_pyarrow else None
                    if p is not None:
                        rc = cfn(p, s)
                        if rc:
                            raise _error(rc)
                        f = None
                    elif (
                        f is import_pyarrow or f is import_c_array_or_device or f is import_c_array
                    ):
                        try:
                            sc, ac = array.__arrow_c_array__()  # type: ignore[union-attr]
                        except Exception:  # noqa: BLE001 - device data: the general path
                            return _reduce_general(
                                spec, cfn, rtype, empty, array, True, 1, None, device
                            )
                        rc = import_capsules(sc, ac, dev, out)
                        if rc:
                            raise capsule_error(rc, sc, ac, NAME_ARRAY)
                        p = out[0]
                    elif d[0] == IMPORT:
                        p = f(array, dev, out)
                    else:
                        return _reduce_general(
                            spec, cfn, rtype, empty, array, True, 1, None, device
                        )
                    if f is not None:
                        try:
                            rc = cfn(p, s)
                            if rc:
                                raise _error(rc)
                        finally:
                            _am_release(p)
                w = st[1]
                w0 = w[0]
                if w0 == WORD0_INT64:
                    return _Int64(w[1])
                if w0 == WORD0_FLOAT64:
                    return _Float64(st[2][3])
                return result_value(s)
            if (
                st is None  # inside a batch: a pending result, no options to read
                and type(array) is Array
                and skip_nulls is True
                and min_count == 1
                and options is None
                and KINDS[_am_array_type(p := array._ptr)] != KIND_DECIMAL
            ):
                s = _new_scalar(_SCALAR_PTR)  # _pending(), inline: the batch's hot path
                rc = cfn(p, s)
                if rc:
                    raise _error(rc)
                return PendingScalar(s, tls.batch)  # type: ignore[arg-type]  # one is open
            return _reduce_general(
                spec, cfn, rtype, empty, array, skip_nulls, min_count, options, device
            )
        except ArrowMetalTypeError as e:
            kwargs = _reduce_kwargs(skip_nulls, min_count, options)
            return _input_fallback(name, e, (array,), (array,), kwargs)

    reduction.__name__ = reduction.__qualname__ = name
    reduction.__doc__ = doc
    return reduction


_Int64 = VALID[lib.AM_INT64]
_Float64 = VALID[lib.AM_FLOAT64]


def _sum_type(t: int) -> int:
    """sum's result type: int64, uint64 (unsigned and bool) or float64."""
    k = KINDS[t]
    if k == KIND_FLOAT:
        return lib.AM_FLOAT64
    return lib.AM_INT64 if k == KIND_SIGNED else lib.AM_UINT64


def _sum_identity(t: int) -> Scalar:
    return valid_of(t, 0.0 if t == lib.AM_FLOAT64 else 0)


sum = _make_reduction(
    "sum",
    lib.am_sum,
    _sum_type,
    _sum_identity,
    """Sum of the non-null values (pyarrow.compute.sum). Integers wrap in 64 bits;
    signed -> int64, unsigned and booleans -> uint64, floats -> float64. Empty or
    all-null input gives None (0 with min_count=0).""",
)
min = _make_reduction(
    "min",
    lib.am_min,
    lambda t: t,
    null_of,
    "Smallest non-null value (pyarrow.compute.min); NaN is skipped.",
)
max = _make_reduction(
    "max",
    lib.am_max,
    lambda t: t,
    null_of,
    "Largest non-null value (pyarrow.compute.max); NaN is skipped.",
)
mean = _make_reduction(
    "mean",
    lib.am_mean,
    lambda t: lib.AM_FLOAT64,
    lambda t: valid_of(t, float("nan")),
    "Mean of the non-null values as a float (pyarrow.compute.mean).",
)

_COUNT_MODES = {
    "only_valid": lib.AM_COUNT_VALID,
    "only_null": lib.AM_COUNT_NULL,
    "all": lib.AM_COUNT_ALL,
}


_COUNT_SPEC = OptionsSpec("count", "CountOptions", {"mode": "only_valid"})


def count(
    array: ArrayLike | ArrowScalar,
    /,
    mode: CountMode = "only_valid",
    *,
    options: CountOptions | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> CountResult:
    """Number of valid ('only_valid'), null ('only_null') or all ('all') slots
    (pyarrow.compute.count)."""
    try:
        return _count(array, mode, options, device)
    except ArrowMetalTypeError as e:
        kwargs = {"options": options} if options is not None else {"mode": mode}
        return _input_fallback("count", e, (array,), (array,), kwargs)


def _count(array: Any, mode: str, options: Any, device: DeviceLike | None) -> CountResult:
    if options is not None:
        fields, reason = _options(_COUNT_SPEC, options, {"mode": mode})
        if fields is _FALLBACK:
            return _fallback.run("count", reason, (array,), {"options": options})
        mode = fields["mode"]
    m = _COUNT_MODES.get(mode)
    if m is None:
        raise ArrowMetalInvalid(
            f"count: mode must be 'only_valid', 'only_null' or 'all', not {mode!r}",
            lib.AM_EINVAL,
        )
    st = tls.fast
    if type(array) is Array:
        if st is None:
            return _pending(_am_count, array._ptr, m)
        rc = _am_count(array._ptr, m, st[0])
        if rc:
            raise _error(rc)
        return _Int64(st[1][1])
    p, tmp = _operand(array, device)
    try:
        if st is None:
            return _pending(_am_count, p, m)
        rc = _am_count(p, m, st[0])
        if rc:
            raise _error(rc)
        return _Int64(st[1][1])
    finally:
        if tmp is not None:
            drop(tmp)


# ---------------------------------------------------------------------------
# Binary element-wise functions


def _cached_or_cpu_array(obj: object) -> Any:
    """The handle of an am.Array on the CPU or of a pyarrow array in the
    import cache (borrowed); None for anything else."""
    if type(obj) is Array:
        p = obj._ptr
        return p if _am_array_device(p) == CPU else None
    e = _imports_get(id(obj))
    return e[2] if e is not None else None


def _import_operand(obj: Any, fn: Any, dev: Any, out: Any, tmps: list[Any]) -> Any:
    """The handle of an imported operand on `dev`: borrowed from the pyarrow
    import cache, or imported and added to `tmps` (released by the caller)."""
    if fn is import_pyarrow:
        p = borrow(obj, dev)
        if p is not None:
            return p
    p = fn(obj, dev, out)
    tmps.append(p)
    return p


def _operand(obj: Any, device: DeviceLike | None) -> tuple[Any, Any]:
    """(handle, handle to release or None) of an array operand of any kind."""
    if type(obj) is Array:
        return obj._ptr, None
    fn = dispatch(type(obj))[1]
    if fn is import_pyarrow:
        p = borrow(obj, device_ptr(device))
        if p is not None:
            return p, None
    p = import_handle(obj, device)
    return p, p


def _full_like(s: Any, p: Any, out: Any) -> Any:
    rc = _am_full(s, _am_length(p), _am_array_device(p), out)
    if rc:
        raise _error(rc)
    return out[0]


def _scalar_scalar(
    family: int, op: Any, x: Any, y: Any, fx: Any, fy: Any, device: DeviceLike | None
) -> ScalarResult:
    """Both operands scalars: computed on one-slot arrays (pyarrow gives a
    scalar too)."""
    dev = device_ptr(device)
    out = tls.out
    tmps: list[Any] = []
    try:
        sx = _new_scalar("am_scalar *")
        sy = _new_scalar("am_scalar *")
        fx(x, sx, None)
        fy(y, sy, None)
        if sx.is_null and not sy.is_null:
            sx.type = sy.type
        if sy.is_null and not sx.is_null:
            sy.type = sx.type
        for s in (sx, sy):
            rc = _am_full(s, 1, dev, out)
            if rc:
                raise _error(rc)
            tmps.append(out[0])
        xp, yp = tmps
        if family == COMPARE:
            rc = _am_compare(op, xp, yp, out)
        elif family == ARITH:
            rc = _am_arith(op, xp, yp, out)
        elif family == BINARY:
            rc = _am_binary(op, xp, yp, out)
        else:
            rc = _am_logic(op, xp, yp, out)
        if rc:
            raise _error(rc)
        r = wrap(out[0])
        return read_scalar(r._ptr)
    finally:
        for p in tmps:
            drop(p)


def binary(family: int, op: Any, swop: Any, x: Any, y: Any, device: DeviceLike | None) -> Any:
    """The general path of every binary function and operator: `family` is
    COMPARE, ARITH or LOGIC, `op` the am_compare_op / am_arith_op /
    am_logic_op, `swop` the op with its operands swapped (COMPARE only)."""
    kx, fx = dispatch(type(x))
    ky, fy = dispatch(type(y))
    if kx == SCALAR and ky == SCALAR:
        return _scalar_scalar(family, op, x, y, fx, fy, device)
    t = tls
    out = t.out
    tmps: list[Any] = []
    try:
        xp = x._ptr if kx == ARRAY else None
        yp = y._ptr if ky == ARRAY else None
        if kx == IMPORT:
            xp = _import_operand(x, fx, device_ptr(device), out, tmps)
        if ky == IMPORT:
            yp = _import_operand(y, fy, device_ptr(device), out, tmps)
        if xp is not None and yp is not None:
            if family == COMPARE:
                rc = _am_compare(op, xp, yp, out)
            elif family == ARITH:
                rc = _am_arith(op, xp, yp, out)
            elif family == BINARY:
                rc = _am_binary(op, xp, yp, out)
            else:
                rc = _am_logic(op, xp, yp, out)
        elif yp is None:  # array <op> scalar
            s = t.arg
            fy(y, s, xp)
            if family == COMPARE:
                rc = _am_compare_scalar(op, xp, s, out)
            elif family == ARITH:
                rc = _am_arith_scalar(op, xp, s, out)
            elif family == BINARY:
                rc = _am_binary_scalar(op, xp, s, out)
            else:
                rc = _am_logic_scalar(op, xp, s, out)
        else:  # scalar <op> array
            s = t.arg
            fx(x, s, yp)
            if family == COMPARE:
                rc = _am_compare_scalar(swop, yp, s, out)
            elif family == ARITH:
                full = _full_like(s, yp, out)
                tmps.append(full)
                rc = _am_arith(op, full, yp, out)
            elif family == BINARY:
                full = _full_like(s, yp, out)
                tmps.append(full)
                rc = _am_binary(op, full, yp, out)
            else:
                rc = _am_logic_scalar_left(op, s, yp, out)
        if rc:
            raise _error(rc)
        r = _new(Array)
        r._ptr = out[0]
        return r
    finally:
        for p in tmps:
            drop(p)


def _binary_or_fallback(
    name: str,
    kind: int,
    op: Any,
    swop: Any,
    x: ArrayLike | ScalarLike,
    y: ArrayLike | ScalarLike,
    device: DeviceLike | None,
) -> ElementwiseResult:
    """The general path of a public binary function: binary(), or pyarrow
    for inputs of types ArrowMetal has no kernel for."""
    try:
        if is_chunked(x) or is_chunked(y):
            return map_pieces(lambda a, b: binary(kind, op, swop, a, b, device), (x, y))
        return binary(kind, op, swop, x, y, device)
    except ArrowMetalTypeError as e:
        return _input_fallback(name, e, (x, y), (x, y), {})


def _make_binary(
    name: str, kind: int, op: int, swop: int, array_fn: Any, scalar_fn: Any, doc: str
) -> BinaryFunction:
    """The module function of a compare or arithmetic op. The common forms
    (Array with Array, int or float) call the C function directly: these are
    the hot paths, kept free of dispatch."""

    def function(
        x: ArrayLike | ScalarLike,
        y: ArrayLike | ScalarLike,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ElementwiseResult:
        # x an am.Array, or a pyarrow array already in the import cache (its
        # CPU handle, borrowed): then y an am.Array, a cached pyarrow array on
        # x's device, an int or a float. Anything else: the general path.
        if type(x) is Array:
            xp = x._ptr
            kept = False
        elif device is None and (e := _imports_get(id(x))) is not None:
            xp = e[2]
            kept = True
        else:
            return _binary_or_fallback(name, kind, op, swop, x, y, device)
        ty = type(y)
        out = tls.out
        if ty is Array:  # (mypy does not narrow y by ty: hence the ignores)
            if kept and _am_array_device(y._ptr) != CPU:  # type: ignore[union-attr]
                return _binary_or_fallback(name, kind, op, swop, x, y, device)
            rc = array_fn(op, xp, y._ptr, out)  # type: ignore[union-attr]
        elif ty is int:
            if -0x8000000000000000 <= y <= 0x7FFFFFFFFFFFFFFF:  # type: ignore[operator]
                s = tls.int_arg
                s.i64 = y
            else:
                s = tls.arg
                fill_int(y, s, None)
            rc = scalar_fn(op, xp, s, out)
        elif ty is float:
            s = tls.arg
            fill_float(y, s, None)
            rc = scalar_fn(op, xp, s, out)
        elif (
            device is None
            and (e := _imports_get(id(y))) is not None
            and (type(x) is not Array or _am_array_device(xp) == CPU)
        ):
            rc = array_fn(op, xp, e[2], out)
        else:
            return _binary_or_fallback(name, kind, op, swop, x, y, device)
        if rc:
            raise _error(rc)
        r = _new(Array)
        r._ptr = out[0]
        return r

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    # (The overloads of BinaryFunction say which inputs give an Array.)
    return function  # type: ignore[return-value]


def _make_compare(name: str, op: int, swop: int, doc: str) -> BinaryFunction:
    return _make_binary(name, COMPARE, op, swop, _am_compare, _am_compare_scalar, doc)


def _make_arith(name: str, op: int, doc: str) -> BinaryFunction:
    return _make_binary(name, ARITH, op, op, _am_arith, _am_arith_scalar, doc)


def _make_logic(name: str, op: int, doc: str) -> BinaryFunction:
    """The module function of am_logic_op `op` (pyarrow's boolean family)."""

    def logic(
        x: ArrayLike | ScalarLike,
        y: ArrayLike | ScalarLike,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ElementwiseResult:
        if type(x) is Array and type(y) is Array:
            out = tls.out
            rc = _am_logic(op, x._ptr, y._ptr, out)
            if rc:
                raise _error(rc)
            r = _new(Array)
            r._ptr = out[0]
            return r
        return _binary_or_fallback(name, LOGIC, op, op, x, y, device)

    logic.__name__ = logic.__qualname__ = name
    logic.__doc__ = doc
    return logic  # type: ignore[return-value]  # see _make_binary


_CMP_DOC = "Element-wise x %s y as a boolean array (pyarrow.compute.%s); null where either is null."
equal = _make_compare("equal", lib.AM_EQ, lib.AM_EQ, _CMP_DOC % ("==", "equal"))
not_equal = _make_compare("not_equal", lib.AM_NE, lib.AM_NE, _CMP_DOC % ("!=", "not_equal"))
less = _make_compare("less", lib.AM_LT, lib.AM_GT, _CMP_DOC % ("<", "less"))
less_equal = _make_compare("less_equal", lib.AM_LE, lib.AM_GE, _CMP_DOC % ("<=", "less_equal"))
greater = _make_compare("greater", lib.AM_GT, lib.AM_LT, _CMP_DOC % (">", "greater"))
greater_equal = _make_compare(
    "greater_equal", lib.AM_GE, lib.AM_LE, _CMP_DOC % (">=", "greater_equal")
)

_ARITH_DOC = (
    "Element-wise x %s y in the common type (pyarrow.compute.%s); null where either is "
    "null. Integers wrap, as in pyarrow's unchecked functions."
)
add = _make_arith("add", lib.AM_ADD, _ARITH_DOC % ("+", "add"))
subtract = _make_arith("subtract", lib.AM_SUBTRACT, _ARITH_DOC % ("-", "subtract"))
multiply = _make_arith("multiply", lib.AM_MULTIPLY, _ARITH_DOC % ("*", "multiply"))
divide = _make_arith(
    "divide",
    lib.AM_DIVIDE,
    _ARITH_DOC
    % ("/", "divide")
    + " Integer division truncates toward zero; an integer zero divisor raises "
    "ZeroDivisionError, a float one gives an infinity or NaN.",
)

and_ = _make_logic(
    "and_",
    lib.AM_LOGIC_AND,
    "Element-wise x AND y of booleans; null if either is null (not Kleene).",
)
or_ = _make_logic(
    "or_", lib.AM_LOGIC_OR, "Element-wise x OR y of booleans; null if either is null (not Kleene)."
)
# ---- pyarrow's other boolean functions (am_logic); see include/arrowmetal.h
_KLEENE_DOC = (
    "Element-wise x %s y of booleans in Kleene logic (pyarrow.compute.%s): a null is an "
    "unknown value, so %s; null where the known input does not decide."
)
and_kleene = _make_logic(
    "and_kleene",
    lib.AM_LOGIC_AND_KLEENE,
    _KLEENE_DOC % ("AND", "and_kleene", "false AND null is false"),
)
or_kleene = _make_logic(
    "or_kleene", lib.AM_LOGIC_OR_KLEENE, _KLEENE_DOC % ("OR", "or_kleene", "true OR null is true")
)
and_not_kleene = _make_logic(
    "and_not_kleene",
    lib.AM_LOGIC_AND_NOT_KLEENE,
    _KLEENE_DOC
    % ("AND NOT", "and_not_kleene", "false AND NOT null and null AND NOT true are false"),
)
xor = _make_logic(
    "xor",
    lib.AM_LOGIC_XOR,
    "Element-wise x XOR y of booleans (pyarrow.compute.xor); null if either is null.",
)
and_not = _make_logic(
    "and_not",
    lib.AM_LOGIC_AND_NOT,
    "Element-wise x AND NOT y of booleans (pyarrow.compute.and_not); null if either is null.",
)


if TYPE_CHECKING:

    @overload
    def invert(
        values: Array,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def invert(
        values: ArrayLike | ArrowScalar,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ArrayResult | pa.Scalar[Any]: ...


def invert(
    values: ArrayLike | ArrowScalar,
    /,
    *,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ArrayResult | pa.Scalar[Any]:
    """Element-wise NOT of a boolean array (pyarrow.compute.invert)."""
    out = tls.out
    if type(values) is Array:
        rc = _am_not(values._ptr, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])
    try:
        if is_chunked(values):
            return map_pieces(lambda a: _on_operand(_am_not, a, device), (values,))
        return _on_operand(_am_not, values, device)
    except ArrowMetalTypeError as e:
        return _input_fallback("invert", e, (values,), (values,), {})


def _on_operand(call: Callable[[Any, Any], int], x: Any, device: DeviceLike | None) -> Array:
    """call(handle, out) on an array operand of any kind (imported, or kept,
    on `device`), as an am.Array."""
    out = tls.out
    p, tmp = _operand(x, device)
    try:
        rc = call(p, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])
    finally:
        if tmp is not None:
            drop(tmp)


# ---------------------------------------------------------------------------
# Functions of the library's table-driven families, made from its own list
# (am_function_info_get): a function the C library gains there appears here
# with no change to this package.


if TYPE_CHECKING:

    @overload
    def unary(op: int, x: Array, device: DeviceLike | None = None) -> Array: ...
    @overload
    def unary(
        op: int, x: ArrayLike | ScalarLike, device: DeviceLike | None = None
    ) -> Array | ScalarResult: ...


def unary(
    op: int, x: ArrayLike | ScalarLike, device: DeviceLike | None = None
) -> Array | ScalarResult:
    """am_unary(op, x): an element-wise function of one numeric array (a
    scalar gives a scalar, as in pyarrow)."""
    out = tls.out
    if type(x) is Array:
        rc = _am_unary(op, x._ptr, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])
    kind, fill = dispatch(type(x))
    if kind == SCALAR:
        s = _new_scalar("am_scalar *")
        fill(x, s, None)
        rc = _am_full(s, 1, device_ptr(device), out)
        if rc:
            raise _error(rc)
        one = wrap(out[0])
        result = unary(op, one)  # held while its values are read
        return read_scalar(result._ptr)
    return _on_operand(lambda p, o: _am_unary(op, p, o), x, device)


_UNARY_RESULT = {
    lib.AM_RULE_SAME: "in the input's numeric type",
    lib.AM_RULE_MATH: "float64 for integer input, the input's type for floats",
    lib.AM_RULE_SIGN: "-1, 0 or 1: int8 for integer input, the input's type for floats",
}


def _unary_doc(name: str, rule: int) -> str:
    if name.endswith("_checked"):
        rest = (
            "Raises at the first value pyarrow refuses (ArrowMetalOverflowError for "
            "overflow, ArrowMetalInvalid outside the domain), naming its slot."
        )
    elif rule == lib.AM_RULE_MATH:
        rest = "Outside the domain the result is NaN or an infinity, as in pyarrow."
    else:
        rest = "Integers wrap as pyarrow's unchecked functions do."
    return (
        f"pyarrow.compute.{name}, element-wise: {_UNARY_RESULT[rule]}; null where the "
        f"input is null (am_unary). {rest}"
    )


def _make_unary(name: str, op: int, rule: int) -> UnaryFunction:
    def function(
        x: ArrayLike | ScalarLike,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ElementwiseResult:
        try:
            if is_chunked(x):
                return map_pieces(lambda a: unary(op, a, device), (x,))
            return unary(op, x, device)
        except ArrowMetalTypeError as e:
            return _input_fallback(name, e, (x,), (x,), {})

    function.__name__ = function.__qualname__ = name
    function.__doc__ = _unary_doc(name, rule)
    return function  # type: ignore[return-value]  # see _make_binary


def _binary_doc(name: str, rule: int) -> str:
    result = (
        "float64 for integer input, the input's type for floats"
        if rule == lib.AM_RULE_MATH
        else "in the inputs' common type"
    )
    if name.endswith("_checked"):
        rest = (
            "Raises where pyarrow does (ArrowMetalOverflowError, ArrowMetalZeroDivisionError, "
            "ArrowMetalInvalid), naming the slot."
        )
    elif name.startswith(("power", "shift")):
        rest = "Integers wrap; see pyarrow.compute for the refused values."
    else:
        rest = ""
    return (
        f"pyarrow.compute.{name}, element-wise: {result}; null where either input is null "
        f"(am_binary). {rest}"
    ).rstrip()


def _make_table_binary(name: str, op: int, rule: int) -> BinaryFunction:
    return _make_binary(
        name, BINARY, op, op, _am_binary, _am_binary_scalar, _binary_doc(name, rule)
    )


def _table_functions() -> dict[str, Any]:
    """{pyarrow name: function} for every row of the am_unary and am_binary
    families."""
    info = ffi.new("am_function_info *")
    made: dict[str, Any] = {}
    for i in range(lib.am_function_count()):
        rc = lib.am_function_info_get(i, info)
        if rc:
            raise _error(rc)
        name = ffi.string(info.name).decode()
        if info.family == lib.AM_FAMILY_UNARY:
            made[name] = _make_unary(name, info.op, info.type_rule)
        elif info.family == lib.AM_FAMILY_BINARY:
            made[name] = _make_table_binary(name, info.op, info.type_rule)
    return made


TABLE_FUNCTIONS: dict[str, Any] = _table_functions()


def floor_divide(x: Any, y: Any) -> Array:
    """x // y as pandas computes it on pyarrow-backed data: for integers the
    truncated quotient of divide_checked (a zero divisor raises), less one
    where a remainder is left and exactly one operand is negative; for floats
    floor(x / y)."""
    quotient = binary(BINARY, lib.AM_DIVIDE_CHECKED, lib.AM_DIVIDE_CHECKED, x, y, None)
    t = quotient.type
    if t in ("float32", "float64"):
        return unary(lib.AM_FLOOR, quotient, None)
    if not t.startswith("int"):  # unsigned: truncation is the floor
        return quotient
    remainder = binary(
        COMPARE,
        lib.AM_NE,
        lib.AM_NE,
        binary(ARITH, lib.AM_MULTIPLY, lib.AM_MULTIPLY, quotient, y, None),
        x,
        None,
    )
    signs_differ = binary(
        COMPARE,
        lib.AM_LT,
        lib.AM_GT,
        binary(BINARY, lib.AM_BIT_WISE_XOR, lib.AM_BIT_WISE_XOR, x, y, None),
        0,
        None,
    )
    down = binary(LOGIC, lib.AM_LOGIC_AND, lib.AM_LOGIC_AND, remainder, signs_differ, None)
    return binary(ARITH, lib.AM_SUBTRACT, lib.AM_SUBTRACT, quotient, cast(down, t), None)


def _two_arrays(name: str, cfn: Any, x: Any, y: Any, device: DeviceLike | None) -> Array:
    """cfn(x, y, out) for two array operands of any accepted kind."""
    if device is None:
        xp = _cached_or_cpu_array(x)
        if xp is not None:
            yp = _cached_or_cpu_array(y)
            if yp is not None:
                out = tls.out
                rc = cfn(xp, yp, out)
                if rc:
                    raise _error(rc)
                return wrap(out[0])
    kx, fx = dispatch(type(x))
    ky, fy = dispatch(type(y))
    if kx == SCALAR or ky == SCALAR:
        raise ArrowMetalInvalid(f"{name} takes two arrays", lib.AM_EINVAL)
    out = tls.out
    tmps: list[Any] = []
    try:
        xp = x._ptr if kx == ARRAY else None
        yp = y._ptr if ky == ARRAY else None
        if xp is None:
            xp = _import_operand(x, fx, device_ptr(device), out, tmps)
        if yp is None:
            yp = _import_operand(y, fy, device_ptr(device), out, tmps)
        rc = cfn(xp, yp, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])
    finally:
        for p in tmps:
            drop(p)


_FILTER_SPEC = OptionsSpec("filter", "FilterOptions", {"null_selection_behavior": "drop"})
_NULL_SELECTION = {"drop": lib.AM_NULL_DROP, "emit_null": lib.AM_NULL_EMIT}


if TYPE_CHECKING:

    @overload
    def filter(
        input: Array,
        selection_filter: Array,
        /,
        null_selection_behavior: NullSelection = "drop",
        *,
        options: None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def filter(
        input: ArrayLike,
        selection_filter: ArrayLike,
        /,
        null_selection_behavior: NullSelection = "drop",
        *,
        options: FilterOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ArrayResult: ...


def filter(
    input: ArrayLike,
    selection_filter: ArrayLike,
    /,
    null_selection_behavior: NullSelection = "drop",
    *,
    options: FilterOptions | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ArrayResult:
    """The slots of `input` where `selection_filter` is true (pyarrow.compute.filter).
    A null mask slot drops the row, or with null_selection_behavior='emit_null'
    gives a null."""
    try:
        if is_chunked(input) or is_chunked(selection_filter):
            return map_pieces(
                lambda x, m: filter(x, m, null_selection_behavior, options=options, device=device),
                (input, selection_filter),
            )
        if options is None and null_selection_behavior == "drop":
            if type(input) is Array and type(selection_filter) is Array:
                out = tls.out
                rc = _am_filter(input._ptr, selection_filter._ptr, out)
                if rc:
                    raise _error(rc)
                return wrap(out[0])
            return _two_arrays("filter", _am_filter, input, selection_filter, device)
        rule = null_selection_behavior
        if options is not None:
            given = {"null_selection_behavior": null_selection_behavior}
            fields, reason = _options(_FILTER_SPEC, options, given)
            if fields is _FALLBACK:
                args = (input, selection_filter)
                return _fallback.run("filter", reason, args, {"options": options})
            rule = fields["null_selection_behavior"]
        nulls = _NULL_SELECTION.get(rule)
        if nulls is None:
            raise ArrowMetalInvalid(
                f"filter: null_selection_behavior must be 'drop' or 'emit_null', not {rule!r}",
                lib.AM_EINVAL,
            )
        return _two_arrays(
            "filter", lambda x, m, o: _am_filter_nulls(x, m, nulls, o), input, selection_filter,
            device,
        )  # fmt: skip
    except ArrowMetalTypeError as e:
        kwargs = {"options": options} if options is not None else {
            "null_selection_behavior": null_selection_behavior}  # fmt: skip
        args = (input, selection_filter)
        return _input_fallback("filter", e, args, args, kwargs)


def _one_chunk(result: Array | pa.Array[Any]) -> pa.ChunkedArray[Any]:
    import pyarrow as pa

    # a dictionary result is a pyarrow array already (see wrap)
    return pa.chunked_array([result.to_pyarrow() if isinstance(result, Array) else result])


if TYPE_CHECKING:

    @overload
    def take(
        data: Array,
        indices: Array,
        *,
        boundscheck: bool = True,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def take(
        data: ArrayLike,
        indices: ArrayLike,
        *,
        boundscheck: bool = True,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ArrayResult: ...


def take(
    data: ArrayLike,
    indices: ArrayLike,
    *,
    boundscheck: bool = True,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ArrayResult:
    """out[i] = data[indices[i]]; a null index gives null (pyarrow.compute.take).
    Indices are always bounds-checked: with boundscheck=False, where pyarrow's
    behaviour for an out-of-range index is undefined, this one raises."""
    try:
        if type(data) is Array and type(indices) is Array:
            out = tls.out
            rc = _am_take(data._ptr, indices._ptr, out)
            if rc:
                raise _error(rc)
            return wrap(out[0])
        if is_chunked(data) or is_chunked(indices):
            # pyarrow gives a ChunkedArray; the gather itself runs on the whole
            # (joined) data.
            r = _two_arrays("take", _am_take, data, indices, device)
            return _one_chunk(r)
        return _two_arrays("take", _am_take, data, indices, device)
    except ArrowMetalTypeError as e:
        args = (data, indices)
        return _input_fallback("take", e, args, args, {"boundscheck": boundscheck})


_CAST_FIELDS = (
    "allow_int_overflow",
    "allow_time_truncate",
    "allow_time_overflow",
    "allow_decimal_truncate",
    "allow_float_truncate",
    "allow_invalid_utf8",
)
_CAST_SPEC = OptionsSpec(
    "cast", "CastOptions", {"target_type": None, **dict.fromkeys(_CAST_FIELDS, False)}
)


_CAST_FLAG_OF = {
    "allow_int_overflow": lib.AM_CAST_ALLOW_INT_OVERFLOW,
    "allow_float_truncate": lib.AM_CAST_ALLOW_FLOAT_TRUNCATE,
    "allow_decimal_truncate": lib.AM_CAST_ALLOW_DECIMAL_TRUNCATE,
    "allow_time_truncate": lib.AM_CAST_ALLOW_TIME_TRUNCATE,
    "allow_time_overflow": lib.AM_CAST_ALLOW_TIME_OVERFLOW,
}


def _cast_flags(fields: dict[str, Any]) -> int:
    """am_cast flags of CastOptions fields. allow_invalid_utf8 concerns a
    conversion am_cast does not make."""
    flags = lib.AM_CAST_SAFE
    for name, bit in _CAST_FLAG_OF.items():
        if fields[name]:
            flags |= bit
    return flags


_TEMPORAL_WORDS = ("timestamp", "date32", "date64", "time32", "time64", "duration")


def _timestamp_target(target: Any) -> tuple[Any, bytes | None] | None:
    """(the am type, the time zone) of a pyarrow timestamp type, which
    am_cast_timestamp takes apart; None for other targets."""
    pa = sys.modules.get("pyarrow")
    if pa is None or not isinstance(target, pa.TimestampType):
        return None
    return type_id(pa.timestamp(target.unit)), target.tz.encode() if target.tz else None


def cast(
    arr: ArrayLike | ArrowScalar,
    target_type: TypeLike | None = None,
    safe: bool | None = None,
    options: CastOptions | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ArrayResult | pa.Scalar[Any]:
    """`arr` converted to `target_type` (a name such as 'int64', a pyarrow
    DataType or a numpy dtype) (pyarrow.compute.cast). safe=True (the default)
    raises OverflowError for values that do not fit (ValueError for a temporal
    unit change that loses data or leaves int64, as pyarrow); safe=False wraps
    integers and truncates floats and times; options=pyarrow.compute.CastOptions(...)
    lifts single checks (allow_int_overflow, allow_float_truncate,
    allow_decimal_truncate, allow_time_truncate, allow_time_overflow). A
    timestamp target's time zone is the result's."""
    kwargs = {"options": options} if options is not None else {
        "target_type": target_type, "safe": safe}  # fmt: skip
    try:
        return _cast(arr, target_type, safe, options, device, kwargs)
    except ArrowMetalTypeError as e:
        if "Unsupported cast from" in str(e) and (
            "string" in str(e) or "binary" in str(e)
        ):  # a pair the library refuses (binary to dates, strings to times): pyarrow's words
            return _fallback.run("cast", str(e).split(": ", 1)[-1], (arr,), kwargs)
        if "Unsupported cast from" in str(e) and any(w in str(e) for w in _TEMPORAL_WORDS):
            raise  # a temporal pair pyarrow has no cast for either: its words, no fallback
        return _input_fallback("cast", e, (arr,), (arr,), kwargs)
    except ArrowMetalUnsupported as e:
        if "does not compute yet" not in str(e):  # a local day, time of day or text: pyarrow's
            raise
        return _fallback.run("cast", str(e).split(": ", 1)[-1], (arr,), kwargs)


def _cast(
    arr: Any,
    target_type: TypeLike | None,
    safe: bool | None,
    options: Any,
    device: DeviceLike | None,
    kwargs: dict[str, Any],
) -> ArrayResult | pa.Scalar[Any]:
    if options is not None:
        if target_type is not None or safe is not None:
            raise ValueError(
                "cast: pass either target_type and safe, or options (as pyarrow.compute.cast)"
            )
        fields, reason = _options(_CAST_SPEC, options, {})
        if fields is _FALLBACK:
            return _fallback.run("cast", reason, (arr,), {"options": options})
        target_type = fields["target_type"]
        s = _cast_flags(fields)
    else:
        s = 0 if safe is False else lib.AM_CAST_SAFE
    if target_type is None:
        raise ValueError("cast: a target type is needed (target_type, or options' target_type)")
    if (dec := decimal_target(target_type)) is not None:  # its precision and scale go too
        t, precision, scale = dec
        call = lambda p, out: _am_cast_decimal(p, t, precision, scale, s, out)
    elif (ts := _timestamp_target(target_type)) is not None:  # the target's time zone too
        t, tz = ts

        def call(p: Any, out: Any) -> int:
            rc = _am_cast_timestamp(p, t, tz or ffi.NULL, s, out)
            if rc and tz:  # a message from another input's cast names the target's zone here
                e = _error(rc)
                plain = f" to {TYPE_NAMES[t]} "
                raise type(e)(str(e).replace(plain, f" to {target_type} "), rc)
            return rc

    else:
        try:
            t = type_id(target_type)
            # to fixed_size_binary: pyarrow's (a width the library is not given); the
            # library's refusals of other string targets come back as a fallback below
            if t == lib.AM_FIXED_SIZE_BINARY:
                raise ArrowMetalTypeError(f"no cast to {TYPE_NAMES[t]}", lib.AM_ETYPE)
        except ArrowMetalTypeError:
            reason = _fallback.unsupported_target(target_type)
            if reason is None:
                raise
            return _fallback.run("cast", reason, (arr,), kwargs)
        call = lambda p, out: _am_cast(p, t, s, out)
    out = tls.out
    if type(arr) is Array:
        rc = call(arr._ptr, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])
    if device is None and (e := _imports_get(id(arr))) is not None:
        rc = call(e[2], out)
        if rc:
            raise _error(rc)
        return wrap(out[0])
    if is_chunked(arr):
        return map_pieces(lambda a: _cast_operand(a, call, device), (arr,))
    return _cast_operand(arr, call, device)


def _cast_operand(arr: Any, call: Any, device: DeviceLike | None) -> Array:
    out = tls.out
    p, tmp = _operand(arr, device)
    try:
        rc = call(p, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])
    finally:
        if tmp is not None:
            drop(tmp)
