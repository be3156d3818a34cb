"""Compiles ``arrowmetal._api``: the same C ABI bound in cffi's API mode.

ABI mode (``ffi.dlopen``, no compiler) calls each C function through libffi,
which classifies the arguments on every call: about 0.14 us per call from
Python. API mode calls through a compiled wrapper, about 0.06 us. A 1,000-row
operation from Python is a few such calls, so the wrapper is most of what the
caller waits for. The module links to the libarrowmetal next to it (rpath
$ORIGIN); the package falls back to ABI mode when it is missing or stale.

    python python/arrowmetal/_build_ext.py [LIBRARY_DIR]

LIBRARY_DIR holds the built libarrowmetal (default: the package directory).
Run by ``make api`` (and so ``make test``) and by setup.py's build_py; needs cffi, a C compiler and the
Python headers. Prints where the module was written.
"""

import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _load_cdef_module():
    # By file path: importing the package would load the library first.
    spec = importlib.util.spec_from_file_location(
        "_arrowmetal_cdef", os.path.join(HERE, "_cdef.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(library_dir=HERE, out_dir=HERE):
    """Writes arrowmetal/_api.<ext-suffix> into out_dir; returns its path."""
    from cffi import FFI

    cdefs = _load_cdef_module()
    header_path = cdefs.find_header(HERE)
    with open(header_path, encoding="utf-8") as f:
        cdef = cdefs.package_cdef(f.read())
    digest = cdefs.cdef_hash(cdef)
    source = f"""
#include <stdint.h>
#include "arrowmetal.h"

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
{cdefs.STREAM_CDEF}
#endif

static const char *am_py_cdef_hash(void) {{ return "{digest}"; }}

static int am_import_addr(uintptr_t schema, uintptr_t array, void *device, void *out) {{
  return am_import((struct ArrowSchema *)schema, (struct ArrowArray *)array, device, out);
}}

static int am_import_device_addr(uintptr_t schema, uintptr_t array, void *device, void *out) {{
  return am_import_device((struct ArrowSchema *)schema, (struct ArrowDeviceArray *)array,
                          device, out);
}}
"""
    origin = "@loader_path" if sys.platform == "darwin" else "$ORIGIN"
    link_args = [f"-Wl,-rpath,{origin}"]
    if sys.platform != "darwin":
        # DT_RPATH, searched before LD_LIBRARY_PATH: the module loads the
        # library beside it, the one ABI mode would pick first (unless one of
        # that soname is already loaded; _capi checks).
        link_args.append("-Wl,--disable-new-dtags")
    builder = FFI()
    builder.cdef(cdef + cdefs.ADDRESS_CDEF + "const char *am_py_cdef_hash(void);\n")
    builder.set_source(
        "arrowmetal._api",
        source,
        include_dirs=[os.path.dirname(header_path)],
        library_dirs=[os.path.abspath(library_dir)],
        libraries=["arrowmetal"],
        extra_compile_args=["-O2"],
        extra_link_args=link_args,
    )
    with tempfile.TemporaryDirectory(prefix="arrowmetal-cffi-") as tmp:
        built = builder.compile(tmpdir=tmp, verbose=False)
        target = os.path.join(out_dir, os.path.basename(built))
        # Written beside the target, then renamed over it: a process importing
        # the package meanwhile sees the old module or the new one, whole.
        staged = target + ".tmp"
        shutil.copyfile(built, staged)
        os.replace(staged, target)
    return target


if __name__ == "__main__":
    print(build(sys.argv[1]) if len(sys.argv) > 1 else build())
