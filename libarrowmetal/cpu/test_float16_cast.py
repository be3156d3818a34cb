"""Builds and runs float16_test.c: the CPU's branch-free float16 casts
against core/float16.h's conversion (the GPU kernels' and pyarrow's rounding),
bit for bit over every float16 and every float32."""

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild


def test_branch_free_casts_equal_the_shared_conversion_over_every_input(tmp_path):
    binary = cbuild.build(tmp_path / "float16_test", [HERE / "float16_test.c"], optimize="-O3")
    result = subprocess.run([str(binary)], check=False, capture_output=True, text=True, timeout=600)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
