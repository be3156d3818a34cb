"""Decimal and dictionary keys on the CPU (issue #13): sort_indices, group-by sum, and an
inner join by decimal128(18, 2), decimal256(40, 2) and dictionary<int32, string> keys of
1,000 and 100,000 distinct values, against pyarrow in the same run (medians of --repeats
runs, milliseconds; pyarrow's time over ArrowMetal's: above 1 ArrowMetal is faster).

    PYTHONPATH=python .venv/bin/python benchmarks/key_types_bench.py [--rows 1000000]

Keys: a random one of `distinct` values (decimals: whole numbers times 1.01, half of them
negative; dictionary: "key-" and a number, each index to a value once), 5% null; values
float64. The join's right side holds each distinct key once. pyarrow sorts a dictionary
array alone only (array_sort_indices), so that row sorts the array. Dictionary keys also
get unique, value_counts and is_in (a value set of a tenth of the values, as strings),
which work on the indices. --kinds picks key types by a part of their names
("dictionary"). Not part of CI: it prints a table."""

import argparse
import decimal
import sys
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from breadth_bench import median_ms

import arrowmetal as am

KINDS = ["decimal128(18, 2)", "decimal256(40, 2)", "dictionary<int32, string>"]


def distinct_values(kind, distinct):
    """The `distinct` key values of a kind, as a pyarrow array."""
    if kind.startswith("dictionary"):
        return pa.array([f"key-{i}" for i in range(distinct)])
    t = pa.decimal128(18, 2) if kind.startswith("decimal128") else pa.decimal256(40, 2)
    sign = [1 if i % 2 else -1 for i in range(distinct)]
    return pa.array([decimal.Decimal(s * i * 101).scaleb(-2) for i, s in enumerate(sign)], t)


def keys(kind, rows, distinct, seed):
    rng = np.random.default_rng(seed)
    picks = pa.array(rng.integers(0, distinct, rows, dtype=np.int32), mask=rng.random(rows) < 0.05)
    values = distinct_values(kind, distinct)
    if kind.startswith("dictionary"):
        return pa.DictionaryArray.from_arrays(picks, values)
    return pc.take(values, picks)


def works(kind, rows, distinct):
    """[(work, arrowmetal call, pyarrow call)] over one set of inputs."""
    k = keys(kind, rows, distinct, 1)
    table = pa.table({"k": k, "v": np.random.default_rng(2).random(rows)})
    values = distinct_values(kind, distinct)
    if kind.startswith("dictionary"):
        right_keys = pa.DictionaryArray.from_arrays(pa.array(range(distinct), pa.int32()), values)
        sort = ("array_sort_indices", lambda: am.array_sort_indices(k),
                lambda: pc.array_sort_indices(k))  # fmt: skip
    else:
        right_keys = values
        sort = ("sort_indices", lambda: am.sort_indices(table, [("k", "ascending")]),
                lambda: pc.sort_indices(table, [("k", "ascending")]))  # fmt: skip
    hashing = []
    if kind.startswith("dictionary"):
        value_set = values.slice(0, max(distinct // 10, 1))
        hashing = [
            ("unique", lambda: am.unique(k), lambda: pc.unique(k)),
            ("value_counts", lambda: am.value_counts(k), lambda: pc.value_counts(k)),
            ("is_in", lambda: am.is_in(k, value_set=value_set),
             lambda: pc.is_in(k, value_set=value_set)),
        ]  # fmt: skip
    left = table.rename_columns(["k", "l"])
    right = pa.table({"k": right_keys, "r": np.arange(distinct, dtype=np.float64)})
    return [
        sort,
        ("group-by sum", lambda: am.group_by(table, "k").aggregate([("v", "sum")]),
         lambda: table.group_by("k").aggregate([("v", "sum")])),
        ("inner join", lambda: am.join(left, right, "k", join_type="inner"),
         lambda: left.join(right, "k", join_type="inner")),
    ] + hashing  # fmt: skip


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--distinct", type=int, nargs="+", default=[1_000, 100_000])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--kinds", nargs="+", default=[""], help="key types whose names hold one")
    args = ap.parse_args()
    before = dict(am.fallbacks())
    print("| rows | keys | distinct | work | arrowmetal ms | pyarrow ms | pyarrow / arrowmetal |")
    print("| ---: | --- | ---: | --- | ---: | ---: | ---: |")
    with warnings.catch_warnings():
        warnings.simplefilter("error", am.ArrowMetalFallbackWarning)  # a fallback is no row
        for rows in args.rows:
            for kind in [k for k in KINDS if any(part in k for part in args.kinds)]:
                for distinct in args.distinct:
                    for work, mine, theirs in works(kind, rows, distinct):
                        ms, peer_ms = median_ms(mine, args.repeats), median_ms(theirs, args.repeats)
                        print(f"| {rows:,} | {kind} | {distinct:,} | {work} | {ms:.2f} | "
                              f"{peer_ms:.2f} | {peer_ms / ms:.2f} |", flush=True)  # fmt: skip
    assert am.fallbacks() == before, "a call ran in pyarrow"


if __name__ == "__main__":
    main()
