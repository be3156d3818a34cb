"""Strings and binary in the conformance suite (issue #13, first slice): the selection and
null-handling functions (filter, take, slice, is_null, is_valid, drop_null, fill_null,
coalesce, if_else, count), compare (array-array and array-scalar) and min, max, first,
last, min_max, first_last (with ScalarAggregateOptions) over string, large_string, binary, large_binary and
fixed_size_binary[3] inputs, and the refusals of the functions that take no strings; the
hash-based functions' cases are string_hash_cases.py's. How
generate.py makes the cases (``gen``, generate.py's helpers passed in as ``g``); their
evaluation and C calls are the other families' (generate.evaluate, test_conformance.call).

Every case with a string input lives in cases/strings.json.gz (``file_of``). Values are
drawn (kind "choice") from words with empty strings, ASCII, multi-byte UTF-8 (2, 3 and 4
bytes), combining marks, an embedded NUL and a 300-byte string; binary words add bytes
that are not UTF-8. The suite's lengths (up to 100,003, hashed), null patterns and slice
offsets (63: an unknown null count) apply. Every expected value is pyarrow 26's.
"""

import math

import casefmt as cf
from casefmt import STRING_TYPES

FILE = "strings"
# The string functions (am_string_function), in the order of am_string_op.
OPS = ["utf8_length", "binary_length", "starts_with", "ends_with", "match_substring",
       "find_substring", "count_substring", "ascii_upper", "ascii_lower", "match_like",
       "ascii_trim_whitespace", "ascii_ltrim_whitespace", "ascii_rtrim_whitespace",
       "utf8_trim_whitespace", "utf8_ltrim_whitespace", "utf8_rtrim_whitespace",
       "ascii_trim", "ascii_ltrim", "ascii_rtrim", "utf8_trim", "utf8_ltrim", "utf8_rtrim",
       "utf8_upper", "utf8_lower"]  # fmt: skip
# Every string function with cases here: am_string_function's, then
# utf8_slice_codeunits (am_utf8_slice_codeunits, SliceOptions).
SLICE = "utf8_slice_codeunits"
JOIN = "binary_join_element_wise"
# Temporal values from and to text (am_strptime, am_strftime; StrptimeOptions and
# StrftimeOptions' format), whose cases are made in gen_temporal_text.
STRPTIME, STRFTIME = "strptime", "strftime"
FUNCTIONS = OPS + [SLICE, JOIN, STRPTIME, STRFTIME]
MATCHING = OPS[2:7] + ["match_like"]
TRIMMING = OPS[10:22]
TAKES_CHARACTERS = OPS[16:22]  # TrimOptions(characters)
FIXED = "fixed_size_binary[3]"
WORDS = ["", "a", "ab", "hello", "héllo", "日本語", "e\u0301", "zz\x00z", "🙂", "ß", "x" * 300,
         "Ünïcödé", " padded ", "A"]  # fmt: skip
BYTES = [b"\xff", b"\x00\x01", b"\xc3\x28", b"\x80abc"]
FIXED_WORDS = [b"abc", b"\x00\x00\x00", b"\xff\xfe\xfd", "é!".encode(), b"xyz"]


def choices(t):
    """The encoded words of type `t`."""
    if t == FIXED:
        words = FIXED_WORDS
    elif t in cf.UTF8_TYPES:
        words = WORDS
    else:
        words = [w.encode() for w in WORDS] + BYTES
    return cf.encode_values(t, words)


# The trims' words: WORDS and whitespace of each kind at either end (ASCII's
# six, the separators U+001C-001F, NBSP, U+3000, U+2028, U+205F).
TRIM_WORDS = WORDS + ["\t\n tab \r", "\x0b\x0cvt", "\u3000全角\u3000", "\xa0nbsp\xa0",
                      "\x1c sep \x1f", "\u2028", "  ", "\u205fé\u2029", "aéa", "x \x00 "]  # fmt: skip
TRIM_CHARACTERS = ["", " ", "a", "é ", "ab", " \u3000", "\x00", "日x"]

# utf8_upper / utf8_lower's words: WORDS and code points whose mappings
# change their byte count (ı -> I, K (Kelvin) -> k, Ⱥ -> U+2C65, ɐ -> Ɐ),
# title case (ǅ), final sigma, pyarrow's ß -> ẞ, İ, 4-byte letters (Adlam,
# Deseret), and unmapped ones (ﬀ, ŉ, ΐ, digits, CJK).
CASE = ["utf8_upper", "utf8_lower"]
CASE_WORDS = WORDS + ["ıi İI", "\u212a\u2126 kω", "Ⱥⱥ ɐⱯ", "ǅǄǆ", "ΣΑΣ ΟΔΟΣ σς", "ßẞ",
                      "𞤀𞤢 𐐀𐐨", "ﬀŉΐ 123 日本", "MiXeD CaSe, ascii only!" * 3]  # fmt: skip


def trim_choices(t):
    """The trims' encoded words of type `t` (binary types: choices(t), refused)."""
    return cf.encode_values(t, TRIM_WORDS) if t in cf.UTF8_TYPES else choices(t)


def case_choices(t):
    """utf8_upper / utf8_lower's encoded words of type `t` (binary: refused)."""
    return cf.encode_values(t, CASE_WORDS) if t in cf.UTF8_TYPES else choices(t)


def poison(t):
    """Values stored before a sliced input's first slot."""
    if t == FIXED:
        return cf.encode_values(t, [b"\xde\xad\xbe", None, b"PAD"])
    words = ["POISON", None, "\u0000" * 5, "€"] if t in cf.TEXT_TYPES else [b"\xba\xad", None]
    return cf.encode_values(t, words)


def evaluate(op, params, args):
    import pyarrow.compute as pc

    if op == STRPTIME:
        return pc.strptime(args[0], format=params["format"], unit=params["unit"],
                           error_is_null=params["error_is_null"])  # fmt: skip
    if op == STRFTIME:
        return pc.strftime(args[0], format=params["format"])
    if op == SLICE:
        return pc.utf8_slice_codeunits(args[0], params["start"], params["stop"], params["step"])
    if op == JOIN:
        import pyarrow as pa

        sep = [pa.scalar(params["separator"], args[0].type)] if "separator" in params else []
        return pc.binary_join_element_wise(*args, *sep, null_handling=params["null_handling"],
                                           null_replacement=params["null_replacement"])  # fmt: skip
    if op in MATCHING:
        options = pc.MatchSubstringOptions(
            pattern_of(params), ignore_case=params.get("ignore_case", False)
        )
        return pc.call_function(op, [args[0]], options)
    if op in TAKES_CHARACTERS:
        return pc.call_function(op, [args[0]], pc.TrimOptions(params["characters"]))
    return pc.call_function(op, [args[0]])


def call(case, arrays, scalars, out):
    """(function name, status, out) of a string function's case."""
    from amabi import ffi, lib

    op = case["op"]
    p = case["params"]
    if op == STRPTIME:
        unit = cf.AM_TYPE[f"timestamp[{p['unit']}]"]
        rc = lib.am_strptime(arrays[0], p["format"].encode(), unit, p["error_is_null"], out)
        return "am_strptime", rc, out
    if op == STRFTIME:
        return "am_strftime", lib.am_strftime(arrays[0], p["format"].encode(), b"C", out), out
    if op == JOIN:  # the values, then the separator array unless params hold it
        p = case["params"]
        n = len(arrays) - ("separator" not in p)
        sep = p.get("separator")
        sep = sep.encode("utf-8") if sep is not None else ffi.NULL
        rep = p["null_replacement"].encode("utf-8")
        rc = lib.am_binary_join_element_wise(
            ffi.new("am_array *[]", arrays[:n]) if n else ffi.NULL, n,
            ffi.NULL if "separator" in p else arrays[n], sep, len(sep) if sep else 0,
            JOIN_NULLS.index(p["null_handling"]), rep, len(rep), out)  # fmt: skip
        return "am_binary_join_element_wise", rc, out
    if op == SLICE:
        p = case["params"]
        stop = lib.AM_SLICE_NO_STOP if p["stop"] is None else p["stop"]
        rc = lib.am_utf8_slice_codeunits(arrays[0], p["start"], stop, p["step"], out)
        return "am_utf8_slice_codeunits", rc, out
    data = pattern_of(p) if op in MATCHING else p.get("characters")
    flags = lib.AM_STRING_IGNORE_CASE if p.get("ignore_case") else 0
    if data is None:
        rc = lib.am_string_function(OPS.index(op), arrays[0], ffi.NULL, 0, 0, out)
    else:
        data = data.encode("utf-8") if isinstance(data, str) else data
        rc = lib.am_string_function(OPS.index(op), arrays[0], data, len(data), flags, out)
    return "am_string_function", rc, out


def pattern_of(params):
    """A matching case's pattern: params "pattern" (text), or "pattern_hex" (the
    hex of bytes that are not UTF-8)."""
    if "pattern_hex" in params:
        return bytes.fromhex(params["pattern_hex"])
    return params["pattern"]


PATTERNS = ["", "a", "é", "ll", "日本", "x" * 300, "\x00"]
# match_like's: wildcards, escapes, pyarrow's fast paths (%X%, X%, %X, where a
# backslash is a plain byte) and its regular-expression path.
LIKE_PATTERNS = ["%", "h%o", "_", "%ll%", "", "a%", "%é", "_本%", "\\%", "%\\", "\\_%", "%_%",
                 "%" + "x" * 300 + "%", "zz_z", "%\x00%"]  # fmt: skip


# MatchSubstringOptions(ignore_case=True): pyarrow's RE2 matches code points by
# their simple case folding orbits (strings) or ASCII letters alone (binary).
# The words: Greek (final sigma, the symbol forms), Cyrillic (the old forms
# U+1C80-88), Turkish dotted and dotless i, German ß and ẞ, the Kelvin and
# Ångström signs, titlecase digraphs, code points whose fold changes their UTF-8
# length (ı, K, ſ, Ⱥ, ɐ), 4-byte letters, emoji, combining marks; binary words
# add bytes that are not UTF-8 (Latin-1 letters too, which RE2 does not fold).
FOLD_WORDS = ["Σίσυφος", "ΣΊΣΥΦΟΣ", "σοφός ς", "ϐϑϕ ΒΘΦ", "КИРИЛЛИЦА", "кириллица ᲀᲂ",
              "İstanbul", "ISTANBUL ıi", "Straße", "STRAẞE", "strasse", "\u212a\u212b kå",
              "ǅemal ǆ Ǆ", "ſtop", "Ⱥⱥ ɐⱯ", "𐐀𐐨 𞤀𞤢", "🙂 👍🏽", "e\u0301 É", "ΐ ΐ", "", "a",
              "Plain ASCII", "x" * 40 + "K"]  # fmt: skip
FOLD_BYTES = [b"\xff", b"\xc0\xe0", b"K\x00k", b"\xc3\x28", b"\xe2\x84"]
FOLD_PATTERNS = ["σ", "ΣΟΣ", "ς", "β", "в", "ᲀ", "i", "İ", "ı", "ß", "ẞ", "ss", "k", "\u212a",
                 "å", "ǅ", "ǆ", "ſ", "S", "ⱥ", "Ɐ", "𐐨", "🙂", "e\u0301", "é", "ΐ", "", "x"]  # fmt: skip
FOLD_LIKE = ["%σ%", "σ%", "%ς", "_Σ%", "%", "", "_", "%ss%", "st%e", "\\%%", "%ǅ%", "K%",
             "%\\", "_🙂%", "%e\u0301%"]  # fmt: skip
# Patterns that are not UTF-8 (hex), which RE2 refuses in a string array of one
# slot or more ("Invalid regular expression: invalid UTF-8") and reads as
# Latin-1 in a binary one; a backslash between two bytes of one code point.
FOLD_NOT_UTF8 = ["ff", "6bc3", "c080", "e08080", "f4908080", "e284", "25ff25", "c35ca9"]


def fold_choices(t):
    """ignore_case's encoded words of type `t`."""
    if t == FIXED:
        return cf.encode_values(t, [b"aKk", b"\xc0\xe0k", "é!".encode(), b"\xff\xfe\xfd"])
    if t in cf.UTF8_TYPES:
        return cf.encode_values(t, FOLD_WORDS)
    return cf.encode_values(t, [w.encode() for w in FOLD_WORDS] + FOLD_BYTES)


def gen_ignore_case(g):
    """The matching functions with ignore_case over every type each takes: every
    pattern at two shapes, one each at the others, the patterns that are not UTF-8
    (with and without ignore_case for match_like, whose regular expression refuses
    them either way) and an empty array, which never compiles the expression."""
    for t in STRING_TYPES:
        for k, (n, nulls, off) in enumerate(SHAPES):
            for op in MATCHING:
                if t == FIXED and op not in ("find_substring", "count_substring"):
                    continue
                cid = g.sweep_id(op, t, "unary", n, nulls, off, extra="ignore_case")
                inp = g.gen_input(t, n, nulls, off, cid, kind="choice", choices=fold_choices(t))
                pats = FOLD_LIKE if op == "match_like" else FOLD_PATTERNS
                for j, p in enumerate(pats if k in (3, 7) else pats[k % 5 :: 5][:2]):
                    g.add(f"{cid}/pattern{j}", op, {"pattern": p, "ignore_case": True}, "unary",
                          [inp])  # fmt: skip
                if k not in (0, 1, 5):
                    continue
                for j, h in enumerate(FOLD_NOT_UTF8):
                    g.add(f"{cid}/hex{j}", op, {"pattern_hex": h, "ignore_case": True}, "unary",
                          [inp])  # fmt: skip
                    if op == "match_like":
                        g.add(f"{cid}/hex{j}/case-sensitive", op, {"pattern_hex": h}, "unary",
                              [inp])  # fmt: skip


def gen_functions(g):
    gen_ignore_case(g)
    for t in STRING_TYPES:
        for k, (n, nulls, off) in enumerate(SHAPES + [LARGE_SHAPE]):
            for op in OPS:
                cid = g.sweep_id(op, t, "unary", n, nulls, off)
                words = (trim_choices(t) if op in TRIMMING else
                         case_choices(t) if op in CASE else choices(t))  # fmt: skip
                inp = g.gen_input(t, n, nulls, off, cid, kind="choice", choices=words)
                if op in TAKES_CHARACTERS:
                    # ascii_ trims bytes: a non-ASCII character would cut code points
                    # (results that are not UTF-8, which the case format cannot hold;
                    # python/tests/test_strings.py compares those bytes)
                    every = [c for c in TRIM_CHARACTERS if c.isascii() or op.startswith("utf8")]
                    chars = every if k in (3, 7) else every[k % 4 : k % 4 + 1]
                    for j, c in enumerate(chars):
                        g.add(f"{cid}/characters{j}", op, {"characters": c}, "unary", [inp])
                    continue
                if op not in MATCHING:
                    g.add(cid, op, {}, "unary", [inp])
                    continue
                pats = LIKE_PATTERNS if op == "match_like" else PATTERNS
                for j, p in enumerate(pats if k in (3, 7) else pats[k % 4 : k % 4 + 1]):
                    g.add(f"{cid}/pattern{j}", op, {"pattern": p}, "unary", [inp])
    gen_slices(g)
    for op in OPS:  # bool and numbers: pyarrow has no kernel
        params = ({"pattern": "a"} if op in MATCHING else
                  {"characters": "a"} if op in TAKES_CHARACTERS else {})  # fmt: skip
        for t in cf.TYPES:
            g.add(f"{op}/{t}/unary/type-error", op, params, "unary", [g.inline(t, [None])])


def file_of(case):
    """The case file of a case with a string input (this family's), else None."""
    if case["op"] in FUNCTIONS:
        return FILE
    if case["op"] == "cast" and case["params"]["to"] in STRING_TYPES:
        return FILE  # numbers to strings
    for inp in case["inputs"]:
        t = inp["scalar"]["type"] if "scalar" in inp else inp["type"]
        if t in STRING_TYPES:
            return FILE
    return None


SHAPES = [  # (length, nulls, offset)
    (0, "no-nulls", 0),
    (1, "all-nulls", 0),
    (1, "no-nulls", 1),
    (7, "some-nulls", 7),
    (64, "no-nulls", 0),
    (65, "some-nulls", 63),
    (1000, "all-nulls", 1),
    (1003, "some-nulls", 7),  # past INLINE_MAX: a gen spec and a digest
]
LARGE_SHAPE = (100003, "some-nulls", 1)


def value(g, t, n, nulls, off, key):
    return g.gen_input(t, n, nulls, off, key, kind="choice", choices=choices(t))


def scalar_word(t):
    return {FIXED: b"\x01\x02\x03"}.get(t, "fill é" if t in cf.UTF8_TYPES else b"\xfe fill")


# utf8_slice_codeunits' (start, stop, step): Python's slicing of code points,
# negative and out-of-range indices, stop None both ways, a step of 0 (refused).
SLICES = [(0, 2, 1), (1, None, 1), (-3, None, 1), (0, None, -1), (-1, -4, -2), (2, 300, 3),
          (-100, 5, 1), (5, 1, -1), (0, 0, 1), (-2, None, -3), (1, None, 0)]  # fmt: skip


def gen_slices(g):
    for t in STRING_TYPES:
        for k, (n, nulls, off) in enumerate(SHAPES + [LARGE_SHAPE]):
            cid = g.sweep_id(SLICE, t, "unary", n, nulls, off)
            words = case_choices(t)  # multi-byte code points of every length
            inp = g.gen_input(t, n, nulls, off, cid, kind="choice", choices=words)
            picks = (
                (SLICES if k in (3, 7) else SLICES[k % 5 :: 5])
                if t in cf.UTF8_TYPES
                else SLICES[:1]
            )
            for j, (start, stop, step) in enumerate(picks):
                params = {"start": start, "stop": stop, "step": step}
                g.add(f"{cid}/slice{j}", SLICE, params, "unary", [inp])
    for t in cf.TYPES:  # bool and numbers: pyarrow has no kernel
        g.add(f"{SLICE}/{t}/unary/type-error", SLICE, {"start": 0, "stop": 1, "step": 1}, "unary",
              [g.inline(t, [None])])  # fmt: skip


# Casts between strings and integers or bools (abi/string_cast.c): texts in
# arrow's syntax (leading zeros, a '-', 0x hex of at most the type's width),
# each target's texts those pyarrow parses, then one it refuses.
CAST_TEXTS = ["0", "1", "-1", "007", "-0", "127", "-128", "128", "255", "256", "65535",
              "-32769", "2147483647", "4294967296", "9223372036854775807",
              "-9223372036854775808", "18446744073709551615", "0x7f", "0X80", "0xff",
              "0xFFFF", "0xffffffff", "0xFFFFFFFFFFFFFFFF"]  # fmt: skip
CAST_REFUSED = ["+1", " 1", "", "1.0", "abc", "0x", "-0x1", "0x100000000000000000"]
BOOL_TEXTS = ["true", "false", "TRUE", "False", "1", "0"]
INTEGERS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def parses(text, to):
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        pc.cast(pa.array([text]), cf.PA_TYPE[to])
        return True
    except pa.ArrowInvalid:
        return False


def gen_casts(g):
    for t in STRING_TYPES:
        for k, (n, nulls, off) in enumerate(SHAPES + [LARGE_SHAPE]):
            for j, to in enumerate(INTEGERS + ["bool"]):
                if t == FIXED and j:
                    continue  # fixed_size_binary: pyarrow has no cast to numbers (one case)
                cid = g.sweep_id("cast", t, "unary", n, nulls, off, extra=f"to-{to}")
                texts = BOOL_TEXTS if to == "bool" else [x for x in CAST_TEXTS if parses(x, to)]
                raw = [b"123"] if t == FIXED else texts if t in cf.UTF8_TYPES else [
                    x.encode() for x in texts]  # fmt: skip
                words = cf.encode_values(t, raw)
                inp = g.gen_input(t, n, nulls, off, cid, kind="choice", choices=words)
                g.add(cid, "cast", {"to": to, "safe": k % 2 == 0}, "unary", [inp])
        for j, text in enumerate(CAST_REFUSED + ["yes"]):
            to = "bool" if text == "yes" else INTEGERS[j % len(INTEGERS)]
            value = b"1.0" if t == FIXED else text if t in cf.UTF8_TYPES else text.encode()
            inp = g.inline(t, [None, value])
            g.add(f"cast/{t}/unary/refused{j}-to-{to}", "cast", {"to": to, "safe": True}, "unary",
                  [inp])  # fmt: skip
    for t in INTEGERS + ["bool"]:  # integers and bools to strings
        for k, (n, nulls, off) in enumerate(SHAPES):
            for to in ("string", "large_string"):
                cid = g.sweep_id("cast", t, "unary", n, nulls, off, extra=f"to-{to}")
                inp = g.gen_input(t, n, nulls, off, cid)
                g.add(cid, "cast", {"to": to, "safe": True}, "unary", [inp])


# Casts between strings and floats (abi/string_float.c): texts pyarrow reads (its
# grammar's corners: signs, a bare '.', exponents, inf/infinity/nan in any case, far
# exponents, more digits than a double holds) and texts it refuses; values written from
# every corner of both widths and from random bit patterns.
FLOAT_TEXTS = ["1", "1e3", "1E3", "+1.5", "-.5", ".5", "1.", "1e+5", "1e-5", "00012", "inf",
               "-Inf", "INFINITY", "+inf", "nan", "NaN", "nan(abc_1)", "-0", "-0.0", "0",
               "1e-400", "1e400", "-1e400", "2.4703282292062328e-324", "4.9406564584124654e-324",
               "1.7976931348623157e308", "1.7976931348623159e308", "3.4028235e38", "3.4028236e38",
               "1.00000005960464477539062500001", "0." + "0" * 40 + "1e41", "1" * 60,
               "123456789012345678901234567890", "0.1", "0.30000000000000004", "2e-45",
               "1.401298464324817e-45", "-123.456e-7"]  # fmt: skip
FLOAT_REFUSED = ["", " 1", "1 ", ".", "-", "e5", "1e", "1e+", "0x10", "1,5", "++1", "infinit",
                 "nan(", "1_000"]  # fmt: skip


def float_choices(t):
    """Values of float type t: the corners (zeros, infinities, NaN, the extremes,
    subnormals, powers of ten at the layout's turns) and random bit patterns."""
    import numpy as np

    bits = np.uint64 if t == "float64" else np.uint32
    dtype = np.float64 if t == "float64" else np.float32
    fi = np.finfo(dtype)
    corners = [0.0, -0.0, math.inf, -math.inf, math.nan, float(fi.max), float(fi.tiny),
               float(np.array(1, bits).view(dtype)), 1e-7, 1e-6, 9.999999e-7, 123456789.0, 1e9,
               1e10, 1e16, 1e20, 0.1, 1.5, -2.25, 2.0**53 + 2, 1 / 3]  # fmt: skip
    rng = np.random.default_rng(2026)
    drawn = rng.integers(0, np.iinfo(bits).max, 160, dtype=bits, endpoint=True).view(dtype)
    values = [float(dtype(v)) for v in corners] + [float(v) for v in drawn]
    return cf.encode_values(t, values)


# Casts between strings and temporal types (abi/string_temporal.c): ISO-8601 texts
# pyarrow reads (each target's), and texts it refuses (a zone offset where the target
# has none, a day past the month, a fraction finer than the unit).
TIMESTAMP_TEXTS = ["2020-01-01", "2020-01-01 12:00:00", "2020-01-01T12:00:00", "2020-01-01 12:00",
                   "2020-01-01 12", "2020-01-01 12:00:00.5", "2020-01-01 12:00:00.123456789",
                   "1900-01-01", "0001-01-01", "0000-01-01", "9999-12-31 23:59:59",
                   "2020-02-29", "1969-12-31T23:59:59.999", "2262-04-11 23:47:16.854775807",
                   "1677-09-21 00:12:43.145224193", "2020-01-01 23:59:59.000001"]  # fmt: skip
TIMESTAMP_REFUSED = ["2020-01-01 12:00:00Z", "2020-01-01T12:00:00+01:00", "2020-02-30", "",
                     "2020-01-01 24:00:00", "2020-1-1", "2020-01-01 12:00:00.", "10000-01-01",
                     "2020-01-01 12:00:00.1234567891"]  # fmt: skip
DATE_TEXTS = ["2020-01-01", "0000-01-01", "9999-12-31", "1969-12-31", "2020-02-29"]
DATE_REFUSED = ["2021-02-29", "2020-01-01 00:00:00", "2020-1-01", " 2020-01-01"]
UNITS = ["s", "ms", "us", "ns"]


def parse_choices(texts, t):
    """The texts pyarrow reads as type t (encoded as string values)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kept = []
    for text in texts:
        try:
            pc.cast(pa.array([text]), cf.PA_TYPE[t])
            kept.append(text)
        except pa.ArrowInvalid:
            pass
    return kept


# strptime: formats (without %z, whose UTC result the case format has no type for) and
# the texts they read, pyarrow's strftime of drawn instants plus texts glibc reads or not.
STRPTIME_FORMATS = ["%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%d/%m/%Y %I:%M %p", "%y%m%d", "%j %Y",
                    "%b %d %Y", "%A, %d %B %Y %T", "%F %R", "%D", "%H:%M", "%Y-%m-%dT%H %Z",
                    "%e/%m/%Y %%"]  # fmt: skip
STRPTIME_EXTRA = ["2020-1-1", " 2020-01-01", "2021-02-31", "x", "", "2020-01-01 24:00:00", "1/2/3",
                  "Jan 1 2020", "12:30", "366 2021", "99-12-31", "2020-01-01T12 UTC", "01/02/20",
                  "2262-04-12", "1677-09-21"]  # fmt: skip
# strftime: formats over timestamps, dates and times without a time zone.
STRFTIME_FORMATS = ["%Y-%m-%dT%H:%M:%S", "%F %T", "%d/%m/%y %I:%M:%S %p", "%j %a %A %b %B",
                    "%C %e %D %R %u %w %%", "%H|%M|%S", "[%s %f]", "%Y"]  # fmt: skip


def gen_float_casts(g):
    for t in STRING_TYPES[:4]:
        for k, (n, nulls, off) in enumerate(SHAPES + [LARGE_SHAPE]):
            for to in ("float64", "float32"):
                cid = g.sweep_id("cast", t, "unary", n, nulls, off, extra=f"to-{to}")
                raw = FLOAT_TEXTS if t in cf.UTF8_TYPES else [x.encode() for x in FLOAT_TEXTS]
                inp = g.gen_input(t, n, nulls, off, cid, kind="choice",
                                  choices=cf.encode_values(t, raw))  # fmt: skip
                g.add(cid, "cast", {"to": to, "safe": k % 2 == 0}, "unary", [inp])
        for j, text in enumerate(FLOAT_REFUSED):
            to = ("float64", "float32")[j % 2]
            value = text if t in cf.UTF8_TYPES else text.encode()
            g.add(f"cast/{t}/unary/refused-float{j}-to-{to}", "cast", {"to": to, "safe": True},
                  "unary", [g.inline(t, [None, value, "1.5" if t in cf.UTF8_TYPES else b"1.5"])])  # fmt: skip
    for t in ("float64", "float32"):
        for k, (n, nulls, off) in enumerate(SHAPES + [LARGE_SHAPE]):
            for to in ("string", "large_string"):
                cid = g.sweep_id("cast", t, "unary", n, nulls, off, extra=f"to-{to}")
                inp = g.gen_input(t, n, nulls, off, cid, kind="choice", choices=float_choices(t))
                g.add(cid, "cast", {"to": to, "safe": True}, "unary", [inp])
        g.add(f"cast/{t}/unary/to-binary", "cast", {"to": "binary", "safe": True}, "unary",
              [g.inline(t, [1.5, None])])  # fmt: skip


def gen_temporal_casts(g):
    """Strings to timestamps (no time zone), date32 and date64, and every temporal type to
    strings: temporal.json's (a temporal input or target; made by temporal_cases.gen)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    targets = [f"timestamp[{u}]" for u in UNITS] + ["date32[day]", "date64[ms]"]
    for t in cf.UTF8_TYPES:
        for to in targets:
            date = to.startswith("date")
            good = parse_choices(DATE_TEXTS if date else TIMESTAMP_TEXTS, to)
            for k, (n, nulls, off) in enumerate(SHAPES[:5] + [SHAPES[7]]):
                cid = g.sweep_id("cast", t, "unary", n, nulls, off, extra=f"to-{to}")
                inp = g.gen_input(t, n, nulls, off, cid, kind="choice",
                                  choices=cf.encode_values(t, good))  # fmt: skip
                g.add(cid, "cast", {"to": to, "safe": k % 2 == 0}, "unary", [inp])
            refused = DATE_REFUSED if date else TIMESTAMP_REFUSED
            for j, text in enumerate(x for x in refused if x not in good):
                g.add(f"cast/{t}/unary/refused-text{j}-to-{to}", "cast",
                      {"to": to, "safe": True}, "unary", [g.inline(t, [good[0], text, None])])  # fmt: skip
        for to in ("time32[s]", "duration[ms]"):  # pyarrow has no such cast
            g.add(f"cast/{t}/unary/to-{to}", "cast", {"to": to, "safe": True}, "unary",
                  [g.inline(t, ["00:00:00"])])  # fmt: skip
    drawn = pa.array(range(-62_135_596_800, 253_402_300_800, 10**9 + 7), pa.int64()).cast(
        pa.timestamp("s")
    )  # the years 1 to 9999, which the ISO reader takes
    texts = pc.cast(drawn, pa.string()).to_pylist()
    cid = "cast/string/unary/drawn-texts-to-timestamp[s]"
    g.add(cid, "cast", {"to": "timestamp[s]", "safe": True}, "unary", [g.inline("string", texts)])
    for src in cf.TEMPORAL_TYPES:
        for k, (n, nulls, off) in enumerate(SHAPES[:5] + [SHAPES[7]]):
            to = ("string", "large_string")[k % 2]
            cid = g.sweep_id("cast", src, "unary", n, nulls, off, extra=f"to-{to}")
            g.add(
                cid,
                "cast",
                {"to": to, "safe": True},
                "unary",
                [g.gen_input(src, n, nulls, off, cid)],
            )
        near = g.inline(src, [0, 1, -1, 86_399, 86_400, -86_401, 2**31 - 1, -(2**31), None])
        g.add(f"cast/{src}/unary/near-to-string", "cast", {"to": "string", "safe": True},
              "unary", [near])  # fmt: skip


def gen_strptime(g):
    """strptime over each format's texts (null for the unread ones, and one that fails
    the call), every unit; strptime and strftime refusing bools and numbers."""
    import pyarrow as pa
    import pyarrow.compute as pc

    drawn = pa.array(range(-(10**11), 2 * 10**11, 10**9 + 3), pa.int64()).cast(pa.timestamp("s"))
    for j, f in enumerate(STRPTIME_FORMATS):
        texts = pc.strftime(drawn, format=f.replace("%Z", "UTC")).to_pylist() + STRPTIME_EXTRA
        choices = cf.encode_values("string", texts)
        for k, unit in enumerate(UNITS):
            n, nulls, off = (SHAPES + [LARGE_SHAPE])[(j + k) % 9]
            cid = g.sweep_id(STRPTIME, "string", "unary", n, nulls, off, extra=f"format{j}/{unit}")
            inp = g.gen_input("string", n, nulls, off, cid, kind="choice", choices=choices)
            params = {"format": f, "unit": unit, "error_is_null": True}
            g.add(cid, STRPTIME, params, "unary", [inp])
        ok = g.inline("large_string", texts[:3] + [None])
        g.add(f"{STRPTIME}/large_string/format{j}", STRPTIME,
              {"format": f, "unit": "ms", "error_is_null": False}, "unary", [ok])  # fmt: skip
        bad = g.inline("string", [texts[0], "not a date", None, "x"])
        g.add(f"{STRPTIME}/string/format{j}/refused", STRPTIME,
              {"format": f, "unit": "s", "error_is_null": False}, "unary", [bad])  # fmt: skip
    for t in cf.TYPES:  # bool and numbers: pyarrow has no kernel (nor for strftime)
        g.add(f"{STRPTIME}/{t}/unary/type-error", STRPTIME,
              {"format": "%Y", "unit": "s", "error_is_null": False}, "unary",
              [g.inline(t, [None])])  # fmt: skip
        g.add(f"{STRFTIME}/{t}/unary/type-error", STRFTIME, {"format": "%Y"}, "unary",
              [g.inline(t, [None])])  # fmt: skip


def gen_strftime(g):
    """strftime over timestamps, dates and times (temporal.json: a temporal input; made
    by temporal_cases.gen)."""
    types = [f"timestamp[{u}]" for u in UNITS] + ["date32[day]", "date64[ms]"] + [
        "time32[s]", "time32[ms]", "time64[us]", "time64[ns]"]  # fmt: skip
    for src in types:
        for j, f in enumerate(STRFTIME_FORMATS):
            n, nulls, off = (SHAPES + [LARGE_SHAPE])[j % 9]
            cid = g.sweep_id(STRFTIME, src, "unary", n, nulls, off, extra=f"format{j}")
            lo, hi = (-(10**6), 3 * 10**6) if cf.TEMPORAL_STORAGE[src] == "int32" else (
                -(10**15), 10**15)  # fmt: skip
            inp = g.gen_input(src, n, nulls, off, cid, kind="uniform", lo=str(lo), hi=str(hi))
            g.add(cid, STRFTIME, {"format": f}, "unary", [inp])
        g.add(f"{STRFTIME}/{src}/unary/drawn-int64", STRFTIME, {"format": "%F %T"}, "unary",
              [g.gen_input(src, 64, "some-nulls", 0, f"{STRFTIME}/{src}/drawn")])  # fmt: skip
        g.add(f"{STRFTIME}/{src}/unary/no-zone", STRFTIME, {"format": "%H %z"}, "unary",
              [g.inline(src, [0])])  # fmt: skip
    g.add(f"{STRFTIME}/duration[s]/type-error", STRFTIME, {"format": "%Y"}, "unary",
          [g.inline("duration[s]", [1])])  # fmt: skip


JOIN_NULLS = ["emit_null", "skip", "replace"]
JOIN_SEPARATORS = ["-", "", ", ", None]  # texts in the case's params (None: a null separator)


def gen_joins(g):
    """binary_join_element_wise over one to three value arrays, the separator an array
    or a scalar (a null one too), every null handling. With "skip" the first value has
    no nulls: pyarrow 26 leaves a row of null values out of its result (a shorter
    array, see the header's divergence), so no case holds one."""
    for t in cf.STRING_TYPES:
        if t == FIXED:
            continue
        for k, (n, nulls, off) in enumerate(SHAPES + [LARGE_SHAPE]):
            for how in JOIN_NULLS:
                for width in (1, 2, 3):
                    cid = g.sweep_id(JOIN, t, "nary", n, nulls, off, extra=f"{how}/{width}")
                    values = [value(g, t, n, "no-nulls" if how == "skip" and j == 0 else
                                    g.other(nulls, j) if j else nulls, off + j, f"{cid}/v{j}")
                              for j in range(width)]  # fmt: skip
                    params = {"null_handling": how, "null_replacement": "N/A"}
                    if (k + width) % 2:
                        sep = value(g, t, n, g.other(nulls, 3), 0, cid + "/sep")
                        g.add(cid + "/array-separator", JOIN, params, "nary", values + [sep])
                    else:
                        text = JOIN_SEPARATORS[(k + width + len(how)) % len(JOIN_SEPARATORS)]
                        g.add(cid, JOIN, {**params, "separator": text}, "nary", values)
    a, b = g.inline("string", ["a"]), g.inline("large_string", ["b"])
    sep = g.inline("string", [","])
    g.add(f"{JOIN}/string,large_string/type-error", JOIN,
          {"null_handling": "emit_null", "null_replacement": ""}, "nary", [a, b, sep])  # fmt: skip
    for t in cf.TYPES:  # bool and numbers: pyarrow has no kernel
        g.add(f"{JOIN}/{t}/nary/type-error", JOIN,
              {"null_handling": "emit_null", "null_replacement": ""}, "nary",
              [g.inline(t, [None]), sep])  # fmt: skip
    g.add(f"{JOIN}/lengths-differ", JOIN, {"null_handling": "emit_null", "null_replacement": ""},
          "nary", [g.inline("string", ["a", "b"]), sep])  # fmt: skip


def gen(g):
    import string_hash_cases  # it takes this module's words and shapes

    gen_functions(g)
    gen_joins(g)
    gen_casts(g)
    gen_float_casts(g)
    gen_strptime(g)
    string_hash_cases.gen(g)  # the hash-based functions
    for t in STRING_TYPES:
        shapes = SHAPES + ([LARGE_SHAPE] if t in ("string", "binary") else [])
        for k, (n, nulls, off) in enumerate(shapes):

            def sid(op, form="unary", extra="", t=t, n=n, nulls=nulls, off=off):
                return g.sweep_id(op, t, form, n, nulls, off, extra=extra)

            cid = sid("filter", "array-array")
            vals = value(g, t, n, nulls, off, cid)
            mask = g.gen_input("bool", n, g.other(nulls, 1) if n > 1 else "no-nulls",
                               off % 5, cid + "/mask", role="mask", kind="uniform",
                               true_permille=[500, 100, 900][k % 3])  # fmt: skip
            g.add(cid, "filter", {}, "array-array", [vals, mask])
            g.add(cid + "/emit_null", "filter", {"null_selection": "emit_null"}, "array-array",
                  [vals, mask])  # fmt: skip
            cid = sid("take", "array-array")
            idx = g.gen_input("int32" if k % 2 else "int64", n, "some-nulls" if n > 1 else
                              "no-nulls", 0, cid + "/idx", role="index", kind="uniform", lo="0",
                              hi=str(max(n - 1, 0)))  # fmt: skip
            g.add(cid, "take", {}, "array-array", [value(g, t, n, nulls, off, cid), idx])
            cid = sid("slice", "unary")
            g.add(cid, "slice", {"offset": min(3, n), "length": 5}, "unary",
                  [value(g, t, n, nulls, off, cid)])  # fmt: skip
            for op in ("is_null", "is_valid", "drop_null"):
                cid = sid(op)
                g.add(cid, op, {}, "unary", [value(g, t, n, nulls, off, cid)])
            for mode in ("only_valid", "only_null", "all"):
                cid = sid(f"count-{mode}")
                g.add(cid, "count", {"mode": mode}, "unary", [value(g, t, n, nulls, off, cid)])
            cid = sid("fill_null", "array-array")
            fill = value(g, t, n, g.other(nulls, 1), 0, cid + "/fill")
            g.add(cid, "fill_null", {}, "array-array", [value(g, t, n, nulls, off, cid), fill])
            cid = sid("fill_null", "array-scalar")
            g.add(cid, "fill_null", {}, "array-scalar",
                  [value(g, t, n, nulls, off, cid), g.scalar(t, scalar_word(t))])  # fmt: skip
            cid = sid("coalesce", "array-array")
            second = value(g, t, n, g.other(nulls, 2), 1, cid + "/2")
            g.add(cid, "coalesce", {}, "array-array",
                  [value(g, t, n, nulls, off, cid), second, g.scalar(t, scalar_word(t))])  # fmt: skip
            cid = sid("if_else", "array-array")
            cond = g.gen_input("bool", n, g.other(nulls, 1) if n > 1 else "no-nulls", 0,
                               cid + "/cond", kind="uniform")  # fmt: skip
            g.add(cid, "if_else", {}, "array-array",
                  [cond, value(g, t, n, nulls, off, cid), value(g, t, n, "some-nulls" if n > 1
                   else nulls, 0, cid + "/r")])  # fmt: skip
            g.add(cid + "/scalar-right", "if_else", {}, "array-array",
                  [cond, value(g, t, n, nulls, off, cid), g.scalar(t, scalar_word(t))])  # fmt: skip
            g.add(cid + "/scalar-left", "if_else", {}, "array-array",
                  [cond, g.scalar(t, scalar_word(t)), value(g, t, n, nulls, off, cid)])  # fmt: skip
        for k, (n, nulls, off) in enumerate(shapes):

            def sid(op, form="unary", extra="", t=t, n=n, nulls=nulls, off=off):
                return g.sweep_id(op, t, form, n, nulls, off, extra=extra)

            cmp = list(g.CMP)[k % 6]
            cid = sid("compare", "array-array", cmp)
            g.add(cid, "compare", {"cmp": cmp}, "array-array",
                  [value(g, t, n, nulls, off, cid), value(g, t, n, "some-nulls" if n > 1
                   else nulls, 0, cid + "/r")])  # fmt: skip
            for c in g.CMP if k in (3, 5) else [cmp]:
                cid = sid("compare", "array-scalar", c)
                g.add(cid, "compare", {"cmp": c}, "array-scalar",
                      [value(g, t, n, nulls, off, cid),
                       g.scalar(t, cf.decode_value(t, choices(t)[k % len(choices(t))]))])  # fmt: skip
            for op in ("min", "max", "first", "last", "min_max", "first_last"):
                cid = sid(op)
                g.add(cid, op, {}, "unary", [value(g, t, n, nulls, off, cid)])
                if k in (2, 3, 5):
                    for params in ({"skip_nulls": False}, {"min_count": 3}):
                        key = ",".join(f"{a}={b}" for a, b in params.items())
                        g.add(f"{cid}/{key}", op, params, "unary",
                              [value(g, t, n, nulls, off, cid)])  # fmt: skip
        # Errors: out-of-range indices, a mask of another length, the functions that take
        # no strings (pyarrow has no kernel: AM_ETYPE), null fill scalars.
        three = g.inline(t, cf.decode_values(t, choices(t)[:3]))
        g.add(f"take/{t}/array-array/out-of-bounds", "take", {}, "array-array",
              [three, g.inline("int64", [0, 3])])  # fmt: skip
        g.add(f"take/{t}/array-array/negative", "take", {}, "array-array",
              [three, g.inline("int32", [-1])])  # fmt: skip
        g.add(f"filter/{t}/array-array/length-mismatch", "filter", {}, "array-array",
              [three, g.inline("bool", [True, False])])  # fmt: skip
        g.add(f"fill_null/{t}/array-scalar/null", "fill_null", {}, "array-scalar",
              [g.inline(t, [None] + cf.decode_values(t, choices(t)[:2])), g.scalar(t, None)])  # fmt: skip
        for op in ("sum", "mean", "is_nan", "negate", "cumulative_sum"):
            g.add(f"{op}/{t}/unary/type-error", op, {}, "unary", [three])
        g.add(f"compare/{t}/array-array/int64/type-error", "compare", {"cmp": "eq"},
              "array-array", [three, g.inline("int64", [1, 2, 3])])  # fmt: skip
    # Values of two string types do not meet (pyarrow: a fill of another type).
    g.add("fill_null/string/array-array/large_string/type-error", "fill_null", {}, "array-array",
          [g.inline("string", ["a", None]), g.inline("large_string", ["b", "c"])])  # fmt: skip
