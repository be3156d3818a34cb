"""Builds and runs the unit tests of core/ written in C: the completion timeline
(timeline_test.c), the backend table check (backend_test.c) and the op table
(ops_test.c)."""

import pathlib
import subprocess

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def test_waiters_are_released_only_after_their_own_work(tmp_path):
    binary = tmp_path / "timeline_test"
    subprocess.run(
        [
            "cc",
            "-std=c11",
            "-D_GNU_SOURCE",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{ROOT / 'include'}",
            f"-I{HERE}",
            str(HERE / "timeline_test.c"),
            str(HERE / "timeline.c"),
            str(HERE / "error.c"),
            "-o",
            str(binary),
            "-lpthread",
        ],
        check=True,
    )
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")


def test_backend_tables_are_checked_slot_by_slot(tmp_path):
    binary = tmp_path / "backend_test"
    subprocess.run(
        [
            "cc",
            "-std=c11",
            "-D_GNU_SOURCE",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{ROOT / 'include'}",
            f"-I{HERE}",
            str(HERE / "backend_test.c"),
            str(HERE / "backend.c"),
            str(HERE / "error.c"),
            "-o",
            str(binary),
        ],
        check=True,
    )
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
    assert "22 slots checked" in result.stdout


def test_every_op_row_is_found_by_family_and_op(tmp_path):
    binary = tmp_path / "ops_test"
    subprocess.run(
        ["cc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{ROOT / 'include'}",
         f"-I{HERE}", str(HERE / "ops_test.c"), str(HERE / "ops.c"), "-o", str(binary)],
        check=True,
    )  # fmt: skip
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
