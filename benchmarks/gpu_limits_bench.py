"""The GPU at its limits (issue #14): how close ArrowMetal's element-wise,
compare, cast, logic and reduction kernels come to the memory bandwidth, and
what ten small ops cost from Python, batched and not. Peers (PyTorch, CuPy)
run the same work in the same process and run.

    python benchmarks/gpu_limits_bench.py [--rows 50000000,100000000] [--repeats 15]
                                          [--batch-repeats 2000] [--no-check] [--device cpu]

1. Bandwidth, per row count: each op's median time in ms for ArrowMetal,
   PyTorch and CuPy (and each peer's time over ArrowMetal's: above 1,
   ArrowMetal is faster). "bytes/row" is what the op reads and writes in
   Arrow's layout (a boolean is one bit; inputs have no nulls, so no validity
   bitmaps). The floor is those bytes at the rate of a device-to-device copy
   of an int64 array measured in the same run (a copy moves 16 bytes a row);
   "floor %" is the floor's time over ArrowMetal's, "am TB/s" the bytes over
   ArrowMetal's time (for reductions: the 8 bytes a row read). "ok" says
   whether ArrowMetal's result equals numpy's (checked once, untimed).
   PyTorch and CuPy keep booleans one byte each: their compares write, and
   their logic ops read and write, 8 times the bytes of an Arrow bitmap.
2. Batches, 1,000 int64 rows on the device: five am.sum and five am.greater
   in one ``am.batch()``, the same ten unbatched (ending with a device sync),
   and the same ten in each peer (then a synchronize); medians in µs. The
   timed loop includes the batch's end; the last timed run's results are
   checked against numpy. "first call" is the first run's time (any kernel
   compile or capture for a new batch shape).

On a machine without a CUDA backend it says so and measures nothing;
``--device cpu`` runs the same tables on the CPU backend (PyTorch on the CPU,
numpy in CuPy's place) to try the script itself. Nothing here passes or fails.
"""

import argparse
import gc
import math
import statistics
import time

import numpy as np
import pyarrow as pa
from breadth_bench import median_ms, table
from peers import optional

import arrowmetal as am

cp = optional("cupy")
torch = optional("torch")


class Peer:
    """A library compared with, on one device: how it puts a numpy array
    there, brings one back, waits for its work and gives its cached memory
    back."""

    def __init__(self, name, xp, put, to_host, sync, free):
        self.name, self.xp = name, xp
        self.put, self.to_host, self.sync, self.free = put, to_host, sync, free

    def cast(self, a, dtype):
        """`a` as numpy dtype name `dtype` ("float64", ...)."""
        if self.xp is torch:
            return a.to(getattr(torch, dtype))
        return a.astype(dtype)

    def min_max(self, a):
        if self.xp is torch:
            low, high = torch.aminmax(a)
            return low.item(), high.item()
        return a.min().item(), a.max().item()


def nothing():
    pass


def numpy_peer():
    return Peer("numpy", np, lambda v: v, lambda a: a, nothing, nothing)


def torch_peer(device):
    on_cuda = device == "cuda"
    return Peer(
        "torch",
        torch,
        lambda v: torch.from_numpy(v).to(device),
        lambda a: a.cpu().numpy(),
        torch.cuda.synchronize if on_cuda else nothing,
        torch.cuda.empty_cache if on_cuda else nothing,
    )


def cupy_peer():
    return Peer(
        "cupy",
        cp,
        cp.asarray,
        cp.asnumpy,
        cp.cuda.runtime.deviceSynchronize,
        cp.get_default_memory_pool().free_all_blocks,
    )


def peers_for(device):
    """The peers that can run on `device`, with a note for each one left out."""
    found = []
    if torch is None:
        print("note: no PyTorch here: its columns are left out")
    elif device == "cuda" and not torch.cuda.is_available():
        print("note: PyTorch sees no CUDA device here: its columns are left out")
    else:
        found.append(torch_peer(device))
    if device == "cpu":
        print("note: numpy stands in for CuPy on the CPU")
        found.append(numpy_peer())
    elif cp is None:
        print("note: no CuPy here: its columns are left out")
    else:
        try:
            found.append(cupy_peer())
        except Exception as e:  # noqa: BLE001 - a CuPy that cannot start
            print(f"note: CuPy failed to start ({type(e).__name__}: {e}): its columns are left out")
    for p in found:
        print(f"peer: {p.name} {p.xp.__version__}")
    return found


# name -> (bytes read and written per row in Arrow's layout, ArrowMetal,
# peer(p, d)). i and j: int64 in [0, 1000), two arrays (one array twice would
# be read once, through the cache); x: float64 in (0.5, 2); k: int32 in
# [0, 1000); f and g: booleans.
OPS = {
    "greater(i, 0)": (8 + 1 / 8, lambda d: am.greater(d["i"], 0), lambda p, d: d["i"] > 0),
    "equal(i, j)": (16 + 1 / 8, lambda d: am.equal(d["i"], d["j"]), lambda p, d: d["i"] == d["j"]),
    "multiply(i, 3)": (16, lambda d: am.multiply(d["i"], 3), lambda p, d: d["i"] * 3),
    "add(i, j)": (24, lambda d: am.add(d["i"], d["j"]), lambda p, d: d["i"] + d["j"]),
    "subtract(i, j)": (24, lambda d: am.subtract(d["i"], d["j"]), lambda p, d: d["i"] - d["j"]),
    "negate(i)": (16, lambda d: am.negate(d["i"]), lambda p, d: -d["i"]),
    "abs(i)": (16, lambda d: am.abs(d["i"]), lambda p, d: abs(d["i"])),
    "multiply(x, 3.0)": (16, lambda d: am.multiply(d["x"], 3.0), lambda p, d: d["x"] * 3.0),
    "sqrt(x)": (16, lambda d: am.sqrt(d["x"]), lambda p, d: p.xp.sqrt(d["x"])),
    "cast int64->float64": (
        16,
        lambda d: am.cast(d["i"], pa.float64()),
        lambda p, d: p.cast(d["i"], "float64"),
    ),
    "cast int32->int64": (
        12,
        lambda d: am.cast(d["k"], pa.int64()),
        lambda p, d: p.cast(d["k"], "int64"),
    ),
    "cast float64->float32": (
        12,
        lambda d: am.cast(d["x"], pa.float32()),
        lambda p, d: p.cast(d["x"], "float32"),
    ),
    "and_(f, g)": (3 / 8, lambda d: am.and_(d["f"], d["g"]), lambda p, d: d["f"] & d["g"]),
    "or_(f, g)": (3 / 8, lambda d: am.or_(d["f"], d["g"]), lambda p, d: d["f"] | d["g"]),
    "xor(f, g)": (3 / 8, lambda d: am.xor(d["f"], d["g"]), lambda p, d: d["f"] ^ d["g"]),
    "invert(f)": (2 / 8, lambda d: am.invert(d["f"]), lambda p, d: ~d["f"]),
    "and_kleene(f, g)": (
        3 / 8,
        lambda d: am.and_kleene(d["f"], d["g"]),
        lambda p, d: d["f"] & d["g"],
    ),
    "sum(i)": (8, lambda d: am.sum(d["i"]), lambda p, d: d["i"].sum().item()),
    "sum(x)": (8, lambda d: am.sum(d["x"]), lambda p, d: d["x"].sum().item()),
    "min_max(i)": (8, lambda d: am.min_max(d["i"]), lambda p, d: p.min_max(d["i"])),
}


def inputs(n):
    rng = np.random.default_rng(14)
    return {
        "i": rng.integers(0, 1000, n, dtype=np.int64),
        "j": rng.integers(0, 1000, n, dtype=np.int64),
        "x": rng.uniform(0.5, 2.0, n),
        "k": rng.integers(0, 1000, n, dtype=np.int32),
        "f": rng.integers(0, 2, n).astype(bool),
        "g": rng.integers(0, 2, n).astype(bool),
    }


def checked(ours, want):
    """Whether ArrowMetal's result `ours` equals numpy's `want`."""
    if isinstance(want, np.ndarray):
        got = ours.to_device("cpu").to_numpy(zero_copy_only=False)
        return got.dtype == want.dtype and np.array_equal(got, want)
    got = ours.as_py()
    if isinstance(got, dict):  # min_max's {"min": ..., "max": ...}
        got = (got["min"], got["max"])
    if isinstance(want, float):  # a float sum: another order of additions
        return math.isclose(got, want, rel_tol=1e-9)
    return got == want


def copy_ms(p, n, repeats):
    """Median ms of peer p's device-to-device copy of n int64 values."""
    src = p.put(np.arange(n, dtype=np.int64))
    dst = p.put(np.zeros(n, dtype=np.int64))
    if p.xp is torch:
        return median_ms(lambda: dst.copy_(src), repeats, p.sync)
    return median_ms(lambda: p.xp.copyto(dst, src), repeats, p.sync)


def copy_rate(n, peers, repeats):
    """(bytes per second, peer's name) of a device-to-device copy of n int64
    values, through the first peer that can make one; None where none can."""
    for p in peers:
        try:
            t = copy_ms(p, n, repeats)
            p.free()
            return 16 * n / (t / 1e3), p.name
        except Exception as e:  # noqa: BLE001 - a peer that cannot copy: try the next
            print(f"note: the copy through {p.name} failed ({type(e).__name__}: {e})")
    return None


def bandwidth(n, device, peers, repeats, check):
    host = inputs(n)
    try:
        mine = {k: am.array(pa.array(v)).to_device(device) for k, v in host.items()}
    except Exception as e:  # noqa: BLE001 - say so and go on with the next size
        print(f"\n{n:,} rows: ArrowMetal could not take the inputs ({type(e).__name__}: {e})")
        return
    sync = device_sync(device)
    theirs = {}
    for p in peers:
        try:
            theirs[p.name] = {k: p.put(v) for k, v in host.items()}
        except Exception as e:  # noqa: BLE001 - its columns say so below
            theirs[p.name] = e
    rate = copy_rate(n, peers, repeats)
    if rate is None:
        print(f"\n{n:,} rows: no peer made the device-to-device copy: no floor")
    else:
        print(f"\n{n:,} rows: device-to-device copy ({rate[1]}) at {rate[0] / 1e12:.2f} TB/s")
    reference = numpy_peer()
    rows = []
    for name, (bytes_per_row, ours, peer_op) in OPS.items():
        row = [name, f"{bytes_per_row:g}"]
        t_am, ok = None, "-"
        try:
            want = peer_op(reference, host) if check else None
        except Exception as e:  # noqa: BLE001 - nothing to check against
            want, ok = None, f"numpy: {type(e).__name__}"
        if want is not None:
            try:
                ok = "yes" if checked(ours(mine), want) else "WRONG"
            except Exception as e:  # noqa: BLE001 - the column says why
                ok = type(e).__name__
        try:
            t_am = median_ms(lambda f=ours, d=mine: f(d), repeats, sync)
            row.append(f"{t_am:.4f}")
        except Exception as e:  # noqa: BLE001 - the row says which op failed
            row.append(type(e).__name__)
        for p in peers:
            d = theirs[p.name]
            if isinstance(d, Exception):
                row += [type(d).__name__, "-"]
                continue
            try:
                t = median_ms(lambda f=peer_op, q=p, v=d: f(q, v), repeats, p.sync)
                row += [f"{t:.4f}", f"{t / t_am:.2f}" if t_am else "-"]
            except Exception as e:  # noqa: BLE001 - a peer lacking the op
                row += [type(e).__name__, "-"]
        if rate is not None and t_am:
            floor_ms = bytes_per_row * n / rate[0] * 1e3
            row += [f"{floor_ms:.4f}", f"{100 * floor_ms / t_am:.0f}%"]
        else:
            row += ["-", "-"]
        row.append(f"{bytes_per_row * n / (t_am / 1e3) / 1e12:.2f}" if t_am else "-")
        row.append(ok)
        rows.append(row)
    columns = ["op", "bytes/row", "arrowmetal ms"]
    for p in peers:
        columns += [f"{p.name} ms", f"{p.name}/am"]
    columns += ["floor ms", "floor %", "am TB/s", "ok"]
    print(f"medians of {repeats} runs\n")
    table(rows, columns)


def device_sync(device):
    """Waits for the ArrowMetal work queued on `device`."""
    dev = am._devices.device_ptr(device)

    def sync():
        rc = am.lib.am_device_sync(dev)
        if rc:
            raise am._errors.error_from_status(rc)

    return sync


def timed_us(function, repeats, warmup):
    """(median µs, first call's µs, last timed run's result) of `function`."""
    start = time.perf_counter()
    out = function()
    first = (time.perf_counter() - start) * 1e6
    for _ in range(warmup):
        out = function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6, first, out


def batches(device, peers, repeats, warmup):
    values = np.random.default_rng(10).integers(-1000, 1000, 1000)
    want_sum, want_gt = int(values.sum()), values > 0
    a = am.array(pa.array(values)).to_device(device)
    sync = device_sync(device)

    def batched():
        with am.batch():
            out = [(am.sum(a), am.greater(a, 0)) for _ in range(5)]
        return out

    def unbatched():
        out = [(am.sum(a), am.greater(a, 0)) for _ in range(5)]
        sync()
        return out

    def am_right(out):
        return all(
            s.as_py() == want_sum
            and np.array_equal(g.to_device("cpu").to_numpy(zero_copy_only=False), want_gt)
            for s, g in out
        )

    variants = [
        ("arrowmetal, 10 ops batched", batched, am_right),
        ("arrowmetal, 10 ops unbatched", unbatched, am_right),
    ]
    for p in peers:
        try:
            t = p.put(values)
        except Exception as e:  # noqa: BLE001 - its row says so
            variants.append((f"{p.name}, 10 ops", e, None))
            continue

        def ten(p=p, t=t):
            out = [(t.sum(), t > 0) for _ in range(5)]
            p.sync()
            return out

        def right(out, p=p):
            return all(
                s.item() == want_sum and np.array_equal(p.to_host(g), want_gt) for s, g in out
            )

        variants.append((f"{p.name}, 10 ops", ten, right))
    rows = []
    for label, function, right in variants:
        if isinstance(function, Exception):
            rows.append([label, type(function).__name__, "-", "-"])
            continue
        try:
            median, first, out = timed_us(function, repeats, warmup)
            rows.append([label, f"{median:.1f}", f"{first:.1f}", "yes" if right(out) else "WRONG"])
        except Exception as e:  # noqa: BLE001 - the row says which failed
            rows.append([label, type(e).__name__, "-", "-"])
    print(f"\nTen small ops (1,000 int64 rows on {device}), medians of {repeats} runs")
    print(f"after {warmup} warm-up runs, in µs\n")
    table(rows, ["variant", "median µs", "first call µs", "results checked"])


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rows", default="50000000,100000000")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--batch-repeats", type=int, default=2000)
    ap.add_argument("--batch-warmup", type=int, default=200)
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--no-check", action="store_true", help="skip the bandwidth ops' checks")
    args = ap.parse_args()
    if args.device == "cuda":
        found = {name: (ok, why) for name, ok, why in am.backends()}
        ok, why = found.get("cuda", (False, "not compiled into this library"))
        if not ok:
            print(f"no CUDA backend: {why}; nothing measured (--device cpu tries the script)")
            return
    am.set_device(args.device)
    print(f"ArrowMetal on {am.default_device()}")
    peers = peers_for(args.device)
    for n in [int(s) for s in args.rows.split(",") if s]:  # --rows "": the batch table alone
        bandwidth(n, args.device, peers, args.repeats, not args.no_check)
        gc.collect()  # this size's arrays, before the next size's
        for p in peers:
            p.free()
    batches(args.device, peers, args.batch_repeats, args.batch_warmup)


if __name__ == "__main__":
    main()
