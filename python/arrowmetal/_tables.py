"""Tables: ``am.Table`` and ``am.table()``, and the one place tabular inputs
are recognised (pa.Table, pa.RecordBatch, am.Table, and anything with an
Arrow C stream: a polars DataFrame...).

An am.Table is the C library's ``am_table``: a schema and record batches,
each an ``AM_STRUCT`` handle whose children are the columns' ``am_array``
handles on one device. ``am.table(obj, device=None)`` reads the producer's
``__arrow_c_stream__`` with ``am_import_stream`` (one C call: zero-copy on
the CPU, each column uploaded once to a GPU device) -- a pa.Table's
chunking is kept as its batches. ``am.Table.__arrow_c_stream__`` is
``am_export_stream``, so ``pa.table(am_table)`` shares the buffers of CPU
columns.

Chunking: ``.batches`` lists the batches, each a list of am.Array columns;
``.column(i)`` is one am.Array: the only batch's column as it is, or, with
several batches, the batches' pieces joined on their device by am.concat
(a copy, made once and cached -- as pyarrow.compute combines a
ChunkedArray's chunks for its whole-table functions). A column that is a
struct (a nested record) is an am.Table of one batch.
"""

from __future__ import annotations

import sys

from ._array import Array, wrap
from ._capi import NAME_DEVICE_STREAM, NAME_STREAM, capsule_pointer, ffi, lib
from ._chunked import is_chunked
from ._devices import device_name, device_ptr
from ._errors import ArrowMetalInvalid, error_from_status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pyarrow as pa

    from ._typing import DeviceLike

__all__ = [
    "Table",
    "as_pyarrow_table",
    "as_table",
    "column_array",
    "empty_table",
    "table",
    "table_from_columns",
    "table_or_none",
]

_NULL = ffi.NULL


def _check(rc: int) -> None:
    if rc:
        raise error_from_status(rc)


def _wrap_column(p: Any) -> Any:
    """An am.Array of a column handle; a struct column as an am.Table."""
    if lib.am_array_type(p) == lib.AM_STRUCT:
        try:
            out = ffi.new("am_table **")
            _check(lib.am_table_make(ffi.new("am_array *[]", [p]), 1, out))
        finally:
            lib.am_release(p)
        return Table._own(out[0])
    return wrap(p)


class Table:
    """An immutable table of am.Array columns kept on their device.

    Made by ``am.table(obj, device=None)``; see the module's notes for its
    batches and columns."""

    __slots__ = ("__weakref__", "_batches", "_columns", "_ptr", "_schema")

    if TYPE_CHECKING:
        _ptr: Any  # am_table * (None once released)
        _schema: pa.Schema  # cached, once read
        _batches: list[list[Any]]  # cached column handles of each batch
        _columns: dict[int, Any]  # cached whole columns

    def __init__(self, obj: Any, device: DeviceLike | None = None) -> None:
        made = table(obj, device)
        self._ptr, made._ptr = made._ptr, None

    @classmethod
    def _own(cls, p: Any) -> Table:
        t = object.__new__(cls)
        t._ptr = p
        return t

    def __del__(self, _release: Any = lib.am_table_release) -> None:
        p = getattr(self, "_ptr", None)
        if p is not None:
            self._ptr = None
            _release(p)

    # -- shape and schema
    @property
    def handle(self) -> Any:
        """The underlying ``am_table *`` (borrowed: valid while this lives)."""
        return self._ptr

    @property
    def num_rows(self) -> int:
        return int(lib.am_table_num_rows(self._ptr))

    def __len__(self) -> int:
        return self.num_rows

    @property
    def num_batches(self) -> int:
        return int(lib.am_table_num_batches(self._ptr))

    @property
    def schema(self) -> pa.Schema:
        """The pyarrow schema (names, types, nullability)."""
        try:
            return self._schema
        except AttributeError:
            import pyarrow as pa

            sch = ffi.new("struct ArrowSchema *")
            _check(lib.am_table_schema(self._ptr, sch))
            try:
                self._schema = pa.Schema._import_from_c(int(ffi.cast("uintptr_t", sch)))
            finally:
                if sch.release != _NULL:
                    sch.release(sch)
            return self._schema

    @property
    def column_names(self) -> list[str]:
        return list(self.schema.names)

    @property
    def num_columns(self) -> int:
        return len(self.schema)

    @property
    def shape(self) -> tuple[int, int]:
        return self.num_rows, self.num_columns

    @property
    def device(self) -> str:
        """The device of the columns (the default device's name when the
        table has no batches or no columns)."""
        for batch in self.batches:
            for c in batch:
                return c.device
        return device_name(lib.am_default_device())

    # -- batches and columns
    @property
    def batches(self) -> list[list[Any]]:
        """Each record batch as its list of columns (am.Array; am.Table for a
        struct column)."""
        try:
            return self._batches
        except AttributeError:
            pass
        batches = []
        out = ffi.new("am_array **")
        for b in range(self.num_batches):
            _check(lib.am_table_batch(self._ptr, b, out))
            p = out[0]
            try:
                cols = []
                for i in range(lib.am_struct_num_fields(p)):
                    _check(lib.am_struct_field(p, i, out))
                    cols.append(_wrap_column(out[0]))
            finally:
                lib.am_release(p)
            batches.append(cols)
        self._batches = batches
        return batches

    def _index(self, i: int | str) -> int:
        if isinstance(i, str):
            names = self.column_names
            if names.count(i) != 1:
                raise KeyError(f"Field {i!r} does not exist in schema" if i not in names
                               else f"Field {i!r} exists {names.count(i)} times in schema")  # fmt: skip
            return names.index(i)
        n = self.num_columns
        if not -n <= i < n:
            raise IndexError(f"column index {i} out of range for {n} columns")
        return i % n

    def column(self, i: int | str) -> Any:
        """Column `i` (index or name) as one am.Array on the table's device."""
        i = self._index(i)
        cache: dict[int, Any] | None = getattr(self, "_columns", None)
        if cache is None:
            cache = self._columns = {}
        if i in cache:
            return cache[i]
        pieces = [batch[i] for batch in self.batches]
        if len(pieces) == 1:
            got = pieces[0]
        elif not pieces:
            import pyarrow as pa

            got = Array(pa.array([], type=self.schema.field(i).type))
        elif isinstance(pieces[0], Table):
            got = table(pa_concat([p.to_pyarrow() for p in pieces]), pieces[0].device)
        else:  # joined where they are: am_concat on their device
            out = ffi.new("am_array **")
            handles = ffi.new("am_array *[]", [p._ptr for p in pieces])
            _check(lib.am_concat(handles, len(pieces), _NULL, out))
            got = wrap(out[0])
        cache[i] = got
        return got

    @property
    def columns(self) -> list[Any]:
        return [self.column(i) for i in range(self.num_columns)]

    def __getitem__(self, i: int | str) -> Any:
        return self.column(i)

    # -- conversions
    def to_pyarrow(self) -> pa.Table:
        """A pa.Table of the same batches (zero-copy from the CPU)."""
        import pyarrow as pa

        return pa.table(self)

    def to_device(self, device: DeviceLike) -> Table:
        """This table on another device (each batch's columns moved)."""
        return table(self, device)

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """An ``arrow_array_stream`` PyCapsule of the batches (am_export_stream)."""
        from ._exporters import export_stream_capsule

        if requested_schema is not None and not self._matches(requested_schema):
            raise ArrowMetalInvalid(
                "am.Table.__arrow_c_stream__: casting to a requested schema is not supported",
                lib.AM_EINVAL,
            )
        return export_stream_capsule(self._ptr)

    def __arrow_c_device_stream__(
        self, requested_schema: object | None = None, **kwargs: object
    ) -> object:
        """An ``arrow_device_array_stream`` PyCapsule of the batches where they
        live (am_export_device_stream: GPU batches stay in device memory).
        Keyword arguments the protocol may add later are ignored."""
        from ._exporters import export_stream_capsule

        if requested_schema is not None and not self._matches(requested_schema):
            raise ArrowMetalInvalid(
                "am.Table.__arrow_c_device_stream__: casting to a requested schema is not "
                "supported",
                lib.AM_EINVAL,
            )
        return export_stream_capsule(self._ptr, device=True)

    def _matches(self, requested_schema: object) -> bool:
        import pyarrow as pa

        try:
            requested = pa.Schema._import_from_c_capsule(requested_schema)
            return bool(requested.equals(self.schema))
        except Exception:  # noqa: BLE001 - any unreadable request: not ours to honour
            return False

    def equals(self, other: Any) -> bool:
        return self.to_pyarrow().equals(as_pyarrow_table(other))

    def __repr__(self) -> str:
        return (
            f"arrowmetal.Table on {self.device}: {self.num_rows} rows, "
            f"{self.num_batches} batches\n{self.schema}"
        )


def pa_concat(tables: list[Any]) -> Any:
    import pyarrow as pa

    return pa.concat_tables(tables)


def _stream_capsule(obj: Any) -> Any:
    """The producer's ``arrow_array_stream`` capsule."""
    pa = sys.modules.get("pyarrow")
    if (
        pa is not None
        and isinstance(obj, pa.RecordBatch)
        and not hasattr(obj, "__arrow_c_stream__")
    ):
        obj = pa.Table.from_batches([obj])  # older pyarrow: a one-batch table, zero-copy
    return obj.__arrow_c_stream__()


def _from_batch_handles(handles: list[Any]) -> Table:
    out = ffi.new("am_table **")
    _check(lib.am_table_make(ffi.new("am_array *[]", handles), len(handles), out))
    return Table._own(out[0])


def _moved(t: Table, device: DeviceLike | None) -> Table:
    """`t` with every column on `device` (the same table when already there)."""
    dev = device_ptr(device)
    if dev == _NULL or t.num_batches == 0:
        return t
    target = device_name(dev)
    if all(c.device == target for b in t.batches for c in b if isinstance(c, Array)):
        return t
    handles = []
    try:
        for batch in t.batches:
            cols = [
                c.to_device(device) if isinstance(c, Array) else _moved(c, device) for c in batch
            ]
            handles.append(_struct_of(t.column_names, cols, None))
        return _from_batch_handles(handles)
    finally:
        for h in handles:
            lib.am_release(h)


def _struct_of(names: list[str], columns: list[Any], length: int | None) -> Any:
    """An owned AM_STRUCT handle over am.Array / one-batch am.Table columns."""
    ptrs = []
    keep = []
    out = ffi.new("am_array **")
    for c in columns:
        if isinstance(c, Table):
            _check(lib.am_table_batch(c._ptr, 0, out))
            keep.append(out[0])
            ptrs.append(out[0])
        else:
            ptrs.append(c._ptr)
    try:
        if length is None:
            length = len(columns[0]) if columns else 0
        cnames = [ffi.new("char[]", n.encode()) for n in names]
        rc = lib.am_struct_make(
            ffi.new("char *[]", cnames or [_NULL]),
            ffi.new("am_array *[]", ptrs or [_NULL]),
            len(ptrs),
            length,
            out,
        )
        _check(rc)
        return out[0]
    finally:
        for p in keep:
            lib.am_release(p)


def table_from_columns(names: list[str], columns: list[Any], num_rows: int | None = None) -> Table:
    """A one-batch am.Table over am.Array columns (shared, not copied)."""
    h = _struct_of(names, columns, num_rows)
    try:
        return _from_batch_handles([h])
    finally:
        lib.am_release(h)


def table(obj: Any, device: DeviceLike | None = None) -> Table:
    """An am.Table of a pa.Table, pa.RecordBatch, polars DataFrame or any
    ``__arrow_c_device_stream__`` or ``__arrow_c_stream__`` producer of
    record batches (am_import_device_stream, preferred: device batches
    zero-copy; am_import_stream: zero-copy on the CPU; batches kept), on
    `device` (None: the default device; an am.Table given with no device
    stays where it is)."""
    if isinstance(obj, Table):
        return _moved(obj, device)
    if hasattr(obj, "__arrow_c_device_stream__"):
        cap, name, kind = obj.__arrow_c_device_stream__(), NAME_DEVICE_STREAM, "Device"
    elif hasattr(obj, "__arrow_c_stream__") or _is_record_batch(obj):
        cap, name, kind = _stream_capsule(obj), NAME_STREAM, ""
    else:
        raise TypeError(
            "am.table: expected a pa.Table, a pa.RecordBatch, an am.Table or an object "
            f"with __arrow_c_device_stream__ or __arrow_c_stream__, got {type(obj).__name__}"
        )
    address = capsule_pointer(cap, name)
    if not address:
        raise ArrowMetalInvalid(f"expected a PyCapsule named {name.decode()!r}", lib.AM_EINVAL)
    st = ffi.cast(f"struct Arrow{kind}ArrayStream *", address)
    out = ffi.new("am_table **")
    # The stream is consumed (released) by the call whatever it answers;
    # the capsule's destructor then finds it released.
    importer = lib.am_import_device_stream if kind else lib.am_import_stream
    _check(importer(st, device_ptr(device), out))
    return Table._own(out[0])


def _is_record_batch(obj: Any) -> bool:
    pa = sys.modules.get("pyarrow")
    return pa is not None and isinstance(obj, pa.RecordBatch)


# ---------------------------------------------------------------------------
# Tabular inputs of the table functions (sort_indices, sort_by, group_by, join)


def table_or_none(obj: Any) -> Any:
    """A pa.Table, pa.RecordBatch or am.Table as it is; a tabular object with
    an Arrow C stream read as a pa.Table; None for arrays (which may have a
    stream too, but also ``__arrow_c_array__``)."""
    import pyarrow as pa

    if isinstance(obj, (pa.Table, pa.RecordBatch, Table)):
        return obj
    tabular = hasattr(obj, "__arrow_c_stream__") and not hasattr(obj, "__arrow_c_array__")
    if tabular and type(obj) is not Array and not is_chunked(obj):
        return pa.table(obj)
    return None


def as_table(obj: Any, name: str) -> Any:
    """`obj` as a pa.Table (a RecordBatch as a one-batch table), or an
    am.Table as it is; a TypeError naming function `name` for anything that
    is not tabular."""
    import pyarrow as pa

    if isinstance(obj, (pa.Table, Table)):
        return obj
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    if hasattr(obj, "__arrow_c_stream__"):
        return pa.table(obj)
    raise TypeError(
        f"{name}: expected a pa.Table, a pa.RecordBatch, an am.Table or an object with "
        f"__arrow_c_stream__, got {type(obj).__name__}"
    )


def as_pyarrow_table(obj: Any) -> Any:
    """A pa.Table / pa.RecordBatch as it is; an am.Table as a pa.Table
    (zero-copy from the CPU); anything else through pa.table."""
    import pyarrow as pa

    if isinstance(obj, (pa.Table, pa.RecordBatch)):
        return obj
    return pa.table(obj)


def empty_table(obj: Any) -> pa.Table:
    """A pa.Table of no rows with the table's schema (for pyarrow's answer
    on no rows: result names, types, and pyarrow's argument errors)."""
    if isinstance(obj, Table):
        return obj.schema.empty_table()
    return obj.slice(0, 0)


def column_array(obj: Any, name: str) -> Any:
    """Column `name` as one array: an am.Array of an am.Table (on its
    device), a pyarrow Array of a pa.Table (its chunks combined)."""
    col = obj.column(name)
    if isinstance(col, Table):
        return col.to_pyarrow().to_struct_array().combine_chunks()
    if is_chunked(col):
        return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return col
