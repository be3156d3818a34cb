"""round, pairwise_diff and pairwise_diff_checked where the
conformance cases do not reach: the Python signatures and options, ChunkedArrays,
scalars, the C ABI's argument checks, and the GPU against pyarrow (skipped without
CUDA). Each answer is compared with pyarrow.compute's on the same input."""

import math

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
    with pytest.raises(am.ArrowMetalInvalid, match="chunkwise"):
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
    assert lib.am_pairwise_diff(2, a._ptr, 1, out) == lib.AM_EINVAL
    assert lib.am_pairwise_diff(0, ffi.NULL, 1, out) == lib.AM_EINVAL
    assert out[0] == ffi.NULL
    # Periods past the length, either way, to the ends of int64.
    for period in (2**63 - 1, -(2**63)):
        assert lib.am_pairwise_diff(0, a._ptr, period, out) == lib.AM_OK
        assert lib.am_null_count(out[0]) == 2
        lib.am_release(out[0])


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("t", NUMERIC)
def test_gpu_matches_pyarrow(t):
    x = sample(t, n=5000, seed=9).slice(3)
    g = am.array(x, device="cuda")
    for mode in MODES:
        for nd in (-1, 0, 2):
            assert outcome(am.round, g, nd, mode) == outcome(pc.round, x, nd, mode), (nd, mode)
    for period in (-3, 0, 1, 300, 6000):
        for fn, ref in ((am.pairwise_diff, pc.pairwise_diff),
                        (am.pairwise_diff_checked, pc.pairwise_diff_checked)):  # fmt: skip
            assert outcome(fn, g, period) == outcome(ref, unsliced(x), period), (period, fn)
