"""Throughput of the string and temporal functions on the CPU (issue #13's CPU
speed rows) against pyarrow.compute, side by side in one run: medians in
milliseconds, and pyarrow's time over ArrowMetal's (above 1: ArrowMetal is
faster).

    python benchmarks/string_bench.py [--rows 1000000,10000000] [--repeats 5]
        [--distinct 1000,1000000] [--only functions|hash|fold]

The strings are words of 0 to 24 ASCII letters with a few multi-byte ones
("é", "日本"), 5% nulls; filter keeps about half the rows, take draws random
indices; the trims take the words with two spaces before and a tab after.
ArrowMetal's inputs are am.Arrays made once (import is zero-copy on
the CPU); results are am.Arrays. `year` runs over timestamp[us] values. Rows
that the library hands to pyarrow (a fallback, counted) are marked so, since
their time is pyarrow's own. The hash-based functions (unique, value_counts,
is_in, index_in, dictionary_encode, count_distinct) run over strings of 4 to
20 letters drawn from `--distinct` values, 5% nulls; the value set of is_in
and index_in is 1,000 strings, half of them among the values. The fold rows
(MatchSubstringOptions(ignore_case=True)) run over mixed-script words: 0 to 16
code points a word, each drawn from one script a word (ASCII, Latin-1 and
Latin Extended, Greek, Cyrillic, Turkish and German letters, CJK, emoji, the
Kelvin and long-s forms) in random case, 5% nulls, and over the ASCII words
above. Nothing here passes or fails.
"""

import argparse
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms, table

import arrowmetal as am


def words(rows, seed=0):
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    pool = ["".join(rng.choice(letters, rng.integers(0, 25))) for _ in range(5000)]
    pool += ["é" + w for w in pool[:200]] + ["日本" + w for w in pool[200:300]]
    picks = rng.integers(0, len(pool), rows)
    values = pa.array(np.array(pool, dtype=object)[picks], pa.string())
    mask = pa.array(rng.random(rows) < 0.05)
    return pc.if_else(mask, pa.scalar(None, pa.string()), values)


def functions(rows):
    rng = np.random.default_rng(1)
    s = words(rows)
    keep = pa.array(rng.random(rows) < 0.5)
    idx = pa.array(rng.integers(0, rows, rows))
    ts = pa.array(rng.integers(0, 2**50, rows), pa.timestamp("us"))
    padded = pc.binary_join_element_wise("  ", s, "\t", "")  # whitespace at both ends
    csv = pc.binary_join_element_wise(s, s, s, ", ")  # split_pattern: three pieces a row
    a, k, i, t = am.array(s), am.array(keep), am.array(idx), am.array(ts)
    pa_, csv_ = am.array(padded), am.array(csv)
    return [
        ("filter", lambda: am.filter(a, k), lambda: pc.filter(s, keep)),
        ("take", lambda: am.take(a, i), lambda: pc.take(s, idx)),
        ("equal (scalar)", lambda: am.equal(a, "hello"), lambda: pc.equal(s, "hello")),
        (
            "match_substring",
            lambda: am.match_substring(a, "ab"),
            lambda: pc.match_substring(s, "ab"),
        ),
        ("match_like %ab%", lambda: am.match_like(a, "%ab%"), lambda: pc.match_like(s, "%ab%")),
        ("match_like a%b_", lambda: am.match_like(a, "a%b_"), lambda: pc.match_like(s, "a%b_")),
        ("utf8_length", lambda: am.utf8_length(a), lambda: pc.utf8_length(s)),
        ("ascii_upper", lambda: am.ascii_upper(a), lambda: pc.ascii_upper(s)),
        (
            "utf8_upper",
            lambda: am.utf8_upper(a) if hasattr(am, "utf8_upper") else None,
            lambda: pc.utf8_upper(s),
        ),
        (
            "utf8_trim_whitespace",
            lambda: am.utf8_trim_whitespace(pa_),
            lambda: pc.utf8_trim_whitespace(padded),
        ),
        (
            "ascii_trim_whitespace",
            lambda: am.ascii_trim_whitespace(pa_),
            lambda: pc.ascii_trim_whitespace(padded),
        ),
        (
            "utf8_trim ' \\t'",
            lambda: am.utf8_trim(pa_, " \t"),
            lambda: pc.utf8_trim(padded, " \t"),
        ),
        # the splits give pyarrow ListArrays (the library's items and offsets, not copied)
        (
            "split_pattern ', '",
            lambda: am.split_pattern(csv_, ", "),
            lambda: pc.split_pattern(csv, ", "),
        ),
        (
            "split_pattern ',' max 1 reverse",
            lambda: am.split_pattern(csv_, ",", max_splits=1, reverse=True),
            lambda: pc.split_pattern(csv, ",", max_splits=1, reverse=True),
        ),
        (
            "utf8_split_whitespace",
            lambda: am.utf8_split_whitespace(pa_),
            lambda: pc.utf8_split_whitespace(padded),
        ),
        ("year", lambda: am.year(t), lambda: pc.year(ts)),
    ]


def distinct_words(rows, distinct, seed=2):
    """`rows` strings drawn from `distinct` ones (4 to 20 letters, 5% nulls) and a
    value set of 1,000 strings, half of them among those."""
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", np.uint8)
    lengths = rng.integers(4, 21, distinct + 500)
    flat = letters[rng.integers(0, 26, int(lengths.sum()))]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    # a count in front keeps the words distinct
    tags = pa.array([f"{i:x}" for i in range(distinct + 500)])
    body = pa.Array.from_buffers(pa.string(), distinct + 500,
                                 [None, pa.py_buffer(offsets), pa.py_buffer(flat.tobytes())])  # fmt: skip
    pool = pc.binary_join_element_wise(tags, body, "")
    values = pc.take(pool[:distinct], pa.array(rng.integers(0, distinct, rows)))
    values = pc.if_else(pa.array(rng.random(rows) < 0.05), pa.scalar(None, pa.string()), values)
    value_set = pa.concat_arrays([pool[:500], pool[distinct:]])
    return values, value_set


def hash_functions(rows, distinct):
    s, vs = distinct_words(rows, distinct)
    a = am.array(s)
    return [
        ("unique", lambda: am.unique(a), lambda: pc.unique(s)),
        ("value_counts", lambda: am.value_counts(a), lambda: pc.value_counts(s)),
        ("is_in", lambda: am.is_in(a, value_set=vs), lambda: pc.is_in(s, value_set=vs)),
        ("index_in", lambda: am.index_in(a, value_set=vs), lambda: pc.index_in(s, value_set=vs)),
        ("dictionary_encode", lambda: am.dictionary_encode(a), lambda: pc.dictionary_encode(s)),
        ("count_distinct", lambda: am.count_distinct(a), lambda: pc.count_distinct(s)),
    ]


SCRIPTS = [
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞŸ",
    "αβγδεζηθικλμνξοπρσςτυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩάέήίόύώϐϑϕ",
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ",
    "çğıiöşüÇĞIİÖŞÜßẞſ\u212a\u212bǅǆǄ",
    "日本語中文字漢字한국어",
    "🙂🙃👍🏽🚀✨",
]


def mixed_words(rows, seed=3):
    """`rows` words of 0 to 16 code points, each word of one script, 5% nulls."""
    rng = np.random.default_rng(seed)
    pool = []
    for _ in range(20000):
        script = SCRIPTS[rng.integers(0, len(SCRIPTS))]
        pool.append("".join(script[k] for k in rng.integers(0, len(script), rng.integers(0, 17))))
    values = pa.array(np.array(pool, dtype=object)[rng.integers(0, len(pool), rows)], pa.string())
    mask = pa.array(rng.random(rows) < 0.05)
    return pc.if_else(mask, pa.scalar(None, pa.string()), values)


def fold_functions(rows):
    m, s = mixed_words(rows), words(rows)
    a, b = am.array(m), am.array(s)

    def both(name, x, xa, pattern):
        return (f"{name} {pattern!r} ic", lambda: getattr(am, name)(xa, pattern, ignore_case=True),
                lambda: getattr(pc, name)(x, pattern, ignore_case=True))  # fmt: skip

    return [
        both("match_substring", m, a, "σς"),
        both("match_substring", m, a, "ab"),
        both("starts_with", m, a, "Д"),
        both("find_substring", m, a, "ß"),
        both("count_substring", m, a, "k"),
        both("match_like", m, a, "%Σ_%"),
        both("match_substring", s, b, "AB"),  # the ASCII words
        both("match_like", s, b, "A%B_"),
    ]


def measure(out, label, mine, peer, repeats):
    """A row: the library's median, then pyarrow's, in the same run."""
    before = sum(am.fallbacks().values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        if mine() is None:  # the package has no such function
            out.append(label + ("-", f"{median_ms(peer, repeats):.2f}", "-"))
            return
        t_am = median_ms(mine, repeats)
    fell_back = sum(am.fallbacks().values()) > before
    t_pa = median_ms(peer, repeats)
    if fell_back:
        label = label[:-1] + (label[-1] + " (pyarrow ran it)",)
    out.append(label + (f"{t_am:.2f}", f"{t_pa:.2f}", f"{t_pa / t_am:.2f}"))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", default="1000000,10000000")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--distinct", default="1000,1000000")
    ap.add_argument("--only", choices=["functions", "hash", "fold"])
    args = ap.parse_args()
    rows_list = [int(r) for r in args.rows.split(",")]
    if args.only == "fold":
        out = []
        for rows in rows_list:
            for name, mine, peer in fold_functions(rows):
                measure(out, (f"{rows:,}", name), mine, peer, args.repeats)
        table(out, ["rows", "function", "arrowmetal ms", "pyarrow ms", "pyarrow / am"])
        return
    if args.only != "hash":
        out = []
        for rows in rows_list:
            for name, mine, peer in functions(rows):
                measure(out, (f"{rows:,}", name), mine, peer, args.repeats)
        table(out, ["rows", "function", "arrowmetal ms", "pyarrow ms", "pyarrow / am"])
    if args.only != "functions":
        out = []
        for rows in rows_list:
            for distinct in (int(d) for d in args.distinct.split(",")):
                for name, mine, peer in hash_functions(rows, distinct):
                    measure(out, (f"{rows:,}", f"{distinct:,}", name), mine, peer, args.repeats)
        table(out, ["rows", "distinct", "function", "arrowmetal ms", "pyarrow ms", "pyarrow / am"])


if __name__ == "__main__":
    main()
