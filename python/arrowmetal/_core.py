"""Arrays, conversions between Python objects and the C ABI, per-thread state.

Hot paths avoid isinstance ladders: the kind of an input is looked up once per
Python type in ``_DISPATCH`` and cached.
"""

import atexit
import ctypes
import itertools
import math
import sys
import threading
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
from ._errors import (
    ArrowMetalError,
    ArrowMetalIndexError,
    ArrowMetalInvalid,
    ArrowMetalOverflowError,
    ArrowMetalTypeError,
    ArrowMetalUnsupported,
    error_from_status,
)

_error = error_from_status
_NULL = ffi.NULL
_cast = ffi.cast
_string = ffi.string
_new = object.__new__

# C functions bound once (attribute lookups on `lib` are not free).
_am_import = lib.am_import
_am_import_device = lib.am_import_device
_am_export = lib.am_export
_am_export_device = lib.am_export_device
_am_release = lib.am_release
_am_length = lib.am_length
_am_null_count = lib.am_null_count
_am_array_type = lib.am_array_type
_am_format = lib.am_format
_am_array_device = lib.am_array_device
_am_type_format = lib.am_type_format
_am_full = lib.am_full
_am_to_device = lib.am_to_device
_am_slice = lib.am_slice
_am_cast = lib.am_cast
_am_device_open = lib.am_device_open
_am_device_name = lib.am_device_name
_am_device_backend = lib.am_device_backend

# ---------------------------------------------------------------------------
# Types

AM_BOOL = lib.AM_BOOL
AM_INT8 = lib.AM_INT8
AM_INT16 = lib.AM_INT16
AM_INT32 = lib.AM_INT32
AM_INT64 = lib.AM_INT64
AM_UINT8 = lib.AM_UINT8
AM_UINT16 = lib.AM_UINT16
AM_UINT32 = lib.AM_UINT32
AM_UINT64 = lib.AM_UINT64
AM_FLOAT32 = lib.AM_FLOAT32
AM_FLOAT64 = lib.AM_FLOAT64

TYPE_NAMES = (
    None,
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
)
_NTYPES = len(TYPE_NAMES)

# Which am_scalar field holds the value, by am_type: 0 i64, 1 u64, 2 f64, 3 bool (i64).
_K_SIGNED, _K_UNSIGNED, _K_FLOAT, _K_BOOL = 0, 1, 2, 3
_KIND = (
    -1,
    _K_BOOL,
    _K_SIGNED,
    _K_SIGNED,
    _K_SIGNED,
    _K_SIGNED,
    _K_UNSIGNED,
    _K_UNSIGNED,
    _K_UNSIGNED,
    _K_UNSIGNED,
    _K_FLOAT,
    _K_FLOAT,
)
_CTYPES = (
    None,
    None,
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "float",
    "double",
)
_ITEMSIZE = (0, 0, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8)
_NP_NAMES = TYPE_NAMES  # numpy names its dtypes as ArrowMetal names its types

# Type names accepted where a target type is given: ArrowMetal's own names and
# the aliases pyarrow accepts (pyarrow.type_for_alias), so cast(x, "double") works.
_TYPE_ALIASES = {name: i for i, name in enumerate(TYPE_NAMES) if name}
_TYPE_ALIASES.update(
    {
        "boolean": AM_BOOL,
        "i1": AM_INT8,
        "i2": AM_INT16,
        "i4": AM_INT32,
        "i8": AM_INT64,
        "u1": AM_UINT8,
        "u2": AM_UINT16,
        "u4": AM_UINT32,
        "u8": AM_UINT64,
        "float": AM_FLOAT32,  # pyarrow's alias: float32
        "double": AM_FLOAT64,
        "f4": AM_FLOAT32,
        "f8": AM_FLOAT64,
    }
)

_FORMAT_TO_TYPE = {}
for _t in range(1, _NTYPES):
    _f = _am_type_format(_t)
    if _f != _NULL:
        _FORMAT_TO_TYPE[_string(_f)] = _t


def type_id(target):
    """The am_type of a type given as a name ('int64', 'double', ...), an am_type
    integer, a pyarrow DataType, a numpy dtype (or anything numpy.dtype() takes)
    or one of the Python types bool, int, float."""
    tp = type(target)
    if tp is str:
        t = _TYPE_ALIASES.get(target.lower())
        if t is None:
            raise ArrowMetalTypeError(f"unknown type name {target!r}", lib.AM_ETYPE)
        return t
    if tp is int:
        if 0 < target < _NTYPES:
            return target
        raise ArrowMetalTypeError(f"invalid am_type {target}", lib.AM_ETYPE)
    if target is bool:
        return AM_BOOL
    if target is int:
        return AM_INT64
    if target is float:
        return AM_FLOAT64
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(target, pa.DataType):
        t = _TYPE_ALIASES.get(str(target))
        if t is None:
            raise ArrowMetalTypeError(f"unsupported pyarrow type {target}", lib.AM_ETYPE)
        return t
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            dt = np.dtype(target)
        except TypeError:
            pass
        else:
            t = _TYPE_ALIASES.get(dt.name) if dt.kind in "biuf" else None
            if t is None:
                raise ArrowMetalTypeError(f"unsupported numpy dtype {dt}", lib.AM_ETYPE)
            return t
    raise ArrowMetalTypeError(f"cannot interpret {target!r} as a type", lib.AM_ETYPE)


def type_name(t):
    """The name of an am_type ('int64', ...)."""
    return TYPE_NAMES[t]


# ---------------------------------------------------------------------------
# Per-thread state: preallocated out-pointer and scalars, batch bookkeeping.


class _State(threading.local):
    def __init__(self):
        sc = ffi.new("am_scalar *")
        self.out = ffi.new("am_array **")
        # Reduction results: the scalar, its memory as int64 words and as doubles
        # (one read of word 0 gives type and is_null), and the out-pointer.
        # Both are None inside a batch, where results are written at its end.
        self.scalar = sc
        self.fast = (sc, _cast("int64_t *", sc), _cast("double *", sc), self.out)
        self._own = (self.scalar, self.fast)
        self.arg = ffi.new("am_scalar *")  # scalar arguments
        # Lists while an outermost batch is open, else None: the PendingScalars
        # to resolve and the temporary handles to release when it ends. Whether
        # a batch is open, and how deeply nested, is the C library's to know
        # (am_batch_depth); _runtime switches this state at depth 1 and 0.
        self.pending = None
        self.deferred = None

    @property
    def in_batch(self):
        """True between begin_outermost() and end_outermost()."""
        return self.pending is not None

    def begin_outermost(self):
        """Called when a batch opens at C depth 1."""
        self.scalar = self.fast = None
        self.pending = []
        self.deferred = []

    def end_outermost(self):
        """Called when the C depth is back at 0; returns (pending, deferred)."""
        pending, deferred = self.pending or [], self.deferred or []
        self.scalar, self.fast = self._own
        self.pending = self.deferred = None
        return pending, deferred


_tls = _State()


def _word0(t, is_null=0):
    s = ffi.new("am_scalar *")
    s.type = t
    s.is_null = is_null
    return _cast("int64_t *", s)[0]


# Word 0 of a valid (non-null) int64 / float64 result.
W0_INT64 = _word0(AM_INT64)
W0_FLOAT64 = _word0(AM_FLOAT64)


def _drop(p):
    """Releases a temporary handle, or keeps it until the outermost batch ends
    (queued work may still read it)."""
    deferred = _tls.deferred
    if deferred is None:
        _am_release(p)
    else:
        deferred.append(p)


# ---------------------------------------------------------------------------
# Devices

_DEVICES = {}
_DEVICES_LOCK = threading.Lock()


def _device_ptr(device):
    """am_device* for None (NULL: default), a spec string ("cpu", "cuda:1") or a
    device cdata."""
    if device is None:
        return _NULL
    p = _DEVICES.get(device)
    if p is not None:
        return p
    if type(device) is not str:
        if isinstance(device, ffi.CData):
            return device
        raise ArrowMetalTypeError(
            f"device must be a string such as 'cpu' or 'cuda:0', not {device!r}",
            lib.AM_ETYPE,
        )
    out = ffi.new("am_device **")
    rc = _am_device_open(device.encode(), out)
    if rc:
        raise _error(rc)
    with _DEVICES_LOCK:
        _DEVICES[device] = out[0]
    return out[0]


def device_name(dev):
    return _string(_am_device_name(dev)).decode()


_CPU = _device_ptr("cpu")


def device_backend(dev):
    return _string(_am_device_backend(dev)).decode()


# ---------------------------------------------------------------------------
# PyCapsules (Arrow PyCapsule interface): read through CPython's capsule API
# (_capi.import_capsules, capsule_pointer), made with PyCapsule_New.

_PyCapsule_New = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p
)(("PyCapsule_New", ctypes.pythonapi))

_NAME_SCHEMA = NAME_SCHEMA
_NAME_ARRAY = NAME_ARRAY
_NAME_DEVICE_ARRAY = NAME_DEVICE_ARRAY
_NAME_STREAM = NAME_STREAM


def capsule_error(rc, schema, array, array_name):
    """The exception for status `rc` of an import of capsules `schema` and
    `array`: CAPSULE_MISMATCH when they are not capsules of the names the
    protocol gives them, else the library's error (read at once: the next
    ArrowMetal call on this thread may replace its message)."""
    if rc == CAPSULE_MISMATCH:
        return ArrowMetalInvalid(
            f"expected PyCapsules named {NAME_SCHEMA.decode()!r} and {array_name.decode()!r}, "
            f"got {schema!r} and {array!r}",
            lib.AM_EINVAL,
        )
    return _error(rc)


_T_SCHEMA_P = ffi.typeof("struct ArrowSchema *")
_T_ARRAY_P = ffi.typeof("struct ArrowArray *")
_T_DEVICE_ARRAY_P = ffi.typeof("struct ArrowDeviceArray *")
_T_UINTPTR = ffi.typeof("uintptr_t")

# Exported capsules. They have no destructor: a PyCapsule destructor written in
# Python (a cffi or ctypes callback) runs inside the capsule's deallocation,
# which may happen while an exception propagates through the consumer, and
# calling Python code then replaces that exception with a SystemError. So each
# capsule stays listed here with the struct behind it until only this list
# refers to it; _sweep() (run on every export and at exit) then calls the
# struct's release callback if no consumer moved it out, and frees it.
# Entries: (capsule, keepalive, releasable struct).
_EXPORTS = []
_EXPORTS_LOCK = threading.Lock()
_getrefcount = sys.getrefcount


def _unshared_refcount():
    """What _sweep's refcount test reads for an object only its list holds
    (measured, since interpreters differ in the references they count)."""
    probe = [(object(), None, None)]
    for rec in probe:
        return _getrefcount(rec[0])
    return 2  # pragma: no cover


_UNSHARED = _unshared_refcount()


def _sweep():
    """Releases the exports whose capsules nobody holds any more."""
    global _EXPORTS
    if not _EXPORTS:
        return
    with _EXPORTS_LOCK:
        keep = []
        done = []
        for rec in _EXPORTS:
            if _getrefcount(rec[0]) > _UNSHARED:  # a consumer still holds it
                keep.append(rec)
            else:
                done.append(rec)
        _EXPORTS = keep
    for rec in done:
        st = rec[2]
        if st.release:  # never consumed: give the data back
            st.release(st)


atexit.register(_sweep)


def _make_capsules(keep, schema, array, array_name):
    """(schema capsule, array capsule) over the exported structs; see _EXPORTS."""
    _sweep()
    try:
        sc = _PyCapsule_New(int(_cast(_T_UINTPTR, schema)), _NAME_SCHEMA, None)
        ac = _PyCapsule_New(int(_cast(_T_UINTPTR, array)), array_name, None)
    except BaseException:
        _release_struct(schema)
        _release_struct(array)
        raise
    with _EXPORTS_LOCK:
        _EXPORTS.append((sc, keep, schema))
        _EXPORTS.append((ac, keep, array))
    return sc, ac


def _release_struct(st):
    if st.release != _NULL:
        st.release(st)


# ---------------------------------------------------------------------------
# Importers: obj -> owned am_array* on `dev`. Signature: fn(obj, dev, out).


def _import_pair(sc, ac, dev, out):
    """am_import of an (arrow_schema, arrow_array) capsule pair; returns the
    handle."""
    rc = import_capsules(sc, ac, dev, out)
    if rc:
        raise capsule_error(rc, sc, ac, NAME_ARRAY)
    return out[0]


def _import_c_array(obj, dev, out):
    sc, ac = obj.__arrow_c_array__()
    return _import_pair(sc, ac, dev, out)


def _import_c_device_array(obj, dev, out):
    sc, ac = obj.__arrow_c_device_array__()
    rc = import_device_capsules(sc, ac, dev, out)
    if rc:
        raise capsule_error(rc, sc, ac, NAME_DEVICE_ARRAY)
    return out[0]


def _import_c_array_or_device(obj, dev, out):
    # Producers with both protocols (pyarrow): the host protocol fails for
    # device-resident data, the device protocol then takes it.
    try:
        sc, ac = obj.__arrow_c_array__()
    except Exception:  # noqa: BLE001 - whatever the producer raises for device data
        return _import_c_device_array(obj, dev, out)
    return _import_pair(sc, ac, dev, out)


def _import_pyarrow(obj, dev, out):
    """pyarrow.Array: as _import_c_array_or_device (owned handle). Kept apart
    so that callers can recognise pyarrow's immutable arrays (see _borrow)."""
    return _import_c_array_or_device(obj, dev, out)


# Zero-copy CPU imports of pyarrow arrays, reused while the pyarrow array
# lives: id(array) -> (weak reference to it, am.Array, its handle). An entry
# is removed by its weak reference's callback, which runs as the array dies,
# before its id can name another object: a live entry found under id(x) for a
# live x is x's (fast paths rely on it and skip the weak reference). A pyarrow array never
# changes, and its CPU import shares its buffers, so the kept import is exactly
# what importing again would give -- without the ~1.3 us an import costs from
# Python (pyarrow's export, two capsules, the release). An entry dies with its
# array (the weak reference's callback), which then releases the import.
# Entries are made only while the CPU is the default device, so an entry also
# says "an input placed by default lands on the CPU" (fast paths rely on it);
# am.set_device away from the CPU sets the entries aside
# (_default_device_changed); a default changed behind the package's back
# through lib.am_set_default_device leaves them on the CPU, where they give
# the same results.
_PYARROW_IMPORTS = {}
_SEEN_ONCE = {}  # id -> weak reference: pyarrow arrays imported once so far
_am_default_device = lib.am_default_device


# Entries set aside when the default device stops being the CPU: no longer
# found, but kept (a thread may be using one's handle) until their array dies.
_RETIRED_IMPORTS = {}


def _forget_import(ref, key):
    for table in (_PYARROW_IMPORTS, _RETIRED_IMPORTS):
        e = table.get(key)
        if e is not None and e[0] is ref:
            table.pop(key, None)


def _default_device_changed():
    """Called after the default device changes: kept imports stand for "an
    input placed by default lands on the CPU", so away from the CPU they are
    set aside and inputs are imported onto the new default again."""
    if _am_default_device() == _CPU:
        return
    for key in list(_PYARROW_IMPORTS):
        e = _PYARROW_IMPORTS.pop(key, None)
        if e is not None:
            _RETIRED_IMPORTS[key] = e


def _borrow(obj, dev):
    """A handle of pyarrow array `obj` on the CPU that the caller must not
    release (it lives as long as `obj`), when `dev` is the CPU or NULL (the
    default device); None when the caller must import as usual (device
    placements are never kept)."""
    if dev != _NULL and dev != _CPU:
        return None
    key = id(obj)
    e = _PYARROW_IMPORTS.get(key)
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
    if _am_default_device() != _CPU:
        return None
    try:
        sc, ac = obj.__arrow_c_array__()
    except Exception:  # noqa: BLE001 - device-resident data: not kept
        return None
    kept = _new(Array)
    kept._ptr = _import_pair(sc, ac, _CPU, _tls.out)
    ref = weakref.ref(obj, lambda r, k=key: _forget_import(r, k))
    return _PYARROW_IMPORTS.setdefault(key, (ref, kept, kept._ptr))[2]


def _empty_of_format(fmt, dev, out):
    t = _FORMAT_TO_TYPE.get(fmt)
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
        target = lib.am_default_device() if dev == _NULL else dev
        if len(handles) == 1 and lib.am_array_device(handles[0]) == target:
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
    cpu = _device_ptr("cpu")
    handles = []
    try:
        for chunk in chunks:
            handles.append(import_one(chunk, cpu, out))
    except BaseException:
        for p in handles:
            _am_release(p)
        raise
    return handles


def _import_stream(obj, dev, out):
    pa = sys.modules.get("pyarrow")
    if pa is not None and type(obj) is pa.ChunkedArray and obj.num_chunks >= 1:
        if obj.num_chunks == 1:
            return _import_c_array(obj.chunk(0), dev, out)
        return _concat_handles(_import_chunks(obj.chunks, _import_c_array, out), dev, out)
    cap = obj.__arrow_c_stream__()
    address = capsule_pointer(cap, NAME_STREAM)
    if not address:
        raise ArrowMetalInvalid(
            f"expected a PyCapsule named {NAME_STREAM.decode()!r}, got {cap!r}", lib.AM_EINVAL
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
        _release_struct(schema)
    if not handles:
        return _empty_of_format(fmt, dev, out)
    return _concat_handles(handles, dev, out)


# numpy: zero-copy import through an ArrowArray whose release drops the ndarray.

_NP_KEEP = {}  # key -> (ArrowArray struct, buffers, keepalive objects)
_np_keys = itertools.count(1)
_NP_TABLE = None  # numpy dtype -> am_type
_ZERO_BUF = ffi.new("uint64_t[1]")  # a valid address for empty buffers


@ffi.callback("void(struct ArrowArray *)")
def _np_release(arr):
    try:
        _NP_KEEP.pop(int(_cast("uintptr_t", arr.private_data)), None)
    except BaseException:  # noqa: BLE001, S110 - interpreter shutdown
        pass
    arr.release = _NULL


@ffi.callback("void(struct ArrowSchema *)")
def _static_schema_release(schema):
    schema.release = _NULL


_STATIC_SCHEMAS = {}


def _static_schema(t):
    """A borrowed-only ArrowSchema for am_type `t` (am_import only reads it)."""
    rec = _STATIC_SCHEMAS.get(t)
    if rec is None:
        fmt = ffi.new("char[]", _string(_am_type_format(t)))
        sch = ffi.new("struct ArrowSchema *")
        sch.format = fmt
        sch.flags = lib.ARROW_FLAG_NULLABLE
        sch.release = _static_schema_release
        rec = _STATIC_SCHEMAS[t] = (sch, fmt)
    return rec[0]


_np = None  # the numpy module, once an input needed it


def _np_table():
    global _NP_TABLE, _np
    if _NP_TABLE is None:
        import numpy

        _np = numpy
        _NP_TABLE = {numpy.dtype(_NP_NAMES[t]): t for t in range(1, _NTYPES)}
    return _NP_TABLE


_T_ARRAY = ffi.typeof("struct ArrowArray *")
_T_BUFS = ffi.typeof("const void *[2]")
_T_VOIDP = ffi.typeof("void *")


def _import_numpy(a, dev, out):
    table = _NP_TABLE or _np_table()
    np = _np
    if type(a) is not np.ndarray and isinstance(a, np.ma.MaskedArray):
        pa = _require_pyarrow("importing a numpy masked array")
        return _import_c_array(pa.array(a.data, mask=np.ma.getmaskarray(a)), dev, out)
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
    c = ffi.new(_T_ARRAY)
    bufs = ffi.new(_T_BUFS)
    if n:
        mem = ffi.from_buffer(data)
        bufs[1] = mem
    else:
        mem = None
        bufs[1] = _ZERO_BUF
    key = next(_np_keys)
    c.length = n
    c.n_buffers = 2
    c.buffers = bufs
    c.release = _np_release
    c.private_data = _cast(_T_VOIDP, key)
    _NP_KEEP[key] = (c, bufs, mem, data)
    rc = _am_import(_static_schema(t), c, dev, out)
    if c.release != _NULL:  # not moved in (a non-conforming failure): drop it here
        _np_release(c)
    if rc:
        raise _error(rc)
    return out[0]


# CUDA Array Interface (CuPy, PyTorch, Numba): zero-copy import of CUDA
# memory as an Arrow device array whose release drops the producer object.

_CAI_TYPES = {"i1": 2, "i2": 3, "i4": 4, "i8": 5, "u1": 6, "u2": 7, "u4": 8, "u8": 9,
              "f4": 10, "f8": 11}  # fmt: skip


def _cai_ordinal(obj):
    device = getattr(obj, "device", None)
    for attribute in ("id", "index"):
        value = getattr(device, attribute, None)
        if isinstance(value, int):
            return value
    return 0


def _import_cuda_interface(obj, dev, out):
    cai = obj.__cuda_array_interface__
    shape, typestr = tuple(cai["shape"]), cai["typestr"]
    if len(shape) != 1:
        raise ArrowMetalInvalid(
            f"only 1-D CUDA arrays can be imported (got shape {shape})", lib.AM_EINVAL
        )
    t = _CAI_TYPES.get(typestr[1:]) if typestr[0] in "<|" else None
    if t is None:
        raise ArrowMetalTypeError(f"unsupported CUDA array type {typestr!r}", lib.AM_ETYPE)
    if cai.get("strides") not in (None, (_ITEMSIZE[t],)):
        raise ArrowMetalInvalid("the CUDA array is not contiguous", lib.AM_EINVAL)
    if cai.get("mask") is not None:
        raise ArrowMetalUnsupported("CUDA arrays with a mask", lib.AM_EUNSUPPORTED)
    ordinal = _cai_ordinal(obj)
    if dev == _NULL or device_backend(dev) != "cuda":
        dev = _device_ptr(f"cuda:{ordinal}")
    stream = cai.get("stream")
    if stream is not None:
        # The producer's work on that stream must be done before the library
        # reads the memory: later work on `dev` waits for it (the integer is
        # the CUstream, or 1 / 2 for the legacy / per-thread default stream).
        rc = lib.am_device_wait_stream(dev, stream)
        if rc:
            raise _error(rc)
    n = shape[0]
    c = ffi.new(_T_DEVICE_ARRAY_P)
    bufs = ffi.new(_T_BUFS)
    bufs[1] = _cast(_T_VOIDP, cai["data"][0])
    key = next(_np_keys)
    c.array.length = n
    c.array.n_buffers = 2
    c.array.buffers = bufs
    c.array.release = _np_release
    c.array.private_data = _cast(_T_VOIDP, key)
    c.device_type = lib.ARROW_DEVICE_CUDA
    c.device_id = ordinal
    _NP_KEEP[key] = (c, bufs, obj)
    rc = lib.am_import_device(_static_schema(t), c, dev, out)
    if c.array.release != _NULL:
        _np_release(ffi.addressof(c[0], "array"))
    if rc:
        raise _error(rc)
    return out[0]


def _require_pyarrow(what):
    try:
        import pyarrow as pa
    except ImportError:
        raise ArrowMetalUnsupported(
            f"{what} needs pyarrow, which is not installed", lib.AM_EUNSUPPORTED
        ) from None
    return pa


def _import_sequence(obj, dev, out):
    pa = sys.modules.get("pyarrow")
    if pa is None:
        try:
            import pyarrow as pa
        except ImportError:
            pa = None
    if pa is not None:
        return _import_c_array(pa.array(obj), dev, out)
    try:
        import numpy as np
    except ImportError:
        raise ArrowMetalUnsupported(
            "converting a Python sequence needs pyarrow or numpy", lib.AM_EUNSUPPORTED
        ) from None
    if any(v is None for v in obj):
        raise ArrowMetalUnsupported(
            "a sequence with None needs pyarrow to convert", lib.AM_EUNSUPPORTED
        )
    return _import_numpy(np.asarray(obj), dev, out)


def _import_array_like(obj, dev, out):
    import numpy as np

    return _import_numpy(np.asarray(obj), dev, out)


def _import_am_array(obj, dev, out):
    """A new handle of an am.Array (on `dev`, or its own device when NULL)."""
    p = obj._ptr
    rc = _am_to_device(p, dev if dev != _NULL else _am_array_device(p), out)
    if rc:
        raise _error(rc)
    return out[0]


# ---------------------------------------------------------------------------
# Scalars: fn(value, s, p) fills am_scalar *s; `p` is the handle of the array
# operand (or None): a null scalar takes its type.

_I64_MIN = -(1 << 63)
_I64_END = 1 << 63
_U64_END = 1 << 64


def _fill_int(v, s, p):
    if _I64_MIN <= v < _I64_END:
        s.type = AM_INT64
        s.is_null = 0
        s.i64 = v
    elif _I64_END <= v < _U64_END:
        s.type = AM_UINT64
        s.is_null = 0
        s.u64 = v
    else:
        raise ArrowMetalOverflowError(f"integer {v} does not fit in 64 bits", lib.AM_EOVERFLOW)


def _fill_int_subclass(v, s, p):
    _fill_int(int(v), s, p)


def _fill_float(v, s, p):
    s.type = AM_FLOAT64
    s.is_null = 0
    s.f64 = v


def _fill_bool(v, s, p):
    s.type = AM_BOOL
    s.is_null = 0
    s.i64 = 1 if v else 0


def _fill_none(v, s, p):
    s.type = _am_array_type(p) if p is not None else AM_INT64
    s.is_null = 1


def _set_value(s, t, v):
    """Stores Python value `v` in s as am_type `t`."""
    k = _KIND[t]
    s.type = t
    s.is_null = 0
    if k == _K_SIGNED:
        s.i64 = v
    elif k == _K_FLOAT:
        s.f64 = v
    elif k == _K_UNSIGNED:
        s.u64 = v
    else:
        s.i64 = 1 if v else 0


def _fill_numpy_scalar(v, s, p):
    t = (_NP_TABLE or _np_table()).get(v.dtype)
    if t is None:
        raise ArrowMetalTypeError(f"unsupported numpy scalar type {v.dtype}", lib.AM_ETYPE)
    _set_value(s, t, v.item())


def _fill_pyarrow_scalar(v, s, p):
    name = str(v.type)
    if name == "null":
        _fill_none(None, s, p)
        return
    t = _TYPE_ALIASES.get(name)
    if t is None:
        raise ArrowMetalTypeError(f"unsupported pyarrow scalar type {name}", lib.AM_ETYPE)
    if not v.is_valid:
        s.type = t
        s.is_null = 1
        return
    _set_value(s, t, v.as_py())


def scalar_from_python(value, t=None, s=None):
    """An am_scalar holding `value` (None: null), as am_type `t` if given."""
    if s is None:
        s = ffi.new("am_scalar *")
    if t is None:
        kind, fn = _dispatch(type(value))
        if kind != _SCALAR:
            raise ArrowMetalTypeError(f"{value!r} is not a scalar", lib.AM_ETYPE)
        fn(value, s, None)
    elif value is None:
        s.type = t
        s.is_null = 1
    else:
        if hasattr(value, "item") and not isinstance(value, (int, float)):
            value = value.item()  # numpy scalar
        k = _KIND[t]
        if k == _K_FLOAT:
            value = float(value)
        elif k == _K_BOOL:
            value = bool(value)
        else:
            if isinstance(value, float) and not (math.isfinite(value) and value == int(value)):
                raise ArrowMetalOverflowError(f"{value!r} is not an integer", lib.AM_EOVERFLOW)
            value = int(value)
            lo, hi = _INT_RANGES[t]
            if not lo <= value < hi:
                raise ArrowMetalOverflowError(
                    f"{value} does not fit in {TYPE_NAMES[t]}", lib.AM_EOVERFLOW
                )
        _set_value(s, t, value)
    return s


_INT_RANGES = {}
for _t in range(1, _NTYPES):
    if _KIND[_t] == _K_SIGNED:
        _b = _ITEMSIZE[_t] * 8 - 1
        _INT_RANGES[_t] = (-(1 << _b), 1 << _b)
    elif _KIND[_t] == _K_UNSIGNED:
        _INT_RANGES[_t] = (0, 1 << (_ITEMSIZE[_t] * 8))


def scalar_value(s):
    """The Python value of an am_scalar: int, float, bool or None."""
    if s.is_null:
        return None
    k = _KIND[s.type]
    if k == _K_SIGNED:
        return s.i64
    if k == _K_FLOAT:
        return s.f64
    if k == _K_UNSIGNED:
        return s.u64
    if k == _K_BOOL:
        return s.i64 != 0
    raise ArrowMetalTypeError(f"scalar of invalid type {s.type}", lib.AM_ETYPE)


# ---------------------------------------------------------------------------
# Dispatch by Python type

_ARRAY, _IMPORT, _SCALAR = 0, 1, 2
_DISPATCH = {}


def _resolve(tp):
    """(kind, function) for inputs of Python type `tp`; cached in _DISPATCH."""
    if tp is Array:
        return (_ARRAY, _import_am_array)
    if issubclass(tp, Array):
        return (_ARRAY, _import_am_array)
    np = sys.modules.get("numpy")
    pa = sys.modules.get("pyarrow")
    if tp is bool:
        return (_SCALAR, _fill_bool)
    if tp is int:
        return (_SCALAR, _fill_int)
    if tp is float:
        return (_SCALAR, _fill_float)
    if tp is type(None):
        return (_SCALAR, _fill_none)
    if np is not None:
        if issubclass(tp, np.ndarray):
            return (_IMPORT, _import_numpy)
        if issubclass(tp, np.generic):
            return (_SCALAR, _fill_numpy_scalar)
    if pa is not None and issubclass(tp, pa.Scalar):
        return (_SCALAR, _fill_pyarrow_scalar)
    if hasattr(tp, "__cuda_array_interface__") and not hasattr(tp, "__arrow_c_device_array__"):
        return (_IMPORT, _import_cuda_interface)
    has_array = hasattr(tp, "__arrow_c_array__")
    has_device = hasattr(tp, "__arrow_c_device_array__")
    if has_array and has_device:
        if pa is not None and issubclass(tp, pa.Array):
            return (_IMPORT, _import_pyarrow)
        return (_IMPORT, _import_c_array_or_device)
    if has_array:
        return (_IMPORT, _import_c_array)
    if has_device:
        return (_IMPORT, _import_c_device_array)
    if hasattr(tp, "__arrow_c_stream__"):
        return (_IMPORT, _import_stream)
    if issubclass(tp, bool):
        return (_SCALAR, _fill_bool)
    if issubclass(tp, int):
        return (_SCALAR, _fill_int_subclass)
    if issubclass(tp, float):
        return (_SCALAR, _fill_float)
    if issubclass(tp, (list, tuple, range)):
        return (_IMPORT, _import_sequence)
    if hasattr(tp, "__array__") or hasattr(tp, "__array_interface__"):
        return (_IMPORT, _import_array_like)
    return None


def _dispatch(tp):
    d = _DISPATCH.get(tp)
    if d is None:
        d = _resolve(tp)
        if d is None:
            raise ArrowMetalTypeError(
                f"cannot use an object of type {tp.__module__}.{tp.__qualname__} as an ArrowMetal input",
                lib.AM_ETYPE,
            )
        _DISPATCH[tp] = d
    return d


def _is_operand(tp):
    """True when values of type `tp` are arrays or scalars ArrowMetal takes."""
    d = _DISPATCH.get(tp)
    if d is None:
        d = _resolve(tp)
        if d is None:
            return False
        _DISPATCH[tp] = d
    return True


def import_handle(obj, device=None):
    """An owned am_array* for any accepted array input (the caller releases it)."""
    kind, fn = _dispatch(type(obj))
    if kind == _SCALAR:
        raise ArrowMetalTypeError(
            f"expected an array, got a scalar of type {type(obj).__name__}", lib.AM_ETYPE
        )
    return fn(obj, _device_ptr(device), _tls.out)


def _wrap(p):
    a = _new(Array)
    a._ptr = p
    return a


# ---------------------------------------------------------------------------
# Reading values out of an array (no pyarrow needed)


class _Export:
    """An exported ArrowArray (host memory) released once, when this dies."""

    __slots__ = ("__weakref__", "arr", "schema")

    def __init__(self, p):
        self.arr = ffi.new(_T_ARRAY_P)
        rc = _am_export(p, _NULL, self.arr)
        if rc:
            self.arr = None
            raise _error(rc)

    def __del__(self):
        arr = self.arr
        if arr is not None:
            self.arr = None
            _release_struct(arr)


def _read_values(p):
    """The values of array handle `p` as a Python list (None for nulls)."""
    t = _am_array_type(p)
    ex = _Export(p)
    a = ex.arr
    n = a.length
    if n == 0:
        return []
    off = a.offset
    data = a.buffers[1]
    if t == AM_BOOL:
        raw = ffi.buffer(_cast("uint8_t *", data), (off + n + 7) // 8)[:]
        values = [bool((raw[(off + i) >> 3] >> ((off + i) & 7)) & 1) for i in range(n)]
    else:
        values = ffi.unpack(_cast(_CTYPES[t] + " *", data) + off, n)
    validity = a.buffers[0]
    if a.null_count != 0 and validity != _NULL:
        vb = ffi.buffer(_cast("uint8_t *", validity), (off + n + 7) // 8)[:]
        for i in range(n):
            j = off + i
            if not (vb[j >> 3] >> (j & 7)) & 1:
                values[i] = None
    del ex
    return values


def _to_numpy(p, zero_copy_only=False):
    import numpy as np

    t = _am_array_type(p)
    dtype = np.dtype(_NP_NAMES[t])
    ex = _Export(p)
    a = ex.arr
    n = a.length
    if n == 0:
        return np.empty(0, dtype)
    off = a.offset
    data = a.buffers[1]
    has_nulls = a.null_count != 0 and a.buffers[0] != _NULL
    if (t == AM_BOOL or has_nulls) and zero_copy_only:
        raise ArrowMetalInvalid(
            "to_numpy(zero_copy_only=True) is impossible for %s"
            % ("a boolean array" if t == AM_BOOL else "an array with nulls"),
            lib.AM_EINVAL,
        )
    if t == AM_BOOL:
        nbytes = (off + n + 7) // 8
        bits = np.frombuffer(ffi.buffer(_cast("uint8_t *", data), nbytes), np.uint8)
        values = np.unpackbits(bits, bitorder="little")[off : off + n].astype(bool)
    else:
        size = _ITEMSIZE[t]
        # The buffer keeps `holder` alive, and `holder` keeps the export.
        holder = ffi.gc(_cast("char *", data) + off * size, lambda _c, _ex=ex: None)
        values = np.frombuffer(ffi.buffer(holder, n * size), dtype)
        values.flags.writeable = False
    if has_nulls:
        nbytes = (off + n + 7) // 8
        vbits = np.frombuffer(ffi.buffer(_cast("uint8_t *", a.buffers[0]), nbytes), np.uint8)
        null = np.unpackbits(vbits, bitorder="little")[off : off + n] == 0
        if t == AM_BOOL:
            values = values.astype(object)
            values[null] = None
        elif _KIND[t] == _K_FLOAT:
            values = values.copy()
            values[null] = np.nan
        else:
            values = values.astype(np.float64)
            values[null] = np.nan
    return values


# ---------------------------------------------------------------------------
# Array


class Array:
    """An immutable ArrowMetal array on one device.

    ``am.Array(obj, device=None)`` (or ``am.array(obj)``) imports any Arrow
    array producer (``__arrow_c_array__``, ``__arrow_c_device_array__``,
    ``__arrow_c_stream__``), a 1-D numpy array or a Python sequence.
    """

    __slots__ = ("__weakref__", "_len", "_ptr")
    __array_ufunc__ = None  # numpy defers `ndarray <op> Array` to our reflected operators
    __hash__ = None

    def __init__(self, obj, device=None):
        old = getattr(self, "_ptr", None)
        if type(obj) is Array and device is None:
            p = _import_am_array(obj, _NULL, _tls.out)
        else:
            p = import_handle(obj, device)
        self._ptr = p
        if old is not None:  # __init__ called again on a live object
            if hasattr(self, "_len"):
                del self._len
            _am_release(old)

    def __del__(self, _release=_am_release):
        try:
            p = self._ptr
        except AttributeError:
            return
        if p is not None:
            self._ptr = None
            _release(p)

    # -- properties
    def __len__(self):
        try:
            return self._len
        except AttributeError:  # first call: arrays are immutable, so it is cached
            n = self._len = _am_length(self._ptr)
            return n

    @property
    def type(self):
        """Element type name: 'bool', 'int8', ..., 'float32', 'float64'."""
        return TYPE_NAMES[_am_array_type(self._ptr)]

    @property
    def arrow_format(self):
        """Arrow C data interface format string ('l' for int64, ...)."""
        return _string(_am_format(self._ptr)).decode()

    @property
    def null_count(self):
        return _am_null_count(self._ptr)

    @property
    def device(self):
        """Name of the device the array lives on ('cpu', 'cuda:0', ...)."""
        return device_name(_am_array_device(self._ptr))

    @property
    def backend(self):
        return device_backend(_am_array_device(self._ptr))

    @property
    def handle(self):
        """The underlying `am_array *` (borrowed: valid while this object lives)."""
        return self._ptr

    # -- conversions
    def to_device(self, device):
        """This array on another device (the same data when already there)."""
        out = _tls.out
        rc = _am_to_device(self._ptr, _device_ptr(device), out)
        if rc:
            raise _error(rc)
        return _wrap(out[0])

    def to_pyarrow(self):
        """A pyarrow.Array over the same buffers (zero-copy from the CPU)."""
        pa = _require_pyarrow("Array.to_pyarrow()")
        sch = ffi.new(_T_SCHEMA_P)
        arr = ffi.new(_T_ARRAY_P)
        rc = _am_export(self._ptr, sch, arr)
        if rc:
            raise _error(rc)
        try:
            return pa.Array._import_from_c(
                int(_cast("uintptr_t", arr)), int(_cast("uintptr_t", sch))
            )
        finally:
            _release_struct(arr)
            _release_struct(sch)

    def to_numpy(self, zero_copy_only=False, writable=False):
        """A numpy array: a read-only zero-copy view when there are no nulls and
        the type is not bool; nulls become NaN (integers become float64) and
        booleans with nulls an object array, as pyarrow does."""
        a = _to_numpy(self._ptr, zero_copy_only)
        if writable and not a.flags.writeable:
            a = a.copy()
        return a

    def __array__(self, dtype=None, copy=None):
        a = _to_numpy(self._ptr)
        if dtype is not None:
            a = a.astype(dtype, copy=False)
        if copy:
            a = a.copy()
        return a

    def to_pylist(self):
        return _read_values(self._ptr)

    tolist = to_pylist

    def __iter__(self):
        return iter(_read_values(self._ptr))

    def equals(self, other):
        """True when `other` has the same type and values (nulls in the same
        slots; NaN equal to NaN)."""
        if type(other) is not Array:
            other = Array(other, device=None)
        if self.type != other.type:
            return False
        a, b = self.to_pylist(), other.to_pylist()
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x != y and not (_isnan(x) and _isnan(y)):
                return False
        return True

    # -- Arrow PyCapsule interface
    def _for_schema(self, requested_schema):
        """This array, cast to the requested schema's type when that is a
        different type ArrowMetal has (otherwise the request is ignored, as
        the PyCapsule protocol allows)."""
        if requested_schema is None:
            return self
        address = capsule_pointer(requested_schema, NAME_SCHEMA)
        if not address:
            return self
        st = _cast(_T_SCHEMA_P, address)
        t = _FORMAT_TO_TYPE.get(_string(st.format)) if st.format else None
        if t is None or t == _am_array_type(self._ptr):
            return self
        out = _tls.out
        rc = _am_cast(self._ptr, t, 1, out)
        if rc:
            raise _error(rc)
        return _wrap(out[0])

    def __arrow_c_array__(self, requested_schema=None):
        src = self if requested_schema is None else self._for_schema(requested_schema)
        sch = ffi.new(_T_SCHEMA_P)
        arr = ffi.new(_T_ARRAY_P)
        rc = _am_export(src._ptr, sch, arr)
        if rc:
            raise _error(rc)
        return _make_capsules((sch, arr), sch, arr, _NAME_ARRAY)

    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
        for k, v in kwargs.items():
            if v is not None:
                raise NotImplementedError(f"__arrow_c_device_array__: unsupported keyword {k!r}")
        src = self if requested_schema is None else self._for_schema(requested_schema)
        sch = ffi.new(_T_SCHEMA_P)
        darr = ffi.new(_T_DEVICE_ARRAY_P)
        rc = _am_export_device(src._ptr, sch, darr)
        if rc:
            raise _error(rc)
        return _make_capsules((sch, darr), sch, ffi.addressof(darr[0], "array"), _NAME_DEVICE_ARRAY)

    @property
    def __cuda_array_interface__(self):
        """Version 3 of the CUDA Array Interface, so CuPy, PyTorch and Numba take
        a CUDA-resident array without a copy. Numeric arrays without nulls only
        (Arrow booleans are bits and Arrow nulls are a bitmap, which the
        interface cannot describe)."""
        if self.backend != "cuda":
            raise AttributeError("__cuda_array_interface__: the array is not on a CUDA device")
        t = _am_array_type(self._ptr)
        if t == AM_BOOL or _am_null_count(self._ptr) != 0:
            raise AttributeError("__cuda_array_interface__: bool arrays and arrays with nulls")
        sch = ffi.new(_T_SCHEMA_P)
        darr = ffi.new(_T_DEVICE_ARRAY_P)
        rc = _am_export_device(self._ptr, sch, darr)
        if rc:
            raise _error(rc)
        try:
            base = int(_cast(_T_UINTPTR, darr.array.buffers[1]))
            address = base + darr.array.offset * _ITEMSIZE[t]
            length = darr.array.length
        finally:
            _release_struct(ffi.addressof(darr[0], "array"))
            _release_struct(sch)
        # The consumer reads the memory on streams of its own and cannot wait
        # on our sync event: every call made so far on the device must be
        # done first (inside a batch too, where the work producing this array
        # may be queued).
        rc = lib.am_device_sync(_am_array_device(self._ptr))
        if rc:
            raise _error(rc)
        # The handle owns the buffer for as long as this Array lives.
        typestr = {v: k for k, v in _CAI_TYPES.items()}[t]
        return {"shape": (length,), "typestr": "<" + typestr, "data": (address, False),
                "version": 3, "strides": None, "stream": None}  # fmt: skip

    # -- slicing
    def slice(self, offset=0, length=None):
        """Zero-copy view of `length` slots from `offset` (clamped at the end)."""
        if length is None:
            length = max(0, _am_length(self._ptr) - offset)
        out = _tls.out
        rc = _am_slice(self._ptr, offset, length, out)
        if rc:
            raise _error(rc)
        return _wrap(out[0])

    def __getitem__(self, key):
        p = self._ptr
        if type(key) is slice:
            n = _am_length(p)
            start, stop, step = key.indices(n)
            if step != 1:
                raise ArrowMetalUnsupported(
                    "only slices with step 1 are supported", lib.AM_EUNSUPPORTED
                )
            out = _tls.out
            rc = _am_slice(p, start, max(0, stop - start), out)
            if rc:
                raise _error(rc)
            return _wrap(out[0])
        try:
            i = key.__index__()
        except AttributeError:
            raise TypeError(
                f"Array indices must be integers or slices, not {type(key).__name__}"
            ) from None
        n = _am_length(p)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise ArrowMetalIndexError(f"index {key} out of bounds for length {n}", lib.AM_EINDEX)
        out = _tls.out
        rc = _am_slice(p, i, 1, out)
        if rc:
            raise _error(rc)
        one = _wrap(out[0])
        return _read_values(one._ptr)[0]

    def __bool__(self):
        raise ValueError(
            "the truth value of an arrowmetal.Array is ambiguous; use len(), "
            ".equals() or am.all-style reductions"
        )

    def __repr__(self):
        p = self._ptr
        if p is None:
            return "<arrowmetal.Array (released)>"
        n = _am_length(p)
        head = (
            f"<arrowmetal.Array type={self.type} length={n} "
            f"null_count={_am_null_count(p)} device={self.device}>"
        )
        try:
            shown = self[:10].to_pylist() if n > 10 else self.to_pylist()
        except ArrowMetalError as e:  # pragma: no cover - device trouble
            return head + f"\n<values unavailable: {e}>"
        body = ", ".join("null" if v is None else repr(v) for v in shown)
        if n > 10:
            body += ", ..."
        return head + "\n[" + body + "]"

    def __reduce__(self):
        return (_rebuild, (self.to_pylist(), self.type, self.device))


def _isnan(x):
    return isinstance(x, float) and math.isnan(x)


def _rebuild(values, type_name, device):
    pa = sys.modules.get("pyarrow")
    if pa is None:
        try:
            import pyarrow as pa
        except ImportError:
            pa = None
    if pa is not None:
        patype = {"float32": pa.float32(), "float64": pa.float64()}.get(type_name)
        if patype is None:
            patype = pa.type_for_alias(type_name)
        return Array(pa.array(values, type=patype), device=device)
    import numpy as np

    return Array(np.asarray(values, dtype=_NP_NAMES[_TYPE_ALIASES[type_name]]), device=device)


def array(obj, type=None, device=None):
    """An am.Array from `obj`: an am.Array (returned as is unless `device` or
    `type` asks for a change), an Arrow array producer, a numpy array or a
    Python sequence. `type` casts (safely) after the import."""
    if _builtin_type(obj) is Array and device is None:
        a = obj
    else:
        a = Array(obj, device=device)
    if type is not None:
        t = type_id(type)
        if _am_array_type(a._ptr) != t:
            out = _tls.out
            rc = _am_cast(a._ptr, t, 1, out)
            if rc:
                raise _error(rc)
            a = _wrap(out[0])
    return a


_builtin_type = type


def full(value, length, type=None, device=None):
    """`length` copies of `value` (None: nulls; then `type` is required)."""
    if type is None:
        if value is None:
            raise ArrowMetalInvalid("full(None, ...) needs a type", lib.AM_EINVAL)
        s = scalar_from_python(value)
    else:
        s = scalar_from_python(value, type_id(type))
    out = _tls.out
    rc = _am_full(s, length, _device_ptr(device), out)
    if rc:
        raise _error(rc)
    return _wrap(out[0])
