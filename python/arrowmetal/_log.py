"""The library's messages (am_set_log_handler) in the ``arrowmetal`` logger.

Each message goes to ``logging.getLogger("arrowmetal")``. A notice (a burst
of GPU kernel compiles that took over a second) is logged at INFO and also
written to stderr as one line, whatever logging is set up, as the library
itself writes it when no handler is set: whoever waits on a first GPU call
learns why, and that the next process will not wait. Warnings are logged at
WARNING (logging's last-resort handler prints them when none is set up)."""

import logging
import sys

from ._capi import ffi, lib

log = logging.getLogger("arrowmetal")
_NOTICE = lib.AM_LOG_NOTICE


def _forward(level, message, _user):
    text = ffi.string(message).decode("utf-8", "replace")
    if level == _NOTICE:
        log.info("%s", text)
        print("arrowmetal: " + text, file=sys.stderr, flush=True)
    else:
        log.log(level, "%s", text)


# Kept referenced for as long as the library may call it.
_handler = ffi.callback("am_log_handler", _forward)


def install():
    """Routes the library's messages to the logger (done on import)."""
    lib.am_set_log_handler(_handler, ffi.NULL)
