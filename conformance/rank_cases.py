"""select_k_unstable, rank, rank_quantile, rank_normal and partition_nth_indices in the
conformance suite: how generate.py makes their cases (``gen``, generate.py's helpers
passed in as ``g``), how pyarrow.compute evaluates them (``evaluate``), how the expected
value is written where pyarrow's answer is one of several right ones (``expected``), how
a runner calls the C ABI (``call``) and checks those answers (``check``).

select_k_unstable: form ``arrays``, each input a key column k0, k1, ... of a table;
params ``k``, ``order`` (one per key), ``null_placement`` (one per key), ``n_keys`` 0
asks for none (an error). pyarrow returns the top k in sort order but ties in any order,
so the case's ``expected.check`` is ``"key_values"``: the values of every key at the
returned indices (``expected.key_values``, one list per key) must equal the values at
pyarrow's indices (-0.0 and 0.0 tie, so their sign is not compared); the indices' count
is ``expected.length``.

rank, rank_quantile, rank_normal: form ``unary``; params ``order``, ``null_placement``
and (rank) ``tiebreaker``; plain values (rank_normal within the case's tolerance).

partition_nth_indices: form ``unary``; params ``pivot``, ``null_placement``. Any
partition is right, so ``expected.check`` is ``"partition"``: the result is a
permutation of the rows whose element at ``pivot`` equals ``expected.pivot_value`` (the
value that sorts there; sign of zero not compared), with no element before it sorting
after it and none after it sorting before it (numbers ascending, -0.0 tying 0.0, then
NaN then nulls, or nulls, NaN, numbers with null_placement "at_start").
"""

import math

import casefmt as cf
from casefmt import FLOAT_TYPES, TYPES

# the inputs are sorting's: few distinct values (ties), the specials, the second key's type
from sort_cases import few, second, specials

OPS = ["select_k_unstable", "rank", "rank_quantile", "rank_normal", "partition_nth_indices"]
FILE = "rank"
TIEBREAKERS = ["min", "max", "first", "dense"]
# rank_normal: the normal quantile function's rounding (conformance/README.md)
NORMAL_TOLERANCE = {"rel": 1e-13, "abs": 1e-15}


# ---- pyarrow ---------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow as pa
    import pyarrow.compute as pc

    placement = params.get("null_placement", "at_end")
    order = params.get("order", "ascending")
    if op == "select_k_unstable":
        table = pa.table({f"k{i}": a for i, a in enumerate(args)})
        n = params.get("n_keys", len(args))
        keys = [(f"k{i}", params["order"][i], params["null_placement"][i]) for i in range(n)]
        return pc.select_k_unstable(table, params["k"], keys)
    if op == "rank":
        keys = [("", order, placement)]
        return pc.rank(args[0], keys, tiebreaker=params.get("tiebreaker", "first"))
    if op in ("rank_quantile", "rank_normal"):
        return getattr(pc, op)(args[0], [("", order, placement)])
    return pc.partition_nth_indices(args[0], params["pivot"], null_placement=placement)


def map_error(exc):
    import pyarrow as pa

    msg = str(exc)
    if isinstance(exc, pa.ArrowIndexError) and "out of bound" in msg:
        return "AM_EINDEX"
    if isinstance(exc, pa.ArrowInvalid) and (
        "requires a nonnegative" in msg
        or "non-empty `sort_keys`" in msg
        or "expected length" in msg
    ):
        return "AM_EINVAL"
    return None


def expected(case, args, result):
    """The expectation of a select_k_unstable or partition_nth_indices case (a property
    of pyarrow's answer, not its bytes); None: the usual values."""
    import pyarrow.compute as pc

    op = case["op"]
    if op == "select_k_unstable":
        key_values = []
        for inp, a in zip(case["inputs"], args):
            t = inp["type"]
            key_values.append({"type": t,
                               "values": cf.encode_values(t, cf.array_values(pc.take(a, result)))})  # fmt: skip
        return {"type": "uint64", "length": len(result), "null_count": 0, "check": "key_values",
                "key_values": key_values}  # fmt: skip
    if op == "partition_nth_indices":
        t = case["inputs"][0]["type"]
        p = case["params"]["pivot"]
        exp = {"type": "uint64", "length": len(result), "null_count": 0, "check": "partition",
               "pivot": p}  # fmt: skip
        if p < len(result):
            exp["pivot_value"] = cf.encode_value(t, args[0][result[p].as_py()].as_py())
        return exp
    return None


# ---- the C ABI --------------------------------------------------------------------------------


def call(case, arrays, scalars, out):
    from amabi import lib, sort_key_args

    op, p = case["op"], case["params"]
    if op == "select_k_unstable":
        n = p.get("n_keys", len(arrays))
        keys, desc, places = sort_key_args(arrays, p["order"], p["null_placement"])
        rc = lib.am_select_k_unstable(keys, n, desc, places, p["k"], out)
        return "am_select_k_unstable", rc, out
    order = int(p.get("order", "ascending") == "descending")
    at = lib.AM_NULLS_AT_START if p.get("null_placement") == "at_start" else lib.AM_NULLS_AT_END
    if op == "rank":
        tb = getattr(lib, "AM_RANK_" + p.get("tiebreaker", "first").upper())
        return "am_rank", lib.am_rank(arrays[0], order, at, tb, out), out
    if op in ("rank_quantile", "rank_normal"):
        rc = lib.am_rank_quantile(arrays[0], order, at, int(op == "rank_normal"), out)
        return "am_rank_quantile", rc, out
    rc = lib.am_partition_nth_indices(arrays[0], p["pivot"], at, out)
    return "am_partition_nth_indices", rc, out


def _sort_key(t, v, at_start):
    """A value's place in pyarrow's order: (class place, number); -0.0 is 0.0."""
    if v is None:
        cls = 2
    elif t in FLOAT_TYPES and math.isnan(v):
        cls = 1
    else:
        cls = 0
    place = 2 - cls if at_start else cls
    return (place, float(v) + 0.0 if t in FLOAT_TYPES and cls == 0 else (v if cls == 0 else 0))


def check(case, handle, dev):
    """The property the case states (expected.check) of the result `handle`."""
    import amabi
    from amabi import lib

    exp = case["expected"]
    assert cf.AM_TYPE_NAME.get(lib.am_array_type(handle)) == "uint64", "result type"
    assert lib.am_array_device(handle) == dev, "am_array_device is not the input's device"
    assert lib.am_length(handle) == exp["length"], (
        f"am_length {lib.am_length(handle)}, expected {exp['length']}"
    )
    assert lib.am_null_count(handle) == 0, "null indices"
    arr = amabi.export_array(handle)
    try:
        arr.validate(full=True)
        idx = arr.to_pylist()
    finally:
        del arr
    inputs = [cf.input_values(inp) for inp in case["inputs"]]
    n = len(inputs[0])
    assert all(0 <= i < n for i in idx), "an index out of range"
    assert len(set(idx)) == len(idx), "an index repeated"
    if exp["check"] == "key_values":
        for k, kv in enumerate(exp["key_values"]):
            t = kv["type"]
            want = cf.decode_values(t, kv["values"])
            got = [inputs[k][i] for i in idx]
            bad = [j for j, (g, w) in enumerate(zip(got, want))
                   if not cf.same_value(t, g, w, zero_sign=False)]  # fmt: skip
            assert not bad, (
                f"key {k}: {len(bad)} of {len(want)} values at the indices differ, first at "
                f"[{bad[0]}]: got {cf.encode_value(t, got[bad[0]])} want "
                f"{cf.encode_value(t, want[bad[0]])}"
            )
        return
    assert exp["check"] == "partition", exp["check"]
    t = case["inputs"][0]["type"]
    at_start = case["params"].get("null_placement", "at_end") == "at_start"
    p = exp["pivot"]
    assert len(idx) == n, "not a permutation"
    if p >= n:
        return
    vals = [inputs[0][i] for i in idx]
    want = cf.decode_value(t, exp["pivot_value"])
    assert cf.same_value(t, vals[p], want, zero_sign=False), (
        f"element at the pivot {cf.encode_value(t, vals[p])}, expected {exp['pivot_value']}"
    )
    pk = _sort_key(t, vals[p], at_start)
    before = [j for j in range(p) if _sort_key(t, vals[j], at_start) > pk]
    after = [j for j in range(p + 1, n) if _sort_key(t, vals[j], at_start) < pk]
    assert not before and not after, (
        f"not partitioned at {p}: {len(before)} larger before, {len(after)} smaller after"
    )


# ---- cases -----------------------------------------------------------------------------------


def gen(g):
    for t in TYPES:
        gen_select_k(g, t)
        gen_rank(g, t)
        gen_partition(g, t)
    gen_errors(g)


def _kind(g, t, n):
    return few(t) if n % 2 else g.value_kind(t)


def gen_select_k(g, t):
    op = "select_k_unstable"
    for order, placement in (("descending", "at_end"), ("ascending", "at_start")):
        suffix = f"/{order}/{placement}"
        for _, n, nulls, off, rep in g.sweep(f"{op}/{t}{suffix}", large=False):
            cid = g.sweep_id(op, t, "arrays", n, nulls, off, rep) + suffix
            k0 = g.gen_input(t, n, nulls, off, cid + "#0", **_kind(g, t, n))
            for k in sorted({0, 1, 7, n // 2, n + 3}):
                params = {"k": k, "order": [order], "null_placement": [placement]}
                g.add(f"{cid}/k{k}", op, params, "arrays", [k0])
    # the heap path at length 100,003, two keys of ties (one key: few values)
    t2 = second(t)
    for k in (1, 100):
        cid = f"{op}/{t}/arrays/len100003/two-keys/k{k}"
        k0 = g.gen_input(t, 100003, "some-nulls", 7, cid + "#0", **few(t))
        k1 = g.gen_input(t2, 100003, "some-nulls", 1, cid + "#1", **few(t2))
        params = {"k": k, "order": ["descending", "ascending"],
                  "null_placement": ["at_end", "at_start"]}  # fmt: skip
        g.add(cid, op, params, "arrays", [k0, k1])
    for placement in ("at_end", "at_start"):
        vals = specials(t) * 3
        for k in (3, 20):
            params = {"k": k, "order": ["ascending"], "null_placement": [placement]}
            g.add(f"{op}/{t}/arrays/specials/k{k}/{placement}", op, params, "arrays",
                  [g.inline(t, vals, 7)])  # fmt: skip


def gen_rank(g, t):
    for tb in TIEBREAKERS:
        for order, placement in (("ascending", "at_end"), ("descending", "at_start")):
            suffix = f"/{tb}/{order}/{placement}"
            params = {"order": order, "null_placement": placement, "tiebreaker": tb}
            for _, n, nulls, off, rep in g.sweep(f"rank/{t}{suffix}"):
                cid = g.sweep_id("rank", t, "unary", n, nulls, off, rep) + suffix
                g.add(cid, "rank", params, "unary",
                      [g.gen_input(t, n, nulls, off, cid + "#0", **_kind(g, t, n))])  # fmt: skip
            for off in (0, 63):
                g.add(f"rank/{t}/unary/specials/offset{off}{suffix}", "rank", params, "unary",
                      [g.inline(t, specials(t) * 3, off)])  # fmt: skip
    for op in ("rank_quantile", "rank_normal"):
        for order, placement in (("ascending", "at_end"), ("descending", "at_start")):
            suffix = f"/{order}/{placement}"
            params = {"order": order, "null_placement": placement}
            for _, n, nulls, off, rep in g.sweep(f"{op}/{t}{suffix}", large=False):
                cid = g.sweep_id(op, t, "unary", n, nulls, off, rep) + suffix
                g.add(cid, op, params, "unary",
                      [g.gen_input(t, n, nulls, off, cid + "#0", **_kind(g, t, n))])  # fmt: skip
                _tolerate(g, op, cid)
            cid = f"{op}/{t}/unary/specials{suffix}"
            g.add(cid, op, params, "unary", [g.inline(t, specials(t) * 3, 7)])
            _tolerate(g, op, cid)
        cid = f"{op}/{t}/unary/len100003/some-nulls/offset1"
        g.add(cid, op, {"order": "ascending", "null_placement": "at_end"}, "unary",
              [g.gen_input(t, 100003, "some-nulls", 1, cid + "#0", **few(t))])  # fmt: skip
        _tolerate(g, op, cid)


def _tolerate(g, op, cid):
    """rank_normal's tolerance; a digest cannot allow for rounding, so a long
    result keeps every SAMPLE_EVERY-th value too, compared within it."""
    case = g.CASES[cid]
    exp = case["expected"]
    if op == "rank_normal" and "error" not in exp:
        case["tolerance"] = dict(NORMAL_TOLERANCE)
        case["divergence"] = "math-library-rounding"
        if "sha256" in exp:
            args = [cf.build_input(i) for i in case["inputs"]]
            result = evaluate(op, case["params"], args)
            exp["sample_every"] = g.SAMPLE_EVERY
            exp["sample"] = cf.encode_values("float64", cf.array_values(result)[:: g.SAMPLE_EVERY])


def gen_partition(g, t):
    op = "partition_nth_indices"
    for placement in ("at_end", "at_start"):
        for _, n, nulls, off, rep in g.sweep(f"{op}/{t}/{placement}"):
            cid = g.sweep_id(op, t, "unary", n, nulls, off, rep) + f"/{placement}"
            inp = g.gen_input(t, n, nulls, off, cid + "#0", **_kind(g, t, n))
            for pivot in sorted({0, n // 3, n - 1 if n else 0, n}):
                params = {"pivot": pivot, "null_placement": placement}
                g.add(f"{cid}/pivot{pivot}", op, params, "unary", [inp])
        vals = specials(t) * 3
        for pivot in range(0, len(vals) + 1, 4):
            params = {"pivot": pivot, "null_placement": placement}
            g.add(f"{op}/{t}/unary/specials/pivot{pivot}/{placement}", op, params, "unary",
                  [g.inline(t, vals, 1)])  # fmt: skip


def gen_errors(g):
    op = "select_k_unstable"
    one = {"order": ["ascending"], "null_placement": ["at_end"]}
    g.add(f"{op}/int32/arrays/negative-k", op, dict(one, k=-1), "arrays",
          [g.inline("int32", ["1", "2", "3"])])  # fmt: skip
    g.add(f"{op}/int32/arrays/no-keys", op, {"k": 1, "n_keys": 0, "order": [],
          "null_placement": []}, "arrays", [g.inline("int32", ["1", "2", "3"])])  # fmt: skip
    two = {"k": 1, "order": ["ascending"] * 2, "null_placement": ["at_end"] * 2}
    g.add(f"{op}/int32/arrays/length-mismatch", op, two, "arrays",
          [g.inline("int32", ["1", "2", "3"]), g.inline("int32", ["1", "2"])])  # fmt: skip
    op = "partition_nth_indices"
    for t in ("int32", "float64"):
        g.add(f"{op}/{t}/unary/pivot-past-end", op, {"pivot": 4, "null_placement": "at_end"},
              "unary", [g.inline(t, ["1", "2", "3"] if t == "int32" else [1.0, 2.0, 3.0])])  # fmt: skip
