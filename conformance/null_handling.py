"""The null-handling functions in the conformance suite (branch nulls): how
generate.py makes their cases (``gen``, with generate.py's own helpers passed in
as ``g``), how pyarrow.compute evaluates them (``evaluate``), and how a runner
calls the C ABI for them (``call``).

Ops: is_null (param ``nan_is_null``), is_valid, is_nan, is_finite, is_inf (am_is).
"""

import casefmt as cf
import functions
from casefmt import FLOAT_TYPES, TYPES

# The predicates of am_is, by pyarrow name -> am_predicate value (the library's table).
PREDICATES = functions.PREDICATE
OPS = list(PREDICATES)
FILE = "nulls"


# ---- pyarrow ---------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow.compute as pc

    if op == "is_null":
        return pc.is_null(args[0], nan_is_null=params.get("nan_is_null", False))
    if op in PREDICATES:
        return pc.call_function(op, [args[0]])
    raise AssertionError(op)


# ---- the C ABI ---------------------------------------------------------------------------


def call(case, arrays, scalars, out):
    """(function name, status, out) of the case's call."""
    from amabi import lib

    op, p = case["op"], case["params"]
    if op in PREDICATES:
        flags = lib.AM_NAN_IS_NULL if p.get("nan_is_null") else 0
        return "am_is", lib.am_is(PREDICATES[op], flags, arrays[0], out), out
    raise AssertionError("unknown op " + op)


# ---- cases -------------------------------------------------------------------------------


def values_of(g, op, t):
    """gen parameters of ordinary data: floats drawn from the special values (NaN,
    infinities, -0.0, the largest finite, a tiny value) among ordinary ones."""
    if t in FLOAT_TYPES:
        return {"kind": "choice", "choices": g.compare_choices(t)}
    return g.value_kind(t)


def edges(t):
    """Inline values of the predicates' edge cases."""
    if t == "bool":
        return [True, None, False, True]
    if t in FLOAT_TYPES:
        big = 3.4028234663852886e38 if t == "float32" else 1.7976931348623157e308
        tiny = 1e-45 if t == "float32" else 5e-324
        return ["nan", None, "inf", "-inf", "-0.0", 0.0, big, -big, tiny, -tiny, 1.5, None]
    lo, hi = cf.int_range(t)
    return [str(lo), None, "0", str(hi), "1"]


def gen_predicates(g):
    for op in PREDICATES:
        variants = [({}, "")]
        if op == "is_null":
            variants.append(({"nan_is_null": True}, "/nan_is_null"))
        for t in TYPES:
            if not functions.accepts(op, t):
                g.add(f"{op}/{t}/unary/type-error", op, {}, "unary", [g.inline(t, [True, None])])
                continue
            for params, suffix in variants:
                key = f"{op}/{t}{suffix}"
                for _, n, nulls, off, rep in g.sweep(key):
                    cid = g.sweep_id(op, t, "unary", n, nulls, off, rep) + suffix
                    inp = g.gen_input(t, n, nulls, off, cid + "#0", **values_of(g, op, t))
                    g.add(cid, op, params, "unary", [inp])
                for off in (0, 7, 63):
                    g.add(
                        f"{op}/{t}/unary/edges/offset{off}{suffix}",
                        op,
                        params,
                        "unary",
                        [g.inline(t, edges(t), off)],
                    )
            # No validity bitmap at all (every slot valid), and every slot null.
            g.add(f"{op}/{t}/unary/no-bitmap", op, {}, "unary", [g.inline(t, edges(t)[2:4])])
            g.add(f"{op}/{t}/unary/all-null", op, {}, "unary", [g.inline(t, [None] * 70, 3)])


def gen(g):
    """Every null-handling case; `g` is generate.py (add, sweep, gen_input, inline, ...)."""
    gen_predicates(g)


# ---- the README's matrix -----------------------------------------------------------------


def subject_type(case):
    """The type a case is about: its first input's."""
    inp = case["inputs"][0]
    return inp["scalar"]["type"] if "scalar" in inp else inp["type"]


def matrix_rows(cases):
    """README.md's op x type rows of these ops: "yes" where a case of that type
    succeeds, else the status its type's cases fail with."""
    ok, errors = set(), {}
    for case in cases.values():
        if case["op"] not in OPS:
            continue
        key = case["op"], subject_type(case)
        if "error" in case["expected"]:
            errors.setdefault(key, case["expected"]["error"])
        else:
            ok.add(key)
    rows = []
    for op in OPS:
        cells = ["yes" if (op, t) in ok else errors.get((op, t), "-") for t in TYPES]
        rows.append(f"| {op} | " + " | ".join(cells) + " |")
    return rows
