"""Compiles examples/c/sum_example.c against include/arrowmetal.h and the built library
alone, and runs it: an embedder needs nothing else."""

import os
import shutil
import subprocess

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BUILD = os.path.join(ROOT, "build")


def test_sum_example(tmp_path):
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc})")
    lib = [
        n
        for n in ("libarrowmetal.so.0", "libarrowmetal.dylib")
        if os.path.exists(os.path.join(BUILD, n))
    ]
    assert lib, f"no libarrowmetal in {BUILD}: run make"
    exe = str(tmp_path / "sum_example")
    cmd = [cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", "include"]
    cmd += ["examples/c/sum_example.c", "-L", "build", "-larrowmetal", f"-Wl,-rpath,{BUILD}"]
    cmd += ["-o", exe]
    built = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([exe], capture_output=True, text=True, timeout=60, check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.strip() == "ok"
