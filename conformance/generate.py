"""Writes conformance/cases/*.json.gz: the ArrowMetal conformance cases.

Run by a developer (`python conformance/generate.py`); the output is committed. Every
expected value comes from pyarrow.compute applied to exactly the inputs that the
runners build (casefmt.build_input); nothing here types an expected value by hand.
Error expectations are pyarrow's exception mapped to an am_status name (map_error).
"""

import argparse
import gzip
import hashlib
import itertools
import json
import math
import os
import sys
from collections import OrderedDict
from fractions import Fraction

import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import casefmt as cf
import cumulative  # cumulative functions
import decimal_cases
import dictionary_cases
import float16_cases
import functions
import gen_aggregates
import groupby_cases
import hash_cases
import join_cases
import null_handling
import quantile_cases
import rank_cases
import rounding
import sort_cases
import split_cases
import string_cases
import temporal_cases
import timezone_cases
import view_cases
import write_ipc
from casefmt import (
    FLOAT_TYPES,
    INT_TYPES,
    NUMERIC_TYPES,
    SIGNED_TYPES,
    TYPES,
    UNSIGNED_TYPES,
    int_range,
)

HERE = os.path.dirname(os.path.abspath(__file__))
LENGTHS = [0, 1, 7, 63, 64, 65, 1000, 100003]
SMALL_LENGTHS = LENGTHS[:-1]
LARGE = 100003
OFFSETS = [0, 1, 7, 63]
NULLS = ["no-nulls", "some-nulls", "all-nulls"]
NULL_PERMILLE = {"no-nulls": 0, "some-nulls": 250, "all-nulls": 1000}
INLINE_MAX = 1000
FLOAT_TOL = 1e-9

CMP = OrderedDict(
    [
        ("eq", pc.equal),
        ("ne", pc.not_equal),
        ("lt", pc.less),
        ("le", pc.less_equal),
        ("gt", pc.greater),
        ("ge", pc.greater_equal),
    ]
)
ARITH = OrderedDict(
    [
        ("add", pc.add),
        ("subtract", pc.subtract),
        ("multiply", pc.multiply),
        ("divide", pc.divide),
    ]
)

# op -> file name (one file per op family)
FILES = {
    "sum": "reduce",
    "min": "reduce",
    "max": "reduce",
    "mean": "reduce",
    "count": "reduce",
    "compare": "compare",
    "arith": "arith",
    "cast": "cast",
    "and": "logic",
    "or": "logic",
    "not": "logic",
    "filter": "select",
    "take": "select",
    "slice": "select",
}
# Table-driven families: one file each, a name per function of the library's table.
FILES.update({name: "unary" for name in functions.UNARY})
FILES.update({name: "binary" for name in functions.BINARY})
FILES.update({name: "logic" for name in functions.LOGIC})
# The aggregates with options (gen_aggregates.py).
FILES.update({name: "aggregate" for name in gen_aggregates.OPS})
# Null handling: conformance/null_handling.py.
FILES.update({name: null_handling.FILE for name in null_handling.OPS})
# Hash-based functions: conformance/hash_cases.py.
FILES.update({name: hash_cases.FILE for name in hash_cases.OPS})
FILES.update({name: rounding.FILE for name in rounding.OPS})
# Quantiles: conformance/quantile_cases.py.
FILES.update({name: quantile_cases.FILE for name in quantile_cases.OPS})
# Cumulative functions: conformance/cumulative.py.
FILES.update({name: cumulative.FILE for name in cumulative.OPS})
# Sorting: conformance/sort_cases.py.
FILES.update({name: sort_cases.FILE for name in sort_cases.OPS})
# Group-by: conformance/groupby_cases.py.
FILES.update({name: groupby_cases.FILE for name in groupby_cases.OPS})
# Hash joins: conformance/join_cases.py.
FILES.update({name: join_cases.FILE for name in join_cases.OPS})
# Selection and ranking: conformance/rank_cases.py.
FILES.update({name: rank_cases.FILE for name in rank_cases.OPS})
# Temporal types: conformance/temporal_cases.py (every case with a temporal input).
FILES.update({name: temporal_cases.FILE for name in temporal_cases.OPS})
FILES.update({name: timezone_cases.FILE for name in timezone_cases.OPS})  # time zones
FILES.update({name: string_cases.FILE for name in string_cases.FUNCTIONS})  # string functions
FILES.update({name: split_cases.FILE for name in split_cases.OPS})  # splitting (lists)
# Dictionary arrays: conformance/dictionary_cases.py (every case with a dictionary input).
FILES.update({name: dictionary_cases.FILE for name in dictionary_cases.OPS})


# ---- pyarrow evaluation and error mapping -------------------------------------------------


def map_error(exc):
    """am_status name for an exception raised by pyarrow."""
    msg = str(exc)
    # The families whose cases live in their own modules map their own errors first.
    for family in (null_handling, hash_cases, rounding, quantile_cases, sort_cases, rank_cases,
                   join_cases, temporal_cases, timezone_cases, dictionary_cases,
                   decimal_cases, split_cases):  # fmt: skip
        status = family.map_error(exc)
        if status:
            return status
    if isinstance(exc, pa.ArrowIndexError):
        return "AM_EINDEX"
    if isinstance(exc, pa.ArrowInvalid):
        if "divide by zero" in msg:
            return "AM_EZERODIV"
        if "not in range" in msg or "truncated" in msg or msg == "overflow":
            return "AM_EOVERFLOW"
        if msg in (
            "square root of negative number",
            "domain error",
            "integers to negative integer powers are not allowed",
            "shift amount must be >= 0 and less than precision of type",
        ) or msg.startswith("logarithm of"):
            return "AM_EINVAL"  # a function's domain error
        if "same length" in msg or msg == "Slice step cannot be zero":
            return "AM_EINVAL"
        if msg == "Invalid regular expression: invalid UTF-8":  # a pattern RE2 refuses
            return "AM_EINVAL"
        if msg.startswith("Failed to parse"):  # a string cast
            return "AM_EINVAL"
        if msg.startswith(("Failed formatting", "Timezone not present")):  # strftime
            return "AM_EINVAL"
        raise AssertionError(f"unmapped ArrowInvalid: {msg}")
    if isinstance(exc, (pa.ArrowNotImplementedError, pa.ArrowTypeError, TypeError)):
        return "AM_ETYPE"
    if isinstance(exc, (IndexError, ValueError)) and "non-negative" in msg:
        return "AM_EINVAL"  # Array.slice argument validation
    raise AssertionError(f"unmapped exception {type(exc).__name__}: {msg}")


def evaluate(op, params, args, native=False):
    """pyarrow's answer; with a view argument, view_cases' (pyarrow's over the views
    where it computes, else over the same values as string / binary) unless `native`."""
    if not native and view_cases.has_views(args):
        return view_cases.evaluate(lambda o, p, a: evaluate(o, p, a, True), op, params, args)
    if op in gen_aggregates.OPS:
        return gen_aggregates.evaluate(op, params, args)
    if op in ("sum", "min", "max", "mean"):
        return getattr(pc, op)(args[0])
    if op == "count":
        return pc.count(args[0], mode=params["mode"])
    if op == "compare":
        return CMP[params["cmp"]](args[0], args[1])
    if op == "arith":
        return ARITH[params["arith"]](args[0], args[1])
    if op == "cast":
        allow = params.get("allow", [])
        if allow:
            opts = pc.CastOptions(
                cf.PA_TYPE[params["to"]], **{f"allow_{name}": True for name in allow}
            )
            return pc.cast(args[0], options=opts)
        return pc.cast(args[0], cf.PA_TYPE[params["to"]], safe=params["safe"])
    if op == "and":
        return pc.and_(args[0], args[1])
    if op == "or":
        return pc.or_(args[0], args[1])
    if op == "not":
        return pc.invert(args[0])
    if op == "filter":
        return pc.filter(args[0], args[1], params.get("null_selection", "drop"))
    if op == "take":
        return pc.take(args[0], args[1])
    if op == "slice":
        return args[0].slice(params["offset"], params["length"])
    if op in functions.UNARY:
        return pc.call_function(op, [args[0]])
    if op in functions.BINARY:
        return pc.call_function(op, [args[0], args[1]])
    if op in functions.LOGIC:
        return pc.call_function(op, args)
    if op in null_handling.OPS:  # null handling
        return null_handling.evaluate(op, params, args)
    if op in hash_cases.OPS:  # hash-based functions
        return hash_cases.evaluate(op, params, args)
    if op in rounding.OPS:
        return rounding.evaluate(op, params, args)
    if op in quantile_cases.OPS:  # quantiles
        return quantile_cases.evaluate(op, params, args)
    if op in cumulative.OPS:
        return cumulative.evaluate(op, params, args)
    if op in sort_cases.OPS:
        return sort_cases.evaluate(op, params, args)
    if op in groupby_cases.OPS:
        return groupby_cases.evaluate(op, params, args)
    if op in join_cases.OPS:
        return join_cases.evaluate(op, params, args)
    if op in rank_cases.OPS:
        return rank_cases.evaluate(op, params, args)
    if op in temporal_cases.OPS:
        return temporal_cases.evaluate(op, params, args)
    if op in timezone_cases.OPS:
        return timezone_cases.evaluate(op, params, args)
    if op in string_cases.FUNCTIONS:
        return string_cases.evaluate(op, params, args)
    if op in split_cases.OPS:
        return split_cases.evaluate(op, params, args)
    if op in dictionary_cases.OPS:
        return dictionary_cases.evaluate(op, params, args)
    raise AssertionError(op)


def expectation(case, native=False):
    args = [cf.build_input(i) for i in case["inputs"]]
    try:
        result = evaluate(case["op"], case["params"], args, native)
    except Exception as exc:  # noqa: BLE001 - every exception is mapped or re-raised
        return {"error": map_error(exc)}, None
    if isinstance(result, pa.Table):  # group_by, join: rows compared sorted
        family = join_cases if case["op"] in join_cases.OPS else groupby_cases
        return family.expected(case, result), None
    if case["op"] in split_cases.OPS:  # a ListArray: its items and offsets
        return split_cases.expected(sys.modules[__name__], case, result), result
    if isinstance(result, pa.StructScalar):  # min_max, first_last: a record of scalars
        return gen_aggregates.expected_struct(case["op"], result), result
    if case["op"] in rank_cases.OPS:  # select_k, partition: a property, not bytes
        exp = rank_cases.expected(case, args, result)
        if exp is not None:
            return exp, result
    fields = dictionary_cases.expected(sys.modules[__name__], result)  # dictionary results
    if fields is None:
        fields = hash_cases.expected(sys.modules[__name__], case["op"], result)
    if fields is not None:  # value_counts, dictionary_encode, mode: two arrays
        return fields, result
    t = cf.type_name(result.type)
    if isinstance(result, pa.Scalar):
        return {"type": t, "value": cf.encode_value(t, cf.scalar_value_of(result))}, result
    if len(result) <= INLINE_MAX:
        expected = {"type": t, "values": cf.encode_values(t, cf.array_values(result))}
    else:
        expected = cf.hashed_expectation(result)
        assert expected["sha256"] == cf.digest(t, cf.array_values(result))  # both encoders agree
    if cf.zone_of(result.type) is not None:  # a timestamp's zone, beside its type
        expected["tz"] = cf.zone_of(result.type)
    return expected, result


# ---- inputs -------------------------------------------------------------------------------


def seed_of(key):
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")


def poison(t, role):
    """Values stored in the padding before a sliced input's first slot."""
    if t in cf.BYTES_TYPES:
        return string_cases.poison(t)
    if t == "bool":
        return [True, None, False]
    if role == "index":
        hi = int_range(t)[1]
        return ["-1", str(hi), None, "1000000", str(int_range(t)[0])]
    if t in FLOAT_TYPES:
        if role == "divisor":
            return [0.0, "nan", None, "-0.0"]
        return ["nan", "inf", None, "-inf", "-0.0", 3.0e38]
    lo, hi = int_range(t)
    if role == "divisor":
        return ["0", None, str(hi), "0"] + (["-1"] if t in SIGNED_TYPES else [])
    return [str(lo), str(hi), "0", None, "-1" if t in SIGNED_TYPES else "1"]


def pad_values(t, offset, role):
    p = poison(t, role)
    return [p[i % len(p)] for i in range(offset)]


def gen_input(t, length, nulls, offset, key, role="value", null_fill=None, **kind):
    """An input drawn by splitmix64: inline values for length <= INLINE_MAX (the generator
    materialises the same spec), else the gen spec itself."""
    for attempt in range(64):
        spec = OrderedDict()
        spec["rng"] = "splitmix64"
        spec["seed"] = seed_of(f"{key}#{attempt}" if attempt else key)
        spec["length"] = length
        spec["offset"] = offset
        spec["null_permille"] = NULL_PERMILLE[nulls] if isinstance(nulls, str) else nulls
        spec.update(kind)
        if offset:
            spec["pad"] = pad_values(t, offset, role)
        if null_fill is not None:
            spec["null_fill"] = null_fill
        inp = {"type": t, "gen": spec}
        m = cf.materialize(inp)
        valid = m.valid[offset:]
        if nulls == "some-nulls" and length >= 2 and (valid.all() or not valid.any()):
            continue  # redraw until the pattern really has both
        break
    if length > INLINE_MAX:
        out = inp
    else:
        out = OrderedDict([("type", t), ("offset", offset)])
        vals = [v if ok else None for v, ok in zip(m.values.tolist(), m.valid.tolist())]
        out["values"] = cf.encode_values(t, vals)
        if null_fill is not None:
            out["null_fill"] = null_fill
    if offset == 63:
        out["null_count"] = -1  # exported with an unknown null count
    return out


def inline(t, values, offset=0, pad_role="value", null_fill=None):
    """A hand-written input: `values` are the slots after the padding."""
    out = OrderedDict([("type", t), ("offset", offset)])
    out["values"] = pad_values(t, offset, pad_role) + cf.encode_values(t, values)
    if null_fill is not None:
        out["null_fill"] = null_fill
    return out


def scalar(t, v):
    return {"scalar": {"type": t, "value": cf.encode_value(t, v)}}


def value_kind(t):
    """gen kind parameters for ordinary data of type t."""
    if t == "bool":
        return {"kind": "uniform"}
    if t in INT_TYPES:
        return {"kind": "uniform"}
    return {"kind": "uniform", "lo": -1000.0, "hi": 1000.0}


def compare_choices(t):
    if t == "bool":
        return [True, False]
    lo, hi = int_range(t) if t in INT_TYPES else (None, None)
    if t in SIGNED_TYPES:
        return [str(v) for v in (lo, lo + 1, -2, -1, 0, 1, 2, hi - 1, hi)]
    if t in UNSIGNED_TYPES:
        return [str(v) for v in (0, 1, 2, 3, hi // 2, hi // 2 + 1, hi - 1, hi)]
    big = 3.0e38 if t == "float32" else 1.0e300
    return ["-inf", -big, -1.5, "-0.0", 0.0, 1.5, 1e-30, big, "inf", "nan"]


# ---- cases --------------------------------------------------------------------------------

CASES = OrderedDict()


def add(cid, op, params, form, inputs):
    if cid in CASES:
        raise AssertionError("duplicate id " + cid)
    case = OrderedDict()
    case["id"] = cid
    case["op"] = op
    case["params"] = params
    case["form"] = form
    case["inputs"] = inputs
    expected, result = expectation(case)
    case["expected"] = expected
    tol = tolerance(case, result)
    if tol:
        case["tolerance"] = tol
        case["divergence"] = gen_aggregates.DIVERGENCE.get(op, "summation-order")
    if (op in TRANSCENDENTAL or op in BINARY_TRANSCENDENTAL) and "error" not in expected:
        case["tolerance"] = OrderedDict([("ulps", ULPS)])
        case["divergence"] = "math-library-rounding"
        if "sha256" in expected:
            # A digest cannot allow for rounding: every SAMPLE_EVERY-th value is kept,
            # compared within the tolerance when the digest differs.
            t = expected["type"]
            expected["sample_every"] = SAMPLE_EVERY
            expected["sample"] = cf.encode_values(t, cf.array_values(result)[::SAMPLE_EVERY])
    if op in cumulative.OPS and tol and "sha256" in expected:
        # A digest cannot allow for rounding: every SAMPLE_EVERY-th value is kept.
        case["divergence"] = "scan-order"
        t = expected["type"]
        expected["sample_every"] = SAMPLE_EVERY
        expected["sample"] = cf.encode_values(t, cf.array_values(result)[::SAMPLE_EVERY])
    elif op in cumulative.OPS and tol:
        case["divergence"] = "scan-order"
    if zero_sign(case, result):
        case["divergence"] = "zero-sign"
    CASES[cid] = case


def tolerance(case, result):
    """Float sums and means (and integer means whose partial sums may exceed 2**53) are
    compared with |got - exp| <= abs + rel * |exp|; the order of summation is free."""
    if case["op"] in gen_aggregates.OPS:
        return gen_aggregates.tolerance(case, result)
    if case["op"] in cumulative.OPS:
        return cumulative.tolerance(case, result)
    if case["op"] in groupby_cases.OPS:
        return None if "error" in case["expected"] else groupby_cases.tolerance(case)
    if case["op"] not in ("sum", "mean") or result is None or "error" in case["expected"]:
        return None
    t = case["inputs"][0]["type"]
    vals = [v for v in cf.input_values(case["inputs"][0]) if v is not None]
    if not vals:
        return None
    if t in FLOAT_TYPES:
        finite = [abs(v) for v in vals if math.isfinite(v)]
        total = math.fsum(finite)
    elif case["op"] == "mean" and t in INT_TYPES:
        total = float(sum(abs(v) for v in vals))
        if total < 2.0**53:
            return None
    else:
        return None
    if case["op"] == "mean":
        total /= len(vals)
    return OrderedDict([("rel", FLOAT_TOL), ("abs", FLOAT_TOL * total)])


def zero_sign(case, result):
    if case["op"] not in ("min", "max") or result is None:
        return False
    t = case["inputs"][0]["type"]
    if t not in FLOAT_TYPES:
        return False
    v = result.as_py()
    if v is None or v != 0.0:
        return False
    vals = cf.input_values(case["inputs"][0])
    signs = {math.copysign(1.0, x) for x in vals if x is not None and x == 0.0}
    return len(signs) == 2


def sweep(key, reps=1, large=True):
    """(index, length, nulls, offset, rep) combinations for one op variant and type: every
    length once (twice for reps=2, the 100,003 one once), null patterns rotating over the
    lengths >= 7 and offsets over all, shifted by a hash of `key`."""
    shift = seed_of(key) % 12
    out = []
    lengths = LENGTHS if large else SMALL_LENGTHS
    for i, length in enumerate(lengths):
        for rep in range(1 if length == LARGE else reps):
            j = i + shift + 5 * rep
            if length == 0:
                nulls = "no-nulls"
            elif length == 1:
                nulls = ["no-nulls", "all-nulls"][j % 2]
            else:
                nulls = NULLS[j % 3]
            offset = OFFSETS[(i + shift + 2 * rep) % 4]
            out.append((i, length, nulls, offset, rep))
    return out


def other(nulls, k):
    return NULLS[(NULLS.index(nulls) + k) % 3]


def sweep_id(op, t, form, length, nulls, offset, rep=0, extra=""):
    cid = f"{op}/{t}/{form}/len{length}/{nulls}/offset{offset}"
    if extra:
        cid += "/" + extra
    if rep:
        cid += f"/rep{rep}"
    return cid


def gen_reductions():
    for op in ("sum", "min", "max", "mean"):
        for t in TYPES:
            key = f"{op}/{t}"
            for _, n, nulls, off, rep in sweep(key, reps=2):
                cid = sweep_id(op, t, "unary", n, nulls, off, rep)
                inp = gen_input(t, n, nulls, off, cid, **value_kind(t))
                add(cid, op, {}, "unary", [inp])
    for mode in ("only_valid", "only_null", "all"):
        for t in TYPES:
            key = f"count-{mode}/{t}"
            for _, n, nulls, off, rep in sweep(key, large=(mode == "only_valid")):
                cid = sweep_id("count-" + mode, t, "unary", n, nulls, off, rep)
                inp = gen_input(t, n, nulls, off, cid, **value_kind(t))
                add(cid, "count", {"mode": mode}, "unary", [inp])

    # Special values.
    nan, inf = math.nan, math.inf
    float_sets = {
        "nan-first": [nan, 1.0, 2.0],
        "nan-last": [1.0, -2.0, nan],
        "all-nan": [nan, nan],
        "nan-and-null": [nan, None],
        "inf": [inf, 1.0, -3.0],
        "-inf": [-inf, 1.0, 5.0],
        "inf-minus-inf": [inf, -inf, 1.0],
        "neg-zeros": [-0.0, -0.0],
        "pos-zeros": [0.0, 0.0],
        "mixed-zeros": [-0.0, 0.0, None, 0.0, -0.0],
        "neg-zero-and-one": [1.0, -0.0, 2.0],
        "subnormal": [5e-324, -5e-324, 1e-310],
        "max-and-nan": [nan, 1.7976931348623157e308, -1.7976931348623157e308, nan],
        "ones": [1.0] * 65,
        "tenths": [0.1] * 1000,
        "nan-inf-null": [None, nan, inf, None, -inf],
    }
    for t in FLOAT_TYPES:
        for name, vals in float_sets.items():
            if t == "float32":
                vals = [None if v is None else cf.f32(v) for v in vals]
                if name == "subnormal":
                    vals = [1e-45, -1e-45, 1e-40]
            for op in ("sum", "min", "max", "mean"):
                if name == "max-and-nan" and op in ("sum", "mean") and t == "float64":
                    continue  # the result would depend on the order of summation
                for off in (0, 7):
                    cid = f"{op}/{t}/unary/special/{name}/offset{off}"
                    add(cid, op, {}, "unary", [inline(t, vals, off)])
    for t in INT_TYPES:
        lo, hi = int_range(t)
        sets = {
            "extremes": [lo, hi, lo, hi, 0],
            "max-twice": [hi, hi],
            "min-twice": [lo, lo],
            "max-plus-one": [hi, 1],
            "min-minus-one": [lo, -1] if t in SIGNED_TYPES else [lo, 0],
            "min-max-neg": [hi, hi, hi, lo, lo],
        }
        for name, vals in sets.items():
            for op in ("sum", "min", "max", "mean"):
                for off in (0, 1):
                    cid = f"{op}/{t}/unary/special/{name}/offset{off}"
                    add(cid, op, {}, "unary", [inline(t, vals, off)])
        # wrapping sums of many extremes, inline and generated
        for op in ("sum", "mean", "min", "max"):
            for n in (1000, LARGE):
                cid = f"{op}/{t}/unary/extremes-choice/len{n}"
                choices = [str(v) for v in (lo, hi, hi - 1, 0, lo + 1)]
                inp = gen_input(t, n, 50, 3, cid, kind="choice", choices=choices)
                add(cid, op, {}, "unary", [inp])
    for op in ("sum", "min", "max", "mean"):
        for name, vals in (("all-true", [True] * 65), ("all-false", [False] * 64)):
            add(f"{op}/bool/unary/special/{name}", op, {}, "unary", [inline("bool", vals)])


def gen_compare():
    for cmp in CMP:
        for t in TYPES:
            for form in ("array-array", "array-scalar"):
                key = f"{cmp}/{t}/{form}"
                large = (cmp, form) in (("lt", "array-array"), ("eq", "array-scalar"))
                choices = compare_choices(t)
                kind = {"kind": "choice", "choices": choices}
                if t == "bool":
                    kind = {"kind": "uniform"}
                for i, n, nulls, off, rep in sweep(key, large=large):
                    cid0 = sweep_id(cmp, t, form, n, nulls, off, rep)
                    left = gen_input(t, n, nulls, off, cid0 + "#0", **kind)
                    if form == "array-array":
                        off2 = OFFSETS[(i + 1) % 4]
                        n2 = other(nulls, i % 2 + 1) if n > 1 else nulls
                        cid = sweep_id(cmp, t, form, n, f"{nulls},{n2}", f"{off},{off2}")
                        right = gen_input(t, n, n2, off2, cid0 + "#1", **kind)
                    else:
                        cid = cid0
                        c = choices[(i + seed_of(key)) % len(choices)]
                        right = {"scalar": {"type": t, "value": c}}
                    add(cid, "compare", {"cmp": cmp}, form, [left, right])
            # special: a null scalar
            add(
                f"{cmp}/{t}/array-scalar/null-scalar",
                "compare",
                {"cmp": cmp},
                "array-scalar",
                [
                    gen_input(t, 7, "some-nulls", 1, f"{cmp}/{t}/ns", kind="uniform"),
                    scalar(t, None),
                ],
            )
    # NaN, zeros, infinities against each other, both forms
    for t in FLOAT_TYPES:
        specials = [math.nan, -0.0, 0.0, math.inf, -math.inf, 1.0]
        left = [a for a in specials for _ in specials]
        right = [b for _ in specials for b in specials]
        for cmp in CMP:
            add(
                f"{cmp}/{t}/array-array/special-grid",
                "compare",
                {"cmp": cmp},
                "array-array",
                [inline(t, left, 7), inline(t, right, 1)],
            )
            for s in specials:
                name = cf.encode_value(t, s)
                add(
                    f"{cmp}/{t}/array-scalar/special-scalar/{name}",
                    "compare",
                    {"cmp": cmp},
                    "array-scalar",
                    [inline(t, specials + [None], 3), scalar(t, s)],
                )
    # integer extremes (unsigned comparisons above 2**63, signed below zero)
    for t in INT_TYPES:
        lo, hi = int_range(t)
        vals = [lo, hi, 0, lo, hi, hi - 1, lo + 1, None]
        for cmp in CMP:
            add(
                f"{cmp}/{t}/array-array/extremes",
                "compare",
                {"cmp": cmp},
                "array-array",
                [inline(t, vals, 1), inline(t, list(reversed(vals[:-1])) + [hi], 63)],
            )
    # length mismatch
    for cmp in ("eq", "lt"):
        for t in ("int32", "float64", "bool"):
            v = {"bool": [True, False, True, False], "int32": [1, 2, 3, 4]}.get(
                t, [1.0, 2.0, 3.0, 4.0]
            )
            add(
                f"{cmp}/{t}/array-array/length-mismatch",
                "compare",
                {"cmp": cmp},
                "array-array",
                [inline(t, v[:3]), inline(t, v)],
            )
            add(
                f"{cmp}/{t}/array-array/length-mismatch-empty",
                "compare",
                {"cmp": cmp},
                "array-array",
                [inline(t, []), inline(t, v[:1])],
            )
    # mixed types: the ABI promotes as pyarrow.compute does
    mixed = [
        ("int8", [1, -128, 127, None], "uint8", [255, 0, 255, 1]),
        ("int64", [1, -5, 16777216, None], "float32", [1.5, -5.0, 16777216.0, 0.0]),
        ("int64", [1, 16777217], "float32", [1.0, 1.0]),
        ("uint64", [2**63, 1], "int64", [1, 1]),
        ("uint64", [2**63 - 1, 1, None], "int64", [-1, 1, 5]),
        ("int32", [1, 2, None], "float64", [1.0, 2.5, 0.0]),
        ("uint32", [4294967295, 0], "int8", [-1, 0]),
        ("bool", [True, False], "int8", [1, 0]),
        ("float32", [0.1, 1.0], "float64", [0.1, 1.0]),
    ]
    for k, (lt, lv, rt, rv) in enumerate(mixed):
        for cmp in ("eq", "lt", "ge"):
            add(
                f"{cmp}/{lt}+{rt}/array-array/mixed{k}",
                "compare",
                {"cmp": cmp},
                "array-array",
                [inline(lt, lv), inline(rt, rv, 1)],
            )
    mixed_scalars = [
        ("int8", [1, -128, 127, None], "int16", 300),
        ("int8", [1, -128, 127, None], "int64", -300),
        ("uint64", [0, 1, 2**64 - 1], "int64", -1),
        ("uint8", [0, 200, 255], "int8", -1),
        ("float32", [0.1, 1.0, None], "float64", 0.1),
        ("int32", [1, 2, 3], "float64", 2.0),
        ("int64", [2**53 + 1, 1], "float64", 1.0),
        ("int8", [1, -128, 127, None], "int64", 5),
        ("uint8", [0, 200, 255], "uint64", 18446744073709551615),
        ("float32", [0.5, -2.0, None], "int64", 3),
        ("int32", [7, -7, 2147483647], "float32", 0.5),
        ("uint32", [0, 4294967295], "int32", -1),
        ("bool", [True, False], "int8", 1),
    ]
    for lt, lv, st, sv in mixed_scalars:
        for cmp in ("eq", "lt", "gt"):
            add(
                f"{cmp}/{lt}/array-scalar/mixed/{st}-{cf.encode_value(st, sv)}",
                "compare",
                {"cmp": cmp},
                "array-scalar",
                [inline(lt, lv, 7), scalar(st, sv)],
            )


def arith_scalar_choices(t, op):
    if t in FLOAT_TYPES:
        return [2.5, -0.5, 1e10, 3.0, -1.0e-3, 7.25]
    lo, hi = int_range(t)
    if op == "divide":
        base = [3, 7, hi, 2, 1] + ([-1, lo, -3] if t in SIGNED_TYPES else [hi - 1])
    else:
        base = [3, hi, 2, 0] + ([-1, lo] if t in SIGNED_TYPES else [hi - 1])
    return base


def gen_arith():
    for op in ARITH:
        for t in NUMERIC_TYPES:
            for form in ("array-array", "array-scalar"):
                key = f"{op}/{t}/{form}"
                left_kind = value_kind(t)
                if op == "divide" and t in INT_TYPES:
                    lo = -20 if t in SIGNED_TYPES else 1
                    right_kind = {
                        "kind": "uniform",
                        "lo": str(lo),
                        "hi": "20",
                        "exclude_zero": True,
                    }
                    role = "divisor"
                else:
                    right_kind = value_kind(t)
                    role = "value"
                for i, n, nulls, off, rep in sweep(key):
                    cid0 = sweep_id(op, t, form, n, nulls, off, rep)
                    left = gen_input(t, n, nulls, off, cid0 + "#0", **left_kind)
                    if form == "array-array":
                        off2 = OFFSETS[(i + 3) % 4]
                        n2 = other(nulls, i % 2 + 1) if n > 1 else nulls
                        cid = sweep_id(op, t, form, n, f"{nulls},{n2}", f"{off},{off2}")
                        right = gen_input(t, n, n2, off2, cid0 + "#1", role=role, **right_kind)
                    else:
                        cid = cid0
                        choices = arith_scalar_choices(t, op)
                        right = scalar(t, choices[(i + seed_of(key)) % len(choices)])
                    add(cid, "arith", {"arith": op}, form, [left, right])
        # booleans have no arithmetic
        add(
            f"{op}/bool/array-array/type-error",
            "arith",
            {"arith": op},
            "array-array",
            [inline("bool", [True, False]), inline("bool", [True, True])],
        )
        add(
            f"{op}/bool/array-scalar/type-error",
            "arith",
            {"arith": op},
            "array-scalar",
            [inline("bool", [True, False]), scalar("bool", True)],
        )
        add(
            f"{op}/bool/array-array/type-error-empty",
            "arith",
            {"arith": op},
            "array-array",
            [inline("bool", []), inline("bool", [])],
        )

    # integer extremes: wrap-around, INT_MIN / -1, truncation toward zero
    for t in INT_TYPES:
        lo, hi = int_range(t)
        if t in SIGNED_TYPES:
            left = [hi, lo, lo, hi, lo, -7, 7, -7, 0, hi, lo, None, 5]
            right = [1, -1, -1, -1, 1, 2, -2, -2, 3, hi, lo, 0, None]
        else:
            left = [hi, 0, hi, hi // 2 + 1, 7, 0, 1, None, 5, hi]
            right = [1, 1, hi, 2, 2, 3, hi, 0, None, hi - 1]
        for op in ARITH:
            r = right
            if op == "divide":
                # a zero divisor under the null slot only
                r = [1 if v == 0 and left[i] is not None else v for i, v in enumerate(right)]
            for off in (0, 7):
                add(
                    f"{op}/{t}/array-array/extremes/offset{off}",
                    "arith",
                    {"arith": op},
                    "array-array",
                    [inline(t, left, off), inline(t, r, 63 - off, pad_role="divisor")],
                )
            for s in [hi, lo, -1, 2] if t in SIGNED_TYPES else [hi, 2, 1]:
                if op == "divide" and s == 0:
                    continue
                add(
                    f"{op}/{t}/array-scalar/extremes/{s}",
                    "arith",
                    {"arith": op},
                    "array-scalar",
                    [inline(t, left, 1, pad_role="divisor"), scalar(t, s)],
                )
        # division by zero: array-array, array-scalar, at the end of long arrays, and its
        # absence where the zero is under a null slot or the array is empty / all null
        add(
            f"divide/{t}/array-array/zero-divisor",
            "arith",
            {"arith": "divide"},
            "array-array",
            [inline(t, [1, 2, 3]), inline(t, [1, 0, 1])],
        )
        add(
            f"divide/{t}/array-array/zero-divisor-zero-dividend",
            "arith",
            {"arith": "divide"},
            "array-array",
            [inline(t, [0]), inline(t, [0])],
        )
        add(
            f"divide/{t}/array-scalar/zero-divisor",
            "arith",
            {"arith": "divide"},
            "array-scalar",
            [inline(t, [1, 2, 3], 7), scalar(t, 0)],
        )
        add(
            f"divide/{t}/array-scalar/zero-divisor-empty",
            "arith",
            {"arith": "divide"},
            "array-scalar",
            [inline(t, []), scalar(t, 0)],
        )
        add(
            f"divide/{t}/array-scalar/zero-divisor-all-null",
            "arith",
            {"arith": "divide"},
            "array-scalar",
            [inline(t, [None, None, None], 1), scalar(t, 0)],
        )
        add(
            f"divide/{t}/array-scalar/null-divisor",
            "arith",
            {"arith": "divide"},
            "array-scalar",
            [inline(t, [1, None, 3], 1), scalar(t, None)],
        )
        add(
            f"divide/{t}/array-array/zero-under-null",
            "arith",
            {"arith": "divide"},
            "array-array",
            [
                inline(t, [1, 2, 3, 4]),
                inline(t, [None, 2, None, 1], 7, pad_role="divisor", null_fill="0"),
            ],
        )
        add(
            f"divide/{t}/array-array/zero-under-null-left",
            "arith",
            {"arith": "divide"},
            "array-array",
            [inline(t, [None, 2, 3]), inline(t, [0, 1, 1])],
        )
        for n in (1000, LARGE):
            cid = f"divide/{t}/array-array/zero-divisor-at-end/len{n}"
            lo_d = "-20" if t in SIGNED_TYPES else "1"
            right = gen_input(
                t,
                n,
                100,
                1,
                cid + "#1",
                role="divisor",
                kind="uniform",
                lo=lo_d,
                hi="20",
                exclude_zero=True,
            )
            spec = right.get("gen", None)
            if spec is not None:
                spec["overrides"] = [[n - 2, "0"]]
            else:
                right["values"][-2] = "0"
            left = gen_input(t, n, 0, 0, cid + "#0", kind="uniform")
            add(cid, "arith", {"arith": "divide"}, "array-array", [left, right])
        for op in ARITH:
            add(
                f"{op}/{t}/array-scalar/null-scalar",
                "arith",
                {"arith": op},
                "array-scalar",
                [inline(t, [1, None, 3], 1), scalar(t, None)],
            )

    # floats: infinities, NaN, signed zeros, overflow, subnormals
    for t in FLOAT_TYPES:
        big = 3.0e38 if t == "float32" else 1.7e308
        tiny = 1e-45 if t == "float32" else 5e-324
        nan, inf = math.nan, math.inf
        left = [inf, inf, 0.0, 1.0, -1.0, 0.0, -0.0, -0.0, 0.0, nan, big, tiny, -big, 1.0, None]
        right = [-inf, inf, inf, 0.0, 0.0, 0.0, -0.0, 0.0, -1.0, 1.0, big, 0.5, big, -inf, 1.0]
        if t == "float32":
            left = [None if v is None else cf.f32(v) for v in left]
            right = [cf.f32(v) for v in right]
        for op in ARITH:
            for off in (0, 63):
                add(
                    f"{op}/{t}/array-array/special/offset{off}",
                    "arith",
                    {"arith": op},
                    "array-array",
                    [inline(t, left, off), inline(t, right, 1, pad_role="divisor")],
                )
            for s in (0.0, -0.0, inf, -inf, nan, big):
                add(
                    f"{op}/{t}/array-scalar/special/{cf.encode_value(t, s)}",
                    "arith",
                    {"arith": op},
                    "array-scalar",
                    [inline(t, left, 7), scalar(t, s)],
                )
            add(
                f"{op}/{t}/array-scalar/null-scalar",
                "arith",
                {"arith": op},
                "array-scalar",
                [inline(t, [1.0, None, 3.0], 1), scalar(t, None)],
            )

    # length mismatch
    for op in ARITH:
        for t in ("int16", "float32"):
            add(
                f"{op}/{t}/array-array/length-mismatch",
                "arith",
                {"arith": op},
                "array-array",
                [inline(t, [1, 2, 3]), inline(t, [1, 2])],
            )

    # mixed types: promotion as pyarrow.compute, including a safe cast that fails
    mixed = [
        ("int8", [1, -128, 127, None], "uint8", [255, 0, 255, 1]),
        ("int64", [1, -5, 16777216, None], "float32", [1.5, -5.0, 0.25, 0.0]),
        ("int64", [1, 16777217], "float32", [1.0, 1.0]),
        ("uint64", [2**63, 1], "int64", [1, 1]),
        ("uint64", [2**63 - 1, 1, None], "int64", [-1, 1, 5]),
        ("int32", [1, 2, None], "float64", [1.0, 2.5, 0.0]),
        ("uint32", [4294967295, 0], "int8", [-1, 3]),
        ("int8", [5, 6], "uint64", [1, 2]),
        ("float32", [0.1, 1.0], "float64", [0.1, 3.0]),
        ("int16", [100, 200], "uint8", [0, 5]),
        ("bool", [True, False], "int8", [1, 2]),
    ]
    for k, (lt, lv, rt, rv) in enumerate(mixed):
        for op in ARITH:
            add(
                f"{op}/{lt}+{rt}/array-array/mixed{k}",
                "arith",
                {"arith": op},
                "array-array",
                [inline(lt, lv, 1), inline(rt, rv)],
            )
    mixed_scalars = [
        ("int8", [1, -128, 127, None], "int16", 300),
        ("uint8", [0, 200, 255], "int8", -1),
        ("int64", [2**53 + 1, 1], "float64", 1.0),
        ("int16", [7, -7], "uint8", 0),
        ("float32", [0.5, None], "float64", 0.1),
        ("uint64", [2**63, 1], "int64", 1),
        ("int8", [1, -128, 127, None], "int64", 5),
        ("uint8", [0, 200, 255], "uint64", 18446744073709551615),
        ("float32", [0.5, -2.0, None], "int64", 3),
        ("int32", [7, -7, 2147483647], "float32", 0.5),
        ("uint32", [0, 4294967295], "int32", -1),
        ("bool", [True, False], "int8", 1),
    ]
    for lt, lv, st, sv in mixed_scalars:
        for op in ARITH:
            add(
                f"{op}/{lt}/array-scalar/mixed/{st}-{cf.encode_value(st, sv)}",
                "arith",
                {"arith": op},
                "array-scalar",
                [inline(lt, lv, 7), scalar(st, sv)],
            )


def cast_kind(src, dst, safe):
    """gen parameters for values that a cast from src to dst handles without an error
    (safe) or without an unspecified result (unsafe)."""
    if src == "bool":
        return {"kind": "uniform"}
    if src in INT_TYPES:
        slo, shi = int_range(src)
        if dst in INT_TYPES and safe:
            dlo, dhi = int_range(dst)
            return {"kind": "uniform", "lo": str(max(slo, dlo)), "hi": str(min(shi, dhi))}
        if dst in FLOAT_TYPES and safe:
            lim = 1 << (24 if dst == "float32" else 53)
            return {"kind": "uniform", "lo": str(max(slo, -lim)), "hi": str(min(shi, lim))}
        return {"kind": "uniform"}
    # float source
    if dst in INT_TYPES:
        dlo, dhi = int_range(dst)
        lim = 1 << (24 if src == "float32" else 53)
        if safe:
            return {
                "kind": "uniform",
                "integral": True,
                "lo": str(max(dlo, -lim)),
                "hi": str(min(dhi, lim)),
            }
        # unsafe: fractional values whose truncation is in range
        if src == "float32":
            lim = 1 << 23
        else:
            lim = 1 << 62
        lo = max(dlo, -lim) - 0.5 if dlo < 0 else -0.5
        hi = min(dhi, lim) + 0.5
        return {"kind": "uniform", "lo": lo, "hi": hi}
    return {"kind": "uniform", "lo": -1.0e6, "hi": 1.0e6}


def gen_cast():
    for src in TYPES:
        combos = [(dst, safe) for dst in TYPES for safe in (True, False)]
        k = 0
        for dst, safe in combos:
            key = "cast/{}->{}/{}".format(src, dst, "safe" if safe else "unsafe")
            for rep in range(3):
                i = (k + seed_of(src)) % len(LENGTHS)
                k += 1
                n = LENGTHS[i]
                j = k + rep
                nulls = "no-nulls" if n == 0 else NULLS[j % 3] if n > 1 else NULLS[2 * (j % 2)]
                off = OFFSETS[(j + i) % 4]
                cid = f"{key}/len{n}/{nulls}/offset{off}"
                inp = gen_input(src, n, nulls, off, cid, **cast_kind(src, dst, safe))
                add(cid, "cast", {"to": dst, "safe": safe}, "unary", [inp])

    nan, inf = math.nan, math.inf
    # integer -> integer: overflow (safe) and wrap (unsafe) at the target's edges
    for src in INT_TYPES:
        slo, shi = int_range(src)
        for dst in INT_TYPES:
            dlo, dhi = int_range(dst)
            edge = sorted(
                {v for v in (dlo, dhi, dlo - 1, dhi + 1, 0, -1, slo, shi) if slo <= v <= shi}
            )
            for safe in (True, False):
                s = "safe" if safe else "unsafe"
                add(
                    f"cast/{src}->{dst}/{s}/edges",
                    "cast",
                    {"to": dst, "safe": safe},
                    "unary",
                    [inline(src, edge + [None], 1)],
                )
                for v in edge:
                    if dlo <= v <= dhi and safe:
                        continue
                    add(
                        f"cast/{src}->{dst}/{s}/value{v}",
                        "cast",
                        {"to": dst, "safe": safe},
                        "unary",
                        [inline(src, [0, v, None], 7)],
                    )
        # integer -> float: pyarrow's safe range is +-2**24 / +-2**53
        for dst in FLOAT_TYPES:
            lim = 1 << (24 if dst == "float32" else 53)
            for v in (lim, -lim, lim + 1, -lim - 1, 2 * lim, shi, slo):
                if not slo <= v <= shi:
                    continue
                for safe in (True, False):
                    s = "safe" if safe else "unsafe"
                    cid = f"cast/{src}->{dst}/{s}/value{v}"
                    if cid not in CASES:
                        add(
                            cid,
                            "cast",
                            {"to": dst, "safe": safe},
                            "unary",
                            [inline(src, [1, v, None, 3], 1)],
                        )
    # float -> integer (safe: NaN, infinities, fractions, out of range are errors; unsafe:
    # truncation of in-range values only: out-of-range values are a documented divergence)
    for src in FLOAT_TYPES:
        for dst in INT_TYPES:
            dlo, dhi = int_range(dst)
            for v in (nan, inf, -inf, 1.5, -0.5, -1.5, float(dhi) * 2 + 2, float(dlo) - 2.0**40):
                if src == "float32":
                    v = cf.f32(v)
                add(
                    f"cast/{src}->{dst}/safe/value-{cf.encode_value(src, v)}",
                    "cast",
                    {"to": dst, "safe": True},
                    "unary",
                    [inline(src, [1.0, v, None], 1)],
                )
            ok = [0.0, -0.0, float(dlo), 1.0]
            if dhi < 2**24 or (src == "float64" and dhi < 2**53):
                ok.append(float(dhi))
            for safe in (True, False):
                s = "safe" if safe else "unsafe"
                add(
                    f"cast/{src}->{dst}/{s}/exact-edges",
                    "cast",
                    {"to": dst, "safe": safe},
                    "unary",
                    [inline(src, ok + [None], 63)],
                )
            frac = [0.9, -0.9, 1.5, -0.5, 2.999, float(dhi) - 0.5 if dhi < 2**23 else 100.25]
            if dlo < 0:
                frac += [-1.5, float(dlo) + 0.5 if dlo > -(2**23) else -100.75]
            add(
                f"cast/{src}->{dst}/unsafe/truncation",
                "cast",
                {"to": dst, "safe": False},
                "unary",
                [inline(src, frac + [None], 7)],
            )
        for dst in FLOAT_TYPES + ["bool"]:
            vals = [nan, inf, -inf, -0.0, 0.0, 1e300, -1e300, 1e-50, -1e-50, 0.1, 5e-324, None]
            if src == "float32":
                vals = [None if v is None else cf.f32(v) for v in vals]
            for safe in (True, False):
                s = "safe" if safe else "unsafe"
                add(
                    f"cast/{src}->{dst}/{s}/special",
                    "cast",
                    {"to": dst, "safe": safe},
                    "unary",
                    [inline(src, vals, 1)],
                )
    for dst in TYPES:
        for safe in (True, False):
            s = "safe" if safe else "unsafe"
            add(
                f"cast/bool->{dst}/{s}/bits",
                "cast",
                {"to": dst, "safe": safe},
                "unary",
                [inline("bool", [True, False, None, True] * 17, 63)],
            )


def gen_cast_allow():
    """Safe casts with one check lifted: pyarrow's CastOptions allow_int_overflow
    (integer -> integer) and allow_float_truncate (float <-> integer)."""
    for allow in ("int_overflow", "float_truncate"):
        params = {"safe": True, "allow": [allow]}
        for src in INT_TYPES:
            slo, shi = int_range(src)
            for dst in INT_TYPES:
                dlo, dhi = int_range(dst)
                edge = sorted({v for v in (dlo - 1, dhi + 1, 0, slo, shi) if slo <= v <= shi})
                add(
                    f"cast/{src}->{dst}/allow_{allow}/edges",
                    "cast",
                    {"to": dst, **params},
                    "unary",
                    [inline(src, edge + [None], 3)],
                )
            for dst in FLOAT_TYPES:
                lim = 1 << (24 if dst == "float32" else 53)
                vals = [v for v in (1, lim + 1, -lim - 1, shi) if slo <= v <= shi]
                add(
                    f"cast/{src}->{dst}/allow_{allow}/beyond-exact",
                    "cast",
                    {"to": dst, **params},
                    "unary",
                    [inline(src, vals + [None], 5)],
                )
        for src in FLOAT_TYPES:
            for dst in INT_TYPES:
                dlo, _ = int_range(dst)
                frac = [0.9, 2.999, 7.0] + ([-0.5, -1.5] if dlo < 0 else [])
                add(
                    f"cast/{src}->{dst}/allow_{allow}/fractions",
                    "cast",
                    {"to": dst, **params},
                    "unary",
                    [inline(src, frac + [None], 9)],
                )


def gen_logic():
    for op in ("and", "or", "not"):
        form = "unary" if op == "not" else "array-array"
        key = f"{op}/bool"
        for i, n, nulls, off, rep in sweep(key, reps=2):
            cid0 = sweep_id(op, "bool", form, n, nulls, off, rep)
            inputs = [gen_input("bool", n, nulls, off, cid0 + "#0", kind="uniform")]
            cid = cid0
            if op != "not":
                off2 = OFFSETS[(i + 1 + rep) % 4]
                n2 = other(nulls, i % 2 + 1) if n > 1 else nulls
                cid = sweep_id(op, "bool", form, n, f"{nulls},{n2}", f"{off},{off2}", rep)
                inputs.append(gen_input("bool", n, n2, off2, cid0 + "#1", kind="uniform"))
            add(cid, op, {}, form, inputs)
        # the truth table with nulls, at bit offsets that straddle bytes
        tv = [True, False, None]
        left = [a for a in tv for _ in tv]
        right = [b for _ in tv for b in tv]
        for off in (0, 1, 7, 63):
            inputs = [inline("bool", left, off)]
            if op != "not":
                inputs.append(inline("bool", right, (off + 3) % 64))
            add(f"{op}/bool/{form}/truth-table/offset{off}", op, {}, form, inputs)
        for t in TYPES[1:]:
            inputs = [inline(t, [1, 0])]
            if op != "not":
                inputs.append(inline(t, [1, 1]))
            add(f"{op}/{t}/{form}/type-error", op, {}, form, inputs)
        if op != "not":
            add(
                f"{op}/bool/array-array/length-mismatch",
                op,
                {},
                form,
                [inline("bool", [True, False]), inline("bool", [True])],
            )
            add(
                f"{op}/bool+int8/array-array/type-error",
                op,
                {},
                form,
                [inline("bool", [True, False]), inline("int8", [1, 0])],
            )


# The bool scalars of the logic functions' scalar forms, and their names in case ids.
LOGIC_SCALARS = {True: "true", False: "false", None: "null"}


def logic_with_scalar(op, form, cid, array, s):
    """A case of `op` between `array` and the bool scalar `s`, in the order of `form`."""
    inputs = [array, scalar("bool", s)]
    if form == "scalar-array":
        inputs.reverse()
    add(cid, op, {}, form, inputs)


def gen_logic_table():
    """Every function of the library's am_logic family beyond and/or/invert (and_kleene,
    or_kleene, xor, and_not, and_not_kleene), from its table: bool arrays over the sweep,
    against each other and against a true, false and null scalar on either side; the truth
    table with nulls at offsets that straddle bytes; every pairing of null patterns (where
    the Kleene functions differ from the others); and the errors: every other type, a bool
    array with a non-bool array or scalar (a null one too), lengths that differ."""
    tv = [True, False, None]
    for op in functions.LOGIC:
        key = f"{op}/bool"
        for i, n, nulls, off, rep in sweep(key, reps=2):
            cid0 = sweep_id(op, "bool", "array-array", n, nulls, off, rep)
            left = gen_input("bool", n, nulls, off, cid0 + "#0", kind="uniform")
            off2 = OFFSETS[(i + 1 + rep) % 4]
            n2 = other(nulls, i % 2 + 1) if n > 1 else nulls
            cid = sweep_id(op, "bool", "array-array", n, f"{nulls},{n2}", f"{off},{off2}", rep)
            right = gen_input("bool", n, n2, off2, cid0 + "#1", kind="uniform")
            add(cid, op, {}, "array-array", [left, right])
        for form in ("array-scalar", "scalar-array"):
            key = f"{op}/bool/{form}"
            for i, n, nulls, off, rep in sweep(key):
                s = list(LOGIC_SCALARS)[(i + seed_of(key)) % 3]
                cid = sweep_id(op, "bool", form, n, nulls, off, rep, "scalar-" + LOGIC_SCALARS[s])
                array = gen_input("bool", n, nulls, off, cid, kind="uniform")
                logic_with_scalar(op, form, cid, array, s)
            # every scalar with every null pattern, and with the truth values
            for s, name in LOGIC_SCALARS.items():
                for nulls in NULLS:
                    for n, off in ((65, 7), (1000, 63)):
                        cid = f"{op}/bool/{form}/scalar-{name}/len{n}/{nulls}/offset{off}"
                        array = gen_input("bool", n, nulls, off, cid, kind="uniform")
                        logic_with_scalar(op, form, cid, array, s)
                cid = f"{op}/bool/{form}/truth-table/scalar-{name}"
                logic_with_scalar(op, form, cid, inline("bool", tv, 5), s)
        # the truth table with nulls, at bit offsets that straddle bytes
        left = [a for a in tv for _ in tv]
        right = [b for _ in tv for b in tv]
        for off in (0, 1, 7, 63):
            inputs = [inline("bool", left, off), inline("bool", right, (off + 3) % 64)]
            add(f"{op}/bool/array-array/truth-table/offset{off}", op, {}, "array-array", inputs)
        # every pairing of null patterns, mostly-false against mostly-true values
        for nl in NULLS:
            for nr in NULLS:
                cid = f"{op}/bool/array-array/null-pairs/{nl},{nr}"
                inputs = [
                    gen_input("bool", 1000, nl, 7, cid + "#0", kind="uniform", true_permille=200),
                    gen_input("bool", 1000, nr, 1, cid + "#1", kind="uniform", true_permille=800),
                ]
                add(cid, op, {}, "array-array", inputs)
        # errors
        for t in TYPES[1:]:
            inputs = [inline(t, [1, 0]), inline(t, [1, 1])]
            add(f"{op}/{t}/array-array/type-error", op, {}, "array-array", inputs)
            add(
                f"{op}/{t}/array-scalar/type-error",
                op,
                {},
                "array-scalar",
                [inline(t, [1, 0]), scalar("bool", True)],
            )
        for lt, rt in (("bool", "int8"), ("int8", "bool"), ("bool", "float64")):
            inputs = [inline(lt, [1, 0]), inline(rt, [1, 1])]
            add(f"{op}/{lt}+{rt}/array-array/type-error", op, {}, "array-array", inputs)
        add(
            f"{op}/bool+int8/array-array/type-error-length-mismatch",
            op,
            {},
            "array-array",
            [inline("bool", [True, False]), inline("int8", [1])],
        )
        for form in ("array-scalar", "scalar-array"):
            for st, sv in (("int8", 1), ("int8", None), ("float64", 1.0), ("uint64", 0)):
                cid = f"{op}/bool/{form}/{st}-scalar-{cf.encode_value(st, sv)}"
                inputs = [inline("bool", [True, None, False], 1), scalar(st, sv)]
                if form == "scalar-array":
                    inputs.reverse()
                add(cid, op, {}, form, inputs)
        add(
            f"{op}/bool/array-array/length-mismatch",
            op,
            {},
            "array-array",
            [inline("bool", [True, False]), inline("bool", [True])],
        )
        add(
            f"{op}/bool/array-array/length-mismatch-empty",
            op,
            {},
            "array-array",
            [inline("bool", []), inline("bool", [None], 3)],
        )


def unary_edges(t):
    """The values where a function of one numeric array is most likely to go wrong."""
    if t in SIGNED_TYPES:
        lo, hi = int_range(t)
        return [str(lo), str(lo + 1), "-1", "0", "1", str(hi - 1), str(hi), None]
    if t in UNSIGNED_TYPES:
        hi = int_range(t)[1]
        return ["0", "1", str(hi // 2), str(hi // 2 + 1), str(hi), None]
    big = 3.0e38 if t == "float32" else 1.0e300
    return ["-0.0", 0.0, "-inf", "inf", "nan", -1.5, 1.5, -big, big, 1e-30, None]


# Functions of floats whose results C's math library and a GPU's may round
# differently (CUDA documents 1 to 2 units in the last place for these), and the
# units in the last place their cases allow; the others are exact everywhere.
ULPS = 4
SAMPLE_EVERY = 97
TRANSCENDENTAL = {"exp", "ln", "log10", "log2", "log1p", "sin", "cos", "tan", "asin", "acos",
                  "atan", "ln_checked", "log10_checked", "log2_checked", "log1p_checked",
                  "asin_checked", "acos_checked"}  # fmt: skip
# Where a function's domain is narrow, ordinary values are drawn from it (the
# edges still go outside, and so make the checked functions' error cases):
# op -> (float low, float high, integer low, integer high or None for the type's).
DOMAIN = {
    "asin": (-1.0, 1.0, None, None),
    "acos": (-1.0, 1.0, None, None),
    "exp": (-80.0, 80.0, None, None),
    "sqrt_checked": (0.0, 1000.0, 0, None),
    "ln_checked": (1e-6, 1000.0, 1, None),
    "log10_checked": (1e-6, 1000.0, 1, None),
    "log2_checked": (1e-6, 1000.0, 1, None),
    "log1p_checked": (-0.999, 1000.0, 0, None),
    "asin_checked": (-1.0, 1.0, -1, 1),
    "acos_checked": (-1.0, 1.0, -1, 1),
}
# The checked functions whose only failure is a signed type's smallest value.
LOWEST_REFUSED = {"negate_checked", "abs_checked"}
# Edges of the functions of floats, beside every function's (unary_edges).
MATH_EDGES = [1.0, -1.0, 0.5, -0.5, 1e-10, -1e-10, 2.0, 10.0, 100.0, 88.0, 710.0, 3.141592653589793]


def unary_values(op, t):
    kind = value_kind(t)
    if t in FLOAT_TYPES:
        if op in DOMAIN:
            kind["lo"], kind["hi"] = DOMAIN[op][:2]
        return kind
    lo, hi = int_range(t)
    if functions.is_math(op):
        # Integers a float64 holds exactly: beyond 2^53 pyarrow's conversion fails
        # (the edges, which reach the type's limits, keep that error case).
        lo, hi = max(lo, -(2**53)), min(hi, 2**53)
    if op in DOMAIN:
        dlo, dhi = DOMAIN[op][2:]
        lo = lo if dlo is None else max(lo, dlo)
        hi = hi if dhi is None else min(hi, dhi)
    if op in LOWEST_REFUSED and t in SIGNED_TYPES:
        lo += 1
    if (lo, hi) != int_range(t):
        kind["lo"], kind["hi"] = lo, hi
    return kind


def gen_unary():
    """Every function of the library's am_unary family, from its table: each type it
    takes over the sweep and its edge values at bit offsets, each it refuses once.
    The transcendental functions' cases carry a tolerance in units in the last place
    (their 100,003-row cases keep a sample of values to compare it with)."""
    for op in functions.UNARY:
        for t in TYPES:
            if not functions.accepts(op, t):
                add(f"{op}/{t}/unary/type-error", op, {}, "unary", [inline(t, [1, 0])])
                continue
            key = f"{op}/{t}"
            for i, n, nulls, off, rep in sweep(key):
                cid = sweep_id(op, t, "unary", n, nulls, off, rep)
                inputs = [gen_input(t, n, nulls, off, cid + "#0", **unary_values(op, t))]
                add(cid, op, {}, "unary", inputs)
            edges = unary_edges(t)
            if functions.is_math(op) and t in FLOAT_TYPES:
                edges = edges + MATH_EDGES + [-v for v in MATH_EDGES]
            for off in (0, 7):
                add(f"{op}/{t}/unary/edges/offset{off}", op, {}, "unary", [inline(t, edges, off)])


# pyarrow's FilterOptions(null_selection_behavior="emit_null")
EMIT = {"null_selection": "emit_null"}


def gen_select():
    # filter
    for t in TYPES:
        key = f"filter/{t}"
        for i, n, nulls, off, rep in sweep(key, reps=2):
            cid0 = sweep_id("filter", t, "array-array", n, nulls, off, rep)
            values = gen_input(t, n, nulls, off, cid0 + "#0", **value_kind(t))
            mnulls = (
                ["no-nulls", "some-nulls", "no-nulls", "all-nulls"][(i + rep) % 4] if n else nulls
            )
            if n == 1:
                mnulls = "no-nulls"
            moff = OFFSETS[(i + 2 + rep) % 4]
            tp = [500, 0, 1000, 100, 900][(i + rep) % 5]
            cid = sweep_id(
                "filter",
                t,
                "array-array",
                n,
                f"{nulls},mask-{mnulls}",
                f"{off},{moff}",
                rep,
                f"true{tp}",
            )
            mask = gen_input(
                "bool", n, mnulls, moff, cid0 + "#1", role="mask", kind="uniform", true_permille=tp
            )
            add(cid, "filter", {}, "array-array", [values, mask])
            if rep == 1:  # pyarrow's null_selection_behavior="emit_null"
                add(cid + "/emit_null", "filter", EMIT, "array-array", [values, mask])
        add(
            f"filter/{t}/array-array/length-mismatch",
            "filter",
            {},
            "array-array",
            [
                inline(t, [None, None, None]) if t == "bool" else inline(t, [1, 2, 3]),
                inline("bool", [True, False]),
            ],
        )
        add(
            f"filter/{t}/array-array/length-mismatch-empty-mask",
            "filter",
            {},
            "array-array",
            [inline(t, [None]), inline("bool", [])],
        )
    for mt in TYPES[1:]:
        add(
            f"filter/int32/array-array/mask-type-{mt}",
            "filter",
            {},
            "array-array",
            [inline("int32", [1, 2]), inline(mt, [1, 0])],
        )
    for t in ("bool", "int8", "float64", "uint64"):
        for params, suffix in (({}, ""), (EMIT, "/emit_null")):
            add(
                f"filter/{t}/array-array/special/mask-all-null{suffix}",
                "filter",
                params,
                "array-array",
                [inline(t, [None, None, None]) if t == "bool" else inline(t, [1, None, 3]),
                 inline("bool", [None, None, None], 5)],
            )  # fmt: skip
    for t in ("bool", "int8", "float64", "uint64"):
        vals = {
            "bool": [True, False, None, True],
            "int8": [-128, 127, None, 0],
            "float64": [math.nan, -0.0, None, math.inf],
            "uint64": [2**64 - 1, 0, None, 1],
        }[t]
        for off, (params, suffix) in itertools.product(
            (1, 7, 63), (({}, ""), (EMIT, "/emit_null"))
        ):
            add(
                f"filter/{t}/array-array/special/offset{off}{suffix}",
                "filter",
                params,
                "array-array",
                [
                    inline(t, vals * 20, off),
                    inline(
                        "bool",
                        [True, None, False, True, True] * 16,
                        (off * 3) % 64,
                        pad_role="mask",
                    ),
                ],
            )

    # take
    for t in TYPES:
        for it in ("int32", "int64"):
            key = f"take/{t}/{it}"
            for i, n, nulls, off, rep in sweep(key, reps=2):
                # the sweep is over the values; the indices have their own length and pattern
                cid0 = sweep_id("take", t, "array-array", n, nulls, off, rep, "indices-" + it)
                values = gen_input(t, n, nulls, off, cid0 + "#0", **value_kind(t))
                if rep == 0:
                    m = n
                else:
                    m = [3, 64, 1000, min(2 * n + 1, 1000)][i % 4]
                ioff = OFFSETS[(i + 1 + rep) % 4]
                inulls = NULLS[(i + rep) % 3] if m > 1 else "no-nulls"
                if n == 0:
                    inulls = "all-nulls"  # taking from an empty array: only null indices
                cid = f"{cid0}/indices-len{m}-{inulls}-offset{ioff}"
                idx = gen_input(
                    it,
                    m,
                    inulls,
                    ioff,
                    cid0 + "#1",
                    role="index",
                    kind="uniform",
                    lo="0",
                    hi=str(max(n - 1, 0)),
                    null_fill=str(n + 1000),
                )
                add(cid, "take", {}, "array-array", [values, idx])
            # out of bounds: == length, beyond, negative, the most negative, under null (fine)
            ilo, ihi = int_range(it)
            vals = [1, 2, 3, 4, 5]
            for name, idx in (
                ("eq-length", [0, 5]),
                ("beyond", [4, 1000000]),
                ("neg", [-1]),
                ("min", [ilo]),
                ("max", [ihi]),
                ("second-bad", [0, 7, 9]),
            ):
                v = [True, False] * 3 if t == "bool" else vals
                add(
                    f"take/{t}/array-array/oob-{name}/indices-{it}",
                    "take",
                    {},
                    "array-array",
                    [inline(t, v[:5], 1), inline(it, idx, 7, pad_role="index")],
                )
            add(
                f"take/{t}/array-array/empty-values/indices-{it}",
                "take",
                {},
                "array-array",
                [inline(t, []), inline(it, [0])],
            )
            add(
                f"take/{t}/array-array/empty-values-null-index/indices-{it}",
                "take",
                {},
                "array-array",
                [inline(t, []), inline(it, [None], null_fill="5")],
            )
            add(
                f"take/{t}/array-array/oob-under-null/indices-{it}",
                "take",
                {},
                "array-array",
                [
                    inline(t, [True, False, True] if t == "bool" else [7, 8, 9], 7),
                    inline(it, [2, None, 0, None], 1, null_fill="-5"),
                ],
            )
        cid = f"take/{t}/array-array/oob-at-end/len{LARGE}"
        idx = gen_input(
            "int64", LARGE, 10, 7, cid + "#1", role="index", kind="uniform", lo="0", hi="999"
        )
        idx["gen"]["overrides"] = [[LARGE - 1, "1000"]]
        add(
            cid,
            "take",
            {},
            "array-array",
            [gen_input(t, 1000, 0, 0, cid + "#0", **value_kind(t)), idx],
        )
    # pyarrow also takes other integer index types; arrowmetal.h allows only int32 and int64,
    # so those are not generated (pyarrow cannot give their expected result).
    for it in ("float32", "float64", "bool"):
        add(
            f"take/int64/array-array/indices-type-{it}",
            "take",
            {},
            "array-array",
            [inline("int64", [1, 2]), inline(it, [True] if it == "bool" else [1])],
        )

    # slice
    for t in TYPES:
        key = f"slice/{t}"
        for i, n, nulls, off, rep in sweep(key, reps=2):
            choices = [
                (0, n),
                (n // 3, n // 2),
                (n // 2, n),
                (n, 1),
                (n + 3, 2),
                (1, 2**63 - 1),
                (0, 0),
                (max(n - 1, 0), 5),
            ]
            so, sl = choices[(i + 3 * rep + seed_of(key)) % len(choices)]
            cid = sweep_id("slice", t, "unary", n, nulls, off, rep, f"slice{so}+{sl}")
            inp = gen_input(t, n, nulls, off, cid, **value_kind(t))
            add(cid, "slice", {"offset": so, "length": sl}, "unary", [inp])
        for so, sl in ((-1, 2), (0, -1), (-(2**63), 1), (2, -(2**63))):
            add(
                f"slice/{t}/unary/negative/{so}+{sl}",
                "slice",
                {"offset": so, "length": sl},
                "unary",
                [inline(t, [True, None, False] if t == "bool" else [1, None, 3], 1)],
            )
        for so, sl in ((2**63 - 1, 2**63 - 1), (3, 2**63 - 1), (5, 0)):
            add(
                f"slice/{t}/unary/huge/{so}+{sl}",
                "slice",
                {"offset": so, "length": sl},
                "unary",
                [inline(t, [True, None, False] if t == "bool" else [1, None, 3], 7)],
            )


def gen_pinned():
    """Cases whose expected value is ArrowMetal's exact answer where pyarrow rounds on the
    way (conformance/README.md, Divergences: exact-result): the mean of integers divides
    the exact sum once (pyarrow adds the values as float64), and a float sum with
    cancellation where the library's order happens to give the exact sum (pyarrow's
    pairwise order loses a term). Each case records pyarrow's answer beside ours."""
    i64 = [2**63 - 1, -(2**63), 5]
    pinned = [
        ("mean/int64/pinned/extremes-cancel", "mean", "int64", i64, float(Fraction(sum(i64), 3))),
        ("sum/float64/pinned/cancel-1e30", "sum", "float64", [1e30, 1.0, -1e30, 2.0], 3.0),
        ("mean/float64/pinned/cancel-1e30", "mean", "float64", [1e30, 1.0, -1e30, 2.0], 0.75),
    ]
    for cid, op, t, vals, exact in pinned:
        total = sum(Fraction(v) for v in vals)
        assert exact == float(total / len(vals) if op == "mean" else total)
        theirs = getattr(pc, op)(pa.array(vals, type=getattr(pa, t)())).as_py()
        assert theirs != exact, f"{cid}: pyarrow now agrees; the pin is no longer a divergence"
        case = OrderedDict([("id", cid), ("op", op), ("params", {}), ("form", "unary")])
        case["inputs"] = [inline(t, vals)]
        case["expected"] = OrderedDict([("type", "float64"), ("value", exact)])
        case["divergence"] = "exact-result"
        case["pyarrow"] = theirs
        CASES[cid] = case


def file_of(case):
    """The case file (NAME of cases/NAME.json.gz) a case belongs in."""
    return (split_cases.file_of(case) or float16_cases.file_of(case)
            or decimal_cases.file_of(case) or dictionary_cases.file_of(case)
            or timezone_cases.file_of(case) or temporal_cases.file_of(case)
            or view_cases.file_of(case)
            or string_cases.file_of(case) or FILES[case["op"]])  # fmt: skip


def write(out_dir, only=None):
    """One gzip-compressed JSON file per family (cases/NAME.json.gz): compressed, the
    suite stays small enough to travel with the tree; gzip has no timestamp here, so the
    same cases give the same bytes. `only`: that file alone is written, the others kept."""
    files = OrderedDict()
    for case in CASES.values():
        files.setdefault(file_of(case), []).append(case)
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        if name.endswith((".json", ".json.gz")) and only in (None, name.split(".")[0]):
            os.remove(os.path.join(out_dir, name))
    if only is not None:
        files = OrderedDict([(only, files.get(only, []))])
    total = 0
    for name, cases in files.items():
        lines = ['{"format": "arrowmetal-conformance/1", "cases": [']
        for k, case in enumerate(cases):
            sep = "," if k + 1 < len(cases) else ""
            lines.append(json.dumps(case, separators=(",", ":"), allow_nan=False) + sep)
        lines.append("]}\n")
        text = "\n".join(lines).encode("utf-8")
        path = os.path.join(out_dir, name + ".json.gz")
        with open(path, "wb") as f:
            f.write(gzip.compress(text, compresslevel=9, mtime=0))
        size = os.path.getsize(path)
        total += size
        print(f"{name + '.json.gz':<15} {len(cases):6d} cases {size / 1024:8.1f} KiB")
    print(f"total           {len(CASES):6d} cases {total / 1024:8.1f} KiB")


def _replace_block(text, name, lines):
    begin, end = f"<!-- {name}:begin -->\n", f"<!-- {name}:end -->"
    i, j = text.index(begin) + len(begin), text.index(end)
    return text[:i] + "\n".join(lines) + "\n" + text[j:]


def update_readme(path):
    """Rewrites the case-count table of README.md and the matrix rows of the functions
    that come from the library's table (between the markers); the other matrix rows are
    written by hand and checked against the cases by test_suite_claims.py."""
    per_op = OrderedDict((op, 0) for op in FILES)
    for case in CASES.values():
        per_op[case["op"]] += 1
    lines = ["| op | cases |", "| --- | ---: |"]
    lines += [f"| {op} | {n} |" for op, n in per_op.items()]
    lines.append(f"| total | {len(CASES)} |")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = _replace_block(text, "counts", lines)
    m = text[text.index("<!-- matrix:begin -->\n") :].split("\n")[1:]
    rows = []
    for line in m:
        if line.startswith("<!-- matrix:end"):
            break
        rows.append(line)
    table = list(functions.LOGIC) + list(functions.UNARY) + list(functions.BINARY)
    kept = [r for r in rows if r.split("|")[1].strip() not in table]
    derived = [
        f"| {op} | "
        + " | ".join("yes" if functions.accepts(op, t) else "AM_ETYPE" for t in TYPES)
        + " |"
        for op in table
    ]
    after = next(k for k, r in enumerate(kept) if r.startswith("| not |")) + 1
    rows = kept[:after] + derived + kept[after:]
    # The families with case modules of their own: their rows, from the cases, after
    # the others, in this order.
    families = (null_handling, hash_cases, rounding, quantile_cases, cumulative, sort_cases)
    for family in families + (rank_cases, groupby_cases, join_cases, temporal_cases,
                              timezone_cases, string_cases, split_cases, dictionary_cases):  # fmt: skip
        subject = getattr(family, "subject_type", lambda case: case["inputs"][0]["type"])
        ops = getattr(family, "FUNCTIONS", family.OPS)  # strings: utf8_slice_codeunits too
        rows = [r for r in rows if r.split("|")[1].strip() not in ops]
        rows += cf.matrix_rows(CASES, ops, subject)
    text = _replace_block(text, "matrix", rows)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# ---- binary functions of the op table (am_binary) --------------------------------------

BINARY_TRANSCENDENTAL = {"power", "power_checked", "atan2"}


def binary_ranges(op, t):
    """(left kind, right kind) of ordinary values: wide enough to reach every branch, and
    for the checked functions inside the domain (their edges go outside)."""
    left, right = value_kind(t), value_kind(t)
    if t in FLOAT_TYPES:
        if op.startswith("power"):
            left.update(lo=-10.0, hi=10.0)
            right.update(lo=-3.0, hi=3.0)
        return left, right
    lo, hi = int_range(t)
    signed = t in SIGNED_TYPES
    precision = int(t.lstrip("uint")) - (1 if signed else 0)

    def span(a, b):
        return {"kind": "uniform", "lo": str(a), "hi": str(b)}

    if op in ("add_checked", "subtract_checked"):
        if signed:
            return span(lo // 2, hi // 2), span(lo // 2, hi // 2)
        if op == "subtract_checked":
            return span(hi // 2, hi), span(0, hi // 2)
        return span(0, hi // 2), span(0, hi // 2)
    if op == "multiply_checked":
        r = math.isqrt(hi)
        return span(-r if signed else 0, r), span(-r if signed else 0, r)
    if op == "divide_checked":
        return span(lo + 1 if signed else 0, hi), {
            **span(-20 if signed else 1, 20),
            "exclude_zero": True,
        }
    if op.startswith("power"):
        r = round(hi ** (1 / 3))
        while r**3 > hi:
            r -= 1
        return span(-r if signed else 0, r), span(0, 3)
    if op.startswith("shift"):
        return left, span(0, precision - 1)
    if functions.is_math(op) and t in ("int64", "uint64"):
        # Integers a float64 holds exactly (beyond, pyarrow's conversion fails).
        exact = span(-(2**53) if signed else 0, 2**53)
        return exact, dict(exact)
    return left, right


def binary_scalars(op, t):
    if t in FLOAT_TYPES:
        return (
            [2.5, -0.5, 3.0, 0.25, -2.0]
            if op.startswith("power")
            else [2.5, -0.5, 1e10, 3.0, -1.0e-3]
        )
    signed = t in SIGNED_TYPES
    if op.startswith("shift"):
        return [0, 1, 3]
    if op.startswith("power"):
        return [0, 1, 2, 3]
    if op == "divide_checked":
        return [3, 7, 2, 1] + ([-1, -3] if signed else [])
    return [3, 2, 0, 1] + ([-1, -2] if signed else [])


def binary_edges(op, t):
    """Values where a function of two numbers goes wrong, as a cross product."""
    if t in FLOAT_TYPES:
        big = 3.0e38 if t == "float32" else 1.0e300
        return ["-0.0", 0.0, "-inf", "inf", "nan", -1.0, 1.0, -2.5, 2.0, 0.5, big, -big]
    lo, hi = int_range(t)
    if t in SIGNED_TYPES:
        vals = [lo, lo + 1, -2, -1, 0, 1, 2, 3, 7, hi - 1, hi]
    else:
        vals = [0, 1, 2, 3, 7, hi // 2, hi // 2 + 1, hi - 1, hi]
    if op.startswith("shift"):
        bits = int(t.lstrip("uint"))
        vals = sorted(set(vals) | {v for v in (bits - 1, bits, bits + 1) if lo <= v <= hi})
    return [str(v) for v in vals]


def _accepted_pairs(op, t, pairs):
    """The pairs pyarrow computes without an error (for the checked functions' edges)."""
    out = []
    for a, b in pairs:
        try:
            pc.call_function(op, [pa.array([cf.decode_value(t, a)], cf.PA_TYPE[t]),
                                  pa.array([cf.decode_value(t, b)], cf.PA_TYPE[t])])  # fmt: skip
        except pa.ArrowException:
            continue
        out.append((a, b))
    return out


def gen_binary():
    """Every function of the library's am_binary family, from its table: each type it
    takes over the sweep (two arrays, and an array with a scalar), the cross product of
    its edge values (for the checked functions, also the pairs pyarrow accepts), a null
    scalar, mixed input types, and each type it refuses once. Floats of power and atan2
    carry the transcendental functions' tolerance."""
    for op in functions.BINARY:
        for t in TYPES:
            if not functions.accepts(op, t):
                add(f"{op}/{t}/array-array/type-error", op, {}, "array-array",
                    [inline(t, [1, 0]), inline(t, [1, 1])])  # fmt: skip
                continue
            left_kind, right_kind = binary_ranges(op, t)
            for form in ("array-array", "array-scalar"):
                key = f"{op}/{t}/{form}"
                for i, n, nulls, off, rep in sweep(key):
                    cid0 = sweep_id(op, t, form, n, nulls, off, rep)
                    left = gen_input(t, n, nulls, off, cid0 + "#0", **left_kind)
                    if form == "array-array":
                        off2 = OFFSETS[(i + 3) % 4]
                        n2 = other(nulls, i % 2 + 1) if n > 1 else nulls
                        cid = sweep_id(op, t, form, n, f"{nulls},{n2}", f"{off},{off2}")
                        right = gen_input(t, n, n2, off2, cid0 + "#1", role="divisor",
                                          **right_kind)  # fmt: skip
                    else:
                        cid = cid0
                        choices = binary_scalars(op, t)
                        right = scalar(t, choices[(i + seed_of(key)) % len(choices)])
                    add(cid, op, {}, form, [left, right])
            edges = binary_edges(op, t)
            pairs = [(a, b) for a in edges for b in edges]
            sets = [("edges", pairs)]
            if functions.is_checked(op):
                sets.append(("edges-accepted", _accepted_pairs(op, t, pairs)))
            for name, chosen in sets:
                for off in (0, 7):
                    xs = [a for a, _ in chosen] + [None, edges[0]]
                    ys = [b for _, b in chosen] + [edges[-1], None]
                    add(f"{op}/{t}/array-array/{name}/offset{off}", op, {}, "array-array",
                        [inline(t, xs, off), inline(t, ys, 63 - off, pad_role="divisor")])  # fmt: skip
            add(f"{op}/{t}/array-scalar/null-scalar", op, {}, "array-scalar",
                [inline(t, edges[:3]), scalar(t, None)])  # fmt: skip
        for a, b in (
            ("int8", "uint8"),
            ("int32", "float64"),
            ("uint16", "int64"),
            ("int64", "float32"),
        ):
            if functions.accepts(op, a) and functions.accepts(op, b):
                add(f"{op}/{a},{b}/array-array/mixed", op, {}, "array-array",
                    [inline(a, ["1", "2", "3", None]), inline(b, ["3", "0", "1", "2"])])  # fmt: skip
        add(f"{op}/int32/array-array/length-mismatch", op, {}, "array-array",
            [inline("int32", ["1", "2"]), inline("int32", ["1"])])  # fmt: skip


# The families with a case file of their own, which --only regenerates alone.
OWN_FILES = {family.FILE: family for family in (temporal_cases, timezone_cases, string_cases,
                                                dictionary_cases, decimal_cases, view_cases,
                                                float16_cases, split_cases)}  # fmt: skip


def regenerate_only(name, out_dir):
    """Regenerates cases/NAME.json.gz alone: every other file's cases are read as they
    are (so README.md's counts cover them), NAME's family generates its own, each of
    which must belong in NAME. Cases other generators put in NAME (strings.json holds
    string-keyed sorts, group-bys and joins) are kept: those of an op the family did not
    generate this time."""
    import glob

    own = []
    for path in sorted(glob.glob(os.path.join(out_dir, "*.json.gz"))):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            cases = json.load(f)["cases"]
        if os.path.basename(path) == name + ".json.gz":
            own = cases
        else:
            CASES.update((case["id"], case) for case in cases)
    kept = set(CASES)
    OWN_FILES[name].gen(sys.modules[__name__])
    strays = [cid for cid, case in CASES.items() if cid not in kept and file_of(case) != name]
    assert not strays, f"cases of --only {name} that belong in other files: {strays[:5]}"
    new = [(cid, CASES.pop(cid)) for cid in list(CASES) if cid not in kept]
    made, new_ids = {case["op"] for _, case in new}, {cid for cid, _ in new}
    # first, as a whole regeneration orders them (their generators run earlier)
    CASES.update((c["id"], c) for c in own if c["op"] not in made and c["id"] not in new_ids)
    CASES.update(new)
    write(out_dir, only=name)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=os.path.join(HERE, "cases"))
    ap.add_argument("--only", choices=sorted(OWN_FILES),
                    help="regenerate this family's case file alone, the others kept")  # fmt: skip
    args = ap.parse_args()
    if args.only:
        regenerate_only(args.only, args.out)
        write_ipc.write(args.out, write_ipc.DEFAULT_OUT)
        update_readme(os.path.join(HERE, "README.md"))
        return
    gen_reductions()
    gen_pinned()
    gen_compare()
    gen_arith()
    gen_cast()
    gen_cast_allow()
    gen_logic()
    gen_logic_table()
    gen_unary()
    gen_binary()
    gen_select()
    gen_aggregates.generate(sys.modules[__name__])
    null_handling.gen(sys.modules[__name__])  # null handling
    hash_cases.gen(sys.modules[__name__])  # hash-based functions
    rounding.gen(sys.modules[__name__])
    quantile_cases.gen(sys.modules[__name__])  # quantiles
    cumulative.gen(sys.modules[__name__])
    sort_cases.gen(sys.modules[__name__])
    groupby_cases.gen(sys.modules[__name__])
    join_cases.gen(sys.modules[__name__])
    rank_cases.gen(sys.modules[__name__])
    temporal_cases.gen(sys.modules[__name__])
    timezone_cases.gen(sys.modules[__name__])  # time zones (issue #13)
    string_cases.gen(sys.modules[__name__])  # strings and binary (issue #13)
    dictionary_cases.gen(sys.modules[__name__])  # dictionary arrays (issue #13)
    decimal_cases.gen(sys.modules[__name__])  # decimals (issue #13)
    view_cases.gen(sys.modules[__name__])  # string_view / binary_view (issue #13)
    float16_cases.gen(sys.modules[__name__])  # float16 (issue #13)
    split_cases.gen(sys.modules[__name__])  # splitting (issue #13)
    write(args.out)
    write_ipc.write(args.out, write_ipc.DEFAULT_OUT)  # the same cases in Arrow IPC
    update_readme(os.path.join(HERE, "README.md"))


if __name__ == "__main__":
    main()
