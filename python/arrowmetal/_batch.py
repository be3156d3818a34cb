"""``am.batch()``: the calls a thread makes inside it join one submission per
device (am_batch_begin / am_batch_end), and reductions give PendingScalars.

The C library keeps the one nesting depth (am_batch_depth, per thread). This
module keeps no count of its own: it asks the library after each begin and
end whether the batch just opened or closed is the outermost one, and only
then switches the thread's state (``_state.ThreadState``) into or out of
collecting PendingScalars and deferred releases.
"""

from __future__ import annotations

from ._capi import ffi, lib
from ._errors import ArrowMetalError, ArrowMetalInvalid, error_from_status
from ._results import result_value
from ._state import tls

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


class PendingScalar:
    """A reduction result made inside ``am.batch()``: the C library writes it
    when the outermost batch ends (or its ticket is waited on). ``.value`` gives
    the Scalar then (``as_py()``, ``is_valid`` and ``type`` read it); before,
    they raise."""

    __slots__ = ("_error", "_s", "_value")

    if TYPE_CHECKING:
        _s: Any  # the am_scalar * the library writes; None once resolved
        _value: Any  # the result, or _UNSET
        _error: BaseException | None

    def __init__(self, s: Any) -> None:
        self._s = s
        self._value = _UNSET
        self._error = None

    def _resolve(self, err: BaseException | None) -> None:
        if err is not None:
            self._error = err
        else:
            self._value = result_value(self._s)
        self._s = None

    @property
    def ready(self) -> bool:
        """True once the value (or the batch's error) is known."""
        return self._value is not _UNSET or self._error is not None

    @property
    def value(self) -> Scalar | NullScalar:
        """The result (see am.sum), once the batch has ended; before, it raises."""
        if self._value is _UNSET:
            if self._error is not None:
                raise self._error
            raise ArrowMetalError(
                "the value of a reduction made inside am.batch() is known only after the batch ends"
            )
        return self._value

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
        if self._value is not _UNSET:
            return f"<PendingScalar {self._value!r}>"
        if self._error is not None:
            return f"<PendingScalar error: {self._error}>"
        return "<PendingScalar (batch not ended)>"


def _finish(pending: list[PendingScalar], deferred: list[Any], err: BaseException | None) -> None:
    """After the outermost batch's work is done (or failed with `err`)."""
    for p in deferred:
        _am_release(p)
    for ps in pending:
        ps._resolve(err)


def _close_if_outermost(t: ThreadState, err: BaseException | None) -> None:
    """Resolves what this thread's outermost batch collected once the C depth
    is back at 0."""
    if t.in_batch and _batch_depth() == 0:
        _finish(*t.end_outermost(), err)


class Batch:
    """Context manager of ``am.batch()``; see there."""

    __slots__ = ("_deferred", "_done", "_pending", "_wait", "ticket")

    if TYPE_CHECKING:
        ticket: int | None  # the submission's ticket, after a wait=False batch ends
        _pending: list[PendingScalar] | None
        _deferred: list[Any] | None

    def __init__(self, wait: bool = True) -> None:
        self._wait = wait
        self.ticket = None
        self._pending = self._deferred = None
        self._done = True

    def __enter__(self) -> Self:
        t = tls
        rc = _batch_begin()
        if rc:
            raise _error(rc)
        if _batch_depth() == 1:
            if t.in_batch:
                # This thread's state still collects for a batch that the
                # library no longer has open: it was ended behind am.batch()'s
                # back (lib.am_batch_end). Its work is done; settle it.
                _finish(
                    *t.end_outermost(),
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
            _close_if_outermost(t, err)
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
        elif t.in_batch:
            self.ticket = ticket[0]
            self._pending, self._deferred = t.end_outermost()
            self._done = False
        else:  # opened outside am.batch(): nothing collected here
            self.ticket = ticket[0]
            self._pending, self._deferred, self._done = [], [], False
        return err

    def __del__(self) -> None:
        # A committed batch nobody waited for still holds its submission's
        # record and device status slots: wait for it (errors have no one to
        # go to here).
        if not self._done:
            try:
                self.wait()
            except Exception:  # noqa: BLE001, S110 - nobody left to raise to
                pass

    def wait(self) -> None:
        """Waits for a batch ended with ``am.batch(wait=False)``; raises the first
        error of its submission. Pending scalars of the batch are ready after."""
        if self._done:
            return
        self._done = True
        rc = _wait(self.ticket)
        err = _error(rc) if rc else None
        pending, deferred = self._pending, self._deferred
        self._pending = self._deferred = None
        _finish(pending, deferred, err)  # type: ignore[arg-type]  # lists while not _done
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
    return Batch(wait)
