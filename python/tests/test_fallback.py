"""Code that switched its import keeps working: am.<name> for every
pyarrow.compute function, pyarrow running what ArrowMetal has no kernel for,
counted and announced once per function, or refused under
ARROWMETAL_FALLBACK=error."""

import os
import warnings

import pytest

import arrowmetal as am
from arrowmetal import _fallback

from .fresh import run_python

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        return fn(*args, **kwargs)


def test_every_pyarrow_compute_function_exists():
    names = _fallback.names()
    assert len(names) > 250
    missing = [n for n in names if not callable(getattr(am, n, None))]
    assert missing == []
    assert set(names) <= set(dir(am))


def test_options_classes_and_expressions_are_pyarrows():
    assert am.ScalarAggregateOptions is pc.ScalarAggregateOptions
    assert am.field is pc.field
    with pytest.raises(AttributeError, match="no attribute 'no_such_function'"):
        am.no_such_function  # noqa: B018


# A type the library has no kernels for.
INTERVALS = pa.array([pa.MonthDayNano([1, 2, 3]), None], pa.month_day_nano_interval())


@pytest.mark.parametrize(
    ("name", "args", "kwargs"),
    [
        ("utf8_capitalize", (pa.array(["a", None, "bc"]),), {}),
        ("indices_nonzero", (pa.array([3, 0, None, 2]),), {}),
        ("cumulative_sum", (pa.array([1, None, 5], pa.decimal128(5, 0)),), {"skip_nulls": True}),
        ("sum", (pa.array(["a"], pa.large_string()),), {}),  # refused by pyarrow too
        # duration x int64: here now
        ("days_between", (pa.array([1], pa.timestamp("s")), pa.array([2], pa.timestamp("s"))), {}),
        ("strftime", (pa.array([1], pa.timestamp("s")),), {"format": "%c"}),  # %Y...: here
        ("equal", (pa.array([1.5], pa.float16()), 1.5), {}),  # strings compare here now
        ("cast", (pa.array([1.5, 2], pa.float16()), pa.string()), {}),  # other floats: here
        ("cast", (pa.array(["1.5", "2"]), pa.float16()), {}),
        ("filter", (pa.table({"a": [1, 2]}), pa.array([True, False])), {}),
        ("take", (INTERVALS, pa.array([1, 0])), {}),  # strings, float16: here
        ("count_distinct", (pa.array([1]).dictionary_encode(),), {"mode": "all"}),
        ("negate", (pa.array([1], pa.decimal128(5, 2)),), {}),
        ("invert", (pa.chunked_array([[True], [None]]).cast(pa.bool_()).dictionary_encode(),), {}),
    ],
)
def test_fallback_gives_pyarrows_answer(name, args, kwargs):
    try:
        expected = ("ok", getattr(pc, name)(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 - the same error is expected
        expected = ("error", type(e))
    before = am.fallbacks().get(name, 0)
    try:
        got = ("ok", quiet(getattr(am, name), *args, **kwargs))
    except Exception as e:  # noqa: BLE001
        got = ("error", type(e))
    assert am.fallbacks()[name] == before + 1
    if expected[0] == "ok":
        assert got[0] == "ok"
        assert got[1] == expected[1] or got[1].equals(expected[1])
    else:
        assert got == expected


def test_am_array_inputs_are_converted():
    got = quiet(am.indices_nonzero, am.array([3, 0, 2]))
    assert got.to_pylist() == [0, 2]


def test_no_fallback_for_what_arrowmetal_computes():
    with warnings.catch_warnings():
        warnings.simplefilter("error", am.ArrowMetalFallbackWarning)
        before = am.fallbacks()
        assert am.sum(pa.array([1, 2])) == 3
        assert am.filter(pa.array([1, 2]), pa.array([True, None]), "emit_null").to_pylist() == [
            1,
            None,
        ]
        with pytest.raises(OverflowError):
            am.cast(pa.array([300]), pa.int8())  # an error of ours, not a fallback
        assert am.fallbacks() == before


def test_warns_once_per_function_and_counts():
    code = """
import warnings
import pyarrow as pa
import arrowmetal as am
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(3):
        am.utf8_capitalize(pa.array(["a"]))
    am.utf8_swapcase(pa.array(["A"]))
print(len([w for w in caught if issubclass(w.category, am.ArrowMetalFallbackWarning)]))
print(caught[0].filename.endswith("<string>"), sorted(am.fallbacks().items()))
"""
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["2", "True [('utf8_capitalize', 3), ('utf8_swapcase', 1)]"]


def test_fallback_error_mode_refuses():
    code = """
import pyarrow as pa
import arrowmetal as am
try:
    am.utf8_capitalize(pa.array(["a"]))
except am.ArrowMetalUnsupported as e:
    print("refused:", e)
print(am.sum(pa.array([1, 2])), am.fallbacks())
"""
    r = run_python(code, ARROWMETAL_FALLBACK="error")
    assert r.returncode == 0, r.stderr
    assert "refused: utf8_capitalize: no ArrowMetal kernel" in r.stdout
    assert "ARROWMETAL_FALLBACK=error" in r.stdout
    assert "3 {'utf8_capitalize': 1}" in r.stdout


def test_fallback_mode_unknown_value_is_an_error():
    r = run_python("import arrowmetal", ARROWMETAL_FALLBACK="sometimes")
    assert r.returncode != 0
    assert "ARROWMETAL_FALLBACK='sometimes' is not one of: warn, error" in r.stderr


@pytest.mark.skipif(not {n: ok for n, ok, _ in am.backends()}["cuda"], reason="needs a CUDA device")
def test_gpu_resident_input_is_downloaded():
    x = am.array([3, 0, 2], device="cuda")
    assert quiet(am.indices_nonzero, x).to_pylist() == [0, 2]


def test_an_am_array_of_a_type_without_a_kernel_runs_in_pyarrow():
    """am.abs of an am.Array holding decimals (no decimal abs in the library)
    is pyarrow's, counted, as for a pyarrow array; chunked inputs too."""
    import decimal

    d = pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50")], pa.decimal128(5, 2))
    before = am.fallbacks().get("abs", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        assert am.abs(am.array(d)).equals(pc.abs(d))
        assert am.abs(pa.chunked_array([d[:1], d[1:]])).to_pylist() == pc.abs(d).to_pylist()
        with pytest.raises(pa.ArrowInvalid, match="Invalid decimal function: bit_wise_and"):
            am.bit_wise_and(pa.chunked_array([d[:1], d[1:]]), d[0])
    assert am.fallbacks()["abs"] >= before + 2


@pytest.mark.parametrize("t", [pa.string(), pa.bool_(), pa.int64(), pa.timestamp("s")])
def test_pairwise_diff_of_a_chunked_array_is_refused_as_pyarrow(t):
    """pyarrow checks its kernels before refusing a chunked input."""
    c = pa.chunked_array([pa.array([None, None], t)])
    with pytest.raises(pa.ArrowException) as want:
        pc.pairwise_diff(c)
    with pytest.raises(type(want.value), match=str(want.value)[:40]):
        am.pairwise_diff(c)


def test_array_sort_indices_of_a_chunked_array_is_one_chunk_as_pyarrow(no_fallback):
    c = pa.chunked_array([[3, None, 1], [2]])
    got, want = am.array_sort_indices(c), pc.array_sort_indices(c)
    assert isinstance(got, pa.ChunkedArray) and got.num_chunks == want.num_chunks == 1
    assert got.equals(want)
