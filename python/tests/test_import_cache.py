"""The kept CPU imports of pyarrow arrays (_importers.borrow): same results as a
fresh import, one entry per live array, gone with the array."""

import gc
import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal._importers import PYARROW_IMPORTS


def _kept(array):
    e = PYARROW_IMPORTS.get(id(array))
    return e is not None and e[0]() is array


@pytest.fixture(autouse=True)
def _cpu_default():
    if am.default_device() != "cpu":
        pytest.skip("imports are kept only while the CPU is the default device")


def test_one_entry_per_array_reused_and_dropped_with_the_array():
    a = pa.array(np.arange(1000, dtype=np.int64))
    assert am.sum(a) == 499500
    assert not _kept(a)  # kept from the second use on
    assert am.sum(a) == 499500
    assert _kept(a)
    entry = PYARROW_IMPORTS[id(a)]
    assert am.sum(a) == 499500 and am.add(a, a).to_pylist()[-1] == 1998
    assert PYARROW_IMPORTS[id(a)] is entry
    gc.collect()  # earlier tests' garbage first: only `a`'s entry may go below
    before = len(PYARROW_IMPORTS)
    key = id(a)
    del a, entry
    gc.collect()
    assert len(PYARROW_IMPORTS) == before - 1
    assert key not in PYARROW_IMPORTS


def test_results_through_the_cache_equal_pyarrow():
    rng = np.random.default_rng(7)
    values = rng.integers(-50, 50, 300)
    arrays = [
        pa.array(values),
        pa.array(values, mask=rng.random(300) < 0.2),
        pa.array(values).slice(7, 250),
        pa.array(values, mask=rng.random(300) < 0.2).slice(63, 100),
    ]
    picks = pa.array(rng.integers(0, 100, 40))
    for a in arrays:
        for _ in range(3):  # imported, then kept, then reused
            assert am.sum(a) == pc.sum(a).as_py()
            assert am.min(a) == pc.min(a).as_py() and am.count(a) == pc.count(a).as_py()
            assert am.add(a, a).to_pylist() == pc.add(a, a).to_pylist()
            assert am.multiply(a, 3).to_pylist() == pc.multiply(a, 3).to_pylist()
            mask = pc.greater(a, 0)
            assert am.filter(a, mask).to_pylist() == pc.filter(a, mask).to_pylist()
            assert am.take(a, picks).to_pylist() == pc.take(a, picks).to_pylist()
            assert am.cast(a, "float64").to_pylist() == pc.cast(a, pa.float64()).to_pylist()
        assert _kept(a)


def test_memory_shared_with_numpy_is_read_as_it_is_now():
    # pyarrow wraps a numpy array without copying; writing through numpy
    # changes what pyarrow reads, and what the kept import reads too.
    values = np.arange(10, dtype=np.int64)
    a = pa.array(values)
    assert am.sum(a) == 45
    values[0] = 100
    assert am.sum(a) == pc.sum(a).as_py() == 145


def test_explicit_device_and_mixed_operands():
    a = pa.array([1, 2, 3])
    assert am.add(a, a, device="cpu").to_pylist() == [2, 4, 6]
    b = am.array([10, 20, 30])
    assert am.add(b, a).to_pylist() == [11, 22, 33]
    assert am.add(a, b).to_pylist() == [11, 22, 33]
    assert am.greater(a, 1.5).to_pylist() == [False, True, True]
    assert am.add(a, np.array([1, 1, 1])).to_pylist() == [2, 3, 4]


def test_errors_are_the_same_through_the_cache():
    a = pa.array([1, 2, 3])
    am.sum(a)
    am.sum(a)
    assert _kept(a)
    with pytest.raises(am.ArrowMetalInvalid, match="different lengths"):
        am.add(a, pa.array([1, 2]))
    with pytest.raises(am.ArrowMetalTypeError):
        am.add(a, pa.array([True, False, True]))


def test_threads_share_the_cache():
    shared = pa.array(np.arange(5000, dtype=np.int64))
    errors = []

    def work(seed):
        try:
            for i in range(300):
                own = pa.array(np.full(100, seed + i, dtype=np.int64))
                assert am.sum(own) == 100 * (seed + i)
                assert am.sum(shared) == 12497500
                assert am.add(shared, shared).to_pylist()[4999] == 9998
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k * 1000,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    gc.collect()
    assert not any(e[0]() is None for e in PYARROW_IMPORTS.values())


def test_batches_take_pyarrow_inputs():
    a = pa.array(np.arange(100, dtype=np.int64))
    with am.batch():
        s = am.sum(a)
        t = am.sum(am.add(a, a))
    assert s.value == 4950 and t.value == 9900
