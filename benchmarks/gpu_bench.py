"""Per-op latency table for the GPU backend, in the shape of the seed's
section 6: rows x ops, with the CPU backend, pyarrow.compute and CuPy
measured in the same run, and CPU time per op (getrusage) beside wall time.

    python benchmarks/gpu_bench.py [--rows 1000,10000,...] [--repeats N]

Columns that cannot run here (no GPU, no CuPy) are left out with a note.
Medians in microseconds; nothing here passes or fails.
"""

import argparse
import resource
import statistics
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from peers import optional

import arrowmetal as am

cp = optional("cupy")


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(function, repeats):
    for _ in range(min(20, repeats)):
        function()
    times = []
    cpu_start = cpu_seconds()
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    cpu = (cpu_seconds() - cpu_start) / repeats
    return statistics.median(times) * 1e6, cpu * 1e6


def arrowmetal_ops(a, b, mask, threshold):
    def ten():
        for _ in range(5):
            am.sum(a)
            am.greater(a, threshold)

    def ten_batched():
        with am.batch():
            for _ in range(5):
                am.sum(a)
                am.greater(a, threshold)

    return {
        "sum": lambda: am.sum(a),
        "compare": lambda: am.greater(a, threshold),
        "filter": lambda: len(am.filter(a, mask)),
        "multiply": lambda: am.multiply(a, 3),
        "add (array)": lambda: am.add(a, b),
        "10 ops unbatched": ten,
        "10 ops batched": ten_batched,
    }


def pyarrow_ops(a, b, mask, threshold):
    def ten():
        for _ in range(5):
            pc.sum(a)
            pc.greater(a, threshold)

    return {
        "sum": lambda: pc.sum(a).as_py(),
        "compare": lambda: pc.greater(a, threshold),
        "filter": lambda: pc.filter(a, mask),
        "multiply": lambda: pc.multiply(a, 3),
        "add (array)": lambda: pc.add(a, b),
        "10 ops unbatched": ten,
        "10 ops batched": ten,
    }


def cupy_ops(a, b, mask, threshold):
    sync = cp.cuda.get_current_stream().synchronize

    def synced(function):
        def run():
            function()
            sync()

        return run

    def ten():
        for _ in range(5):
            int(a.sum())
            _ = a > threshold
            sync()

    def ten_batched():
        sums = [a.sum() for _ in range(5)]
        [(a > threshold) for _ in range(5)]
        sync()
        return [int(s) for s in sums]

    return {
        "sum": lambda: int(a.sum()),
        "compare": synced(lambda: a > threshold),
        "filter": synced(lambda: a[mask]),
        "multiply": synced(lambda: a * 3),
        "add (array)": synced(lambda: a + b),
        "10 ops unbatched": ten,
        "10 ops batched": ten_batched,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="1000,10000,100000,1000000,50000000")
    parser.add_argument("--repeats", type=int, default=0, help="0: by size")
    args = parser.parse_args()
    names = {name: available for name, available, _ in am.backends()}
    columns = ["cpu"] + (["cuda"] if names.get("cuda") else [])
    if not names.get("cuda"):
        print("note: no CUDA backend here:", {n: r for n, _, r in am.backends()}["cuda"])
    if cp is None:
        print("note: CuPy is not installed: its column is left out")
    header = f"{'rows':>11} {'op':<18}"
    for column in columns + ["pyarrow"] + (["cupy"] if cp is not None else []):
        header += f"{column + ' us':>13}{'cpu us':>9}"
    print(header)
    rng = np.random.default_rng(1)
    for rows in [int(r) for r in args.rows.split(",")]:
        values = rng.integers(-1000, 1000, rows)
        other = rng.integers(-1000, 1000, rows)
        threshold = 0
        data, data2 = pa.array(values), pa.array(other)
        mask_pa = pc.greater(data, threshold)
        repeats = args.repeats or (2000 if rows <= 100_000 else 200 if rows <= 1_000_000 else 20)
        suites = {}
        for column in columns:
            a = am.array(data, device=column)
            b = am.array(data2, device=column)
            mask = am.array(mask_pa, device=column)
            suites[column] = arrowmetal_ops(a, b, mask, threshold)
        suites["pyarrow"] = pyarrow_ops(data, data2, mask_pa, threshold)
        if cp is not None:
            da, db = cp.asarray(values), cp.asarray(other)
            suites["cupy"] = cupy_ops(da, db, da > threshold, threshold)
        for op in suites["pyarrow"]:
            line = f"{rows:>11,} {op:<18}"
            for column, ops in suites.items():
                wall, cpu = measure(ops[op], repeats)
                line += f"{wall:>13.1f}{cpu:>9.1f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
