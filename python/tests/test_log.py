"""The library's log reaches the 'arrowmetal' logger: a first GPU call that
compiles kernels says so (an INFO line, and a stderr notice when the burst
took over a second); a second process, served by the disk cache, says
nothing. The wording of each case is tested in C (libarrowmetal/core)."""

import pytest

import arrowmetal as am

from .fresh import run_python

CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]

FIRST_CALL = """
import logging, sys
logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(name)s %(levelname)s %(message)s")
import arrowmetal as am
x = am.array(list(range(1000))).to_device("cuda")
print("sum", am.sum(x).as_py())
print("compile_seconds", am.kernel_cache_info()["compile_seconds"])
"""


def test_the_package_installs_its_log_handler():
    # A notice goes to stderr either way; what the handler adds is the logger.
    done = run_python("import arrowmetal._log as l; print(l._handler is not None)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_first_gpu_call_logs_its_compiles_and_the_next_process_does_not(tmp_path):
    cache = str(tmp_path / "cache")
    first = run_python(FIRST_CALL, ARROWMETAL_CACHE_DIR=cache)
    assert first.returncode == 0, first.stderr
    assert "sum 499500" in first.stdout
    lines = [line for line in first.stdout.splitlines() if line.startswith("arrowmetal INFO")]
    assert lines and "GPU kernel" in lines[0] and "cached on disk for next time" in lines[0], (
        first.stdout
    )
    seconds = float(first.stdout.split("compile_seconds")[1].split()[0])
    notices = [
        line for line in first.stderr.splitlines() if line.startswith("arrowmetal: compiled")
    ]
    # One call's burst over a second is a notice; the total bounds every burst.
    assert not notices or seconds > 1.0, first.stderr
    second = run_python(FIRST_CALL, ARROWMETAL_CACHE_DIR=cache)
    assert second.returncode == 0, second.stderr
    assert "compiled" not in second.stdout + second.stderr
