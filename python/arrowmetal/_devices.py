"""Device handles: ``am_device *`` for a spec such as "cpu" or "cuda:1",
opened once and kept (the C library never frees a device), and their names."""

from __future__ import annotations

import threading

from ._capi import ffi, lib
from ._errors import ArrowMetalTypeError, error_from_status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CPU", "device_backend", "device_name", "device_ptr"]

_NULL = ffi.NULL
_string = ffi.string
_am_device_open = lib.am_device_open
_am_device_name = lib.am_device_name
_am_device_backend = lib.am_device_backend

_DEVICES: dict[Any, Any] = {}  # spec -> am_device *
_DEVICES_LOCK = threading.Lock()


def device_ptr(device):
    """am_device* for None (NULL: the default device), a spec string ("cpu",
    "cuda:1") or a device cdata."""
    if device is None:
        return _NULL
    p = _DEVICES.get(device)
    if p is not None:
        return p
    if type(device) is not str:
        if isinstance(device, ffi.CData):
            return device
        raise ArrowMetalTypeError(
            f"device must be a string such as 'cpu' or 'cuda:0', not {device!r}",
            lib.AM_ETYPE,
        )
    out = ffi.new("am_device **")
    rc = _am_device_open(device.encode(), out)
    if rc:
        raise error_from_status(rc)
    with _DEVICES_LOCK:
        _DEVICES[device] = out[0]
    return out[0]


def device_name(dev):
    """The device's name ("cpu", "cuda:0", ...) of an am_device *."""
    return _string(_am_device_name(dev)).decode()


def device_backend(dev):
    """The backend's name ("cpu", "cuda", "metal") of an am_device *."""
    return _string(_am_device_backend(dev)).decode()


CPU = device_ptr("cpu")
