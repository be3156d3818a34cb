"""What an input is, by its Python type: an am.Array, something to import
(and the importer), or a scalar (and the function that fills an am_scalar).

Hot paths avoid isinstance ladders: the answer is worked out once per Python
type and kept in ``DISPATCH``, {type: (kind, function)}.
"""

from __future__ import annotations

import sys

from . import _importers as im
from . import _scalars as sc
from ._array import Array
from ._capi import lib
from ._decimals import fill_decimal
from ._devices import device_ptr
from ._errors import ArrowMetalTypeError, ScalarInputError
from ._results import NullScalar
from ._state import tls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ARRAY", "DISPATCH", "IMPORT", "SCALAR", "dispatch", "import_handle", "is_operand"]

ARRAY, IMPORT, SCALAR = 0, 1, 2
DISPATCH: dict[type, tuple[int, Any]] = {}


def _resolve(tp):
    """(kind, function) for inputs of Python type `tp`, or None."""
    if tp is Array or issubclass(tp, Array):
        return (ARRAY, im.import_am_array)
    np = sys.modules.get("numpy")
    pa = sys.modules.get("pyarrow")
    if tp is bool:
        return (SCALAR, sc.fill_bool)
    if tp is int:
        return (SCALAR, sc.fill_int)
    if tp is float:
        return (SCALAR, sc.fill_float)
    if tp is str:  # a string scalar (am_scalar of AM_UTF8 pointing at its bytes)
        return (SCALAR, sc.fill_str)
    if tp is bytes:
        return (SCALAR, sc.fill_bytes)
    if tp is type(None) or tp is NullScalar:  # a null reduction result: a null
        return (SCALAR, sc.fill_none)
    if np is not None:
        if issubclass(tp, np.ndarray):
            return (IMPORT, im.import_numpy)
        if issubclass(tp, np.generic):
            return (SCALAR, sc.fill_numpy_scalar)
    if pa is not None and issubclass(tp, pa.Scalar):
        return (SCALAR, sc.fill_pyarrow_scalar)
    dec = sys.modules.get("decimal")
    if dec is not None and issubclass(tp, dec.Decimal):
        return (SCALAR, fill_decimal)
    if hasattr(tp, "__cuda_array_interface__") and not hasattr(tp, "__arrow_c_device_array__"):
        return (IMPORT, im.import_cuda_interface)
    has_array = hasattr(tp, "__arrow_c_array__")
    has_device = hasattr(tp, "__arrow_c_device_array__")
    # Producers that may hand over a struct array or record batch ("+s",
    # which am_import takes as a table's rows) are refused as arrays:
    # am.table() takes them. A plain pa.Array keeps its unchecked importer.
    checked = im.refuse_struct
    if has_array and has_device:
        if pa is not None and issubclass(tp, pa.Array) and not issubclass(tp, pa.StructArray):
            return (IMPORT, im.import_pyarrow)
        return (IMPORT, checked(im.import_c_array_or_device))
    if has_array:
        return (IMPORT, checked(im.import_c_array))
    if has_device:
        return (IMPORT, checked(im.import_c_device_array))
    if hasattr(tp, "__arrow_c_stream__"):
        return (IMPORT, checked(im.import_stream))
    # Subclasses of the Python scalars, after the protocols: a subclass that
    # is also an Arrow producer is an array.
    if issubclass(tp, bool):
        return (SCALAR, sc.fill_bool)
    if issubclass(tp, int):
        return (SCALAR, sc.fill_int_subclass)
    if issubclass(tp, float):
        return (SCALAR, sc.fill_float)
    if issubclass(tp, (list, tuple, range)):
        return (IMPORT, im.import_sequence)
    if hasattr(tp, "__array__") or hasattr(tp, "__array_interface__"):
        return (IMPORT, im.import_array_like)
    return None


def dispatch(tp):
    """(kind, function) for inputs of Python type `tp`; TypeError for a type
    ArrowMetal does not take."""
    d = DISPATCH.get(tp)
    if d is None:
        d = _resolve(tp)
        if d is None:
            raise ArrowMetalTypeError(
                f"cannot use an object of type {tp.__module__}.{tp.__qualname__} as an ArrowMetal input",
                lib.AM_ETYPE,
            )
        DISPATCH[tp] = d
    return d


def is_operand(tp):
    """True when values of type `tp` are arrays or scalars ArrowMetal takes."""
    d = DISPATCH.get(tp)
    if d is None:
        d = _resolve(tp)
        if d is None:
            return False
        DISPATCH[tp] = d
    return True


def import_handle(obj, device=None):
    """An owned am_array* for any accepted array input (the caller releases it)."""
    kind, fn = dispatch(type(obj))
    if kind == SCALAR:
        raise ScalarInputError(
            f"expected an array, got a scalar of type {type(obj).__name__}", lib.AM_ETYPE
        )
    return fn(obj, device_ptr(device), tls.out)
