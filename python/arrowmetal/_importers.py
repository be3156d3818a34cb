"""Arrays into ArrowMetal: Arrow PyCapsule pairs (pyarrow and other
producers, with the kept CPU imports of pyarrow arrays), Arrow streams,
numpy arrays, the CUDA Array Interface, Python sequences and am.Array.

Every importer has the signature ``fn(obj, dev, out) -> am_array *``: it
imports ``obj`` onto device ``dev`` (NULL: the default device), writing
through the out-pointer ``out``, and returns the handle, which the caller
owns. ``_dispatch`` picks the importer for each Python type.
"""

from __future__ import annotations

import itertools
import sys
import weakref

from ._capi import (
    CAPSULE_MISMATCH,
    NAME_ARRAY,
    NAME_DEVICE_ARRAY,
    NAME_SCHEMA,
    NAME_STREAM,
    capsule_pointer,
    ffi,
    import_capsules,
    import_device_capsules,
    lib,
)
from ._devices import CPU, device_backend, device_ptr
from ._errors import (
    ArrowMetalError,
    ArrowMetalInvalid,
    ArrowMetalOverflowError,
    ArrowMetalTypeError,
    ArrowMetalUnsupported,
    error_from_status,
)
from ._exporters import optional_pyarrow, release_struct, require_pyarrow
from ._state import tls
from ._types import ARRAY_INTERFACE_CODES, FORMAT_TO_TYPE, FORMATS, ITEM_SIZES, numpy_types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "PYARROW_IMPORTS",
    "borrow",
    "capsule_error",
    "default_device_changed",
    "import_am_array",
    "import_array_like",
    "import_c_array",
    "import_c_array_or_device",
    "import_c_device_array",
    "import_cuda_interface",
    "import_numpy",
    "import_pair",
    "import_pyarrow",
    "import_sequence",
    "import_stream",
    "import_values",
    "kept_producers",
]

_error = error_from_status
_NULL = ffi.NULL
_cast = ffi.cast
_string = ffi.string
_am_import = lib.am_import
_am_release = lib.am_release
_am_full = lib.am_full
_am_to_device = lib.am_to_device
_am_array_device = lib.am_array_device
_am_default_device = lib.am_default_device
_T_ARRAY_P = ffi.typeof("struct ArrowArray *")
_T_DEVICE_ARRAY_P = ffi.typeof("struct ArrowDeviceArray *")
_T_BUFS = ffi.typeof("const void *[2]")
_T_VOIDP = ffi.typeof("void *")
AM_BOOL = lib.AM_BOOL


# ---------------------------------------------------------------------------
# Arrow PyCapsule pairs


def capsule_error(rc, schema, array, array_name):
    """The exception for status `rc` of an import of capsules `schema` and
    `array`: CAPSULE_MISMATCH when they are not capsules of the names the
    protocol gives them, else the library's error (read at once: the next
    ArrowMetal call on this thread may replace its message)."""
    if rc == CAPSULE_MISMATCH:
        return ArrowMetalInvalid(
            f"expected PyCapsules named {NAME_SCHEMA.decode()!r} and {array_name.decode()!r}, "
            f"got {_describe(schema)} and {_describe(array)}",
            lib.AM_EINVAL,
        )
    return _error(rc)


def _describe(obj):
    # A capsule's repr names it; other objects' reprs may be long.
    tp = type(obj)
    return repr(obj) if tp.__name__ == "PyCapsule" else f"a {tp.__module__}.{tp.__qualname__}"


def import_pair(sc, ac, dev, out):
    """am_import of an (arrow_schema, arrow_array) capsule pair."""
    rc = import_capsules(sc, ac, dev, out)
    if rc:
        raise capsule_error(rc, sc, ac, NAME_ARRAY)
    return out[0]


def refuse_struct(importer):
    """`importer`, refusing a struct array / record batch (AM_STRUCT): an
    array input is one column; am.table() takes tables."""

    def checked(obj, dev, out):
        p = importer(obj, dev, out)
        if lib.am_array_type(p) == lib.AM_STRUCT:
            _am_release(p)
            raise ArrowMetalTypeError(
                f"a {type(obj).__name__} of struct type (a table's rows) is not an array "
                "ArrowMetal computes on: am.table() takes tables",
                lib.AM_ETYPE,
            )
        return p

    return checked


def import_c_array(obj, dev, out):
    sc, ac = obj.__arrow_c_array__()
    return import_pair(sc, ac, dev, out)


def import_c_device_array(obj, dev, out):
    sc, ac = obj.__arrow_c_device_array__()
    rc = import_device_capsules(sc, ac, dev, out)
    if rc:
        raise capsule_error(rc, sc, ac, NAME_DEVICE_ARRAY)
    return out[0]


def import_c_array_or_device(obj, dev, out):
    # Producers with both protocols (pyarrow): the host protocol fails for
    # device-resident data, the device protocol then takes it.
    try:
        sc, ac = obj.__arrow_c_array__()
    except Exception:  # noqa: BLE001 - whatever the producer raises for device data
        return import_c_device_array(obj, dev, out)
    return import_pair(sc, ac, dev, out)


def import_pyarrow(obj, dev, out):
    """pyarrow.Array: as import_c_array_or_device (owned handle). Kept apart
    so that callers can recognise pyarrow's immutable arrays (see borrow)."""
    return import_c_array_or_device(obj, dev, out)


# ---------------------------------------------------------------------------
# Kept CPU imports of pyarrow arrays
#
# Zero-copy CPU imports of pyarrow arrays, reused while the pyarrow array
# lives: id(array) -> (weak reference to it, owner of the handle, the handle).
# An entry is removed by its weak reference's callback, which runs as the
# array dies, before its id can name another object: a live entry found under
# id(x) for a live x is x's (fast paths rely on it and skip the weak
# reference). A pyarrow array never changes, and its CPU import shares its
# buffers, so the kept import is exactly what importing again would give --
# without the ~1.3 us an import costs from Python (pyarrow's export, two
# capsules, the release). The owner releases the handle when the last
# reference to the entry goes (a thread may still hold the entry it found).
# Entries are made only while the CPU is the default device, so an entry also
# says "an input placed by default lands on the CPU" (fast paths rely on it);
# am.set_device away from the CPU sets the entries aside
# (default_device_changed); a default changed behind the package's back
# through lib.am_set_default_device leaves them on the CPU, where they give
# the same results.

PYARROW_IMPORTS: dict[int, tuple[Any, _KeptImport, Any]] = {}
_SEEN_ONCE: dict[int, Any] = {}  # id -> weak reference: pyarrow arrays imported once so far
# Entries set aside when the default device stops being the CPU: no longer
# found, but kept (a thread may be using one's handle) until their array dies.
_RETIRED_IMPORTS: dict[int, tuple[Any, _KeptImport, Any]] = {}


class _KeptImport:
    """Owns a kept import's handle: releases it when the entry is gone."""

    __slots__ = ("handle",)

    def __init__(self, handle):
        self.handle = handle

    def __del__(self, _release=_am_release):
        _release(self.handle)


def _forget_import(ref, key):
    for table in (PYARROW_IMPORTS, _RETIRED_IMPORTS):
        e = table.get(key)
        if e is not None and e[0] is ref:
            table.pop(key, None)


def default_device_changed():
    """Called after the default device changes: kept imports stand for "an
    input placed by default lands on the CPU", so away from the CPU they are
    set aside and inputs are imported onto the new default again."""
    if _am_default_device() == CPU:
        return
    for key in list(PYARROW_IMPORTS):
        e = PYARROW_IMPORTS.pop(key, None)
        if e is not None:
            _RETIRED_IMPORTS[key] = e


def borrow(obj, dev):
    """A handle of pyarrow array `obj` on the CPU that the caller must not
    release (it lives as long as `obj`), when `dev` is the CPU or NULL (the
    default device); None when the caller must import as usual (device
    placements are never kept)."""
    if dev != _NULL and dev != CPU:
        return None
    key = id(obj)
    e = PYARROW_IMPORTS.get(key)
    if e is not None and e[0]() is obj:
        return e[2]
    # Kept from the second use on: an array used once (a fresh slice in a
    # loop) pays only this plain weak reference, not the entry's upkeep.
    seen = _SEEN_ONCE.get(key)
    if seen is None or seen() is not obj:
        if len(_SEEN_ONCE) >= 1024:
            _SEEN_ONCE.clear()
        _SEEN_ONCE[key] = weakref.ref(obj)
        return None
    _SEEN_ONCE.pop(key, None)
    if _am_default_device() != CPU:
        return None
    try:
        sc, ac = obj.__arrow_c_array__()
    except Exception:  # noqa: BLE001 - device-resident data: not kept
        return None
    kept = _KeptImport(import_pair(sc, ac, CPU, tls.out))
    ref = weakref.ref(obj, lambda r, k=key: _forget_import(r, k))
    return PYARROW_IMPORTS.setdefault(key, (ref, kept, kept.handle))[2]


# ---------------------------------------------------------------------------
# Arrow streams (pyarrow ChunkedArray, RecordBatchReader columns, ...)


def _empty_of_format(fmt, dev, out):
    t = FORMAT_TO_TYPE.get(fmt)
    if t is None:
        raise ArrowMetalTypeError(f"unsupported Arrow format {fmt!r}", lib.AM_ETYPE)
    s = ffi.new("am_scalar *")
    s.type = t
    rc = _am_full(s, 0, dev, out)
    if rc:
        raise _error(rc)
    return out[0]


def _stream_error(st, rc, what):
    msg = ""
    if st.get_last_error != _NULL:
        m = st.get_last_error(st)
        if m != _NULL:
            msg = _string(m).decode("utf-8", "replace")
    detail = ": " + msg if msg else ""
    return ArrowMetalError(f"{what} failed (errno {rc}){detail}")


def _concat_handles(handles, dev, out):
    """am_concat of chunk handles (released here) onto `dev` (NULL: the
    default device)."""
    try:
        target = _am_default_device() if dev == _NULL else dev
        if len(handles) == 1 and _am_array_device(handles[0]) == target:
            return handles.pop()  # one chunk already where it belongs: no copy
        rc = lib.am_concat(ffi.new("am_array *[]", handles), len(handles), target, out)
        if rc:
            raise _error(rc)
        return out[0]
    finally:
        for p in handles:
            _am_release(p)


def _import_chunks(chunks, import_one, out):
    """Handles of each chunk, imported onto the CPU (zero-copy there) so that
    the joined array is copied once, to its device."""
    handles = []
    try:
        for chunk in chunks:
            handles.append(import_one(chunk, CPU, out))
    except BaseException:
        for p in handles:
            _am_release(p)
        raise
    return handles


def import_stream(obj, dev, out):
    pa = sys.modules.get("pyarrow")
    if pa is not None and type(obj) is pa.ChunkedArray and obj.num_chunks >= 1:
        if obj.num_chunks == 1:
            return import_c_array(obj.chunk(0), dev, out)
        return _concat_handles(_import_chunks(obj.chunks, import_c_array, out), dev, out)
    cap = obj.__arrow_c_stream__()
    address = capsule_pointer(cap, NAME_STREAM)
    if not address:
        raise ArrowMetalInvalid(
            f"expected a PyCapsule named {NAME_STREAM.decode()!r}, got {_describe(cap)}",
            lib.AM_EINVAL,
        )
    st = _cast("struct ArrowArrayStream *", address)
    schema = ffi.new("struct ArrowSchema *")
    rc = st.get_schema(st, schema)
    if rc:
        raise _stream_error(st, rc, "ArrowArrayStream.get_schema")

    def next_chunks():
        while True:
            a = ffi.new("struct ArrowArray *")
            rc = st.get_next(st, a)
            if rc:
                raise _stream_error(st, rc, "ArrowArrayStream.get_next")
            if a.release == _NULL:
                return
            yield a

    def import_one(a, device, out):
        rc = _am_import(schema, a, device, out)
        if rc:
            raise _error(rc)
        return out[0]

    try:
        fmt = _string(schema.format)
        handles = _import_chunks(next_chunks(), import_one, out)
    finally:
        release_struct(schema)
    if not handles:
        return _empty_of_format(fmt, dev, out)
    return _concat_handles(handles, dev, out)


# ---------------------------------------------------------------------------
# numpy and the CUDA Array Interface: zero-copy imports through an Arrow
# struct whose release drops the producer's object (kept here until then).

_KEEP: dict[int, tuple[Any, ...]] = {}  # key -> (struct, buffers, keepalive objects)
_keys = itertools.count(1)
_ZERO_BUF = ffi.new("uint64_t[1]")  # a valid address for empty buffers


def kept_producers():
    """How many imported numpy / CUDA arrays the library still holds (for tests)."""
    return len(_KEEP)


@ffi.callback("void(struct ArrowArray *)")
def _release_kept(arr):
    try:
        _KEEP.pop(int(_cast("uintptr_t", arr.private_data)), None)
    except BaseException:  # noqa: BLE001, S110 - interpreter shutdown
        pass
    arr.release = _NULL


@ffi.callback("void(struct ArrowSchema *)")
def _static_schema_release(schema):
    schema.release = _NULL


_STATIC_SCHEMAS: dict[int, tuple[Any, Any]] = {}


def _static_schema(t):
    """A borrowed-only ArrowSchema for am_type `t` (am_import only reads it)."""
    rec = _STATIC_SCHEMAS.get(t)
    if rec is None:
        fmt = ffi.new("char[]", FORMATS[t])
        sch = ffi.new("struct ArrowSchema *")
        sch.format = fmt
        sch.flags = lib.ARROW_FLAG_NULLABLE
        sch.release = _static_schema_release
        rec = _STATIC_SCHEMAS[t] = (sch, fmt)
    return rec[0]


_np = _np_types = None  # numpy and {dtype: am_type}, once an input needed them


def _load_numpy():
    global _np, _np_types
    import numpy

    _np_types = numpy_types()
    _np = numpy
    return _np_types


def import_numpy(a, dev, out):
    table = _np_types or _load_numpy()
    np = _np
    if type(a) is not np.ndarray and isinstance(a, np.ma.MaskedArray):
        pa = require_pyarrow("importing a numpy masked array")
        return import_c_array(pa.array(a.data, mask=np.ma.getmaskarray(a)), dev, out)
    if a.ndim != 1:
        raise ArrowMetalInvalid(
            f"only 1-D numpy arrays can be imported (got {a.ndim} dimensions)", lib.AM_EINVAL
        )
    dt = a.dtype
    t = table.get(dt)
    if t is None:
        if dt.kind in "biuf" and dt.byteorder not in "=|":
            a = a.astype(dt.newbyteorder("="))
            t = table.get(a.dtype)
        if t is None:
            raise ArrowMetalTypeError(f"unsupported numpy dtype {dt}", lib.AM_ETYPE)
    flags = a.flags
    if not (flags.c_contiguous and flags.aligned):
        a = np.ascontiguousarray(a)
    n = a.shape[0]
    data = np.packbits(a, bitorder="little") if t == AM_BOOL else a
    c = ffi.new(_T_ARRAY_P)
    bufs = ffi.new(_T_BUFS)
    if n:
        mem = ffi.from_buffer(data)
        bufs[1] = mem
    else:
        mem = None
        bufs[1] = _ZERO_BUF
    key = next(_keys)
    c.length = n
    c.n_buffers = 2
    c.buffers = bufs
    c.release = _release_kept
    c.private_data = _cast(_T_VOIDP, key)
    _KEEP[key] = (c, bufs, mem, data)
    rc = _am_import(_static_schema(t), c, dev, out)
    if c.release != _NULL:  # not moved in (a non-conforming failure): drop it here
        _release_kept(c)
    if rc:
        raise _error(rc)
    return out[0]


_TYPE_OF_INTERFACE_CODE = {c: t for t, c in enumerate(ARRAY_INTERFACE_CODES) if c is not None}


def _cai_ordinal(obj):
    device = getattr(obj, "device", None)
    for attribute in ("id", "index"):
        value = getattr(device, attribute, None)
        if isinstance(value, int):
            return value
    return 0


def import_cuda_interface(obj, dev, out):
    """CUDA Array Interface producers (CuPy, PyTorch, Numba): zero-copy, onto
    `dev` when it is a CUDA device, else onto the producer's device."""
    cai = obj.__cuda_array_interface__
    shape, typestr = tuple(cai["shape"]), cai["typestr"]
    if len(shape) != 1:
        raise ArrowMetalInvalid(
            f"only 1-D CUDA arrays can be imported (got shape {shape})", lib.AM_EINVAL
        )
    t = _TYPE_OF_INTERFACE_CODE.get(typestr[1:]) if typestr[0] in "<|" else None
    if t is None:
        raise ArrowMetalTypeError(f"unsupported CUDA array type {typestr!r}", lib.AM_ETYPE)
    if cai.get("strides") not in (None, (ITEM_SIZES[t],)):
        raise ArrowMetalInvalid("the CUDA array is not contiguous", lib.AM_EINVAL)
    if cai.get("mask") is not None:
        raise ArrowMetalUnsupported("CUDA arrays with a mask", lib.AM_EUNSUPPORTED)
    ordinal = _cai_ordinal(obj)
    producer = device_ptr(f"cuda:{ordinal}")
    if dev == _NULL or device_backend(dev) != "cuda":
        dev = producer
    stream = cai.get("stream")
    if stream is not None:
        # The producer's work on that stream must be done before the library
        # reads the memory. The stream belongs to the producer's device (the
        # integer is its CUstream, or 1 / 2 for the legacy / per-thread
        # default stream), so that device's later work waits for it.
        rc = lib.am_device_wait_stream(producer, stream)
        if rc:
            raise _error(rc)
    n = shape[0]
    c = ffi.new(_T_DEVICE_ARRAY_P)
    bufs = ffi.new(_T_BUFS)
    bufs[1] = _cast(_T_VOIDP, cai["data"][0])
    key = next(_keys)
    c.array.length = n
    c.array.n_buffers = 2
    c.array.buffers = bufs
    c.array.release = _release_kept
    c.array.private_data = _cast(_T_VOIDP, key)
    c.device_type = lib.ARROW_DEVICE_CUDA
    c.device_id = ordinal
    _KEEP[key] = (c, bufs, obj)
    rc = lib.am_import_device(_static_schema(t), c, dev, out)
    if c.array.release != _NULL:
        _release_kept(ffi.addressof(c[0], "array"))
    if rc:
        raise _error(rc)
    return out[0]


# ---------------------------------------------------------------------------
# Python sequences and other array-likes: converted by pyarrow (or numpy).


def import_sequence(obj, dev, out):
    """pyarrow converts where it is installed; else, and for sequences that
    pyarrow types as null (empty, all None), this package does: bools, ints
    and floats with None as null, as pyarrow infers their types."""
    pa = optional_pyarrow()
    if pa is not None:
        converted = pa.array(obj)
        if converted.type != pa.null():
            return import_c_array(converted, dev, out)
    return import_values(list(obj), dev, out)


# array module type codes of the numeric types, by width (checked on import).
_ARRAY_CODES = {
    lib.AM_INT8: "b",
    lib.AM_INT16: "h",
    lib.AM_INT32: "i",
    lib.AM_INT64: "q",
    lib.AM_UINT8: "B",
    lib.AM_UINT16: "H",
    lib.AM_UINT32: "I",
    lib.AM_UINT64: "Q",
    lib.AM_FLOAT32: "f",
    lib.AM_FLOAT64: "d",
}


def _infer(values):
    """pyarrow's type for Python bools, ints and floats: bool; int64; float64
    when any is a float. No value (empty, all None): float64, numpy's choice
    for an empty array; pass type= for another."""
    kinds = {type(v) for v in values if v is not None}
    if not kinds or kinds <= {float, int}:
        if float in kinds or not kinds:
            return lib.AM_FLOAT64
        return lib.AM_INT64
    if kinds == {bool}:
        return AM_BOOL
    odd = sorted(k.__name__ for k in kinds if k not in (bool, int, float))
    if odd:
        raise ArrowMetalUnsupported(
            f"cannot convert Python {', '.join(odd)} values without pyarrow "
            "(pip install pyarrow; ArrowMetal itself computes on numbers and booleans)",
            lib.AM_EUNSUPPORTED,
        )
    raise ArrowMetalTypeError("cannot mix bool with int or float values", lib.AM_ETYPE)


def import_values(values, dev, out):
    """A list of Python bools, ints, floats and None, with no other package."""
    import array as pyarray

    t = _infer(values)
    n = len(values)
    validity = None
    if any(v is None for v in values):
        validity = bytearray((n + 7) // 8)
        for i, v in enumerate(values):
            if v is not None:
                validity[i >> 3] |= 1 << (i & 7)
    if t == AM_BOOL:
        data = bytearray((n + 7) // 8)
        for i, v in enumerate(values):
            if v:
                data[i >> 3] |= 1 << (i & 7)
    else:
        fill = 0.0 if t == lib.AM_FLOAT64 else 0
        try:
            data = pyarray.array(_ARRAY_CODES[t], [fill if v is None else v for v in values])
        except OverflowError:
            raise ArrowMetalOverflowError(
                "an integer does not fit int64: pass type='uint64' with pyarrow installed",
                lib.AM_EOVERFLOW,
            ) from None
        if data.itemsize != ITEM_SIZES[t]:
            raise ArrowMetalUnsupported(
                f"this platform's array type code {_ARRAY_CODES[t]!r} is {data.itemsize} bytes",
                lib.AM_EUNSUPPORTED,
            )
    c = ffi.new(_T_ARRAY_P)
    bufs = ffi.new(_T_BUFS)
    mems = []
    for i, buf in ((0, validity), (1, data)):
        if buf is not None and n:
            mem = ffi.from_buffer(buf)
            mems.append(mem)
            bufs[i] = mem
        elif i == 1:
            bufs[i] = _ZERO_BUF
    key = next(_keys)
    c.length = n
    c.null_count = -1 if validity is not None else 0
    c.n_buffers = 2
    c.buffers = bufs
    c.release = _release_kept
    c.private_data = _cast(_T_VOIDP, key)
    _KEEP[key] = (c, bufs, mems, data, validity)
    rc = _am_import(_static_schema(t), c, dev, out)
    if c.release != _NULL:
        _release_kept(c)
    if rc:
        raise _error(rc)
    return out[0]


def import_array_like(obj, dev, out):
    import numpy as np

    return import_numpy(np.asarray(obj), dev, out)


def import_am_array(obj, dev, out):
    """A new handle of an am.Array (on `dev`, or its own device when NULL)."""
    p = obj._ptr
    rc = _am_to_device(p, dev if dev != _NULL else _am_array_device(p), out)
    if rc:
        raise _error(rc)
    return out[0]
