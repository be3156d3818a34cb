"""Inner join of a dictionary key (left, `rows` rows) against a plain key of its
value type (right, one row per distinct value), on the CPU: ArrowMetal as it
is (both sides joined on int32 ids of the values: abi/key_view.c), ArrowMetal
given the left key decoded first (what the library did before 2026-12-05),
and pyarrow's Table.join, in one run; medians.

    PYTHONPATH=python python benchmarks/dictionary_join_bench.py --rows 1000000
"""

import argparse
import warnings

import numpy as np
import pyarrow as pa
from breadth_bench import median_ms, table

import arrowmetal as am


def tables(rows, distinct, kind, seed=7):
    rng = np.random.default_rng(seed)
    if kind == "string":
        values = pa.array([f"key-{i:08d}" for i in range(distinct)])
    else:
        values = pa.array(rng.permutation(distinct) * 7919, pa.int64())
    codes = rng.integers(0, distinct, rows).astype(np.int32)
    mask = rng.random(rows) < 0.05
    keys = pa.DictionaryArray.from_arrays(pa.array(codes, mask=mask), values)
    left = pa.table({"k": keys, "l": np.arange(rows, dtype=np.int64)})
    decoded = pa.table({"k": keys.dictionary_decode(), "l": left["l"]})
    right = pa.table({"k": values, "r": np.arange(distinct, dtype=np.float64)})
    return left, decoded, right


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--distinct", type=int, nargs="+", default=[1_000, 100_000])
    ap.add_argument("--kinds", nargs="+", default=["string", "int64"])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rows_out = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", am.ArrowMetalFallbackWarning)  # a fallback is no row
        for rows in args.rows:
            for kind in args.kinds:
                for distinct in args.distinct:
                    left, decoded, right = tables(rows, distinct, kind)
                    ids = am.join(left, right, "k", join_type="inner")
                    want = left.join(right, "k", join_type="inner")
                    assert pa.table(ids).num_rows == want.num_rows
                    ours = median_ms(
                        lambda l=left, r=right: am.join(l, r, "k", join_type="inner"), args.repeats
                    )
                    before = median_ms(
                        lambda d=decoded, r=right: am.join(d, r, "k", join_type="inner"),
                        args.repeats,
                    )
                    theirs = median_ms(
                        lambda l=left, r=right: l.join(r, "k", join_type="inner"), args.repeats
                    )
                    rows_out.append([f"{rows:,}", f"dictionary<{kind}>", f"{distinct:,}",
                                     f"{ours:.1f}", f"{before:.1f}", f"{theirs:.1f}",
                                     f"{before / ours:.2f}", f"{theirs / ours:.2f}"])  # fmt: skip
    table(rows_out, ["rows", "left key", "distinct", "ids ms", "decoded ms", "pyarrow ms",
                     "decoded / ids", "pyarrow / ids"])  # fmt: skip


if __name__ == "__main__":
    main()
