"""Tabular inputs: pa.Table, pa.RecordBatch, and anything with an Arrow C
stream (a polars DataFrame...), read as a pa.Table."""

from __future__ import annotations

from ._array import Array
from ._chunked import is_chunked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pyarrow as pa

__all__ = ["as_table", "table_or_none"]


def table_or_none(obj: Any) -> Any:
    """A pa.Table or pa.RecordBatch as it is; a tabular object with an Arrow
    C stream read as a pa.Table; None for arrays (which may have a stream
    too, but also ``__arrow_c_array__``)."""
    import pyarrow as pa

    if isinstance(obj, (pa.Table, pa.RecordBatch)):
        return obj
    tabular = hasattr(obj, "__arrow_c_stream__") and not hasattr(obj, "__arrow_c_array__")
    if tabular and type(obj) is not Array and not is_chunked(obj):
        return pa.table(obj)
    return None


def as_table(obj: Any, name: str) -> pa.Table:
    """`obj` as a pa.Table (a RecordBatch as a one-batch table); a TypeError
    naming function `name` for anything that is not tabular."""
    import pyarrow as pa

    if isinstance(obj, pa.Table):
        return obj
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    if hasattr(obj, "__arrow_c_stream__"):
        return pa.table(obj)
    raise TypeError(
        f"{name}: expected a pa.Table, a pa.RecordBatch or an object with "
        f"__arrow_c_stream__, got {type(obj).__name__}"
    )
