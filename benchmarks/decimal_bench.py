"""Decimals on the CPU: sum, compare and take of decimal128(18, 2) and
decimal256(40, 2) (5% nulls) against pyarrow.compute in the same run
(medians of --repeats runs, milliseconds).

    PYTHONPATH=python .venv/bin/python benchmarks/decimal_bench.py [--rows 1000000 10000000]

Not part of CI: it prints a table."""

import argparse
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from dictionary_bench import median_ms  # the same timing as the dictionary rows

import arrowmetal as am


def decimals(rows, t, rng):
    """Random values below 10^16 (sign-extended 64-bit integers) as a decimal
    array of type `t`, built from buffers (no Python objects)."""
    v = rng.integers(-(10**16), 10**16, rows)
    words = np.empty((rows, t.bit_width // 64), np.int64)
    words[:, 0] = v
    words[:, 1:] = (v >> 63)[:, None]
    valid = rng.random(rows) > 0.05
    bitmap = pa.array(valid).buffers()[1]
    return pa.Array.from_buffers(t, rows, [bitmap, pa.py_buffer(words)], null_count=-1)


def pairs(a, b, idx):
    """{op: (ArrowMetal's call, pyarrow's)}: both zero-copy over the same buffers."""
    ours, ours_b = am.array(a), am.array(b)
    return {
        "sum": (lambda: am.sum(ours), lambda: pc.sum(a)),
        "less": (lambda: am.less(ours, ours_b), lambda: pc.less(a, b)),
        "take": (lambda: am.take(ours, idx), lambda: pc.take(a, idx)),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("error", am.ArrowMetalFallbackWarning)  # native or nothing
    print(f"{'type':<16} {'rows':>10} {'op':<8} {'arrowmetal':>11} {'pyarrow':>9} {'speed-up':>9}")
    for t in (pa.decimal128(18, 2), pa.decimal256(40, 2)):
        for rows in args.rows:
            rng = np.random.default_rng(rows)
            a, b = decimals(rows, t, rng), decimals(rows, t, rng)
            idx = pa.array(rng.integers(0, rows, rows // 2))
            ops = pairs(a, b, idx)
            for name, (mine, peer) in ops.items():
                m, p = median_ms(mine, args.repeats), median_ms(peer, args.repeats)
                print(f"{t!s:<16} {rows:>10,} {name:<8} {m:>9.2f}ms {p:>7.2f}ms {p / m:>8.2f}x")


if __name__ == "__main__":
    main()
