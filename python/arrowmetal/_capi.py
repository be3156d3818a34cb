"""Low-level binding of the ArrowMetal C ABI through cffi.

Two modes over the same shared library. API mode uses ``arrowmetal._api``, a
small compiled module (built by ``make api``, ``make test`` or ``pip
install``; see _build_ext) whose calls cost about 0.06 us; ABI mode
(``ffi.dlopen``, no compiler) costs about 0.14 us per call and is used when
that module is absent, stale (built from another header), bound to another
copy of the library, or disabled with ``ARROWMETAL_CFFI=abi``. ``mode`` says
which one runs. The declarations are generated from ``arrowmetal.h`` at import
time so that they can never drift from the C header. This module exposes
``ffi``, ``lib``, ``library_path``, ``mode``, ``import_addr`` and
``import_device_addr``, and the readers of Arrow PyCapsules
(``import_capsules``, ``import_device_capsules``, ``capsule_pointer``), which
use CPython's capsule API: through a C helper of the compiled module in API
mode, through ctypes in ABI mode. It imports nothing else from the package
except the declarations, so that a test suite can drive the C ABI directly::

    from arrowmetal._capi import ffi, lib
"""

import importlib.util
import os
import sys

__all__ = [
    "CAPSULE_MISMATCH",
    "NAME_ARRAY",
    "NAME_DEVICE_ARRAY",
    "NAME_DEVICE_STREAM",
    "NAME_SCHEMA",
    "NAME_STREAM",
    "capsule_pointer",
    "cdef_from_header",
    "ffi",
    "header_path",
    "import_addr",
    "import_capsules",
    "import_device_addr",
    "import_device_capsules",
    "lib",
    "library_path",
    "mode",
]

_HERE = os.path.dirname(os.path.abspath(__file__))


def _load_cdef_module():
    try:
        from . import _cdef
    except ImportError:  # loaded as a lone file (tests do): its sibling by path
        spec = importlib.util.spec_from_file_location(
            "_arrowmetal_cdef", os.path.join(_HERE, "_cdef.py")
        )
        _cdef = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_cdef)
    return _cdef


_cdefs = _load_cdef_module()
cdef_from_header = _cdefs.cdef_from_header


def _find_library():
    # $ARROWMETAL_LIBRARY, when set, is the library to use (a sanitizer
    # build, say) and must exist. Otherwise libarrowmetal.so.0 beside the
    # package: the file of that soname, which the API-mode module (linked
    # against it) also loads.
    env = os.environ.get("ARROWMETAL_LIBRARY")
    if env:
        if os.path.isfile(env):
            return os.path.abspath(env)
        raise ImportError(
            f"arrowmetal: $ARROWMETAL_LIBRARY={env} is not a file; unset it to use "
            "the library beside the package"
        )
    names = ["libarrowmetal.dylib", "libarrowmetal.so.0"]
    if sys.platform != "darwin":
        names.reverse()
    tried = []
    for name in names:
        path = os.path.join(_HERE, name)
        tried.append(path)
        if os.path.isfile(path):
            return path
    raise ImportError(
        "arrowmetal: cannot find the ArrowMetal shared library; tried: "
        + ", ".join(tried)
        + ". Build it with `make` in the source tree or set ARROWMETAL_LIBRARY."
    )


header_path = _cdefs.find_header(_HERE)
with open(header_path, encoding="utf-8") as _f:
    _CDEF = _cdefs.package_cdef(_f.read())


def _point_at_pip_nvrtc():
    """The CUDA backend loads NVRTC on first use; where the CUDA toolkit is
    absent, the nvidia-cuda-nvrtc wheel provides it. Tell the library where
    (ARROWMETAL_NVRTC, read when the backend first loads), unless the user
    already did."""
    if os.environ.get("ARROWMETAL_NVRTC"):
        return
    spec = importlib.util.find_spec("nvidia")
    for root in list(spec.submodule_search_locations or []) if spec else []:
        for relative in ("cu13/lib/libnvrtc.so.13", "cuda_nvrtc/lib/libnvrtc.so.12"):
            candidate = os.path.join(root, relative)
            if os.path.exists(candidate):
                os.environ["ARROWMETAL_NVRTC"] = candidate
                return


def _api_module():
    """arrowmetal._api when it can be used: present, loadable (its library
    sits beside it) and built from this header. None otherwise."""
    mode = os.environ.get("ARROWMETAL_CFFI", "")
    if mode not in ("", "abi", "api"):
        raise ImportError(f"arrowmetal: ARROWMETAL_CFFI={mode!r} is not one of: abi, api")
    if mode == "abi" or not __package__:
        return None
    if sys.implementation.name != "cpython":
        return None  # its capsule helpers take id() as the object's address
    try:
        from . import _api
    except ImportError:
        return None
    # cffi registers the module as "arrowmetal._api" whatever package holds
    # it: a copy of the package under another name must not lend us its own.
    if os.path.dirname(os.path.abspath(_api.__file__)) != _HERE:
        return None
    if _api.ffi.string(_api.lib.am_py_cdef_hash()).decode() != _cdefs.cdef_hash(
        _cdefs.api_cdef(_CDEF)
    ):
        return None  # built from another header, or with other helpers
    # The module links by soname: if another libarrowmetal was loaded first it
    # got that one. Use it only when it is the library beside the package.
    # (am_last_error's buffer is per library copy, so equal addresses mean one
    # library; addressof would give cffi's wrapper, not the function.)
    import ctypes

    ours = ctypes.CDLL(library_path).am_last_error
    ours.restype = ctypes.c_void_p
    bound = int(_api.ffi.cast("uintptr_t", _api.lib.am_last_error()))
    return _api if ours() == bound else None


def _abi_binding():
    """(ffi, lib, import_addr, import_device_addr) through ffi.dlopen."""
    from cffi import FFI

    abi_ffi = FFI()
    abi_ffi.cdef(_CDEF)
    try:
        abi_lib = abi_ffi.dlopen(library_path)
    except OSError as e:  # pragma: no cover - depends on the machine
        raise ImportError(f"arrowmetal: cannot load {library_path}: {e}") from e
    # The address variants: the same symbols declared with integer arguments.
    address_ffi = FFI()
    address_ffi.cdef(_cdefs.ADDRESS_CDEF.replace("_addr(", "("))
    address_lib = address_ffi.dlopen(library_path)
    return abi_ffi, abi_lib, address_lib.am_import, address_lib.am_import_device


_point_at_pip_nvrtc()
library_path = _find_library()
_api = _api_module()
if _api is not None:
    mode = "api"
    ffi, lib = _api.ffi, _api.lib
    import_addr, import_device_addr = lib.am_import_addr, lib.am_import_device_addr
else:
    mode = "abi"
    ffi, lib, import_addr, import_device_addr = _abi_binding()

del _f

# ---------------------------------------------------------------------------
# PyCapsules of the Arrow PyCapsule interface, read through CPython's capsule
# API (never from the objects' memory). A capsule never holds NULL, so 0 can
# say "not a capsule of that name".

CAPSULE_MISMATCH = _cdefs.CAPSULE_MISMATCH
NAME_SCHEMA = b"arrow_schema"
NAME_ARRAY = b"arrow_array"
NAME_DEVICE_ARRAY = b"arrow_device_array"
NAME_STREAM = b"arrow_array_stream"
NAME_DEVICE_STREAM = b"arrow_device_array_stream"

if mode == "api":
    # The compiled helpers (see _build_ext) take the capsules' id()s -- the
    # objects' addresses, valid while the caller holds them -- and read them
    # with the GIL retaken: one C call for both pointers and the import
    # (faster than reading the pointers from Python and importing after).
    _import_capsule_ids = lib.am_py_import_capsules
    _import_device_capsule_ids = lib.am_py_import_device_capsules
    _capsule_pointer = lib.am_py_capsule_pointer

    def import_capsules(schema, array, device, out):
        """am_import of an (arrow_schema, arrow_array) capsule pair: the
        status, or CAPSULE_MISMATCH when they are not capsules of those names."""
        return _import_capsule_ids(id(schema), id(array), device, out)

    def import_device_capsules(schema, array, device, out):
        """am_import_device of an (arrow_schema, arrow_device_array) capsule
        pair: the status, or CAPSULE_MISMATCH."""
        return _import_device_capsule_ids(id(schema), id(array), device, out)

    def capsule_pointer(capsule, name):
        """The pointer held by PyCapsule `capsule` named `name` (bytes), as an
        int; 0 when it is not a capsule of that name."""
        out = ffi.new("uintptr_t *")
        return out[0] if _capsule_pointer(id(capsule), name, out) == 0 else 0

else:
    # ABI mode has no compiled code of its own: the C API through ctypes
    # (about 1 us a call; it raises ValueError for a wrong name or type).
    import ctypes

    _get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", ctypes.pythonapi)
    )

    def capsule_pointer(capsule, name):
        """The pointer held by PyCapsule `capsule` named `name` (bytes), as an
        int; 0 when it is not a capsule of that name."""
        try:
            return _get_pointer(capsule, name) or 0
        except ValueError:
            return 0

    def import_capsules(schema, array, device, out):
        """am_import of an (arrow_schema, arrow_array) capsule pair: the
        status, or CAPSULE_MISMATCH when they are not capsules of those names."""
        schema_address = capsule_pointer(schema, NAME_SCHEMA)
        array_address = capsule_pointer(array, NAME_ARRAY)
        if not (schema_address and array_address):
            return CAPSULE_MISMATCH
        return import_addr(schema_address, array_address, device, out)

    def import_device_capsules(schema, array, device, out):
        """am_import_device of an (arrow_schema, arrow_device_array) capsule
        pair: the status, or CAPSULE_MISMATCH."""
        schema_address = capsule_pointer(schema, NAME_SCHEMA)
        array_address = capsule_pointer(array, NAME_DEVICE_ARRAY)
        if not (schema_address and array_address):
            return CAPSULE_MISMATCH
        return import_device_addr(schema_address, array_address, device, out)
