"""Throughput of the numeric-breadth functions (issue #11) against their
peers, measured side by side in one run: rows x functions, medians in
milliseconds, and each peer's time over ArrowMetal's (above 1: ArrowMetal is
faster).

    python benchmarks/breadth_bench.py [--rows 1000000,50000000] [--device cpu|cuda]

On the CPU the peers are pyarrow.compute and numpy; on a CUDA device, CuPy
and PyTorch (when installed), plus the device-to-device copy of the same
bytes, the bandwidth an element-wise kernel cannot beat ("floor %" is the
time of a copy moving the bytes the function reads and writes, over the
function's time). Columns that cannot run here are left out
with a note. Nothing here passes or fails.
"""

import argparse
import statistics
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from peers import optional

import arrowmetal as am

cp = optional("cupy")
torch = optional("torch")


def median_ms(function, repeats, sync=None):
    function()
    if sync:
        sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        if sync:
            sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


# name -> (arrowmetal, pyarrow, numpy-like(xp, x, y)); x float64 in (0.5, 2),
# y float64 in (-2, 2), i and j int64 in [0, 1000) (two arrays: the same one
# twice would be read once, through the cache), s int64 in [0, 8), flags bool.
FUNCTIONS = {
    "sqrt": (lambda d: am.sqrt(d["x"]), lambda d: pc.sqrt(d["x"]), lambda xp, d: xp.sqrt(d["x"])),
    "exp": (lambda d: am.exp(d["y"]), lambda d: pc.exp(d["y"]), lambda xp, d: xp.exp(d["y"])),
    "ln": (lambda d: am.ln(d["x"]), lambda d: pc.ln(d["x"]), lambda xp, d: xp.log(d["x"])),
    "sin": (lambda d: am.sin(d["y"]), lambda d: pc.sin(d["y"]), lambda xp, d: xp.sin(d["y"])),
    "floor": (
        lambda d: am.floor(d["y"]),
        lambda d: pc.floor(d["y"]),
        lambda xp, d: xp.floor(d["y"]),
    ),
    "power": (
        lambda d: am.power(d["x"], d["y"]),
        lambda d: pc.power(d["x"], d["y"]),
        lambda xp, d: getattr(xp, "power", getattr(xp, "pow", None))(d["x"], d["y"]),
    ),
    "add_checked": (
        lambda d: am.add_checked(d["i"], d["j"]),
        lambda d: pc.add_checked(d["i"], d["j"]),
        lambda xp, d: d["i"] + d["j"],
    ),
    "shift_left": (
        lambda d: am.shift_left(d["i"], d["s"]),
        lambda d: pc.shift_left(d["i"], d["s"]),
        lambda xp, d: d["i"] << d["s"],
    ),
    "and_kleene": (
        lambda d: am.and_kleene(d["f"], d["g"]),
        lambda d: pc.and_kleene(d["f"], d["g"]),
        lambda xp, d: d["f"] & d["g"],
    ),
    "multiply_scalar": (
        lambda d: am.multiply(d["i"], 3),
        lambda d: pc.multiply(d["i"], 3),
        lambda xp, d: d["i"] * 3,
    ),
    "add": (
        lambda d: am.add(d["i"], d["j"]),
        lambda d: pc.add(d["i"], d["j"]),
        lambda xp, d: d["i"] + d["j"],
    ),
    "variance": (
        lambda d: am.variance(d["y"]),
        lambda d: pc.variance(d["y"]),
        lambda xp, d: d["y"].var(),
    ),
}


# The 8-byte arrays each element-wise function reads and writes a slot; the
# floor is that many bytes at the device-to-device copy's bandwidth.
ARRAYS_MOVED = {
    "sqrt": 2,
    "exp": 2,
    "ln": 2,
    "sin": 2,
    "floor": 2,
    "power": 3,
    "add_checked": 3,
    "shift_left": 3,
    "multiply_scalar": 2,
    "add": 3,
}


def inputs(n):
    rng = np.random.default_rng(7)
    return {
        "x": rng.uniform(0.5, 2.0, n),
        "y": rng.uniform(-2.0, 2.0, n),
        "i": rng.integers(0, 1000, n, dtype=np.int64),
        "j": rng.integers(0, 1000, n, dtype=np.int64),
        "s": rng.integers(0, 8, n, dtype=np.int64),
        "f": rng.integers(0, 2, n).astype(bool),
        "g": rng.integers(0, 2, n).astype(bool),
    }


def table(rows, columns):
    widths = [max(len(str(r[i])) for r in rows + [columns]) for i in range(len(columns))]

    def line(r):
        return "| " + " | ".join(str(v).rjust(w) for v, w in zip(r, widths)) + " |"

    print(line(columns))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))


def run_cpu(sizes, repeats):
    rows = []
    for n in sizes:
        host = inputs(n)
        arrow = {k: pa.array(v) for k, v in host.items()}
        mine = {k: am.array(v) for k, v in arrow.items()}
        for name, (ours, theirs, numpy_like) in FUNCTIONS.items():
            t_am = median_ms(lambda f=ours, d=mine: f(d), repeats)
            t_pa = median_ms(lambda f=theirs, d=arrow: f(d), repeats)
            t_np = median_ms(lambda f=numpy_like, d=host: f(np, d), repeats)
            rows.append(
                [
                    f"{n:,}",
                    name,
                    f"{t_am:.3f}",
                    f"{t_pa:.3f}",
                    f"{t_np:.3f}",
                    f"{t_pa / t_am:.2f}",
                    f"{t_np / t_am:.2f}",
                ]
            )
    print(f"CPU backend ({am.backend()}), {repeats} runs each, medians in ms\n")
    table(rows, ["rows", "function", "arrowmetal", "pyarrow", "numpy", "pa/am", "np/am"])


def run_cuda(sizes, repeats):
    cuda = am._devices.device_ptr("cuda")

    def sync():
        am.lib.am_device_sync(cuda)

    peers = []
    if cp is not None:
        peers.append(("cupy", cp, cp.cuda.runtime.deviceSynchronize))
    else:
        print("(no CuPy here: its column is left out)")
    if torch is not None and torch.cuda.is_available():
        peers.append(("torch", torch, torch.cuda.synchronize))
    else:
        print("(no PyTorch with CUDA here: its column is left out)")
    rows = []
    for n in sizes:
        host = inputs(n)
        mine = {k: am.array(pa.array(v)).to_device("cuda") for k, v in host.items()}
        on = {}
        for label, xp, _ in peers:
            if label == "cupy":
                on[label] = {k: cp.asarray(v) for k, v in host.items()}
            else:
                on[label] = {k: torch.from_numpy(v).cuda() for k, v in host.items()}
        for name, (ours, _, numpy_like) in FUNCTIONS.items():
            t_am = median_ms(lambda f=ours, d=mine: f(d), repeats, sync)
            row = [f"{n:,}", name, f"{t_am:.3f}"]
            for label, xp, peer_sync in peers:
                d = on[label]
                try:
                    t = median_ms(lambda f=numpy_like, m=xp, v=d: f(m, v), repeats, peer_sync)
                    row += [f"{t:.3f}", f"{t / t_am:.2f}"]
                except Exception as e:  # noqa: BLE001 - a peer lacking the function
                    row += [type(e).__name__, "-"]
            # The floor: the bytes the function moves at the copy's bandwidth
            # (a copy reads and writes one 8-byte array: 2 arrays moved).
            if cp is not None and name in ARRAYS_MOVED:
                src = on["cupy"]["y"]
                dst = cp.empty_like(src)
                t_copy = median_ms(
                    lambda a=dst, b=src: a.__setitem__(slice(None), b),
                    repeats,
                    cp.cuda.runtime.deviceSynchronize,
                )
                t_floor = t_copy * ARRAYS_MOVED[name] / 2
                row.append(f"{100 * t_floor / t_am:.0f}%")
            elif cp is not None:
                row.append("-")
            rows.append(row)
    cols = ["rows", "function", "arrowmetal"]
    for label, _, _ in peers:
        cols += [label, f"{label}/am"]
    if cp is not None:
        cols.append("floor %")
    print(f"CUDA (cuda:0), {repeats} runs each, medians in ms\n")
    table(rows, cols)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", default="1000000,50000000")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--functions", default=",".join(FUNCTIONS), help="comma-separated subset")
    args = ap.parse_args()
    sizes = [int(s) for s in args.rows.split(",")]
    chosen = args.functions.split(",")
    unknown = [f for f in chosen if f not in FUNCTIONS]
    if unknown:
        ap.error(f"unknown functions {unknown}; known: {', '.join(FUNCTIONS)}")
    for name in list(FUNCTIONS):
        if name not in chosen:
            del FUNCTIONS[name]
    if args.device == "cpu":
        am.set_device("cpu")
        run_cpu(sizes, args.repeats)
    else:
        run_cuda(sizes, args.repeats)


if __name__ == "__main__":
    main()
