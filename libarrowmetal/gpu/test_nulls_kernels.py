"""The null-handling GPU kernels (kernel_source_nulls.c: PREDICATE, COALESCE,
IF_ELSE, FILL_*) run where there is no GPU: their CUDA source, as the generator
writes it, compiled as C++ against a CPU emulation of CUDA (emu/cuda_emu.h: a
thread per GPU thread, warp operations through barriers) and launched as
gpu/ops_nulls.c launches them, on inputs with offsets, nulls and several
blocks; each result against pyarrow.compute's. This checks the kernels' logic
(slot assignment, ballots, shuffles, scans, bit order); the GPU runs of the
same kernels are python/tests/test_nulls.py's CUDA tests."""

import ctypes
import math
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild

CXX = shutil.which("g++") or shutil.which("clang++")
pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler")

GPU_BLOCK = 256
SCRATCH_BYTES = 1024 * 32 + 64  # AM_GPU_SCRATCH_BYTES


class Args(ctypes.Structure):
    """am_gpu_args (gpu/kernels.h)."""

    _fields_ = [
        ("in0", ctypes.c_uint64),
        ("in1", ctypes.c_uint64),
        ("valid0", ctypes.c_uint64),
        ("valid1", ctypes.c_uint64),
        ("out", ctypes.c_uint64),
        ("out_valid", ctypes.c_uint64),
        ("scratch", ctypes.c_uint64),
        ("status", ctypes.c_uint64),
        ("n", ctypes.c_int64),
        ("off0", ctypes.c_int64),
        ("off1", ctypes.c_int64),
        ("aux", ctypes.c_int64),
        ("scalar", ctypes.c_uint64),
        ("scalar_null", ctypes.c_int32),
        ("pad", ctypes.c_int32),
        ("in2", ctypes.c_uint64),
        ("valid2", ctypes.c_uint64),
        ("off2", ctypes.c_int64),
    ]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """name -> a function running that kernel over (blocks, Args)."""
    work = tmp_path_factory.mktemp("emu")
    tool = cbuild.build(
        work / "kernel_source_test",
        [HERE / "kernel_source_test.c", *cbuild.GENERATOR],
        optimize="-O1",
    )
    (work / "cuda").mkdir()
    subprocess.run([str(tool), "dump", "cuda", str(work / "cuda")], check=True, capture_output=True)
    cache = {}

    def get(name):
        if name not in cache:
            src = work / f"{name}.cpp"
            src.write_text(
                f'#include "{HERE / "emu" / "cuda_emu.h"}"\n'
                f'#include "{work / "cuda" / (name + ".cu")}"\n'
                f"AM_EMU_ENTRY({name})\n"
            )
            so = work / f"{name}.so"
            subprocess.run(
                [CXX, "-std=c++17", "-O1", "-shared", "-fPIC", "-w", str(src), "-o", str(so),
                 "-lpthread"],
                check=True,
            )  # fmt: skip
            fn = ctypes.CDLL(str(so)).am_emu_run
            fn.argtypes = [ctypes.c_int, ctypes.c_void_p]
            cache[name] = fn
        return cache[name]

    def run(name, blocks, args):
        get(name)(blocks, ctypes.addressof(args))

    return run


# ---- buffers ---------------------------------------------------------------------------


def address(buffer):
    return 0 if buffer is None else buffer.address


def bind(args, which, arr):
    """Operand `which` of Args from a pyarrow array (its own buffers and offset)."""
    validity, data = arr.buffers()[0], arr.buffers()[1]
    setattr(args, f"in{which}", address(data))
    setattr(args, f"valid{which}", address(validity) if arr.null_count else 0)
    setattr(args, f"off{which}", arr.offset)


def output(t, n, with_validity):
    """Zeroed output buffers as the GPU allocates them (whole 64-byte lines)."""
    width = 1 if t == pa.bool_() else t.bit_width // 8
    nbytes = ((n + 7) // 8 if t == pa.bool_() else n * width) + 64
    data = np.zeros(nbytes, np.uint8)
    valid = np.zeros((n + 7) // 8 + 64, np.uint8) if with_validity else None
    return data, valid


def as_array(t, n, data, valid):
    buffers = [pa.py_buffer(valid.tobytes()) if valid is not None else None,
               pa.py_buffer(data.tobytes())]  # fmt: skip
    return pa.Array.from_buffers(t, n, buffers)


def plain(arr):
    return ["NaN" if isinstance(v, float) and math.isnan(v) else v for v in arr.to_pylist()]


def scalar_bits(t, value):
    """am_gpu_args.scalar of a value of type t (floats as double bits)."""
    if pa.types.is_floating(t):
        return int(np.array(value, np.float64).view(np.uint64))
    if t == pa.bool_():
        return int(bool(value))
    return int(value) & (2**64 - 1)


def sample(t, n, seed, null_share=0.3, offset=0):
    rng = np.random.default_rng(seed)
    if t == pa.bool_():
        values = [bool(v) for v in rng.integers(0, 2, n + offset)]
    elif pa.types.is_floating(t):
        pool = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1.5, -2.5, 3e38]
        values = [pool[i] for i in rng.integers(0, len(pool), n + offset)]
    else:
        info = np.iinfo(t.to_pandas_dtype())
        values = [int(v) for v in rng.integers(info.min, info.max, n + offset, endpoint=True)]
    mask = rng.random(n + offset) < null_share
    arr = pa.array([None if m else v for v, m in zip(values, mask)], type=t)
    return arr.slice(offset)


TYPES = [pa.bool_(), pa.int8(), pa.int16(), pa.uint32(), pa.int64(), pa.float32(), pa.float64()]
LABEL = {pa.float32(): "float32", pa.float64(): "float64", pa.bool_(): "bool"}


def label(t):
    return LABEL.get(t, str(t))


# ---- PREDICATE ---------------------------------------------------------------------------

PREDICATES = ["is_null", "is_valid", "is_nan", "is_finite", "is_inf"]


@pytest.mark.parametrize("t", [pa.float32(), pa.float64(), pa.int32()])
@pytest.mark.parametrize("nulls", [0.0, 0.3])
def test_predicates(kernels, t, nulls):
    # Offsets of whole words read the validity a word at a time (pad, as the
    # host sets it: pyarrow's buffers are 64-byte aligned), others by bytes.
    for n, blocks, offset in ((1000, 2, 3), (70, 1, 0), (4097, 5, 9), (4097, 2, 32), (999, 1, 64)):
        x = sample(t, n, n + 1, nulls, offset)
        for p, name in enumerate(PREDICATES):
            for nan_is_null in (False, True) if name == "is_null" else (False,):
                reads = pa.types.is_floating(t) and (p >= 2 or nan_is_null)
                never_null = name in ("is_null", "is_valid")
                kname = f"am_{name}{'_nan' if nan_is_null else ''}_{label(t)}" if reads else (
                    f"am_{name}" if never_null else f"am_{name}_integer")  # fmt: skip
                data, valid = output(pa.bool_(), n, not never_null and x.null_count > 0)
                args = Args(n=n, pad=int(not reads and offset % 32 == 0))
                bind(args, 0, x)
                args.out = data.ctypes.data
                args.out_valid = valid.ctypes.data if valid is not None else 0
                kernels(kname, blocks, args)
                got = as_array(pa.bool_(), n, data, valid)
                if name == "is_null":
                    want = pc.is_null(x, nan_is_null=nan_is_null)
                else:
                    want = pc.call_function(name, [x])
                assert plain(got) == plain(want), (kname, n, offset)


# ---- COALESCE ----------------------------------------------------------------------------


@pytest.mark.parametrize("t", TYPES)
def test_coalesce(kernels, t):
    for n, blocks in ((3000, 3), (33, 1)):
        left, right = sample(t, n, 1, 0.4, 5), sample(t, n, 2, 0.4, 1)
        fill = {pa.bool_(): True, pa.float32(): 0.1, pa.float64(): -0.0}.get(t, 7)
        for other in (right, fill):
            is_array = isinstance(other, pa.Array)
            with_validity = is_array and left.null_count > 0 and right.null_count > 0
            data, valid = output(t, n, with_validity)
            args = Args(n=n)
            bind(args, 0, left)
            if is_array:
                bind(args, 1, right)
            else:
                args.scalar = scalar_bits(t, fill)
            args.out = data.ctypes.data
            args.out_valid = valid.ctypes.data if valid is not None else 0
            kernels(f"am_coalesce_{label(t)}", blocks, args)
            want = pc.coalesce(left, other if is_array else pa.scalar(fill, t))
            assert plain(as_array(t, n, data, valid)) == plain(want), (t, n, is_array)


# ---- IF_ELSE -----------------------------------------------------------------------------


@pytest.mark.parametrize("t", TYPES)
def test_if_else(kernels, t):
    for n, blocks in ((3000, 2), (40, 1)):
        cond = sample(pa.bool_(), n, 3, 0.2, 7)
        left, right = sample(t, n, 4, 0.3, 2), sample(t, n, 5, 0.3, 0)
        value = {pa.bool_(): True, pa.float32(): 2.5, pa.float64(): float("nan")}.get(t, 9)
        sides = [
            (left, right),
            (left, pa.scalar(value, t)),
            (pa.scalar(None, t), right),
            (pa.scalar(value, t), pa.scalar(None, t)),
        ]
        for lhs, rhs in sides:
            args = []
            for side, arg in ((lhs, Args(n=n)), (rhs, Args(n=n))):
                if isinstance(side, pa.Array):
                    bind(arg, 0, side)
                else:
                    arg.scalar_null = int(not side.is_valid)
                    arg.scalar = scalar_bits(t, side.as_py()) if side.is_valid else 0
                bind(arg, 1, cond)
                args.append(arg)
            data, valid = output(t, n, True)
            for k, arg in enumerate(args):
                arg.out, arg.out_valid = data.ctypes.data, valid.ctypes.data
                kernels(f"am_if_else_{'false' if k else 'true'}_{label(t)}", blocks, arg)
            want = pc.if_else(cond, lhs, rhs)
            assert plain(as_array(t, n, data, valid)) == plain(want), (t, n, type(lhs), type(rhs))
            if isinstance(lhs, pa.Array) and isinstance(rhs, pa.Array):
                # both arrays: one launch, the right side as in2
                both = Args(n=n)
                bind(both, 0, lhs)
                bind(both, 1, cond)
                bind(both, 2, rhs)
                data, valid = output(t, n, True)
                both.out, both.out_valid = data.ctypes.data, valid.ctypes.data
                kernels(f"am_if_else_both_{label(t)}", blocks, both)
                assert plain(as_array(t, n, data, valid)) == plain(want), (t, n, "both")


# ---- FILL_BLOCKS, FILL_CARRY, FILL_GATHER --------------------------------------------------


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_fill_directions(kernels, t, direction):
    # In plain Python: pyarrow 25 fills sliced boolean arrays wrongly.
    backward = direction == "backward"

    def ref(x):
        values = x.to_pylist()[:: -1 if backward else 1]
        out, current = [], None
        for v in values:
            current = v if v is not None else current
            out.append(current)
        return pa.array(out[:: -1 if backward else 1], x.type)

    cases = [(5000, 3, 0.3, 5), (5000, 3, 0.995, 1), (600, 1, 0.5, 0), (70, 2, 1.0, 3),
             (2049, 2, 0.9, 63)]  # fmt: skip
    for n, blocks, share, offset in cases:
        x = sample(t, n, n + blocks, share, offset)
        scratch = np.zeros(SCRATCH_BYTES, np.uint8)
        data, valid = output(t, n, True)
        args = Args(n=n)
        bind(args, 0, x)
        args.out, args.out_valid = data.ctypes.data, valid.ctypes.data
        args.scratch = scratch.ctypes.data
        kernels(f"am_fill_{direction}_blocks", blocks, args)
        kernels("am_fill_carry", 1, args)
        kernels(f"am_fill_{direction}_{label(t)}", blocks, args)
        want = ref(x)
        assert plain(as_array(t, n, data, valid)) == plain(want), (t, n, blocks, share)
