"""pytest setup of the conformance suite: import paths and a summary of the case counts."""

import collections
import os
import sys

# The wait watchdog is on in the tests (off by default for users): a GPU wait
# that hangs fails its test after five minutes instead of stopping the run.
os.environ.setdefault("ARROWMETAL_WAIT_TIMEOUT_MS", "300000")

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
try:
    import arrowmetal  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "python")))


def pytest_terminal_summary(terminalreporter):
    import casefmt

    try:
        cases = casefmt.load_cases(HERE)
    except OSError:
        return
    per_op = collections.Counter(c["op"] for c in cases)
    errors = sum("error" in c["expected"] for c in cases)
    terminalreporter.write_sep("-", "ArrowMetal conformance cases")
    terminalreporter.write_line(
        f"{len(cases)} cases ({errors} expect an error): "
        + ", ".join(f"{op} {n}" for op, n in sorted(per_op.items()))
    )
    try:
        import amabi

        terminalreporter.write_line(
            "backends run: {}".format(", ".join(amabi.available_backends()))
        )
    except Exception as exc:  # noqa: BLE001 - the library may not load; say so, do not fail
        terminalreporter.write_line(f"backends: library not loadable ({exc})")
