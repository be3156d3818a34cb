"""split_pattern, ascii_split_whitespace and utf8_split_whitespace in the conformance suite
(issue #13): how generate.py makes their cases (``gen``, generate.py's helpers passed in
as ``g``), what pyarrow gives for them (``evaluate``, ``expected``) and the ABI call
(``call``). Every such case lives in cases/split.json.gz (``file_of``).

pyarrow's result is a ListArray (list<input type>); the library's is two arrays, which a
case expects as the fields ``items`` (every row's pieces one after the other, of the
input's type) and ``offsets`` (int32, length + 1 slots, null where the row is). Params:
split_pattern ``{"pattern", "max_splits", "reverse"}`` (SplitPatternOptions; max_splits
null for None), the whitespace ones ``{"max_splits", "reverse"}`` (SplitOptions) ->
``am_string_split(<op index>, array, pattern, pattern_length, max_splits (null: -1),
reverse, &items, &offsets)``.

Inputs are drawn (kind "choice") from values holding the patterns alone, twice, at
either end, overlapping ("aaa" under "aa"), beside multi-byte UTF-8 and NULs, and every
kind of whitespace in runs, at a value's ends and alone; binary words add bytes that are
not UTF-8. The string cases' lengths (up to 100,003, hashed), null patterns and slice
offsets apply. string_view and binary_view inputs (pyarrow 26 has no kernel for them)
expect pyarrow's answer over the same values as string / binary, the items in the view
type (view_cases). Expected values are pyarrow 26's.
"""

from collections import OrderedDict

import casefmt as cf
import string_cases as sc

FILE = "split"
# The ops, in the order of am_split_op.
OPS = ["split_pattern", "ascii_split_whitespace", "utf8_split_whitespace"]
PATTERN_TYPES = ["string", "large_string", "binary", "large_binary"]
WHITESPACE_TYPES = ["string", "large_string"]
VIEWS = {"string_view": "string", "binary_view": "binary"}

# Values for split_pattern: the patterns below alone, repeated, at the ends, overlapping,
# with multi-byte text, NULs and a long value.
PATTERN_WORDS = ["", ",", ",,", "a,b", "a,b,c,d", ",a", "a,", ",a,", "a, b, c", "aaa", "aaaa",
                 "abab", "ab", "日本,語,", "é,ü,é", "x\x00y\x00", "\x00", "no separator",
                 "héllo wörld", "a\u3000b", "x" * 300 + ",y", "日本日本", "ßéé"]  # fmt: skip
PATTERN_BYTES = [b"\xff,\xfe", b"\xc3,\x28", b"\x80abc,", b",\xff"]
PATTERNS = [",", ", ", "a", "aa", "ab", "é", "日本", "\x00", "x" * 300, "zz"]
# Values for the whitespace splits: every kind of whitespace in runs, alone, at the ends.
SPACE_WORDS = ["", " ", "  ", "a b", "  a  b ", "\t\n tab \r", "\x0b\x0cvt", "a\x1cb\x1fc",
               "\u3000全角\u3000", "\xa0nbsp\xa0", "a\u2028b\u2029", "\u205fé\u202f",
               "a  ", "  a", "a \u3000", "\u3000 a", "x\u3000", "\u1680\u2000\u200a",
               "\x85next", "word", "日本 語", "zz\x00z y"]  # fmt: skip
OPTIONS = [(None, False), (None, True), (0, False), (1, False), (1, True), (2, True),
           (5, False), (2**62, False)]  # fmt: skip


def words(op, t):
    """The encoded words of type `t` for op."""
    base = PATTERN_WORDS + SPACE_WORDS[:8] if op == OPS[0] else SPACE_WORDS + PATTERN_WORDS[:6]
    if t in cf.TEXT_TYPES:
        return cf.encode_values(t, base)
    return cf.encode_values(t, [w.encode() for w in base] + PATTERN_BYTES)


def _guarded(arr):
    """The same values with a valid byte before the first and after the last: pyarrow's
    UTF-8 whitespace scan reads a code point past a value's end (before its start under
    reverse) and finds no separator where those bytes are not UTF-8, which past a
    buffer's last value are its padding (the header's note); the library takes them as
    UTF-8."""
    import pyarrow as pa

    if not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
        return arr
    return pa.array(["x", *arr.to_pylist(), "x"], arr.type).slice(1, len(arr))


def evaluate(op, params, args):
    import pyarrow.compute as pc

    kw = {"max_splits": params["max_splits"], "reverse": params["reverse"]}
    if op == OPS[0]:
        return pc.split_pattern(args[0], params["pattern"], **kw)
    return pc.call_function(op, [_guarded(args[0])], pc.SplitOptions(**kw))


def _part(g, arr):
    t = cf.type_name(arr.type)
    if len(arr) <= g.INLINE_MAX:
        return OrderedDict([("type", t), ("values", cf.encode_values(t, cf.array_values(arr)))])
    return cf.hashed_expectation(arr)


def expected(g, case, result):
    """The fields of pyarrow's ListArray: its items (in the input's view type for a view
    input) and its int32 offsets, null where the list is."""
    import pyarrow as pa

    offsets = result.offsets.to_pylist()
    items = result.values.slice(offsets[0], offsets[-1] - offsets[0])
    view = case["inputs"][0]["type"]
    if view in VIEWS:
        items = items.cast(cf.PA_TYPE[view])
    valid = result.is_valid().to_pylist() + [True]
    lists = pa.array([o if ok else None for o, ok in zip(offsets, valid)], pa.int32())
    return {"fields": OrderedDict([("items", _part(g, items)), ("offsets", _part(g, lists))])}


def map_error(exc):
    """am_status of pyarrow's errors of these functions, None for the others."""
    msg = str(exc)
    if msg == "Empty separator":
        return "AM_EINVAL"
    if msg.startswith("List offset does not fit"):
        return "AM_EOVERFLOW"
    return None


def call(case, arrays, scalars):
    """(function name, status, (items, offsets)) of a case's am_string_split."""
    from amabi import ffi, lib

    p = case["params"]
    out = (ffi.new("am_array **"), ffi.new("am_array **"))
    pattern = p["pattern"].encode("utf-8") if "pattern" in p else None
    rc = lib.am_string_split(OPS.index(case["op"]), arrays[0],
                             pattern if pattern is not None else ffi.NULL,
                             len(pattern) if pattern is not None else 0,
                             -1 if p["max_splits"] is None else p["max_splits"],
                             int(p["reverse"]), out[0], out[1])  # fmt: skip
    return "am_string_split", rc, out


def file_of(case):
    return FILE if case["op"] in OPS else None


def gen(g):
    shapes = sc.SHAPES + [sc.LARGE_SHAPE]
    for op in OPS:
        types = PATTERN_TYPES if op == OPS[0] else WHITESPACE_TYPES
        views = list(VIEWS) if op == OPS[0] else ["string_view"]
        for t in types + views:
            for k, (n, nulls, off) in enumerate(shapes):
                if (t in views and n > 1000) or (n > 100000 and t != "string"):
                    continue  # views: inline only (the C runner draws none); one large type
                cid = g.sweep_id(op, t, "unary", n, nulls, off)
                inp = g.gen_input(t, n, nulls, off, cid, kind="choice", choices=words(op, t))
                every = k in (3, 5, 7)
                opts = OPTIONS if every or op != OPS[0] else [OPTIONS[k % len(OPTIONS)]]
                pats = PATTERNS if every else [PATTERNS[k % len(PATTERNS)]]
                for j, (most, reverse) in enumerate(opts):
                    params = {"max_splits": most, "reverse": reverse}
                    if op != OPS[0]:
                        g.add(f"{cid}/options{j}", op, params, "unary", [inp])
                        continue
                    for i, p in enumerate(pats if every or j == 0 else pats[:1]):
                        g.add(f"{cid}/pattern{i}/options{j}", op, {"pattern": p, **params},
                              "unary", [inp])  # fmt: skip
    gen_edges(g)


def gen_edges(g):
    """Hand-made values, the empty pattern and the types pyarrow refuses."""
    plain = {"max_splits": None, "reverse": False}
    edges = [",", "a,", ",a", ",", ",,", "", None, "aaa", "a,b,c"]
    for j, (most, reverse) in enumerate(OPTIONS):
        params = {"pattern": ",", "max_splits": most, "reverse": reverse}
        inp = g.inline("string", edges, 1)
        g.add(f"split_pattern/string/unary/edges/options{j}", "split_pattern", params, "unary",
              [inp])  # fmt: skip
        params = {"pattern": "aa", "max_splits": most, "reverse": reverse}
        inp = g.inline("string", ["aaaaa", "aaaa", "aaa", "aa", "a", "baab", "aabaa"], 0)
        g.add(f"split_pattern/string/unary/overlapping/options{j}", "split_pattern", params,
              "unary", [inp])  # fmt: skip
        spaces = ["a  ", "  a", " ", "  ", "a \u3000 b", "\u3000\u3000", "x\u3000 ", "", None]
        for op in OPS[1:]:
            inp = g.inline("string", spaces, 7)
            g.add(f"{op}/string/unary/edges/options{j}", op,
                  {"max_splits": most, "reverse": reverse}, "unary", [inp])  # fmt: skip
    for t in ["string", "binary", "large_binary", "string_view"]:
        a = "a" if t in cf.TEXT_TYPES else b"a"
        for n, vals in (("values", [a, None]), ("all-null", [None, None]), ("empty", [])):
            g.add(f"split_pattern/{t}/unary/empty-pattern/{n}", "split_pattern",
                  {"pattern": "", **plain}, "unary", [g.inline(t, vals)])  # fmt: skip
    refused = {OPS[0]: ["fixed_size_binary[3]"] + list(cf.TYPES),
               OPS[1]: ["binary", "large_binary", "binary_view", "fixed_size_binary[3]"] + cf.TYPES,
               OPS[2]: ["binary", "large_binary", "binary_view", "fixed_size_binary[3]"] + cf.TYPES}  # fmt: skip
    for op, types in refused.items():
        for t in types:
            params = {"pattern": ",", **plain} if op == OPS[0] else dict(plain)
            g.add(f"{op}/{t}/unary/type-error", op, params, "unary", [g.inline(t, [None])])
