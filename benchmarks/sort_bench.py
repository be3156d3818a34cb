"""Throughput of sort_indices (issue #12) against its peers, side by side in one
run: medians in milliseconds over one int64 or float64 column, and each peer's
time over ArrowMetal's (above 1: ArrowMetal is faster).

    python benchmarks/sort_bench.py [--rows 1000000,10000000] [--device cpu|cuda]
        [--types int64,float64] [--repeats 5]

On the CPU the peers are pyarrow.compute.sort_indices, numpy's stable argsort and,
when installed, polars (arg_sort) and duckdb (ORDER BY of the row numbers). On a
CUDA device ArrowMetal's column lives on the GPU and its indices stay there,
against torch.sort(stable=True) and cupy.argsort (when installed), with the peak
device memory that am.memory_info reports for ArrowMetal's sort beside its time.
Every peer sorts the same values ascending; nulls are not used (the peers do not
all place them). Nothing here passes or fails.
"""

import argparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms
from peers import optional

import arrowmetal as am

pl = optional("polars")
duckdb = optional("duckdb")
cp = optional("cupy")
torch = optional("torch")


def column(rows, type_name, seed=0):
    rng = np.random.default_rng(seed)
    if type_name == "int64":
        return rng.integers(-(2**62), 2**62, rows, dtype=np.int64)
    return rng.standard_normal(rows)


def cpu_rows(data, repeats):
    arr = pa.array(data)
    a = am.array(arr)
    peers = {
        "pyarrow": lambda: pc.sort_indices(arr),
        "numpy": lambda: np.argsort(data, kind="stable"),
    }
    if pl is not None:
        s = pl.Series(data)
        peers["polars"] = lambda: s.arg_sort()
    if duckdb is not None:
        con = duckdb.connect()
        con.register("t", pa.table({"x": arr}))
        peers["duckdb"] = lambda: con.sql(
            "SELECT row_number() OVER () - 1 AS i FROM t ORDER BY x"
        ).to_arrow_table()
    ms = median_ms(lambda: am.sort_indices(a), repeats)
    return ms, None, {p: median_ms(f, repeats) for p, f in peers.items()}


def cuda_rows(data, repeats):
    a = am.array(pa.array(data), device="cuda")
    peers, sync = {}, None
    if torch is not None and torch.cuda.is_available():
        t = torch.from_numpy(data).cuda()
        sync = torch.cuda.synchronize
        peers["torch.sort"] = lambda: torch.sort(t, stable=True)
    if cp is not None:
        c = cp.asarray(data)
        peers["cupy.argsort"] = lambda: cp.argsort(c)
        sync = sync or cp.cuda.runtime.deviceSynchronize
    am.sort_indices(a)  # compile the kernels first
    am.reset_peak_memory("cuda")
    before = am.memory_info("cuda")["bytes_in_use"]
    ms = median_ms(lambda: am.sort_indices(a), repeats)
    peak = am.memory_info("cuda")["peak_bytes"] - before
    return ms, peak, {p: median_ms(f, repeats, sync) for p, f in peers.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", default="1000000,10000000")
    ap.add_argument("--types", default="int64,float64")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    if args.device == "cuda" and not {n: ok for n, ok, _ in am.backends()}.get("cuda"):
        print("no CUDA device here: nothing to measure")
        return
    wanted = ("torch", torch), ("cupy", cp)
    if args.device == "cpu":
        wanted = ("polars", pl), ("duckdb", duckdb)
    missing = [n for n, m in wanted if m is None]
    if missing:
        print("not installed (skipped): " + ", ".join(missing))
    print("| rows | type | arrowmetal ms | peak MB | peer | peer ms | peer / arrowmetal |")
    print("| ---: | --- | ---: | ---: | --- | ---: | ---: |")
    for rows in (int(r) for r in args.rows.split(",")):
        for type_name in args.types.split(","):
            data = column(rows, type_name)
            measure = cuda_rows if args.device == "cuda" else cpu_rows
            ms, peak, peers = measure(data, args.repeats)
            mb = f"{peak / 2**20:.0f}" if peak is not None else "-"
            for name, peer_ms in peers.items():
                print(
                    f"| {rows:,} | {type_name} | {ms:.2f} | {mb} | {name} | {peer_ms:.2f} "
                    f"| {peer_ms / ms:.2f} |"
                )


if __name__ == "__main__":
    main()
