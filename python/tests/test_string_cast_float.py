"""am.cast between strings and float32/float64 (issue #13) against
pyarrow.compute.cast: the shortest round-trip text pyarrow writes, byte for
byte, over random bit patterns of both widths and the values where the layout
or the digits turn (powers of two and ten and their neighbours, subnormals,
integers near 2^53, the decimal/exponential boundaries); and pyarrow's reading
of texts (its grammar, its refusals and their message, correct rounding per
width), also random. The C library's side is conformance/cases/strings.json's
float casts."""

import warnings

import numpy as np
import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

pytestmark = pytest.mark.usefixtures("no_fallback")  # conftest.py

WIDTHS = [(np.float64, np.uint64, pa.float64()), (np.float32, np.uint32, pa.float32())]


def _texts_equal(want, got):
    got = got.to_pyarrow() if isinstance(got, am.Array) else got
    assert got.type == want.type
    same = np.asarray(pc.fill_null(pc.equal(want, got), True))
    bad = np.nonzero(~same)[0][:5]
    assert not len(bad), [(want[i].as_py(), got[i].as_py()) for i in bad]
    assert got.null_count == want.null_count


def _special_values(dtype):
    with np.errstate(over="ignore"):
        powers = [10.0**k for k in range(-323, 309)] + [2.0**k for k in range(-1074, 1024)]
        x = np.array(powers + [float(f"{d}e{k}") for d in (1, 5, 9.999) for k in range(-320, 300)])
        x = x.astype(dtype)
    ints = np.arange(-2000, 2000, dtype=dtype)
    near = np.array([2.0**53 - 1, 2.0**53, 2.0**53 + 2, 2.0**64, 123456789012345678.0], dtype)
    edges = np.array([1e-7, 1e-6, 9.99999e-7, 999999999.0, 1e9, 1e10, 9999999999.0], dtype)
    tiny = np.arange(1, 2000, dtype=np.uint64 if dtype == np.float64 else np.uint32).view(dtype)
    finfo = np.finfo(dtype)
    extremes = np.array([finfo.max, finfo.tiny, -finfo.max, 0.0, -0.0, np.inf, -np.inf, np.nan])
    x = np.concatenate([x, ints, near, edges, tiny, extremes.astype(dtype)])
    with np.errstate(over="ignore"):
        return np.concatenate([x, -x, np.nextafter(x, np.inf), np.nextafter(x, -np.inf)])


@pytest.mark.parametrize(("dtype", "bits", "t"), WIDTHS, ids=["float64", "float32"])
@pytest.mark.parametrize("to", [pa.string(), pa.large_string()])
def test_random_bit_patterns_format_as_pyarrow(dtype, bits, t, to):
    rng = np.random.default_rng(13)
    x = rng.integers(0, np.iinfo(bits).max, 200_000, dtype=bits, endpoint=True).view(dtype)
    a = pa.array(x, t)
    _texts_equal(pc.cast(a, to), am.cast(a, to))


@pytest.mark.parametrize(("dtype", "bits", "t"), WIDTHS, ids=["float64", "float32"])
def test_special_values_format_as_pyarrow(dtype, bits, t):
    x = _special_values(dtype)
    a = pa.array(x, t)
    _texts_equal(pc.cast(a, pa.string()), am.cast(a, pa.string()))


def test_the_layout_turns_where_pyarrows_does():
    values = [0.0, -0.0, 1e-7, 1e-6, 123456789.0, 1e9, 1e10, 1e20, 1e21, 0.1, 1.5e300, 5e-324,
              float("inf"), float("-inf"), float("nan"), 2.0**63]  # fmt: skip
    for t in (pa.float64(), pa.float32()):
        a = pa.array(values, t)
        assert am.cast(a, pa.string()).to_pylist() == pc.cast(a, pa.string()).to_pylist()


def test_nulls_offsets_and_chunks():
    a = pa.array([1.5, None, -2.25, None, 1e300], pa.float64()).slice(1)
    _texts_equal(pc.cast(a, pa.string()), am.cast(a, pa.string()))
    s = pa.array(["1", None, "2.5", "-inf"]).slice(1)
    assert am.cast(s, pa.float32()).to_pylist() == pc.cast(s, pa.float32()).to_pylist()
    c = pa.chunked_array([["1.25"], [], [None, "1e3"]])
    got = am.cast(c, pa.float64())
    assert got.to_pylist() == [1.25, None, 1000.0]


# Arrow's grammar: what it reads (and to what) and what it refuses.
READ = ["1", "1e3", "1E3", "+1.5", "-.5", ".5", "1.", "1e+5", "1e-5", "00012", "inf", "-Inf",
        "INF", "+inf", "infinity", "-INFINITY", "nan", "NaN", "-nan", "+nan", "nan()",
        "nan(abc_1)", "-0", "-0.0", "0e999999999999999999", "1e-400", "1e400", "-1e400",
        "1e18446744073709551617", "2.4703282292062327e-324", "2.4703282292062328e-324",
        "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
        "0." + "0" * 400 + "1e400", "1" * 400, "1" * 400 + "e-400", "3." + "3" * 800,
        "1.00000005960464477539062500001", "1.000000059604644775390625",
        "123456789012345678901234567890", "4.9406564584124654e-324"]  # fmt: skip
REFUSED = ["", " 1", "1 ", "\t1", "1\n", ".", "-", "+", "e5", "1e", "1e+", "1.5E+", "0x10",
           "0x1p3", "1_000", "1,5", "1.5e3.2", "1d", "1f", "1e5e5", "++1", "--1", "-+1", "+-1",
           "-+inf", "infinit", "infinityx", "in", "nanx", "nan(", "nan(!)", "nan(1)x", "inf()",
           "infinity()", ".e5", "+.e1", "١"]  # fmt: skip


@pytest.mark.parametrize("t", [pa.float64(), pa.float32()])
@pytest.mark.parametrize("s", [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()])
def test_texts_read_as_pyarrow_reads_them(t, s):
    a = pa.array(READ, pa.string()).cast(s)
    want, got = pc.cast(a, t), am.cast(a, t).to_pyarrow()
    bits = pa.uint64() if t == pa.float64() else pa.uint32()
    assert got.type == t
    assert got.view(bits).equals(want.view(bits))  # every bit: -0, NaN's sign, rounding


@pytest.mark.parametrize("t", [pa.float64(), pa.float32()])
@pytest.mark.parametrize("text", REFUSED)
def test_refused_texts_raise_pyarrows_error(t, text):
    a = pa.array(["1.5", text, None])
    with pytest.raises(pa.ArrowInvalid) as want:
        pc.cast(a, t)
    with pytest.raises(ValueError) as got:
        am.cast(a, t)
    assert str(want.value) in str(got.value)


def test_the_last_bad_text_is_named_as_pyarrow_names_it():
    a = pa.array(["x", "1", None, "y", "2"])
    for t in (pa.float64(), pa.float32(), pa.int32()):
        with pytest.raises(pa.ArrowInvalid) as want:
            pc.cast(a, t)
        with pytest.raises(ValueError) as got:
            am.cast(a, t)
        assert "'y'" in str(want.value) and str(want.value) in str(got.value)


@pytest.mark.parametrize(("dtype", "bits", "t"), WIDTHS, ids=["float64", "float32"])
def test_random_texts_read_as_pyarrow_reads_them(dtype, bits, t):
    """Texts of random values in every style (shortest, 17 and 25 digits,
    fixed and exponential), read back at both widths."""
    rng = np.random.default_rng(29)
    x = rng.integers(0, np.iinfo(np.uint64).max, 20_000, dtype=np.uint64).view(np.float64)
    x = x[np.isfinite(x)]
    scaled = rng.standard_normal(20_000) * 10.0 ** rng.integers(-45, 40, 20_000)
    texts = (
        [repr(float(v)) for v in x]
        + [f"{v:.17g}" for v in scaled]
        + [f"{v:.25e}" for v in x[:5000]]
    )
    texts += [f"{v:.30f}" for v in scaled[:5000]] + [f"{v:+.3E}" for v in scaled[:5000]]
    a = pa.array(texts)
    want, got = pc.cast(a, t), am.cast(a, t).to_pyarrow()
    width = pa.uint64() if t == pa.float64() else pa.uint32()
    assert got.view(width).equals(want.view(width))


@pytest.mark.parametrize(("dtype", "bits", "t"), WIDTHS, ids=["float64", "float32"])
def test_written_texts_read_back_to_the_same_bits(dtype, bits, t):
    rng = np.random.default_rng(31)
    x = rng.integers(0, np.iinfo(bits).max, 50_000, dtype=bits, endpoint=True)
    a = pa.array(x.view(dtype), t)
    back = am.cast(am.cast(a, pa.string()), t).to_pyarrow()
    width = pa.uint64() if t == pa.float64() else pa.uint32()
    nan = np.isnan(x.view(dtype))
    got = np.asarray(back.view(width))
    assert (got[~nan] == x[~nan]).all()
    assert np.isnan(np.asarray(back)[nan]).all()


def test_casts_pyarrow_refuses_end_in_its_error():
    """No float -> binary, no fixed_size_binary -> float in pyarrow: the library
    refuses them too, and the package lets pyarrow raise its own words (a
    counted call)."""
    for x, t in ((pa.array([1.5]), pa.binary()), (pa.array([b"abc"], pa.binary(3)), pa.float64())):
        before = am.fallbacks().get("cast", 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
            with pytest.raises(pa.ArrowNotImplementedError, match="Unsupported cast from"):
                am.cast(x, t)
        assert am.fallbacks().get("cast", 0) == before + 1
