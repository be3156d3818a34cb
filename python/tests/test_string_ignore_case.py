"""MatchSubstringOptions(ignore_case=True) of starts_with, ends_with,
match_substring, find_substring, count_substring and match_like in the
library (issue #13) against pyarrow 26, whose RE2 matches code points by
their simple case folding orbits in string arrays (Latin-1, ASCII letters
alone, in binary ones): words of many scripts, every kind of byte that is
not UTF-8, patterns RE2 refuses, a random sweep over the whole Unicode
range, and match_like's regular expression without ignore_case (the same
reading of UTF-8). No call falls back to pyarrow."""

import importlib.util
import pathlib
import random
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am

pytestmark = pytest.mark.usefixtures("no_fallback")

MATCHING = ["starts_with", "ends_with", "match_substring", "find_substring", "count_substring",
            "match_like"]  # fmt: skip
TEXT = [pa.string(), pa.large_string()]
BYTES = [pa.binary(), pa.large_binary()]

# Greek (final sigma, the symbol forms), Cyrillic (its old forms U+1C80-88),
# Turkish dotted and dotless i, German ß and ẞ, the Kelvin and Ångström signs,
# titlecase digraphs, code points whose fold changes their UTF-8 length
# (ı, K, ſ, Ⱥ, ɐ, ẞ), 4-byte letters (Deseret, Adlam), emoji, combining marks.
WORDS = ["Σίσυφος", "ΣΊΣΥΦΟΣ", "σοφός ς", "ϐϑϕϖϰϱϵ ΒΘΦΠΚΡΕ", "КИРИЛЛИЦА", "кириллица ᲀᲁᲂ",
         "İstanbul", "istanbul", "ISTANBUL ıi", "Straße", "STRAẞE", "strasse", "\u212a\u212b",
         "kå", "ǅemal Ǆ ǆ", "ǈǉǇ ǲǱǳ", "ſtop", "Ⱥⱥ ɐⱯ", "𐐀𐐨 𞤀𞤢", "🙂 🙃 👍🏽", "e\u0301 É é",
         "ΐ ΐ ΰ ΰ", "ﬅﬆ", "µΜμ", "", "a", "plain ascii Text 123", "x" * 40 + "K" * 3]  # fmt: skip
PATTERNS = ["σ", "Σ", "ς", "σος", "ΣΟΣ", "ϐ", "β", "к", "ᲀ", "в", "i", "İ", "ı", "I", "ß", "ẞ",
            "ss", "k", "K", "\u212a", "å", "\u212b", "ǅ", "ǆ", "Ǆ", "ǉ", "ſ", "s", "ⱥ", "Ɐ",
            "𐐨", "𞤢", "🙂", "e\u0301", "é", "ΐ", "ﬆ", "µ", "μ", "", "a", "TEXT", "xk"]  # fmt: skip
LIKE_PATTERNS = ["%σ%", "σ%", "%ς", "_σ%", "%Κ_", "%", "", "_", "__", "%ss%", "ST%E", "%\\%%",
                 "%ǅ%", "k%", "%K", "x%k", "\\k%", "%\\", "a\\", "_🙂%", "%e\u0301%"]  # fmt: skip


def raw_strings(raw, t=None, validity=None):
    """A string array of these bytes as they are (pyarrow's constructor would
    check them)."""
    t = t or pa.string()
    width = np.int64 if t == pa.large_string() else np.int32
    offsets = np.zeros(len(raw) + 1, width)
    offsets[1:] = np.cumsum([len(r) for r in raw])
    bitmap = None if validity is None else pa.py_buffer(np.packbits(validity, bitorder="little"))
    return pa.Array.from_buffers(
        t, len(raw), [bitmap, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(raw))]
    )


def outcome(module, name, arr, pattern, ignore_case=True):
    try:
        got = getattr(module, name)(arr, pattern, ignore_case=ignore_case)
    except pa.ArrowInvalid as e:
        return ("ArrowInvalid", str(e).split(": ", 1)[-1] if module is am else str(e))
    got = got.to_pyarrow() if isinstance(got, am.Array) else got
    return got.combine_chunks() if isinstance(got, pa.ChunkedArray) else got


def same(name, arr, pattern, ignore_case=True):
    want = outcome(pc, name, arr, pattern, ignore_case)
    got = outcome(am, name, arr, pattern, ignore_case)
    if isinstance(want, tuple):
        assert got == want, (name, pattern, arr)
    else:
        assert not isinstance(got, tuple), (name, pattern, got)
        assert got.type == want.type and got.to_pylist() == want.to_pylist(), (name, pattern)


@pytest.mark.parametrize("t", TEXT)
def test_scripts_match_pyarrow(t):
    arr = pa.array(WORDS + [None], t)
    for name in MATCHING:
        for p in LIKE_PATTERNS if name == "match_like" else PATTERNS:
            same(name, arr, p)
            same(name, arr[3:], p)
    chunked = pa.chunked_array([WORDS[:5], [], [None, *WORDS[5:]]], t)
    for name in MATCHING:
        same(name, chunked, "σ%" if name == "match_like" else "Σ")
        opts = pc.MatchSubstringOptions("ς", ignore_case=True)
        got = getattr(am, name)(chunked, options=opts)
        assert got.equals(getattr(pc, name)(chunked, options=opts))


def test_find_substring_is_a_byte_index_of_the_value_as_it_is():
    # the folds of K (3 bytes) and ẞ (3) are k and ß (1 and 2): the index
    # counts the value's own bytes, as pyarrow's RE2 does
    arr = pa.array(["\u212a\u212aabc", "xxẞa", "ǅǅx", "🙂ſs", "ıI", None])
    got = am.find_substring(arr, "A", ignore_case=True)
    assert got.to_pylist() == pc.find_substring(arr, "A", ignore_case=True).to_pylist()
    assert got.to_pylist() == [6, 5, -1, -1, -1, None]
    assert am.find_substring(arr, "S", ignore_case=True).to_pylist() == [-1, -1, -1, 4, -1, None]
    assert am.find_substring(arr, "ß", ignore_case=True).to_pylist()[1] == 2


def test_count_substring_counts_matches_of_any_length():
    arr = pa.array(["\u212a\u212ak", "kKK", "ssſSſ", "", "ǆǅǄ", None])
    for p in ["k", "\u212a", "s", "ſs", "ǅ", ""]:
        same("count_substring", arr, p)
    # an empty pattern matches before each byte and at the end, as RE2 steps
    assert am.count_substring(arr, "", ignore_case=True).to_pylist()[0] == 8  # 7 bytes


@pytest.mark.parametrize("t", [*BYTES, pa.binary(3)])
def test_binary_types_fold_ascii_letters_alone(t):
    """RE2's Latin-1 mode: 'k' matches 'K', never 'à' / 'À' nor a UTF-8 form."""
    if t == pa.binary(3):
        words = [b"aKk", b"\xc0\xe0k", b"\xe0\xe0\xe0", "é!".encode(), None]
        names = ["find_substring", "count_substring"]
    else:
        words = [w.encode() for w in WORDS] + [b"\xc0", b"\xe0", b"\xff\xfe", b"K\x00k", None]
        names = MATCHING
    arr = pa.array(words, t)
    for name in names:
        for p in [b"k", b"K", b"\xe0", b"\xc0", "é".encode(), "É".encode(), b"\xff", b"",
                  b"S", "ß".encode(), b"\x00k"]:  # fmt: skip
            same(name, arr, p)
    for p in [b"%k%", b"_\xe0", b"%\xff%", b"\\%", b"%"]:
        same("match_like", pa.array(words, pa.large_binary() if t == pa.binary(3) else t), p)


# bytes that are not UTF-8 (or are, as RE2 reads them: surrogates), each as
# RE2 reads a value: a lone lead or continuation byte, overlong forms, a
# code point past U+10FFFF, a sequence cut short, F5-FF.
NOT_UTF8 = [b"\xff", b"a\xffb", b"\xc3", b"\xe2\x84K", b"\x80", b"\xc1\x81", b"\xc0\x80",
            b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe0\x80\x80", b"\xf0\x80\x80\x80",
            b"\xf8\x88\x80\x80\x80", b"\xe2\x84\xaa\xe2\x84", b"K\xe2\x84\xaa\x80k",
            b"\xc3\xc3\xa9", b"ab\xe6\x97", "Σ".encode() + b"\xcf"]  # fmt: skip


@pytest.mark.parametrize("t", TEXT)
def test_values_that_are_not_utf8(t):
    arr = raw_strings(NOT_UTF8 + [b"k", b""], t)
    for name in MATCHING:
        pats = (["%", "_", "__", "%k%", "k%", "%k", "a%b", "a_b", "%é%", "", "\\%"]
                if name == "match_like" else ["k", "K", "é", "a", "", "σ", "\ud800"])  # fmt: skip
        for p in pats:
            p = p.encode("utf-8", "surrogatepass")
            same(name, arr, p)
            if name == "match_like":
                same(name, arr, p, ignore_case=False)  # the same regular expression


def test_folding_characters_among_bytes_that_are_not_utf8():
    """Random values of characters whose folds differ in UTF-8 length, LIKE's
    special characters and byte runs that are not UTF-8, with random patterns
    of those characters: the matchers scan for a match's first byte, fold each
    rune as they compare it, and ends_with walks back a rune at a time."""
    rng = random.Random(5)
    chars = ["k", "K", "\u212a", "s", "ſ", "ß", "ẞ", "σ", "ς", "Σ", "é", "É", "ı", "i", "İ", "a",
             "日", "🙂", "𐐀", "𐐨", "Ⱥ", "ⱥ", "%", "_", "\\"]  # fmt: skip
    junk = [b"\x80", b"\xc3", b"\xe2\x84", b"\xf0\x9f", b"\xed\xa0\x80", b"\xe0\x80\x80", b"\xff"]
    raw = [b"".join(rng.choice(junk) if rng.random() < 0.2 else rng.choice(chars).encode()
                    for _ in range(rng.randrange(9))) for _ in range(2000)]  # fmt: skip
    for t in [*TEXT, *BYTES]:
        arr = raw_strings(
            raw, pa.large_string() if t in (pa.large_string(), pa.large_binary()) else None
        )
        arr = arr.view(t)
        for _ in range(40):
            p = "".join(rng.choice(chars) for _ in range(rng.randrange(4)))
            for name in MATCHING:
                if name == "match_like":
                    p = rng.choice(["%", "_", ""]) + p + rng.choice(["%", "_", ""])
                same(name, arr, p.encode())


@pytest.mark.parametrize("name", MATCHING)
def test_patterns_that_are_not_utf8(name):
    """RE2 refuses them for an array of one slot or more, even all null; an
    empty array never compiles the expression."""
    arrays = [pa.array(["k", "K"]), pa.array([None], pa.large_string()),
              pa.array([], pa.string()), pa.array(["x", "y"]).slice(2)]  # fmt: skip
    for p in [b"\xff", b"k\xc3", b"\xc0\x80", b"\xe0\x80\x80", b"\xf4\x90\x80\x80", b"\xe2\x84",
              b"%\xff%" if name == "match_like" else b"a\xffb"]:  # fmt: skip
        for arr in arrays:
            same(name, arr, p)
    # a backslash between two bytes of one code point leaves them one: valid
    same("match_like", pa.array(["é", "É", "x"]), b"\xc3\\\xa9")


def test_match_like_with_ignore_case_takes_no_fast_path():
    """Every pattern is its regular expression: a value with a byte that '.'
    does not take matches nothing, '%' included (without ignore_case '%' is a
    fast path that matches every value)."""
    arr = raw_strings([b"\xff", b"ok", b"\xe0\x80\x80", b""])
    assert am.match_like(arr, "%", ignore_case=True).to_pylist() == [False, True, True, True]
    assert am.match_like(arr, "%").to_pylist() == [True, True, True, True]
    for p in ["%", "%%", "%k%", "O%", "%K"]:
        same("match_like", arr, p)
        same("match_like", arr, p, ignore_case=False)
    newline = pa.array(["a\nb", "A\nB", "a\n"])
    for p in ["a_b", "a%b", "A%", "%\n"]:
        same("match_like", newline, p)


def test_match_like_regular_expression_without_ignore_case():
    """The case-sensitive patterns pyarrow runs as RE2 read UTF-8 as RE2 does
    (formerly a byte-wise reading here: '_' took a lone byte)."""
    arr = raw_strings(NOT_UTF8 + [b"ab", b"a\xc3\xa9b"])
    for p in ["_", "a_b", "a%b", "%_", "_%", "%\xe9_", "___"]:
        same("match_like", arr, p, ignore_case=False)
    for p in [b"\xff%_", b"%\xff_", b"\xff", b"%\xff%", b"\xff%", b"%\xe0\x80\x80%", b"\\\xff"]:
        same("match_like", arr, p, ignore_case=False)


def test_views_fold_as_their_flat_types():
    words = pa.array(WORDS + [None])
    for t, flat in [(pa.string_view(), words), (pa.binary_view(), words.cast(pa.binary()))]:
        view = flat.cast(t)
        for name in MATCHING:
            p = "%Σ%" if name == "match_like" else "ς"
            p = p if t == pa.string_view() else p.encode()
            got = getattr(am, name)(view, p, ignore_case=True).to_pyarrow()
            assert got.to_pylist() == getattr(pc, name)(flat, p, ignore_case=True).to_pylist()


def test_ascii_words_of_every_length():
    """ASCII words of 1 to 36 characters, ending in 'k' or the Kelvin sign: the
    matchers' first-byte scan and their match at each candidate byte."""
    words = ["The Quick Brown Fox @[`{ 0129 azAZ"[:k] + "k" for k in range(36)]
    arr = pa.array(words + [w + "\u212a" for w in words])
    for name in MATCHING:
        for p in ["%Q%K", "t%", "%FOX%"] if name == "match_like" else ["K", "QUICK", "azaz"]:
            same(name, arr, p)


def _folds():
    """{code point: its fold} for every code point the library folds to
    another, read from the generated table (core/unicode_fold_table.c);
    skipped for a pyarrow of another major version, whose RE2 may fold
    otherwise."""
    path = pathlib.Path(__file__).resolve().parents[2] / "libarrowmetal" / "core"
    spec = importlib.util.spec_from_file_location("gen_unicode_fold", path / "gen_unicode_fold.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    source = gen.source_pyarrow()
    if not gen.same_major(source):
        pytest.skip(f"the fold table is pyarrow {source}'s; pyarrow {pa.__version__} is here")
    text = (path / "unicode_fold_table.c").read_text()

    def numbers(name):
        body = re.search(name + r"\[[^=]*= \{(.*?)\n\};", text, re.DOTALL).group(1)
        return [int(v) for v in re.findall(r"-?\d+", body)]

    index, deltas = numbers("am_fold_block"), numbers("am_fold_delta")
    return {(b << 8) | k: (b << 8) + k + deltas[256 * block + k]
            for b, block in enumerate(index) if block for k in range(256)
            if deltas[256 * block + k]}  # fmt: skip


def test_random_sweep_over_the_whole_unicode_range():
    """Values of random code points (half of them letters with a case, half
    anywhere in U+0000-U+10FFFF, surrogates included), patterns cut from them
    with each code point's case changed at random, in both string widths."""
    _folds()
    rng = random.Random(13)
    cased = [c for c in range(0x110000)
             if not 0xD800 <= c <= 0xDFFF and (chr(c).upper() != chr(c) or chr(c).lower() != chr(c))]  # fmt: skip

    def point():
        return rng.choice(cased) if rng.random() < 0.5 else rng.randrange(0x110000)

    def recase(c):
        ch = chr(c)
        pick = rng.choice([ch, ch.upper(), ch.lower(), ch.swapcase(), ch.title()])
        return pick if len(pick) == 1 else ch

    words = [[point() for _ in range(rng.randrange(0, 12))] for _ in range(4000)]
    raw = [b"".join(chr(c).encode("utf-8", "surrogatepass") for c in w) for w in words]
    folded_only = 0  # rows matched with ignore_case and not without
    for t in TEXT:
        arr = raw_strings(raw, t, validity=[rng.random() > 0.05 for _ in raw])
        for k in range(150):
            w = rng.choice(words)
            a = rng.randrange(len(w) + 1)
            b = rng.randrange(a, len(w) + 1)
            cut = "".join(recase(c) for c in w[a:b])
            p = cut.encode("utf-8", "surrogatepass")
            for name in MATCHING[:5]:
                same(name, arr, p)
            folded_only += (pc.match_substring(arr, p, ignore_case=True).true_count
                            - pc.match_substring(arr, p).true_count)  # fmt: skip
            # LIKE: the cut between wildcards, or with a character replaced by '_'
            like = ("%" + cut + "%") if k % 2 else cut[:1] + "_" * (len(cut) > 1) + cut[2:] + "%"
            same("match_like", arr, like.replace("\\", "\\\\").encode("utf-8", "surrogatepass"))
    assert folded_only > 100


def test_every_folding_code_point_matches_its_orbit():
    """Each code point that folds, and each fold, as a pattern over all of
    them: the library and pyarrow match exactly those of the same fold."""
    folds = _folds()
    assert len(folds) > 1400 and folds[0x212A] == ord("K") and folds[0x1E9E] == 0xDF
    points = sorted(set(folds) | set(folds.values()))
    arr = pa.array([chr(c) for c in points])
    for c in points:
        want = [folds.get(d, d) == folds.get(c, c) for d in points]
        assert pc.match_substring(arr, chr(c), ignore_case=True).to_pylist() == want, hex(c)
        assert am.match_substring(arr, chr(c), ignore_case=True).to_pylist() == want, hex(c)


def test_match_like_runs_between_wildcards():
    """Random patterns of two to five runs between '%'s (core/like_fold.c:
    the first run anchored at the start, the last at the end, each one between
    at its leftmost match), runs that begin with '_'s before their literal
    (found by the literal, then walked back), escapes and runs of '%', over
    characters whose folds differ in UTF-8 length and byte runs that are not
    UTF-8, in every string and binary type."""
    rng = random.Random(21)
    chars = ["k", "K", "\u212a", "s", "ſ", "ß", "ẞ", "σ", "ς", "Σ", "θ", "ϑ", "ϴ", "é", "É", "ı",
             "İ", "a", "日", "🙂", "𐐀", "𐐨", "Ⱥ", "ⱥ", "%", "_", "\\"]  # fmt: skip
    junk = [b"\x80", b"\xc3", b"\xe2\x84", b"\xed\xa0\x80", b"\xe0\x80\x80", b"\xff"]
    raw = [b"".join(rng.choice(junk) if rng.random() < 0.05 else rng.choice(chars).encode()
                    for _ in range(rng.randrange(12))) for _ in range(2000)]  # fmt: skip
    special = {"%": "\\%", "_": "\\_", "\\": "\\\\"}

    def run():
        return "".join("_" if rng.random() < 0.25 else special.get(c, c)
                       for c in rng.choices(chars, k=rng.randrange(4)))  # fmt: skip

    for t in [*TEXT, *BYTES]:
        arr = raw_strings(
            raw, pa.large_string() if t in (pa.large_string(), pa.large_binary()) else None
        ).view(t)
        for _ in range(60):
            p = ("%" * rng.randrange(3)).join(run() for _ in range(rng.randrange(2, 6)))
            p = rng.choice(["", "%"]) + p + rng.choice(["", "%", "\\"])
            same("match_like", arr, p.encode())


def test_match_like_with_more_runs_than_tables():
    """Past 64 runs between '%'s a run tries each character in turn."""
    arr = pa.array(["aB" * k + "c" for k in range(60, 75)] + ["Ab" * 70, "A" * 70 + "C"])
    for p in ["%A%" * 66 + "C", "%" + "%B".join(["a"] * 70) + "%", "%" + "_A%" * 66, "a%" * 70]:
        same("match_like", arr, p)


def test_match_like_finds_each_code_point_by_its_orbit():
    """Each code point that folds, and each fold, as the literal of a run
    between '%'s (its orbit's encodings in a byte-pair table) and after a '_'
    (walked back to), over all of them between other characters."""
    folds = _folds()
    points = sorted(set(folds) | set(folds.values()))
    arr = pa.array(["x" + chr(c) + "ı" for c in points])
    for c in points[::3]:
        want = [folds.get(d, d) == folds.get(c, c) for d in points]
        for p in ["%" + chr(c) + "_%", "%_" + chr(c) + "%ı"]:
            assert am.match_like(arr, p, ignore_case=True).to_pylist() == want, (hex(c), p)
        assert pc.match_like(arr, "%_" + chr(c) + "%ı", ignore_case=True).to_pylist() == want
