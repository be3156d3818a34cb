"""The process-wide runtime controls, backends and the default device, and
facts about the library and the binding."""

from __future__ import annotations

import logging
import warnings

from . import _devices
from ._capi import ffi, lib
from ._capi import mode as _capi_mode
from ._errors import error_from_status
from ._importers import default_device_changed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._typing import DeviceLike

# The package's log: configuration problems, and (later) kernel compilation.
log = logging.getLogger("arrowmetal")

_error = error_from_status
_string = ffi.string

__all__ = [
    "backend",
    "backends",
    "binding_mode",
    "default_device",
    "device_name",
    "kernel_cache_dir",
    "kernel_cache_info",
    "low_latency_wait",
    "memory_info",
    "reset_peak_memory",
    "resident_mode",
    "resident_status",
    "routes",
    "set_device",
    "spin_microseconds",
    "version",
    "wait_timeout_ms",
]

# ---------------------------------------------------------------------------
# Runtime controls


def spin_microseconds(us: int | None = None) -> int:
    """Spin budget of the GPU completion wait; sets it when `us` is given.
    Returns the value in force."""
    return lib.am_spin_microseconds(-1 if us is None else int(us))


def wait_timeout_ms(ms: int | None = None) -> int:
    """The wait watchdog (am_wait_timeout_ms): a GPU wait not done after `ms`
    milliseconds raises ArrowMetalDeviceError and leaves that device broken;
    0 is off (the default; ARROWMETAL_WAIT_TIMEOUT_MS sets it at start). Sets
    it when `ms` is given; returns the value in force."""
    return lib.am_wait_timeout_ms(-1 if ms is None else int(ms))


def low_latency_wait(on: bool | None = None) -> bool:
    """Low-latency completion wait; sets it when `on` is given. Returns the
    setting in force."""
    return bool(lib.am_low_latency_wait(-1 if on is None else (1 if on else 0)))


def resident_mode(on: bool | None = None) -> bool:
    """Resident GPU worker; asks to start (True) or stop (False) it when `on` is
    given. Returns True only while a resident worker really runs; see
    resident_status() for why not."""
    return bool(lib.am_resident_mode(-1 if on is None else (1 if on else 0)))


def resident_status() -> str:
    """Why no resident worker runs on the default device, or that one does
    (am_resident_status): a sentence, never empty."""
    return _string(lib.am_resident_status()).decode()


# ---------------------------------------------------------------------------
# Backends and devices


def backend() -> str:
    """Name of the default device's backend ('cpu', 'cuda', 'metal')."""
    return _devices.device_backend(lib.am_default_device())


def backends() -> list[tuple[str, bool, str]]:
    """[(name, available, reason)] for every backend compiled in; `reason` says
    why one cannot run here ('' when it can)."""
    result: list[tuple[str, bool, str]] = []
    for i in range(lib.am_backend_count()):
        name_p = lib.am_backend_name(i)
        if name_p == ffi.NULL:
            continue
        name = _string(name_p)
        rc = lib.am_backend_probe(name)
        reason = "" if rc == 0 else _string(lib.am_last_error()).decode("utf-8", "replace")
        result.append((name.decode(), rc == 0, reason))
    return result


def set_device(spec: DeviceLike) -> str:
    """Makes device `spec` ('cpu', 'cuda', 'cuda:1', 'metal') the default of every
    call given no device. Returns its name."""
    dev = _devices.device_ptr(spec)
    rc = lib.am_set_default_device(dev)
    if rc:
        raise _error(rc)
    default_device_changed()
    return _devices.device_name(dev)


def default_device() -> str:
    """Name of the default device ('cpu', 'cuda:0', ...)."""
    return _devices.device_name(lib.am_default_device())


device_name = default_device


def kernel_cache_info() -> dict[str, int]:
    """Counters of the GPU backends' compiled-kernel cache since the process
    started (am_kernel_cache_info), as a dict of field name to value."""
    info = ffi.new("am_kernel_cache_stats *")
    rc = lib.am_kernel_cache_info(info)
    if rc:
        raise _error(rc)
    return {name: getattr(info, name) for name, _ in ffi.typeof("am_kernel_cache_stats").fields}


def memory_info(device: DeviceLike | None = None) -> dict[str, int]:
    """Memory the library has allocated on `device` (None: the default
    device; "cpu", "cuda:0", ...), from am_memory_info: a dict of
    ``bytes_in_use``, ``peak_bytes``, ``reserved_bytes`` (kept on purpose:
    caches, pools, staging), ``allocations`` (live) and
    ``total_allocations``. Memory of zero-copy imports is the producer's and
    is not counted. See include/arrowmetal.h for exactly what counts."""
    stats = ffi.new("am_memory_stats *")
    rc = lib.am_memory_info(_devices.device_ptr(device), stats)
    if rc:
        raise _error(rc)
    return {name: getattr(stats, name) for name, _ in ffi.typeof("am_memory_stats").fields}


def reset_peak_memory(device: DeviceLike | None = None) -> None:
    """Sets `device`'s ``peak_bytes`` (None: the default device) to its
    bytes in use now (am_memory_reset_peak)."""
    rc = lib.am_memory_reset_peak(_devices.device_ptr(device))
    if rc:
        raise _error(rc)


def kernel_cache_dir() -> str:
    """Directory of the on-disk kernel cache, '' when it is off."""
    return _string(lib.am_kernel_cache_dir()).decode()


def version() -> str:
    """Version of the loaded C library, "MAJOR.MINOR.PATCH"."""
    return _string(lib.am_version()).decode()


def binding_mode() -> str:
    """How the package calls the C library: 'api' (the compiled cffi module,
    about 0.06 us per call) or 'abi' (ffi.dlopen, about 0.14 us per call)."""
    return _capi_mode


def routes() -> str:
    """The active crossover table (am_routes): where ops run when moving
    their inputs is faster, one '<op> <from> <below rows> <to>' line per rule
    after a '# source' line. Set with ARROWMETAL_ROUTES (a file written by
    benchmarks/crossover.py --write, 'off', or unset for the built-in table)."""
    return _string(lib.am_routes()).decode()


def check_configuration() -> None:
    """Every ARROWMETAL_* setting, checked when the package is imported
    (am_config_check): a bad value raises, naming the variable and what it
    accepts; ARROWMETAL_BACKEND naming a device that cannot be used raises
    with the reason. An ARROWMETAL_ROUTES file that cannot be used (the
    built-in table runs instead) is a warning, and a line in the 'arrowmetal'
    log."""
    rc = lib.am_config_check()
    if rc == 0:
        return
    err = error_from_status(rc)
    if "ARROWMETAL_ROUTES=" in str(err) and rc == lib.AM_EINVAL:
        log.warning("%s", err)
        warnings.warn(str(err), RuntimeWarning, stacklevel=3)
        return
    raise err
