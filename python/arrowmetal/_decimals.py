"""Decimals: ``decimal.Decimal`` values and pyarrow decimal scalars into
``am_scalar``, and the library's decimal scalars back into pyarrow's.

A decimal am_scalar points at its 16 or 32 value bytes (``u64``) and packs
its precision and scale into ``i64`` (arrowmetal.h, "Decimals"); the bytes
live as long as the am_scalar that points at them.
"""

from __future__ import annotations

import weakref

from ._capi import ffi, lib
from ._errors import ArrowMetalInvalid, ArrowMetalOverflowError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "decimal_reduction",
    "decimal_scalar",
    "decimal_target",
    "fill_decimal",
    "fill_pyarrow_decimal",
    "is_decimal_type",
]

_BYTES = {lib.AM_DECIMAL128: 16, lib.AM_DECIMAL256: 32}
_MAX_DIGITS = {lib.AM_DECIMAL128: 38, lib.AM_DECIMAL256: 76}
_KEEP: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _pack(precision: int, scale: int) -> int:
    """i64 of a decimal scalar: precision low, scale (signed) high."""
    packed = ((scale & 0xFFFFFFFF) << 32) | precision
    return packed - (1 << 64) if packed >= 1 << 63 else packed


def _fill(unscaled: int, t: int, precision: int, scale: int, s: Any) -> None:
    try:
        data = unscaled.to_bytes(_BYTES[t], "little", signed=True)
    except OverflowError:
        raise ArrowMetalOverflowError(
            f"decimal value {unscaled}e-{scale} does not fit in {_BYTES[t] * 8} bits",
            lib.AM_EOVERFLOW,
        ) from None
    buf = ffi.new("char[]", data)
    _KEEP[s] = buf
    s.type = t
    s.is_null = 0
    s.i64 = _pack(precision, scale)
    s.u64 = int(ffi.cast("uintptr_t", buf))


def _unscaled(v: Any, scale: int) -> int:
    """v * 10^scale, exactly (v has at most `scale` fraction digits): by its
    digits, as Decimal arithmetic rounds to the context's precision."""
    sign, digits, exponent = v.as_tuple()
    n = int("".join(map(str, digits)) or "0") * 10 ** (int(exponent) + scale)
    return -n if sign else n


def fill_decimal(v: Any, s: Any, p: Any) -> None:
    """A decimal.Decimal at its own scale and digits (as pyarrow infers its
    type); the library rescales it to the values it meets, refusing a loss."""
    if not v.is_finite():
        raise ArrowMetalInvalid(f"cannot convert {v} to a decimal", lib.AM_EINVAL)
    scale = max(-int(v.as_tuple().exponent), 0)
    unscaled = _unscaled(v, scale)
    precision = max(len(str(abs(unscaled))), scale, 1)
    t = lib.AM_DECIMAL128 if precision <= 38 else lib.AM_DECIMAL256
    if precision > _MAX_DIGITS[t]:
        raise ArrowMetalInvalid(f"{v} has more than 76 digits", lib.AM_EINVAL)
    _fill(unscaled, t, precision, scale, s)


def is_decimal_type(t_pa: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_decimal128(t_pa) or pa.types.is_decimal256(t_pa)


def decimal_target(target: Any) -> tuple[int, int, int] | None:
    """(am_type, precision, scale) of a pyarrow decimal128 / decimal256 type;
    None for anything else (am_cast_decimal's arguments)."""
    import sys

    pa = sys.modules.get("pyarrow")
    if pa is None or not isinstance(target, pa.DataType) or not is_decimal_type(target):
        return None
    t = lib.AM_DECIMAL128 if pa.types.is_decimal128(target) else lib.AM_DECIMAL256
    return t, target.precision, target.scale


def fill_pyarrow_decimal(v: Any, s: Any) -> None:
    """A pyarrow decimal128 / decimal256 scalar (null too)."""
    import pyarrow as pa

    t = lib.AM_DECIMAL128 if pa.types.is_decimal128(v.type) else lib.AM_DECIMAL256
    if not v.is_valid:
        s.type = t
        s.is_null = 1
        s.i64 = _pack(v.type.precision, v.type.scale)
        return
    scale = v.type.scale
    _fill(_unscaled(v.as_py(), scale), t, v.type.precision, scale, s)


def decimal_scalar(s: Any) -> Any:
    """A decimal result of the library (its bytes in the thread's storage)
    as pyarrow's scalar of its type."""
    import pyarrow as pa

    precision = s.i64 & 0xFFFFFFFF
    scale = (s.i64 >> 32) & 0xFFFFFFFF
    scale = scale - (1 << 32) if scale >= 1 << 31 else scale
    t_pa = (pa.decimal128 if s.type == lib.AM_DECIMAL128 else pa.decimal256)(precision, scale)
    if s.is_null:
        return pa.scalar(None, t_pa)
    data = ffi.buffer(ffi.cast("const char *", s.u64), _BYTES[s.type])[:]
    # From the bytes, not the number: a sum that wrapped, as pyarrow's do, has
    # more digits than its type and pa.scalar would refuse it.
    return pa.Array.from_buffers(t_pa, 1, [None, pa.py_buffer(data)])[0]


_AGGREGATES = {"sum": lib.AM_AGG_SUM, "mean": lib.AM_AGG_MEAN, "min": lib.AM_AGG_MIN,
               "max": lib.AM_AGG_MAX}  # fmt: skip


def decimal_reduction(name: str, p: Any, skip_nulls: bool, min_count: int) -> Any:
    """sum, mean, min or max of decimal handle `p` with pyarrow's options,
    by am_aggregate (whose null results carry the result's parameters)."""
    from ._errors import error_from_status

    options = ffi.new("am_aggregate_options *", [1 if skip_nulls else 0, min_count, 0])
    s = ffi.new("am_scalar *")
    rc = lib.am_aggregate(_AGGREGATES[name], p, options, s)
    if rc:
        raise error_from_status(rc)
    return decimal_scalar(s)
