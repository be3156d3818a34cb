"""sort_indices' GPU radix sort (kernel_source_sort.c: SORT_KEYS, SORT_COUNT,
SORT_SCAN and WIDEN, SORT_SCATTER, SORT_ONESWEEP) run where there is no GPU: the CUDA
source compiled as C++ against the CPU emulation of CUDA (emu/cuda_emu.h) -- every sort
kernel in one translation unit, each in a namespace of its own -- and
launched as gpu/ops_sort.c launches them (the keys, the header read back,
the varying bytes' passes, one ONESWEEP launch each as on CUDA or the three
launches as on Metal, the class pass), over every type with nulls,
offsets, NaN, -0.0 / 0.0, both orders, both null placements, several keys,
lengths 0, 1, odd, of several sub-tiles and of several blocks, skewed
digits (one digit filling a warp, a sub-tile) and all-equal keys; each
permutation against pyarrow.compute.sort_indices (stable, so exactly). This
checks the kernels' logic (digits, the scan's layout and the digit totals,
the ballot ranks, the warps' running counts and their stability, the
sub-tile's reorder in shared memory, the skipped passes, ONESWEEP's digit
histograms, tickets and look-back over both parities of its status words),
not their speed or the GPU's memory model (here every lane of a warp runs in
its own thread and __syncwarp is a barrier of the warp, as on the GPU; blocks
run one after another, so a look-back never waits)."""

import ctypes
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from test_nulls_kernels import CXX, HERE, Args, bind

sys.path.insert(0, str(HERE.parent))
import cbuild

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

BLOCK, TILE, SUB, ONESWEEP_SUB, CLASS_PASS, WIDEN = 256, 8192, 2048, 3072, 8, 9  # gpu/kernels.h
HEAD = 8 + 9 * 256 + 8  # AM_SORT_HEAD: flags, the digit totals of 9 passes, ONESWEEP's tickets
TYPES = [pa.bool_(), pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(),
         pa.uint32(), pa.uint64(), pa.float32(), pa.float64()]  # fmt: skip


def label(t):
    return {pa.bool_(): "bool", pa.float32(): "float32", pa.float64(): "float64"}.get(t, str(t))


# Each emulated sort costs about a second of CPU (the emulation's fibers switch
# at some 160 warp barriers a sub-tile), so by default one type of each width and signedness runs
# here (bool, int16, float32, int64: each order-key form -- a bit, a signed
# integer's flipped sign, a float's bits -- at each kind of width), and
# ARROWMETAL_EMULATE_EVERY_TYPE=1 runs all eleven. Every type runs on a real GPU
# in the conformance cases.
EVERY_TYPE = os.environ.get("ARROWMETAL_EMULATE_EVERY_TYPE") == "1"
EMULATED_TYPES = TYPES if EVERY_TYPE else [pa.bool_(), pa.int16(), pa.float32(), pa.int64()]


@pytest.fixture(scope="module")
def sort_kernels(tmp_path_factory):
    """name -> a function running that sort kernel over (blocks, Args)."""
    work = tmp_path_factory.mktemp("sort_emu")
    tool = cbuild.build(work / "kernel_source_test", [HERE / "kernel_source_test.c",
                        *cbuild.GENERATOR], optimize="-O1")  # fmt: skip
    (work / "cuda").mkdir()
    subprocess.run([str(tool), "dump", "cuda", str(work / "cuda")], check=True, capture_output=True)
    names = sorted(p.stem for p in (work / "cuda").glob("am_sort_*.cu"))
    lines = [f'#include "{HERE / "emu" / "cuda_emu.h"}"']
    for i, name in enumerate(names):  # each kernel's helpers in a namespace of their own
        lines += [f"namespace k{i} {{", f'#include "{work / "cuda" / (name + ".cu")}"', "}",
                  f'extern "C" void run_{name}(int blocks, const void *args) {{',
                  f"  k{i}::Args a; memcpy(&a, args, sizeof a);",
                  f"  am_emu_grid(blocks, AM_BLOCK, [&] {{ k{i}::{name}(a); }});", "}"]  # fmt: skip
    (work / "sort.cpp").write_text("\n".join(lines) + "\n")
    so = work / "sort.so"
    subprocess.run([CXX, "-std=c++17", "-O0", "-shared", "-fPIC", "-w", str(work / "sort.cpp"),
                    "-o", str(so), "-lpthread"], check=True)  # fmt: skip
    lib = ctypes.CDLL(str(so))

    def run(name, blocks, args):
        fn = getattr(lib, f"run_{name}")
        fn.argtypes = [ctypes.c_int, ctypes.c_void_p]
        fn(blocks, ctypes.addressof(args))

    return run


def sort_blocks(n):
    return max(1, -(-n // TILE))


def gpu_sort(run, columns, descending, nulls_first, blocks_keys=None, onesweep=True):
    """The permutation as ops_sort.c makes it (onesweep: as on CUDA), and the
    passes it ran."""
    n = len(columns[0])
    if n == 0:
        return [], 0
    # garbage rows: the first pass of the onesweep path takes the positions
    # (identity) and must not read them
    rows = [np.full(n, 0xDEADBEEF, np.uint32), np.zeros(n, np.uint32)]
    keys = [np.zeros(n, np.uint64), np.zeros(n, np.uint64)]
    nb, tiles = sort_blocks(n), -(-n // ONESWEEP_SUB)
    # garbage where nothing may be read before it is written
    counts = np.full(HEAD + max(256 * nb, 2 * 256 * tiles if onesweep else 0), 0xDEAD, np.uint32)
    passes, folded = 0, False
    for k in reversed(range(len(columns))):
        col, first = columns[k], k == len(columns) - 1
        counts[: HEAD + (256 * tiles if onesweep else 0)] = 0
        parity = 0
        args = Args(n=n)
        bind(args, 0, col)
        args.in1 = 0 if first else rows[0].ctypes.data
        args.out = keys[0].ctypes.data
        identity = first and onesweep  # the gather writes no rows
        args.out_valid = rows[0].ctypes.data if first and not identity else 0
        args.scratch = counts.ctypes.data
        name = f"am_sort_keys_{label(col.type)}{'_desc' if descending[k] else ''}"
        name += ("_first" if first else "") + ("_hist" if onesweep else "")
        run(name + ("_norows" if identity else ""), blocks_keys or -(-n // 1024), args)
        head = [int(x) for x in counts[:5]]
        varies = (head[1] << 32 | head[0]) & (head[3] << 32 | head[2])
        width = 1 if col.type == pa.bool_() else col.type.bit_width // 8
        first_byte = min((b for b in range(width) if (varies >> (8 * b)) & 0xFF), default=-1)
        if identity and first_byte < 0:  # no pass takes the positions: the gather writes them
            args.out_valid = rows[0].ctypes.data
            name = f"am_sort_keys_{label(col.type)}{'_desc' if descending[k] else ''}_first"
            run(name, blocks_keys or -(-n // 1024), args)
        # the sort's last pass, a ONESWEEP, leaves the u64 rows in the keys' buffer
        final = -1
        if onesweep and k == 0 and head[4] == 0:
            final = max((b for b in range(width) if (varies >> (8 * b)) & 0xFF), default=-1)
        for byte in range(width + 1):
            is_class = byte == width
            if (head[4] == 0) if is_class else ((varies >> (8 * byte)) & 0xFF) == 0:
                continue
            a = Args(n=n)
            if is_class:
                bind(a, 0, col)
                suffix = f"class_{label(col.type)}{'_nulls_first' if nulls_first[k] else ''}"
            else:
                a.in0, a.out = keys[0].ctypes.data, keys[1].ctypes.data
                suffix = f"byte{byte}"
            a.in1, a.out_valid = rows[0].ctypes.data, rows[1].ctypes.data
            a.scratch = counts.ctypes.data
            passes += 1
            if onesweep and not is_class:
                a.aux, parity = parity, parity ^ 1
                name = f"am_sort_onesweep_byte{byte}{'_final' if byte == final else ''}"
                name += "_identity" if identity and byte == first_byte else ""
                run(name, tiles, a)
                folded = byte == final
                keys.reverse()
                rows.reverse()
                continue
            run(f"am_sort_count_{suffix}", nb, a)
            run(f"am_sort_scan{CLASS_PASS if is_class else byte}", min(256, -(-nb // 8)), a)
            run(f"am_sort_scatter_{suffix}", nb, a)
            if not is_class:
                keys.reverse()
            rows.reverse()
    if folded:
        return keys[0].tolist(), passes
    result = np.zeros(n, np.uint64)
    widen = Args(n=n)
    widen.in1, widen.out = rows[0].ctypes.data, result.ctypes.data
    run("am_sort_widen", blocks_keys or -(-n // 1024), widen)
    return result.tolist(), passes


def pyarrow_sort(columns, descending, nulls_first):
    table = pa.table({f"c{i}": c for i, c in enumerate(columns)})
    order = [(f"c{i}", "descending" if d else "ascending") for i, d in enumerate(descending)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pc.sort_indices(table, sort_keys=order,
                              null_placement="at_start" if nulls_first else "at_end")  # fmt: skip
    return got.to_pylist()


def sample(t, n, seed, offset=0, nulls=0.2, distinct=None):
    rng = np.random.default_rng(seed)
    m = n + offset
    if t == pa.bool_():
        values = rng.random(m) < 0.5
    elif pa.types.is_floating(t):
        pool = np.array([float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1.5, -2.5, 1e-40])
        values = rng.normal(0, 1e3, m)
        special = rng.random(m) < 0.25
        values[special] = pool[rng.integers(0, len(pool), special.sum())]
        values = values.astype(t.to_pandas_dtype())
    else:
        info = np.iinfo(t.to_pandas_dtype())
        values = rng.integers(info.min, info.max, m, endpoint=True,
                              dtype=np.int64 if info.min < 0 else np.uint64)  # fmt: skip
    if distinct:
        values = values[rng.integers(0, distinct, m)]
    mask = rng.random(m) < nulls if nulls else None
    return pa.array(values, type=t, mask=mask).slice(offset)


def check(run, columns, descending, nulls_first=False, onesweep=True):
    got, passes = gpu_sort(run, columns, descending, [nulls_first] * len(columns),
                           onesweep=onesweep)  # fmt: skip
    assert got == pyarrow_sort(columns, descending, nulls_first), (
        [c.type for c in columns], descending, nulls_first)  # fmt: skip
    return passes


@pytest.mark.parametrize("t", EMULATED_TYPES, ids=label)
def test_one_key_every_type(sort_kernels, t):
    # few distinct values: ties, whose order only stability keeps
    col = sample(t, 301, TYPES.index(t), offset=3, distinct=40)
    # both orders where a pass is cheap to emulate (each pass: a few seconds)
    check(sort_kernels, [col], [False], nulls_first=False)
    if t.bit_width <= 32:
        check(sort_kernels, [col], [True], nulls_first=True)


# The three-launch passes (Metal's, and CUDA's from 2^30 rows) and ONESWEEP
# (CUDA's) over the same cases where a case has several blocks.
PATHS = pytest.mark.parametrize("onesweep", [True, False], ids=["onesweep", "three_launches"])


@PATHS
def test_several_blocks(sort_kernels, onesweep):
    # 3 tiles of the count and scatter blocks (7 of ONESWEEP), the last one
    # short (and its last sub-tile short, ending inside a warp); values below
    # 2^16: the two low bytes' passes and the class pass
    rng = np.random.default_rng(5)
    values = rng.integers(0, 65000, 2 * TILE + SUB + 777 + 5)
    col = pa.array(values, pa.int32(), mask=rng.random(len(values)) < 0.1).slice(5)
    assert check(sort_kernels, [col], [False], nulls_first=False, onesweep=onesweep) == 3


@PATHS
def test_skewed_digits(sort_kernels, onesweep):
    # runs of one digit filling whole warps and sub-tiles, a few rare ones
    # between: the warps' running counts and the digits' places in a
    # sub-tile, with ties that only stability orders; two blocks, several
    # sub-tiles, the class pass of nulls first
    rng = np.random.default_rng(9)
    n = TILE + 3 * SUB + 100
    values = np.where(rng.random(n) < 0.97, 300, rng.integers(-(2**40), 2**40, n))
    values[SUB : 2 * SUB] = np.arange(SUB) % 3
    col = pa.array(values, pa.int64(), mask=rng.random(n) < 0.02)
    check(sort_kernels, [col], [False], nulls_first=True, onesweep=onesweep)
    check(sort_kernels, [col], [True], nulls_first=False, onesweep=onesweep)


def test_float_specials_both_placements(sort_kernels):
    col = pa.array([0.0, -0.0, float("nan"), None, -1.0, float("-inf"), float("inf"), -0.0,
                    float("nan"), None, 0.0, 2.0], pa.float32())  # fmt: skip
    for descending in (False, True):
        for nulls_first in (False, True):
            check(sort_kernels, [col], [descending], nulls_first)


def test_lengths(sort_kernels):
    for n in (0, 1, 2, 255, 257):
        col = sample(pa.int16(), n, n, nulls=0.3)
        check(sort_kernels, [col], [n % 2 == 1], nulls_first=n % 3 == 0)


def test_all_equal_keys_skip_every_pass(sort_kernels):
    col = pa.array([7] * 600, pa.int64())
    assert check(sort_kernels, [col], [False]) == 0
    # nulls and NaN among equal numbers: only the class pass runs
    col = pa.array([1.5, None, float("nan"), 1.5] * 100, pa.float64())
    assert check(sort_kernels, [col], [True], nulls_first=True) == 1


@PATHS
def test_multi_key(sort_kernels, onesweep):
    n = 300
    columns = [sample(pa.int8(), n, 1, distinct=3), sample(pa.float32(), n, 2, distinct=5),
               sample(pa.bool_(), n, 3), sample(pa.uint64(), n, 4, distinct=50)]  # fmt: skip
    check(sort_kernels, columns, [True, False, True, False], nulls_first=True, onesweep=onesweep)


@PATHS
def test_last_pass_without_nulls(sort_kernels, onesweep):
    # no NaN or null in the last key sorted by: on CUDA its last byte pass
    # writes the u64 rows as the result (no WIDEN); several tiles, and a
    # first key with nulls whose class pass runs before
    rng = np.random.default_rng(11)
    n = 2 * ONESWEEP_SUB + 300
    col = pa.array(rng.integers(-(2**20), 2**20, n), pa.int32())
    check(sort_kernels, [col], [False], onesweep=onesweep)
    other = sample(pa.int16(), n, 12, distinct=30)
    check(sort_kernels, [col.slice(0, 500), other.slice(0, 500)], [True, False], onesweep=onesweep)
