"""Builds and runs launch_footprint_test.c: which of a batch's launches the CUDA
backend may let run side by side in one graph (cuda/batch_graph.c)."""

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild


def test_footprints_order_every_conflict(tmp_path):
    core = HERE.parent / "core"
    sources = [
        HERE / "launch_footprint_test.c",
        HERE / "launch_footprint.c",
        core / "types.c",
        core / "error.c",
    ]
    binary = cbuild.build(tmp_path / "launch_footprint_test", sources, optimize="-O1")
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "ok"
