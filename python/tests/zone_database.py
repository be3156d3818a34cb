"""What the time-zone tests share: the system's tz database (the one pyarrow
reads on Linux), its zones and their listed clock changes, and the comparison
of an arrowmetal outcome with pyarrow's."""

import os
import zoneinfo

import pytest

import arrowmetal as am

DATABASE = "/usr/share/zoneinfo"
# Skips a module where pyarrow could not read the same database.
NEEDS_DATABASE = pytest.mark.skipif(
    not os.path.isfile(os.path.join(DATABASE, "America/New_York"))
    or os.environ.get("TZDIR", DATABASE) != DATABASE,
    reason=f"no tz database at {DATABASE} (Debian: apt-get install tzdata), or TZDIR "
    "points elsewhere (pyarrow reads that one only)",
)
UNITS = ["s", "ms", "us", "ns"]
PER = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}
# 1900-01-01 .. 2037-12-01: the files list every transition there (pyarrow agrees).
LISTED = (-2208988800, 2143238400)
CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]

_LEFT_OUT = {"Factory", "iso3166.tab", "right", "+VERSION", "version", "zone.tab",
             "zone1970.tab", "zonenow.tab", "tzdata.zi", "leapseconds",
             "leap-seconds.list", "SECURITY"}  # fmt: skip


def database_zones():
    """The zones of the database as pyarrow's date library lists them."""
    zones = []
    for d, dirs, files in os.walk(DATABASE):
        dirs[:] = [x for x in dirs if x not in _LEFT_OUT and not x.startswith((".", "posix"))]
        rel = os.path.relpath(d, DATABASE)
        zones += [f if rel == "." else f"{rel}/{f}" for f in files
                  if f not in _LEFT_OUT and not f.startswith((".", "posix"))]  # fmt: skip
    return sorted(zones)


def transitions(zone):
    """The UTC instants of `zone`'s listed clock changes within LISTED."""
    from zoneinfo import _zoneinfo as pure

    try:
        times = pure.ZoneInfo.no_cache(zone)._trans_utc
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return []
    return [t for t in times if LISTED[0] <= t < LISTED[1]]


def same(got, want):
    got = got.to_pyarrow() if isinstance(got, am.Array) else got
    assert got.equals(want), (got, want)


def outcome(fn, *args, no_kernel=False, **kwargs):
    """The result as pyarrow data, or pyarrow's error class and message (the
    library's message after its function's name). With no_kernel, a missing
    kernel (pyarrow's ArrowNotImplementedError, the library's ArrowTypeError as
    everywhere) is "no kernel", and "Function" in its message "function"."""
    try:
        r = fn(*args, **kwargs)
        return ("ok", r.to_pyarrow() if isinstance(r, am.Array) else r)
    except Exception as e:  # noqa: BLE001 - compared with pyarrow's outcome
        pyarrow_class = [c for c in type(e).__mro__ if c.__module__ == "pyarrow.lib"]
        base = (pyarrow_class or [type(e)])[0].__name__
        message = str(e).split(": ", 1)[1] if str(e).startswith("am_") else str(e)
        if no_kernel and base in ("ArrowTypeError", "ArrowNotImplementedError"):
            return ("no kernel", message.replace("Function '", "function '"))
        return (base, message)
