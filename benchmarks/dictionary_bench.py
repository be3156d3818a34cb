"""Dictionary arrays on the CPU: take, filter and compare of dictionary<int32, utf8>
against pyarrow.compute in the same run (medians of --repeats runs, milliseconds).

    PYTHONPATH=python .venv/bin/python benchmarks/dictionary_bench.py [--rows 1000000 10000000]

Not part of CI: it prints a table."""

import argparse
import statistics
import time
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import arrowmetal as am


def median_ms(fn, repeats):
    fn()  # warm: kept imports, page faults
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def inputs(rows, seed=1):
    rng = np.random.default_rng(seed)
    words = pa.array([f"word-{i:05d}" for i in range(1000)])
    codes = rng.integers(0, len(words), rows).astype(np.int32)
    valid = rng.random(rows) > 0.05
    indices = pa.array(codes, mask=~valid)
    values = pa.DictionaryArray.from_arrays(indices, words)
    take = pa.array(rng.integers(0, rows, rows // 2))
    mask = pa.array(rng.random(rows) < 0.5)
    return values, take, mask, words[17].as_py()


def pairs(values, take, mask, word):
    """{name: (ArrowMetal's call, pyarrow.compute's)} over one size's inputs."""
    value_set = pa.array([word, "word-00003"])
    return {
        "take (n/2 random)": (lambda: am.take(values, take), lambda: pc.take(values, take)),
        "filter (50%)": (lambda: am.filter(values, mask), lambda: pc.filter(values, mask)),
        "equal to a scalar": (lambda: am.equal(values, word), lambda: pc.equal(values, word)),
        "is_in (2 values)": (
            lambda: am.is_in(values, value_set=value_set),
            lambda: pc.is_in(values, value_set=value_set),
        ),
        "unique": (lambda: am.unique(values), lambda: pc.unique(values)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    warnings.simplefilter("error", am.ArrowMetalFallbackWarning)  # the library's own kernels
    print(f"{'op':<28}{'rows':>11}{'arrowmetal ms':>15}{'pyarrow ms':>12}{'speedup':>9}")
    for rows in args.rows:
        cases = pairs(*inputs(rows))
        for name, (ours, theirs) in cases.items():
            a, b = median_ms(ours, args.repeats), median_ms(theirs, args.repeats)
            print(f"{name:<28}{rows:>11,}{a:>15.2f}{b:>12.2f}{b / a:>8.2f}x")


if __name__ == "__main__":
    main()
