"""Runs the generated CUDA kernels on a GPU and checks them against numpy.

Skipped where no CUDA driver and device exist (libcuda.so.1) or NVRTC is
missing. The kernels come from a test-only shared build of kernel_source.c,
are compiled by NVRTC to PTX for compute_90 and launched through the driver
API with the am_gpu_args block, exactly as kernels.h describes; inputs are
sliced (offsets not multiples of 8), have nulls, and cover the edge values of
every type. `python test_cuda_kernels.py bench` times a few kernels.
"""

import ctypes
import math
import os
import pathlib
import struct
import sys
import tempfile

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import cbuild
from test_nvrtc_compile import load_nvrtc

BOOL, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64 = range(1, 12)
TYPES = list(range(1, 12))
NP = {
    BOOL: np.bool_,
    I8: np.int8,
    I16: np.int16,
    I32: np.int32,
    I64: np.int64,
    U8: np.uint8,
    U16: np.uint16,
    U32: np.uint32,
    U64: np.uint64,
    F32: np.float32,
    F64: np.float64,
}
LABEL = {
    BOOL: "bool",
    I8: "int8",
    I16: "int16",
    I32: "int32",
    I64: "int64",
    U8: "uint8",
    U16: "uint16",
    U32: "uint32",
    U64: "uint64",
    F32: "float32",
    F64: "float64",
}
SIGNED = {I8, I16, I32, I64}
UNSIGNED = {U8, U16, U32, U64}
INTS = SIGNED | UNSIGNED
FLOATS = {F32, F64}
REDUCE, COMPARE, ARITH, CAST, LOGIC, FCOUNT, FSCAN, FSCATTER, TAKE, FILL, NULLS, COPY, UNARY = (
    range(1, 14)
)
NEGATE, ABS = range(2)  # am_unary_op
NONE = (1 << 64) - 1
BLOCK = 256
MAX_BLOCKS = 1024
SCRATCH_BYTES = MAX_BLOCKS * 32 + 64
COUNTER = MAX_BLOCKS * 32


def bits_of(t):
    return 1 if t == BOOL else np.dtype(NP[t]).itemsize * 8


def int_range(t):
    b = bits_of(t)
    return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if t in SIGNED else (0, (1 << b) - 1)


# ---- the generator, as a shared library


class Key(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("op", ctypes.c_int),
        ("t0", ctypes.c_int),
        ("t1", ctypes.c_int),
    ]


class Generator:
    def __init__(self, workdir):
        lib = pathlib.Path(workdir) / "libkernel_source.so"
        cbuild.build(lib, cbuild.GENERATOR, optimize="-O1", shared=True)
        self.lib = ctypes.CDLL(str(lib))
        self.libc = ctypes.CDLL(None)
        self.libc.free.argtypes = [ctypes.c_void_p]
        # am_kernel_source(am_err *err, dialect, key, out).
        self.lib.am_kernel_source.argtypes = [
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.POINTER(Key),
            ctypes.POINTER(ctypes.c_void_p),
        ]
        self.lib.am_kernel_blocks.argtypes = [ctypes.POINTER(Key), ctypes.c_int64, ctypes.c_int]
        self.lib.am_kernel_supported.argtypes = [ctypes.c_int, ctypes.POINTER(Key)]
        self.lib.am_kernel_name.argtypes = [ctypes.POINTER(Key), ctypes.c_char_p, ctypes.c_size_t]

    def source(self, key):
        out = ctypes.c_void_p()
        err = ctypes.create_string_buffer(1024)  # per call: sources are built on many threads
        rc = self.lib.am_kernel_source(
            ctypes.addressof(err), 0, ctypes.byref(key), ctypes.byref(out)
        )
        assert rc == 0, rc
        text = ctypes.string_at(out.value)
        self.libc.free(out)
        return text

    def name(self, key):
        buf = ctypes.create_string_buffer(64)
        self.lib.am_kernel_name(ctypes.byref(key), buf, 64)
        return buf.value.decode()

    def blocks(self, key, n, mp):
        return self.lib.am_kernel_blocks(ctypes.byref(key), n, mp)


# ---- the CUDA driver


class CudaError(Exception):
    pass


class Gpu:
    def __init__(self, gen):
        self.gen = gen
        self.cu = ctypes.CDLL("libcuda.so.1")
        self.nvrtc, self.nvrtc_path = load_nvrtc()
        if self.nvrtc is None:
            raise CudaError("no NVRTC")
        u64 = ctypes.c_uint64
        for name, args in [
            ("cuMemAlloc_v2", [ctypes.POINTER(u64), ctypes.c_size_t]),
            ("cuMemFree_v2", [u64]),
            ("cuMemcpyHtoD_v2", [u64, ctypes.c_void_p, ctypes.c_size_t]),
            ("cuMemcpyDtoH_v2", [ctypes.c_void_p, u64, ctypes.c_size_t]),
            ("cuMemsetD8_v2", [u64, ctypes.c_ubyte, ctypes.c_size_t]),
            (
                "cuLaunchKernel",
                [
                    ctypes.c_void_p,
                    ctypes.c_uint,
                    ctypes.c_uint,
                    ctypes.c_uint,
                    ctypes.c_uint,
                    ctypes.c_uint,
                    ctypes.c_uint,
                    ctypes.c_uint,
                    ctypes.c_void_p,
                    ctypes.c_void_p,
                    ctypes.c_void_p,
                ],
            ),
            ("cuModuleLoadData", [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]),
            (
                "cuModuleGetFunction",
                [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p],
            ),
            ("cuFuncGetAttribute", [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_void_p]),
            ("cuEventRecord", [ctypes.c_void_p, ctypes.c_void_p]),
            (
                "cuEventElapsedTime",
                [ctypes.POINTER(ctypes.c_float), ctypes.c_void_p, ctypes.c_void_p],
            ),
        ]:
            getattr(self.cu, name).argtypes = args
        self.check(self.cu.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        ctx = ctypes.c_void_p()
        self.check(self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "ctx")
        self.check(self.cu.cuCtxSetCurrent(ctx), "ctx current")
        mp = ctypes.c_int()
        self.check(self.cu.cuDeviceGetAttribute(ctypes.byref(mp), 16, dev), "attr")
        self.mp = mp.value
        self.functions = {}
        self.scratch = self.alloc(SCRATCH_BYTES)
        self.cu.cuMemsetD8_v2(self.scratch, 0, SCRATCH_BYTES)
        self.status = self.alloc(64)
        self.buffers = []

    @staticmethod
    def check(rc, what):
        if rc != 0:
            raise CudaError(f"{what}: CUDA error {rc}")

    def alloc(self, size):
        p = ctypes.c_uint64()
        self.check(self.cu.cuMemAlloc_v2(ctypes.byref(p), max(int(size), 4)), "cuMemAlloc")
        return p.value

    def upload(self, data):
        data = bytes(data)
        p = self.alloc(len(data) + 16)
        self.buffers.append(p)
        if data:
            self.check(self.cu.cuMemcpyHtoD_v2(p, data, len(data)), "HtoD")
        return p

    def output(self, size, fill=0xAB):
        p = self.alloc(size + 16)
        self.buffers.append(p)
        self.cu.cuMemsetD8_v2(p, fill, size + 16)
        return p

    def download(self, p, size):
        buf = ctypes.create_string_buffer(max(size, 1))
        if size:
            self.check(self.cu.cuMemcpyDtoH_v2(buf, p, size), "DtoH")
        return buf.raw[:size]

    def release(self):
        for p in self.buffers:
            self.cu.cuMemFree_v2(p)
        self.buffers = []

    def ptx(self, key):
        """NVRTC's PTX for a key (thread-safe: no CUDA context needed)."""
        lib = self.nvrtc
        src = self.gen.source(key)
        prog = ctypes.c_void_p()
        lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"k.cu", 0, None, None)
        opts = [b"--gpu-architecture=compute_90", b"-default-device", b"--std=c++17"]
        rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        assert rc == 0, log.value.decode()
        lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
        ptx = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetPTX(prog, ptx)
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
        return ptx.raw

    def precompile(self, keys):
        import concurrent.futures

        todo = [k for k in keys if (k.kind, k.op, k.t0, k.t1) not in self.functions]
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 4) as pool:
            for k, ptx in zip(todo, pool.map(self.ptx, todo)):
                self.function(k, ptx)

    def function(self, key, ptx=None):
        k = (key.kind, key.op, key.t0, key.t1)
        if k not in self.functions:
            name = self.gen.name(key)
            ptx = ptx or self.ptx(key)
            mod = ctypes.c_void_p()
            self.check(self.cu.cuModuleLoadData(ctypes.byref(mod), ptx), f"load {name}")
            fn = ctypes.c_void_p()
            self.check(self.cu.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()), name)
            regs = ctypes.c_int()
            self.cu.cuFuncGetAttribute(ctypes.byref(regs), 4, fn)
            self.functions[k] = (fn, name, regs.value)
        return self.functions[k]

    def launch(
        self,
        key,
        blocks,
        in0=0,
        in1=0,
        valid0=0,
        valid1=0,
        out=0,
        out_valid=0,
        n=0,
        off0=0,
        off1=0,
        aux=0,
        scalar=0,
        scalar_null=0,
        pad=0,
        in2=0,
        valid2=0,
        off2=0,
        sync=True,
    ):
        fn, name, _ = self.function(key)
        args = struct.pack(
            "<8Q4qQiiQQq",
            in0,
            in1,
            valid0,
            valid1,
            out,
            out_valid,
            self.scratch,
            self.status,
            n,
            off0,
            off1,
            aux,
            scalar & NONE,
            scalar_null,
            pad,
            in2,
            valid2,
            off2,
        )
        argbuf = ctypes.create_string_buffer(args, len(args))
        params = (ctypes.c_void_p * 1)(ctypes.addressof(argbuf))
        self.check(
            self.cu.cuLaunchKernel(fn, blocks, 1, 1, BLOCK, 1, 1, 0, None, params, None),
            f"launch {name}",
        )
        if sync:
            self.check(self.cu.cuCtxSynchronize(), f"run {name}")

    def reset_status(self):
        data = struct.pack("<8Q", NONE, 0, 0, 0, 0, 0, 0, 0)
        self.check(self.cu.cuMemcpyHtoD_v2(self.status, data, 64), "status")

    def read_status(self):
        return struct.unpack("<8Q", self.download(self.status, 64))

    def counter(self):
        return struct.unpack("<I", self.download(self.scratch + COUNTER, 4))[0]


_GPU = None


def gpu():
    global _GPU
    if _GPU is None:
        try:
            ctypes.CDLL("libcuda.so.1")
        except OSError:
            pytest.skip("no CUDA driver (libcuda.so.1)")
        gen = Generator(tempfile.mkdtemp(prefix="am_gpu_"))
        try:
            _GPU = Gpu(gen)
        except CudaError as exc:
            pytest.skip(f"no usable CUDA device: {exc}")
        _GPU.precompile(all_keys(_GPU.gen))
    return _GPU


def unary_count(gen):
    """The number of am_unary_op values (the op table's AM_UNARY_OPS lines)."""
    gen.lib.am_unary_op_name.restype = ctypes.c_char_p
    count = 0
    while gen.lib.am_unary_op_name(count):
        count += 1
    return count


def all_keys(gen):
    keys = []
    for t in TYPES:
        keys += [Key(REDUCE, op, t, 0) for op in range(4)]
        keys += [Key(COMPARE, op, t, 0) for op in range(6)]
        keys += [Key(ARITH, op, t, 0) for op in range(4) if t != BOOL]
        keys += [Key(CAST, safe, t, to) for to in TYPES for safe in (0, 1)]
        keys += [
            Key(FSCATTER, 0, t, 0),
            Key(TAKE, 0, t, I32),
            Key(TAKE, 0, t, I64),
            Key(FILL, 0, t, 0),
            Key(COPY, 0, t, 0),
        ]
        # every unary op over the kinds it takes (the generator knows which)
        unary = [Key(UNARY, op, t, 0) for op in range(unary_count(gen))]
        keys += [k for k in unary if gen.lib.am_kernel_supported(0, ctypes.byref(k))]
    keys += [Key(LOGIC, op, 0, 0) for op in range(len(LOGIC_OPS))]
    keys += [Key(FCOUNT, 0, 0, 0), Key(FSCAN, 0, 0, 0), Key(NULLS, 0, 0, 0)]
    return keys


# ---- data


def pack_bits(bits):
    return np.packbits(np.asarray(bits, dtype=np.uint8), bitorder="little").tobytes()


def unpack_bits(data, n, off=0):
    return np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little")[off : off + n]


def values(t, count, rng):
    """Random values of type t with its edge cases mixed in."""
    if t == BOOL:
        return rng.integers(0, 2, count).astype(bool)
    if t in INTS:
        lo, hi = int_range(t)
        info = np.iinfo(NP[t])
        v = rng.integers(info.min, info.max, count, dtype=NP[t], endpoint=True)
        small = rng.integers(-3 if t in SIGNED else 0, 4, count).astype(NP[t])
        pick = rng.integers(0, 4, count)
        v = np.where(pick == 0, small, v)
        edges = np.array(
            [lo, hi, 0, 1, lo + 1, hi - 1] + ([-1] if t in SIGNED else []), dtype=NP[t]
        )
        where = rng.integers(0, count, min(count, 12)) if count else []
        for j, w in enumerate(where):
            v[w] = edges[j % len(edges)]
        return v
    ft = NP[t]
    v = (rng.standard_normal(count) * 10.0 ** rng.integers(-3, 6, count)).astype(ft)
    pick = rng.integers(0, 5, count)
    v = np.where(pick == 0, np.round(v), v).astype(ft)
    specials = np.array(
        [
            np.nan,
            np.inf,
            -np.inf,
            -0.0,
            0.0,
            2.0**24,
            2.0**24 + 2,
            2.0**53,
            -(2.0**63),
            2.0**63,
            2.0**64,
            255.0,
            256.0,
            -128.0,
            -129.0,
            0.5,
            -0.5,
            32767.0,
            32768.0,
            4294967295.0,
            4294967296.0,
            1e30,
            -1e-30,
            np.finfo(ft).tiny / 4,
        ],
        dtype=np.float64,
    ).astype(ft)
    where = rng.integers(0, count, min(count, 40)) if count else []
    for j, w in enumerate(where):
        v[w] = specials[j % len(specials)]
    return v


class Col:
    """A sliced input column: physical buffers of off + n slots."""

    def __init__(self, t, n, off, rng, nulls=True, data=None):
        self.t, self.n, self.off = t, n, off
        phys = values(t, off + n, rng) if data is None else data
        self.phys = phys
        self.vals = phys[off : off + n]
        if nulls:
            valid = rng.random(off + n) > 0.2
            self.valid = valid[off : off + n]
            self.vbytes = pack_bits(valid)
        else:
            self.valid = np.ones(n, dtype=bool)
            self.vbytes = None
        self.dbytes = pack_bits(phys) if t == BOOL else phys.tobytes()

    def finite(self):
        """Replaces inf and NaN (float columns) so that sums stay finite."""
        self.phys[~np.isfinite(self.phys)] = 1.5
        self.vals = self.phys[self.off : self.off + self.n]
        self.dbytes = self.phys.tobytes()
        return self

    def dev(self, g):
        d = g.upload(self.dbytes)
        v = g.upload(self.vbytes) if self.vbytes is not None else 0
        return d, v


def out_bytes(t, n):
    if t == BOOL:
        return ((n + 31) // 32) * 4
    return n * np.dtype(NP[t]).itemsize


def read_values(g, p, t, n):
    raw = g.download(p, out_bytes(t, n))
    if t == BOOL:
        return unpack_bits(raw, n).astype(bool), raw
    return np.frombuffer(raw, dtype=NP[t]).copy(), raw


def read_valid(g, p, n):
    raw = g.download(p, ((n + 31) // 32) * 4)
    bits = unpack_bits(raw, ((n + 31) // 32) * 32)
    assert not bits[n:].any(), "validity bits past n are set"
    return bits[:n].astype(bool)


def same(a, b):
    """Bit-identical floats (NaN == NaN), or equal values."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.dtype.kind == "f":
        return (a == b) | (np.isnan(a) & np.isnan(b))
    return a == b


def key(kind, op=0, t0=0, t1=0):
    return Key(kind, op, t0, t1)


SIZES = [0, 1, 31, 32, 33, 1000, 70001]
OFFSETS = [0, 3, 13]


# ---- element-wise kinds


COMPARE_OPS = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal]


def scalar_bits(t, v):
    if t in FLOATS:
        return struct.unpack("<Q", struct.pack("<d", float(v)))[0]
    return int(v) & NONE


@pytest.mark.parametrize("t", TYPES)
def test_compare(t):
    g = gpu()
    rng = np.random.default_rng(t)
    for op in range(6):
        k = key(COMPARE, op, t)
        for n, off0, off1 in [(0, 0, 0), (1, 3, 0), (33, 5, 11), (1000, 13, 6), (70001, 7, 0)]:
            a = Col(t, n, off0, rng)
            b = Col(t, n, off1, rng, nulls=n % 2 == 0)
            if t != BOOL and n > 4:
                b.vals[: n // 3] = a.vals[: n // 3]  # equal pairs
                b.phys[off1 : off1 + n] = b.vals
                b.dbytes = b.phys.tobytes()
            for use_scalar in (False, True):
                d0, v0 = a.dev(g)
                d1, v1 = b.dev(g)
                sc = a.vals[n // 2] if (use_scalar and n) else (values(t, 1, rng)[0])
                out = g.output(out_bytes(BOOL, n))
                ov = g.output(out_bytes(BOOL, n))
                g.reset_status()
                g.launch(
                    k,
                    g.gen.blocks(k, n, g.mp),
                    d0,
                    0 if use_scalar else d1,
                    v0,
                    0 if use_scalar else v1,
                    out,
                    ov,
                    n,
                    off0,
                    off1,
                    scalar=scalar_bits(t, sc),
                )
                got, raw = read_values(g, out, BOOL, n)
                assert not unpack_bits(raw, len(raw) * 8)[n:].any()
                valid = read_valid(g, ov, n)
                want_valid = a.valid & (True if use_scalar else b.valid)
                assert (valid == want_valid).all()
                y = np.full(n, sc, dtype=NP[t]) if use_scalar else b.vals
                x = a.vals
                if t == BOOL:
                    x, y = x.astype(np.int8), y.astype(np.int8)
                with np.errstate(invalid="ignore"):
                    want = COMPARE_OPS[op](x, y)
                bad = np.nonzero((got != want) & want_valid)[0]
                assert len(bad) == 0, (LABEL[t], op, n, use_scalar, bad[:5], x[bad[:5]], y[bad[:5]])
                assert not (got & ~want_valid).any()
                g.release()


def arith_ref(op, t, x, y):
    """(expected values, zero-divisor mask)."""
    if t in FLOATS:
        with np.errstate(all="ignore"):
            r = [np.add, np.subtract, np.multiply, np.divide][op](x, y)
        return r.astype(NP[t]), np.zeros(len(x), dtype=bool)
    if op < 3:
        with np.errstate(all="ignore"):
            r = [np.add, np.subtract, np.multiply][op](x, y)
        return r.astype(NP[t]), np.zeros(len(x), dtype=bool)
    lo = int_range(t)[0]
    out = np.zeros(len(x), dtype=NP[t])
    zero = y == 0
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        if b == 0:
            continue
        if t in SIGNED and a == lo and b == -1:
            continue
        q = abs(a) // abs(b)
        out[i] = q if (a < 0) == (b < 0) else -q
    return out, zero


@pytest.mark.parametrize("t", sorted(INTS | FLOATS))
def test_arith(t):
    g = gpu()
    rng = np.random.default_rng(100 + t)
    for op in range(4):
        k = key(ARITH, op, t)
        for n, off0, off1 in [(0, 0, 0), (1, 0, 1), (33, 5, 11), (1000, 13, 6), (20001, 7, 0)]:
            a = Col(t, n, off0, rng)
            b = Col(t, n, off1, rng, nulls=n % 2 == 1)
            for use_scalar in (False, True):
                d0, v0 = a.dev(g)
                d1, v1 = b.dev(g)
                sc = values(t, 8, rng)[3] if use_scalar else 0
                if use_scalar and op == 3 and t in INTS:
                    sc = -1 if t in SIGNED else 7
                out = g.output(out_bytes(t, n))
                ov = g.output(out_bytes(BOOL, n))
                g.reset_status()
                g.launch(
                    k,
                    g.gen.blocks(k, n, g.mp),
                    d0,
                    0 if use_scalar else d1,
                    v0,
                    0 if use_scalar else v1,
                    out,
                    ov,
                    n,
                    off0,
                    off1,
                    scalar=scalar_bits(t, sc),
                )
                got, _ = read_values(g, out, t, n)
                valid = read_valid(g, ov, n)
                y = np.full(n, sc, dtype=NP[t]) if use_scalar else b.vals
                want_valid = a.valid & (True if use_scalar else b.valid)
                assert (valid == want_valid).all()
                want, zero = arith_ref(op, t, a.vals, y)
                err = np.nonzero(zero & want_valid)[0]
                st = g.read_status()
                assert st[0] == (int(err[0]) if len(err) else NONE), (LABEL[t], op, n)
                check = want_valid & ~zero
                bad = np.nonzero(~same(got, want) & check)[0]
                assert len(bad) == 0, (
                    LABEL[t],
                    op,
                    n,
                    bad[:5],
                    a.vals[bad[:5]],
                    y[bad[:5]],
                    got[bad[:5]],
                    want[bad[:5]],
                )
                assert (got[~want_valid] == 0).all()
                g.release()


def test_arith_errors_report_the_first_zero_divisor():
    g = gpu()
    k = key(ARITH, 3, I32)
    n = 300000
    x = np.arange(n, dtype=np.int32)
    y = np.ones(n, dtype=np.int32)
    y[[299999, 123457, 200000, 123456 + 70000]] = 0
    valid = np.ones(n, dtype=bool)
    out = g.output(n * 4)
    d0, d1 = g.upload(x.tobytes()), g.upload(y.tobytes())
    for blocks in (1, 3, g.gen.blocks(k, n, g.mp), 1024):
        g.reset_status()
        g.launch(k, blocks, d0, d1, 0, 0, out, 0, n)
        assert g.read_status()[0] == 123457
    # A zero divisor in a null slot is no error.
    valid[123457] = False
    v1 = g.upload(pack_bits(valid))
    g.reset_status()
    g.launch(k, 7, d0, d1, 0, v1, out, 0, n)
    assert g.read_status()[0] == 193456
    g.release()


# ---- CAST


def cast_ref(v, f, to, safe):
    """(value, fails) of one cast, per am_scalar_cast; value None = unspecified."""
    if f == to:
        return v, False
    if to == BOOL:
        return bool(v != 0), False
    if f == BOOL:
        return NP[to](1 if v else 0), False
    if f in FLOATS and to in FLOATS:
        return NP[to](v), False
    if to in FLOATS:
        mag = abs(int(v))
        limit = 1 << (24 if to == F32 else 53)
        return None, safe and mag > limit  # value from numpy's own conversion
    if f in FLOATS:
        x = float(v)
        lo, hi = int_range(to)
        bad = (
            math.isnan(x)
            or math.isinf(x)
            or x != math.trunc(x)
            or x < lo
            or x >= 2.0 ** (bits_of(to) - (to in SIGNED))
        )
        if safe:
            return (None if bad else NP[to](int(x))), bad
        # Unsafe, as the CPU backend: saturate to [lo, top], NaN to 0, truncate.
        if math.isnan(x):
            return NP[to](0), False
        prec = 24 if f == F32 else 53
        width = hi.bit_length()
        top = hi >> (width - prec) << (width - prec) if width > prec else hi
        return NP[to](math.trunc(min(max(x, lo), top))), False
    lo, hi = int_range(to)
    x = int(v)
    fails = safe and not (lo <= x <= hi)
    b = bits_of(to)
    w = x & ((1 << b) - 1)
    if to in SIGNED and w >= 1 << (b - 1):
        w -= 1 << b
    return NP[to](w), fails


@pytest.mark.parametrize("f", TYPES)
def test_cast(f):
    g = gpu()
    rng = np.random.default_rng(200 + f)
    for to in TYPES:
        for safe in (0, 1):
            k = key(CAST, safe, f, to)
            for n, off0 in [(0, 0), (37, 5), (2500, 11)]:
                a = Col(f, n, off0, rng)
                d0, v0 = a.dev(g)
                out = g.output(out_bytes(to, n))
                ov = g.output(out_bytes(BOOL, n))
                g.reset_status()
                g.launch(k, g.gen.blocks(k, n, g.mp), d0, 0, v0, 0, out, ov, n, off0)
                got, _ = read_values(g, out, to, n)
                assert (read_valid(g, ov, n) == a.valid).all()
                st = g.read_status()
                first = NONE
                with np.errstate(all="ignore"):
                    conv = a.vals.astype(NP[to]) if to in FLOATS else None
                for i in range(n):
                    want, fails = cast_ref(a.vals[i], f, to, safe)
                    if not a.valid[i]:
                        assert got[i] == 0, (LABEL[f], LABEL[to], i)
                        continue
                    if fails:
                        first = min(first, i)
                        continue
                    if want is None and to in FLOATS:
                        want = conv[i]
                    if want is not None:
                        assert same(got[i], want), (
                            LABEL[f],
                            LABEL[to],
                            safe,
                            i,
                            a.vals[i],
                            got[i],
                            want,
                        )
                assert st[0] == first, (LABEL[f], LABEL[to], safe, n, st[0], first)
                g.release()


@pytest.mark.parametrize("t", [t for t in TYPES if t != BOOL])
def test_unary(t):
    """negate and abs as numpy computes them: integers wrap (abs and negate of the smallest
    signed value give it back, negate of unsigned wraps), floats flip or clear the sign."""
    g = gpu()
    rng = np.random.default_rng(600 + t)
    for op, ref in ((NEGATE, np.negative), (ABS, np.abs)):
        k = key(UNARY, op, t)
        for n, off0 in [(0, 0), (37, 5), (70001, 11)]:
            a = Col(t, n, off0, rng)
            d0, v0 = a.dev(g)
            out = g.output(out_bytes(t, n))
            ov = g.output(out_bytes(BOOL, n))
            g.launch(k, g.gen.blocks(k, n, g.mp), d0, 0, v0, 0, out, ov, n, off0)
            got, _ = read_values(g, out, t, n)
            assert (read_valid(g, ov, n) == a.valid).all()
            with np.errstate(all="ignore"):
                want = ref(a.vals)
            want = np.where(a.valid, want, np.zeros_like(want))
            assert same(got, want).all(), (LABEL[t], op)
            if t in FLOATS:  # the sign of zeros too
                assert (np.signbit(got) == np.signbit(want)).all(), (LABEL[t], op)
            g.release()


# ---- LOGIC, FILL, COUNT_NULLS


# am_logic_op order: (name, value, validity) of (x, vx, y, vy) boolean arrays, as
# include/arrowmetal.h states them: the propagating ops are valid where both
# operands are, the Kleene ones also where a valid operand decides the result.
LOGIC_OPS = [
    ("and", lambda x, vx, y, vy: x & y, lambda x, vx, y, vy: vx & vy),
    ("or", lambda x, vx, y, vy: x | y, lambda x, vx, y, vy: vx & vy),
    ("not", lambda x, vx, y, vy: ~x, lambda x, vx, y, vy: vx),
    (
        "and_kleene",
        lambda x, vx, y, vy: x & y,
        lambda x, vx, y, vy: (vx & vy) | (vx & ~x) | (vy & ~y),
    ),
    (
        "or_kleene",
        lambda x, vx, y, vy: (x & vx) | (y & vy),
        lambda x, vx, y, vy: (vx & vy) | (vx & x) | (vy & y),
    ),
    ("xor", lambda x, vx, y, vy: x ^ y, lambda x, vx, y, vy: vx & vy),
    ("and_not", lambda x, vx, y, vy: x & ~y, lambda x, vx, y, vy: vx & vy),
    (
        "and_not_kleene",
        lambda x, vx, y, vy: x & ~y,
        lambda x, vx, y, vy: (vx & vy) | (vx & ~x) | (vy & y),
    ),
]
NOT = 2


def check_logic(g, op, n, got_out, got_valid, x, vx, y, vy):
    _, value, validity = LOGIC_OPS[op]
    got, raw = read_values(g, got_out, BOOL, n)
    assert not unpack_bits(raw, len(raw) * 8)[n:].any()
    want_valid = validity(x, vx, y, vy)
    assert (read_valid(g, got_valid, n) == want_valid).all(), (LOGIC_OPS[op][0], n)
    # null slots hold false (kernels.h)
    assert (got == (value(x, vx, y, vy) & want_valid)).all(), (LOGIC_OPS[op][0], n)


def test_logic():
    """Bitmaps at any offset, read by bytes, and (pad 1: the host found every
    bitmap's words 4-byte aligned) at offsets of whole words, read a word at
    a time but for the last, and (pad 2: 16-byte aligned, the results too)
    four words at a time but for the last one to four."""
    g = gpu()
    rng = np.random.default_rng(7)
    for op in range(len(LOGIC_OPS)):
        k = key(LOGIC, op)
        binary = op != NOT
        for n, off0, off1, pad in [
            (0, 0, 0, 0),
            (1, 7, 1, 0),
            (31, 1, 2, 0),
            (32, 0, 0, 0),
            (33, 9, 30, 0),
            (1000, 13, 6, 0),
            (100003, 5, 7, 0),
            (32, 0, 0, 1),
            (33, 32, 0, 1),
            (1000, 0, 64, 1),
            (100003, 96, 32, 1),
            (1, 0, 0, 2),
            (33, 0, 0, 2),
            (160, 128, 0, 2),
            (1000, 0, 128, 2),
            (100003, 256, 128, 2),
        ]:
            a = Col(BOOL, n, off0, rng)
            b = Col(BOOL, n, off1, rng, nulls=n % 2 == 1)
            d0, v0 = a.dev(g)
            d1, v1 = b.dev(g)
            out = g.output(out_bytes(BOOL, n))
            ov = g.output(out_bytes(BOOL, n))
            g.launch(
                k,
                g.gen.blocks(k, n, g.mp),
                d0,
                d1 if binary else 0,
                v0,
                v1 if binary else 0,
                out,
                ov,
                n,
                off0,
                off1,
                pad=pad,
            )
            ones = np.ones(n, dtype=bool)
            y, vy = (b.vals, b.valid) if binary else (ones, ones)
            check_logic(g, op, n, out, ov, a.vals, a.valid, y, vy)
            g.release()


def test_logic_with_a_scalar():
    """One operand a bool scalar (aux 1: the left, 2: the right), valid or
    null, the array operand bound in the other's place."""
    g = gpu()
    rng = np.random.default_rng(11)
    for op in range(len(LOGIC_OPS)):
        if op == NOT:
            continue
        k = key(LOGIC, op)
        for n, off in [(1, 3), (33, 9), (1000, 13), (70001, 5)]:
            for side in (1, 2):
                for value, null in ((0, 0), (1, 0), (1, 1)):
                    a = Col(BOOL, n, off, rng)
                    d, v = a.dev(g)
                    out = g.output(out_bytes(BOOL, n))
                    ov = g.output(out_bytes(BOOL, n))
                    if side == 1:  # the array is the right operand
                        which = {"in1": d, "valid1": v, "off1": off}
                    else:
                        which = {"in0": d, "valid0": v, "off0": off}
                    g.launch(
                        k,
                        g.gen.blocks(k, n, g.mp),
                        out=out,
                        out_valid=ov,
                        n=n,
                        aux=side,
                        scalar=value,
                        scalar_null=null,
                        **which,
                    )
                    s = np.full(n, bool(value))
                    vs = np.full(n, not null)
                    if side == 1:
                        check_logic(g, op, n, out, ov, s, vs, a.vals, a.valid)
                    else:
                        check_logic(g, op, n, out, ov, a.vals, a.valid, s, vs)
                    g.release()


@pytest.mark.parametrize("t", TYPES)
def test_fill(t):
    g = gpu()
    rng = np.random.default_rng(300 + t)
    k = key(FILL, 0, t)
    for n in SIZES:
        v = values(t, 5, rng)[2]
        out = g.output(out_bytes(t, n))
        ov = g.output(out_bytes(BOOL, n))
        g.launch(k, g.gen.blocks(k, n, g.mp), out=out, out_valid=ov, n=n, scalar=scalar_bits(t, v))
        got, raw = read_values(g, out, t, n)
        assert same(got, np.full(n, v, dtype=NP[t])).all()
        if t == BOOL:
            assert not unpack_bits(raw, len(raw) * 8)[n:].any()
        assert read_valid(g, ov, n).all()
        g.release()


@pytest.mark.parametrize("t", TYPES)
def test_copy_concatenates_pieces_at_any_slot(t):
    """COPY launches place sliced pieces, nulls included, one after another at
    output slots that are not multiples of 8 or 32; bits are ORed into zeroed
    bitmaps, so neighbouring pieces must not disturb each other."""
    g = gpu()
    rng = np.random.default_rng(500 + t)
    pieces = [Col(t, n, off, rng) for n, off in ((1, 3), (33, 13), (0, 0), (1000, 3), (70001, 0))]
    pieces += [Col(t, 31, 5, rng, nulls=False)]
    total = sum(c.n for c in pieces)
    k = key(COPY, 0, t)
    out = g.output(out_bytes(t, total), fill=0)
    ov = g.output(out_bytes(BOOL, total), fill=0)
    position = 0
    for c in pieces:
        if c.n:
            d, v = c.dev(g)
            blocks = g.gen.blocks(k, c.n, g.mp)
            g.launch(k, blocks, in0=d, valid0=v, out=out, out_valid=ov, n=c.n, off0=c.off,
                     aux=position)  # fmt: skip
        position += c.n
    got, _ = read_values(g, out, t, total)
    valid = read_valid(g, ov, total)
    want = np.concatenate([c.vals for c in pieces])
    want_valid = np.concatenate([c.valid for c in pieces])
    assert (valid == want_valid).all()
    assert same(got, want).all()
    g.release()


def test_count_nulls():
    g = gpu()
    rng = np.random.default_rng(9)
    k = key(NULLS)
    for n, off in [(0, 0), (1, 3), (33, 7), (1000, 13), (1 << 20, 5), (3000017, 0)]:
        a = Col(I8, n, off, rng)
        _, v0 = a.dev(g)
        for blocks in (1, g.gen.blocks(k, n, g.mp), 1024):
            g.reset_status()
            g.launch(k, blocks, valid0=v0, n=n, off0=off)
            assert g.read_status()[1] == int((~a.valid).sum())
        g.reset_status()
        g.launch(k, 5, valid0=0, n=n, off0=off)
        assert g.read_status()[1] == 0
        g.release()


# ---- TAKE


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("it", [I32, I64])
def test_take(t, it):
    g = gpu()
    rng = np.random.default_rng(400 + t * 3 + it)
    k = key(TAKE, 0, t, it)
    for n, m, off0, off1 in [(0, 5, 0, 0), (1, 1, 3, 0), (40, 100, 5, 9), (5000, 777, 13, 2)]:
        src = Col(t, m, off0, rng)
        idx = Col(it, n, off1, rng, data=rng.integers(0, m, off1 + n).astype(NP[it]))
        d0, v0 = src.dev(g)
        d1, v1 = idx.dev(g)
        out = g.output(out_bytes(t, n))
        ov = g.output(out_bytes(BOOL, n))
        g.reset_status()
        g.launch(k, g.gen.blocks(k, n, g.mp), d0, d1, v0, v1, out, ov, n, off0, off1, aux=m)
        assert g.read_status()[0] == NONE
        got, _ = read_values(g, out, t, n)
        valid = read_valid(g, ov, n)
        ix = idx.vals.astype(np.int64)
        want_valid = idx.valid & src.valid[ix]
        assert (valid == want_valid).all()
        want = src.vals[ix]
        assert (same(got, want) | ~want_valid).all()
        assert (got[~want_valid] == 0).all()
        # Out of bounds: the first non-null bad index is reported.
        if n >= 40:
            bad = idx.phys.copy()
            bad[off1 + 30] = -1
            bad[off1 + 35] = m
            valid_phys = np.unpackbits(np.frombuffer(idx.vbytes, np.uint8), bitorder="little")[
                : off1 + n
            ].astype(bool)
            valid_phys[off1 + 30] = False  # null: not an error
            valid_phys[off1 + 35] = True
            d1 = g.upload(bad.tobytes())
            v1 = g.upload(pack_bits(valid_phys))
            g.reset_status()
            g.launch(k, 3, d0, d1, v0, v1, out, ov, n, off0, off1, aux=m)
            assert g.read_status()[0] == 35
        g.release()


# ---- FILTER


def run_filter(g, t, col, mask, blocks=None):
    n = col.n
    kc, ks, kx = key(FCOUNT), key(FSCAN), key(FSCATTER, 0, t)
    b = blocks or g.gen.blocks(kc, n, g.mp)
    assert g.gen.blocks(kx, n, g.mp) == g.gen.blocks(kc, n, g.mp)
    d0, v0 = col.dev(g)
    d1, v1 = mask.dev(g)
    out = g.output(out_bytes(t, n), fill=0)
    ov = g.output(out_bytes(BOOL, n), fill=0)
    g.reset_status()
    args = {
        "in0": d0,
        "in1": d1,
        "valid0": v0,
        "valid1": v1,
        "out": out,
        "out_valid": ov,
        "n": n,
        "off0": col.off,
        "off1": mask.off,
    }
    g.launch(kc, b, **args)
    g.launch(ks, 1, **args)
    g.launch(kx, b, **args)
    count = g.read_status()[1]
    keep = mask.vals & mask.valid
    assert count == int(keep.sum())
    got, _ = read_values(g, out, t, count)
    assert same(got, col.vals[keep]).all(), (LABEL[t], n)
    assert (read_valid(g, ov, count) == col.valid[keep]).all()
    assert g.counter() == 0
    g.release()


@pytest.mark.parametrize("t", TYPES)
def test_filter(t):
    g = gpu()
    rng = np.random.default_rng(500 + t)
    for n, off0, off1 in [
        (0, 0, 0),
        (1, 1, 3),
        (33, 5, 11),
        (1000, 13, 6),
        (70001, 7, 0),
        (300007, 3, 5),
    ]:
        col = Col(t, n, off0, rng)
        mask = Col(BOOL, n, off1, rng, nulls=n % 2 == 1)
        run_filter(g, t, col, mask)
    col = Col(t, 100000, 9, rng)
    for blocks in (1, 2, 7, 1024):
        run_filter(g, t, col, Col(BOOL, 100000, 4, rng), blocks)
    # Dense masks: all kept, none kept.
    col = Col(t, 5000, 3, rng)
    run_filter(g, t, col, Col(BOOL, 5000, 0, rng, nulls=False, data=np.ones(5000, bool)))
    run_filter(g, t, col, Col(BOOL, 5000, 0, rng, nulls=False, data=np.zeros(5000, bool)))


# ---- REDUCE


def reduce_ref(op, t, vals, valid):
    v = vals[valid]
    count = len(v)
    if op in (0, 3):  # sum, mean
        if t in FLOATS:
            return {"count": count, "value": float(np.sum(v.astype(np.float64))), "float": True}
        s = sum(int(x) for x in v.tolist())
        if op == 0 or t == BOOL:
            return {"count": count, "value": s & NONE, "hi": 0}
        return {"count": count, "value": s & NONE, "hi": (s >> 64) & NONE}
    nan = int(np.isnan(v).sum()) if t in FLOATS else 0
    w = v[~np.isnan(v)] if t in FLOATS else v
    if len(w) == 0:
        return {"count": count, "nan": nan, "value": None}
    x = w.min() if op == 1 else w.max()
    if t in FLOATS:
        return {"count": count, "nan": nan, "value": float(x), "float": True, "exact": True}
    return {"count": count, "nan": 0, "value": int(x) & NONE}


@pytest.mark.parametrize("t", TYPES)
def test_reduce(t):
    g = gpu()
    rng = np.random.default_rng(600 + t)
    for op in range(4):
        k = key(REDUCE, op, t)
        for n, off, nulls in [
            (0, 0, True),
            (1, 3, True),
            (33, 5, False),
            (1000, 13, True),
            (70001, 7, True),
            (1 << 20, 0, False),
            (3000017, 11, True),
        ]:
            a = Col(t, n, off, rng, nulls=nulls)
            if t in FLOATS and op in (0, 3) and n % 2 == 1:
                a.finite()
            d0, v0 = a.dev(g)
            want = reduce_ref(op, t, a.vals, a.valid)
            for blocks in (g.gen.blocks(k, n, g.mp), 1, 3, 1024):
                g.reset_status()
                g.launch(k, blocks, d0, 0, v0, 0, n=n, off0=off)
                assert g.counter() == 0
                st = g.read_status()
                assert st[0] == NONE
                assert st[1] == want["count"], (LABEL[t], op, n, st, want)
                if blocks == g.gen.blocks(k, n, g.mp):
                    # Deterministic: the same launch gives the same bits.
                    g.reset_status()
                    g.launch(k, blocks, d0, 0, v0, 0, n=n, off0=off)
                    assert g.read_status() == st
                if op in (1, 2):
                    assert st[2] == want["nan"]
                    if want["value"] is None:
                        continue
                if want.get("float"):
                    got = struct.unpack("<d", struct.pack("<Q", st[3]))[0]
                    w = want["value"]
                    if want.get("exact") or not math.isfinite(w):
                        assert got == w or (math.isnan(got) and math.isnan(w)), (
                            LABEL[t],
                            op,
                            n,
                            got,
                            w,
                        )
                    else:
                        scale = float(np.sum(np.abs(a.vals[a.valid].astype(np.float64)))) or 1.0
                        assert abs(got - w) <= 1e-12 * scale, (LABEL[t], op, n, got, w)
                else:
                    assert st[3] == want["value"], (LABEL[t], op, n, blocks, st, want)
                    if "hi" in want:
                        assert st[4] == want["hi"], (LABEL[t], op, n, st, want)
            g.release()


def test_mean_of_int64_is_exact_beyond_64_bits():
    g = gpu()
    n = 1 << 20
    for v in (np.iinfo(np.int64).max, np.iinfo(np.int64).min):
        data = np.full(n, v, dtype=np.int64)
        d0 = g.upload(data.tobytes())
        k = key(REDUCE, 3, I64)
        g.reset_status()
        g.launch(k, g.gen.blocks(k, n, g.mp), d0, n=n)
        st = g.read_status()
        s = int(v) * n
        assert st[3] == s & NONE and st[4] == (s >> 64) & NONE
    data = np.full(n, np.iinfo(np.uint64).max, dtype=np.uint64)
    d0 = g.upload(data.tobytes())
    k = key(REDUCE, 3, U64)
    g.reset_status()
    g.launch(k, 1024, d0, n=n)
    st = g.read_status()
    s = int(np.iinfo(np.uint64).max) * n
    assert st[3] == s & NONE and st[4] == (s >> 64) & NONE
    g.release()


# ---- benchmark


def bench():
    g = gpu()
    ev = [ctypes.c_void_p(), ctypes.c_void_p()]
    for e in ev:
        g.cu.cuEventCreate(ctypes.byref(e), 0)

    def timed(fn, reps=20):
        fn()
        g.cu.cuCtxSynchronize()
        g.cu.cuEventRecord(ev[0], None)
        for _ in range(reps):
            fn()
        g.cu.cuEventRecord(ev[1], None)
        g.cu.cuEventSynchronize(ev[1])
        ms = ctypes.c_float()
        g.cu.cuEventElapsedTime(ctypes.byref(ms), ev[0], ev[1])
        return ms.value / reps

    n = 1 << 28
    rng = np.random.default_rng(1)
    x = rng.integers(-1000, 1000, n, dtype=np.int64)
    d64 = g.upload(x.tobytes())
    d64b = g.upload(x[::-1].tobytes())
    f32 = g.upload(x.astype(np.float32).tobytes())
    i32 = g.upload(x.astype(np.int32).tobytes())
    valid = g.upload(pack_bits(rng.random(n) > 0.1))
    mask = g.upload(pack_bits(rng.random(n) > 0.5))
    out = g.output(n * 8)
    ov = g.output(n // 8 + 64)
    rows = []

    def report(label, k, bytes_moved, fn):
        ms = timed(fn)
        rows.append((label, g.function(k)[2], ms, bytes_moved / ms / 1e6))

    for label, t, d, size in [
        ("sum int64", I64, d64, 8),
        ("sum float32", F32, f32, 4),
        ("sum int32", I32, i32, 4),
    ]:
        for nulls in (0, valid):
            k = key(REDUCE, 0, t)
            b = g.gen.blocks(k, n, g.mp)
            report(
                f"reduce {label}{' +nulls' if nulls else ''}",
                k,
                n * size,
                lambda k=k, b=b, d=d, nulls=nulls: g.launch(k, b, d, 0, nulls, 0, n=n, sync=False),
            )
    k = key(REDUCE, 3, I64)
    report(
        "reduce mean int64",
        k,
        n * 8,
        lambda: g.launch(k, g.gen.blocks(k, n, g.mp), d64, n=n, sync=False),
    )
    k = key(REDUCE, 1, F32)
    report(
        "reduce min float32",
        k,
        n * 4,
        lambda: g.launch(k, g.gen.blocks(k, n, g.mp), f32, n=n, sync=False),
    )
    k = key(ARITH, 0, I64)
    report(
        "arith add int64",
        k,
        n * 24,
        lambda: g.launch(k, g.gen.blocks(k, n, g.mp), d64, d64b, 0, 0, out, ov, n, sync=False),
    )
    report(
        "arith add int64 +nulls",
        k,
        n * 24,
        lambda: g.launch(
            k, g.gen.blocks(k, n, g.mp), d64, d64b, valid, valid, out, ov, n, sync=False
        ),
    )
    k = key(ARITH, 0, I32)
    report(
        "arith add int32",
        k,
        n * 12,
        lambda: g.launch(k, g.gen.blocks(k, n, g.mp), i32, i32, 0, 0, out, ov, n, sync=False),
    )
    i8 = g.upload(x.astype(np.int8).tobytes())
    k = key(ARITH, 0, I8)
    report(
        "arith add int8",
        k,
        n * 3,
        lambda: g.launch(k, g.gen.blocks(k, n, g.mp), i8, i8, 0, 0, out, ov, n, sync=False),
    )
    k = key(COMPARE, 2, I64)
    report(
        "compare lt int64 scalar",
        k,
        n * 8,
        lambda: g.launch(k, g.gen.blocks(k, n, g.mp), d64, 0, 0, 0, out, ov, n, sync=False),
    )
    k = key(CAST, 1, I64, I32)
    report(
        "cast int64->int32 safe",
        k,
        n * 12,
        lambda: g.launch(k, g.gen.blocks(k, n, g.mp), d64, 0, 0, 0, out, ov, n, sync=False),
    )
    k = key(LOGIC, 0)
    report(
        "logic and",
        k,
        n // 8 * 3,
        lambda: g.launch(
            k, g.gen.blocks(k, n, g.mp), mask, valid, 0, 0, out, ov, n, 3, 5, sync=False
        ),
    )
    k = key(NULLS)
    report(
        "count nulls",
        k,
        n // 8,
        lambda: g.launch(k, g.gen.blocks(k, n, g.mp), valid0=valid, n=n, sync=False),
    )
    k = key(FILL, 0, I64)
    report(
        "fill int64",
        k,
        n * 8,
        lambda: g.launch(k, g.gen.blocks(k, n, g.mp), out=out, n=n, scalar=5, sync=False),
    )
    idx = g.upload(rng.integers(0, n, n // 4).astype(np.int32).tobytes())
    k = key(TAKE, 0, I64, I32)
    report(
        "take int64 by int32 (random)",
        k,
        n // 4 * 20,
        lambda: g.launch(
            k, g.gen.blocks(k, n // 4, g.mp), d64, idx, 0, 0, out, ov, n // 4, aux=n, sync=False
        ),
    )
    kc, ks, kx = key(FCOUNT), key(FSCAN), key(FSCATTER, 0, I64)
    b = g.gen.blocks(kc, n, g.mp)

    def filt():
        g.launch(kc, b, d64, mask, 0, 0, out, 0, n, sync=False)
        g.launch(ks, 1, d64, mask, 0, 0, out, 0, n, sync=False)
        g.launch(kx, b, d64, mask, 0, 0, out, 0, n, sync=False)

    report("filter int64 (3 launches, 50%)", kx, n * 8 + n // 2 * 8, filt)
    print(f"{'kernel':36} {'regs':>4} {'ms':>8} {'GB/s':>8}")
    for label, regs, ms, gbs in rows:
        print(f"{label:36} {regs:4d} {ms:8.3f} {gbs:8.0f}")


if __name__ == "__main__":
    if sys.argv[1:] == ["bench"]:
        bench()
