"""am_log1p64, the CUDA dialect's float64 log1p (dialect.c: log of u = 1 + x
plus the part of x that u's rounding lost), where there is no GPU: the device
function as the generator writes it into am_log1p_float64's CUDA source,
compiled against the CPU emulation of CUDA (emu/cuda_emu.h: log is the
host's) and called over arrays, against numpy's log1p (glibc's). On the GPU,
log is libdevice's (1 ulp), one more ulp at most; the GPU runs of the kernel
are the conformance cases on the H200 (within their 4 ulps)."""

import ctypes
import pathlib
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild
from test_pow64 import ulps

pytestmark = pytest.mark.skipif(cbuild.CXX is None, reason="no C++ compiler")

N = 1_000_000


@pytest.fixture(scope="module")
def log1p64(tmp_path_factory):
    wrapper = (
        'extern "C" void log1p_many(const double *x, double *out, long n) {\n'
        "  for (long i = 0; i < n; i++) out[i] = am_log1p64(x[i]);\n"
        "}\n"
    )
    fn = cbuild.emulated(tmp_path_factory.mktemp("log1p64"), "am_log1p_float64", wrapper).log1p_many
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]

    def run(x):
        x = np.ascontiguousarray(x, np.float64)
        out = np.empty_like(x)
        fn(x.ctypes.data, out.ctypes.data, len(x))
        return out

    return run


def arguments(kind, rng):
    if kind == "benchmark":  # elementwise_sweep_bench.py's
        return rng.uniform(0.5, 2.0, N)
    if kind == "every binade":
        return rng.choice([-1.0, 1.0], N) * np.exp2(rng.uniform(-1074, 1023, N)) * 0.999
    if kind == "near zero":  # u's rounding loses most of x: c carries it
        return rng.uniform(-1, 1, N) * np.exp2(-rng.uniform(20, 60, N))
    if kind == "near minus one":
        return -1.0 + np.exp2(-rng.uniform(0, 53, N))
    if kind == "past 2^53":  # u is x: nothing lost
        return np.exp2(rng.uniform(53, 1023, N))
    raise AssertionError(kind)


KINDS = ["benchmark", "every binade", "near zero", "near minus one", "past 2^53"]


@pytest.mark.parametrize("kind", KINDS)
def test_log1p64_is_within_an_ulp_of_glibc(log1p64, kind):
    rng = np.random.default_rng(KINDS.index(kind))
    x = arguments(kind, rng)
    x = x[x > -1.0]
    with np.errstate(all="ignore"):
        want = np.log1p(x)
    got = log1p64(x)
    distance = ulps(got, want)
    worst = int(np.argmax(distance))
    assert distance.max() <= 1, (x[worst], got[worst], want[worst])


SPECIAL = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, -1.0, -2.0, -1e300, 1e308,
           1.7976931348623157e308, np.inf, -np.inf, np.nan, -0.5, 1.0, 2**-53, -(2**-53), 2**-54,
           -(2**-54), 2**53, -1 + 2**-53]  # fmt: skip


def test_log1p64_special_values_are_glibcs(log1p64):
    """Zeros keep their sign, -1 is -inf, below -1 and -inf are NaN, inf is
    inf, NaN is NaN: bit for bit (NaNs as NaNs); the rest within an ulp."""
    x = np.array(SPECIAL)
    with np.errstate(all="ignore"):
        want = np.log1p(x)
    got = log1p64(x)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    exact = ~nan & (~np.isfinite(want) | (want == 0))
    assert np.array_equal(got[exact].view(np.int64), want[exact].view(np.int64))
    assert ulps(got[~nan & ~exact], want[~nan & ~exact]).max() <= 1
