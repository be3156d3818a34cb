"""The fuzz targets build, and their seeds and regressions replay clean.

No fuzzing here (`make fuzz` does that): each target runs once over every
file of fuzz/corpus/<target>/ and fuzz/regressions/<target>/, so a fixed
defect that comes back fails this test. Skipped without clang (the targets
need libFuzzer). The build goes to build/fuzz, as make fuzz's does.
"""

import fcntl
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGETS = ["import_fuzz", "ops_fuzz", "routes_fuzz", "tzif_fuzz"]

pytestmark = pytest.mark.skipif(shutil.which("clang") is None, reason="no clang (libFuzzer)")


@pytest.fixture(scope="module")
def built():
    jobs = str(max(1, min(4, os.cpu_count() or 1)))
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    # One build at a time: pytest-xdist workers each run this fixture, and a
    # worker must not execute a target that another one is still linking.
    with open(os.path.join(ROOT, "build", ".fuzz-build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = subprocess.run(
            ["make", "-s", "-j", jobs, *(f"build/fuzz/{t}" for t in TARGETS)],
            cwd=ROOT, capture_output=True, text=True, check=False, timeout=900,
        )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return os.path.join(ROOT, "build", "fuzz")


def inputs(target):
    files = []
    for kind in ("corpus", "regressions"):
        directory = os.path.join(HERE, kind, target)
        if os.path.isdir(directory):
            files += sorted(os.path.join(directory, f) for f in os.listdir(directory))
    return files


@pytest.mark.parametrize("target", TARGETS)
def test_seeds_and_regressions_replay_clean(built, target):
    files = inputs(target)
    assert files, f"no seeds for {target}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARROWMETAL_")}
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    result = subprocess.run(
        [os.path.join(built, target), "-rss_limit_mb=2048", "-timeout=25", *files],
        capture_output=True, text=True, env=env, check=False, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-6000:]
    assert f"Executed {files[-1]}" in result.stderr


def test_corpus_is_what_the_script_writes(tmp_path):
    """The seeds are reproducible: make_corpus.py writes exactly the files kept."""
    copy = tmp_path / "fuzz"
    shutil.copytree(HERE, copy, ignore=shutil.ignore_patterns("corpus", "__pycache__"))
    subprocess.run([sys.executable, str(copy / "make_corpus.py")], check=True, timeout=60)
    for target in TARGETS:
        kept = sorted(os.listdir(os.path.join(HERE, "corpus", target)))
        made = sorted(os.listdir(copy / "corpus" / target))
        assert kept == made, target
        for name in kept:
            with open(os.path.join(HERE, "corpus", target, name), "rb") as f:
                assert f.read() == (copy / "corpus" / target / name).read_bytes(), (target, name)
