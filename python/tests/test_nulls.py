"""The null-handling functions where the conformance cases do not
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


def test_predicates_of_scalars_give_scalars():
    # pyarrow's Scalars: here the reductions' results (a Python value too)
    for got, want in (
        (am.is_nan(float("nan")), True),
        (am.is_inf(float("-inf")), True),
        (am.is_finite(2), True),
        (am.is_null(None), True),
        (am.is_valid(3), True),
        (am.is_null(float("nan"), nan_is_null=True), True),
        (am.is_nan(pa.scalar(None, pa.float64())), None),
    ):
        assert got.as_py() is want and got.type == pa.bool_()
    assert am.is_nan(pa.scalar(2.0)) == pc.is_nan(pa.scalar(2.0)).as_py()


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


# ---- fill_null, coalesce ---------------------------------------------------------------


def fills(t):
    """Scalar fills for values of type t, of its own type and of others."""
    same = {"bool": True, "float32": 1.5, "float64": -0.0}.get(t, 7)
    return [same, None, 5, 2.75, -1, 300, True, float("nan"), pa.scalar(3, pa.int16())]


@pytest.mark.parametrize("t", TYPES)
def test_fill_null_with_scalars_matches_pyarrow(t):
    data = sample(t, 200, seed=11)
    for x in (data, data.slice(7)):
        for fill in fills(t):
            want = outcome(pc.fill_null, x, fill)
            assert outcome(am.fill_null, x, fill) == want, (t, fill)
            assert outcome(am.fill_null, am.array(x), fill) == want, (t, fill)


@pytest.mark.parametrize("t", TYPES)
def test_fill_null_with_arrays_and_chunks_matches_pyarrow(t):
    data, fill = sample(t, 200, seed=1), sample(t, 200, seed=2)
    want = outcome(pc.fill_null, data, fill)
    assert outcome(am.fill_null, data, fill) == want
    assert outcome(am.fill_null, am.array(data), am.array(fill)) == want
    chunked = pa.chunked_array([data.slice(0, 50), data.slice(50)])
    got = am.fill_null(chunked, fill)
    assert plain(got) == plain(pc.fill_null(chunked, fill))
    assert [len(c) for c in got.chunks] == [50, 150]
    assert plain(am.fill_null(chunked, fills(t)[0])) == plain(pc.fill_null(chunked, fills(t)[0]))


def test_fill_null_refuses_what_pyarrow_refuses():
    x = pa.array([1, None], pa.int8())
    with pytest.raises(OverflowError):
        am.fill_null(x, 300)
    with pytest.raises(TypeError):
        am.fill_null(x, True)
    with pytest.raises(TypeError):  # pyarrow: AttributeError on the array of another type
        am.fill_null(x, pa.array([1, 2], pa.int16()))
    with pytest.raises(ValueError, match="different lengths"):
        am.fill_null(x, pa.array([1, 2, 3], pa.int8()))
    assert am.fill_null(x, None).to_pylist() == [1, None]
    assert am.fill_null(x, 5.9).to_pylist() == [1, 5]  # truncated, as pa.scalar(5.9, int8)


@pytest.mark.parametrize("t", TYPES)
def test_coalesce_matches_pyarrow(t):
    a, b, c = (sample(t, 150, seed=s) for s in (4, 5, 6))
    for values in ((a,), (a, b), (a, b, c), (a, b, fills(t)[0]), (pa.scalar(None, a.type), a, b)):
        want = outcome(pc.coalesce, *values)
        assert outcome(am.coalesce, *values) == want
        assert outcome(am.coalesce, *(am.array(v) if isinstance(v, pa.Array) else v
                                      for v in values)) == want  # fmt: skip


def test_coalesce_promotes_and_refuses_as_pyarrow_does():
    i8 = pa.array([1, None, None], pa.int8())
    others = [
        pa.array([None, 2, None], pa.int16()),
        pa.array([None, 200, None], pa.uint8()),
        pa.array([None, 2.5, None], pa.float32()),
        pa.array([None, 2**63, None], pa.uint64()),
        pa.array([None, True, None]),
        5,
        2.5,
        None,
        pa.scalar(300, pa.int16()),
    ]
    for other in others:
        assert outcome(am.coalesce, i8, other) == outcome(pc.coalesce, i8, other), other
    with pytest.raises(ValueError, match="at least 1"):
        am.coalesce()
    with pytest.raises(TypeError):
        am.coalesce(None, 3)


def test_coalesce_of_chunked_arrays_keeps_the_union_of_the_boundaries():
    x = pa.chunked_array([[1, None], [None, None, 5]], pa.int64())
    y = pa.chunked_array([[None], [2, 3, None, 6]], pa.int64())
    got = am.coalesce(x, y, 0)
    want = pc.coalesce(x, y, 0)
    assert got.to_pylist() == want.to_pylist() == [1, 2, 3, 0, 5]
    assert [len(c) for c in got.chunks] == [1, 1, 3]


def test_coalesce_and_fill_null_of_scalars_give_scalars():
    got = am.coalesce(pa.scalar(None, pa.int8()), 3)
    assert got == 3 and got.type == pc.coalesce(pa.scalar(None, pa.int8()), 3).type
    none = am.coalesce(pa.scalar(None, pa.int8()), pa.scalar(None, pa.int8()))
    assert none.as_py() is None and not none.is_valid and none.type == pa.int8()
    assert am.fill_null(pa.scalar(None, pa.float64()), 2.5).as_py() == 2.5


def test_am_fill_null_and_am_coalesce_argument_checks():
    out = ffi.new("am_array **")
    a = am.array([1, None])
    s = ffi.new("am_scalar *")
    s.type, s.i64 = lib.AM_INT64, 3

    def fails(fn, args, status, message):
        assert getattr(lib, fn)(*args) == status
        assert ffi.string(lib.am_last_error()).decode() == f"{fn}: {message}"

    fails("am_fill_null", (a.handle, a.handle, s, out), lib.AM_EINVAL,
          "give one fill: fill (an array) or fill_scalar, not both")  # fmt: skip
    fails("am_fill_null", (a.handle, ffi.NULL, ffi.NULL, out), lib.AM_EINVAL,
          "give one fill: fill (an array) or fill_scalar, both are NULL")  # fmt: skip
    fails("am_fill_null", (ffi.NULL, ffi.NULL, s, out), lib.AM_EINVAL, "values is NULL")
    fails("am_fill_null", (a.handle, ffi.NULL, s, ffi.NULL), lib.AM_EINVAL, "out is NULL")
    bad = ffi.new("am_scalar *")
    bad.type = 99
    fails("am_fill_null", (a.handle, ffi.NULL, bad, out), lib.AM_ETYPE, "invalid scalar type 99")
    arrays = ffi.new("am_array *[2]", [a.handle, ffi.NULL])
    scalars = ffi.new("am_scalar *[2]", [ffi.NULL, s])
    fails("am_coalesce", (arrays, scalars, 0, out), lib.AM_EINVAL,
          "coalesce needs at least 1 value, not 0")  # fmt: skip
    fails("am_coalesce", (ffi.NULL, ffi.NULL, 1, out), lib.AM_EINVAL,
          "arrays and scalars are both NULL")  # fmt: skip
    fails("am_coalesce", (ffi.NULL, scalars + 1, 1, out), lib.AM_EINVAL,
          "no array among the 1 values")  # fmt: skip
    both = ffi.new("am_scalar *[2]", [s, s])
    fails("am_coalesce", (arrays, both, 2, out), lib.AM_EINVAL,
          "value 0: give an array or a scalar, not both")  # fmt: skip
    fails("am_coalesce", (arrays, ffi.NULL, 2, out), lib.AM_EINVAL,
          "value 1: give an array or a scalar, neither is given")  # fmt: skip
    assert out[0] == ffi.NULL
    assert lib.am_coalesce(arrays, scalars, 2, out) == lib.AM_OK
    assert am._array.wrap(out[0]).to_pylist() == [1, 3]
    # A null fill of no type leaves the values as they are (pyarrow: None).
    null = ffi.new("am_scalar *")
    null.type, null.is_null = lib.AM_TYPE_INVALID, 1
    assert lib.am_fill_null(a.handle, ffi.NULL, null, out) == lib.AM_OK
    assert am._array.wrap(out[0]).to_pylist() == [1, None]


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("t", TYPES)
def test_fill_null_and_coalesce_on_the_gpu_match_the_cpu(t):
    a, b = sample(t, 5000, seed=8).slice(5), sample(t, 5000, seed=9).slice(1, 4995)
    ga, gb = am.array(a, device="cuda"), am.array(b, device="cuda")
    assert plain(am.coalesce(ga, gb)) == plain(pc.coalesce(a, b))
    assert plain(am.fill_null(ga, gb)) == plain(pc.fill_null(a, b))
    # (a Python int beside uint64 values past 2^63 is refused by both: outcome() says so)
    fill = fills(t)[0]
    assert outcome(am.fill_null, ga, fill) == outcome(pc.fill_null, a, fill)
    assert outcome(am.coalesce, ga, gb, fill) == outcome(pc.coalesce, a, b, fill)


# ---- if_else -----------------------------------------------------------------------------


@pytest.mark.parametrize("t", TYPES)
def test_if_else_matches_pyarrow(t):
    cond = sample("bool", 200, seed=20)
    a, b = sample(t, 200, seed=21), sample(t, 200, seed=22)
    side = fills(t)[0]
    for args in ((cond, a, b), (cond, a, side), (cond, side, b), (cond, None, b),
                 (cond.slice(3), a.slice(3), b.slice(3)), (True, a, b), (False, side, b),
                 (pa.scalar(None, pa.bool_()), a, b), (cond, side, side)):  # fmt: skip
        want = outcome(pc.if_else, *args)
        assert outcome(am.if_else, *args) == want, args[1:]
        mine = [am.array(x) if isinstance(x, pa.Array) else x for x in args]
        assert outcome(am.if_else, *mine) == want


def test_if_else_promotes_and_refuses_as_pyarrow_does():
    cond = pa.array([True, False, None, True])
    i8 = pa.array([1, 2, 3, None], pa.int8())
    for other in (pa.array([1, 2, 3, 4], pa.uint64()), pa.array([1, 2**63, 3, 4], pa.uint64()),
                  pa.array([0.5, 1, 2, 3], pa.float32()), pa.array([True] * 4), 300, 2.5,
                  True, None, pa.array([1, 2], pa.int8())):  # fmt: skip
        assert outcome(am.if_else, cond, i8, other) == outcome(pc.if_else, cond, i8, other), other
        assert outcome(am.if_else, cond, other, i8) == outcome(pc.if_else, cond, other, i8), other
    with pytest.raises(TypeError, match="no kernel matching input types"):
        am.if_else(i8, i8, i8)
    assert am.if_else(True, 1, 2) == 1 and am.if_else(None, 1, 2) is None


def test_if_else_of_chunked_arrays_keeps_the_boundaries():
    cond = pa.chunked_array([[True, None], [False, True, False]])
    x = pa.chunked_array([[1, 2, 3], [4, None]], pa.int32())
    got = am.if_else(cond, x, -1)
    assert got.to_pylist() == pc.if_else(cond, x, -1).to_pylist() == [1, None, -1, 4, -1]
    assert [len(c) for c in got.chunks] == [2, 1, 2]


def test_am_if_else_argument_checks():
    out = ffi.new("am_array **")
    c, a = am.array([True, False]), am.array([1, 2])
    s = ffi.new("am_scalar *")
    s.type, s.i64 = lib.AM_INT64, 3
    null = ffi.new("am_scalar *")
    null.type, null.is_null = lib.AM_TYPE_INVALID, 1
    cases = [
        ((ffi.NULL, a.handle, ffi.NULL, a.handle, ffi.NULL, out), lib.AM_EINVAL, "cond is NULL"),
        ((c.handle, a.handle, s, a.handle, ffi.NULL, out), lib.AM_EINVAL,
         "give left as an array or a scalar, not both"),
        ((c.handle, a.handle, ffi.NULL, ffi.NULL, ffi.NULL, out), lib.AM_EINVAL,
         "give right as an array or a scalar, neither is given"),
        ((c.handle, ffi.NULL, null, ffi.NULL, null, out), lib.AM_ETYPE,
         "function 'if_else' has no kernel matching input types (bool, null, null)"),
        ((a.handle, ffi.NULL, s, a.handle, ffi.NULL, out), lib.AM_ETYPE,
         "function 'if_else' has no kernel matching input types (int64, int64, int64)"),
        ((c.handle, a.handle, ffi.NULL, a.handle, ffi.NULL, ffi.NULL), lib.AM_EINVAL,
         "out is NULL"),
    ]  # fmt: skip
    for args, status, message in cases:
        assert lib.am_if_else(*args) == status
        assert ffi.string(lib.am_last_error()).decode() == f"am_if_else: {message}"
    assert out[0] == ffi.NULL
    assert lib.am_if_else(c.handle, ffi.NULL, null, a.handle, ffi.NULL, out) == lib.AM_OK
    assert am._array.wrap(out[0]).to_pylist() == [None, 2]


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("t", TYPES)
def test_if_else_on_the_gpu_matches_pyarrow(t):
    cond = sample("bool", 5000, seed=30).slice(9)
    a, b = sample(t, 5000, seed=31).slice(9), sample(t, 5000, seed=32).slice(9)
    g = [am.array(x, device="cuda") for x in (cond, a, b)]
    assert plain(am.if_else(*g)) == plain(pc.if_else(cond, a, b))
    side = fills(t)[0]
    # (pyarrow refuses some sides, uint64 beside a Python int: outcome() says so)
    assert outcome(am.if_else, g[0], g[1], side) == outcome(pc.if_else, cond, a, side)
    assert plain(am.if_else(g[0], None, g[2])) == plain(pc.if_else(cond, None, b))


# ---- drop_null ---------------------------------------------------------------------------


@pytest.mark.parametrize("t", TYPES)
def test_drop_null_matches_pyarrow(t):
    data = sample(t, 300, seed=40)
    for x in (data, data.slice(5), data.slice(64, 100), pa.array([None] * 9, data.type)):
        want = plain(pc.drop_null(x))
        assert plain(am.drop_null(x)) == want
        got = am.drop_null(am.array(x))
        assert plain(got) == want and got.null_count == 0 and got.type == am.array(x).type


def test_drop_null_of_chunked_arrays_leaves_out_empty_chunks_as_pyarrow():
    for chunks in ([[None], [None]], [[1], [2]], [[], [1, None]], [[None, 1], [], [None, 5]]):
        x = pa.chunked_array(chunks, pa.int8())
        want = [c.to_pylist() for c in pc.drop_null(x).chunks]
        assert [c.to_pylist() for c in am.drop_null(x).chunks] == want
    assert am.drop_null(pa.chunked_array([], pa.int8())).num_chunks == 0


def test_drop_null_without_nulls_shares_the_buffers_and_refuses_scalars():
    a = am.array([1, 2, 3])
    assert am.drop_null(a).to_pylist() == [1, 2, 3]
    with pytest.raises(TypeError, match="takes an array"):
        am.drop_null(3)
    assert lib.am_drop_null(ffi.NULL, ffi.new("am_array **")) == lib.AM_EINVAL
    assert ffi.string(lib.am_last_error()).decode() == "am_drop_null: array is NULL"


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("t", TYPES)
def test_drop_null_on_the_gpu_matches_pyarrow(t):
    data = sample(t, 5000, seed=41).slice(11)
    assert plain(am.drop_null(am.array(data, device="cuda"))) == plain(pc.drop_null(data))
    with am.batch():
        pending = am.drop_null(am.array(data, device="cuda"))
    assert plain(pending) == plain(pc.drop_null(data))


def fill_reference(name):
    """fill_null_forward / _backward in plain Python, the reference of their
    tests: pyarrow 25 itself fills sliced boolean arrays wrongly (26 is
    right), so its answer cannot be the reference on every machine."""
    backward = name.endswith("backward")

    def ref(x):
        values = x.to_pylist()[:: -1 if backward else 1]
        out, current = [], None
        for v in values:
            current = v if v is not None else current
            out.append(current)
        return pa.array(out[:: -1 if backward else 1], x.type)

    return ref


# ---- fill_null_forward, fill_null_backward -----------------------------------------------

DIRECTIONS = ["fill_null_forward", "fill_null_backward"]


@pytest.mark.parametrize("name", DIRECTIONS)
@pytest.mark.parametrize("t", TYPES)
def test_fill_directions_match_pyarrow(name, t):
    fn, ref = getattr(am, name), fill_reference(name)
    data = sample(t, 400, seed=50)
    runs = pa.array([None] * 70 + data.to_pylist()[:5] + [None] * 130, data.type)
    for x in (data, data.slice(7), data.slice(63, 200), runs, runs.slice(3)):
        want = ref(x)
        got = fn(x)
        assert plain(got) == plain(want) and got.null_count == want.null_count
        assert plain(fn(am.array(x))) == plain(want)


@pytest.mark.parametrize("name", DIRECTIONS)
def test_fill_directions_cross_chunks_and_keep_their_boundaries(name):
    fn, ref = getattr(am, name), getattr(pc, name)
    for chunks in ([[1, None], [None, 2]], [[None], [None, 3], []], [[], [None]], [[5], []]):
        x = pa.chunked_array(chunks, pa.int16())
        assert [c.to_pylist() for c in fn(x).chunks] == [c.to_pylist() for c in ref(x).chunks]
    assert fn(pa.chunked_array([], pa.int8())).num_chunks == 0


def test_fill_directions_of_scalars_and_the_c_checks():
    # pyarrow's: an array of one slot (compared with pyarrow's of that array: its
    # result for a Python int points into a scalar it frees, which ASan reports)
    for v, t in ((3, pa.int64()), (None, pa.int64()), (2.5, pa.float64())):
        for name in ("fill_null_forward", "fill_null_backward"):
            got = getattr(am, name)(v if v is not None else pa.scalar(None, t))
            assert isinstance(got, am.Array)
            assert got.to_pyarrow().equals(getattr(pc, name)(pa.array([v], t))), (name, v)
    out = ffi.new("am_array **")
    a = am.array([None, 1])
    assert lib.am_fill_null_direction(2, a.handle, out) == lib.AM_EINVAL
    assert ffi.string(lib.am_last_error()).decode() == (
        "am_fill_null_direction: direction 2 is not AM_FILL_FORWARD (0) or AM_FILL_BACKWARD (1)"
    )
    assert lib.am_fill_null_direction(0, ffi.NULL, out) == lib.AM_EINVAL
    assert out[0] == ffi.NULL


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("name", DIRECTIONS)
@pytest.mark.parametrize("t", TYPES)
def test_fill_directions_on_the_gpu_match_pyarrow(name, t):
    fn, ref = getattr(am, name), fill_reference(name)
    for n, p in ((5000, 0.3), (300000, 0.99), (70, 1.0)):
        rng = np.random.default_rng(n)
        data = sample(t, n, seed=51)
        mask = pa.array(rng.random(n) < p)
        x = pc.if_else(mask, pa.scalar(None, data.type), data).slice(3)
        got = fn(am.array(x, device="cuda"))
        assert plain(got) == plain(ref(x)) and got.null_count == ref(x).null_count


def test_array_methods_as_pyarrows():
    x = pa.array([1.5, None, float("nan")])
    a = am.array(x)
    assert a.is_null().to_pylist() == x.is_null().to_pylist()
    assert a.is_null(nan_is_null=True).to_pylist() == x.is_null(nan_is_null=True).to_pylist()
    assert a.is_valid().to_pylist() == x.is_valid().to_pylist()
    assert plain(a.is_nan()) == plain(x.is_nan())
    assert plain(a.fill_null(0.5)) == plain(x.fill_null(0.5))
    assert plain(a.drop_null()) == plain(x.drop_null())
