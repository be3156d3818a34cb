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
from ._decimals import fill_pyarrow_decimal, is_decimal_type
from ._errors import ArrowMetalOverflowError, ArrowMetalTypeError
from ._types import (
    INT_RANGES,
    KIND_BINARY,
    KIND_BOOL,
    KIND_FLOAT,
    KIND_FLOAT16,
    KIND_SIGNED,
    KIND_TEMPORAL,
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
    "temporal_storage",
]

AM_BOOL = lib.AM_BOOL
AM_INT64 = lib.AM_INT64
AM_UINT64 = lib.AM_UINT64
AM_FLOAT64 = lib.AM_FLOAT64
_am_array_type = lib.am_array_type
_am_array_timezone = lib.am_array_timezone

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
    """Stores Python value `v` in s as am_type `t` (a temporal type: `v` is
    its storage integer, as am_scalar keeps it in i64)."""
    k = KINDS[t]
    s.type = t
    s.is_null = 0
    if k == KIND_SIGNED or k == KIND_TEMPORAL:
        s.i64 = v
    elif k == KIND_FLOAT or k == KIND_FLOAT16:
        s.f64 = v
    elif k == KIND_UNSIGNED:
        s.u64 = v
    else:
        s.i64 = 1 if v else 0


def _check_zone(tz, t, p, text):
    """Refuses (ArrowMetalTypeError: pyarrow's call instead, counted) a
    timestamp scalar of time zone `tz` (None: none) and am_type `t` that the
    library would misread against array `p` (or None): a scalar reaches it
    without a zone and is read in the array's, which is pyarrow's answer
    only where both are naive, or both zoned in one zone or with one unit
    (then the values are instants of the same clock)."""
    if p is None:
        if tz is None:
            return
        zone = None
    else:
        z = _am_array_timezone(p)
        zone = ffi.string(z).decode() if z != ffi.NULL else None
        if (tz is None) == (zone is None) and (tz == zone or _am_array_type(p) == t):
            return
    raise ArrowMetalTypeError(
        f"no kernel for a {text} scalar against an array "
        + (f"in time zone {zone}" if zone else "without a time zone"),
        lib.AM_ETYPE,
    )


def fill_numpy_scalar(v, s, p):
    t = numpy_types().get(v.dtype)
    if t is None:
        raise ArrowMetalTypeError(f"unsupported numpy scalar type {v.dtype}", lib.AM_ETYPE)
    if KINDS[t] != KIND_TEMPORAL:
        _set_value(s, t, v.item())
        return
    # datetime64 / timedelta64: their integer (item() gives a datetime for
    # the coarser units); NaT is a null, as pyarrow reads it.
    if v.dtype.kind == "M":
        _check_zone(None, t, p, str(v.dtype))
    n = int(v.view("int64"))
    s.type = t
    s.is_null = 1 if n == _I64_MIN else 0
    s.i64 = n


def fill_pyarrow_scalar(v, s, p):
    ty = v.type
    name = str(ty)
    if name == "null":
        fill_none(None, s, p)
        return
    if is_decimal_type(ty):
        fill_pyarrow_decimal(v, s)
        return
    tz = getattr(ty, "tz", None)  # timestamps only: the zone is checked below
    t = type_of_name(f"timestamp[{ty.unit}]" if tz is not None else name)
    if t is None and name.startswith("fixed_size_binary["):
        t = lib.AM_FIXED_SIZE_BINARY
    if t is None:
        raise ArrowMetalTypeError(f"unsupported pyarrow scalar type {name}", lib.AM_ETYPE)
    k = KINDS[t]
    if k == KIND_TEMPORAL and name.startswith("timestamp["):
        _check_zone(tz, t, p, name)
    if not v.is_valid:
        s.type = t
        s.is_null = 1
        return
    if k == KIND_BINARY:
        data = v.as_py()
        _fill_string_bytes(data.encode("utf-8") if isinstance(data, str) else data, t, s)
        if t == lib.AM_FIXED_SIZE_BINARY:
            s.i64 = v.type.byte_width
        return
    # A temporal scalar's storage integer (as_py() would give a datetime).
    _set_value(s, t, v.value if k == KIND_TEMPORAL else v.as_py())


def temporal_storage(value, t):
    """pyarrow's conversion of `value` (a datetime, date, time or timedelta,
    a numpy datetime64 / timedelta64 or a pyarrow scalar) to temporal am_type
    `t`: its storage integer, or None for a null (NaT)."""
    try:
        import pyarrow as pa
    except ImportError:
        raise ArrowMetalTypeError(
            f"converting {value!r} to {TYPE_NAMES[t]} needs pyarrow (or give its integer)",
            lib.AM_ETYPE,
        ) from None
    from ._results import _pyarrow_type

    target = _pyarrow_type(t)
    v = value.cast(target) if isinstance(value, pa.Scalar) else pa.scalar(value, type=target)
    return v.value if v.is_valid else None


def scalar_of_type(value, t, s=None):
    """An am_scalar holding `value` (None: null) as am_type `t`; a value that
    does not fit the type is an OverflowError."""
    if s is None:
        s = ffi.new("am_scalar *")
    k = KINDS[t]
    if k == KIND_TEMPORAL and value is not None and not isinstance(value, int):
        value = temporal_storage(value, t)
    if value is None:
        s.type = t
        s.is_null = 1
        return s
    if hasattr(value, "item") and not isinstance(value, (int, float)):
        value = value.item()  # numpy scalar
    if k == KIND_FLOAT or k == KIND_FLOAT16:  # a float16 rounds in the library
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
    if k == KIND_FLOAT or k == KIND_FLOAT16:
        return s.f64
    if k == KIND_UNSIGNED:
        return s.u64
    if k == KIND_BOOL:
        return s.i64 != 0
    raise ArrowMetalTypeError(f"scalar of invalid type {s.type}", lib.AM_ETYPE)
