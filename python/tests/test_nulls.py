"""The null-handling functions (branch nulls) where the conformance cases do not
reach: the Python signatures, options, ChunkedArrays, scalars and the other kinds of
input, and the C ABI's argument checks. Each answer is compared with
pyarrow.compute's on the same input."""

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal import ffi, lib

TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
TYPES += ["float32", "float64"]
PREDICATES = ["is_null", "is_valid", "is_nan", "is_finite", "is_inf"]
CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]


def plain(value):
    """A result as comparable Python data (NaN as a string)."""
    if isinstance(value, (pa.Array, pa.ChunkedArray, am.Array)):
        value = value.to_pylist()
    elif isinstance(value, pa.Scalar):
        value = value.as_py()
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return value


def sample(t, n=300, seed=0):
    """A pyarrow array of n slots of type t with nulls, and NaN and infinities
    among floats."""
    rng = np.random.default_rng(seed)
    if t == "bool":
        values = [bool(v) for v in rng.integers(0, 2, n)]
    elif t.startswith("float"):
        pool = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1.5, -2.5, 1e30]
        values = [pool[i] for i in rng.integers(0, len(pool), n)]
    else:
        info = np.iinfo(t)
        values = [int(v) for v in rng.integers(info.min, info.max, n, dtype=t, endpoint=True)]
    mask = rng.random(n) < 0.3
    return pa.array([None if m else v for v, m in zip(values, mask)], type=pa.type_for_alias(t))


def outcome(fn, *args, **kwargs):
    try:
        return ("ok", plain(fn(*args, **kwargs)))
    except Exception:  # noqa: BLE001 - compared with pyarrow's outcome (the classes differ:
        # pyarrow's ArrowNotImplementedError is ArrowMetal's TypeError, as everywhere)
        return ("error",)


# ---- predicates ----------------------------------------------------------------------


@pytest.mark.parametrize("name", PREDICATES)
@pytest.mark.parametrize("t", TYPES)
def test_predicates_match_pyarrow_on_every_kind_of_input(name, t):
    data = sample(t)
    fn, ref = getattr(am, name), getattr(pc, name)
    for x in (data, data.slice(7), data.slice(63, 100)):
        want = outcome(ref, x)
        assert outcome(fn, x) == want
        assert outcome(fn, am.array(x)) == want
        chunked = pa.chunked_array([x.slice(0, 10), x.slice(10)], type=x.type)
        got = outcome(fn, chunked)
        assert got == outcome(ref, chunked)
        if got[0] == "ok":
            assert [len(c) for c in fn(chunked).chunks] == [10, len(x) - 10]


def test_is_null_nan_is_null_as_keyword_options_and_dict():
    x = pa.array([1.0, None, float("nan"), float("inf")], pa.float32())
    want = pc.is_null(x, nan_is_null=True).to_pylist()
    assert want == [False, True, True, False]
    assert am.is_null(x, nan_is_null=True).to_pylist() == want
    assert am.is_null(x, options=pc.NullOptions(nan_is_null=True)).to_pylist() == want
    assert am.is_null(x, options={"nan_is_null": True}).to_pylist() == want
    assert am.is_null(x).to_pylist() == [False, True, False, False]
    # Integers are never NaN: the flag changes nothing.
    i = pa.array([1, None], pa.int64())
    assert am.is_null(i, nan_is_null=True).to_pylist() == [False, True]


def test_is_null_options_misuse_is_refused_as_pyarrow_does():
    x = pa.array([1.0, None])
    with pytest.raises(TypeError, match="expected a NullOptions"):
        am.is_null(x, options=pc.CountOptions())
    with pytest.raises(TypeError, match="both an 'options' argument"):
        am.is_null(x, nan_is_null=True, options=pc.NullOptions())
    with pytest.raises(TypeError, match="no field 'nan'"):
        am.is_null(x, options={"nan": True})


def test_predicates_of_scalars_give_values():
    assert am.is_nan(float("nan")) is True
    assert am.is_inf(float("-inf")) is True
    assert am.is_finite(2) is True
    assert am.is_null(None) is True
    assert am.is_valid(3) is True
    assert am.is_null(float("nan"), nan_is_null=True) is True
    assert am.is_nan(pa.scalar(None, pa.float64())) is None


def test_predicates_of_numpy_lists_and_am_arrays():
    assert am.is_nan(np.array([1.0, np.nan])).to_pylist() == [False, True]
    assert am.is_null([1, None, 3]).to_pylist() == [False, True, False]
    a = am.array([1.5, None, float("inf")])
    assert am.is_finite(a).to_pylist() == [True, None, False]
    assert am.is_valid(a).null_count == 0


def test_predicate_results_are_never_null_or_null_where_the_input_is():
    x = pa.array([None] * 70 + [1.0], pa.float64())
    assert am.is_null(x).null_count == 0 and am.is_valid(x).null_count == 0
    assert am.is_nan(x).null_count == 70 and am.is_inf(x).null_count == 70


def test_am_is_argument_checks():
    out = ffi.new("am_array **")
    a = am.array([1.0, None])
    cases = [
        ((5, 0, a.handle, out), "unknown predicate 5"),
        ((lib.AM_IS_NULL, 2, a.handle, out), "unknown flag bits 0x2 (am_predicate_flag: 0x1)"),
        (
            (lib.AM_IS_NAN, lib.AM_NAN_IS_NULL, a.handle, out),
            "AM_NAN_IS_NULL is a flag of is_null, not of is_nan",
        ),
        ((lib.AM_IS_NULL, 0, ffi.NULL, out), "array is NULL"),
        ((lib.AM_IS_NULL, 0, a.handle, ffi.NULL), "out is NULL"),
    ]
    for args, message in cases:
        assert lib.am_is(*args) == lib.AM_EINVAL
        assert ffi.string(lib.am_last_error()).decode() == f"am_is: {message}"
    assert out[0] == ffi.NULL


def test_batched_predicates_equal_unbatched():
    x = am.array(sample("float32", 1000, seed=3))
    with am.batch():
        got = [am.is_nan(x), am.is_null(x, nan_is_null=True), am.is_valid(x)]
    assert [g.to_pylist() for g in got] == [
        am.is_nan(x).to_pylist(),
        am.is_null(x, nan_is_null=True).to_pylist(),
        am.is_valid(x).to_pylist(),
    ]


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("t", TYPES)
def test_predicates_on_the_gpu_match_the_cpu(t):
    data = sample(t, 5000, seed=7).slice(3)
    for name in PREDICATES:
        fn = getattr(am, name)
        want = outcome(fn, am.array(data))
        assert outcome(fn, am.array(data, device="cuda")) == want
    assert (
        am.is_null(am.array(data, device="cuda"), nan_is_null=True).to_pylist()
        == pc.is_null(data, nan_is_null=True).to_pylist()
    )
