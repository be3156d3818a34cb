"""The CUDA dialect's own float64 unary functions (dialect_unary64.c:
am_log1p64 from log, am_acos64 and am_asin64 from one polynomial), where there is no
GPU: each device function as the generator writes it into its kernel's CUDA
source, compiled against the CPU emulation of CUDA (emu/cuda_emu.h: log and
sqrt are the host's) and called over arrays, against numpy's (glibc's). On
the GPU log is libdevice's (1 ulp): am_log1p64 may be one ulp further there;
am_acos64 and am_asin64 are the same arithmetic. The GPU runs of the kernels are the
conformance cases on the H200 (within their 4 ulps)."""

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
FUNCTIONS = {"log1p": np.log1p, "acos": np.arccos, "asin": np.arcsin}


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    """name -> a function over float64 arrays: am_<name>64."""
    work = tmp_path_factory.mktemp("unary64")
    found = {}

    def get(name):
        if name not in found:
            wrapper = (
                f'extern "C" void many(const double *x, double *out, long n) {{\n'
                f"  for (long i = 0; i < n; i++) out[i] = am_{name}64(x[i]);\n"
                "}\n"
            )
            fn = cbuild.emulated(work, f"am_{name}_float64", wrapper).many
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]

            def run(x, fn=fn):
                x = np.ascontiguousarray(x, np.float64)
                out = np.empty_like(x)
                fn(x.ctypes.data, out.ctypes.data, len(x))
                return out

            found[name] = run
        return found[name]

    return get


def arguments(name, kind, rng):
    if name == "log1p":
        if kind == "benchmark":  # elementwise_sweep_bench.py's
            return rng.uniform(0.5, 2.0, N)
        if kind == "every binade":
            return rng.choice([-1.0, 1.0], N) * np.exp2(rng.uniform(-1074, 1023, N)) * 0.999
        if kind == "near zero":  # u's rounding loses most of x: c carries it
            return rng.uniform(-1, 1, N) * np.exp2(-rng.uniform(20, 60, N))
        if kind == "near the ends":  # near -1; past 2^53, where u is x
            return np.concatenate([-1.0 + np.exp2(-rng.uniform(0, 53, N // 2)),
                                   np.exp2(rng.uniform(53, 1023, N // 2))])  # fmt: skip
    if name in ("acos", "asin"):
        if kind == "benchmark":
            return rng.uniform(-1.0, 1.0, N)
        if kind == "every binade":
            return rng.choice([-1.0, 1.0], N) * np.exp2(rng.uniform(-1074, 0, N))
        if kind == "near zero":  # and around the branch at |x| = 0.5
            return np.concatenate([rng.uniform(-1e-3, 1e-3, N // 2),
                                   rng.choice([-0.5, 0.5], N // 2) + rng.uniform(-1e-6, 1e-6, N // 2)])  # fmt: skip
        if kind == "near the ends":  # acos near 0 and pi, asin near +-pi/2
            return rng.choice([-1.0, 1.0], N) * (1.0 - np.exp2(-rng.uniform(1, 53, N)))
    raise AssertionError(kind)


KINDS = ["benchmark", "every binade", "near zero", "near the ends"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_within_an_ulp_of_glibc(device, name, kind):
    rng = np.random.default_rng(KINDS.index(kind))
    x = arguments(name, kind, rng)
    with np.errstate(all="ignore"):
        want = FUNCTIONS[name](x)
    keep = np.isfinite(want)
    x, want = x[keep], want[keep]
    got = device(name)(x)
    distance = ulps(got, want)
    worst = int(np.argmax(distance))
    assert distance.max() <= 1, (x[worst], got[worst], want[worst])


SPECIAL = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0,
           -1e300, 1e308, 1.7976931348623157e308, np.inf, -np.inf, np.nan, 2**-53, -(2**-53),
           2**-54, -(2**-54), 2**53, -1 + 2**-53, 1 - 2**-53, 0.5 + 2**-53, 0.5 - 2**-54]  # fmt: skip


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_special_values_are_glibcs(device, name):
    """Zeros and infinities as glibc gives them, bit for bit (log1p keeps
    the sign of zero, is -inf at -1 and inf at inf; acos(1) is +0), NaN
    where glibc has one (log1p below -1, acos past 1, NaN itself); the rest
    within an ulp."""
    x = np.array(SPECIAL)
    with np.errstate(all="ignore"):
        want = FUNCTIONS[name](x)
    got = device(name)(x)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    exact = ~nan & (~np.isfinite(want) | (want == 0))
    assert np.array_equal(got[exact].view(np.int64), want[exact].view(np.int64))
    assert ulps(got[~nan & ~exact], want[~nan & ~exact]).max() <= 1
