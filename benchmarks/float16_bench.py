"""float16 on the CPU: casts both ways, is_nan, negate, take, filter, unique and
count_distinct of float16 (5% nulls, random finite values) against
pyarrow.compute in the same run (medians of --repeats runs, milliseconds).

    PYTHONPATH=python .venv/bin/python benchmarks/float16_bench.py [--rows 1000000 10000000]

Not part of CI: it prints a table."""

import argparse
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from dictionary_bench import median_ms  # the same timing as the dictionary rows

import arrowmetal as am


def halves(rows, rng):
    """Random finite float16 values (|v| < 1000), 5% null."""
    v = rng.uniform(-1000, 1000, rows).astype(np.float16)
    return pa.array(v, mask=rng.random(rows) < 0.05)


def pairs(h, f, idx, mask):
    """{op: (ArrowMetal's call, pyarrow's)}: both zero-copy over the same buffers."""
    ours, ours_f = am.array(h), am.array(f)
    return {
        "to-f32": (lambda: am.cast(ours, "float32"), lambda: pc.cast(h, pa.float32())),
        "from-f32": (lambda: am.cast(ours_f, "float16"), lambda: pc.cast(f, pa.float16())),
        "is_nan": (lambda: am.is_nan(ours), lambda: pc.is_nan(h)),
        "negate": (lambda: am.negate(ours), lambda: pc.negate(h)),
        "take": (lambda: am.take(ours, idx), lambda: pc.take(h, idx)),
        "filter": (lambda: am.filter(ours, mask), lambda: pc.filter(h, mask)),
        "unique": (lambda: am.unique(ours), lambda: pc.unique(h)),
        "cnt_dist": (lambda: am.count_distinct(ours), lambda: pc.count_distinct(h)),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("error", am.ArrowMetalFallbackWarning)  # native or nothing
    print(f"{'rows':>10} {'op':<9} {'arrowmetal':>11} {'pyarrow':>9} {'speed-up':>9}")
    for rows in args.rows:
        rng = np.random.default_rng(rows)
        h = halves(rows, rng)
        f = pa.array(rng.uniform(-70000, 70000, rows).astype(np.float32))
        idx = pa.array(rng.integers(0, rows, rows // 2))
        mask = pa.array(rng.random(rows) < 0.5)
        for name, (mine, peer) in pairs(h, f, idx, mask).items():
            m, p = median_ms(mine, args.repeats), median_ms(peer, args.repeats)
            print(f"{rows:>10,} {name:<9} {m:>9.2f}ms {p:>7.2f}ms {p / m:>8.2f}x")


if __name__ == "__main__":
    main()
