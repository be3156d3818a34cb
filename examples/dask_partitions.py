"""ArrowMetal over the partitions of a Dask dataframe.

When the data outgrows one machine, Dask splits it into partitions and runs
a function on each one in a worker process. Here that function is ArrowMetal:
each partition's pyarrow-backed columns go through am.greater / am.filter /
am.sum (sum of `x` where `y` > threshold), and the per-partition partials are
added up by one more Dask task.

Run with `python examples/dask_partitions.py [rows]` (needs `dask[dataframe]`
and `distributed`). It starts a `dask.distributed.LocalCluster` of two worker
processes on this machine (loopback only, no dashboard), prints the result and
pyarrow.compute's on the same data, and closes the cluster. The workers'
device is the default one: ARROWMETAL_BACKEND (`cpu`, `cuda`) picks another,
or pass `device=` to `filtered_sum`.

The frame is built in this process and shipped to the workers inside the
graph (Dask warns about graphs over 10 MiB: about 600,000 rows here). Real
data is read on the workers instead, e.g. `dd.read_parquet(...)`, whose
partitions are pyarrow-backed too; `filtered_sum` takes either.
"""

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

import arrowmetal as am

try:
    import dask
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster
except ImportError:  # the test skips on this; main() says what to install
    dask = None


def partition_filtered_sum(partition, threshold, device=None):
    """Sum of `x` where `y` > threshold over one pandas partition, by ArrowMetal.

    Returns (partial, pid): the partial is an int, or None when no row counts
    (pyarrow's sum of nothing); the pid says which process ran it."""
    x = pa.array(partition["x"])  # ArrowDtype column: zero-copy to pyarrow
    y = pa.array(partition["y"])
    kept = am.filter(x, am.greater(y, threshold, device=device), device=device)
    return am.sum(kept, device=device).as_py(), os.getpid()


def add_partials(partials):
    """The reduction: adds the partials that are not None (None when all are)."""
    values = [value for value, _ in partials if value is not None]
    return (sum(values) if values else None), sorted({pid for _, pid in partials})


def filtered_sum(ddf, threshold, device=None):
    """A delayed (total, pids of the processes that ran the partitions) for a
    Dask dataframe with columns `x` and `y`: one task per partition, one to add."""
    parts = ddf[["x", "y"]].to_delayed()
    partials = [
        dask.delayed(partition_filtered_sum)(part, threshold, device=device) for part in parts
    ]
    return dask.delayed(add_partials)(partials)


def make_frame(rows, seed=0, null_fraction=0.05):
    """A pyarrow Table of int64 `x` and `y` with some nulls, and the same data as a
    pandas frame of pyarrow-backed columns (dtype int64[pyarrow])."""
    rng = np.random.default_rng(seed)
    columns = {}
    for name in ("x", "y"):
        values = rng.integers(-1_000_000, 1_000_000, size=rows, dtype=np.int64)
        nulls = rng.random(rows) < null_fraction
        columns[name] = pa.array(values, mask=nulls)
    table = pa.table(columns)
    return table, table.to_pandas(types_mapper=pd.ArrowDtype)


def reference_sum(table, threshold):
    """pyarrow.compute's answer on the same data."""
    x, y = table.column("x"), table.column("y")
    return pc.sum(pc.filter(x, pc.greater(y, threshold))).as_py()


def worker_pythonpath():
    """PYTHONPATH for worker processes: the directory arrowmetal was imported
    from and this example's own, ahead of what is set already. A path put on
    sys.path by the parent (pytest's `pythonpath`) does not reach a spawned
    worker; the environment does."""
    paths = [str(Path(am.__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]
    old = os.environ.get("PYTHONPATH")
    if old:
        paths.append(old)
    return os.pathsep.join(paths)


def run_on_local_cluster(pdf, threshold, npartitions=8, n_workers=2, device=None, timeout=45):
    """Runs filtered_sum over `pdf` in `npartitions` partitions on a LocalCluster
    of `n_workers` processes and returns a dict: total, n_workers (as the
    scheduler saw them), worker_pids, partition_pids (the processes that ran
    the partitions) and worker_devices (am.default_device() on each worker).
    Every wait is bounded by `timeout` seconds; the cluster is always closed."""
    ddf = dd.from_pandas(pdf, npartitions=npartitions)
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = worker_pythonpath()  # spawned workers inherit it
    try:
        with (
            LocalCluster(
                n_workers=n_workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                host="127.0.0.1",
                timeout=timeout,
            ) as cluster,
            Client(cluster, timeout=timeout) as client,
        ):
            client.wait_for_workers(n_workers, timeout=timeout)
            n_seen = len(client.scheduler_info()["workers"])
            worker_pids = client.run(os.getpid)
            devices = client.run(lambda: __import__("arrowmetal").default_device())
            future = client.compute(filtered_sum(ddf, threshold, device=device))
            total, partition_pids = future.result(timeout=timeout)
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    return {
        "total": total,
        "n_workers": n_seen,
        "worker_pids": sorted(worker_pids.values()),
        "partition_pids": partition_pids,
        "worker_devices": sorted(devices.values()),
    }


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if dask is None:
        print("needs dask: pip install 'dask[dataframe]' distributed", file=sys.stderr)
        return 1
    rows = int(argv[0]) if argv else 500_000
    threshold = 0
    table, pdf = make_frame(rows)
    out = run_on_local_cluster(pdf, threshold)
    expected = reference_sum(table, threshold)
    print(f"rows: {rows:,} in 8 partitions, {out['n_workers']} worker processes")
    print(f"worker devices: {', '.join(out['worker_devices'])}")
    print(f"sum(x where y > {threshold}), ArrowMetal on Dask: {out['total']}")
    print(f"sum(x where y > {threshold}), pyarrow.compute:    {expected}")
    print("match" if out["total"] == expected else "MISMATCH")
    return 0 if out["total"] == expected else 1


if __name__ == "__main__":
    sys.exit(main())
