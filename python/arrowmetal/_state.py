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

__all__ = ["ThreadState", "drop", "tls"]

_am_release = lib.am_release


class ThreadState(threading.local):
    """One per thread (threading.local runs __init__ in each thread)."""

    def __init__(self) -> None:
        s = ffi.new("am_scalar *")
        # The out-pointer of every call that makes an array.
        self.out = ffi.new("am_array **")
        # Reduction results: the scalar, and for the fast paths the scalar with
        # its memory seen as int64 words and as doubles (word 0 holds type and
        # is_null together, so one read checks both), and the out-pointer.
        # Both are None inside a batch, where scalar results are written when
        # the batch ends: reductions then make a PendingScalar each.
        self.scalar: Any = s
        self.fast: tuple[Any, Any, Any, Any] | None = (
            s,
            ffi.cast("int64_t *", s),
            ffi.cast("double *", s),
            self.out,
        )
        self._own = (self.scalar, self.fast)
        self.arg = ffi.new("am_scalar *")  # scalar arguments of element-wise calls
        # Lists while an outermost batch is open, else None: the PendingScalars
        # to resolve and the temporary handles to release when it ends.
        self.pending: list[Any] | None = None
        self.deferred: list[Any] | None = None

    @property
    def in_batch(self) -> bool:
        """True between begin_outermost() and end_outermost()."""
        return self.pending is not None

    def begin_outermost(self) -> None:
        """Called when a batch opens at C depth 1."""
        self.scalar = self.fast = None
        self.pending = []
        self.deferred = []

    def end_outermost(self) -> tuple[list[Any], list[Any]]:
        """Called when the C depth is back at 0; returns (pending, deferred)."""
        pending, deferred = self.pending or [], self.deferred or []
        self.scalar, self.fast = self._own
        self.pending = self.deferred = None
        return pending, deferred


tls = ThreadState()


def drop(p: Any) -> None:
    """Releases a temporary handle, or keeps it until the outermost batch ends
    (queued work may still read it)."""
    deferred = tls.deferred
    if deferred is None:
        _am_release(p)
    else:
        deferred.append(p)
