"""Compiles every generated CUDA kernel with NVRTC (no GPU needed).

NVRTC is looked for in $ARROWMETAL_NVRTC, then in the pip wheels
(nvidia-cuda-nvrtc: nvidia/cu13/lib/libnvrtc.so.13, nvidia/cuda_nvrtc/lib/
libnvrtc.so.12), then as the system's libnvrtc.so; the test is skipped when
none loads. The sources come from kernel_source_test's dump mode.
"""

import concurrent.futures
import ctypes
import glob
import os
import pathlib
import site
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild

OPTIONS = [b"--gpu-architecture=compute_90", b"-default-device", b"--std=c++17"]


def _candidates():
    env = os.environ.get("ARROWMETAL_NVRTC")
    if env:
        yield env
    roots = list(sys.path)
    try:
        roots += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:
        pass
    for root in roots:
        for pattern in ("nvidia/cu13/lib/libnvrtc.so*", "nvidia/cuda_nvrtc/lib/libnvrtc.so*"):
            yield from sorted(glob.glob(os.path.join(root, pattern)), reverse=True)
    yield "libnvrtc.so"


def load_nvrtc():
    """The loaded NVRTC library, or (None, reasons)."""
    reasons = []
    for path in _candidates():
        if "builtins" in os.path.basename(path):
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as exc:
            reasons.append(f"{path}: {exc}")
    return None, "; ".join(reasons) or "no candidate"


def nvrtc_compile(lib, source, name):
    """(ok, log, ptx) of one compile."""
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), source, name.encode() + b".cu", 0, None, None)
    assert rc == 0, f"nvrtcCreateProgram: {rc}"
    try:
        opts = (ctypes.c_char_p * len(OPTIONS))(*OPTIONS)
        rc = lib.nvrtcCompileProgram(prog, len(OPTIONS), opts)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        ptx = b""
        if rc == 0:
            lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
            buf = ctypes.create_string_buffer(size.value)
            lib.nvrtcGetPTX(prog, buf)
            ptx = buf.value
        return rc == 0, log.value.decode(errors="replace"), ptx
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def build_tool(tmp_path):
    sources = [HERE / "kernel_source_test.c", *cbuild.GENERATOR]
    return cbuild.build(tmp_path / "kernel_source_test", sources, optimize="-O1")


def dump_cuda(tmp_path):
    out = tmp_path / "cuda"
    out.mkdir()
    subprocess.run(
        [str(build_tool(tmp_path)), "dump", "cuda", str(out)], check=True, capture_output=True
    )
    return sorted(out.glob("*.cu"))


def test_every_cuda_kernel_compiles_with_nvrtc(tmp_path):
    lib, where = load_nvrtc()
    if lib is None:
        pytest.skip(f"NVRTC not found ({where})")
    files = dump_cuda(tmp_path)
    assert len(files) >= 473  # every key (the count grows with the op table)

    def one(path):
        ok, log, ptx = nvrtc_compile(lib, path.read_bytes(), path.stem)
        entry = f".entry {path.stem}(".encode()
        return path.stem, ok and entry in ptx, log

    workers = min(16, os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(one, files))
    failed = [(name, log) for name, ok, log in results if not ok]
    report = "\n\n".join(f"== {name}\n{log}" for name, log in failed[:10])
    assert not failed, f"{len(failed)} of {len(files)} kernels failed ({where}):\n{report}"
    # Warnings are not errors, but the generated code should have none.
    noisy = [(name, log) for name, ok, log in results if log.strip()]
    report = "\n\n".join(f"== {name}\n{log}" for name, log in noisy[:5])
    assert not noisy, f"{len(noisy)} kernels compile with warnings:\n{report}"
