"""Hash joins: ``am.join(left, right, keys, ...)``, mirroring pa.Table.join, on
the C library's am_join_indices (the row pairs), with the columns gathered
by am.take (and the coalesced keys of a full outer join by am.coalesce).

Inputs: pa.Table, pa.RecordBatch, am.Table or anything with
``__arrow_c_stream__``. With an am.Table on either side the other side is
made an am.Table on its device, the keys and gathered columns stay there,
and the result is an am.Table of one batch; otherwise the result is a
pa.Table with pyarrow's columns, names (suffixes on
collisions), types and key coalescing -- taken from pyarrow's own answer on
no rows, which also checks the arguments with pyarrow's errors. Row order:
left rows in order, each with its matches in right order, then the unmatched
right rows (pyarrow's order is unspecified). Null keys never match; float
keys match by bits (0.0 and -0.0 apart), string and binary keys by their
bytes, decimal keys by value (one type, precision and scale), dictionary
keys by value (against a dictionary or a plain array of the value type).
Key columns of types the library has no kernel for and a filter_expression
run in pyarrow (counted and announced, see _fallback); other columns of
such types are gathered by pyarrow's take the same way.
"""

from __future__ import annotations

from ._array import Array, wrap
from ._capi import ffi, lib
from ._chunked import combined
from ._compute import _operand, take
from ._errors import ArrowMetalTypeError, ArrowMetalUnsupported, error_from_status
from ._groupby import _counted_fallback
from ._state import drop
from ._tables import (
    Table,
    as_pyarrow_table,
    as_table,
    column_array,
    empty_table,
    table,
    table_from_columns,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pyarrow as pa

__all__ = ["join"]

_TYPES = {
    "inner": lib.AM_JOIN_INNER,
    "left outer": lib.AM_JOIN_LEFT_OUTER,
    "right outer": lib.AM_JOIN_RIGHT_OUTER,
    "full outer": lib.AM_JOIN_FULL_OUTER,
    "left semi": lib.AM_JOIN_LEFT_SEMI,
    "left anti": lib.AM_JOIN_LEFT_ANTI,
    "right semi": lib.AM_JOIN_RIGHT_SEMI,
    "right anti": lib.AM_JOIN_RIGHT_ANTI,
}


def _pa(x: Any) -> Any:
    return x.to_pyarrow() if isinstance(x, Array) else x


def _gather(column: Any, indices: Array | None) -> Any:
    assert indices is not None  # the side the join type gives
    if isinstance(column, Table):
        raise ArrowMetalUnsupported("join: a struct column of an am.Table is not supported")
    if isinstance(column, Array):  # an am.Table's: the result stays on its device
        return take(column, indices)
    got = _pa(take(combined(column), indices))
    return got.combine_chunks() if hasattr(got, "combine_chunks") else got


def _is_dictionary(x: Any) -> bool:
    import pyarrow as pa

    return isinstance(x, pa.Array) and pa.types.is_dictionary(x.type)


def _coalesced(left: Any, right: Any, to_type: Any) -> Any:
    """A full outer join's key column: the left rows' keys, else the right
    rows'. Dictionary keys are coalesced by their values (pyarrow's error
    for two dictionary types that differ); where pyarrow's result is a
    dictionary array (both sides are), its indices point into the two
    dictionaries one after the other (the same values as pyarrow's, whose
    dictionary is unified)."""
    import pyarrow as pa

    from ._compute import add, cast
    from ._hash import dictionary_decode
    from ._nulls import coalesce

    if not (_is_dictionary(left) or _is_dictionary(right)):
        return coalesce(left, right)
    if _is_dictionary(left) and _is_dictionary(right) and left.type != right.type:
        raise pa.ArrowTypeError(
            f"All types must be compatible, expected: {left.type}, but got: {right.type}"
        )
    if not pa.types.is_dictionary(to_type):
        return coalesce(dictionary_decode(left), dictionary_decode(right))
    # a row's left index when it has one (its key equals the right's then)
    shifted = add(cast(right.indices, pa.int64()), len(left.dictionary))
    either: Any = coalesce(cast(left.indices, pa.int64()), shifted)
    indices = cast(either, to_type.index_type)
    return pa.DictionaryArray.from_arrays(
        _pa(indices), pa.concat_arrays([left.dictionary, right.dictionary]),
        ordered=to_type.ordered,
    )  # fmt: skip


def join(
    left: Any,
    right: Any,
    keys: str | list[str],
    right_keys: str | list[str] | None = None,
    join_type: str = "left outer",
    left_suffix: str | None = None,
    right_suffix: str | None = None,
    coalesce_keys: bool = True,
    use_threads: bool = True,
    filter_expression: Any = None,
) -> Any:
    """The join of two tables (pa.Table.join's arguments and result; am_join_indices)."""
    import pyarrow as pa

    lt, rt = as_table(left, "join"), as_table(right, "join")
    # An am.Table on either side: both sides are am.Tables on its device, and
    # so is the result.
    am_result = isinstance(lt, Table) or isinstance(rt, Table)
    if am_result:
        device = (lt if isinstance(lt, Table) else rt).device
        lt, rt = table(lt, device), table(rt, device)
    lkeys = [keys] if isinstance(keys, str) else list(keys)
    if right_keys is None:
        rkeys = lkeys
    else:
        rkeys = [right_keys] if isinstance(right_keys, str) else list(right_keys)
    kwargs: dict[str, Any] = {"right_keys": right_keys, "join_type": join_type,
                              "left_suffix": left_suffix, "right_suffix": right_suffix,
                              "coalesce_keys": coalesce_keys}  # fmt: skip
    # pyarrow's answer on no rows: the result's columns, names and types, and
    # pyarrow's errors for bad keys, join types and key type pairs
    schema = empty_table(lt).join(empty_table(rt), keys, use_threads=False, **kwargs).schema

    def in_pyarrow(reason: str) -> pa.Table:
        return _counted_fallback(
            "join", reason,
            lambda: as_pyarrow_table(lt).join(as_pyarrow_table(rt), keys, use_threads=use_threads,
                                              filter_expression=filter_expression, **kwargs),
        )  # fmt: skip

    if filter_expression is not None:
        return in_pyarrow("a filter_expression is not supported")
    handles: list[Any] = []
    tmps: list[Any] = []
    try:
        try:
            for name in lkeys:
                handles.append(_operand(column_array(lt, name), None))
            for name in rkeys:
                handles.append(_operand(column_array(rt, name), None))
        except ArrowMetalTypeError as e:
            return in_pyarrow(str(e))
        tmps = [t for _, t in handles if t is not None]
        ptrs = [p for p, _ in handles]
        n = len(lkeys)
        lk = ffi.new("am_array *[]", ptrs[:n])
        rk = ffi.new("am_array *[]", ptrs[n:])
        li, ri = ffi.new("am_array **"), ffi.new("am_array **")
        rc = lib.am_join_indices(lk, rk, n, _TYPES[join_type], li, ri)
        if rc == lib.AM_ETYPE:  # a key type without a join kernel (decimals...)
            return in_pyarrow(str(error_from_status(rc)))
        if rc:
            raise error_from_status(rc)
    finally:
        for t in tmps:
            drop(t)
    left_rows = wrap(li[0]) if li[0] != ffi.NULL else None
    right_rows = wrap(ri[0]) if ri[0] != ffi.NULL else None
    cols: list[Any] = []
    if join_type in ("left semi", "left anti"):
        cols = [_gather(c, left_rows) for c in lt.columns]
    elif join_type in ("right semi", "right anti"):
        cols = [_gather(c, right_rows) for c in rt.columns]
    elif not coalesce_keys:
        cols = [_gather(c, left_rows) for c in lt.columns]
        cols += [_gather(c, right_rows) for c in rt.columns]
    elif join_type == "right outer":  # the right side's keys stand
        cols = [_gather(lt.column(c), left_rows) for c in lt.column_names if c not in lkeys]
        cols += [_gather(c, right_rows) for c in rt.columns]
    else:
        partner = dict(zip(lkeys, rkeys))
        for name in lt.column_names:
            got = _gather(lt.column(name), left_rows)
            if join_type == "full outer" and name in partner:
                other = _gather(rt.column(partner[name]), right_rows)
                got = _coalesced(got, other, schema.field(name).type)
                got = got if am_result else _pa(got)
            cols.append(got)
        cols += [_gather(rt.column(c), right_rows) for c in rt.column_names if c not in rkeys]
    if am_result:
        rows = left_rows if left_rows is not None else right_rows
        return table_from_columns(schema.names, cols, len(rows) if rows is not None else 0)
    return pa.Table.from_arrays(cols, schema=schema)
