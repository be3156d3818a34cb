"""float16 in the conformance suite (issue #13): every function pyarrow 26 computes over
halffloat, and a refusal of each of the others the suite calls, each expected value
pyarrow's.

A float16 value is coded as its bits, the uint16 storage integer (casefmt: "15872" is
1.5), so NaN payloads and -0.0 travel exactly. Inputs mix the special patterns (both
zeros, both infinities, quiet and signalling NaNs of several payloads and signs, the
subnormal and normal extremes, values around 1 and 2048) with uniform draws of all 16
bits (NaN payloads included), at the suite's lengths, null patterns and offsets.

The ops are the suite's own, so the runners call them as they do for any type:
is_null (with and without nan_is_null), is_valid, is_nan, is_finite, is_inf, take,
filter (both null rules), slice, concat, drop_null, fill_null (array and scalar fills,
scalars of other types converted as pyarrow converts them), coalesce, if_else,
fill_null_forward/backward, count, unique, value_counts, dictionary_encode,
count_distinct (pyarrow 26's count, see abi/float16_calls.c), negate, negate_checked,
sign, and cast from float16 to every integer and float type (safe, unsafe in range,
allow_* options) and to float16 from them (ties, overflow to infinity, NaN payloads,
integers past float32's and float64's exact range), with pyarrow's refusals (bool,
temporal and decimal pairs). Casts between float16 and strings are pyarrow's (the
library refuses them, the Python package runs pyarrow): no case. Every case with a
float16 input or cast target lives in cases/float16.json.gz (``file_of``).
"""

import math
from collections import OrderedDict

import casefmt as cf
import numpy as np

FILE = "float16"
T = "float16"
# (length, nulls, offset): empty, one slot, short, around a bitmap word, longer, and one
# past INLINE_MAX (hashed expectation, generated input).
SHAPES = [(0, "no-nulls", 0), (1, "no-nulls", 0), (1, "all-nulls", 1), (7, "some-nulls", 0),
          (7, "no-nulls", 7), (63, "some-nulls", 1), (64, "no-nulls", 63), (65, "all-nulls", 0),
          (1000, "some-nulls", 7), (1003, "some-nulls", 63), (100003, "some-nulls", 1)]  # fmt: skip

# The special bit patterns.
SPECIALS = OrderedDict([
    ("+0", 0x0000), ("-0", 0x8000), ("min-subnormal", 0x0001), ("-min-subnormal", 0x8001),
    ("max-subnormal", 0x03FF), ("min-normal", 0x0400), ("-min-normal", 0x8400),
    ("max", 0x7BFF), ("-max", 0xFBFF), ("+inf", 0x7C00), ("-inf", 0xFC00),
    ("qnan", 0x7E00), ("-qnan", 0xFE00), ("snan-1", 0x7C01), ("snan", 0x7D55),
    ("-snan", 0xFC2A), ("qnan-payload", 0x7FFF), ("-qnan-payload", 0xFEEE),
    ("one", 0x3C00), ("-one", 0xBC00), ("one-ulp", 0x3C01), ("near-one", 0x3C04),
    ("half", 0x3800), ("1.5", 0x3E00), ("-2.5", 0xC100), ("third", 0x3555),
    ("2048", 0x6800), ("2050", 0x6801), ("65504", 0x7BFF), ("-0.75", 0xBA00),
    ("100", 0x5640), ("-300", 0xDCB0),
])  # fmt: skip
SPECIAL_BITS = list(SPECIALS.values())
NULL_PERMILLE = {"no-nulls": 0, "some-nulls": 250, "all-nulls": 1000}
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def bits_of(value):
    return cf.float16_bits(value)


def file_of(case):
    """The case file of a case with a float16 input or cast target, else None."""
    if case["params"].get("to") == T:
        return FILE
    for inp in case["inputs"]:
        t = inp["scalar"]["type"] if "scalar" in inp else inp["type"]
        if t == T or (isinstance(inp.get("dictionary"), dict) and inp["dictionary"]["type"] == T):
            return FILE
    return None


def map_error(exc):
    return None


# ---- inputs --------------------------------------------------------------------------------


def values(g, shape, key, pool=None):
    """An array input of float16 of `shape`: its slots drawn from the special patterns and
    uniform bits (or from `pool` alone), its padding the special patterns."""
    n, nulls, off = shape
    if n > g.INLINE_MAX:  # a generated input: uniform bits with a few specials over them
        inp = g.gen_input(T, n, nulls, off, key, kind="uniform")
        inp["gen"]["overrides"] = [[j * 997 % n, str(b)] for j, b in enumerate(SPECIAL_BITS)]
        return inp
    u = cf.splitmix64(g.seed_of(key), 3 * max(n, 1)).tolist()
    out = []
    for k in range(n):
        a, b, w = u[3 * k : 3 * k + 3]
        if w % 1000 < NULL_PERMILLE[nulls]:
            out.append(None)
        elif pool is not None:
            out.append(pool[a % len(pool)])
        elif b % 2:
            out.append(SPECIAL_BITS[a % len(SPECIAL_BITS)])
        else:
            out.append(a & 0xFFFF)
    if nulls == "some-nulls" and n >= 2 and all(v is None for v in out):
        out[0] = SPECIALS["one"]
    if nulls == "some-nulls" and n >= 2 and None not in out:
        out[-1] = None
    return g.inline(T, [None if v is None else str(v) for v in out], off)


def each(g, op, shapes=SHAPES):
    """(case id, shape, k) over the shapes, in an order rotated per op."""
    shift = g.seed_of(op) % len(shapes)
    for k in range(len(shapes)):
        shape = shapes[(k + shift) % len(shapes)]
        n, nulls, off = shape
        yield f"{op}/{T}/len{n}/{nulls}/offset{off}", shape, k


def shaped(g, op, pool=None):
    for cid, shape, k in each(g, op):
        yield cid, values(g, shape, cid, pool), shape, k


def inline(g, bits, offset=0):
    return g.inline(T, [None if b is None else str(b) for b in bits], offset)


def scalar(g, bits):
    return g.scalar(T, None if bits is None else str(bits))


# ---- cases ---------------------------------------------------------------------------------


def gen_predicates(g):
    for op in ("is_null", "is_valid", "is_nan", "is_finite", "is_inf"):
        for cid, inp, _, _ in shaped(g, op):
            g.add(cid, op, {}, "unary", [inp])
    for cid, inp, _, _ in shaped(g, "is_null/nan_is_null"):
        g.add(cid, "is_null", {"nan_is_null": True}, "unary", [inp])
    every = inline(g, SPECIAL_BITS + [None])
    for op in ("is_null", "is_valid", "is_nan", "is_finite", "is_inf"):
        g.add(f"{op}/{T}/specials", op, {}, "unary", [every])
    g.add(f"is_null/{T}/specials/nan_is_null", "is_null", {"nan_is_null": True}, "unary", [every])


def gen_selection(g):
    for cid, inp, shape, k in shaped(g, "take"):
        n = shape[0]
        idx = g.gen_input("int32" if k % 2 else "int64", max(n, 3) if n else 0,
                          "some-nulls" if n > 1 else "no-nulls", k % 2, cid + "/idx",
                          kind="uniform", lo="0", hi=str(max(n - 1, 0)))  # fmt: skip
        g.add(cid, "take", {}, "array-array", [inp, idx])
    g.add(f"take/{T}/out-of-bounds", "take", {}, "array-array",
          [inline(g, [SPECIALS["one"], None]), g.inline("int64", [0, 2])])  # fmt: skip
    for cid, inp, shape, k in shaped(g, "filter"):
        n = shape[0]
        mask = g.gen_input("bool", n, "some-nulls" if n > 1 else "no-nulls", k % 3, cid + "/mask",
                           kind="uniform", true_permille=[500, 100, 900][k % 3])  # fmt: skip
        g.add(cid, "filter", {}, "array-array", [inp, mask])
        g.add(cid + "/emit_null", "filter", {"null_selection": "emit_null"}, "array-array",
              [inp, mask])  # fmt: skip
    for cid, inp, shape, k in shaped(g, "slice"):
        g.add(cid, "slice", {"offset": min(k % 5, shape[0]), "length": 3 + k % 40}, "unary", [inp])
    for cid, inp, shape, k in shaped(g, "concat"):
        n = shape[0]
        if n > g.INLINE_MAX:
            continue  # (concat's inputs are inline)
        other = values(g, (7 + k, "some-nulls", k % 8), cid + "/2")
        parts = [inp, other] if k % 2 else [other, inp, values(g, (3, "no-nulls", 1), cid + "/3")]
        g.add(cid, "concat", {}, "arrays", parts)


def gen_nulls(g):
    for op in ("drop_null", "fill_null_forward", "fill_null_backward"):
        for cid, inp, _, _ in shaped(g, op):
            g.add(cid, op, {}, "unary", [inp])
    for cid, inp, shape, k in shaped(g, "fill_null"):
        n = shape[0]
        fill = None if k % 6 == 5 else SPECIAL_BITS[k * 5 % len(SPECIAL_BITS)]
        g.add(cid + "/scalar", "fill_null", {}, "array-scalar", [inp, scalar(g, fill)])
        g.add(cid + "/array", "fill_null", {}, "array-array",
              [inp, values(g, (n, "some-nulls", 1), cid + "/fill")])  # fmt: skip
    # scalars of other types, converted as pyarrow's fill_null converts them (its
    # pa.scalar(value, halffloat)): rounded, to an infinity past 65504, refused past 2^53
    holes = inline(g, [SPECIALS["1.5"], None, SPECIALS["qnan"], None], 1)
    others = [("float64", 1e10), ("float64", 1.0001), ("float64", -6e-8), ("float64", "nan"),
              ("float64", "-0.0"), ("float32", 2049.0), ("int64", 7), ("int64", 65519),
              ("int64", 65520), ("int32", 2**24 + 1), ("int64", 2**53), ("int64", -(2**53) - 1),
              ("uint64", 2**63), ("int8", -1), ("bool", True)]  # fmt: skip
    for st, v in others:
        enc = v if st in cf.FLOAT_TYPES else (v if st == "bool" else str(v))
        sv = cf.decode_value(st, enc)
        g.add(f"fill_null/{T}/scalar-{st}-{cf.encode_value(st, sv)}", "fill_null", {},
              "array-scalar", [holes, g.scalar(st, sv)])  # fmt: skip
    # an array fill of another type (pyarrow: no conversion of arrays)
    g.add(f"fill_null/{T}/array-float32", "fill_null", {}, "array-array",
          [holes, g.inline("float32", [1.0, 2.0, 3.0, 4.0, 5.0])])  # fmt: skip
    for cid, inp, shape, k in shaped(g, "coalesce"):
        n = shape[0]
        second = values(g, (n, "some-nulls", 0), cid + "/2")
        g.add(cid, "coalesce", {}, "arrays",
              [inp, second, scalar(g, SPECIAL_BITS[k % len(SPECIAL_BITS)])])  # fmt: skip
        g.add(cid + "/two", "coalesce", {}, "arrays", [inp, second])
    g.add(f"coalesce/{T}/null-scalar", "coalesce", {}, "arrays", [holes, scalar(g, None)])
    g.add(f"coalesce/{T}/scalar-first", "coalesce", {}, "arrays",
          [scalar(g, None), holes, scalar(g, SPECIALS["-0"])])  # fmt: skip
    for other in (g.inline("float32", [1.0, 2.0, 3.0, 4.0, 5.0]), g.scalar("float64", 2.0),
                  g.inline("int64", ["1", "2", "3", "4", "5"])):  # fmt: skip
        name = other["scalar"]["type"] if "scalar" in other else other["type"]
        g.add(f"coalesce/{T}/{name}", "coalesce", {}, "arrays", [holes, other])
    for cid, inp, shape, k in shaped(g, "if_else"):
        n = shape[0]
        cond = g.gen_input("bool", n, "some-nulls" if n > 1 else "no-nulls", k % 2, cid + "/c",
                           kind="uniform")  # fmt: skip
        other = values(g, (n, "some-nulls", 7), cid + "/r")
        g.add(cid + "/arrays", "if_else", {}, "arrays", [cond, inp, other])
        g.add(cid + "/scalar", "if_else", {}, "arrays",
              [cond, scalar(g, SPECIAL_BITS[k % len(SPECIAL_BITS)]), inp])  # fmt: skip
        g.add(cid + "/null-scalar", "if_else", {}, "arrays", [cond, inp, scalar(g, None)])
    cond = g.inline("bool", [True, False, None, True])
    four = inline(g, [SPECIALS["one"], SPECIALS["-0"], SPECIALS["snan"], None])
    for other in (g.inline("float32", [1.0, 2.0, 3.0, 4.0]), g.scalar("float64", 2.0),
                  g.inline("int8", ["1", "2", "3", "4"])):  # fmt: skip
        name = other["scalar"]["type"] if "scalar" in other else other["type"]
        g.add(f"if_else/{T}/{name}", "if_else", {}, "arrays", [cond, four, other])
    g.add(f"if_else/{T}/int8-cond", "if_else", {}, "arrays",
          [g.inline("int8", ["1", "0", "1", "0"]), four, four])  # fmt: skip
    for mode in ("only_valid", "only_null", "all"):
        for cid, inp, _, _ in shaped(g, f"count-{mode}"):
            g.add(cid, "count", {"mode": mode}, "unary", [inp])


def gen_hash(g):
    # repeats of few patterns: NaNs of several payloads and signs, both zeros, and
    # neighbours that pyarrow's count_distinct keys alike (0x3c00 ... 0x3c04)
    pool = [SPECIALS[k] for k in ("+0", "-0", "qnan", "-qnan", "snan", "snan-1", "one",
                                  "one-ulp", "near-one", "+inf", "-inf", "1.5")]  # fmt: skip
    for op in ("unique", "value_counts", "count_distinct", "dictionary_encode"):
        for cid, inp, _, _ in shaped(g, op, pool):
            g.add(cid, op, {}, "unary", [inp])
        for cid, inp, _, _ in shaped(g, op + "/many"):
            g.add(cid, op, {}, "unary", [inp])
    for cid, inp, _, k in shaped(g, "count_distinct/modes", pool):
        for mode in ("only_null", "all"):
            g.add(f"{cid}/{mode}", "count_distinct", {"mode": mode}, "unary", [inp])
    for cid, inp, _, _ in shaped(g, "dictionary_encode/encode", pool):
        g.add(cid, "dictionary_encode", {"null_encoding": "encode"}, "unary", [inp])
    # 65,536 draws of all 16 bits: pyarrow's count_distinct keys (each storage integer
    # rounded to a float16) over most patterns
    g.add(f"count_distinct/{T}/draws-65536", "count_distinct", {}, "unary",
          [g.gen_input(T, 65536, "no-nulls", 0, "count_distinct/draws", kind="uniform",
                       lo="0", hi="65535")])  # fmt: skip


def gen_unary(g):
    for op in ("negate", "negate_checked", "sign"):
        for cid, inp, _, _ in shaped(g, op):
            g.add(cid, op, {}, "unary", [inp])
        g.add(f"{op}/{T}/specials", op, {}, "unary", [inline(g, SPECIAL_BITS + [None], 7)])


def _small_ints(to):
    """float16 values whose truncation fits integer type `to` (unsafe casts are checked
    on those alone: beyond, the header leaves the value unspecified)."""
    lo, hi = cf.int_range(to)
    out = []
    for b in SPECIAL_BITS + list(range(0, 0x7C00, 97)) + list(range(0x8000, 0xFC00, 89)):
        v = cf.float16_value(b)
        if math.isfinite(v) and lo <= int(v) <= hi:
            out.append(b)
    return out


def gen_cast(g):
    every = inline(g, SPECIAL_BITS + [None], 3)
    for to in INTS + ["float32", "float64"]:
        for cid, inp, _, k in shaped(g, f"cast/to/{to}"):
            g.add(cid, "cast", {"to": to, "safe": True}, "unary", [inp])
        g.add(f"cast/{T}/specials/{to}", "cast", {"to": to, "safe": True}, "unary", [every])
        if to in cf.FLOAT_TYPES:
            g.add(f"cast/{T}/specials/{to}/unsafe", "cast", {"to": to, "safe": False}, "unary",
                  [every])  # fmt: skip
            continue
        fits = _small_ints(to)
        whole = [b for b in fits if cf.float16_value(b) == int(cf.float16_value(b))]
        g.add(f"cast/{T}/whole/{to}", "cast", {"to": to, "safe": True}, "unary",
              [inline(g, whole + [None], 1)])  # fmt: skip
        g.add(f"cast/{T}/in-range/{to}/unsafe", "cast", {"to": to, "safe": False}, "unary",
              [inline(g, fits + [None], 5)])  # fmt: skip
        for allow in ("float_truncate", "int_overflow"):
            p = OrderedDict([("to", to), ("safe", True), ("allow", [allow])])
            g.add(f"cast/{T}/in-range/{to}/{allow}", "cast", p, "unary", [inline(g, fits, 2)])
        for name, b in (("fraction", SPECIALS["1.5"]), ("nan", SPECIALS["snan"]),
                        ("inf", SPECIALS["-inf"]), ("big", SPECIALS["max"]),
                        ("negative", SPECIALS["-300"])):  # fmt: skip
            g.add(f"cast/{T}/refused-{name}/{to}", "cast", {"to": to, "safe": True}, "unary",
                  [inline(g, [SPECIALS["one"], None, b, SPECIALS["snan"]], 1)])  # fmt: skip
    for to in ("bool", "timestamp[ms]", "date32[day]", "duration[s]", "decimal128(10, 2)"):
        g.add(f"cast/{T}/to/{to}", "cast", {"to": to, "safe": True}, "unary", [every])
    # to float16: floats rounded (ties to even, subnormals, past 65504), NaN payloads
    ties32, ties64 = [], []
    for b in SPECIAL_BITS + list(range(0, 0x7C00, 211)):
        v = np.float16(cf.float16_value(b))
        with np.errstate(over="ignore"):
            nxt = np.nextafter(v, np.float16(np.inf))
        if np.isfinite(v) and np.isfinite(nxt):
            mid = (float(v) + float(nxt)) / 2
            ties64 += [mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf), -mid]
            ties32 += [
                float(np.float32(mid)),
                float(np.nextafter(np.float32(mid), np.float32(1e9))),
            ]
    nans64 = np.array([0x7FF0000000000001, 0x7FF8000000000001, 0xFFF4000000000000,
                       0x7FF0100000000000, 0x7FF00000000003FF], np.uint64).view(np.float64)  # fmt: skip
    nans32 = np.array([0x7F800001, 0x7FC00001, 0xFFA00000, 0x7F802000, 0xFFFFFFFF],
                      np.uint32).view(np.float32)  # fmt: skip
    extremes = [65504.0, 65519.99, 65520.0, -65520.0, 1e10, -1e300, 2.0**-24, 2.0**-25,
                2.0**-25 * 1.0000001, 3 * 2.0**-26, 2.0**-14, 1e-300, "inf", "-inf", "-0.0", 0.0]  # fmt: skip
    for src, ties, nans in (("float32", ties32, nans32), ("float64", ties64, nans64)):
        vals = [cf.decode_value(src, v) for v in extremes] + ties + [float(x) for x in nans]
        vals.append(None)
        inp = g.inline(src, vals, 2)
        for safe in (True, False):
            g.add(f"cast/{src}/to/{T}/{'safe' if safe else 'unsafe'}", "cast",
                  {"to": T, "safe": safe}, "unary", [inp])  # fmt: skip
        big = g.gen_input(src, 1003, "some-nulls", 7, f"cast/{src}/to/{T}/draws",
                          kind="uniform", lo=-70000.0, hi=70000.0)  # fmt: skip
        g.add(f"cast/{src}/to/{T}/draws", "cast", {"to": T, "safe": True}, "unary", [big])
        tiny = g.gen_input(src, 1003, "some-nulls", 1, f"cast/{src}/to/{T}/tiny",
                           kind="uniform", lo=-0.001, hi=0.001)  # fmt: skip
        g.add(f"cast/{src}/to/{T}/tiny", "cast", {"to": T, "safe": True}, "unary", [tiny])
    # integers: rounded (2049 to 2048, ties to even), an infinity past 65519, refused past
    # float32's exact range (8- to 32-bit) or float64's (64-bit) when safe
    for src in INTS:
        lo, hi = cf.int_range(src)
        picks = [v for v in (0, 1, -1, 7, 2049, 2051, 4097, 65504, 65519, 65520, 65535, 100000,
                             -65520, 2**24, 2**24 + 1, -(2**24) - 1, 2**53, 2**53 + 1, lo, hi)
                 if lo <= v <= hi]  # fmt: skip
        inp = g.inline(src, [str(v) for v in picks] + [None], 1)
        for safe in (True, False):
            g.add(f"cast/{src}/to/{T}/{'safe' if safe else 'unsafe'}", "cast",
                  {"to": T, "safe": safe}, "unary", [inp])  # fmt: skip
        p = OrderedDict([("to", T), ("safe", True), ("allow", ["float_truncate"])])
        g.add(f"cast/{src}/to/{T}/float_truncate", "cast", p, "unary", [inp])
        draws = g.gen_input(src, 1000, "some-nulls", 7, f"cast/{src}/to/{T}/draws",
                            kind="uniform")  # fmt: skip
        g.add(f"cast/{src}/to/{T}/draws", "cast", {"to": T, "safe": False}, "unary", [draws])
    for src, vals in (("bool", [True, False, None]), ("timestamp[ms]", ["1", None]),
                      ("date32[day]", ["1", None]), ("decimal128(10, 2)", ["1.50", None])):  # fmt: skip
        inp = OrderedDict([("type", src), ("offset", 0), ("values", vals)])
        g.add(f"cast/{src}/to/{T}", "cast", {"to": T, "safe": True}, "unary", [inp])


def gen_refused(g):
    """A refusal (AM_ETYPE) of each of the suite's other functions over float16."""
    inp = inline(g, [SPECIALS["one"], None, SPECIALS["-2.5"], SPECIALS["qnan"]], 1)
    for op in ("sum", "min", "max", "mean"):
        g.add(f"{op}/{T}/refused", op, {}, "unary", [inp])
    for op in ("product", "min_max", "first", "last", "first_last", "variance", "stddev", "any"):
        g.add(f"{op}/{T}/refused", op, {}, "unary", [inp])
    g.add(f"index/{T}/refused", "index", {}, "array-scalar", [inp, scalar(g, SPECIALS["one"])])
    for cmp in ("eq", "lt"):
        g.add(f"compare/{T}/refused/{cmp}", "compare", {"cmp": cmp}, "array-array", [inp, inp])
        g.add(f"compare/{T}/refused/{cmp}/scalar", "compare", {"cmp": cmp}, "array-scalar",
              [inp, g.scalar("float64", 1.0)])  # fmt: skip
    for name in ("add", "multiply"):
        g.add(f"arith/{T}/refused/{name}", "arith", {"arith": name}, "array-array", [inp, inp])
    for op in ("abs", "abs_checked", "sqrt", "floor", "exp", "bit_wise_not", "ln"):
        g.add(f"{op}/{T}/refused", op, {}, "unary", [inp])
    for op in ("power", "atan2", "add_checked"):
        g.add(f"{op}/{T}/refused", op, {}, "array-array", [inp, inp])
    for op in ("cumulative_sum", "cumulative_max"):
        g.add(f"{op}/{T}/refused", op, {"skip_nulls": True}, "unary", [inp])
    g.add(f"round/{T}/refused", "round", {"ndigits": 0, "round_mode": "half_to_even"}, "unary",
          [inp])  # fmt: skip
    g.add(f"pairwise_diff/{T}/refused", "pairwise_diff", {"period": 1}, "unary", [inp])
    for op in ("is_in", "index_in"):
        g.add(f"{op}/{T}/refused", op, {"skip_nulls": False}, "array-array", [inp, inp])
    g.add(f"mode/{T}/refused", "mode", {"n": 1, "skip_nulls": True, "min_count": 0}, "unary",
          [inp])  # fmt: skip
    g.add(f"array_sort_indices/{T}/refused", "array_sort_indices",
          {"order": "ascending", "null_placement": "at_end"}, "unary", [inp])  # fmt: skip


# The group-by's and join's float16 keys: repeats of few patterns (NaNs of several payloads
# and signs, both zeros, neighbours), grouped and matched by their bits as pyarrow does.
KEY_POOL = ["+0", "-0", "qnan", "-qnan", "snan", "one", "one-ulp", "+inf", "-inf", "1.5", "-2.5"]
JOIN_TYPES = ["inner", "left outer", "right outer", "full outer", "left semi", "left anti",
              "right semi", "right anti"]  # fmt: skip


def small_ints(g, n, key, t="int8", nulls="some-nulls", offset=5):
    return g.gen_input(t, n, nulls if n > 1 else "no-nulls", offset, key, kind="uniform",
                       lo="0", hi="2")  # fmt: skip


def gen_group_by(g):
    """float16 keys (one, or beside an int8 key) and values: count, count_distinct and
    distinct (with their modes), as pyarrow 26 has them, and its refusal of the others."""
    op = "group_by"
    pool = [SPECIALS[k] for k in KEY_POOL]
    aggs = [[0, "sum", {}], [0, "count", {}], [None, "count_all", {}], [1, "count", {}],
            [1, "count_distinct", {}], [1, "distinct", {}], [1, "count", {"mode": "all"}],
            [1, "count_distinct", {"mode": "only_null"}], [1, "distinct", {"mode": "all"}]]  # fmt: skip
    for cid, shape, _ in each(g, op):
        n, _, off = shape
        if n > g.INLINE_MAX:
            continue
        for two in (False, True):
            case = cid + ("/two-keys" if two else "")
            keys = [values(g, shape, case + "#k0", pool)]
            if two:
                keys.append(small_ints(g, n, case + "#k1"))
            vals = [g.gen_input("int64", n, "some-nulls" if n > 1 else "no-nulls", (off + 1) % 64,
                                case + "#v0", kind="uniform", lo="-100", hi="100"),
                    values(g, (n, "some-nulls" if n > 1 else "no-nulls", 3), case + "#v1", pool)]  # fmt: skip
            g.add(case, op, {"n_keys": len(keys), "aggregates": aggs}, "table", keys + vals)
    inp = inline(g, [SPECIALS["one"], None, SPECIALS["-2.5"], SPECIALS["qnan"]])
    for name in ("sum", "mean", "min", "max", "min_max", "first", "last", "list", "product",
                 "any", "all", "variance", "stddev"):  # fmt: skip
        g.add(f"{op}/{T}/table/refused/{name}", op,
              {"n_keys": 1, "aggregates": [[0, "count", {}], [0, name, {}]]}, "table",
              [g.inline("int8", ["1", "2", "1", "2"]), inp])  # fmt: skip


def gen_join(g):
    """float16 keys of few patterns in every join type, alone and beside an int8 key, an
    empty side, and pyarrow's refusal of another key type."""
    op = "join"
    pool = [SPECIALS[k] for k in KEY_POOL]
    for k, jt in enumerate(JOIN_TYPES):
        for n, m in ((65, 40), (300, 7)):
            cid = f"{op}/{T}/table/len{n}x{m}/{jt.replace(' ', '-')}"
            left = values(g, (n, "some-nulls", (k * 7) % 64), cid + "#l0", pool)
            right = values(g, (m, "some-nulls", 1), cid + "#r0", pool)
            g.add(cid, op, {"n_keys": 1, "join_type": jt}, "table", [left, right])
        cid = f"{op}/{T}/table/two-keys/{jt.replace(' ', '-')}"
        g.add(cid, op, {"n_keys": 2, "join_type": jt}, "table",
              [values(g, (100, "some-nulls", 3), cid + "#l0", pool), small_ints(g, 100, cid + "#l1"),
               values(g, (50, "some-nulls", 0), cid + "#r0", pool), small_ints(g, 50, cid + "#r1")])  # fmt: skip
        g.add(f"{op}/{T}/table/empty/{jt.replace(' ', '-')}", op, {"n_keys": 1, "join_type": jt},
              "table", [inline(g, []), values(g, (5, "no-nulls", 0), f"{op}/{T}/e{k}", pool)])  # fmt: skip
    for other in ("uint16", "float32"):
        g.add(f"{op}/{T}/table/other-type/{other}", op, {"n_keys": 1, "join_type": "inner"},
              "table", [inline(g, [SPECIALS["one"]]), g.inline(other, ["1"])])  # fmt: skip


def gen(g):
    """Every float16 case; `g` is generate.py."""
    gen_predicates(g)
    gen_selection(g)
    gen_nulls(g)
    gen_hash(g)
    gen_unary(g)
    gen_cast(g)
    gen_refused(g)
    gen_group_by(g)
    gen_join(g)
