"""Low-level binding of the ArrowMetal C ABI (cffi, ABI mode: no compiler needed).

The cdef is generated from ``arrowmetal.h`` at import time so that the Python
declarations can never drift from the C header. This module exposes ``ffi``,
``lib`` and ``library_path`` and imports nothing else from the package, so
that a test suite can drive the C ABI directly::

    from arrowmetal._capi import ffi, lib
"""

import os
import re
import sys

from cffi import FFI

__all__ = ["cdef_from_header", "ffi", "header_path", "lib", "library_path"]

_HERE = os.path.dirname(os.path.abspath(__file__))

# The Arrow C stream interface is not part of arrowmetal.h; the package needs
# it to read `__arrow_c_stream__` producers (pyarrow ChunkedArray, ...).
_STREAM_CDEF = """
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  const char *(*get_last_error)(struct ArrowArrayStream *);
  void (*release)(struct ArrowArrayStream *);
  void *private_data;
};
"""

_COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_INT_DEFINE_RE = re.compile(
    r"#\s*define\s+([A-Za-z_]\w*)\s+\(?\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*\)?\s*$"
)
_EXTERN_C_RE = re.compile(r'^extern\s+"C"\s*\{$')


def cdef_from_header(text):
    """Turns the C header text into a cffi cdef.

    Comments are stripped; every preprocessor line is dropped except
    ``#define NAME <integer>``; the ``extern "C" {`` guard and its closing brace
    are dropped.
    """
    text = _COMMENT_RE.sub(" ", text)
    # Join continued preprocessor lines so that a multi-line macro is dropped whole.
    text = text.replace("\\\n", " ")
    out = []
    depth = 0  # brace depth of the kept text, to recognise the extern "C" closing brace
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            m = _INT_DEFINE_RE.match(line)
            if m:
                out.append("#define {} {}".format(m.group(1), m.group(2).replace(" ", "")))
            continue
        if _EXTERN_C_RE.match(line):
            continue
        if line == "}" and depth == 0:
            continue  # closes the dropped extern "C" {
        depth += line.count("{") - line.count("}")
        out.append(raw.rstrip())
    return "\n".join(out) + "\n"


def _find_header():
    candidates = [
        os.path.join(_HERE, "arrowmetal.h"),
        os.path.normpath(os.path.join(_HERE, "..", "..", "include", "arrowmetal.h")),
    ]
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise ImportError(
        "arrowmetal: cannot find the C header arrowmetal.h; tried: " + ", ".join(candidates)
    )


def _find_library():
    names = ["libarrowmetal.dylib", "libarrowmetal.so"]
    if sys.platform != "darwin":
        names.reverse()
    tried = []
    for name in names:
        path = os.path.join(_HERE, name)
        tried.append(path)
        if os.path.isfile(path):
            return path
    env = os.environ.get("ARROWMETAL_LIBRARY")
    if env:
        tried.append("$ARROWMETAL_LIBRARY=" + env)
        if os.path.isfile(env):
            return os.path.abspath(env)
    else:
        tried.append("$ARROWMETAL_LIBRARY (not set)")
    raise ImportError(
        "arrowmetal: cannot find the ArrowMetal shared library; tried: "
        + ", ".join(tried)
        + ". Build it with `make` in the source tree or set ARROWMETAL_LIBRARY."
    )


header_path = _find_header()
with open(header_path, encoding="utf-8") as _f:
    _CDEF = cdef_from_header(_f.read())

ffi = FFI()
ffi.cdef(_CDEF)
if "struct ArrowArrayStream {" not in _CDEF:
    ffi.cdef(_STREAM_CDEF)


def _point_at_pip_nvrtc():
    """The CUDA backend loads NVRTC on first use; where the CUDA toolkit is
    absent, the nvidia-cuda-nvrtc wheel provides it. Tell the library where
    (ARROWMETAL_NVRTC, read when the backend first loads), unless the user
    already did."""
    if os.environ.get("ARROWMETAL_NVRTC"):
        return
    import importlib.util

    spec = importlib.util.find_spec("nvidia")
    for root in list(spec.submodule_search_locations or []) if spec else []:
        for relative in ("cu13/lib/libnvrtc.so.13", "cuda_nvrtc/lib/libnvrtc.so.12"):
            candidate = os.path.join(root, relative)
            if os.path.exists(candidate):
                os.environ["ARROWMETAL_NVRTC"] = candidate
                return


_point_at_pip_nvrtc()
library_path = _find_library()
try:
    lib = ffi.dlopen(library_path)
except OSError as _e:  # pragma: no cover - depends on the machine
    raise ImportError(f"arrowmetal: cannot load {library_path}: {_e}") from _e

del _f
