"""The element types: their ids, names, kinds, widths, Arrow formats and numpy
dtypes, and ``type_id()``, which reads a type in any form a user writes it.

The facts come from the C library (am_type_count, am_type_info_get), so a
type added there needs no second table here. Tables are tuples indexed by the
am_type value; index 0 (AM_TYPE_INVALID) holds None, as does any value the
library names no type for.
"""

from __future__ import annotations

import sys

from ._capi import ffi, lib
from ._errors import ArrowMetalTypeError, error_from_status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import numpy as np

    from ._typing import TypeLike

__all__ = [
    "ARRAY_INTERFACE_CODES",
    "ARROW_NAMES",
    "BIT_WIDTHS",
    "CTYPE_NAMES",
    "FORMATS",
    "FORMAT_TO_TYPE",
    "INT_RANGES",
    "ITEM_SIZES",
    "KINDS",
    "KIND_BINARY",
    "KIND_BOOL",
    "KIND_DECIMAL",
    "KIND_FLOAT",
    "KIND_FLOAT16",
    "KIND_SIGNED",
    "KIND_TEMPORAL",
    "KIND_UNSIGNED",
    "NUMPY_NAMES",
    "TYPE_COUNT",
    "TYPE_NAMES",
    "numpy_types",
    "type_id",
    "type_name",
    "type_of_name",
]

KIND_BOOL = lib.AM_KIND_BOOL
KIND_SIGNED = lib.AM_KIND_SIGNED
KIND_UNSIGNED = lib.AM_KIND_UNSIGNED
KIND_FLOAT = lib.AM_KIND_FLOAT
KIND_TEMPORAL = lib.AM_KIND_TEMPORAL  # timestamps, dates, times, durations: integers of a unit
KIND_BINARY = lib.AM_KIND_BINARY  # strings and binary: offsets + data (no C value type)
KIND_DECIMAL = lib.AM_KIND_DECIMAL  # decimal128, decimal256: precision and scale per array
KIND_FLOAT16 = lib.AM_KIND_FLOAT16  # float16: a float of its own kind (no C value type)
# The kinds whose values are Python numbers (bool, int, float).
NUMBER_KINDS = (KIND_BOOL, KIND_SIGNED, KIND_UNSIGNED, KIND_FLOAT, KIND_FLOAT16)


def _read_type_infos() -> list[tuple[str, str, bytes, str | None, int, int] | None]:
    """[None or (name, arrow_name, format, numpy, bit_width, kind)] by am_type."""
    info = ffi.new("am_type_info *")
    rows: list[tuple[str, str, bytes, str | None, int, int] | None] = [None]
    for t in range(1, lib.am_type_count()):
        rc = lib.am_type_info_get(t, info)
        if rc == lib.AM_ETYPE:  # a value the library names no type for
            rows.append(None)
            continue
        if rc:
            raise error_from_status(rc)
        rows.append(
            (
                ffi.string(info.name).decode(),
                ffi.string(info.arrow_name).decode(),
                ffi.string(info.format),
                ffi.string(info.numpy).decode() or None,  # "": no numpy dtype (date32)
                info.bit_width,
                info.kind,
            )
        )
    return rows


_INFOS = _read_type_infos()
TYPE_COUNT = len(_INFOS)  # am_type values are below this


def _column(i: int, default: Any = None) -> tuple[Any, ...]:
    return tuple(default if row is None else row[i] for row in _INFOS)


TYPE_NAMES = _column(0)  # ArrowMetal's names: "int64", "float32"
ARROW_NAMES = _column(1)  # pyarrow's names: "int64", "float"
FORMATS = _column(2)  # Arrow C Data Interface format strings, as bytes: b"l"
NUMPY_NAMES = _column(3)  # numpy dtype names: "int64", "float32"
BIT_WIDTHS = _column(4, 0)
KINDS = _column(5, -1)  # AM_KIND_*; -1 where there is no type

# Bytes per value; 0 for booleans, which Arrow packs eight to a byte.
ITEM_SIZES = tuple(0 if k == KIND_BOOL else w // 8 for k, w in zip(KINDS, BIT_WIDTHS))


def _ctype_name(kind: int, width: int) -> str | None:
    if kind in (KIND_SIGNED, KIND_TEMPORAL):
        return f"int{width}_t"
    if kind == KIND_UNSIGNED:
        return f"uint{width}_t"
    if kind == KIND_FLOAT:
        return {32: "float", 64: "double"}.get(width)
    return None  # booleans are bits, not a C type


# The C type of one value, for reading buffers with cffi ("int64_t", "double").
CTYPE_NAMES = tuple(_ctype_name(k, w) for k, w in zip(KINDS, BIT_WIDTHS))

# numpy's array-interface type codes without the byte order ("i8", "f4",
# "f2"), as the CUDA Array Interface's typestr spells them; None for booleans
# (bits).
ARRAY_INTERFACE_CODES = tuple(
    {KIND_SIGNED: "i", KIND_UNSIGNED: "u", KIND_FLOAT: "f", KIND_FLOAT16: "f"}[k] + str(w // 8)
    if k in (KIND_SIGNED, KIND_UNSIGNED, KIND_FLOAT, KIND_FLOAT16)
    else None
    for k, w in zip(KINDS, BIT_WIDTHS)
)

FORMAT_TO_TYPE = {f: t for t, f in enumerate(FORMATS) if f is not None}

# [lo, hi) of each integer type's values (a temporal type's: its storage
# integer's, int32 or int64).
INT_RANGES: dict[int, tuple[int, int]] = {}
for _t, (_k, _w) in enumerate(zip(KINDS, BIT_WIDTHS)):
    if _k == KIND_SIGNED or _k == KIND_TEMPORAL:
        INT_RANGES[_t] = (-(1 << (_w - 1)), 1 << (_w - 1))
    elif _k == KIND_UNSIGNED:
        INT_RANGES[_t] = (0, 1 << _w)
del _t, _k, _w

# Names accepted where a target type is given: ArrowMetal's, pyarrow's and
# numpy's names of each type, and the other aliases pyarrow accepts
# (pyarrow.type_for_alias), so that cast(x, "double") and cast(x, "i8") work.
_PYARROW_ALIASES = {
    "boolean": "bool",
    "i1": "int8",
    "i2": "int16",
    "i4": "int32",
    "i8": "int64",
    "u1": "uint8",
    "u2": "uint16",
    "u4": "uint32",
    "u8": "uint64",
    "f4": "float32",
    "f8": "float64",
}
_TYPE_BY_NAME: dict[str, int] = {}
for _t, _row in enumerate(_INFOS):
    if _row is not None:
        for _name in (_row[0], _row[1], _row[3]):
            if _name is not None:
                _TYPE_BY_NAME.setdefault(_name, _t)
for _alias, _name in _PYARROW_ALIASES.items():
    if _name in _TYPE_BY_NAME:
        _TYPE_BY_NAME.setdefault(_alias, _TYPE_BY_NAME[_name])
del _t, _row, _name, _alias


def type_of_name(name: str) -> int | None:
    """The am_type named `name` (any accepted name or alias), or None."""
    return _TYPE_BY_NAME.get(name)


_NUMPY_TYPES: dict[np.dtype[Any], int] | None = None


def numpy_types() -> dict[np.dtype[Any], int]:
    """{numpy.dtype: am_type}; imports numpy (call it only where numpy is in use)."""
    global _NUMPY_TYPES
    if _NUMPY_TYPES is None:
        import numpy

        _NUMPY_TYPES = {numpy.dtype(n): t for t, n in enumerate(NUMPY_NAMES) if n is not None}
    return _NUMPY_TYPES


def type_id(target: TypeLike) -> int:
    """The am_type of a type given as a name ('int64', 'double', ...), an am_type
    integer, a pyarrow DataType, a numpy dtype (or anything numpy.dtype() takes)
    or one of the Python types bool, int, float."""
    # (mypy does not narrow `target` by `tp is ...`: hence the ignores.)
    tp = type(target)
    if tp is str:
        t = _TYPE_BY_NAME.get(target.lower())  # type: ignore[union-attr]
        if t is None:
            raise ArrowMetalTypeError(f"unknown type name {target!r}", lib.AM_ETYPE)
        return t
    if tp is int:
        if 0 < target < TYPE_COUNT and TYPE_NAMES[target] is not None:  # type: ignore[operator, index]
            return target  # type: ignore[return-value]
        raise ArrowMetalTypeError(f"invalid am_type {target}", lib.AM_ETYPE)
    if target is bool:
        return lib.AM_BOOL
    if target is int:
        return lib.AM_INT64
    if target is float:
        return lib.AM_FLOAT64
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(target, pa.DataType):
        t = _TYPE_BY_NAME.get(str(target))
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
            # By name: a byte-swapped dtype (">i4") names its type too.
            t = _TYPE_BY_NAME.get(dt.name) if dt.kind in "biuf" else None
            if t is None:
                raise ArrowMetalTypeError(f"unsupported numpy dtype {dt}", lib.AM_ETYPE)
            return t
    raise ArrowMetalTypeError(f"cannot interpret {target!r} as a type", lib.AM_ETYPE)


def type_name(t: int) -> str | None:
    """The name of an am_type ('int64', ...); None for a value that names no type."""
    return TYPE_NAMES[t]
