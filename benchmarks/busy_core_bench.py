"""CPU kernels on the worker pool while another process keeps a core busy: each
function at 1M rows with the machine as it is, then with a child process
spinning on the CPU (as a user's other work would), medians in milliseconds
beside pyarrow.compute in the same run. A fork-join that waits for a worker
the busy core keeps off the CPU shows here as the "busy" column far above
the "as is" one. Nothing here passes or fails.

    python benchmarks/busy_core_bench.py [--rows 1000000] [--repeats 31]
"""

import argparse
import multiprocessing as mp

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms, table

import arrowmetal as am


def spin():
    while True:
        pass


def inputs(n):
    rng = np.random.default_rng(3)
    f = pa.array(rng.integers(0, 2, n).astype(bool))
    g = pa.array(rng.integers(0, 2, n).astype(bool))
    x = pa.array(rng.uniform(-2, 2, n))
    i = pa.array(rng.integers(0, 1000, n))
    return {
        "xor": (f, g),
        "and_not": (f, g),
        "invert": (f,),
        "floor": (x,),
        "add": (i, i),
        "multiply": (x, x),
        "sum": (i,),
    }


def times(calls, repeats):
    out = {}
    for name, args in calls.items():
        mine = [am.array(a) for a in args]
        ours, theirs = getattr(am, name), getattr(pc, name)
        t_am = median_ms(lambda f=ours, a=mine: f(*a), repeats)
        t_pa = median_ms(lambda f=theirs, a=args: f(*a), repeats)
        out[name] = (t_am, t_pa)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=31)
    args = ap.parse_args()
    am.set_device("cpu")
    calls = inputs(args.rows)
    quiet = times(calls, args.repeats)
    hog = mp.Process(target=spin, daemon=True)
    hog.start()
    try:
        busy = times(calls, args.repeats)
    finally:
        hog.terminate()
    rows = [[f"{args.rows:,}", k, f"{quiet[k][0]:.3f}", f"{busy[k][0]:.3f}", f"{quiet[k][1]:.3f}",
             f"{busy[k][1]:.3f}", f"{busy[k][1] / busy[k][0]:.2f}"] for k in calls]  # fmt: skip
    print(f"CPU backend, {mp.cpu_count()} cores, {args.repeats} runs each, medians in ms")
    table(rows, ["rows", "function", "am as is", "am busy", "pa as is", "pa busy", "pa/am busy"])


if __name__ == "__main__":
    main()
