"""CPU backend against pyarrow.compute and numpy, measured side by side in
one run (these machines are noisy: compare within a row, not across runs).

    python benchmarks/cpu_bench.py [--large 50000000] [--quick]

Prints medians in microseconds and the ratio pyarrow / arrowmetal (> 1 means
ArrowMetal is faster). Nothing here passes or fails.
"""

import argparse
import os
import statistics
import time

# numpy's OpenBLAS threads spin after any BLAS call and take a core from
# both sides of every row on a 2-core machine; nothing here uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import arrowmetal as am


def median_us(function, repeats):
    for _ in range(max(2, min(50, repeats // 10))):
        function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def row(label, ours, theirs, numpy_time=None):
    ratio = theirs / ours if ours else float("nan")
    numpy_text = f"{numpy_time:>11.1f}" if numpy_time is not None else f"{'':>11}"
    print(f"{label:<44}{ours:>11.1f}{theirs:>11.1f}{numpy_text}{ratio:>8.2f}x", flush=True)


class Fresh:
    """Distinct pyarrow array objects over the same buffers, each handed out
    once: a benchmark of fresh inputs never sees an array it has imported
    before (the package keeps the imports of arrays it sees again)."""

    def __init__(self, data, count):
        buffers = data.buffers()
        self.arrays = iter(
            [pa.Array.from_buffers(data.type, len(data), buffers) for _ in range(count)]
        )

    def __call__(self):
        return next(self.arrays)


def small(repeats):
    rng = np.random.default_rng(3)
    values = rng.integers(-1000, 1000, 1000)
    data = pa.array(values)
    nulls = pa.array(values, mask=rng.random(1000) < 0.1)
    picks = pa.array(rng.integers(0, 1000, 500))
    imported, imported_picks = am.array(data), am.array(picks)
    objects = repeats + 60  # every call of median_us, warm-up included

    def fresh():
        return Fresh(data, objects)

    print(f"\n1,000 rows, int64{'':<27}{'am us':>11}{'pa us':>11}{'numpy us':>11}{'pa/am':>9}")
    print("  inputs: a new pyarrow array each call (imported every time)")
    ours, theirs = fresh(), fresh()
    row(
        "sum",
        median_us(lambda: am.sum(ours()), repeats),
        median_us(lambda: pc.sum(theirs()).as_py(), repeats),
        median_us(lambda: int(values.sum()), repeats),
    )
    for label, our_op, their_op in [
        ("add(array)", lambda a, b: am.add(a, b), lambda a, b: pc.add(a, b)),
        ("take(500)", lambda a, b: am.take(a, picks), lambda a, b: pc.take(a, picks)),
        (
            "cast(float64)",
            lambda a, b: am.cast(a, "float64"),
            lambda a, b: pc.cast(a, pa.float64()),
        ),
    ]:
        ours, theirs, ours2, theirs2 = fresh(), fresh(), fresh(), fresh()
        row(
            label,
            median_us(lambda o=our_op, a=ours, b=ours2: o(a(), b()), repeats),
            median_us(lambda o=their_op, a=theirs, b=theirs2: o(a(), b()), repeats),
        )
    print("  inputs: the same pyarrow array again (its CPU import is kept)")
    row(
        "sum",
        median_us(lambda: am.sum(data), repeats),
        median_us(lambda: pc.sum(data).as_py(), repeats),
        median_us(lambda: int(values.sum()), repeats),
    )
    row(
        "sum, 10% nulls",
        median_us(lambda: am.sum(nulls), repeats),
        median_us(lambda: pc.sum(nulls).as_py(), repeats),
    )
    for label, ours, theirs in small_ops(data, picks, data, picks):
        row(label, median_us(ours, repeats), median_us(theirs, repeats))
    print("  inputs: am.Array (imported once by the caller)")
    row(
        "sum",
        median_us(lambda: am.sum(imported), repeats),
        median_us(lambda: pc.sum(data).as_py(), repeats),
        median_us(lambda: int(values.sum()), repeats),
    )
    for label, ours, theirs in small_ops(imported, imported_picks, data, picks):
        row(label, median_us(ours, repeats), median_us(theirs, repeats))


def small_ops(ours, our_picks, theirs, their_picks):
    """(label, arrowmetal call, pyarrow.compute call) at 1,000 rows."""
    half = 0
    return [
        ("greater(scalar)", lambda: am.greater(ours, half), lambda: pc.greater(theirs, half)),
        (
            "filter(a > 0)",
            lambda: am.filter(ours, am.greater(ours, half)),
            lambda: pc.filter(theirs, pc.greater(theirs, half)),
        ),
        ("multiply(scalar)", lambda: am.multiply(ours, 3), lambda: pc.multiply(theirs, 3)),
        ("add(array)", lambda: am.add(ours, ours), lambda: pc.add(theirs, theirs)),
        ("take(500)", lambda: am.take(ours, our_picks), lambda: pc.take(theirs, their_picks)),
        (
            "cast(float64)",
            lambda: am.cast(ours, "float64"),
            lambda: pc.cast(theirs, pa.float64()),
        ),
    ]


def large(rows, repeats):
    rng = np.random.default_rng(4)
    values = rng.integers(-(10**6), 10**6, rows)
    validity = rng.random(rows) >= 0.1
    plain = pa.array(values)
    nulls = pa.array(values, mask=~validity)
    sliced = pa.array(values).slice(7, rows - 70)
    indices = pa.array(rng.integers(0, rows - 70, rows // 2))
    print(f"\n{rows:,} rows, int64{'':<22}{'am us':>11}{'pa us':>11}{'numpy us':>11}{'pa/am':>9}")
    row(
        "sum",
        median_us(lambda: am.sum(plain), repeats),
        median_us(lambda: pc.sum(plain).as_py(), repeats),
        median_us(lambda: int(values.sum()), repeats),
    )
    row(
        "sum, 10% nulls",
        median_us(lambda: am.sum(nulls), repeats),
        median_us(lambda: pc.sum(nulls).as_py(), repeats),
    )
    for name, data in [("", plain), (", 10% nulls", nulls), (", sliced", sliced)]:
        for label, ours, theirs in element_wise_ops(data, indices.slice(0, len(data) // 2)):
            row(label + name, median_us(ours, repeats), median_us(theirs, repeats))


def element_wise_ops(data, picks):
    """(label, arrowmetal call, pyarrow.compute call) over one input."""
    mask = pc.greater(data, 0)
    return [
        ("greater(scalar)", lambda: am.greater(data, 0), lambda: pc.greater(data, 0)),
        ("filter(a > 0)", lambda: am.filter(data, mask), lambda: pc.filter(data, mask)),
        ("multiply(scalar)", lambda: am.multiply(data, 3), lambda: pc.multiply(data, 3)),
        ("add(array)", lambda: am.add(data, data), lambda: pc.add(data, data)),
        ("take(n/2 random)", lambda: am.take(data, picks), lambda: pc.take(data, picks)),
        ("cast(float64)", lambda: am.cast(data, "float64"), lambda: pc.cast(data, pa.float64())),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--large", default="1000000,50000000")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(
        f"ArrowMetal {am.version()} on {am.device_name()} (cffi {am.binding_mode()} mode); "
        f"pyarrow {pa.__version__}, numpy {np.__version__}"
    )
    small(2000 if args.quick else 20000)
    for rows in [int(r) for r in args.large.split(",") if r]:
        large(rows, 5 if rows > 10_000_000 else 50)


if __name__ == "__main__":
    main()
