"""The hash-based functions in the conformance suite: how generate.py makes
their cases (``gen``, with generate.py's helpers passed in as ``g``), how pyarrow.compute
evaluates them (``evaluate``), what a result of two arrays is expected to be
(``expected``), and how a runner calls the C ABI for them (``call``).

Ops: is_in, index_in (form ``array-array``: values, then the value set, of one type --
pyarrow's casts between types are the Python package's; params ``skip_nulls``), unique,
value_counts (fields values, counts), count_distinct (param ``mode``), dictionary_encode
(fields indices, dictionary; param ``null_encoding``), mode (fields mode, count; params
``n``, ``skip_nulls``, ``min_count``).

Every function x type over generate.py's sweep twice: few distinct values (a small
integral range: long runs of repeats, the null group among them) and many (the type's
whole range, or floats over [-1000, 1000)); floats' specials (0.0 and -0.0, NaN,
infinities) inline at offsets 0, 7 and 63; all-null and empty inputs; value sets with
nulls and duplicates, empty and all-null, each with skip_nulls both ways; mode's options
grid and its errors (n < 1).
"""

from collections import OrderedDict

import casefmt as cf
from casefmt import FLOAT_TYPES, INT_TYPES, SIGNED_TYPES, TYPES

OPS = ["is_in", "index_in", "unique", "value_counts", "count_distinct"]
OPS += ["dictionary_encode", "mode"]
FILE = "hash"
# Functions of two array results: their fields in the C call's output order.
FIELDS = {
    "value_counts": ("values", "counts"),
    "dictionary_encode": ("indices", "dictionary"),
    "mode": ("mode", "count"),
}
COUNT_MODES = {"only_valid": 0, "only_null": 1, "all": 2}
NULL_ENCODINGS = {"mask": 0, "encode": 1}


# ---- pyarrow ---------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow.compute as pc

    if op in ("is_in", "index_in"):
        options = pc.SetLookupOptions(args[1], skip_nulls=params.get("skip_nulls", False))
        return pc.call_function(op, [args[0]], options)
    if op == "count_distinct":
        return pc.count_distinct(args[0], mode=params.get("mode", "only_valid"))
    if op == "dictionary_encode":
        return pc.dictionary_encode(args[0], null_encoding=params.get("null_encoding", "mask"))
    if op == "mode":
        return pc.mode(args[0], **params)
    return pc.call_function(op, [args[0]])


def map_error(exc):
    """am_status of pyarrow's errors of these functions, None for the others."""
    if "ModeOptions::n must be strictly positive" in str(exc):
        return "AM_EINVAL"
    return None


def _array_expectation(g, arr):
    t = cf.type_name(arr.type)
    if len(arr) <= g.INLINE_MAX:
        return OrderedDict([("type", t), ("values", cf.encode_values(t, cf.array_values(arr)))])
    return cf.hashed_expectation(arr)


def expected(g, op, result):
    """The expectation of a result of two arrays (a StructArray or DictionaryArray):
    {"fields": {name: array expectation}} in the C call's output order; None for the
    others (generate.py's own expectation then)."""
    if op not in FIELDS:
        return None
    if op == "dictionary_encode":
        parts = (result.indices, result.dictionary)
    else:
        parts = (result.field(0), result.field(1))
    return {
        "fields": OrderedDict(
            (name, _array_expectation(g, part)) for name, part in zip(FIELDS[op], parts)
        )
    }


# ---- inputs ------------------------------------------------------------------------------


def few(t):
    """gen kind parameters of few distinct values (long runs of repeats)."""
    if t == "bool":
        return {"kind": "uniform", "true_permille": 700}
    if t in INT_TYPES:
        lo = -3 if t in SIGNED_TYPES else 0
        return {"kind": "uniform", "lo": str(lo), "hi": str(lo + 9)}
    return {"kind": "uniform", "integral": True, "lo": -4, "hi": 5}


def many(t):
    """gen kind parameters of many distinct values."""
    if t == "bool":
        return {"kind": "uniform"}
    if t in INT_TYPES:
        return {"kind": "uniform"}
    return {"kind": "uniform", "lo": -1000.0, "hi": 1000.0}


def specials(t, zero_signs=True):
    """Hand-written values with repeats: NaN, both zeros and infinities for floats,
    the extremes for integers. Without `zero_signs` no -0.0: mode reports a zero of
    either sign over a mix of both (pyarrow sorts them with an unstable sort; see
    the README's divergences)."""
    if t == "bool":
        return [True, None, False, True, False, None, True]
    if t in FLOAT_TYPES:
        nz = "-0.0" if zero_signs else 0.0
        return [0.0, nz, "nan", "inf", "-inf", 1.5, None, nz, 0.0, "nan", 1.5, "inf",
                None, -2.5, "-inf"]  # fmt: skip
    lo, hi = cf.int_range(t)
    return [str(v) for v in (lo, hi, 0, 1, lo, hi, 1)] + [None, "0", None, str(hi - 1)]


def value_sets(g, t):
    """(name, value-set input) pairs: duplicates and a null, no null, empty, all-null,
    and specials (for floats: both zeros and NaN)."""
    vals = [v for v in specials(t) if v is not None]
    return [
        ("dups-null", g.inline(t, [vals[2], None, vals[0], vals[2], None, vals[1]])),
        ("no-null", g.inline(t, [vals[1], vals[3], vals[1]], 7)),
        ("empty", g.inline(t, [])),
        ("all-null", g.inline(t, [None, None, None])),
        ("specials", g.inline(t, specials(t), 63)),
    ]


# ---- cases -------------------------------------------------------------------------------


def _sweep(g, op, t, params, suffix, form="unary", extra_inputs=()):
    """generate.py's sweep twice: few distinct values (rep 0) and many (rep 1)."""
    for _, n, nulls, off, rep in g.sweep(f"{op}/{t}{suffix}", reps=2):
        cid = g.sweep_id(op, t, form, n, nulls, off, rep) + suffix
        kind = few(t) if rep == 0 else many(t)
        inp = g.gen_input(t, n, nulls, off, cid + "#0", **kind)
        g.add(cid, op, params, form, [inp, *extra_inputs])


def _edges(g, op, t, params, suffix, form="unary", extra_inputs=()):
    values = specials(t, zero_signs=op != "mode")
    for off in (0, 7, 63):
        g.add(f"{op}/{t}/{form}/specials/offset{off}{suffix}", op, params, form,
              [g.inline(t, values * 5, off), *extra_inputs])  # fmt: skip
    g.add(f"{op}/{t}/{form}/all-null{suffix}", op, params, form,
          [g.inline(t, [None] * 70, 3), *extra_inputs])  # fmt: skip


def gen_lookup(g):
    for op in ("is_in", "index_in"):
        for t in TYPES:
            sets = value_sets(g, t)
            for skip in (False, True):
                params = {"skip_nulls": skip}
                suffix = "/skip_nulls" if skip else ""
                # The sweep against a value set drawn as the values are: some present.
                vs = g.gen_input(t, 40, "some-nulls", 0, f"{op}/{t}/set", **few(t))
                _sweep(g, op, t, params, suffix, "array-array", [vs])
                for name, s in sets:
                    g.add(f"{op}/{t}/array-array/set-{name}{suffix}", op, params, "array-array",
                          [g.inline(t, specials(t) * 3, 1), s])  # fmt: skip
                _edges(g, op, t, params, suffix, "array-array", [sets[0][1]])
                # A large value set of many values.
                big = g.gen_input(t, 1000, "some-nulls", 7, f"{op}/{t}/bigset", **many(t))
                src = g.gen_input(t, 1000, "some-nulls", 0, f"{op}/{t}/bigset", **many(t))
                g.add(f"{op}/{t}/array-array/set-large{suffix}", op, params, "array-array",
                      [src, big])  # fmt: skip


def gen_grouping(g):
    for t in TYPES:
        for op in ("unique", "value_counts"):
            _sweep(g, op, t, {}, "")
            _edges(g, op, t, {}, "")
        for mode in COUNT_MODES:
            suffix = "" if mode == "only_valid" else f"/{mode}"
            _sweep(g, "count_distinct", t, {"mode": mode}, suffix)
            _edges(g, "count_distinct", t, {"mode": mode}, suffix)
        for enc in NULL_ENCODINGS:
            suffix = "" if enc == "mask" else f"/{enc}"
            _sweep(g, "dictionary_encode", t, {"null_encoding": enc}, suffix)
            _edges(g, "dictionary_encode", t, {"null_encoding": enc}, suffix)


MODE_GRID = [
    ({"n": 3}, "/n3"),
    ({"n": 1000}, "/n1000"),
    ({"skip_nulls": False}, "/keep_nulls"),
    ({"min_count": 5}, "/min_count5"),
    ({"n": 2, "skip_nulls": False, "min_count": 2}, "/n2-keep_nulls-min_count2"),
]


def gen_mode(g):
    for t in TYPES:
        _sweep(g, "mode", t, {}, "")
        _edges(g, "mode", t, {}, "")
        for params, suffix in MODE_GRID:
            _edges(g, "mode", t, params, suffix)
            for nulls in ("no-nulls", "some-nulls"):
                cid = f"mode/{t}/unary/len65/{nulls}{suffix}"
                g.add(cid, "mode", params, "unary",
                      [g.gen_input(t, 65, nulls, 1, cid, **few(t))])  # fmt: skip
        for n in (0, -1):
            g.add(f"mode/{t}/unary/n{n}", "mode", {"n": n}, "unary",
                  [g.inline(t, specials(t))])  # fmt: skip


def gen(g):
    """Every hash-function case; `g` is generate.py."""
    gen_lookup(g)
    gen_grouping(g)
    gen_mode(g)


# ---- the C ABI ---------------------------------------------------------------------------


def _check_dictionary_export(handle):
    """am_export of dictionary_encode's result is Arrow's dictionary array: pyarrow
    imports a DictionaryArray whose dictionary is am_dictionary's; returns its indices."""
    import amabi
    import pyarrow as pa
    from amabi import ffi, lib

    arr = amabi.export_array(handle)
    assert isinstance(arr, pa.DictionaryArray), f"exported as {arr.type}, not a dictionary"
    arr.validate(full=True)
    dictionary = ffi.new("am_array **")
    amabi.check("am_dictionary", lib.am_dictionary(handle, dictionary))
    try:
        want = amabi.export_array(dictionary[0])
    finally:
        lib.am_release(dictionary[0])
    assert cf.digest_array(arr.dictionary) == cf.digest_array(want), "exported dictionary differs"
    assert arr.indices.type == pa.int32(), f"indices {arr.indices.type}"
    return arr.indices


def call(case, arrays):
    """(function name, status, output) of the case's call: an am_array **, a pair of
    them for the functions of two results, an am_scalar * for count_distinct."""
    import amabi
    from amabi import ffi, lib

    op, p = case["op"], case["params"]
    if op in ("is_in", "index_in"):
        out = ffi.new("am_array **")
        fn = getattr(lib, "am_" + op)
        return "am_" + op, fn(arrays[0], arrays[1], int(p.get("skip_nulls", False)), out), out
    if op == "unique":
        out = ffi.new("am_array **")
        return "am_unique", lib.am_unique(arrays[0], out), out
    if op == "count_distinct":
        out = amabi.output_scalar()
        mode = COUNT_MODES[p.get("mode", "only_valid")]
        return "am_count_distinct", lib.am_count_distinct(arrays[0], mode, out), out
    out = (ffi.new("am_array **"), ffi.new("am_array **"))
    if op == "value_counts":
        return "am_value_counts", lib.am_value_counts(arrays[0], *out), out
    if op == "dictionary_encode":
        enc = NULL_ENCODINGS[p.get("null_encoding", "mask")]
        whole = ffi.new("am_array **")
        rc = lib.am_dictionary_encode(arrays[0], enc, whole)
        if rc == lib.AM_OK:
            try:
                # The fields, each checked as any result: the exported indices (imported
                # back onto the device) and the dictionary (am_dictionary).
                indices = _check_dictionary_export(whole[0])
                dev = lib.am_array_device(arrays[0])
                out[0][0] = amabi.import_array(indices, dev)[0]
                amabi.check("am_dictionary", lib.am_dictionary(whole[0], out[1]))
            finally:
                lib.am_release(whole[0])
        return "am_dictionary_encode", rc, out
    if op == "mode":
        n, skip = p.get("n", 1), int(p.get("skip_nulls", True))
        rc = lib.am_mode(arrays[0], n, skip, p.get("min_count", 0), *out)
        return "am_mode", rc, out
    raise AssertionError(op)
