"""Throughput of floor_temporal, ceil_temporal and round_temporal on the CPU
against pyarrow.compute, side by side in one run: medians in milliseconds, and
pyarrow's time over ArrowMetal's (above 1: ArrowMetal is faster).

    python benchmarks/round_temporal_bench.py [--rows 1000000,10000000] [--repeats 5]

The timestamps are timestamp[us] values drawn over 0 .. 2^50 us (1970 to
2005), 5% nulls; the dates are date32 over the same years. ArrowMetal's inputs
are am.Arrays made once (import is zero-copy on the CPU); results are
am.Arrays. Nothing here passes or fails.
"""

import argparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms, table

import arrowmetal as am


def functions(rows):
    rng = np.random.default_rng(2)
    nulls = rng.random(rows) < 0.05
    ts = pa.array(rng.integers(0, 2**50, rows), pa.timestamp("us"), mask=nulls)
    d32 = pa.array(rng.integers(0, 13000, rows).astype(np.int32), pa.date32(), mask=nulls)
    t, d = am.array(ts), am.array(d32)
    calls = [
        ("floor_temporal", ts, t, {"unit": "day"}),
        ("floor_temporal", ts, t, {"unit": "hour"}),
        ("ceil_temporal", ts, t, {"multiple": 15, "unit": "minute"}),
        ("round_temporal", ts, t, {"unit": "second"}),
        ("floor_temporal", ts, t, {"unit": "week"}),
        ("round_temporal", ts, t, {"multiple": 3, "unit": "hour", "calendar_based_origin": True}),
        ("floor_temporal", ts, t, {"unit": "month"}),
        ("round_temporal", ts, t, {"unit": "quarter"}),
        ("floor_temporal", ts, t, {"unit": "year"}),
        ("floor_temporal", d32, d, {"unit": "month"}),
    ]
    out = []
    for name, peer_in, mine_in, kw in calls:
        mine_fn, peer_fn = getattr(am, name), getattr(pc, name)
        out.append(
            (
                f"{name} {kw} {peer_in.type}",
                lambda f=mine_fn, x=mine_in, kw=kw: f(x, **kw),
                lambda f=peer_fn, x=peer_in, kw=kw: f(x, **kw),
            )
        )
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", default="1000000,10000000")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    out = []
    for rows in (int(r) for r in args.rows.split(",")):
        for name, mine, peer in functions(rows):
            t_am = median_ms(mine, args.repeats)
            t_pa = median_ms(peer, args.repeats)
            out.append((f"{rows:,}", name, f"{t_am:.2f}", f"{t_pa:.2f}", f"{t_pa / t_am:.2f}"))
    table(out, ["rows", "call", "arrowmetal ms", "pyarrow ms", "pyarrow / am"])


if __name__ == "__main__":
    main()
