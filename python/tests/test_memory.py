"""am.memory_info and am.reset_peak_memory (issue #15, "Memory")."""

import gc

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
