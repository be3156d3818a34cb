"""Joins runs of benchmarks/latency.c into one A/B table.

    python benchmarks/ab_table.py NEW_RUN... -- BASE_RUN...

Each run prints "op rows median min cpu" rows; the table gives, per op and
size, the median over runs of each side's medians and their ratio.
"""

import statistics
import sys


def rows_of(paths):
    found = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.rsplit(None, 4)
                if len(parts) != 5:
                    continue
                name, rows, median = parts[0].strip(), parts[1], parts[2]
                try:
                    found.setdefault((name, int(rows)), []).append(float(median))
                except ValueError:
                    continue
    return {key: statistics.median(values) for key, values in found.items()}


def main(argv):
    split = argv.index("--")
    new, base = rows_of(argv[:split]), rows_of(argv[split + 1 :])
    print("| op | rows | new µs | base µs | new / base |")
    print("|---|---:|---:|---:|---:|")
    for key in sorted(new, key=lambda k: (k[1], list(new).index(k))):
        if key in base:
            name, rows = key
            print(
                f"| {name} | {rows:,} | {new[key]:.1f} | {base[key]:.1f} | "
                f"{new[key] / base[key]:.3f} |"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
