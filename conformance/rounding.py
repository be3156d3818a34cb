"""round, round_to_multiple, pairwise_diff and pairwise_diff_checked in the conformance
suite (branch round): how generate.py makes their cases (``gen``, with generate.py's own
helpers passed in as ``g``), how pyarrow.compute evaluates them (``evaluate``), and how a
runner calls the C ABI for them (``call``).

round: form ``unary``, params ``ndigits`` and ``round_mode`` (pyarrow's RoundOptions;
absent: its defaults), am_round. round_to_multiple: form ``array-scalar`` (the scalar
input is RoundToMultipleOptions' multiple, of any type: pyarrow casts it to the array's)
or ``unary`` (no multiple: pyarrow's default, float64 1.0), param ``round_mode``,
am_round_to_multiple. pairwise_diff, pairwise_diff_checked: form ``unary``, param
``period`` (PairwiseOptions), am_pairwise_diff. Every expected value is pyarrow 26's, bit
for bit: no tolerance.
"""

import casefmt as cf
from casefmt import FLOAT_TYPES, INT_TYPES, TYPES

OPS = ["round", "round_to_multiple", "pairwise_diff", "pairwise_diff_checked"]
PAIRWISE = ["pairwise_diff", "pairwise_diff_checked"]
FILE = "round"
MODES = ["down", "up", "towards_zero", "towards_infinity", "half_down", "half_up",
         "half_towards_zero", "half_towards_infinity", "half_to_even", "half_to_odd"]  # fmt: skip
NDIGITS = [-3, -1, 0, 1, 2, 5]
PERIODS = [-3, -1, 0, 1, 2]
# std::numeric_limits<T>::digits10, which pyarrow checks -ndigits against (uint64's
# 19 kills pyarrow 26 with SIGFPE, so no case asks for it; the library refuses it).
DIGITS10 = {"int8": 2, "uint8": 2, "int16": 4, "uint16": 4, "int32": 9, "uint32": 9,
            "int64": 18, "uint64": 18}  # fmt: skip


def numeric(t):
    return t != "bool"


# ---- pyarrow ---------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow.compute as pc

    if op == "round":
        return pc.round(
            args[0],
            ndigits=params.get("ndigits", 0),
            round_mode=params.get("round_mode", "half_to_even"),
        )
    if op == "round_to_multiple":
        return pc.round_to_multiple(
            args[0],
            multiple=args[1] if len(args) > 1 else 1.0,
            round_mode=params.get("round_mode", "half_to_even"),
        )
    return pc.call_function(op, [args[0]], pc.PairwiseOptions(params.get("period", 1)))


def map_error(exc):
    """am_status name of round's refusals (ArrowInvalid in pyarrow), None for the others."""
    import pyarrow as pa

    msg = str(exc)
    if isinstance(exc, pa.ArrowInvalid) and (
        msg == "overflow occurred during rounding"
        or (msg.startswith("Rounding ") and ("would overflow" in msg or "out of range" in msg))
        or msg.startswith("Rounding multiple must be")  # round_to_multiple's multiple
    ):
        return "AM_EINVAL"
    return None  # (a multiple's failed cast: generate.py's, AM_EOVERFLOW as am_cast's)


# ---- the C ABI ---------------------------------------------------------------------------


def call(case, arrays, scalars, out):
    """(function name, status, out) of the case's call."""
    from amabi import lib, make_scalar

    op, p = case["op"], case["params"]
    mode = MODES.index(p.get("round_mode", "half_to_even"))
    if op == "round":
        return "am_round", lib.am_round(arrays[0], p.get("ndigits", 0), mode, out), out
    if op == "round_to_multiple":
        multiple = scalars[0] if scalars else make_scalar("float64", 1.0)
        rc = lib.am_round_to_multiple(arrays[0], multiple, mode, out)
        return "am_round_to_multiple", rc, out
    which = lib.AM_PAIRWISE_DIFF_CHECKED if op == "pairwise_diff_checked" else lib.AM_PAIRWISE_DIFF
    rc = lib.am_pairwise_diff(which, arrays[0], p.get("period", 1), out)
    return "am_pairwise_diff", rc, out


# ---- cases -------------------------------------------------------------------------------


def float_specials(t):
    """Halves, near-halves, 2^53's neighbours, subnormals, signed zeros, NaN, the
    infinities: values no mode of NDIGITS overflows."""
    tiny = 1e-45 if t == "float32" else 5e-324
    sub = 1e-40 if t == "float32" else 1e-310
    vals = [2.5, -2.5, 0.125, -0.125, 0.5, -0.5, 1.5, -1.5, 0.0, "-0.0", 1.005, 2.675, -99.95,
            0.045, 123456.789, 2.0**53, 2.0**53 - 1, 2.0**52 + 0.5, -(2.0**53), 1e15 + 0.3,
            sub, -sub, tiny, "nan", "inf", "-inf", None, 1234.5, -0.05, 9.995]  # fmt: skip
    return vals


def int_safe(t, nd):
    """Integers no mode of ndigits nd (< 0) takes out of the type: halves, neighbours of
    multiples, within a multiple of the ends."""
    lo, hi = cf.int_range(t)
    m = 10 ** max(0, -nd)
    base = [0, 1, -1, 5, -5, 15, -15, 25, -25, 45, -45, 50, -50, 55, -55, 95, -95, 100, -150,
            150, 250, -250, 449, 450, 451, -451]  # fmt: skip
    for k in (3, 4, 6, 9, 12, 17):
        base += [5 * 10**k, -5 * 10**k, 15 * 10**k + 1, 25 * 10**k - 1, 35 * 10**k]
    out = [v for v in base if lo + m <= v <= hi - m]
    return [str(v) for v in out] + [None]


def gen_round(g):
    op = "round"
    for t in TYPES:
        if not numeric(t):
            g.add(f"{op}/{t}/unary/type-error", op, {}, "unary", [g.inline(t, [True, None])])
            continue
        # The sweep (lengths x null patterns x offsets), pyarrow's defaults and one
        # more variant per type.
        other = {"ndigits": 2 if t in FLOAT_TYPES else -1, "round_mode": "half_up"}
        for params, suffix in (({}, ""), (other, "/nd-other")):
            key = f"{op}/{t}{suffix}"
            if t in FLOAT_TYPES:
                kind = g.value_kind(t)
            elif params:
                kind = {"kind": "choice", "choices": [v for v in int_safe(t, -1) if v]}
            else:
                kind = g.value_kind(t)
            for _, n, nulls, off, rep in g.sweep(key):
                cid = g.sweep_id(op, t, "unary", n, nulls, off, rep) + suffix
                inp = g.gen_input(t, n, nulls, off, cid + "#0", **kind)
                g.add(cid, op, params, "unary", [inp])
        # Every mode x ndigits over the specials.
        k = 0
        for mode in MODES:
            for nd in NDIGITS:
                off = g.OFFSETS[k % 4]
                k += 1
                vals = float_specials(t) if t in FLOAT_TYPES else int_safe(t, min(nd, -1))
                params = {"ndigits": nd, "round_mode": mode}
                g.add(f"{op}/{t}/unary/specials/nd{nd}/{mode}/offset{off}", op, params, "unary",
                      [g.inline(t, vals, off)])  # fmt: skip
        # Refusals and their neighbours.
        if t in FLOAT_TYPES:
            big = 3.4028234663852886e38 if t == "float32" else 1.7976931348623157e308
            for nd, mode in ((1, "half_to_even"), (0, "up"), (-1, "up")):
                g.add(f"{op}/{t}/unary/max/nd{nd}/{mode}", op, {"ndigits": nd, "round_mode": mode},
                      "unary", [g.inline(t, [1.5, big, None])])  # fmt: skip
            e = 38 if t == "float32" else 308
            g.add(f"{op}/{t}/unary/overflow-back", op, {"ndigits": -e, "round_mode": "up"},
                  "unary", [g.inline(t, [2.5 * 10.0**e if t == "float64" else 2.5e38, 0.0])])  # fmt: skip
            for nd in (20, 40, 400, -40, -400, 11, 13, 15, 16):
                g.add(f"{op}/{t}/unary/far-digits/nd{nd}", op, {"ndigits": nd}, "unary",
                      [g.inline(t, [0.0, 1.5, -2.25, 1.23456789012345678, None])])  # fmt: skip
        else:
            lo, hi = cf.int_range(t)
            edge = [str(lo), str(hi), str(lo + 1), str(hi - 1), None]
            for mode in MODES:
                g.add(f"{op}/{t}/unary/extremes/nd-1/{mode}", op,
                      {"ndigits": -1, "round_mode": mode}, "unary", [g.inline(t, edge)])  # fmt: skip
            deep = -DIGITS10[t]
            g.add(f"{op}/{t}/unary/extremes/nd{deep}/half_to_even", op,
                  {"ndigits": deep}, "unary", [g.inline(t, edge)])  # fmt: skip
            g.add(f"{op}/{t}/unary/nd-positive", op, {"ndigits": 3, "round_mode": "up"}, "unary",
                  [g.inline(t, edge)])  # fmt: skip
            if t != "uint64":
                g.add(f"{op}/{t}/unary/out-of-range/nd{deep - 1}", op, {"ndigits": deep - 1},
                      "unary", [g.inline(t, [])])  # fmt: skip
            # A null slot's value never fails.
            g.add(f"{op}/{t}/unary/null-extreme", op, {"ndigits": -1, "round_mode": "up"},
                  "unary", [g.inline(t, ["5", None], null_fill=str(hi))])  # fmt: skip


# round_to_multiple: multiples as Python gives them to pyarrow (int64, float64), and of
# other types.
INT_MULTIPLES = [1, 2, 3, 7, 10, 100]
FLOAT_MULTIPLES = [0.1, 0.25, 2.5, 1e-3, 1e300]
DIRECTED = MODES[:4]


def multiple_values(t, m):
    """Values at, next to and between the halves of multiples of m (and the specials for
    floats); for integers only those whose multiples on either side are in the type, so
    that no mode takes them out of it."""
    if t in FLOAT_TYPES:
        near = [(k + 0.5) * m for k in (-7, -3, -2, -1, 0, 1, 2, 5, 40, 1001)]
        near += [k * m for k in (-3, 1, 6)]
        top = 3.4e38 if t == "float32" else 1.7e308
        return float_specials(t) + [v for v in near if abs(v) < top]
    lo, hi = cf.int_range(t)
    out = []
    for k in (0, 1, -1, 2, -2, 3, -3, 12, -41, 1000, -5000, 10**6, -(10**9), 10**15):
        for d in (0, m // 2, (m + 1) // 2, m - 1, 1, -1, -(m // 2)):
            v = k * m + d
            below = v // m * m
            if lo <= below and below + m <= hi and str(v) not in out:
                out.append(str(v))
    return out + [None]


def gen_round_to_multiple(g):
    op = "round_to_multiple"
    for t in TYPES:
        if not numeric(t):
            g.add(f"{op}/{t}/array-scalar/type-error", op, {}, "array-scalar",
                  [g.inline(t, [True, None]), g.scalar("int64", 2)])  # fmt: skip
            continue
        lo, hi = cf.int_range(t) if t in INT_TYPES else (None, None)
        # The sweep at pyarrow's default (no multiple: float64 1.0) and at one more
        # multiple per type (integers away from the ends, which it would take out).
        other = ("float64", 0.25) if t in FLOAT_TYPES else ("int64", 7)
        for multiple, suffix in ((None, ""), (other, "/multiple-other")):
            key = f"{op}/{t}{suffix}"
            kind = g.value_kind(t)
            if multiple and t in INT_TYPES:
                kind = {"kind": "uniform", "lo": str(lo + 7), "hi": str(hi - 7)}
            form = "array-scalar" if multiple else "unary"
            params = {"round_mode": "half_up"} if multiple else {}
            for _, n, nulls, off, rep in g.sweep(key):
                cid = g.sweep_id(op, t, form, n, nulls, off, rep) + suffix
                inp = [g.gen_input(t, n, nulls, off, cid + "#0", **kind)]
                g.add(cid, op, params, form, inp + ([g.scalar(*multiple)] if multiple else []))
        # Every mode x multiple over the halves of its multiples: integer multiples as
        # int64 (Python's), float multiples as float64 (for integer types in one mode:
        # pyarrow's safe cast refuses them whatever the mode).
        k = 0
        for mode in MODES:
            for mt, m in [("int64", m) for m in INT_MULTIPLES] + \
                    [("float64", m) for m in FLOAT_MULTIPLES]:  # fmt: skip
                if mt == "float64" and t in INT_TYPES and mode != "half_to_even":
                    continue
                off = g.OFFSETS[k % 4]
                k += 1
                vals = multiple_values(t, m if mt == "int64" else (1 if t in INT_TYPES else m))
                g.add(f"{op}/{t}/array-scalar/halves/{mt}-{m}/{mode}/offset{off}", op,
                      {"round_mode": mode}, "array-scalar",
                      [g.inline(t, vals, off), g.scalar(mt, m)])  # fmt: skip
        # Multiples of other types, cast to the array's: the array's own, a narrow
        # unsigned, float32, and the integers a float holds.
        vals = multiple_values(t, 12 if t in INT_TYPES else 1.5)
        for mt, m in (("uint8", 5), ("int8", 3), ("float32", 0.5), ("float64", 4.0),
                      (t, 6 if t in INT_TYPES else 0.375), ("uint64", 9)):  # fmt: skip
            for mode in ("half_to_even", "down", "half_to_odd"):
                g.add(f"{op}/{t}/array-scalar/typed/{mt}-{m}/{mode}", op, {"round_mode": mode},
                      "array-scalar", [g.inline(t, vals, 7), g.scalar(mt, m)])  # fmt: skip
        # The multiple refused: null (of the array's type and another), not positive
        # (zero, negative, NaN, a bool), or not cast (out of range, not whole).
        refused = [("null-own", t, None), ("null-float64", "float64", None), ("zero", "int64", 0),
                   ("negative", "int64", -3), ("negative-zero", "float64", "-0.0"),
                   ("nan", "float64", "nan"), ("bool", "bool", True),
                   ("not-above-zero-own", t, -2 if t not in cf.UNSIGNED_TYPES else 0)]  # fmt: skip
        if t in INT_TYPES:
            refused += [("too-big", "uint64", hi + 1 if hi < 2**64 - 1 else 2**64 - 1),
                        ("not-whole", "float64", 2.5), ("tiny", "float64", 1e-300),
                        ("inf", "float64", "inf"), ("float-too-big", "float64", 2.0**64)]  # fmt: skip
        else:
            exact = 2**24 if t == "float32" else 2**53
            refused += [("inexact", "int64", exact + 1), ("inexact-unsigned", "uint64", exact + 1)]
        vals = multiple_values(t, 2 if t in INT_TYPES else 0.5)
        for name, mt, m in refused:
            if name == "too-big" and t == "uint64":
                continue  # every uint64 fits
            g.add(f"{op}/{t}/array-scalar/multiple-{name}", op, {}, "array-scalar",
                  [g.inline(t, vals), g.scalar(mt, m)])  # fmt: skip
        if t in INT_TYPES:
            # The ends of the type: refused where a mode leaves it, every mode; the
            # largest multiple (the type's end) in the directed modes and, where
            # pyarrow doubles the remainder without wrapping (arrowmetal.h's
            # divergence: not int32, uint32, int64), in every mode.
            edge = [str(lo), str(hi), str(lo + 1), str(hi - 1), "0", "1", None]
            for mode in MODES:
                for m in (10, 7):
                    g.add(f"{op}/{t}/array-scalar/extremes/{m}/{mode}", op, {"round_mode": mode},
                          "array-scalar", [g.inline(t, edge), g.scalar("int64", m)])  # fmt: skip
                if mode in DIRECTED or t not in ("int32", "uint32", "int64"):
                    big = [str(v) for v in (lo, hi, hi // 2, hi // 2 + 1, lo // 2, 3)] + [None]
                    g.add(f"{op}/{t}/array-scalar/multiple-max/{mode}", op, {"round_mode": mode},
                          "array-scalar", [g.inline(t, big), g.scalar(t, hi)])  # fmt: skip
            g.add(f"{op}/{t}/array-scalar/empty-multiple-too-big", op, {}, "array-scalar",
                  [g.inline(t, []), g.scalar("float64", 1e30)])  # fmt: skip
            # A null slot's value never fails.
            g.add(f"{op}/{t}/array-scalar/null-extreme", op, {"round_mode": "up"},
                  "array-scalar", [g.inline(t, ["5", None], null_fill=str(hi)),
                                   g.scalar("int64", 10)])  # fmt: skip
        else:
            big = 3.4028234663852886e38 if t == "float32" else 1.7976931348623157e308
            for mode in ("up", "half_up", "towards_zero", "half_to_odd"):
                g.add(f"{op}/{t}/array-scalar/overflow/{mode}", op, {"round_mode": mode},
                      "array-scalar", [g.inline(t, [1.5, big, -big, None]),
                                       g.scalar(t, big / 1.5)])  # fmt: skip
            # float64 1e300 is an infinity in float32, which keeps every value;
            # subnormal multiples (1e-310 is 0 in float32, checked positive before the
            # cast), whose quotients overflow.
            vals = [0.0, "-0.0", 1.5, -2.25, 1e-39, None]
            subnormal = 1e-40 if t == "float32" else 5e-324
            for mt, m in (("float64", 1e300), ("float64", 1e-310), (t, subnormal)):
                g.add(f"{op}/{t}/array-scalar/far-multiple/{mt}-{m}", op, {}, "array-scalar",
                      [g.inline(t, vals), g.scalar(mt, m)])  # fmt: skip


def pair_kind(g, op, t):
    """Values of the sweep: the checked op's stay clear of overflow (pyarrow's and the
    library's refusals have cases of their own)."""
    if op == "pairwise_diff" or t in FLOAT_TYPES:
        return g.value_kind(t)
    if t in ("uint8", "uint16", "uint32", "uint64"):
        return {"kind": "choice", "choices": ["7"]}
    lo, hi = cf.int_range(t)
    return {"kind": "choice", "choices": [str(v) for v in (lo // 4, -2, -1, 0, 1, 2, hi // 4)]}


def gen_pairwise(g):
    for op in PAIRWISE:
        for t in TYPES:
            if not numeric(t):
                g.add(f"{op}/{t}/unary/type-error", op, {}, "unary",
                      [g.inline(t, [True, None])])  # fmt: skip
                continue
            for period in PERIODS + ["past-length"]:
                key = f"{op}/{t}/period{period}"
                for _, n, nulls, off, rep in g.sweep(key):
                    p = n + 3 if period == "past-length" else period
                    cid = g.sweep_id(op, t, "unary", n, nulls, off, rep) + f"/period{period}"
                    inp = g.gen_input(t, n, nulls, off, cid + "#0", **pair_kind(g, op, t))
                    g.add(cid, op, {"period": p}, "unary", [inp])
            # No period given (pyarrow's 1), and a period of the length itself.
            g.add(f"{op}/{t}/unary/default-period", op, {}, "unary",
                  [g.inline(t, ["1", "3", None, "10", "11"] if t in INT_TYPES else
                            [1.5, "nan", None, "inf", "-0.0"])])  # fmt: skip
            g.add(f"{op}/{t}/unary/period-length", op, {"period": 4}, "unary",
                  [g.inline(t, ["1", "2", "3", "4"] if t in INT_TYPES else [1.0, 2.0, 3.0, 4.0])])  # fmt: skip
            if t in INT_TYPES:
                lo, hi = cf.int_range(t)
                # Differences that leave the type: wrap, or refused by the checked op.
                vals = [str(lo), str(hi), "0", None, str(lo)] if lo < 0 else \
                    ["1", "0", str(hi), "0", None]  # fmt: skip
                for period in (1, -1, 2):
                    g.add(f"{op}/{t}/unary/overflow/period{period}", op, {"period": period},
                          "unary", [g.inline(t, vals, 7)])  # fmt: skip


def gen(g):
    """Every case of the family; `g` is generate.py (add, sweep, gen_input, inline, ...)."""
    gen_round(g)
    gen_round_to_multiple(g)
    gen_pairwise(g)


# ---- the README's matrix -----------------------------------------------------------------
