"""Exceptions raised for the status codes of the C ABI.

Each error is also an instance of the exception pyarrow.compute raises for
the same failure, once pyarrow is loaded in the process (``pa.ArrowInvalid``
for invalid input, overflow and division by zero; ``pa.ArrowIndexError``;
``pa.ArrowTypeError`` and ``pa.ArrowNotImplementedError`` for a missing
kernel or type; ``pa.ArrowNotImplementedError`` for an unsupported feature;
``pa.ArrowMemoryError``; ``pa.ArrowException`` for all), so that
``except pa.ArrowInvalid:`` written for pyarrow catches ours. ``import
arrowmetal`` does not import pyarrow: an error made while pyarrow is loaded
is an instance of a subclass of its class (same name) that adds pyarrow's
bases; ``issubclass(am.ArrowMetalInvalid, pa.ArrowInvalid)`` stays False.
"""

from __future__ import annotations

import sys

from ._capi import ffi, lib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ArrowMetalDeviceError",
    "ArrowMetalError",
    "ArrowMetalIndexError",
    "ArrowMetalInvalid",
    "ArrowMetalMemoryError",
    "ArrowMetalOverflowError",
    "ArrowMetalTypeError",
    "ArrowMetalUnsupported",
    "ArrowMetalZeroDivisionError",
    "check",
    "error_from_status",
]


class ArrowMetalError(Exception):
    """Base class of every error reported by the ArrowMetal C library.

    ``code`` is the am_status value (``lib.AM_EINVAL``, ...), ``message`` the text
    of ``am_last_error()`` at the time of the failure.
    """

    code: int | None = None

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # Exception's own __new__, as the class slot gave before: the MRO's
        # next __new__ may be MemoryError's, which refuses a subclass built
        # on Exception's layout.
        return Exception.__new__(_with_pyarrow_bases(cls), *args)

    def __init__(self, message: str = "", code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __reduce__(self) -> tuple[Any, ...]:
        return (_public_class(type(self)), (self.message, self.code))


class ArrowMetalInvalid(ArrowMetalError, ValueError):
    """AM_EINVAL: invalid argument (NULL, bad length, malformed struct)."""

    code = lib.AM_EINVAL


class ArrowMetalTypeError(ArrowMetalError, TypeError):
    """AM_ETYPE: no kernel for these types, or an unknown format."""

    code = lib.AM_ETYPE


class ScalarInputError(ArrowMetalTypeError):
    """A scalar where the call takes an array: pyarrow.compute takes it as an
    array of one slot (sum(pa.scalar(3)) is 3), so such a call of pyarrow
    inputs runs there (_compute._input_fallback)."""


class ArrowMetalIndexError(ArrowMetalError, IndexError):
    """AM_EINDEX: index out of bounds."""

    code = lib.AM_EINDEX


class ArrowMetalOverflowError(ArrowMetalError, OverflowError):
    """AM_EOVERFLOW: a value does not fit the target type."""

    code = lib.AM_EOVERFLOW


class ArrowMetalZeroDivisionError(ArrowMetalError, ZeroDivisionError):
    """AM_EZERODIV: integer division by zero."""

    code = lib.AM_EZERODIV


class ArrowMetalUnsupported(ArrowMetalError, NotImplementedError):
    """AM_EUNSUPPORTED: backend or feature not available here."""

    code = lib.AM_EUNSUPPORTED


class ArrowMetalMemoryError(ArrowMetalError, MemoryError):
    """AM_ENOMEM: a host or device allocation failed."""

    code = lib.AM_ENOMEM


class ArrowMetalDeviceError(ArrowMetalError):
    """AM_EDEVICE: the device reported an error (sticky for that device)."""

    code = lib.AM_EDEVICE


# pyarrow's exception classes for each of ours (ArrowException for the rest).
_PYARROW_BASES = {
    ArrowMetalInvalid: ("ArrowInvalid",),
    ArrowMetalTypeError: ("ArrowTypeError", "ArrowNotImplementedError"),
    ArrowMetalIndexError: ("ArrowIndexError",),
    ArrowMetalOverflowError: ("ArrowInvalid",),
    ArrowMetalZeroDivisionError: ("ArrowInvalid",),
    ArrowMetalUnsupported: ("ArrowNotImplementedError",),
    ArrowMetalMemoryError: ("ArrowMemoryError",),
}
_with_pyarrow: dict[type, type] = {}
_public: dict[type, type] = {}


def _with_pyarrow_bases(cls: type) -> type:
    """`cls`, or (pyarrow loaded) its subclass that also derives from pyarrow's classes."""
    pa = sys.modules.get("pyarrow")
    if pa is None or cls in _public:
        return cls
    sub = _with_pyarrow.get(cls)
    if sub is None:
        names = next((v for k, v in _PYARROW_BASES.items() if issubclass(cls, k)), ())
        bases = tuple(getattr(pa, n) for n in names) or (pa.ArrowException,)
        attrs = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        sub = type(cls.__name__, (cls, *bases), attrs)
        _with_pyarrow[cls] = sub
        _public[sub] = cls
    return sub


def _public_class(cls: type) -> type:
    """The class a pickled error is rebuilt as (it adds pyarrow's bases again)."""
    return _public.get(cls, cls)


_BY_CODE: dict[int, type[ArrowMetalError]] = {
    cls.code: cls
    for cls in (
        ArrowMetalInvalid,
        ArrowMetalTypeError,
        ArrowMetalIndexError,
        ArrowMetalOverflowError,
        ArrowMetalZeroDivisionError,
        ArrowMetalUnsupported,
        ArrowMetalMemoryError,
        ArrowMetalDeviceError,
    )
}

_last_error = lib.am_last_error
_string = ffi.string


def error_from_status(code: int, message: str | None = None) -> ArrowMetalError:
    """The exception for status `code`, carrying am_last_error() of this thread.

    Call it right after the failing call: the next ArrowMetal call on this
    thread may replace the message.
    """
    if message is None:
        message = _string(_last_error()).decode("utf-8", "replace")
    cls = _BY_CODE.get(code)
    if cls is None:
        return ArrowMetalError(message or f"ArrowMetal status {code}", code)
    return cls(message, code)


def check(code: int) -> None:
    """Raises the exception for a non-zero status code."""
    if code:
        raise error_from_status(code)
