"""GPU faults (issue #15), each in a fresh process: a device out of memory
that works again once memory is freed; a kernel that faults, after which the
device is broken with a sticky error that every waiter gets, while the CPU
keeps working; a kernel that never ends, which the wait watchdog turns into
an error instead of a hang. The faults are made on purpose with
ARROWMETAL_TEST_FAULT (libarrowmetal/cuda/fault.c). Runs where the CUDA
backend works (the H200 in benchmarks/device_run.sh); skips elsewhere."""

import os
import textwrap

import pytest

import arrowmetal as am

from .fresh import run_python

_cuda = {name: (ok, reason) for name, ok, reason in am.backends()}["cuda"]
pytestmark = pytest.mark.skipif(not _cuda[0], reason=f"no usable CUDA backend: {_cuda[1]}")


def _run(code, **env):
    # The child finds NVRTC as this process does.
    if os.environ.get("ARROWMETAL_NVRTC"):
        env.setdefault("ARROWMETAL_NVRTC", os.environ["ARROWMETAL_NVRTC"])
    out = run_python(textwrap.dedent(code), **env)
    assert out.returncode == 0, out.stdout + out.stderr
    return out


def test_out_of_memory_names_the_sizes_and_the_device_recovers():
    out = _run("""
        import arrowmetal as am

        rows = 1 << 30  # 8 GiB of int64 per array
        held, message = [], None
        while message is None:
            try:
                held.append(am.full(1, rows, type="int64", device="cuda"))
            except am.ArrowMetalMemoryError as e:
                message = str(e)
            assert len(held) < 64, "the device never ran out"
        assert len(held) >= 8, len(held)
        assert "bytes asked" in message and "free of" in message, message
        asked = int(message.split(" bytes asked")[0].split()[-1])
        assert 8 * rows <= asked < 8 * rows + 128, message  # rounded to whole lines
        # Not broken: once memory is freed, the same request and ops work.
        held.pop()
        held.pop()
        assert am.sum(held[0]).as_py() == rows
        held.append(am.full(2, rows, type="int64", device="cuda"))
        assert am.sum(held[-1]).as_py() == 2 * rows
        n = len(held)
        held.clear()
        again = am.full(3, rows, type="int64", device="cuda")
        assert am.max(again).as_py() == 3
        print("filled with", n, "arrays:", message)
    """)
    print(out.stdout)


def test_a_faulting_kernel_breaks_the_device_for_every_waiter_only():
    out = _run(
        """
        import threading
        import pyarrow as pa
        import arrowmetal as am

        host = pa.array(range(1000), type=pa.int64())
        a = am.array(host, device="cuda")
        assert a.to_pyarrow().equals(host)  # transfers work: no kernel yet

        # The first kernel faults; batches committed after it, from other
        # threads, wait on the same broken device.
        with am.batch(wait=False) as first:
            pending = am.sum(a)
        errors, lock = [], threading.Lock()

        def other():
            try:
                with am.batch(wait=False) as b:
                    am.sum(a)
                b.wait()
                result = "released"
            except am.ArrowMetalDeviceError as e:
                result = str(e)
            with lock:
                errors.append(result)

        threads = [threading.Thread(target=other) for _ in range(4)]
        for t in threads:
            t.start()
        try:
            first.wait()
            errors.append("released")
        except am.ArrowMetalDeviceError as e:
            errors.append(str(e))
        for t in threads:
            t.join(60)
            assert not t.is_alive(), "a waiter hangs"
        assert len(errors) == 5 and "released" not in errors, errors
        assert all("illegal memory access" in e for e in errors), errors
        try:
            pending.as_py()
            raise AssertionError("a result of the faulted batch was read")
        except am.ArrowMetalError:
            pass
        # Sticky: later calls on the device fail at once with the fault.
        for call in (lambda: am.sum(a), lambda: a.to_pyarrow(), lambda: am.sum(a + 1)):
            try:
                call()
                raise AssertionError("the broken device ran a call")
            except am.ArrowMetalDeviceError as e:
                assert "illegal memory access" in str(e), e
        # The CPU backend in the same process works.
        assert am.sum(am.array(host)).as_py() == sum(range(1000))
        print("waiters:", errors[0])
        """,
        ARROWMETAL_TEST_FAULT="illegal-address",
        ARROWMETAL_WAIT_TIMEOUT_MS="60000",
    )
    print(out.stdout)
    # A new process works again.
    _run("""
        import pyarrow as pa
        import arrowmetal as am
        a = am.array(pa.array(range(1000), type=pa.int64()), device="cuda")
        assert am.sum(a).as_py() == sum(range(1000))
    """)


def test_the_watchdog_ends_a_wait_on_a_kernel_that_never_ends():
    out = _run(
        """
        import time
        import pyarrow as pa
        import arrowmetal as am

        assert am.wait_timeout_ms() == 1500
        host = pa.array(range(1000), type=pa.int64())
        a = am.array(host, device="cuda")
        start = time.monotonic()
        try:
            am.sum(a)
            raise AssertionError("the hung kernel's result was read")
        except am.ArrowMetalDeviceError as e:
            message = str(e)
        waited = time.monotonic() - start
        assert 1.5 <= waited < 30, waited
        assert "within 1500 ms" in message, message
        start = time.monotonic()
        try:
            am.sum(a)
            raise AssertionError("the broken device ran a call")
        except am.ArrowMetalDeviceError as e:
            assert "within 1500 ms" in str(e), e
        assert time.monotonic() - start < 1, "the sticky error waited again"
        assert am.sum(am.array(host)).as_py() == sum(range(1000))
        print(f"after {waited:.2f} s:", message)
        """,
        ARROWMETAL_TEST_FAULT="hang",
        ARROWMETAL_WAIT_TIMEOUT_MS="1500",
    )
    print(out.stdout)


def test_the_fault_setting_is_refused_when_malformed():
    out = _run(
        """
        import pyarrow as pa
        import arrowmetal as am
        a = am.array(pa.array(range(10), type=pa.int64()), device="cuda")
        assert am.sum(a).as_py() == 45
        """,
        ARROWMETAL_TEST_FAULT="segfault:x",
    )
    assert "is not illegal-address[:n] or hang[:n]" in out.stderr
