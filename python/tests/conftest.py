import os
import sys

# The wait watchdog is on in the tests (off by default for users): a GPU wait
# that hangs fails its test after five minutes instead of stopping the run.
os.environ.setdefault("ARROWMETAL_WAIT_TIMEOUT_MS", "300000")

# Run against the source tree when the package is not installed.
_PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _PYTHON_DIR not in sys.path:
    sys.path.insert(0, _PYTHON_DIR)


import warnings

import pytest


@pytest.fixture
def no_fallback():
    """The calls run in the library: a fallback to pyarrow fails the test (a test
    file takes it with pytestmark = pytest.mark.usefixtures("no_fallback"))."""
    import arrowmetal as am

    with warnings.catch_warnings():
        warnings.simplefilter("error", am.ArrowMetalFallbackWarning)
        yield


@pytest.fixture(autouse=True)
def _fallback_warnings_per_test():
    """Each test sees a fallback's first warning afresh: the package warns once
    per function per process, so a test that expects the warning would pass or
    fail by what ran before it in its worker. The counts are put back after
    each test (am.fallbacks() still counts every call within one)."""
    from arrowmetal import _fallback

    with _fallback._lock:
        saved = dict(_fallback._counts)
    yield
    with _fallback._lock:
        _fallback._counts.clear()
        _fallback._counts.update(saved)
