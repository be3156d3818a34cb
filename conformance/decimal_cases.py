"""Decimals in the conformance suite (issue #13): every call that takes decimal128 and
decimal256 arrays on the CPU, over the precisions and scales of TYPES, with nulls, sliced
inputs (padding of edge values before the first slot), negative values and values at the
precision's edge, and pyarrow's errors (overflow of the promoted precision, division by
zero, rescaling that would lose digits, values beyond a cast's target).

A decimal type is named as pyarrow prints it and its values are JSON strings at exactly
the type's scale (casefmt: "Decimals"). The ops are the suite's own (take, filter, slice,
drop_null, is_null, is_valid, fill_null, coalesce, if_else, compare, sum, mean, min, max,
min_max, count, count_distinct, unique, value_counts, is_in, index_in, arith and the
*_checked functions, cast), so the runners call them as they call them for any type; a
cast to a decimal goes through am_cast_decimal, which takes the target's precision and
scale. Every case with a decimal input or a decimal cast target lives in
cases/decimal.json.gz (``file_of``); every expected value is pyarrow 26's.
"""

from collections import OrderedDict

import casefmt as cf

FILE = "decimal"  # every case one of the suite's ops: the family has none of its own
TYPES = ["decimal128(5, 2)", "decimal128(18, 0)", "decimal128(38, 10)", "decimal256(40, 2)",
         "decimal256(76, 5)"]  # fmt: skip
# (length, nulls, offset) of the inputs: empty, one slot, short, around a bitmap word,
# and a longer one, with the suite's null patterns and offsets.
SHAPES = [(0, "no-nulls", 0), (1, "no-nulls", 0), (1, "all-nulls", 1), (7, "some-nulls", 0),
          (7, "no-nulls", 7), (64, "some-nulls", 1), (65, "all-nulls", 0),
          (200, "some-nulls", 63)]  # fmt: skip
NULL_PERMILLE = {"no-nulls": 0, "some-nulls": 250, "all-nulls": 1000}
# Pairs of types for the binary calls: the same type, another scale of the same width,
# decimal128 meeting decimal256, and the widest against itself (its promotions overflow).
PAIRS = [(TYPES[0], TYPES[0]), (TYPES[0], TYPES[1]), (TYPES[1], TYPES[2]),
         (TYPES[2], TYPES[2]), (TYPES[0], TYPES[3]), (TYPES[3], TYPES[4]),
         (TYPES[4], TYPES[4]), (TYPES[2], TYPES[3])]  # fmt: skip
DIVERGENCE = "decimal-coalesce-type"
CAST_TARGETS = ["int8", "int32", "int64", "uint16", "uint64", "float32", "float64"]


def params(t):
    return cf.decimal_params(t)


def limit(t):
    """The largest unscaled value of decimal type t (10^precision - 1)."""
    return 10 ** params(t)[1] - 1


def value_of(t, unscaled):
    """The decoded value of an unscaled integer of type t."""
    return cf.decode_value(t, cf.decimal_text(unscaled, params(t)[2]))


def edges(t):
    """Unscaled values at the precision's edge and around zero."""
    m = limit(t)
    return [m, -m, m - 1, -m + 1, 0, 1, -1]


def draw(g, t, n, nulls, key, small=False):
    """n decoded values of type t (None for nulls) from splitmix64 seeded by `key`: an
    eighth at the edges, the rest up to a few digits past the scale (`small`, or every
    other slot) or anywhere in the precision."""
    u = cf.splitmix64(g.seed_of(key), 5 * n).tolist()
    m, scale = limit(t), params(t)[2]
    near = 10 ** min(params(t)[1], scale + 3) - 1
    out = []
    for k in range(n):
        a, b, c, d, w = u[5 * k : 5 * k + 5]
        if w % 1000 < NULL_PERMILLE[nulls]:
            out.append(None)
            continue
        big = (a << 128) | (b << 64) | c
        if d % 8 == 0:
            v = edges(t)[d % 7]
        elif small or d % 2:
            v = big % (2 * near + 1) - near
        else:
            v = big % (2 * m + 1) - m
        out.append(value_of(t, v))
    if nulls == "some-nulls" and n >= 2 and all(v is None for v in out):
        out[0] = value_of(t, 1)
    if nulls == "some-nulls" and n >= 2 and None not in out:
        out[-1] = None
    return out


def inline(t, values, offset=0):
    """An array input of decoded `values` after `offset` slots of edge values and a null."""
    pad = [value_of(t, limit(t)), None, value_of(t, -limit(t)), value_of(t, 0)]
    out = OrderedDict([("type", t), ("offset", offset)])
    out["values"] = cf.encode_values(t, [pad[i % 4] for i in range(offset)] + list(values))
    return out


def array(g, t, shape, key, small=False):
    n, nulls, off = shape
    return inline(t, draw(g, t, n, nulls, key, small), off)


def each(g, op, per=3, types=TYPES):
    """(case id, type, shape, k) over the types, `per` shapes each, every shape across
    the types (the rotation differs between ops)."""
    shift = g.seed_of(op) % len(SHAPES)
    for c, t in enumerate(types):
        for j in range(per):
            k = c * per + j
            shape = SHAPES[(k + shift) % len(SHAPES)]
            n, nulls, off = shape
            yield f"{op}/{t}/len{n}/{nulls}/offset{off}", t, shape, k


def shaped(g, op, per=3, small=False):
    """(case id, type, array input, k) for `each` shape."""
    for cid, t, shape, k in each(g, op, per):
        yield cid, t, array(g, t, shape, cid, small), k


def length_of(inp):
    return len(inp["values"]) - inp["offset"]


def map_error(exc):
    """am_status of pyarrow's decimal errors, None for the others."""
    msg = str(exc)
    if msg == "Divide by zero":
        return "AM_EZERODIV"
    invalid = ("Decimal precision out of range", "does not fit in precision",
               "Rescaling Decimal value would cause data loss", "Integer value out of bounds",
               "Cannot convert", "does not fit into precision inferred",
               "Precision is not great enough")  # fmt: skip
    if any(word in msg for word in invalid):
        return "AM_EINVAL"
    return None


def file_of(case):
    """The case file of a case with a decimal input or cast target, else None."""
    if params(case["params"].get("to")):
        return FILE
    for inp in case["inputs"]:
        t = inp["scalar"]["type"] if "scalar" in inp else inp["type"]
        if params(t):
            return FILE
    return None


# ---- cases ---------------------------------------------------------------------------------


def gen_selection(g):
    for cid, t, inp, k in shaped(g, "take"):
        n = length_of(inp)
        idx = g.gen_input("int32" if k % 2 else "int64", max(n, 3) if n else 0,
                          "some-nulls" if n > 1 else "no-nulls", k % 2, cid + "/idx",
                          kind="uniform", lo="0", hi=str(max(n - 1, 0)))  # fmt: skip
        g.add(cid + "/take", "take", {}, "array-array", [inp, idx])
    for t in TYPES:
        g.add(f"take/{t}/out-of-bounds", "take", {}, "array-array",
              [inline(t, [value_of(t, 5), None]), g.inline("int64", [0, 2])])  # fmt: skip
    for cid, t, inp, k in shaped(g, "filter"):
        n = length_of(inp)
        mask = g.gen_input("bool", n, "some-nulls" if n > 1 else "no-nulls", k % 3, cid + "/mask",
                           kind="uniform", true_permille=[500, 100, 900][k % 3])  # fmt: skip
        g.add(cid, "filter", {}, "array-array", [inp, mask])
        g.add(cid + "/emit_null", "filter", {"null_selection": "emit_null"}, "array-array",
              [inp, mask])  # fmt: skip
    for cid, t, inp, k in shaped(g, "slice"):
        n = length_of(inp)
        g.add(cid, "slice", {"offset": min(k % 5, n), "length": 3 + k % 40}, "unary", [inp])


def gen_nulls(g):
    for op in ("drop_null", "is_null", "is_valid"):
        for cid, _, inp, _ in shaped(g, op):
            g.add(cid, op, {}, "unary", [inp])
    for cid, t, inp, k in shaped(g, "fill_null"):
        n = length_of(inp)
        fill = None if k % 5 == 4 else value_of(t, edges(t)[k % 7])
        g.add(cid + "/scalar", "fill_null", {}, "array-scalar", [inp, g.scalar(t, fill)])
        g.add(cid + "/array", "fill_null", {}, "array-array",
              [inp, array(g, t, (n, "some-nulls", 1), cid + "/fill")])  # fmt: skip
    for cid, t, inp, k in shaped(g, "coalesce"):
        n = length_of(inp)
        g.add(cid, "coalesce", {}, "arrays",
              [inp, array(g, t, (n, "some-nulls", 0), cid + "/2"),
               g.scalar(t, value_of(t, -limit(t)))])  # fmt: skip
    for cid, t, inp, k in shaped(g, "if_else"):
        n = length_of(inp)
        cond = g.gen_input("bool", n, "some-nulls" if n > 1 else "no-nulls", k % 2, cid + "/c",
                           kind="uniform")  # fmt: skip
        other = array(g, t, (n, "some-nulls", 7), cid + "/r")
        g.add(cid + "/arrays", "if_else", {}, "arrays", [cond, inp, other])
        g.add(cid + "/scalar", "if_else", {}, "arrays",
              [cond, inp, g.scalar(t, value_of(t, edges(t)[k % 7]))])  # fmt: skip
    # scalars of other parameters: rescaled exactly, or refused by pyarrow
    t = TYPES[0]
    inp = inline(t, [value_of(t, 12345), None, value_of(t, -1)], 1)
    for name, st, v in [("wider-scale-exact", TYPES[2], "1.5"), ("data-loss", TYPES[2], "1.005"),
                        ("beyond-precision", TYPES[1], "123456"),
                        ("decimal256", TYPES[3], "-2.25")]:  # fmt: skip
        g.add(f"fill_null/{t}/scalar-{name}", "fill_null", {}, "array-scalar",
              [inp, g.scalar(st, cf.decode_value(st, cf.encode_value(st, v)))])  # fmt: skip
        coalesce_to_first(g, f"coalesce/{t}/scalar-{name}",
                          [inp, g.scalar(st, cf.decode_value(st, cf.encode_value(st, v)))])  # fmt: skip


def coalesce_to_first(g, cid, inputs):
    """coalesce of an array and a scalar of other decimal parameters: the library gives
    the array's type, the scalar rescaled exactly or refused, as pyarrow's fill_null does
    (its answer is the expected one), where pyarrow's coalesce promotes both to a common
    type. The case keeps coalesce's answer beside (checked to still differ)."""
    case = OrderedDict([("id", cid), ("op", "coalesce"), ("params", {}), ("form", "arrays")])
    case["inputs"] = inputs
    case["expected"] = g.expectation(dict(case, op="fill_null"))[0]
    theirs = g.expectation(case)[0]
    assert theirs != case["expected"], f"{cid}: pyarrow's coalesce now keeps the first type"
    case["divergence"] = DIVERGENCE
    case["pyarrow"] = theirs
    g.CASES[cid] = case


def gen_compare(g):
    cmps = list(g.CMP)
    for a, b in PAIRS:
        for cid, _, shape, k in each(g, f"compare/{b}", per=2, types=[a]):
            n = shape[0]
            left = array(g, a, shape, cid, small=True)
            right = array(g, b, (n, "some-nulls" if n > 1 else shape[1], (k * 7) % 64), cid + "/r",
                          small=True)  # fmt: skip
            for c in cmps if k == 0 else [cmps[(k + PAIRS.index((a, b))) % 6]]:
                g.add(f"{cid}/{b}/{c}", "compare", {"cmp": c}, "array-array", [left, right])
    for cid, t, inp, k in shaped(g, "compare-scalar", small=True):
        st = TYPES[(k + 1) % len(TYPES)]  # a scalar of other parameters too
        pick = [value_of(st, 1), value_of(st, -limit(st)), None, value_of(st, 0)][k % 4]
        for c in cmps if k % 5 == 0 else [cmps[k % 6]]:
            g.add(f"{cid}/{st}/{c}", "compare", {"cmp": c}, "array-scalar",
                  [inp, g.scalar(st, pick)])  # fmt: skip


def gen_aggregates(g):
    for op in ("sum", "mean", "min", "max"):
        for cid, _, inp, _ in shaped(g, op):
            g.add(cid, op, {}, "unary", [inp])
    for cid, _, inp, _ in shaped(g, "min_max"):
        g.add(cid, "min_max", {}, "unary", [inp])
    for mode in ("only_valid", "only_null", "all"):
        for cid, _, inp, _ in shaped(g, f"count-{mode}", per=2):
            g.add(cid, "count", {"mode": mode}, "unary", [inp])
    for t in TYPES:  # a sum past the width wraps in pyarrow; a mean of the edge
        m = value_of(t, limit(t))
        g.add(f"sum/{t}/edge", "sum", {}, "unary", [inline(t, [m] * 9 + [None])])
        g.add(f"mean/{t}/edge", "mean", {}, "unary", [inline(t, [m, m, value_of(t, -1)])])


def gen_hash(g):
    for op in ("count_distinct", "unique", "value_counts"):
        for cid, t, shape, k in each(g, op):
            n, nulls, off = shape
            few = [value_of(t, v) for v in edges(t)[:4]]  # repeats: a few distinct values
            vals = [None if v is None else few[i % 4] for i, v in
                    enumerate(draw(g, t, n, nulls, cid))]  # fmt: skip
            g.add(cid, op, {}, "unary", [inline(t, vals, off)])
    for op in ("is_in", "index_in"):
        for skip in (False, True):
            for cid, t, inp, k in shaped(g, op + ("/skip_nulls" if skip else ""), per=2):
                st = TYPES[(TYPES.index(t) + k) % len(TYPES)]  # a set of other parameters
                present = [v for v in cf.decode_values(t, inp["values"]) if v is not None][:3]
                keep = [v for v in present if _fits(st, v)]
                vset = keep + [None, value_of(st, 0)]
                g.add(cid, op, {"skip_nulls": skip}, "array-array", [inp, inline(st, vset, k % 2)])


def _fits(t, v):
    """Whether decoded value v is a value of decimal type t (its scale, its precision)."""
    try:
        return abs(cf.decimal_unscaled(t, v)) <= limit(t)
    except ValueError:
        return False


def gen_arith(g):
    for name in g.ARITH:
        for checked in (False, True):
            op = f"{name}_checked" if checked else "arith"
            p = {} if checked else {"arith": name}
            for a, b in PAIRS:
                key = f"{name}{'_checked' if checked else ''}/{b}"
                for cid, _, shape, k in each(g, key, per=1, types=[a]):
                    n = shape[0]
                    left = array(g, a, shape, cid, small=k % 2 == 0)
                    right = array(g, b, (n, "some-nulls" if n > 1 else shape[1], 1), cid + "/r",
                                  small=True)  # fmt: skip
                    if name == "divide" and n:  # a zero divisor under a null only
                        right["values"] = [v if v is None or cf.decode_value(b, v) else None
                                           for v in right["values"]]  # fmt: skip
                    g.add(f"{cid}/{b}", op, p, "array-array", [left, right])
            for t in TYPES:  # a scalar divisor or addend; zero; the edge's overflow
                inp = inline(t, [value_of(t, limit(t)), None, value_of(t, -7)], 1)
                cid = f"{op}-{name}/{t}/array-scalar"
                for label, v in [("one", 1), ("zero", 0), ("edge", limit(t))]:
                    g.add(
                        f"{cid}/{label}", op, p, "array-scalar", [inp, g.scalar(t, value_of(t, v))]
                    )


def gen_cast(g):
    for cid, t, inp, k in shaped(g, "cast-to-number"):
        for to in (CAST_TARGETS[k % 7], CAST_TARGETS[(k + 3) % 7]):
            g.add(f"{cid}/{to}", "cast", {"to": to, "safe": True}, "unary", [inp])
    for t in TYPES:  # small values to every target; out of range refused, or truncated
        inp = inline(t, [value_of(t, v) for v in (0, 1, -1, 10 ** params(t)[2] * 7)] + [None], 2)
        edge = inline(t, [value_of(t, limit(t)), value_of(t, -limit(t))])
        for to in CAST_TARGETS:
            g.add(f"cast/{t}/small/{to}", "cast", {"to": to, "safe": True}, "unary", [inp])
            g.add(f"cast/{t}/edge/{to}", "cast", {"to": to, "safe": True}, "unary", [edge])
            g.add(f"cast/{t}/edge/{to}/unsafe", "cast", {"to": to, "safe": False}, "unary", [edge])
    for src, lo, hi in [("int8", -128, 127), ("int64", -(2**63), 2**63 - 1),
                        ("uint32", 0, 2**32 - 1), ("uint64", 0, 2**64 - 1)]:  # fmt: skip
        ints = g.inline(src, [lo, hi, 0, None, 1], 1)
        for t in TYPES:
            g.add(f"cast/{src}/to/{t}", "cast", {"to": t, "safe": True}, "unary", [ints])
    for src in ("float32", "float64"):
        floats = g.inline(src, [1.5, -2.25, 0.0, None, 1e3, 123.456, float("nan")], 1)
        for t in TYPES:
            for allow in ([], ["decimal_truncate"]):
                p = OrderedDict([("to", t), ("safe", True)])
                if allow:
                    p["allow"] = allow
                g.add(f"cast/{src}/to/{t}{'/truncate' if allow else ''}", "cast", p, "unary",
                      [floats])  # fmt: skip
    for a in TYPES:  # between decimals: rescale up and down, narrow, widen
        inp = array(g, a, (7, "some-nulls", 1), f"cast/{a}/decimals", small=True)
        for b in TYPES + ["decimal128(7, 4)", "decimal256(20, 1)"]:
            for allow in ([], ["decimal_truncate"]):
                p = OrderedDict([("to", b), ("safe", True)])
                if allow:
                    p["allow"] = allow
                g.add(f"cast/{a}/to/{b}{'/truncate' if allow else ''}", "cast", p, "unary", [inp])


def gen(g):
    """Every decimal case; `g` is generate.py."""
    gen_selection(g)
    gen_nulls(g)
    gen_compare(g)
    gen_aggregates(g)
    gen_hash(g)
    gen_arith(g)
    gen_cast(g)
