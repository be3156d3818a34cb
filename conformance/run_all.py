"""Every conformance case on every backend available in this process, in one
loop: the same checks as test_conformance.py's test_case (run_case, then the
memory given back, as its memory_baseline fixture checks), without
pytest's cost per test (about 7 ms of a case's 10 ms on the 2-core machine).
`make test-asan` runs the suite this way under AddressSanitizer and UBSan, in
shards side by side.

    python conformance/run_all.py [--shard I/N] [--backend NAME] [-k TEXT]

Prints "N passed, N failed" with the failing case IDs (backend:id, as
pytest names them) and exits 1 when any case failed."""

import argparse
import os
import sys
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.normpath(os.path.join(HERE, "..", "python")))

import amabi
from test_conformance import BACKENDS, CASES, run_case


def _in_shard(case_id, shard, shards):
    # By a hash of the ID, so that shards stay balanced across case files.
    return zlib.crc32(case_id.encode()) % shards == shard


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shard", default="0/1", help="I/N: run the I-th of N shards")
    parser.add_argument("--backend", action="append", help="only this backend (repeatable)")
    parser.add_argument("-k", dest="contains", help="only case IDs containing this text")
    args = parser.parse_args(argv)
    shard, shards = (int(x) for x in args.shard.split("/"))
    if not 0 <= shard < shards:
        parser.error(f"--shard {args.shard}: I must be in [0, N)")
    backends = [b for b in BACKENDS if not args.backend or b in args.backend]
    if not backends:
        print(f"no backend to run: available {BACKENDS}, asked {args.backend}")
        return 1
    start = time.monotonic()
    passed, failed, skipped = 0, [], 0
    for backend in backends:
        device = amabi.device(backend)
        devs = amabi.memory_devices(backend)
        for case in CASES:
            name = f"{backend}:{case['id']}"
            if not _in_shard(name, shard, shards) or (args.contains and args.contains not in name):
                continue
            if amabi.not_on_backend(case, backend):
                skipped += 1
                continue
            try:
                baseline = amabi.memory_snapshot(devs)
                run_case(case, device)
                leaks = amabi.memory_leaks(baseline, devs)
                assert not leaks, "memory not given back after the case: " + "; ".join(leaks)
                passed += 1
            except Exception as e:  # noqa: BLE001 - every failure is reported by ID
                failed.append(name)
                print(f"FAILED {name}: {type(e).__name__}: {e}", file=sys.stderr)
                if not isinstance(e, AssertionError):
                    traceback.print_exc()
    seconds = time.monotonic() - start
    print(
        f"conformance shard {shard}/{shards} on {', '.join(backends)}: "
        f"{passed} passed, {len(failed)} failed, {skipped} skipped "
        f"(host-only types on a GPU, or no tz database) in {seconds:.1f} s"
    )
    for name in failed:
        print("  failed:", name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
