"""The batch interpreter (gpu/batch_interpreter.h, kernel_source_batch.c) where
there is no GPU: its CUDA source, as the generator writes it for a set of
kernel keys, compiled as C++ against the CPU emulation of CUDA (emu/cuda_emu.h)
and run with a list of ops, each op's block against the same op's kernel
launched alone as one block: every output byte and status word the same.
This checks the entry's conversion into a device function (am_dialect_kernel_
as_function), the namespaces, the parameter layout and the dispatch; the GPU
runs are python/tests/test_batch_graphs.py's on CUDA."""

import ctypes
import pathlib
import subprocess
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild
from test_nulls_kernels import Args

pytestmark = pytest.mark.skipif(cbuild.CXX is None, reason="no C++ compiler")

BLOCK = 256
OPS = 16  # AM_BATCH_OPS
BOOL, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64 = range(1, 12)
NP = {I8: np.int8, I32: np.int32, I64: np.int64, U16: np.uint16, F32: np.float32, F64: np.float64}
REDUCE, COMPARE, ARITH, CAST = 1, 2, 3, 4
SUM, MEAN = 0, 3
GREATER, ADD, MULTIPLY = 4, 0, 2

# (kind, op, t0, t1, what it reads): a reduction, a compare with a scalar, an
# arith of two arrays, a safe cast, over types with nulls and NaN.
KEYS = [
    (REDUCE, SUM, I64, 0, "reduce"),
    (REDUCE, MEAN, F32, 0, "reduce"),
    (REDUCE, SUM, F64, 0, "reduce"),
    (COMPARE, GREATER, I64, 0, "scalar"),
    (ARITH, ADD, F64, 0, "pair"),
    (ARITH, MULTIPLY, I8, 0, "scalar"),
    (CAST, 1, I32, F64, "unary"),
    (CAST, 1, F64, U16, "unary"),
]


class Op(ctypes.Structure):
    """am_batch_op."""

    _fields_ = [("kernel", ctypes.c_uint32), ("pad", ctypes.c_uint32), ("args", Args)]


class Params(ctypes.Structure):
    """am_batch_params."""

    _fields_ = [("op", Op * OPS)]


def compile_emulated(work, stem, source, wrapper):
    """CUDA `source` then the C++ `wrapper`, compiled against the emulation: its
    ctypes.CDLL."""
    cpp = work / f"{stem}.cpp"
    cpp.write_text(f'#include "{HERE / "emu" / "cuda_emu.h"}"\n#include "{source}"\n{wrapper}')
    so = work / f"{stem}.so"
    subprocess.run([cbuild.CXX, "-std=c++17", "-O1", "-ffp-contract=off", "-shared", "-fPIC", "-w",
                    str(cpp), "-o", str(so), "-lpthread"], check=True)  # fmt: skip
    return ctypes.CDLL(str(so))


@pytest.fixture(scope="module")
def emulated(tmp_path_factory):
    """(interpreter, kernels): the interpreter of KEYS, whose am_emu_batch(blocks,
    params) runs `blocks` ops, and name -> a function running that kernel alone as
    one block."""
    work = tmp_path_factory.mktemp("batch")
    tool = cbuild.build(work / "kernel_source_test",
                        [HERE / "kernel_source_test.c", *cbuild.GENERATOR], optimize="-O1")  # fmt: skip
    (work / "cuda").mkdir()
    subprocess.run([str(tool), "dump", "cuda", str(work / "cuda")], check=True, capture_output=True)
    source = work / "interpreter.cu"
    subprocess.run(
        [str(tool), "batch", str(source), *(f"{k},{o},{a},{b}" for k, o, a, b, _ in KEYS)],
        check=True,
        capture_output=True,
    )
    text = source.read_text()
    names = [line.split("::")[1].split("(")[0] for line in text.splitlines() if "case " in line]
    assert len(names) == len(KEYS)
    interpreter = compile_emulated(
        work,
        "interpreter",
        source,
        'extern "C" void am_emu_batch(int blocks, const void *params) {\n'
        "  am_batch_params p;\n  memcpy(&p, params, sizeof p);\n"
        "  am_emu_grid(blocks, 256, [&] { am_batch_interpreter(p); });\n}\n",
    ).am_emu_batch
    interpreter.argtypes = [ctypes.c_int, ctypes.c_void_p]
    alone = {}
    for name in names:
        fn = compile_emulated(work, name, work / "cuda" / f"{name}.cu", f"AM_EMU_ENTRY({name})\n")
        alone[name] = fn.am_emu_run
        alone[name].argtypes = [ctypes.c_int, ctypes.c_void_p]
    return interpreter, [alone[n] for n in names]


def values(t, n, rng):
    if t in (F32, F64):
        pool = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.25, 1e30, 3.0, 7.5])
        return pool[rng.integers(0, len(pool), n)].astype(NP[t])
    info = np.iinfo(NP[t])
    return rng.integers(info.min, info.max, n, endpoint=True, dtype=NP[t])


class Case:
    """One op's inputs, kept alive, and two sets of outputs: for its launch alone
    and for its block of the interpreter."""

    def __init__(self, key_index, rng):
        kind, _, t0, t1, reads = KEYS[key_index]
        self.key_index = key_index
        n = int(rng.choice([0, 1, 31, 33, 255, 256, 257, 1000, 2048]))
        off = int(rng.integers(0, 9))
        self.x = values(t0, n + off, rng)
        self.y = values(t0, n + off, rng)
        self.vx = rng.integers(0, 256, (n + off) // 8 + 8, dtype=np.uint8)
        self.vy = rng.integers(0, 256, (n + off) // 8 + 8, dtype=np.uint8)
        out_type = BOOL if kind == COMPARE else (t1 if kind == CAST else t0)
        out_bytes = (n + 7) // 8 + 64 if out_type == BOOL else n * np.dtype(NP[out_type]).itemsize
        with_validity = rng.random() < 0.5
        scalar = values(t0, 1, rng)[0]
        self.outputs = []
        for _ in range(2):
            out = np.zeros(out_bytes + 64, np.uint8)
            out_valid = np.zeros((n + 7) // 8 + 64, np.uint8)
            status = np.array([2**64 - 1, 0, 0, 0, 0, 0, 0, 0], np.uint64)
            scratch = np.zeros(32 * 1024 + 64, np.uint8)
            args = Args(n=n, off0=off, off1=off)
            args.in0 = self.x.ctypes.data
            args.valid0 = self.vx.ctypes.data if with_validity else 0
            if reads == "pair":
                args.in1 = self.y.ctypes.data
                args.valid1 = self.vy.ctypes.data
            elif reads == "scalar":
                args.scalar = int(np.float64(scalar).view(np.uint64)) if t0 in (F32, F64) else (
                    int(scalar) & (2**64 - 1))  # fmt: skip
            if kind != REDUCE:
                args.out = out.ctypes.data
                args.out_valid = out_valid.ctypes.data
            args.status = status.ctypes.data
            args.scratch = scratch.ctypes.data
            self.outputs.append((args, out, out_valid, status, scratch))

    def state(self, which):
        _, out, out_valid, status, _ = self.outputs[which]
        return out.tobytes(), out_valid.tobytes(), status.tobytes()


@pytest.mark.parametrize("seed", range(6))
def test_each_op_of_a_batch_is_its_own_launch(emulated, seed):
    interpreter, alone = emulated
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, OPS + 1))
    cases = [Case(int(rng.integers(0, len(KEYS))), rng) for _ in range(count)]
    params = Params()
    for i, case in enumerate(cases):
        alone[case.key_index](1, ctypes.addressof(case.outputs[0][0]))
        params.op[i].kernel = case.key_index
        params.op[i].args = case.outputs[1][0]
    interpreter(count, ctypes.addressof(params))
    for i, case in enumerate(cases):
        assert case.state(1) == case.state(0), (i, KEYS[case.key_index])


def test_a_kernel_without_a_callable_entry_is_refused(tmp_path):
    tool = cbuild.build(tmp_path / "kernel_source_test",
                        [HERE / "kernel_source_test.c", *cbuild.GENERATOR], optimize="-O1")  # fmt: skip
    run = subprocess.run([str(tool), "batch", str(tmp_path / "x.cu"), "160,0,0,0"],
                         check=False, capture_output=True, text=True)  # fmt: skip
    assert run.returncode == 1
    assert "am_resident_worker cannot run in a batch interpreter" in run.stderr
