"""String keys on the CPU: sort_indices, group-by count and sum, and an inner join by
utf8 keys of 1,000 and 100,000 distinct values, against pyarrow (Acero for the
group-by and the join) and, when installed, polars and duckdb (groupby_join_bench's
peers), in the same run (medians of --repeats runs, milliseconds; each peer's time over ArrowMetal's: above
1 ArrowMetal is faster).

    PYTHONPATH=python .venv/bin/python benchmarks/string_keys_bench.py [--rows 1000000]

Keys: "key-" and a random number below `distinct` (5 to 10 bytes; shared prefixes), 5%
null; values float64. The join's right side holds each distinct key once. Not part of
CI: it prints a table."""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from breadth_bench import median_ms
from groupby_join_bench import cpu_groupby, cpu_join
from peers import optional

import arrowmetal as am

pl = optional("polars")
duckdb = optional("duckdb")


def keys(rows, distinct, seed):
    rng = np.random.default_rng(seed)
    words = np.array([f"key-{i}" for i in range(distinct)], dtype=object)
    return pa.array(words[rng.integers(0, distinct, rows)], pa.string(),
                    mask=rng.random(rows) < 0.05)  # fmt: skip


def works(rows, distinct):
    """[(work, arrowmetal call, {peer: call})] over one set of inputs."""
    table = pa.table({"k": keys(rows, distinct, 1),
                      "v": np.random.default_rng(2).random(rows)})  # fmt: skip
    left = table.rename_columns(["k", "l"])  # groupby_join_bench's join columns
    right = pa.table({"k": pa.array([f"key-{i}" for i in range(distinct)]),
                      "r": np.arange(distinct, dtype=np.float64)})  # fmt: skip
    peers = {"pyarrow": lambda: pc.sort_indices(table, [("k", "ascending")])}
    if pl is not None:
        df = pl.from_arrow(table)
        peers["polars"] = lambda: df["k"].arg_sort()
    out = [("sort_indices", lambda: am.sort_indices(table, [("k", "ascending")]), peers)]
    for agg in ("count", "sum"):
        out.append((f"group-by {agg}", lambda a=agg: am.group_by(table, "k").aggregate([("v", a)]),
                    cpu_groupby(table, agg)))  # fmt: skip
    out.append(("inner join", lambda: am.join(left, right, "k", join_type="inner"),
                cpu_join(left, right)))  # fmt: skip
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--distinct", type=int, nargs="+", default=[1_000, 100_000])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    missing = [name for name, m in (("polars", pl), ("duckdb", duckdb)) if m is None]
    if missing:
        print("not installed (skipped): " + ", ".join(missing))
    before = dict(am.fallbacks())
    print("| rows | distinct keys | work | arrowmetal ms | peer | peer ms | peer / arrowmetal |")
    print("| ---: | ---: | --- | ---: | --- | ---: | ---: |")
    with warnings.catch_warnings():
        warnings.simplefilter("error", am.ArrowMetalFallbackWarning)  # a fallback is no row
        for rows in args.rows:
            for distinct in args.distinct:
                for work, mine, peers in works(rows, distinct):
                    ms = median_ms(mine, args.repeats)
                    for name, fn in peers.items():
                        peer_ms = median_ms(fn, args.repeats)
                        print(f"| {rows:,} | {distinct:,} | {work} | {ms:.2f} | {name} | "
                              f"{peer_ms:.2f} | {peer_ms / ms:.2f} |")  # fmt: skip
    assert am.fallbacks() == before, "a call ran in pyarrow"


if __name__ == "__main__":
    main()
