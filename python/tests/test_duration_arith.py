"""multiply / divide / multiply_checked / divide_checked with durations, and abs, negate,
sign and their checked variants of durations, against pyarrow.compute, in the library
(abi/duration_arith.c, abi/unary.c): every pair of the temporal types, the integer types,
float64 and bool with a temporal side, array-array and array-scalar, the result's type and
values or pyarrow's error; then the edges: wrapping and "overflow", MIN / -1, zero
divisors in valid and null slots, a uint64 past int64, null scalars, the ratio's unit cast
past int64, its infinities and NaN. Nothing pyarrow computes falls back."""

import itertools
import math
import warnings

import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

OPS = ["multiply", "multiply_checked", "divide", "divide_checked"]
UNITS = ("s", "ms", "us", "ns")
INTS = [pa.int8(), pa.int16(), pa.int32(), pa.int64()] + [
    pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()
]  # fmt: skip
TEMPORAL = [pa.timestamp(u) for u in UNITS] + [
    pa.timestamp("s", "UTC"),
    pa.date32(),
    pa.date64(),
    pa.time32("s"),
    pa.time64("ns"),
] + [pa.duration(u) for u in UNITS]  # fmt: skip
TYPES = TEMPORAL + INTS + [pa.float64(), pa.bool_()]
M, MIN = 2**63 - 1, -(2**63)
CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]


def values(t, k):
    """Three slots of type t, the middle one null, none of them zero."""
    if t == pa.bool_():
        return pa.array([True, None, True])
    if pa.types.is_floating(t):
        return pa.array([1.5, None, -2.0], t)
    if pa.types.is_unsigned_integer(t):
        return pa.array([k + 1, None, 3], t)
    if pa.types.is_integer(t):
        return pa.array([k + 1, None, -k - 2], t)
    if pa.types.is_date64(t):
        return pa.array([86_400_000 * (k + 1), None, 86_400_000], pa.int64()).cast(t)
    storage = pa.int32() if t.bit_width == 32 else pa.int64()
    return pa.array([k + 5, None, -k - 7], storage).cast(t)


def same_values(a, b):
    return len(a) == len(b) and all(
        x == y
        or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))
        for x, y in zip(a, b)
    )


def outcome(fn, *args):
    """("ok", type, storage values) or ("error", pyarrow's class of the error)."""
    try:
        r = fn(*args)
    except Exception as e:  # noqa: BLE001 - compared with pyarrow's outcome
        for c in (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            if isinstance(e, c):  # a missing kernel: TypeError in both
                return ("error", "no kernel" if c is not pa.ArrowInvalid else c.__name__)
        return ("error", type(e).__name__)
    r = r.to_pyarrow() if isinstance(r, am.Array) else r
    storage = r.cast(pa.int64()) if pa.types.is_duration(r.type) else r
    return ("ok", r.type, storage.to_pylist())


def same(got, want):
    if got[0] != want[0] or got[:2] != want[:2]:
        return False
    return got[0] == "error" or same_values(got[2], want[2])


def quiet_outcome(fn, *args):
    """outcome(), and whether the call fell back to pyarrow."""
    before = sum(am.fallbacks().values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        got = outcome(fn, *args)
    return got, sum(am.fallbacks().values()) > before


@pytest.mark.parametrize("op", OPS)
def test_every_pair_as_pyarrow(op):
    accepted = 0
    for a, b in itertools.product(TYPES, TYPES):
        if not (pa.types.is_temporal(a) or pa.types.is_temporal(b)):
            continue
        x, y = values(a, 1), values(b, 2)
        for right in (y, y[0], y[1]):
            got, fell_back = quiet_outcome(getattr(am, op), x, right)
            want = outcome(getattr(pc, op), x, right)
            assert same(got, want), (op, a, b, right, got, want)
            if want[0] == "ok":
                accepted += 1
                assert not fell_back, (op, a, b, right, "fell back")
    # duration x 8 integer types both ways (multiply) or one way (divide), and for divide
    # the 16 pairs of durations, each with an array, a scalar and a null scalar
    assert accepted == (4 * 8 * 2 * 3 if "multiply" in op else (4 * 8 + 16) * 3)


def test_result_types():
    d = pa.array([6, None], pa.duration("ms"))
    for t in INTS:
        n = pa.array([2, 3], t)
        assert am.multiply(d, n).type == pa.duration("ms")
        assert am.multiply(n, d).type == pa.duration("ms")
        assert am.divide_checked(d, n).type == pa.duration("ms")
    r = am.divide(d, pa.array([4, 1], pa.duration("s")))
    assert r.type == pa.float64()
    assert r.to_pylist() == [0.0015, None]


@pytest.mark.parametrize("op", OPS)
def test_edges_as_pyarrow(op):
    d = lambda v, u="s": pa.array(v, pa.duration(u))
    pairs = [
        (d([M, 3, None, MIN, MIN, -7]), pa.array([2, 3, 4, -1, 1, 2], pa.int64())),
        (pa.array([2, 3, 4, -1, 1, 2], pa.int8()), d([M, 3, None, MIN, MIN, -7], "ns")),
        (d([5, 3, None]), pa.array([0, 1, 0], pa.int64())),
        (d([5, None]), pa.array([2, 0], pa.uint8())),
        (d([1, 2]), pa.array([2**63, 1], pa.uint64())),
        (d([1, None]), pa.array([1, 2**63], pa.uint64())),
        (d([1, 2]), pa.scalar(2**63, pa.uint64())),
        (d([1, 2]), pa.scalar(None, pa.int16())),
        (d([1, 2]), pa.scalar(0, pa.int8())),
        (d([7, 1, 0, 0, None, -3]), d([2, 0, 0, 5, 1, 0], "ms")),
        (d([7, 1]), pa.scalar(0, pa.duration("ms"))),
        (d([1, 2]), pa.scalar(None, pa.duration("ns"))),
        (d([M, 1]), d([1, 1], "ms")),
        (d([M, None]), d([1, 1], "ms")),
        (d([1, 1], "ms"), pa.scalar(M, pa.duration("s"))),
        (d([M, MIN, 2**53 + 1], "ns"), d([3, 7, 1], "ns")),
        (d([], "us"), pa.array([], pa.uint32())),
    ]
    for x, y in pairs:
        for a, b in ((x, y), (y, x)):
            if not isinstance(a, pa.Array):
                continue
            got, fell_back = quiet_outcome(getattr(am, op), a, b)
            want = outcome(getattr(pc, op), a, b)
            assert same(got, want), (op, a, b, got, want)
            assert want[0] != "ok" or not fell_back, (op, a, b)


def test_wrapping_and_checked_overflow():
    d = pa.array([M, MIN, 5], pa.duration("us"))
    n = pa.array([2, -1, -1], pa.int64())
    assert am.multiply(d, n).cast(pa.int64()).to_pylist() == [-2, MIN, -5]
    assert am.divide(d, n).cast(pa.int64()).to_pylist() == [M // 2, 0, -5]
    with pytest.raises(OverflowError):
        am.multiply_checked(d, n)
    with pytest.raises(OverflowError):
        am.divide_checked(d.slice(1), n.slice(1))
    with pytest.raises(ZeroDivisionError):
        am.divide(d, pa.array([1, 0, 1], pa.int8()))
    with pytest.raises(pa.ArrowInvalid, match="not in range"):
        am.multiply(d, pa.array([1, 2**63, 1], pa.uint64()))


def test_scalar_left_and_python_numbers():
    d = pa.array([4, None, -6], pa.duration("ns"))
    assert outcome(am.multiply, pa.scalar(3, pa.int8()), d) == outcome(
        pc.multiply, pa.scalar(3, pa.int8()), d
    )
    assert outcome(am.multiply, d, 5) == outcome(pc.multiply, d, 5)
    assert outcome(am.divide, d, -2) == outcome(pc.divide, d, -2)
    got, _ = quiet_outcome(am.divide, pa.scalar(3, pa.int8()), d)
    assert got == outcome(pc.divide, pa.scalar(3, pa.int8()), d) == ("error", "no kernel")
    got, _ = quiet_outcome(am.multiply, d, 2.5)
    assert got == outcome(pc.multiply, d, 2.5) == ("error", "no kernel")


UNARY = ["abs", "abs_checked", "negate", "negate_checked", "sign"]


@pytest.mark.parametrize("op", UNARY)
def test_unary_of_durations(op):
    """pyarrow 26's kernels: a duration of the unit (sign: int8); negate_checked of the
    smallest value is that value (pyarrow's duration kernel is the unchecked one),
    abs_checked refuses it."""
    for u in UNITS:
        full = pa.array([MIN, -5, 0, 7, None, M], pa.duration(u))
        for a in (full, full.slice(1, 4), full.slice(0, 0)):
            got, fell_back = quiet_outcome(getattr(am, op), a)
            assert got == outcome(getattr(pc, op), a), (op, u, a)
            assert not fell_back
    r = getattr(am, op)(pa.array([-3, None], pa.duration("ms")))
    assert r.type == (pa.int8() if op == "sign" else pa.duration("ms"))


def test_unary_refusals_as_pyarrow():
    a = pa.array([1, None], pa.duration("s"))
    for op in ("sqrt", "exp", "bit_wise_not", "floor", "ln_checked"):
        got, _ = quiet_outcome(getattr(am, op), a)
        assert got == outcome(getattr(pc, op), a) == ("error", "no kernel")


def test_chunked():
    x = pa.chunked_array([values(pa.duration("us"), 1), values(pa.duration("us"), 4)])
    y = pa.chunked_array([values(pa.int32(), 2), values(pa.int32(), 3)])
    assert am.multiply(x, y).equals(pc.multiply(x, y))
    assert am.divide(x, y).equals(pc.divide(x, y))
    assert am.negate(x).equals(pc.negate(x))


@pytest.mark.skipif(not CUDA, reason="no CUDA device")
def test_gpu_arrays():
    x, y = values(pa.duration("ms"), 1), values(pa.int16(), 2)
    r = am.multiply(am.array(x, device="cuda"), am.array(y, device="cuda"))
    assert r.backend == "cuda"
    assert r.to_pyarrow().equals(pc.multiply(x, y))
    z = values(pa.duration("s"), 3)
    r = am.divide(am.array(x, device="cuda"), am.array(z, device="cuda"))
    assert r.backend == "cuda"
    assert r.to_pyarrow().equals(pc.divide(x, z))
    r = am.abs(am.array(x, device="cuda"))
    assert r.backend == "cuda"
    assert r.to_pyarrow().equals(pc.abs(x))
