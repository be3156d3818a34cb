"""The hash-based functions over strings and binary (issue #13) in the conformance suite:
is_in and index_in (value sets of the values' type and of every other string type,
where pyarrow casts them and where its casts fail), unique, value_counts,
count_distinct (every CountOptions mode), dictionary_encode (both null encodings) and
mode (pyarrow has no kernel for strings: AM_ETYPE), over string, large_string, binary,
large_binary and fixed_size_binary[3]. How generate.py makes the cases (``gen``, called
by string_cases.gen with generate.py's helpers as ``g``); they live in strings.json (a
case with a string input, string_cases.file_of), pyarrow evaluates them and the runners
call them as hash_cases does (its ``evaluate``, ``expected`` and ``call``).

Inputs: string_cases' shapes (lengths 0 to 1,003 and 100,003, every null pattern,
offsets 0/1/7/63) drawn twice, from string_cases' words (few distinct values: empty
strings, multi-byte UTF-8, a combining mark, an embedded NUL, a 300-byte string and,
binary, bytes that are not UTF-8) and from 600 distinct words (many); the words by hand
with values that differ only past a NUL or in length, at offsets 0, 7 and 63; all-null
inputs; value sets with nulls and duplicates, without nulls, empty, all-null and of
1,000 values, each with skip_nulls both ways.
"""

import casefmt as cf
from casefmt import STRING_TYPES
from string_cases import FIXED, LARGE_SHAPE, SHAPES, choices

LOOKUPS = ["is_in", "index_in"]
COUNT_MODES = ["only_valid", "only_null", "all"]
NULL_ENCODINGS = ["mask", "encode"]


def many(t):
    """600 distinct encoded words of type `t` (a hex count between multi-byte
    characters, some with a NUL; binary: some after a byte that is not UTF-8)."""
    if t == FIXED:
        return cf.encode_values(t, [bytes([i % 256, (i * 7) % 251, i // 256]) for i in range(600)])
    texts = ["é" * (i % 3) + format(i, "x") + "\x00" * (i % 7 == 0) + "日" * (i % 5 == 0)
             for i in range(600)]  # fmt: skip
    if t in cf.UTF8_TYPES:
        return cf.encode_values(t, texts)
    return cf.encode_values(t, [b"\xfe" * (i % 9 == 0) + w.encode() for i, w in enumerate(texts)])


# Raw words every type holds what it can of (fit): equal but for a NUL or a length, not
# UTF-8, three bytes (a fixed_size_binary[3] value) or not.
RAW = [b"abc", b"", b"ab", b"ab\x00", b"abc\x00", "héllo".encode(), "é!".encode(), b"\x00\x00\x00",
       b"zz\x00z", b"\xff\xfe\xfd", "日本語".encode(), b"\x80abc", b"x" * 300, b"xyz"]  # fmt: skip


def fit(t, raw):
    """The words of `raw` that type `t` holds (UTF-8 for the string types, three bytes
    for fixed_size_binary[3]), as its values."""
    if t == FIXED:
        return [w for w in raw if len(w) == 3]
    if t in cf.UTF8_TYPES:
        out = []
        for w in raw:
            try:
                out.append(w.decode("utf-8"))
            except UnicodeDecodeError:
                pass
        return out
    return list(raw)


def by_hand(t):
    """Hand-written values of `t` with repeats and nulls."""
    words = fit(t, RAW)
    return [words[i % len(words)] if i % 6 != 5 else None for i in range(3 * len(words))]


def _sweep(g, op, t, params, suffix, extra_inputs=(), form="unary"):
    """The shapes twice (few and many distinct values), 100,003 rows once."""
    for k, (n, nulls, off) in enumerate(SHAPES + [LARGE_SHAPE]):
        for rep in (0,) if n == LARGE_SHAPE[0] else (0, 1):
            cid = g.sweep_id(op, t, form, n, nulls, off, rep) + suffix
            words = choices(t) if rep == 0 else many(t)
            inp = g.gen_input(t, n, nulls, off, cid, kind="choice", choices=words)
            g.add(cid, op, params, form, [inp, *extra_inputs])


def _edges(g, op, t, params, suffix, extra_inputs=(), form="unary"):
    for off in (0, 7, 63):
        g.add(f"{op}/{t}/{form}/by-hand/offset{off}{suffix}", op, params, form,
              [g.inline(t, by_hand(t), off), *extra_inputs])  # fmt: skip
    g.add(f"{op}/{t}/{form}/all-null{suffix}", op, params, form,
          [g.inline(t, [None] * 70, 3), *extra_inputs])  # fmt: skip


def value_sets(g, t):
    """(name, value set of type t): duplicates and nulls, no null, empty, all-null."""
    words = fit(t, RAW)
    return [
        ("dups-null", g.inline(t, [words[2], None, words[0], words[2], None, words[1]])),
        ("no-null", g.inline(t, [words[1], words[3], words[1]], 7)),
        ("empty", g.inline(t, [])),
        ("all-null", g.inline(t, [None, None, None])),
    ]


def other_sets(g, t, st):
    """(name, value set of type st) for values of type t: every word st holds (for a
    fixed_size_binary value, words of other lengths: pyarrow casts the values then, or
    refuses a string set), only three-byte words, empty, all-null."""
    words = fit(st, RAW)
    three = [w for w in words if len(w.encode() if isinstance(w, str) else w) == 3]
    return [
        ("all-words", g.inline(st, [words[-1], None] + words + [words[0]])),
        ("three-bytes", g.inline(st, three + [None, three[0]], 1)),
        ("empty", g.inline(st, [])),
        ("all-null", g.inline(st, [None, None])),
    ]


def gen_lookup(g):
    for op in LOOKUPS:
        for t in STRING_TYPES:
            for skip in (False, True):
                params = {"skip_nulls": skip}
                suffix = "/skip_nulls" if skip else ""
                # The sweep against a set drawn from the few words: some present.
                vs = g.gen_input(t, 40, "some-nulls", 0, f"{op}/{t}/set", kind="choice",
                                 choices=choices(t))  # fmt: skip
                _sweep(g, op, t, params, suffix, [vs], "array-array")
                for name, s in value_sets(g, t):
                    g.add(f"{op}/{t}/array-array/set-{name}{suffix}", op, params, "array-array",
                          [g.inline(t, by_hand(t), 1), s])  # fmt: skip
                _edges(g, op, t, params, suffix, [value_sets(g, t)[0][1]], "array-array")
                # 1,000 values in the set, 1,000 looked up, both of the many words.
                big = g.gen_input(t, 1000, "some-nulls", 7, f"{op}/{t}/bigset", kind="choice",
                                  choices=many(t))  # fmt: skip
                src = g.gen_input(t, 1000, "some-nulls", 0, f"{op}/{t}/bigsrc", kind="choice",
                                  choices=many(t))  # fmt: skip
                g.add(f"{op}/{t}/array-array/set-large{suffix}", op, params, "array-array",
                      [src, big])  # fmt: skip
                # Value sets of the other string types: pyarrow's casts, or its errors.
                for st in STRING_TYPES:
                    if st == t:
                        continue
                    for name, s in other_sets(g, t, st):
                        g.add(f"{op}/{t}/array-array/set-{st}-{name}{suffix}", op, params,
                              "array-array", [g.inline(t, by_hand(t), 7), s])  # fmt: skip
            # Strings and numbers do not meet here: pyarrow's type errors (binary values
            # it parses as the set's numbers, which the Python package leaves to it).
            if t not in ("binary", "large_binary"):
                g.add(f"{op}/{t}/array-array/set-int64/type-error", op, {"skip_nulls": False},
                      "array-array", [g.inline(t, by_hand(t)[:3]), g.inline("int64", [1, 2])])  # fmt: skip
            g.add(f"{op}/int64/array-array/set-{t}/type-error", op, {"skip_nulls": False},
                  "array-array", [g.inline("int64", [1, 2]), g.inline(t, fit(t, RAW)[:2])])  # fmt: skip


def gen_grouping(g):
    for t in STRING_TYPES:
        for op in ("unique", "value_counts"):
            _sweep(g, op, t, {}, "")
            _edges(g, op, t, {}, "")
        for mode in COUNT_MODES:
            suffix = "" if mode == "only_valid" else f"/{mode}"
            _sweep(g, "count_distinct", t, {"mode": mode}, suffix)
            _edges(g, "count_distinct", t, {"mode": mode}, suffix)
        for enc in NULL_ENCODINGS:
            suffix = "" if enc == "mask" else f"/{enc}"
            _sweep(g, "dictionary_encode", t, {"null_encoding": enc}, suffix)
            _edges(g, "dictionary_encode", t, {"null_encoding": enc}, suffix)
        # pyarrow's mode has no kernel for strings; neither has the library's.
        for params, suffix in (({}, ""), ({"n": 2, "skip_nulls": False}, "/n2-keep_nulls")):
            g.add(f"mode/{t}/unary/type-error{suffix}", "mode", params, "unary",
                  [g.inline(t, by_hand(t))])  # fmt: skip


def gen(g):
    """Every case of the hash-based functions with a string input; `g` is generate.py."""
    gen_lookup(g)
    gen_grouping(g)
