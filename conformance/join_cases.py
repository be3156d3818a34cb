"""Hash joins in the conformance suite: how generate.py makes their cases (``gen``),
how pyarrow evaluates them (``evaluate``: pa.Table.join of two tables carrying their row
numbers), how a runner calls the C ABI (``call``: am_join_indices) and compares
(``check``).

Op ``join``, form ``table``: the inputs are the ``n_keys`` left key columns (l0, l1,
...) then the ``n_keys`` right key columns (r0, r1, ...); params ``n_keys`` and
``join_type`` (pyarrow's name: "inner", "left outer", ..., "right anti"). pyarrow joins
the two tables, each with a row-number column beside its keys, and the row numbers of
its output rows are the expected (left, right) index pairs (null where a row has no
partner; semi and anti joins give one side only).

Expected: ``{"pairs_sorted": true, "sides": ["left", "right"] or one of them, "count":
rows, "pairs": [[l, r], ...]}`` -- the pairs SORTED (None first): pyarrow's row order
is unspecified -- or, past 1,000 rows, ``"sha256"`` of the JSON text of the sorted pairs
(``json.dumps(pairs, separators=(",", ":"))``) instead of ``"pairs"``. A runner exports
its index arrays, sorts its pairs the same way and compares them exactly.
"""

import hashlib
import json
from collections import OrderedDict

import casefmt as cf
from casefmt import FLOAT_TYPES, INT_TYPES, SIGNED_TYPES, STRING_TYPES, TYPES
from sort_cases import string_input, string_keys

OPS = ["join"]
FILE = "join"
JOIN_TYPES = ["inner", "left outer", "right outer", "full outer", "left semi", "left anti",
              "right semi", "right anti"]  # fmt: skip
INLINE_PAIRS = 1000


# ---- pyarrow ---------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow as pa

    k = params["n_keys"]
    left = {f"l{i}": a for i, a in enumerate(args[:k])}
    right = {f"r{i}": a for i, a in enumerate(args[k:])}
    left["lrow"] = pa.array(range(len(args[0])), pa.int64())
    right["rrow"] = pa.array(range(len(args[k])), pa.int64())
    return pa.table(left).join(pa.table(right), [f"l{i}" for i in range(k)],
                               right_keys=[f"r{i}" for i in range(k)],
                               join_type=params["join_type"])  # fmt: skip


def map_error(exc):
    if "Incompatible data types for corresponding join field keys" in str(exc):
        return "AM_ETYPE"
    return None


def sides(join_type):
    if join_type in ("left semi", "left anti"):
        return ["left"]
    if join_type in ("right semi", "right anti"):
        return ["right"]
    return ["left", "right"]


def _key(pair):
    return [(v is not None, v or 0) for v in pair]


def _digest(pairs):
    text = json.dumps(pairs, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def expected(case, table):
    s = sides(case["params"]["join_type"])
    cols = [table.column({"left": "lrow", "right": "rrow"}[side]).to_pylist() for side in s]
    pairs = sorted(([*p] for p in zip(*cols)), key=_key)
    out = OrderedDict([("pairs_sorted", True), ("sides", s), ("count", len(pairs))])
    if len(pairs) <= INLINE_PAIRS:
        out["pairs"] = pairs
    else:
        out["sha256"] = _digest(pairs)
    return out


# ---- the C ABI --------------------------------------------------------------------------------


def call(case, arrays, scalars, out):
    from amabi import ffi, lib

    p = case["params"]
    k = p["n_keys"]
    left = ffi.new("am_array *[]", list(arrays[:k]) or [ffi.NULL])
    right = ffi.new("am_array *[]", list(arrays[k:]) or [ffi.NULL])
    li, ri = ffi.new("am_array **"), ffi.new("am_array **")
    jt = getattr(lib, "AM_JOIN_" + p["join_type"].upper().replace(" ", "_"))
    rc = lib.am_join_indices(left, right, k, jt, li, ri)
    return "am_join_indices", rc, (li, ri)


def check(case, handles, dev):
    from amabi import export_array, ffi, lib

    exp = case["expected"]
    s = exp["sides"]
    got = dict(zip(["left", "right"], handles))
    cols = []
    for side in ["left", "right"]:
        h = got[side]
        if side not in s:
            assert h == ffi.NULL, f"{side} indices written by a join that gives none"
            continue
        assert h != ffi.NULL, f"no {side} indices"
        assert lib.am_array_device(h) == dev, f"{side} indices not on the keys' device"
        arr = export_array(h)
        arr.validate(full=True)
        assert str(arr.type) == "int64", f"{side} indices of type {arr.type}"
        cols.append(arr.to_pylist())
    pairs = sorted(([*p] for p in zip(*cols)), key=_key)
    assert len(pairs) == exp["count"], f"{len(pairs)} rows, expected {exp['count']}"
    if "pairs" in exp:
        bad = [(a, b) for a, b in zip(pairs, exp["pairs"]) if a != b]
        assert not bad, f"{len(bad)} pairs differ, first: got {bad[0][0]} want {bad[0][1]}"
    else:
        assert _digest(pairs) == exp["sha256"], "sha256 of the sorted pairs differs"


# ---- inputs ------------------------------------------------------------------------------


def keys_kind(t, distinct):
    """gen kind parameters of about `distinct` key values."""
    if t == "bool":
        return {"kind": "uniform", "true_permille": 500}
    if t in INT_TYPES:
        lo = -(distinct // 2) if t in SIGNED_TYPES else 0
        tlo, thi = cf.int_range(t)
        lo, hi = max(lo, tlo), min(lo + distinct - 1, thi)
        return {"kind": "uniform", "lo": str(lo), "hi": str(hi)}
    return {"kind": "uniform", "integral": True, "lo": -(distinct // 2), "hi": distinct // 2}


def specials(t):
    if t == "bool":
        return [True, None, False, True, None]
    if t in FLOAT_TYPES:
        return [0.0, "-0.0", "nan", None, 1.5, "inf", "-inf", "nan", None, -0.0]
    return ["0", "1", None, "-1" if t in SIGNED_TYPES else "2", "1", None, "0"]


# ---- cases -----------------------------------------------------------------------------------


def gen(g):
    for t in TYPES:
        gen_sweep(g, t)
        gen_specials(g, t)
    gen_two_keys(g)
    gen_errors(g)
    for t in STRING_TYPES:
        gen_strings(g, t)


def gen_sweep(g, t):
    """The left key of type t over the sweep against a right key of about 64 rows, join
    types rotating; past 1,000 rows the key values are many (few matches a row)."""
    op = "join"
    for idx, n, nulls, off, rep in g.sweep(f"{op}/{t}"):
        jt = JOIN_TYPES[(idx + TYPES.index(t)) % len(JOIN_TYPES)]
        cid = g.sweep_id(op, t, "table", n, nulls, off, rep) + "/" + jt.replace(" ", "-")
        m = min(n, 64) if n else 3
        distinct = 5 if n <= 1000 else 100000
        inputs = [g.gen_input(t, n, nulls, off, cid + "#l0", **keys_kind(t, distinct)),
                  g.gen_input(t, m, "some-nulls" if m > 1 else "no-nulls", (off + 7) % 64,
                              cid + "#r0", **keys_kind(t, 5 if n <= 1000 else 64))]  # fmt: skip
        if t == "bool" and n > 1000 and jt not in ("left semi", "left anti"):
            jt = "left semi" if idx % 2 else "left anti"  # a bool key matches half the rows
            cid = cid.rsplit("/", 1)[0] + "/" + jt.replace(" ", "-")
        g.add(cid, op, {"n_keys": 1, "join_type": jt}, "table", inputs)


def gen_specials(g, t, vals=None, name="specials"):
    """NaN, both zeros, infinities, nulls and duplicates on both sides (or `vals`), every
    join type; empty sides."""
    op = "join"
    vals = specials(t) if vals is None else vals
    for jt in JOIN_TYPES:
        slug = jt.replace(" ", "-")
        g.add(f"{op}/{t}/table/{name}/{slug}", op, {"n_keys": 1, "join_type": jt}, "table",
              [g.inline(t, vals * 2, 7), g.inline(t, vals[::-1], 1)])  # fmt: skip
    g.add(f"{op}/{t}/table/empty-left/full-outer", op,
          {"n_keys": 1, "join_type": "full outer"}, "table",
          [g.inline(t, []), g.inline(t, vals)])  # fmt: skip
    g.add(f"{op}/{t}/table/empty-right/left-outer", op,
          {"n_keys": 1, "join_type": "left outer"}, "table",
          [g.inline(t, vals), g.inline(t, [])])  # fmt: skip


def gen_two_keys(g):
    op = "join"
    for a, b in (("int32", "float64"), ("bool", "uint16"), ("float32", "int8")):
        for jt in JOIN_TYPES:
            cid = f"{op}/{a}/table/two-keys/{a},{b}/{jt.replace(' ', '-')}"
            inputs = [g.gen_input(a, 200, "some-nulls", 3, cid + "#l0", **keys_kind(a, 4)),
                      g.gen_input(b, 200, "some-nulls", 0, cid + "#l1", **keys_kind(b, 3)),
                      g.gen_input(a, 50, "some-nulls", 1, cid + "#r0", **keys_kind(a, 4)),
                      g.gen_input(b, 50, "no-nulls", 63, cid + "#r1", **keys_kind(b, 3))]  # fmt: skip
            g.add(cid, op, {"n_keys": 2, "join_type": jt}, "table", inputs)


def gen_errors(g):
    op = "join"
    g.add(f"{op}/int32/table/key-types-differ", op, {"n_keys": 1, "join_type": "inner"},
          "table", [g.inline("int32", ["1", "2"]), g.inline("int64", ["1", "2"])])  # fmt: skip
    g.add(f"{op}/int32/table/length-mismatch", op, {"n_keys": 2, "join_type": "inner"},
          "table", [g.inline("int32", ["1", "2", "3"]), g.inline("int32", ["1", "2"]),
                    g.inline("int32", ["1"]), g.inline("int32", ["1"])])  # fmt: skip


def gen_strings(g, t):
    """String and binary keys, every join type: the special keys (duplicates and nulls
    on both sides; equal bytes match, nulls never), generated keys alone and beside an
    int8 key; empty sides; utf8 against large_utf8 (pyarrow's refusal)."""
    op = "join"
    gen_specials(g, t, string_keys(t), "string-keys")
    for jt in JOIN_TYPES:
        slug = jt.replace(" ", "-")
        cid = f"{op}/{t}/table/string-choice/{slug}"
        g.add(cid, op, {"n_keys": 1, "join_type": jt}, "table",
              [string_input(g, t, 500, "some-nulls", 3, cid + "#l0"),
               string_input(g, t, 64, "some-nulls", 0, cid + "#r0")])  # fmt: skip
        cid = f"{op}/{t}/table/two-keys/{t},int8/{slug}"
        g.add(cid, op, {"n_keys": 2, "join_type": jt}, "table",
              [string_input(g, t, 300, "some-nulls", 3, cid + "#l0"),
               g.gen_input("int8", 300, "some-nulls", 0, cid + "#l1", **keys_kind("int8", 3)),
               string_input(g, t, 60, "some-nulls", 1, cid + "#r0"),
               g.gen_input("int8", 60, "no-nulls", 63, cid + "#r1", **keys_kind("int8", 3))])  # fmt: skip
    if t == "string":
        g.add(f"{op}/{t}/table/key-types-differ", op, {"n_keys": 1, "join_type": "inner"},
              "table", [g.inline(t, ["a"]), g.inline("large_string", ["a"])])  # fmt: skip
