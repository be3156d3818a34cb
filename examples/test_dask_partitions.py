"""examples/dask_partitions.py: ArrowMetal over a Dask dataframe's partitions on
a LocalCluster of two worker processes, checked against pyarrow.compute."""

import contextlib
import os
import signal
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

pytest.importorskip("dask.dataframe", reason="dask[dataframe] is not installed")
pytest.importorskip("distributed", reason="dask.distributed is not installed")

import dask.dataframe as dd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dask_partitions as example

LIMIT_S = 60  # the whole cluster test, start to close


@contextlib.contextmanager
def deadline(seconds):
    """Fails the test (rather than hanging CI) once `seconds` have passed;
    the with-blocks inside still close the cluster as the error unwinds."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expired(signum, frame):
        raise TimeoutError(f"Dask example ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_partition_function_matches_pyarrow():
    table, pdf = example.make_frame(1_000, seed=3)
    for threshold in (-2_000_000, 0, 500_000, 2_000_000):
        got, pid = example.partition_filtered_sum(pdf, threshold)
        assert got == example.reference_sum(table, threshold)
        assert pid == os.getpid()
    empty, _ = example.partition_filtered_sum(pdf.iloc[:0], 0)
    assert empty is None and pc.sum(pa.array([], pa.int64())).as_py() is None


def test_frame_is_pyarrow_backed():
    _, pdf = example.make_frame(100)
    assert all(str(dtype) == "int64[pyarrow]" for dtype in pdf.dtypes)
    ddf = dd.from_pandas(pdf, npartitions=8)
    assert ddf.npartitions == 8
    assert all(str(dtype) == "int64[pyarrow]" for dtype in ddf.dtypes)


def test_graph_matches_pyarrow_in_process():
    """The same graph on Dask's synchronous scheduler, including the case where
    no row passes (None, as pyarrow's sum of nothing)."""
    table, pdf = example.make_frame(20_000, seed=1)
    ddf = dd.from_pandas(pdf, npartitions=8)
    for threshold in (0, 10**9):
        total, _ = example.filtered_sum(ddf, threshold).compute(scheduler="sync")
        assert total == example.reference_sum(table, threshold)


def test_local_cluster_two_workers_matches_pyarrow():
    table, pdf = example.make_frame(200_000, seed=7, null_fraction=0.05)
    assert table.column("x").null_count > 0 and table.column("y").null_count > 0
    threshold = 0
    pythonpath_before = os.environ.get("PYTHONPATH")
    with deadline(LIMIT_S):
        out = example.run_on_local_cluster(
            pdf, threshold, npartitions=8, n_workers=2, timeout=LIMIT_S - 10
        )
    expected = example.reference_sum(table, threshold)
    assert isinstance(out["total"], int) and out["total"] == expected
    assert out["n_workers"] == 2
    assert len(out["worker_pids"]) == 2 and os.getpid() not in out["worker_pids"]
    # every partition ran in one of the two worker processes, none in this one
    assert set(out["partition_pids"]) <= set(out["worker_pids"])
    assert len(out["worker_devices"]) == 2
    assert os.environ.get("PYTHONPATH") == pythonpath_before  # put back as it was
