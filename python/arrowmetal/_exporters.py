"""Arrays out of ArrowMetal: Arrow PyCapsules (and the sweep that releases
the ones nobody consumed), Python lists, numpy and pyarrow arrays, and the
CUDA Array Interface. Each takes an ``am_array *`` the caller keeps alive.
"""

from __future__ import annotations

import atexit
import ctypes
import sys
import threading

from ._capi import (
    NAME_ARRAY,
    NAME_DEVICE_ARRAY,
    NAME_DEVICE_STREAM,
    NAME_SCHEMA,
    NAME_STREAM,
    ffi,
    lib,
)
from ._devices import device_backend
from ._errors import ArrowMetalInvalid, ArrowMetalUnsupported, error_from_status
from ._results import null_of, valid_of
from ._types import (
    ARRAY_INTERFACE_CODES,
    CTYPE_NAMES,
    ITEM_SIZES,
    KIND_FLOAT,
    KIND_FLOAT16,
    KINDS,
    NUMBER_KINDS,
    NUMPY_NAMES,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "cuda_array_interface",
    "export_capsules",
    "export_device_capsules",
    "optional_pyarrow",
    "pending_exports",
    "read_scalar",
    "read_values",
    "release_struct",
    "require_pyarrow",
    "sweep",
    "to_numpy",
    "to_pyarrow",
]

_error = error_from_status
_NULL = ffi.NULL
_cast = ffi.cast
_T_SCHEMA_P = ffi.typeof("struct ArrowSchema *")
_T_ARRAY_P = ffi.typeof("struct ArrowArray *")
_T_DEVICE_ARRAY_P = ffi.typeof("struct ArrowDeviceArray *")
_T_UINTPTR = ffi.typeof("uintptr_t")
AM_BOOL = lib.AM_BOOL
_am_export = lib.am_export
_am_export_device = lib.am_export_device
_am_array_type = lib.am_array_type


def release_struct(st):
    """Calls an ArrowSchema's or ArrowArray's release callback unless it was
    moved out (release NULL)."""
    if st.release != _NULL:
        st.release(st)


def optional_pyarrow():
    """The pyarrow module when it is installed, else None (imported on first
    need: the package itself does not need it)."""
    pa = sys.modules.get("pyarrow")
    if pa is None:
        try:
            import pyarrow as pa
        except ImportError:
            return None
    return pa


def require_pyarrow(what):
    """The pyarrow module; ArrowMetalUnsupported naming `what` without it."""
    try:
        import pyarrow as pa
    except ImportError:
        raise ArrowMetalUnsupported(
            f"{what} needs pyarrow, which is not installed", lib.AM_EUNSUPPORTED
        ) from None
    return pa


# ---------------------------------------------------------------------------
# PyCapsules
#
# Exported capsules have no destructor: a PyCapsule destructor written in
# Python (a cffi or ctypes callback) runs inside the capsule's deallocation,
# which may happen while an exception propagates through the consumer, and
# calling Python code then replaces that exception with a SystemError. So each
# capsule stays listed here with the struct behind it until only this list
# refers to it; sweep() (run on every export and at exit) then calls the
# struct's release callback if no consumer moved it out, and frees it.
# Entries: (capsule, keepalive, releasable struct).

_PyCapsule_New = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p
)(("PyCapsule_New", ctypes.pythonapi))

_EXPORTS: list[Any] = []
_EXPORTS_LOCK = threading.Lock()
_getrefcount = sys.getrefcount


def _unshared_refcount():
    """What sweep's refcount test reads for an object only its list holds
    (measured, since interpreters differ in the references they count)."""
    probe = [(object(), None, None)]
    for rec in probe:
        return _getrefcount(rec[0])
    return 2  # pragma: no cover


_UNSHARED = _unshared_refcount()


def sweep():
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
        release_struct(rec[2])


atexit.register(sweep)


def pending_exports():
    """How many exported structs are waiting for a sweep (for tests)."""
    return len(_EXPORTS)


def _make_capsules(keep, schema, array, array_name):
    """(schema capsule, array capsule) over the exported structs; see _EXPORTS."""
    sweep()
    try:
        sc = _PyCapsule_New(int(_cast(_T_UINTPTR, schema)), NAME_SCHEMA, None)
        ac = _PyCapsule_New(int(_cast(_T_UINTPTR, array)), array_name, None)
    except BaseException:
        release_struct(schema)
        release_struct(array)
        raise
    with _EXPORTS_LOCK:
        _EXPORTS.append((sc, keep, schema))
        _EXPORTS.append((ac, keep, array))
    return sc, ac


def export_capsules(p):
    """(arrow_schema, arrow_array) capsules of array handle `p` (host memory)."""
    sch = ffi.new(_T_SCHEMA_P)
    arr = ffi.new(_T_ARRAY_P)
    rc = _am_export(p, sch, arr)
    if rc:
        raise _error(rc)
    return _make_capsules((sch, arr), sch, arr, NAME_ARRAY)


def export_device_capsules(p):
    """(arrow_schema, arrow_device_array) capsules of `p` on its own device."""
    sch = ffi.new(_T_SCHEMA_P)
    darr = ffi.new(_T_DEVICE_ARRAY_P)
    rc = _am_export_device(p, sch, darr)
    if rc:
        raise _error(rc)
    return _make_capsules((sch, darr), sch, ffi.addressof(darr[0], "array"), NAME_DEVICE_ARRAY)


def export_stream_capsule(table, device=False):
    """An arrow_array_stream capsule of am_table `table` (am_export_stream),
    or with `device` an arrow_device_array_stream one (am_export_device_stream:
    the batches where they live), released by sweep() as the array capsules
    are, unless a consumer took the stream (release NULL)."""
    sweep()
    kind = "struct ArrowDeviceArrayStream *" if device else "struct ArrowArrayStream *"
    st = ffi.new(kind)
    rc = (lib.am_export_device_stream if device else lib.am_export_stream)(table, st)
    if rc:
        raise _error(rc)
    try:
        name = NAME_DEVICE_STREAM if device else NAME_STREAM
        cap = _PyCapsule_New(int(_cast(_T_UINTPTR, st)), name, None)
    except BaseException:
        release_struct(st)
        raise
    with _EXPORTS_LOCK:
        _EXPORTS.append((cap, st, st))
    return cap


# ---------------------------------------------------------------------------
# Values


class _Export:
    """An exported ArrowArray (host memory) released once, when this dies."""

    __slots__ = ("__weakref__", "arr")

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
            release_struct(arr)


def read_values(p):
    """The values of array handle `p` as a Python list (None for nulls)."""
    t = _am_array_type(p)
    if (CTYPE_NAMES[t] is None and t != AM_BOOL) or KINDS[t] not in NUMBER_KINDS:
        # strings, binary, decimals, temporal types: pyarrow's Python values
        # (datetime, date, time, timedelta, Decimal, bytes), as pyarrow's to_pylist
        return to_pyarrow(p).to_pylist()
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
        values = ffi.unpack(_cast(CTYPE_NAMES[t] + " *", data) + off, n)
    validity = a.buffers[0]
    if a.null_count != 0 and validity != _NULL:
        vb = ffi.buffer(_cast("uint8_t *", validity), (off + n + 7) // 8)[:]
        for i in range(n):
            j = off + i
            if not (vb[j >> 3] >> (j & 7)) & 1:
                values[i] = None
    del ex
    return values


def read_scalar(p):
    """The one slot of result handle `p` as pyarrow.compute gives a scalar
    result: numbers and booleans as the reductions give theirs (the Python
    number that is also a Scalar, _results.py; a NullScalar for a null),
    other types as pyarrow's Scalar of the exact type (a timestamp's zone, a
    decimal's precision, a string)."""
    t = _am_array_type(p)
    if KINDS[t] in NUMBER_KINDS:
        v = read_values(p)[0]
        return null_of(t) if v is None else valid_of(t, v)
    return to_pyarrow(p)[0]


def to_numpy(p, zero_copy_only=False):
    """A numpy array of `p`: a read-only zero-copy view when there are no nulls
    and the type is not bool (the view keeps the export alive); nulls become
    NaN (integers become float64) and booleans with nulls an object array, as
    pyarrow does."""
    import numpy as np

    t = _am_array_type(p)
    # strings, binary and decimals: objects, as pyarrow (float16 is numpy's too)
    if CTYPE_NAMES[t] is None and t != AM_BOOL and KINDS[t] != KIND_FLOAT16:
        return to_pyarrow(p).to_numpy(zero_copy_only=zero_copy_only)
    dtype = np.dtype(NUMPY_NAMES[t])
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
        size = ITEM_SIZES[t]
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
        elif KINDS[t] == KIND_FLOAT or KINDS[t] == KIND_FLOAT16:
            values = values.copy()
            values[null] = np.nan
        else:
            values = values.astype(np.float64)
            values[null] = np.nan
    return values


def to_pyarrow(p):
    """A pyarrow.Array over the same buffers (zero-copy from the CPU)."""
    pa = require_pyarrow("Array.to_pyarrow()")
    sch = ffi.new(_T_SCHEMA_P)
    arr = ffi.new(_T_ARRAY_P)
    rc = _am_export(p, sch, arr)
    if rc:
        raise _error(rc)
    try:
        return pa.Array._import_from_c(int(_cast(_T_UINTPTR, arr)), int(_cast(_T_UINTPTR, sch)))
    finally:
        release_struct(arr)
        release_struct(sch)


# ---------------------------------------------------------------------------
# CUDA Array Interface


def cuda_array_interface(p):
    """Version 3 of the CUDA Array Interface of a CUDA-resident handle `p`
    (numeric, without nulls: the interface has no bits and no bitmap). The
    memory stays owned by `p`. AttributeError where the interface does not
    apply, so that hasattr() answers False."""
    device = lib.am_array_device(p)
    if device_backend(device) != "cuda":
        raise AttributeError("__cuda_array_interface__: the array is not on a CUDA device")
    t = _am_array_type(p)
    if t == AM_BOOL or lib.am_null_count(p) != 0:
        raise AttributeError("__cuda_array_interface__: bool arrays and arrays with nulls")
    sch = ffi.new(_T_SCHEMA_P)
    darr = ffi.new(_T_DEVICE_ARRAY_P)
    rc = _am_export_device(p, sch, darr)
    if rc:
        raise _error(rc)
    try:
        base = int(_cast(_T_UINTPTR, darr.array.buffers[1]))
        address = base + darr.array.offset * ITEM_SIZES[t]
        length = darr.array.length
    finally:
        release_struct(ffi.addressof(darr[0], "array"))
        release_struct(sch)
    # The consumer reads the memory on streams of its own and cannot wait on
    # our sync event: every call made so far on the device must be done
    # first (inside a batch too, where the work producing `p` may be queued).
    rc = lib.am_device_sync(device)
    if rc:
        raise _error(rc)
    return {"shape": (length,), "typestr": "<" + ARRAY_INTERFACE_CODES[t],
            "data": (address, False), "version": 3, "strides": None,
            "stream": None}  # fmt: skip
