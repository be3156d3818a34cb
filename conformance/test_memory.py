"""am_memory_info and am_memory_reset_peak through the C ABI (cffi), and the conformance
runner's memory check (test_conformance.memory_baseline): that it can fail. Issue #15,
"Memory"."""

import os
import subprocess
import sys
import threading

import amabi
import numpy as np
import pyarrow as pa
import pytest
from amabi import ffi, lib

HERE = os.path.dirname(os.path.abspath(__file__))
BACKENDS = amabi.available_backends()

pytestmark = pytest.mark.skipif(not BACKENDS, reason="no ArrowMetal backend can run here")


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


def info(dev):
    return amabi.memory_info(dev)


def full_int64(dev, length, value=7):
    s = amabi.make_scalar("int64", value)
    out = ffi.new("am_array **")
    amabi.check("am_full", lib.am_full(s, length, dev, out))
    return out[0]


def counted(nbytes):
    """What an array buffer of `nbytes` counts: whole 64-byte lines, one more than the
    data needs (core/buffer.c, cuda/hooks.c); whole 2 MiB blocks from 2 MiB on the host."""
    rounded = (nbytes + 127) & ~63
    if rounded >= 2 << 20:
        rounded = (rounded + (2 << 20) - 1) & ~((2 << 20) - 1)
    return rounded


def test_an_array_counts_its_bytes_until_released(backend):
    dev = amabi.device(backend)
    before = info(dev)
    handle = full_int64(dev, 1000)
    during = info(dev)
    grew = during["bytes_in_use"] - before["bytes_in_use"]
    if backend == "metal":  # a pooled buffer may be up to twice the size asked
        assert counted(8000) <= grew <= 2 * counted(8000)
    else:
        assert grew == counted(8000)
    assert during["allocations"] == before["allocations"] + 1
    assert during["total_allocations"] == before["total_allocations"] + 1
    assert during["peak_bytes"] >= during["bytes_in_use"]
    shared = ffi.new("am_array **")
    amabi.check("am_slice", lib.am_slice(handle, 10, 100, shared))
    assert info(dev)["bytes_in_use"] == during["bytes_in_use"]  # a slice shares the buffer
    lib.am_release(handle)
    assert info(dev)["bytes_in_use"] == during["bytes_in_use"]  # the slice keeps it
    lib.am_release(shared[0])
    after = info(dev)
    assert after["bytes_in_use"] == before["bytes_in_use"]
    assert after["allocations"] == before["allocations"]
    assert after["peak_bytes"] >= during["bytes_in_use"]


def test_peak_tracks_and_resets(backend):
    dev = amabi.device(backend)
    amabi.check("am_memory_reset_peak", lib.am_memory_reset_peak(dev))
    base = info(dev)
    assert base["peak_bytes"] == base["bytes_in_use"]
    a = full_int64(dev, 5000)
    b = full_int64(dev, 3000)
    high = info(dev)["bytes_in_use"]
    lib.am_release(a)
    lib.am_release(b)
    low = info(dev)
    assert low["bytes_in_use"] == base["bytes_in_use"]
    assert low["peak_bytes"] == high > base["bytes_in_use"]
    amabi.check("am_memory_reset_peak", lib.am_memory_reset_peak(dev))
    assert info(dev)["peak_bytes"] == base["bytes_in_use"]


def test_large_host_blocks_are_reserved_once_freed():
    cpu = amabi.device("cpu")
    handle = full_int64(cpu, 1 << 20)  # 8 MiB: a large block
    held = info(cpu)
    lib.am_release(handle)
    freed = info(cpu)
    block = counted(8 << 20)
    assert held["bytes_in_use"] - freed["bytes_in_use"] == block
    assert freed["reserved_bytes"] - held["reserved_bytes"] == block  # kept in the cache


def test_a_zero_copy_import_is_the_producers_memory():
    cpu = amabi.device("cpu")
    arr = pa.array(np.arange(10000, dtype=np.int64))
    before = info(cpu)
    handle, counter = amabi.import_array(arr, cpu)
    assert info(cpu)["bytes_in_use"] == before["bytes_in_use"]
    out = ffi.new("am_array **")
    amabi.check("am_unary", lib.am_unary(lib.AM_NEGATE, handle, out))
    assert info(cpu)["bytes_in_use"] - before["bytes_in_use"] == counted(80000)
    lib.am_release(out[0])
    lib.am_release(handle)
    assert counter.count == 1
    assert info(cpu)["bytes_in_use"] == before["bytes_in_use"]


def test_bad_arguments_name_the_function():
    assert lib.am_memory_info(amabi.device("cpu"), ffi.NULL) == lib.AM_EINVAL
    assert amabi.names_function(amabi.last_error(), "am_memory_info")
    assert "out is NULL" in amabi.last_error()


def test_null_device_is_the_default_device():
    stats = ffi.new("am_memory_stats *")
    amabi.check("am_memory_info", lib.am_memory_info(ffi.NULL, stats))
    assert stats.bytes_in_use == info(lib.am_default_device())["bytes_in_use"]
    amabi.check("am_memory_reset_peak", lib.am_memory_reset_peak(ffi.NULL))


def test_threads_leave_the_counters_exact(backend):
    dev = amabi.device(backend)
    before = info(dev)
    rounds, threads, errors = 300, 4, []

    def work():
        try:
            for i in range(rounds):
                lib.am_release(full_int64(dev, 100 + i))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors
    after = info(dev)
    assert after["bytes_in_use"] == before["bytes_in_use"]
    assert after["allocations"] == before["allocations"]
    assert after["total_allocations"] - before["total_allocations"] >= rounds * threads


def test_the_comparison_sees_a_kept_result(backend):
    """What memory_baseline does after each case, with a result kept alive on purpose:
    it must report the device, and be quiet once the result is released."""
    devs = amabi.memory_devices(backend)
    baseline = amabi.memory_snapshot(devs)
    kept = full_int64(amabi.device(backend), 64)
    leaks = amabi.memory_leaks(baseline, devs)
    assert len(leaks) == 1 and "bytes in use, baseline" in leaks[0]
    assert leaks[0].startswith(amabi.ffi.string(lib.am_device_name(devs[0])).decode())
    lib.am_release(kept)
    assert amabi.memory_leaks(baseline, devs) == []


LEAKING_RUN = """
import amabi
import pytest
from amabi import ffi, lib
from test_conformance import memory_baseline  # noqa: F401 - the runner's own fixture

KEPT = []


def full(backend):
    out = ffi.new("am_array **")
    s = amabi.make_scalar("int64", 1)
    amabi.check("am_full", lib.am_full(s, 100, amabi.device(backend), out))
    return out[0]


@pytest.mark.parametrize("backend", ["cpu"])
def test_gives_back(backend, memory_baseline):
    lib.am_release(full(backend))


@pytest.mark.parametrize("backend", ["cpu"])
def test_keeps_a_result(backend, memory_baseline):
    KEPT.append(full(backend))
"""


def test_the_runner_fails_a_case_that_keeps_a_result(tmp_path):
    """The fixture itself, in a pytest run of its own: the case that keeps its result is
    an error at teardown, the one that gives it back is not."""
    (tmp_path / "test_leaking.py").write_text(LEAKING_RUN)
    python_dir = os.path.normpath(os.path.join(HERE, "..", "python"))
    # The caller's path too: on the GPU machine cffi lives outside site-packages.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, python_dir, *sys.path]))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         str(tmp_path / "test_leaking.py")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, check=False,
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    # Both bodies pass; the kept result fails at its teardown, and only there.
    assert "2 passed, 1 error" in out, out
    assert "ERROR test_leaking.py::test_keeps_a_result[cpu]" in out, out
    assert "memory not given back after the case: cpu: " in out, out
