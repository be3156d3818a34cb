"""Every element-wise function of issue #11, side by side with its peer in
one run: on the CPU against pyarrow.compute (the issue's target: at least
2x), on a CUDA device against the device-to-device copy of the bytes the
function reads and writes (the target: at least 80% of it). Medians in
milliseconds; "pa/am" above 1 means ArrowMetal is faster. Nothing here
passes or fails.

    python benchmarks/elementwise_sweep_bench.py [--rows 1000000,50000000] [--device cpu|cuda]
        [--only ln,log1p,...]

breadth_bench.py compares a sample of these with numpy, CuPy and PyTorch;
this sweep takes them all, with one peer each.
"""

import argparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms, table
from peers import optional

import arrowmetal as am

cp = optional("cupy")

# The inputs (see inputs()) each function takes, in order. Scalars are
# written as Python values.
UNARY_X = ["sqrt", "ln", "log10", "log2", "log1p", "sqrt_checked", "ln_checked"]
UNARY_X += ["log10_checked", "log2_checked", "log1p_checked"]
UNARY_Y = ["exp", "sin", "cos", "tan", "atan", "floor", "ceil", "trunc", "round", "sign"]
UNARY_Y += ["negate_checked", "abs_checked", "is_nan", "is_finite", "is_inf"]
UNARY_U = ["asin", "acos", "asin_checked", "acos_checked"]
BINARY_XY = ["power", "power_checked", "atan2"]
BINARY_IJ = ["add_checked", "subtract_checked", "multiply_checked", "bit_wise_and"]
BINARY_IJ += ["bit_wise_or", "bit_wise_xor"]
BINARY_IS = ["shift_left", "shift_right", "shift_left_checked", "shift_right_checked"]
BINARY_FG = ["and_kleene", "or_kleene", "xor", "and_not", "and_not_kleene"]

CALLS = {}
for name in UNARY_X:
    CALLS[name] = ("x",)
for name in UNARY_Y:
    CALLS[name] = ("y",)
for name in UNARY_U:
    CALLS[name] = ("u",)
for name in BINARY_XY:
    CALLS[name] = ("x", "y")
for name in BINARY_IJ:
    CALLS[name] = ("i", "j")
for name in BINARY_IS:
    CALLS[name] = ("i", "s")
for name in BINARY_FG:
    CALLS[name] = ("f", "g")
CALLS["divide_checked"] = ("y", "x")
CALLS["bit_wise_not"] = ("i",)
CALLS["is_null"] = ("n",)
CALLS["is_valid"] = ("n",)
CALLS["fill_null"] = ("n", 0.0)
CALLS["coalesce"] = ("n", "y")
CALLS["if_else"] = ("f", "x", "y")
# A row under another name than its function's: round to 2 digits (the
# general path: scale, round, scale back) beside round to whole numbers.
CALLS["round_ndigits_2"] = ("y", 2)
FUNCTION = {"round_ndigits_2": "round"}

BOOL_OUT = {"is_nan", "is_finite", "is_inf", "is_null", "is_valid"} | set(BINARY_FG)


def inputs(n):
    rng = np.random.default_rng(11)
    y = rng.uniform(-2.0, 2.0, n)
    return {
        "x": pa.array(rng.uniform(0.5, 2.0, n)),
        "y": pa.array(y),
        "u": pa.array(rng.uniform(-1.0, 1.0, n)),
        "i": pa.array(rng.integers(0, 1000, n, dtype=np.int64)),
        "j": pa.array(rng.integers(0, 1000, n, dtype=np.int64)),
        "s": pa.array(rng.integers(0, 8, n, dtype=np.int64)),
        "f": pa.array(rng.integers(0, 2, n).astype(bool)),
        "g": pa.array(rng.integers(0, 2, n).astype(bool)),
        "n": pa.array(y, mask=rng.random(n) < 0.1),
    }


def slot_bytes(array):
    """Bytes a slot of this array moves (its bitmap included)."""
    width = 1 / 8 if pa.types.is_boolean(array.type) else array.type.bit_width / 8
    return width + (1 / 8 if array.null_count else 0)


def arguments(spec, data):
    return [data[a] if isinstance(a, str) else a for a in spec]


def cpu_rows(n, host, repeats, calls):
    am.set_device("cpu")
    mine = {k: am.array(v) for k, v in host.items()}
    rows = []
    for name, spec in calls.items():
        fn = FUNCTION.get(name, name)
        ours, theirs = getattr(am, fn), getattr(pc, fn)
        a_am, a_pa = arguments(spec, mine), arguments(spec, host)
        t_am = median_ms(lambda f=ours, a=a_am: f(*a), repeats)
        t_pa = median_ms(lambda f=theirs, a=a_pa: f(*a), repeats)
        rows.append([f"{n:,}", name, f"{t_am:.3f}", f"{t_pa:.3f}", f"{t_pa / t_am:.2f}"])
    return rows


COPY_MS = {}  # bytes -> ms


def copy_ms(nbytes, repeats):
    """A CuPy device-to-device copy that reads and writes `nbytes` in all,
    timed as the functions are (call, then synchronize): the floor keeps the
    fixed cost of a call, which a bitmap function of 10^8 slots (37.5 MB)
    is mostly made of."""
    if nbytes not in COPY_MS:
        src = cp.zeros(max(int(nbytes // 2), 1), dtype=cp.uint8)
        dst = cp.empty_like(src)
        sync = cp.cuda.runtime.deviceSynchronize
        COPY_MS[nbytes] = median_ms(lambda: dst.__setitem__(slice(None), src), repeats, sync)
    return COPY_MS[nbytes]


def cuda_rows(n, host, repeats, calls):
    cuda = am._devices.device_ptr("cuda")
    mine = {k: am.array(v).to_device("cuda") for k, v in host.items()}
    rows = []
    for name, spec in calls.items():
        ours, a = getattr(am, FUNCTION.get(name, name)), arguments(spec, mine)
        t_am = median_ms(lambda f=ours, a=a: f(*a), repeats, lambda: am.lib.am_device_sync(cuda))
        # bytes read and written a slot (the results have no nulls here):
        # is_null and is_valid read the validity alone
        if name in ("is_null", "is_valid"):
            moved = 1 / 8
        else:
            moved = sum(slot_bytes(host[k]) for k in spec if isinstance(k, str))
        moved += 1 / 8 if name in BOOL_OUT else 8
        t_copy = copy_ms(round(moved * n), repeats)
        rows.append([f"{n:,}", name, f"{t_am:.3f}", f"{t_copy:.3f}", f"{100 * t_copy / t_am:.0f}%"])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="1000000,50000000")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--only", default="", help="comma-separated functions (default: all)")
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s]
    unknown = sorted(set(only) - set(CALLS))
    if unknown:
        ap.error(f"unknown functions: {', '.join(unknown)}")
    calls = {k: v for k, v in CALLS.items() if not only or k in only}
    rows = []
    for n in (int(s) for s in args.rows.split(",")):
        run = cpu_rows if args.device == "cpu" else cuda_rows
        rows += run(n, inputs(n), args.repeats, calls)
    if args.device == "cpu":
        print(f"CPU backend ({am.backend()}), {args.repeats} runs each, medians in ms\n")
        table(rows, ["rows", "function", "arrowmetal", "pyarrow", "pa/am"])
    else:
        print(
            f"CUDA (cuda:0), {args.repeats} runs each, medians in ms; the floor: a CuPy copy "
            "reading and writing the bytes the function reads and writes\n"
        )
        table(rows, ["rows", "function", "arrowmetal", "copy", "floor %"])


if __name__ == "__main__":
    main()
