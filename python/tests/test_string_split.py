"""am.split_pattern, am.ascii_split_whitespace and am.utf8_split_whitespace
(am_string_split) against pyarrow.compute: a seeded random sweep of values
built from separators, patterns, max_splits and reverse over the four string
and binary types (sliced, with nulls), every code point as whitespace, bytes
that are not UTF-8, values of many pieces, chunked arrays, the options as
pyarrow takes them, pyarrow's refusals, views (pyarrow has no kernel: its
answer over string / binary), and arrays on a GPU where CUDA works."""

import numpy as np
import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

CUDA = {name: ok for name, ok, _ in am.backends()}["cuda"]
CUDA_REASON = {name: reason for name, _, reason in am.backends()}["cuda"]
needs_cuda = pytest.mark.skipif(not CUDA, reason=f"no usable CUDA backend: {CUDA_REASON}")

TEXT = [pa.string(), pa.large_string()]
TYPES = TEXT + [pa.binary(), pa.large_binary()]
# Values are runs of these: separators of one and more bytes, overlapping ones
# ("a" then "aa"), multi-byte text, NUL and every kind of whitespace.
TOKENS = ["a", "b", ",", ", ", "aa", "é", "日本", "\x00", " ", "  ", "\t", "\n\r", "\x0b\x0c",
          "\u3000", "\xa0", "\x1c", "\x85", "\u2028", "\u205f", "xyz", "ab"]  # fmt: skip
PATTERNS = [",", ", ", "a", "aa", "aaa", "ab", "ba", "é", "日本", "\x00", " ", "xyz", "zz"]
MAX_SPLITS = [None, 0, 1, 2, 3, 7, -2]
WHITESPACE = ["ascii_split_whitespace", "utf8_split_whitespace"]

pytestmark = pytest.mark.usefixtures("no_fallback")  # conftest.py


def _guarded(values, t, offset=0):
    """An array of `values` (after `offset` of them) with a valid byte before the first
    and after the last: pyarrow's UTF-8 whitespace scan reads a code point past a
    value's end (before its start under reverse) and finds no separator where those
    bytes are not UTF-8, which past a buffer's last value are its padding (the
    header's note)."""
    x = "x" if t in TEXT else b"x"
    return pa.array([x, *values, x], t).slice(1 + offset, len(values) - offset)


def _values(rng, t, n, nulls=0.2, offset=0):
    """n random values of type t (runs of TOKENS; binary: a stray 0xff too) after
    `offset` more, sliced off."""
    out = []
    for _ in range(n + offset):
        if rng.random() < nulls:
            out.append(None)
            continue
        text = "".join(TOKENS[k] for k in rng.integers(0, len(TOKENS), rng.integers(0, 9)))
        v = text if t in TEXT else text.encode()
        if t not in TEXT and rng.random() < 0.2:
            v += b"\xff,"
        out.append(v)
    return _guarded(out, t, offset)


def _same(got, want):
    assert isinstance(got, type(want)), type(got)
    assert got.type == want.type
    assert got.equals(want), f"{got.to_pylist()} != {want.to_pylist()}"


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_split_pattern_sweep(t):
    rng = np.random.default_rng(TYPES.index(t))
    for trial in range(60):
        a = _values(rng, t, int(rng.integers(0, 80)), offset=int(rng.integers(0, 9)))
        pattern = PATTERNS[trial % len(PATTERNS)]
        if t not in TEXT and trial % 7 == 0:
            pattern = b"\xff,"
        most = MAX_SPLITS[int(rng.integers(0, len(MAX_SPLITS)))]
        for reverse in (False, True):
            got = am.split_pattern(a, pattern, max_splits=most, reverse=reverse)
            _same(got, pc.split_pattern(a, pattern, max_splits=most, reverse=reverse))


@pytest.mark.parametrize("name", WHITESPACE)
@pytest.mark.parametrize("t", TEXT, ids=str)
def test_whitespace_sweep(name, t):
    rng = np.random.default_rng(len(name) + len(str(t)))
    for _ in range(60):
        a = _values(rng, t, int(rng.integers(0, 80)), offset=int(rng.integers(0, 9)))
        most = MAX_SPLITS[int(rng.integers(0, len(MAX_SPLITS)))]
        for reverse in (False, True):
            got = getattr(am, name)(a, max_splits=most, reverse=reverse)
            _same(got, getattr(pc, name)(a, max_splits=most, reverse=reverse))


@pytest.mark.parametrize("name", WHITESPACE)
def test_every_code_point_as_whitespace(name):
    """Each code point between two letters, alone, and doubled at a value's end."""
    points = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for make in (lambda c: f"a{chr(c)}b", lambda c: f"a{chr(c)}{chr(c)}"):
        a = _guarded([make(c) for c in points], pa.string())
        for reverse in (False, True):
            _same(getattr(am, name)(a, reverse=reverse), getattr(pc, name)(a, reverse=reverse))


def _unchecked(values):
    """A string array of raw bytes (not UTF-8 checked), as pyarrow takes it from C."""
    b = pa.array(values, pa.binary())
    return pa.Array.from_buffers(pa.string(), len(b), b.buffers(), b.null_count)


@pytest.mark.parametrize("name", [*WHITESPACE, "split_pattern"])
def test_bytes_that_are_not_utf8(name):
    """pyarrow's UTF-8 scan stops at a byte that is not UTF-8 (the rest one piece, no
    error); the byte scans do not care."""
    a = _unchecked([b"a b\xffc d", b"\xff  x y", b"x y \x80 z", b"\xc3\x28 a", b"a \xe6\x97 b c"])
    for most in (None, 1):
        for reverse in (False, True):
            kw = {"max_splits": most, "reverse": reverse}
            if name == "split_pattern":
                got, want = am.split_pattern(a, " ", **kw), pc.split_pattern(a, " ", **kw)
            else:
                got, want = getattr(am, name)(a, **kw), getattr(pc, name)(a, **kw)
            assert got.type == want.type and got.equals(want)


@pytest.mark.parametrize("reverse", [False, True])
def test_many_pieces(reverse):
    """A value of 100,000 separators, and many rows of many pieces: the offsets and
    the reverse stack regrow."""
    one = pa.array(["," * 100_000, "x", ",a" * 50_000, None])
    for most in (None, 3, 99_999):
        got = am.split_pattern(one, ",", max_splits=most, reverse=reverse)
        _same(got, pc.split_pattern(one, ",", max_splits=most, reverse=reverse))
    rng = np.random.default_rng(7)
    many = pa.array([",".join("x" * int(k) for k in rng.integers(0, 4, rng.integers(1, 40)))
                     for _ in range(20_000)], pa.large_string())  # fmt: skip
    want = pc.split_pattern(many, ",", reverse=reverse)
    _same(am.split_pattern(many, ",", reverse=reverse), want)
    spaces = _guarded([" \u3000 ".join(["w"] * int(k)) for k in rng.integers(0, 30, 5000)],
                      pa.string())  # fmt: skip
    for name in WHITESPACE:
        want = getattr(pc, name)(spaces, reverse=reverse)
        _same(getattr(am, name)(spaces, reverse=reverse), want)


def test_edges():
    a = pa.array(["", ",", ",,", "a,", ",a", "a,,b", None, "aaa", "aaaa"])
    for most in (None, 0, 1, 2):
        for reverse in (False, True):
            for p in (",", "aa"):
                got = am.split_pattern(a, p, max_splits=most, reverse=reverse)
                _same(got, pc.split_pattern(a, p, max_splits=most, reverse=reverse))
    assert am.split_pattern(pa.array(["aaa"]), "aa").to_pylist() == [["", "a"]]
    assert am.split_pattern(pa.array(["aaa"]), "aa", reverse=True).to_pylist() == [["a", ""]]
    got = am.split_pattern(pa.array(["a,b,c"]), ",", max_splits=1, reverse=True)
    assert got.to_pylist() == [["a,b", "c"]]
    assert am.utf8_split_whitespace(pa.array(["a  "])).to_pylist() == [["a", "", ""]]
    assert am.ascii_split_whitespace(pa.array(["a  "])).to_pylist() == [["a", ""]]


def test_huge_max_splits_under_reverse():
    """Divergence: pyarrow 26 aborts the process under reverse with a max_splits near
    2^62 (it reserves that many pieces); the library splits without a limit there."""
    a = pa.array(["a,b,,c", None, ",x,"])
    want = pc.split_pattern(a, ",", reverse=True)
    _same(am.split_pattern(a, ",", max_splits=2**62, reverse=True), want)
    _same(am.utf8_split_whitespace(a, max_splits=2**62, reverse=True),
          pc.utf8_split_whitespace(a, reverse=True))  # fmt: skip


def test_results_are_lists_of_the_input_type():
    for t in TYPES:
        v = "a,b" if t in TEXT else b"a,b"
        got = am.split_pattern(pa.array([v, None], t), ",")
        assert got.type == pa.list_(t)  # list, not large_list, for the large types too
        assert got.null_count == 1 and got.offset == 0
        got.validate(full=True)


def test_options_as_pyarrow_takes_them():
    a = pa.array(["a,b,c", "d"])
    opts = pc.SplitPatternOptions(",", max_splits=1, reverse=True)
    _same(am.split_pattern(a, options=opts), pc.split_pattern(a, options=opts))
    _same(am.split_pattern(a, b","), pc.split_pattern(a, b","))
    _same(am.split_pattern(a, pattern=",", max_splits=1), pc.split_pattern(a, ",", max_splits=1))
    opts = pc.SplitOptions(max_splits=0)
    _same(am.ascii_split_whitespace(a, options=opts), pc.ascii_split_whitespace(a, options=opts))
    with pytest.raises(TypeError):
        am.split_pattern(a, ",", options=pc.SplitPatternOptions(","))
    with pytest.raises(pa.ArrowInvalid, match="cannot be called without options"):
        am.split_pattern(a)
    with pytest.raises(TypeError):
        am.utf8_split_whitespace(a, options=pc.SplitPatternOptions(","))


def test_empty_pattern():
    with pytest.raises(pa.ArrowInvalid, match="Empty separator"):
        am.split_pattern(pa.array(["a"]), "")
    with pytest.raises(pa.ArrowInvalid, match="Empty separator"):
        am.split_pattern(pa.array([None], pa.string()), "")
    _same(am.split_pattern(pa.array([], pa.string()), ""),
          pc.split_pattern(pa.array([], pa.string()), ""))  # fmt: skip


@pytest.mark.parametrize("t", [pa.int64(), pa.bool_()], ids=str)
def test_refused_types(t):
    a = pa.array([None], t)
    with pytest.raises(pa.ArrowNotImplementedError, match="no kernel matching input types"):
        pc.split_pattern(a, ",")
    with pytest.raises(pa.ArrowNotImplementedError, match="no kernel matching input types"):
        am.split_pattern(a, ",")
    with pytest.raises(pa.ArrowNotImplementedError, match="no kernel matching input types"):
        am.utf8_split_whitespace(a)


def test_types_the_package_hands_to_pyarrow():
    """fixed_size_binary, and binary to the whitespace splits: pyarrow runs the call
    (counted), and refuses it as pyarrow does."""
    import warnings

    before = sum(am.fallbacks().values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        with pytest.raises(pa.ArrowNotImplementedError, match="no kernel matching input types"):
            am.split_pattern(pa.array([b"abc"], pa.binary(3)), ",")
        with pytest.raises(pa.ArrowNotImplementedError, match="ascii_split_whitespace"):
            am.ascii_split_whitespace(pa.array([b"a b"]))
    assert sum(am.fallbacks().values()) == before + 2


def test_chunked():
    rng = np.random.default_rng(3)
    chunks = [_values(rng, pa.string(), n) for n in (5, 0, 17, 1)]
    c = pa.chunked_array(chunks, pa.string())
    for most in (None, 1):
        got = am.split_pattern(c, ",", max_splits=most, reverse=True)
        assert isinstance(got, pa.ChunkedArray)
        assert got.equals(pc.split_pattern(c, ",", max_splits=most, reverse=True))
        got = am.utf8_split_whitespace(c, max_splits=most)
        assert got.equals(pc.utf8_split_whitespace(c, max_splits=most))
    empty = pa.chunked_array([], pa.large_string())
    got = am.split_pattern(empty, ",")
    assert got.type == pa.list_(pa.large_string()) and got.num_chunks == 0


def test_views():
    """pyarrow 26 has no kernel for views; the library's answer is pyarrow's over the
    same values as string / binary, the items in the view type."""
    rng = np.random.default_rng(11)
    for flat, view in ((pa.string(), pa.string_view()), (pa.binary(), pa.binary_view())):
        a = _values(rng, flat, 200, offset=3)
        got = am.split_pattern(a.cast(view), ",", max_splits=2, reverse=True)
        want = pc.split_pattern(a, ",", max_splits=2, reverse=True)
        assert got.type == pa.list_(view)
        assert got.cast(pa.list_(flat)).equals(want)
    a = _values(rng, pa.string(), 200)
    got = am.utf8_split_whitespace(a.cast(pa.string_view()))
    assert got.cast(pa.list_(pa.string())).equals(pc.utf8_split_whitespace(a))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_arrays_on_a_device(device):
    """An am.Array input (on a GPU: split on a host copy, the results moved back)."""
    rng = np.random.default_rng(5)
    for t in TYPES:
        a = _values(rng, t, 3000, offset=5)
        placed = am.array(a, device=device)
        assert placed.backend == device
        for reverse in (False, True):
            got = am.split_pattern(placed, ",", max_splits=3, reverse=reverse)
            _same(got, pc.split_pattern(a, ",", max_splits=3, reverse=reverse))
        if t in TEXT:
            _same(am.utf8_split_whitespace(placed), pc.utf8_split_whitespace(a))


def test_scalar_runs_in_pyarrow():
    import warnings

    before = am.fallbacks().get("split_pattern", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        got = am.split_pattern(pa.scalar("a,b"), ",")
    assert got.equals(pc.split_pattern(pa.scalar("a,b"), ","))
    assert am.fallbacks()["split_pattern"] == before + 1
