"""am_pow64, the CUDA dialect's float64 pow (dialect_pow64.c), where there is no
GPU: the device function as the generator writes it into am_power_float64's
CUDA source, compiled as C++ against the CPU emulation of CUDA (emu/cuda_emu.h,
where CUDA's own pow is the host's) and called over arrays, against numpy's
power (C's pow of glibc). The GPU runs of the kernel are the conformance cases
on the H200 (within their 4 ulps)."""

import ctypes
import pathlib
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild

pytestmark = pytest.mark.skipif(cbuild.CXX is None, reason="no C++ compiler")

N = 1_000_000


@pytest.fixture(scope="module")
def pow64(tmp_path_factory):
    """A function (x, y) -> am_pow64 over float64 arrays."""
    wrapper = (
        'extern "C" void pow_many(const double *x, const double *y, double *out, long n) {\n'
        "  for (long i = 0; i < n; i++) out[i] = am_pow64(x[i], y[i]);\n"
        "}\n"
    )
    fn = cbuild.emulated(tmp_path_factory.mktemp("pow64"), "am_power_float64", wrapper).pow_many
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]

    def run(x, y):
        x = np.ascontiguousarray(x, np.float64)
        y = np.ascontiguousarray(np.broadcast_to(y, x.shape), np.float64)
        out = np.empty_like(x)
        fn(x.ctypes.data, y.ctypes.data, out.ctypes.data, len(x))
        return out

    return run


def ulps(a, b):
    """The distance in ulps of same-signed finite doubles."""
    ia, ib = a.view(np.int64), b.view(np.int64)
    ia = np.where(ia < 0, np.int64(-(2**63)) - ia, ia)
    ib = np.where(ib < 0, np.int64(-(2**63)) - ib, ib)
    return np.abs(ia - ib)


def reaching(rng, x, low, high):
    """Exponents y with |y log x| in [low, high), either sign."""
    sign = rng.choice([-1.0, 1.0], len(x))
    return sign * rng.uniform(low, high, len(x)) / np.abs(np.log(x))


def arguments(kind, rng):
    if kind == "benchmark":  # benchmarks/breadth_bench.py's
        return rng.uniform(0.5, 2.0, N), rng.uniform(-2.0, 2.0, N)
    if kind == "every binade":
        x = np.exp2(rng.uniform(-1022, 1023, N))
        return x, reaching(rng, x, 0, 700)
    if kind == "near one":  # log x far below 1: y in the thousands to 2^52
        x = 1.0 + rng.uniform(-1, 1, N) * np.exp2(-rng.uniform(1, 52, N))
        x = np.where(x == 1.0, 1.5, x)
        return x, reaching(rng, x, 0, 700)
    if kind == "integers":
        return rng.integers(1, 1000, N).astype(float), rng.integers(-40, 40, N).astype(float)
    if kind == "results near the range's ends":  # |y log x| past 707 goes to CUDA's pow
        x = np.exp2(rng.uniform(-4, 4, N))
        return x, reaching(rng, x, 690, 720)
    raise AssertionError(kind)


KINDS = ["benchmark", "every binade", "near one", "integers", "results near the range's ends"]


@pytest.mark.parametrize("kind", KINDS)
def test_pow64_is_within_two_ulps_of_glibc(pow64, kind):
    rng = np.random.default_rng(KINDS.index(kind))
    x, y = arguments(kind, rng)
    with np.errstate(all="ignore"):
        want = np.power(x, y)
    got = pow64(x, y)
    finite = np.isfinite(want) & (want != 0)
    assert np.array_equal(got[~finite], want[~finite], equal_nan=True)
    distance = ulps(got[finite], want[finite])
    worst = int(np.argmax(distance))
    assert distance.max() <= 2, (x[finite][worst], y[finite][worst])
    # glibc's pow is within 0.52 ulp of the exact value, am_pow64 within about
    # 0.8: they differ in a few percent of the results, by one ulp.
    assert (distance > 0).mean() < 0.1
    assert (distance > 1).mean() < 1e-4


SPECIAL = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5,
           3.0, -3.0, 1.5, np.inf, -np.inf, np.nan, 1e308, -1e308, 1e-308, 710.0, -710.0, 1024.0,
           -1075.0, 0.1]  # fmt: skip


def test_pow64_special_values(pow64):
    """Every pair of the values above: C's special cases (F.9.4.4) and
    results outside the normal range bit for bit, the rest within an ulp."""
    x, y = (a.ravel() for a in np.meshgrid(SPECIAL, SPECIAL))
    with np.errstate(all="ignore"):
        want = np.power(x, y)
    got = pow64(x, y)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    normal = ~nan & np.isfinite(want) & (np.abs(want) >= 2.2250738585072014e-308)
    assert np.array_equal(got[~nan & ~normal].view(np.int64), want[~nan & ~normal].view(np.int64))
    assert ulps(got[normal], want[normal]).max() <= 1


EXACT = [(2.0, 10.0), (3.0, 2.0), (10.0, 15.0), (2.0, -1000.0), (7.0, 3.0), (0.5, 3.0),
         (9.0, 0.5), (4.0, -0.5), (2.0, 0.5), (1.0000001, 0.0), (1.0, 12345.678), (5.0, 20.0),
         (0.25, -4.0), (1e10, 2.0), (16.0, 0.25)]  # fmt: skip


def test_pow64_exact_powers_are_exact(pow64):
    x, y = np.array(EXACT).T
    assert np.array_equal(pow64(x, y), np.power(x, y))
