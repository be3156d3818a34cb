"""Chunked dictionary arrays: their chunks joined by the library (am_concat),
which unifies dictionaries that differ as pyarrow does (the first chunk's
values, then each new value as it first occurs), so a whole-array function
over a ChunkedArray of dictionaries sees one dictionary array."""

from __future__ import annotations

from ._array import wrap
from ._capi import ffi, lib
from ._errors import error_from_status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["concat_chunks"]


def concat_chunks(chunked: Any) -> Any:
    """The chunks of a ChunkedArray of dictionaries as one pa.DictionaryArray."""
    from ._dispatch import import_handle

    handles = []
    try:
        for chunk in chunked.chunks:
            handles.append(import_handle(chunk, None))
        out = ffi.new("am_array **")
        rc = lib.am_concat(ffi.new("am_array *[]", handles), len(handles), ffi.NULL, out)
        if rc:
            raise error_from_status(rc)
    finally:
        for h in handles:
            lib.am_release(h)
    return wrap(out[0])
