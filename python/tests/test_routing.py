"""Routing by the crossover table (am_routes, ARROWMETAL_ROUTES): the table
as read, and results that never depend on where an op ran. The GPU tests run
where CUDA works (the H200 in benchmarks/device_run.sh) and skip elsewhere."""

import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

import arrowmetal as am

HAVE_CUDA = {name: ok for name, ok, _ in am.backends()}["cuda"]
needs_cuda = pytest.mark.skipif(not HAVE_CUDA, reason="needs a CUDA device")

PACKAGE_ROOT = os.path.dirname(os.path.dirname(am.__file__))


def run_with_routes(setting, code):
    """stdout of `code` in a process with ARROWMETAL_ROUTES=setting."""
    env = dict(os.environ, ARROWMETAL_ROUTES=setting)
    rest = os.environ.get("PYTHONPATH")
    env["PYTHONPATH"] = PACKAGE_ROOT + (os.pathsep + rest if rest else "")
    out = subprocess.run(
        [sys.executable, "-c", "import arrowmetal as am\n" + code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return out.stdout


def test_builtin_table():
    text = run_with_routes("", "print(am.routes(), end='')")
    assert text == "# the built-in table (H200 measurement: no move paid)\n"


def test_table_from_a_file(tmp_path):
    path = tmp_path / "routes.txt"
    path.write_text("# measured\nreduce cpu 100 cuda\n\nfilter cuda 5000 cpu  # small filters\n")
    text = run_with_routes(str(path), "print(am.routes(), end='')")
    assert text == f"# ARROWMETAL_ROUTES={path}\nreduce cpu 100 cuda\nfilter cuda 5000 cpu\n"


@pytest.mark.parametrize(
    "line",
    [
        "sum cpu 100 cuda",  # not an op class
        "reduce cpu 100",  # a field missing
        "reduce cpu 100 cuda extra",
        "reduce cpu -1 cuda",
        "reduce cpu 100 cpu",  # nowhere to move
        "reduce tpu 100 cpu",  # unknown backend
        "reduce cpu 100cuda",  # fields run together
        "reduce cpu 99999999999999999999 cuda",  # out of range
        "reduce cpu +5 cuda",
        "x" * 1100,  # over the line limit
    ],
)
def test_a_bad_file_falls_back_to_the_builtin_table_and_says_why(tmp_path, line):
    path = tmp_path / "routes.txt"
    path.write_text("filter cuda 10 cpu\n" + line + "\n")
    text = run_with_routes(str(path), "print(am.routes(), end='')")
    first, rest = text.split("\n", 1)
    assert first.startswith(f"# ARROWMETAL_ROUTES={path} not used (line 2")
    assert first.endswith("the built-in table")
    assert rest == ""


def test_a_missing_file_falls_back_too(tmp_path):
    text = run_with_routes(str(tmp_path / "nope.txt"), "print(am.routes(), end='')")
    assert "not used (cannot read it" in text and text.count("\n") == 1


def test_a_directory_or_a_nul_byte_is_not_a_table(tmp_path):
    text = run_with_routes(str(tmp_path), "print(am.routes(), end='')")
    assert "not used (cannot read it whole" in text
    path = tmp_path / "routes.txt"
    path.write_bytes(b"filter cuda 10 cpu\n\0reduce cpu 10 cuda\n")
    assert "not used (cannot read it whole" in run_with_routes(str(path), "print(am.routes())")


def test_long_comments_and_no_final_newline(tmp_path):
    path = tmp_path / "routes.txt"
    path.write_text("# " + "c" * 900 + "\n\treduce   cpu\t100 cuda")
    text = run_with_routes(str(path), "print(am.routes(), end='')")
    assert text.endswith("\nreduce cpu 100 cuda\n")


def test_a_rule_never_renames_the_call_in_errors(tmp_path):
    # Opening a rule's target is the library's business: errors still name
    # the function called, and a call that succeeds leaves no message.
    path = tmp_path / "routes.txt"
    path.write_text("arith cpu 1000000 metal\ntake cpu 1000000 metal\nreduce cpu 1000000 metal\n")
    code = (
        "import pyarrow as pa\n"
        "a = am.array(pa.array([1, 2, 3]))\n"
        "for call in (lambda: am.divide(a, am.array(pa.array([1, 0, 1]))),\n"
        "             lambda: am.take(a, am.array(pa.array([7])))):\n"
        "    try:\n"
        "        call()\n"
        "    except am.ArrowMetalError as e:\n"
        "        print(str(e).split(':')[0])\n"
        "am.lib.am_sum(a._ptr, am.ffi.new('am_scalar *'))\n"
        "am.sum(a)\n"
        "print(repr(am.ffi.string(am.lib.am_last_error()).decode().split(':')[0]))\n"
    )
    assert run_with_routes(str(path), code) == "am_arith\nam_take\n'am_take'\n"


def test_off():
    text = run_with_routes("off", "print(am.routes(), end='')")
    assert text.startswith("# ARROWMETAL_ROUTES=off") and text.count("\n") == 1


def test_a_rule_to_a_backend_that_cannot_run_leaves_the_op_where_it_is(tmp_path):
    # On a machine without CUDA (or Metal) the rule's target cannot open: the
    # op runs where its inputs live, with the same results.
    path = tmp_path / "routes.txt"
    path.write_text(
        "".join(
            f"{op} cpu 1000000 metal\n"
            for op in ("reduce", "compare", "arith", "cast", "logic", "filter", "take")
        )
    )
    code = (
        "import pyarrow as pa\n"
        "a = pa.array([3, None, -1, 7, 0])\n"
        "m = am.greater(a, 0)\n"
        "print(am.sum(a), am.multiply(a, 2).to_pylist(), m.to_pylist(),\n"
        "      am.filter(a, m).to_pylist(), am.take(a, pa.array([4, 0])).to_pylist(),\n"
        "      am.cast(a, 'float64').to_pylist(), am.and_(m, m).to_pylist(),\n"
        "      am.multiply(a, 2).device)\n"
    )
    expected = (
        "9 [6, None, -2, 14, 0] [True, None, False, True, False] [3, 7] [0, 3] "
        "[3.0, None, -1.0, 7.0, 0.0] [True, None, False, True, False] cpu\n"
    )
    assert run_with_routes(str(path), code) == expected


@needs_cuda
def test_inputs_on_two_devices_meet_on_the_larger_ones_device():
    rng = np.random.default_rng(5)
    values = rng.integers(-100, 100, 3000)
    host = am.array(pa.array(values), device="cpu")
    device = am.array(pa.array(values), device="cuda")
    total = am.add(host, device)  # equal sizes: the GPU
    assert total.device.startswith("cuda")
    assert total.to_pylist() == (values * 2).tolist()
    small = am.array(pa.array(values.astype(np.int8)), device="cpu")
    assert am.add(small, device).device.startswith("cuda")
    picks = am.array(pa.array(np.arange(10)), device="cuda")
    taken = am.take(host, picks)  # 3000 values on the CPU, 10 indices on the GPU
    assert taken.device == "cpu" and taken.to_pylist() == values[:10].tolist()


@needs_cuda
def test_a_routed_op_returns_its_result_to_the_inputs_device(tmp_path):
    path = tmp_path / "routes.txt"
    path.write_text("filter cuda 100000 cpu\narith cpu 100000 cuda\nreduce cpu 100000 cuda\n")
    code = (
        "import pyarrow as pa\n"
        "a = am.array(pa.array(range(-500, 500)), device='cuda')\n"
        "kept = am.filter(a, am.greater(a, 490))\n"
        "h = am.array(pa.array(range(10)), device='cpu')\n"
        "print(kept.device, kept.to_pylist(), am.multiply(h, 3).device,\n"
        "      am.multiply(h, 3).to_pylist(), am.sum(h))\n"
        "with am.batch():\n"
        "    inside = am.filter(a, am.greater(a, 495))\n"
        "print(inside.device, inside.to_pylist())\n"
    )
    out = run_with_routes(str(path), code).split("\n")
    assert out[0] == (
        "cuda:0 [491, 492, 493, 494, 495, 496, 497, 498, 499] cpu "
        "[0, 3, 6, 9, 12, 15, 18, 21, 24, 27] 45"
    )
    assert out[1] == "cuda:0 [496, 497, 498, 499]"


@needs_cuda
def test_off_refuses_inputs_on_two_devices():
    code = (
        "import pyarrow as pa\n"
        "a = am.array(pa.array([1, 2]), device='cpu')\n"
        "b = am.array(pa.array([1, 2]), device='cuda')\n"
        "try:\n"
        "    am.add(a, b)\n"
        "except am.ArrowMetalInvalid as e:\n"
        "    print('refused:', e)\n"
    )
    assert "refused:" in run_with_routes("off", code) and "different devices" in run_with_routes(
        "off", code
    )


@needs_cuda
def test_kept_pyarrow_imports_follow_the_default_device():
    x = pa.array(np.arange(100, dtype=np.int64))
    am.sum(x)
    am.sum(x)  # now kept on the CPU
    small = am.array(pa.array(np.ones(100, dtype=np.int8)), device="cuda")
    first = am.add(x, small)
    assert am.add(x, small).device == first.device  # the same wherever x's import is
    try:
        am.set_device("cuda")
        assert am.add(x, 1).device.startswith("cuda")
        assert am.cast(x, "float64").device.startswith("cuda")
        assert am.sum(x) == 4950
    finally:
        am.set_device("cpu")
    assert am.add(x, 1).device == "cpu"
