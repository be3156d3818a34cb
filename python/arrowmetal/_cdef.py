"""The cffi declarations of the C ABI, generated from ``arrowmetal.h``.

Pure functions with no side effects: shared by ``_capi`` (which loads the
library) and ``_build_ext`` (which compiles the optional API-mode module), so
the Python declarations can never drift from the C header.
"""

import hashlib
import os
import re

# The Arrow C stream interface is not part of arrowmetal.h; the package needs
# it to read `__arrow_c_stream__` producers (pyarrow ChunkedArray, ...).
STREAM_CDEF = """
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


def find_header(package_dir):
    """arrowmetal.h next to the installed package, or in the source tree."""
    candidates = [
        os.path.join(package_dir, "arrowmetal.h"),
        os.path.normpath(os.path.join(package_dir, "..", "..", "include", "arrowmetal.h")),
    ]
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise ImportError(
        "arrowmetal: cannot find the C header arrowmetal.h; tried: " + ", ".join(candidates)
    )


def package_cdef(header_text):
    """The cdef the package binds: the header's declarations plus the stream
    interface the package reads."""
    cdef = cdef_from_header(header_text)
    if "struct ArrowArrayStream {" not in cdef:
        cdef += STREAM_CDEF
    return cdef


# am_import / am_import_device taking the structs' addresses as integers, so a
# PyCapsule's pointer (read as an int) goes in without a cdata cast per call.
ADDRESS_CDEF = """
int am_import_addr(uintptr_t schema, uintptr_t array, void *device, void *out);
int am_import_device_addr(uintptr_t schema, uintptr_t array, void *device, void *out);
"""

# Helpers of the compiled module only (see _build_ext): PyCapsules, given as
# their objects' addresses (id(), valid while the caller holds the objects),
# read through CPython's capsule API. They return CAPSULE_MISMATCH (never an
# am_status) when an object is not a capsule of the expected name.
CAPSULE_CDEF = """
int am_py_import_capsules(uintptr_t schema, uintptr_t array, void *device, void *out);
int am_py_import_device_capsules(uintptr_t schema, uintptr_t array, void *device, void *out);
int am_py_capsule_pointer(uintptr_t capsule, const char *name, uintptr_t *out);
"""
CAPSULE_MISMATCH = -1


def api_cdef(cdef):
    """The declarations of the compiled module: the package's cdef and its
    helpers. Its hash names the module (see cdef_hash)."""
    return cdef + ADDRESS_CDEF + CAPSULE_CDEF


def cdef_hash(cdef):
    """Names the declarations a compiled module was built from; a module whose
    hash differs from the header's is stale and is not used."""
    return hashlib.sha256(cdef.encode("utf-8")).hexdigest()[:32]
