"""The checked element-wise kernels' error reports (kernel_source.c: the lean
loop ORs a pass's checks and leaves it at a failing pass, which the general
loop runs again) where there is no GPU: the CUDA source compiled against the
CPU emulation of CUDA (emu/cuda_emu.h), launched over arrays without nulls
(the lean loop's inputs) with failing slots in lean passes, at their edges
and in the general loop's tail. Each report is what slot-by-slot tracking
gives: a unary kind's first failing slot, a binary kind's last (and which
failure), and every result is the unchecked kernel's."""

import pathlib
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import test_nulls_kernels as emu
from test_nulls_kernels import Args, bind, output

kernels = emu.kernels  # the fixture: kernel name -> a runner over (blocks, Args)

NONE = 2**64 - 1
N = 40_000  # 2 blocks of 256 threads, 8 words a pass: 4,096 slots a lean pass
PLACES = [[], [0], [1], [4095], [4096], [17_000, 5], [N - 1], [39_990, 123], [i for i in range(0, N, 997)]]  # fmt: skip


def launch(kernels, name, t, n, operands, blocks=2):
    data, _ = output(t, n, False)
    st = np.zeros(8, np.uint64)
    st[0] = NONE
    args = Args(n=n)
    for which, x in enumerate(operands):
        bind(args, which, x)
    args.out = data.ctypes.data
    args.status = st.ctypes.data
    kernels(name, blocks, args)
    width = t.bit_width // 8
    return np.frombuffer(data.tobytes()[: n * width], t.to_pandas_dtype()), int(st[0])


@pytest.mark.parametrize("fails", PLACES)
def test_unary_reports_the_first_failing_slot(kernels, fails):
    rng = np.random.default_rng(len(fails))
    x = rng.uniform(0.5, 2.0, N)
    x[fails] = -1.0 - rng.uniform(0, 1, len(fails))  # log1p_checked refuses x <= -1
    arr = pa.array(x)
    got, err = launch(kernels, "am_log1p_checked_float64", pa.float64(), N, [arr])
    plain, none = launch(kernels, "am_log1p_float64", pa.float64(), N, [arr])
    assert none == NONE
    assert err == (min(fails) if fails else NONE)
    np.testing.assert_array_equal(got.view(np.uint64), plain.view(np.uint64))


@pytest.mark.parametrize("fails", PLACES)
def test_binary_reports_the_last_failing_slot(kernels, fails):
    rng = np.random.default_rng(len(fails))
    x = rng.integers(-9, 9, N, dtype=np.int64)
    y = rng.integers(0, 4, N, dtype=np.int64)
    kinds = {}
    for k, i in enumerate(fails):  # a negative exponent (kind 0) or an overflow (kind 1)
        x[i], y[i] = (3, -1) if k % 2 == 0 else (10, 40)
        kinds[i] = k % 2
    got, err = launch(kernels, "am_power_checked_int64", pa.int64(), N, [pa.array(x), pa.array(y)])
    if not fails:
        assert err == NONE
    else:
        last = max(fails)
        assert err == (N - 1 - last) * 2 + kinds[last]
    ok = np.ones(N, bool)
    ok[fails] = False
    np.testing.assert_array_equal(got[ok], x[ok] ** y[ok])
