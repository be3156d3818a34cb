"""The resident worker where there is no GPU: its kernel, as the generator
writes it (kernel_source_resident.c), compiled as C++ against the CPU
emulation of CUDA (emu/cuda_emu.h) and run on a thread of its own, against
the ring's host side (resident_ring.c, through resident_ring_test.c).

What this shows: the ring's protocol (tickets, answers in order, slots
reused, the worker's leaving after its idle time and coming back, a request
taken back when the worker left without it, stop, the start-up probe, the
watchdog and a failed launch), with real threads on both sides; and that a
resident reduction's status words are the launched one-block REDUCE
kernel's, bit for bit, for every op and type. What it cannot show: the
GPU's memory model (system-scope acquire and release across the bus),
the worker's speed, or a CUDA launch. python/tests/test_resident_cuda.py
does those on a GPU."""

import ctypes
import pathlib
import re
import shutil
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
        return (self.error_index, self.count, self.nan_count, self.value, self.value_hi)


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
    runs it as one warp, and the 44 REDUCE kernels', whose run_<kernel>(args)
    runs one as one block of 256 threads. Two libraries: the emulation's
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
        'extern "C" void am_emu_worker(const void *args) {\n' + run((i, 32), name)))  # fmt: skip
    names = [f"am_reduce_{op}_{t}" for op in OPS for t in TYPES]
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
    ring.rt_reduce.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(Status),
                               ctypes.c_int64, ctypes.POINTER(ctypes.c_int)]  # fmt: skip
    ring.rt_stress.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int,
                               ctypes.POINTER(ctypes.c_int64)]  # fmt: skip
    ring.rt_set_idle.argtypes = [ctypes.c_int64]
    ring.rt_message.restype = ctypes.c_char_p
    ring.rt_reason.restype = ctypes.c_char_p
    ring.rt_state.restype = ctypes.c_uint64
    worker = ctypes.cast(emulated[0].am_emu_worker, ctypes.c_void_p)

    class Ring:
        lib = ring

        def open(self, idle_ms=1000, launch=LAUNCH_WORKER):
            ring.rt_open(worker, int(idle_ms * 1e6), launch)

        def start(self, probe_ms=5000):
            return ring.rt_start(probe_ms)

        def stop(self, wait_ms=5000):
            return ring.rt_stop(wait_ms)

        def reduce(self, op, type_name, data, validity=None, offset=0, n=None, timeout_ms=5000):
            status, served = Status(), ctypes.c_int(0)
            rc = ring.rt_reduce(OPS.index(op), AM_TYPE[type_name], data.ctypes.data,
                                None if validity is None else validity.ctypes.data, offset,
                                len(data) - offset if n is None else n, ctypes.byref(status),
                                timeout_ms, ctypes.byref(served))  # fmt: skip
            return rc, served.value, status

        def message(self):
            return ring.rt_message().decode()

        def reason(self):
            return ring.rt_reason().decode()

    return Ring()


def launched(emulated, op, type_name, data, validity, offset, n):
    """The launched REDUCE kernel's status words (one block, as the GPU
    runs it up to 2,048 slots)."""
    status = Status()
    status.error_index = 2**64 - 1
    args = Args()
    args.in0 = data.ctypes.data
    args.valid0 = 0 if validity is None else validity.ctypes.data
    args.off0 = offset
    args.n = n
    args.status = ctypes.addressof(status)
    scratch = np.zeros(1024 * 32 + 64, np.uint8)
    args.scratch = scratch.ctypes.data
    getattr(emulated[1], f"run_am_reduce_{op}_{type_name}")(ctypes.byref(args))
    return status


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
def test_a_resident_reduction_is_the_launched_kernel_bit_for_bit(rt, emulated, type_name):
    rng = np.random.default_rng(AM_TYPE[type_name])
    rt.open()
    assert rt.start() == OK, rt.message()
    checked = 0
    for n in (0, 1, 31, 33, 255, 257, 1000, 2047, 2048):
        data = values(type_name, n, rng)
        for offset in (0, 3):
            for nulls in (False, True):
                validity = None
                if nulls:
                    validity = np.packbits(rng.random(n + 3) < 0.8, bitorder="little")
                for op in OPS:
                    rc, served, got = rt.reduce(op, type_name, data, validity, offset, n)
                    assert rc == OK and served == 1, rt.message()
                    want = launched(emulated, op, type_name, data, validity, offset, n)
                    assert got.words() == want.words(), (op, n, offset, nulls)
                    checked += 1
    assert checked == 9 * 2 * 2 * 4
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


def test_the_worker_leaves_when_idle_and_comes_back(rt):
    rt.open(idle_ms=50)
    assert rt.start() == OK, rt.message()
    deadline = time.monotonic() + 5
    while rt.lib.rt_running() and time.monotonic() < deadline:
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
    """After its first worker (idle time 100 ms), idle time 0: a worker leaves whenever it
    finds no request, and the callers pause at random between calls, so posts
    keep meeting it on its way out. Every call is answered right or handed
    back (then nothing of it is left in the ring); none hangs, none is
    wrong."""
    rt.open(idle_ms=100)  # long enough for the probe on a loaded machine
    assert rt.start() == OK, rt.message()
    rt.lib.rt_set_idle(0)
    deadline = time.monotonic() + 5
    while rt.lib.rt_state() != 4 and time.monotonic() < deadline:  # the first one leaves
        time.sleep(0.001)
    out = (ctypes.c_int64 * 4)()
    rt.lib.rt_stress(4, 300, 20000, 300, out)
    served, unserved, wrong, failed = out
    assert wrong == 0 and failed == 0 and served + unserved == 1200
    assert served > 0 and unserved > 0  # both ways were taken
    assert rt.lib.rt_launches() > 10
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
