"""Throughput of the casts between strings and floats or temporal values, and of
strptime / strftime, on the CPU against pyarrow.compute, side by side in one run:
medians in milliseconds, and pyarrow's time over ArrowMetal's (above 1: ArrowMetal
is faster).

    python benchmarks/string_cast_bench.py [--rows 1000000] [--repeats 5]

Floats are random bit patterns (finite ones) and values of a few digits; the
timestamps are instants of the years 1900 to 2100 in microseconds (naive, UTC,
America/New_York), their texts pyarrow's own; 5% nulls throughout. ArrowMetal's inputs are am.Arrays made once;
results are am.Arrays. Nothing here passes or fails.
"""

import argparse
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms, table

import arrowmetal as am


def inputs(rows):
    rng = np.random.default_rng(3)
    nulls = rng.random(rows) < 0.05
    bits = rng.integers(0, 2**64 - 1, rows, dtype=np.uint64).view(np.float64)
    bits[~np.isfinite(bits)] = 0.5
    f64 = pa.array(bits, mask=nulls)
    short = pa.array(np.round(rng.standard_normal(rows) * 1000, 2), mask=nulls)
    f32 = pa.array(rng.integers(0, 2**32 - 1, rows, dtype=np.uint32).view(np.float32), mask=nulls)
    f32 = pc.if_else(pc.is_finite(f32), f32, 0.5)
    us = rng.integers(-2_208_988_800, 4_102_444_800, rows) * 10**6 + rng.integers(0, 10**6, rows)
    ts = pa.array(us, pa.timestamp("us"), mask=nulls)
    utc = ts.cast(pa.timestamp("us", "UTC"))
    ny = ts.cast(pa.timestamp("us", "America/New_York"))
    days = pa.array(us // 86_400_000_000, pa.int64()).cast(pa.int32()).cast(pa.date32())
    return f64, short, f32, ts, utc, ny, days


def functions(rows):
    f64, short, f32, ts, utc, ny, days = inputs(rows)
    f64_text, short_text = pc.cast(f64, pa.string()), pc.cast(short, pa.string())
    f32_text, ts_text = pc.cast(f32, pa.string()), pc.cast(ts, pa.string())
    days_text = pc.cast(days, pa.string())
    fmt = "%Y-%m-%d %H:%M:%S"
    strf = pc.strftime(ts.cast(pa.timestamp("s"), safe=False), format=fmt)
    given = dict(locals())
    m = {name: am.array(x) for name, x in given.items() if isinstance(x, pa.Array)}
    s = pa.string()
    return [
        ("float64 -> string", lambda: am.cast(m["f64"], s), lambda: pc.cast(f64, s)),
        (
            "float64 (2 decimals) -> string",
            lambda: am.cast(m["short"], s),
            lambda: pc.cast(short, s),
        ),
        ("float32 -> string", lambda: am.cast(m["f32"], s), lambda: pc.cast(f32, s)),
        (
            "string -> float64",
            lambda: am.cast(m["f64_text"], pa.float64()),
            lambda: pc.cast(f64_text, pa.float64()),
        ),
        (
            "string (2 decimals) -> float64",
            lambda: am.cast(m["short_text"], pa.float64()),
            lambda: pc.cast(short_text, pa.float64()),
        ),
        (
            "string -> float32",
            lambda: am.cast(m["f32_text"], pa.float32()),
            lambda: pc.cast(f32_text, pa.float32()),
        ),
        ("timestamp[us] -> string", lambda: am.cast(m["ts"], s), lambda: pc.cast(ts, s)),
        ("timestamp[us, UTC] -> string", lambda: am.cast(m["utc"], s), lambda: pc.cast(utc, s)),
        ("timestamp[us, New York] -> string", lambda: am.cast(m["ny"], s), lambda: pc.cast(ny, s)),
        (
            "string -> timestamp[us]",
            lambda: am.cast(m["ts_text"], pa.timestamp("us")),
            lambda: pc.cast(ts_text, pa.timestamp("us")),
        ),
        ("date32 -> string", lambda: am.cast(m["days"], s), lambda: pc.cast(days, s)),
        (
            "string -> date32",
            lambda: am.cast(m["days_text"], pa.date32()),
            lambda: pc.cast(days_text, pa.date32()),
        ),
        ("strftime " + fmt, lambda: am.strftime(m["ts"], fmt), lambda: pc.strftime(ts, fmt)),
        (
            "strptime " + fmt,
            lambda: am.strptime(m["strf"], fmt, "s"),
            lambda: pc.strptime(strf, fmt, "s"),
        ),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", default="1000000")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    out = []
    for rows in (int(r) for r in args.rows.split(",")):
        for name, mine, peer in functions(rows):
            before = sum(am.fallbacks().values())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
                t_am = median_ms(mine, args.repeats)
            fell_back = sum(am.fallbacks().values()) > before
            t_pa = median_ms(peer, args.repeats)
            label = name + (" (pyarrow ran it)" if fell_back else "")
            out.append((f"{rows:,}", label, f"{t_am:.2f}", f"{t_pa:.2f}", f"{t_pa / t_am:.2f}"))
    table(out, ["rows", "function", "arrowmetal ms", "pyarrow ms", "pyarrow / am"])


if __name__ == "__main__":
    main()
