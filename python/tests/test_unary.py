"""The table-driven functions of one array (am_unary: negate, abs, ...): made from the C
library's own list, they match pyarrow.compute on every numeric type, take every kind of
input, and refuse what pyarrow refuses."""

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal import ffi, lib

NUMERIC = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
NUMERIC += ["float32", "float64"]


def unary_names():
    info = ffi.new("am_function_info *")
    names = []
    for i in range(lib.am_function_count()):
        assert lib.am_function_info_get(i, info) == 0
        if info.family == lib.AM_FAMILY_UNARY:
            names.append(ffi.string(info.name).decode())
    return names


def test_every_unary_row_of_the_library_is_a_function():
    names = unary_names()
    assert {"negate", "abs"} <= set(names)
    for name in names:
        assert callable(getattr(am, name)) and name in am.__all__
        assert getattr(am, name).__name__ == name


def edge_values(t):
    if t.startswith("float"):
        return [-0.0, 0.0, float("-inf"), float("inf"), float("nan"), -1.5, 1.5, None]
    info = np.iinfo(t)
    return [int(info.min), int(info.min) + 1, 0, 1, int(info.max), None]


def same(got, want):
    assert got.type == want.type
    for g, w in zip(got.to_pylist(), want.to_pylist()):
        if isinstance(w, float) and math.isnan(w):
            assert math.isnan(g)
        else:
            assert g == w
            if isinstance(w, float):
                assert np.signbit(g) == np.signbit(w)


@pytest.mark.parametrize("name", ["negate", "abs"])
@pytest.mark.parametrize("t", NUMERIC)
def test_matches_pyarrow_on_edges_slices_and_nulls(name, t):
    data = pa.array(edge_values(t) * 3, type=getattr(pa, t)())
    fn = getattr(am, name)
    for arr in (data, data.slice(3), data.slice(5, 7)):
        want = getattr(pc, name)(arr)
        same(fn(arr).to_pyarrow(), want)  # a pyarrow input
        same(fn(am.array(arr)).to_pyarrow(), want)  # an am.Array


def test_operators_numpy_and_scalars():
    x = am.array(np.array([-1.5, 2.0, -0.0]))
    assert (-x).to_pylist() == [1.5, -2.0, 0.0]
    assert abs(x).to_pylist() == [1.5, 2.0, 0.0]
    assert am.negate(np.array([1, -2], dtype=np.int16)).to_pylist() == [-1, 2]
    assert am.abs(-3) == 3 and am.negate(2.5) == -2.5 and am.negate(None).as_py() is None
    assert am.negate(pa.scalar(7, pa.int8())) == -7


@pytest.mark.parametrize("name", ["negate", "abs"])
def test_booleans_are_refused_as_pyarrow_refuses_them(name):
    with pytest.raises(pa.ArrowNotImplementedError):
        getattr(pc, name)(pa.array([True]))
    with pytest.raises(am.ArrowMetalTypeError, match=f"function '{name}' has no kernel") as e:
        getattr(am, name)(pa.array([True]))
    assert isinstance(e.value, TypeError)


def test_inside_a_batch():
    a = am.array(pa.array([1, None, -3], pa.int32()))
    with am.batch():
        r = am.abs(am.negate(a))
    assert r.to_pylist() == [1, None, 3]


def test_checks_over_the_worker_pool_report_the_first_refused_slot():
    n = 1 << 22
    values = [4.0] * n
    values[n - 10] = -1.0
    values[(1 << 20) + 5] = -2.0
    with pytest.raises(am.ArrowMetalInvalid, match=f"value -2 at slot {(1 << 20) + 5}"):
        am.sqrt_checked(pa.array(values))


def test_large_outputs_stream_and_keep_their_checks():
    # 9M float64 / int64 slots: past AM_STREAM_MIN (blocks through L1,
    # streamed out), with nulls and an odd offset; the first refusal of a
    # valid slot wins
    n = 9_000_001
    rng = np.random.default_rng(6)
    values = rng.uniform(0.0, 4.0, n)
    mask = rng.random(n) < 0.05
    x = pa.array(values, mask=mask)[3:]
    ints = pa.array(rng.integers(-(10**9), 10**9, n), mask=mask)[3:]
    for name, arr in [("sqrt_checked", x), ("floor", x), ("abs_checked", ints), ("negate", ints)]:
        assert getattr(am, name)(arr).to_pyarrow().equals(getattr(pc, name)(arr)), name
    values[[n - 5, 2_000_000]] = -1.0
    with pytest.raises(am.ArrowMetalInvalid, match="at slot 2000000"):
        am.sqrt_checked(pa.array(values))
    masked = pa.array(values, mask=np.arange(n) == 2_000_000)
    with pytest.raises(am.ArrowMetalInvalid, match=f"at slot {n - 5}"):
        am.sqrt_checked(masked)
