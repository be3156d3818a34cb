"""quantile's GPU radix select (kernel_source_select.c: SELECT_HIST and
SELECT_PICK) run where there is no GPU: their CUDA source compiled as C++
against the CPU emulation of CUDA (emu/cuda_emu.h, via test_nulls_kernels'
fixture) and launched as gpu/ops_quantile.c launches them, on inputs with
offsets, nulls, NaN, many equal keys and several blocks; each rank's key
against numpy's sort of the same keys, and the values against
pyarrow.compute.quantile. This checks the kernels' logic (digits, prefixes,
the bucket choice, clearing between passes), not their speed or the GPU's
memory model."""

import numpy as np
import pytest
from test_nulls_kernels import Args, bind, kernels  # noqa: F401 - kernels: the fixture

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

RECORD, SHARED = 260, 256


def keys_of(arr):
    """core/quantile.h's order keys of the valid non-NaN values."""
    t = arr.type
    v = arr.drop_null().to_numpy(zero_copy_only=False)
    if pa.types.is_floating(t):
        v = v[~np.isnan(v)]
        if t == pa.float32():
            u = v.astype(np.float32).view(np.uint32)
            k = np.where(u >> 31 != 0, ~u, u | np.uint32(0x80000000)).astype(np.uint64)
        else:
            u = v.astype(np.float64).view(np.uint64)
            k = np.where(u >> np.uint64(63) != 0, ~u, u | np.uint64(1 << 63))
        return np.sort(k)
    if pa.types.is_signed_integer(t):
        return np.sort(v.astype(np.int64).view(np.uint64) ^ np.uint64(1 << 63))
    return np.sort(v.astype(np.uint64))


def sample(t, n, seed, offset, equal=False):
    rng = np.random.default_rng(seed)
    if pa.types.is_floating(t):
        pool = np.array([float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1.5, -2.5])
        values = rng.normal(0, 1e3, n + offset)
        special = rng.random(n + offset) < 0.1
        values[special] = pool[rng.integers(0, len(pool), special.sum())]
    else:
        info = np.iinfo(t.to_pandas_dtype())
        values = rng.integers(info.min, info.max, n + offset, endpoint=True, dtype=np.int64
                              if info.min < 0 else np.uint64)  # fmt: skip
    if equal:
        values = np.where(rng.random(n + offset) < 0.9, values[0], values)
    mask = rng.random(n + offset) < 0.2
    return pa.array(values, type=t, mask=mask).slice(offset)


def select(kernels, arr, ranks, blocks):  # noqa: F811 - the fixture
    """The keys of `ranks` as ops_quantile.c finds them, and the count."""
    state = np.zeros(SHARED + RECORD * len(ranks), np.uint32)
    args = Args(n=len(arr))
    bind(args, 0, arr)
    args.out = state.ctypes.data
    label = {pa.float32(): "float32", pa.float64(): "float64"}.get(arr.type, str(arr.type))
    kernels(f"am_select_hist0_{label}", blocks, args)
    m = int(state[:SHARED].sum())
    keys = []
    for r, rank in enumerate(ranks):
        args.aux, args.scalar = r, rank
        for p in range(8):
            if p:
                kernels(f"am_select_hist{p}_{label}", blocks, args)
            kernels(f"am_select_pick{p}", 1, args)
        rec = state[SHARED + r * RECORD : SHARED + (r + 1) * RECORD]
        keys.append(int(rec[1]) << 32 | int(rec[0]))
        assert not rec[4:].any(), "the counts are cleared after each pass"
    return m, keys


@pytest.mark.parametrize("t", [pa.int8(), pa.int32(), pa.uint64(), pa.float32(), pa.float64()])
def test_ranks_over_blocks(kernels, t):  # noqa: F811 - the fixture
    # several blocks (16 slots a thread: 4096 a block), and mostly equal keys
    for n, blocks, offset, equal in ((9000, 3, 5, False), (600, 1, 7, True)):
        arr = sample(t, n, n + 3, offset, equal)
        want = keys_of(arr)
        ranks = sorted({len(want) // 3, len(want) - 1})
        m, got = select(kernels, arr, ranks, blocks)
        assert m == len(want)
        assert got == [int(want[r]) for r in ranks], (t, n, blocks)


def test_values_against_pyarrow(kernels):  # noqa: F811 - the fixture
    arr = sample(pa.float64(), 6000, 11, 3)
    m = len(keys_of(arr))
    for q in (0.0, 0.5, 0.77, 1.0):
        rank = int((m - 1) * q)
        _, (key,) = select(kernels, arr, [rank], 2)
        bits = key & ~(1 << 63) if key >> 63 else ~key & (2**64 - 1)
        value = float(np.array(bits, np.uint64).view(np.float64))
        want = pc.quantile(arr, q=q, interpolation="lower")[0].as_py()
        assert value == want or (value == 0.0 and want == 0.0), q


def test_all_nan_counts_nothing(kernels):  # noqa: F811 - the fixture
    arr = pa.array([float("nan"), None, float("nan")] * 50)
    state = np.zeros(SHARED, np.uint32)
    args = Args(n=len(arr))
    bind(args, 0, arr)
    args.out = state.ctypes.data
    kernels("am_select_hist0_float64", 1, args)
    assert state.sum() == 0
