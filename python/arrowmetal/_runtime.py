"""Batching, devices, backends and the process-wide runtime controls.

Batches: the C library keeps the one nesting depth (am_batch_depth, per
thread). No count is kept here: after each begin and end the library is asked
whether the batch just opened or closed is the outermost one, and only then
does the thread's state switch into or out of collecting PendingScalars and
deferred releases."""

from ._capi import ffi, lib
from ._capi import mode as _capi_mode
from ._core import (
    _am_release,
    _default_device_changed,
    _device_ptr,
    _tls,
    device_backend,
    scalar_value,
)
from ._core import device_name as _device_name
from ._errors import ArrowMetalError, ArrowMetalInvalid, error_from_status

_error = error_from_status
_string = ffi.string

__all__ = [
    "Batch",
    "PendingScalar",
    "backend",
    "backends",
    "batch",
    "default_device",
    "device_name",
    "kernel_cache_dir",
    "kernel_cache_info",
    "low_latency_wait",
    "resident_mode",
    "resident_status",
    "set_device",
    "spin_microseconds",
    "version",
]

_UNSET = object()


class PendingScalar:
    """A reduction result made inside ``am.batch()``: the C library writes it
    when the outermost batch ends (or its ticket is waited on). ``.value`` (or
    ``as_py()``) gives the Python value then; before, it raises."""

    __slots__ = ("_error", "_s", "_value")

    def __init__(self, s):
        self._s = s
        self._value = _UNSET
        self._error = None

    def _resolve(self, err):
        if err is not None:
            self._error = err
        else:
            self._value = scalar_value(self._s)
        self._s = None

    @property
    def ready(self):
        return self._value is not _UNSET or self._error is not None

    @property
    def value(self):
        if self._value is _UNSET:
            if self._error is not None:
                raise self._error
            raise ArrowMetalError(
                "the value of a reduction made inside am.batch() is known only after the batch ends"
            )
        return self._value

    def as_py(self):
        return self.value

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __index__(self):
        return self.value.__index__()

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        if isinstance(other, PendingScalar):
            other = other.value
        return self.value == other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def __repr__(self):
        if self._value is not _UNSET:
            return f"<PendingScalar {self._value!r}>"
        if self._error is not None:
            return f"<PendingScalar error: {self._error}>"
        return "<PendingScalar (batch not ended)>"


_batch_begin = lib.am_batch_begin
_batch_end = lib.am_batch_end
_batch_commit = lib.am_batch_commit
_batch_depth = lib.am_batch_depth
_wait = lib.am_wait


def _finish(pending, deferred, err):
    """After the outermost batch's work is done (or failed with `err`)."""
    for p in deferred:
        _am_release(p)
    for ps in pending:
        ps._resolve(err)


def _close_if_outermost(t, err):
    """Resolves what this thread's outermost batch collected once the C depth
    is back at 0."""
    if t.in_batch and _batch_depth() == 0:
        _finish(*t.end_outermost(), err)


class Batch:
    """Context manager of ``am.batch()``; see there."""

    __slots__ = ("_deferred", "_done", "_pending", "_wait", "ticket")

    def __init__(self, wait=True):
        self._wait = wait
        self.ticket = None
        self._pending = self._deferred = None
        self._done = True

    def __enter__(self):
        t = _tls
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

    def __exit__(self, et, ev, tb):
        t = _tls
        if not self._wait and _batch_depth() == 1:
            err = self._commit(t)
        else:
            rc = _batch_end()  # AM_EINVAL, and nothing changes, when no batch is open
            err = _error(rc) if rc else None  # read before any other C call
            _close_if_outermost(t, err)
        if err is not None and et is None:
            raise err
        return False

    def _commit(self, t):
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

    def __del__(self):
        # A committed batch nobody waited for still holds its submission's
        # record and device status slots: wait for it (errors have no one to
        # go to here).
        if not self._done:
            try:
                self.wait()
            except Exception:  # noqa: BLE001, S110 - nobody left to raise to
                pass

    def wait(self):
        """Waits for a batch ended with ``am.batch(wait=False)``; raises the first
        error of its submission. Pending scalars of the batch are ready after."""
        if self._done:
            return
        self._done = True
        rc = _wait(self.ticket)
        err = _error(rc) if rc else None
        pending, deferred = self._pending, self._deferred
        self._pending = self._deferred = None
        _finish(pending, deferred, err)
        if err is not None:
            raise err


def batch(wait=True):
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


# ---------------------------------------------------------------------------
# Runtime controls


def spin_microseconds(us=None):
    """Spin budget of the GPU completion wait; sets it when `us` is given.
    Returns the value in force."""
    return lib.am_spin_microseconds(-1 if us is None else int(us))


def low_latency_wait(on=None):
    """Low-latency completion wait; sets it when `on` is given. Returns the
    setting in force."""
    return bool(lib.am_low_latency_wait(-1 if on is None else (1 if on else 0)))


def resident_mode(on=None):
    """Resident GPU worker; asks to start (True) or stop (False) it when `on` is
    given. Returns True only while a resident worker really runs; see
    resident_status() for why not."""
    return bool(lib.am_resident_mode(-1 if on is None else (1 if on else 0)))


def resident_status():
    return _string(lib.am_resident_status()).decode()


# ---------------------------------------------------------------------------
# Backends and devices


def backend():
    """Name of the default device's backend ('cpu', 'cuda', 'metal')."""
    return device_backend(lib.am_default_device())


def backends():
    """[(name, available, reason)] for every backend compiled in; `reason` says
    why one cannot run here ('' when it can)."""
    result = []
    for i in range(lib.am_backend_count()):
        name_p = lib.am_backend_name(i)
        if name_p == ffi.NULL:
            continue
        name = _string(name_p)
        rc = lib.am_backend_probe(name)
        reason = "" if rc == 0 else _string(lib.am_last_error()).decode("utf-8", "replace")
        result.append((name.decode(), rc == 0, reason))
    return result


def set_device(spec):
    """Makes device `spec` ('cpu', 'cuda', 'cuda:1', 'metal') the default of every
    call given no device. Returns its name."""
    dev = _device_ptr(spec)
    rc = lib.am_set_default_device(dev)
    if rc:
        raise _error(rc)
    _default_device_changed()
    return _device_name(dev)


def default_device():
    """Name of the default device ('cpu', 'cuda:0', ...)."""
    return _device_name(lib.am_default_device())


device_name = default_device


def kernel_cache_info():
    """Counters of the GPU backends' compiled-kernel cache since the process
    started (am_kernel_cache_info), as a dict of field name to value."""
    info = ffi.new("am_kernel_cache_stats *")
    rc = lib.am_kernel_cache_info(info)
    if rc:
        raise _error(rc)
    return {name: getattr(info, name) for name, _ in ffi.typeof("am_kernel_cache_stats").fields}


def kernel_cache_dir():
    """Directory of the on-disk kernel cache, '' when it is off."""
    return _string(lib.am_kernel_cache_dir()).decode()


def version():
    """Version of the loaded C library, "MAJOR.MINOR.PATCH"."""
    return _string(lib.am_version()).decode()


def binding_mode():
    """How the package calls the C library: 'api' (the compiled cffi module,
    about 0.06 us per call) or 'abi' (ffi.dlopen, about 0.14 us per call)."""
    return _capi_mode


def routes():
    """The active crossover table (am_routes): where ops run when moving
    their inputs is faster, one '<op> <from> <below rows> <to>' line per rule
    after a '# source' line. Set with ARROWMETAL_ROUTES (a file written by
    benchmarks/crossover.py --write, 'off', or unset for the built-in table)."""
    return _string(lib.am_routes()).decode()
