"""Builds the C unit-test programs that sit beside the code they test, with the
library's own warnings, for the pytest files of libarrowmetal/.

    sys.path.insert(0, <libarrowmetal>); import cbuild
    cbuild.build(tmp_path / "ops_test", [HERE / "ops_test.c", HERE / "ops.c"])
"""

import ctypes
import os
import pathlib
import shutil
import subprocess

LIBRARY = pathlib.Path(__file__).resolve().parent
ROOT = LIBRARY.parent
FLAGS = ["-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror"]
FLAGS += [f"-I{ROOT / 'include'}", f"-I{LIBRARY}"]

# The kernel source generator and what it uses (gpu/kernel_source.c's tests
# and the GPU kernel tests build it on its own, without the library).
GENERATOR = [
    LIBRARY / "gpu" / "kernel_source.c",
    LIBRARY / "gpu" / "kernel_source_aggregate.c",
    LIBRARY / "gpu" / "dialect.c",
    LIBRARY / "gpu" / "dialect_pow64.c",  # float64 pow for CUDA
    LIBRARY / "gpu" / "dialect_unary64.c",  # float64 log1p, acos, asin for CUDA
    LIBRARY / "core" / "types.c",
    LIBRARY / "core" / "error.c",
    LIBRARY / "core" / "ops.c",
    LIBRARY / "gpu" / "kernel_source_nulls.c",  # null handling
    LIBRARY / "gpu" / "kernel_source_round.c",
    LIBRARY / "core" / "round.c",
    LIBRARY / "gpu" / "kernel_source_select.c",  # quantiles
    LIBRARY / "gpu" / "kernel_source_cumulative.c",
    LIBRARY / "gpu" / "kernel_source_hash.c",  # hash-based functions
    LIBRARY / "gpu" / "kernel_source_sort.c",  # sort_indices
    LIBRARY / "gpu" / "kernel_source_groupby.c",  # group-by and joins
    LIBRARY / "gpu" / "kernel_source_temporal.c",  # temporal field extraction
    LIBRARY / "core" / "temporal.c",
    LIBRARY / "gpu" / "kernel_source_strings.c",  # strings and binary
    LIBRARY / "core" / "round_temporal.c",  # temporal rounding
    LIBRARY / "gpu" / "kernel_source_resident.c",  # the resident worker (CUDA)
    LIBRARY / "gpu" / "kernel_source_batch.c",  # the batch interpreter (CUDA)
]


def build(output, sources, *, optimize="-O2", shared=False, extra=(), libs=("-lm", "-lpthread")):
    """Compiles `sources` into `output` (a shared library when `shared`);
    returns `output`."""
    command = [os.environ.get("CC", "cc"), *FLAGS, optimize, *extra]
    if shared:
        command += ["-shared", "-fPIC"]
    command += [str(s) for s in sources] + ["-o", str(output), *libs]
    subprocess.run(command, check=True)
    return output


CXX = shutil.which("g++") or shutil.which("clang++")


def emulated(work, kernel, wrapper):
    """The generated CUDA source of `kernel` (say "am_power_float64"), then
    the C++ text `wrapper`, compiled against the CPU emulation of CUDA
    (gpu/emu/cuda_emu.h, where CUDA's math functions are the host's) into a
    shared library under `work`: its ctypes.CDLL. Needs CXX."""
    tool = build(work / "kernel_source_test", [LIBRARY / "gpu" / "kernel_source_test.c", *GENERATOR],
                 optimize="-O1")  # fmt: skip
    (work / "cuda").mkdir(exist_ok=True)
    subprocess.run([str(tool), "dump", "cuda", str(work / "cuda")], check=True, capture_output=True)
    src = work / f"{kernel}.cpp"
    src.write_text(
        f'#include "{LIBRARY / "gpu" / "emu" / "cuda_emu.h"}"\n'
        f'#include "{work / "cuda" / (kernel + ".cu")}"\n' + wrapper
    )
    so = work / f"{kernel}.so"
    subprocess.run([CXX, "-std=c++17", "-O2", "-ffp-contract=off", "-shared", "-fPIC", "-w",
                    str(src), "-o", str(so), "-lpthread"], check=True)  # fmt: skip
    return ctypes.CDLL(str(so))
