"""The null-handling functions in the conformance suite: how
generate.py makes their cases (``gen``, with generate.py's own helpers passed in
as ``g``), how pyarrow.compute evaluates them (``evaluate``), and how a runner
calls the C ABI for them (``call``).

Ops: is_null (param ``nan_is_null``), is_valid, is_nan, is_finite, is_inf (am_is);
fill_null (forms ``array-scalar`` and ``array-array``: am_fill_null); coalesce (form
``nary``: inputs in argument order, arrays and scalars, am_coalesce); if_else (form
``nary``: cond, left, right, each side an array or a scalar, am_if_else); drop_null (form
``unary``: am_drop_null); fill_null_forward and fill_null_backward (form ``unary``:
am_fill_null_direction).
"""

import casefmt as cf
import functions
from casefmt import FLOAT_TYPES, TYPES

# The predicates of am_is, by pyarrow name -> am_predicate value (the library's table).
PREDICATES = functions.PREDICATE
OPS = list(PREDICATES) + ["fill_null", "coalesce", "if_else", "drop_null"]
DIRECTIONS = {"fill_null_forward": 0, "fill_null_backward": 1}  # am_fill_direction
OPS += list(DIRECTIONS)
FILE = "nulls"


# ---- pyarrow ---------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow.compute as pc

    if op == "is_null":
        return pc.is_null(args[0], nan_is_null=params.get("nan_is_null", False))
    if op in PREDICATES:
        return pc.call_function(op, [args[0]])
    if op == "fill_null":
        try:
            return pc.fill_null(args[0], args[1])
        except AttributeError as exc:
            # pyarrow.compute.fill_null calls .as_py() on an array fill of another
            # type (pyarrow 26): a failure, which the header makes a type error.
            raise TypeError(f"fill array of another type: {exc}") from exc
    if op == "coalesce":
        return pc.coalesce(*args)
    if op == "if_else":
        return pc.if_else(*args)
    if op == "drop_null":
        return pc.drop_null(args[0])
    if op in DIRECTIONS:
        return pc.call_function(op, [args[0]])
    raise AssertionError(op)


def map_error(exc):
    """am_status name of the errors of pyarrow's conversion of a fill scalar to the
    values' type (pa.scalar(value, type)), None for the others (generate.map_error)."""
    import pyarrow as pa

    msg = str(exc)
    if isinstance(exc, pa.ArrowInvalid):
        if "tried to convert to boolean" in msg:
            return "AM_ETYPE"  # a number for bool values
        if msg.startswith("Could not convert") or "too large to fit" in msg:
            return "AM_EOVERFLOW"  # NaN, an infinity or out of range for an integer type
        if "exactly representable" in msg:
            return "AM_EOVERFLOW"  # an integer beyond 2^53 (2^24) for a float type
    if isinstance(exc, OverflowError):
        return "AM_EOVERFLOW"  # a negative integer for an unsigned type
    return None


# ---- the C ABI ---------------------------------------------------------------------------


def call(case, arrays, scalars, out):
    """(function name, status, out) of the case's call."""
    from amabi import ffi, lib

    op, p = case["op"], case["params"]
    if op in PREDICATES:
        flags = lib.AM_NAN_IS_NULL if p.get("nan_is_null") else 0
        return "am_is", lib.am_is(PREDICATES[op], flags, arrays[0], out), out
    if op == "fill_null":
        fill, fill_scalar = (ffi.NULL, scalars[0]) if scalars else (arrays[1], ffi.NULL)
        return "am_fill_null", lib.am_fill_null(arrays[0], fill, fill_scalar, out), out
    if op == "coalesce":
        # The values in argument order: arrays[k] or scalars[k], the other NULL.
        n = len(case["inputs"])
        arrays_in, scalars_in = iter(arrays), iter(scalars)
        array_list = ffi.new("am_array *[]", n)
        scalar_list = ffi.new("am_scalar *[]", n)
        for k, inp in enumerate(case["inputs"]):
            if "scalar" in inp:
                scalar_list[k] = next(scalars_in)
            else:
                array_list[k] = next(arrays_in)
        return "am_coalesce", lib.am_coalesce(array_list, scalar_list, n, out), out
    if op == "if_else":
        arrays_in, scalars_in = iter(arrays), iter(scalars)
        cond = next(arrays_in)
        sides = []
        for inp in case["inputs"][1:]:
            if "scalar" in inp:
                sides += [ffi.NULL, next(scalars_in)]
            else:
                sides += [next(arrays_in), ffi.NULL]
        return "am_if_else", lib.am_if_else(cond, *sides, out), out
    if op == "drop_null":
        return "am_drop_null", lib.am_drop_null(arrays[0], out), out
    if op in DIRECTIONS:
        rc = lib.am_fill_null_direction(DIRECTIONS[op], arrays[0], out)
        return "am_fill_null_direction", rc, out
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


def fill_choices(g, t):
    """Scalar fills of type t: ordinary values and edges (NaN, -0.0, extremes)."""
    if t == "bool":
        return [True, False]
    return g.compare_choices(t)


def gen_fill_null(g):
    for t in TYPES:
        kind = values_of(g, "fill_null", t)
        choices = fill_choices(g, t)
        for form in ("array-scalar", "array-array"):
            key = f"fill_null/{t}/{form}"
            for i, n, nulls, off, rep in g.sweep(key):
                cid0 = g.sweep_id("fill_null", t, form, n, nulls, off, rep)
                values = g.gen_input(t, n, nulls, off, cid0 + "#0", **kind)
                if form == "array-scalar":
                    cid = cid0
                    fill = g.scalar(
                        t, cf.decode_value(t, choices[(i + g.seed_of(key)) % len(choices)])
                    )
                else:
                    off2 = g.OFFSETS[(i + 1) % 4]
                    n2 = g.other(nulls, i % 2 + 1) if n > 1 else nulls
                    cid = g.sweep_id("fill_null", t, form, n, f"{nulls},{n2}", f"{off},{off2}")
                    fill = g.gen_input(t, n, n2, off2, cid0 + "#1", **kind)
                g.add(cid, "fill_null", {}, form, [values, fill])
        some = g.inline(t, edges(t), 7)
        g.add(f"fill_null/{t}/array-scalar/null-scalar", "fill_null", {}, "array-scalar",
              [some, g.scalar(t, None)])  # fmt: skip
        g.add(f"fill_null/{t}/array-scalar/no-nulls", "fill_null", {}, "array-scalar",
              [g.inline(t, edges(t)[2:4], 1), g.scalar(t, cf.decode_value(t, choices[0]))])  # fmt: skip
        g.add(f"fill_null/{t}/array-array/length-mismatch", "fill_null", {}, "array-array",
              [g.inline(t, edges(t)), g.inline(t, edges(t)[:2])])  # fmt: skip
    # The fill converted to the values' type as pyarrow converts it (pa.scalar(value, type)).
    converted = [
        ("int64", "int32", 5), ("int64", "uint64", 2**63 - 1), ("int8", "int16", 3),
        ("int8", "int16", 300), ("int8", "int64", -129), ("uint8", "int64", -1),
        ("uint64", "uint64", 2**64 - 1), ("uint32", "int8", 7), ("int16", "uint8", 255),
        ("int64", "float64", 5.5), ("int64", "float64", -5.5), ("int8", "float64", -128.9),
        ("int8", "float64", 127.9), ("int8", "float64", -129.0), ("uint8", "float32", -0.9),
        ("uint8", "float64", -1.0), ("int64", "float64", "nan"), ("int64", "float64", "inf"),
        ("int64", "float64", 1e30), ("float32", "float64", 0.1), ("float32", "float64", 1e300),
        ("float32", "float64", "-inf"), ("float64", "float32", 3.5), ("float64", "int64", 2**53),
        ("float64", "int64", 2**53 + 1), ("float32", "int32", 2**24), ("float32", "int32", 2**24 + 2),
        ("float32", "uint64", 7), ("bool", "int8", 1), ("int32", "bool", True),
        ("float64", "bool", False), ("bool", "bool", False),
    ]  # fmt: skip
    for vt, st, v in converted:
        value = cf.decode_value(st, cf.encode_value(st, v))
        g.add(f"fill_null/{vt}/array-scalar/converted/{st}-{cf.encode_value(st, v)}", "fill_null",
              {}, "array-scalar", [g.inline(vt, edges(vt), 3), g.scalar(st, value)])  # fmt: skip
    for vt, ft in (("int8", "int16"), ("int64", "int32"), ("float64", "float32"), ("bool", "int8")):
        vals = [True, None] if "bool" in (vt, ft) else [1, None]
        g.add(f"fill_null/{vt}/array-array/fill-type-{ft}", "fill_null", {}, "array-array",
              [g.inline(vt, vals), g.inline(ft, [True, False] if ft == "bool" else [3, 4])])  # fmt: skip


def gen_coalesce(g):
    for t in TYPES:
        kind = values_of(g, "coalesce", t)
        key = f"coalesce/{t}/nary"
        for i, n, nulls, off, rep in g.sweep(key, reps=2):
            cid0 = g.sweep_id("coalesce", t, "nary", n, nulls, off, rep)
            off2, off3 = g.OFFSETS[(i + 1) % 4], g.OFFSETS[(i + 3) % 4]
            n2 = g.other(nulls, i % 2 + 1) if n > 1 else nulls
            inputs = [g.gen_input(t, n, nulls, off, cid0 + "#0", **kind),
                      g.gen_input(t, n, n2, off2, cid0 + "#1", **kind)]  # fmt: skip
            extra = f"{nulls},{n2}"
            if rep == 1:  # a third array, and a scalar last or a null scalar first
                inputs.append(g.gen_input(t, n, "some-nulls", off3, cid0 + "#2", **kind))
                if i % 2:
                    inputs.append(g.scalar(t, cf.decode_value(t, fill_choices(g, t)[i % 2])))
                    extra += ",some-nulls,scalar"
                else:
                    inputs.insert(0, g.scalar(t, None))
                    extra = "null-scalar," + extra + ",some-nulls"
            cid = g.sweep_id("coalesce", t, "nary", n, extra, off, rep)
            g.add(cid, "coalesce", {}, "nary", inputs)
        some = g.inline(t, edges(t), 1)
        one = cf.decode_value(t, fill_choices(g, t)[0])
        for name, inputs in (
            ("one-array", [some]),
            ("array-scalar", [some, g.scalar(t, one)]),
            ("scalar-first", [g.scalar(t, one), some]),
            ("null-scalars", [g.scalar(t, None), some, g.scalar(t, None)]),
            ("all-null-arrays", [g.inline(t, [None] * 5, 3), g.inline(t, [None] * 5, 7)]),
            ("length-mismatch", [some, g.inline(t, edges(t)[:3])]),
        ):
            g.add(f"coalesce/{t}/nary/{name}", "coalesce", {}, "nary", inputs)
    # Promotion to the common type, as pyarrow.compute (and its failures).
    mixed = [
        (("int8", [1, None, 3]), ("int16", [None, 2, None])),
        (("int8", [1, None, 3]), ("uint8", [None, 200, None])),
        (("int8", [1, None, 3]), ("float32", [None, 2.5, None])),
        (("uint64", [None, 2, None]), ("int64", [None, -2, None])),
        (("uint64", [2**63, None]), ("int8", [None, -1])),
        (("int8", [1, None]), ("uint64", [None, 2**63])),
        (("int64", [2**60, None]), ("float32", [1.5, 3.0])),
        (("int64", [None, None]), ("float32", [1.5, -2.0])),
        (("int8", [1, None]), ("bool", [None, True])),
        (("bool", [True, None]), ("bool", [None, False])),
        (("int8", [None, None, None]), ("uint8", [None, 1, None]), ("int64", [5, 5, 5])),
        (("int8", [1, None]), ("float32", [1.5, 2.0]), ("bool", [True, False])),
    ]
    for k, spec in enumerate(mixed):
        name = "+".join(t for t, _ in spec)
        g.add(f"coalesce/{name}/nary/mixed{k}", "coalesce", {}, "nary",
              [g.inline(t, v, 1 + k % 7) for t, v in spec])  # fmt: skip
    for t, v in (("int64", 5), ("int16", 300), ("float64", 1.5), ("uint64", 2**64 - 1),
                 ("int8", -1), ("int64", -(2**63))):  # fmt: skip
        g.add(f"coalesce/int8/nary/mixed-scalar/{t}-{v}", "coalesce", {}, "nary",
              [g.inline("int8", [1, None, -128], 3), g.scalar(t, v)])  # fmt: skip
        g.add(f"coalesce/uint8/nary/mixed-scalar/{t}-{v}", "coalesce", {}, "nary",
              [g.inline("uint8", [255, None, 0], 5), g.scalar(t, v)])  # fmt: skip


def gen_if_else(g):
    for t in TYPES:
        kind = values_of(g, "if_else", t)
        choices = fill_choices(g, t)
        key = f"if_else/{t}/nary"
        for i, n, nulls, off, rep in g.sweep(key, reps=2):
            cid0 = g.sweep_id("if_else", t, "nary", n, nulls, off, rep)
            coff, roff = g.OFFSETS[(i + 2) % 4], g.OFFSETS[(i + 1) % 4]
            cnulls = (["no-nulls", "some-nulls", "all-nulls", "some-nulls"][(i + rep) % 4]
                      if n > 1 else "no-nulls")  # fmt: skip
            n2 = g.other(nulls, i % 2 + 1) if n > 1 else nulls
            tp = [500, 0, 1000, 100, 900][(i + rep) % 5]
            cond = g.gen_input("bool", n, cnulls, coff, cid0 + "#c", role="mask", kind="uniform",
                               true_permille=tp)  # fmt: skip
            left = g.gen_input(t, n, nulls, off, cid0 + "#0", **kind)
            right = g.gen_input(t, n, n2, roff, cid0 + "#1", **kind)
            extra = f"cond-{cnulls}-true{tp},{nulls},{n2}"
            if rep == 1:  # a scalar side: the right one (valid), or the left one (null)
                if i % 2:
                    right = g.scalar(t, cf.decode_value(t, choices[i % len(choices)]))
                    extra = f"cond-{cnulls}-true{tp},{nulls},scalar"
                else:
                    left = g.scalar(t, None)
                    extra = f"cond-{cnulls}-true{tp},null-scalar,{n2}"
            cid = g.sweep_id("if_else", t, "nary", n, extra, f"{off},{coff},{roff}", rep)
            g.add(cid, "if_else", {}, "nary", [cond, left, right])
        a, b = g.inline(t, edges(t), 1), g.inline(t, list(reversed(edges(t))), 7)
        m = len(edges(t))
        one, two = (cf.decode_value(t, v) for v in choices[:2])
        cond = g.inline("bool", ([True, False, None] * m)[:m], 3)
        for name, inputs in (
            ("all-true", [g.inline("bool", [True] * m, 5), a, b]),
            ("all-false", [g.inline("bool", [False] * m, 63), a, b]),
            ("all-null-cond", [g.inline("bool", [None] * m), a, b]),
            (
                "no-bitmaps",
                [
                    g.inline("bool", ([True, False] * 4)),
                    g.inline(t, edges(t)[2:4] * 4),
                    g.inline(t, edges(t)[2:4] * 4, 1),
                ],
            ),
            ("scalars", [cond, g.scalar(t, one), g.scalar(t, two)]),
            ("null-scalars", [cond, g.scalar(t, None), g.scalar(t, None)]),
            ("scalar-left", [cond, g.scalar(t, one), b]),
            ("length-mismatch-left", [cond, g.inline(t, edges(t)[:2]), b]),
            ("length-mismatch-cond", [g.inline("bool", [True, False]), a, b]),
        ):
            g.add(f"if_else/{t}/nary/{name}", "if_else", {}, "nary", inputs)
        if t != "bool":  # a condition of another type
            g.add(f"if_else/{t}/nary/cond-type-{t}", "if_else", {}, "nary",
                  [g.inline(t, edges(t)), a, b])  # fmt: skip
    # The sides in their common type, as pyarrow.compute (and its failures).
    cond = [True, False, None, True]
    mixed = [
        (("int8", [1, 2, 3, None]), ("int16", [10, 20, 30, 40])),
        (("int8", [1, 2, 3, None]), ("uint64", [1, 2, 3, 4])),
        (("int8", [1, 2, 3, None]), ("uint64", [1, 2**63, 3, 4])),
        (("float32", [1.5, 2, 3, 4]), ("int64", [2**60, 1, 1, 1])),
        (("float32", [1.5, 2, 3, 4]), ("int64", [2**20, 1, 1, 1])),
        (("float64", [1.5, None, 3, 4]), ("int8", [1, 2, 3, 4])),
        (("bool", [True, False, True, False]), ("int8", [1, 2, 3, 4])),
        (("bool", [True, False, True, False]), ("bool", [False, False, None, True])),
        (("uint8", [255, 0, 1, 2]), ("int8", [-1, -2, -3, -4])),
    ]
    for k, (l, r) in enumerate(mixed):
        g.add(f"if_else/{l[0]}+{r[0]}/nary/mixed{k}", "if_else", {}, "nary",
              [g.inline("bool", cond, k % 5), g.inline(*l), g.inline(r[0], r[1], 1)])  # fmt: skip
    for t, v in (("int64", 300), ("float64", 1.5), ("int16", 300), ("uint64", 2**64 - 1),
                 ("int8", -1), ("bool", True)):  # fmt: skip
        g.add(f"if_else/int8/nary/mixed-scalar/{t}-{v}", "if_else", {}, "nary",
              [g.inline("bool", cond), g.inline("int8", [1, 2, -128, None], 2), g.scalar(t, v)])  # fmt: skip
        g.add(f"if_else/uint8/nary/mixed-scalar-left/{t}-{v}", "if_else", {}, "nary",
              [g.inline("bool", cond, 7), g.scalar(t, v), g.inline("uint8", [1, 255, 0, None])])  # fmt: skip


def gen_drop_null(g):
    for t in TYPES:
        kind = values_of(g, "drop_null", t)
        for _, n, nulls, off, rep in g.sweep(f"drop_null/{t}", reps=2):
            cid = g.sweep_id("drop_null", t, "unary", n, nulls, off, rep)
            # the second of the long ones: mostly nulls, in long runs
            permille = 900 if rep == 1 and nulls == "some-nulls" and n >= 1000 else nulls
            g.add(cid, "drop_null", {}, "unary", [g.gen_input(t, n, permille, off, cid, **kind)])
        for off in (0, 7, 63):
            g.add(f"drop_null/{t}/unary/edges/offset{off}", "drop_null", {}, "unary",
                  [g.inline(t, edges(t) * 13, off)])  # fmt: skip
        g.add(f"drop_null/{t}/unary/no-bitmap", "drop_null", {}, "unary",
              [g.inline(t, edges(t)[2:4] * 40)])  # fmt: skip
        g.add(f"drop_null/{t}/unary/nulls-in-padding-only", "drop_null", {}, "unary",
              [g.inline(t, edges(t)[2:4] * 40, 7)])  # fmt: skip
        g.add(f"drop_null/{t}/unary/all-null", "drop_null", {}, "unary",
              [g.inline(t, [None] * 130, 1)])  # fmt: skip


def gen_fill_directions(g):
    for op in DIRECTIONS:
        for t in TYPES:
            kind = values_of(g, op, t)
            for _, n, nulls, off, rep in g.sweep(f"{op}/{t}", reps=2):
                cid = g.sweep_id(op, t, "unary", n, nulls, off, rep)
                # the second of the long ones: long runs of nulls, over words and blocks
                permille = 990 if rep == 1 and nulls == "some-nulls" and n >= 1000 else nulls
                g.add(cid, op, {}, "unary", [g.gen_input(t, n, permille, off, cid, **kind)])
            v = [x for x in edges(t) if x is not None]
            runs = {
                "edges": edges(t) * 11,
                "leading-nulls": [None] * 70 + v,
                "trailing-nulls": v + [None] * 70,
                "one-valid-first": v[:1] + [None] * 200,
                "one-valid-last": [None] * 200 + v[:1],
                "one-valid-middle": [None] * 100 + v[:1] + [None] * 100,
                "all-null": [None] * 129,
                "no-nulls": v * 9,
                "alternating": [x for p in zip(v * 5, [None] * (5 * len(v))) for x in p],
            }
            for name, values in runs.items():
                for off in (0, 7, 63) if name == "edges" else (3,):
                    g.add(f"{op}/{t}/unary/{name}/offset{off}", op, {}, "unary",
                          [g.inline(t, values, off)])  # fmt: skip


def gen(g):
    """Every null-handling case; `g` is generate.py (add, sweep, gen_input, inline, ...)."""
    gen_predicates(g)
    gen_fill_null(g)
    gen_coalesce(g)
    gen_if_else(g)
    gen_drop_null(g)
    gen_fill_directions(g)


# ---- the README's matrix -----------------------------------------------------------------


def subject_input(case):
    """The input a case is about (its type is the matrix's): the first array, and
    for if_else the first array among the sides (else the condition)."""
    inputs = case["inputs"]
    if case["op"] == "if_else":
        return next((i for i in inputs[1:] if "scalar" not in i), inputs[0])
    return next(i for i in inputs if "scalar" not in i)


def subject_type(case):
    return subject_input(case)["type"]
