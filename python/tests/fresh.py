"""Python code run in a fresh process: the library reads its settings and
picks its default device once per process, so tests of those start anew.
The child imports this source tree's package and keeps the parent's sys.path
(on the GPU machine cffi lives outside site-packages); ARROWMETAL_* settings
are only those the test passes."""

import os
import subprocess
import sys

import arrowmetal as am

PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(am.__file__)))


def run_python(code, *args, **env):
    full = {k: v for k, v in os.environ.items() if not k.startswith("ARROWMETAL_")}
    full.update(env, PYTHONPATH=os.pathsep.join([PACKAGE_PARENT, *sys.path]))
    return subprocess.run(
        [sys.executable, "-W", "default", "-c", code, *args], capture_output=True, text=True,
        env=full, check=False, timeout=120,
    )  # fmt: skip
