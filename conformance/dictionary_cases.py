"""Dictionary arrays in the conformance suite (issue #13): every call that takes them, over
the 8 index types and the value types below. How generate.py makes the cases (``gen``,
generate.py's helpers passed in as ``g``), how pyarrow evaluates this family's own ops
(``evaluate``), what a dictionary result is expected to be (``expected``), and how a
runner calls the C ABI for the cases whose result is a dictionary (``call``).

A dictionary input is an array input of the indices (an integer type, its own offset,
nulls and null_fill) with a "dictionary", an array input of the values, and optionally
"ordered": true (casefmt.dictionary_array). Indices under null slots and in the padding
before a slice are out of the dictionary's range on purpose: only the valid, visible
ones count. A dictionary result (take, filter, slice, drop_null, unique, value_counts'
values, dictionary_encode, concat, dictionary_from_arrays) is expected as the fields
"indices" and "dictionary" (then "counts" for value_counts); the dictionary's
expectation says "ordered": true where pyarrow's result is ordered.

Ops of this family: dictionary_decode (am_dictionary_decode; any other array comes back
as it is), concat (form "arrays": am_concat, pyarrow's concat_arrays with its
dictionary unification and errors) and dictionary_from_arrays (form "array-array":
indices, then dictionary, params {"ordered"}: am_import of the dictionary array the two
make, pyarrow's DictionaryArray.from_arrays, whose index check is am_import's). The
other ops are the suite's own: compare (with a scalar of the value type, with another
dictionary array, with a plain array of the values), is_in / index_in (a plain value
set), is_null, is_valid, count, cast, and the refusals of count_distinct, min, max, sum
and mean (pyarrow has no kernel for dictionaries). value_counts of form "chunked" (the
inputs are one ChunkedArray's chunks: am_concat, then am_value_counts) records a
divergence (README.md, Divergences: chunked-dictionary-counts).

Dictionary keys (gen_keys, over KEY_PAIRS): array_sort_indices, and sort_indices of a
RecordBatch of one dictionary key (pyarrow 26 sorts by the values' ranks: nulls of either
kind together, NaN ranked after the numbers, so first when descending) and its refusal
beside other keys; the refusals of rank, rank_quantile, rank_normal and
partition_nth_indices; group_by by dictionary keys (by index: a value twice in the
dictionary is two groups, a null value's index a group apart from the null index) with
count, count_distinct and distinct over a dictionary value column and pyarrow's
refusals of the rest; join by dictionary keys (by value) against dictionary arrays of
other dictionaries and index types and plain arrays of the value type, every join type,
and the refusal of other value types. No select_k_unstable case: pyarrow 26 crashes on a
table with a dictionary sort key.

Every case with a dictionary input lives in cases/dictionary.json.gz (``file_of``).
Every expected value is pyarrow 26's.
"""

import math
from collections import OrderedDict

import casefmt as cf
import hash_cases
import join_cases
import string_cases

FILE = "dictionary"
OPS = ["dictionary_decode", "concat", "dictionary_from_arrays"]
# The suite's ops whose result is a dictionary array when their input is one.
KEEPS = ["take", "filter", "slice", "drop_null", "unique", "value_counts", "dictionary_encode"]
INDEX_TYPES = cf.INT_TYPES
VALUE_TYPES = ["int16", "int64", "uint8", "uint32", "float32", "float64", "bool", "string",
               "large_string", "binary", "large_binary", "fixed_size_binary[3]",
               "timestamp[ms]", "timestamp[ns]", "date32[day]", "date64[ms]", "time32[s]",
               "time64[us]", "duration[s]"]  # fmt: skip
# (length, nulls, offset) of the indices: the suite's lengths, null patterns and offsets.
SHAPES = string_cases.SHAPES
DIVERGENCE = "chunked-dictionary-counts"
# The dictionary key types of gen_keys: two index types, three value types.
KEY_PAIRS = [(it, vt) for it in ("int8", "int32") for vt in ("string", "int64", "float64")]
ORDERS = ["ascending", "descending"]
PLACEMENTS = ["at_end", "at_start"]


# ---- values ----------------------------------------------------------------------------------


def words(vt):
    """Distinct values of value type `vt` (decoded): each dictionary's material."""
    if vt == "bool":
        return [True, False]
    if vt in cf.FLOAT_TYPES:
        big = 3.0e38 if vt == "float32" else 1.0e300
        return [1.5, 0.0, -0.0, math.nan, math.inf, -math.inf, -2.25, big]
    if vt in cf.STRING_TYPES:
        return cf.decode_values(vt, string_cases.choices(vt))
    if vt.startswith("time"):  # within the day
        day = {"s": 86400, "ms": 86400 * 10**3, "us": 86400 * 10**6, "ns": 86400 * 10**9}
        end = day[vt[vt.index("[") + 1 : -1]]
        return [0, 1, 59, end // 2, end - 1]
    if vt == "date64[ms]":
        return [d * 86_400_000 for d in (-719162, -1, 0, 1, 18262, 2932896)]
    lo, hi = cf.int_range(vt)
    if vt in cf.UNSIGNED_TYPES:
        return [0, 1, 2, 7, hi // 2, hi - 1, hi]
    return [lo, lo + 1, -1, 0, 1, 7, hi - 1, hi]


def absent(vt):
    """A value of `vt` in no dictionary here (None for bool, whose two values are)."""
    if vt == "bool":
        return None
    if vt in cf.FLOAT_TYPES:
        return 0.5
    if vt in cf.STRING_TYPES:
        return {string_cases.FIXED: b"\x07\x07\x07", "string": "zz", "large_string": "zz"}.get(
            vt, b"zz"
        )
    return 3


def dictionary_of(g, vt, variant, k):
    """The dictionary input of a case: `vt`'s words rotated by k (so that two cases'
    dictionaries differ) and, by variant, with a null among them ("null"), a value twice
    ("dups"), empty ("empty"), or sliced past poison ("sliced")."""
    w = words(vt)
    w = w[k % len(w) :] + w[: k % len(w)]
    if variant == "null":
        w = w[:2] + [None] + w[2:]
    elif variant == "dups":
        w = w + w[:2]
    elif variant == "empty":
        w = []
    return g.inline(vt, w, 3 if variant == "sliced" else 0)


def length_of(inp):
    """The number of slots of an array input (after its offset)."""
    return inp["gen"]["length"] if "gen" in inp else len(inp["values"]) - inp.get("offset", 0)


def out_of_range(it):
    """An index of type `it` outside every dictionary here: under nulls and in padding."""
    return "-1" if it in cf.SIGNED_TYPES else str(min(cf.int_range(it)[1], 200))


def dict_input(g, it, vt, shape, key, variant="plain", k=0, ordered=False, nulls=None):
    """A dictionary input: indices of type `it` of the (length, nulls, offset) shape drawn
    over the dictionary (an empty one gets all-null indices)."""
    n, pattern, off = shape
    dictionary = dictionary_of(g, vt, variant, k)
    size = length_of(dictionary)
    if size == 0:
        pattern = "all-nulls"
    inp = g.gen_input(it, n, nulls or pattern, off, key, null_fill=out_of_range(it),
                      kind="uniform", lo="0", hi=str(max(size - 1, 0)))  # fmt: skip
    inp["dictionary"] = dictionary
    if ordered:
        inp["ordered"] = True
    return inp


def plain_of(g, vt, n, nulls, off, key):
    """A plain array of the dictionary's values (a comparand, or a value set)."""
    choices = cf.encode_values(vt, words(vt))
    return g.gen_input(vt, n, nulls, off, key, kind="choice", choices=choices)


def type_id(it, vt):
    return f"dictionary<{it},{vt}>"


# ---- pyarrow -----------------------------------------------------------------------------------


def evaluate(op, params, args):
    import pyarrow as pa
    import pyarrow.compute as pc

    if op == "dictionary_decode":
        return pc.dictionary_decode(args[0])
    if op == "concat":
        return pa.concat_arrays(args)
    if op == "dictionary_from_arrays":
        return pa.DictionaryArray.from_arrays(args[0], args[1], ordered=params["ordered"])
    raise AssertionError(op)


def map_error(exc):
    """am_status of pyarrow's errors of dictionaries, None for the others."""
    msg = str(exc)
    if "Cannot yet unify dictionaries with nulls" in msg or "requires a larger index" in msg:
        return "AM_EINVAL"
    if "must be identically typed" in msg or msg == "Indices must be integer type":
        return "AM_ETYPE"
    return None


def _dictionary_expectation(g, arr):
    exp = hash_cases._array_expectation(g, arr.dictionary)
    if arr.type.ordered:
        exp["ordered"] = True
    return exp


def expected(g, result):
    """The fields of a dictionary result (value_counts: its values' two and the counts),
    None for the other results."""
    import pyarrow as pa

    if isinstance(result, pa.StructArray) and isinstance(result.field(0), pa.DictionaryArray):
        values, counts = result.field(0), result.field(1)
        fields = [("indices", hash_cases._array_expectation(g, values.indices)),
                  ("dictionary", _dictionary_expectation(g, values)),
                  ("counts", hash_cases._array_expectation(g, counts))]  # fmt: skip
        return {"fields": OrderedDict(fields)}
    if isinstance(result, pa.DictionaryArray):
        fields = [("indices", hash_cases._array_expectation(g, result.indices)),
                  ("dictionary", _dictionary_expectation(g, result))]  # fmt: skip
        return {"fields": OrderedDict(fields)}
    return None


def file_of(case):
    """The case file of a case with a dictionary input (this family's), else None."""
    if case["op"] in OPS or any("dictionary" in inp for inp in case["inputs"]):
        return FILE
    return None


# ---- cases -------------------------------------------------------------------------------------


def combos(g, op):
    """(index type, value type) pairs of an op: every index type and every value type,
    paired by a rotation that differs between ops."""
    shift = g.seed_of(op) % len(VALUE_TYPES)
    pairs = [(it, VALUE_TYPES[(k + shift) % len(VALUE_TYPES)]) for k, it in enumerate(INDEX_TYPES)]
    pairs += [(INDEX_TYPES[(k + shift) % len(INDEX_TYPES)], vt) for k, vt in enumerate(VALUE_TYPES)]
    return list(OrderedDict.fromkeys(pairs))


VARIANTS = ["plain", "null", "dups", "sliced", "plain"]


def each_input(g, op, form, per=3, extra=""):
    """(case id, dictionary input, its value type, k) over the op's pairs, `per` shapes
    each (every shape across the pairs), the dictionary's variant and the ordered flag
    rotating."""
    for c, (it, vt) in enumerate(combos(g, op)):
        for j in range(per):
            k = c * per + j
            shape = SHAPES[k % len(SHAPES)]
            cid = g.sweep_id(op, type_id(it, vt), form, *shape, extra=extra)
            variant = VARIANTS[k % len(VARIANTS)]
            inp = dict_input(g, it, vt, shape, cid, variant, k, ordered=k % 4 == 3)
            yield cid, inp, vt, k


def gen_unary(g):
    for op in ("dictionary_decode", "drop_null", "is_null", "is_valid", "unique", "value_counts"):
        for cid, inp, _, _ in each_input(g, op, "unary"):
            g.add(cid, op, {}, "unary", [inp])
    for mode in ("only_valid", "only_null", "all"):
        for cid, inp, _, _ in each_input(g, f"count-{mode}", "unary"):
            g.add(cid, "count", {"mode": mode}, "unary", [inp])
    for enc in hash_cases.NULL_ENCODINGS:  # identity under either encoding
        for cid, inp, _, _ in each_input(g, f"dictionary_encode-{enc}", "unary", per=2):
            g.add(cid, "dictionary_encode", {"null_encoding": enc}, "unary", [inp])
    for cid, inp, _, k in each_input(g, "slice", "unary"):
        n = length_of(inp)
        g.add(cid, "slice", {"offset": min(k % 5, n), "length": 3 + k % 40}, "unary", [inp])
    for cid, inp, vt, k in each_input(g, "cast", "unary", per=2):
        to = "float64" if vt in cf.NUMERIC_TYPES and k % 2 else vt
        g.add(cid, "cast", {"to": to, "safe": True}, "unary", [inp])
    # pyarrow has no kernel for these over dictionaries; neither has the library
    for op in ("count_distinct", "min", "max", "sum", "mean"):
        for cid, inp, _, _ in each_input(g, op, "unary", per=1):
            g.add(cid, op, {}, "unary", [inp])


def gen_selection(g):
    for cid, inp, _, k in each_input(g, "take", "array-array"):
        n = length_of(inp)
        idx = g.gen_input("int32" if k % 2 else "int64", n, "some-nulls" if n > 1 else "no-nulls",
                          0, cid + "/idx", kind="uniform", lo="0", hi=str(max(n - 1, 0)))  # fmt: skip
        g.add(cid, "take", {}, "array-array", [inp, idx])
    for cid, inp, _, k in each_input(g, "filter", "array-array"):
        n = length_of(inp)
        mask = g.gen_input("bool", n, "some-nulls" if n > 1 else "no-nulls", k % 5, cid + "/mask",
                           kind="uniform", true_permille=[500, 100, 900][k % 3])  # fmt: skip
        g.add(cid, "filter", {}, "array-array", [inp, mask])
        g.add(cid + "/emit_null", "filter", {"null_selection": "emit_null"}, "array-array",
              [inp, mask])  # fmt: skip
    for it in INDEX_TYPES:  # an index past the end of the taken array
        inp = dict_input(g, it, "string", (3, "no-nulls", 0), f"take/{it}/oob")
        g.add(f"take/{type_id(it, 'string')}/array-array/out-of-bounds", "take", {},
              "array-array", [inp, g.inline("int64", [0, 3])])  # fmt: skip


def gen_compare(g):
    cmps = list(g.CMP)
    for cid, inp, vt, k in each_input(g, "compare-scalar", "array-scalar"):
        w = words(vt)
        pick = [w[k % len(w)], absent(vt), None][k % 3]
        for c in cmps if k % 5 == 0 else [cmps[k % 6]]:
            g.add(f"{cid}/{c}", "compare", {"cmp": c}, "array-scalar", [inp, g.scalar(vt, pick)])
    for cid, inp, vt, k in each_input(g, "compare-dictionary", "array-array"):
        n = length_of(inp)
        other = dict_input(g, inp["type"], vt, (n, "some-nulls" if n > 1 else "no-nulls", 0),
                           cid + "/r", VARIANTS[(k + 2) % 5], k + 3)  # fmt: skip
        c = cmps[k % 6]
        g.add(f"{cid}/{c}", "compare", {"cmp": c}, "array-array", [inp, other])
        plain = plain_of(g, vt, n, "some-nulls" if n > 1 else "no-nulls", 1, cid + "/plain")
        c = cmps[(k + 1) % 6]
        g.add(f"{cid}/plain/{c}", "compare", {"cmp": c}, "array-array", [inp, plain])


def gen_lookup(g):
    for op in ("is_in", "index_in"):
        for skip in (False, True):
            suffix = "/skip_nulls" if skip else ""
            for cid, inp, vt, k in each_input(g, op + suffix, "array-array", per=2):
                w = words(vt)
                values = [w[(k + 1) % len(w)], None, w[k % len(w)], w[(k + 1) % len(w)]]
                if absent(vt) is not None:
                    values.append(absent(vt))
                g.add(cid + suffix, op, {"skip_nulls": skip}, "array-array",
                      [inp, g.inline(vt, values, k % 2)])  # fmt: skip
    # a dictionary value set: pyarrow casts none (its type must be the values')
    inp = dict_input(g, "int8", "string", (5, "some-nulls", 0), "is_in/dictionary-set")
    g.add("is_in/dictionary<int8,string>/array-array/dictionary-set", "is_in",
          {"skip_nulls": False}, "array-array", [inp, inp])  # fmt: skip


def gen_decode(g):
    """dictionary_decode over generate.py's sweep of every index type, and of the plain
    types it gives back as they are (README's matrix: every length, nulls, offset)."""
    for it in INDEX_TYPES:
        for i, n, nulls, off, _ in g.sweep(f"dictionary_decode/{it}"):
            vt = VALUE_TYPES[(i + INDEX_TYPES.index(it)) % len(VALUE_TYPES)]
            cid = g.sweep_id("dictionary_decode", type_id(it, vt), "unary", n, nulls, off)
            g.add(cid, "dictionary_decode", {}, "unary",
                  [dict_input(g, it, vt, (n, nulls, off), cid, VARIANTS[i % 5], i)])  # fmt: skip
    for t in cf.TYPES:
        for _, n, nulls, off, _ in g.sweep(f"dictionary_decode/{t}/plain"):
            cid = g.sweep_id("dictionary_decode", t, "unary", n, nulls, off, extra="plain")
            g.add(cid, "dictionary_decode", {}, "unary",
                  [g.gen_input(t, n, nulls, off, cid, **g.value_kind(t))])  # fmt: skip
    # an empty dictionary under all-null indices, and an empty array of one
    for it in INDEX_TYPES[:2]:
        inp = dict_input(g, it, "string", (4, "all-nulls", 1), f"decode/{it}/empty", "empty")
        g.add(f"dictionary_decode/{type_id(it, 'string')}/unary/empty-dictionary",
              "dictionary_decode", {}, "unary", [inp])  # fmt: skip


def gen_concat(g):
    """concat: two or three dictionary arrays (unified: the first's dictionary, then
    each new value as it first occurs), identical dictionaries (kept, a null among them
    too), plain arrays of every type, and pyarrow's errors."""
    for it in INDEX_TYPES:
        for i, n, nulls, off, _ in g.sweep(f"concat/{it}"):
            vt = VALUE_TYPES[(3 * i + INDEX_TYPES.index(it)) % len(VALUE_TYPES)]
            cid = g.sweep_id("concat", type_id(it, vt), "arrays", n, nulls, off)
            ordered = i % 4 == 1
            first = dict_input(g, it, vt, (n, nulls, off), cid, ["plain", "dups", "sliced"][i % 3],
                               i, ordered)  # fmt: skip
            second = dict_input(g, it, vt, (9, "some-nulls", 1), cid + "/2", "plain", i + 2,
                                ordered)  # fmt: skip
            arrays = [first, second]
            if i % 3 == 0:  # a third, of the first's dictionary
                arrays.append(dict(dict_input(g, it, vt, (5, "no-nulls", 0), cid + "/3"),
                                   dictionary=first["dictionary"]))  # fmt: skip
            g.add(cid, "concat", {}, "arrays", arrays)
        same = dict_input(g, it, "string", (6, "some-nulls", 0), f"concat/{it}/same", "null")
        again = dict(dict_input(g, it, "string", (4, "no-nulls", 2), f"concat/{it}/same2"),
                     dictionary=same["dictionary"])  # fmt: skip
        tid = type_id(it, "string")
        g.add(f"concat/{tid}/arrays/same-dictionary-with-null", "concat", {}, "arrays",
              [same, again])  # fmt: skip
        other = dict_input(g, it, "string", (4, "no-nulls", 0), f"concat/{it}/other", "plain", 5)
        g.add(f"concat/{tid}/arrays/null-in-dictionary", "concat", {}, "arrays", [same, other])
        wider = INDEX_TYPES[(INDEX_TYPES.index(it) + 1) % len(INDEX_TYPES)]
        g.add(f"concat/{tid}/arrays/index-types-differ", "concat", {}, "arrays",
              [other, dict(other, type=wider, null_fill=out_of_range(wider))])  # fmt: skip
        g.add(f"concat/{tid}/arrays/value-types-differ", "concat", {}, "arrays",
              [other, dict_input(g, it, "binary", (3, "no-nulls", 0), f"concat/{it}/bin")])  # fmt: skip
        g.add(f"concat/{tid}/arrays/ordered-differs", "concat", {}, "arrays",
              [other, dict(other, ordered=True)])  # fmt: skip
        g.add(f"concat/{tid}/arrays/plain-after", "concat", {}, "arrays",
              [other, g.inline("string", ["a"])])  # fmt: skip
        g.add(f"concat/{tid}/arrays/empty", "concat", {}, "arrays",
              [dict_input(g, it, "string", (0, "no-nulls", 0), f"concat/{it}/e0"), other,
               dict_input(g, it, "string", (0, "no-nulls", 0), f"concat/{it}/e1", k=3)])  # fmt: skip
    for it in ("int8", "uint8"):  # the unified dictionary needs a larger index type
        hi = cf.int_range(it)[1]
        halves = [list(range(hi // 2 + 10)), list(range(hi // 2 - 10, hi + 10))]
        arrays = [dict(g.inline(it, [0, len(h) - 1]), dictionary=g.inline("int32", h))
                  for h in halves]  # fmt: skip
        g.add(f"concat/{type_id(it, 'int32')}/arrays/index-overflow", "concat", {}, "arrays",
              arrays)  # fmt: skip
        fits = [dict(a, dictionary=g.inline("int32", h[: hi // 4])) for a, h in zip(arrays, halves)]
        for a in fits:
            a["values"] = ["0", str(hi // 4 - 1)]
        g.add(f"concat/{type_id(it, 'int32')}/arrays/index-fits", "concat", {}, "arrays", fits)
    for t in cf.TYPES:  # plain arrays (README's matrix)
        for i, n, nulls, off, _ in g.sweep(f"concat/{t}/plain"):
            cid = g.sweep_id("concat", t, "arrays", n, nulls, off, extra="plain")
            g.add(cid, "concat", {}, "arrays",
                  [g.gen_input(t, n, nulls, off, cid, **g.value_kind(t)),
                   g.gen_input(t, 7, "some-nulls", 7, cid + "/2", **g.value_kind(t))])  # fmt: skip


def gen_from_arrays(g):
    """am_import of a dictionary array: every index type over the sweep (out-of-range
    values only under nulls and in the padding), the ordered flag both ways, and the
    errors: an index at or past the dictionary's end, a negative one, indices that are
    not integers."""
    for it in INDEX_TYPES:
        for i, n, nulls, off, _ in g.sweep(f"dictionary_from_arrays/{it}"):
            vt = VALUE_TYPES[(5 * i + INDEX_TYPES.index(it)) % len(VALUE_TYPES)]
            cid = g.sweep_id("dictionary_from_arrays", type_id(it, vt), "array-array", n, nulls,
                             off)  # fmt: skip
            inp = dict_input(g, it, vt, (n, nulls, off), cid, VARIANTS[i % 5], i)
            dictionary = inp.pop("dictionary")
            g.add(cid, "dictionary_from_arrays", {"ordered": i % 2 == 1}, "array-array",
                  [inp, dictionary])  # fmt: skip
        words3 = g.inline("string", ["a", "b", "c"])
        tid = type_id(it, "string")
        bad = [("past-end", ["0", None, "3"])]
        if it in cf.SIGNED_TYPES:
            bad.append(("negative", ["1", "-1"]))
        bad.append(("in-range-under-null", ["2", None, "0"]))
        for name, idx in bad:
            inp = g.inline(it, cf.decode_values(it, idx), 7, null_fill=out_of_range(it))
            g.add(f"dictionary_from_arrays/{tid}/array-array/{name}", "dictionary_from_arrays",
                  {"ordered": False}, "array-array", [inp, words3])  # fmt: skip
    for t in ("bool", "float32", "float64"):  # indices that are not integers
        g.add(f"dictionary_from_arrays/{t}/array-array/type-error", "dictionary_from_arrays",
              {"ordered": False}, "array-array",
              [g.inline(t, [None]), g.inline("string", ["a"])])  # fmt: skip


def gen_chunked(g):
    """value_counts of a ChunkedArray of dictionary arrays (the inputs are its chunks):
    expected is pyarrow's value_counts of the chunks concatenated, which the library's
    chunks joined by am_concat give. Where the first chunk's dictionary repeats a value
    pyarrow's chunked value_counts attributes the counts to the wrong values: that case
    keeps pyarrow's answer beside ours (checked to still differ)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    tid = type_id("int8", "string")
    first_dups = dict(
        g.inline("int8", [0, 1, 2, 2, 0]), dictionary=g.inline("string", ["a", "b", "a"])
    )
    first = dict(g.inline("int8", [0, 1, None, 1]), dictionary=g.inline("string", ["a", "b"]))
    second = dict(g.inline("int8", [0, 1, 1, 2], 1), dictionary=g.inline("string", ["b", "c", "a"]))
    for name, chunks, diverges in [
        ("first-dictionary-repeats", [first_dups, second], True),
        ("distinct-dictionaries", [first, second], False),
        ("one-chunk", [second], False),
    ]:
        cid = f"value_counts/{tid}/chunked/{name}"
        args = [cf.build_input(c) for c in chunks]
        ours = pc.value_counts(pa.concat_arrays(args))
        theirs = pc.value_counts(pa.chunked_array(args))
        assert theirs.equals(ours) != diverges, f"{cid}: pyarrow's answer changed"
        case = OrderedDict([("id", cid), ("op", "value_counts"), ("params", {})])
        case["form"] = "chunked"
        case["inputs"] = chunks
        case["expected"] = expected(g, ours)
        if diverges:
            case["divergence"] = DIVERGENCE
            case["pyarrow"] = expected(g, theirs)
        g.CASES[cid] = case


# ---- keys: sorting, ranking, group-by, joins --------------------------------------------------


def gen_sort(g):
    op = "array_sort_indices"
    for c, (it, vt) in enumerate(KEY_PAIRS):
        tid = type_id(it, vt)
        for j, variant in enumerate(("plain", "null", "dups", "sliced")):
            shape = [(65, "some-nulls", 1), (300, "some-nulls", 63), (7, "no-nulls", 0),
                     (64, "some-nulls", 7)][j]  # fmt: skip
            cid = f"{op}/{tid}/unary/len{shape[0]}/{shape[1]}/offset{shape[2]}/{variant}"
            inp = dict_input(g, it, vt, shape, cid, variant, c + j, ordered=j == 3)
            for order in ORDERS:
                for placement in PLACEMENTS:
                    g.add(f"{cid}/{order}/{placement}", op,
                          {"order": order, "null_placement": placement}, "unary", [inp])  # fmt: skip
        for name, shape, variant in (("empty", (0, "no-nulls", 0), "plain"),
                                     ("one-row", (1, "no-nulls", 3), "null"),
                                     ("all-null", (9, "all-nulls", 1), "plain"),
                                     ("empty-dictionary", (5, "all-nulls", 0), "empty")):  # fmt: skip
            inp = dict_input(g, it, vt, shape, f"{op}/{tid}/{name}", variant, c)
            g.add(f"{op}/{tid}/unary/{name}", op, {"order": "descending", "null_placement":
                  "at_start"}, "unary", [inp])  # fmt: skip
        inp = dict(dict_input(g, it, vt, (40, "no-nulls", 0), f"{op}/{tid}/eq", "dups", c))
        inp["values"] = ["0"] * 20 + [str(len(words(vt)))] * 20  # one value at two indices
        g.add(f"{op}/{tid}/unary/all-equal", op, {"order": "ascending"}, "unary", [inp])
    op = "sort_indices"
    for c, (it, vt) in enumerate(KEY_PAIRS):
        tid = type_id(it, vt)
        for order in ORDERS:
            for placement in PLACEMENTS:
                cid = f"{op}/{tid}/arrays/record-batch/{order}/{placement}"
                inp = dict_input(g, it, vt, (65, "some-nulls", 0), cid, "null", c)
                g.add(cid, op, {"order": [order], "null_placement": placement, "batch": True},
                      "arrays", [inp])  # fmt: skip
        cid = f"{op}/{tid}/arrays/beside-a-key"
        inp = dict_input(g, it, vt, (6, "some-nulls", 0), cid, "plain", c)
        for batch in (False, True):
            g.add(cid + ("/record-batch" if batch else ""), op,
                  {"order": ["ascending"] * 2, "batch": batch}, "arrays",
                  [g.inline("int8", ["1", "0", "1", "0", "1", "0"]), inp])  # fmt: skip


def gen_rank(g):
    """pyarrow 26 ranks and partitions no dictionary array: its refusals."""
    for c, (it, vt) in enumerate(KEY_PAIRS):
        tid = type_id(it, vt)
        inp = dict_input(g, it, vt, (7, "some-nulls", 0), f"rank/{tid}", "plain", c)
        g.add(f"rank/{tid}/unary/refused", "rank", {"tiebreaker": "dense"}, "unary", [inp])
        for op in ("rank_quantile", "rank_normal"):
            g.add(f"{op}/{tid}/unary/refused", op, {}, "unary", [inp])
        g.add(f"partition_nth_indices/{tid}/unary/refused", "partition_nth_indices",
              {"pivot": 2, "null_placement": "at_end"}, "unary", [inp])  # fmt: skip


# group_by over an int64 v0 and a dictionary v1: the aggregates pyarrow has for
# dictionary values (by index), with their options.
GROUP_AGGREGATES = [[0, "sum", {}], [0, "min_max", {}], [None, "count_all", {}],
                    [1, "count", {}], [1, "count_distinct", {}], [1, "distinct", {}],
                    [1, "count", {"mode": "all"}], [1, "count", {"mode": "only_null"}],
                    [1, "count_distinct", {"mode": "all"}], [1, "distinct", {"mode": "all"}],
                    [1, "count_distinct", {"mode": "only_null"}]]  # fmt: skip


def gen_group_by(g):
    op = "group_by"
    for c, (it, vt) in enumerate(KEY_PAIRS):
        tid = type_id(it, vt)
        for j, variant in enumerate(("plain", "null", "dups", "sliced")):
            for shape in ((7, "some-nulls", 0), (65, "some-nulls", 1), (300, "some-nulls", 63)):
                n = shape[0]
                for keys in ("one", "two", "dictionaries"):
                    cid = (f"{op}/{tid}/table/len{n}/{shape[1]}/offset{shape[2]}/{variant}/"
                           f"{keys}-key{'s' if keys != 'one' else ''}")  # fmt: skip
                    inputs = [dict_input(g, it, vt, shape, cid + "#k0", variant, c + j)]
                    if keys == "two":
                        inputs.append(g.gen_input("int8", n, "some-nulls" if n > 1 else "no-nulls",
                                                  3, cid + "#k1", kind="uniform", lo="0", hi="2"))  # fmt: skip
                    elif keys == "dictionaries":
                        inputs.append(dict_input(g, "uint8", "string", (n, "some-nulls", 5),
                                                 cid + "#k1", VARIANTS[(j + 1) % 5], c))  # fmt: skip
                    inputs.append(g.gen_input("int64", n, "some-nulls", 7, cid + "#v0",
                                              kind="uniform", lo="-100", hi="100"))  # fmt: skip
                    inputs.append(dict_input(g, it, vt, (n, "some-nulls", 2), cid + "#v1",
                                             VARIANTS[(j + 2) % 5], c + j + 1))  # fmt: skip
                    params = {"n_keys": len(inputs) - 2, "aggregates": GROUP_AGGREGATES}
                    g.add(cid, op, params, "table", inputs)
        # empty (no distinct: pyarrow 26 aborts on distinct over an empty dictionary), one row
        aggs = [a for a in GROUP_AGGREGATES if a[1] != "distinct"]
        g.add(f"{op}/{tid}/table/empty", op, {"n_keys": 1, "aggregates": aggs}, "table",
              [dict_input(g, it, vt, (0, "no-nulls", 0), f"{op}/{tid}/e0"),
               g.inline("int64", []), dict_input(g, it, vt, (0, "no-nulls", 0), f"{op}/{tid}/e1")])  # fmt: skip
        g.add(f"{op}/{tid}/table/one-row", op, {"n_keys": 1, "aggregates": GROUP_AGGREGATES},
              "table", [dict_input(g, it, vt, (1, "no-nulls", 0), f"{op}/{tid}/o0", "null"),
                        g.inline("int64", ["5"]),
                        dict_input(g, it, vt, (1, "all-nulls", 0), f"{op}/{tid}/o1")])  # fmt: skip
        # pyarrow's refusals over a dictionary value column
        for name in ("sum", "min", "first", "list", "mean", "any"):
            g.add(f"{op}/{tid}/table/refused/{name}", op,
                  {"n_keys": 1, "aggregates": [[0, "count", {}], [0, name, {}]]}, "table",
                  [g.inline("int8", ["1", "2", "1"]),
                   dict_input(g, it, vt, (3, "some-nulls", 0), f"{op}/{tid}/r/{name}")])  # fmt: skip


def join_dictionary(g, it, vt, n, key, variant="plain", k=0, nulls="some-nulls"):
    """A join key: a dictionary input whose float dictionary holds no NaN (pyarrow 26
    refuses a join whose dictionary holds one: its dictionary never equals itself)."""
    inp = dict_input(g, it, vt, (n, nulls if n > 1 else "no-nulls", k % 3), key, variant, k)
    if vt in cf.FLOAT_TYPES:
        d = inp["dictionary"]
        vals = [v for v in cf.decode_values(vt, d["values"][d["offset"]:])
                if v is None or not math.isnan(v)]  # fmt: skip
        inp = dict(inp, dictionary=g.inline(vt, vals, d["offset"]))
        size = len(vals)
        if size and "values" in inp:
            inp["values"] = [v if v is None or int(v) < size or i < inp["offset"] else str(size - 1)
                             for i, v in enumerate(inp["values"])]  # fmt: skip
    return inp


def gen_join(g):
    op = "join"
    for c, (it, vt) in enumerate(KEY_PAIRS):
        tid = type_id(it, vt)
        other_it = "int32" if it == "int8" else "uint16"
        for k, jt in enumerate(join_cases.JOIN_TYPES):
            jid = jt.replace(" ", "-")
            for name in ("dictionaries", "index-types", "plain-right", "plain-left"):
                if name == "index-types" and jt == "full outer":
                    continue  # pyarrow cannot coalesce keys of two dictionary types
                cid = f"{op}/{tid}/table/{name}/{jid}"
                left = join_dictionary(g, it, vt, 65, cid + "#l", VARIANTS[k % 5], c + k)
                if name in ("dictionaries", "index-types"):
                    right = join_dictionary(g, it if name == "dictionaries" else other_it, vt, 30,
                                            cid + "#r", VARIANTS[(k + 2) % 5], c + k + 3)  # fmt: skip
                else:
                    right = plain_of(g, vt, 30, "some-nulls", 1, cid + "#r")
                    if vt in cf.FLOAT_TYPES:
                        right = g.inline(vt, [v for v in cf.decode_values(vt, right["values"])
                                              if v is None or not math.isnan(v)], 1)  # fmt: skip
                inputs = [right, left] if name == "plain-left" else [left, right]
                g.add(cid, op, {"n_keys": 1, "join_type": jt}, "table", inputs)
            cid = f"{op}/{tid}/table/two-keys/{jid}"
            g.add(cid, op, {"n_keys": 2, "join_type": jt}, "table",
                  [join_dictionary(g, it, vt, 100, cid + "#l0", "dups", c),
                   g.gen_input("int8", 100, "some-nulls", 3, cid + "#l1", kind="uniform", lo="0",
                               hi="1"),
                   join_dictionary(g, it, vt, 40, cid + "#r0", "null", c + 1),
                   g.gen_input("int8", 40, "no-nulls", 0, cid + "#r1", kind="uniform", lo="0",
                               hi="1")])  # fmt: skip
        g.add(f"{op}/{tid}/table/empty/inner", op, {"n_keys": 1, "join_type": "inner"}, "table",
              [join_dictionary(g, it, vt, 0, f"{op}/{tid}/e0"),
               join_dictionary(g, it, vt, 5, f"{op}/{tid}/e1")])  # fmt: skip
    # other value types: pyarrow's refusal
    for vt, other in (("string", "large_string"), ("int64", "int32"), ("string", "binary")):
        left = dict_input(g, "int8", vt, (3, "no-nulls", 0), f"{op}/{vt}/{other}")
        right = plain_of(g, other, 3, "no-nulls", 0, f"{op}/{vt}/{other}/r")
        g.add(f"{op}/{type_id('int8', vt)}/table/other-type/{other}", op,
              {"n_keys": 1, "join_type": "inner"}, "table", [left, right])  # fmt: skip
        g.add(f"{op}/{type_id('int8', vt)}/table/other-dictionary-type/{other}", op,
              {"n_keys": 1, "join_type": "inner"}, "table",
              [left, dict_input(g, "int8", other, (3, "no-nulls", 0), f"{op}/{vt}/{other}/d")])  # fmt: skip


def gen_keys(g):
    gen_sort(g)
    gen_rank(g)
    gen_group_by(g)
    gen_join(g)


def gen(g):
    """Every dictionary case; `g` is generate.py."""
    gen_unary(g)
    gen_selection(g)
    gen_compare(g)
    gen_lookup(g)
    gen_decode(g)
    gen_concat(g)
    gen_from_arrays(g)
    gen_chunked(g)
    gen_keys(g)


# ---- the C ABI ---------------------------------------------------------------------------------


def routes(case):
    """Whether ``call`` makes the case's call: this family's ops, and the suite's ops
    whose result is a dictionary."""
    return case["op"] in OPS or (case["op"] in KEEPS and "dictionary" in case["inputs"][0])


def _split(handle, dev, ordered, indices, dictionary):
    """A dictionary result's fields: its export is Arrow's dictionary array (valid, of
    the expected ordered flag), whose indices are imported back into *indices; the
    dictionary is am_dictionary's (the same values as the export's)."""
    import amabi
    import pyarrow as pa
    from amabi import lib

    arr = amabi.export_array(handle)
    assert isinstance(arr, pa.DictionaryArray), f"exported as {arr.type}, not a dictionary"
    arr.validate(full=True)
    assert arr.type.ordered == ordered, f"exported ordered={arr.type.ordered}"
    amabi.check("am_dictionary", lib.am_dictionary(handle, dictionary))
    want = amabi.export_array(dictionary[0])
    assert cf.digest_array(arr.dictionary) == cf.digest_array(want), "exported dictionary differs"
    indices[0] = amabi.import_array(arr.indices, dev)[0]


def _fields(fname, rc, whole, case, dev, counts=None):
    """(fname, status, output) of a call whose result `whole` is expected as fields: a
    handle per field (nothing written on failure); `whole` as it is otherwise."""
    from amabi import ffi, lib

    fields = case["expected"].get("fields")
    if fields is None:
        return fname, rc, whole if counts is None else (whole, counts)
    outs = tuple(ffi.new("am_array **") for _ in fields)
    if rc == lib.AM_OK:
        try:
            _split(whole[0], dev, fields["dictionary"].get("ordered", False), outs[0], outs[1])
            if counts is not None:
                outs[2][0], counts[0] = counts[0], ffi.NULL
        finally:
            lib.am_release(whole[0])
            if counts is not None:
                lib.am_release(counts[0])
    return fname, rc, outs


# Indices that are not integers (pyarrow makes no such dictionary array): integers of
# their width, the format then written over, for am_import to refuse by it.
POSING_AS = {"bool": "int8", "float32": "int32", "float64": "int64"}


def _import(case, dev):
    """(status, handle) of am_import of the dictionary array of the case's two inputs."""
    import amabi
    from amabi import ffi, lib

    indices, dictionary = case["inputs"]
    t = indices["type"]
    given = dict(indices, type=POSING_AS.get(t, t), dictionary=dictionary,
                 ordered=case["params"]["ordered"])  # fmt: skip
    schema, array = amabi.export_from_pyarrow(cf.dictionary_array(given))
    fmt = ffi.new("char[]", cf.FORMAT[t].encode())  # alive until the schema's release
    schema.format = fmt
    if indices.get("null_count") == -1 and array.buffers[0] != ffi.NULL:
        array.null_count = -1
    counter = amabi.interpose(array)
    out = ffi.new("am_array **")
    try:
        rc = lib.am_import(schema, array, dev, out)
    finally:
        schema.release(schema)
    assert array.release == ffi.NULL, "am_import did not mark the moved ArrowArray released"
    if rc != lib.AM_OK:
        assert counter.count == 1, "a refused import did not release the array"
    return rc, out[0] if rc == lib.AM_OK else ffi.NULL


def call(case, arrays, scalars):
    """(function name, status, output) of the case's call (``routes``)."""
    from amabi import ffi, lib

    op, p = case["op"], case["params"]
    dev = lib.am_array_device(arrays[0])
    whole = ffi.new("am_array **")
    if op == "dictionary_decode":
        return "am_dictionary_decode", lib.am_dictionary_decode(arrays[0], whole), whole
    if op == "dictionary_from_arrays":
        rc, whole[0] = _import(case, dev)
        return _fields("am_import", rc, whole, case, dev)
    if op == "concat" or case["form"] == "chunked":
        handles = ffi.new("am_array *[]", arrays)
        rc = lib.am_concat(handles, len(arrays), ffi.NULL, whole)
        if op == "concat" or rc != lib.AM_OK:
            return _fields("am_concat", rc, whole, case, dev)
        joined = whole[0]
        whole = ffi.new("am_array **")
        counts = ffi.new("am_array **")
        try:
            rc = lib.am_value_counts(joined, whole, counts)
        finally:
            lib.am_release(joined)
        return _fields("am_value_counts", rc, whole, case, dev, counts)
    if op == "value_counts":
        counts = ffi.new("am_array **")
        rc = lib.am_value_counts(arrays[0], whole, counts)
        return _fields("am_value_counts", rc, whole, case, dev, counts)
    if op == "take":
        return _fields("am_take", lib.am_take(arrays[0], arrays[1], whole), whole, case, dev)
    if op == "filter" and "null_selection" in p:
        rc = lib.am_filter_nulls(arrays[0], arrays[1], lib.AM_NULL_EMIT, whole)
        return _fields("am_filter_nulls", rc, whole, case, dev)
    if op == "filter":
        return _fields("am_filter", lib.am_filter(arrays[0], arrays[1], whole), whole, case, dev)
    if op == "slice":
        rc = lib.am_slice(arrays[0], p["offset"], p["length"], whole)
        return _fields("am_slice", rc, whole, case, dev)
    if op == "drop_null":
        return _fields("am_drop_null", lib.am_drop_null(arrays[0], whole), whole, case, dev)
    if op == "unique":
        return _fields("am_unique", lib.am_unique(arrays[0], whole), whole, case, dev)
    if op == "dictionary_encode":
        enc = hash_cases.NULL_ENCODINGS[p["null_encoding"]]
        rc = lib.am_dictionary_encode(arrays[0], enc, whole)
        return _fields("am_dictionary_encode", rc, whole, case, dev)
    raise AssertionError(op)
