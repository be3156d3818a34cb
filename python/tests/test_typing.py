"""The type hints of the public API (the package is typed: py.typed, PEP 561).

mypy (skipped where it is not installed) checks, in one run, the package and
two client files written here: one that uses the API as a user does (every
line must type-check; it is also run, and what it gets must be of the types
it declares) and one of misuse (each line marked ``# E``, and no other, must
be an error: the hints do reject what they should). The checks of the rest
need no mypy: the public functions are annotated, the declared table-driven
functions are the library's, and the hints cost nothing at import.
"""

import ast
import inspect
import os
import re
import subprocess
import sys

import pytest

import arrowmetal as am
from arrowmetal import _compute, _results

from .fresh import PACKAGE_PARENT, run_python

PACKAGE_DIR = os.path.dirname(os.path.abspath(am.__file__))

# mypy's settings, here rather than in pyproject.toml. Strict, less what
# untyped dependencies make noise of: cffi and pyarrow have no type hints, so
# their values are Any (ignore_missing_imports, no warn_return_any). The
# modules of the public API must be fully annotated and are checked in full;
# the internal ones (the binding, importers, exporters, ...; and a new module
# until it is listed here) need no annotations, and their untyped functions
# are not checked.
PUBLIC_MODULES = (
    "arrowmetal",
    "arrowmetal._aggregates",
    "arrowmetal._array",
    "arrowmetal._batch",
    "arrowmetal._chunked",
    "arrowmetal._compute",
    "arrowmetal._cumulative",
    "arrowmetal._errors",
    "arrowmetal._fallback",
    "arrowmetal._groupby",
    "arrowmetal._hash",
    "arrowmetal._join",
    "arrowmetal._nulls",
    "arrowmetal._rank",
    "arrowmetal._round",
    "arrowmetal._sort",
    "arrowmetal._results",
    "arrowmetal._runtime",
    "arrowmetal._state",
    "arrowmetal._types",
    "arrowmetal._typing",
)
MYPY_CONFIG = f"""\
[mypy]
strict = True
ignore_missing_imports = True
warn_return_any = False
allow_untyped_defs = True
allow_untyped_calls = True
check_untyped_defs = False
cache_dir = .mypy_cache

[mypy-{",".join(PUBLIC_MODULES)}]
disallow_untyped_defs = True
check_untyped_defs = True

[mypy-client_ok,client_bad]
disallow_untyped_defs = True
check_untyped_defs = True
allow_untyped_calls = False
warn_return_any = True
"""

# Code as a user writes it. Annotations are evaluated when it runs (no
# `from __future__ import annotations`): Optional / Union, for Python 3.9.
CLIENT_OK = """\
from typing import Any, Optional, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import arrowmetal as am
from arrowmetal._typing import (
    ArrayLike,
    ElementwiseResult,
    ReductionResult,
    ScalarResult,
    StructResult,
)

PyValue = Union[bool, int, float, None]

pa_array = pa.array([1, 2, 3])
a: am.Array = am.array([1, 2])
b: am.Array = am.array(np.arange(2.0), type="float32", device="cpu")
c: am.Array = am.Array(pa_array)
d: am.Array = am.full(0, 3, type=np.int64)

total = am.sum(pa_array).as_py()
s: ReductionResult = am.sum(a, skip_nulls=False, min_count=0)
m: ReductionResult = am.mean(a, options=pc.ScalarAggregateOptions(skip_nulls=True))
lo: ReductionResult = am.min(a, options={"skip_nulls": True})
hi: ReductionResult = am.max(pa.chunked_array([[1], [2]]))
n_all = am.count(a, "all").as_py()
mm: StructResult = am.min_max(a, skip_nulls=False)
fl: StructResult = am.first_last(pa_array, options=pc.ScalarAggregateOptions(min_count=0))
lowest = am.min_max(a)["min"].as_py()
var: ReductionResult = am.variance(a, ddof=1, options=None)
sd: ReductionResult = am.stddev(pa_array, options=pc.VarianceOptions(ddof=1))
anyone: ReductionResult = am.any([True, None], skip_nulls=False)
prod: ReductionResult = am.product(a, min_count=0)
edge: ReductionResult = am.first(a)
where = am.index(a, 2, start=1).as_py()
if not isinstance(s, am.PendingScalar) and s.is_valid:
    s_type = s.type

x: am.Array = am.add(a, b)
y: am.Array = am.add(a, 1)
z: am.Array = am.multiply(2.5, a)
q: am.Array = am.divide(a, np.float32(2))
mask: am.Array = am.greater(a, 0)
both: am.Array = am.and_(mask, am.less(a, 5))
kleene: am.Array = am.and_kleene(mask, am.or_kleene(True, mask))
differ: am.Array = am.xor(mask, am.and_not(mask, False)) ^ am.and_not_kleene(mask, mask)
kept: am.Array = am.filter(a, mask)
kept_nulls: am.Array = am.filter(a, mask, null_selection_behavior="emit_null")
taken: am.Array = am.take(a, am.array([0, 1]))
negated: am.Array = am.negate(a)
nulls_mask: am.Array = am.is_null(b, nan_is_null=True)
valid_mask: am.Array = am.is_valid(a)
rounded: am.Array = am.round(b, 2, "half_up")
rounded_value: ScalarResult = am.round(2.5)
rounded_opts: ElementwiseResult = am.round(pa_array, options=pc.RoundOptions(-1, "down"))
to_multiple: am.Array = am.round_to_multiple(b, 0.25, "half_up")
to_multiple_value: ScalarResult = am.round_to_multiple(7, pa.scalar(5, pa.int8()))
to_multiple_opts: ElementwiseResult = am.round_to_multiple(
    pa_array, options=pc.RoundToMultipleOptions(2, "down")
)
diffs: am.Array = am.pairwise_diff(a, period=-2)
checked_diffs = am.pairwise_diff_checked(pa_array, options=pc.PairwiseOptions(1))
nan_value: ScalarResult = am.is_nan(1.5)
flipped: am.Array = am.invert(mask)
value: ScalarResult = am.add(1, 2)
r: ElementwiseResult = am.add(pa_array, np.arange(3))
f2: ElementwiseResult = am.filter(pa_array, pa.array([True, False, True]))
cast1 = am.cast(a, "int32", safe=False)
cast2 = am.cast(a, pa.int8())
cast3 = am.cast(a, options=pc.CastOptions(pa.int16()))

ops: am.Array = (a * 3 + a) / 2 - a
cmp: am.Array = (a > 1) & (a < 5) | ~(a == 2)
neg: am.Array = -abs(a)
items: list[PyValue] = a.to_pylist()
first: PyValue = a[0]
head: am.Array = a[:1]
rows: int = len(a)
out = a.to_pyarrow()
assert isinstance(out, pa.Array)
arr: np.ndarray[Any, Any] = a.to_numpy()
summed: ReductionResult = a.sum(skip_nulls=False)
counted = a.count("only_null")
selected = a.filter(mask)
capsules: tuple[object, object] = a.__arrow_c_array__()
same: bool = a.equals([1, 2])
typ: str = a.type
inputs: list[ArrayLike] = [a, pa_array, np.arange(3), [1, 2], (1.0, None), range(3)]

with am.batch() as bt:
    pending = am.sum(a)
batch_object: am.Batch = bt
later = pending.as_py()
with am.batch(wait=False) as b2:
    am.add(a, a)
b2.wait()

counts: dict[str, int] = am.fallbacks()
cumulative = am.cumulative_sum(pa_array)  # am._cumulative's
options_class = am.ScalarAggregateOptions
name: str = am.default_device()
device: str = am.set_device("cpu")
available: list[tuple[str, bool, str]] = am.backends()
tid: int = am.type_id("int64")
tname: Optional[str] = am.type_name(tid)
ver: str = am.version()
spin: int = am.spin_microseconds()
try:
    am.take(a, am.array([5]))
except am.ArrowMetalError as e:
    code: Optional[int] = e.code
"""

CLIENT_BAD = """\
import arrowmetal as am

a = am.array([1, 2])
am.sum(a, 2, 3, 4, 5)  # E: too many positional arguments
am.sum(a, skip_nulls="yes")  # E
am.sum("not an array")  # E
am.sum(a, min_count=1.5)  # E
am.round(a, round_mode="nearest")  # E
am.round_to_multiple(a, "2")  # E: not a number
am.round_to_multiple(a, 2, round_mode="nearest")  # E
am.pairwise_diff(a, period="1")  # E
am.count(a, "some")  # E: not a count mode
am.add(a, "x")  # E
am.add(a)  # E
am.filter(a, a > 0, null_selection_behavior="keep")  # E
am.take(a, [0], boundscheck=None)  # E
am.cast(a, 3.5)  # E: not a type
am.array({1: 2})  # E
am.negate(a, a)  # E
v: int = am.version()  # E
x: am.Array = am.add(1, 2)  # E: two scalars give a Python value
a.sum(skip_nulls=1.5)  # E
am.batch(wait="no")  # E
am.no_such_function(a)  # any other name is pyarrow.compute's: Any
"""

# Run after CLIENT_OK: every module-level value it annotated is of the
# annotated type (where the annotation names classes).
CHECK_RUNTIME_TYPES = """
import typing

_ns = {"Array": am.Array, "Scalar": _results.Scalar, "NullScalar": _results.NullScalar,
       "PendingScalar": am.PendingScalar, "pa": pa, "np": np,
       "StructScalar": am.StructScalar, "PendingAggregate": am.PendingAggregate}


def _classes(tp):
    if isinstance(tp, typing.ForwardRef):  # "pa.Array[Any]": pa.Array
        tp = eval(tp.__forward_arg__.split("[")[0], _ns)
    if tp is None or tp is type(None):
        return (type(None),)
    origin = typing.get_origin(tp)
    if origin is typing.Union:
        found = ()
        for member in typing.get_args(tp):
            classes = _classes(member)
            if classes is None:
                return None
            found += classes
        return found
    tp = origin or tp
    if isinstance(tp, type) and not getattr(tp, "_is_protocol", False):
        return (tp,)
    return None  # Any, a protocol: not checked


_checked = []
for _name, _tp in list(__annotations__.items()):
    if _name in globals() and (_classes_of := _classes(_tp)) is not None:
        _value = globals()[_name]
        assert isinstance(_value, _classes_of), f"{_name}: {_value!r} is not a {_tp}"
        _checked.append(_name)
print("checked", len(_checked))
"""

_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+): error: (?P<message>.*)$", re.MULTILINE)


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory):
    """{file name: {line: [messages]}} of one mypy run over the package and
    the two client files."""
    pytest.importorskip("mypy", reason="mypy is not installed (see requirements-test.txt)")
    work = tmp_path_factory.mktemp("typing")
    (work / "mypy.ini").write_text(MYPY_CONFIG)
    (work / "client_ok.py").write_text(CLIENT_OK)
    (work / "client_bad.py").write_text(CLIENT_BAD)
    env = dict(os.environ, MYPYPATH=os.pathsep.join([PACKAGE_PARENT, str(work)]))
    command = [sys.executable, "-m", "mypy", "--config-file", "mypy.ini"]
    command += ["-p", "arrowmetal", "-m", "client_ok", "-m", "client_bad"]
    run = subprocess.run(
        command, cwd=work, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode in (0, 1), run.stdout + run.stderr  # 2: mypy itself failed
    errors = {}
    for m in _ERROR.finditer(run.stdout):
        name = os.path.basename(m["file"]) if m["file"].startswith("client_") else m["file"]
        errors.setdefault(name, {}).setdefault(int(m["line"]), []).append(m["message"])
    return errors


def test_package_has_no_type_errors(mypy_errors):
    package = {f: lines for f, lines in mypy_errors.items() if not f.startswith("client_")}
    assert package == {}


def test_code_using_the_api_type_checks(mypy_errors):
    assert mypy_errors.get("client_ok.py", {}) == {}


def test_misuse_fails_to_type_check(mypy_errors):
    marked = {n for n, line in enumerate(CLIENT_BAD.splitlines(), 1) if re.search(r"# E\b", line)}
    assert len(marked) == 20
    assert set(mypy_errors.get("client_bad.py", {})) == marked


def test_code_using_the_api_gets_the_types_it_declares():
    pytest.importorskip("pyarrow")
    pytest.importorskip("numpy")
    code = CLIENT_OK + "from arrowmetal import _results\n" + CHECK_RUNTIME_TYPES
    run = run_python(code)
    assert run.returncode == 0, run.stderr
    assert int(run.stdout.split()[-1]) >= 40


def test_py_typed_marks_the_package():
    assert os.path.isfile(os.path.join(PACKAGE_DIR, "py.typed"))


def test_table_functions_are_declared_for_type_checkers():
    """__init__ declares am.negate & co. (made from the C library's list at
    run time) for type checkers: the declarations name every one."""
    with open(os.path.join(PACKAGE_DIR, "__init__.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    declared = {
        node.target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.AnnAssign)
        and node.value is None
        and isinstance(node.target, ast.Name)
        and ast.unparse(node.annotation) in ("UnaryFunction", "BinaryFunction")
    }
    missing = sorted(set(_compute.TABLE_FUNCTIONS) - declared)
    assert missing == [], "declare them in arrowmetal/__init__.py: NAME: Unary/BinaryFunction"
    assert sorted(declared - set(_compute.TABLE_FUNCTIONS)) == []


def _unannotated(fn, is_method):
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())[1 if is_method else 0 :]
    missing = [p.name for p in params if p.annotation is inspect.Parameter.empty]
    if sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def test_public_api_is_annotated():
    classes = [_results.Scalar, _results.NullScalar]
    missing = {}
    for name in am.__all__:
        obj = getattr(am, name)
        if inspect.isfunction(obj):
            missing[name] = _unannotated(obj, False)
        elif inspect.isclass(obj):
            classes.append(obj)
    for cls in classes:
        for attr, value in vars(cls).items():
            if attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__")):
                continue
            if isinstance(value, property):
                value = value.fget
            if inspect.isfunction(value):
                missing[f"{cls.__name__}.{attr}"] = _unannotated(value, True)
    assert {k: v for k, v in missing.items() if v} == {}


def test_hints_cost_nothing_at_import():
    code = (
        "import sys\n"
        "import arrowmetal as am\n"
        "am.sum(am.array([1, 2])); am.add(am.array([1]), 1)\n"
        "print(sorted(m for m in sys.modules if m == 'arrowmetal._typing'))\n"
        "print(sorted({'annotations', 'TYPE_CHECKING'} & set(dir(am))))\n"
    )
    run = run_python(code)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:2] == ["[]", "[]"]
