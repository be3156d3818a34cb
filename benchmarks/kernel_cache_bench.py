"""What a GPU kernel costs before its first run: compiled cold, found in
process, or loaded from the disk cache. Each scenario runs in a fresh
process; prints a table of milliseconds per kernel.

    python benchmarks/kernel_cache_bench.py [device]
"""

import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, sys, time
import pyarrow as pa
import arrowmetal as am
device = sys.argv[1]
types = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64"]
arrays = [am.array(pa.array(range(100), type=t), device=device) for t in types]
first, second = [], []
for a in arrays:
    for op in (am.sum, am.max):
        start = time.perf_counter(); op(a); first.append(time.perf_counter() - start)
        start = time.perf_counter(); op(a); second.append(time.perf_counter() - start)
info = am.kernel_cache_info()
print(json.dumps({"first": first, "second": second, "info": info}))
"""


def scenario(device, cache_dir, enabled=True):
    env = dict(os.environ, ARROWMETAL_CACHE_DIR=cache_dir)
    env["ARROWMETAL_KERNEL_CACHE"] = "1" if enabled else "0"
    started = time.perf_counter()
    child = subprocess.run(
        [sys.executable, "-c", CHILD, device], env=env, capture_output=True, text=True, check=False
    )
    if child.returncode != 0:
        raise SystemExit(f"the {device} child failed:\n{child.stderr}")
    result = json.loads(child.stdout.strip().splitlines()[-1])
    result["process"] = time.perf_counter() - started
    return result


def median_ms(values):
    values = sorted(values)
    return values[len(values) // 2] * 1e3


def main():
    device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
    with tempfile.TemporaryDirectory() as cache_dir:
        cold = scenario(device, cache_dir)
        disk = scenario(device, cache_dir)
        off = scenario(device, cache_dir + "-off", enabled=False)
    kernels = len(cold["first"])
    print(f"{kernels} kernels (sum and max over 10 types, 100 rows) on {device}")
    print(
        f"{'scenario':<34}{'first call ms':>14}{'later call ms':>14}{'compiles':>10}"
        f"{'disk hits':>10}"
    )
    for name, result in [
        ("cold: compile (NVRTC), write disk", cold),
        ("warm from disk (new process)", disk),
        ("disk cache off (new process)", off),
    ]:
        info = result["info"]
        print(
            f"{name:<34}{median_ms(result['first']):>14.2f}{median_ms(result['second']):>14.3f}"
            f"{info['compiles']:>10}{info['disk_hits']:>10}"
        )
    cold_info, disk_info = cold["info"], disk["info"]
    if cold_info["compiles"]:
        print(
            f"compile: {cold_info['compile_seconds'] / cold_info['compiles'] * 1e3:.1f} ms per "
            f"kernel; load from disk: "
            f"{disk_info['load_seconds'] / max(1, disk_info['disk_hits']) * 1e3:.2f} ms per kernel"
        )


if __name__ == "__main__":
    main()
