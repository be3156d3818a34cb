"""The cumulative functions' GPU kernels (kernel_source_cumulative.c: CUM_BLOCKS,
CUM_CARRY, CUM_SCAN) run where there is no GPU: their CUDA
source compiled as C++ against the CPU emulation of CUDA (emu/cuda_emu.h) and
launched as gpu/ops_cumulative.c launches them -- three launches over inputs of
many blocks, odd tails and offsets -- each result against pyarrow.compute's (the
checked ops' first failing slot against a plain-Python scan). Float sums,
products and means are compared within the conformance cases' tolerance (a
scan's rounding); everything else exactly."""

import math

import numpy as np
import pytest
from test_nulls_kernels import (  # noqa: F401 - kernels is a fixture
    SCRATCH_BYTES,
    Args,
    as_array,
    bind,
    kernels,
    output,
    scalar_bits,
)

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

OPS = ["sum", "sum_checked", "prod", "prod_checked", "min", "max", "mean"]
LABEL = {pa.float32(): "float32", pa.float64(): "float64"}
NONE = 2**64 - 1


def label(t):
    return LABEL.get(t, str(t))


def values(t, op, n, seed, nulls, offset):
    rng = np.random.default_rng(seed)
    m = n + offset
    if pa.types.is_floating(t):
        if op.startswith("prod"):
            v = rng.uniform(0.9, 1.1, m)
        else:
            v = rng.uniform(-100, 100, m)
        v = [float(x) for x in v]
        for k in rng.integers(0, m, 3):  # a few specials
            v[k] = [float("nan"), -0.0, float("inf")][int(k) % 3]
    else:
        info = np.iinfo(t.to_pandas_dtype())
        if op == "sum_checked":
            lo, hi = max(int(info.min), -3), 3
        elif op == "prod_checked":
            lo, hi = (0, 1) if info.min == 0 else (-1, 1)
        else:
            lo, hi = int(info.min), int(info.max)
        v = [int(x) for x in rng.integers(lo, hi, m, endpoint=True)]
    mask = rng.random(m) < nulls
    return pa.array([None if k else x for x, k in zip(v, mask)], type=t).slice(offset)


def first_overflow(op, x, start, skip, t):
    """The slot where a left-to-right checked scan fails, or None."""
    info = np.iinfo(t.to_pandas_dtype())
    run = start
    for i, v in enumerate(x.to_pylist()):
        if v is None:
            if not skip:
                return None
            continue
        run = run + v if op == "sum_checked" else run * v
        if not info.min <= run <= info.max:
            return i
    return None


def run_scan(kernels, op, t, x, skip, start, blocks):  # noqa: F811 - the fixture
    n = len(x)
    out_t = pa.float64() if op == "mean" else t
    data, valid = output(out_t, n, x.null_count > 0)
    scratch = np.zeros(SCRATCH_BYTES, np.uint8)
    status = np.array([NONE, 0, 0, 0, 0, 0, 0, 0], np.uint64)
    args = Args(n=n)
    bind(args, 0, x)
    args.out = data.ctypes.data
    args.out_valid = valid.ctypes.data if valid is not None else 0
    args.scratch = scratch.ctypes.data
    args.status = status.ctypes.data
    args.scalar = scalar_bits(t, start)
    base = f"am_cumulative_{op}{'_skip' if skip else ''}_{label(t)}"
    kernels(base + "_blocks", blocks, args)
    kernels(base + "_carry", 1, args)
    kernels(base + "_scan", blocks, args)
    err = int(status[0])
    return as_array(out_t, n, data, valid), (None if err == NONE else err)


def default_start(op, t):
    if op.startswith("prod"):
        return 1
    if op in ("min", "max"):
        if pa.types.is_floating(t):
            return math.inf if op == "min" else -math.inf
        info = np.iinfo(t.to_pandas_dtype())
        return int(info.max if op == "min" else info.min)
    return 0


def close(t, got, want, op, x):
    """Within the conformance cases' tolerance (cumulative.py) for float sums,
    products and means; else exactly (NaN equal to NaN, zero signs counted)."""
    vals = [abs(v) for v in x.to_pylist() if v is not None and math.isfinite(v)]
    n = len(x) + 1
    eps = 2.0**-24 if t == pa.float32() else 2.0**-53
    for i, (g, w) in enumerate(zip(got.to_pylist(), want.to_pylist())):
        if g is None or w is None:
            assert g is None and w is None, (i, g, w)
            continue
        if isinstance(w, float) and (math.isnan(w) or math.isinf(w) or math.isnan(g)):
            assert (math.isnan(g) and math.isnan(w)) or g == w, (i, g, w)
            continue
        if op in ("min", "max") or not isinstance(w, float):
            assert g == w and math.copysign(1, g) == math.copysign(1, w), (i, g, w)
        elif op == "mean":
            assert abs(g - w) <= 2.0**-53 * n * max(vals or [0]), (i, g, w)
        elif op.startswith("sum"):
            assert abs(g - w) <= eps * n * sum(vals), (i, g, w)
        else:
            assert abs(g - w) <= 2 * n * eps * abs(w) + 1e-300, (i, g, w)


# pyarrow 25 starts float cumulative_max from the smallest positive double and
# cumulative_min from the largest finite one (26 from -inf and +inf).
PYARROW_FLOAT_MINMAX_RIGHT = pc.cumulative_max(pa.array([-1.0])).to_pylist() == [-1.0]

CASES = [
    ("sum", pa.int8()), ("sum", pa.float32()), ("sum", pa.uint32()),
    ("sum_checked", pa.int16()), ("sum_checked", pa.int64()), ("sum_checked", pa.uint64()),
    ("prod", pa.uint8()), ("prod", pa.float64()),
    ("prod_checked", pa.int32()), ("prod_checked", pa.int64()), ("prod_checked", pa.uint16()),
    ("min", pa.float32()), ("min", pa.int64()), ("max", pa.float64()), ("max", pa.uint16()),
    ("mean", pa.int32()), ("mean", pa.float64()),
]  # fmt: skip


@pytest.mark.parametrize("op,t", CASES, ids=[f"{o}-{label(t)}" for o, t in CASES])
def test_scan_against_pyarrow(kernels, op, t):  # noqa: F811 - the fixture
    if op in ("min", "max") and pa.types.is_floating(t) and not PYARROW_FLOAT_MINMAX_RIGHT:
        pytest.skip("pyarrow 25 starts float cumulative min/max from finite bounds")
    # Several blocks (2,048-slot passes of 256 threads), odd tails, offsets;
    # nulls rare enough that skip_nulls=False reaches past the first block.
    for n, blocks, nulls, offset in ((5000, 3, 0.0005, 3), (70, 1, 0.2, 0), (4501, 4, 0.1, 9)):
        x = values(t, op, n, n + len(op), nulls, offset)
        for skip in (False, True):
            start = default_start(op, t)
            got, err = run_scan(kernels, op, t, x, skip, start, blocks)
            if op in ("sum_checked", "prod_checked"):
                assert err == first_overflow(op, x, start, skip, t), (n, skip)
                if err is not None:
                    continue
            else:
                assert err is None
            opts = pc.CumulativeOptions(skip_nulls=skip)
            want = pc.call_function(f"cumulative_{op}", [x], opts)
            close(t if op != "mean" else pa.float64(), got, want, op, x)


@pytest.mark.parametrize("t", [pa.int8(), pa.int64(), pa.uint64()])
def test_checked_overflow_first_slot_across_blocks(kernels, t):  # noqa: F811 - the fixture
    """A running sum that leaves the type in one block and comes back in the
    next is reported at the slot where it left (no miss through wrapped block
    totals), and one that never leaves is not reported (no false positive)."""
    info = np.iinfo(t.to_pandas_dtype())
    hi, lo = int(info.max), int(info.min)
    n = 6000
    base = [0] * n
    leave = list(base)
    leave[2100], leave[2101] = hi, 1  # out of range at 2101 (block 1 of 3)
    if lo < 0:
        leave[4200] = -hi  # back in range (block 2)
    x = pa.array(leave, type=t)
    _, err = run_scan(kernels, "sum_checked", t, x, False, 0, 3)
    assert err == 2101
    stay = list(base)
    stay[100], stay[4100] = hi, (-hi if lo < 0 else 0)
    _, err = run_scan(kernels, "sum_checked", t, pa.array(stay, type=t), False, 0, 3)
    assert err is None
    # A start at the top: the first 1 overflows.
    one = pa.array([0] * 3000 + [1] + [0] * 10, type=t)
    _, err = run_scan(kernels, "sum_checked", t, one, True, hi, 2)
    assert err == 3000
    if lo < 0:  # and below the bottom: the first -1 from the minimum (a 128-bit
        # sum whose high word is all ones but whose low word is not negative)
        down = pa.array([0] * 3000 + [-1] + [0] * 10, type=t)
        _, err = run_scan(kernels, "sum_checked", t, down, False, lo, 2)
        assert err == 3000


def test_checked_product_zero_after_overflow_still_reported(kernels):  # noqa: F811
    x = pa.array([1] * 2500 + [2**40, 2**40] + [0] + [1] * 3000, type=pa.int64())
    _, err = run_scan(kernels, "prod_checked", pa.int64(), x, False, 1, 3)
    assert err == 2501
    y = pa.array([1] * 2500 + [0] + [2**40, 2**40] + [1] * 3000, type=pa.int64())
    got, err = run_scan(kernels, "prod_checked", pa.int64(), y, False, 1, 3)
    assert err is None and got.to_pylist()[-1] == 0
