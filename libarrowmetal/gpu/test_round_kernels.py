"""The round (and round_to_multiple) and pairwise_diff GPU kernels
(kernel_source_round.c: ROUND, PAIRWISE_DIFF) run where there is no GPU: their CUDA
source, as the generator
writes it, compiled as C++ against the CPU emulation of CUDA (emu/cuda_emu.h)
and launched as gpu/ops_round.c launches them (the argument block, the
status block's error report), on inputs with offsets, nulls and several
blocks; each result against pyarrow.compute's, bit for bit. The GPU runs of
the same kernels are the conformance cases on the H200."""

import math
import pathlib
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import test_nulls_kernels as emu
from test_nulls_kernels import Args, as_array, bind, output  # the emulation's buffers

kernels = emu.kernels  # the fixture: kernel name -> a runner over (blocks, Args)


NONE = 2**64 - 1
MODES = ["down", "up", "towards_zero", "towards_infinity", "half_down", "half_up",
         "half_towards_zero", "half_towards_infinity", "half_to_even", "half_to_odd"]  # fmt: skip


def pow10(k):
    """pyarrow's 10^|k| for floats (core/round.c's am_round_pow10)."""
    table = [float(np.float32(10.0**i)) for i in range(16)]
    k = abs(k)
    p = table[min(k, 15)]
    for _ in range(max(0, k - 15)):
        p *= 10.0
        if math.isinf(p):
            break
    return p


def status_block():
    s = np.zeros(8, np.uint64)
    s[0] = NONE
    return s


def values(t, n, seed, offset):
    rng = np.random.default_rng(seed)
    if pa.types.is_floating(t):
        pool = [2.5, -2.5, 0.125, -0.125, 1.005, 2.675, -0.0, 0.0, float("nan"), float("inf"),
                float("-inf"), 2.0**53, 1e-310, 123.456]  # fmt: skip
        v = [pool[i] if i < len(pool) else float(rng.normal(0, 1e4))
             for i in rng.integers(0, 2 * len(pool), n + offset)]  # fmt: skip
        if t == pa.float32():
            v = [float(np.float32(x)) for x in v]
    else:
        info = np.iinfo(t.to_pandas_dtype())
        v = [int(x) for x in rng.integers(info.min, info.max, n + offset, endpoint=True,
                                           dtype=t.to_pandas_dtype())]  # fmt: skip
        v = [x // 1000 * 1000 + [0, 5, 50, 500, 250, 150][x % 6] if abs(x) > 10**4 else x
             for x in v]  # fmt: skip
        v = [min(max(x, int(info.min)), int(info.max)) for x in v]
    mask = rng.random(n + offset) < 0.25
    return pa.array([None if m else x for x, m in zip(v, mask)], type=t).slice(offset)


def label(t):
    return {pa.float32(): "float32", pa.float64(): "float64"}.get(t, str(t))


def run_kernel(kernels, x, scale, p, mode, blocks):
    """One ROUND launch as ops_round.c's: aux = core/round.h's am_round_spec scale
    (1, 0, -1), scalar = p's double bits for floats, the multiple m for integers."""
    t, n = x.type, len(x)
    data, _ = output(t, n, False)
    st = status_block()
    args = Args(n=n, aux=scale)
    bind(args, 0, x)
    args.out = data.ctypes.data
    args.out_valid = 0  # the host shares the input's validity
    args.status = st.ctypes.data
    if pa.types.is_floating(t):
        args.scalar = int(np.array(p, np.float64).view(np.uint64))
    else:
        args.scalar = p
    kernels(f"am_round_{mode}_{label(t)}", blocks, args)
    got = pa.Array.from_buffers(t, n, [None, pa.py_buffer(data.tobytes())])
    # The host gives the result the input's validity.
    return pc.if_else(pc.is_valid(x), got, pa.scalar(None, t)), int(st[0])


def run_round(kernels, x, ndigits, mode, blocks):
    scale = (ndigits > 0) - (ndigits < 0)
    p = pow10(ndigits) if pa.types.is_floating(x.type) else 10 ** (-ndigits)
    return run_kernel(kernels, x, scale, p, mode, blocks)


def run_round_to_multiple(kernels, x, multiple, mode, blocks):
    """round_to_multiple's launch: the multiple (of x's type) as p or m, scale -1, or 0
    for a float multiple of 1 (core/round.c's am_round_spec_multiple)."""
    scale = 0 if pa.types.is_floating(x.type) and multiple == 1 else -1
    return run_kernel(kernels, x, scale, multiple, mode, blocks)


def same(a, b):
    """Equal slot by slot, bit for bit where valid (NaN, -0.0 included)."""
    if a.null_count != b.null_count or a.is_null().to_pylist() != b.is_null().to_pylist():
        return False
    if pa.types.is_floating(a.type):
        w = "<u4" if a.type == pa.float32() else "<u8"
        x = np.asarray(a.fill_null(0).to_numpy(zero_copy_only=False)).view(w)
        y = np.asarray(b.fill_null(0).to_numpy(zero_copy_only=False)).view(w)
        return bool((x == y).all())
    return a.to_pylist() == b.to_pylist()


@pytest.mark.parametrize("t", [pa.float32(), pa.float64()])
@pytest.mark.parametrize("mode", MODES)
def test_round_floats(kernels, t, mode):
    cases = ((0, 1000, 2, 3), (2, 700, 1, 0), (-1, 300, 3, 5), (12, 200, 1, 1), (-3, 64, 1, 0))
    for ndigits, n, blocks, offset in cases:
        x = values(t, n, n + ndigits, offset)
        got, err = run_round(kernels, x, ndigits, mode, blocks)
        try:
            want = pc.round(x, ndigits, mode)
        except pa.ArrowInvalid:
            assert err != NONE, (mode, ndigits)
            continue
        assert err == NONE, (mode, ndigits, err)
        assert same(got.cast(t), want), (mode, ndigits)


@pytest.mark.parametrize("t", [pa.int8(), pa.uint32(), pa.int64()])
@pytest.mark.parametrize("mode", MODES)
def test_round_integers(kernels, t, mode):
    for ndigits, n, blocks, offset in ((-1, 1000, 2, 3), (-2, 300, 1, 0)):
        x = values(t, n, n - ndigits, offset)
        got, err = run_round(kernels, x, ndigits, mode, blocks)
        try:
            want = pc.round(x, ndigits, mode)
        except pa.ArrowInvalid:
            assert err != NONE, (mode, ndigits)
            continue
        assert err == NONE, (mode, ndigits, err)
        assert same(got, want), (mode, ndigits)


@pytest.mark.parametrize("t", [pa.float32(), pa.float64()])
@pytest.mark.parametrize("mode", MODES)
def test_round_to_multiple_floats(kernels, t, mode):
    cases = (
        (0.25, 1000, 2, 3),
        (1.0, 700, 1, 0),
        (2.5, 300, 3, 5),
        (0.1, 200, 1, 1),
        (1e-3, 64, 1, 0),
    )
    for multiple, n, blocks, offset in cases:
        x = values(t, n, n + int(multiple * 1000), offset)
        m = float(np.float32(multiple)) if t == pa.float32() else multiple
        got, err = run_round_to_multiple(kernels, x, m, mode, blocks)
        try:
            want = pc.round_to_multiple(x, pa.scalar(m, t), mode)
        except pa.ArrowInvalid:
            assert err != NONE, (mode, multiple)
            continue
        assert err == NONE, (mode, multiple, err)
        assert same(got.cast(t), want), (mode, multiple)


@pytest.mark.parametrize("t", [pa.int8(), pa.uint32(), pa.int64()])
@pytest.mark.parametrize("mode", MODES)
def test_round_to_multiple_integers(kernels, t, mode):
    for multiple, n, blocks, offset in ((7, 1000, 2, 3), (2, 300, 1, 0), (100, 129, 1, 2)):
        x = values(t, n, n + multiple, offset)
        got, err = run_round_to_multiple(kernels, x, multiple, mode, blocks)
        try:
            want = pc.round_to_multiple(x, pa.scalar(multiple, t), mode)
        except pa.ArrowInvalid:
            assert err != NONE, (mode, multiple)
            continue
        assert err == NONE, (mode, multiple, err)
        assert same(got, want), (mode, multiple)


def test_round_reports_the_last_refused_slot(kernels):
    x = pa.array([5, 127, 3, 126, None, 1], pa.int8())
    _, err = run_round(kernels, x, -1, "up", 1)
    n = len(x)
    slot, failure = n - 1 - (err >> 1), err & 1
    assert (slot, failure) == (3, 0)  # 126 up to 130, the last to overflow
    _, err = run_round(kernels, pa.array([-128, 5, -125], pa.int8()), -1, "down", 1)
    assert (3 - 1 - (err >> 1), err & 1) == (2, 1)
    _, err = run_round(kernels, pa.array([1e308, 2.5], pa.float64()), -308, "up", 1)
    assert err != NONE


def run_pairwise(kernels, x, period, checked, blocks):
    t, n = x.type, len(x)
    data, valid = output(t, n, True)
    st = status_block()
    args = Args(n=n, aux=max(-n, min(n, period)))
    bind(args, 0, x)
    args.out = data.ctypes.data
    args.out_valid = valid.ctypes.data
    args.status = st.ctypes.data
    name = f"am_pairwise_diff{'_checked' if checked else ''}_{label(t)}"
    kernels(name, blocks, args)
    return as_array(t, n, data, valid), int(st[0])


PAIR_TYPES = [pa.int8(), pa.int16(), pa.uint8(), pa.uint32(), pa.int64(), pa.uint64()]
PAIR_TYPES += [pa.float32(), pa.float64()]


@pytest.mark.parametrize("t", PAIR_TYPES)
def test_pairwise_diff(kernels, t):
    for period in (1, -1, 0, 2, -3, 70, 1000, -5000):
        for n, blocks, offset in ((1000, 2, 3), (40, 1, 0)):
            x = values(t, n, abs(n + period), offset)
            got, err = run_pairwise(kernels, x, period, False, blocks)
            assert err == NONE
            # A copy at offset 0: pyarrow 25 misreads sliced arrays here.
            x0 = pa.array(x.to_pylist(), type=x.type)
            assert same(got, pc.pairwise_diff(x0, period)), (period, n)
            got, err = run_pairwise(kernels, x, period, True, blocks)
            try:
                want = pc.pairwise_diff_checked(x0, period)
            except pa.ArrowInvalid:
                assert err != NONE, (period, n)
                continue
            assert err == NONE, (period, n)
            assert same(got, want), (period, n)
