"""Two CUDA devices in one process (issue #14): each works on its own, arrays
move between them (device to device where the driver can, through the host
where it cannot: cuda/peer_copy.c, abi/route.c), and inputs on both meet on
the device holding the larger one. Runs only where cuda:1 opens
(`benchmarks/device_run.sh twogpu` on a machine of two GPUs); skips
elsewhere with the reason."""

import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am


def _second_gpu_reason():
    try:
        am._devices.device_ptr("cuda:1")
    except am.ArrowMetalError as e:
        return str(e)
    return None


_REASON = _second_gpu_reason()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=f"needs two CUDA devices: {_REASON}")

DEVICES = ["cuda:0", "cuda:1"]


def _values(n, seed, dtype=np.int64, nulls=0.1):
    rng = np.random.default_rng(seed)
    values = rng.integers(-1000, 1000, n).astype(dtype)
    return pa.array(values, mask=rng.random(n) < nulls if nulls else None)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [0, 1, 1000, 1_000_003])
def test_each_device_computes_on_its_own(device, n):
    x, y = _values(n, 1), _values(n, 2, np.float64)
    a, b = am.array(x, device=device), am.array(y, device=device)
    assert a.device == device and b.device == device
    assert am.sum(a).as_py() == pc.sum(x).as_py()
    total = am.add(am.cast(a, "float64"), b)
    assert total.device == device
    assert total.to_pyarrow().equals(pc.add(pc.cast(x, pa.float64()), y))
    kept = am.filter(a, am.greater(a, 0))
    assert kept.device == device
    assert kept.to_pyarrow().equals(pc.filter(x, pc.greater(x, 0)))
    assert am.sort_indices(a).to_pyarrow().equals(pc.sort_indices(x))


@pytest.mark.parametrize("source,target", [("cuda:0", "cuda:1"), ("cuda:1", "cuda:0")])
@pytest.mark.parametrize("offset", [0, 3, 64])
@pytest.mark.parametrize("kind", ["int64", "float32", "bool", "int8 without nulls", "string"])
def test_arrays_move_between_the_devices(source, target, offset, kind):
    n = 100_003
    rng = np.random.default_rng(offset)
    mask = rng.random(n) < 0.2
    if kind == "bool":
        data = pa.array(rng.random(n) < 0.5, mask=mask)
    elif kind == "string":
        data = pa.array([f"v{i}" for i in rng.integers(0, 500, n)], mask=mask)
    elif kind == "int8 without nulls":
        data = pa.array(rng.integers(-100, 100, n).astype(np.int8))
    else:
        data = pa.array(rng.integers(-(10**6), 10**6, n).astype(kind), mask=mask)
    data = data.slice(offset)
    here = am.array(data, device=source)
    there = here.to_device(target)
    assert there.device == target and len(there) == len(data)
    assert there.null_count == data.null_count
    assert there.to_pyarrow().equals(data)
    del here  # the copy is complete and owns its memory
    assert there.to_pyarrow().equals(data)


def test_a_batch_result_moves_once_its_work_is_done():
    x = _values(1 << 20, 3)
    a = am.array(x, device="cuda:0")
    with am.batch():
        doubled = am.multiply(a, 2)
        moved = doubled.to_device("cuda:1")
    assert moved.to_pyarrow().equals(pc.multiply(x, 2))


@pytest.mark.parametrize("first", DEVICES)
def test_inputs_on_two_devices_meet_on_the_one_holding_more_bytes(first):
    other = "cuda:1" if first == "cuda:0" else "cuda:0"
    x, y = _values(50_000, 4), _values(50_000, 5)
    a, b = am.array(x, device=first), am.array(y, device=other)
    total = am.add(a, b)
    assert total.device == first  # equal bytes: the first input's device
    assert total.to_pyarrow().equals(pc.add(x, y))
    assert am.equal(a, b).to_pyarrow().equals(pc.equal(x, y))
    narrow = am.array(pa.array((np.arange(50_000) % 100).astype(np.int8)), device=first)
    wide = am.array(pa.array(np.arange(50_000, dtype=np.int64)), device=other)
    mixed = am.add(narrow, wide)
    assert mixed.device == other  # 8 bytes a slot outweigh 1
    assert mixed.to_pyarrow().equals(
        pa.array(np.arange(50_000, dtype=np.int64) + np.arange(50_000) % 100)
    )


def test_both_devices_at_once_from_threads():
    x = _values(200_000, 6)
    want = pc.sum(x).as_py()
    errors = []

    def work(device):
        try:
            a = am.array(x, device=device)
            for _ in range(50):
                assert am.sum(am.add(a, 0)).as_py() == want
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append((device, e))

    threads = [threading.Thread(target=work, args=(d,)) for d in DEVICES * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_exports_name_their_device():
    import ctypes

    from arrowmetal import _capi

    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    x = _values(1000, 7)
    for ordinal, device in enumerate(DEVICES):
        a = am.array(x, device=device)
        _, capsule = a.__arrow_c_device_array__()
        exported = _capi.ffi.cast(
            "struct ArrowDeviceArray *", get_pointer(capsule, b"arrow_device_array")
        )
        assert exported.device_type == 2 and exported.device_id == ordinal  # ARROW_DEVICE_CUDA
        del capsule  # its destructor releases the export once
        assert a.to_pyarrow().equals(x)
