"""ArrowMetal demo: a few million rows through each op on the default
device, with the result and time of each op next to pyarrow.compute's.

Run with `make demo` (or `python examples/demo.py [rows]` with the package
importable). The device is the default one: ARROWMETAL_BACKEND picks
another (`cpu`, `cuda`).
"""

import statistics
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import arrowmetal as am


def best_of(function, repeats=7):
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return result, statistics.median(times)


def show(value):
    if isinstance(value, (am.Array, pa.Array, pa.ChunkedArray)):
        array = value.to_pyarrow() if isinstance(value, am.Array) else value
        return f"{array.type}[{len(array)}] nulls={array.null_count}"
    if isinstance(value, pa.Scalar):
        value = value.as_py()
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 4_000_000
    rng = np.random.default_rng(7)
    values = rng.integers(-1_000_000, 1_000_000, rows)
    validity = rng.random(rows) > 0.1
    data = pa.array(values, mask=~validity)
    other = pa.array(rng.integers(1, 1000, rows))
    floats = pa.array(rng.standard_normal(rows))
    mask = pc.greater(data, 0)

    print(f"ArrowMetal {am.version()} on {am.device_name()} ({am.backend()} backend)")
    print(f"{rows:,} rows of int64 with 10% nulls; medians of 7 runs\n")
    a, b, f, m = am.array(data), am.array(other), am.array(floats), am.array(mask)
    ops = [
        ("sum", lambda: am.sum(a), lambda: pc.sum(data)),
        ("mean", lambda: am.mean(a), lambda: pc.mean(data)),
        ("min", lambda: am.min(a), lambda: pc.min(data)),
        ("max (float64)", lambda: am.max(f), lambda: pc.max(floats)),
        ("count", lambda: am.count(a), lambda: pc.count(data)),
        ("greater(a, 0)", lambda: am.greater(a, 0), lambda: pc.greater(data, 0)),
        ("add(a, b)", lambda: am.add(a, b), lambda: pc.add(data, other)),
        ("multiply(a, 3)", lambda: am.multiply(a, 3), lambda: pc.multiply(data, 3)),
        ("divide(a, b)", lambda: am.divide(a, b), lambda: pc.divide(data, other)),
        ("filter(a, a > 0)", lambda: am.filter(a, m), lambda: pc.filter(data, mask)),
        ("take(a, b)", lambda: am.take(a, b), lambda: pc.take(data, other)),
        ("cast(a, float64)", lambda: am.cast(a, "float64"), lambda: pc.cast(data, pa.float64())),
    ]
    print(f"{'op':<18}{'arrowmetal':>14}{'pyarrow':>12}{'speed-up':>10}   result")
    for name, ours, theirs in ops:
        result, our_time = best_of(ours)
        expected, their_time = best_of(theirs)
        same = show(result) == show(expected)
        mark = "" if same else f"   (pyarrow: {show(expected)})"
        print(
            f"{name:<18}{our_time * 1e3:>11.2f} ms{their_time * 1e3:>9.2f} ms"
            f"{their_time / our_time:>9.1f}x   {show(result)}{mark}"
        )


if __name__ == "__main__":
    main()
