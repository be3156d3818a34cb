"""What sorting (_sort) and ranking (_rank) share: pyarrow's options objects
built from keyword arguments (so bad values get pyarrow's errors) and read
back field by field, sort keys resolved to a table's columns, and one C call
over the key arrays with pyarrow.compute as the fallback for key types the
library has no kernel for. Decimal and dictionary keys are the library's:
where it refuses them it does so in pyarrow's words (pyarrow 26 sorts a
dictionary array alone and ranks none), and that error is raised."""

from __future__ import annotations

from ._array import Array, wrap
from ._capi import ffi, lib
from ._chunked import combined
from ._compute import _input_fallback, _operand
from ._errors import ArrowMetalTypeError, ArrowMetalUnsupported, error_from_status
from ._state import drop, tls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# pyarrow's SortOrder and NullPlacement enum values, as its options serialize.
DESCENDING = 1
AT_START = 0


def descending(field: dict[str, Any]) -> int:
    """1 for a sort key (or options) field set of descending order."""
    return int(field["order"] == DESCENDING)


def placement(field: dict[str, Any]) -> int:
    """The C call's null placement of a sort key (or options) field set."""
    return lib.AM_NULLS_AT_START if field["null_placement"] == AT_START else lib.AM_NULLS_AT_END


def options_of(name: str, class_name: str, options: Any, given: dict[str, Any],
               defaults: dict[str, Any]) -> tuple[Any, dict[str, Any]]:  # fmt: skip
    """pyarrow's options object of the call (from `options`, a dict of its
    fields, or the keyword arguments `given`, whose defaults are `defaults`)
    and the kwargs to hand pyarrow on a fallback; pyarrow's TypeErrors for a
    wrong options class and for options beside keyword arguments."""
    import pyarrow.compute as pc

    cls = getattr(pc, class_name)
    if isinstance(options, dict):
        options = cls(**options)
    if options is not None:
        if type(options).__name__ != class_name:
            raise TypeError(
                f"Function '{name}' expected a {class_name} parameter, got {type(options)}"
            )
        if any(given[k] is not defaults[k] and given[k] != defaults[k] for k in given):
            raise TypeError(
                f"Function '{name}' called with both an 'options' argument and additional arguments"
            )
        return options, {"options": options}
    return cls(**given), dict(given)


def fields_of(options: Any, known: set[str], name: str) -> dict[str, Any]:
    """The options' fields; ArrowMetalUnsupported for one outside `known`."""
    from ._options import read_fields

    f = read_fields(options)
    unknown = set(f) - known
    if unknown:
        raise ArrowMetalUnsupported(f"{name}: no support for the option {min(unknown)!r}")
    return f


def _column_name(name: str, target: str) -> str:
    # a serialized FieldRef: ".name" for a plain column name
    if not target.startswith(".") or "." in target[1:] or "[" in target:
        raise ArrowMetalUnsupported(
            f"{name}: sort key {target!r} is not a plain column name "
            "(nested fields and expressions are not supported)"
        )
    return target[1:]


def key_columns(name: str, table: Any, fields: list[dict[str, Any]], missing: str) -> list[Any]:
    """The table's columns the sort key fields name, in order; pyarrow's
    ArrowInvalid (`missing` + its FieldRef words) for a name not there."""
    keys = []
    for f in fields:
        column = _column_name(name, f["target"])
        if column not in table.schema.names:
            import pyarrow as pa

            raise pa.ArrowInvalid(
                f"{missing}No match for FieldRef.Name({column}) in {table.schema}"
            )
        keys.append(table.column(column))
    return keys


def dictionary_type(column: Any) -> Any:
    """The pyarrow type of a dictionary column (array or ChunkedArray), else None."""
    import sys

    pa = sys.modules.get("pyarrow")
    t = getattr(column, "type", None)
    return (
        t if pa is not None and isinstance(t, pa.DataType) and pa.types.is_dictionary(t) else None
    )


def refuse_dictionary(column: Any) -> None:
    """pyarrow 26's refusal to sort a dictionary ChunkedArray (or a table's
    dictionary column, which it sorts as one): ArrowNotImplementedError
    naming the type."""
    t = dictionary_type(column)
    if t is not None:
        raise ArrowMetalTypeError(str(t), lib.AM_ETYPE)


def _library_answers(keys: list[Any]) -> bool:
    """Whether the library's AM_ETYPE over these keys is pyarrow's own answer:
    decimal and dictionary keys, which it takes where pyarrow does."""
    import sys

    pa = sys.modules.get("pyarrow")
    for k in keys:
        t = getattr(k, "type", None)
        if (pa is not None and isinstance(t, pa.DataType)
                and (pa.types.is_dictionary(t) or pa.types.is_decimal(t))):  # fmt: skip
            return True
    return False


def call_over_keys(name: str, keys: list[Any], device: Any, c_call: Callable[[Any, Any], int],
                   args: tuple[Any, ...], kwargs: dict[str, Any]) -> Array:  # fmt: skip
    """c_call(am_array *[] of the keys, out) over the keys (array-likes,
    ChunkedArrays combined), wrapped; keys of a type without a kernel run in
    pyarrow.compute's `name` over `args` and `kwargs` (counted, announced)."""
    keys = [combined(k) for k in keys]
    handles: list[Any] = []
    tmps: list[Any] = []
    try:
        try:
            for k in keys:
                p, tmp = _operand(k, device)
                handles.append(p)
                if tmp is not None:
                    tmps.append(tmp)
        except ArrowMetalTypeError as e:
            return _input_fallback(name, e, tuple(keys), args, kwargs)
        arr = ffi.new("am_array *[]", handles or [ffi.NULL])
        out = tls.out
        rc = c_call(arr, out)
        if rc == lib.AM_ETYPE and not _library_answers(keys):
            return _input_fallback(name, error_from_status(rc), tuple(keys), args, kwargs)
        if rc:
            raise error_from_status(rc)
        return wrap(out[0])
    finally:
        for t in tmps:
            drop(t)
