"""Decimals in the conformance suite (issue #13): every call that takes decimal128 and
decimal256 arrays on the CPU, over the precisions and scales of TYPES, with nulls, sliced
inputs (padding of edge values before the first slot), negative values and values at the
precision's edge, and pyarrow's errors (overflow of the promoted precision, division by
zero, rescaling that would lose digits, values beyond a cast's target).

A decimal type is named as pyarrow prints it and its values are JSON strings at exactly
the type's scale (casefmt: "Decimals"). The ops are the suite's own (take, filter, slice,
drop_null, is_null, is_valid, is_nan, is_inf, is_finite, fill_null, coalesce, if_else, compare, sum, mean, min, max,
min_max, count, count_distinct, unique, value_counts, is_in, index_in, arith and the
*_checked functions, cast), so the runners call them as they call them for any type; a
cast to a decimal goes through am_cast_decimal, which takes the target's precision and
scale. Every case with a decimal input or a decimal cast target lives in
cases/decimal.json.gz (``file_of``); every expected value is pyarrow 26's.
"""

from collections import OrderedDict

import casefmt as cf
import join_cases
import rank_cases

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
# The key types: a narrow decimal128, a wide one, a decimal256.
KEY_TYPES = [TYPES[0], TYPES[2], TYPES[3]]
ORDERS = ["ascending", "descending"]
PLACEMENTS = ["at_end", "at_start"]


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
               "Precision is not great enough", "Division by 0 in Decimal")  # fmt: skip
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
    for op in ("drop_null", "is_null", "is_valid", "is_nan", "is_inf", "is_finite"):
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


# ---- keys: sorting, ranking, group-by, joins --------------------------------------------------


def few(t):
    """A few values of t for keys with ties: the edges, zero, one unit, one whole, and
    their negatives."""
    m, scale = limit(t), params(t)[2]
    whole = 10**scale if 10**scale <= m else 1
    return [value_of(t, v) for v in (m, -m, 0, 1, -1, whole, -whole, 2 * whole + 1)]


def keys_of(g, t, n, nulls, key, spread=False):
    """n decoded key values of t from `few` (or, `spread`, anywhere in the precision),
    nulls by the pattern."""
    if spread:
        return draw(g, t, n, nulls, key)
    u = cf.splitmix64(g.seed_of(key), 2 * n).tolist()
    choices = few(t)
    out = [None if u[2 * k] % 1000 < NULL_PERMILLE[nulls] else choices[u[2 * k + 1] % len(choices)]
           for k in range(n)]  # fmt: skip
    if nulls == "some-nulls" and n >= 2 and None not in out:
        out[-1] = None
    if nulls == "some-nulls" and n >= 2 and all(v is None for v in out):
        out[0] = choices[2]
    return out


KEY_SHAPES = [(0, "no-nulls", 0), (1, "no-nulls", 1), (1, "all-nulls", 0), (7, "some-nulls", 0),
              (65, "some-nulls", 1), (300, "some-nulls", 63), (64, "no-nulls", 7),
              (9, "all-nulls", 3)]  # fmt: skip


def key_shapes(t):
    """(id part, decoded values, offset): the KEY_SHAPES of `few` values, values spread
    over the precision, all equal."""
    for n, nulls, off in KEY_SHAPES:
        yield f"len{n}/{nulls}/offset{off}", n, nulls, off, False
    yield "spread/len300/some-nulls/offset7", 300, "some-nulls", 7, True


def summable(g, t, n, nulls, key):
    """n decoded values of t of at most a few digits past the scale, none at the edges:
    a group's sum stays within the precision (pyarrow's sums wrap past the width but pass
    the precision unchecked, which no validated array holds)."""
    near = 10 ** min(params(t)[1], params(t)[2] + 3) - 1
    u = cf.splitmix64(g.seed_of(key), 2 * n).tolist()
    out = [None if u[2 * k] % 1000 < NULL_PERMILLE[nulls] else
           value_of(t, u[2 * k + 1] % (2 * near + 1) - near) for k in range(n)]  # fmt: skip
    if nulls == "some-nulls" and n >= 2 and None not in out:
        out[-1] = None
    return out


def int_keys(g, n, key, t="int16"):
    """A generated integer key of few values beside a decimal key."""
    return g.gen_input(t, n, "some-nulls" if n > 1 else "no-nulls", 5, key, kind="uniform",
                       lo="-2", hi="2")  # fmt: skip


def gen_sort(g):
    op = "array_sort_indices"
    for t in KEY_TYPES:
        for name, n, nulls, off, spread in key_shapes(t):
            cid = f"{op}/{t}/unary/{name}"
            inp = inline(t, keys_of(g, t, n, nulls, cid, spread), off)
            for order in ORDERS:
                for placement in PLACEMENTS:
                    g.add(f"{cid}/{order}/{placement}", op,
                          {"order": order, "null_placement": placement}, "unary", [inp])  # fmt: skip
        g.add(f"{op}/{t}/unary/all-equal", op, {"order": "descending"}, "unary",
              [inline(t, [few(t)[3]] * 40, 2)])  # fmt: skip
    op = "sort_indices"
    for t in KEY_TYPES:
        for shape in ("decimal-first", "decimal-second", "two-decimals"):
            for orders in (["ascending", "descending"], ["descending", "ascending"]):
                for places in (["at_end", "at_end"], ["at_start", "at_end"],
                               ["at_end", "at_start"]):  # fmt: skip
                    cid = (f"{op}/{t}/arrays/{shape}/{','.join(o[0] for o in orders)}/"
                           f"{','.join(p[3:] for p in places)}")  # fmt: skip
                    d = inline(t, keys_of(g, t, 200, "some-nulls", cid + "#d"), 3)
                    if shape == "two-decimals":
                        t2 = KEY_TYPES[(KEY_TYPES.index(t) + 1) % len(KEY_TYPES)]
                        other = inline(t2, keys_of(g, t2, 200, "some-nulls", cid + "#e"), 1)
                    else:
                        other = int_keys(g, 200, cid + "#i")
                    keys = [other, d] if shape == "decimal-second" else [d, other]
                    g.add(cid, op, {"order": orders, "null_placement": places}, "arrays", keys)
        g.add(f"{op}/{t}/arrays/one-key", op, {"order": ["descending"], "null_placement":
              "at_start"}, "arrays", [inline(t, keys_of(g, t, 65, "some-nulls", f"{op}/{t}/one"),
                                             7)])  # fmt: skip
        g.add(f"{op}/{t}/arrays/empty", op, {"order": ["ascending"] * 2}, "arrays",
              [inline(t, []), g.inline("int32", [])])  # fmt: skip


def gen_rank(g):
    for t in KEY_TYPES:
        variants = (("ascending", "at_end"), ("descending", "at_start"))
        for name, n, nulls, off, spread in key_shapes(t):
            cid = f"rank/{t}/unary/{name}"
            inp = inline(t, keys_of(g, t, n, nulls, cid, spread), off)
            for tb in rank_cases.TIEBREAKERS:
                for order, placement in variants:
                    params = {"order": order, "null_placement": placement, "tiebreaker": tb}
                    g.add(f"{cid}/{tb}/{order}/{placement}", "rank", params, "unary", [inp])
            for op in ("rank_quantile", "rank_normal"):
                for order, placement in variants:
                    qid = f"{op}/{t}/unary/{name}/{order}/{placement}"
                    g.add(qid, op, {"order": order, "null_placement": placement}, "unary", [inp])
                    rank_cases._tolerate(g, op, qid)
        op = "select_k_unstable"
        for order, placement in variants:
            cid = f"{op}/{t}/arrays/len65/{order}/{placement}"
            k0 = inline(t, keys_of(g, t, 65, "some-nulls", cid), 1)
            for k in (0, 1, 5, 68):
                g.add(f"{cid}/k{k}", op, {"k": k, "order": [order], "null_placement": [placement]},
                      "arrays", [k0])  # fmt: skip
            cid = f"{op}/{t}/arrays/two-keys/{order}/{placement}"
            keys = [int_keys(g, 300, cid + "#i", "int8"),
                    inline(t, keys_of(g, t, 300, "some-nulls", cid + "#d", True), 3)]  # fmt: skip
            g.add(cid, op, {"k": 20, "order": [order, "ascending"],
                            "null_placement": [placement, "at_end"]}, "arrays", keys)  # fmt: skip
        op = "partition_nth_indices"
        for placement in PLACEMENTS:
            for name, n, nulls, off, spread in key_shapes(t):
                cid = f"{op}/{t}/unary/{name}/{placement}"
                inp = inline(t, keys_of(g, t, n, nulls, cid, spread), off)
                for pivot in sorted({0, n // 3, n - 1 if n else 0, n}):
                    g.add(f"{cid}/pivot{pivot}", op, {"pivot": pivot, "null_placement": placement},
                          "unary", [inp])  # fmt: skip


# group_by over a decimal value column v0 (every aggregate pyarrow has for decimals but
# product, below) and an int64 v1, with options.
VALUE_AGGREGATES = [[0, "count", {}], [0, "count_distinct", {}], [0, "distinct", {}],
                    [0, "list", {}], [0, "min", {}], [0, "max", {}], [0, "min_max", {}],
                    [0, "sum", {}], [0, "mean", {}], [0, "variance", {}],
                    [0, "stddev", {}], [None, "count_all", {}], [1, "sum", {}],
                    [0, "count", {"mode": "all"}], [0, "count_distinct", {"mode": "only_null"}],
                    [0, "distinct", {"mode": "all"}],
                    [0, "sum", {"skip_nulls": False, "min_count": 1}],
                    [0, "mean", {"skip_nulls": True, "min_count": 3}],
                    [0, "min_max", {"skip_nulls": False, "min_count": 0}],
                    [0, "variance", {"ddof": 1, "skip_nulls": True, "min_count": 0}],
                    [0, "stddev", {"ddof": 0, "skip_nulls": False, "min_count": 1}]]  # fmt: skip


def gen_group_by(g):
    op = "group_by"
    for t in KEY_TYPES:
        for two in (False, True):
            for n, nulls, off in ((7, "some-nulls", 0), (65, "some-nulls", 1),
                                  (300, "some-nulls", 63), (1000, "no-nulls", 7)):  # fmt: skip
                cid = f"{op}/{t}/table/len{n}/{nulls}/offset{off}" + ("/two-keys" if two else "")
                keys = [inline(t, keys_of(g, t, n, nulls, cid + "#k0"), off)]
                if two:
                    keys.append(int_keys(g, n, cid + "#k1", "int8"))
                values = [inline(t, summable(g, t, n, "some-nulls", cid + "#v0"), 1),
                          g.gen_input("int64", n, "some-nulls", 0, cid + "#v1", kind="uniform",
                                      lo="-100", hi="100")]  # fmt: skip
                g.add(cid, op, {"n_keys": len(keys), "aggregates": VALUE_AGGREGATES}, "table",
                      keys + values)  # fmt: skip
        # decimal values spread over the precision, grouped by an integer key (no sums:
        # pyarrow's pass the precision, which no validated array holds)
        cid = f"{op}/{t}/table/values-spread"
        spread = [a for a in VALUE_AGGREGATES if a[1] not in ("sum", "mean")]
        g.add(cid, op, {"n_keys": 1, "aggregates": spread}, "table",
              [int_keys(g, 200, cid + "#k0", "int8"),
               inline(t, draw(g, t, 200, "some-nulls", cid + "#v0"), 3),
               g.gen_input("int64", 200, "no-nulls", 0, cid + "#v1", kind="uniform", lo="0",
                           hi="9")])  # fmt: skip
        # products of a few factors near one, rescaled at every step (pyarrow's product
        # passes the precision unchecked, which no validated array holds)
        cid = f"{op}/{t}/table/product"
        near_one = [value_of(t, v * 10 ** params(t)[2] // 4) for v in (4, -4, 2, 8, 6, -2, 5)]
        u = cf.splitmix64(g.seed_of(cid), 120).tolist()
        factors = [None if w % 9 == 0 else near_one[w % 7] for w in u[60:]]
        g.add(cid, op, {"n_keys": 1, "aggregates": [[0, "product", {}], [0, "product", {
              "skip_nulls": False, "min_count": 0}], [0, "product", {"min_count": 5}]]}, "table",
              [g.inline("int8", [str(w % 12) for w in u[:60]]), inline(t, factors, 1)])  # fmt: skip
        aggs = [a for a in VALUE_AGGREGATES if a[1] != "mean"]  # a mean of no values: an error
        g.add(f"{op}/{t}/table/empty", op, {"n_keys": 1, "aggregates": aggs}, "table",
              [inline(t, []), inline(t, []), g.inline("int64", [])])  # fmt: skip
        g.add(f"{op}/{t}/table/one-row", op, {"n_keys": 1, "aggregates": VALUE_AGGREGATES},
              "table", [inline(t, [few(t)[1]], 1), inline(t, [few(t)[0]]), g.inline("int64", ["3"])])  # fmt: skip
        g.add(f"{op}/{t}/table/all-null-values", op, {"n_keys": 1, "aggregates": aggs}, "table",
              [inline(t, keys_of(g, t, 20, "no-nulls", f"{op}/{t}/anv")), inline(t, [None] * 20),
               g.inline("int64", [None] * 20)])  # fmt: skip
        # pyarrow's errors: a mean of a group without values (min_count 0), and the
        # aggregates it has no decimal kernel for
        g.add(f"{op}/{t}/table/mean-of-nothing", op,
              {"n_keys": 1, "aggregates": [[0, "mean", {"skip_nulls": True, "min_count": 0}]]},
              "table", [g.inline("int8", ["1", "2", "1"]), inline(t, [None, few(t)[5], None])])  # fmt: skip
        for name in ("first", "last", "any", "all"):
            g.add(f"{op}/{t}/table/refused/{name}", op,
                  {"n_keys": 1, "aggregates": [[0, "count", {}], [0, name, {}]]}, "table",
                  [g.inline("int8", ["1", "2", "1"]), inline(t, [None, few(t)[5], None])])  # fmt: skip


def gen_join(g):
    op = "join"
    for t in KEY_TYPES:
        for k, jt in enumerate(join_cases.JOIN_TYPES):
            for n, m in ((65, 40), (300, 7)):
                cid = f"{op}/{t}/table/len{n}x{m}/{jt.replace(' ', '-')}"
                left = inline(t, keys_of(g, t, n, "some-nulls", cid + "#l0"), (k * 7) % 64)
                right = inline(t, keys_of(g, t, m, "some-nulls", cid + "#r0"), 1)
                g.add(cid, op, {"n_keys": 1, "join_type": jt}, "table", [left, right])
            cid = f"{op}/{t}/table/two-keys/{jt.replace(' ', '-')}"
            g.add(cid, op, {"n_keys": 2, "join_type": jt}, "table",
                  [inline(t, keys_of(g, t, 100, "some-nulls", cid + "#l0"), 3),
                   int_keys(g, 100, cid + "#l1", "int8"),
                   inline(t, keys_of(g, t, 50, "some-nulls", cid + "#r0")),
                   int_keys(g, 50, cid + "#r1", "int8")])  # fmt: skip
        g.add(f"{op}/{t}/table/empty/inner", op, {"n_keys": 1, "join_type": "inner"}, "table",
              [inline(t, []), inline(t, keys_of(g, t, 5, "no-nulls", f"{op}/{t}/e"))])  # fmt: skip
    # keys of other parameters: pyarrow's refusal
    a, b = TYPES[0], "decimal128(5, 1)"
    for other in (b, "decimal128(6, 2)", TYPES[3]):
        g.add(f"{op}/{a}/table/other-type/{other}", op, {"n_keys": 1, "join_type": "inner"},
              "table", [inline(a, [value_of(a, 150)]), inline(other, [value_of(other, 15)])])  # fmt: skip


def gen_keys(g):
    gen_sort(g)
    gen_rank(g)
    gen_group_by(g)
    gen_join(g)


def gen(g):
    """Every decimal case; `g` is generate.py."""
    gen_selection(g)
    gen_nulls(g)
    gen_compare(g)
    gen_aggregates(g)
    gen_hash(g)
    gen_arith(g)
    gen_cast(g)
    gen_keys(g)
