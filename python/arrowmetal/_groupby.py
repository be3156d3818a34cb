"""Group-by: ``am.group_by(table, keys).aggregate([...])``, mirroring
pa.Table.group_by / pa.TableGroupBy, on the C library's am_group_by.

Inputs: a pa.Table, a pa.RecordBatch, an am.Table (its columns used where
they live: a GPU table's keys are not copied to the host here), or anything
with ``__arrow_c_stream__`` (a polars DataFrame...), read as a pa.Table. Aggregations as pyarrow takes
them: ``(column, "sum")``, ``(column, "hash_sum")``, ``(column, "count",
pc.CountOptions(...))``, ``([], "count_all")``. The result is a pa.Table
with pyarrow's column names ("v_sum"), types and column order (the keys,
then the aggregates -- taken from pyarrow's own answer on no rows, which
also checks the aggregations and options with pyarrow's errors).

Row order: the groups in the order of their first row (pyarrow's order with
use_threads=False; with use_threads=True pyarrow's order is unspecified and
this one does not change: use_threads is taken and has no effect, the
library's worker pool, ARROWMETAL_THREADS, decides). Groups compare keys by their bits: 0.0 and -0.0
are two groups, every NaN of one bit pattern one group; a null key is a
group of its own. String and binary keys group by their bytes; over string
value columns count, count_distinct, min, max, min_max, first, last, list
and distinct run here (bytewise order, pyarrow's). Decimal keys group by
value; over decimal columns every aggregate pyarrow has for them runs here.
Dictionary keys group by index, as pyarrow's grouper does (a dictionary key
whose chunks have different dictionaries is refused with its error), and
come back as dictionary arrays; over dictionary columns count,
count_distinct and distinct run here.

Aggregates am_group_by lacks (pyarrow's "tdigest", "approximate_median",
"one", "pivot_wider"...), columns of types the library has no kernel for
and a group-by without keys run in pyarrow (counted and announced as every
fallback, see _fallback).
"""

from __future__ import annotations

import warnings

from . import _fallback
from ._array import wrap
from ._capi import ffi, lib
from ._compute import _operand
from ._errors import ArrowMetalTypeError, ArrowMetalUnsupported, error_from_status
from ._options import read_fields
from ._state import drop
from ._tables import as_pyarrow_table, as_table, column_array, empty_table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    import pyarrow as pa

__all__ = ["TableGroupBy", "group_by"]

# pyarrow's aggregate name (without "hash_") -> am_group_op
_OPS = {
    "count": lib.AM_GROUP_COUNT,
    "count_distinct": lib.AM_GROUP_COUNT_DISTINCT,
    "sum": lib.AM_GROUP_SUM,
    "product": lib.AM_GROUP_PRODUCT,
    "mean": lib.AM_GROUP_MEAN,
    "min": lib.AM_GROUP_MIN,
    "max": lib.AM_GROUP_MAX,
    "min_max": lib.AM_GROUP_MIN_MAX,
    "first": lib.AM_GROUP_FIRST,
    "last": lib.AM_GROUP_LAST,
    "any": lib.AM_GROUP_ANY,
    "all": lib.AM_GROUP_ALL,
    "variance": lib.AM_GROUP_VARIANCE,
    "stddev": lib.AM_GROUP_STDDEV,
    "list": lib.AM_GROUP_LIST,
    "distinct": lib.AM_GROUP_DISTINCT,
    "count_all": lib.AM_GROUP_COUNT_ALL,
}
_COUNT_MODES = {
    "only_valid": lib.AM_COUNT_VALID,
    "only_null": lib.AM_COUNT_NULL,
    "all": lib.AM_COUNT_ALL,
}


def _counted_fallback(name: str, reason: str, run: Callable[[], Any]) -> Any:
    """run() (pyarrow's own group-by or join), counted and announced as
    _fallback's calls are (or refused under ARROWMETAL_FALLBACK=error)."""
    with _fallback._lock:
        first = name not in _fallback._counts
        _fallback._counts[name] = _fallback._counts.get(name, 0) + 1
    if _fallback.MODE == "error":
        raise ArrowMetalUnsupported(
            f"{name}: {reason}; ARROWMETAL_FALLBACK=error forbids running it with pyarrow"
        )
    if first:
        warnings.warn(
            f"arrowmetal.{name}: {reason}; running pyarrow's {name} on the CPU "
            "(warned once per function; am.fallbacks() counts the calls)",
            _fallback.ArrowMetalFallbackWarning,
            stacklevel=4,
        )
    return run()


def _run_in_pyarrow(table: Any, keys: list[str], use_threads: bool, aggregations: Any,
                    reason: str) -> pa.Table:  # fmt: skip
    return _counted_fallback(
        "group_by", reason,
        lambda: as_pyarrow_table(table).group_by(keys, use_threads=use_threads)
        .aggregate(aggregations),
    )  # fmt: skip


def _parse(aggregations: Any) -> list[tuple[list[str], str, Any]]:
    """[(column names, aggregate name without "hash_", options)]."""
    parsed = []
    for agg in aggregations:
        if len(agg) == 2:
            target, func = agg
            options = None
        else:
            target, func, options = agg
        if isinstance(target, str):
            cols = [target]
        else:
            cols = list(target)
        func = func.removeprefix("hash_")
        parsed.append((cols, func, options))
    return parsed


def _spec(func: str, column: int, options: Any) -> Any:
    """The am_group_aggregate fields of one request (pyarrow has checked the
    options' class)."""
    spec = ffi.new("am_group_aggregate *")
    rc = lib.am_group_aggregate_default(_OPS[func], column, spec)
    if rc:
        raise error_from_status(rc)
    if options is not None:
        fields = read_fields(options)
        if "skip_nulls" in fields:
            spec.skip_nulls = int(bool(fields["skip_nulls"]))
        if "min_count" in fields:
            spec.min_count = int(fields["min_count"])
        if "ddof" in fields:
            spec.ddof = int(fields["ddof"])
        if "mode" in fields:
            spec.count_mode = _COUNT_MODES[fields["mode"]]
    return spec


def _pyarrow(handle: Any) -> Any:
    """A result handle as a pyarrow array (a dictionary array is one already)."""
    got = wrap(handle)
    return got.to_pyarrow() if hasattr(got, "to_pyarrow") else got


def _check_dictionaries(table: Any, names: list[str]) -> None:
    """pyarrow's refusal of a dictionary key column whose chunks have
    different dictionaries (its grouper takes one dictionary a key)."""
    import pyarrow as pa

    for name in names:
        col = table.column(name)
        if not isinstance(col, pa.ChunkedArray) or not pa.types.is_dictionary(col.type):
            continue
        first = col.chunk(0).dictionary if col.num_chunks else None
        if any(not c.dictionary.equals(first) for c in col.chunks[1:]):
            raise pa.ArrowNotImplementedError("Unifying differing dictionaries")


def _result_schema(empty: pa.Table, keys: list[str], aggregations: Any) -> pa.Schema:
    """pyarrow's result schema of the group-by (its errors for bad columns,
    aggregates and options), from its answer on no rows. pyarrow 26 aborts
    the process on "distinct" over an empty dictionary column, so that one
    is asked as "count_distinct" (the same options) and typed as pyarrow
    types it: a list of the column's dictionary type."""
    import pyarrow as pa

    asked, lists = [], {}
    for i, agg in enumerate(aggregations):
        target, func = agg[0], agg[1]
        names = [target] if isinstance(target, str) else list(target)
        if (func.removeprefix("hash_") == "distinct" and len(names) == 1
                and names[0] in empty.schema.names
                and pa.types.is_dictionary(empty.schema.field(names[0]).type)):  # fmt: skip
            asked.append((target, "count_distinct", *agg[2:]))
            lists[len(keys) + i] = pa.list_(empty.schema.field(names[0]).type)
        else:
            asked.append(agg)
    schema = empty.group_by(keys, use_threads=False).aggregate(asked).schema
    for i, t in lists.items():
        name = schema.field(i).name.removesuffix("count_distinct") + "distinct"
        schema = schema.set(i, pa.field(name, t))
    return schema


class TableGroupBy:
    """A table grouped by key columns (pa.TableGroupBy's counterpart): call
    aggregate() for the groups' key values and aggregates."""

    def __init__(self, table: Any, keys: str | list[str], use_threads: bool = True) -> None:
        self._table = as_table(table, "group_by")
        self.keys = [keys] if isinstance(keys, str) else list(keys)
        self._use_threads = use_threads

    def aggregate(self, aggregations: list[tuple[Any, ...]]) -> pa.Table:
        """The groups' keys and one column per aggregation (pa.TableGroupBy.aggregate)."""
        import pyarrow as pa

        table, keys = self._table, self.keys
        # pyarrow's own answer on no rows: the names, types and order of the
        # result, and pyarrow's errors for bad columns, aggregates and options
        schema = _result_schema(empty_table(table), keys, aggregations)
        parsed = _parse(aggregations)
        unsupported = [f for _, f, _ in parsed if f not in _OPS]
        if not keys or unsupported:
            why = f"aggregate {unsupported[0]!r}" if unsupported else "a group-by without keys"
            return _run_in_pyarrow(table, keys, self._use_threads, aggregations,
                                   f"{why} is not supported")  # fmt: skip
        for cols, func, _ in parsed:
            if len(cols) != (0 if func == "count_all" else 1):
                raise ArrowMetalUnsupported(f"group_by: {func!r} over columns {cols!r}")
        _check_dictionaries(table, keys)
        columns: list[str] = []
        for cols, _, _ in parsed:
            for c in cols:
                if c not in columns:
                    columns.append(c)
        handles: list[Any] = []
        tmps: list[Any] = []
        try:
            try:
                for name in keys + columns:
                    # an am.Table's column stays on its device
                    p, tmp = _operand(column_array(table, name), None)
                    handles.append(p)
                    if tmp is not None:
                        tmps.append(tmp)
            except ArrowMetalTypeError as e:
                return _run_in_pyarrow(table, keys, self._use_threads, aggregations, str(e))
            specs = ffi.new("am_group_aggregate[]", max(len(parsed), 1))
            for i, (cols, func, options) in enumerate(parsed):
                column = columns.index(cols[0]) if cols else 0
                specs[i] = _spec(func, column, options)[0]
            n_keys = len(keys)
            key_handles = ffi.new("am_array *[]", handles[:n_keys])
            value_handles = ffi.new("am_array *[]", handles[n_keys:] or [ffi.NULL])
            keys_out = ffi.new("am_array *[]", n_keys)
            results = ffi.new("am_group_result[]", max(len(parsed), 1))
            rc = lib.am_group_by(key_handles, n_keys, value_handles, len(columns), specs,
                                 len(parsed), keys_out, results)  # fmt: skip
            if rc == lib.AM_ETYPE:  # a column type without a group-by kernel (decimals...)
                return _run_in_pyarrow(table, keys, self._use_threads, aggregations,
                                       str(error_from_status(rc)))  # fmt: skip
            if rc:
                raise error_from_status(rc)
        finally:
            for t in tmps:
                drop(t)
        out = [_pyarrow(keys_out[k]) for k in range(n_keys)]
        for i, (_, func, _) in enumerate(parsed):
            r = results[i]
            values = _pyarrow(r.values)
            field = schema.field(n_keys + i)
            if func == "min_max":
                maximum = _pyarrow(r.max)
                out.append(pa.StructArray.from_arrays([values, maximum], fields=list(field.type)))
            elif func in ("list", "distinct"):
                offsets = _pyarrow(r.offsets)
                out.append(pa.ListArray.from_arrays(offsets, values, type=field.type))
            else:
                out.append(values)
        return pa.Table.from_arrays(out, schema=schema)


def group_by(table: Any, keys: str | list[str], use_threads: bool = True) -> TableGroupBy:
    """The table grouped by its `keys` columns (pa.Table.group_by): call
    .aggregate([(column, "sum"), ...]) on the result (am_group_by)."""
    return TableGroupBy(table, keys, use_threads)
