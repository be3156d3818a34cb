"""quantile, tdigest and approximate_median in the conformance suite (branch
quantile): how generate.py makes their cases (``gen``, with generate.py's
helpers passed in as ``g``), how pyarrow.compute evaluates them (``evaluate``)
and how a runner calls the C ABI for them (``call``).

Params: ``q`` (a list), quantile's ``interpolation`` (pyarrow's name),
tdigest's ``delta`` and ``buffer_size``, and ``skip_nulls`` / ``min_count``;
pyarrow's defaults where absent. Every case is form ``unary`` and expects an
array: approximate_median's Scalar is recorded as an array of one slot, which
is what am_tdigest with q = {0.5} gives.

The t-digest here builds pyarrow's digest (the same buffers, merges and
interpolation), so tdigest cases are exact at every length. -0.0 and 0.0 are
ordered by pyarrow's selection in a way that depends on their positions
(ArrowMetal ranks -0.0 first): no case mixes both where a zero is returned.
"""

import casefmt as cf
from casefmt import FLOAT_TYPES

OPS = ["quantile", "tdigest", "approximate_median"]
FILE = "quantile"
INTERPOLATIONS = ["linear", "lower", "higher", "nearest", "midpoint"]
NUMERIC = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64"]  # fmt: skip
Q_LISTS = {
    "median": [0.5],
    "spread": [0.0, 0.25, 0.5, 0.99, 1.0],
    "unsorted-dup": [0.75, 0.1, 0.75, 0.0, 1.0, 0.333],
}


# ---- pyarrow -------------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow as pa
    import pyarrow.compute as pc

    common = {k: params[k] for k in ("skip_nulls", "min_count") if k in params}
    q = [float(v) for v in params.get("q", [])]
    if op == "quantile":
        return pc.quantile(args[0], q=q,
                           interpolation=params.get("interpolation", "linear"), **common)  # fmt: skip
    if op == "tdigest":
        extra = {k: params[k] for k in ("delta", "buffer_size") if k in params}
        return pc.tdigest(args[0], q=q, **extra, **common)
    if op == "approximate_median":
        r = pc.approximate_median(args[0], **common)
        return pa.array([r.as_py()], pa.float64())
    raise AssertionError(op)


def map_error(exc):
    import pyarrow as pa

    msg = str(exc)
    if isinstance(exc, pa.ArrowInvalid) and (
        msg == "Quantile must be between 0 and 1" or msg == "Requires quantile argument"
    ):
        return "AM_EINVAL"
    return None


# ---- the C ABI --------------------------------------------------------------------------------


def call(case, arrays, scalars, out):
    from amabi import ffi, lib

    op, p = case["op"], case["params"]
    skip = int(p.get("skip_nulls", True))
    if op == "approximate_median":
        q = ffi.new("double[]", [0.5])
        rc = lib.am_tdigest(arrays[0], q, 1, 100, 500, skip, p.get("min_count", 1), out)
        return "am_tdigest", rc, out
    qs = [float(v) for v in p["q"]]
    q = ffi.new("double[]", qs or [0.0])
    if op == "quantile":
        interp = INTERPOLATIONS.index(p.get("interpolation", "linear"))
        rc = lib.am_quantile(arrays[0], q, len(qs), interp, skip, p.get("min_count", 0), out)
        return "am_quantile", rc, out
    rc = lib.am_tdigest(arrays[0], q, len(qs), p.get("delta", 100), p.get("buffer_size", 500),
                        skip, p.get("min_count", 0), out)  # fmt: skip
    return "am_tdigest", rc, out


# ---- cases -----------------------------------------------------------------------------------


def special(t):
    """Edge values of type t (no mix of -0.0 and 0.0: see the module's note)."""
    if t in FLOAT_TYPES:
        big = 3.4028234663852886e38 if t == "float32" else 1.7976931348623157e308
        return ["nan", None, "inf", "-inf", "-0.0", -1.5, big, -big, 2.5, "nan", 7.0, None]
    lo, hi = cf.int_range(t)
    return [str(lo), None, "0", str(hi), "1", str(hi), "-1" if lo < 0 else "2", None, str(lo)]


def variants(op):
    """(params, id suffix) of the sweep, rotating over the lengths."""
    if op == "quantile":
        return [({"q": Q_LISTS[name], "interpolation": i}, f"/{i}/{name}")
                for i in INTERPOLATIONS for name in ("median", "spread")]  # fmt: skip
    if op == "tdigest":
        return [({"q": Q_LISTS["spread"]}, "/spread"), ({"q": Q_LISTS["median"]}, "/median")]
    return [({}, "")]


def gen(g):
    for op in OPS:
        for t in NUMERIC:
            for params, suffix in variants(op):
                key = f"{op}/{t}{suffix}"
                for _, n, nulls, off, rep in g.sweep(key):
                    cid = g.sweep_id(op, t, "unary", n, nulls, off, rep) + suffix
                    inp = g.gen_input(t, n, nulls, off, cid + "#0", **g.value_kind(t))
                    g.add(cid, op, params, "unary", [inp])
            gen_options(g, op, t)
            gen_edges(g, op, t)
        g.add(f"{op}/bool/unary/type-error", op, _q(op, [0.5]), "unary",
              [g.inline("bool", [True, None, False])])  # fmt: skip
    gen_errors(g)
    gen_wide(g)


def _q(op, q):
    return {} if op == "approximate_median" else {"q": q}


def gen_options(g, op, t):
    """skip_nulls x min_count over inputs with some, no and all nulls and an empty one."""
    inputs = {
        "some-nulls": g.inline(t, [1, None, 2, 3, None, 5, 8], 3),
        "no-nulls": g.inline(t, [4, 1, 2, 3], 1),
        "all-nulls": g.inline(t, [None] * 5, 7),
        "empty": g.inline(t, []),
    }
    if t in FLOAT_TYPES:
        inputs["nan-counted"] = g.inline(t, ["nan", 1.0, "nan", 2.0, None])
    for name, inp in inputs.items():
        for skip in (True, False):
            for mc in (0, 1, 3, 4, 2**32 - 1):
                params = dict(_q(op, [0.5, 0.9]), skip_nulls=skip, min_count=mc)
                g.add(f"{op}/{t}/unary/options/{name}/skip{int(skip)}/min{mc}", op, params,
                      "unary", [inp])  # fmt: skip


def gen_edges(g, op, t):
    for off in (0, 7, 63):
        inp = g.inline(t, special(t) * 3, off)
        if op == "quantile":
            for i in INTERPOLATIONS:
                g.add(f"{op}/{t}/unary/edges/offset{off}/{i}", op,
                      {"q": Q_LISTS["unsorted-dup"], "interpolation": i}, "unary", [inp])  # fmt: skip
        else:
            g.add(f"{op}/{t}/unary/edges/offset{off}", op, _q(op, Q_LISTS["unsorted-dup"]),
                  "unary", [inp])  # fmt: skip
    # many equal values, and one value
    g.add(f"{op}/{t}/unary/equal-keys", op, _q(op, Q_LISTS["spread"]), "unary",
          [g.inline(t, ["3"] * 500 + ["1"] * 3 + ["2"] * 700, 1)])  # fmt: skip
    g.add(f"{op}/{t}/unary/one-value", op, _q(op, Q_LISTS["spread"]), "unary",
          [g.inline(t, [None, "5", None], 0)])  # fmt: skip
    if t in FLOAT_TYPES:
        g.add(f"{op}/{t}/unary/all-nan", op, _q(op, [0.5]), "unary",
              [g.inline(t, ["nan", None, "nan"])])  # fmt: skip
        g.add(f"{op}/{t}/unary/infinities", op, _q(op, Q_LISTS["spread"]), "unary",
              [g.inline(t, ["inf", "-inf", "inf", 1.0])])  # fmt: skip
        g.add(f"{op}/{t}/unary/negative-zeros", op, _q(op, Q_LISTS["spread"]), "unary",
              [g.inline(t, ["-0.0", "-0.0", -1.0, 2.0])])  # fmt: skip
    if op == "tdigest":
        for d, b in ((0, 0), (1, 1), (10, 7), (1000, 2000)):
            inp = g.gen_input(t, 1000, "some-nulls", 7, f"{op}/{t}/delta{d}", **g.value_kind(t))
            g.add(f"{op}/{t}/unary/delta{d}-buffer{b}", op,
                  {"q": Q_LISTS["spread"], "delta": d, "buffer_size": b}, "unary", [inp])  # fmt: skip


def gen_errors(g):
    inp = g.inline("float64", [1.0, 2.0, None])
    for q in ([1.5], [-0.1], [0.5, 2.0], []):
        tag = ",".join(str(v) for v in q) or "none"
        for i in INTERPOLATIONS:
            g.add(f"quantile/float64/unary/q-error/{tag}/{i}", "quantile",
                  {"q": q, "interpolation": i}, "unary", [inp])  # fmt: skip
        g.add(f"tdigest/float64/unary/q-outside/{tag}", "tdigest", {"q": q}, "unary", [inp])
    g.add("tdigest/float64/unary/q-nan", "tdigest", {"q": ["nan", 0.5]}, "unary", [inp])


def gen_wide(g):
    """Integers past 2^53 through linear and midpoint interpolation (pyarrow's double
    arithmetic), and the ends of every integer type."""
    wide = {
        "int64": [str(2**62 + 1), str(2**62 + 3), str(-(2**63)), str(2**63 - 1), str(2**53 + 1)],
        "uint64": [str(2**64 - 1), str(2**64 - 3), "0", str(2**63 + 1), str(2**53 + 1)],
    }
    for t, vals in wide.items():
        for i in INTERPOLATIONS:
            g.add(f"quantile/{t}/unary/wide/{i}", "quantile",
                  {"q": [0.5, 0.3, 0.1, 0.77, 1.0], "interpolation": i}, "unary",
                  [g.inline(t, vals)])  # fmt: skip
        g.add(f"tdigest/{t}/unary/wide", "tdigest", {"q": [0.5, 0.3, 0.1, 0.77, 1.0]},
              "unary", [g.inline(t, vals)])  # fmt: skip


# ---- the README's matrix -----------------------------------------------------------------
