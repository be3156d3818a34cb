"""Time zones on the CPU: the field extractions and casts of timestamps with a time
zone (local wall time) and assume_timezone, against pyarrow.compute, in the same run
(medians of --repeats runs, milliseconds; pyarrow's time over ArrowMetal's: above 1
ArrowMetal is faster), with the same calls on the timestamps without a zone beside them.

    PYTHONPATH=python .venv/bin/python benchmarks/timezone_bench.py [--rows 1000000]

Inputs: timestamp[us] drawn uniformly over 1970-2037 (sorted: offsets looked up once a
period; shuffled: a lookup a value), 1% null, in America/New_York (floor_temporal to
hours in Asia/Kolkata). Not part of CI: it prints a table."""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from breadth_bench import median_ms

import arrowmetal as am

ZONE = "America/New_York"


def inputs(rows, order, seed=3):
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 2_143_238_400 * 10**6, rows)
    if order == "sorted":
        v.sort()
    mask = rng.random(rows) < 0.01
    return pa.array(v, pa.timestamp("us"), mask=mask)


def works(naive):
    zoned = naive.cast(pa.timestamp("us", tz=ZONE))
    out = []
    for name in ("year", "hour", "day_of_week"):
        out.append((f"{name} (zoned)", lambda f=name: getattr(am, f)(zoned),
                    lambda f=name: getattr(pc, f)(zoned)))  # fmt: skip
        out.append((f"{name} (no zone)", lambda f=name: getattr(am, f)(naive),
                    lambda f=name: getattr(pc, f)(naive)))  # fmt: skip
    for to in (pa.date32(), pa.time64("us")):
        out.append((f"cast to {to} (zoned)", lambda t=to: am.cast(zoned, t),
                    lambda t=to: pc.cast(zoned, t)))  # fmt: skip
    # rounding in local time: to days in New York (its midnights all exist once), to
    # hours in Kolkata (+05:30; New York's repeated hours would fail the call, as pyarrow's)
    kolkata = naive.cast(pa.timestamp("us", tz="Asia/Kolkata"))
    for unit, x, where in (("day", zoned, ZONE), ("hour", kolkata, "Asia/Kolkata")):
        out.append((f"floor_temporal to {unit} ({where})",
                    lambda u=unit, x=x: am.floor_temporal(x, unit=u),
                    lambda u=unit, x=x: pc.floor_temporal(x, unit=u)))  # fmt: skip
        out.append((f"floor_temporal to {unit} (no zone)",
                    lambda u=unit: am.floor_temporal(naive, unit=u),
                    lambda u=unit: pc.floor_temporal(naive, unit=u)))  # fmt: skip
    out.append(("assume_timezone", lambda: am.assume_timezone(naive, ZONE, ambiguous="earliest",
                                                              nonexistent="latest"),
                lambda: pc.assume_timezone(naive, ZONE, ambiguous="earliest",
                                           nonexistent="latest")))  # fmt: skip
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    warnings.simplefilter("error", am.ArrowMetalFallbackWarning)  # every call the library's
    print(f"{args.rows:,} timestamp[us] rows, {ZONE}, ArrowMetal {am.__version__} on the CPU, "
          f"pyarrow {pa.__version__}; median of {args.repeats} runs (ms)")  # fmt: skip
    print("| order | work | ArrowMetal | pyarrow | pyarrow / ArrowMetal |")
    print("|---|---|---:|---:|---:|")
    for order in ("sorted", "shuffled"):
        naive = inputs(args.rows, order)
        for work, mine, theirs in works(naive):
            a = median_ms(mine, args.repeats)
            b = median_ms(theirs, args.repeats)
            print(f"| {order} | {work} | {a:.1f} | {b:.1f} | {b / a:.2f} |")


if __name__ == "__main__":
    main()
