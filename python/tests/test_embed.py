"""Embedding the library in a C program with the flags the package and
`make install` give: `python -m arrowmetal --cflags --libs` and pkg-config."""

import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

import arrowmetal
from arrowmetal._capi import ffi, lib

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PYTHON_DIR = os.path.join(ROOT, "python")
LIB_NAMES = ("libarrowmetal.so.0", "libarrowmetal.so", "libarrowmetal.dylib")

# Builds an int64 array with am_full, sums it, and checks the version macros
# against am_version() at compile time and at run time. Prints "ok".
PROGRAM = r"""
#include <stdio.h>
#include <string.h>

#include "arrowmetal.h"

#if !defined(ARROWMETAL_VERSION_MAJOR) || !defined(ARROWMETAL_VERSION_MINOR) || \
    !defined(ARROWMETAL_VERSION_PATCH) || !defined(ARROWMETAL_VERSION_STRING)
#error "arrowmetal.h defines no version macros"
#endif
#if ARROWMETAL_VERSION_MAJOR < 0 || ARROWMETAL_VERSION_MINOR < 0 || ARROWMETAL_VERSION_PATCH < 0
#error "version macros are not integers"
#endif

static int fail(const char *what) {
  fprintf(stderr, "embed: %s (am_last_error: %s)\n", what, am_last_error());
  return 1;
}

int main(void) {
  char expected[64];
  snprintf(expected, sizeof expected, "%d.%d.%d", ARROWMETAL_VERSION_MAJOR,
           ARROWMETAL_VERSION_MINOR, ARROWMETAL_VERSION_PATCH);
  if (strcmp(expected, ARROWMETAL_VERSION_STRING) != 0) return fail("VERSION_STRING");
  if (strcmp(am_version(), ARROWMETAL_VERSION_STRING) != 0) return fail("am_version()");

  am_scalar seven = {0};
  seven.type = AM_INT64;
  seven.i64 = 7;
  am_array *array = NULL;
  if (am_full(&seven, 1000, NULL, &array) != AM_OK) return fail("am_full");
  if (am_length(array) != 1000 || am_null_count(array) != 0) return fail("length");
  am_scalar sum;
  if (am_sum(array, &sum) != AM_OK) return fail("am_sum");
  if (sum.type != AM_INT64 || sum.is_null || sum.i64 != 7000) return fail("wrong sum");
  if (am_sum(NULL, &sum) != AM_EINVAL) return fail("am_sum(NULL) is not AM_EINVAL");
  am_release(array);
  printf("ok %s\n", am_version());
  return 0;
}
"""


def _cc():
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc})")
    return cc


def _python_m_arrowmetal(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PYTHON_DIR, env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "arrowmetal", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def _build_and_run(tmp_path, flags, env=None):
    source = tmp_path / "embed.c"
    source.write_text(PROGRAM)
    exe = str(tmp_path / "embed")
    cmd = [_cc(), "-std=c99", "-Wall", "-Wextra", "-Werror", str(source), *flags, "-o", exe]
    built = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert built.returncode == 0, " ".join(cmd) + "\n" + built.stderr
    ran = subprocess.run([exe], capture_output=True, text=True, timeout=60, env=env, check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.strip() == "ok " + arrowmetal.__version__


def test_version_macros_agree_with_am_version_and_package():
    macros = (lib.ARROWMETAL_VERSION_MAJOR, lib.ARROWMETAL_VERSION_MINOR)
    macros += (lib.ARROWMETAL_VERSION_PATCH,)
    assert all(isinstance(m, int) for m in macros)
    version = "{}.{}.{}".format(*macros)
    assert ffi.string(lib.am_version()).decode() == version
    assert arrowmetal.__version__ == version
    with open(os.path.join(ROOT, "include", "arrowmetal.h"), encoding="utf-8") as f:
        header = f.read()
    assert f'#define ARROWMETAL_VERSION_STRING "{version}"' in header
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        assert re.search(rf'^version = "{re.escape(version)}"$', f.read(), re.MULTILINE)


def test_python_m_arrowmetal_without_arguments_prints_usage():
    done = _python_m_arrowmetal()
    assert done.returncode == 2
    assert "usage:" in done.stderr and done.stdout == ""


def test_python_m_arrowmetal_directories():
    done = _python_m_arrowmetal("--includedir", "--libdir")
    assert done.returncode == 0, done.stderr
    include, libdir = shlex.split(done.stdout)
    assert os.path.isfile(os.path.join(include, "arrowmetal.h"))
    assert os.path.samefile(libdir, os.path.dirname(arrowmetal.library_path))


def test_python_m_arrowmetal_flags_build_a_program(tmp_path):
    done = _python_m_arrowmetal("--cflags", "--libs")
    assert done.returncode == 0, done.stderr
    flags = shlex.split(done.stdout)
    assert os.path.samefile(flags[1], arrowmetal.library_path)  # by path: the .so.0 file
    assert any(f.startswith("-Wl,-rpath,") for f in flags)
    # No LD_LIBRARY_PATH: the rpath alone finds the library.
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH")}
    _build_and_run(tmp_path, flags, env=env)


def _make_install(*args):
    make = os.environ.get("MAKE", "make")
    if shutil.which(make) is None:
        pytest.skip(f"no make ({make})")
    if not any(os.path.isfile(os.path.join(ROOT, "build", n)) for n in LIB_NAMES):
        pytest.fail("no libarrowmetal in build/: run make")
    # -o: install the library already built (the one the other tests use);
    # rebuilding it here would race with them.
    keep = [w for n in LIB_NAMES for w in ("-o", f"build/{n}")]
    done = subprocess.run(
        [make, "-s", *keep, "install", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_make_install_and_pkg_config_build_a_program(tmp_path):
    if shutil.which("pkg-config") is None:
        pytest.skip("pkg-config is not installed (apt-get install pkg-config)")
    prefix = tmp_path / "prefix"
    _make_install(f"PREFIX={prefix}")
    pc = prefix / "lib" / "pkgconfig" / "arrowmetal.pc"
    assert pc.is_file()
    assert (prefix / "include" / "arrowmetal.h").is_file()
    env = dict(os.environ, PKG_CONFIG_PATH=str(pc.parent))

    def pkg_config(*args):
        done = subprocess.run(
            ["pkg-config", *args, "arrowmetal"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert pkg_config("--modversion") == arrowmetal.__version__
    libdir = pkg_config("--variable=libdir")
    assert os.path.samefile(libdir, prefix / "lib")
    flags = shlex.split(pkg_config("--cflags", "--libs"))
    assert f"-I{prefix / 'include'}" in flags and "-larrowmetal" in flags
    build = tmp_path / "build"
    build.mkdir()
    _build_and_run(build, [*flags, f"-Wl,-rpath,{libdir}"])


def test_make_install_destdir_stages_without_changing_the_prefix(tmp_path):
    stage = tmp_path / "stage"
    _make_install(f"DESTDIR={stage}", "PREFIX=/opt/arrowmetal")
    root = stage / "opt" / "arrowmetal"
    assert (root / "include" / "arrowmetal.h").is_file()
    assert any((root / "lib").glob("libarrowmetal.*"))
    pc = (root / "lib" / "pkgconfig" / "arrowmetal.pc").read_text()
    assert "prefix=/opt/arrowmetal\n" in pc
    assert "libdir=${prefix}/lib\n" in pc and "includedir=${prefix}/include\n" in pc
    assert f"Version: {arrowmetal.__version__}\n" in pc
    assert "Libs: -L${libdir} -larrowmetal\n" in pc and "Cflags: -I${includedir}\n" in pc
    assert not re.search(r"@[A-Z]+@", pc)  # every placeholder filled in
