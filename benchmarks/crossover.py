"""The crossover table behind ArrowMetal's routing: for each op and size, the
time to run it where the data lives against moving the data to the other
device, running it there, and (for array results) moving the result back.
One command on a machine with a GPU measures it and writes the table the
library reads:

    python benchmarks/crossover.py --write routes.txt
    ARROWMETAL_ROUTES=routes.txt python my_program.py

Medians in microseconds. Routing is off while measuring (every op runs where
its inputs are), so each column is exactly what it names.
"""

import argparse
import math
import os
import statistics
import time

os.environ["ARROWMETAL_ROUTES"] = "off"  # measure placements, not the router

import numpy as np
import pyarrow as pa

import arrowmetal as am

SIZES = (1_000, 4_000, 16_000, 64_000, 256_000, 1_000_000, 10_000_000)

# One op per class the router knows, over the inputs it names (a: int64
# values, m: a bool mask, i: int64 indices); `back` is True when the result
# is an array, which a routed call moves back to the inputs' device.
OPS = {
    "reduce": (lambda a: am.sum(a), "a", False),
    "compare": (lambda a: am.greater(a, 0), "a", True),
    "arith": (lambda a: am.multiply(a, 3), "a", True),
    "cast": (lambda a: am.cast(a, "float64"), "a", True),
    "logic": (lambda m: am.and_(m, m), "m", True),
    "filter": (lambda a, m: am.filter(a, m), "am", True),
    "take": (lambda a, i: am.take(a, i), "ai", True),
}


def median_us(function, repeats):
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def moved(op, back, inputs, there, home):
    """The op after moving its inputs to `there`, its array result back home."""

    def run():
        result = op(*(x.to_device(there) for x in inputs))
        return result.to_device(home) if back else result

    return run


def measure(gpu):
    """{(op, from, rows): (stay us, move us)} for data on the CPU and on `gpu`."""
    rng = np.random.default_rng(2)
    results = {}
    header = f"{'rows':>11} {'op':<8}{'cpu data: cpu':>15}{'-> ' + gpu:>12}"
    print(header + f"{gpu + ' data: ' + gpu:>20}{'-> cpu':>10}")
    for rows in SIZES:
        values = rng.integers(-1000, 1000, rows)
        host = {
            "a": am.array(pa.array(values), device="cpu"),
            "m": am.array(pa.array(values > 0), device="cpu"),
            "i": am.array(pa.array(rng.integers(0, rows, rows)), device="cpu"),
        }
        device = {key: x.to_device(gpu) for key, x in host.items()}
        repeats = 100 if rows <= 256_000 else 20
        for name, (op, uses, back) in OPS.items():
            here = tuple(host[key] for key in uses)
            there = tuple(device[key] for key in uses)
            cpu_stay = median_us(lambda h=here, op=op: op(*h), repeats)
            cpu_move = median_us(moved(op, back, here, gpu, "cpu"), repeats)
            gpu_stay = median_us(lambda d=there, op=op: op(*d), repeats)
            gpu_move = median_us(moved(op, back, there, "cpu", gpu), repeats)
            results[(name, "cpu", rows)] = (cpu_stay, cpu_move)
            results[(name, gpu.split(":")[0], rows)] = (gpu_stay, gpu_move)
            print(
                f"{rows:>11,} {name:<8}{cpu_stay:>15.1f}{cpu_move:>12.1f}"
                f"{gpu_stay:>20.1f}{gpu_move:>10.1f}",
                flush=True,
            )
    return results


def rules(results, gpu_backend):
    """One rule per op and direction where moving won at the smallest sizes:
    it holds below the geometric middle of the last size where moving won and
    the first where it lost (or without limit when it always won)."""
    table = []
    for name in OPS:
        for source, target in (("cpu", gpu_backend), (gpu_backend, "cpu")):
            wins = [results[(name, source, rows)] for rows in SIZES]
            last_win = None
            for rows, (stay, move) in zip(SIZES, wins):
                if move < stay:
                    last_win = rows
                else:
                    break
            if last_win is None:
                continue
            losing = [rows for rows in SIZES if rows > last_win]
            below = int(math.sqrt(last_win * losing[0])) if losing else 1 << 52
            table.append(f"{name} {source} {below} {target}")
    return table


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", metavar="PATH", help="write the table for ARROWMETAL_ROUTES")
    parser.add_argument("--gpu", default="cuda:0")
    args = parser.parse_args()
    backend = args.gpu.split(":")[0]
    if not {name: ok for name, ok, _ in am.backends()}.get(backend):
        print(f"no {backend} backend here: nothing to route between")
        return
    table = rules(measure(args.gpu), backend)
    text = "# measured by benchmarks/crossover.py\n" + "".join(line + "\n" for line in table)
    print("\n" + text, end="")
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
