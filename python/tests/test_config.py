"""Loud configuration: a bad ARROWMETAL_* value is an error naming the
variable and what it accepts, ARROWMETAL_BACKEND naming a device that cannot
be used is an error with the reason, and an unusable ARROWMETAL_ROUTES file
is a warning and a log line. Each case runs in a fresh process: the library
reads its settings once."""

import pytest

import arrowmetal as am

from .fresh import run_python as run


@pytest.mark.parametrize(
    ("name", "value", "accepts"),
    [
        ("ARROWMETAL_THREADS", "abc", "an integer of at least 1"),
        ("ARROWMETAL_THREADS", "0", "an integer of at least 1"),
        ("ARROWMETAL_PARALLEL_MIN", "1e6", "an integer of at least 1"),
        ("ARROWMETAL_LOW_LATENCY", "yes", "0 or 1"),
        ("ARROWMETAL_KERNEL_CACHE", "off", "0 or 1"),
        ("ARROWMETAL_CACHE_MAX_BYTES", "-5", "an integer of at least 0"),
        ("ARROWMETAL_METAL_PARAVIRTUAL", "true", "0 or 1"),
        ("ARROWMETAL_VECTOR_MATH", "off", "0 or 1"),
        ("ARROWMETAL_BATCH_GRAPHS", "no", "0 or 1"),
        ("ARROWMETAL_FALLBACK", "sometimes", "warn, error"),
        ("ARROWMETAL_CFFI", "fast", "abi, api"),
    ],
)
def test_bad_values_name_the_variable(name, value, accepts):
    r = run("import arrowmetal", **{name: value})
    assert r.returncode != 0
    assert name in r.stderr and repr(value) in r.stderr and accepts in r.stderr


def test_good_values_import():
    env = {"ARROWMETAL_THREADS": "2", "ARROWMETAL_LOW_LATENCY": "0"}
    env.update(ARROWMETAL_CACHE_MAX_BYTES="0", ARROWMETAL_ROUTES="off", ARROWMETAL_BACKEND="cpu")
    r = run("import arrowmetal as am; print(am.sum([1, 2]))", **env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "3"


@pytest.mark.skipif(
    {n: ok for n, ok, _ in am.backends()}["cuda"], reason="this machine has a usable CUDA device"
)
def test_unusable_backend_is_an_error_with_the_reason():
    r = run("import arrowmetal", ARROWMETAL_BACKEND="cuda")
    assert r.returncode != 0
    assert "ARROWMETAL_BACKEND=cuda cannot be used" in r.stderr
    assert "ArrowMetalUnsupported" in r.stderr
    r = run("import arrowmetal", ARROWMETAL_BACKEND="gpu")
    assert "unknown backend" in r.stderr


def test_unusable_backend_fails_c_calls_given_no_device():
    """A C program that skips am_config_check still never runs quietly on the
    CPU: calls given no device fail with the reason."""
    code = """
import sys, cffi
ffi = cffi.FFI()
ffi.cdef(\"\"\"
typedef struct am_scalar { int32_t type; int32_t is_null; int64_t i64; uint64_t u64; double f64; }
    am_scalar;
int am_full(const am_scalar *value, int64_t length, void *device, void **out);
const char *am_last_error(void);
\"\"\")
lib = ffi.dlopen(sys.argv[1])
s = ffi.new("am_scalar *")
s.type = int(sys.argv[2])
out = ffi.new("void **")
print(lib.am_full(s, 3, ffi.NULL, out), ffi.string(lib.am_last_error()).decode())
"""
    r = run(code, am.library_path, str(am.lib.AM_INT64), ARROWMETAL_BACKEND="gpu")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"{am.lib.AM_EINVAL} am_full: ARROWMETAL_BACKEND=gpu cannot be used")


def test_unusable_routes_file_warns_and_logs(tmp_path):
    bad = tmp_path / "routes.txt"
    bad.write_text("sum cpu many cuda\n")
    code = """
import logging, warnings
logging.basicConfig(format="LOG %(name)s %(message)s")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import arrowmetal as am
print(len(caught), caught[0].category.__name__, am.sum([1, 2]))
"""
    r = run(code, ARROWMETAL_ROUTES=str(bad))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["1", "RuntimeWarning", "3"]
    assert f"LOG arrowmetal am_config_check: ARROWMETAL_ROUTES={bad} not used" in r.stderr
