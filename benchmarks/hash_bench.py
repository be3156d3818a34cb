"""Throughput of the hash-based functions (issue #11) against
their peers: medians in milliseconds over int64 columns of 1M and 50M rows
with 1,000 and 1M distinct values, and each peer's time over ArrowMetal's
(above 1: ArrowMetal is faster).

    python benchmarks/hash_bench.py [--rows 1000000,50000000]
        [--distinct 1000,1000000] [--device cpu|cuda] [--repeats 5]

On the CPU the peers are pyarrow.compute (unique, value_counts, is_in with a
value set of 1,000, dictionary_encode, count_distinct, mode) and, when installed,
polars and duckdb (unique, value_counts, count_distinct). On a CUDA device
ArrowMetal's arrays live on the GPU and are grouped there (gpu/ops_hash.c),
against torch.unique(return_counts=True) and cupy.unique (when installed),
and mode against torch.mode.
There value_counts has two rows: am.value_counts, which returns pyarrow's
host StructArray (so its time includes copying the values and counts home),
and "value_counts (C)", the C ABI's am_value_counts, whose two result arrays
stay on the device as torch's and cupy's do. Peers that are missing are
skipped with a note. Nothing here passes or fails.
"""

import argparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms
from peers import optional

import arrowmetal as am
from arrowmetal._capi import lib
from arrowmetal._hash import _call

pl = optional("polars")
duckdb = optional("duckdb")
cp = optional("cupy")
torch = optional("torch")


def column(rows, distinct, seed=0):
    rng = np.random.default_rng(seed)
    pool = rng.integers(-(2**62), 2**62, distinct, dtype=np.int64)
    return pool[rng.integers(0, distinct, rows)], pool[:1000]


def cpu_rows(data, value_set, repeats):
    """(function, arrowmetal ms, {peer: ms}) on the CPU."""
    arr = pa.array(data)
    vs = pa.array(value_set)
    a = am.array(arr)
    out = []
    peers = {
        "unique": {"pyarrow": lambda: pc.unique(arr)},
        "value_counts": {"pyarrow": lambda: pc.value_counts(arr)},
        "is_in": {"pyarrow": lambda: pc.is_in(arr, value_set=vs)},
        "dictionary_encode": {"pyarrow": lambda: pc.dictionary_encode(arr)},
        "count_distinct": {"pyarrow": lambda: pc.count_distinct(arr)},
        "mode": {"pyarrow": lambda: pc.mode(arr)},
    }
    if pl is not None:
        s = pl.Series(data)
        peers["unique"]["polars"] = lambda: s.unique(maintain_order=True)
        peers["value_counts"]["polars"] = lambda: s.value_counts()
        peers["count_distinct"]["polars"] = lambda: s.n_unique()
    if duckdb is not None:
        con = duckdb.connect()
        con.register("t", pa.table({"x": arr}))
        peers["unique"]["duckdb"] = lambda: con.sql("SELECT DISTINCT x FROM t").to_arrow_table()
        peers["value_counts"]["duckdb"] = lambda: con.sql(
            "SELECT x, count(*) FROM t GROUP BY x"
        ).to_arrow_table()
        peers["count_distinct"]["duckdb"] = lambda: con.sql(
            "SELECT count(DISTINCT x) FROM t"
        ).fetchall()
    mine = {
        "unique": lambda: am.unique(a),
        "value_counts": lambda: am.value_counts(a),
        "is_in": lambda: am.is_in(a, value_set=vs),
        "dictionary_encode": lambda: am.dictionary_encode(a),
        "count_distinct": lambda: am.count_distinct(a),
        "mode": lambda: am.mode(a),
    }
    for name, run in mine.items():
        ms = median_ms(run, repeats)
        out.append((name, ms, {p: median_ms(f, repeats) for p, f in peers[name].items()}))
    return out


def cuda_rows(data, value_set, repeats):
    a = am.array(pa.array(data), device="cuda")
    vs = pa.array(value_set)
    peers, mode_peers = {}, {}
    sync = None
    if torch is not None and torch.cuda.is_available():
        t = torch.from_numpy(data).cuda()
        sync = torch.cuda.synchronize
        peers["torch.unique"] = lambda: torch.unique(t, return_counts=True)
        mode_peers = {"torch.mode": lambda: torch.mode(t)}
    if cp is not None:
        c = cp.asarray(data)
        peers["cupy.unique"] = lambda: cp.unique(c, return_counts=True)
        sync = sync or cp.cuda.runtime.deviceSynchronize
    mine = {
        "unique": lambda: am.unique(a),
        "value_counts": lambda: am.value_counts(a),
        "value_counts (C)": lambda: _call(lib.am_value_counts, a, None, 2),
        "is_in": lambda: am.is_in(a, value_set=vs),
        "mode": lambda: am.mode(a),
    }
    out = []
    for name, run in mine.items():
        ms = median_ms(run, repeats)
        shown = peers if name.startswith("value_counts") else mode_peers if name == "mode" else {}
        out.append((name, ms, {p: median_ms(f, repeats, sync) for p, f in shown.items()}))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", default="1000000,50000000")
    ap.add_argument("--distinct", default="1000,1000000")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    if args.device == "cuda" and not {n: ok for n, ok, _ in am.backends()}.get("cuda"):
        print("no CUDA device here: nothing to measure")
        return
    missing = [n for n, m in (("polars", pl), ("duckdb", duckdb)) if m is None]
    if args.device == "cuda":
        missing = [n for n, m in (("torch", torch), ("cupy", cp)) if m is None]
    if missing:
        print("not installed (skipped): " + ", ".join(missing))
    print("| rows | distinct | function | arrowmetal ms | peer | peer ms | peer / arrowmetal |")
    print("| ---: | ---: | --- | ---: | --- | ---: | ---: |")
    for rows in (int(r) for r in args.rows.split(",")):
        for distinct in (int(d) for d in args.distinct.split(",")):
            data, value_set = column(rows, distinct)
            measure = cuda_rows if args.device == "cuda" else cpu_rows
            for name, ms, peers in measure(data, value_set, args.repeats):
                if not peers:
                    print(f"| {rows:,} | {distinct:,} | {name} | {ms:.2f} | - | - | - |")
                for peer, pms in peers.items():
                    print(
                        f"| {rows:,} | {distinct:,} | {name} | {ms:.2f} | {peer} | {pms:.2f} "
                        f"| {pms / ms:.2f} |"
                    )


if __name__ == "__main__":
    main()
