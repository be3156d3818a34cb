"""The compute functions against pyarrow.compute on representative cases."""

import math
import warnings

import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")
np = pytest.importorskip("numpy")


def _py_equal(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def same(result, expected):
    """am result vs pyarrow result (Array or Scalar); NaN equals NaN."""
    if isinstance(expected, pa.Scalar):
        # a Scalar like pyarrow's: value, validity and type
        return (
            _py_equal(result.as_py(), expected.as_py())
            and result.is_valid == expected.is_valid
            and result.type == expected.type
        )
    assert isinstance(result, am.Array)
    got = result.to_pyarrow()
    if got.type != expected.type or len(got) != len(expected):
        return False
    return all(_py_equal(x, y) for x, y in zip(got.to_pylist(), expected.to_pylist()))


INTS = pa.array([3, -1, None, 7, 0, 12], pa.int64())
INT32 = pa.array([5, 2, 9, None, -4, 1], pa.int32())
UINTS = pa.array([1, 2, 3, None, 250, 0], pa.uint8())
FLOATS = pa.array([1.5, None, -2.25, 8.0, float("nan"), 0.5], pa.float64())
F32 = pa.array([1.5, 2.0, None, -3.0, 4.5, 0.0], pa.float32())
BOOLS = pa.array([True, False, None, True, True, False])
BOOLS2 = pa.array([False, False, True, None, True, True])
EMPTY = pa.array([], pa.int64())
ALL_NULL = pa.array([None, None], pa.float64())


@pytest.mark.parametrize("name", ["sum", "min", "max", "mean"])
@pytest.mark.parametrize(
    "data",
    [INTS, INT32, UINTS, F32, BOOLS, EMPTY, ALL_NULL, pa.array([2.0, 4.0, 1.0])],
    ids=["int64", "int32", "uint8", "float32", "bool", "empty", "all_null", "float64"],
)
def test_reductions(name, data):
    if name == "mean" and data.type == pa.bool_():
        pytest.skip("pyarrow mean of booleans is not in the ABI")
    expected = getattr(pc, name)(data)
    assert same(getattr(am, name)(data), expected)
    assert same(getattr(am, name)(am.array(data)), expected)


def test_reduction_result_types():
    """Results are pyarrow-like Scalars that are also the Python numbers."""
    assert isinstance(am.sum(INTS), int) and type(am.sum(INTS).as_py()) is int
    assert type(am.sum(FLOATS.filter(pc.is_valid(FLOATS))).as_py()) is float
    assert isinstance(am.mean(INTS), float) and am.mean(INTS).type == pa.float64()
    assert am.min(BOOLS).as_py() is False and am.max(BOOLS).as_py() is True
    assert am.min(BOOLS) == False and am.max(BOOLS) == True
    assert am.sum(INTS) + 1 == 22 and f"{am.sum(INTS)}" == "21"
    assert am.min(INT32).type == pa.int32() and am.sum(UINTS).type == pa.uint64()
    null = am.sum(pa.array([None], pa.int8()))
    assert not null.is_valid and null.as_py() is None and null == None
    assert null.type == pa.int64() and not null
    assert repr(am.sum(INTS)) == "<arrowmetal.Scalar int64: 21>"
    import pickle

    assert pickle.loads(pickle.dumps(am.sum(INTS))) == 21
    assert am.sum(pa.array([2**63 - 1, 1])) == -(2**63)  # wraps like pyarrow
    assert am.sum(pa.array([2**64 - 1, 2], pa.uint64())) == 1
    assert am.max(pa.array([2**64 - 1], pa.uint64())) == 2**64 - 1


def test_nan_handling():
    assert am.min(FLOATS) == pc.min(FLOATS).as_py()
    assert am.max(FLOATS) == pc.max(FLOATS).as_py()
    assert math.isnan(am.min(pa.array([float("nan")] * 3)))


@pytest.mark.parametrize("name", ["sum", "min", "max", "mean"])
@pytest.mark.parametrize(
    "kwargs", [{"skip_nulls": False}, {"min_count": 0}, {"min_count": 5}, {"min_count": 3}]
)
@pytest.mark.parametrize("data", [INTS, EMPTY, ALL_NULL, FLOATS], ids=["i", "e", "n", "f"])
def test_reduction_options(name, kwargs, data):
    expected = getattr(pc, name)(data, **kwargs)
    assert same(getattr(am, name)(data, **kwargs), expected)


@pytest.mark.parametrize("mode", ["only_valid", "only_null", "all"])
@pytest.mark.parametrize("data", [INTS, BOOLS, EMPTY, ALL_NULL])
def test_count(mode, data):
    assert am.count(data, mode) == pc.count(data, mode).as_py()
    assert am.count(am.array(data), mode=mode) == pc.count(data, mode=mode).as_py()


def test_count_bad_mode():
    with pytest.raises(ValueError, match="mode"):
        am.count(INTS, "some")


COMPARES = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


@pytest.mark.parametrize("name", COMPARES)
@pytest.mark.parametrize(
    "left,right",
    [
        (INTS, pa.array([3, 3, 3, None, 3, 12], pa.int64())),
        (INT32, INTS),  # mixed types: common type
        (FLOATS, pa.array([1.5, 0.0, -3.0, 9.0, float("nan"), 0.5])),
        (UINTS, INT32),
    ],
    ids=["int64", "int32-int64", "float-nan", "uint8-int32"],
)
def test_compare_arrays(name, left, right):
    expected = getattr(pc, name)(left, right)
    assert same(getattr(am, name)(left, right), expected)
    assert same(getattr(am, name)(am.array(left), am.array(right)), expected)


@pytest.mark.parametrize("name", COMPARES)
@pytest.mark.parametrize("scalar", [3, 2.5, -1])
def test_compare_scalars_both_sides(name, scalar):
    fn = getattr(am, name)
    assert same(fn(INTS, scalar), getattr(pc, name)(INTS, scalar))
    assert same(fn(scalar, INTS), getattr(pc, name)(scalar, INTS))
    a = am.array(INTS)
    assert same(fn(a, scalar), getattr(pc, name)(INTS, scalar))
    assert same(fn(scalar, a), getattr(pc, name)(scalar, INTS))


def test_compare_null_scalar():
    r = am.equal(INTS, None).to_pyarrow()
    assert r.type == pa.bool_() and r.null_count == len(INTS)


ARITH = ["add", "subtract", "multiply", "divide"]


@pytest.mark.parametrize("name", ARITH)
@pytest.mark.parametrize(
    "left,right",
    [
        (INTS, pa.array([1, 2, 3, 4, None, -5], pa.int64())),
        (INTS, INT32),
        (FLOATS, F32),
        (UINTS, pa.array([1, 1, 2, 2, 3, 3], pa.uint8())),
    ],
    ids=["int64", "int64-int32", "f64-f32", "uint8"],
)
def test_arith_arrays(name, left, right):
    expected = getattr(pc, name)(left, right)
    assert same(getattr(am, name)(left, right), expected)


@pytest.mark.parametrize("name", ARITH)
@pytest.mark.parametrize("scalar", [3, 2.5, -2])
@pytest.mark.parametrize("data", [INTS, INT32, F32], ids=["int64", "int32", "float32"])
def test_arith_scalars_both_sides(name, scalar, data):
    fn = getattr(am, name)
    if name == "divide" and isinstance(scalar, int):
        data = pc.if_else(pc.equal(data, 0), 1, data).cast(data.type)
    assert same(fn(data, scalar), getattr(pc, name)(data, scalar))
    assert same(fn(scalar, data), getattr(pc, name)(scalar, data))


def test_arith_null_scalar_and_wrap():
    r = am.add(INT32, None).to_pyarrow()
    assert r.type == pa.int32() and r.null_count == len(INT32)
    big = pa.array([2**63 - 1], pa.int64())
    assert am.add(big, 1).to_pylist() == pc.add(big, 1).to_pylist()
    assert am.divide(pa.array([7, -7]), pa.array([2, 2])).to_pylist() == [3, -3]
    assert am.divide(pa.array([-(2**63)]), -1).to_pylist() == [0]


def test_scalar_scalar():
    # pyarrow gives Scalars; numbers and booleans come as the reductions'
    # results (the Python value that is also a Scalar), other types as
    # pyarrow's own Scalar of the exact type
    for got, want in (
        (am.add(1, 2), pc.add(1, 2)),
        (am.less(1, 2.5), pc.less(1, 2.5)),
        (am.and_(True, False), pc.and_(True, False)),
        (am.add(pa.scalar(1, pa.int8()), pa.scalar(2, pa.int8())),
         pc.add(pa.scalar(1, pa.int8()), pa.scalar(2, pa.int8()))),
        (am.negate(pa.scalar(3.5)), pc.negate(pa.scalar(3.5))),
        (am.is_null(pa.scalar(None, pa.int64())), pc.is_null(pa.scalar(None, pa.int64()))),
        (am.round(pa.scalar(1.26), 1), pc.round(pa.scalar(1.26), 1)),
    ):  # fmt: skip
        assert got.as_py() == want.as_py() and got.type == want.type and got.is_valid
        assert got == want.as_py()
    null = am.add(pa.scalar(None, pa.int64()), 2)
    assert not null.is_valid and null.as_py() is None and null.type == pa.int64()
    ts = pa.scalar(1_577_836_800, pa.timestamp("s", tz="Asia/Tokyo"))
    d = pa.scalar(10, pa.duration("s"))
    for got, want in (
        (am.add(ts, d), pc.add(ts, d)),
        (am.subtract(ts, ts), pc.subtract(ts, ts)),
        (am.multiply(d, 3), pc.multiply(d, 3)),
        (am.negate(d), pc.negate(d)),
    ):
        assert got == want and got.type == want.type


@pytest.mark.parametrize("name", ["sum", "count", "min_max", "first_last", "quantile", "tdigest",
                                  "array_sort_indices", "variance", "approximate_median"])  # fmt: skip
def test_array_functions_of_a_scalar_run_as_pyarrow(name):
    # pyarrow takes a scalar as an array of one slot: such calls run there, counted
    before = am.fallbacks().get(name, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        for v in (pa.scalar(3), pa.scalar(2.5), pa.scalar(None, pa.int64())):
            got, want = getattr(am, name)(v), getattr(pc, name)(v)
            assert got.equals(want) if hasattr(want, "equals") else got == want
    assert am.fallbacks()[name] == before + 3


def test_int_scalar_ranges():
    u = pa.array([1, 2], pa.uint64())
    assert am.add(u, 2**63).to_pylist() == [2**63 + 1, 2**63 + 2]
    with pytest.raises(OverflowError):
        am.add(INTS, 2**64)
    with pytest.raises(OverflowError):
        am.less(INTS, -(2**63) - 1)


@pytest.mark.parametrize("name", ["and_", "or_"])
def test_logic(name):
    fn = getattr(am, name)
    assert same(fn(BOOLS, BOOLS2), getattr(pc, name)(BOOLS, BOOLS2))
    for scalar in (True, False):
        expected = getattr(pc, name)(BOOLS, scalar)
        assert same(fn(BOOLS, scalar), expected)
        assert same(fn(scalar, BOOLS), expected)
    r = fn(BOOLS, None).to_pyarrow()
    assert r.null_count == len(BOOLS)


def test_invert():
    assert same(am.invert(BOOLS), pc.invert(BOOLS))
    assert same(am.invert(am.array(BOOLS2)), pc.invert(BOOLS2))


@pytest.mark.parametrize("data", [INTS, FLOATS, BOOLS2, UINTS], ids=["i", "f", "b", "u"])
def test_filter(data):
    expected = pc.filter(data, BOOLS)
    assert same(am.filter(data, BOOLS), expected)
    assert same(am.filter(am.array(data), am.array(BOOLS)), expected)
    assert same(am.array(data).filter(BOOLS), expected)


def test_filter_emit_null():
    mask = pa.array([True, None, False] * (len(INTS) // 3) + [None] * (len(INTS) % 3))
    expected = pc.filter(INTS, mask, "emit_null").to_pylist()
    assert am.filter(INTS, mask, "emit_null").to_pylist() == expected
    assert am.filter(am.array(INTS), am.array(mask), "emit_null").to_pylist() == expected
    with pytest.raises(ValueError, match="null_selection_behavior"):
        am.filter(INTS, mask, "keep")


@pytest.mark.parametrize(
    "indices",
    [
        pa.array([5, 0, None, 2, 2], pa.int64()),
        pa.array([1, 1, 0], pa.int32()),
        pa.array([], pa.int64()),
    ],
    ids=["int64", "int32", "empty"],
)
@pytest.mark.parametrize("data", [INTS, FLOATS, BOOLS], ids=["i", "f", "b"])
def test_take(data, indices):
    expected = pc.take(data, indices)
    assert same(am.take(data, indices), expected)
    assert same(am.take(am.array(data), am.array(indices)), expected)


@pytest.mark.parametrize(
    "target,patype",
    [
        ("int32", pa.int32()),
        ("float64", pa.float64()),
        ("double", pa.float64()),
        ("float", pa.float32()),
        (pa.int16(), pa.int16()),
        ("bool", pa.bool_()),
    ],
)
def test_cast(target, patype):
    data = pa.array([1, 0, None, 100, -3], pa.int64())
    expected = pc.cast(data, patype)
    assert same(am.cast(data, target), expected)
    assert same(am.array(data).cast(target), expected)


def test_cast_numpy_dtype_and_safety():
    np = pytest.importorskip("numpy")
    assert am.cast(INTS, np.dtype("float32")).type == "float32"
    assert am.cast(INTS, np.int16).type == "int16"
    big = pa.array([1000, 1], pa.int64())
    with pytest.raises(OverflowError):
        am.cast(big, "int8")
    assert (
        am.cast(big, "int8", safe=False).to_pylist()
        == pc.cast(big, pa.int8(), safe=False).to_pylist()
    )
    with pytest.raises(OverflowError):
        am.cast(pa.array([1.5]), "int64")
    assert am.cast(pa.array([1.5, -2.7]), "int64", safe=False).to_pylist() == [1, -2]
    with pytest.raises(ValueError):
        am.cast(INTS)
    with warnings.catch_warnings():  # pyarrow runs it (test_fallback.py)
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        assert am.cast(INTS, "string").equals(pc.cast(INTS, "string"))
    with pytest.raises(TypeError):
        am.cast(INTS, "no-such-type")


def test_device_keyword_and_memory_pool_are_accepted():
    assert am.sum(INTS, device="cpu", memory_pool=None) == pc.sum(INTS).as_py()
    assert am.add(INTS, 1, device="cpu").device == "cpu"


@pytest.mark.parametrize("n", [200, 9_000_003])
@pytest.mark.parametrize("offsets", [(0, 0), (8, 16), (64, 0), (3, 8), (8, 5)])
def test_boolean_logic_at_every_alignment_and_on_the_pool(n, offsets):
    # Operands starting on a byte take the vectorized byte loop; large ones
    # are split over the worker pool.
    rng = np.random.default_rng(n + offsets[0])
    x = pa.array(rng.random(n + 64) < 0.5, mask=rng.random(n + 64) < 0.1).slice(offsets[0], n)
    y = pa.array(rng.random(n + 64) < 0.5).slice(offsets[1], n)
    for ours, theirs in [
        (am.and_(x, y), pc.and_(x, y)),
        (am.or_(x, y), pc.or_(x, y)),
        (am.invert(y), pc.invert(y)),
        (am.equal(x, y), pc.equal(x, y)),
        (am.less(x, y), pc.less(x, y)),
        (am.cast(y, "bool"), y),
    ]:
        assert pa.array(ours).equals(theirs)
