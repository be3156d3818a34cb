"""The cumulative functions in the conformance suite: how
generate.py makes their cases (``gen``, with generate.py's own helpers passed in as
``g``), how pyarrow.compute evaluates them (``evaluate``), and how a runner calls the
C ABI for them (``call``).

Ops: cumulative_sum, cumulative_sum_checked, cumulative_prod, cumulative_prod_checked,
cumulative_min, cumulative_max, cumulative_mean, each through
``am_cumulative(op, array, start, skip_nulls, out)``. Params: ``{"skip_nulls": bool}``
(pyarrow's CumulativeOptions.skip_nulls). Form ``unary`` (no start: NULL) or
``array-scalar`` (the scalar input is ``start``, of the values' type; a null one is
pyarrow's "no start").

Tolerance: float sums, products and means (and means of integers, summed in float64)
are exact on the CPU, which scans in pyarrow's order, but a GPU's parallel scan rounds
differently. Those cases carry ``{"rel": r, "abs": a}``: a slot may differ from
pyarrow's by ``a + r * |expected|``, with ``a`` scaled by the running magnitude
(``eps * n * sum |x|`` for sums, ``eps * n * max |x|`` for means) and ``r`` by the
number of factors (``2 * n * eps`` for products). Min and max are exact everywhere.
"""

import math

import casefmt as cf
from casefmt import FLOAT_TYPES, TYPES

# pyarrow name -> am_cumulative_op value.
OPS_BY_NAME = {
    "cumulative_sum": 0,
    "cumulative_sum_checked": 1,
    "cumulative_prod": 2,
    "cumulative_prod_checked": 3,
    "cumulative_min": 4,
    "cumulative_max": 5,
    "cumulative_mean": 6,
}
OPS = list(OPS_BY_NAME)
FILE = "cumulative"
EPS = {"float32": 2.0**-24, "float64": 2.0**-53}
TINY = {"float32": 1.2e-38, "float64": 2.3e-308}


# ---- pyarrow ---------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow.compute as pc

    start = args[1] if len(args) > 1 else None
    options = pc.CumulativeOptions(start=start, skip_nulls=params.get("skip_nulls", False))
    return pc.call_function(op, [args[0]], options)


# ---- the C ABI ---------------------------------------------------------------------------


def call(case, arrays, scalars, out):
    """(function name, status, out) of the case's call."""
    from amabi import ffi, lib

    start = scalars[0] if scalars else ffi.NULL
    skip = 1 if case["params"].get("skip_nulls") else 0
    rc = lib.am_cumulative(OPS_BY_NAME[case["op"]], arrays[0], start, skip, out)
    return "am_cumulative", rc, out


# ---- tolerance ---------------------------------------------------------------------------


def tolerance(case, result):
    """The case's {"rel", "abs"} where a parallel scan may round differently, else None."""
    op = case["op"]
    if result is None or "error" in case["expected"] or op in ("cumulative_min", "cumulative_max"):
        return None
    t = case["inputs"][0]["type"]
    if t not in FLOAT_TYPES and op != "cumulative_mean":
        return None  # integers wrap or fail exactly
    vals = [float(v) for v in cf.input_values(case["inputs"][0]) if v is not None]
    if len(case["inputs"]) > 1:
        s = case["inputs"][1]["scalar"]
        if s["value"] is not None:
            vals.append(float(cf.decode_value(t, s["value"])))
    finite = [abs(v) for v in vals if math.isfinite(v)]
    if not finite:
        return None
    n = len(vals) + 1
    eps = EPS.get(t, EPS["float64"])
    if op == "cumulative_mean":
        return {"rel": 0.0, "abs": min(EPS["float64"] * n * max(finite), 1e308)}
    if op in ("cumulative_sum", "cumulative_sum_checked"):
        return {"rel": 0.0, "abs": min(eps * n * sum(finite), 1e308)}
    return {"rel": 2.0 * n * eps, "abs": TINY[t]}  # products: no cancellation


# ---- order-robust inputs ----------------------------------------------------------------

# The largest finite value of each float type and its ulp, and the least normal magnitude.
FLOAT_MAX = {"float32": (2 - 2.0**-23) * 2.0**127, "float64": (2 - 2.0**-52) * 2.0**1023}
MAX_ULP = {"float32": 2.0**104, "float64": 2.0**971}
MIN_NORMAL = {"float32": 2.0**-126, "float64": 2.0**-1022}
ORDER_OPS = (
    "cumulative_sum",
    "cumulative_sum_checked",
    "cumulative_prod",
    "cumulative_prod_checked",
)


def order_robust(op, t, values, start=None, skip_nulls=True):
    """Whether a scan of these float values can only round differently in another order,
    never overflow or underflow differently (the scan-order divergence's premise, as for
    the product-order one): no run of consecutive finite valid values (the start first)
    sums beyond the largest finite value plus a quarter ulp (for sums; exactly, in
    integers), or multiplies out of the normal range (for products, zeros left out: a
    run's product with a zero is 0 in any order, but a run without one could overflow
    and meet that zero as 0 * inf = NaN). Every run of a parallel scan's partials is such
    a run. Non-finite inputs then act alike in any order. The runs end at the first NaN,
    after which every order gives NaN, and without skip_nulls at the first null, after
    which every result is null."""
    if t not in FLOAT_TYPES or op not in ORDER_OPS + ("cumulative_mean",):
        return True
    if op == "cumulative_mean":
        if t != "float64":
            return True  # float32 values summed in float64 cannot overflow
        op = "cumulative_sum"
    xs = []
    for v in ([start] if start is not None else []) + list(values):
        if v is None and not skip_nulls:
            break
        if v is not None and math.isnan(float(v)):
            break
        if v is not None and math.isfinite(float(v)):
            xs.append(float(v))
    if op.startswith("cumulative_sum"):
        scale = 2**1074  # every float is an integer multiple of 2^-1074
        limit = (int(FLOAT_MAX[t]) + int(MAX_ULP[t]) // 4) * scale
        run = low = high = 0
        for x in xs:
            num, den = x.as_integer_ratio()
            run += num * (scale // den)
            if run - low > limit or high - run > limit:
                return False
            low, high = min(low, run), max(high, run)
        return True
    top, bottom = math.log2(FLOAT_MAX[t]) - 1, math.log2(MIN_NORMAL[t]) + 1
    run = low = high = 0.0
    for x in xs:
        if x == 0:
            continue
        run += math.log2(abs(x))
        if run - low > top or run - high < bottom:
            return False
        low, high = min(low, run), max(high, run)
    return True


def robust_input(g, op, t, n, permille, off, cid, kind, start, skip_nulls):
    """The sweep input of kind `kind`, or, where its scan could overflow or underflow
    differently in another order (order_robust), the first of milder kinds that cannot:
    moderate sums, products near 1."""
    fallbacks = [kind]
    if t in FLOAT_TYPES and op in ORDER_OPS + ("cumulative_mean",):
        if op.startswith("cumulative_prod"):
            fallbacks += [{"kind": "uniform", "lo": 0.9, "hi": 1.1},
                          {"kind": "uniform", "lo": 0.99, "hi": 1.01}]  # fmt: skip
        else:
            fallbacks += [{"kind": "uniform", "lo": -1000.0, "hi": 1000.0}]
    for k in fallbacks:
        inp = g.gen_input(t, n, permille, off, cid, **k)
        if order_robust(op, t, cf.input_values(inp), start, skip_nulls):
            return inp
    raise AssertionError(f"{cid}: no order-robust input")


# ---- cases -------------------------------------------------------------------------------


def value_kind(g, op, t, rep, n=0):
    """gen parameters of a sweep input: the whole range for the wrapping sums and
    products, min and max, and the mean; small values where a checked op should
    mostly succeed; values near 1 for float products in the second rep."""
    if t in FLOAT_TYPES:
        if op.startswith("cumulative_prod") and rep == 1:
            return {"kind": "uniform", "lo": 0.9, "hi": 1.1}
        if rep == 1:
            return {"kind": "choice", "choices": g.compare_choices(t)}
        return {"kind": "uniform", "lo": -1000.0, "hi": 1000.0}
    lo, _ = cf.int_range(t)
    if op.endswith("_checked") and lo == 0 and n >= 100000:
        # the long unsigned inputs stay in range (16 bits hold the sum of 1/8 ones)
        return {"kind": "choice", "choices": ["0"] * 7 + ["1"] if "sum" in op else ["1"]}
    if op == "cumulative_sum_checked":
        return {"kind": "uniform", "lo": str(max(lo, -3)), "hi": "3"}
    if op == "cumulative_prod_checked":
        return {"kind": "choice", "choices": ["1", "1", "1", "2"] if lo == 0 else ["1", "-1", "1"]}
    if rep == 1:
        return {"kind": "choice", "choices": g.compare_choices(t)}
    return {"kind": "uniform"}


def edges(t):
    """Inline values: the type's extremes (wrap and overflow), NaN, infinities, -0.0."""
    if t in FLOAT_TYPES:
        big = 3.4028234663852886e38 if t == "float32" else 1.7976931348623157e308
        return [1.5, "-0.0", 0.0, "nan", 2.0, None, "inf", -big, big, "-inf", -2.5, "-0.0"]
    lo, hi = cf.int_range(t)
    return [str(hi), "1", None, str(lo), "2", "0", str(hi), "-1" if lo < 0 else "3", str(lo)]


def starts(t):
    """Start values: ordinary ones and those a checked op overflows from."""
    if t in FLOAT_TYPES:
        return [2.5, "-0.0", "nan", "inf", "-inf", None]
    lo, hi = cf.int_range(t)
    return ["3", str(hi), str(lo), "0", None] + (["-3"] if lo < 0 else [])


def gen(g):
    for op in OPS:
        for t in TYPES:
            if t == "bool":
                g.add(f"{op}/bool/unary/type-error", op, {}, "unary",
                      [g.inline("bool", [True, None, False])])  # fmt: skip
                continue
            for skip in (False, True):
                params = {"skip_nulls": skip}
                sfx = "/skip_nulls" if skip else ""
                for i, n, nulls, off, rep in g.sweep(f"{op}/{t}{sfx}", reps=2):
                    # skip_nulls=false ends at the first null: the second rep's nulls are
                    # rare (2 per mille), so long inputs get far before it.
                    permille = 2 if rep == 1 and nulls == "some-nulls" and not skip else nulls
                    cid = g.sweep_id(op, t, "unary", n, nulls, off, rep) + sfx
                    kind = value_kind(g, op, t, rep, n)
                    if i % 3 == 2 and n > 0:  # a start value, of the values' type
                        st = starts(t)[i % len(starts(t))]
                        value = cf.decode_value(t, st) if st is not None else None
                        inp = robust_input(g, op, t, n, permille, off, cid, kind, value, skip)
                        g.add(cid + "/start", op, params, "array-scalar",
                              [inp, g.scalar(t, value)])  # fmt: skip
                    else:
                        inp = robust_input(g, op, t, n, permille, off, cid, kind, None, skip)
                        g.add(cid, op, params, "unary", [inp])
                for off in (0, 7, 63):
                    g.add(f"{op}/{t}/unary/edges/offset{off}{sfx}", op, params, "unary",
                          [g.inline(t, edges(t) * 7, off)])  # fmt: skip
                for k, st in enumerate(starts(t)):
                    value = cf.decode_value(t, st) if st is not None else None
                    vals = [v for v in edges(t) if v is not None][:4] + ["1", None, "2"]
                    if t in FLOAT_TYPES:
                        vals = [1.5, None, -2.0, "nan", 0.5]
                    g.add(f"{op}/{t}/array-scalar/start{k}-{cf.encode_value(t, value)}{sfx}", op,
                          params, "array-scalar", [g.inline(t, vals, 3), g.scalar(t, value)])  # fmt: skip
                    g.add(f"{op}/{t}/array-scalar/start{k}-ones{sfx}", op, params,
                          "array-scalar", [g.inline(t, ["1"] * 3 if t not in FLOAT_TYPES else [1.0] * 3),
                                           g.scalar(t, value)])  # fmt: skip
                g.add(f"{op}/{t}/unary/no-bitmap{sfx}", op, params, "unary",
                      [g.inline(t, ["1", "2", "3"] if t not in FLOAT_TYPES else [1.0, 2.0, 3.0])])  # fmt: skip
                g.add(f"{op}/{t}/unary/all-null{sfx}", op, params, "unary",
                      [g.inline(t, [None] * 70, 3)])  # fmt: skip
                g.add(f"{op}/{t}/unary/leading-nulls{sfx}", op, params, "unary",
                      [g.inline(t, [None] * 66 + (["1", "2"] if t not in FLOAT_TYPES else [1.0, 2.0]) * 40, 1)])  # fmt: skip
                if t not in FLOAT_TYPES:  # overflow deep in a long input, past the pool's parts
                    lo, hi = cf.int_range(t)
                    g.add(f"{op}/{t}/unary/late-extreme{sfx}", op, params, "unary",
                          [g.inline(t, ["0"] * 900 + [str(hi), "1", str(lo), "1"] + [None] + ["1"] * 50, 5)])  # fmt: skip


# ---- the README's matrix -----------------------------------------------------------------
