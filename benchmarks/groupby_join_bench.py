"""Throughput of hash group-by and hash joins (issue #12) against their peers,
side by side in one run: medians in milliseconds, and each peer's time over
ArrowMetal's (above 1: ArrowMetal is faster).

    python benchmarks/groupby_join_bench.py [--rows 1000000,10000000]
        [--keys 100,10000,1000000] [--device cpu|cuda] [--repeats 5]

Group-by: an int64 key column with `keys` distinct values (uniform) and a
float64 value column; "sum" and "mean" of the values per key. Join: an inner
join of `rows` left rows with rows / 10 right rows on an int64 key, every
right key distinct and every left key found; ArrowMetal's cost is the join
indices (am_join_indices through am.join) plus gathering both sides' columns.

On the CPU the peers are pyarrow's Acero (pa.Table.group_by / pa.Table.join),
polars and duckdb, when installed, each given the same Arrow table (duckdb
reads it in place). On a CUDA device ArrowMetal's table lives on the GPU,
against PyTorch formulations of the same work: group-by as torch.unique
(return_inverse) + scatter_add_ (sum) and a count (mean); join as a sort of
the right keys + searchsorted of the left keys. The peak device memory that
am.memory_info reports for ArrowMetal's call is beside its time. Nothing here
passes or fails.
"""

import argparse

import numpy as np
import pyarrow as pa
from breadth_bench import median_ms
from peers import optional

import arrowmetal as am

pl = optional("polars")
duckdb = optional("duckdb")
torch = optional("torch")


def groupby_table(rows, keys, seed=0):
    rng = np.random.default_rng(seed)
    return pa.table({"k": rng.integers(0, keys, rows), "v": rng.random(rows)})


def join_tables(rows, seed=0):
    rng = np.random.default_rng(seed)
    right_rows = max(1, rows // 10)
    right = pa.table({"k": rng.permutation(right_rows), "r": rng.random(right_rows)})
    left = pa.table({"k": rng.integers(0, right_rows, rows), "l": rng.random(rows)})
    return left, right


def cpu_groupby(table, agg):
    peers = {"pyarrow": lambda: table.group_by("k", use_threads=True).aggregate([("v", agg)])}
    if pl is not None:
        df = pl.from_arrow(table)
        fn = {"sum": pl.col("v").sum, "mean": pl.col("v").mean, "count": pl.col("v").count}[agg]()
        peers["polars"] = lambda: df.group_by("k").agg(fn)
    if duckdb is not None:
        con = duckdb.connect()
        con.register("t", table)
        peers["duckdb"] = lambda: con.sql(f"SELECT k, {agg}(v) FROM t GROUP BY k").to_arrow_table()
    return peers


def cpu_join(left, right):
    peers = {"pyarrow": lambda: left.join(right, "k", join_type="inner")}
    if pl is not None:
        lf, rf = pl.from_arrow(left), pl.from_arrow(right)
        peers["polars"] = lambda: lf.join(rf, on="k", how="inner")
    if duckdb is not None:
        con = duckdb.connect()
        con.register("l", left)
        con.register("r", right)
        peers["duckdb"] = lambda: con.sql(
            "SELECT l.k, l.l, r.r FROM l JOIN r ON l.k = r.k"
        ).to_arrow_table()
    return peers


def torch_groupby(table, agg):
    k = torch.from_numpy(table.column("k").to_numpy()).cuda()
    v = torch.from_numpy(table.column("v").to_numpy()).cuda()

    def run():
        uniq, inverse = torch.unique(k, return_inverse=True)
        sums = torch.zeros(len(uniq), dtype=v.dtype, device=v.device).scatter_add_(0, inverse, v)
        if agg == "mean":
            counts = torch.bincount(inverse, minlength=len(uniq))
            sums = sums / counts
        return uniq, sums

    return {"torch unique+scatter_add": run}


def torch_join(left, right):
    lk = torch.from_numpy(left.column("k").to_numpy()).cuda()
    rk = torch.from_numpy(right.column("k").to_numpy()).cuda()
    lv = torch.from_numpy(left.column("l").to_numpy()).cuda()
    rv = torch.from_numpy(right.column("r").to_numpy()).cuda()

    def run():
        sorted_keys, order = torch.sort(rk)
        at = torch.searchsorted(sorted_keys, lk).clamp_(max=len(rk) - 1)
        hit = sorted_keys[at] == lk
        rows = torch.nonzero(hit).squeeze(1)
        return lk[rows], lv[rows], rv[order[at[rows]]]

    return {"torch sort+searchsorted": run}


def measure(run, device, repeats):
    """(median ms, peak device bytes or None) of ArrowMetal's call."""
    run()  # compile the kernels first
    if device == "cpu":
        return median_ms(run, repeats), None
    am.reset_peak_memory(device)
    before = am.memory_info(device)["bytes_in_use"]
    ms = median_ms(run, repeats)
    return ms, am.memory_info(device)["peak_bytes"] - before


def on(table, device):
    """The table as ArrowMetal takes it on `device` (am.table when it exists)."""
    maker = getattr(am, "table", None)
    return maker(table, device=device) if maker and device != "cpu" else table


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", default="1000000,10000000")
    ap.add_argument("--keys", default="100,10000,1000000")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    cuda = args.device == "cuda"
    if cuda and not {n: ok for n, ok, _ in am.backends()}.get("cuda"):
        print("no CUDA device here: nothing to measure")
        return
    wanted = [("torch", torch)] if cuda else [("polars", pl), ("duckdb", duckdb)]
    missing = [n for n, m in wanted if m is None]
    if missing:
        print("not installed (skipped): " + ", ".join(missing))
    sync = torch.cuda.synchronize if cuda and torch is not None else None
    print("| rows | work | arrowmetal ms | peak MB | peer | peer ms | peer / arrowmetal |")
    print("| ---: | --- | ---: | ---: | --- | ---: | ---: |")

    def row(rows, work, ms, peak, peers):
        mb = f"{peak / 2**20:.0f}" if peak is not None else "-"
        for name, f in peers.items():
            peer_ms = median_ms(f, args.repeats, sync)
            print(f"| {rows:,} | {work} | {ms:.2f} | {mb} | {name} | {peer_ms:.2f} "
                  f"| {peer_ms / ms:.2f} |")  # fmt: skip

    gpu_peers = torch is not None and cuda
    for rows in (int(r) for r in args.rows.split(",")):
        for keys in (int(k) for k in args.keys.split(",")):
            table = groupby_table(rows, keys)
            mine = on(table, args.device)
            for agg in ("sum", "mean"):

                def run(t=mine, a=agg):
                    return am.group_by(t, "k").aggregate([("v", a)])

                ms, peak = measure(run, args.device, args.repeats)
                if cuda:
                    peers = torch_groupby(table, agg) if gpu_peers else {}
                else:
                    peers = cpu_groupby(table, agg)
                row(rows, f"group-by {agg}, {keys:,} keys", ms, peak, peers)
        left, right = join_tables(rows)
        ml, mr = on(left, args.device), on(right, args.device)
        join = lambda ml=ml, mr=mr: am.join(ml, mr, "k", join_type="inner")
        ms, peak = measure(join, args.device, args.repeats)
        if cuda:
            peers = torch_join(left, right) if gpu_peers else {}
        else:
            peers = cpu_join(left, right)
        row(rows, f"inner join x {max(1, rows // 10):,}", ms, peak, peers)


if __name__ == "__main__":
    main()
