"""Zero-copy exchange with CuPy through the CUDA Array Interface and the
Arrow C Device Data Interface. Runs only where the CUDA backend and CuPy
work (the H200 in benchmarks/device_run.sh); skips elsewhere with the reason."""

import pyarrow as pa
import pytest

import arrowmetal as am

cuda_reason = {name: reason for name, _, reason in am.backends()}["cuda"]
pytestmark = pytest.mark.skipif(
    not {name: ok for name, ok, _ in am.backends()}["cuda"],
    reason=f"no usable CUDA backend: {cuda_reason}",
)


@pytest.fixture(scope="module")
def cp():
    return pytest.importorskip("cupy")


def test_cupy_takes_a_device_array_without_a_copy(cp):
    a = am.array(pa.array(range(1000), type=pa.int64()), device="cuda")
    view = cp.asarray(a)
    assert view.data.ptr == a.__cuda_array_interface__["data"][0]
    assert int(view.sum()) == sum(range(1000))
    sliced = a[10:20]
    assert cp.asarray(sliced).tolist() == list(range(10, 20))


def test_a_cupy_array_is_imported_without_a_copy(cp):
    source = cp.arange(1000, dtype=cp.int32)
    imported = am.array(source)
    assert imported.backend == "cuda"
    assert am.sum(imported) == sum(range(1000))
    source[0] = 1_000_000  # the same memory: the change is visible
    cp.cuda.get_current_stream().synchronize()
    assert am.sum(imported) == sum(range(1000)) + 1_000_000
    assert am.greater(imported, 998).to_pyarrow().to_pylist()[-1] is True


def test_results_chain_on_the_device_and_come_back(cp):
    values = cp.arange(-500, 500, dtype=cp.float64)
    a = am.array(values)
    kept = am.filter(a, am.greater(a, 0.0))
    assert kept.backend == "cuda"
    assert am.sum(kept) == float(values[values > 0].sum())
    assert cp.asarray(kept * 2).tolist() == (values[values > 0] * 2).tolist()


def test_arrays_with_nulls_do_not_claim_the_interface():
    a = am.array(pa.array([1, None, 3]), device="cuda")
    assert not hasattr(a, "__cuda_array_interface__")
