"""The float16 cast kernels (kernel_source.c's CAST of float16 <-> float32 /
float64, on core/float16.h's bit conversions) run where there is no GPU:
their CUDA source, as the generator writes it, compiled as C++ against the
CPU emulation of CUDA (emu/cuda_emu.h) and launched as gpu/ops.c launches a
cast, on inputs with an offset, nulls and several blocks; each result bit
for bit against pyarrow.compute.cast's (every float16, NaN payloads, ties,
subnormals, overflow to infinity). The other float16 calls are these casts
and the uint16 kernels (abi/float16.h), run on the GPU by the conformance
cases."""

import pathlib
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import test_nulls_kernels as emu
from test_nulls_kernels import Args, bind, output  # the emulation's buffers

kernels = emu.kernels  # the fixture: kernel name -> a runner over (blocks, Args)

BITS = {pa.float16(): np.uint16, pa.float32(): np.uint32, pa.float64(): np.uint64}
NAME = {pa.float16(): "float16", pa.float32(): "float32", pa.float64(): "float64"}


def every_float16():
    return np.arange(1 << 16, dtype=np.uint16)


def floats_to_round(width, seed):
    """Random bit patterns, and float16's values with every kind of tail: a
    tie (even and odd), just above and below one, the subnormal range and
    past 65504; NaNs with payloads above and below float16's bits."""
    rng = np.random.default_rng(seed)
    h = every_float16().astype(np.uint64)
    if width == 32:
        shift, top = 13, np.uint64(1 << 12)
        random = rng.integers(0, 1 << 32, 200_000, dtype=np.uint64)
    else:
        shift, top = 42, np.uint64(1 << 41)
        random = rng.integers(0, 1 << 63, 200_000, dtype=np.uint64) * 2 + rng.integers(
            0, 2, 200_000, dtype=np.uint64
        )
    # float16's bits placed in the wider format's sign, exponent (rebiased
    # by the caller's choice of shift) and mantissa, with tails
    wide = np.array([], np.uint64)
    for tail in (np.uint64(0), top, top - np.uint64(1), top + np.uint64(1)):
        wide = np.concatenate([wide, (h << np.uint64(shift)) | tail])
    if width == 32:
        # float32 bit patterns whose values are float16's and the ties between them
        f = h.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
        wide = np.concatenate([wide.astype(np.uint32), f, f + 0x1000, f + 0xFFF, f + 0x1001])
        out = np.concatenate([wide, random.astype(np.uint32)]).astype(np.uint32)
        return out.view(np.float32)
    f = h.astype(np.uint16).view(np.float16).astype(np.float64).view(np.uint64)
    one = np.uint64(1)
    wide = np.concatenate([wide, f, f + (one << np.uint64(41)), f + (one << np.uint64(41)) - one,
                           f + (one << np.uint64(41)) + one])  # fmt: skip
    return np.concatenate([wide, random]).view(np.float64)


def run(kernels, x, to, blocks):
    n = len(x)
    data, valid = output(to, n, True)
    args = Args(n=n)
    bind(args, 0, x)
    args.out = data.ctypes.data
    args.out_valid = valid.ctypes.data
    kernels(f"am_cast_{NAME[x.type]}_to_{NAME[to]}_unsafe", blocks, args)
    width = to.bit_width // 8
    bits = data[: n * width].view(BITS[to])
    got_valid = np.unpackbits(valid[: (n + 7) // 8], bitorder="little")[:n].astype(bool)
    return bits, got_valid


def expected_bits(x, to):
    want = pc.cast(x, to)
    width = to.bit_width // 8
    raw = np.frombuffer(want.buffers()[1], BITS[to])
    return raw[want.offset : want.offset + len(want)][: len(x)] if width else raw


def with_nulls_and_offset(values, seed, offset=5):
    rng = np.random.default_rng(seed)
    mask = rng.random(len(values) + offset) < 0.2
    padded = np.concatenate([values[:offset], values])
    return pa.array(padded, mask=mask).slice(offset)


@pytest.mark.parametrize("to", [pa.float32(), pa.float64()])
def test_float16_widens_exactly(kernels, to):
    x = with_nulls_and_offset(every_float16().view(np.float16), 1)
    bits, valid = run(kernels, x, to, blocks=3)
    assert (valid == x.is_valid().to_numpy(zero_copy_only=False)).all()
    want = expected_bits(x, to)
    ok = valid
    assert (bits[ok] == want[ok]).all(), np.nonzero(bits[ok] != want[ok])[0][:5]


@pytest.mark.parametrize("width", [32, 64])
def test_floats_round_to_float16_as_pyarrow(kernels, width):
    x = with_nulls_and_offset(floats_to_round(width, width), width)
    bits, valid = run(kernels, x, pa.float16(), blocks=4)
    assert (valid == x.is_valid().to_numpy(zero_copy_only=False)).all()
    want = expected_bits(x, pa.float16())
    bad = np.nonzero((bits != want) & valid)[0]
    assert len(bad) == 0, [(hex(int(np.asarray(x.to_numpy(zero_copy_only=False))[i].view(
        np.uint32 if width == 32 else np.uint64))), hex(int(bits[i])), hex(int(want[i])))
        for i in bad[:5]]  # fmt: skip
