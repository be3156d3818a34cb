"""add / subtract / add_checked / subtract_checked of temporal pairs against
pyarrow.compute, in the library (abi/temporal_arith.c, abi/time_arith.c): every
pair of the temporal types (each timestamp unit, zoned ones, dates, times,
durations) and int64, array-array and array-scalar, the result's type and values or
pyarrow's error; then the edges pyarrow has: time +- duration refused outside the day
(the last failing slot named, a null slot's value read too), time32's 32-bit wrap of
the duration, "overflow" of the checked variants, a date beyond timestamp[ns].
Nothing falls back except, at times, a scalar with a time zone (pyarrow's scalars carry
one the C scalar has not)."""

import itertools
import warnings

import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

OPS = ["add", "subtract", "add_checked", "subtract_checked"]
TYPES = [pa.timestamp(u) for u in ("s", "ms", "us", "ns")] + [
    pa.timestamp("s", "UTC"),
    pa.timestamp("ms", "America/New_York"),
    pa.date32(),
    pa.date64(),
    pa.time32("s"),
    pa.time32("ms"),
    pa.time64("us"),
    pa.time64("ns"),
] + [pa.duration(u) for u in ("s", "ms", "us", "ns")] + [pa.int64()]  # fmt: skip
PER = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}
CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]


def values(t, k):
    """Three slots of type t (the middle one null): times near noon, whole days for
    date64, small durations, so that the sums stay in range."""
    if pa.types.is_time(t):
        day = 86400 * PER[t.unit]
        vals = [day // 2 + 7 * k, None, day // 3 + k]
    elif pa.types.is_date64(t):
        vals = [86_400_000 * (k + 3), None, -86_400_000 * k]
    elif pa.types.is_duration(t):
        vals = [k + 1, None, -k - 2]
    else:
        vals = [1000 + k, None, -50 * k]
    storage = pa.int32() if t.bit_width == 32 else pa.int64()
    return pa.array(vals, storage).cast(t)


def outcome(fn, *args):
    try:
        r = fn(*args)
        r = r.to_pyarrow() if isinstance(r, am.Array) else r
        return ("ok", r.type, r.to_pylist())
    except Exception as e:  # noqa: BLE001 - compared with pyarrow's outcome
        for c in (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            if isinstance(e, c):  # a missing kernel: TypeError in both
                return ("no kernel" if c is not pa.ArrowInvalid else c.__name__,)
        return (type(e).__name__,)


@pytest.mark.parametrize("op", OPS)
def test_every_pair_as_pyarrow(op):
    accepted = 0
    for a, b in itertools.product(TYPES, TYPES):
        x, y = values(a, 1), values(b, 2)
        for right in (y, y[0]):
            zoned_scalar = not isinstance(right, pa.Array) and getattr(b, "tz", None)
            before = sum(am.fallbacks().values())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
                got = outcome(getattr(am, op), x, right)
            want = outcome(getattr(pc, op), x, right)
            assert got == want, (op, a, b, right)
            if want[0] == "ok":
                accepted += 1
                fell_back = sum(am.fallbacks().values()) > before
                assert zoned_scalar or not fell_back, (op, a, b, "fell back")
    assert accepted > 150


def test_the_new_pairs_and_their_types():
    """The pairs pyarrow 26 takes that the library refused before: their result types."""
    d = pa.array([1, None], pa.duration("ms"))
    cases = [
        (pc.add, pa.array([1, 2], pa.date32()), d, pa.timestamp("ms")),
        (pc.add, d, pa.array([1, 2], pa.date32()), pa.timestamp("ms")),
        (pc.subtract, pa.array([86_400_000, 0], pa.date64()), d, pa.timestamp("ms")),
        (pc.subtract, pa.array([1, 2], pa.timestamp("us")), pa.array([1, 2], pa.date32()),
         pa.duration("us")),
        (pc.subtract, pa.array([1, 2], pa.date32()), pa.array([1, 2], pa.timestamp("s")),
         pa.duration("s")),
        (pc.add, pa.array([1000, 2000], pa.time32("s")), d, pa.time32("ms")),
        (pc.add, pa.array([1000, 2000], pa.time32("s")), pa.array([1, 2], pa.duration("us")),
         pa.time64("us")),
        (pc.subtract, pa.array([10**9, 0], pa.time64("ns")), pa.array([1, None], pa.duration("s")),
         None),  # 0 - 1 s: refused
    ]  # fmt: skip
    for fn, x, y, t in cases:
        got = outcome(getattr(am, fn.__name__), x, y)
        assert got == outcome(fn, x, y)
        if t is not None:
            assert got[1] == t


def test_time_range_refusals_name_the_last_slot():
    t = pa.array([86399, 0, 5, 7], pa.time32("s"))
    d = pa.array([10, -10, 1, -20], pa.duration("s"))
    for op in OPS:
        with pytest.raises(pa.ArrowInvalid) as theirs:
            getattr(pc, op)(t, d) if "add" in op else getattr(pc, op)(t, pc.negate(d))
        with pytest.raises(pa.ArrowInvalid) as ours:
            getattr(am, op)(t, d) if "add" in op else getattr(am, op)(t, pc.negate(d))
        assert str(ours.value).endswith(str(theirs.value)), (op, ours.value, theirs.value)
        assert "-13 is not within the acceptable range of [0, 86400) s" in str(ours.value)


def test_null_slots_are_read_as_pyarrow_reads_them():
    """pyarrow adds every slot: a null time (stored 0) minus a valid duration fails."""
    t = pa.array([None, 5], pa.time32("s"))
    d = pa.array([3, 1], pa.duration("s"))
    for op in ("subtract", "subtract_checked"):
        assert outcome(getattr(am, op), t, d) == outcome(getattr(pc, op), t, d)
        assert outcome(getattr(am, op), t, d)[0] == "ArrowInvalid"
    # the duration's null slot is 0: in range
    t = pa.array([5, 6], pa.time32("s"))
    d = pa.array([None, 1], pa.duration("s"))
    assert outcome(am.subtract, t, d) == outcome(pc.subtract, t, d)


@pytest.mark.parametrize("op", OPS)
def test_wraps_and_overflows(op):
    big = [2**62, -(2**62), 2**63 - 1, -(2**63), 2**32, -(2**32) + 3, None]
    pairs = [
        (pa.array([3] * 7, pa.time32("s")), pa.array(big, pa.duration("s"))),
        (pa.array([3] * 7, pa.time32("ms")), pa.array([2**32, 0, 1, 2, 3, 4, None],
                                                      pa.duration("s"))),
        (pa.array([3] * 7, pa.time64("ns")), pa.array(big, pa.duration("ns"))),
        (pa.array([2**31 - 1, -(2**31), 0, None], pa.date32()),
         pa.array([2**63 - 1, -(2**63), 1, 1], pa.duration("s"))),
        (pa.array([0, 2**31 - 1, None], pa.date32()), pa.array([1, 1, 1], pa.duration("ns"))),
        (pa.array([86_400_000 * 106751991167, 0, None], pa.date64()),
         pa.array([2**63 - 1, -(2**63), 1], pa.duration("ms"))),
    ]  # fmt: skip
    for x, y in pairs:
        for i in range(len(x)):
            xs, ys = x.slice(i, 1), y.slice(i, 1)
            assert outcome(getattr(am, op), xs, ys) == outcome(getattr(pc, op), xs, ys), (
                op, xs, ys)  # fmt: skip


def test_chunked():
    x = pa.chunked_array([values(pa.date32(), 1), values(pa.date32(), 5)])
    y = pa.chunked_array([values(pa.duration("us"), 2), values(pa.duration("us"), 3)])
    assert am.add(x, y).equals(pc.add(x, y))
    t = pa.chunked_array([values(pa.time64("us"), 1), values(pa.time64("us"), 2)])
    assert am.subtract(t, y).equals(pc.subtract(t, y))


@pytest.mark.skipif(not CUDA, reason="no CUDA device")
def test_gpu_arrays():
    x, y = values(pa.time32("ms"), 1), values(pa.duration("s"), 2)
    r = am.add(am.array(x, device="cuda"), am.array(y, device="cuda"))
    assert r.backend == "cuda"
    assert r.to_pyarrow().equals(pc.add(x, y))
    x = values(pa.date32(), 1)
    r = am.subtract(am.array(x, device="cuda"), am.array(y, device="cuda"))
    assert r.backend == "cuda"
    assert r.to_pyarrow().equals(pc.subtract(x, y))
