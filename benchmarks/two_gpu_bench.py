"""Arrays between two GPUs of one host (issue #14): an int64 array moved from
cuda:0 to cuda:1 as am.to_device moves it (device to device,
cuda/peer_copy.c), beside the same move through the host and beside CuPy's
peer copy of the same bytes; then an add whose inputs live on the two
devices, beside the same add with both on one. Medians in milliseconds,
each move waited for; results checked. Nothing here passes or fails.

    python benchmarks/two_gpu_bench.py [--rows 1000000,10000000,100000000] [--repeats 20]
"""

import argparse

import numpy as np
import pyarrow as pa
from breadth_bench import median_ms, table
from peers import optional

import arrowmetal as am

cp = optional("cupy")


def sync_both():
    for device in ("cuda:0", "cuda:1"):
        rc = am.lib.am_device_sync(am._devices.device_ptr(device))
        if rc:
            raise am._errors.error_from_status(rc)


def cupy_peer_ms(n, repeats):
    """CuPy's copy of n int64 from device 0 to device 1 (cudaMemcpyPeer)."""
    with cp.cuda.Device(0):
        src = cp.arange(n, dtype=cp.int64)
    with cp.cuda.Device(1):
        dst = cp.empty(n, dtype=cp.int64)

    def copy():
        cp.cuda.runtime.memcpyPeer(dst.data.ptr, 1, src.data.ptr, 0, n * 8)

    return median_ms(copy, repeats)


def row(n, repeats):
    values = np.arange(n, dtype=np.int64) * 3 - n
    host = pa.array(values)
    a0 = am.array(host, device="cuda:0")
    b1 = am.array(host, device="cuda:1")
    b0 = am.array(host, device="cuda:0")
    moved = a0.to_device("cuda:1")
    ok = moved.device == "cuda:1" and moved.to_pyarrow().equals(host)
    ok = ok and am.add(a0, b1).to_pyarrow().equals(pa.array(values * 2))
    t_peer = median_ms(lambda: a0.to_device("cuda:1"), repeats, sync_both)
    t_host = median_ms(lambda: a0.to_device("cpu").to_device("cuda:1"), repeats, sync_both)
    t_cupy = cupy_peer_ms(n, repeats) if cp else None
    t_mixed = median_ms(lambda: am.add(a0, b1), repeats, sync_both)
    t_same = median_ms(lambda: am.add(a0, b0), repeats, sync_both)
    return [
        f"{n:,}",
        f"{t_peer:.3f}",
        f"{n * 8 / 1e9 / (t_peer / 1e3):.1f}",
        f"{t_host:.3f}",
        f"{t_cupy:.3f}" if t_cupy is not None else "-",
        f"{t_mixed:.3f}",
        f"{t_same:.3f}",
        "yes" if ok else "NO",
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="1000000,10000000,100000000")
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
    print(f"ArrowMetal {am.__version__}; CuPy {cp.__version__ if cp else 'not installed'}\n")
    rows = [row(int(s), args.repeats) for s in args.rows.split(",") if s]
    columns = ["int64 rows", "to_device ms", "GB/s", "via host ms", "CuPy peer ms"]
    columns += ["add across ms", "add on one ms", "checked"]
    print(f"medians of {args.repeats} runs, cuda:0 -> cuda:1\n")
    table(rows, columns)


if __name__ == "__main__":
    main()
