"""Errors, batching, runtime controls, backends and devices, threads."""

import threading

import pytest

import arrowmetal as am
from arrowmetal import _capi, _errors

pa = pytest.importorskip("pyarrow")
np = pytest.importorskip("numpy")

# ---------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    "cls,code,base",
    [
        (am.ArrowMetalInvalid, am.lib.AM_EINVAL, ValueError),
        (am.ArrowMetalTypeError, am.lib.AM_ETYPE, TypeError),
        (am.ArrowMetalIndexError, am.lib.AM_EINDEX, IndexError),
        (am.ArrowMetalOverflowError, am.lib.AM_EOVERFLOW, OverflowError),
        (am.ArrowMetalZeroDivisionError, am.lib.AM_EZERODIV, ZeroDivisionError),
        (am.ArrowMetalMemoryError, am.lib.AM_ENOMEM, MemoryError),
        (am.ArrowMetalUnsupported, am.lib.AM_EUNSUPPORTED, NotImplementedError),
        (am.ArrowMetalDeviceError, am.lib.AM_EDEVICE, am.ArrowMetalError),
    ],
)
def test_error_classes(cls, code, base):
    e = _errors.error_from_status(code, "boom")
    # pyarrow is loaded here: the instance's class is cls plus pyarrow's bases.
    assert type(e).__name__ == cls.__name__ and type(e).__mro__[1] is cls
    assert isinstance(e, am.ArrowMetalError) and isinstance(e, base)
    assert e.code == code and cls.code == code
    assert str(e) == "boom"


def test_unknown_status():
    e = _errors.error_from_status(99, "")
    assert type(e).__mro__[1] is am.ArrowMetalError and e.code == 99


def _raised(fn, *args, **kwargs):
    with pytest.raises(am.ArrowMetalError) as info:
        fn(*args, **kwargs)
    return info.value


def test_errors_from_calls_carry_message_and_code():
    e = _raised(am.take, pa.array([1, 2, 3]), pa.array([0, 12]))
    assert isinstance(e, IndexError) and e.code == am.lib.AM_EINDEX
    assert "am_take" in str(e) or "12" in str(e)

    e = _raised(am.divide, pa.array([1, 2]), pa.array([1, 0]))
    assert isinstance(e, ZeroDivisionError) and e.code == am.lib.AM_EZERODIV

    e = _raised(am.cast, pa.array([300]), "uint8")
    assert isinstance(e, OverflowError) and e.code == am.lib.AM_EOVERFLOW

    e = _raised(am.add, pa.array([True]), pa.array([False]))
    assert isinstance(e, TypeError) and e.code == am.lib.AM_ETYPE

    e = _raised(am.equal, pa.array([1, 2]), pa.array([1, 2, 3]))
    assert isinstance(e, ValueError) and e.code == am.lib.AM_EINVAL

    e = _raised(am.filter, pa.array([1, 2]), pa.array([1, 0]))
    assert e.code in (am.lib.AM_ETYPE, am.lib.AM_EINVAL)

    e = _raised(am.array([1, 2]).slice, -1, 1)
    assert isinstance(e, ValueError) and e.code == am.lib.AM_EINVAL
    assert str(e)


def test_errors_are_thread_local():
    errors = {}

    def worker(i):
        try:
            am.take(pa.array([1, 2, 3]), pa.array([100 + i]))
        except IndexError as e:
            errors[i] = str(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 8
    for i, msg in errors.items():
        assert str(100 + i) in msg


# ---------------------------------------------------------------------------
# Batching


def test_batch_results_equal_unbatched():
    x = pa.array(np.arange(100, dtype=np.int64))
    a = am.array(x)
    expected_sum = am.sum(am.add(a, 1))
    with am.batch():
        b = am.add(a, 1)
        s = am.sum(b)
        m = am.max(am.filter(b, am.greater(b, 50)))
        c = am.count(b)
    assert isinstance(s, am.PendingScalar)
    assert s.value == expected_sum and s == expected_sum and int(s) == expected_sum
    assert m.as_py() == 100 and type(m.as_py()) is int  # the Python value, as pyarrow's
    assert m.is_valid and m.type == am.max(a).type
    assert c == 100
    assert b.to_pylist() == list(range(1, 101))
    with am.batch():
        empty = am.min(am.filter(b, am.greater(b, 1000)))
    assert empty.as_py() is None and not empty.is_valid


def test_batch_foreign_inputs_and_nesting():
    x = pa.array([1, 2, 3])
    with am.batch():
        s1 = am.sum(x)
        with am.batch():
            s2 = am.sum(np.array([4.0, 5.0]))
            r = am.add(x, np.array([1, 1, 1]))
        s3 = am.mean(r)
    assert s1.value == 6 and s2.value == 9.0 and s3.value == 3.0
    # outside a batch, reductions are plain values again
    assert am.sum(x) == 6


def test_batch_pending_value_before_end():
    with am.batch():
        s = am.sum(pa.array([1, 2]))
        if not s.ready:
            with pytest.raises(am.ArrowMetalError):
                _ = s.value
    assert s.value == 3


def test_every_pending_result_is_settled_when_the_batch_ends():
    # The results share their batch's record and read their scalars when
    # asked: an end visits none of them, and a value is read once.
    x = pa.array([1, 2, 3])
    with am.batch():
        sums = [am.sum(x) for _ in range(1000)]
        pair = am.min_max(x)
        assert not any(s.ready for s in sums) and not pair.ready
        assert "batch not ended" in repr(sums[0]) and "batch not ended" in repr(pair)
    assert all(s.ready for s in sums) and pair.ready
    assert {s.value.as_py() for s in sums} == {6}
    assert sums[0].value is sums[0].value
    assert pair.as_py() == {"min": 1, "max": 3} and pair["max"].as_py() == 3


def test_batch_reports_data_errors():
    with pytest.raises(ZeroDivisionError), am.batch():
        am.divide(pa.array([1, 2]), pa.array([0, 1]))
    # the batch state is clean afterwards
    assert am.sum(pa.array([1, 2])) == 3


def test_batch_body_exception_propagates():
    with pytest.raises(KeyError), am.batch():
        am.sum(pa.array([1]))
        raise KeyError("x")
    assert am.sum(pa.array([5])) == 5


def test_batch_commit_and_wait():
    with am.batch(wait=False) as b:
        s = am.sum(pa.array([1, 2, 3]))
    b.wait()
    assert s.value == 6
    b.wait()  # once per ticket: a second wait does nothing


def test_batch_per_thread():
    results = []

    def worker():
        with am.batch():
            s = am.sum(pa.array([1, 2, 3]))
        results.append(s.value)
        results.append(am.sum(pa.array([4])))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [4, 4, 4, 4, 6, 6, 6, 6]


def test_a_stray_batch_exit_raises_and_leaves_later_batches_working():
    # An exit without its enter used to leave the thread's batch depth at -1,
    # after which a reduction inside a batch returned a plain value (on a GPU
    # read before the batch wrote it). The depth is the C library's alone.
    for wait in (True, False):
        with pytest.raises(am.ArrowMetalInvalid, match="no batch is open"):
            am.batch(wait=wait).__exit__(None, None, None)
        assert am.lib.am_batch_depth() == 0
    x = pa.array([1, 2, 3])
    with am.batch():
        s = am.sum(x)
        assert isinstance(s, am.PendingScalar)
    assert s.value == 6
    assert am.sum(x) == 6 and not isinstance(am.sum(x), am.PendingScalar)


def test_batch_depth_and_the_outermost_batch_come_from_the_library():
    x = pa.array([1, 2, 3])
    assert am.lib.am_batch_depth() == 0
    with am.batch():
        assert am.lib.am_batch_depth() == 1
        with am.batch(wait=False) as inner:  # not the outermost: ends with a wait
            assert am.lib.am_batch_depth() == 2
            s = am.sum(x)
        assert inner.ticket is None
        inner.wait()  # nothing to wait for
        assert am.lib.am_batch_depth() == 1
        assert not s.ready  # resolved when the outermost batch ends
        assert isinstance(am.sum(x), am.PendingScalar)
    assert am.lib.am_batch_depth() == 0
    assert s.ready and s.value == 6


def test_a_batch_ended_behind_its_back_does_not_wedge_the_thread():
    x = pa.array([1, 2, 3])
    with pytest.raises(am.ArrowMetalInvalid), am.batch():
        s = am.sum(x)
        assert am.lib.am_batch_end() == 0  # the C batch ends here
    assert s.ready  # settled (with the error) when the block ended
    with pytest.raises(am.ArrowMetalInvalid, match="no batch is open"):
        _ = s.value
    assert "error" in repr(s)
    assert am.sum(x) == 6
    # Entered, ended behind its back, then a new batch: the stale one is settled.
    stale = am.batch()
    stale.__enter__()
    t = am.sum(x)
    assert am.lib.am_batch_end() == 0
    with am.batch():
        u = am.sum(x)
    assert t.ready and u.value == 6
    with pytest.raises(am.ArrowMetalInvalid, match="ended outside am.batch"):
        _ = t.value
    assert am.lib.am_batch_depth() == 0 and am.sum(x) == 6


def test_batch_depth_is_per_thread():
    depths = []

    def worker():
        depths.append(am.lib.am_batch_depth())
        with am.batch():
            depths.append(am.lib.am_batch_depth())
            s = am.sum(pa.array([4]))
        depths.append(s.value)

    with am.batch():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert am.lib.am_batch_depth() == 1
    assert depths == [0, 1, 4]


# ---------------------------------------------------------------------------
# Runtime controls


def test_spin_microseconds():
    old = am.spin_microseconds()
    assert isinstance(old, int) and old >= 0
    try:
        assert am.spin_microseconds(123) == 123
        assert am.spin_microseconds() == 123
    finally:
        am.spin_microseconds(old)


def test_low_latency_wait():
    old = am.low_latency_wait()
    assert isinstance(old, bool)
    try:
        assert am.low_latency_wait(False) is False
        assert am.low_latency_wait() is False
        assert am.low_latency_wait(True) is True
    finally:
        am.low_latency_wait(old)


def test_resident_mode():
    old = am.resident_mode()
    assert isinstance(old, bool)
    assert isinstance(am.resident_status(), str)
    if am.backend() == "cpu":
        assert am.resident_mode(True) is False  # the CPU has no resident worker
        assert am.resident_status()
    am.resident_mode(old)


def test_backends_and_devices():
    bs = am.backends()
    names = [b[0] for b in bs]
    assert "cpu" in names
    for name, ok, reason in bs:
        assert isinstance(ok, bool) and isinstance(reason, str)
        if not ok:
            assert reason
    assert {n: ok for n, ok, _ in bs}["cpu"] is True
    assert am.backend() in names
    assert isinstance(am.default_device(), str)
    assert am.version().count(".") == 2


def test_set_device():
    old = am.default_device()
    try:
        assert am.set_device("cpu") == "cpu"
        assert am.backend() == "cpu"
        assert am.array([1, 2]).device == "cpu"
    finally:
        am.set_device(old)
    unavailable = [n for n, ok, _ in am.backends() if not ok]
    for name in unavailable:
        with pytest.raises(am.ArrowMetalUnsupported):
            am.set_device(name)
    with pytest.raises(am.ArrowMetalError):
        am.set_device("no-such-backend")


def _available(name):
    return any(n == name and ok for n, ok, _ in am.backends())


@pytest.mark.skipif(not _available("cuda"), reason="no usable CUDA backend")
def test_cuda_device_roundtrip():
    x = pa.array(np.arange(1000, dtype=np.int64))
    a = am.array(x, device="cuda")
    assert a.device.startswith("cuda")
    assert am.sum(a) == 499500
    b = am.add(a, 1)
    assert b.device == a.device
    assert am.sum(b) == 500500
    assert b.to_pyarrow().equals(pa.array(np.arange(1, 1001, dtype=np.int64)))
    sc, dc = b.__arrow_c_device_array__()  # stays on the GPU
    dev = am.ffi.cast(
        "struct ArrowDeviceArray *", _capi.capsule_pointer(dc, _capi.NAME_DEVICE_ARRAY)
    )
    assert dev.device_type == am.lib.ARROW_DEVICE_CUDA
    del sc, dc

    class DeviceOnly:
        def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
            return b.__arrow_c_device_array__(requested_schema, **kwargs)

    again = am.array(DeviceOnly(), device=a.device)  # CUDA data in, zero-copy
    assert again.device == a.device and am.sum(again) == 500500
    assert am.sum(x, device="cuda") == 499500
    assert am.greater(a, np.arange(1000)).device == a.device  # numpy operand follows a
    with am.batch():
        s = am.sum(am.multiply(a, 2))
    assert s.value == 999000
    c = a.to_device("cpu")
    assert c.device == "cpu" and am.sum(c) == 499500


# ---------------------------------------------------------------------------
# Threads


def test_many_threads_share_arrays():
    a = am.array(pa.array(np.arange(10_000, dtype=np.int64)))
    expected = 10_000 * 9_999 // 2
    failures = []

    def worker():
        for _ in range(200):
            if am.sum(a) != expected or am.sum(a + 0) != expected:
                failures.append(1)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_kernel_cache_info():
    if not hasattr(am.lib, "am_kernel_cache_info"):
        pytest.skip("library without am_kernel_cache_info")
    info = am.kernel_cache_info()
    assert set(info) >= {"memory_hits", "compiles", "compile_seconds"}
    assert all(v >= 0 for v in info.values())
    assert isinstance(am.kernel_cache_dir(), str)
