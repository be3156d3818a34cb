"""The resident worker where there is no GPU: its kernel, as the generator
writes it (kernel_source_resident.c), compiled as C++ against the CPU
emulation of CUDA (emu/cuda_emu.h) and run on a thread of its own, against
the ring's host side (resident_ring.c, through resident_ring_test.c).

What this shows: the ring's protocol (tickets, answers in order, slots
reused, the worker's leaving after its idle time and coming back, a request
taken back when the worker left without it, stop, the start-up probe, the
watchdog and a failed launch), with real threads on both sides; and that a
resident answer's status words are the launched one-block REDUCE or AGGREGATE
kernel's, bit for bit, for every op and type. What it cannot show: the
GPU's memory model (system-scope acquire and release across the bus),
the worker's speed, or a CUDA launch. python/tests/test_resident_cuda.py
does those on a GPU."""

import ctypes
import math
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import time

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild

CXX = shutil.which("g++") or shutil.which("clang++")
pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler")

OPS = ["sum", "min", "max", "mean"]
# The aggregates with kernels of their own (am_aggregate_op values).
AGGREGATES = {"product": 2, "min_max": 3, "variance": 4, "first": 6, "last": 7, "index": 9}
REDUCE, AGGREGATE = 2, 3  # am_resident_kind
TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64"]  # fmt: skip
AM_TYPE = {name: i + 1 for i, name in enumerate(TYPES)}  # am_type: AM_BOOL = 1 ...
OK, EUNSUPPORTED, EDEVICE = 0, 6, 8
LAUNCH_WORKER, LAUNCH_NOTHING, LAUNCH_MUTE = 0, 1, 2
BLOCK = 256


class Status(ctypes.Structure):
    """am_gpu_status (gpu/kernels.h)."""

    _fields_ = [(f, ctypes.c_uint64) for f in
                ("error_index", "count", "nan_count", "value", "value_hi", "r0", "r1", "r2")]  # fmt: skip

    def words(self):
        """The five status words, a double NaN in value or value_hi as "nan":
        which NaN an x86 sum of NaNs keeps (the sign of the operand the
        compiler put first) differs between the two compiled loops, where a
        GPU writes its one canonical NaN."""
        return (self.error_index, self.count, self.nan_count, nan_free(self.value),
                nan_free(self.value_hi))  # fmt: skip


def nan_free(word):
    return "nan" if math.isnan(struct.unpack("<d", struct.pack("<Q", word))[0]) else word


class Args(ctypes.Structure):
    """am_gpu_args (gpu/kernels.h): the fields REDUCE reads."""

    _fields_ = [(f, ctypes.c_uint64) for f in
                ("in0", "in1", "valid0", "valid1", "out", "out_valid", "scratch", "status")] + [
        (f, ctypes.c_int64) for f in ("n", "off0", "off1", "aux")] + [
        ("scalar", ctypes.c_uint64), ("scalar_null", ctypes.c_int32), ("pad", ctypes.c_int32),
        ("in2", ctypes.c_uint64), ("valid2", ctypes.c_uint64), ("off2", ctypes.c_int64)]  # fmt: skip


def compile_emulated(work, stem, names, entry):
    """The kernels `names` of the dump in one library compiled against the
    CPU emulation: each file in a namespace of its own, its macros undefined
    after it; entry(i, name) writes the C entry point of kernel i."""
    parts = [f'#include "{HERE / "emu" / "cuda_emu.h"}"\n']
    for i, name in enumerate(names):
        text = (work / "cuda" / f"{name}.cu").read_text()
        undefs = "".join(f"#undef {m}\n" for m in re.findall(r"^#define (\w+)", text, re.MULTILINE))
        parts.append(f"namespace am_k{i} {{\n{text}\n}}\n{undefs}{entry(i, name)}")
    src = work / f"{stem}.cpp"
    src.write_text("".join(parts))
    so = work / f"{stem}.so"
    subprocess.run([CXX, "-std=c++17", "-O1", "-ffp-contract=off", "-shared", "-fPIC", "-w",
                    str(src), "-o", str(so), "-lpthread"], check=True)  # fmt: skip
    return ctypes.CDLL(str(so))


@pytest.fixture(scope="module")
def emulated(tmp_path_factory):
    """(worker, kernels): the worker's library, whose am_emu_worker(args)
    runs it as one block of 256 threads, as the launched kernels run: the
    REDUCE and AGGREGATE kernels', whose run_<kernel>(args) runs one. Two libraries: the emulation's
    block state is one per library, and the worker runs beside the kernels."""
    work = tmp_path_factory.mktemp("resident")
    tool = cbuild.build(work / "kernel_source_test",
                        [HERE / "kernel_source_test.c", *cbuild.GENERATOR], optimize="-O1")  # fmt: skip
    (work / "cuda").mkdir()
    subprocess.run([str(tool), "dump", "cuda", str(work / "cuda")], check=True, capture_output=True)

    def run(grid, call):
        return (
            f"  am_k{grid[0]}::Args a;\n  memcpy(&a, args, sizeof a);\n"
            f"  am_emu_grid(1, {grid[1]}, [&] {{ am_k{grid[0]}::{call}(a); }});\n}}\n"
        )

    worker = compile_emulated(work, "worker", ["am_resident_worker"], lambda i, name: (
        'extern "C" void am_emu_worker(const void *args) {\n' + run((i, BLOCK), name)))  # fmt: skip
    names = [name for t in TYPES for name, _, _ in classes(t)]
    kernels = compile_emulated(work, "reduce", names, lambda i, name: (
        f'extern "C" void run_{name}(const void *args) {{\n' + run((i, BLOCK), name)))  # fmt: skip
    return worker, kernels


@pytest.fixture(scope="module")
def rt(emulated, tmp_path_factory):
    """The ring's host side (resident_ring.c) with the emulated worker."""
    work = tmp_path_factory.mktemp("ring")
    lib = HERE.parent
    sources = [HERE / "resident_ring_test.c", HERE / "resident_ring.c",
               lib / "core" / "error.c"]  # fmt: skip
    so = cbuild.build(work / "ring.so", sources, shared=True)
    ring = ctypes.CDLL(str(so))
    ring.rt_open.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int]
    ring.rt_start.argtypes = [ctypes.c_int64]
    ring.rt_stop.argtypes = [ctypes.c_int64]
    ring.rt_call.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint64,
                             ctypes.POINTER(Status), ctypes.c_int64,
                             ctypes.POINTER(ctypes.c_int)]  # fmt: skip
    ring.rt_stress.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int,
                               ctypes.POINTER(ctypes.c_int64)]  # fmt: skip
    ring.rt_set_idle.argtypes = [ctypes.c_int64, ctypes.c_int64]
    ring.rt_call_torn.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(Status),
                                  ctypes.c_int, ctypes.c_int64]  # fmt: skip
    ring.rt_message.restype = ctypes.c_char_p
    ring.rt_reason.restype = ctypes.c_char_p
    ring.rt_state.restype = ctypes.c_uint64
    worker = ctypes.cast(emulated[0].am_emu_worker, ctypes.c_void_p)

    class Ring:
        lib = ring

        def open(self, idle_ms=1000, launch=LAUNCH_WORKER, life_ms=60_000):
            """A fresh ring; its workers leave after idle_ms without requests
            or life_ms in all (the library's lifetime is 100 ms: long tests
            here would see their worker leave)."""
            ring.rt_open(worker, int(idle_ms * 1e6), launch)
            ring.rt_set_idle(int(idle_ms * 1e6), int(life_ms * 1e6))

        def start(self, probe_ms=5000):
            return ring.rt_start(probe_ms)

        def stop(self, wait_ms=5000):
            return ring.rt_stop(wait_ms)

        def call(self, kind, op, type_name, data, validity=None, offset=0, n=None, scalar=0,
                 timeout_ms=5000):  # fmt: skip
            status, served = Status(), ctypes.c_int(0)
            rc = ring.rt_call(kind, op, AM_TYPE[type_name], data.ctypes.data,
                              None if validity is None else validity.ctypes.data, offset,
                              len(data) - offset if n is None else n, scalar,
                              ctypes.byref(status), timeout_ms, ctypes.byref(served))  # fmt: skip
            return rc, served.value, status

        def reduce(self, op, type_name, data, **kwargs):
            return self.call(REDUCE, OPS.index(op), type_name, data, **kwargs)

        def message(self):
            return ring.rt_message().decode()

        def reason(self):
            return ring.rt_reason().decode()

    return Ring()


def classes(type_name):
    """(kernel, request kind, op) of every class the worker answers for the type."""
    out = [(f"am_reduce_{op}_{type_name}", REDUCE, i) for i, op in enumerate(OPS)]
    for agg, op in AGGREGATES.items():
        if type_name != "bool" or agg not in ("product", "variance"):
            out.append((f"am_{agg}_{type_name}", AGGREGATE, op))
    return out


def launched(emulated, kernel, data, validity, offset, n, scalar):
    """The launched kernel's status words (one block, as the GPU runs it up
    to 2,048 slots)."""
    status = Status()
    status.error_index = 2**64 - 1
    args = Args()
    args.in0 = data.ctypes.data
    args.valid0 = 0 if validity is None else validity.ctypes.data
    args.off0 = offset
    args.n = n
    args.scalar = scalar
    args.status = ctypes.addressof(status)
    scratch = np.zeros(1024 * 32 + 64, np.uint8)
    args.scratch = scratch.ctypes.data
    getattr(emulated[1], f"run_{kernel}")(ctypes.byref(args))
    return status


def scalar_bits(type_name, data, slot):
    """Slot `slot`'s value as am_gpu_args.scalar holds index's value: floats as
    the bits of the double, integers widened, bool 0 or 1."""
    if type_name == "bool":
        return int(np.unpackbits(data, bitorder="little")[slot])
    value = data[slot]
    if value.dtype.kind == "f":
        return int(np.float64(value).view(np.uint64))
    return int(value) & (2**64 - 1)


def values(type_name, n, rng):
    """n + 3 slots of the type's values (bool: a bitmap), with extremes and,
    for floats, NaN, infinities and signed zeros."""
    if type_name == "bool":
        return np.packbits(rng.integers(0, 2, n + 3, dtype=np.uint8), bitorder="little")
    dtype = np.dtype(type_name)
    if dtype.kind == "f":
        x = (rng.standard_normal(n + 3) * 1e6).astype(dtype)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-30], dtype)
        picks = rng.integers(0, n + 3, min(n + 3, 6))
        x[picks] = specials[: len(picks)]
        return x
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, n + 3, dtype=dtype, endpoint=True)
    x[rng.integers(0, n + 3)] = info.max
    x[rng.integers(0, n + 3)] = info.min
    return x


@pytest.mark.parametrize("type_name", TYPES)
def test_a_resident_answer_is_the_launched_kernel_bit_for_bit(rt, emulated, type_name):
    """Every REDUCE and aggregate class of the type, at lengths up to one
    block's 2,048 slots, with and without an offset and nulls."""
    rng = np.random.default_rng(AM_TYPE[type_name])
    rt.open()
    assert rt.start() == OK, rt.message()
    checked = 0
    for n in (0, 1, 33, 257, 1000, 2048):
        data = values(type_name, n, rng)
        scalar = scalar_bits(type_name, data, (n + 3) // 2)  # index finds it, or not
        for offset in (0, 3):
            for nulls in (False, True):
                validity = None
                if nulls:
                    validity = np.packbits(rng.random(n + 3) < 0.8, bitorder="little")
                for kernel, kind, op in classes(type_name):
                    rc, served, got = rt.call(kind, op, type_name, data, validity, offset, n,
                                              scalar)  # fmt: skip
                    assert rc == OK and served == 1, rt.message()
                    want = launched(emulated, kernel, data, validity, offset, n, scalar)
                    assert got.words() == want.words(), (kernel, n, offset, nulls)
                    checked += 1
    assert checked == 6 * 2 * 2 * len(classes(type_name))
    assert rt.stop() == OK


def test_the_probe_answers_and_says_so(rt):
    rt.open()
    assert not rt.lib.rt_running()
    assert "am_resident_mode(1)" in rt.reason()
    assert rt.start() == OK, rt.message()
    assert rt.lib.rt_running()
    assert "probe answered in" in rt.reason()
    assert rt.start() == OK  # a second start finds it running
    assert rt.lib.rt_launches() == 1
    assert rt.stop() == OK
    assert not rt.lib.rt_running()
    assert "stopped" in rt.reason()
    data = np.arange(10, dtype=np.int64)
    rc, served, _ = rt.reduce("sum", "int64", data)
    assert rc == OK and served == 0  # stopped: the caller launches instead
    assert rt.lib.rt_launches() == 1  # and nothing brings it back


def test_many_threads_each_answer_checked_none_early(rt):
    """8 threads of mixed sums, minimums and maximums over new data each
    call; an answer released before the worker wrote it, or another
    request's answer, is wrong. (80,000 calls ran once by hand; CI runs
    8 x 500.)"""
    rt.open()
    assert rt.start() == OK, rt.message()
    out = (ctypes.c_int64 * 4)()
    rt.lib.rt_stress(8, 500, 20000, 0, out)
    served, unserved, wrong, failed = out
    assert (served, unserved, wrong, failed) == (8 * 500, 0, 0, 0)
    assert rt.stop() == OK


def test_a_ticket_met_before_its_words_waits_for_them(rt):
    """The worker reads a slot's ticket and its request's words in one trip,
    in no set order, and takes them only once every word carries the
    request's tag. Posted here ticket first (the host never does), the words
    20 ms later, over the slot's sum one lap earlier: taken with those
    words, the answer would go to that sum's status block."""
    rt.open()
    assert rt.start() == OK, rt.message()  # the probe is request 0
    old = np.arange(100, dtype=np.int64)
    earlier = []
    for _ in range(64):  # requests 1 to 64: a lap; request 65 goes to request 1's slot
        rc, served, status = rt.reduce("sum", "int64", old)
        assert rc == OK and served == 1 and status.value == 4950
        earlier.append(status)  # kept: a wrong answer lands in one of these
    new = np.arange(1000, dtype=np.int64)
    status = Status()
    assert rt.lib.rt_call_torn(new.ctypes.data, len(new), ctypes.byref(status), 20_000, 5000) == 0
    assert (status.count, status.value) == (1000, 499500)
    assert all(s.value == 4950 for s in earlier)
    rc, served, status = rt.reduce("sum", "int64", old)  # the ring goes on
    assert rc == OK and served == 1 and status.value == 4950
    assert rt.stop() == OK


def test_a_request_whose_words_cannot_hold_it_is_left_to_the_launch(rt):
    """A field of 2^48 or more does not fit the request's tagged words: not
    posted (served 0, the caller launches), and the ring goes on."""
    rt.open()
    assert rt.start() == OK, rt.message()
    status, served = Status(), ctypes.c_int(1)
    rc = rt.lib.rt_call(REDUCE, 0, AM_TYPE["int64"], 1 << 48, None, 0, 10, 0,
                        ctypes.byref(status), 5000, ctypes.byref(served))  # fmt: skip
    assert rc == OK and served.value == 0
    data = np.arange(10, dtype=np.int64)
    rc, served, status = rt.reduce("sum", "int64", data, offset=0)
    assert rc == OK and served == 1 and status.value == 45
    rc, served, _ = rt.reduce("sum", "int64", data, offset=1 << 48, n=0)
    assert rc == OK and served == 0
    assert rt.stop() == OK


def test_the_worker_leaves_when_idle_and_comes_back(rt):
    rt.open(idle_ms=50)
    assert rt.start() == OK, rt.message()
    deadline = time.monotonic() + 5
    # Not running is not yet left: EXITING (3) comes before EXITED (4).
    while rt.lib.rt_state() != 4 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert not rt.lib.rt_running() and rt.lib.rt_state() == 4  # EXITED
    data = np.arange(100, dtype=np.int64)
    rc, served, _ = rt.reduce("sum", "int64", data)
    assert rc == OK and served == 0  # this call launches again and goes the ordinary way
    assert rt.lib.rt_launches() == 2
    while not rt.lib.rt_running() and time.monotonic() < deadline:
        time.sleep(0.001)
    rc, served, status = rt.reduce("sum", "int64", data)
    assert rc == OK and served == 1 and status.value == 4950
    assert rt.stop() == OK


def test_requests_racing_the_worker_leaving_are_answered_or_taken_back(rt):
    """After its first worker (idle time 100 ms), idle time 0.2 ms: a worker leaves whenever
    it finds no request for a moment, and the callers pause at random between calls, so posts
    keep meeting it on its way out. Every call is answered right or handed
    back (then nothing of it is left in the ring); none hangs, none is
    wrong."""
    rt.open(idle_ms=100)  # long enough for the probe on a loaded machine
    assert rt.start() == OK, rt.message()
    rt.lib.rt_set_idle(200_000, 60_000_000_000)  # from the next launch: 0.2 ms idle
    deadline = time.monotonic() + 5
    while rt.lib.rt_state() != 4 and time.monotonic() < deadline:  # the first one leaves
        time.sleep(0.001)
    out = (ctypes.c_int64 * 4)()
    # Pauses up to 2 ms: an emulated answer takes the 256 fibers of the
    # worker's block most of a millisecond, and the worker must find gaps.
    rt.lib.rt_stress(3, 300, 20000, 2000, out)
    served, unserved, wrong, failed = out
    assert wrong == 0 and failed == 0 and served + unserved == 900
    assert served > 0 and unserved > 0  # both ways were taken
    assert rt.lib.rt_launches() > 10
    assert rt.stop() == OK


def test_a_busy_worker_leaves_after_its_lifetime_and_comes_back(rt):
    """A worker never idle still leaves after its lifetime (so that a
    context-wide synchronize elsewhere ends); calls meanwhile are answered
    or handed back, none wrong."""
    rt.open()
    assert rt.start() == OK, rt.message()
    rt.lib.rt_set_idle(1_000_000_000, 2_000_000)  # from the next launch: 2 ms in all
    assert rt.stop() == OK
    # Each worker now lives 2 ms: one may leave before its probe; try again.
    assert any(rt.start() == OK for _ in range(50)), rt.message()
    out = (ctypes.c_int64 * 4)()
    # Pauses of up to 100 us spread the calls over many lifetimes (unanswered
    # calls take microseconds: without them, on a loaded machine, every call
    # could come and go while no worker ran).
    rt.lib.rt_stress(4, 400, 20000, 100, out)
    served, unserved, wrong, failed = out
    assert wrong == 0 and failed == 0 and served + unserved == 1600 and served > 0
    assert rt.lib.rt_launches() > 2
    assert rt.stop() == OK


def test_a_worker_that_never_starts_is_refused_with_the_reason(rt):
    rt.open(launch=LAUNCH_NOTHING)
    assert rt.start(probe_ms=100) == EUNSUPPORTED
    assert "did not start within" in rt.reason()
    assert not rt.lib.rt_running()


def test_a_worker_that_never_answers_trips_the_watchdog(rt):
    rt.open(launch=LAUNCH_MUTE)
    assert rt.start(probe_ms=100) == EDEVICE
    assert "did not answer a request within" in rt.message()


def test_a_failed_worker_is_a_device_error_not_a_hang(rt):
    """A worker whose launch failed (a fault) never answers; with no
    watchdog set, the backend's word that it failed ends the wait."""
    rt.open(launch=LAUNCH_MUTE)
    rt.lib.rt_set_fault(1)
    started = time.monotonic()
    assert rt.start(probe_ms=0) == EDEVICE
    assert time.monotonic() - started < 2
    assert "failed while it was to answer a request: an illegal address" in rt.message()
