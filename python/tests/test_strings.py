"""Strings and binary (issue #13, first slice): import/export across the C
ABI (zero-copy, offsets validated, released once), the selection and null
handling functions on the CPU against pyarrow, and every other call refusing
a string handle cleanly."""

import gc
import importlib.util
import pathlib
import random
import struct
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal._capi import ffi, lib
from tests.test_tables import CPU, Counter, _addr, _argument, _error, _is_array_argument, exported

TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]
FIXED = pa.binary(3)
WORDS = ["", "a", "héllo", "日本語", "e\u0301", "zz\x00z", "abc", "A" * 40]


def values(n, t, null_fraction, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if rng.random() < null_fraction:
            out.append(None)
        elif t == FIXED:
            out.append(bytes(rng.randrange(256) for _ in range(3)))
        else:
            w = rng.choice(WORDS)
            out.append(w if t in (pa.string(), pa.large_string()) else w.encode())
    return pa.array(out, t)


def cases():
    for t in [*TYPES, FIXED]:
        for n, nulls, off in [(0, 0, 0), (1, 0, 0), (17, 0.3, 0), (200, 0.1, 5), (65, 1.0, 3)]:
            yield pytest.param(t, n, nulls, off, id=f"{t}-{n}-{nulls}-{off}")


def sliced(t, n, nulls, off, seed=1):
    return values(n + off, t, nulls, seed).slice(off)


def check(got, want):
    got = got.to_pyarrow() if isinstance(got, am.Array) else got
    if isinstance(got, pa.ChunkedArray):
        got = got.combine_chunks()
    if isinstance(want, pa.ChunkedArray):
        want = want.combine_chunks()
    assert got.type == want.type
    assert got.to_pylist() == want.to_pylist()
    got.validate(full=True)


pytestmark = pytest.mark.usefixtures("no_fallback")  # conftest.py


@pytest.mark.parametrize(("t", "n", "nulls", "off"), list(cases()))
def test_round_trip_is_zero_copy(t, n, nulls, off):
    a = sliced(t, n, nulls, off)
    m = am.array(a)
    assert m.type == str(t) if t != FIXED else m.type == "fixed_size_binary"
    back = m.to_pyarrow()
    assert back.type == a.type and back.equals(a)
    if n:  # the same bytes: no copy either way
        assert back.buffers()[-1].address == a.buffers()[-1].address


@pytest.mark.parametrize(("t", "n", "nulls", "off"), list(cases()))
def test_selection_and_nulls_match_pyarrow(t, n, nulls, off):
    a = sliced(t, n, nulls, off)
    rng = random.Random(n)
    mask = pa.array([rng.choice([True, False, None]) for _ in range(n)], pa.bool_())
    idx = pa.array(
        [rng.randrange(n) if rng.random() > 0.2 else None for _ in range(n)] if n else [],
        pa.int32(),
    )
    check(am.filter(a, mask), pc.filter(a, mask))
    check(
        am.filter(a, mask, null_selection_behavior="emit_null"),
        pc.filter(a, mask, null_selection_behavior="emit_null"),
    )
    check(am.take(a, idx), pc.take(a, idx))
    check(am.take(a, idx.cast(pa.uint16())), pc.take(a, idx.cast(pa.uint16())))
    check(am.is_null(a), pc.is_null(a))
    check(am.is_valid(a), pc.is_valid(a))
    check(am.drop_null(a), pc.drop_null(a))
    assert am.count(a).as_py() == pc.count(a).as_py()
    assert am.count(a, mode="all").as_py() == pc.count(a, mode="all").as_py()
    other = sliced(t, n, 0.5, 2, seed=9)
    check(am.fill_null(a, other), pc.fill_null(a, other))
    check(am.coalesce(a, other), pc.coalesce(a, other))
    check(am.if_else(mask, a, other), pc.if_else(mask, a, other))
    fill = pa.scalar(b"xyz" if t == FIXED else "xyz", t)
    check(am.fill_null(a, fill), pc.fill_null(a, fill))
    check(am.coalesce(a, fill), pc.coalesce(a, fill))
    check(am.if_else(mask, fill, a), pc.if_else(mask, fill, a))
    m = am.array(a)
    check(m[1:3] if n > 3 else m, a[1:3] if n > 3 else a)
    joined = pa.concat_arrays([a, other, a])
    ch = pa.chunked_array([a, other, a], t)
    check(am.concat_arrays([a, other, a]) if hasattr(am, "concat_arrays") else joined, joined)
    chmask = pa.chunked_array([mask, mask, mask])
    check(am.filter(ch, chmask), pc.filter(ch, chmask))
    check(am.drop_null(ch), pc.drop_null(ch))


def test_python_scalars():
    a = pa.array(["a", None, "ccc", "dé"])
    check(am.fill_null(a, "zz"), pc.fill_null(a, "zz"))
    check(am.coalesce(a, "é"), pc.coalesce(a, "é"))
    check(
        am.fill_null(a.cast(pa.large_string()), "q"), pc.fill_null(a.cast(pa.large_string()), "q")
    )
    b = pa.array([b"\xff", None])
    check(am.fill_null(b, b"\x00"), pc.fill_null(b, b"\x00"))


def test_string_array_errors():
    a = pa.array(["a", "b"])
    with pytest.raises(am.ArrowMetalIndexError, match="index 2 out of bounds for length 2"):
        am.take(a, pa.array([2]))
    refused = (am.ArrowMetalTypeError, pa.ArrowException, AttributeError)  # pyarrow: its own
    with warnings.catch_warnings():  # refused here, then by pyarrow (a counted fallback)
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        with pytest.raises(refused):
            am.fill_null(a, pa.array([1, 2]))
        with pytest.raises(refused):
            am.filter(a, pa.array([1, 2]))
    with pytest.raises(am.ArrowMetalInvalid):
        am.filter(a, pa.array([True]))


def _import(a, mutate=None):
    schema, array = exported(a)
    counter = Counter(array)
    if mutate:
        mutate(array)
    out = ffi.new("am_array **")
    rc = lib.am_import(schema, array, CPU, out)
    msg = _error() if rc else ""
    schema.release(schema)
    assert array.release == ffi.NULL
    return rc, (out[0] if rc == 0 else None), counter, msg


@pytest.mark.parametrize("t", TYPES)
def test_import_validates_offsets(t):
    a = values(6, t, 0, 3)
    width = "int64_t" if t in (pa.large_string(), pa.large_binary()) else "int32_t"
    rc, h, counter, _ = _import(a)
    assert rc == 0
    lib.am_release(h)
    gc.collect()
    assert counter.count == 1
    for bad, words in [
        (lambda o: o.__setitem__(0, -1), "negative"),
        (lambda o: o.__setitem__(3, 10**6), "decrease"),
    ]:
        copy = pa.concat_arrays([a])  # own buffers: the offsets are edited in place
        buf = copy.buffers()[1]
        offsets = ffi.cast(f"{width} *", buf.address)
        keep_first = offsets[0]

        def mutate(array, offsets=offsets, bad=bad):
            bad(offsets)

        rc, _h, counter, msg = _import(copy, mutate)
        offsets[0] = keep_first
        assert rc == lib.AM_EINVAL and msg.startswith("am_import:") and words in msg, msg
        assert counter.count == 1
    # an array offset past the offsets' decrease is honoured (not read)
    rc, _h, counter, msg = _import(a, lambda arr: setattr(arr, "n_buffers", 2))
    assert rc == lib.AM_EINVAL and "3 buffers" in msg


def test_struct_and_table_children_may_be_strings():
    batch = pa.record_batch({"i": [1, 2, 3], "s": ["x", None, "zé"], "b": [b"", b"q", None]})
    t = am.table(pa.Table.from_batches([batch]))
    assert t.to_pyarrow().equals(pa.Table.from_batches([batch]))
    rb = am.record_batch(batch) if hasattr(am, "record_batch") else None
    if rb is not None:
        assert rb.to_pyarrow().equals(batch)


def test_export_device_of_a_cpu_string_array():
    m = am.array(pa.array(["a", None, "bc"]))
    schema = ffi.new("struct ArrowSchema *")
    dev = ffi.new("struct ArrowDeviceArray *")
    assert lib.am_export_device(m.handle, schema, dev) == 0, _error()
    assert dev.device_type == lib.ARROW_DEVICE_CPU and dev.array.n_buffers == 3
    assert ffi.string(schema.format) == b"u"
    back = pa.Array._import_from_c(_addr(ffi.addressof(dev, "array")), _addr(schema))
    assert back.to_pylist() == ["a", None, "bc"]


# Calls that take string handles (or any handle); every other call with an
# am_array argument must refuse one, cleanly.
_TAKES_STRING = {
    "am_release", "am_export", "am_export_device", "am_length", "am_null_count",
    "am_array_type", "am_format", "am_array_device", "am_array_timezone",
    "am_filter", "am_filter_nulls", "am_take", "am_slice", "am_concat", "am_is",
    "am_drop_null", "am_fill_null", "am_coalesce", "am_if_else", "am_count", "am_to_device",
    "am_struct_make", "am_array_with_timezone", "am_table_make", "am_table_batch",
    "am_compare", "am_compare_scalar", "am_min", "am_max", "am_aggregate", "am_min_max",
    "am_first_last", "am_array_byte_width", "am_string_function", "am_utf8_slice_codeunits", "am_binary_join_element_wise",
    "am_cast", "am_cast_timestamp", "am_strptime",
    "am_string_split",  # split_pattern and the whitespace splits (test_string_split.py)
    "am_array_is_dictionary",  # any handle: 0 where it is no dictionary array
    "am_dictionary_decode",  # any other array back as it is, as pyarrow
    "am_sort_indices", "am_group_by", "am_join_indices",  # string keys (and group-by values)
    "am_is_in", "am_index_in", "am_unique", "am_value_counts", "am_count_distinct",
    "am_dictionary_encode",  # the hash-based functions but am_mode (test_string_hash.py)
}  # fmt: skip


def test_every_other_call_refuses_a_string_handle():
    for t in [pa.string(), pa.large_binary(), FIXED]:
        m = am.array(values(5, t, 0.2, 4))
        h = m.handle
        tried = 0
        for name in dir(lib):
            fn = getattr(lib, name)
            if not name.startswith("am_") or name in _TAKES_STRING or not callable(fn):
                continue
            ft = ffi.typeof(fn)
            if not any(_is_array_argument(a) for a in ft.args):
                continue
            kept = []

            def keep(x, kept=kept):
                kept.append(x)
                return x

            rc = fn(*[_argument(a, h, keep) for a in ft.args])
            if ft.result.cname != "int":  # a getter (a name, a count): no crash is the check
                continue
            if name.startswith("am_struct_") and rc == -1:  # the struct getters' "not one"
                continue
            assert rc in (lib.AM_ETYPE, lib.AM_EINVAL), (name, rc, _error())
            tried += 1
        assert tried >= 30
        s = ffi.new("am_scalar *")
        out = ffi.new("am_array **")
        assert lib.am_sum(h, s) == lib.AM_ETYPE and "no kernel for" in _error()
        # am_cast takes strings: these words are no floats (AM_EINVAL, pyarrow's
        # error); a fixed_size_binary has no cast to floats, floats none to binary
        rc = lib.am_cast(h, lib.AM_FLOAT64, 1, out)
        assert rc == (lib.AM_ETYPE if t == FIXED else lib.AM_EINVAL), _error()
        prim = am.array([1.5, 2.0])
        assert lib.am_cast(prim.handle, lib.AM_BINARY, 1, out) == lib.AM_ETYPE
        assert lib.am_compare(lib.AM_EQ, prim.handle, h, out) == lib.AM_ETYPE
        assert lib.am_compare(lib.AM_EQ, h, prim.handle, out) == lib.AM_ETYPE
        assert lib.am_aggregate(lib.AM_AGG_VARIANCE, h, ffi.NULL, s) == lib.AM_ETYPE


@pytest.mark.parametrize(("t", "n", "nulls", "off"), list(cases()))
def test_hash_functions_match_pyarrow(t, n, nulls, off):
    """unique, value_counts, count_distinct and dictionary_encode group strings and
    binary by their bytes (cpu/hash_bytes.c), in first-occurrence order."""
    a = sliced(t, n, nulls, off)
    check(am.unique(a), pc.unique(a))
    got = am.value_counts(a)
    got = got.to_pyarrow() if isinstance(got, am.Array) else got
    want = pc.value_counts(a)
    assert got.type == want.type and got.to_pylist() == want.to_pylist()
    for mode in ("only_valid", "only_null", "all"):
        assert am.count_distinct(a, mode=mode).as_py() == pc.count_distinct(a, mode=mode).as_py()
    for encoding in ("mask", "encode"):
        check(am.dictionary_encode(a, null_encoding=encoding),
              pc.dictionary_encode(a, null_encoding=encoding))  # fmt: skip
    ch = pa.chunked_array([a, a.slice(n // 2)], t)
    check(am.unique(ch), pc.unique(ch))


@pytest.mark.parametrize(("t", "n", "nulls", "off"), list(cases()))
def test_compare_and_pick_match_pyarrow(t, n, nulls, off):
    a = sliced(t, n, nulls, off)
    b = sliced(t, n, 0.3, 1, seed=5)
    s = pa.scalar(b"abc" if t == FIXED else ("héllo" if "string" in str(t) else b"abc"), t)
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        check(getattr(am, name)(a, b), getattr(pc, name)(a, b))
        check(getattr(am, name)(a, s), getattr(pc, name)(a, s))
    for name in ("min", "max", "first", "last"):
        assert getattr(am, name)(a).as_py() == getattr(pc, name)(a).as_py(), name
        got = getattr(am, name)(a, skip_nulls=False).as_py()
        assert got == getattr(pc, name)(a, skip_nulls=False).as_py(), name
    assert am.min_max(a).as_py() == pc.min_max(a).as_py()
    assert am.first_last(a, min_count=3).as_py() == pc.first_last(a, min_count=3).as_py()
    ch = pa.chunked_array([a, b], t)
    assert am.max(ch).as_py() == pc.max(ch).as_py()
    check(am.less(ch, s), pc.less(ch, s))


@pytest.mark.parametrize("t", [*TYPES, FIXED])
def test_equality_with_a_scalar_word_by_word(t):
    """equal / not_equal to a scalar go 64 slots a word: slices that start
    and end inside words, nulls, the empty value, a value longer than most."""
    for word in ["", "abc", "A" * 40] if t != FIXED else ["abc", "zz\x00"]:
        s = pa.scalar(word.encode() if pa.types.is_binary(t) or t == FIXED else word, t)
        for n, nulls, off in [(64, 0.0, 0), (130, 0.2, 7), (1000, 0.5, 63), (5, 1.0, 1)]:
            a = sliced(t, n, nulls, off, seed=n)
            check(am.equal(a, s), pc.equal(a, s))
            check(am.not_equal(a, s), pc.not_equal(a, s))


def test_python_string_scalar_compare():
    a = pa.array(["b", None, "a", "é", ""])
    check(am.equal(a, "a"), pc.equal(a, "a"))
    check(am.greater(a, "b"), pc.greater(a, "b"))
    m = am.array(a)
    check(m < "b", pc.less(a, "b"))
    assert am.max(a).as_py() == "é" and am.min(a).as_py() == ""


FUNCTIONS = [
    ("utf8_length", {}),
    ("binary_length", {}),
    ("starts_with", {"pattern": "a"}),
    ("ends_with", {"pattern": "é"}),
    ("match_substring", {"pattern": "ll"}),
    ("match_substring", {"pattern": ""}),
    ("find_substring", {"pattern": "l"}),
    ("count_substring", {"pattern": "A"}),
    ("count_substring", {"pattern": ""}),
    ("ascii_upper", {}),
    ("ascii_lower", {}),
    ("match_like", {"pattern": "h%o"}),  # the regular-expression path
    ("match_like", {"pattern": "_%"}),
    ("match_like", {"pattern": "%l%"}),  # pyarrow's fast paths
    ("match_like", {"pattern": "%\\"}),  # a backslash there is a plain byte
    ("match_like", {"pattern": "\\%%"}),  # and here an escape
    ("ascii_trim_whitespace", {}),
    ("utf8_ltrim_whitespace", {}),
    ("utf8_trim", {"characters": "aé"}),
    ("ascii_rtrim", {"characters": "oz"}),
]


@pytest.mark.parametrize(("t", "n", "nulls", "off"), list(cases()))
def test_string_functions_match_pyarrow(t, n, nulls, off):
    a = sliced(t, n, nulls, off)
    ch = pa.chunked_array([a, a], t)
    for name, kw in FUNCTIONS:
        if t in (pa.binary(), pa.large_binary(), FIXED) and "pattern" in kw:
            kw = {"pattern": kw["pattern"].encode()}
        try:
            want = getattr(pc, name)(a, **kw)
        except pa.ArrowNotImplementedError:  # pyarrow has no kernel: neither here
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
                with pytest.raises(pa.ArrowNotImplementedError):
                    getattr(am, name)(a, **kw)
            continue
        check(getattr(am, name)(a, **kw), want)
        check(getattr(am, name)(ch, **kw), getattr(pc, name)(ch, **kw))
        if "pattern" in kw:
            opts = pc.MatchSubstringOptions(kw["pattern"])
            check(getattr(am, name)(a, options=opts), want)


def test_ignore_case_runs_in_the_library():
    """Over any text (test_string_ignore_case.py has the rest)."""
    a = pa.array(["Hello", "WORLD", None, "ßtraẞe"])
    before = am.fallbacks().get("match_substring", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", am.ArrowMetalFallbackWarning)
        for p in ["o", "SS", "ß"]:
            got = am.match_substring(a, p, ignore_case=True)
            assert got.equals(pc.match_substring(a, p, ignore_case=True))
    assert am.fallbacks().get("match_substring", 0) == before


def test_string_function_errors():
    out = ffi.new("am_array **")
    keep = am.array(pa.array(["a"]))
    h = keep.handle
    assert lib.am_string_function(lib.AM_UTF8_LENGTH, h, b"x", 1, 0, out) == lib.AM_EINVAL
    assert lib.am_string_function(lib.AM_STARTS_WITH, h, ffi.NULL, 3, 0, out) == lib.AM_EINVAL
    assert lib.am_string_function(99, h, ffi.NULL, 0, 0, out) == lib.AM_EINVAL
    assert lib.am_string_function(lib.AM_STARTS_WITH, h, b"a", 1, 4, out) == lib.AM_EINVAL
    numbers = am.array([1, 2])
    assert (
        lib.am_string_function(lib.AM_UTF8_LENGTH, numbers.handle, ffi.NULL, 0, 0, out)
        == lib.AM_ETYPE
    )
    assert "Function 'utf8_length' has no kernel matching input types (int64)" in _error()


TRIMS = ["ascii_trim_whitespace", "ascii_ltrim_whitespace", "ascii_rtrim_whitespace",
         "utf8_trim_whitespace", "utf8_ltrim_whitespace", "utf8_rtrim_whitespace"]  # fmt: skip
TRIMS_WITH_CHARACTERS = ["ascii_trim", "ascii_ltrim", "ascii_rtrim", "utf8_trim", "utf8_ltrim",
                         "utf8_rtrim"]  # fmt: skip


def as_bytes(result):
    """A string result's values as bytes (they need not be UTF-8)."""
    result = result.to_pyarrow() if isinstance(result, am.Array) else result
    return result.view(pa.large_binary() if result.type == pa.large_string() else pa.binary())


def test_trim_whitespace_is_pyarrows_set():
    """Every code point (surrogates aside) at both ends of a value: the utf8_ trims drop
    exactly the code points pyarrow's drop, and the ascii_ trims the same bytes."""
    points = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    arr = pa.array([chr(c) + "x" + chr(c) for c in points])
    for name in TRIMS:
        assert getattr(am, name)(arr).equals(getattr(pc, name)(arr)), name


@pytest.mark.parametrize("t", [pa.string(), pa.large_string()])
def test_trims_match_pyarrow(t):
    words = ["", " a ", "\t\nx\r\x0b\x0c", "\u3000全角\u3000", "\xa0nb\xa0", "\x1cq\x1f", "  ",
             "é a é", None, "\u2028z\u205f", "abcba", "日本語", "a\x00 "]  # fmt: skip
    arr = pa.array(words * 30, t).slice(3)
    ch = pa.chunked_array([arr, arr.slice(5)], t)
    for name in TRIMS:
        check(getattr(am, name)(arr), getattr(pc, name)(arr))
        check(getattr(am, name)(ch), getattr(pc, name)(ch))
    for name in TRIMS_WITH_CHARACTERS:
        for c in ["", " ", "a", "é ", "ab", " \u3000", "\x00", "日x"]:
            want = getattr(pc, name)(arr, characters=c)
            # ascii_ trims bytes: non-ASCII characters cut code points apart
            assert as_bytes(getattr(am, name)(arr, characters=c)).equals(as_bytes(want))
            opts = pc.TrimOptions(c)
            assert as_bytes(getattr(am, name)(arr, options=opts)).equals(as_bytes(want))
        with pytest.raises(pa.ArrowInvalid, match="cannot be called without options"):
            getattr(am, name)(arr)  # pyarrow's refusal


def test_utf8_trims_meeting_bytes_that_are_not_utf8_fail_as_pyarrow():
    """Only the bytes a scan reaches are decoded: past the first kept code point
    anything is copied; what a scan meets that is not UTF-8 fails the call."""
    for raw in [b"\xff x \xff", b" a\x80 ", b" a \x80", b"\x80 a ", b" \xe6\x97 ", b"\xe6\x97\xa5 ",
                b"\xf0\x9f\x99\x82\xe2\x80\xa8", b"\xe2\x80\xa8\xc3", b"\xc3"]:  # fmt: skip
        arr = pa.array([raw], pa.binary()).view(pa.string())
        for name in TRIMS[3:]:
            try:
                want = as_bytes(getattr(pc, name)(arr))
            except pa.ArrowInvalid:
                with pytest.raises(pa.ArrowInvalid, match="Invalid UTF8 sequence in input"):
                    getattr(am, name)(arr)
                continue
            assert as_bytes(getattr(am, name)(arr)).equals(want), (raw, name)


def test_trim_errors():
    out = ffi.new("am_array **")
    keep = am.array(pa.array([" a "]))
    h = keep.handle
    # the whitespace trims take no characters, the others no flags
    assert lib.am_string_function(lib.AM_UTF8_TRIM_WHITESPACE, h, b" ", 1, 0, out) == lib.AM_EINVAL
    assert lib.am_string_function(lib.AM_UTF8_TRIM, h, b" ", 1, 1, out) == lib.AM_EINVAL
    assert "utf8_trim takes no flags" in _error()
    assert lib.am_string_function(lib.AM_UTF8_TRIM, h, b"\xff", 1, 0, out) == lib.AM_EINVAL
    assert "Invalid UTF8 sequence in input" in _error()
    assert lib.am_string_function(lib.AM_ASCII_TRIM, h, b"\xff", 1, 0, out) == lib.AM_OK
    lib.am_release(out[0])
    out[0] = ffi.NULL
    binary = am.array(pa.array([b" a "]))
    assert lib.am_string_function(lib.AM_ASCII_TRIM, binary.handle, b" ", 1, 0, out) == lib.AM_ETYPE
    assert "Function 'ascii_trim' has no kernel matching input types (binary)" in _error()
    assert out[0] == ffi.NULL


CASE_FUNCTIONS = ["utf8_upper", "utf8_lower"]


def _skip_unless_case_tables_match():
    """The library's case tables are one pyarrow's (core/gen_unicode_case.py);
    a pyarrow of another major version has another utf8proc, whose mappings
    differ for some code points (seen: pyarrow 25.0.1 against 26.0.1)."""
    path = pathlib.Path(__file__).resolve().parents[2] / "libarrowmetal" / "core"
    spec = importlib.util.spec_from_file_location("gen_unicode_case", path / "gen_unicode_case.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    source = gen.source_pyarrow()
    if not gen.same_major(source):
        pytest.skip(
            f"the case tables are pyarrow {source}'s; pyarrow {pa.__version__} here has another utf8proc"
        )


def _from_bytes(raw, validity=None):
    """A string array over these bytes as they are (pyarrow's constructor
    would validate them)."""
    import numpy as np

    offsets = np.zeros(len(raw) + 1, np.int32)
    offsets[1:] = np.cumsum([len(r) for r in raw])
    bitmap = None if validity is None else pa.py_buffer(bytes([validity]))
    return pa.Array.from_buffers(
        pa.string(),
        len(raw),
        [bitmap, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(raw))],
    )


@pytest.mark.parametrize("name", CASE_FUNCTIONS)
def test_unicode_case_is_pyarrows_for_every_code_point(name):
    _skip_unless_case_tables_match()
    # every code point but the surrogates, 1,000 to a value, both widths
    points = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    words = ["".join(points[i : i + 1000]) for i in range(0, len(points), 1000)]
    for t in (pa.string(), pa.large_string()):
        arr = pa.array(words + [None, "ǅ"], t)
        assert getattr(am, name)(arr).equals(getattr(pc, name)(arr))
        assert getattr(am, name)(arr[3:]).equals(getattr(pc, name)(arr[3:]))


@pytest.mark.parametrize("name", CASE_FUNCTIONS)
def test_unicode_case_bytes_as_pyarrow_reads_them(name):
    """Overlong forms, surrogates and code points past U+10FFFF decode as
    pyarrow decodes them and come out in their shortest form; bytes that
    are not UTF-8 in a valid slot fail; in a null slot they are not read."""
    for raw in [b"\xc0\x80", b"A\xc0\x80z", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                b"\xf7\xbf\xbf\xbf", b"\xe0\x80\x80", b"\xc3", b"\x80", b"a\xff", b"ab\xe6\x97"]:  # fmt: skip
        arr = _from_bytes([b"ok", raw])
        try:
            want = getattr(pc, name)(arr)
        except pa.ArrowInvalid:
            with pytest.raises(pa.ArrowInvalid, match="Invalid UTF8 sequence in input"):
                getattr(am, name)(arr)
            continue
        assert as_bytes(getattr(am, name)(arr)).equals(as_bytes(want)), raw
    masked = _from_bytes([b"Ab", b"\xff\xfe", b"cD"], validity=0b101)
    assert getattr(am, name)(masked).equals(getattr(pc, name)(masked))
    # a sequence across two values is two invalid values (value by value),
    # after a null slot too; a valid one that starts mid-sequence as well
    for raw, validity in [([b"a\xc3", b"\xa9b"], None), ([b"a\xc3", b"x", b"\xa9b"], 0b101),
                          ([b"ab", b"\xa9b"], None)]:  # fmt: skip
        arr = _from_bytes(raw, validity)
        with pytest.raises(pa.ArrowInvalid, match="Invalid UTF8 sequence in input"):
            getattr(pc, name)(arr)
        with pytest.raises(pa.ArrowInvalid, match="Invalid UTF8 sequence in input"):
            getattr(am, name)(arr)


def test_unicode_case_values_that_grow_and_shrink():
    # 'Ⱥ' (2 bytes) lower is U+2C65 (3); 'ı' (2) upper is 'I' (1): a result
    # longer than its input is sized again, a shorter one keeps its bytes
    for word, count in [("Ⱥ", 1), ("Ⱥ", 50_000), ("ıȺ", 3), ("K", 7)]:
        arr = pa.chunked_array([[word * count, None, "x"], ["Ⱥ" * 5]])
        for name in CASE_FUNCTIONS:
            assert getattr(am, name)(arr).equals(getattr(pc, name)(arr)), (word, count, name)
    # all ASCII, 8 bytes at a time and the tail
    arr = pa.array(["The Quick Brown Fox @[`{ 0129 azAZ" * k for k in range(12)])
    for name in CASE_FUNCTIONS:
        assert getattr(am, name)(arr).equals(getattr(pc, name)(arr))


def test_unicode_case_refuses_binary():
    out = ffi.new("am_array **")
    binary = am.array(pa.array([b"a"]))
    assert lib.am_string_function(lib.AM_UTF8_UPPER, binary.handle, ffi.NULL, 0, 0, out) == (
        lib.AM_ETYPE
    )
    assert "Function 'utf8_upper' has no kernel matching input types (binary)" in _error()
    text = am.array(pa.array(["a"]))
    assert lib.am_string_function(lib.AM_UTF8_LOWER, text.handle, b"a", 1, 0, out) == lib.AM_EINVAL
    assert "utf8_lower takes no pattern and no flags" in _error()
    assert out[0] == ffi.NULL


@pytest.mark.parametrize("t", [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()])
def test_filter_by_mask_words_matches_pyarrow(t):
    # string_filter.c: the mask read 64 slots a word; short values moved 16
    # bytes at a time where the source has them, so values at the very end
    # of an exactly sized data buffer must come out whole
    rng = random.Random(9)
    words = ["", "a", "bc", "x" * 15, "y" * 16, "z" * 17, "日本語", "w" * 40]
    raw = [rng.choice(words) for _ in range(3000)] + ["end"]
    data = "".join(raw).encode()
    arr = pa.array(raw, t)
    exact = pa.Array.from_buffers(t, len(raw), [None, arr.buffers()[1], pa.py_buffer(data)])
    for values in [exact, exact[7:], exact.slice(2990), pa.array(raw[:5] + [None] * 3, t)]:
        for mask in [
            pa.array([rng.random() < 0.5 for _ in range(len(values))]),
            pa.array(
                [None if rng.random() < 0.2 else rng.random() < 0.6 for _ in range(len(values))]
            ),
            pa.array([True] * (len(values) + 5))[5:],
        ]:
            for behavior in ["drop", "emit_null"]:
                got = am.filter(values, mask, null_selection_behavior=behavior)
                assert got.to_pyarrow().equals(
                    pc.filter(values, mask, null_selection_behavior=behavior)
                ), (t, len(values), behavior)


@pytest.mark.parametrize("name", ["ascii_upper", "ascii_lower"])
def test_ascii_case_shares_offsets_and_validity(name):
    # values from byte 0: the result keeps the input's offsets and bitmap
    # (pyarrow's does too) and has bytes of its own; a deeper slice does not
    arr = pa.array(["abC", None, "Déf", "", "xyz"] * 100, pa.large_string())
    got = getattr(am, name)(arr).to_pyarrow()
    assert got.equals(getattr(pc, name)(arr))
    assert got.buffers()[0].address == arr.buffers()[0].address
    assert got.buffers()[1].address == arr.buffers()[1].address
    assert got.buffers()[2].address != arr.buffers()[2].address
    assert getattr(am, name)(arr).to_pyarrow().equals(got)
    deep = arr[7:]
    assert getattr(am, name)(deep).to_pyarrow().equals(getattr(pc, name)(deep))


@pytest.mark.parametrize("t", [pa.string(), pa.large_string()])
def test_utf8_slice_codeunits_slices_code_points_as_python(t):
    """Every (start, stop, step) of a grid, stop None both ways, against
    pyarrow (Python's slicing of each value's code points), over multi-byte
    code points, nulls and a sliced input; SliceOptions too."""
    words = ["héllo", "日本語x", "", "ab", "a", "abcdefg", None, "𝄞b€", "e\u0301"] * 9
    a = pa.array(words, t).slice(2)
    grid = [-10, -5, -2, -1, 0, 1, 2, 3, 6, 10]
    for start in grid:
        for stop in [*grid, None]:
            for step in (-3, -1, 1, 2):
                got = am.utf8_slice_codeunits(a, start, stop, step)
                check(got, pc.utf8_slice_codeunits(a, start, stop, step))
    opts = pc.SliceOptions(1, None, 2)
    check(am.utf8_slice_codeunits(a, options=opts), pc.utf8_slice_codeunits(a, options=opts))


def test_utf8_slice_codeunits_refusals():
    with pytest.raises(am.ArrowMetalError, match="Slice step cannot be zero"):
        am.utf8_slice_codeunits(pa.array(["ab"]), 0, 1, 0)
    broken = pa.Array.from_buffers(
        pa.string(), 1, [None, pa.py_buffer(struct.pack("<ii", 0, 4)), pa.py_buffer(b"a\xffbc")]
    )
    with pytest.raises(am.ArrowMetalError, match="Invalid UTF8 sequence in input"):
        am.utf8_slice_codeunits(broken, 0, 2)
    with warnings.catch_warnings(), pytest.raises(pa.ArrowNotImplementedError):
        warnings.simplefilter("ignore")  # the fallback to pyarrow, which refuses binary
        am.utf8_slice_codeunits(pa.array([b"x"]), 0, 1)


INTEGER_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(),
                 pa.uint32(), pa.uint64()]  # fmt: skip
PARSED = ["0", "1", "-1", "007", "-0", "127", "-128", "128", "255", "256", "65535", "-32769",
          "2147483647", "4294967296", "9223372036854775807", "-9223372036854775808",
          "18446744073709551615", "18446744073709551616", "0x7f", "0X80", "0xff", "0x100",
          "0xFFFFFFFFFFFFFFFF", "0x", "-0x1", "+1", " 1", "1 ", "", "1.0", "abc", "1_0", "٣"]  # fmt: skip


@pytest.mark.parametrize("t", INTEGER_TYPES)
@pytest.mark.parametrize("source", [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()])
def test_cast_strings_to_integers_parses_as_pyarrow(t, source):
    """Each text alone (a value that does not parse fails the call), then the
    texts that parse together, with nulls and an offset."""
    fine = []
    for text in PARSED:
        a = pa.array([text], source)
        try:
            want = pc.cast(a, t).to_pylist()
        except pa.ArrowInvalid as e:
            with pytest.raises(am.ArrowMetalError, match="Failed to parse string"):
                am.cast(a, t)
            assert "Failed to parse string" in str(e)
            continue
        assert am.cast(a, t).to_pylist() == want, (text, t)
        fine.append(text)
    a = pa.array(["9", *fine, None] * 3, source).slice(1)
    check(am.cast(a, t), pc.cast(a, t))


def test_cast_strings_to_bool_and_back():
    texts = ["true", "FALSE", "True", "1", "0", None, "fAlSe"]
    a = pa.array(texts)
    check(am.cast(a, pa.bool_()), pc.cast(a, pa.bool_()))
    for bad in ["yes", "", "2", "t"]:
        with pytest.raises(am.ArrowMetalError, match="Failed to parse value"):
            am.cast(pa.array([bad]), pa.bool_())
    b = pa.array([True, None, False])
    for t in (pa.string(), pa.large_string()):
        check(am.cast(b, t), pc.cast(b, t))


@pytest.mark.parametrize("t", INTEGER_TYPES)
def test_cast_integers_to_strings(t):
    info = np.iinfo(t.to_pandas_dtype())
    a = pa.array([0, 1, info.min, info.max, None, 7, info.max // 3], t).slice(1)
    for target in (pa.string(), pa.large_string()):
        check(am.cast(a, target), pc.cast(a, target))
    with warnings.catch_warnings(), pytest.raises(pa.ArrowNotImplementedError):
        warnings.simplefilter("ignore")  # to binary: pyarrow's refusal, after a fallback
        am.cast(a, pa.binary())
