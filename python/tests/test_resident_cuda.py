"""The resident CUDA worker (libarrowmetal/cuda/resident.c, gpu/resident_ring.h):
am_resident_mode(1) starts it only once its probe answered; small synchronous
reductions then go through its ring and give the launches' results bit for
bit; many threads at once get their own answers; it leaves when idle and
comes back; am_resident_mode(0) stops it. These need a CUDA GPU of compute
capability 7.0 or later (benchmarks/device_run.sh); without one they skip, and
libarrowmetal/gpu/test_resident_ring.py checks the protocol and the kernel on
the CPU."""

import os
import re
import struct
import subprocess
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pytest

import arrowmetal as am

CUDA = {name: ok for name, ok, _ in am.backends()}["cuda"]
CUDA_REASON = {name: reason for name, _, reason in am.backends()}["cuda"]
pytestmark = pytest.mark.skipif(not CUDA, reason=f"no usable CUDA backend: {CUDA_REASON}")

TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
         "float64"]  # fmt: skip
ONE_BLOCK = 2048  # AM_GPU_BLOCK * 8: the largest reduction the worker takes


@pytest.fixture
def resident():
    """The CUDA device as the default, its worker started; stopped after."""
    previous = am.default_device()
    am.set_device("cuda")
    try:
        assert am.resident_mode(True), am.resident_status()
        yield
    finally:
        am.resident_mode(False)
        am.set_device(previous)


def answered():
    """Requests the workers have answered so far (from am_resident_status;
    the count goes on across launches). A worker that left after its idle
    time or lifetime is started again first."""
    assert am.resident_mode(True), am.resident_status()
    return int(re.search(r"(\d+) requests answered", am.resident_status()).group(1))


def bits(result):
    """A result's value, floats by their bits (NaN included), structs
    (min_max) field by field."""
    value = result.as_py() if hasattr(result, "as_py") else result
    if isinstance(value, dict):
        return {k: bits(v) for k, v in value.items()}
    if isinstance(value, float):
        return struct.pack("<d", value)
    return value


def index_of_middle(a):
    """am.index of the middle slot's value (0 in an empty array)."""
    return am.index(a, a.to_pyarrow()[len(a) // 2] if len(a) else 0)


def test_the_worker_starts_after_its_probe_and_says_so(resident):
    assert am.resident_mode() is True
    status = am.resident_status()
    assert "probe answered in" in status and "requests answered" in status


def test_small_reductions_and_aggregates_are_the_launches_bit_for_bit(resident):
    rng = np.random.default_rng(7)
    cases = []
    for t in TYPES:
        for n in (0, 1, 33, 1000, ONE_BLOCK):
            if t.startswith("float"):
                values = (rng.standard_normal(n + 5) * 1e6).astype(t)
                values[rng.integers(0, n + 5, 2)] = np.nan
            else:
                info = np.iinfo(t)
                values = rng.integers(info.min, info.max, n + 5, dtype=t, endpoint=True)
            mask = rng.random(n + 5) < 0.2
            base = pa.array(values, mask=mask)
            cases.append(am.array(base.slice(3, n), device="cuda"))
    ops = [am.sum, am.min, am.max, am.mean, am.min_max, am.product, am.variance, am.stddev,
           am.first, am.last, index_of_middle]  # fmt: skip
    before = answered()
    with_worker = [[bits(op(a)) for op in ops] for a in cases]
    assert answered() - before >= len(cases) * len(ops) // 2  # most went through the worker
    am.resident_mode(False)
    launched = [[bits(op(a)) for op in ops] for a in cases]
    assert with_worker == launched


def test_a_larger_reduction_launches(resident):
    a = am.array(pa.array(np.arange(ONE_BLOCK + 1, dtype=np.int64)), device="cuda")
    am.sum(a)  # the worker may have left and been brought back by now
    before = answered()
    assert am.sum(a).as_py() == ONE_BLOCK * (ONE_BLOCK + 1) // 2
    assert answered() == before + 1  # the probe of answered() itself


def test_threads_of_mixed_calls_each_get_their_own_answer(resident):
    """8 threads x 10,000 calls: sums, minimums and maximums of small arrays
    (the worker), and compares and larger sums (launches), each checked."""
    wrong, errors = [], []

    def work(seed):
        rng = np.random.default_rng(seed)
        arrays = []
        for _ in range(16):
            n = int(rng.integers(1, 3000))
            values = rng.integers(-(10**9), 10**9, n)
            arrays.append((values, am.array(pa.array(values), device="cuda")))
        try:
            for i in range(10_000):
                values, a = arrays[int(rng.integers(0, len(arrays)))]
                kind = i % 4
                if kind == 0:
                    got, want = am.sum(a).as_py(), int(values.sum())
                elif kind == 1:
                    got, want = am.min(a).as_py(), int(values.min())
                elif kind == 2:
                    got, want = am.max(a).as_py(), int(values.max())
                else:
                    got = am.greater(a, 0).to_pyarrow().to_pylist()
                    want = (values > 0).tolist()
                if got != want:
                    wrong.append((seed, i, kind))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(repr(exc))

    before = answered()
    threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and not wrong, (errors[:3], wrong[:5])
    # The worker took part (a call finding the queue busy with another
    # thread's launch, or the worker between lifetimes, launches instead).
    assert answered() - before > 1000


def test_memory_reused_by_new_arrays_is_read_afresh(resident):
    """Arrays freed and made again land on the memory the worker just read
    (the pool hands it back); each sum must see the new values, not lines
    the worker's multiprocessor kept."""
    rng = np.random.default_rng(11)
    before = answered()
    for _ in range(2000):
        values = rng.integers(-(10**6), 10**6, 1000)
        a = am.array(pa.array(values), device="cuda")
        assert am.sum(a).as_py() == int(values.sum())
        b = am.add(a, 1)  # written by a launch, read by the worker next
        assert am.sum(b).as_py() == int(values.sum()) + 1000
        del a, b
    assert answered() - before > 1000  # most sums of b went through the worker


def test_inputs_of_a_batch_not_waited_for_are_not_read_early(resident):
    x = am.array(pa.array(np.arange(1000, dtype=np.int64)), device="cuda")
    with am.batch(wait=False) as b:
        y = am.add(x, 1)
    total = am.sum(y).as_py()  # the queue is not idle: this launches after the batch
    b.wait()
    assert total == 1000 * 1001 // 2


def test_the_worker_leaves_when_idle_and_comes_back():
    code = (
        "import time, arrowmetal as am, pyarrow as pa\n"
        "am.set_device('cuda')\n"
        "assert am.resident_mode(True), am.resident_status()\n"
        "time.sleep(0.3)\n"
        "print(am.resident_mode(), am.resident_status())\n"
        "a = am.array(pa.array(list(range(100))), device='cuda')\n"
        "deadline = time.monotonic() + 5\n"
        "while not am.resident_mode() and time.monotonic() < deadline:\n"
        "    assert am.sum(a).as_py() == 4950  # the first brings it back\n"
        "assert am.sum(a).as_py() == 4950\n"
        "print(am.resident_mode(), am.resident_status())\n"
        "print(am.resident_mode(False), am.resident_status())\n"
    )
    env = dict(os.environ, ARROWMETAL_RESIDENT_IDLE_MS="20")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    left, back, stopped = out.stdout.splitlines()
    assert left.startswith("False") and "left (after 20 ms without requests" in left
    assert back.startswith("True") and "requests answered" in back
    assert stopped.startswith("False") and "stopped" in stopped


def test_stop_waits_for_the_worker(resident):
    assert am.resident_mode(False) is False
    assert "stopped" in am.resident_status()
    start = time.monotonic()
    a = am.array(pa.array([1, 2, 3]), device="cuda")
    assert am.sum(a).as_py() == 6
    assert time.monotonic() - start < 5
    assert am.resident_mode() is False
