"""Type aliases and protocols of the public API, for type checkers.

The package imports this module only under ``TYPE_CHECKING``: it costs
nothing when the package runs. It imports on Python 3.9+ (the aliases are
``typing.Union``s, pyarrow and numpy appear as strings), so annotations of
one's own can use it::

    from arrowmetal._typing import ArrayLike

What the aliases admit is what the package takes (see ``_dispatch``):

- ``ArrayLike``: an am.Array; an Arrow PyCapsule producer
  (``__arrow_c_array__``, ``__arrow_c_device_array__``, ``__arrow_c_stream__``:
  pyarrow, polars, nanoarrow); a ``__cuda_array_interface__`` producer
  (CuPy, PyTorch, Numba); a numpy array or anything with ``__array__`` /
  ``__array_interface__``; a list, tuple or range (bools, ints, floats and
  None, or what pyarrow converts).
- ``ScalarLike``: bool, int, float, None, a numpy scalar, a pyarrow Scalar, or
  a reduction result (Scalar, NullScalar).

Results: ``Array`` where every input is an am.Array or a Python scalar;
otherwise a pyarrow ChunkedArray for ChunkedArray inputs, and whatever
pyarrow.compute returns where a call falls back to it (``_fallback``). Those
unions are ``ArrayResult`` and ``ElementwiseResult``; reductions give
``ReductionResult``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict, Union, overload

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    from cffi import FFI

    from ._aggregates import PendingAggregate
    from ._array import Array
    from ._batch import PendingScalar
    from ._results import NullScalar, Scalar, StructScalar

__all__ = [
    "AggregateOptions",
    "ArrayLike",
    "ArrayResult",
    "ArrowArrayExportable",
    "ArrowDeviceArrayExportable",
    "ArrowScalar",
    "ArrowSchemaExportable",
    "ArrowStreamExportable",
    "BinaryFunction",
    "CastKwargs",
    "CastOptions",
    "CountKwargs",
    "CountMode",
    "CountOptions",
    "CountResult",
    "CudaArrayExportable",
    "CumulativeFunction",
    "DeviceLike",
    "ElementwiseResult",
    "FilterKwargs",
    "FilterOptions",
    "NullOptions",
    "NullSelection",
    "PairwiseFunction",
    "PairwiseOptions",
    "PlainScalar",
    "PyValue",
    "ReductionFunction",
    "ReductionKwargs",
    "ReductionResult",
    "RoundMode",
    "RoundMultiple",
    "RoundOptions",
    "RoundToMultipleOptions",
    "ScalarLike",
    "ScalarResult",
    "StructResult",
    "SupportsArray",
    "SupportsArrayInterface",
    "TakeKwargs",
    "TypeLike",
    "UnaryFunction",
    "VarianceOptions",
]

# ---------------------------------------------------------------------------
# The Arrow PyCapsule interface (as the Arrow documentation types it) and the
# other array protocols an input may speak.


class ArrowSchemaExportable(Protocol):
    def __arrow_c_schema__(self) -> object: ...


class ArrowArrayExportable(Protocol):
    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...


class ArrowDeviceArrayExportable(Protocol):
    def __arrow_c_device_array__(
        self, requested_schema: object | None = None, **kwargs: Any
    ) -> tuple[object, object]: ...


class ArrowStreamExportable(Protocol):
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...


class CudaArrayExportable(Protocol):
    """Version 3 of the CUDA Array Interface (CuPy, PyTorch, Numba)."""

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...


class SupportsArray(Protocol):
    """numpy's ``__array__`` protocol."""

    def __array__(self) -> np.ndarray[Any, Any]: ...


class SupportsArrayInterface(Protocol):
    """numpy's array interface."""

    @property
    def __array_interface__(self) -> dict[str, Any]: ...


class ArrowScalar(Protocol):
    """pyarrow Scalar's surface: pyarrow's Scalars, and the reduction results
    (Scalar, NullScalar)."""

    @property
    def is_valid(self) -> bool: ...
    def as_py(self) -> Any: ...


# (Where an input may be of a pyarrow type, the aliases name a protocol that
# pyarrow's type has, not the type: pyarrow has no type hints, so to a checker
# its types are Any, and a union with Any would admit anything.)


# ---------------------------------------------------------------------------
# Inputs

ArrayLike = Union[
    "Array",
    ArrowArrayExportable,
    ArrowDeviceArrayExportable,
    ArrowStreamExportable,
    CudaArrayExportable,
    "np.ndarray[Any, Any]",
    SupportsArray,
    SupportsArrayInterface,
    list[Any],
    tuple[Any, ...],
    range,
]
"""An array input: see the module's documentation."""

PlainScalar = Union[bool, int, float, None, "np.generic", "Scalar", "NullScalar"]
"""The scalar inputs other than pyarrow's: with these alone, an element-wise
function gives a ``ScalarResult`` (with pyarrow's, pyarrow may run it)."""

ScalarLike = Union[PlainScalar, ArrowScalar]
"""A scalar input: a Python or numpy scalar, a pyarrow Scalar or a reduction
result."""

PyValue = Union[bool, int, float, None]
"""A value read out of an array: a bool, an int, a float, or None for a null."""

TypeLike = Union[
    str, int, type[int], type[float], ArrowSchemaExportable, "np.dtype[Any]", "type[np.generic]"
]
"""A type as ``am.type_id()`` reads it: a name ('int64', 'double', 'i8'), an
am_type value, bool / int / float, a pyarrow DataType (an Arrow schema
producer) or a numpy dtype."""

DeviceLike = Union[str, "FFI.CData"]
"""A device: a spec such as 'cpu', 'cuda' or 'cuda:1', or an ``am_device *``."""

AggregateOptions = Union["pc.ScalarAggregateOptions", dict[str, Any]]
CountOptions = Union["pc.CountOptions", dict[str, Any]]
FilterOptions = Union["pc.FilterOptions", dict[str, Any]]
CastOptions = Union["pc.CastOptions", dict[str, Any]]
VarianceOptions = Union["pc.VarianceOptions", dict[str, Any]]
NullOptions = Union["pc.NullOptions", dict[str, Any]]  # null handling
# Rounding and pairwise differences.
RoundOptions = Union["pc.RoundOptions", dict[str, Any]]
RoundToMultipleOptions = Union["pc.RoundToMultipleOptions", dict[str, Any]]
PairwiseOptions = Union["pc.PairwiseOptions", dict[str, Any]]
RoundMode = Literal[
    "down",
    "up",
    "towards_zero",
    "towards_infinity",
    "half_down",
    "half_up",
    "half_towards_zero",
    "half_towards_infinity",
    "half_to_even",
    "half_to_odd",
]
"""options=: pyarrow's options object or a dict of its fields."""
RoundMultiple = Union[int, float, "np.generic", ArrowScalar]
"""round_to_multiple's multiple: a number, or a pyarrow Scalar."""

CountMode = Literal["only_valid", "only_null", "all"]
NullSelection = Literal["drop", "emit_null"]

# ---------------------------------------------------------------------------
# Results

ReductionResult = Union["Scalar", "NullScalar", "PendingScalar", "pa.Scalar[Any]"]
"""A reduction's result: a valid Scalar (also a Python int or float), a
NullScalar, a PendingScalar inside am.batch(), or pyarrow's Scalar where the
call ran in pyarrow.compute."""

StructResult = Union["StructScalar", "PendingAggregate", "pa.StructScalar"]
"""min_max's and first_last's result: a StructScalar of two fields, a
PendingAggregate inside am.batch(), or pyarrow's StructScalar where the call
ran in pyarrow.compute."""
CountResult = Union["Scalar", "PendingScalar", "pa.Scalar[Any]"]
"""count's result (never null)."""

ArrayResult = Union["Array", "pa.Array[Any]", "pa.ChunkedArray[Any]"]
"""An array result: an am.Array; a pyarrow ChunkedArray for ChunkedArray
inputs; pyarrow's array where the call ran in pyarrow.compute."""

ScalarResult = Union["Scalar", "NullScalar", "pa.Scalar[Any]"]
"""An element-wise function's result for scalar inputs, as pyarrow gives a
Scalar: for numbers and booleans the reductions' results (Scalar, the Python
number it holds too; NullScalar for a null), for other types (timestamps,
durations, decimals, strings) pyarrow's Scalar of the exact type."""

ElementwiseResult = Union[
    "Array", "pa.Array[Any]", "pa.ChunkedArray[Any]", "pa.Scalar[Any]", "Scalar", "NullScalar"
]
"""An element-wise function's result: ``ArrayResult``, or, for scalar inputs
only, a ``ScalarResult``."""

# ---------------------------------------------------------------------------
# The functions the package makes in families (am.sum, am.add, am.negate, ...)


class ReductionFunction(Protocol):
    """am.sum, am.min, am.max, am.mean."""

    def __call__(
        self,
        array: ArrayLike | ArrowScalar,
        /,
        *,
        skip_nulls: bool = True,
        min_count: int = 1,
        options: AggregateOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ReductionResult: ...


class BinaryFunction(Protocol):
    """The comparisons, the arithmetic and the boolean functions (and_, or_,
    xor, and_not and the _kleene ones): an am.Array with an am.Array or a
    Python scalar gives an am.Array; two Python scalars a ScalarResult."""

    @overload
    def __call__(
        self,
        x: Array,
        y: Array | PlainScalar,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def __call__(
        self,
        x: PlainScalar,
        y: Array,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def __call__(
        self,
        x: PlainScalar,
        y: PlainScalar,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ScalarResult: ...
    @overload
    def __call__(
        self,
        x: ArrayLike | ScalarLike,
        y: ArrayLike | ScalarLike,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ElementwiseResult: ...


class PairwiseFunction(Protocol):
    """am.pairwise_diff and am.pairwise_diff_checked."""

    @overload
    def __call__(
        self,
        input: Array | PlainScalar,
        /,
        period: int = 1,
        *,
        options: PairwiseOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def __call__(
        self,
        input: ArrayLike | ScalarLike,
        /,
        period: int = 1,
        *,
        options: PairwiseOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ArrayResult: ...


class UnaryFunction(Protocol):
    """The functions of the library's table (am.negate, am.abs, ...)."""

    @overload
    def __call__(
        self,
        x: Array,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def __call__(
        self,
        x: PlainScalar,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ScalarResult: ...
    @overload
    def __call__(
        self,
        x: ArrayLike | ScalarLike,
        /,
        *,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ElementwiseResult: ...


# ---------------------------------------------------------------------------
# Keyword arguments of am.Array's compute methods (passed on as **kwargs)


class ReductionKwargs(TypedDict, total=False):
    skip_nulls: bool
    min_count: int
    options: AggregateOptions | None
    memory_pool: pa.MemoryPool | None
    device: DeviceLike | None


class CountKwargs(TypedDict, total=False):
    options: CountOptions | None
    memory_pool: pa.MemoryPool | None
    device: DeviceLike | None


class CastKwargs(TypedDict, total=False):
    memory_pool: pa.MemoryPool | None
    device: DeviceLike | None


class FilterKwargs(TypedDict, total=False):
    options: FilterOptions | None
    memory_pool: pa.MemoryPool | None
    device: DeviceLike | None


class TakeKwargs(TypedDict, total=False):
    boundscheck: bool
    memory_pool: pa.MemoryPool | None
    device: DeviceLike | None


class CumulativeFunction(Protocol):
    """am.cumulative_sum ... am.cumulative_mean: an array
    in, an array out (a ChunkedArray for a ChunkedArray, of one chunk)."""

    @overload
    def __call__(
        self,
        values: Array,
        /,
        start: Any = None,
        *,
        skip_nulls: bool = False,
        options: Any = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def __call__(
        self,
        values: ArrayLike | ScalarLike,
        /,
        start: Any = None,
        *,
        skip_nulls: bool = False,
        options: Any = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array | pa.ChunkedArray: ...
