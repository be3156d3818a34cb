"""Builds the C library with `make lib` and ships it inside the Python package.

Metadata lives in pyproject.toml; this file only adds the build steps:
``pip install .`` runs build_py, which builds build/libarrowmetal.{so.0,dylib}
and copies it, include/arrowmetal.h and a relocatable arrowmetal.pc next to the
package's modules, then compiles the optional cffi API-mode module
(arrowmetal._api) beside them.

ARROWMETAL_BUILD names the folder `make lib` builds in (default build/):
`make wheel` first builds the library there with a compiler that targets an
old glibc, so `make lib` here finds it done.
"""

import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.egg_info import egg_info
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))
LIB_NAMES = ("libarrowmetal.so.0", "libarrowmetal.dylib")
HEADER = os.path.join(ROOT, "include", "arrowmetal.h")


def missing_tools():
    """What a source build needs and this machine lacks (make, a C compiler)."""
    make = os.environ.get("MAKE", "make")
    cc = os.environ.get("CC", "cc").split()[0] if os.environ.get("CC", "cc").strip() else "cc"
    return [f"{what} ({name!r})" for what, name in (("make", make), ("a C compiler", cc))
            if shutil.which(name) is None]  # fmt: skip


def build_library():
    """Runs `make lib` in the source tree; returns the paths of the built
    libraries and of the package's pkg-config file."""
    missing = missing_tools()
    if missing:
        raise SystemExit(
            "arrowmetal: building from source needs " + " and ".join(missing) + ", which this "
            "machine lacks. Install them (Debian/Ubuntu: apt-get install build-essential; "
            "macOS: xcode-select --install), or install a prebuilt wheel of arrowmetal."
        )
    make = os.environ.get("MAKE", "make")
    build_dir = os.path.join(ROOT, os.environ.get("ARROWMETAL_BUILD", "build"))
    subprocess.check_call([make, "lib", "BUILD=" + build_dir], cwd=ROOT)
    built = [os.path.join(build_dir, n) for n in LIB_NAMES]
    built = [p for p in built if os.path.isfile(p)]
    if not built:
        raise RuntimeError(f"`make lib` produced neither libarrowmetal.so.0 nor .dylib in {build_dir}")
    return built, os.path.join(build_dir, "package.pc")


def build_api_module(library_dir, dest):
    """Compiles arrowmetal._api (cffi API mode), linked against the library in
    `library_dir`, into `dest`; True when built.
    Optional: without a compiler or Python headers the package runs in ABI mode."""
    sys.path.insert(0, os.path.join(ROOT, "python", "arrowmetal"))
    try:
        import _build_ext

        _build_ext.build(library_dir, dest)
        return True
    except Exception as e:  # noqa: BLE001 - any build failure means ABI mode
        print(f"arrowmetal: API-mode module not built ({e}); the package uses cffi ABI mode")
        return False
    finally:
        sys.path.pop(0)


class BuildPy(build_py):
    """build_py that also builds the C library (and the API-mode module) and
    copies them and the header in."""

    def run(self):
        libs, pkg_config = build_library()
        super().run()
        if getattr(self, "editable_mode", False):
            # Editable install: the package is the source tree, which loads the
            # library from python/arrowmetal/ and the header from include/.
            dest = os.path.join(ROOT, "python", "arrowmetal")
            for path in libs:
                shutil.copy2(path, os.path.join(dest, os.path.basename(path)))
            self.distribution.api_module = build_api_module(os.path.dirname(libs[0]), dest)
            return
        dest = os.path.join(self.build_lib, "arrowmetal")
        os.makedirs(dest, exist_ok=True)
        for path in libs:
            self.copy_file(path, os.path.join(dest, os.path.basename(path)))
        self.copy_file(HEADER, os.path.join(dest, "arrowmetal.h"))
        self.copy_file(pkg_config, os.path.join(dest, "arrowmetal.pc"))
        self.distribution.api_module = build_api_module(os.path.dirname(libs[0]), dest)


class EggInfo(egg_info):
    """Writes arrowmetal.egg-info under build/ rather than into python/."""

    def initialize_options(self):
        super().initialize_options()
        self.egg_base = os.path.relpath(os.path.join(ROOT, "build"), os.getcwd())
        os.makedirs(self.egg_base, exist_ok=True)


class SDist(sdist):
    """Puts the C sources and the Makefile in the source distribution."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        for sub in ("include", "libarrowmetal"):
            src = os.path.join(ROOT, sub)
            if os.path.isdir(src):
                shutil.copytree(
                    src,
                    os.path.join(base_dir, sub),
                    dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("*.o", "*.d", "__pycache__", ".pytest_cache"),
                )
        shutil.copy2(os.path.join(ROOT, "Makefile"), os.path.join(base_dir, "Makefile"))
        package = os.path.join(base_dir, "python", "arrowmetal")
        for name in os.listdir(package):  # built binaries stay out of the source distribution
            if name in LIB_NAMES or name.startswith("_api.") or name == "arrowmetal.pc":
                os.remove(os.path.join(package, name))


class BinaryDistribution(Distribution):
    """The wheel holds a native library: tag it for the platform."""

    def has_ext_modules(self):
        return True


try:
    from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel
except ImportError:  # setuptools < 70.1
    try:
        from wheel.bdist_wheel import bdist_wheel as _bdist_wheel
    except ImportError:  # pragma: no cover - wheel not installed
        _bdist_wheel = None

cmdclass = {"build_py": BuildPy, "egg_info": EggInfo, "sdist": SDist}

if _bdist_wheel is not None:

    class BDistWheel(_bdist_wheel):
        """Platform wheel: per Python version when it carries the API-mode
        module, else independent of the Python ABI (cffi ABI mode)."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            python, abi, plat = super().get_tag()
            if getattr(self.distribution, "api_module", False):
                return python, abi, plat  # the compiled module is per Python version
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = BDistWheel

setup(cmdclass=cmdclass, distclass=BinaryDistribution)
