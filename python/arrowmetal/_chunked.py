"""pyarrow ChunkedArray inputs keep their chunks, as in pyarrow.compute.

An element-wise function or a filter over ChunkedArrays runs once per piece:
the chunks of one input, or, where two chunked inputs split differently, the
pieces between the union of their chunk boundaries (zero-copy slices, as
pyarrow does). The pieces run inside one ``am.batch()``, so on a GPU they are
one submission; the result is a pyarrow ChunkedArray with one chunk per piece
(GPU results are copied to the host after the batch).
"""

from __future__ import annotations

import sys

from ._array import Array
from ._batch import batch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Callable

    import pyarrow as pa

__all__ = ["combined", "is_chunked", "map_pieces"]


def is_chunked(value: object) -> bool:
    """True for a pyarrow ChunkedArray."""
    pa = sys.modules.get("pyarrow")
    return pa is not None and isinstance(value, pa.ChunkedArray)


def combined(value: Any) -> Any:
    """A ChunkedArray as one pyarrow array (its only chunk as it is; an empty
    array of its type when it has none), as pyarrow combines the inputs of
    its whole-array functions; other inputs unchanged."""
    if not is_chunked(value):
        return value
    if value.num_chunks == 1:
        return value.chunk(0)
    pa = sys.modules["pyarrow"]
    if value.num_chunks == 0:
        return pa.array([], type=value.type)
    if pa.types.is_dictionary(value.type):
        from ._dictionary import concat_chunks

        return concat_chunks(value)  # dictionaries unified by the library
    return value.combine_chunks()


def _length(value: Any) -> int | None:
    if is_chunked(value) or isinstance(value, Array):
        return len(value)
    pa = sys.modules["pyarrow"]
    return len(value) if isinstance(value, pa.Array) else None


def _boundaries(args: Sequence[Any]) -> list[int]:
    """The sorted offsets where any chunked argument starts a chunk."""
    cuts = set()
    for a in args:
        if is_chunked(a):
            at = 0
            for chunk in a.chunks:
                cuts.add(at)
                at += len(chunk)
    return sorted(cuts)


def _piece(value: Any, start: int, length: int) -> Any:
    if is_chunked(value) or isinstance(value, Array):
        return value.slice(start, length)
    pa = sys.modules["pyarrow"]
    if isinstance(value, pa.Array):
        return value.slice(start, length)
    return value  # a scalar: the same in every piece


def _as_array(piece: Any) -> Any:
    """A one-chunk ChunkedArray slice as its array (pyarrow's slice of a
    ChunkedArray stays chunked)."""
    if is_chunked(piece):
        pa = sys.modules["pyarrow"]
        if piece.num_chunks == 0:
            return pa.array([], type=piece.type)
        return piece.chunk(0) if piece.num_chunks == 1 else pa.concat_arrays(piece.chunks)
    return piece


def map_pieces(fn: Callable[..., Any], args: Sequence[Any]) -> pa.ChunkedArray[Any]:
    """fn(*piece_args) over the pieces of `args` (array arguments of one
    length, chunked or not, and scalars), as a pyarrow ChunkedArray."""
    pa = sys.modules["pyarrow"]
    lengths = {n for n in map(_length, args) if n is not None}
    if len(lengths) > 1:
        return fn(*args)  # lengths differ: the function's own error
    total = lengths.pop() if lengths else 0
    cuts = [c for c in _boundaries(args) if c < total] or [0]
    ends = [*cuts[1:], total]
    results = []
    with batch():
        for start, end in zip(cuts, ends):
            results.append(fn(*(_as_array(_piece(a, start, end - start)) for a in args)))
    chunks = [r.to_pyarrow() if isinstance(r, Array) else r for r in results]
    if total == 0 and not any(len(a.chunks) for a in args if is_chunked(a)):
        return pa.chunked_array([], type=chunks[0].type)
    return pa.chunked_array(chunks, type=chunks[0].type)
