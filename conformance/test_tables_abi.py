"""Struct arrays, record batches and streams through the C ABI (issue #12, "Tables"), on
every backend available here: each import's parent ArrowArray released exactly once
(counted with amabi.interpose), a struct's fields on the device it was imported to,
exports (plain and device) that read back as the batch that went in, and malformed
structs refused with their status. Driven through the cffi bindings of arrowmetal.h."""

import gc

import amabi
import pyarrow as pa
import pytest
from amabi import ffi, lib

BACKENDS = amabi.available_backends()

pytestmark = pytest.mark.skipif(not BACKENDS, reason="no ArrowMetal backend can run here")

BATCH = pa.record_batch(
    {
        "a": pa.array([1, None, 3, 4, 5, 6], pa.int32()),
        "b": pa.array([0.5, 1.5, 2.5, None, 4.5, 5.5]),
        "c": pa.array([True, None, False, True, False, True]),
    }
)


@pytest.fixture(params=BACKENDS)
def dev(request):
    return amabi.device(request.param)


def _import(obj, dev):
    """(status, handle or None, counter, message) of am_import of a pyarrow struct."""
    schema, array = amabi.export_from_pyarrow(obj)
    counter = amabi.interpose(array)
    out = ffi.new("am_array **")
    rc = lib.am_import(schema, array, dev, out)
    msg = amabi.last_error() if rc else ""
    schema.release(schema)
    assert array.release == ffi.NULL, "the moved struct is not marked released"
    return rc, (out[0] if rc == lib.AM_OK else None), counter, msg


def _fields(handle):
    out = ffi.new("am_array **")
    fields = []
    for i in range(lib.am_struct_num_fields(handle)):
        amabi.check("am_struct_field", lib.am_struct_field(handle, i, out))
        fields.append(out[0])
    return fields


def _batch_of(handle):
    schema = ffi.new("struct ArrowSchema *")
    array = ffi.new("struct ArrowArray *")
    amabi.check("am_export", lib.am_export(handle, schema, array))
    return pa.RecordBatch._import_from_c(amabi.ptr(array), amabi.ptr(schema))


@pytest.mark.parametrize("offset,length", [(0, 6), (2, 3), (6, 0)])
def test_batch_round_trip_released_once(dev, offset, length):
    src = BATCH.slice(offset, length)
    rc, h, counter, msg = _import(pa.StructArray.from_arrays(src.columns, src.schema.names), dev)
    if offset:  # a struct array with an offset of its own, as well
        rc2, h2, counter2, msg2 = _import(
            pa.StructArray.from_arrays(BATCH.columns, BATCH.schema.names).slice(offset, length),
            dev,
        )
        assert rc2 == lib.AM_OK, msg2
        assert _batch_of(h2).equals(src)
        lib.am_release(h2)
    assert rc == lib.AM_OK, msg
    assert lib.am_array_type(h) == lib.AM_STRUCT and lib.am_length(h) == length
    assert lib.am_array_device(h) == dev
    fields = _fields(h)
    assert all(lib.am_array_device(f) == dev and lib.am_length(f) == length for f in fields)
    assert _batch_of(h).equals(src)
    lib.am_release(h)
    for f in fields:
        lib.am_release(f)
    gc.collect()
    if offset:
        assert counter2.count == 1
    assert counter.count == 1


def test_device_export_round_trip(dev):
    rc, h, counter, msg = _import(BATCH, dev)
    assert rc == lib.AM_OK, msg
    schema = ffi.new("struct ArrowSchema *")
    darr = ffi.new("struct ArrowDeviceArray *")
    amabi.check("am_export_device", lib.am_export_device(h, schema, darr))
    assert darr.array.n_children == 3 and darr.array.length == 6
    if amabi.is_gpu(dev):
        assert darr.device_type != lib.ARROW_DEVICE_CPU
    else:
        assert darr.device_type == lib.ARROW_DEVICE_CPU
    # back in through the device import: zero-copy on the same device
    out = ffi.new("am_array **")
    amabi.check("am_import_device", lib.am_import_device(schema, darr, dev, out))
    assert darr.array.release == ffi.NULL
    schema.release(schema)
    assert _batch_of(out[0]).equals(BATCH)
    lib.am_release(out[0])
    lib.am_release(h)
    gc.collect()
    assert counter.count == 1


def _short_child(schema, array):
    array.length = 7


def _two_buffers(schema, array):
    array.n_buffers = 2


def _child_count(schema, array):
    array.n_children = 2


# A type the library does not take (a field of it is refused by name).
INTERVAL = pa.array([pa.MonthDayNano([1, 2, 3])], pa.month_day_nano_interval())

MALFORMED = [
    ("short-child", BATCH, _short_child, "AM_EINVAL", "shorter"),
    ("two-buffers", BATCH, _two_buffers, "AM_EINVAL", "1 buffer"),
    ("child-count", BATCH, _child_count, "AM_EINVAL", "children"),
    (
        "interval-field",
        pa.record_batch({"s": INTERVAL}),
        None,
        "AM_ETYPE",
        "field 's'",
    ),
    (
        "nested-bad-field",
        pa.record_batch({"n": pa.StructArray.from_arrays([INTERVAL], ["t"])}),
        None,
        "AM_ETYPE",
        "field 'n.t'",
    ),
]


@pytest.mark.parametrize("name,obj,mutate,code,words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_struct(dev, name, obj, mutate, code, words):
    schema, array = amabi.export_from_pyarrow(obj)
    if mutate:
        mutate(schema, array)
    counter = amabi.interpose(array)
    out = ffi.new("am_array **")
    rc = lib.am_import(schema, array, dev, out)
    msg = amabi.last_error()
    schema.release(schema)
    assert amabi.status_name(rc) == code, msg
    assert amabi.names_function(msg, "am_import") and words in msg, msg
    assert array.release == ffi.NULL and counter.count == 1


def test_stream_round_trip(dev):
    batches = [BATCH, BATCH.slice(1, 3), BATCH.slice(0, 0)]  # an empty batch is kept
    table = pa.Table.from_batches(batches)
    reader = pa.RecordBatchReader.from_batches(table.schema, batches)
    stream = ffi.new("struct ArrowArrayStream *")
    reader._export_to_c(amabi.ptr(stream))
    out = ffi.new("am_table **")
    amabi.check("am_import_stream", lib.am_import_stream(stream, dev, out))
    assert stream.release == ffi.NULL
    t = out[0]
    assert lib.am_table_num_batches(t) == 3 and lib.am_table_num_rows(t) == 9
    batch = ffi.new("am_array **")
    amabi.check("am_table_batch", lib.am_table_batch(t, 1, batch))
    assert lib.am_array_device(batch[0]) == dev
    lib.am_release(batch[0])
    back_stream = ffi.new("struct ArrowArrayStream *")
    amabi.check("am_export_stream", lib.am_export_stream(t, back_stream))
    lib.am_table_release(t)
    back = pa.RecordBatchReader._import_from_c(amabi.ptr(back_stream)).read_all()
    assert back.equals(table)
    assert [c.num_chunks for c in back.columns] == [3, 3, 3]


def _host_table(dev, batches):
    reader = pa.RecordBatchReader.from_batches(batches[0].schema, batches)
    stream = ffi.new("struct ArrowArrayStream *")
    reader._export_to_c(amabi.ptr(stream))
    out = ffi.new("am_table **")
    amabi.check("am_import_stream", lib.am_import_stream(stream, dev, out))
    return out[0]


def test_device_stream_round_trip(dev):
    # am_export_device_stream gives each batch where it lives; am_import_device_stream
    # reads them back, zero-copy, with the stream's device type on every batch
    batches = [BATCH, BATCH.slice(2, 4), BATCH.slice(0, 0)]
    t = _host_table(dev, batches)
    stream = ffi.new("struct ArrowDeviceArrayStream *")
    amabi.check("am_export_device_stream", lib.am_export_device_stream(t, stream))
    lib.am_table_release(t)  # the stream holds its own references
    backend = ffi.string(lib.am_device_backend(dev)).decode()
    want = {
        "cpu": lib.ARROW_DEVICE_CPU,
        "cuda": lib.ARROW_DEVICE_CUDA,
        "metal": lib.ARROW_DEVICE_METAL,
    }
    assert stream.device_type == want[backend]
    out = ffi.new("am_table **")
    amabi.check("am_import_device_stream", lib.am_import_device_stream(stream, dev, out))
    assert stream.release == ffi.NULL
    assert lib.am_table_num_batches(out[0]) == 3 and lib.am_table_num_rows(out[0]) == 10
    back_stream = ffi.new("struct ArrowArrayStream *")
    amabi.check("am_export_stream", lib.am_export_stream(out[0], back_stream))
    lib.am_table_release(out[0])
    back = pa.RecordBatchReader._import_from_c(amabi.ptr(back_stream)).read_all()
    assert back.equals(pa.Table.from_batches(batches))


def test_device_stream_end_repeats(dev):
    t = _host_table(dev, [BATCH])
    stream = ffi.new("struct ArrowDeviceArrayStream *")
    amabi.check("am_export_device_stream", lib.am_export_device_stream(t, stream))
    lib.am_table_release(t)
    arr = ffi.new("struct ArrowDeviceArray *")
    assert stream.get_next(stream, arr) == 0 and arr.array.release != ffi.NULL
    arr.array.release(ffi.addressof(arr[0], "array"))
    for _ in range(2):  # the end, as often as it is asked
        assert stream.get_next(stream, arr) == 0 and arr.array.release == ffi.NULL
    stream.release(stream)
    assert stream.release == ffi.NULL


class _Producer:
    """An ArrowDeviceArrayStream written here: BATCH once, with `batch_type` as its
    device type, in a stream of `stream_type`; or get_next failing with EIO."""

    def __init__(self, stream_type, batch_type, fail=False):
        self.counters, self.released = [], 0
        self.stream = ffi.new("struct ArrowDeviceArrayStream *")
        self.stream.device_type = stream_type

        @ffi.callback("int(struct ArrowDeviceArrayStream *, struct ArrowSchema *)")
        def get_schema(_, out):
            BATCH.schema._export_to_c(amabi.ptr(out))
            return 0

        @ffi.callback("int(struct ArrowDeviceArrayStream *, struct ArrowDeviceArray *)")
        def get_next(_, out):
            if fail:
                return 5
            BATCH._export_to_c(amabi.ptr(ffi.addressof(out[0], "array")))
            out.device_type, out.device_id, out.sync_event = batch_type, -1, ffi.NULL
            self.counters.append(amabi.interpose(ffi.addressof(out[0], "array")))
            return 0

        @ffi.callback("char *(struct ArrowDeviceArrayStream *)")
        def last_error(_):
            return self.text

        @ffi.callback("void(struct ArrowDeviceArrayStream *)")
        def release(s):
            self.released += 1
            s.release = ffi.NULL

        self.text = ffi.new("char[]", b"the producer broke")
        self.callbacks = (get_schema, get_next, last_error, release)
        self.stream.get_schema, self.stream.get_next = get_schema, get_next
        self.stream.get_last_error, self.stream.release = last_error, release


@pytest.mark.parametrize(
    "fail,batch_type,code,words",
    [
        (False, 2, "AM_EINVAL", "batch 0: a batch of device type 2 in a stream of device type 1"),
        (True, 1, "AM_EINVAL", "ArrowDeviceArrayStream.get_next failed (errno 5): the producer broke"),
    ],
)  # fmt: skip
def test_device_stream_refusals(dev, fail, batch_type, code, words):
    p = _Producer(lib.ARROW_DEVICE_CPU, batch_type, fail)
    out = ffi.new("am_table **")
    rc = lib.am_import_device_stream(p.stream, dev, out)
    msg = amabi.last_error()
    assert amabi.status_name(rc) == code, msg
    assert amabi.names_function(msg, "am_import_device_stream") and words in msg, msg
    assert p.released == 1  # the stream, exactly once
    assert all(c.count == 1 for c in p.counters)  # and each batch it gave


NULL_ROWS = pa.StructArray.from_arrays(
    [
        pa.array([1, None, 3, 4]),
        pa.StructArray.from_arrays([pa.array([5.0, 6.0, None, 8.0])], ["y"]),
    ],
    ["x", "n"],
    mask=pa.array([False, True, False, True]),
)


def test_struct_null_rows(dev):
    # the CPU keeps a struct's own null rows and gives them to every field (pyarrow's
    # flatten); a GPU refuses them, the struct released once either way
    rc, handle, counter, msg = _import(NULL_ROWS.slice(1), dev)
    if ffi.string(lib.am_device_backend(dev)).decode() != "cpu":
        assert amabi.status_name(rc) == "AM_EUNSUPPORTED" and "null rows" in msg, msg
        assert counter.count == 1
        return
    assert rc == lib.AM_OK, msg
    assert lib.am_null_count(handle) == 2 and lib.am_length(handle) == 3
    want = NULL_ROWS.slice(1)
    schema = ffi.new("struct ArrowSchema *")
    array = ffi.new("struct ArrowArray *")
    amabi.check("am_export", lib.am_export(handle, schema, array))
    back = pa.Array._import_from_c(amabi.ptr(array), amabi.ptr(schema))
    assert back.equals(want) and back.null_count == 2
    x, n = _fields(handle)
    flat = want.flatten()
    assert _array_of(x).equals(flat[0])  # null where the row is
    assert lib.am_null_count(n) == 2
    (y,) = _fields(n)
    assert _array_of(y).to_pylist() == [None, None, None]  # rows 1 and 3, and its own null
    for h in (x, n, y, handle):
        lib.am_release(h)
    del back
    gc.collect()
    assert counter.count == 1


def _array_of(handle):
    schema = ffi.new("struct ArrowSchema *")
    array = ffi.new("struct ArrowArray *")
    amabi.check("am_export", lib.am_export(handle, schema, array))
    return pa.Array._import_from_c(amabi.ptr(array), amabi.ptr(schema))
