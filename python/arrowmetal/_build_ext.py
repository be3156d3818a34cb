"""Compiles ``arrowmetal._api``: the same C ABI bound in cffi's API mode.

ABI mode (``ffi.dlopen``, no compiler) calls each C function through libffi,
which classifies the arguments on every call: about 0.14 us per call from
Python. API mode calls through a compiled wrapper, about 0.06 us. A 1,000-row
operation from Python is a few such calls, so the wrapper is most of what the
caller waits for. The module links to the libarrowmetal next to it (rpath
$ORIGIN); the package falls back to ABI mode when it is missing or stale.
Beside the declarations of arrowmetal.h it holds a few helpers of its own
(see _cdef.ADDRESS_CDEF and CAPSULE_CDEF): imports by address, and the
readers of Arrow PyCapsules through CPython's capsule API.

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
    module_cdef = cdefs.api_cdef(cdef)
    digest = cdefs.cdef_hash(module_cdef)
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

/* PyCapsules, given as the addresses of their objects (id(); the caller
 * holds the objects for the whole call), read through CPython's capsule API
 * rather than from their memory. cffi releases the GIL around every call, so
 * these take it back for the C API, and hand it over again before any
 * ArrowMetal work. PyCapsule_IsValid sets no exception, and GetPointer
 * cannot fail after it: no Python exception is ever left set. */
#define AM_PY_CAPSULE_MISMATCH ({cdefs.CAPSULE_MISMATCH})

static int am_py_capsule_pointers(uintptr_t first, const char *first_name, void **first_out,
                                  uintptr_t second, const char *second_name, void **second_out) {{
  PyGILState_STATE gil = PyGILState_Ensure();
  int valid = PyCapsule_IsValid((PyObject *)first, first_name) &&
              (!second_out || PyCapsule_IsValid((PyObject *)second, second_name));
  if (valid) {{
    *first_out = PyCapsule_GetPointer((PyObject *)first, first_name);
    if (second_out) *second_out = PyCapsule_GetPointer((PyObject *)second, second_name);
  }}
  PyGILState_Release(gil);
  return valid;
}}

/* am_import of an (arrow_schema, arrow_array) capsule pair. */
static int am_py_import_capsules(uintptr_t schema, uintptr_t array, void *device, void *out) {{
  void *schema_struct, *array_struct;
  if (!am_py_capsule_pointers(schema, "arrow_schema", &schema_struct, array, "arrow_array",
                              &array_struct))
    return AM_PY_CAPSULE_MISMATCH;
  return am_import(schema_struct, array_struct, device, out);
}}

/* am_import_device of an (arrow_schema, arrow_device_array) capsule pair. */
static int am_py_import_device_capsules(uintptr_t schema, uintptr_t array, void *device,
                                        void *out) {{
  void *schema_struct, *array_struct;
  if (!am_py_capsule_pointers(schema, "arrow_schema", &schema_struct, array,
                              "arrow_device_array", &array_struct))
    return AM_PY_CAPSULE_MISMATCH;
  return am_import_device(schema_struct, array_struct, device, out);
}}

/* The pointer of one capsule named `name`, written to *out. */
static int am_py_capsule_pointer(uintptr_t capsule, const char *name, uintptr_t *out) {{
  void *pointer;
  if (!am_py_capsule_pointers(capsule, name, &pointer, 0, NULL, NULL))
    return AM_PY_CAPSULE_MISMATCH;
  *out = (uintptr_t)pointer;
  return 0;
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
    builder.cdef(module_cdef + "const char *am_py_cdef_hash(void);\n")
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
