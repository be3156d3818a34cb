"""am.memory_info and am.reset_peak_memory (issue #15, "Memory")."""

import gc
import os
import signal
import threading
import time
import warnings

import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
np = pytest.importorskip("numpy")

FIELDS = ["bytes_in_use", "peak_bytes", "reserved_bytes", "allocations", "total_allocations"]


def test_fields_and_exports():
    info = am.memory_info()
    assert list(info) == FIELDS
    assert all(isinstance(v, int) and v >= 0 for v in info.values())
    assert list(am.memory_info("cpu")) == FIELDS
    assert "memory_info" in am.__all__ and "reset_peak_memory" in am.__all__


def test_a_result_is_counted_until_it_is_gone():
    values = pa.array(np.arange(100_000, dtype=np.int64))
    x = am.array(values)  # zero-copy: pyarrow's memory, not counted
    gc.collect()
    before = am.memory_info("cpu")
    y = am.add(x, x)
    during = am.memory_info("cpu")
    assert during["bytes_in_use"] - before["bytes_in_use"] >= 800_000
    assert during["peak_bytes"] >= during["bytes_in_use"]
    del y
    gc.collect()
    assert am.memory_info("cpu")["bytes_in_use"] == before["bytes_in_use"]


def test_reset_peak_memory():
    y = am.full(pa.scalar(1, pa.int64()), 50_000)
    del y
    gc.collect()
    am.reset_peak_memory("cpu")
    info = am.memory_info("cpu")
    assert info["peak_bytes"] == info["bytes_in_use"]
    am.reset_peak_memory()  # the default device


def test_bad_device():
    with pytest.raises(am.ArrowMetalInvalid, match="unknown backend"):
        am.memory_info("nosuch")


_cuda = {name: (ok, reason) for name, ok, reason in am.backends()}["cuda"]


@pytest.mark.skipif(not _cuda[0], reason=f"no usable CUDA backend: {_cuda[1]}")
def test_large_downloads_land_in_reused_pinned_blocks():
    # 3M int64 (24 MB, nulls, an odd offset) comes home into a page-locked
    # block (cuda/pinned_pool.c); freed, the block is cached (reserved, not
    # in use), and the next download of that size takes it again.
    n = 3_000_000
    values = np.arange(n, dtype=np.int64) * 3 - 7
    mask = (np.arange(n) % 7) == 3
    source = pa.array(values, mask=mask)
    on_device = am.array(source, device="cuda")[5:]
    gc.collect()
    before = am.memory_info("cpu")
    first = on_device.to_pyarrow()
    assert first.equals(source[5:])
    during = am.memory_info("cpu")
    assert during["bytes_in_use"] - before["bytes_in_use"] >= 8 * (n - 5)
    del first
    gc.collect()
    cached = am.memory_info("cpu")
    assert cached["bytes_in_use"] == before["bytes_in_use"]
    assert cached["reserved_bytes"] - during["reserved_bytes"] >= 8 * (n - 5)
    second = (on_device + 1).to_pyarrow()
    assert second.equals(pa.array(values[5:] + 1, mask=mask[5:]))
    assert am.memory_info("cpu")["reserved_bytes"] < cached["reserved_bytes"]
    del second
    gc.collect()
    assert am.memory_info("cpu")["bytes_in_use"] == before["bytes_in_use"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_a_child_forked_while_buffers_churn_can_allocate():
    # Freed host buffers of 64 KiB and more go to a cache under a lock; a
    # fork() while another thread held it left it held for good in the child
    # (about one child in 200 hung before the lock was taken across fork()).
    x = am.array(pa.array(np.arange(20_000, dtype=np.int64)))  # 160 KB results
    stop = threading.Event()

    def churn():
        while not stop.is_set():
            am.add(x, 1)

    worker = threading.Thread(target=churn)
    worker.start()
    hung = failed = 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads
            for _ in range(200):
                pid = os.fork()
                if pid == 0:
                    os._exit(0 if am.sum(am.add(x, 2)).as_py() == 199_990_000 + 40_000 else 1)
                deadline = time.monotonic() + 5
                while True:
                    done, status = os.waitpid(pid, os.WNOHANG)
                    if done:
                        failed += status != 0
                        break
                    if time.monotonic() > deadline:
                        hung += 1
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
                        break
                    time.sleep(0.001)
    finally:
        stop.set()
        worker.join()
    assert (hung, failed) == (0, 0)
