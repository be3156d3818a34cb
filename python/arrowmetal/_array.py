"""``am.Array``, the Python face of an ``am_array *`` handle, with its
operators and methods, and the constructors ``am.array()`` and ``am.full()``.

Operators between two am.Array call the C function directly; every other
operand goes through ``_compute``, which this module imports at its end
(``_compute`` and ``_dispatch`` import Array from here).
"""

from __future__ import annotations

import math

from ._capi import NAME_SCHEMA, capsule_pointer, ffi, lib
from ._devices import device_backend, device_name, device_ptr
from ._errors import (
    ArrowMetalError,
    ArrowMetalIndexError,
    ArrowMetalInvalid,
    ArrowMetalTypeError,
    ArrowMetalUnsupported,
    error_from_status,
)
from ._exporters import (
    cuda_array_interface,
    export_capsules,
    export_device_capsules,
    optional_pyarrow,
    read_values,
    to_numpy,
    to_pyarrow,
)
from ._importers import import_am_array
from ._scalars import scalar_of_type
from ._state import tls
from ._types import (
    ARROW_NAMES,
    FORMAT_TO_TYPE,
    KIND_BINARY,
    KINDS,
    NUMBER_KINDS,
    NUMPY_NAMES,
    TYPE_NAMES,
    type_id,
    type_of_name,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import builtins
    from collections.abc import Iterator
    from typing import Any, Callable, NoReturn, SupportsIndex, overload

    import numpy as np
    import numpy.typing as npt
    import pyarrow as pa
    from typing_extensions import Unpack

    from ._typing import (
        ArrayLike,
        ArrayResult,
        CastKwargs,
        CastOptions,
        CountKwargs,
        CountMode,
        CountResult,
        DeviceLike,
        ElementwiseResult,
        FilterKwargs,
        NullSelection,
        PyValue,
        ReductionKwargs,
        ReductionResult,
        ScalarLike,
        TakeKwargs,
        TypeLike,
    )

    # An operator method: (self, other) -> Array (or NotImplemented).
    _Operator = Callable[["Array", "ArrayLike | ScalarLike"], "Array"]

__all__ = ["Array", "array", "full", "wrap"]

_error = error_from_status
_NULL = ffi.NULL
_string = ffi.string
_new = object.__new__
_am_release = lib.am_release
_am_length = lib.am_length
_am_null_count = lib.am_null_count
_am_array_type = lib.am_array_type
_am_array_is_dictionary = lib.am_array_is_dictionary
_am_array_device = lib.am_array_device
_am_to_device = lib.am_to_device
_am_slice = lib.am_slice
_am_cast = lib.am_cast
_am_full = lib.am_full
_am_compare = lib.am_compare
_am_arith = lib.am_arith
_am_not = lib.am_not
_am_logic = lib.am_logic
_am_binary = lib.am_binary

# The families of binary operations (see _compute.binary).
COMPARE, ARITH, LOGIC, BINARY = 0, 1, 2, 3


def _named(function: _Operator, name: str) -> _Operator:
    function.__name__ = name
    function.__qualname__ = "Array." + name
    return function


def _is_text(x: object) -> bool:
    """A Python string scalar (str or bytes): only string arrays take one."""
    return isinstance(x, (str, bytes))


def _compare_operator(name: str, op: int, swop: int) -> _Operator:
    """`self <op> other`. Python reflects comparisons itself (2 < a calls
    a.__gt__(2)), so there is no reflected form."""

    def operator(self: Array, other: ArrayLike | ScalarLike) -> Array:
        if type(other) is Array:
            out = tls.out
            rc = _am_compare(op, self._ptr, other._ptr, out)
            if rc:
                raise _error(rc)
            r = _new(Array)
            r._ptr = out[0]
            return r
        if not _dispatch.is_operand(type(other)) or (
            _is_text(other) and KINDS[_am_array_type(self._ptr)] != KIND_BINARY
        ):  # a string scalar compares with string arrays only
            return NotImplemented
        return _compute.binary(COMPARE, op, swop, self, other, None)

    return _named(operator, f"__{name}__")


def _binary_operators(name: str, family: int, cfn: Any, op: int) -> tuple[_Operator, _Operator]:
    """(`self <op> other`, `other <op> self`) of op `op` of a family
    (ARITH: am_arith, LOGIC: am_logic, the null-propagating and/or/xor as
    pyarrow's and_, or_, xor; BINARY: am_binary), `cfn` its C function for
    two arrays: the direct path of Array with Array."""

    def operator(self: Array, other: ArrayLike | ScalarLike) -> Array:
        if type(other) is Array:
            out = tls.out
            rc = cfn(op, self._ptr, other._ptr, out)
            if rc:
                raise _error(rc)
            r = _new(Array)
            r._ptr = out[0]
            return r
        if not _dispatch.is_operand(type(other)) or _is_text(other):
            return NotImplemented
        return _compute.binary(family, op, op, self, other, None)

    def reflected(self: Array, other: ArrayLike | ScalarLike) -> Array:
        if not _dispatch.is_operand(type(other)) or _is_text(other):
            return NotImplemented
        return _compute.binary(family, op, op, other, self, None)

    return _named(operator, f"__{name}__"), _named(reflected, f"__r{name}__")


def wrap(p: Any) -> Array:
    """An am.Array owning handle `p`; a dictionary array (whose type an
    am.Array cannot name) as a pyarrow.DictionaryArray over its buffers."""
    a = _new(Array)
    a._ptr = p
    if _am_array_is_dictionary(p):
        return a.to_pyarrow()  # the handle goes with `a`
    return a


class Array:
    """An immutable ArrowMetal array on one device.

    ``am.Array(obj, device=None)`` (or ``am.array(obj)``) imports any Arrow
    array producer (``__arrow_c_array__``, ``__arrow_c_device_array__``,
    ``__arrow_c_stream__``), a 1-D numpy array or a Python sequence.
    """

    __slots__ = ("__weakref__", "_len", "_ptr")
    __array_ufunc__ = None  # numpy defers `ndarray <op> Array` to our reflected operators
    __hash__ = None  # type: ignore[assignment]  # == is element-wise

    if TYPE_CHECKING:
        _ptr: Any  # the am_array * (None once released)
        _len: int

    def __init__(self, obj: ArrayLike, device: DeviceLike | None = None) -> None:
        old = getattr(self, "_ptr", None)
        if type(obj) is Array and device is None:
            p = import_am_array(obj, _NULL, tls.out)
        else:
            p = _dispatch.import_handle(obj, device)
        if _am_array_is_dictionary(p):
            _am_release(p)
            raise ArrowMetalTypeError(
                "an am.Array holds no dictionary array: pass the pyarrow DictionaryArray to "
                "the functions, which return DictionaryArrays",
                lib.AM_ETYPE,
            )
        self._ptr = p
        if old is not None:  # __init__ called again on a live object
            if hasattr(self, "_len"):
                del self._len
            _am_release(old)

    def __del__(self, _release: Callable[[Any], None] = _am_release) -> None:
        try:
            p = self._ptr
        except AttributeError:
            return
        if p is not None:
            self._ptr = None
            _release(p)

    # -- properties
    def __len__(self) -> int:
        try:
            return self._len
        except AttributeError:  # first call: arrays are immutable, so it is cached
            n = self._len = _am_length(self._ptr)
            return n

    @property
    def type(self) -> str:
        """Element type name: 'bool', 'int8', ..., 'float32', 'float64'."""
        return TYPE_NAMES[_am_array_type(self._ptr)]

    @property
    def arrow_format(self) -> str:
        """Arrow C data interface format string ('l' for int64, ...)."""
        return _string(lib.am_format(self._ptr)).decode()

    @property
    def null_count(self) -> int:
        """Number of null slots."""
        return _am_null_count(self._ptr)

    @property
    def device(self) -> str:
        """Name of the device the array lives on ('cpu', 'cuda:0', ...)."""
        return device_name(_am_array_device(self._ptr))

    @property
    def backend(self) -> str:
        """Name of the backend of the array's device ('cpu', 'cuda', 'metal')."""
        return device_backend(_am_array_device(self._ptr))

    @property
    def handle(self) -> Any:
        """The underlying `am_array *` (borrowed: valid while this object lives)."""
        return self._ptr

    # -- conversions
    def to_device(self, device: DeviceLike) -> Array:
        """This array on another device (the same data when already there)."""
        out = tls.out
        rc = _am_to_device(self._ptr, device_ptr(device), out)
        if rc:
            raise _error(rc)
        return wrap(out[0])

    def to_pyarrow(self) -> pa.Array[Any]:
        """A pyarrow.Array over the same buffers (zero-copy from the CPU)."""
        return to_pyarrow(self._ptr)

    def to_numpy(
        self, zero_copy_only: bool = False, writable: bool = False
    ) -> np.ndarray[Any, Any]:
        """A numpy array: a read-only zero-copy view when there are no nulls and
        the type is not bool; nulls become NaN (integers become float64) and
        booleans with nulls an object array, as pyarrow does."""
        a = to_numpy(self._ptr, zero_copy_only)
        if writable and not a.flags.writeable:
            a = a.copy()
        return a

    def __array__(
        self, dtype: npt.DTypeLike | None = None, copy: bool | None = None
    ) -> np.ndarray[Any, Any]:
        a = to_numpy(self._ptr)
        if dtype is not None:
            a = a.astype(dtype, copy=False)
        if copy:
            a = a.copy()
        return a

    def to_pylist(self) -> list[PyValue]:
        """The values as a list of Python values (None for nulls)."""
        return read_values(self._ptr)

    tolist = to_pylist

    def __iter__(self) -> Iterator[PyValue]:
        return iter(read_values(self._ptr))

    def equals(self, other: ArrayLike) -> bool:
        """True when `other` has the same type and values (nulls in the same
        slots; NaN equal to NaN)."""
        if type(other) is not Array:
            other = Array(other, device=None)
        if self.type != other.type:
            return False
        if KINDS[_am_array_type(self._ptr)] not in NUMBER_KINDS:
            # temporal values may lie outside Python's datetime: pyarrow compares
            return self.to_pyarrow().equals(other.to_pyarrow())
        a, b = self.to_pylist(), other.to_pylist()
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x != y and not (_isnan(x) and _isnan(y)):
                return False
        return True

    # -- Arrow PyCapsule interface
    def _for_schema(self, requested_schema: object | None) -> Array:
        """This array, cast to the requested schema's type when that is a
        different type ArrowMetal has (otherwise the request is ignored, as
        the PyCapsule protocol allows)."""
        if requested_schema is None:
            return self
        address = capsule_pointer(requested_schema, NAME_SCHEMA)
        if not address:
            return self
        st = ffi.cast("struct ArrowSchema *", address)
        t = FORMAT_TO_TYPE.get(_string(st.format)) if st.format else None
        if t is None or t == _am_array_type(self._ptr):
            return self
        out = tls.out
        rc = _am_cast(self._ptr, t, 1, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]:
        src = self if requested_schema is None else self._for_schema(requested_schema)
        return export_capsules(src._ptr)

    def __arrow_c_device_array__(
        self, requested_schema: object | None = None, **kwargs: Any
    ) -> tuple[object, object]:
        for k, v in kwargs.items():
            if v is not None:
                raise NotImplementedError(f"__arrow_c_device_array__: unsupported keyword {k!r}")
        src = self if requested_schema is None else self._for_schema(requested_schema)
        return export_device_capsules(src._ptr)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """Version 3 of the CUDA Array Interface, so CuPy, PyTorch and Numba take
        a CUDA-resident array without a copy. Numeric arrays without nulls only
        (Arrow booleans are bits and Arrow nulls are a bitmap, which the
        interface cannot describe). The memory belongs to this Array."""
        return cuda_array_interface(self._ptr)

    # -- slicing
    def slice(self, offset: int = 0, length: int | None = None) -> Array:
        """Zero-copy view of `length` slots from `offset` (clamped at the end)."""
        if length is None:
            length = max(0, _am_length(self._ptr) - offset)
        out = tls.out
        rc = _am_slice(self._ptr, offset, length, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])

    if TYPE_CHECKING:

        @overload
        def __getitem__(self, key: builtins.slice) -> Array: ...
        @overload
        def __getitem__(self, key: SupportsIndex) -> PyValue: ...

    def __getitem__(self, key: builtins.slice | SupportsIndex) -> Array | PyValue:
        p = self._ptr
        if type(key) is slice:
            n = _am_length(p)
            start, stop, step = key.indices(n)
            if step != 1:
                raise ArrowMetalUnsupported(
                    "only slices with step 1 are supported", lib.AM_EUNSUPPORTED
                )
            out = tls.out
            rc = _am_slice(p, start, max(0, stop - start), out)
            if rc:
                raise _error(rc)
            return wrap(out[0])
        try:
            i = key.__index__()
        except AttributeError:
            raise TypeError(
                f"Array indices must be integers or slices, not {type(key).__name__}"
            ) from None
        n = _am_length(p)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise ArrowMetalIndexError(f"index {key} out of bounds for length {n}", lib.AM_EINDEX)
        out = tls.out
        rc = _am_slice(p, i, 1, out)
        if rc:
            raise _error(rc)
        one = wrap(out[0])
        return read_values(one._ptr)[0]

    def __bool__(self) -> NoReturn:
        raise ValueError(
            "the truth value of an arrowmetal.Array is ambiguous; use len(), .equals(), "
            "or a reduction such as am.min(mask) (all true) or am.max(mask) (any true)"
        )

    def __repr__(self) -> str:
        p = self._ptr
        if p is None:
            return "<arrowmetal.Array (released)>"
        n = _am_length(p)
        head = (
            f"<arrowmetal.Array type={self.type} length={n} "
            f"null_count={_am_null_count(p)} device={self.device}>"
        )
        try:
            shown = self[:10].to_pylist() if n > 10 else self.to_pylist()
        except ArrowMetalError as e:  # pragma: no cover - device trouble
            return head + f"\n<values unavailable: {e}>"
        body = ", ".join("null" if v is None else repr(v) for v in shown)
        if n > 10:
            body += ", ..."
        return head + "\n[" + body + "]"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.to_pylist(), self.type, self.device))

    # -- operators (element-wise, as the am functions of the same names)
    # (== and != give arrays, where object's give bools: hence the ignores.)
    __eq__ = _compare_operator("eq", lib.AM_EQ, lib.AM_EQ)  # type: ignore[assignment]
    __ne__ = _compare_operator("ne", lib.AM_NE, lib.AM_NE)  # type: ignore[assignment]
    __lt__ = _compare_operator("lt", lib.AM_LT, lib.AM_GT)
    __le__ = _compare_operator("le", lib.AM_LE, lib.AM_GE)
    __gt__ = _compare_operator("gt", lib.AM_GT, lib.AM_LT)
    __ge__ = _compare_operator("ge", lib.AM_GE, lib.AM_LE)
    __add__, __radd__ = _binary_operators("add", ARITH, _am_arith, lib.AM_ADD)
    __sub__, __rsub__ = _binary_operators("sub", ARITH, _am_arith, lib.AM_SUBTRACT)
    __mul__, __rmul__ = _binary_operators("mul", ARITH, _am_arith, lib.AM_MULTIPLY)
    __truediv__, __rtruediv__ = _binary_operators("truediv", ARITH, _am_arith, lib.AM_DIVIDE)
    __and__, __rand__ = _binary_operators("and", LOGIC, _am_logic, lib.AM_LOGIC_AND)
    __or__, __ror__ = _binary_operators("or", LOGIC, _am_logic, lib.AM_LOGIC_OR)
    __xor__, __rxor__ = _binary_operators("xor", LOGIC, _am_logic, lib.AM_LOGIC_XOR)
    # am.power: integers wrap (power_checked raises instead)
    __pow__, __rpow__ = _binary_operators("pow", BINARY, _am_binary, lib.AM_POWER)

    def __invert__(self) -> Array:
        out = tls.out
        rc = _am_not(self._ptr, out)
        if rc:
            raise _error(rc)
        return wrap(out[0])

    def __floordiv__(self, other: ArrayLike | ScalarLike) -> Array:
        """Floor division, as pandas does on pyarrow-backed data (pyarrow has no
        floor-divide function): integers round toward negative infinity and a
        zero divisor raises; floats are floor(self / other)."""
        if not _dispatch.is_operand(type(other)) or _is_text(other):
            return NotImplemented
        return _compute.floor_divide(self, other)

    def __rfloordiv__(self, other: ArrayLike | ScalarLike) -> Array:
        if not _dispatch.is_operand(type(other)) or _is_text(other):
            return NotImplemented
        return _compute.floor_divide(other, self)

    def __neg__(self) -> Array:
        return _compute.unary(lib.AM_NEGATE, self)

    def __abs__(self) -> Array:
        return _compute.unary(lib.AM_ABS, self)

    # -- compute methods (pyarrow.Array's names; see the am functions)
    def sum(self, **kwargs: Unpack[ReductionKwargs]) -> ReductionResult:
        """am.sum(self, **kwargs)."""
        return _compute.sum(self, **kwargs)

    def min(self, **kwargs: Unpack[ReductionKwargs]) -> ReductionResult:
        """am.min(self, **kwargs)."""
        return _compute.min(self, **kwargs)

    def max(self, **kwargs: Unpack[ReductionKwargs]) -> ReductionResult:
        """am.max(self, **kwargs)."""
        return _compute.max(self, **kwargs)

    def mean(self, **kwargs: Unpack[ReductionKwargs]) -> ReductionResult:
        """am.mean(self, **kwargs)."""
        return _compute.mean(self, **kwargs)

    def count(self, mode: CountMode = "only_valid", **kwargs: Unpack[CountKwargs]) -> CountResult:
        """am.count(self, mode, **kwargs)."""
        return _compute.count(self, mode, **kwargs)

    def cast(
        self,
        target_type: TypeLike | None = None,
        safe: bool | None = None,
        options: CastOptions | None = None,
        **kwargs: Unpack[CastKwargs],
    ) -> ArrayResult | pa.Scalar[Any]:
        """am.cast(self, target_type, safe, options, **kwargs)."""
        return _compute.cast(self, target_type, safe, options, **kwargs)

    def filter(
        self,
        selection_filter: ArrayLike,
        null_selection_behavior: NullSelection = "drop",
        **kwargs: Unpack[FilterKwargs],
    ) -> ArrayResult:
        """am.filter(self, selection_filter, null_selection_behavior, **kwargs)."""
        return _compute.filter(self, selection_filter, null_selection_behavior, **kwargs)

    def take(self, indices: ArrayLike, **kwargs: Unpack[TakeKwargs]) -> ArrayResult:
        """am.take(self, indices, **kwargs)."""
        return _compute.take(self, indices, **kwargs)

    # -- null handling: pyarrow.Array's methods of these names
    def is_null(self, *, nan_is_null: bool = False) -> Array:
        """am.is_null(self, nan_is_null=nan_is_null)."""
        return _nulls.is_null(self, nan_is_null=nan_is_null)

    def is_valid(self) -> Array:
        """am.is_valid(self)."""
        return _nulls.is_valid(self)

    def is_nan(self) -> Array:
        """am.is_nan(self)."""
        return _nulls.is_nan(self)

    def fill_null(self, fill_value: ArrayLike | ScalarLike) -> ElementwiseResult:
        """am.fill_null(self, fill_value)."""
        return _nulls.fill_null(self, fill_value)

    def drop_null(self) -> ArrayResult:
        """am.drop_null(self)."""
        return _nulls.drop_null(self)

    # Hash-based functions, as pyarrow.Array's methods.
    def unique(self) -> Array:
        """am.unique(self)."""
        from . import _hash

        result: Array = _hash.unique(self)
        return result

    def value_counts(self) -> pa.StructArray:
        """am.value_counts(self): a pyarrow StructArray {values, counts}."""
        from . import _hash

        return _hash.value_counts(self)

    def dictionary_encode(self, null_encoding: str = "mask") -> pa.DictionaryArray[Any, Any]:
        """am.dictionary_encode(self, null_encoding): a pyarrow DictionaryArray."""
        from . import _hash

        return _hash.dictionary_encode(self, null_encoding)


def _isnan(x: object) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _rebuild(values: list[Any], type_name: str, device: str) -> Array:
    """Unpickles an Array (see Array.__reduce__)."""
    t: Any = type_of_name(type_name)  # a name Array.type gave: never None
    pa = optional_pyarrow()
    if pa is not None:
        return Array(pa.array(values, type=pa.type_for_alias(ARROW_NAMES[t])), device=device)
    import numpy as np

    return Array(np.asarray(values, dtype=NUMPY_NAMES[t]), device=device)


_builtin_type = type


def array(obj: ArrayLike, type: TypeLike | None = None, device: DeviceLike | None = None) -> Array:
    """An am.Array from `obj`: an am.Array (returned as is unless `device` or
    `type` asks for a change), an Arrow array producer, a numpy array or a
    Python sequence. `type` casts (safely) after the import."""
    if _builtin_type(obj) is Array and device is None:
        a = obj
    else:
        a = Array(obj, device=device)
    if type is not None:
        t = type_id(type)
        if _am_array_type(a._ptr) != t:
            out = tls.out
            rc = _am_cast(a._ptr, t, 1, out)
            if rc:
                raise _error(rc)
            a = wrap(out[0])
    return a


def full(
    value: ScalarLike, length: int, type: TypeLike | None = None, device: DeviceLike | None = None
) -> Array:
    """`length` copies of `value` (None: nulls; then `type` is required)."""
    if type is None:
        if value is None:
            raise ArrowMetalInvalid("full(None, ...) needs a type", lib.AM_EINVAL)
        kind, fill = _dispatch.dispatch(_builtin_type(value))
        if kind != _dispatch.SCALAR:
            raise ArrowMetalTypeError(f"{value!r} is not a scalar", lib.AM_ETYPE)
        s = ffi.new("am_scalar *")
        fill(value, s, None)
    else:
        s = scalar_of_type(value, type_id(type))
    out = tls.out
    rc = _am_full(s, length, device_ptr(device), out)
    if rc:
        raise _error(rc)
    return wrap(out[0])


# Last: these modules import Array from this one. The methods above use them
# at call time, when all three are complete.
from . import _compute, _dispatch, _nulls
