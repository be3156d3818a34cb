"""The am_binary family from Python (its values are the conformance suite's
job): scalars on either side, ChunkedArrays, the operators ** and //, and the
errors of the checked functions."""

import math

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am

INT = pa.array([7, -7, 7, -7, None, 6, 0], pa.int32())
DIV = pa.array([2, 2, -2, -2, 1, 3, 5], pa.int32())


def same(got, want):
    """Equal, or for floats within the conformance cases' 4 ULPs: the CPU's
    float power and atan2 run through a vector math library, pyarrow's through
    scalar libm (libarrowmetal/cpu/vector_math.h)."""
    if isinstance(want, float) and isinstance(got, float) and math.isfinite(want):
        return abs(got - want) <= 4 * math.ulp(want)
    return got == want


@pytest.mark.parametrize("name", ["power", "atan2", "bit_wise_xor", "shift_left", "add_checked"])
def test_scalar_on_either_side_matches_pyarrow(name):
    fn = getattr(am, name)
    right = pc.abs(DIV) if name == "power" else DIV  # no negative integer exponents
    left = pc.abs(INT) if name == "power" else INT
    for x, y in ((left, 3), (3, left), (left, right)):
        want = getattr(pc, name)(x, y)
        got = fn(x, y)
        g, w = got.to_pylist(), want.to_pylist()
        assert len(g) == len(w) and all(same(a, b) for a, b in zip(g, w)), (g, w)
        assert got.type == str(want.type).replace("double", "float64")


def test_chunked_input_keeps_its_chunks():
    chunked = pa.chunked_array([INT[:3], INT[3:]])
    got = am.power(chunked, 2)
    assert isinstance(got, pa.ChunkedArray)
    assert [len(c) for c in got.chunks] == [3, 4]
    assert got.to_pylist() == pc.power(chunked, 2).to_pylist()


def test_floor_division_operator_floors_like_python():
    x, y = am.array(INT), am.array(DIV)
    want = [a // b if a is not None else None for a, b in zip(INT.to_pylist(), DIV.to_pylist())]
    assert (x // y).to_pylist() == want
    floats = am.array([7.5, -7.5, 1.0])
    assert (floats // 2).to_pylist() == [3.0, -4.0, 0.0]
    with pytest.raises(am.ArrowMetalZeroDivisionError):
        x // 0


def test_power_operator_both_ways():
    x = am.array(pa.array([1, 2, 3], pa.int64()))
    assert (x**2).to_pylist() == [1, 4, 9]
    assert (2**x).to_pylist() == [2, 4, 8]


def test_checked_functions_raise_pyarrows_errors_and_name_the_slot():
    with pytest.raises(am.ArrowMetalOverflowError, match="at slot 1"):
        am.add_checked(pa.array([1, 127], pa.int8()), pa.array([1, 1], pa.int8()))
    with pytest.raises(am.ArrowMetalInvalid, match="negative integer powers"):
        am.power(pa.array([2], pa.int8()), pa.array([-1], pa.int8()))
    with pytest.raises(am.ArrowMetalInvalid, match="shift amount"):
        am.shift_left_checked(pa.array([1], pa.int8()), pa.array([7], pa.int8()))
    # Two kinds of failure: the last refused slot decides, as in pyarrow.
    with pytest.raises(am.ArrowMetalZeroDivisionError):
        am.divide_checked(pa.array([-128, 1], pa.int8()), pa.array([-1, 0], pa.int8()))
    with pytest.raises(am.ArrowMetalOverflowError):
        am.divide_checked(pa.array([1, -128], pa.int8()), pa.array([0, -1], pa.int8()))
    # A null slot is never refused.
    got = am.divide_checked(pa.array([1, None], pa.int8()), pa.array([1, 0], pa.int8()))
    assert got.to_pylist() == [1, None]


def test_refused_types_are_a_type_error_naming_the_function():
    # pyarrow has no kernel either (ArrowNotImplementedError, a TypeError too).
    with pytest.raises(am.ArrowMetalTypeError, match="bit_wise_and.*double"):
        am.bit_wise_and(pa.array([1.5]), pa.array([2.5]))


def test_checks_over_the_worker_pool_report_the_last_refused_slot():
    # 4M slots: the check runs in parts; the last refusal is in a later part
    # than the first, and is of the other kind.
    n = 1 << 22
    x = pa.array([5] * n, pa.int8())
    y = [1] * n
    y[1000] = 0  # divide by zero, early
    y[n - 3] = -1  # MIN / -1, late
    xs = x.to_pylist()
    xs[n - 3] = -128
    with pytest.raises(am.ArrowMetalOverflowError, match=f"at slot {n - 3}"):
        am.divide_checked(pa.array(xs, pa.int8()), pa.array(y, pa.int8()))
    y[n - 3] = 1
    with pytest.raises(am.ArrowMetalZeroDivisionError, match="at slot 1000"):
        am.divide_checked(pa.array(xs, pa.int8()), pa.array(y, pa.int8()))


def test_large_outputs_stream_and_keep_their_checks():
    # 9M int64 slots: 72 MB of output, past AM_STREAM_MIN (blocks through L1,
    # streamed out), with nulls and an odd offset; each block is checked
    # before it is computed, and the last refusal (in a null slot's
    # neighbour, the nulls' own ignored) wins
    np = pytest.importorskip("numpy")
    n = 9_000_001
    rng = np.random.default_rng(5)
    xs = rng.integers(-(10**6), 10**6, n)
    ys = rng.integers(1, 1000, n)
    mask = rng.random(n) < 0.05
    x, y = pa.array(xs, mask=mask)[3:], pa.array(ys)[3:]
    for name in ["add_checked", "multiply_checked", "divide_checked", "shift_left", "power"]:
        right = pa.array(ys % 8)[3:] if name in ("shift_left", "power") else y
        got = getattr(am, name)(x, right)
        assert got.to_pyarrow().equals(getattr(pc, name)(x, right)), name
    big = xs.copy()
    big[[1000, n - 10]] = 2**62
    with pytest.raises(am.ArrowMetalOverflowError, match=f"at slot {n - 10}"):
        am.add_checked(pa.array(big), pa.array(big))
    masked = pa.array(big, mask=np.arange(n) == n - 10)
    with pytest.raises(am.ArrowMetalOverflowError, match="at slot 1000"):
        am.add_checked(masked, masked)


@pytest.mark.parametrize("t", ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"])
def test_integer_divide_checked_through_doubles_is_exact(t):
    # cpu/binary.c divides integers as doubles where that is exact (|x| <
    # 2^53; 64-bit calls with a larger x take the integer loop): quotients
    # just below an integer, divisors past 2^53, both signs, a scalar divisor
    # and MIN / -1 under a null come out as pyarrow's
    np = pytest.importorskip("numpy")
    info = np.iinfo(t)
    rng = np.random.default_rng(8)
    lo, hi = max(int(info.min), -(2**53) + 1), min(int(info.max), 2**53 - 1)
    pairs = [
        (int(v), int(d))
        for v, d in zip(rng.integers(lo, hi, 5000), rng.integers(1, min(1000, hi), 5000))
    ]
    pairs += [
        (int(v), int(d)) for v, d in zip(rng.integers(lo, hi, 5000), rng.integers(lo, hi, 5000))
    ]
    pairs += [(hi, 3), (hi - 1, 7), (hi, 2), (lo, 7), (hi, hi), (hi - 1, hi), (1, hi)]
    if info.min < 0:
        pairs += [(lo, -3), (-7, 2), (7, -2), (lo, lo), (hi, -1)]
    if info.max > 2**54:
        pairs += [(hi, 2**54 + 1), (hi, int(info.max))]
    for with_max in (False, True):
        if with_max:
            pairs.append((int(info.max), 7))  # 64-bit: past 2^53, the integer loop
        x = pa.array([p[0] for p in pairs if p[1] != 0], t)
        y = pa.array([p[1] for p in pairs if p[1] != 0], t)
        assert am.divide_checked(x, y).to_pyarrow().equals(pc.divide_checked(x, y))
        three = pa.scalar(3, t)
        assert am.divide_checked(x, three).to_pyarrow().equals(pc.divide_checked(x, three))
    if info.min < 0:
        x = pa.array([5, int(info.min), 9], t, mask=np.array([False, True, False]))
        y = pa.array([2, -1, -4], t)
        assert am.divide_checked(x, y).to_pyarrow().equals(pc.divide_checked(x, y))
