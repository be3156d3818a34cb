"""The cffi binding: generated cdef, library lookup, raw ABI access."""

import os
import shutil
import subprocess
import sys

from cffi import FFI

from arrowmetal import _capi
from arrowmetal._capi import cdef_from_header, ffi, lib, library_path

HEADER = """\
/* a comment
   over lines */
#ifndef X_H
#define X_H
#include <stdint.h>
#define X_ANSWER 42
#define X_HEX 0x10
#define X_EXPR (1 << 3)
#define X_NAME "no"
#ifdef __cplusplus
extern "C" {
#endif
// line comment
typedef struct x_pair {
  int32_t a; /* trailing */
  int64_t b;
} x_pair;
enum x_e { X_A = 0, X_B = 1 };
int x_add(const x_pair *p,
          int64_t *out);
#ifdef __cplusplus
}
#endif
#endif
"""


def _pythonpath(first):
    """PYTHONPATH with `first` ahead of the caller's (where cffi may live)."""
    rest = os.environ.get("PYTHONPATH")
    return first + (os.pathsep + rest if rest else "")


def test_cdef_from_header_keeps_declarations_and_integer_defines():
    cdef = cdef_from_header(HEADER)
    assert "#define X_ANSWER 42" in cdef
    assert "#define X_HEX 0x10" in cdef
    defines = [line.split()[1] for line in cdef.splitlines() if line.startswith("#define")]
    assert defines == ["X_ANSWER", "X_HEX"]
    assert "#include" not in cdef and "#if" not in cdef
    assert "extern" not in cdef and "comment" not in cdef and "trailing" not in cdef
    assert cdef.count("{") == cdef.count("}")
    f = FFI()
    f.cdef(cdef)  # parses
    assert f.sizeof("x_pair") == 16
    assert f.dlopen(None).X_ANSWER == 42


def test_header_and_cdef_in_sync():
    with open(_capi.header_path, encoding="utf-8") as fh:
        text = fh.read()
    assert _capi._CDEF.startswith(cdef_from_header(text))
    assert "struct ArrowArrayStream {" in _capi._CDEF
    for name in ("am_import", "am_sum", "am_batch_begin", "am_resident_status"):
        assert name in text
        assert callable(getattr(lib, name))


def test_structs_and_constants():
    assert ffi.sizeof("struct ArrowSchema") == 72
    assert ffi.sizeof("struct ArrowArray") == 80
    assert ffi.sizeof("struct ArrowDeviceArray") == 128
    assert ffi.sizeof("struct ArrowArrayStream") == 40
    assert ffi.sizeof("am_scalar") == 32
    assert lib.AM_OK == 0 and lib.AM_EDEVICE == 8
    assert lib.AM_INT64 == 5 and lib.AM_FLOAT64 == 11
    assert lib.ARROW_DEVICE_CPU == 1 and lib.ARROW_DEVICE_CUDA == 2
    assert lib.AM_COUNT_ALL == 2 and lib.AM_GE == 5 and lib.AM_DIVIDE == 3


def test_library_path_and_version():
    assert os.path.isfile(library_path)
    v = ffi.string(lib.am_version()).decode()
    assert len(v.split(".")) == 3
    assert ffi.string(lib.am_last_error()) is not None


def test_raw_abi_roundtrip():
    out = ffi.new("am_array **")
    s = ffi.new("am_scalar *")
    s.type = lib.AM_INT64
    s.i64 = 7
    assert lib.am_full(s, 5, ffi.NULL, out) == 0
    a = out[0]
    try:
        assert lib.am_length(a) == 5
        assert lib.am_array_type(a) == lib.AM_INT64
        assert ffi.string(lib.am_format(a)) == b"l"
        r = ffi.new("am_scalar *")
        assert lib.am_sum(a, r) == 0
        assert r.type == lib.AM_INT64 and r.is_null == 0 and r.i64 == 35
    finally:
        lib.am_release(a)


def test_capi_stands_alone_and_package_needs_no_pyarrow_or_numpy():
    code = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('capi_alone', sys.argv[1])\n"
        "m = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(m)\n"
        "assert m.lib.am_version()\n"
        "print(sorted(k for k in sys.modules if k.startswith(('arrowmetal', 'pyarrow', 'numpy'))))\n"
        "import arrowmetal\n"
        "print(sorted(k for k in sys.modules if k.startswith(('pyarrow', 'numpy'))))\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = _pythonpath(os.path.dirname(os.path.dirname(_capi.__file__)))
    out = subprocess.run(
        [sys.executable, "-c", code, _capi.__file__],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert out.stdout.split("\n")[:2] == ["[]", "[]"]


def _package_copy(tmp_path, with_library=False):
    """A copy of the package (without its API-mode module) under tmp_path."""
    pkg = tmp_path / "arrowmetal"
    pkg.mkdir()
    src = os.path.dirname(_capi.__file__)
    for name in ("__init__.py", "_capi.py", "_cdef.py"):
        with open(os.path.join(src, name), encoding="utf-8") as fh:
            (pkg / name).write_text(fh.read() if name != "__init__.py" else "")
    with open(_capi.header_path, encoding="utf-8") as fh:
        (pkg / "arrowmetal.h").write_text(fh.read())
    if with_library:
        shutil.copy(library_path, pkg / os.path.basename(library_path))
    return pkg


def _import_capi(tmp_path, library_env):
    env = dict(os.environ)
    env["PYTHONPATH"] = _pythonpath(str(tmp_path))
    env.pop("ARROWMETAL_LIBRARY", None)
    if library_env is not None:
        env["ARROWMETAL_LIBRARY"] = library_env
    return subprocess.run(
        [sys.executable, "-c", "from arrowmetal._capi import library_path; print(library_path)"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=str(tmp_path),
    )


def test_missing_library_error_names_paths(tmp_path):
    pkg = _package_copy(tmp_path)
    out = _import_capi(tmp_path, None)
    assert out.returncode != 0
    assert "ImportError" in out.stderr
    assert str(pkg / "libarrowmetal.so.0") in out.stderr
    assert "ARROWMETAL_LIBRARY" in out.stderr


def test_bad_env_library_is_an_error_not_ignored(tmp_path):
    # The package has its library, but the explicit setting names no file:
    # silently using another library would hide the mistake.
    _package_copy(tmp_path, with_library=True)
    out = _import_capi(tmp_path, str(tmp_path / "nope.so"))
    assert out.returncode != 0
    assert "ImportError" in out.stderr and "nope.so" in out.stderr


def test_env_library_wins_over_the_package_one(tmp_path):
    # A sanitizer build named by ARROWMETAL_LIBRARY replaces the library
    # beside the package (make test-asan relies on it).
    _package_copy(tmp_path, with_library=True)
    other = tmp_path / "elsewhere" / "libarrowmetal.so.0"
    other.parent.mkdir()
    shutil.copy(library_path, other)
    out = _import_capi(tmp_path, str(other))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(other)


def test_env_library_fallback(tmp_path):
    pkg = tmp_path / "arrowmetal"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name in ("_capi.py", "_cdef.py"):
        with open(os.path.join(os.path.dirname(_capi.__file__), name), encoding="utf-8") as fh:
            (pkg / name).write_text(fh.read())
    with open(_capi.header_path, encoding="utf-8") as fh:
        (pkg / "arrowmetal.h").write_text(fh.read())
    env = dict(os.environ)
    env["PYTHONPATH"] = _pythonpath(str(tmp_path))
    env["ARROWMETAL_LIBRARY"] = library_path
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "from arrowmetal._capi import lib, library_path, header_path; "
                "print(library_path); print(header_path)"
            ),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(tmp_path),
        check=True,
    )
    lines = out.stdout.split()
    assert lines[0] == os.path.abspath(library_path)
    assert lines[1] == str(pkg / "arrowmetal.h")


def test_mode_is_api_when_the_compiled_module_is_current():
    # `make api` (run by `make test`) builds arrowmetal._api beside the library; a module built from
    # another header is never used.
    built = [n for n in os.listdir(os.path.dirname(_capi.__file__)) if n.startswith("_api.")]
    assert _capi.mode in ("api", "abi")
    if _capi.mode == "api":
        assert built
        module_cdef = _capi._cdefs.api_cdef(_capi._CDEF)
        assert ffi.string(lib.am_py_cdef_hash()).decode() == _capi._cdefs.cdef_hash(module_cdef)
        assert callable(lib.am_py_import_capsules) and callable(lib.am_py_capsule_pointer)
    assert callable(_capi.import_addr) and callable(_capi.import_device_addr)
    assert callable(_capi.import_capsules) and callable(_capi.import_device_capsules)


def test_abi_mode_gives_the_same_results():
    code = (
        "import arrowmetal as am, pyarrow as pa\n"
        "from arrowmetal import _capi\n"
        "a = pa.array([1, None, 3, 4], type=pa.int64())\n"
        "print(_capi.mode, am.sum(a), am.add(a, a).to_pylist(), am.filter(a, am.greater(a, 1)).to_pylist())\n"
    )
    results = {}
    for forced in ("abi", ""):
        env = dict(os.environ, ARROWMETAL_CFFI=forced)
        env["PYTHONPATH"] = _pythonpath(os.path.dirname(os.path.dirname(_capi.__file__)))
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        mode, rest = out.stdout.split(" ", 1)
        results[forced] = rest
        if forced:
            assert mode == "abi"
    assert results["abi"] == results[""] == "8 [2, None, 6, 8] [3, 4]\n"


def test_a_copy_of_the_package_under_another_name_keeps_to_itself(tmp_path):
    # cffi registers an API-mode module under the name it was built with
    # ("arrowmetal._api"), whatever package holds it: the real package must
    # not pick up a vendored copy's module (and with it the copy's library).
    src = os.path.dirname(_capi.__file__)
    dest = tmp_path / "vendor" / "arrowmetal"
    dest.parent.mkdir()
    (dest.parent / "__init__.py").write_text("")
    import shutil

    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(_capi.header_path, dest / "arrowmetal.h")
    code = (
        "import os, vendor.arrowmetal as v, arrowmetal as a\n"
        "for m in (v, a):\n"
        "    api = m._capi._api\n"
        "    here = os.path.dirname(m._capi.__file__)\n"
        "    print(api is None or os.path.dirname(api.__file__) == here)\n"
        "print(a.sum([1, 2, 3]), v.sum([1, 2, 3]))\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = _pythonpath(str(tmp_path) + os.pathsep + os.path.dirname(src))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout == "True\nTrue\n6 6\n"
