"""pyarrow.compute's select_k_unstable, rank, rank_quantile, rank_normal and
partition_nth_indices on the C library's am_select_k_unstable, am_rank,
am_rank_quantile and am_partition_nth_indices.

pyarrow's names, argument order, keyword arguments and options objects
(SelectKOptions, RankOptions, RankQuantileOptions, PartitionNthOptions):
keyword arguments are checked by building pyarrow's own options object from
them, so a bad order, null_placement or tiebreaker is refused with pyarrow's
error; the fields are then read from that object (every field: none is
ignored). Results are am.Array (uint64 indices or ranks; float64 for
rank_quantile and rank_normal). ChunkedArrays are combined first;
select_k_unstable takes a pa.Table / pa.RecordBatch (or anything with
``__arrow_c_stream__``) by its sort_keys columns, as pyarrow does; rank and
partition_nth_indices take arrays only, as pyarrow does. Decimal keys are
ranked by value; dictionary arrays are refused with pyarrow 26's errors (it
ranks none). Keys of a type the library has no kernel for run in
pyarrow.compute (counted and announced).
"""

from __future__ import annotations

from . import _fallback
from ._capi import ffi, lib
from ._errors import error_from_status
from ._sort_keys import (
    call_over_keys,
    descending,
    fields_of,
    key_columns,
    options_of,
    placement,
)
from ._state import tls
from ._tables import table_or_none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pyarrow as pa

    from ._array import Array
    from ._typing import ArrayLike, DeviceLike

__all__ = [
    "partition_nth_indices",
    "rank",
    "rank_normal",
    "rank_quantile",
    "select_k_unstable",
]


def select_k_unstable(
    input: Any,
    /,
    k: int | None = None,
    sort_keys: Any = None,
    *,
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Array:
    """The row indices of the first k rows in sort_keys order
    (pyarrow.compute.select_k_unstable; SelectKOptions), in that order: uint64.
    Rows that tie on every key come in row order (pyarrow gives ties in any
    order). A pa.Table / RecordBatch by its sort_keys columns, or an array
    (the first sort key's order and null placement) (am_select_k_unstable)."""
    given = {"k": k, "sort_keys": sort_keys}
    if options is None and k is None and sort_keys is None:
        _fallback.without_options("select_k_unstable", input)
    opts, kwargs = options_of("select_k_unstable", "SelectKOptions", options, given,
                            {"k": None, "sort_keys": None})  # fmt: skip
    f = fields_of(opts, {"k", "sort_keys"}, "select_k_unstable")
    fields = list(f["sort_keys"])
    n_keys = len(fields)
    table = table_or_none(input)
    if table is None:
        keys = [input]
        fields = fields[:1]
    else:
        keys = key_columns("select_k_unstable", table, fields, "")
    desc = ffi.new("int[]", [descending(x) for x in fields] or [0])
    at = ffi.new("int[]", [placement(x) for x in fields] or [lib.AM_NULLS_AT_END])
    n = len(keys) if n_keys else 0  # no sort keys: the C call's error
    kval = f["k"]

    def c_call(arr: Any, out: Any) -> int:
        return lib.am_select_k_unstable(arr, n, desc, at, kval, out)

    if n == 0:
        raise error_from_status(c_call(ffi.NULL, tls.out))
    return call_over_keys("select_k_unstable", keys, device, c_call, (input,), kwargs)


def _array_only(name: str, input: Any) -> None:
    if table_or_none(input) is not None:
        import pyarrow as pa

        raise pa.ArrowNotImplementedError(
            f"Unsupported types for {name} operation: values={type(input).__name__}"
        )


# pyarrow's keyword defaults of RankOptions (RankQuantileOptions: all but tiebreaker)
_RANK_DEFAULTS = {"sort_keys": "ascending", "null_placement": None, "tiebreaker": "first"}


def _rank_options(name: str, class_name: str, input: Any, options: Any, given: dict[str, Any],
                  known: set[str]) -> tuple[dict[str, Any], int, int, dict[str, Any]]:  # fmt: skip
    """The options' fields of rank, rank_quantile or rank_normal (`class_name`,
    from `options` or the keywords `given`; pyarrow's errors, then ours for a
    field outside `known` and for a table input), (descending,
    am_null_placement) of the first sort key, and the kwargs of a fallback."""
    opts, kwargs = options_of(name, class_name, options, given, _RANK_DEFAULTS)
    f = fields_of(opts, known, name)
    _array_only(name, input)
    keys = f["sort_keys"]
    first = keys[0] if keys else {"order": 0, "null_placement": 1}
    return f, descending(first), placement(first), kwargs


def rank(
    input: ArrayLike,
    /,
    sort_keys: Any = "ascending",
    *,
    null_placement: str | None = None,
    tiebreaker: str = "first",
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Array:
    """Each slot's 1-based rank (pyarrow.compute.rank; RankOptions): uint64,
    never null; ties by tiebreaker "min", "max", "first" or "dense"; NaN and
    nulls ranked as sort_indices places them (am_rank)."""
    given = {"sort_keys": sort_keys, "null_placement": null_placement, "tiebreaker": tiebreaker}
    known = {"sort_keys", "tiebreaker"}
    f, desc, at, kwargs = _rank_options("rank", "RankOptions", input, options, given, known)
    tb = f["tiebreaker"]

    def c_call(arr: Any, out: Any) -> int:
        return lib.am_rank(arr[0], desc, at, tb, out)

    return call_over_keys("rank", [input], device, c_call, (input,), kwargs)


def _rank_quantile(name: str, normal: int, input: Any, sort_keys: Any, null_placement: Any,
                   options: Any, device: Any) -> Array:  # fmt: skip
    given = {"sort_keys": sort_keys, "null_placement": null_placement}
    _, desc, at, kwargs = _rank_options(name, "RankQuantileOptions", input, options, given,
                                        {"sort_keys"})  # fmt: skip

    def c_call(arr: Any, out: Any) -> int:
        return lib.am_rank_quantile(arr[0], desc, at, normal, out)

    return call_over_keys(name, [input], device, c_call, (input,), kwargs)


def rank_quantile(
    input: ArrayLike,
    /,
    sort_keys: Any = "ascending",
    *,
    null_placement: str | None = None,
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Array:
    """Each slot's rank quantile (pyarrow.compute.rank_quantile;
    RankQuantileOptions): float64, (the slots before its tie group + half the
    group) / slots (am_rank_quantile)."""
    return _rank_quantile("rank_quantile", 0, input, sort_keys, null_placement, options, device)


def rank_normal(
    input: ArrayLike,
    /,
    sort_keys: Any = "ascending",
    *,
    null_placement: str | None = None,
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Array:
    """Each slot's normal rank (pyarrow.compute.rank_normal;
    RankQuantileOptions): float64, the standard normal quantile of its rank
    quantile (am_rank_quantile with normal set)."""
    return _rank_quantile("rank_normal", 1, input, sort_keys, null_placement, options, device)


def partition_nth_indices(
    array: ArrayLike,
    /,
    pivot: int | None = None,
    *,
    null_placement: str = "at_end",
    options: Any | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Array:
    """Indices that partition the array around its pivot-th element
    (pyarrow.compute.partition_nth_indices; PartitionNthOptions): uint64, the
    element that sorts at `pivot` there, none after it before, none before it
    after. Any such order is right; this one differs from pyarrow's
    (am_partition_nth_indices)."""
    given = {"pivot": pivot, "null_placement": null_placement}
    defaults = {"pivot": None, "null_placement": "at_end"}
    if options is None and given == defaults:
        _fallback.without_options("partition_nth_indices", array)
    opts, kwargs = options_of("partition_nth_indices", "PartitionNthOptions", options, given,
                            defaults)  # fmt: skip
    f = fields_of(opts, {"pivot", "null_placement"}, "partition_nth_indices")
    _array_only("partition_nth_indices", array)
    at = placement(f)
    p = f["pivot"]

    def c_call(arr: Any, out: Any) -> int:
        return lib.am_partition_nth_indices(arr[0], p, at, out)

    return call_over_keys("partition_nth_indices", [array], device, c_call, (array,), kwargs)
