"""The hash-based functions over strings and binary (issue #13; abi/string_hash.c):
is_in, index_in, unique, value_counts, count_distinct and dictionary_encode against
pyarrow.compute over string, large_string, binary, large_binary and fixed_size_binary
arrays (sliced, nulls, empty strings, non-ASCII, embedded NULs, empty and all-null
arrays, past the CPU pool's threshold), ChunkedArrays, options objects, value sets of
every other string type (pyarrow's casts and its errors), string dictionaries, and
mode's refusal. Every call runs in the library (no fallback is counted). Each test
runs on the CPU device and, where the CUDA backend works, on CUDA: the inputs live on
the GPU and the results come back there."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am

CUDA = {name: ok for name, ok, _ in am.backends()}["cuda"]
CUDA_REASON = {name: reason for name, _, reason in am.backends()}["cuda"]
needs_cuda = pytest.mark.skipif(not CUDA, reason=f"no usable CUDA backend: {CUDA_REASON}")

TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary(), pa.binary(3)]
WORDS = ["", "a", "ab", "a\x00", "a\x00\x00", "abc", "héllo", "日本語", "e\u0301", "🙂",
         "x" * 300, "zz\x00z", "A"]  # fmt: skip
BYTES = [b"\xff", b"\x80abc", b"\xc3\x28"]  # not UTF-8
FIXED = [b"abc", b"\x00\x00\x00", b"\x00\x00\x01", b"\xff\xfe\xfd", "é!".encode(), b"xyz"]


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=needs_cuda)])
def device(request):
    return request.param


# The tests whose calls pyarrow runs: mode's refusal, strings against numbers.
PYARROW_RUNS = {"test_mode_refuses_strings_as_pyarrow", "test_strings_and_numbers_run_in_pyarrow"}


@pytest.fixture(autouse=True)
def counted(request):
    """No call of a test runs pyarrow in the library's place (PYARROW_RUNS aside)."""
    before = am.fallbacks()
    yield
    if request.function.__name__ not in PYARROW_RUNS:
        assert am.fallbacks() == before


def words(t, distinct=None):
    """The words of type t; with `distinct`, that many generated ones."""
    if pa.types.is_fixed_size_binary(t):
        if distinct:
            return [bytes([i % 256, (i * 7) % 251, (i // 256) % 256]) for i in range(distinct)]
        return FIXED
    text = WORDS if not distinct else [f"é{i:x}" + "\x00" * (i % 5 == 0) for i in range(distinct)]
    if t in (pa.string(), pa.large_string()):
        return text
    return [w.encode() for w in text] + (BYTES if not distinct else [])


def sample(t, n, seed, nulls=0.25, offset=0, distinct=None):
    """n values of t drawn from its words, about `nulls` of them null, after `offset`
    slots that the slice leaves out."""
    rng = np.random.default_rng(seed)
    pool = words(t, distinct)
    pick = rng.integers(0, len(pool), n + offset)
    mask = rng.random(n + offset) < nulls
    return pa.array([None if m else pool[k] for k, m in zip(pick, mask)], t).slice(offset)


def norm(x):
    if isinstance(x, am.Array):
        x = x.to_pyarrow()
    if isinstance(x, pa.ChunkedArray):
        return ("chunked", str(x.type), [norm(c) for c in x.chunks])
    if isinstance(x, pa.DictionaryArray):
        return ("dict", str(x.type), norm(x.indices), norm(x.dictionary))
    if isinstance(x, pa.StructArray):
        return ("struct", str(x.type), [norm(x.field(i)) for i in range(x.type.num_fields)])
    if isinstance(x, pa.Array):
        x.validate(full=True)
        return (str(x.type), x.to_pylist())
    return repr(x.as_py())


def same(got, want):
    assert norm(got) == norm(want)


def placed(arr, device):
    a = am.array(arr, device=device)
    assert a.backend == device
    return a


def on(device, result):
    """A result of the library: an am.Array on `device`, or a pyarrow array made of
    such (value_counts' struct, dictionary_encode's dictionary array)."""
    if isinstance(result, am.Array):
        assert result.backend == device
    return result


def grouping_calls(a):
    yield "unique", am.unique(a), lambda x: pc.unique(x)
    yield "value_counts", am.value_counts(a), lambda x: pc.value_counts(x)
    for mode in ("only_valid", "only_null", "all"):
        yield mode, am.count_distinct(a, mode=mode), lambda x, m=mode: pc.count_distinct(x, m)
    for enc in ("mask", "encode"):
        yield (
            enc,
            am.dictionary_encode(a, null_encoding=enc),
            (lambda x, e=enc: pc.dictionary_encode(x, null_encoding=e)),
        )


# (rows, offset, null fraction, distinct words: None for WORDS)
SHAPES = [(0, 0, 0.0, None), (1, 0, 1.0, None), (7, 3, 0.3, None), (65, 63, 0.2, None),
          (3000, 17, 0.25, None), (3000, 1, 0.1, 1000), (300_000, 5, 0.05, 5000),
          (70, 7, 1.0, None)]  # fmt: skip


@pytest.mark.parametrize("t", TYPES, ids=str)
@pytest.mark.parametrize(("n", "offset", "nulls", "distinct"), SHAPES)
def test_grouping_functions_match_pyarrow(device, t, n, offset, nulls, distinct):
    arr = sample(t, n, seed=n + offset, nulls=nulls, offset=offset, distinct=distinct)
    a = placed(arr, device)
    for name, got, want in grouping_calls(a):
        same(on(device, got), want(arr))
        if name == "unique":
            assert got.type == am.array(arr).type


@pytest.mark.parametrize("t", [pa.string(), pa.binary(), pa.binary(3)], ids=str)
def test_grouping_many_distinct(t):
    """Enough distinct values that each part's table is probed with the look ahead,
    values of 3 to 9 bytes (both sides of the 7 bytes a key word holds exactly), and
    the parts' groups merged."""
    arr = sample(t, 400_000, seed=31, nulls=0.05, offset=5, distinct=150_000)
    for name, got, want in grouping_calls(arr):
        same(got, want(arr))


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_equal_bytes_are_one_value(t):
    """Values that differ only past a NUL, by a trailing NUL or in length are distinct;
    equal bytes from different places in the buffer are one."""
    pool = words(t)
    arr = pa.array(pool + [None] + pool[::-1] + [None] + pool, t)
    same(am.value_counts(arr), pc.value_counts(arr))
    same(am.dictionary_encode(arr), pc.dictionary_encode(arr))
    assert am.count_distinct(arr).as_py() == len(set(pool))


@pytest.mark.parametrize("width", [0, 1, 8, 9, 16, 17, 32])
def test_fixed_size_binary_widths(width):
    """Widths around the hash's 8-byte words, none at all, and 16 and 32 bytes (kept
    whole in the table's slots, as decimal keys are)."""
    rng = np.random.default_rng(width)
    pool = [bytes(rng.integers(0, 3, width).tolist()) for _ in range(6)]
    arr = pa.array([None if k == 6 else pool[k] for k in rng.integers(0, 7, 500)],
                   pa.binary(width)).slice(3)  # fmt: skip
    for name, got, want in grouping_calls(arr):
        same(got, want(arr))
    s = pa.array(pool[:3] + [None], pa.binary(width))
    same(am.index_in(arr, value_set=s), pc.index_in(arr, value_set=s))
    same(am.is_in(arr, value_set=s, skip_nulls=True), pc.is_in(arr, value_set=s, skip_nulls=True))


def value_sets(st):
    """(name, value set of type st): duplicates and nulls, no nulls, empty, all-null,
    only three-byte words, every word, many words."""
    pool = words(st)
    three = [w for w in pool if len(w.encode() if isinstance(w, str) else w) == 3]
    return [
        ("dups-null", pa.array([pool[2], None, pool[0], pool[2], None, pool[1]], st)),
        ("no-null", pa.array([pool[1], pool[3], pool[1]], st)),
        ("empty", pa.array([], st)),
        ("all-null", pa.array([None, None], st)),
        ("three", pa.array(three + [None, three[0]], st)),
        ("all", pa.array(pool + [None] + pool, st).slice(2)),
        ("many", sample(st, 2000, seed=7, nulls=0.01, distinct=1500)),
    ]


def outcome(fn, *args, **kwargs):
    """(the exception pyarrow's class of which was raised, result) of fn(*args, **kwargs)."""
    try:
        return None, norm(fn(*args, **kwargs))
    except pa.ArrowException as e:
        return e, None


VIEWS = [pa.string_view(), pa.binary_view()]
SET_TYPES = TYPES + [pa.binary(4)] + VIEWS


def as_set(st, s):
    """A value set of st with the values of set s (st a view type: by a cast)."""
    return s.cast(st) if st in VIEWS else s


@pytest.mark.parametrize("t", TYPES + VIEWS, ids=str)
@pytest.mark.parametrize("st", SET_TYPES, ids=str)
@pytest.mark.parametrize("op", ["is_in", "index_in"])
def test_lookup_matches_pyarrow(device, t, st, op):
    """Every pair of string types: pyarrow's casts where they succeed (a lookup of
    bytes), its errors where they fail (its class, the message after the library's
    function name). View values: no kernel, as pyarrow. Divergence: pyarrow 26 casts
    a view set for fixed_size_binary values without checking widths and matches
    wrongly; the library looks it up by its bytes (pyarrow's answer over a binary set)."""
    flat = {pa.string_view(): pa.string(), pa.binary_view(): pa.binary()}.get(t, t)
    arr = sample(flat, 500, seed=3, offset=5)
    if t in VIEWS:
        arr = arr.cast(t)
        if device != "cpu":
            pytest.skip("views live on the host")
    a = placed(arr, device)
    base = {pa.string_view(): pa.string(), pa.binary_view(): pa.binary()}.get(st, st)
    sets = value_sets(base) if st != pa.binary(4) else [
        ("fixed4", pa.array([b"abcd", None], st)), ("empty", pa.array([], st)),
        ("all-null", pa.array([None], st))]  # fmt: skip
    for name, s in sets:
        vs = as_set(st, s)
        for skip in (False, True):
            fixed_in_view = pa.types.is_fixed_size_binary(t) and st in VIEWS
            bytes_set = s.cast(pa.binary()) if fixed_in_view else vs
            want = outcome(getattr(pc, op), arr, value_set=bytes_set, skip_nulls=skip)
            got = outcome(getattr(am, op), a, value_set=vs, skip_nulls=skip)
            if want[0] is None:  # the result stays on the values' device
                on(device, getattr(am, op)(a, value_set=vs, skip_nulls=skip))
            if want[0] is None:
                assert got == want, (name, skip)
            else:  # the library's message names its function first
                assert isinstance(got[0], type(want[0])), (name, skip, got, want)
                assert str(got[0]).endswith(str(want[0])), (name, skip, got, want)


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_lookup_large(device, t):
    """Past the CPU pool's threshold, a set of 100,000 values and one of 3."""
    arr = sample(t, 300_000, seed=11, nulls=0.05, offset=3, distinct=200_000)
    a = placed(arr, device)
    for s in (sample(t, 100_000, seed=12, nulls=0.01, distinct=200_000), arr[:3]):
        for skip in (False, True):
            same(on(device, am.is_in(a, value_set=s, skip_nulls=skip)),
                 pc.is_in(arr, value_set=s, skip_nulls=skip))  # fmt: skip
            same(on(device, am.index_in(a, value_set=s, skip_nulls=skip)),
                 pc.index_in(arr, value_set=s, skip_nulls=skip))  # fmt: skip


def test_value_set_on_the_device(device):
    """A value set on the GPU meets values on the host: the result is the values'."""
    arr = sample(pa.string(), 100, seed=1)
    s = placed(pa.array(["abc", None, "héllo"]), device)
    got = am.index_in(arr, value_set=s)
    assert isinstance(got, am.Array) and got.backend == "cpu"
    same(got, pc.index_in(arr, value_set=pa.array(["abc", None, "héllo"])))


@pytest.mark.parametrize("t", [pa.string(), pa.binary(), pa.binary(3)], ids=str)
def test_chunked_arrays(t):
    chunks = [sample(t, n, seed=n, offset=n % 4) for n in (0, 5, 130, 0, 77)]
    ch = pa.chunked_array(chunks, t)
    s = pa.array(words(t)[:4] + [None], t)
    for got, want in [
        (am.unique(ch), pc.unique(ch)),
        (am.value_counts(ch), pc.value_counts(ch)),
        (am.count_distinct(ch, mode="all"), pc.count_distinct(ch, mode="all")),
        (am.dictionary_encode(ch), pc.dictionary_encode(ch)),
        (am.dictionary_encode(ch, null_encoding="encode"),
         pc.dictionary_encode(ch, null_encoding="encode")),
        (am.is_in(ch, value_set=s), pc.is_in(ch, value_set=s)),
        (am.index_in(ch, value_set=s, skip_nulls=True), pc.index_in(ch, value_set=s, skip_nulls=True)),
        (am.is_in(chunks[2], value_set=pa.chunked_array([s[:2], s[2:]])),
         pc.is_in(chunks[2], value_set=pa.chunked_array([s[:2], s[2:]]))),
    ]:  # fmt: skip
        same(got, want)
    empty = pa.chunked_array([], t)
    same(am.unique(empty), pc.unique(empty))
    same(am.is_in(empty, value_set=s), pc.is_in(empty, value_set=s))


def test_options_objects():
    arr = sample(pa.large_string(), 200, seed=5, offset=2)
    s = pa.array(["abc", None, "", "日本語"], pa.string())
    for skip in (False, True):
        opts = pc.SetLookupOptions(s, skip_nulls=skip)
        same(am.is_in(arr, options=opts), pc.is_in(arr, options=opts))
        same(am.index_in(arr, options=opts), pc.index_in(arr, options=opts))
    for enc in ("mask", "encode"):
        opts = pc.DictionaryEncodeOptions(null_encoding=enc)
        same(am.dictionary_encode(arr, options=opts), pc.dictionary_encode(arr, options=opts))
    for mode in ("only_valid", "only_null", "all"):
        opts = pc.CountOptions(mode=mode)
        same(am.count_distinct(arr, options=opts), pc.count_distinct(arr, options=opts))


@pytest.mark.parametrize("st", [pa.string(), pa.large_binary(), pa.binary(3)], ids=str)
def test_string_dictionary_in_a_value_set(st):
    """A string dictionary's values looked up in a set of any string type (pyarrow
    decodes it, then casts as for strings)."""
    arr = pa.array(["abc", None, "xyz", "", "abc", "é!"]).dictionary_encode()
    s = pa.array([b"xyz", None, b"abc"], st) if st != pa.string() else pa.array(["xyz", None])
    for op in ("is_in", "index_in"):
        for skip in (False, True):
            got = outcome(getattr(am, op), arr, value_set=s, skip_nulls=skip)
            want = outcome(getattr(pc, op), arr, value_set=s, skip_nulls=skip)
            if want[0] is None:
                assert got == want, (op, skip)
            else:
                assert isinstance(got[0], type(want[0])), (op, skip, got, want)


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_mode_refuses_strings_as_pyarrow(t):
    """pyarrow's mode has no kernel for strings; the library's refuses them too
    (AM_ETYPE), and Python's call ends in pyarrow's error."""
    from arrowmetal import ffi, lib

    arr = sample(t, 10, seed=2)
    modes, counts = ffi.new("am_array **"), ffi.new("am_array **")
    assert lib.am_mode(am.array(arr)._ptr, 1, 1, 0, modes, counts) == lib.AM_ETYPE
    with pytest.raises(pa.ArrowNotImplementedError, match="mode"):
        pc.mode(arr)
    with pytest.raises(pa.ArrowNotImplementedError, match="mode"):
        am.mode(arr)


@pytest.mark.parametrize(
    ("values", "value_set"),
    [([1, 2], ["1", "2"]), ([1, 2], ["1", "x"]), (["1"], [1]), ([b"12"], [12]), (["a"], [None])],
)
def test_strings_and_numbers_run_in_pyarrow(values, value_set):
    """Strings against numbers (or a typeless null set): pyarrow parses one side as
    the other's type or refuses, by its casts' own rules; it runs the call (counted)."""
    v, s = pa.array(values), pa.array(value_set)
    for op in ("is_in", "index_in"):
        before = am.fallbacks().get(op, 0)
        want = outcome(getattr(pc, op), v, value_set=s)
        got = outcome(getattr(am, op), v, value_set=am.array(s) if value_set[0] else s)
        assert am.fallbacks().get(op, 0) == before + 1
        if want[0] is None:
            assert got == want
        else:
            assert isinstance(got[0], type(want[0]))
