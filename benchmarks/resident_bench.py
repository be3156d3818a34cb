"""A small sum from Python with the resident CUDA worker off and on (issue #14:
a 1,000-row sum within 6 us from Python), beside PyTorch and CuPy doing the
same sum in the same run. Rounds of each in turn, medians; every result checked.

    python3 benchmarks/resident_bench.py [--rows 100,1000,2048] [--calls 2000]
"""

import argparse
import statistics
import time

import numpy as np
import pyarrow as pa

import arrowmetal as am


def timed(fn, calls, want):
    """Median and minimum microseconds of `calls` calls of fn(), each checked."""
    for _ in range(50):
        fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        got = fn()
        times.append((time.perf_counter_ns() - start) / 1000)
        if got != want:
            raise SystemExit(f"wrong result {got!r}, expected {want!r}")
    return statistics.median(times), min(times)


def peers(values):
    """(name, fn) of the peers that load here, summing the same values on the GPU."""
    found = []
    try:
        import torch

        t = torch.tensor(values, device="cuda")
        found.append(("PyTorch", lambda: int(t.sum().item())))
    except Exception as exc:  # noqa: BLE001 - a peer that does not load is left out
        print("PyTorch left out:", exc)
    try:
        import cupy

        c = cupy.asarray(values)
        found.append(("CuPy", lambda: int(c.sum().get())))
    except Exception as exc:  # noqa: BLE001
        print("CuPy left out:", exc)
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="100,1000,2048,4096")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    am.set_device("cuda")
    print("resident worker:", am.resident_mode(True), am.resident_status())
    print("| rows | who | median us | min us |")
    print("|---:|---|---:|---:|")
    for n in (int(r) for r in args.rows.split(",")):
        values = (np.arange(n, dtype=np.int64) * 7919) % 1000 - 500
        want = int(values.sum())
        a = am.array(pa.array(values), device="cuda")

        def ours(a=a):
            return am.sum(a).as_py()

        rows = {}
        for _ in range(args.rounds):
            for on in (False, True):
                am.resident_mode(on)
                rows.setdefault("resident" if on else "launched", []).append(
                    timed(ours, args.calls, want)
                )
            for name, fn in peers(values):
                rows.setdefault(name, []).append(timed(fn, args.calls, want))
        for who, results in rows.items():
            median = statistics.median(r[0] for r in results)
            print(f"| {n:,} | {who} | {median:.1f} | {min(r[1] for r in results):.1f} |")
    print("resident worker:", am.resident_mode(), am.resident_status())
    am.resident_mode(False)


if __name__ == "__main__":
    main()
