"""A/B of the instructions one 1,000-row call costs from Python, counted by
valgrind's callgrind: this tree's package against a baseline tree's (a
checkout of an earlier commit with its library and cffi module built).

Time on these shared machines swings by more than the 5% an A/B must resolve
(runs of benchmarks/ab_cpu_bench.py disagree with each other by 30%);
instruction counts do not: the same binary, inputs and environment give the
same count. Each row is (instructions of 2K calls - instructions of K calls)
/ K, so start-up and warm-up cancel. Counts are not time (a cache miss costs
one instruction), so this complements the timed tables, it does not replace
them.

    python benchmarks/ab_instructions.py BASE_DIR [--calls 400]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SHIM = r"""
#include <valgrind/callgrind.h>
void cg_zero(void) { CALLGRIND_ZERO_STATS; }
void cg_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
"""

# The 1,000-row rows of benchmarks/cpu_bench.py: label -> expression over
# `a` (an am.Array), `p` (a pyarrow array whose CPU import is kept), `b` and
# `q` (the second operand of each kind), `m` and `n` (masks), `ix` and `iy`
# (indices); fresh() is a new pyarrow array object over p's buffers (the
# same cost on both sides: its imports are what differs).
OPS = {
    "sum, am.Array": "am.sum(a)",
    "greater(scalar), am.Array": "am.greater(a, 0)",
    "multiply(scalar), am.Array": "am.multiply(a, 3)",
    "add(array), am.Array": "am.add(a, b)",
    "filter, am.Array": "am.filter(a, m)",
    "take(500), am.Array": "am.take(a, ix)",
    "cast(float64), am.Array": "am.cast(a, 'float64')",
    "sum, kept pyarrow": "am.sum(p)",
    "greater(scalar), kept pyarrow": "am.greater(p, 0)",
    "add(array), kept pyarrow": "am.add(p, q)",
    "filter, kept pyarrow": "am.filter(p, n)",
    "take(500), kept pyarrow": "am.take(p, iy)",
    "cast(float64), kept pyarrow": "am.cast(p, 'float64')",
    "sum, a new pyarrow array": "am.sum(fresh())",
    "add(array), new pyarrow arrays": "am.add(fresh(), fresh())",
}


def worker(shim, calls):
    import ctypes

    import numpy as np
    import pyarrow as pa

    import arrowmetal as am

    cg = ctypes.CDLL(shim)
    rng = np.random.default_rng(3)
    values = rng.integers(-1000, 1000, 1000)
    p, q = pa.array(values), pa.array(values[::-1].copy())
    n = pa.array(values > 0)
    iy = pa.array(rng.integers(0, 1000, 500))
    a, b, m, ix = am.array(p), am.array(q), am.array(n), am.array(iy)
    buffers = p.buffers()

    def fresh():
        return pa.Array.from_buffers(p.type, len(p), buffers)

    scope = {"am": am, "a": a, "b": b, "m": m, "ix": ix, "p": p, "q": q, "n": n, "iy": iy}
    scope["fresh"] = fresh
    for label, expression in OPS.items():
        code = compile(expression, label, "eval")
        for _ in range(20):  # warm-up; pyarrow inputs are kept from the second use
            eval(code, scope)
        for k in (calls, 2 * calls):
            cg.cg_zero()
            for _ in range(k):
                eval(code, scope)
            cg.cg_dump(f"{label}|{k}".encode())


def counts(tree, shim, calls, workdir):
    out = os.path.join(workdir, os.path.basename(os.path.abspath(tree)) or "tree")
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=os.path.join(tree, "python"), OPENBLAS_NUM_THREADS="1")
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=yes",
            f"--callgrind-out-file={out}/cg.%p",
            sys.executable,
            os.path.abspath(__file__),
            "--worker",
            shim,
            "--calls",
            str(calls),
        ],
        env=env,
        check=True,
        capture_output=True,
    )
    found = {}
    for name in os.listdir(out):
        with open(os.path.join(out, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        trigger = re.search(r"^desc: Trigger: Client Request: (.*)$", text, re.MULTILINE)
        total = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
        if trigger and total and "|" in trigger.group(1):
            label, k = trigger.group(1).rsplit("|", 1)
            found[(label, int(k))] = int(total.group(1))
    return {
        label: (found[(label, 2 * calls)] - found[(label, calls)]) / calls
        for label in OPS
        if (label, calls) in found and (label, 2 * calls) in found
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("base", nargs="?")
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--worker", metavar="SHIM")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.calls)
        return
    with tempfile.TemporaryDirectory() as tmp:
        shim = os.path.join(tmp, "libcgshim.so")
        source = os.path.join(tmp, "shim.c")
        with open(source, "w", encoding="utf-8") as f:
            f.write(SHIM)
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", source, "-o", shim], check=True)
        new = counts(ROOT, shim, args.calls, os.path.join(tmp, "new"))
        base = counts(args.base, shim, args.calls, os.path.join(tmp, "base"))
    print("| 1,000 rows | new instructions / call | base | new / base |")
    print("|---|---:|---:|---:|")
    for label in OPS:
        if label in new and label in base:
            print(
                f"| {label} | {new[label]:,.0f} | {base[label]:,.0f} | {new[label] / base[label]:.3f} |"
            )


if __name__ == "__main__":
    main()
