"""Builds and runs the kernel source generator's unit test (kernel_source_test.c):
every (kind, op, type) key in both dialects, determinism, names, errors, block
counts, and the MSL of a few keys against the golden files in gpu/golden/.
AM_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.

Also checks the integer-only float conversions the MSL kernels use
(soft_float_test.c). No GPU or GPU compiler is needed."""

import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild


def build(tmp_path):
    sources = [HERE / "kernel_source_test.c", *cbuild.GENERATOR]
    return cbuild.build(tmp_path / "kernel_source_test", sources)


def test_kernel_sources_are_deterministic_and_match_the_golden_msl(tmp_path):
    binary = build(tmp_path)
    mode = "update" if os.environ.get("AM_UPDATE_GOLDEN") == "1" else "check"
    result = subprocess.run(
        [str(binary), mode, str(HERE / "golden")],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
    if mode == "check":
        # Every key has CUDA source; MSL lacks exactly the float64 ones (the
        # generator checks which those are). Counts follow the op table.
        cuda = re.search(r"cuda: (\d+) keys, (\d+) kernels generated", result.stdout)
        msl = re.search(
            r"msl: (\d+) keys, (\d+) kernels generated, (\d+) unsupported", result.stdout
        )
        assert cuda and msl, result.stdout
        keys = int(cuda.group(1))
        assert keys >= 473 and int(cuda.group(2)) == keys
        assert int(msl.group(1)) == keys and int(msl.group(2)) + int(msl.group(3)) == keys


def test_soft_float_conversions_match_the_hardware(tmp_path):
    binary = build(tmp_path)
    inc = tmp_path / "am_soft_float.inc"
    subprocess.run([str(binary), "softfloat", str(inc)], check=True)
    checker = tmp_path / "soft_float_test"
    cbuild.build(checker, [HERE / "soft_float_test.c"], extra=[f"-I{tmp_path}"])
    result = subprocess.run(
        [str(checker)], check=False, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
