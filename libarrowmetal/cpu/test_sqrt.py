"""Builds and runs sqrt_test.c: the AVX-512 float64 square root against
sqrt(), bit for bit (where the CPU has no AVX-512 it says so and passes)."""

import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild

SOURCES = [HERE / "sqrt_test.c", HERE / "sqrt.c", HERE / "isa.c"]


@pytest.mark.parametrize("compiler", ["cc", "clang"])
def test_fast_sqrt_is_sqrt_bit_for_bit(tmp_path, monkeypatch, compiler):
    if compiler == "clang":
        if not shutil.which("clang"):
            pytest.skip("no clang here")
        monkeypatch.setenv("CC", "clang")
    binary = cbuild.build(tmp_path / "sqrt_test", SOURCES, optimize="-O3")
    result = subprocess.run([str(binary)], check=False, capture_output=True, text=True, timeout=120)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
