"""round, pairwise_diff and pairwise_diff_checked where the
conformance cases do not reach: the Python signatures and options, ChunkedArrays,
scalars, the C ABI's argument checks, and the GPU against pyarrow (skipped without
CUDA). Each answer is compared with pyarrow.compute's on the same input."""

import math
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal import ffi, lib

NUMERIC = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
NUMERIC += ["float32", "float64"]
MODES = ["down", "up", "towards_zero", "towards_infinity", "half_down", "half_up",
         "half_towards_zero", "half_towards_infinity", "half_to_even", "half_to_odd"]  # fmt: skip
CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]


def plain(value):
    if isinstance(value, (pa.Array, pa.ChunkedArray, am.Array)):
        value = value.to_pylist()
    elif isinstance(value, pa.Scalar):
        value = value.as_py()
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, float) and value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else 0.0
    return value


def sample(t, n=400, seed=0):
    rng = np.random.default_rng(seed)
    if t.startswith("float"):
        v = list(rng.normal(0, 100, n).round(3)) + [2.5, -2.5, 0.125, float("nan"), -0.0]
    else:
        info = np.iinfo(t)
        v = [int(x) for x in rng.integers(max(info.min, -(10**6)), min(info.max, 10**6), n)]
        v += [5, 15, 25, 45, 55]
    mask = rng.random(len(v)) < 0.2
    return pa.array([None if m else x for x, m in zip(v, mask)], type=t)


def outcome(fn, *args, **kwargs):
    try:
        return plain(fn(*args, **kwargs))
    except (pa.ArrowInvalid, am.ArrowMetalError):  # a refusal, by either library
        return "refused"


@pytest.mark.parametrize("t", NUMERIC)
@pytest.mark.parametrize("mode", MODES)
def test_round_matches_pyarrow(t, mode):
    x = sample(t, seed=len(mode))
    for nd in (-2, -1, 0, 1, 3):
        assert outcome(am.round, x, nd, mode) == outcome(pc.round, x, nd, mode), (nd, mode)


@pytest.mark.parametrize("t", ["float32", "float64"])
@pytest.mark.parametrize("mode", MODES)
def test_round_floats_bit_for_bit(t, mode):
    """The CPU's branch-free loop for floats (cpu/round.c SCALED_LOOP) against
    pyarrow, bit for bit (zeros' signs too), at scales from 10^-5 to 10^310:
    ties at each scale (k + 0.5 digits), their neighbours a few ulps away,
    values of every magnitude, zeros, infinities and NaN; more slots than a
    vector, so that every lane and the tail are exercised. A scale that makes
    a result overflow is refused by both."""
    rng = np.random.default_rng(len(mode))
    dtype = np.dtype(t)
    for nd in (-5, -2, -1, 1, 2, 3, 6, 15, 20, 300, 310):
        special = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 1.5, 2.5, -2.5, 2.0**52 + 0.5]
        with np.errstate(all="ignore"):
            ties = (rng.integers(-(10**6), 10**6, 300) + 0.5) / np.float64(10) ** nd
            near = np.nextafter(ties, np.inf * np.sign(rng.normal(size=300)))
            spread = rng.normal(0, 1, 600) * 10.0 ** rng.integers(-12, 12, 600)
            v = np.concatenate([ties, near, spread, special]).astype(dtype)
        x = pa.array(v)
        got, want = outcome(am.round, x, nd, mode), outcome(pc.round, x, nd, mode)
        if got == "refused" or want == "refused":
            assert got == want, (nd, mode)
            continue
        assert got == want, (nd, mode)
        # and the bits, as to_pylist cannot tell every float32 apart
        got_bits = np.asarray(am.round(x, nd, mode).to_pyarrow()).view(f"u{dtype.itemsize}")
        want_bits = np.asarray(pc.round(x, nd, mode)).view(f"u{dtype.itemsize}")
        assert (got_bits == want_bits).all(), (nd, mode)


def test_round_options_and_keywords():
    x = pa.array([1.25, 2.5, -2.675, None])
    want = plain(pc.round(x, 1, "half_up"))
    assert plain(am.round(x, 1, "half_up")) == want
    assert plain(am.round(x, ndigits=1, round_mode="half_up")) == want
    assert plain(am.round(x, options=pc.RoundOptions(1, "half_up"))) == want
    assert plain(am.round(x, options={"ndigits": 1, "round_mode": "half_up"})) == want
    assert plain(am.round(x)) == plain(pc.round(x))
    with pytest.raises(ValueError, match="not a valid round mode"):
        am.round(x, round_mode="nearest")
    with pytest.raises(TypeError):
        am.round(x, options=pc.RoundOptions(1), ndigits=2)
    with pytest.raises(TypeError):
        am.round(x, options=pc.PairwiseOptions(1))
    with pytest.raises(TypeError):
        am.round(x, options={"digits": 1})


def test_round_scalars_chunks_and_errors():
    assert am.round(2.5) == pc.round(pa.scalar(2.5)).as_py()
    assert am.round(pa.scalar(155, pa.int16()), -1) == 160
    chunked = pa.chunked_array([[1.5, 2.5], [], [None, -0.5]])
    got = am.round(chunked)
    assert isinstance(got, pa.ChunkedArray)
    assert plain(got) == plain(pc.round(chunked))
    assert [len(c) for c in got.chunks] == [2, 2]
    with pytest.raises(am.ArrowMetalInvalid, match="would overflow"):
        am.round(pa.array([5, 32766], pa.int16()), -1, "up")
    with pytest.raises(am.ArrowMetalInvalid, match="out of range for type int8"):
        am.round(pa.array([], pa.int8()), -3)
    with pytest.raises(am.ArrowMetalInvalid, match="overflow occurred during rounding"):
        am.round(pa.array([1e308]), -308, "up")
    with pytest.raises(am.ArrowMetalTypeError, match="no kernel"):
        am.round(pa.array([True]))


# ---- round_to_multiple ------------------------------------------------------------------

INT_MULTIPLES = [1, 2, 3, 7, 10, 100]
FLOAT_MULTIPLES = [0.1, 0.25, 2.5, 1e-3, 1e300]


def bits(x):
    """A float array's values as unsigned integers (nulls as 0), else its list."""
    if isinstance(x, am.Array):
        x = x.to_pyarrow()
    if not pa.types.is_floating(x.type):
        return x.to_pylist()
    width = x.type.bit_width
    return list(np.asarray(x.fill_null(0)).view(f"u{width // 8}")) + [x.null_count]


def bit_outcome(fn, *args, **kwargs):
    try:
        return bits(fn(*args, **kwargs))
    except (pa.ArrowInvalid, am.ArrowMetalError) as e:  # a refusal: its message
        return ("refused", str(e).removeprefix("am_round_to_multiple: "))


def multiple_ties(t, m, rng, n=300):
    """Values at, next to and between the halves of multiples of m, in type t."""
    k = rng.integers(-(10**4), 10**4, n)
    if t.startswith("float"):
        with np.errstate(all="ignore"):
            ties = (k + 0.5) * m
            v = np.concatenate([ties, np.nextafter(ties, np.inf), np.nextafter(ties, -np.inf),
                                k * m, rng.normal(0, 1e3, n)]).astype(t)  # fmt: skip
        return pa.array(list(v) + [0.0, -0.0, np.inf, -np.inf, np.nan, None], type=t)
    info = np.iinfo(t)
    v = [int(x) * m + d for x in k for d in (m // 2, -(m // 2), (m + 1) // 2, 1, -1, 0)]
    v = [x for x in v if info.min + m <= x <= info.max - m]
    return pa.array(v + [None], type=t)


def extremes(t):
    """The ends of the type (and their neighbours), which refuse what leaves it."""
    if t.startswith("float"):
        big = float(np.finfo(t).max)
        return pa.array([big, -big, float(np.finfo(t).tiny), None], type=t)
    info = np.iinfo(t)
    lo, hi = int(info.min), int(info.max)
    return pa.array([lo, hi, lo + 1, hi - 1, None], type=t)


@pytest.mark.parametrize("t", NUMERIC)
@pytest.mark.parametrize("mode", MODES)
def test_round_to_multiple_matches_pyarrow(t, mode):
    """Bit for bit with pyarrow over random values, the halves of each
    multiple and the type's ends, integer and float multiples in every type;
    refusals with pyarrow's message (a float multiple that is not whole, cast
    to an integer type; a result leaving the type). 1e300 is an infinity in
    float32."""
    rng = np.random.default_rng(len(mode) + len(t))
    for m in INT_MULTIPLES + FLOAT_MULTIPLES:
        for x in (sample(t, seed=len(mode)), multiple_ties(t, m, rng), extremes(t)):
            want = bit_outcome(pc.round_to_multiple, x, m, mode)
            got = bit_outcome(am.round_to_multiple, x, m, mode)
            if want[0] == "refused" and t in ("int8", "uint8") and "would overflow" in want[1]:
                # pyarrow prints an int8 / uint8 as a character (arrowmetal.h)
                assert got[0] == "refused" and "would overflow" in got[1], (m, mode)
                continue
            assert got == want, (m, mode)
            assert bit_outcome(am.round_to_multiple, am.array(x), m, mode) == want


def test_round_to_multiple_large_integer_multiples():
    """Multiples up to the types' ends. Where pyarrow's doubled remainder
    leaves a 32- or 64-bit type (a multiple above 2^30 for int32, 2^31 for
    uint32, 2^62 for int64), pyarrow rounds a value past half the multiple
    down; the library rounds it to the nearer multiple (arrowmetal.h's
    divergence). uint64's doubling wraps in both."""
    cases = [
        ("int32", 2_000_000_000, [1_100_000_000, 900_000_000, -1_100_000_000, 2_100_000_000]),
        ("uint32", 3_000_000_000, [2_900_000_000, 1_600_000_000, 4_000_000_000]),
        ("int64", 2**62 + 2**61, [2**62 + 2**60, 2**61, -(2**62 + 2**60)]),
    ]
    for t, m, xs in cases:
        x = pa.array(xs, t)
        mine = am.round_to_multiple(x, pa.scalar(m, t), "half_up").to_pylist()
        assert mine == [m * round(v / m) for v in xs], t  # no ties among them
        theirs = pc.round_to_multiple(x, pa.scalar(m, t), "half_up").to_pylist()
        assert theirs[0] == 0 != mine[0], t  # pyarrow's wrapped doubling
        # directed modes double nothing: both alike
        for mode in ("down", "towards_zero"):
            assert plain(am.round_to_multiple(x, pa.scalar(m, t), mode)) == plain(
                pc.round_to_multiple(x, pa.scalar(m, t), mode)
            )
    x = pa.array([2**63, 2**62, 2**64 - 1, 5], pa.uint64())
    for m in (2**63 + 2**62, 2**64 - 1, 2**63):
        for mode in MODES:
            m_scalar = pa.scalar(m, pa.uint64())
            want = outcome(pc.round_to_multiple, x, m_scalar, mode)
            assert outcome(am.round_to_multiple, x, m_scalar, mode) == want, (m, mode)


def test_round_to_multiple_refusals_in_pyarrows_words():
    x = pa.array([1.0, 2.5, None])
    i8 = pa.array([1, 2, 100, None], pa.int8())
    even = "half_to_even"
    refusals = [
        (x, None, even, "Rounding multiple must be non-null and valid"),
        (x, pa.scalar(None, pa.float64()), even, "Rounding multiple must be non-null and valid"),
        (i8, pa.scalar(None, pa.string()), even, "Rounding multiple must be non-null and valid"),
        (x, 0, even, "Rounding multiple must be positive"),
        (x, -0.0, even, "Rounding multiple must be positive"),
        (x, -2, even, "Rounding multiple must be positive"),
        (x, float("nan"), even, "Rounding multiple must be positive"),
        (x, True, even, "Rounding multiple must be positive"),
        (x, "x", even, "Rounding multiple must be positive"),
        (x, [1], even, "Rounding multiple must be positive"),
        (x, pa.scalar(5, pa.duration("s")), even, "Rounding multiple must be positive"),
        (pa.array([1], pa.uint8()), -1, even, "Rounding multiple must be positive"),
        (i8, 300, even, "Integer value 300 not in range: -128 to 127"),
        (i8, pa.scalar(300, pa.uint64()), even, "Integer value 300 not in range: 0 to 127"),
        (i8, 2.5, even, "Float value 2.500000 was truncated converting to int8"),
        (i8, 300.0, even, "Float value 300.000000 was truncated converting to int8"),
        (i8, 1e-300, even, "Float value 0.000000 was truncated converting to int8"),
        (i8, float("inf"), even, "Float value inf was truncated converting to int8"),
        (pa.array([1.0], pa.float32()), 2**24 + 1, even,
         "Integer value 16777217 not in range: -16777216 to 16777216"),
        (x, 2**53 + 1, even,
         "Integer value 9007199254740993 not in range: -9007199254740992 to 9007199254740992"),
        (pa.array([], pa.int8()), 1000, even, "Integer value 1000 not in range: -128 to 127"),
        (pa.array([1.7e308, 2.5]), 1e308, "up", "overflow occurred during rounding"),
        (pa.array([32766, 5], pa.int16()), 10, "up",
         "Rounding 32766 up to multiple of 10 would overflow"),
        (pa.array([-32768], pa.int16()), 3, even,
         "Rounding -32768 down to multiples of 3 would overflow"),
    ]  # fmt: skip
    for data, m, mode, message in refusals:
        with pytest.raises(pa.ArrowInvalid, match=f"^{message}$"):
            pc.round_to_multiple(data, m, mode)
        with pytest.raises(pa.ArrowInvalid, match=f"^am_round_to_multiple: {message}$"):
            am.round_to_multiple(data, m, mode)
    with pytest.raises(am.ArrowMetalOverflowError):  # a failed cast, as am_cast's
        am.round_to_multiple(i8, 300)
    with pytest.raises(am.ArrowMetalTypeError, match="no kernel matching input types \\(bool\\)"):
        am.round_to_multiple(pa.array([True]), None)  # the input's type first, as pyarrow
    for bad in (2**63, -(2**63) - 1, object(), 3 + 1j):
        with pytest.raises(TypeError, match="is not a valid multiple type"):
            pc.round_to_multiple(x, bad)
        with pytest.raises(TypeError, match="is not a valid multiple type"):
            am.round_to_multiple(x, bad, "nearest")  # the multiple checked first
    # float64 to float32 rounds: 1e300 is an infinity, which keeps every value
    f32 = pa.array([1.0, 2.5, -3.75, None], pa.float32())
    assert plain(am.round_to_multiple(f32, 1e300)) == plain(f32)


def test_round_to_multiple_options_scalars_and_chunks():
    x = pa.array([1.26, 2.5, -7.25, None, 0.375])
    want = plain(pc.round_to_multiple(x, 0.25, "half_up"))
    assert plain(am.round_to_multiple(x, 0.25, "half_up")) == want
    assert plain(am.round_to_multiple(x, multiple=0.25, round_mode="half_up")) == want
    options = pc.RoundToMultipleOptions(0.25, "half_up")
    assert plain(am.round_to_multiple(x, options=options)) == want
    assert (
        plain(am.round_to_multiple(x, options={"multiple": 0.25, "round_mode": "half_up"})) == want
    )
    assert plain(am.round_to_multiple(x)) == plain(pc.round_to_multiple(x))
    # a typed multiple in an options object keeps its type: int8 3 for an int16 array
    i16 = pa.array([4, -5, 7, None, 32000], pa.int16())
    options = pc.RoundToMultipleOptions(pa.scalar(3, pa.int8()), "down")
    assert plain(am.round_to_multiple(i16, options=options)) == plain(
        pc.round_to_multiple(i16, options=options)
    )
    with pytest.raises(ValueError, match="not a valid round mode"):
        am.round_to_multiple(x, round_mode="nearest")
    with pytest.raises(TypeError, match="both an 'options' argument"):
        am.round_to_multiple(x, 2, options=pc.RoundToMultipleOptions(1))
    with pytest.raises(TypeError):
        am.round_to_multiple(x, options=pc.RoundOptions(1))
    with pytest.raises(TypeError):
        am.round_to_multiple(x, options={"ndigits": 1})
    # scalars give Python values, am.Arrays am.Arrays, ChunkedArrays keep their chunks
    assert am.round_to_multiple(7.5, 2.0) == pc.round_to_multiple(pa.scalar(7.5), 2.0).as_py()
    assert am.round_to_multiple(pa.scalar(7, pa.int8()), 5) == 5
    assert am.round_to_multiple(pa.scalar(None, pa.int32()), 5).as_py() is None
    assert isinstance(am.round_to_multiple(am.array(x), 0.5), am.Array)
    chunked = pa.chunked_array([[1.5, 2.5], [], [None, -0.5]])
    got = am.round_to_multiple(chunked, 1.0)
    assert isinstance(got, pa.ChunkedArray)
    assert plain(got) == plain(pc.round_to_multiple(chunked, 1.0))
    assert [len(c) for c in got.chunks] == [2, 2]
    sliced = pa.array([7, 8, 12, None, 13], pa.uint16()).slice(1)
    assert plain(am.round_to_multiple(sliced, 4)) == plain(pc.round_to_multiple(sliced, 4))
    # integers to a multiple of 1: the values themselves
    same = am.round_to_multiple(pa.array([3, None, -7], pa.int8()), pa.scalar(1, pa.uint64()))
    assert plain(same) == [3, None, -7]


def test_round_to_multiple_runs_in_pyarrow_what_only_pyarrow_reads():
    """A float16 or decimal multiple (pyarrow calls a negative float16
    positive) and a float16 input: pyarrow's answers (for float16, its
    refusal), counted as fallbacks."""
    x = pa.array([1.0, 2.5, -7.25])
    m = pa.scalar(3, pa.decimal128(5, 2))
    i8 = pa.array([1, 4, None], pa.int8())
    half = pa.array([1.5, 2.5], pa.float16())
    before = am.fallbacks().get("round_to_multiple", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        got = am.round_to_multiple(x, pa.scalar(-3.0, pa.float16()))
        assert plain(got) == plain(pc.round_to_multiple(x, pa.scalar(-3.0, pa.float16())))
        assert plain(am.round_to_multiple(i8, m, "up")) == plain(pc.round_to_multiple(i8, m, "up"))
        with pytest.raises(pa.ArrowNotImplementedError, match="halffloat"):  # pyarrow's
            am.round_to_multiple(half, 1)
    assert am.fallbacks()["round_to_multiple"] == before + 3


def unsliced(x):
    """A copy of `x` at offset 0: pyarrow 25's pairwise_diff reads a sliced array's
    values from the wrong place (pyarrow 26 does not), so references are taken on
    a copy."""
    return pa.array(x.to_pylist(), type=x.type)


@pytest.mark.parametrize("t", NUMERIC)
def test_pairwise_matches_pyarrow(t):
    x = sample(t, n=200, seed=3)
    for period in (-300, -3, -1, 0, 1, 2, 7, 205, 300):
        for fn, ref in ((am.pairwise_diff, pc.pairwise_diff),
                        (am.pairwise_diff_checked, pc.pairwise_diff_checked)):  # fmt: skip
            assert outcome(fn, x, period) == outcome(ref, x, period), (period, fn)
            sliced = x.slice(9, 150)
            want = outcome(ref, unsliced(sliced), period)
            assert outcome(fn, sliced, period) == want, (period, fn)


def test_pairwise_options_scalars_and_chunks():
    x = pa.array([1, None, 4, 9, 16], pa.uint8())
    assert plain(am.pairwise_diff(x, 2)) == plain(pc.pairwise_diff(x, 2))
    assert plain(am.pairwise_diff(x, period=-1)) == plain(pc.pairwise_diff(x, period=-1))
    assert plain(am.pairwise_diff(x, options={"period": 2})) == plain(pc.pairwise_diff(x, 2))
    got = am.pairwise_diff(x, options=pc.PairwiseOptions(-3))
    assert plain(got) == plain(pc.pairwise_diff(x, options=pc.PairwiseOptions(-3)))
    assert plain(am.pairwise_diff(5)) == plain(pc.pairwise_diff(pa.scalar(5)))
    with pytest.raises(am.ArrowMetalOverflowError, match="overflow"):
        am.pairwise_diff_checked(pa.array([0, 1, 0], pa.uint32()))
    with pytest.raises(pa.ArrowInvalid, match="chunkwise"):  # pyarrow's own refusal
        am.pairwise_diff(pa.chunked_array([[1, 2], [4]]))
    with pytest.raises(pa.ArrowInvalid, match="chunkwise"):  # as pyarrow refuses it
        pc.pairwise_diff(pa.chunked_array([[1, 2], [4]]))
    with pytest.raises(TypeError):
        am.pairwise_diff(x, options=pc.RoundOptions())
    with pytest.raises(am.ArrowMetalTypeError, match="no kernel"):
        am.pairwise_diff(pa.array([True, False]))


def test_c_abi_argument_checks():
    a = am.array([1.5, 2.5])
    out = ffi.new("am_array **")
    assert lib.am_round(a._ptr, 0, 10, out) == lib.AM_EINVAL
    assert "round mode" in ffi.string(lib.am_last_error()).decode()
    assert lib.am_round(ffi.NULL, 0, 0, out) == lib.AM_EINVAL
    assert lib.am_round(a._ptr, 0, 0, ffi.NULL) == lib.AM_EINVAL
    m = ffi.new("am_scalar *")
    m.type, m.f64 = lib.AM_FLOAT64, 0.5
    assert lib.am_round_to_multiple(a._ptr, m, 10, out) == lib.AM_EINVAL
    assert "round mode" in ffi.string(lib.am_last_error()).decode()
    assert lib.am_round_to_multiple(a._ptr, ffi.NULL, 0, out) == lib.AM_EINVAL
    assert lib.am_round_to_multiple(ffi.NULL, m, 0, out) == lib.AM_EINVAL
    assert lib.am_round_to_multiple(a._ptr, m, 0, ffi.NULL) == lib.AM_EINVAL
    m.type = 99  # no type at all: no number, so not positive
    assert lib.am_round_to_multiple(a._ptr, m, 0, out) == lib.AM_EINVAL
    assert "must be positive" in ffi.string(lib.am_last_error()).decode()
    assert lib.am_pairwise_diff(2, a._ptr, 1, out) == lib.AM_EINVAL
    assert lib.am_pairwise_diff(0, ffi.NULL, 1, out) == lib.AM_EINVAL
    assert out[0] == ffi.NULL
    # Periods past the length, either way, to the ends of int64.
    for period in (2**63 - 1, -(2**63)):
        assert lib.am_pairwise_diff(0, a._ptr, period, out) == lib.AM_OK
        assert lib.am_null_count(out[0]) == 2
        lib.am_release(out[0])


def test_round_to_multiple_is_a_row_of_the_library():
    info = ffi.new("am_function_info *")
    rows = {}
    for i in range(lib.am_function_count()):
        assert lib.am_function_info_get(i, info) == lib.AM_OK
        if info.family == lib.AM_FAMILY_ROUND:
            rows[ffi.string(info.name).decode()] = (ffi.string(info.entry).decode(), info.op)
    assert rows == {"round": ("am_round", 0), "round_to_multiple": ("am_round_to_multiple", 1)}
    assert "round_to_multiple" in am.__all__


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("t", NUMERIC)
def test_gpu_matches_pyarrow(t):
    x = sample(t, n=5000, seed=9).slice(3)
    g = am.array(x, device="cuda")
    for mode in MODES:
        for nd in (-1, 0, 2):
            assert outcome(am.round, g, nd, mode) == outcome(pc.round, x, nd, mode), (nd, mode)
        for m in (3, 0.25):
            want = outcome(pc.round_to_multiple, x, m, mode)
            assert outcome(am.round_to_multiple, g, m, mode) == want, (m, mode)
    for period in (-3, 0, 1, 300, 6000):
        for fn, ref in ((am.pairwise_diff, pc.pairwise_diff),
                        (am.pairwise_diff_checked, pc.pairwise_diff_checked)):  # fmt: skip
            assert outcome(fn, g, period) == outcome(ref, unsliced(x), period), (period, fn)
