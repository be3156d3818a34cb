"""The CPU backend's transcendental functions with the vector math layer
(libarrowmetal/cpu/vector_math.c) and without it (ARROWMETAL_VECTOR_MATH=0),
side by side with pyarrow.compute: rows x function x type, medians in
milliseconds, and pyarrow's time over ArrowMetal's (above 1: ArrowMetal is
faster).

    python benchmarks/vector_math_bench.py [--rows 1000000,50000000] [--rounds 3]

The switch is read once per process, so each round runs one child process
per mode, alternating which goes first; every child times ArrowMetal and
pyarrow interleaved, call by call. A row's numbers are medians over the
rounds of each child's medians (pyarrow's over both modes' children).
Nothing here passes or fails.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

# name -> (arguments): u in (-1, 1), p in (0.5, 2).
FUNCTIONS = {
    "sin": ("u",),
    "cos": ("u",),
    "tan": ("u",),
    "asin": ("u",),
    "acos": ("u",),
    "atan": ("u",),
    "exp": ("u",),
    "ln": ("p",),
    "log10": ("p",),
    "log2": ("p",),
    "log1p": ("u",),
    "power": ("p", "u"),
    "atan2": ("u", "p"),
}


def ms(function, args):
    start = time.perf_counter()
    function(*args)
    return (time.perf_counter() - start) * 1e3


def child(rows, repeats, functions):
    import pyarrow as pa
    import pyarrow.compute as pc

    import arrowmetal as am

    am.set_device("cpu")
    rng = np.random.default_rng(7)
    host = {"u": rng.uniform(-1.0, 1.0, rows), "p": rng.uniform(0.5, 2.0, rows)}
    results = {}
    for dtype in ("float64", "float32"):
        arrow = {k: pa.array(v.astype(dtype)) for k, v in host.items()}
        mine = {k: am.array(v) for k, v in arrow.items()}
        for name in functions:
            ours, theirs = getattr(am, name), getattr(pc, name)
            a_am = [mine[a] for a in FUNCTIONS[name]]
            a_pa = [arrow[a] for a in FUNCTIONS[name]]
            ours(*a_am), theirs(*a_pa)  # warm: pages, the pool, the layer's load
            t_am, t_pa = [], []
            for _ in range(repeats):  # interleaved, call by call
                t_am.append(ms(ours, a_am))
                t_pa.append(ms(theirs, a_pa))
            results[f"{name}/{dtype}"] = [statistics.median(t_am), statistics.median(t_pa)]
        del arrow, mine
    print(json.dumps(results))


def run_child(rows, repeats, functions, vector):
    env = {**os.environ, "ARROWMETAL_VECTOR_MATH": "1" if vector else "0"}
    command = [sys.executable, __file__, "--child", "--rows", str(rows)]
    command += ["--repeats", str(repeats), "--functions", ",".join(functions)]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", default="1000000,50000000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--functions", default=",".join(FUNCTIONS))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    functions = args.functions.split(",")
    unknown = [f for f in functions if f not in FUNCTIONS]
    if unknown:
        ap.error(f"unknown functions {unknown}; known: {', '.join(FUNCTIONS)}")
    if args.child:
        child(int(args.rows), args.repeats, functions)
        return
    print(f"rounds {args.rounds}, {args.repeats} interleaved calls per child, medians in ms\n")
    print("| rows | function | type | vector | scalar (=0) | pyarrow | pa/vector | pa/scalar |")
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    for rows in (int(r) for r in args.rows.split(",")):
        vec, sca, pa_times = {}, {}, {}
        for r in range(args.rounds):
            for vector in (True, False) if r % 2 == 0 else (False, True):
                got = run_child(rows, args.repeats, functions, vector)
                for key, (t_am, t_pa) in got.items():
                    (vec if vector else sca).setdefault(key, []).append(t_am)
                    pa_times.setdefault(key, []).append(t_pa)
        for key in vec:
            name, dtype = key.split("/")
            v, s, p = (statistics.median(d[key]) for d in (vec, sca, pa_times))
            print(
                f"| {rows:,} | {name} | {dtype} | {v:.2f} | {s:.2f} | {p:.2f} "
                f"| {p / v:.2f} | {p / s:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
