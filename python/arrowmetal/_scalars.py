"""Scalars: Python, numpy and pyarrow scalars into ``am_scalar``, and
``am_scalar`` results back into Python values.

The fill functions share one signature, ``fill(value, s, p)``: they write
am_scalar ``*s``; ``p`` is the handle of the array operand the scalar meets
(or None), whose type a null scalar takes. ``_dispatch`` picks one per Python
type.
"""

import math
import weakref

from ._capi import ffi, lib
from ._errors import ArrowMetalOverflowError, ArrowMetalTypeError
from ._types import (
    INT_RANGES,
    KIND_BINARY,
    KIND_BOOL,
    KIND_FLOAT,
    KIND_SIGNED,
    KIND_UNSIGNED,
    KINDS,
    TYPE_COUNT,
    TYPE_NAMES,
    numpy_types,
    type_of_name,
)

__all__ = [
    "WORD0_FLOAT64",
    "WORD0_INT64",
    "fill_bool",
    "fill_bytes",
    "fill_float",
    "fill_int",
    "fill_int_subclass",
    "fill_none",
    "fill_numpy_scalar",
    "fill_pyarrow_scalar",
    "fill_str",
    "scalar_of_type",
    "scalar_value",
]

AM_BOOL = lib.AM_BOOL
AM_INT64 = lib.AM_INT64
AM_UINT64 = lib.AM_UINT64
AM_FLOAT64 = lib.AM_FLOAT64
_am_array_type = lib.am_array_type

_I64_MIN = -(1 << 63)
_I64_END = 1 << 63
_U64_END = 1 << 64


def _word0(t):
    s = ffi.new("am_scalar *")
    s.type = t
    s.is_null = 0
    return ffi.cast("int64_t *", s)[0]


# Word 0 (type and is_null) of a valid int64 / float64 result: the fast paths
# read a result with one comparison (see _state.ThreadState.fast).
WORD0_INT64 = _word0(AM_INT64)
WORD0_FLOAT64 = _word0(AM_FLOAT64)


def fill_int(v, s, p):
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


def fill_int_subclass(v, s, p):
    fill_int(int(v), s, p)


def fill_float(v, s, p):
    s.type = AM_FLOAT64
    s.is_null = 0
    s.f64 = v


def fill_bool(v, s, p):
    s.type = AM_BOOL
    s.is_null = 0
    s.i64 = 1 if v else 0


# A string scalar's bytes, kept alive as long as the am_scalar that points at
# them (am_scalar.u64 holds their address, i64 their count).
_STRING_BYTES: "weakref.WeakKeyDictionary[object, object]" = weakref.WeakKeyDictionary()


def _fill_string_bytes(data, t, s):
    buf = ffi.new("char[]", data)
    _STRING_BYTES[s] = buf
    s.type = t
    s.is_null = 0
    s.i64 = len(data)
    s.u64 = int(ffi.cast("uintptr_t", buf))


def fill_str(v, s, p):
    _fill_string_bytes(v.encode("utf-8"), lib.AM_UTF8, s)


def fill_bytes(v, s, p):
    _fill_string_bytes(bytes(v), lib.AM_BINARY, s)


def fill_none(v, s, p):
    s.type = _am_array_type(p) if p is not None else AM_INT64
    s.is_null = 1


def _set_value(s, t, v):
    """Stores Python value `v` in s as am_type `t`."""
    k = KINDS[t]
    s.type = t
    s.is_null = 0
    if k == KIND_SIGNED:
        s.i64 = v
    elif k == KIND_FLOAT:
        s.f64 = v
    elif k == KIND_UNSIGNED:
        s.u64 = v
    else:
        s.i64 = 1 if v else 0


def fill_numpy_scalar(v, s, p):
    t = numpy_types().get(v.dtype)
    if t is None:
        raise ArrowMetalTypeError(f"unsupported numpy scalar type {v.dtype}", lib.AM_ETYPE)
    _set_value(s, t, v.item())


def fill_pyarrow_scalar(v, s, p):
    name = str(v.type)
    if name == "null":
        fill_none(None, s, p)
        return
    t = type_of_name(name)
    if t is None and name.startswith("fixed_size_binary["):
        t = lib.AM_FIXED_SIZE_BINARY
    if t is None:
        raise ArrowMetalTypeError(f"unsupported pyarrow scalar type {name}", lib.AM_ETYPE)
    if not v.is_valid:
        s.type = t
        s.is_null = 1
        return
    if KINDS[t] == KIND_BINARY:
        data = v.as_py()
        _fill_string_bytes(data.encode("utf-8") if isinstance(data, str) else data, t, s)
        if t == lib.AM_FIXED_SIZE_BINARY:
            s.i64 = v.type.byte_width
        return
    _set_value(s, t, v.as_py())


def scalar_of_type(value, t, s=None):
    """An am_scalar holding `value` (None: null) as am_type `t`; a value that
    does not fit the type is an OverflowError."""
    if s is None:
        s = ffi.new("am_scalar *")
    if value is None:
        s.type = t
        s.is_null = 1
        return s
    if hasattr(value, "item") and not isinstance(value, (int, float)):
        value = value.item()  # numpy scalar
    k = KINDS[t]
    if k == KIND_FLOAT:
        value = float(value)
    elif k == KIND_BOOL:
        value = bool(value)
    else:
        if isinstance(value, float) and not (math.isfinite(value) and value == int(value)):
            raise ArrowMetalOverflowError(f"{value!r} is not an integer", lib.AM_EOVERFLOW)
        value = int(value)
        lo, hi = INT_RANGES[t]
        if not lo <= value < hi:
            raise ArrowMetalOverflowError(
                f"{value} does not fit in {TYPE_NAMES[t]}", lib.AM_EOVERFLOW
            )
    _set_value(s, t, value)
    return s


def scalar_value(s):
    """The Python value of an am_scalar: int, float, bool or None."""
    if s.is_null:
        return None
    t = s.type
    k = KINDS[t] if 0 < t < TYPE_COUNT else -1
    if k == KIND_SIGNED:
        return s.i64
    if k == KIND_FLOAT:
        return s.f64
    if k == KIND_UNSIGNED:
        return s.u64
    if k == KIND_BOOL:
        return s.i64 != 0
    raise ArrowMetalTypeError(f"scalar of invalid type {s.type}", lib.AM_ETYPE)
