"""The per-thread state: the preallocated out-pointer and scalars that calls
write into, and what this thread's outermost ``am.batch()`` collects.

Whether a batch is open, and how deeply nested, is the C library's to know
(am_batch_depth); ``_batch`` switches this state when the C depth says a
batch became, or stopped being, the outermost one.
"""

from __future__ import annotations

import threading

from ._capi import ffi, lib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["BatchRecord", "ThreadState", "drop", "tls"]

_am_release = lib.am_release


class BatchRecord:
    """One outermost batch, shared by the results made inside it: the
    temporary handles to release when it ends, and whether it has ended and
    with which error. Pending results read `done` and `error` when asked for
    their value, so that ending a batch costs the same however many
    reductions it made (none is visited)."""

    __slots__ = ("deferred", "done", "error")

    def __init__(self) -> None:
        self.deferred: list[Any] = []
        self.done = False
        self.error: BaseException | None = None


class ThreadState(threading.local):
    """One per thread (threading.local runs __init__ in each thread)."""

    def __init__(self) -> None:
        s = ffi.new("am_scalar *")
        # The out-pointer of every call that makes an array.
        self.out = ffi.new("am_array **")
        # Reduction results: the scalar, the same memory seen as int64 words
        # and as doubles (word 0 holds type and is_null together, so one read
        # checks both), and the out-pointer. None inside a batch, where scalar
        # results are written when the batch ends: reductions then make a
        # PendingScalar each.
        self._fast = (s, ffi.cast("int64_t *", s), ffi.cast("double *", s), self.out)
        self.fast: tuple[Any, Any, Any, Any] | None = self._fast
        self.arg = ffi.new("am_scalar *")  # scalar arguments of element-wise calls
        # An int64 argument, its type set once: the hot paths write only the
        # value (the library never writes an argument).
        self.int_arg = ffi.new("am_scalar *", {"type": lib.AM_INT64})
        # The outermost open batch's record, else None (between
        # begin_outermost() and end_outermost()).
        self.batch: BatchRecord | None = None

    def begin_outermost(self) -> None:
        """Called when a batch opens at C depth 1."""
        self.fast = None
        self.batch = BatchRecord()

    def end_outermost(self) -> BatchRecord:
        """Called when the C depth is back at 0; returns the batch's record."""
        record = self.batch
        self.fast = self._fast
        self.batch = None
        return record  # type: ignore[return-value]  # called only while one is open


tls = ThreadState()


def drop(p: Any) -> None:
    """Releases a temporary handle, or keeps it until the outermost batch ends
    (queued work may still read it)."""
    record = tls.batch
    if record is None:
        _am_release(p)
    else:
        record.deferred.append(p)
