"""Tables (issue #12): struct arrays and record batches through am_import /
am_export, am_table from an ArrowArrayStream and back, and am.Table in Python.

The C-level tests drive the ABI through cffi and count release callbacks
(the parent ArrowArray of an import, each batch of a stream, the stream
itself), the way conformance/amabi.py counts them: a callback interposed on
the struct records the call and forwards to the producer's."""

import errno
import gc

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal import _exporters
from arrowmetal._capi import ffi, lib


def _addr(p):
    return int(ffi.cast("uintptr_t", p))


def _error():
    return ffi.string(lib.am_last_error()).decode()


CPU = ffi.new("am_device **")
assert lib.am_device_open(b"cpu", CPU) == 0
CPU = CPU[0]

# ---- release counting --------------------------------------------------------------------

_counters = {}


@ffi.callback("void(struct ArrowArray *)")
def _counting_release(arr):
    counter = _counters[_addr(arr.private_data)]
    counter.count += 1
    arr.private_data, arr.release = counter.private, counter.release
    if counter.release != ffi.NULL:
        counter.release(arr)
    arr.release = ffi.NULL


class Counter:
    """Interposes on `c_array`'s release: .count is how often it ran."""

    def __init__(self, c_array):
        self.count = 0
        self.release, self.private = c_array.release, c_array.private_data
        self.key = ffi.new("char[1]")
        _counters[_addr(self.key)] = self
        c_array.private_data = self.key
        c_array.release = _counting_release


def exported(obj):
    """(schema, array) structs of a pyarrow array or record batch."""
    schema = ffi.new("struct ArrowSchema *")
    array = ffi.new("struct ArrowArray *")
    obj._export_to_c(_addr(array), _addr(schema))
    return schema, array


def import_struct(obj):
    """am_import of a record batch / struct array: (rc, handle, counter, message)."""
    schema, array = exported(obj)
    counter = Counter(array)
    out = ffi.new("am_array **")
    rc = lib.am_import(schema, array, CPU, out)
    message = _error() if rc else ""
    schema.release(schema)
    assert array.release == ffi.NULL  # moved in, success or not
    return rc, (out[0] if rc == 0 else None), counter, message


def field(handle, i):
    out = ffi.new("am_array **")
    assert lib.am_struct_field(handle, i, out) == 0, _error()
    return out[0]


def to_pyarrow(handle):
    schema = ffi.new("struct ArrowSchema *")
    array = ffi.new("struct ArrowArray *")
    assert lib.am_export(handle, schema, array) == 0, _error()
    return pa.RecordBatch._import_from_c(_addr(array), _addr(schema))


BATCH = pa.record_batch(
    {
        "i": pa.array([1, None, 3, 4, 5], pa.int64()),
        "f": pa.array([0.5, 1.5, None, 3.5, 4.5], pa.float32()),
        "b": pa.array([True, False, None, True, True]),
    },
    schema=pa.schema(
        [("i", pa.int64()), ("f", pa.float32(), False), ("b", pa.bool_())],
    ),
)


# ---- struct import --------------------------------------------------------------------------


def test_record_batch_import_is_zero_copy_and_released_once():
    rc, h, counter, msg = import_struct(BATCH)
    assert rc == 0, msg
    assert lib.am_array_type(h) == lib.AM_STRUCT == 64
    assert ffi.string(lib.am_format(h)) == b"+s"
    assert lib.am_length(h) == 5 and lib.am_null_count(h) == 0
    assert lib.am_struct_num_fields(h) == 3
    names = [ffi.string(lib.am_struct_field_name(h, i)).decode() for i in range(3)]
    assert names == ["i", "f", "b"]
    assert [lib.am_struct_field_nullable(h, i) for i in range(3)] == [1, 0, 1]
    assert lib.am_struct_field_name(h, 3) == ffi.NULL
    assert lib.am_struct_field_nullable(h, -1) == -1
    child = field(h, 0)
    schema = ffi.new("struct ArrowSchema *")
    array = ffi.new("struct ArrowArray *")
    assert lib.am_export(child, schema, array) == 0
    col = pa.Array._import_from_c(_addr(array), _addr(schema))
    assert col.equals(BATCH.column(0))
    # zero-copy: the child's data buffer is the producer's
    assert col.buffers()[1].address == BATCH.column(0).buffers()[1].address
    lib.am_release(h)
    assert counter.count == 0  # the column and its export still share the buffers
    lib.am_release(child)
    assert counter.count == 0
    del col
    gc.collect()
    assert counter.count == 1


def test_struct_export_round_trip_and_release():
    rc, h, counter, msg = import_struct(BATCH)
    assert rc == 0, msg
    back = to_pyarrow(h)
    assert back.equals(BATCH)
    assert back.schema.field("f").nullable is False
    assert back.column(1).buffers()[1].address == BATCH.column(1).buffers()[1].address
    lib.am_release(h)
    assert counter.count == 0
    del back
    gc.collect()
    assert counter.count == 1


def test_struct_device_export_on_cpu():
    rc, h, counter, msg = import_struct(BATCH)
    assert rc == 0, msg
    schema = ffi.new("struct ArrowSchema *")
    darr = ffi.new("struct ArrowDeviceArray *")
    assert lib.am_export_device(h, schema, darr) == 0, _error()
    assert darr.device_type == lib.ARROW_DEVICE_CPU
    assert darr.array.n_children == 3 and darr.array.length == 5
    back = pa.RecordBatch._import_from_c(_addr(ffi.addressof(darr[0], "array")), _addr(schema))
    assert back.equals(BATCH)
    lib.am_release(h)
    del back
    gc.collect()
    assert counter.count == 1


def test_struct_offset_applies_to_children():
    arr = pa.StructArray.from_arrays(
        [pa.array(range(10), pa.int32()), pa.array([float(x) for x in range(10)])],
        names=["x", "y"],
    ).slice(3, 4)
    rc, h, counter, msg = import_struct(arr)
    assert rc == 0, msg
    assert lib.am_length(h) == 4
    x = field(h, 0)
    assert am._array.wrap(x).to_pylist() == [3, 4, 5, 6]
    back = to_pyarrow(h)
    assert back.to_pydict() == {"x": [3, 4, 5, 6], "y": [3.0, 4.0, 5.0, 6.0]}
    lib.am_release(h)
    del back
    gc.collect()
    assert counter.count == 1


def test_nested_struct_without_nulls():
    inner = pa.StructArray.from_arrays([pa.array([1, 2, 3])], names=["z"])
    batch = pa.record_batch({"a": pa.array([1.0, 2.0, 3.0]), "s": inner})
    rc, h, counter, msg = import_struct(batch)
    assert rc == 0, msg
    s = field(h, 1)
    assert lib.am_array_type(s) == lib.AM_STRUCT and lib.am_struct_num_fields(s) == 1
    assert to_pyarrow(h).equals(batch)
    lib.am_release(s)
    lib.am_release(h)
    gc.collect()
    assert counter.count == 1


def test_struct_with_null_rows_round_trips():
    arr = pa.StructArray.from_arrays(
        [pa.array([1, 2, 3])], names=["x"], mask=pa.array([False, True, False])
    )
    rc, h, counter, msg = import_struct(arr)
    assert rc == 0, msg
    assert lib.am_null_count(h) == 1
    schema, array = ffi.new("struct ArrowSchema *"), ffi.new("struct ArrowArray *")
    assert lib.am_export(h, schema, array) == 0, _error()
    assert pa.Array._import_from_c(_addr(array), _addr(schema)).equals(arr)
    lib.am_release(h)
    gc.collect()
    assert counter.count == 1


def test_bad_child_type_names_the_field():
    intervals = pa.array([pa.MonthDayNano([1, 2, 3]), None], pa.month_day_nano_interval())
    batch = pa.record_batch({"ok": [1, 2], "iv": intervals})
    rc, _h, counter, msg = import_struct(batch)
    assert rc == lib.AM_ETYPE
    assert "field 'iv'" in msg and "'tin'" in msg
    assert counter.count == 1


def test_short_child_is_einval():
    schema, array = exported(BATCH)
    array.length = 6  # one row more than the children have
    counter = Counter(array)
    out = ffi.new("am_array **")
    rc = lib.am_import(schema, array, CPU, out)
    msg = _error()
    schema.release(schema)
    assert rc == lib.AM_EINVAL and "field 'i'" in msg and "shorter" in msg
    assert counter.count == 1


@ffi.callback("void(struct ArrowSchema *)")
def _schema_release(schema):
    schema.release = ffi.NULL


_released = []


@ffi.callback("void(struct ArrowArray *)")
def _array_release(arr):
    _released.append(1)
    arr.release = ffi.NULL


def test_zero_column_batch():
    schema = ffi.new("struct ArrowSchema *")
    fmt = ffi.new("char[]", b"+s")
    schema.format = fmt
    schema.release = _schema_release
    array = ffi.new("struct ArrowArray *")
    buffers = ffi.new("void *[1]")
    array.length, array.n_buffers, array.buffers = 7, 1, buffers
    array.release = _array_release
    _released.clear()
    out = ffi.new("am_array **")
    assert lib.am_import(schema, array, CPU, out) == 0, _error()
    assert _released == [1]  # no children: nothing keeps the parent
    h = out[0]
    assert lib.am_length(h) == 7 and lib.am_struct_num_fields(h) == 0
    back = to_pyarrow(h)
    assert back.num_rows == 7 and back.num_columns == 0
    lib.am_release(h)


def test_struct_accessor_errors():
    out = ffi.new("am_array **")
    assert lib.am_struct_field(ffi.NULL, 0, out) == lib.AM_EINVAL
    assert lib.am_struct_num_fields(ffi.NULL) == -1
    a = am.array([1, 2, 3])
    assert lib.am_struct_num_fields(a.handle) == -1
    assert lib.am_struct_field(a.handle, 0, out) == lib.AM_ETYPE
    assert "not a struct" in _error()
    _rc, h, _counter, _msg = import_struct(BATCH)
    assert lib.am_struct_field(h, 3, out) == lib.AM_EINVAL and "out of range" in _error()
    assert lib.am_struct_field(h, 0, ffi.NULL) == lib.AM_EINVAL
    assert lib.am_import(ffi.NULL, ffi.NULL, CPU, out) == lib.AM_EINVAL
    # am_struct_make: lengths and devices checked
    cols = ffi.new("am_array *[]", [a.handle])
    x = ffi.new("char[]", b"x")  # kept alive for the calls
    names = ffi.new("char *[]", [x])
    assert lib.am_struct_make(names, cols, 1, 4, out) == lib.AM_EINVAL and "rows" in _error()
    assert lib.am_struct_make(names, cols, 1, 3, out) == 0
    assert to_pyarrow(out[0]).to_pydict() == {"x": [1, 2, 3]}
    lib.am_release(out[0])
    lib.am_release(h)


# Calls that take struct handles; every other call with an am_array argument
# must refuse one.
_TAKES_STRUCT = {
    "am_release", "am_export", "am_export_device", "am_length", "am_null_count",
    "am_array_type", "am_format", "am_array_device", "am_struct_num_fields",
    "am_struct_field", "am_struct_field_name", "am_struct_field_nullable", "am_struct_make",
    "am_table_make", "am_table_batch",
    "am_array_timezone",  # any handle: NULL where there is no time zone
    "am_array_byte_width",  # any handle: 0 where it is not fixed_size_binary
    "am_array_decimal_precision",  # any handle: 0 where it is not a decimal
    "am_array_decimal_scale",
    "am_array_is_dictionary",  # any handle: 0 where it is no dictionary array
    "am_dictionary_decode",  # any other array back as it is, as pyarrow
}  # fmt: skip


_AM_ARRAY = ffi.typeof("am_array").cname


def _is_array_argument(t):
    """am_array * or am_array ** (arrays of handles, and outputs)."""
    if t.kind != "pointer":
        return False
    return t.item.cname == _AM_ARRAY or (
        t.item.kind == "pointer" and t.item.item.cname == _AM_ARRAY
    )


def _argument(t, h, keep):
    """A value of cffi type `t` for a call given struct handle `h`."""
    if t.kind == "pointer":
        item = t.item
        if item.cname == _AM_ARRAY:
            return h
        if item.kind == "pointer" and item.item.cname == _AM_ARRAY:
            return keep(ffi.new("am_array *[4]", [h] * 4))
        if item.kind == "function":
            return ffi.NULL
        if item.cname == ffi.typeof("am_device").cname:
            return CPU
        if item.kind in ("primitive", "struct", "enum"):
            if item.cname == "char":
                return keep(ffi.new("char[]", b"cpu"))
            return keep(ffi.new(f"{item.cname}[4]"))
        return ffi.NULL
    if t.kind == "primitive":
        return 0.5 if t.cname in ("double", "float") else 1
    if t.kind == "enum":
        return 0
    raise AssertionError(f"no argument for {t.cname}")


def test_every_other_call_refuses_a_struct_handle():
    rc, h, counter, _msg = import_struct(BATCH)
    assert rc == 0
    tried = 0
    for name in dir(lib):
        fn = getattr(lib, name)
        if not name.startswith("am_") or name in _TAKES_STRUCT or not callable(fn):
            continue
        t = ffi.typeof(fn)
        args = t.args
        if not any(_is_array_argument(a) for a in args):
            continue
        kept = []

        def keep(x, kept=kept):
            kept.append(x)
            return x

        # the struct handle in every array slot: the call must fail cleanly
        rc = fn(*[_argument(a, h, keep) for a in args])
        assert rc != 0, name
        assert rc in (lib.AM_ETYPE, lib.AM_EINVAL), (name, rc, _error())
        tried += 1
    assert tried >= 40
    # the common calls say why, with AM_ETYPE
    s = ffi.new("am_scalar *")
    out = ffi.new("am_array **")
    prim = am.array([1, 2, 3, 4, 5])
    assert lib.am_sum(h, s) == lib.AM_ETYPE and "struct" in _error()
    assert lib.am_compare(lib.AM_EQ, prim.handle, h, out) == lib.AM_ETYPE
    assert lib.am_take(h, prim.handle, out) == lib.AM_ETYPE
    assert lib.am_take(prim.handle, h, out) == lib.AM_ETYPE
    assert lib.am_cast(h, lib.AM_INT64, 1, out) == lib.AM_ETYPE
    assert lib.am_slice(h, 0, 1, out) == lib.AM_ETYPE
    assert lib.am_to_device(h, CPU, out) == lib.AM_ETYPE
    keys = ffi.new("am_array *[]", [h])
    assert lib.am_sort_indices(keys, 1, ffi.NULL, ffi.NULL, out) == lib.AM_ETYPE
    assert lib.am_concat(keys, 1, ffi.NULL, out) == lib.AM_ETYPE
    lib.am_release(h)
    gc.collect()
    assert counter.count == 1


# ---- streams ------------------------------------------------------------------------------


class FailingStream:
    """A C stream of `batches` whose get_next fails (EIO) after `fail_after`
    batches; counts its release calls and the batches' releases."""

    def __init__(self, schema, batches, fail_after=None):
        self.schema, self.batches, self.fail_after = schema, batches, fail_after
        self.released = 0
        self.counters = []
        self.st = ffi.new("struct ArrowArrayStream *")
        self.handle = ffi.new_handle(self)
        self.st.get_schema = _get_schema
        self.st.get_next = _get_next
        self.st.get_last_error = _get_last_error
        self.st.release = _stream_release
        self.st.private_data = self.handle
        self.sent = 0
        self.message = ffi.new("char[]", b"the producer broke")


@ffi.callback("int(struct ArrowArrayStream *, struct ArrowSchema *)")
def _get_schema(st, out):
    self = ffi.from_handle(st.private_data)
    self.schema._export_to_c(_addr(out))
    return 0


@ffi.callback("int(struct ArrowArrayStream *, struct ArrowArray *)")
def _get_next(st, out):
    self = ffi.from_handle(st.private_data)
    if self.fail_after is not None and self.sent == self.fail_after:
        return errno.EIO
    if self.sent == len(self.batches):
        out.release = ffi.NULL
        return 0
    self.batches[self.sent]._export_to_c(_addr(out))
    self.counters.append(Counter(out))
    self.sent += 1
    return 0


@ffi.callback("const char *(struct ArrowArrayStream *)")
def _get_last_error(st):
    return ffi.from_handle(st.private_data).message


@ffi.callback("void(struct ArrowArrayStream *)")
def _stream_release(st):
    ffi.from_handle(st.private_data).released += 1
    st.release = ffi.NULL


def test_stream_import_export_round_trip():
    stream = FailingStream(BATCH.schema, [BATCH, BATCH.slice(1, 2)])
    out = ffi.new("am_table **")
    assert lib.am_import_stream(stream.st, CPU, out) == 0, _error()
    assert stream.released == 1 and stream.st.release == ffi.NULL
    t = out[0]
    assert lib.am_table_num_batches(t) == 2 and lib.am_table_num_rows(t) == 7
    assert [c.count for c in stream.counters] == [0, 0]  # the batches are in use
    st = ffi.new("struct ArrowArrayStream *")
    assert lib.am_export_stream(t, st) == 0
    lib.am_table_release(t)  # the stream holds its own references
    back = pa.RecordBatchReader._import_from_c(_addr(st)).read_all()
    assert back.equals(pa.Table.from_batches([BATCH, BATCH.slice(1, 2)]))
    assert [c.num_chunks for c in back.columns] == [2, 2, 2]
    assert back.column(0).chunk(0).buffers()[1].address == BATCH.column(0).buffers()[1].address
    del back
    gc.collect()
    assert [c.count for c in stream.counters] == [1, 1]


def test_device_stream_protocol_round_trip():
    # am.Table.__arrow_c_device_stream__ (am_export_device_stream) read back by
    # am.table, which prefers a producer's device stream (am_import_device_stream)
    batches = [BATCH, BATCH.slice(1, 2)]
    t = am.table(pa.Table.from_batches(batches))

    class Producer:
        def __arrow_c_device_stream__(self, requested_schema=None, **kwargs):
            return t.__arrow_c_device_stream__(requested_schema, **kwargs)

    back = am.table(Producer())
    assert back.num_batches == 2 and back.to_pyarrow().equals(pa.Table.from_batches(batches))
    column = back.to_pyarrow().column(0).chunk(0)
    assert column.buffers()[1].address == BATCH.column(0).buffers()[1].address  # zero-copy
    with pytest.raises(am.ArrowMetalInvalid, match="requested schema"):
        t.__arrow_c_device_stream__(pa.schema([("x", pa.int8())]).__arrow_c_schema__())


def test_stream_failing_midway_frees_batches_and_releases_once():
    stream = FailingStream(BATCH.schema, [BATCH, BATCH, BATCH], fail_after=2)
    out = ffi.new("am_table **")
    rc = lib.am_import_stream(stream.st, CPU, out)
    msg = _error()
    assert rc == lib.AM_EINVAL
    assert "get_next failed (errno 5)" in msg and "the producer broke" in msg
    assert stream.released == 1
    assert [c.count for c in stream.counters] == [1, 1]


def test_empty_stream_keeps_its_schema():
    stream = FailingStream(BATCH.schema, [])
    out = ffi.new("am_table **")
    assert lib.am_import_stream(stream.st, CPU, out) == 0, _error()
    assert stream.released == 1
    t = am._tables.Table._own(out[0])
    assert t.num_batches == 0 and t.num_rows == 0
    assert t.schema.equals(BATCH.schema)
    back = pa.table(t)
    assert back.num_rows == 0 and back.schema.equals(BATCH.schema)


def test_stream_errors():
    out = ffi.new("am_table **")
    assert lib.am_import_stream(ffi.NULL, CPU, out) == lib.AM_EINVAL
    # a stream of arrays, not of record batches
    stream = FailingStream(pa.schema([("x", pa.int64())]), [])
    stream.schema = pa.int64()
    assert lib.am_import_stream(stream.st, CPU, out) == lib.AM_ETYPE
    assert "not a struct" in _error() and stream.released == 1
    # already released
    assert lib.am_import_stream(stream.st, CPU, out) == lib.AM_EINVAL
    assert stream.released == 1
    # NULL out: the stream is still consumed
    stream = FailingStream(BATCH.schema, [BATCH])
    assert lib.am_import_stream(stream.st, CPU, ffi.NULL) == lib.AM_EINVAL
    assert stream.released == 1
    # a field of a type without kernels
    stream = FailingStream(pa.schema([("s", pa.month_day_nano_interval())]), [])
    assert lib.am_import_stream(stream.st, CPU, out) == lib.AM_ETYPE
    assert "field 's'" in _error() and stream.released == 1
    st = ffi.new("struct ArrowArrayStream *")
    assert lib.am_export_stream(ffi.NULL, st) == lib.AM_EINVAL
    one = am.array([1])  # kept alive for the calls
    batches = ffi.new("am_array *[]", [one.handle])
    assert lib.am_table_make(batches, 1, out) == lib.AM_ETYPE
    assert lib.am_table_make(batches, 0, out) == lib.AM_EINVAL
    assert lib.am_table_num_rows(ffi.NULL) == -1
    lib.am_table_release(ffi.NULL)


# ---- am.Table ----------------------------------------------------------------------------

TABLE = pa.Table.from_batches(
    [
        pa.record_batch({"k": pa.array([3, 1, 2, 1], pa.int32()), "v": [1.0, None, 3.0, 4.0]}),
        pa.record_batch({"k": pa.array([2, 5, 1, 0], pa.int32()), "v": [5.0, 6.0, None, 8.0]}),
    ]
)


def test_table_keeps_batches_and_exports_zero_copy():
    t = am.table(TABLE)
    assert isinstance(t, am.Table)
    assert (t.num_rows, t.num_columns, t.num_batches) == (8, 2, 2)
    assert t.column_names == ["k", "v"] and t.schema.equals(TABLE.schema)
    assert [len(b) for b in t.batches] == [2, 2]
    assert t.column("k").to_pylist() == TABLE.column("k").to_pylist()
    assert t.column(1).to_pylist() == TABLE.column(1).to_pylist()
    assert t.device == "cpu" and t.column(0).device == "cpu"
    back = pa.table(t)
    assert back.equals(TABLE)
    assert [c.num_chunks for c in back.columns] == [2, 2]
    for name in ("k", "v"):
        for i in range(2):
            a, b = back.column(name).chunk(i), TABLE.column(name).chunk(i)
            assert a.buffers()[1].address == b.buffers()[1].address  # no copy
    assert t.to_pyarrow().equals(TABLE)
    with pytest.raises(KeyError):
        t.column("nope")
    with pytest.raises(IndexError):
        t.column(2)


def test_table_inputs():
    rb = TABLE.to_batches()[0]
    assert am.table(rb).to_pyarrow().equals(pa.Table.from_batches([rb]))

    class Producer:  # any __arrow_c_stream__ producer
        def __arrow_c_stream__(self, requested_schema=None):
            return TABLE.__arrow_c_stream__(requested_schema)

    assert am.table(Producer()).to_pyarrow().equals(TABLE)
    assert am.Table(TABLE).num_rows == 8
    with pytest.raises(TypeError, match="am.table"):
        am.table([1, 2, 3])
    with pytest.raises(am.ArrowMetalError, match="field 's'"):
        am.table(pa.table({"s": pa.array([pa.MonthDayNano([1, 2, 3])])}))


def test_table_from_polars():
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"a": [1, 2, 3], "b": [0.5, None, 1.5]})
    t = am.table(df)
    assert t.column("a").to_pylist() == [1, 2, 3]
    assert t.column("b").to_pylist() == [0.5, None, 1.5]


def test_table_stream_capsules_are_released():
    t = am.table(TABLE)
    for _ in range(20):
        t.__arrow_c_stream__()  # never consumed: released by the next sweep
    _exporters.sweep()
    assert _exporters.pending_exports() == 0


def test_sort_select_and_sort_by_on_a_table():
    t = am.table(TABLE)
    keys = [("k", "descending"), ("v", "ascending")]
    assert am.sort_indices(t, keys).to_pylist() == pc.sort_indices(TABLE, keys).to_pylist()
    # distinct values: select_k_unstable's order of ties is unspecified
    got = am.select_k_unstable(t, 3, [("v", "descending")]).to_pylist()
    assert got == pc.select_k_unstable(TABLE, 3, [("v", "descending")]).to_pylist()
    s = am.sort_by(t, keys)
    assert isinstance(s, am.Table) and s.num_batches == 1
    assert s.to_pyarrow().equals(TABLE.sort_by(keys).combine_chunks())


def test_group_by_and_join_on_a_table():
    t = am.table(TABLE)
    got = am.group_by(t, "k").aggregate([("v", "sum"), ("v", "count")])
    want = TABLE.group_by("k", use_threads=False).aggregate([("v", "sum"), ("v", "count")])
    assert got.sort_by("k").equals(want.sort_by("k"))
    right = pa.table({"k": pa.array([1, 2, 7], pa.int32()), "w": [10, 20, 70]})
    for how in ("inner", "full outer", "left anti"):
        j = am.join(t, right, "k", join_type=how)
        assert isinstance(j, am.Table)
        want = TABLE.join(right, "k", join_type=how)
        order = [(c, "ascending") for c in want.column_names]
        assert j.to_pyarrow().sort_by(order).equals(want.sort_by(order).combine_chunks())


def _has_cuda():
    return lib.am_backend_probe(b"cuda") == 0


@pytest.mark.skipif(not _has_cuda(), reason="no CUDA device")
def test_gpu_table_stays_on_the_device():
    t = am.table(TABLE, device="cuda")
    assert t.device.startswith("cuda") and t.column("k").device.startswith("cuda")
    s = am.sort_by(t, "k")
    assert isinstance(s, am.Table) and s.column("v").device.startswith("cuda")
    assert s.to_pyarrow().equals(TABLE.sort_by("k").combine_chunks())
    back = am.table(t, device="cpu")
    assert back.to_pyarrow().equals(TABLE)


def test_requested_schema():
    t = am.table(TABLE)
    assert pa.table(t, schema=TABLE.schema).equals(TABLE)  # the same schema: taken
    other = pa.schema([("k", pa.int64()), ("v", pa.float64())])
    with pytest.raises(am.ArrowMetalError, match="requested schema"):
        t.__arrow_c_stream__(other.__arrow_c_schema__())
