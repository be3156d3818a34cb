"""string_view and binary_view in the conformance suite (issue #13): how generate.py makes
the cases with a view input or a view cast target (``gen``, generate.py's helpers passed
in as ``g``), and what pyarrow gives for them (``evaluate``). Every such case lives in
cases/views.json.gz (``file_of``); the runners call the ops as for the other types.

pyarrow 26 computes over views only is_null, is_valid, count, compare and casts among
the ops here: their expected results are its own over the views. The other ops it
refuses ("no kernel matching input types (string_view)") where the library computes
(the header's "Strings" section): their expected result is pyarrow's over the same
values as string / binary, a string result typed as the input's view type (value_counts'
values, min/max scalars and dictionary_encode's dictionary too). unique and value_counts
over views with nulls record the divergence view-hash-nulls (README.md), with pyarrow's
own answer over the views, which gives a null as a valid empty value.

Inputs are inline (up to 1,000 slots: the C runner draws no views from a gen spec), drawn
from words inline in a view (12 bytes or fewer) and out of line (13 or more), the string
cases' words among them (multi-byte UTF-8, an embedded NUL, 300 bytes; binary: bytes that
are not UTF-8), with every null pattern and offsets 0/1/7/63.
"""

import casefmt as cf
import string_cases as sc

FILE = "views"
TYPES = cf.VIEW_TYPES
FLAT = {"string_view": "string", "binary_view": "binary"}
DIVERGENCE = "view-hash-nulls"
# The ops pyarrow 26 computes over views: the expected results are its own.
NATIVE = {"is_null", "is_valid", "count", "compare", "cast"}
SHAPES = [s for s in sc.SHAPES if s[0] <= 1000]
WORDS = sc.WORDS + ["exactly12byt", "thirteen byte", "a value é that spills", "ünï 13 bytes"]
PATTERNS = ["a", "é", "ll", "", "x" * 300, "\x00", "byt"]
CAST_TARGETS = ["string", "large_string", "binary", "large_binary"]  # from string_view


def choices(t):
    """The encoded words of view type t."""
    if t == "string_view":
        return cf.encode_values(t, WORDS)
    return cf.encode_values(t, [w.encode() for w in WORDS] + sc.BYTES)


def _is_view(pa_type):
    import pyarrow as pa

    return pa.types.is_string_view(pa_type) or pa.types.is_binary_view(pa_type)


def has_views(args):
    """Whether a pyarrow argument is a view array or scalar."""
    return any(_is_view(a.type) for a in args if hasattr(a, "type"))


def _flat(arg):
    import pyarrow as pa

    if not hasattr(arg, "type") or not _is_view(arg.type):
        return arg
    t = pa.string() if pa.types.is_string_view(arg.type) else pa.binary()
    if isinstance(arg, pa.Scalar):
        return pa.scalar(arg.as_py(), t)
    return arg.cast(t)


def _view_type(pa_type):
    """The view type of a flat string type; None for the other types."""
    import pyarrow as pa

    if pa_type == pa.string():
        return pa.string_view()
    if pa_type == pa.binary():
        return pa.binary_view()
    return None


def _as_view(result):
    """pyarrow's result over the flat values typed as the library types a view input's."""
    import pyarrow as pa

    if isinstance(result, pa.StructScalar):  # min_max, first_last
        fields = [pa.field(f.name, _view_type(f.type) or f.type) for f in result.type]
        return pa.scalar(result.as_py(), pa.struct(fields))
    if isinstance(result, pa.Scalar):
        view = _view_type(result.type)
        return pa.scalar(result.as_py(), view) if view else result
    if isinstance(result, pa.StructArray):  # value_counts
        fields = [result.field(i) for i in range(result.type.num_fields)]
        names = [result.type.field(i).name for i in range(result.type.num_fields)]
        fields = [f.cast(_view_type(f.type)) if _view_type(f.type) else f for f in fields]
        return pa.StructArray.from_arrays(fields, names)
    if isinstance(result, pa.DictionaryArray):  # dictionary_encode
        view = _view_type(result.dictionary.type)
        if view is None:
            return result
        return pa.DictionaryArray.from_arrays(result.indices, result.dictionary.cast(view))
    view = _view_type(result.type)
    return result.cast(view) if view else result


def evaluate(evaluate_plain, op, params, args):
    """pyarrow's answer for a case with view arguments (see the top of this file)."""
    if op in NATIVE:
        return evaluate_plain(op, params, args)
    return _as_view(evaluate_plain(op, params, [_flat(a) for a in args]))


def file_of(case):
    """FILE for a case with a view input or a view cast target, else None."""
    if case["op"] == "cast" and case["params"]["to"] in TYPES:
        return FILE
    for inp in case["inputs"]:
        t = inp["scalar"]["type"] if "scalar" in inp else inp["type"]
        if t in TYPES:
            return FILE
    return None


def value(g, t, n, nulls, off, key):
    return g.gen_input(t, n, nulls, off, key, kind="choice", choices=choices(t))


def scalar_word(t):
    return "a fill value past 12 bytes" if t == "string_view" else b"\xfe fill"


def pin_divergence(g, cid):
    """unique / value_counts: pyarrow's own answer over the views, where it differs."""
    case = g.CASES[cid]
    theirs = g.expectation(case, native=True)[0]
    has_null = cf.build_input(case["inputs"][0]).null_count > 0
    assert (theirs != case["expected"]) == has_null, f"{cid}: pyarrow's view answer changed"
    if has_null:
        case["divergence"] = DIVERGENCE
        case["pyarrow"] = theirs


def gen_selection(g, t, k, n, nulls, off):
    def sid(op, form="unary", extra=""):
        return g.sweep_id(op, t, form, n, nulls, off, extra=extra)

    cid = sid("filter", "array-array")
    vals = value(g, t, n, nulls, off, cid)
    mask = g.gen_input("bool", n, g.other(nulls, 1) if n > 1 else "no-nulls", off % 5,
                       cid + "/mask", role="mask", kind="uniform", true_permille=500)  # fmt: skip
    g.add(cid, "filter", {}, "array-array", [vals, mask])
    g.add(cid + "/emit_null", "filter", {"null_selection": "emit_null"}, "array-array",
          [vals, mask])  # fmt: skip
    cid = sid("take", "array-array")
    idx = g.gen_input("int32" if k % 2 else "int64", n, "some-nulls" if n > 1 else "no-nulls",
                      0, cid + "/idx", role="index", kind="uniform", lo="0",
                      hi=str(max(n - 1, 0)))  # fmt: skip
    g.add(cid, "take", {}, "array-array", [value(g, t, n, nulls, off, cid), idx])
    cid = sid("slice")
    g.add(cid, "slice", {"offset": min(3, n), "length": 5}, "unary",
          [value(g, t, n, nulls, off, cid)])  # fmt: skip
    for op in ("is_null", "is_valid", "drop_null", "unique", "value_counts"):
        cid = sid(op)
        g.add(cid, op, {}, "unary", [value(g, t, n, nulls, off, cid)])
        if op in ("unique", "value_counts"):
            pin_divergence(g, cid)
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
    cond = g.gen_input("bool", n, g.other(nulls, 1) if n > 1 else "no-nulls", 0, cid + "/cond",
                       kind="uniform")  # fmt: skip
    g.add(cid, "if_else", {}, "array-array",
          [cond, value(g, t, n, nulls, off, cid), value(g, t, n, "some-nulls" if n > 1
           else nulls, 0, cid + "/r")])  # fmt: skip
    g.add(cid + "/scalar-left", "if_else", {}, "array-array",
          [cond, g.scalar(t, scalar_word(t)), value(g, t, n, nulls, off, cid)])  # fmt: skip
    cmp = list(g.CMP)[k % 6]
    cid = sid("compare", "array-array", cmp)
    g.add(cid, "compare", {"cmp": cmp}, "array-array",
          [value(g, t, n, nulls, off, cid), value(g, t, n, "some-nulls" if n > 1 else nulls, 0,
                                                  cid + "/r")])  # fmt: skip
    word = cf.decode_value(t, choices(t)[k % len(choices(t))])
    for c in g.CMP if k in (3, 5) else [cmp]:
        cid = sid("compare", "array-scalar", c)
        g.add(cid, "compare", {"cmp": c}, "array-scalar",
              [value(g, t, n, nulls, off, cid), g.scalar(t, word)])  # fmt: skip
    for op in ("min", "max", "first", "last", "min_max", "first_last"):
        cid = sid(op)
        g.add(cid, op, {}, "unary", [value(g, t, n, nulls, off, cid)])


def gen_functions(g, t, k, n, nulls, off):
    for op in sc.OPS:
        cid = g.sweep_id(op, t, "unary", n, nulls, off)
        inp = value(g, t, n, nulls, off, cid)
        if op in sc.TAKES_CHARACTERS:
            chars = [c for c in sc.TRIM_CHARACTERS if c.isascii() or op.startswith("utf8")]
            g.add(f"{cid}/characters", op, {"characters": chars[k % len(chars)]}, "unary", [inp])
        elif op in sc.MATCHING:
            pats = sc.LIKE_PATTERNS if op == "match_like" else PATTERNS
            g.add(f"{cid}/pattern", op, {"pattern": pats[k % len(pats)]}, "unary", [inp])
        else:
            g.add(cid, op, {}, "unary", [inp])
    cid = g.sweep_id(sc.SLICE, t, "unary", n, nulls, off)
    start, stop, step = sc.SLICES[k % len(sc.SLICES)]
    g.add(cid, sc.SLICE, {"start": start, "stop": stop, "step": step}, "unary",
          [value(g, t, n, nulls, off, cid)])  # fmt: skip
    how = sc.JOIN_NULLS[k % 3]
    cid = g.sweep_id(sc.JOIN, t, "nary", n, nulls, off, extra=how)
    first = value(g, t, n, "no-nulls" if how == "skip" else nulls, off, cid + "/v0")
    values = [first, value(g, t, n, g.other(nulls, 1), 1, cid + "/v1")]
    params = {"null_handling": how, "null_replacement": "N/A"}
    if k % 2:
        sep = value(g, t, n, g.other(nulls, 3), 0, cid + "/sep")
        g.add(cid + "/array-separator", sc.JOIN, params, "nary", values + [sep])
    else:
        g.add(cid, sc.JOIN, {**params, "separator": ", "}, "nary", values)


def gen_casts(g, t, k, n, nulls, off):
    # binary_view to a string type checks UTF-8 in pyarrow (the library leaves it to
    # pyarrow: AM_ETYPE), so its targets are the binary types
    targets = CAST_TARGETS + ["binary_view"] if t == "string_view" else CAST_TARGETS[2:]
    for to in targets:
        cid = g.sweep_id("cast", t, "unary", n, nulls, off, extra=f"to-{to}")
        g.add(cid, "cast", {"to": to, "safe": True}, "unary", [value(g, t, n, nulls, off, cid)])
    src = FLAT[t]  # string / binary to the view type: views over the same bytes
    cid = g.sweep_id("cast", src, "unary", n, nulls, off, extra=f"to-{t}")
    words = choices(t) if t == "string_view" else cf.encode_values(src, [
        cf.decode_value(t, w) for w in choices(t)])  # fmt: skip
    inp = g.gen_input(src, n, nulls, off, cid, kind="choice", choices=words)
    g.add(cid, "cast", {"to": t, "safe": True}, "unary", [inp])
    if t == "string_view":  # numbers to string_view, and its texts to numbers
        cid = g.sweep_id("cast", "int32", "unary", n, nulls, off, extra="to-string_view")
        g.add(cid, "cast", {"to": t, "safe": True}, "unary", [g.gen_input("int32", n, nulls, off,
                                                                            cid)])  # fmt: skip
        cid = g.sweep_id("cast", t, "unary", n, nulls, off, extra="to-int64")
        texts = cf.encode_values(t, [x for x in sc.CAST_TEXTS if sc.parses(x, "int64")])
        inp = g.gen_input(t, n, nulls, off, cid, kind="choice", choices=texts)
        g.add(cid, "cast", {"to": "int64", "safe": True}, "unary", [inp])


def gen(g):
    for t in TYPES:
        for k, (n, nulls, off) in enumerate(SHAPES):
            gen_selection(g, t, k, n, nulls, off)
            gen_functions(g, t, k, n, nulls, off)
            gen_casts(g, t, k, n, nulls, off)
        # Errors: out-of-range indices, a mask of another length, the functions that take
        # no strings, a view meeting another string type.
        three = g.inline(t, cf.decode_values(t, choices(t)[:3]))
        g.add(f"take/{t}/array-array/out-of-bounds", "take", {}, "array-array",
              [three, g.inline("int64", [0, 3])])  # fmt: skip
        g.add(f"filter/{t}/array-array/length-mismatch", "filter", {}, "array-array",
              [three, g.inline("bool", [True, False])])  # fmt: skip
        for op in ("sum", "is_nan", "cumulative_sum"):
            g.add(f"{op}/{t}/unary/type-error", op, {}, "unary", [three])
        other = g.inline(FLAT[t], cf.decode_values(t, choices(t)[:3]))
        g.add(f"compare/{t}/array-array/{FLAT[t]}/type-error", "compare", {"cmp": "eq"},
              "array-array", [three, other])  # fmt: skip
