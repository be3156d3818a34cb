"""sort_indices and array_sort_indices in the conformance suite: how
generate.py makes their cases (``gen``, with generate.py's helpers passed in as ``g``),
how pyarrow.compute evaluates them (``evaluate``) and how a runner calls the C ABI for
them (``call``: am_sort_indices).

array_sort_indices: form ``unary``, params ``order`` ("ascending" / "descending") and
``null_placement`` ("at_end" / "at_start"), pyarrow's defaults where absent.
sort_indices: form ``arrays``, each input one key column of a table (named k0, k1, ...,
in sort-key order); params ``order`` (a list, one per key) and ``null_placement`` (one
for all keys, or a list: one per key, pyarrow 26's (name, order, null_placement) sort
keys); ``n_keys`` 0 asks for no sort key (an error); ``batch`` true: pyarrow sorts a
RecordBatch of the keys instead of a Table (the C call is the same; pyarrow 26 sorts a
dictionary key alone in a RecordBatch, not in a Table).

Every type over generate.py's sweep, the first key of few distinct values (long runs of
ties: stability), with the second key of many values (sort_indices); specials (NaN,
-0.0 beside 0.0, infinities, nulls, the integer extremes) at offsets 0, 7 and 63 in both
orders and both null placements; empty, one-row, all-equal, all-null and all-NaN inputs;
three keys of mixed types; mixed per-key null placements; the errors (keys of different
lengths, no key). String and binary keys (every type of casefmt.STRING_TYPES): empty
strings, values and their NUL-extended twins, prefixes, values past 8 bytes sharing
prefixes, non-ASCII UTF-8, bytes above 0x7f, nulls and duplicates, alone and beside
numeric keys (string_keys below; group_by and join cases take them too).
"""

import casefmt as cf
import string_cases
from casefmt import FLOAT_TYPES, INT_TYPES, SIGNED_TYPES, STRING_TYPES, TYPES

OPS = ["sort_indices", "array_sort_indices"]
FILE = "sort"
ORDERS = ["ascending", "descending"]
PLACEMENTS = ["at_end", "at_start"]


# ---- pyarrow ---------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow as pa
    import pyarrow.compute as pc

    placement = params.get("null_placement", "at_end")
    if op == "array_sort_indices":
        return pc.array_sort_indices(args[0], order=params.get("order", "ascending"),
                                     null_placement=placement)  # fmt: skip
    make = pa.record_batch if params.get("batch") else pa.table
    table = make({f"k{i}": a for i, a in enumerate(args)})
    n = params.get("n_keys", len(args))
    orders = params.get("order", ["ascending"] * n)
    places = placement if isinstance(placement, list) else [placement] * n
    keys = [(f"k{i}", orders[i], places[i]) for i in range(n)]
    return pc.sort_indices(table, sort_keys=keys)


def map_error(exc):
    import pyarrow as pa

    msg = str(exc)
    if isinstance(exc, pa.ArrowInvalid) and (
        msg == "Must specify one or more sort keys" or "expected length" in msg
    ):
        return "AM_EINVAL"
    return None


# ---- the C ABI --------------------------------------------------------------------------------


def call(case, arrays, scalars, out):
    from amabi import lib, sort_key_args

    op, p = case["op"], case["params"]
    if op == "array_sort_indices":
        orders = [p.get("order", "ascending")]
        n = 1
    else:
        n = p.get("n_keys", len(arrays))
        orders = p.get("order", ["ascending"] * n)
    places = p.get("null_placement", "at_end")
    places = places if isinstance(places, list) else [places] * n
    keys, desc, at = sort_key_args(arrays, orders, places)
    rc = lib.am_sort_indices(keys, n, desc, at, out)
    return "am_sort_indices", rc, out


# ---- inputs ------------------------------------------------------------------------------
# (rank_cases.py builds its inputs with these too)


def few(t):
    """gen kind parameters of few distinct values (long runs of ties)."""
    if t == "bool":
        return {"kind": "uniform", "true_permille": 600}
    if t in INT_TYPES:
        lo = -3 if t in SIGNED_TYPES else 0
        return {"kind": "uniform", "lo": str(lo), "hi": str(lo + 6)}
    return {"kind": "uniform", "integral": True, "lo": -3, "hi": 4}


def specials(t):
    """Hand-written values with repeats: NaN, both zeros (which tie) and infinities for
    floats, the extremes for integers."""
    if t == "bool":
        return [True, None, False, True, False, None, True]
    if t in FLOAT_TYPES:
        return [0.0, "-0.0", "nan", "inf", "-inf", 1.5, None, "-0.0", 0.0, "nan", 1.5, "inf",
                None, -2.5, "-inf", "-0.0"]  # fmt: skip
    lo, hi = cf.int_range(t)
    return [str(v) for v in (lo, hi, 0, 1, lo, hi, 1)] + [None, "0", None, str(hi - 1)]


def second(t):
    """The second key's type beside a first key of type t."""
    return "float64" if t in INT_TYPES or t == "bool" else "int32"


# ---- cases -----------------------------------------------------------------------------------


def gen(g):
    for t in TYPES:
        gen_array(g, t)
        gen_table(g, t)
    gen_three(g)
    gen_mixed_placements(g)
    gen_errors(g)
    for t in STRING_TYPES:
        gen_string_array(g, t)
        gen_string_table(g, t)


def _array_params(order, placement):
    return {"order": order, "null_placement": placement}


def gen_array(g, t):
    op = "array_sort_indices"
    variants = [("ascending", "at_end"), ("descending", "at_start")]
    for order, placement in variants:
        suffix = f"/{order}/{placement}"
        for _, n, nulls, off, rep in g.sweep(f"{op}/{t}{suffix}"):
            cid = g.sweep_id(op, t, "unary", n, nulls, off, rep) + suffix
            kind = few(t) if n % 2 else g.value_kind(t)
            g.add(cid, op, _array_params(order, placement), "unary",
                  [g.gen_input(t, n, nulls, off, cid + "#0", **kind)])  # fmt: skip
    for order in ORDERS:
        for placement in PLACEMENTS:
            params = _array_params(order, placement)
            suffix = f"/{order}/{placement}"
            for off in (0, 7, 63):
                g.add(f"{op}/{t}/unary/specials/offset{off}{suffix}", op, params, "unary",
                      [g.inline(t, specials(t) * 3, off)])  # fmt: skip
            g.add(f"{op}/{t}/unary/all-null{suffix}", op, params, "unary",
                  [g.inline(t, [None] * 9, 3)])  # fmt: skip
    params = _array_params("descending", "at_end")
    g.add(f"{op}/{t}/unary/empty", op, params, "unary", [g.inline(t, [])])
    g.add(f"{op}/{t}/unary/one-row", op, params, "unary", [g.inline(t, [specials(t)[1]], 1)])
    g.add(f"{op}/{t}/unary/all-equal", op, params, "unary", [g.inline(t, ["1"] * 80, 7)])
    if t in FLOAT_TYPES:
        for order in ORDERS:
            g.add(f"{op}/{t}/unary/zeros/{order}", op, _array_params(order, "at_end"), "unary",
                  [g.inline(t, ["-0.0", 0.0, "-0.0", 0.0, 0.0, "-0.0", -1.0, 1.0], 1)])  # fmt: skip
            g.add(f"{op}/{t}/unary/all-nan/{order}", op, _array_params(order, "at_start"),
                  "unary", [g.inline(t, ["nan", None, "nan", "nan", None])])  # fmt: skip


def gen_table(g, t):
    op = "sort_indices"
    t2 = second(t)
    variants = [
        (["ascending", "descending"], "at_end"),
        (["descending", "ascending"], "at_start"),
    ]
    for orders, placement in variants:
        suffix = f"/{','.join(o[0] for o in orders)}/{placement}"
        params = {"order": orders, "null_placement": placement}
        for _, n, nulls, off, rep in g.sweep(f"{op}/{t}{suffix}"):
            cid = g.sweep_id(op, t, "arrays", n, nulls, off, rep) + suffix
            k0 = g.gen_input(t, n, nulls, off, cid + "#0", **few(t))
            k1 = g.gen_input(t2, n, "some-nulls" if n > 1 else "no-nulls", (off + 7) % 64,
                             cid + "#1", **few(t2))  # fmt: skip
            g.add(cid, op, params, "arrays", [k0, k1])
    # one key; specials as the first key over ties broken by row-like second keys
    vals = specials(t) * 2
    for orders in (["ascending"], ["descending"]):
        for placement in PLACEMENTS:
            params = {"order": orders, "null_placement": placement}
            g.add(f"{op}/{t}/arrays/one-key/{orders[0]}/{placement}", op, params, "arrays",
                  [g.inline(t, vals, 7)])  # fmt: skip
    for placement in PLACEMENTS:
        params = {"order": ["descending", "ascending"], "null_placement": placement}
        tt = "int8" if t == "bool" else t
        ties = [str(i % 3) if tt in INT_TYPES else (i % 3) * 1.0 for i in range(len(vals))]
        g.add(f"{op}/{t}/arrays/specials-ties/{placement}", op, params, "arrays",
              [g.inline(t, vals, 1), g.inline(tt, ties, 63)])  # fmt: skip
    g.add(f"{op}/{t}/arrays/empty", op, {"order": ["ascending"] * 2}, "arrays",
          [g.inline(t, []), g.inline(t2, [])])  # fmt: skip
    g.add(f"{op}/{t}/arrays/one-row", op, {"order": ["descending"] * 2}, "arrays",
          [g.inline(t, [None]), g.inline(t2, ["1"])])  # fmt: skip


def gen_three(g):
    """Three keys of mixed types, every order combination."""
    op = "sort_indices"
    combos = [("int8", "float64", "bool"), ("float32", "uint64", "int16"),
              ("bool", "int64", "float32")]  # fmt: skip
    for types in combos:
        for mask in range(8):
            orders = [ORDERS[(mask >> k) & 1] for k in range(3)]
            for placement in PLACEMENTS:
                cid = (
                    f"{op}/{types[0]}/arrays/three-keys/{','.join(types)}/"
                    + f"{','.join(o[0] for o in orders)}/{placement}"
                )
                inputs = [g.gen_input(tk, 300, "some-nulls", 3 * k, f"{cid}#{k}", **few(tk))
                          for k, tk in enumerate(types)]  # fmt: skip
                g.add(cid, op, {"order": orders, "null_placement": placement}, "arrays", inputs)


def gen_mixed_placements(g):
    """Per-key null placements that differ, over keys with nulls (pyarrow 26's
    (name, order, null_placement) sort keys)."""
    op = "sort_indices"
    combos = [("int32", "float64"), ("float32", "int8", "bool"), ("uint16", "float32", "int64")]
    for types in combos:
        for mask in range(1, 2 ** len(types) - 1):  # not all the same
            places = [PLACEMENTS[(mask >> k) & 1] for k in range(len(types))]
            for orders in (["ascending"] * len(types), ["descending", "ascending", "descending"]):
                orders = orders[: len(types)]
                cid = (f"{op}/{types[0]}/arrays/mixed-placements/{','.join(types)}/"
                       f"{','.join(o[0] for o in orders)}/{','.join(x[3:] for x in places)}")  # fmt: skip
                inputs = [g.gen_input(tk, 200, "some-nulls", 5 * k, f"{cid}#{k}", **few(tk))
                          for k, tk in enumerate(types)]  # fmt: skip
                g.add(cid, op, {"order": orders, "null_placement": places}, "arrays", inputs)
        # specials (NaN, nulls) in every key
        t0 = types[0]
        vals = specials(t0) * 2
        cid = f"{op}/{t0}/arrays/mixed-placements-specials/{','.join(types[:2])}"
        k1 = [specials(types[1])[i % len(specials(types[1]))] for i in range(len(vals))]
        g.add(cid, op, {"order": ["descending", "ascending"], "null_placement": ["at_start", "at_end"]},
              "arrays", [g.inline(t0, vals, 3), g.inline(types[1], k1, 5)])  # fmt: skip


def gen_errors(g):
    op = "sort_indices"
    g.add(f"{op}/int32/arrays/length-mismatch", op, {"order": ["ascending"] * 2}, "arrays",
          [g.inline("int32", ["1", "2", "3"]), g.inline("int32", ["1", "2"])])  # fmt: skip
    g.add(f"{op}/int32/arrays/no-keys", op, {"n_keys": 0, "order": []}, "arrays",
          [g.inline("int32", ["1", "2", "3"])])  # fmt: skip


# ---- string and binary keys ------------------------------------------------------------


def string_keys(t):
    """Key values of string type t (bytes for the binary types), with repeats and nulls: empty, a value and
    its NUL-extended twins ("a" < "a\\0" < "a\\0\\0"), prefixes, values past 8 bytes
    that share their first 8 or 32, multi-byte UTF-8, DEL and NUL inside."""
    if t == string_cases.FIXED:
        words = [b"abc", b"\x00\x00\x00", b"ab\x00", b"\xff\xfe\xfd", b"abd", None, b"abc",
                 b"\x00\x00\x01", b"\x80ab", None]  # fmt: skip
        return words
    words = ["", "a", "a\x00", "a\x00\x00", "ab", "abcdefgh", "abcdefgh\x00", "abcdefghi",
             "abcdefgh" * 4, "abcdefgh" * 4 + "a", None, "é", "日本語", "zz\x00z", "", "a", None,
             "\x7f", "Z"]  # fmt: skip
    if t not in cf.UTF8_TYPES:
        words = [None if w is None else w.encode() for w in words]
    return words


def string_input(g, t, n, nulls, off, key):
    """n generated values of string type t drawn from string_cases' words."""
    return g.gen_input(t, n, nulls, off, key, kind="choice", choices=string_cases.choices(t))


def gen_string_array(g, t):
    op = "array_sort_indices"
    words = string_keys(t)
    for order in ORDERS:
        for placement in PLACEMENTS:
            params = _array_params(order, placement)
            suffix = f"/{order}/{placement}"
            for off in (0, 7):
                g.add(f"{op}/{t}/unary/string-keys/offset{off}{suffix}", op, params, "unary",
                      [g.inline(t, words * 3, off)])  # fmt: skip
            for n in (300, 2000):  # inline, then a generated spec
                cid = f"{op}/{t}/unary/choice/len{n}{suffix}"
                g.add(cid, op, params, "unary", [string_input(g, t, n, "some-nulls", 3, cid)])
    params = _array_params("descending", "at_start")
    g.add(f"{op}/{t}/unary/empty", op, params, "unary", [g.inline(t, [])])
    g.add(f"{op}/{t}/unary/one-row", op, params, "unary", [g.inline(t, words[1:2], 1)])
    g.add(f"{op}/{t}/unary/all-equal", op, params, "unary", [g.inline(t, words[1:2] * 80, 7)])
    g.add(f"{op}/{t}/unary/all-null", op, params, "unary", [g.inline(t, [None] * 9, 3)])


def gen_string_table(g, t):
    """A string key before and after a numeric key of few values, two string keys;
    every order pair, both placements."""
    op = "sort_indices"
    for orders in (["ascending", "descending"], ["descending", "ascending"]):
        for placement in PLACEMENTS:
            params = {"order": orders, "null_placement": placement}
            suffix = f"/{','.join(o[0] for o in orders)}/{placement}"
            for shape in ("string-first", "string-second", "two-strings"):
                cid = f"{op}/{t}/arrays/{shape}{suffix}"
                s0 = string_input(g, t, 400, "some-nulls", 5, cid + "#s0")
                other = (string_input(g, t, 400, "some-nulls", 0, cid + "#s1")
                         if shape == "two-strings"
                         else g.gen_input("int16", 400, "some-nulls", 9, cid + "#n",
                                          **few("int16")))  # fmt: skip
                keys = [other, s0] if shape == "string-second" else [s0, other]
                g.add(cid, op, params, "arrays", keys)
    g.add(f"{op}/{t}/arrays/empty", op, {"order": ["ascending"] * 2}, "arrays",
          [g.inline(t, []), g.inline("int32", [])])  # fmt: skip
