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
(counted and announced, see _fallback). Decimal keys sort by value; a
dictionary array sorts by its values' ranks (pyarrow 26's order: NaN ranked
after the numbers, so first in a descending sort) where pyarrow sorts one --
alone, as an array or a RecordBatch's only key -- and is refused in pyarrow's
words elsewhere (a ChunkedArray, a Table's column, beside other keys). Each sort key has its own null
placement (pyarrow 26's third tuple field; ``null_placement=`` overrides
them all, as pyarrow does). Sort keys that are not plain column names
(nested field references, expressions) raise ArrowMetalUnsupported.
"""

from __future__ import annotations

from . import _fallback
from ._array import Array
from ._capi import ffi, lib
from ._chunked import combined, is_chunked
from ._compute import take
from ._errors import error_from_status
from ._sort_keys import (
    call_over_keys,
    descending,
    fields_of,
    key_columns,
    options_of,
    placement,
    refuse_dictionary,
)
from ._state import tls
from ._tables import Table, table_from_columns, table_or_none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pyarrow as pa

    from ._typing import ArrayLike, DeviceLike

__all__ = ["array_sort", "array_sort_indices", "sort_by", "sort_indices"]


def _run(name: str, keys: list[Any], desc: list[int], at: list[int], device: Any,
         args: tuple[Any, ...], kwargs: dict[str, Any]) -> Array:  # fmt: skip
    """am_sort_indices over the key arrays (array-likes)."""
    d = ffi.new("int[]", desc or [0])
    p = ffi.new("int[]", at or [lib.AM_NULLS_AT_END])

    def c_call(arr: Any, out: Any) -> int:
        return lib.am_sort_indices(arr, len(keys), d, p, out)

    return call_over_keys(name, keys, device, c_call, args, kwargs)


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
    table = table_or_none(input)
    if table is None:
        if is_chunked(input):
            refuse_dictionary(input)
        # one key: pyarrow orders an array by the first sort key's order
        if not fields and options is not None:
            # a SortOptions without keys hides its (deprecated) null_placement
            # from Python: pyarrow, which can read it, runs the call
            reason = "a SortOptions without sort keys (its null_placement is unreadable)"
            return _fallback.run("sort_indices", reason, (input,), kwargs)
        if fields:
            desc, at = descending(fields[0]), placement(fields[0])
        else:
            desc = 0
            at = lib.AM_NULLS_AT_START if null_placement == "at_start" else lib.AM_NULLS_AT_END
        return _run("sort_indices", [input], [desc], [at], device, (input,), kwargs)
    if not fields:
        rc = lib.am_sort_indices(ffi.NULL, 0, ffi.NULL, ffi.NULL, tls.out)
        raise error_from_status(rc)  # "Must specify one or more sort keys"
    keys = key_columns("sort_indices", table, fields, "Invalid sort key column: ")
    import pyarrow as pa

    if len(keys) == 1 and not isinstance(table, pa.RecordBatch):
        refuse_dictionary(keys[0])  # a Table's column: pyarrow sorts it as a ChunkedArray
    descs = [descending(f) for f in fields]
    ats = [placement(f) for f in fields]
    return _run("sort_indices", keys, descs, ats, device, (input,), kwargs)


def _array_fields(order: str, null_placement: str, options: Any) -> tuple[int, int, dict[str, Any]]:
    given = {"order": order, "null_placement": null_placement}
    defaults = {"order": "ascending", "null_placement": "at_end"}
    name = "array_sort_indices"
    opts, kwargs = options_of(name, "ArraySortOptions", options, given, defaults)
    f = fields_of(opts, {"order", "null_placement"}, name)
    return descending(f), placement(f), kwargs


def array_sort_indices(
    array: ArrayLike,
    /,
    order: str = "ascending",
    *,
    null_placement: str = "at_end",
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Any:
    """The stable order of an array's slots (pyarrow.compute.array_sort_indices;
    ArraySortOptions): uint64 indices (am_sort_indices with one key); of a
    ChunkedArray, a ChunkedArray of one chunk, as pyarrow gives."""
    desc, at, kwargs = _array_fields(order, null_placement, options)
    if is_chunked(array):
        refuse_dictionary(array)
    result = _run("array_sort_indices", [array], [desc], [at], device, (array,), kwargs)
    if is_chunked(array) and isinstance(result, Array):  # pyarrow's: one chunk of indices
        import pyarrow as pa

        return pa.chunked_array([result.to_pyarrow()])
    return result


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
    array = combined(array)
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
    methods do; each column of the result is one chunk. An am.Table gives an
    am.Table of one batch whose columns stay on the table's device."""
    import pyarrow as pa
    import pyarrow.compute as pc

    src = table_or_none(table)
    if src is None:
        raise TypeError(f"sort_by takes a pa.Table or pa.RecordBatch, got {type(table).__name__}")
    keys = [(sorting, "ascending")] if isinstance(sorting, str) else sorting
    import warnings

    with warnings.catch_warnings():
        # SortOptions' own deprecation of null_placement: as Table.sort_by takes it
        warnings.simplefilter("ignore", FutureWarning)
        options = pc.SortOptions(sort_keys=keys, **kwargs)
    indices = sort_indices(src, options=options, device=device)
    if isinstance(src, Table):
        return table_from_columns(src.column_names, [_take_column(c, indices) for c in src.columns],
                                  len(indices))  # fmt: skip
    columns = []
    for column in src.columns:
        got = take(combined(column), indices)
        columns.append(got.to_pyarrow() if isinstance(got, Array) else got)
    if isinstance(src, pa.RecordBatch):
        return pa.RecordBatch.from_arrays(columns, schema=src.schema)
    return pa.Table.from_arrays(columns, schema=src.schema)


def _take_column(column: Any, indices: Array) -> Any:
    """An am.Table's column in `indices` order, on its device."""
    if isinstance(column, Table):  # a struct column: its own columns taken
        names = column.column_names
        return table_from_columns(names, [_take_column(c, indices) for c in column.columns],
                                  len(indices))  # fmt: skip
    return take(column, indices)
