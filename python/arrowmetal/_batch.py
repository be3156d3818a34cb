"""``am.batch()``: the calls a thread makes inside it join one submission per
device (am_batch_begin / am_batch_end), and reductions give PendingScalars.

The C library keeps the one nesting depth (am_batch_depth, per thread). This
module keeps no count of its own: it asks the library after each begin and
end whether the batch just opened or closed is the outermost one, and only
then switches the thread's state (``_state.ThreadState``) into or out of a
batch: its ``BatchRecord`` collects deferred releases, and the pending
results made inside it hold the record and read their values from their
scalars once it says the batch is done (ending a batch visits none of them).
"""

from __future__ import annotations

from ._capi import ffi, lib
from ._errors import ArrowMetalError, ArrowMetalInvalid, error_from_status
from ._results import result_value
from ._state import BatchRecord, tls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any, Literal

    from typing_extensions import Self

    from ._results import NullScalar, Scalar
    from ._state import ThreadState

__all__ = ["Batch", "PendingScalar", "batch"]

_error = error_from_status
_UNSET = object()
_am_release = lib.am_release
_batch_begin = lib.am_batch_begin
_batch_end = lib.am_batch_end
_batch_commit = lib.am_batch_commit
_batch_depth = lib.am_batch_depth
_wait = lib.am_wait


def check_settled(batch: BatchRecord) -> None:
    """Raises what reading a pending result of `batch` raises before the
    batch has ended, or after it failed."""
    if not batch.done:
        raise ArrowMetalError(
            "the value of a reduction made inside am.batch() is known only after the batch ends"
        )
    if batch.error is not None:
        raise batch.error


def pending_repr(result: Any) -> str:
    """repr() of a PendingScalar or PendingAggregate (`_batch`, `.value`)."""
    name, b = type(result).__name__, result._batch
    if not b.done:
        return f"<{name} (batch not ended)>"
    if b.error is not None:
        return f"<{name} error: {b.error}>"
    return f"<{name} {result.value!r}>"


class PendingScalar:
    """A reduction result made inside ``am.batch()``: the C library writes it
    when the outermost batch ends (or its ticket is waited on). ``.value`` gives
    the Scalar then (``as_py()``, ``is_valid`` and ``type`` read it); before,
    they raise, and after a failed batch they raise its error."""

    __slots__ = ("_batch", "_s", "_value")

    if TYPE_CHECKING:
        _s: Any  # the am_scalar * the library writes; None once read
        _value: Any  # the result once read, or _UNSET
        _batch: BatchRecord

    def __init__(self, s: Any, batch: BatchRecord) -> None:
        self._s = s
        self._batch = batch
        self._value = _UNSET

    @property
    def ready(self) -> bool:
        """True once the value (or the batch's error) is known."""
        return self._batch.done

    @property
    def value(self) -> Scalar | NullScalar:
        """The result (see am.sum), once the batch has ended; before, it raises."""
        v = self._value
        if v is _UNSET:
            check_settled(self._batch)
            v = self._value = result_value(self._s)
            self._s = None
        return v

    def as_py(self) -> int | float | None:
        """The Python value (None for a null), as pyarrow's Scalar.as_py()."""
        return self.value.as_py()

    @property
    def is_valid(self) -> bool:
        return self.value.is_valid

    @property
    def type(self) -> Any:
        return self.value.type

    # A null value has no number: int(), float() and index() raise TypeError,
    # as they do for None (the ignores: mypy sees the NullScalar).
    def __int__(self) -> int:
        return int(self.value)  # type: ignore[arg-type]

    def __float__(self) -> float:
        return float(self.value)  # type: ignore[arg-type]

    def __index__(self) -> int:
        return self.value.__index__()  # type: ignore[union-attr]

    def __bool__(self) -> bool:
        return bool(self.value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PendingScalar):
            other = other.value
        return self.value == other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return pending_repr(self)


def _finish(record: BatchRecord, err: BaseException | None) -> None:
    """After the outermost batch's work is done (or failed with `err`)."""
    deferred = record.deferred
    record.deferred = []
    for p in deferred:
        _am_release(p)
    record.error = err
    record.done = True


def _close_if_outermost(t: ThreadState, err: BaseException | None) -> None:
    """Settles this thread's outermost batch once the C depth is back at 0."""
    if t.batch is not None and _batch_depth() == 0:
        _finish(t.end_outermost(), err)


class Batch:
    """Context manager of ``am.batch()``; see there."""

    __slots__ = ("_record", "_wait", "ticket")

    if TYPE_CHECKING:
        ticket: int | None  # the submission's ticket, after a wait=False batch ends
        _record: BatchRecord | None  # a committed batch's, until waited for

    def __init__(self, wait: bool = True) -> None:
        self._wait = wait
        self.ticket = None
        self._record = None

    def __enter__(self) -> Self:
        t = tls
        rc = _batch_begin()
        if rc:
            raise _error(rc)
        if _batch_depth() == 1:
            if t.batch is not None:
                # This thread's state still collects for a batch that the
                # library no longer has open: it was ended behind am.batch()'s
                # back (lib.am_batch_end). Its work is done; settle it.
                _finish(
                    t.end_outermost(),
                    ArrowMetalInvalid(
                        "the enclosing batch was ended outside am.batch()", lib.AM_EINVAL
                    ),
                )
            t.begin_outermost()
        return self

    def __exit__(
        self,
        et: type[BaseException] | None,
        ev: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        t = tls
        if not self._wait and _batch_depth() == 1:
            err = self._commit(t)
        else:
            rc = _batch_end()  # AM_EINVAL, and nothing changes, when no batch is open
            err = _error(rc) if rc else None  # read before any other C call
            if t.batch is not None and _batch_depth() == 0:  # _close_if_outermost, inline
                _finish(t.end_outermost(), err)
        if err is not None and et is None:
            raise err
        return False

    def _commit(self, t: ThreadState) -> BaseException | None:
        """Ends the outermost batch without waiting (am_batch_commit); returns
        the error to raise, if any."""
        ticket = ffi.new("uint64_t *")
        rc = _batch_commit(ticket)
        err = _error(rc) if rc else None
        if _batch_depth() != 0:
            # Refused before the batch ended (no memory for its record): end
            # it with a wait so that its results are settled, and report why.
            rc = _batch_end()
            _close_if_outermost(t, _error(rc) if rc else None)
        elif err is not None:
            _close_if_outermost(t, err)
        else:
            self.ticket = ticket[0]
            # (opened outside am.batch(): nothing collected here, a record
            # of its own all the same, for wait())
            self._record = t.end_outermost() if t.batch is not None else BatchRecord()
        return err

    def __del__(self) -> None:
        # A committed batch nobody waited for still holds its submission's
        # record and device status slots: wait for it (errors have no one to
        # go to here).
        if self._record is not None:
            try:
                self.wait()
            except Exception:  # noqa: BLE001, S110 - nobody left to raise to
                pass

    def wait(self) -> None:
        """Waits for a batch ended with ``am.batch(wait=False)``; raises the first
        error of its submission. Pending scalars of the batch are ready after."""
        record = self._record
        if record is None:
            return
        self._record = None
        rc = _wait(self.ticket)
        err = _error(rc) if rc else None
        _finish(record, err)
        if err is not None:
            raise err


def batch(wait: bool = True) -> Batch:
    """``with am.batch(): ...`` joins the calls this thread makes into one
    submission per device, waited on once at the end (am_batch_begin/end).

    Array results can be used at once. Reductions return a
    :class:`PendingScalar` whose value is known after the batch ends. Errors
    that depend on data may be raised when the block ends. Batches nest; only
    the outermost submits. With ``wait=False`` the outermost block ends with
    am_batch_commit and does not wait; call ``.wait()`` on the context object.
    An exit without its enter raises ArrowMetalInvalid (from am_batch_end).
    """
    # A waiting batch keeps no state of its own (the depth is the library's,
    # the record the thread's): one object serves every such block, nested too.
    return _WAITING if wait else Batch(False)


_WAITING = Batch(True)
