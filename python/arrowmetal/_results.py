"""Reduction results that behave like pyarrow Scalars.

pyarrow.compute's reductions return Scalars (``.as_py()``, ``.is_valid``,
``.type``); code that switched its import relies on them. A valid result here
is an instance of a subclass of int or float (bool results: of int), so it is
also the Python number it was before -- arithmetic, formatting and ``==``
with Python values keep working, and making one costs one type call on the
hot path. A null result is a NullScalar of the result type: ``is_valid`` is
False, ``as_py()`` is None, and it equals None and other nulls of its type.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping

from ._capi import lib
from ._decimals import decimal_scalar
from ._errors import ArrowMetalTypeError
from ._types import (
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
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, Callable

    import pyarrow as pa

__all__ = ["NullScalar", "Scalar", "StructScalar", "null_of", "result_value", "valid_of"]


def _pyarrow_type(t: int) -> pa.DataType | str:
    """The pyarrow DataType of am type `t`, or its name without pyarrow."""
    pa: Any = sys.modules.get("pyarrow")
    if pa is None:
        try:
            import pyarrow as pa  # type: ignore[no-redef, unused-ignore]
        except ImportError:
            return TYPE_NAMES[t]
    return pa.type_for_alias(_PA_ALIASES.get(TYPE_NAMES[t], TYPE_NAMES[t]))


_PA_ALIASES = {"bool": "bool", "float32": "float", "float64": "double"}


class Scalar:
    """Mixin of the valid results: pyarrow Scalar's read-only surface."""

    __slots__ = ()
    is_valid = True
    _am_type = 0

    if TYPE_CHECKING:
        # What each result class (made by _make: a subclass of this one and
        # of int or float) has.
        _base: type[int] | type[float]

        def as_py(self) -> bool | int | float: ...
        def __int__(self) -> int: ...
        def __float__(self) -> float: ...

    @property
    def type(self) -> pa.DataType | str:
        """The result's type: a pyarrow DataType (its name without pyarrow)."""
        return _pyarrow_type(self._am_type)

    def __repr__(self) -> str:
        return f"<arrowmetal.Scalar {TYPE_NAMES[self._am_type]}: {self.as_py()!r}>"

    def __str__(self) -> str:
        return str(self.as_py())

    def __reduce__(self) -> tuple[Any, ...]:
        return (self._base, (self.as_py(),))


def _make(t: int) -> type:
    kind = KINDS[t]
    name = TYPE_NAMES[t].capitalize() + "Scalar"
    base: type[int | float]
    as_py: Callable[[Any], bool | int | float]
    if kind == KIND_FLOAT or kind == KIND_FLOAT16:
        base, as_py = float, float.__float__
    elif kind == KIND_BOOL:
        base, as_py = int, lambda self: int.__int__(self) != 0
    else:
        base, as_py = int, int.__int__
    return type(
        name,
        (Scalar, base),
        {"__slots__": (), "_am_type": t, "_base": base, "as_py": as_py, "__module__": __name__},
    )


# The result class of each am type (None where there is no type).
VALID: list[Any] = [None] * TYPE_COUNT
for _t in range(1, TYPE_COUNT):
    if TYPE_NAMES[_t] is not None:
        VALID[_t] = _make(_t)


class NullScalar:
    """A null result of one type (pyarrow's null Scalar)."""

    __slots__ = ("_am_type",)
    is_valid = False

    def __init__(self, t: int) -> None:
        self._am_type = t

    @property
    def type(self) -> pa.DataType | str:
        """The result's type: a pyarrow DataType (its name without pyarrow)."""
        return _pyarrow_type(self._am_type)

    def as_py(self) -> None:
        return None

    def __eq__(self, other: object) -> bool:
        if other is None:
            return True
        if isinstance(other, NullScalar):
            return other._am_type == self._am_type
        return NotImplemented

    def __hash__(self) -> int:
        return hash((None, self._am_type))

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"<arrowmetal.Scalar {TYPE_NAMES[self._am_type]}: None>"

    def __str__(self) -> str:
        return "None"


# The null result of each am type (None where there is no type).
_NULLS: list[Any] = [
    NullScalar(t) if t and TYPE_NAMES[t] is not None else None for t in range(TYPE_COUNT)
]


def null_of(t: int) -> NullScalar:
    """The null result of type `t`."""
    return _NULLS[t]


def valid_of(t: int, value: float) -> Scalar:
    """`value` as a valid result of type `t`."""
    return VALID[t](value)


def _temporal_scalar(t: int, value: int | None, tz: int = 0) -> Any:
    """A temporal result as pyarrow's scalar of its type; a timestamp's time
    zone comes in the scalar's u64 (a C string, arrowmetal.h)."""
    import pyarrow as pa

    from ._capi import ffi

    t_pa: Any = _pyarrow_type(t)
    if tz and pa.types.is_timestamp(t_pa):
        t_pa = pa.timestamp(t_pa.unit, tz=ffi.string(ffi.cast("const char *", tz)).decode())
    storage = pa.int32() if t_pa.bit_width == 32 else pa.int64()
    return pa.array([value], storage).view(t_pa)[0]


def _string_scalar(t: int, s: Any) -> Any:
    """A string or binary result as pyarrow's scalar: its bytes are at s.u64
    (s.i64 of them; a fixed_size_binary's width even when null), inside the
    input array, which the caller still holds."""
    import pyarrow as pa

    from ._capi import ffi

    t_pa: Any = pa.binary(s.i64) if t == lib.AM_FIXED_SIZE_BINARY else _pyarrow_type(t)
    if s.is_null:
        return pa.scalar(None, t_pa)
    data = ffi.buffer(ffi.cast("const char *", s.u64), s.i64)[:] if s.i64 else b""
    text = (
        pa.types.is_unicode(t_pa)
        or pa.types.is_large_unicode(t_pa)
        or pa.types.is_string_view(t_pa)
    )
    return pa.scalar(data.decode("utf-8") if text else data, t_pa)


def result_value(s: Any) -> Scalar | NullScalar:
    """The result held by am_scalar `s` (an ``am_scalar *``)."""
    t = s.type
    if 0 < t < TYPE_COUNT and KINDS[t] == KIND_TEMPORAL:
        return _temporal_scalar(t, None if s.is_null else s.i64, s.u64)
    if 0 < t < TYPE_COUNT and KINDS[t] == KIND_BINARY:
        return _string_scalar(t, s)
    if t == lib.AM_DECIMAL128 or t == lib.AM_DECIMAL256:
        return decimal_scalar(s)
    if not 0 < t < TYPE_COUNT or VALID[t] is None:
        raise ArrowMetalTypeError(f"scalar of invalid type {t}", lib.AM_ETYPE)
    if s.is_null:
        return _NULLS[t]
    k = KINDS[t]
    if k == KIND_SIGNED or k == KIND_BOOL:
        return VALID[t](s.i64)
    if k == KIND_FLOAT or k == KIND_FLOAT16:
        return VALID[t](s.f64)
    if k == KIND_UNSIGNED:
        return VALID[t](s.u64)
    raise ArrowMetalTypeError(f"scalar of invalid type {t}", lib.AM_ETYPE)


# ---------------------------------------------------------------------------
# Two results in one: min_max and first_last.


class StructScalar(Mapping[str, "Scalar | NullScalar"]):
    """pyarrow's StructScalar as min_max and first_last give it: a mapping of
    field names to Scalars (``r['min']``, ``r['max']``; by position ``r[0]``),
    ``.as_py()`` -> ``{'min': 1, 'max': 3}``, ``.type`` (``struct<min: int8,
    max: int8>``), and ``.is_valid`` always True (pyarrow's struct is never
    null; its fields may be). Equal to another with the same fields, and to a
    dict of its ``as_py()`` values."""

    __slots__ = ("_names", "_values")
    is_valid = True

    def __init__(self, names: tuple[str, ...], values: tuple[Scalar | NullScalar, ...]) -> None:
        self._names = names
        self._values = values

    def __getitem__(self, key: str | int) -> Scalar | NullScalar:
        if isinstance(key, int):
            return self._values[key]
        try:
            return self._values[self._names.index(key)]
        except ValueError:
            raise KeyError(key) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def as_py(self) -> dict[str, bool | int | float | None]:
        """{field name: Python value}, None for a null field."""
        return {n: v.as_py() for n, v in zip(self._names, self._values)}

    @property
    def type(self) -> pa.DataType | str:
        """pyarrow's struct type of the fields (its text without pyarrow)."""
        pa: Any = sys.modules.get("pyarrow")
        if pa is None:
            try:
                import pyarrow as pa  # type: ignore[no-redef, unused-ignore]
            except ImportError:
                fields = ", ".join(f"{n}: {v.type}" for n, v in zip(self._names, self._values))
                return f"struct<{fields}>"
        return pa.struct([(n, v.type) for n, v in zip(self._names, self._values)])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StructScalar):
            return self._names == other._names and all(
                _same(a, b) for a, b in zip(self._values, other._values)
            )
        if isinstance(other, dict):
            return self.as_py() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"({n!r}, {v.as_py()!r})" for n, v in zip(self._names, self._values))
        return f"<arrowmetal.StructScalar: [{fields}]>"

    def __str__(self) -> str:
        return str(self.as_py())

    def __reduce__(self) -> tuple[Any, ...]:
        # By type and Python value: a pickled Scalar is its plain number.
        types = tuple(v._am_type for v in self._values)
        return (_struct_of, (self._names, types, tuple(v.as_py() for v in self._values)))


def _struct_of(
    names: tuple[str, ...], types: tuple[int, ...], values: tuple[Any, ...]
) -> StructScalar:
    return StructScalar(
        names, tuple(null_of(t) if v is None else valid_of(t, v) for t, v in zip(types, values))
    )


def _same(a: Scalar | NullScalar, b: Scalar | NullScalar) -> bool:
    """Equal fields: same type and value (NaN equals NaN, as pyarrow's
    Scalar.equals has it)."""
    if a._am_type != b._am_type or a.is_valid != b.is_valid:
        return False
    x, y = a.as_py(), b.as_py()
    if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
        return True
    return x == y
