"""Builds and runs the completion-timeline unit test (timeline_test.c)."""

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
            "-o",
            str(binary),
            "-lpthread",
        ],
        check=True,
    )
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
