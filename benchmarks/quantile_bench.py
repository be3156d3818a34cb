"""quantile / tdigest / approximate_median: ArrowMetal against pyarrow.compute
and numpy on the CPU (1M and 50M float64 and int64 values), and against
torch.quantile / torch.kthvalue and CuPy on CUDA when they are installed
(skipped cleanly without). Medians of a few runs, in milliseconds.

    PYTHONPATH=python .venv/bin/python benchmarks/quantile_bench.py [--sizes 1000000,50000000]

On CUDA, quantile runs the GPU's radix select; tdigest sorts each buffer on the
GPU and merges on the host (gpu/ops_quantile.c), beside the same digest of a
host copy on the CPU and pyarrow's (there is no GPU t-digest among the peers).
"""

import argparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms

import arrowmetal as am

Q = [0.01, 0.5, 0.99]


def row(label, ms):
    print(f"  {label:<40} {ms:10.2f} ms")


def cpu(n, dtype):
    rng = np.random.default_rng(0)
    x = rng.normal(size=n) if dtype == "float64" else rng.integers(-(10**9), 10**9, n)
    a = pa.array(x)
    m = am.array(a)
    print(f"CPU, {n:,} {dtype}")
    reps = 3 if n > 10**7 else 7
    row("am.quantile", median_ms(lambda: am.quantile(m, q=Q), reps))
    row("pc.quantile", median_ms(lambda: pc.quantile(a, q=Q), reps))
    row("np.quantile", median_ms(lambda: np.quantile(x, Q), reps))
    row("am.tdigest", median_ms(lambda: am.tdigest(m, q=Q), reps))
    row("pc.tdigest", median_ms(lambda: pc.tdigest(a, q=Q), reps))
    row("am.approximate_median", median_ms(lambda: am.approximate_median(m), reps))
    row("pc.approximate_median", median_ms(lambda: pc.approximate_median(a), reps))


def cuda(n):
    print(f"CUDA, {n:,} float64")
    x = np.random.default_rng(0).normal(size=n)
    if {b: ok for b, ok, _ in am.backends()}.get("cuda"):
        g = am.array(pa.array(x), device="cuda")
        row("am.quantile (cuda array)", median_ms(lambda: am.quantile(g, q=Q), 5))
        row("am.tdigest (cuda array)", median_ms(lambda: am.tdigest(g, q=Q), 3))
        h = am.array(pa.array(x))
        row("am.tdigest (host copy, CPU)", median_ms(lambda: am.tdigest(h, q=Q), 3))
        ax = pa.array(x)
        row("pc.tdigest", median_ms(lambda: pc.tdigest(ax, q=Q), 3))
    else:
        print("  arrowmetal: no CUDA device, skipped")
    try:
        import torch

        if torch.cuda.is_available():
            t = torch.from_numpy(x).cuda()
            qt = torch.tensor(Q, dtype=torch.float64, device="cuda")

            def tq():
                torch.quantile(t, qt)
                torch.cuda.synchronize()

            def tk():
                torch.kthvalue(t, n // 2 + 1)
                torch.cuda.synchronize()

            if n <= 16_000_000:  # torch.quantile refuses larger inputs
                row("torch.quantile", median_ms(tq, 5))
            row("torch.kthvalue (median)", median_ms(tk, 5))
        else:
            print("  torch: no CUDA, skipped")
    except ImportError:
        print("  torch: not installed, skipped")
    try:
        import cupy as cp

        c = cp.asarray(x)

        def cq():
            cp.quantile(c, cp.asarray(Q))
            cp.cuda.Device().synchronize()

        row("cupy.quantile", median_ms(cq, 5))
    except ImportError:
        print("  cupy: not installed, skipped")
    except Exception as exc:  # noqa: BLE001 - no usable device
        print(f"  cupy: {exc}, skipped")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1000000,50000000")
    args = ap.parse_args()
    for n in (int(s) for s in args.sizes.split(",")):
        for dtype in ("float64", "int64"):
            cpu(n, dtype)
        cuda(n)


if __name__ == "__main__":
    main()
