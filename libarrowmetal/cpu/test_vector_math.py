"""Builds and runs vector_math_test.c: the CPU backend's vector math (libmvec
on x86-64 glibc, vForce on Apple) against scalar libm, which pyarrow computes
with, over special values and random samples; the AVX-512 and the AVX2 paths
both, and the scalar switch (ARROWMETAL_VECTOR_MATH=0)."""

import ctypes
import os
import pathlib
import platform
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild

SOURCES = [HERE / "vector_math_test.c", HERE / "vector_math.c", HERE / "isa.c"]
if sys.platform == "darwin":
    LIBS = ("-lm", "-framework", "Accelerate")
else:
    LIBS = ("-lm", "-lpthread", "-ldl")


def run(binary, **env):
    result = subprocess.run(
        [str(binary)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **env},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok"), result.stdout
    return result.stdout


def glibc_with_full_libmvec():
    """x86-64 Linux whose glibc (2.35 or later) has every function in libmvec,
    on a CPU with AVX2 and FMA: there every function must be vectorized."""
    if platform.machine() != "x86_64" or not sys.platform.startswith("linux"):
        return False
    name, version = platform.libc_ver()
    if name != "glibc" or tuple(int(p) for p in version.split(".")[:2]) < (2, 35):
        return False
    try:
        ctypes.CDLL("libmvec.so.1")
    except OSError:
        return False
    flags = pathlib.Path("/proc/cpuinfo").read_text()
    return " avx2" in flags and " fma" in flags


def vectorized(output):
    return int(output.split(" of ")[0].rsplit("\n", 1)[-1])


# default: AVX-512 where the CPU has it; avx2: the AVX2 path alone; buffered:
# float32 widened to float64 by the drivers (vForce's way); clang: built by
# clang (the wheel's compiler is zig's clang), which once passed libmvec's
# vector arguments on the stack.
VARIANTS = {
    "default": [],
    "avx2": ["-DAM_VM_NO_AVX512"],
    "buffered": ["-DAM_VM_BUFFER_WIDEN"],
    "clang": [],
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_vector_results_stay_within_the_cases_ulps_and_specials_are_libms(
    tmp_path, monkeypatch, variant
):
    extra = VARIANTS[variant]
    if variant == "clang":
        if not shutil.which("clang"):
            pytest.skip("no clang here")
        monkeypatch.setenv("CC", "clang")
    out = run(cbuild.build(tmp_path / "vector_math_test", SOURCES, extra=extra, libs=LIBS))
    print(out)
    if glibc_with_full_libmvec() or sys.platform == "darwin":
        assert vectorized(out) == 26, out


def test_the_switch_turns_vector_math_off(tmp_path):
    out = run(
        cbuild.build(tmp_path / "vector_math_test", SOURCES, libs=LIBS), ARROWMETAL_VECTOR_MATH="0"
    )
    assert vectorized(out) == 0, out
    assert "scalar libm" in out
