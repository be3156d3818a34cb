"""Throughput of the cumulative functions against their
peers, side by side in one run: rows x functions x types, medians in
milliseconds, and each peer's time over ArrowMetal's (above 1: ArrowMetal is
faster).

    python benchmarks/cumulative_bench.py [--rows 1000000,50000000] [--device cpu|cuda]

On the CPU the peers are pyarrow.compute and numpy (cumsum / cumprod /
minimum.accumulate / maximum.accumulate; the mean as cumsum over a count);
on a CUDA device CuPy and PyTorch (when installed: cumsum / cumprod /
cummin / cummax; columns that cannot run are left out with a note), plus the
device-to-device copy of the same bytes ("copy %": the copy's time over the
scan's; a scan reads and writes each slot once, so the copy bounds it).
Nothing here passes or fails.
"""

import argparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms, table
from peers import optional

import arrowmetal as am

cp = optional("cupy")
torch = optional("torch")


def np_mean(xp, x):
    return xp.cumsum(x) / xp.arange(1, len(x) + 1)


# name -> (numpy-like peer(xp, x), torch peer(x) or None)
FUNCTIONS = {
    "cumulative_sum": (lambda xp, x: xp.cumsum(x), lambda x: torch.cumsum(x, 0)),
    "cumulative_sum_checked": (lambda xp, x: xp.cumsum(x), lambda x: torch.cumsum(x, 0)),
    "cumulative_prod": (lambda xp, x: xp.cumprod(x), lambda x: torch.cumprod(x, 0)),
    "cumulative_min": (lambda xp, x: xp.minimum.accumulate(x), lambda x: torch.cummin(x, 0)),
    "cumulative_max": (lambda xp, x: xp.maximum.accumulate(x), lambda x: torch.cummax(x, 0)),
    "cumulative_mean": (np_mean, None),
}


def inputs(n):
    rng = np.random.default_rng(11)
    # int64 values that keep the checked sum in range; floats near 1 so the
    # products stay finite for a while.
    return {
        "int64": rng.integers(-1000, 1000, n, dtype=np.int64),
        "float64": rng.uniform(0.999, 1.001, n),
    }


def run_cpu(sizes, repeats):
    rows = []
    for n in sizes:
        for tname, host in inputs(n).items():
            arrow = pa.array(host)
            mine = am.array(arrow)
            for name, (peer, _) in FUNCTIONS.items():
                fn, pfn = getattr(am, name), getattr(pc, name)
                t_am = median_ms(lambda f=fn, m=mine: f(m), repeats)
                t_pa = median_ms(lambda f=pfn, a=arrow: f(a), repeats)
                t_np = median_ms(lambda p=peer, h=host: p(np, h), repeats)
                rows.append([f"{n:,}", name, tname, f"{t_am:.3f}", f"{t_pa:.3f}", f"{t_np:.3f}",
                             f"{t_pa / t_am:.2f}", f"{t_np / t_am:.2f}"])  # fmt: skip
    print(f"CPU backend ({am.backend()}), {repeats} runs each, medians in ms\n")
    table(rows, ["rows", "function", "type", "arrowmetal", "pyarrow", "numpy", "pa/am", "np/am"])


def run_cuda(sizes, repeats):
    cuda = am._devices.device_ptr("cuda")

    def sync():
        am.lib.am_device_sync(cuda)

    have_torch = torch is not None and torch.cuda.is_available()
    if cp is None:
        print("(no CuPy here: its column and the copy are left out)")
    if not have_torch:
        print("(no PyTorch with CUDA here: its column is left out)")
    rows = []
    for n in sizes:
        for tname, host in inputs(n).items():
            mine = am.array(pa.array(host)).to_device("cuda")
            on_cp = cp.asarray(host) if cp is not None else None
            on_torch = torch.from_numpy(host).cuda() if have_torch else None
            for name, (peer, torch_peer) in FUNCTIONS.items():
                fn = getattr(am, name)
                t_am = median_ms(lambda f=fn, m=mine: f(m), repeats, sync)
                row = [f"{n:,}", name, tname, f"{t_am:.3f}"]
                if cp is not None:
                    try:
                        t = median_ms(lambda p=peer, v=on_cp: p(cp, v), repeats,
                                      cp.cuda.runtime.deviceSynchronize)  # fmt: skip
                        row += [f"{t:.3f}", f"{t / t_am:.2f}"]
                    except Exception as e:  # noqa: BLE001 - a peer lacking the function
                        row += [type(e).__name__, "-"]
                if have_torch:
                    if torch_peer is None:
                        row += ["-", "-"]
                    else:
                        t = median_ms(lambda p=torch_peer, v=on_torch: p(v), repeats,
                                      torch.cuda.synchronize)  # fmt: skip
                        row += [f"{t:.3f}", f"{t / t_am:.2f}"]
                if cp is not None:
                    dst = cp.empty_like(on_cp)
                    t_copy = median_ms(lambda a=dst, b=on_cp: a.__setitem__(slice(None), b),
                                       repeats, cp.cuda.runtime.deviceSynchronize)  # fmt: skip
                    row.append(f"{100 * t_copy / t_am:.0f}%")
                rows.append(row)
    cols = ["rows", "function", "type", "arrowmetal"]
    if cp is not None:
        cols += ["cupy", "cupy/am"]
    if have_torch:
        cols += ["torch", "torch/am"]
    if cp is not None:
        cols.append("copy %")
    print(f"CUDA (cuda:0), {repeats} runs each, medians in ms\n")
    table(rows, cols)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", default="1000000,50000000")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    sizes = [int(s) for s in args.rows.split(",")]
    if args.device == "cpu":
        am.set_device("cpu")
        run_cpu(sizes, args.repeats)
    else:
        run_cuda(sizes, args.repeats)


if __name__ == "__main__":
    main()
