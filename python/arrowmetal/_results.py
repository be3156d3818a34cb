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

import sys

from ._capi import lib
from ._errors import ArrowMetalTypeError
from ._types import KIND_BOOL, KIND_FLOAT, KIND_SIGNED, KIND_UNSIGNED, KINDS, TYPE_COUNT, TYPE_NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    import pyarrow as pa

__all__ = ["NullScalar", "Scalar", "null_of", "result_value", "valid_of"]


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
    if kind == KIND_FLOAT:
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


def result_value(s: Any) -> Scalar | NullScalar:
    """The result held by am_scalar `s` (an ``am_scalar *``)."""
    t = s.type
    if not 0 < t < TYPE_COUNT or VALID[t] is None:
        raise ArrowMetalTypeError(f"scalar of invalid type {t}", lib.AM_ETYPE)
    if s.is_null:
        return _NULLS[t]
    k = KINDS[t]
    if k == KIND_SIGNED or k == KIND_BOOL:
        return VALID[t](s.i64)
    if k == KIND_FLOAT:
        return VALID[t](s.f64)
    if k == KIND_UNSIGNED:
        return VALID[t](s.u64)
    raise ArrowMetalTypeError(f"scalar of invalid type {t}", lib.AM_ETYPE)
