"""The layering rule of libarrowmetal (README.md in this directory), checked.

include/ -> core/ -> gpu/ -> cpu/, cuda/, metal/ -> abi/: a file may use its own
folder and the folders before it, never a later one, and a backend never uses
another backend. Two checks: the `#include` lines of every C and Objective-C
file, and the am_ symbols each compiled object leaves undefined (what it calls
or reads), resolved to the folder whose object defines them. In abi/, only
registry.c names a concrete backend.
"""

import pathlib
import re
import subprocess

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
BUILD = ROOT / "build" / "libarrowmetal"

RANK = {"include": 0, "core": 1, "gpu": 2, "cpu": 3, "cuda": 3, "metal": 3, "abi": 4}
BACKENDS = {"cpu", "cuda", "metal"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def sources():
    files = []
    for folder in RANK:
        if folder == "include":
            continue
        for pattern in ("*.c", "*.h", "*.m"):
            files.extend(sorted((HERE / folder).glob(pattern)))
    return files


def layer_of_include(source, target):
    """The folder a quoted include resolves to, or None for a generated file
    that lives nowhere in the tree (a test's build output)."""
    if target == "arrowmetal.h":
        return "include"
    if "/" in target:
        return target.split("/", 1)[0]
    if (source.parent / target).exists():
        return source.parent.name
    return None


def may_use(user, used):
    if user == used:
        return True
    if user in BACKENDS and used in BACKENDS:
        return False
    return RANK[used] < RANK[user]


def test_every_folder_is_a_layer():
    folders = {p.name for p in HERE.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))}
    folders.discard("__pycache__")
    assert folders - {"golden"} <= set(RANK), f"folders outside the layering rule: {folders}"


def test_no_file_includes_a_later_layer_or_another_backend():
    problems = []
    for source in sources():
        user = source.parent.name
        for target in INCLUDE_RE.findall(source.read_text()):
            used = layer_of_include(source, target)
            if used is None:
                continue
            if used not in RANK:
                problems.append(
                    f"{source.relative_to(ROOT)}: unknown folder in #include {target!r}"
                )
            elif not may_use(user, used):
                problems.append(f"{source.relative_to(ROOT)} ({user}) includes {target} ({used})")
            elif user == "abi" and used in BACKENDS and source.name != "registry.c":
                problems.append(
                    f"{source.relative_to(ROOT)}: only abi/registry.c may include a backend ({target})"
                )
    assert not problems, "\n".join(problems)


def test_abi_names_no_concrete_backend_outside_the_registry():
    pattern = re.compile(r"\bam_(cpu|cuda|metal)_\w+")
    problems = []
    for source in sorted((HERE / "abi").glob("*.[ch]")):
        if source.name == "registry.c":
            continue
        for match in pattern.finditer(source.read_text()):
            problems.append(f"{source.relative_to(ROOT)} names {match.group(0)}")
    assert not problems, "\n".join(problems)


def _symbols(obj, *flags):
    out = subprocess.run(["nm", *flags, str(obj)], capture_output=True, text=True, check=True)
    names = set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if parts and parts[-1].startswith("am_"):
            names.add(parts[-1])
    return names


def test_no_object_calls_into_a_later_layer_or_another_backend():
    # Objects of sources that still exist (a removed file's object may linger).
    objects = [
        obj
        for obj in sorted(BUILD.glob("*/*.o"))
        if any((HERE / obj.parent.name / (obj.stem + ext)).exists() for ext in (".c", ".m"))
    ]
    assert objects, f"no objects under {BUILD}: run `make` first (make test does)"
    defined_in = {}
    for obj in objects:
        for name in _symbols(obj, "--defined-only", "-g"):
            defined_in[name] = obj.parent.name
    problems = []
    for obj in objects:
        user = obj.parent.name
        if user not in RANK:
            continue
        for name in sorted(_symbols(obj, "-u")):
            used = defined_in.get(name)
            if used is None or used not in RANK:
                continue
            if not may_use(user, used):
                problems.append(f"{obj.relative_to(ROOT)} ({user}) uses {name} from {used}/")
            elif user == "abi" and used in BACKENDS and obj.stem != "registry":
                problems.append(f"{obj.relative_to(ROOT)} uses {name} from {used}/")
    assert not problems, "\n".join(problems)
