"""Thin helpers over the ArrowMetal C ABI (cffi bindings of arrowmetal._capi) for the
conformance runners: backends and devices, moving pyarrow arrays in and out through the
Arrow C Data Interface, and counting release callbacks."""

import os
import threading
import weakref

import casefmt as cf
import pyarrow as pa

from arrowmetal._capi import ffi, lib

STATUS = [
    "AM_OK",
    "AM_EINVAL",
    "AM_ETYPE",
    "AM_EINDEX",
    "AM_EOVERFLOW",
    "AM_EZERODIV",
    "AM_EUNSUPPORTED",
    "AM_ENOMEM",
    "AM_EDEVICE",
]
STATUS_CODE = {name: getattr(lib, name) for name in STATUS}
STATUS_NAME = {v: k for k, v in STATUS_CODE.items()}


def status_name(rc):
    return STATUS_NAME.get(rc, f"status {rc}")


def ptr(p):
    return int(ffi.cast("uintptr_t", p))


def last_error():
    return ffi.string(lib.am_last_error()).decode("utf-8", "replace")


def names_function(message, fname):
    """True if am_last_error() text starts with the am_ function's name."""
    if not message.startswith(fname):
        return False
    nxt = message[len(fname) : len(fname) + 1]
    return not (nxt.isalnum() or nxt == "_")


def available_backends():
    """Names of the compiled-in backends that can run in this process, limited to those
    ARROWMETAL_TEST_BACKENDS names when it is set ("cpu", "cpu,metal"): a machine
    whose GPU may fail for reasons of its own (a hosted runner's paravirtual Metal
    device) runs the suite on the CPU and on the GPU as separate steps."""
    wanted = os.environ.get("ARROWMETAL_TEST_BACKENDS")
    wanted = {w.strip() for w in wanted.split(",")} if wanted else None
    names = []
    for i in range(lib.am_backend_count()):
        p = lib.am_backend_name(i)
        if p == ffi.NULL:
            continue
        name = ffi.string(p).decode()
        if wanted is not None and name not in wanted:
            continue
        if lib.am_backend_probe(name.encode()) == lib.AM_OK:
            names.append(name)
    return names


_devices = {}
_devices_lock = threading.Lock()


def device(name):
    """am_device * of a backend (opened once per process)."""
    with _devices_lock:
        if name not in _devices:
            out = ffi.new("am_device **")
            rc = lib.am_device_open(name.encode(), out)
            if rc != lib.AM_OK:
                raise RuntimeError(f"am_device_open({name!r}) = {rc}: {last_error()}")
            _devices[name] = out[0]
            if os.environ.get("ARROWMETAL_TEST_RESIDENT") == "1" and name != "cpu":
                start_resident_worker(out[0])
        return _devices[name]


def start_resident_worker(dev):
    """ARROWMETAL_TEST_RESIDENT=1: the suite in resident mode. Starts the GPU's
    resident worker (am_resident_mode acts on the default device, which is put
    back after) and fails loudly where none starts, so that such a run never
    passes without one."""
    previous = lib.am_default_device()
    lib.am_set_default_device(dev)
    try:
        if not lib.am_resident_mode(1):
            raise RuntimeError(
                f"no resident worker: {ffi.string(lib.am_resident_status()).decode()}"
            )
    finally:
        lib.am_set_default_device(previous)


class AbiError(Exception):
    def __init__(self, fname, rc, message):
        super().__init__(f"{fname} returned {status_name(rc)}: {message}")
        self.fname = fname
        self.rc = rc
        self.message = message


def is_gpu(dev):
    """Whether the am_device * belongs to a GPU backend."""
    return ffi.string(lib.am_device_backend(dev)).decode() != "cpu"


# The tz database the library reads zones from (core/timezone.h), and whether it is here.
TZ_DATABASE = os.environ.get("TZDIR") or "/usr/share/zoneinfo"
TZ_DATABASE_HERE = os.path.isfile(os.path.join(TZ_DATABASE, "America", "New_York"))


def _daylight_flag(zone, second):
    """The TZif daylight flag (tt_isdst) of `zone`'s period at UTC `second`, as the file of
    this tz database says (its 64-bit block; None where there is no such file)."""
    import struct

    try:
        with open(os.path.join(TZ_DATABASE, zone), "rb") as f:
            data = f.read()
    except OSError:
        return None

    def block(at, width):  # (transition times, their types, the types) of a data block
        counts = struct.unpack_from(">6l", data, at + 20)
        isut, isstd, leap, times, types, chars = counts
        at += 44
        when = struct.unpack_from(f">{times}{'q' if width == 8 else 'l'}", data, at)
        at += times * width
        index = data[at : at + times]
        at += times
        info = [struct.unpack_from(">lBB", data, at + 6 * i) for i in range(types)]
        end = at + 6 * types + chars + leap * (width + 4) + isstd + isut
        return when, index, info, end

    when, index, info, end = block(0, 4)
    if data[4:5] >= b"2":  # the version 2+ block, 64-bit times, follows the first
        when, index, info, _ = block(end, 8)
    kind = 0
    for t, i in zip(when, index):
        if t > second:
            break
        kind = i
    return bool(info[kind][1])


# tzdata's main format marks Europe/Dublin's winter (GMT, an hour behind Irish Standard
# Time) as its daylight time; its "rearguard" format, which some distributions install,
# marks the summer instead. pyarrow's and the library's is_dst follow the files, and the
# cases were made on the main format (Debian's tzdata 2025b): where this database is
# the rearguard one, the is_dst cases of that zone skip.
DUBLIN_WINTER_IS_DAYLIGHT = TZ_DATABASE_HERE and _daylight_flag("Europe/Dublin", 1579046400)


def needs_tz_database(case):
    """Whether a case names a zone of the tz database (not UTC, not a fixed offset)."""
    zones = [i["tz"] for i in case["inputs"] if "tz" in i]
    if case["op"] == "assume_timezone":
        zones.append(case["params"]["timezone"])
    return any(z != "UTC" and not z.startswith(("+", "-")) for z in zones)


def not_on_backend(case, backend):
    """Why `case` does not run on `backend`, or None. A case naming a zone of the tz
    database skips where the system has none. Dictionary arrays and decimals
    live only in host memory so far (issue #13): a GPU refuses to hold them
    (AM_EUNSUPPORTED, tested in python/tests/test_dictionary.py and test_decimal.py), so
    their cases run on the CPU backend only. Strings and binary run everywhere."""
    if needs_tz_database(case) and not TZ_DATABASE_HERE:
        return f"no tz database at {TZ_DATABASE} (Debian: apt-get install tzdata)"
    dublin = any(i.get("tz") == "Europe/Dublin" for i in case["inputs"])
    if case["op"] == "is_dst" and dublin and DUBLIN_WINTER_IS_DAYLIGHT is False:
        return f"{TZ_DATABASE} is tzdata's rearguard format (Dublin's daylight time is its summer)"
    if backend == "cpu":
        return None
    types = [i["scalar"]["type"] if "scalar" in i else i.get("type") for i in case["inputs"]]
    if any(t in cf.VIEW_TYPES for t in types) or case["params"].get("to") in cf.VIEW_TYPES:
        return "string_view and binary_view are not on GPUs"
    if case["op"] == "dictionary_from_arrays" or any("dictionary" in i for i in case["inputs"]):
        return "dictionary arrays are not on GPUs"
    if any(cf.decimal_params(t) for t in types) or cf.decimal_params(case["params"].get("to")):
        return "decimals are not on GPUs yet"
    return None


def check(fname, rc):
    if rc != lib.AM_OK:
        raise AbiError(fname, rc, last_error())


# ---- release counting ---------------------------------------------------------------------


class ReleaseCounter:
    """Counts the calls of one ArrowArray's release callback: interpose() swaps the
    struct's release and private_data for ours; on the call we restore the producer's
    and forward to it."""

    def __init__(self):
        self.count = 0
        self.orig_release = None
        self.orig_private = None
        self.handle = ffi.new_handle(self)


_live_counters = set()
_counter_lock = threading.Lock()


@ffi.callback("void(struct ArrowArray *)")
def _counting_release(arr):
    counter = ffi.from_handle(arr.private_data)
    with _counter_lock:
        counter.count += 1
        _live_counters.discard(counter)
    arr.private_data = counter.orig_private
    arr.release = counter.orig_release
    if counter.orig_release != ffi.NULL:
        counter.orig_release(arr)
    arr.release = ffi.NULL


def interpose(c_array):
    counter = ReleaseCounter()
    counter.orig_release = c_array.release
    counter.orig_private = c_array.private_data
    c_array.private_data = counter.handle
    c_array.release = _counting_release
    with _counter_lock:
        _live_counters.add(counter)  # keeps the handle alive until the release
    return counter


# ---- arrays in and out --------------------------------------------------------------------


def export_from_pyarrow(arr):
    schema = ffi.new("struct ArrowSchema *")
    array = ffi.new("struct ArrowArray *")
    arr._export_to_c(ptr(array), ptr(schema))
    return schema, array


def import_array(arr, dev, unknown_null_count=False):
    """am_import of a pyarrow array onto `dev`; returns (am_array *, ReleaseCounter).
    The schema stays ours (borrowed by the library) and is released here."""
    schema, array = export_from_pyarrow(arr)
    if unknown_null_count and array.buffers[0] != ffi.NULL:
        array.null_count = -1
    counter = interpose(array)
    out = ffi.new("am_array **")
    try:
        rc = lib.am_import(schema, array, dev, out)
        msg = last_error() if rc else ""
    finally:
        schema.release(schema)
    if array.release != ffi.NULL:
        raise AssertionError("am_import did not mark the moved ArrowArray released")
    if rc != lib.AM_OK:
        raise AbiError("am_import", rc, msg)
    return out[0], counter


def export_array(handle):
    """am_export of a handle into a pyarrow array (which owns the exported structs)."""
    schema = ffi.new("struct ArrowSchema *")
    array = ffi.new("struct ArrowArray *")
    check("am_export", lib.am_export(handle, schema, array))
    return pa.Array._import_from_c(ptr(array), ptr(schema))


_SCALAR_BYTES = weakref.WeakKeyDictionary()


def make_scalar(t, value):
    """am_scalar * for a decoded value (None: null). The fields the type does not use hold
    poison: the ABI says they are ignored."""
    s = ffi.new("am_scalar *")
    s.type = cf.AM_TYPE[t]
    s.is_null = 1 if value is None else 0
    s.i64 = -6148914691236517206
    s.u64 = 0xA5A5A5A5A5A5A5A5
    s.f64 = float("nan")
    params = cf.decimal_params(t)
    if params:  # i64: scale << 32 | precision (a null's too: its type), u64: its bytes
        width, precision, scale = params
        s.i64 = int(ffi.cast("int64_t", (scale << 32) | precision))
        if value is None:
            return s
        data = cf.decimal_unscaled(t, value).to_bytes(width // 8, "little", signed=True)
        buf = ffi.new("char[]", data)
        _SCALAR_BYTES[s] = buf  # alive as long as the scalar
        s.u64 = int(ffi.cast("uintptr_t", buf))
        return s
    if value is None:
        if t in cf.FLOAT_TYPES:
            s.f64 = 12345.0
        return s
    if t in cf.BYTES_TYPES:  # u64: the address of its bytes, i64: their count
        data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        buf = ffi.new("char[]", data)
        _SCALAR_BYTES[s] = buf  # alive as long as the scalar
        s.u64 = int(ffi.cast("uintptr_t", buf))
        s.i64 = len(data)
        return s
    if t == "bool" or t in cf.SIGNED_LIKE:
        s.i64 = int(value)
    elif t in cf.UNSIGNED_TYPES:
        s.u64 = int(value)
    elif t in cf.FLOAT16_STORAGE:  # its value in f64 (the case codes its bits)
        s.f64 = cf.float16_value(value)
    else:
        s.f64 = float(value)
    return s


SENTINEL_TYPE = -7


def output_scalar():
    s = ffi.new("am_scalar *")
    s.type = SENTINEL_TYPE
    s.is_null = 77
    return s


DECIMAL_WIDTH = {13: 128, 14: 256}  # AM_DECIMAL128, AM_DECIMAL256


def array_type_name(handle):
    """The case type name of an array handle (a decimal's with its precision and scale),
    or its am_type code when it has none."""
    code = lib.am_array_type(handle)
    if code in DECIMAL_WIDTH:
        precision = lib.am_array_decimal_precision(handle)
        return cf.decimal_type(DECIMAL_WIDTH[code], precision, lib.am_array_decimal_scale(handle))
    return cf.AM_TYPE_NAME.get(code, code)


def scalar_value(s):
    """(type name, decoded value) of an am_scalar the library wrote."""
    if s.type in DECIMAL_WIDTH:  # its bytes at u64; i64: scale << 32 | precision
        precision, scale = s.i64 & 0xFFFFFFFF, s.i64 >> 32
        t = cf.decimal_type(DECIMAL_WIDTH[s.type], precision, scale)
        if s.is_null:
            return t, None
        data = ffi.buffer(ffi.cast("const char *", s.u64), DECIMAL_WIDTH[s.type] // 8)[:]
        unscaled = int.from_bytes(data, "little", signed=True)
        return t, cf.DECIMAL_CONTEXT.scaleb(unscaled, -scale)
    t = cf.AM_TYPE_NAME.get(s.type)
    if t is None:
        raise AssertionError(f"scalar has type code {s.type}")
    if s.is_null:
        return t, None
    if t in cf.BYTES_TYPES:  # the bytes at u64, i64 of them (inside the input array)
        data = ffi.buffer(ffi.cast("const char *", s.u64), s.i64)[:] if s.i64 else b""
        return t, data.decode("utf-8") if t in cf.TEXT_TYPES else data
    if t == "bool":
        if s.i64 not in (0, 1):
            raise AssertionError(f"bool scalar holds i64 = {s.i64}")
        return t, bool(s.i64)
    if t in cf.SIGNED_LIKE:
        return t, s.i64
    if t in cf.UNSIGNED_TYPES:
        return t, s.u64
    if t in cf.FLOAT16_STORAGE:
        return t, cf.float16_bits(s.f64)
    return t, s.f64


# ---- memory accounting (am_memory_info) -----------------------------------------------------


def memory_info(dev):
    """am_memory_info of one device as a dict of its fields."""
    stats = ffi.new("am_memory_stats *")
    check("am_memory_info", lib.am_memory_info(dev, stats))
    return {name: getattr(stats, name) for name, _ in ffi.typeof("am_memory_stats").fields}


def memory_devices(backend):
    """The devices whose memory a case on `backend` may allocate: the backend's device,
    and the host's (a GPU backend's downloads and host-side steps allocate there)."""
    devs = [device(backend)]
    if backend != "cpu":
        devs.append(device("cpu"))
    return devs


def memory_snapshot(devs):
    """bytes_in_use of each device, in order."""
    stats = ffi.new("am_memory_stats *")
    snapshot = []
    for dev in devs:
        check("am_memory_info", lib.am_memory_info(dev, stats))
        snapshot.append(stats.bytes_in_use)
    return snapshot


def memory_leaks(baseline, devs):
    """Where bytes_in_use is not back at `baseline` (memory_snapshot of the same devices):
    a list of "device: N bytes in use, baseline M" lines, empty when every device is back.
    Python garbage (a traceback's frames holding an exported array) is collected first
    when a difference is seen, so only memory that is still referenced counts."""
    now = memory_snapshot(devs)
    if now != baseline:
        import gc

        gc.collect()
        now = memory_snapshot(devs)
    return [
        f"{ffi.string(lib.am_device_name(dev)).decode()}: {n} bytes in use, baseline {b}"
        for dev, b, n in zip(devs, baseline, now)
        if n != b
    ]


def sort_key_args(arrays, orders, placements):
    """The am_array *[], descending int[] and null placement int[] of a
    sorting call (am_sort_indices, am_select_k_unstable) over the key
    handles, from the case's "ascending"/"descending" and
    "at_start"/"at_end" lists (one entry each, even where a call has no key)."""
    keys = ffi.new("am_array *[]", list(arrays) or [ffi.NULL])
    desc = ffi.new("int[]", [int(o == "descending") for o in orders] or [0])
    at = [lib.AM_NULLS_AT_START if x == "at_start" else lib.AM_NULLS_AT_END for x in placements]
    return keys, desc, ffi.new("int[]", at or [lib.AM_NULLS_AT_END])
