"""Compiles every generated CUDA kernel with NVRTC (no GPU needed).

NVRTC is looked for in $ARROWMETAL_NVRTC, then in the pip wheels
(nvidia-cuda-nvrtc: nvidia/cu13/lib/libnvrtc.so.13, nvidia/cuda_nvrtc/lib/
libnvrtc.so.12), then as the system's libnvrtc.so; the test is skipped when
none loads. The sources come from kernel_source_test's dump mode.

The kernels compile in batches: each batch is one NVRTC program holding
several kernels' sources, each in a namespace of its own, its macros
undefined after it, a #line naming its file (so a message names the
kernel). One compile has a fixed cost (NVRTC's own headers, start-up) that
1,600 separate programs paid 1,600 times; and -G (no device optimization)
checks the same C++ in a third of the time. The optimized compiles run
where the kernels run: the CUDA backend on a GPU.
"""

import concurrent.futures
import ctypes
import glob
import os
import pathlib
import re
import site
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild

OPTIONS = [b"--gpu-architecture=compute_90", b"-default-device", b"--std=c++17"]
# Kernels per NVRTC program in the whole-dump test (see the module's words).
BATCH = 48


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


def nvrtc_compile(lib, source, name, options=OPTIONS):
    """(ok, log, ptx) of one compile."""
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), source, name.encode() + b".cu", 0, None, None)
    assert rc == 0, f"nvrtcCreateProgram: {rc}"
    try:
        opts = (ctypes.c_char_p * len(options))(*options)
        rc = lib.nvrtcCompileProgram(prog, len(options), opts)
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


def batched_source(paths):
    """One program of several kernel files: each in its own namespace (the
    kernels are extern "C", so their PTX entries keep their names), its
    macros undefined after it, a #line directive naming its file."""
    parts = []
    for i, path in enumerate(paths):
        text = path.read_text()
        macros = re.findall(r"^#define (\w+)", text, re.MULTILINE)
        undefs = "".join(f"#undef {m}\n" for m in macros)
        parts.append(f'#line 1 "{path.name}"\nnamespace am_k{i} {{\n{text}\n}}\n{undefs}')
    return "".join(parts).encode()


def test_every_cuda_kernel_compiles_with_nvrtc(tmp_path):
    lib, where = load_nvrtc()
    if lib is None:
        pytest.skip(f"NVRTC not found ({where})")
    files = dump_cuda(tmp_path)
    assert len(files) >= 1636  # every key (the count grows with the op table)
    batches = [files[i : i + BATCH] for i in range(0, len(files), BATCH)]
    options = [*OPTIONS, b"-G"]

    def one(paths):
        ok, log, ptx = nvrtc_compile(lib, batched_source(paths), "batch", options)
        missing = [p.stem for p in paths if f".entry {p.stem}(".encode() not in ptx]
        return paths, ok and not missing, log, missing

    workers = min(16, os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(one, batches))
    failed = [(paths, log, missing) for paths, ok, log, missing in results if not ok]
    report = "\n\n".join(
        f"== {paths[0].stem} .. {paths[-1].stem}: no entry for {missing[:5]}\n{log}"
        for paths, log, missing in failed[:5]
    )
    assert not failed, f"{len(failed)} of {len(batches)} batches failed ({where}):\n{report}"
    # Warnings are not errors, but the generated code should have none.
    noisy = [log for paths, ok, log, missing in results if log.strip()]
    assert not noisy, f"{len(noisy)} batches compile with warnings:\n" + "\n\n".join(noisy[:3])


def test_a_batch_names_the_failing_kernel(tmp_path):
    """A broken kernel in a batch is reported by its own file name."""
    lib, where = load_nvrtc()
    if lib is None:
        pytest.skip(f"NVRTC not found ({where})")
    good = tmp_path / "am_good.cu"
    good.write_text('#define X 1\nextern "C" __global__ void am_good(int *p) { *p = X; }\n')
    bad = tmp_path / "am_bad.cu"
    bad.write_text('#define X 2\nextern "C" __global__ void am_bad(int *p) { *p = Y; }\n')
    ok, log, ptx = nvrtc_compile(lib, batched_source([good, bad]), "batch", [*OPTIONS, b"-G"])
    assert not ok
    assert "am_bad.cu" in log and "am_good.cu" not in log
    # a macro of one kernel is not the next one's (the same name, redefined)
    other = tmp_path / "am_other.cu"
    other.write_text('#define X 3\nextern "C" __global__ void am_other(int *p) { *p = X; }\n')
    ok, log, ptx = nvrtc_compile(lib, batched_source([good, other]), "batch", [*OPTIONS, b"-G"])
    assert ok and not log.strip() and b".entry am_good(" in ptx and b".entry am_other(" in ptx
