"""The aggregates with options (am_aggregate, am_min_max, am_first_last,
am_index and the package's any, all, product, min_max, variance, stddev,
first, last, first_last, index) where the conformance cases do not reach:
the C ABI's argument checks and its sum/min/max/mean with options, results
as Scalars and StructScalars, batches, inputs of every kind, large inputs on
the worker pool (results independent of the thread count), and the
numerical stability of variance."""

import math
import pickle
import warnings

import pytest

import arrowmetal as am
from arrowmetal import ffi, lib

from .fresh import run_python

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")
np = pytest.importorskip("numpy")


def last_error():
    return ffi.string(lib.am_last_error()).decode()


def scalar_of(s):
    """(type, Python value) of an am_scalar the library wrote."""
    if s.is_null:
        return s.type, None
    if s.type == lib.AM_BOOL:
        return s.type, bool(s.i64)
    if s.type in (lib.AM_FLOAT32, lib.AM_FLOAT64):
        return s.type, s.f64
    if s.type in (lib.AM_UINT8, lib.AM_UINT16, lib.AM_UINT32, lib.AM_UINT64):
        return s.type, s.u64
    return s.type, s.i64


def options(op, **fields):
    o = ffi.new("am_aggregate_options *")
    assert lib.am_aggregate_options_default(op, o) == lib.AM_OK
    for k, v in fields.items():
        setattr(o, k, v)
    return o


def same_value(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


# ---- The C ABI ----------------------------------------------------------------------


def test_defaults_are_pyarrows():
    for op in (lib.AM_AGG_ANY, lib.AM_AGG_PRODUCT, lib.AM_AGG_FIRST, lib.AM_AGG_SUM):
        o = options(op)
        assert (o.skip_nulls, o.min_count, o.ddof) == (1, 1, 0)
    for op in (lib.AM_AGG_VARIANCE, lib.AM_AGG_STDDEV):
        o = options(op)
        assert (o.skip_nulls, o.min_count, o.ddof) == (1, 0, 0)
    out = ffi.new("am_aggregate_options *")
    assert lib.am_aggregate_options_default(99, out) == lib.AM_EINVAL
    assert "unknown aggregate op 99" in last_error()
    assert lib.am_aggregate_options_default(lib.AM_AGG_ANY, ffi.NULL) == lib.AM_EINVAL


SUM_INPUTS = [
    pa.array([1, None, 3], pa.int32()),
    pa.array([], pa.int64()),
    pa.array([None, None], pa.float64()),
    pa.array([1.5, None, -2.0, float("nan")], pa.float64()),
    pa.array([True, None, False]),
    pa.array([4, 5, 6], pa.uint8()),
]


@pytest.mark.parametrize("name", ["sum", "min", "max", "mean"])
def test_sum_min_max_mean_take_their_options_in_the_c_abi(name):
    """am_aggregate's AM_AGG_SUM .. AM_AGG_MEAN: pyarrow's skip_nulls and
    min_count (am_sum and the others take none)."""
    op = getattr(lib, "AM_AGG_" + name.upper())
    for x in SUM_INPUTS:
        a = am.array(x)
        for skip in (True, False):
            for mc in (0, 1, 2, 5):
                want = getattr(pc, name)(x, skip_nulls=skip, min_count=mc)
                out = ffi.new("am_scalar *")
                rc = lib.am_aggregate(op, a.handle, options(op, skip_nulls=skip, min_count=mc), out)
                assert rc == lib.AM_OK, last_error()
                t, got = scalar_of(out)
                assert t == am.type_id(want.type), (name, x, skip, mc)
                assert same_value(got, want.as_py()), (name, x.to_pylist(), skip, mc, got, want)


def test_argument_errors_name_the_call_and_write_nothing():
    a = am.array([1, 2, 3], type="int32")
    out = ffi.new("am_scalar *")
    out2 = ffi.new("am_scalar *")
    out.type = out2.type = -7
    checks = [
        (lambda: lib.am_aggregate(lib.AM_AGG_MIN_MAX, a.handle, ffi.NULL, out), "am_min_max"),
        (lambda: lib.am_aggregate(lib.AM_AGG_FIRST_LAST, a.handle, ffi.NULL, out), "am_first_last"),
        (lambda: lib.am_aggregate(lib.AM_AGG_INDEX, a.handle, ffi.NULL, out), "am_index"),
        (lambda: lib.am_aggregate(42, a.handle, ffi.NULL, out), "unknown aggregate op 42"),
        (lambda: lib.am_aggregate(14, a.handle, ffi.NULL, out), "unknown aggregate op 14"),
        (lambda: lib.am_aggregate(lib.AM_AGG_ANY, ffi.NULL, ffi.NULL, out), "array is NULL"),
        (lambda: lib.am_aggregate(lib.AM_AGG_ANY, a.handle, ffi.NULL, ffi.NULL), "out is NULL"),
        (lambda: lib.am_min_max(a.handle, ffi.NULL, out, out), "the same scalar"),
        (lambda: lib.am_min_max(a.handle, ffi.NULL, out, ffi.NULL), "second output is NULL"),
        (lambda: lib.am_first_last(a.handle, ffi.NULL, ffi.NULL, out2), "out is NULL"),
        (lambda: lib.am_index(a.handle, ffi.NULL, out), "value is NULL"),
    ]
    for call, words in checks:
        assert call() == lib.AM_EINVAL
        assert words in last_error()
        assert out.type == -7 and out2.type == -7
    assert lib.am_aggregate(lib.AM_AGG_ANY, a.handle, ffi.NULL, out) == lib.AM_ETYPE
    assert last_error() == (
        "am_aggregate: function 'any' has no kernel matching input types (int32)"
    )
    b = am.array([True, False])
    assert lib.am_aggregate(lib.AM_AGG_VARIANCE, b.handle, ffi.NULL, out) == lib.AM_ETYPE
    assert "'variance' has no kernel matching input types (bool)" in last_error()
    assert out.type == -7


def index_of(arr, t, **value):
    a = am.array(arr)
    v = ffi.new("am_scalar *")
    v.type = t
    for k, x in value.items():
        setattr(v, k, x)
    out = ffi.new("am_scalar *")
    rc = lib.am_index(a.handle, v, out)
    return rc, (scalar_of(out)[1] if rc == lib.AM_OK else last_error())


def test_index_value_checks():
    int8 = pa.array([1, -128, 127], pa.int8())
    assert index_of(int8, lib.AM_INT8, i64=-128) == (lib.AM_OK, 1)
    rc, msg = index_of(int8, lib.AM_INT8, i64=300)
    assert rc == lib.AM_EINVAL and msg == "am_index: value 300 does not fit int8"
    rc, msg = index_of(int8, lib.AM_INT8, i64=-129)
    assert rc == lib.AM_EINVAL
    rc, msg = index_of(pa.array([7], pa.uint16()), lib.AM_UINT16, u64=65536)
    assert rc == lib.AM_EINVAL and "does not fit uint16" in msg
    rc, msg = index_of(int8, lib.AM_INT64, i64=1)
    assert rc == lib.AM_ETYPE
    assert msg == "am_index: Expected IndexOptions.value to be of type int8, but got int64"
    # A null value: found nowhere, whatever its fields hold, and of no type too.
    assert index_of(int8, lib.AM_INT8, is_null=1, i64=1) == (lib.AM_OK, -1)
    assert index_of(int8, 0, is_null=1) == (lib.AM_OK, -1)
    assert index_of(int8, 0, is_null=0)[0] == lib.AM_ETYPE
    # float32: the value is rounded to float32 first; bool: any non-zero is true.
    f32 = pa.array([0.5, 0.1], pa.float32())
    assert index_of(f32, lib.AM_FLOAT32, f64=0.1) == (lib.AM_OK, 1)
    assert index_of(pa.array([False, True]), lib.AM_BOOL, i64=5) == (lib.AM_OK, 1)
    # uint64 beyond int64.
    big = pa.array([1, 2**64 - 1], pa.uint64())
    assert index_of(big, lib.AM_UINT64, u64=2**64 - 1) == (lib.AM_OK, 1)


def test_first_last_and_min_max_write_both_outputs():
    a = am.array(pa.array([None, 4, -2, None, 9, None], pa.int16()))
    x, y = ffi.new("am_scalar *"), ffi.new("am_scalar *")
    assert lib.am_min_max(a.handle, ffi.NULL, x, y) == lib.AM_OK
    assert scalar_of(x) == (lib.AM_INT16, -2) and scalar_of(y) == (lib.AM_INT16, 9)
    assert lib.am_first_last(a.handle, ffi.NULL, x, y) == lib.AM_OK
    assert scalar_of(x) == (lib.AM_INT16, 4) and scalar_of(y) == (lib.AM_INT16, 9)
    strict = options(lib.AM_AGG_FIRST_LAST, skip_nulls=0)
    assert lib.am_first_last(a.handle, strict, x, y) == lib.AM_OK
    assert scalar_of(x) == (lib.AM_INT16, None) and scalar_of(y) == (lib.AM_INT16, None)


# ---- The package --------------------------------------------------------------------


def test_struct_scalar_is_pyarrows_struct_scalar():
    x = pa.array([3, None, -1, 8], pa.int32())
    mine, theirs = am.min_max(x), pc.min_max(x)
    assert mine.as_py() == theirs.as_py() == {"min": -1, "max": 8}
    assert mine.type == theirs.type and mine.is_valid
    assert list(mine) == list(theirs.keys()) == ["min", "max"]
    assert len(mine) == 2 and mine[0] == -1 and mine["max"] == 8 and mine["max"].type == pa.int32()
    assert dict(mine.items()) == {"min": -1, "max": 8}
    with pytest.raises(KeyError):
        mine["median"]
    with pytest.raises(IndexError):
        mine[2]
    assert mine == {"min": -1, "max": 8} and mine == am.min_max(x) and mine != am.min_max(x[:1])
    assert repr(mine) == "<arrowmetal.StructScalar: [('min', -1), ('max', 8)]>"
    back = pickle.loads(pickle.dumps(mine))
    assert back == mine and back["min"].type == pa.int32()
    empty = am.min_max(pa.array([], pa.float32()))
    assert empty.is_valid and empty.as_py() == {"min": None, "max": None}
    assert not empty["min"].is_valid and empty["min"].type == pa.float32()
    nan = am.min_max(pa.array([float("nan")]))
    assert math.isnan(nan["min"]) and math.isnan(nan.as_py()["max"])
    assert nan == am.min_max(pa.array([float("nan")]))  # NaN fields are equal, as pyarrow's
    fl = am.first_last(x, skip_nulls=False)
    assert fl.as_py() == pc.first_last(x, skip_nulls=False).as_py() == {"first": 3, "last": 8}


INPUTS = [
    pa.array([1, 2, 3, None], pa.int64()),
    pa.chunked_array([[2, 3], [None, 5]], pa.int16()),
    np.array([1.5, -2.0, 4.0]),
    [True, False, None],
    [1, 2, 3],
]


@pytest.mark.parametrize("k", range(len(INPUTS)))
def test_every_input_kind(k):
    x = INPUTS[k]
    for name in ("product", "min_max", "first", "last", "first_last", "any", "all"):
        expect = getattr(pc, name)
        try:
            want = expect(x).as_py()
        except pa.ArrowNotImplementedError:
            with pytest.raises(TypeError):
                getattr(am, name)(x)
            continue
        assert getattr(am, name)(x).as_py() == want, name
    for name in ("variance", "stddev"):
        if isinstance(x, list) and x and isinstance(x[0], bool):
            continue
        assert getattr(am, name)(x).as_py() == pytest.approx(getattr(pc, name)(x).as_py())
    assert am.index(x, x[1] if not isinstance(x, pa.ChunkedArray) else 3).as_py() == 1


def test_results_inside_a_batch_are_pending_until_it_ends():
    x = am.array(pa.array([4, None, -3, 9, 4], pa.int32()))
    with am.batch():
        mm = am.min_max(x)
        fl = am.first_last(x, skip_nulls=False)
        var = am.variance(x, ddof=1)
        at = am.index(x, 4, start=1)
        at0 = am.index(x, 9)
        assert not mm.ready
        with pytest.raises(am.ArrowMetalError, match="known only after the batch ends"):
            mm.as_py()
    assert mm.as_py() == {"min": -3, "max": 9} and mm["max"] == 9 and mm.is_valid
    assert fl.as_py() == {"first": 4, "last": 4}
    assert var.as_py() == pytest.approx(pc.variance(x.to_pyarrow(), ddof=1).as_py())
    assert at.as_py() == 4 and at0.as_py() == 3
    assert repr(mm).startswith("<PendingAggregate")


def test_index_of_pyarrow_types_and_other_inputs():
    x = pa.array([0.0, -0.0, float("nan"), 2.5], pa.float64())
    assert am.index(x, -0.0).as_py() == 0
    assert am.index(x, float("nan")).as_py() == -1
    assert am.index(x, pa.scalar(2.5, pa.float32())).as_py() == 3
    assert am.index(x, am.max(x)).as_py() == 3  # a reduction result as the value
    assert am.index(x, None).as_py() == -1
    assert am.index(pa.array([], pa.int8()), 1).as_py() == -1


def test_strings_fall_back_to_pyarrow():
    """Inputs without kernels run in pyarrow.compute, counted (and warned
    once per function, which another test may have seen first); first and
    min_max of strings run here (issue #13), index of strings in pyarrow."""
    before = am.fallbacks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        assert am.first(pa.array(["a", None, "c"])).as_py() == "a"
        assert am.index(pa.array(["x", "y"]), "y").as_py() == 1
        assert am.min_max(pa.array(["b", "a"])).as_py() == {"min": "a", "max": "b"}
    after = am.fallbacks()
    assert after.get("index", 0) == before.get("index", 0) + 1
    for name in ("first", "min_max"):
        assert after.get(name, 0) == before.get(name, 0)


def test_variance_is_stable_where_the_mean_dwarfs_the_spread():
    """The naive sum-of-squares formula loses every digit here; per-block
    moments merged with Chan's formula keep them."""
    base = 1e9
    vals = base + np.arange(200_003) % 7 - 3.0
    exact = float(np.var((np.arange(200_003) % 7 - 3.0), ddof=1))
    got = am.variance(pa.array(vals), ddof=1).as_py()
    assert got == pytest.approx(exact, rel=1e-12)
    got32 = am.stddev(pa.array((np.arange(10_000) % 2).astype(np.int32) + 2_000_000_000)).as_py()
    assert got32 == pytest.approx(0.5, rel=1e-12)


PARALLEL = """
import sys
import numpy as np, pyarrow as pa, pyarrow.compute as pc
import arrowmetal as am
rng = np.random.default_rng(5)
f = rng.normal(3.0, 2.0, 1_000_003)
i = rng.integers(-2**63, 2**63 - 1, 1_000_003, dtype=np.int64) | 1
mask = rng.random(1_000_003) < 0.1
fa = pa.array(f, mask=mask)
ia = pa.array(i, mask=mask)
print(repr(am.variance(fa).as_py()), repr(am.stddev(ia, ddof=1).as_py()))
print(am.product(ia).as_py() == pc.product(ia).as_py(), am.index(ia, int(i[777_777])).as_py())
print(am.any(pa.array(mask)).as_py(), am.first(fa).as_py() == pc.first(fa).as_py())
print(repr(am.product(pa.array(1.0 + (f - 3.0) * 1e-6))))
"""


def test_large_inputs_do_not_depend_on_the_thread_count():
    """Tiles merged in a fixed order (variance), exact wrapping partial products,
    per-part first hits: every thread count gives the same bits."""
    runs = [
        run_python(PARALLEL, ARROWMETAL_THREADS="1"),
        run_python(PARALLEL, ARROWMETAL_THREADS="4", ARROWMETAL_PARALLEL_MIN="1000"),
    ]
    for r in runs:
        assert r.returncode == 0, r.stderr
    assert runs[0].stdout == runs[1].stdout
    lines = runs[0].stdout.split("\n")
    assert lines[1].startswith("True ") and lines[2] == "True True"


def test_variance_matches_pyarrow_on_large_inputs():
    rng = np.random.default_rng(7)
    for dtype in (np.int8, np.uint32, np.int64, np.float32, np.float64):
        vals = (rng.random(300_001) * 1e6).astype(dtype)
        x = pa.array(vals, mask=rng.random(300_001) < 0.05)
        for ddof in (0, 1):
            assert am.variance(x, ddof=ddof).as_py() == pytest.approx(
                pc.variance(x, ddof=ddof).as_py(), rel=1e-12
            )


CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_gpu_kernels_agree_with_the_cpu_on_many_blocks():
    """The GPU's per-block partials and last-block merge (hundreds of blocks),
    against the CPU: exact for integers, extremes, positions and booleans;
    within 1e-12 for the float product (block order) and the moments."""
    rng = np.random.default_rng(11)
    n = 3_000_017
    mask = rng.random(n) < 0.2
    arrays = {
        "int8": pa.array(rng.integers(-128, 128, n, dtype=np.int8) | 1, mask=mask),
        "uint64": pa.array(rng.integers(0, 2**64 - 1, n, dtype=np.uint64) | 1, mask=mask),
        "int64": pa.array(rng.integers(-(2**40), 2**40, n, dtype=np.int64), mask=mask),
        "float32": pa.array((1.0 + rng.normal(0, 1e-4, n)).astype(np.float32), mask=mask),
        "float64": pa.array(1e9 + rng.normal(0, 3.0, n), mask=mask),
        "bool": pa.array(rng.random(n) < 0.999999, mask=mask),
    }
    for name, x in arrays.items():
        gpu = am.array(x, device="cuda")
        cpu = am.array(x)
        fns = ["min_max", "first", "last", "first_last", "product"]
        fns += ["any", "all"] if name == "bool" else ["variance", "stddev"]
        for fn in fns:
            for kwargs in ({}, {"skip_nulls": False}, {"min_count": 0}):
                want = getattr(am, fn)(cpu, **kwargs).as_py()
                got = getattr(am, fn)(gpu, **kwargs).as_py()
                if isinstance(want, float) and (fn != "product" or "float" in name):
                    assert got == pytest.approx(want, rel=1e-12, nan_ok=True), (name, fn)
                else:
                    assert got == want, (name, fn, kwargs)
        value = x[n // 2].as_py() if x[n // 2].is_valid else x[n // 3].as_py()
        assert am.index(gpu, value).as_py() == am.index(cpu, value).as_py()
        assert (
            am.index(gpu, value, start=n // 4).as_py() == pc.index(x, value, start=n // 4).as_py()
        )
