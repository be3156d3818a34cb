"""pyarrow.compute's sort_indices and array_sort_indices, and array_sort (the
array taken in that order), on the C library's am_sort_indices.

pyarrow's names, argument order, keyword arguments and options objects
(SortOptions, ArraySortOptions). Keyword arguments are checked by building
pyarrow's own options object from them, so a bad order or null_placement is
refused with pyarrow's error; the fields are then read from that object as
from one passed in. Results are am.Array of uint64 row indices, as pyarrow
gives a UInt64Array.

Inputs: an array (any array-like, a ChunkedArray combined first: one key;
sort_keys' names are then ignored, the first key's order used, as pyarrow
does), or a pa.Table / pa.RecordBatch (or anything with
``__arrow_c_stream__``, read as a pa.Table) whose columns sort_keys names.
Keys of a type the library has no kernel for run in pyarrow.compute
(counted and announced, see _fallback). Each sort key has its own null
placement (pyarrow 26's third tuple field; ``null_placement=`` overrides
them all, as pyarrow does). Sort keys that are not plain column names
(nested field references, expressions) raise ArrowMetalUnsupported.
"""

from __future__ import annotations

from . import _fallback
from ._array import Array, wrap
from ._capi import ffi, lib
from ._chunked import is_chunked
from ._compute import _input_fallback, _operand, take
from ._errors import ArrowMetalTypeError, ArrowMetalUnsupported, error_from_status
from ._state import drop, tls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pyarrow as pa

    from ._typing import ArrayLike, DeviceLike

__all__ = ["array_sort", "array_sort_indices", "sort_by", "sort_indices"]

# pyarrow's SortOrder and NullPlacement enum values, as its options serialize.
_DESCENDING = 1
_AT_START = 0


def _combined(array: Any) -> Any:
    if is_chunked(array):
        import pyarrow as pa

        if isinstance(array, pa.ChunkedArray):
            return array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    return array


def _is_table(obj: Any) -> bool:
    import pyarrow as pa

    return isinstance(obj, (pa.Table, pa.RecordBatch))


def _as_table(obj: Any) -> Any:
    """A pa.Table or pa.RecordBatch as it is; a tabular object with an Arrow
    C stream (polars DataFrame...) read as a pa.Table; None for arrays."""
    if _is_table(obj):
        return obj
    if type(obj) is not Array and not is_chunked(obj) and hasattr(obj, "__arrow_c_stream__"):
        import pyarrow as pa

        if not hasattr(obj, "__arrow_c_array__"):
            return pa.table(obj)
    return None


def _run(name: str, keys: list[Any], descending: list[int], placement: list[int], device: Any,
         args: tuple[Any, ...], kwargs: dict[str, Any]) -> Array:  # fmt: skip
    """am_sort_indices over the key arrays (array-likes)."""
    keys = [_combined(k) for k in keys]
    handles: list[Any] = []
    tmps: list[Any] = []
    try:
        try:
            for k in keys:
                p, tmp = _operand(k, device)
                handles.append(p)
                if tmp is not None:
                    tmps.append(tmp)
        except ArrowMetalTypeError as e:
            return _input_fallback(name, e, tuple(keys), args, kwargs)
        arr = ffi.new("am_array *[]", handles or [ffi.NULL])
        desc = ffi.new("int[]", descending or [0])
        out = tls.out
        at = ffi.new("int[]", placement or [lib.AM_NULLS_AT_END])
        rc = lib.am_sort_indices(arr, len(handles), desc, at, out)
        if rc == lib.AM_ETYPE:
            refused = error_from_status(rc)
            return _input_fallback(name, refused, tuple(keys), args, kwargs)
        if rc:
            raise error_from_status(rc)
        return wrap(out[0])
    finally:
        for t in tmps:
            drop(t)


def _column_name(target: str) -> str:
    # a serialized FieldRef: ".name" for a plain column name
    if not target.startswith(".") or "." in target[1:] or "[" in target:
        raise ArrowMetalUnsupported(
            f"sort_indices: sort key {target!r} is not a plain column name "
            "(nested fields and expressions are not supported)"
        )
    return target[1:]


def _sort_fields(sort_keys: Any, null_placement: Any, options: Any) -> list[dict[str, Any]]:
    """The sort keys as pyarrow resolves them: [{target, order, null_placement}]."""
    import pyarrow.compute as pc

    from ._options import read_fields

    if isinstance(options, dict):  # its fields, as pyarrow takes them
        options = pc.SortOptions(**options)
    if options is not None:
        if type(options).__name__ != "SortOptions":
            raise TypeError(
                f"Function 'sort_indices' expected a SortOptions parameter, got {type(options)}"
            )
        if tuple(sort_keys) != () or null_placement is not None:
            raise TypeError(
                "Function 'sort_indices' called with both an 'options' argument and "
                "additional arguments"
            )
    else:
        import warnings

        with warnings.catch_warnings():
            # pyarrow's own deprecation of SortOptions.null_placement: the
            # keyword stays valid for sort_indices, as pyarrow takes it
            warnings.simplefilter("ignore", FutureWarning)
            options = pc.SortOptions(sort_keys, null_placement=null_placement)
    return list(read_fields(options)["sort_keys"])


def _placement(fields: list[dict[str, Any]]) -> list[int]:
    """The C call's null placement per key (pyarrow has already folded an
    explicit null_placement= into every key)."""
    return [lib.AM_NULLS_AT_START if f["null_placement"] == _AT_START else lib.AM_NULLS_AT_END
            for f in fields]  # fmt: skip


def sort_indices(
    input: Any,
    /,
    sort_keys: Any = (),
    *,
    null_placement: str | None = None,
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Array:
    """The stable order of a table's rows by its sort_keys columns, or of an
    array's slots (pyarrow.compute.sort_indices; SortOptions): uint64 row
    indices. NaN after every number and nulls at the end (or nulls, NaN,
    numbers with null_placement="at_start"); -0.0 and 0.0 tie (am_sort_indices)."""
    fields = _sort_fields(sort_keys, null_placement, options)
    if options is not None:
        kwargs: dict[str, Any] = {"options": options}
    else:
        kwargs = {"sort_keys": sort_keys, "null_placement": null_placement}
    table = _as_table(input)
    if table is None:
        # one key: pyarrow orders an array by the first sort key's order
        if not fields and options is not None:
            # a SortOptions without keys hides its (deprecated) null_placement
            # from Python: pyarrow, which can read it, runs the call
            reason = "a SortOptions without sort keys (its null_placement is unreadable)"
            return _fallback.run("sort_indices", reason, (input,), kwargs)
        order = fields[0]["order"] if fields else 0
        at = lib.AM_NULLS_AT_START if null_placement == "at_start" else lib.AM_NULLS_AT_END
        if fields:
            at = lib.AM_NULLS_AT_START if fields[0]["null_placement"] == _AT_START else at
            at = lib.AM_NULLS_AT_END if fields[0]["null_placement"] != _AT_START else at
        return _run("sort_indices", [input], [int(order == _DESCENDING)], [at], device,
                    (input,), kwargs)  # fmt: skip
    if not fields:
        rc = lib.am_sort_indices(ffi.NULL, 0, ffi.NULL, ffi.NULL, tls.out)
        raise error_from_status(rc)  # "Must specify one or more sort keys"
    keys = []
    for f in fields:
        name = _column_name(f["target"])
        if name not in table.schema.names:
            import pyarrow as pa

            raise pa.ArrowInvalid(
                f"Invalid sort key column: No match for FieldRef.Name({name}) in {table.schema}"
            )
        keys.append(_combined(table.column(name)))
    placement = _placement(fields)
    descending = [int(f["order"] == _DESCENDING) for f in fields]
    return _run("sort_indices", keys, descending, placement, device, (input,), kwargs)


def _array_fields(order: str, null_placement: str, options: Any) -> tuple[int, int, dict[str, Any]]:
    import pyarrow.compute as pc

    from ._options import read_fields

    if isinstance(options, dict):  # its fields, as pyarrow takes them
        options = pc.ArraySortOptions(**options)
    if options is not None:
        if type(options).__name__ != "ArraySortOptions":
            raise TypeError(
                "Function 'array_sort_indices' expected a ArraySortOptions parameter, "
                f"got {type(options)}"
            )
        if order != "ascending" or null_placement != "at_end":
            raise TypeError(
                "Function 'array_sort_indices' called with both an 'options' argument and "
                "additional arguments"
            )
        kwargs: dict[str, Any] = {"options": options}
    else:
        options = pc.ArraySortOptions(order, null_placement=null_placement)
        kwargs = {"order": order, "null_placement": null_placement}
    f = read_fields(options)
    unknown = set(f) - {"order", "null_placement"}
    if unknown:
        raise ArrowMetalUnsupported(
            f"array_sort_indices: no support for the option {min(unknown)!r}"
        )
    at = lib.AM_NULLS_AT_START if f["null_placement"] == _AT_START else lib.AM_NULLS_AT_END
    return int(f["order"] == _DESCENDING), at, kwargs


def array_sort_indices(
    array: ArrayLike,
    /,
    order: str = "ascending",
    *,
    null_placement: str = "at_end",
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Array:
    """The stable order of an array's slots (pyarrow.compute.array_sort_indices;
    ArraySortOptions): uint64 indices (am_sort_indices with one key)."""
    desc, at, kwargs = _array_fields(order, null_placement, options)
    return _run("array_sort_indices", [array], [desc], [at], device, (array,), kwargs)


def array_sort(
    array: ArrayLike,
    /,
    order: str = "ascending",
    *,
    null_placement: str = "at_end",
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Array:
    """The array's values sorted (issue #12's array_sort; pyarrow has no
    such function: it is take(array, array_sort_indices(array, ...)))."""
    array = _combined(array)
    indices = array_sort_indices(
        array, order, null_placement=null_placement, options=options, device=device
    )
    return take(array, indices)


def sort_by(table: Any, sorting: Any, /, *, device: DeviceLike | None = None, **kwargs: Any) -> Any:
    """pa.Table.sort_by / pa.RecordBatch.sort_by as a function: the rows of
    `table` (a pa.Table, pa.RecordBatch, or anything with
    ``__arrow_c_stream__``, read as a pa.Table) in the order of `sorting` (a
    column name, ascending, or a list of (name, order[, null_placement])
    tuples) and SortOptions' keyword arguments (null_placement). The order is
    am.sort_indices'; every column is then taken with am.take (columns of
    types without a kernel are taken by pyarrow, announced). A pa.Table
    gives a pa.Table, a pa.RecordBatch a pa.RecordBatch, as pyarrow's
    methods do; each column of the result is one chunk."""
    import pyarrow as pa
    import pyarrow.compute as pc

    src = _as_table(table)
    if src is None:
        raise TypeError(f"sort_by takes a pa.Table or pa.RecordBatch, got {type(table).__name__}")
    keys = [(sorting, "ascending")] if isinstance(sorting, str) else sorting
    import warnings

    with warnings.catch_warnings():
        # SortOptions' own deprecation of null_placement: as Table.sort_by takes it
        warnings.simplefilter("ignore", FutureWarning)
        options = pc.SortOptions(sort_keys=keys, **kwargs)
    indices = sort_indices(src, options=options, device=device)
    columns = []
    for column in src.columns:
        got = take(_combined(column), indices)
        columns.append(got.to_pyarrow() if isinstance(got, Array) else got)
    if isinstance(src, pa.RecordBatch):
        return pa.RecordBatch.from_arrays(columns, schema=src.schema)
    return pa.Table.from_arrays(columns, schema=src.schema)
