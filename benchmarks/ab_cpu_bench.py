"""A/B of benchmarks/cpu_bench.py: this tree's package against a baseline
tree's (a checkout of an earlier commit with its library and cffi module
built), run in turn -- new, base, new, base, ... -- so both see the same
machine. Prints, per row, the median over runs of ArrowMetal's median time on
each side and the ratio new / base (pyarrow's column is the same library on
both sides, so it is left out).

    python benchmarks/ab_cpu_bench.py BASE_DIR [--rounds 5] [--large 1000000]
"""

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(tree, large):
    env = dict(os.environ, PYTHONPATH=os.path.join(tree, "python"))
    out = subprocess.run(
        [sys.executable, os.path.join(tree, "benchmarks", "cpu_bench.py"), "--large", large],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows, section = {}, ""
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.rstrip().endswith("x") or len(line) < 55:
            section = line.split("am us")[0].strip()
            continue
        try:
            rows[(section, line[:44].strip())] = float(line[44:55])
        except ValueError:
            section = line.strip()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("base")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--large", default="1000000")
    args = ap.parse_args()
    new, base = {}, {}
    for _ in range(args.rounds):
        for side, tree in ((new, ROOT), (base, args.base)):
            for key, value in run(tree, args.large).items():
                side.setdefault(key, []).append(value)
    print("| rows | input / op | new µs | base µs | new / base |")
    print("|---|---|---:|---:|---:|")
    for key, values in new.items():
        if key in base:
            n, b = statistics.median(values), statistics.median(base[key])
            print(f"| {key[0]} | {key[1]} | {n:.1f} | {b:.1f} | {n / b:.3f} |")


if __name__ == "__main__":
    main()
