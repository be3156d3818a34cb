"""The wheel `make wheel` writes to dist/: what it holds, and that it installs
and runs in a fresh venv on a machine with no compiler and no make.

`make test` builds the wheel first, so in CI a missing wheel fails; a
developer's plain pytest run without one skips."""

import glob
import os
import shlex
import shutil
import subprocess
import sys
import venv
import zipfile

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PLATFORM = "manylinux_2_28_x86_64"

pytestmark = pytest.mark.skipif(
    not (sys.platform.startswith("linux") and os.uname().machine == "x86_64"),
    reason="the wheel is built for Linux x86-64 only",
)


@pytest.fixture(scope="module")
def wheel():
    found = sorted(glob.glob(os.path.join(ROOT, "dist", "arrowmetal-*.whl")))
    if not found:
        if os.environ.get("CI"):
            pytest.fail("no wheel in dist/: `make test` runs `make wheel` first")
        pytest.skip("no wheel in dist/: run `make wheel`")
    assert len(found) == 1, f"more than one wheel in dist/: {found}"
    return found[0]


@pytest.fixture(scope="module")
def unpacked(wheel, tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(out)
    return out


def test_wheel_is_tagged_manylinux_2_28(wheel):
    tags = os.path.basename(wheel)[: -len(".whl")].split("-")[-1].split(".")
    assert PLATFORM in tags, tags


def test_wheel_holds_the_library_module_header_pc_and_license(unpacked):
    pkg = unpacked / "arrowmetal"
    for name in ("libarrowmetal.so.0", "arrowmetal.h", "arrowmetal.pc", "py.typed", "__init__.py"):
        assert (pkg / name).is_file(), name
    assert glob.glob(str(pkg / "_api.*.so")), "no API-mode module"
    assert not (pkg / "libarrowmetal.so").exists()  # one copy of the library, by its soname
    info = glob.glob(str(unpacked / "arrowmetal-*.dist-info"))[0]
    assert os.path.isfile(os.path.join(info, "licenses", "LICENSE"))
    with open(os.path.join(info, "METADATA"), encoding="utf-8") as f:
        metadata = f.read()
    assert "License-Expression: Apache-2.0" in metadata
    assert "# ArrowMetal" in metadata  # the long description is the README


def _dynamic(path):
    """(soname, needed, rpaths, stripped) of an ELF shared object."""
    from elftools.elf.dynamic import DynamicSection
    from elftools.elf.elffile import ELFFile

    with open(path, "rb") as f:
        elf = ELFFile(f)
        soname, needed, rpaths = None, [], []
        for section in elf.iter_sections():
            if isinstance(section, DynamicSection):
                for tag in section.iter_tags():
                    if tag.entry.d_tag == "DT_SONAME":
                        soname = tag.soname
                    elif tag.entry.d_tag == "DT_NEEDED":
                        needed.append(tag.needed)
                    elif tag.entry.d_tag == "DT_RPATH":
                        rpaths.append(tag.rpath)
                    elif tag.entry.d_tag == "DT_RUNPATH":
                        rpaths.append(tag.runpath)
        stripped = elf.get_section_by_name(".symtab") is None
    return soname, needed, rpaths, stripped


def test_library_is_stripped_versioned_and_links_nothing_from_cuda(unpacked):
    pytest.importorskip("elftools", reason="pyelftools comes with auditwheel")
    soname, needed, rpaths, stripped = _dynamic(unpacked / "arrowmetal" / "libarrowmetal.so.0")
    assert soname == "libarrowmetal.so.0"
    assert stripped
    assert rpaths == []
    assert not [n for n in needed if "cuda" in n or "nvrtc" in n], needed
    # Only glibc's own libraries: the manylinux policy allows them.
    assert set(needed) <= {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0",
                           "ld-linux-x86-64.so.2"}, needed  # fmt: skip


def test_api_module_finds_the_library_beside_it_and_nothing_else(unpacked):
    pytest.importorskip("elftools", reason="pyelftools comes with auditwheel")
    module = glob.glob(str(unpacked / "arrowmetal" / "_api.*.so"))[0]
    _, needed, rpaths, stripped = _dynamic(module)
    assert "libarrowmetal.so.0" in needed
    assert rpaths == ["$ORIGIN"], rpaths  # no path of the machine that built it
    assert stripped


# Run inside the fresh venv, from a folder outside the source tree.
CLIENT = r"""
import os, subprocess, sys
import arrowmetal as am
assert os.path.realpath(am.__file__).startswith(os.path.realpath(sys.prefix)), am.__file__
assert am.binding_mode() == "api", am.binding_mode()
x = am.array([1, 2, None, 4])
assert am.sum(x).as_py() == 7
assert am.filter(x, am.greater(x, 1)).to_pylist() == [2, 4]
assert am.count(x, mode="all").as_py() == 4
flags = subprocess.run([sys.executable, "-m", "arrowmetal", "--cflags", "--libs",
                        "--pkgconfigdir"], capture_output=True, text=True, check=True).stdout
print(flags.strip())
"""


def test_fresh_venv_installs_the_wheel_without_compiler_or_make(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    # The venv's bin alone on PATH: no make, no cc, no gcc; CC points at false.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "ARROWMETAL_"))}
    env.update(PATH=str(bin_dir), CC="false", MAKE="false")
    for tool in ("make", "cc", "gcc", "clang"):
        assert shutil.which(tool, path=env["PATH"]) is None, tool
    python = str(bin_dir / "python")
    installed = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel],
        capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=300, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    ran = subprocess.run(
        [python, "-c", CLIENT],
        capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    words = shlex.split(ran.stdout)
    site = os.path.realpath(str(env_dir))
    pkg = [w for w in words if os.path.realpath(w.lstrip("-I")).startswith(site)]
    assert words[0].startswith("-I") and pkg, words
    pkgconfig_dir = words[-1]
    assert os.path.isfile(os.path.join(pkgconfig_dir, "arrowmetal.pc"))

    # The pkg-config file the wheel installed builds and runs a C program
    # (with this machine's compiler: the venv above had none).
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None or shutil.which("pkg-config") is None:
        return
    source = tmp_path / "sum.c"
    source.write_text(
        '#include <stdio.h>\n#include "arrowmetal.h"\n'
        'int main(void) { printf("%s\\n", am_version()); return 0; }\n'
    )
    flags = subprocess.run(
        ["pkg-config", "--cflags", "--libs", "arrowmetal"],
        capture_output=True, text=True, check=True,
        env=dict(os.environ, PKG_CONFIG_PATH=pkgconfig_dir),
    ).stdout  # fmt: skip
    exe = tmp_path / "sum"
    subprocess.run([cc, str(source), *shlex.split(flags), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip().startswith("0."), out.stdout
