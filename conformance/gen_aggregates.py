"""The cases of the aggregates with options (am_aggregate, am_min_max, am_first_last,
am_index): any, all, product, min_max, variance, stddev, first, last, first_last, index.

generate.py calls `generate(g)` with itself as `g` (its add, gen_input, inline, sweep,
...), and asks `evaluate` and `tolerance` about these ops. Expected values come from
pyarrow.compute as everywhere; index is evaluated through its kernel
(call_function("index", IndexOptions(value))), which is what am_index mirrors (the Python
wrapper pyarrow.compute.index first converts the value to the array's type).

Per function and accepted type: a sweep over the lengths, null patterns and offsets with
the default options (params {}: the runner passes NULL options), the option grids on
small inputs (skip_nulls both ways x min_count 0, 1, 3 and 2^32 - 1; variance and stddev
also ddof 0, 1, 5 and -1), special values, and a type error for each type refused."""

import math
from collections import OrderedDict

import casefmt as cf
import pyarrow.compute as pc
from casefmt import FLOAT_TYPES, INT_TYPES, NUMERIC_TYPES, SIGNED_TYPES, TYPES, int_range

# op -> the pyarrow.compute function of one array and options.
SCALAR_AGGREGATE = OrderedDict(
    [
        ("any", pc.any),
        ("all", pc.all),
        ("product", pc.product),
        ("min_max", pc.min_max),
        ("first", pc.first),
        ("last", pc.last),
        ("first_last", pc.first_last),
    ]
)
MOMENTS = OrderedDict([("variance", pc.variance), ("stddev", pc.stddev)])
OPS = list(SCALAR_AGGREGATE) + list(MOMENTS) + ["index"]
# The divergence each tolerated op's cases name (conformance/README.md, Divergences).
DIVERGENCE = {"product": "product-order", "variance": "moments", "stddev": "moments"}
# Functions of two results: pyarrow's StructScalar fields, in order.
FIELDS = {"min_max": ("min", "max"), "first_last": ("first", "last")}

U32_MAX = 2**32 - 1
SA_GRID = [(s, m) for s in (True, False) for m in (0, 1, 3, U32_MAX)]
VAR_GRID = [(s, m, d) for s in (True, False) for m in (0, 3) for d in (0, 1)]
VAR_GRID += [(True, 0, 5), (True, 0, -1), (False, 0, -1), (True, U32_MAX, 0)]

# Floats rounded in a different order differ in the last bits: products (pyarrow
# multiplies in slot order, a GPU in block order) and moments (pyarrow's two passes
# against Chan-merged blocks) are compared within a tolerance.
REL = 1e-9
EPS = 2.0**-52


def accepts(op, t):
    """Whether pyarrow has a kernel of `op` for type `t` (the op table's kinds too)."""
    if op in ("any", "all"):
        return t == "bool"
    if op in MOMENTS:
        return t != "bool"
    return True


def evaluate(op, params, args):
    if op == "index":
        return pc.call_function("index", [args[0]], pc.IndexOptions(value=args[1]))
    if op in MOMENTS:
        return MOMENTS[op](args[0], **params)
    return SCALAR_AGGREGATE[op](args[0], **params)


def expected_struct(op, result):
    """The expected record of a two-result function: each field as a scalar result."""
    fields = OrderedDict()
    for name in FIELDS[op]:
        v = result[name]
        t = cf.type_name(v.type)
        fields[name] = OrderedDict([("type", t), ("value", cf.encode_value(t, v.as_py()))])
    return {"fields": fields}


def tolerance(case, result):
    """Float products, variances and standard deviations: |got - exp| <= abs + rel*|exp|
    (see conformance/README.md, Divergences)."""
    op = case["op"]
    if result is None or "error" in case["expected"] or op not in ("product", *MOMENTS):
        return None
    t = case["inputs"][0]["type"]
    if op == "product":
        return OrderedDict([("rel", REL), ("abs", 0.0)]) if t in FLOAT_TYPES else None
    want = result.as_py()
    vals = [v for v in cf.input_values(case["inputs"][0]) if v is not None]
    if want is None or not math.isfinite(want) or not vals:
        return None
    # Rounding of a stable algorithm in M2's units: each square of a deviation from a
    # mean that is off by a few ulps of the largest value; over ddof's divisor too.
    big = max(abs(float(v)) for v in vals)
    divisor = max(len(vals) - case["params"].get("ddof", 0), 1)
    floor = 16.0 * len(vals) * (EPS * big) ** 2 / divisor
    if op == "variance":
        return OrderedDict([("rel", REL), ("abs", floor)])
    # sqrt moves an error e of the variance v by e / (2 sqrt v) at most, and by sqrt(e)
    # near zero: the smaller bound holds.
    var = want * want
    e = floor + REL * var
    return OrderedDict(
        [("rel", 0.0), ("abs", min(math.sqrt(e), e / want) if want else math.sqrt(e))]
    )


def product_kind(t):
    """Values whose products stay interesting over 100,003 slots: odd integers (their
    product never reaches 0 modulo 2^64, so every wrap counts), floats of modest size."""
    if t == "bool":
        return {"kind": "uniform", "true_permille": 999}
    if t in FLOAT_TYPES:
        return {"kind": "choice", "choices": [0.5, 2.0, -1.0, 1.0, 1.25, 0.8, -1.5, 3.0, 1 / 3]}
    lo, hi = int_range(t)
    if t in SIGNED_TYPES:
        choices = [-7, -5, -3, -1, 1, 3, 5, 7, hi, lo + 1]
    else:
        choices = [1, 3, 5, 7, hi, hi - 2]
    return {"kind": "choice", "choices": [str(v) for v in choices]}


def index_value(g, t, inp, k):
    """The value a sweep case looks for: one present (a valid slot's, which may also
    occur earlier) or, every third case, one the data cannot hold (or null)."""
    vals = cf.input_values(inp)
    present = [v for v in vals if v is not None]
    if k % 3 == 2 or not present:
        if t == "bool":
            return None
        if t in FLOAT_TYPES:
            return 1.0e30 if t == "float64" else 3.0e37
        return int_range(t)[1] if k % 2 else None  # uniform data rarely holds the maximum
    return present[(len(present) * 2) // 3]


def value_kind(g, op, t, i):
    if op == "product":
        return product_kind(t)
    if op in ("any", "all"):
        # Rotate how many slots are true so that every answer occurs at every length.
        permille = [0, 1, 500, 999, 1000][i % 5]
        return {"kind": "uniform", "true_permille": permille}
    return g.value_kind(t)


def params_of(op, skip_nulls, min_count, ddof=None):
    p = OrderedDict([("skip_nulls", skip_nulls), ("min_count", min_count)])
    if ddof is not None:
        p["ddof"] = ddof
    return p


def small_inputs(g, op, t):
    """The inputs of the option grids: some nulls, none, all, empty."""
    kind = value_kind(g, op, t, 2)
    key = f"{op}/{t}/grid"
    return [
        ("some-nulls", g.gen_input(t, 7, "some-nulls", 1, key + "#some", **kind)),
        ("no-nulls", g.gen_input(t, 4, "no-nulls", 0, key + "#none", **kind)),
        ("all-nulls", g.gen_input(t, 3, "all-nulls", 7, key + "#all", **kind)),
        ("empty", g.gen_input(t, 0, "no-nulls", 0, key + "#empty", **kind)),
    ]


def gen_sweeps(g):
    for op in OPS:
        for t in TYPES:
            if not accepts(op, t):
                inp = g.inline(t, [True, False] if t == "bool" else [1, 0])
                inputs = [inp, g.scalar(t, True if t == "bool" else 1)] if op == "index" else [inp]
                form = "array-scalar" if op == "index" else "unary"
                g.add(f"{op}/{t}/{form}/type-error", op, {}, form, inputs)
                continue
            key = f"{op}/{t}"
            for i, n, nulls, off, rep in g.sweep(key):
                form = "array-scalar" if op == "index" else "unary"
                cid = g.sweep_id(op, t, form, n, nulls, off, rep)
                inp = g.gen_input(t, n, nulls, off, cid, **value_kind(g, op, t, i))
                if op == "index":
                    value = index_value(g, t, inp, i)
                    cid += f"/value-{cf.encode_value(t, value)}"
                    g.add(cid, op, {}, form, [inp, g.scalar(t, value)])
                else:
                    g.add(cid, op, {}, form, [inp])
            if op in ("any", "all", "first", "last", "first_last", "variance"):
                # The same sweep with skip_nulls false (Kleene logic, the end slots, ...)
                # and, for variance, ddof 1.
                p = params_of(
                    op, False, 1 if op not in MOMENTS else 0, 1 if op in MOMENTS else None
                )
                for i, n, nulls, off, rep in g.sweep(key + "/kleene"):
                    cid = g.sweep_id(op, t, "unary", n, nulls, off, rep, "skip_nulls-false")
                    inp = g.gen_input(t, n, nulls, off, cid, **value_kind(g, op, t, i + 1))
                    g.add(cid, op, p, "unary", [inp])


def gen_grids(g):
    for op in OPS:
        if op == "index":
            continue
        for t in TYPES:
            if not accepts(op, t):
                continue
            for name, inp in small_inputs(g, op, t):
                if op in MOMENTS:
                    for s, m, d in VAR_GRID:
                        cid = f"{op}/{t}/unary/options/{name}/skip_nulls-{s}/min_count-{m}/ddof-{d}"
                        g.add(cid, op, params_of(op, s, m, d), "unary", [inp])
                else:
                    for s, m in SA_GRID:
                        cid = f"{op}/{t}/unary/options/{name}/skip_nulls-{s}/min_count-{m}"
                        g.add(cid, op, params_of(op, s, m), "unary", [inp])


def gen_specials(g):
    nan, inf = math.nan, math.inf
    # Values whose answers do not depend on the order of a float computation (an order
    # that overflows in one association and not in another is not generated).
    float_sets = {
        "nan": [nan, 1.0, 2.0],
        "all-nan": [nan, nan],
        "nan-and-null": [None, nan],
        "inf": [inf, 1.0, -3.0],
        "inf-minus-inf": [inf, -inf, 1.0],
        "inf-times-zero": [inf, 0.0, 2.0],
        "neg-zero": [-0.0, 1.0, 2.0],
        "neg-zeros": [-0.0, -0.0],
        "large-mean-small-spread": [1.0e9 + 1, 1.0e9 + 2, 1.0e9 + 3, None],
        "subnormal": [5e-324, 1e-310, -5e-324],
        "tenths": [0.1] * 1000,
        "nan-last": [1.0, 2.0, nan],
    }
    for t in FLOAT_TYPES:
        for name, vals in float_sets.items():
            if t == "float32":
                vals = [None if v is None else cf.f32(v) for v in vals]
                if name == "subnormal":
                    vals = [1e-45, 1e-40, -1e-45]
            for op in ("product", "min_max", "variance", "stddev", "first", "last", "first_last"):
                for off in (0, 7):
                    g.add(f"{op}/{t}/unary/special/{name}/offset{off}", op, {}, "unary",
                          [g.inline(t, vals, off)])  # fmt: skip
        for name2, (vals2, value) in {
            "nan": ([1.0, nan, 2.0], nan),
            "neg-zero-finds-zero": ([1.0, 0.0, -0.0], -0.0),
            "zero-finds-neg-zero": ([1.0, -0.0, 0.0], 0.0),
            "inf": ([1.0, -inf, inf], inf),
            "under-null": ([None, 2.5, 2.5], 2.5),
        }.items():
            if t == "float32":
                vals2 = [None if v is None else cf.f32(v) for v in vals2]
            g.add(f"index/{t}/array-scalar/special/{name2}", "index", {}, "array-scalar",
                  [g.inline(t, vals2, 3), g.scalar(t, value)])  # fmt: skip
    for t in INT_TYPES:
        lo, hi = int_range(t)
        sets = {
            "extremes": [lo, hi, lo, hi, 0],
            "max-twice": [hi, hi],
            "min-twice": [lo, lo],
            "with-zero": [hi, 0, hi - 1],
            "minus-one": [-1, lo, hi] if t in SIGNED_TYPES else [1, lo, hi],
            "hundreds": [100, 100, 100, 100] if hi >= 100 else [hi, hi],
            "powers-of-two": [2 ** (cf.BITS[t] // 2), 2 ** (cf.BITS[t] // 2), 3],
        }
        for name, vals in sets.items():
            for op in ("product", "min_max", "variance", "stddev", "first", "last", "first_last"):
                for off in (0, 1):
                    g.add(f"{op}/{t}/unary/special/{name}/offset{off}", op, {}, "unary",
                          [g.inline(t, vals, off)])  # fmt: skip
        for name2, (vals2, value) in {
            "lowest": ([0, lo, lo], lo),
            "highest": ([hi, 0, hi], hi),
            "under-null": ([None, 5, 5], 5),
            "null-value": ([0, 1, None], None),
            "absent": ([0, 1, 2], 3),
        }.items():
            g.add(f"index/{t}/array-scalar/special/{name2}", "index", {}, "array-scalar",
                  [g.inline(t, vals2, 1), g.scalar(t, value)])  # fmt: skip
        # A value of another type is refused by the kernel (pyarrow.compute.index
        # converts it first, in Python).
        other = "int64" if t != "int64" else "int32"
        g.add(f"index/{t}/array-scalar/value-type-{other}", "index", {}, "array-scalar",
              [g.inline(t, [1, 2]), g.scalar(other, 1)])  # fmt: skip
        # Wrapping products of many extremes, inline and generated.
        for n in (1000, g.LARGE):
            cid = f"product/{t}/unary/extremes-choice/len{n}"
            choices = [str(v) for v in (lo, hi, hi - 1, 1, lo + 1)]
            g.add(
                cid,
                "product",
                {},
                "unary",
                [g.gen_input(t, n, 50, 3, cid, kind="choice", choices=choices)],
            )
    for name, vals in {
        "true-null": [True, None],
        "false-null": [False, None],
        "null-true": [None, True],
        "null-false": [None, False],
        "all-true": [True] * 65,
        "all-false": [False] * 64,
        "one-false-at-end": [True] * 64 + [False],
        "one-true-at-end": [False] * 64 + [True],
    }.items():
        for op in ("any", "all", "product", "min_max", "first", "last", "first_last"):
            for s in (True, False):
                g.add(f"{op}/bool/unary/special/{name}/skip_nulls-{s}", op,
                      params_of(op, s, 1), "unary", [g.inline("bool", vals, 5)])  # fmt: skip
    for name2, (vals2, value) in {
        "true": ([False, None, True, True], True),
        "false": ([True, None, False], False),
        "absent": ([True, True], False),
        "null-value": ([True, None], None),
    }.items():
        g.add(f"index/bool/array-scalar/special/{name2}", "index", {}, "array-scalar",
              [g.inline("bool", vals2, 9), g.scalar("bool", value)])  # fmt: skip
    g.add("index/int32/array-scalar/value-type-float64", "index", {}, "array-scalar",
          [g.inline("int32", [1, 2]), g.scalar("float64", 1.0)])  # fmt: skip
    # A slot of the padding before the offset holds the value: never found.
    for t in NUMERIC_TYPES:
        g.add(f"index/{t}/array-scalar/only-in-padding", "index", {}, "array-scalar",
              [g.inline(t, [0, 0], 5), g.scalar(t, g.poison(t, "value")[1])])  # fmt: skip


def generate(g):
    gen_sweeps(g)
    gen_grids(g)
    gen_specials(g)
