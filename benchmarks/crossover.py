"""Where should an op run? For each op and size, the time to run it where the
data already lives against moving the data first and running it on the other
device -- the crossover table behind ArrowMetal's routing rule (ops run on
the device their inputs live on). One command reproduces it on a machine with
a GPU:

    python benchmarks/crossover.py

Medians in microseconds; "move" includes the transfer (am_to_device).
"""

import statistics
import time

import numpy as np
import pyarrow as pa

import arrowmetal as am


def median_us(function, repeats):
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


OPS = {
    "sum": lambda a: am.sum(a),
    "compare": lambda a: am.greater(a, 0),
    "multiply": lambda a: am.multiply(a, 3),
    "filter": lambda a: am.filter(a, am.greater(a, 0)),
}


def main():
    if not {name: ok for name, ok, _ in am.backends()}["cuda"]:
        print("no CUDA backend here: nothing to route between")
        return
    print(
        f"{'rows':>11} {'op':<9}{'host data: cpu':>16}{'move+cuda':>11}"
        f"{'device data: cuda':>19}{'move+cpu':>10}"
    )
    rng = np.random.default_rng(2)
    for rows in (1_000, 10_000, 100_000, 1_000_000, 10_000_000, 50_000_000):
        host = am.array(pa.array(rng.integers(-1000, 1000, rows)), device="cpu")
        device = host.to_device("cuda")
        repeats = 200 if rows <= 100_000 else 20 if rows <= 10_000_000 else 5
        for name, op in OPS.items():
            cpu_here, cuda_moved, cuda_here, cpu_moved = (
                median_us(run, repeats) for run in placements(op, host, device)
            )
            print(
                f"{rows:>11,} {name:<9}{cpu_here:>16.1f}{cuda_moved:>11.1f}"
                f"{cuda_here:>19.1f}{cpu_moved:>10.1f}",
                flush=True,
            )


def placements(op, host, device):
    """The op where each copy lives, and after moving it to the other device."""
    return (
        lambda: op(host),
        lambda: op(host.to_device("cuda")),
        lambda: op(device),
        lambda: op(device.to_device("cpu")),
    )


if __name__ == "__main__":
    main()
