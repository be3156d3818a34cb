"""Sorting, selection and ranking on the CPU beside pyarrow.compute in one
run: medians in milliseconds and pyarrow's time over ArrowMetal's (above 1:
ArrowMetal is faster). Integer keys of small ranges (where a counting sort
pays), full-range integers and floats; array_sort_indices, select_k_unstable
(k = 10), rank and partition_nth_indices (pivot at the middle). Nothing here
passes or fails.

    python benchmarks/ranking_bench.py [--rows 1000000] [--repeats 7]
"""

import argparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms, table

import arrowmetal as am


def keys(n):
    rng = np.random.default_rng(3)
    nulls = rng.random(n) < 0.05
    return {
        "int8 full": pa.array(rng.integers(-128, 128, n).astype(np.int8)),
        "int32 0..99": pa.array(rng.integers(0, 100, n).astype(np.int32)),
        "int32 0..99 nulls": pa.array(rng.integers(0, 100, n).astype(np.int32), mask=nulls),
        "int64 0..9999": pa.array(rng.integers(0, 10000, n)),
        "uint16 full": pa.array(rng.integers(0, 65536, n).astype(np.uint16)),
        "int64 full": pa.array(rng.integers(-(2**62), 2**62, n)),
        "float64": pa.array(rng.normal(0, 1, n)),
    }


def functions(n, a, h):
    """(name, ArrowMetal call, pyarrow call) over the key `a` (`h` on the library)."""
    return [
        ("array_sort_indices", lambda: am.array_sort_indices(h),
         lambda: pc.array_sort_indices(a)),
        ("select_k_unstable k=10", lambda: am.select_k_unstable(h, 10, [("x", "descending")]),
         lambda: pc.select_k_unstable(a, 10, [("x", "descending")])),
        ("rank", lambda: am.rank(h), lambda: pc.rank(a)),
        ("partition_nth_indices", lambda: am.partition_nth_indices(h, n // 2),
         lambda: pc.partition_nth_indices(a, n // 2)),
    ]  # fmt: skip


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="1000000")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    rows = []
    for n in (int(x) for x in args.rows.split(",")):
        for name, a in keys(n).items():
            h = am.array(a)
            calls = functions(n, a, h)
            for fn, mine, theirs in calls:
                t_am = median_ms(mine, args.repeats)
                t_pa = median_ms(theirs, args.repeats)
                rows.append((n, name, fn, f"{t_am:.2f}", f"{t_pa:.2f}", f"{t_pa / t_am:.2f}"))
    table(rows, ("rows", "key", "function", "arrowmetal ms", "pyarrow ms", "pyarrow / am"))


if __name__ == "__main__":
    main()
