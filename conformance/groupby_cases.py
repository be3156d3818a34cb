"""group_by in the conformance suite: how generate.py makes its cases (``gen``, with
generate.py's helpers passed in as ``g``), how pyarrow evaluates them (``evaluate``:
pa.TableGroupBy.aggregate with use_threads=False), how a runner calls the C ABI
(``call``: am_group_by) and how it compares the result (``check``).

Form ``table``: the inputs are the columns of one table, the ``n_keys`` key columns
first (k0, k1, ...), then the value columns (v0, v1, ...). Params: ``n_keys`` and
``aggregates``, a list of ``[value column index or null, aggregate name, options]``
(the name without pyarrow's ``hash_`` prefix; null column for ``count_all``; options
a dict of pyarrow's options fields -- ``skip_nulls``, ``min_count`` of
ScalarAggregateOptions, ``mode`` of CountOptions, ``ddof`` of VarianceOptions -- or
{} for pyarrow's defaults).

Expected: ``{"sorted_by_keys": n_keys, "columns": [{"name", "type", "kind"}],
"rows": [...]}``: one row per group, its key values then one value per aggregate,
encoded as the suite's values are (a ``struct`` column's value is ``[min, max]``, a
``list`` column's the list of its items), the rows SORTED by their encoded key values
(pyarrow's group order is not specified: with floats it may put the null group last).
A runner sorts its own rows the same way before comparing. ``distinct`` lists are
compared as sets (sorted by encoded value on both sides): pyarrow's order within them
is unspecified. Float results of sum, product, mean, variance and stddev are compared
within the case's ``tolerance`` ``{"rel": r}``; everything else exactly (NaN equals
NaN, the sign of zero counts).

A dictionary column (a dictionary key, or distinct's items over a dictionary column:
pyarrow groups dictionary arrays by index and gives back the key's dictionary) has its
index type as ``type``, its cells are indices, and ``dictionary`` holds the expected
dictionary (``{"type", "values"}``); the result's dictionary must have those values
(with no groups, any: pyarrow's empty result has no dictionary of its own).
"""

import functools
from collections import OrderedDict

import casefmt as cf
from casefmt import FLOAT_TYPES, INT_TYPES, SIGNED_TYPES, STRING_TYPES, TYPES
from sort_cases import string_input, string_keys

OPS = ["group_by"]
FILE = "groupby"
AGGREGATES = ["count", "count_distinct", "sum", "product", "mean", "min", "max", "min_max",
              "first", "last", "any", "all", "variance", "stddev", "list", "distinct",
              "count_all"]  # fmt: skip
TOLERANT = {"sum", "product", "mean", "variance", "stddev"}
REL = 1e-9


# ---- pyarrow ---------------------------------------------------------------------------


def _options(name, opts):
    import pyarrow.compute as pc

    if not opts:
        return None
    if name in ("count", "count_distinct", "distinct"):
        return pc.CountOptions(**opts)
    if name in ("variance", "stddev"):
        return pc.VarianceOptions(**opts)
    return pc.ScalarAggregateOptions(**opts)


def _aggregations(params):
    out = []
    for column, name, opts in params["aggregates"]:
        target = [] if column is None else f"v{column}"
        o = _options(name, opts)
        out.append((target, name) if o is None else (target, name, o))
    return out


def evaluate(op, params, args):
    import pyarrow as pa

    k = params["n_keys"]
    names = [f"k{i}" for i in range(k)] + [f"v{i}" for i in range(len(args) - k)]
    table = pa.table(dict(zip(names, args)))
    keys = names[:k]
    return table.group_by(keys, use_threads=False).aggregate(_aggregations(params))


def map_error(exc):
    return None  # generate.py's mapping (AM_ETYPE, "expected length": AM_EINVAL)


def _kind(pa_type):
    import pyarrow as pa

    if pa.types.is_struct(pa_type):
        return "struct", cf.type_name(pa_type.field(0).type)
    if pa.types.is_list(pa_type):
        return "list", _kind(pa_type.value_type)[1]
    if pa.types.is_dictionary(pa_type):  # by index (see the module's docstring)
        return "plain", cf.type_name(pa_type.index_type)
    return "plain", cf.type_name(pa_type)


def _by_index(column):
    """A result column as its cells are written: a dictionary array (or lists of one)
    as its indices, with its dictionary's expectation; others as they are."""
    import pyarrow as pa

    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(col.type):
        return col.indices, col.dictionary
    if pa.types.is_list(col.type) and pa.types.is_dictionary(col.type.value_type):
        items = col.values
        return pa.ListArray.from_arrays(col.offsets, items.indices), items.dictionary
    # float16 as its bits, as the suite codes it
    if pa.types.is_float16(col.type):
        return col.view(pa.uint16()), None
    if pa.types.is_list(col.type) and pa.types.is_float16(col.type.value_type):
        return pa.ListArray.from_arrays(col.offsets, col.values.view(pa.uint16())), None
    return col, None


def _encode(kind, t, v, distinct=False):
    if kind == "struct":
        return [cf.encode_value(t, v["min"]), cf.encode_value(t, v["max"])]
    if kind == "list":
        items = cf.encode_values(t, v)
        return sorted(items, key=_order) if distinct else items
    return cf.encode_value(t, v)


def _order(v):
    """A total order of encoded values (None first, then by type and text)."""
    return (v is not None, type(v).__name__, str(v))


def sort_rows(rows, n_keys):
    return sorted(rows, key=lambda r: [_order(v) for v in r[:n_keys]])


def expected(case, table):
    """The expectation of a pa.Table result (see the module's docstring)."""
    k = case["params"]["n_keys"]
    cols = []
    for field in table.schema:
        kind, t = _kind(field.type)
        cols.append(OrderedDict([("name", field.name), ("type", t), ("kind", kind)]))
    aggs = [None] * k + [a[1] for a in case["params"]["aggregates"]]
    # column by column: aggregates may share a name (pyarrow's "v0_count" twice)
    values = []
    for i in range(table.num_columns):
        col, dictionary = _by_index(table.column(i))
        values.append(col.to_pylist())
        if dictionary is not None:
            vt = cf.type_name(dictionary.type)
            cols[i]["dictionary"] = OrderedDict(
                [("type", vt), ("values", cf.encode_values(vt, cf.array_values(dictionary)))]
            )
    rows = []
    for r in zip(*values):
        rows.append([_encode(c["kind"], c["type"], v, aggs[i] == "distinct")
                     for i, (c, v) in enumerate(zip(cols, r))])  # fmt: skip
    out = OrderedDict([("sorted_by_keys", k), ("columns", cols)])
    out["rows"] = sort_rows(rows, k)
    return out


def tolerance(case):
    if any(a[1] in TOLERANT for a in case["params"]["aggregates"]):
        return OrderedDict([("rel", REL)])
    return None


# ---- the C ABI --------------------------------------------------------------------------------

COUNT_MODES = {"only_valid": 0, "only_null": 1, "all": 2}


def call(case, arrays, scalars, out):
    """am_group_by; the output is a tuple of am_array ** cells: the keys, then per
    aggregate its values (and max for min_max, offsets for list and distinct)."""
    from amabi import ffi, lib

    p = case["params"]
    k = p["n_keys"]
    aggs = p["aggregates"]
    specs = ffi.new("am_group_aggregate[]", max(len(aggs), 1))
    for i, (column, name, opts) in enumerate(aggs):
        op = getattr(lib, "AM_GROUP_" + name.upper())
        assert lib.am_group_aggregate_default(op, column or 0, specs + i) == lib.AM_OK
        for field, value in opts.items():
            if field == "mode":
                specs[i].count_mode = COUNT_MODES[value]
            else:
                setattr(specs[i], field, int(value))
    keys = ffi.new("am_array *[]", list(arrays[:k]) or [ffi.NULL])
    values = ffi.new("am_array *[]", list(arrays[k:]) or [ffi.NULL])
    keys_out = ffi.new("am_array *[]", max(k, 1))
    results = ffi.new("am_group_result[]", max(len(aggs), 1))
    rc = lib.am_group_by(keys, k, values, len(arrays) - k, specs, len(aggs), keys_out, results)
    cells = [ffi.new("am_array **", keys_out[i]) for i in range(k)]
    for i, (_, name, _) in enumerate(aggs):
        cells.append(ffi.new("am_array **", results[i].values))
        if name == "min_max":
            cells.append(ffi.new("am_array **", results[i].max))
        if name in ("list", "distinct"):
            cells.append(ffi.new("am_array **", results[i].offsets))
    return "am_group_by", rc, tuple(cells)


def _close(t, got, want):
    if got is None or want is None or t not in FLOAT_TYPES:
        return got == want
    a, b = cf.decode_value(t, got), cf.decode_value(t, want)
    if cf.same_value(t, a, b):
        return True
    return abs(a - b) <= REL * max(abs(a), abs(b))


def check(case, handles, dev):
    """Compares the exported results, rows sorted by key, with the case's rows."""
    from amabi import export_array, lib

    exp = case["expected"]
    k = exp["sorted_by_keys"]
    aggs = [None] * k + [a[1] for a in case["params"]["aggregates"]]
    cols = []
    it = iter(handles)
    for c in exp["columns"]:
        h = next(it)
        assert lib.am_array_device(h) == dev, "a result is not on the keys' device"
        parts = [h]
        if c["kind"] != "plain":
            parts.append(next(it))
        arrs = [export_array(x) for x in parts]
        for a in arrs:
            a.validate(full=True)
        if "dictionary" in c:  # its indices; the dictionary's values as expected
            d = c["dictionary"]
            got_d = arrs[0].dictionary
            assert cf.type_name(got_d.type) == d["type"], f"{c['name']}: dictionary {got_d.type}"
            want_d = cf.decode_values(d["type"], d["values"])
            assert (
                not exp["rows"]
                or len(got_d) == len(want_d)
                and all(
                    cf.same_value(d["type"], a, b) for a, b in zip(cf.array_values(got_d), want_d)
                )
            ), f"{c['name']}: the dictionary differs"
            arrs[0] = arrs[0].indices
        if c["kind"] == "plain":
            assert cf.type_name(arrs[0].type) == c["type"], f"{c['name']}: type {arrs[0].type}"
            cols.append([cf.encode_value(c["type"], v) for v in cf.array_values(arrs[0])])
        elif c["kind"] == "struct":
            lo, hi = (cf.encode_values(c["type"], a.to_pylist()) for a in arrs)
            cols.append([[a, b] for a, b in zip(lo, hi)])
        else:
            items, offsets = cf.array_values(arrs[0]), arrs[1].to_pylist()
            assert cf.type_name(arrs[0].type) == c["type"], f"{c['name']}: items {arrs[0].type}"
            assert arrs[1].null_count == 0 and offsets[0] == 0, f"{c['name']}: offsets"
            cols.append([cf.encode_values(c["type"], items[offsets[g] : offsets[g + 1]])
                         for g in range(len(offsets) - 1)])  # fmt: skip
    lengths = {len(c) for c in cols}
    assert len(lengths) == 1, f"result columns of different lengths {lengths}"
    rows = [list(r) for r in zip(*cols)] if cols else []
    for r in rows:
        for i, name in enumerate(aggs):
            if name == "distinct":
                r[i] = sorted(r[i], key=_order)
    rows = sort_rows(rows, k)
    want = exp["rows"]
    assert len(rows) == len(want), f"{len(rows)} groups, expected {len(want)}"
    tolerant = [name in TOLERANT for name in aggs]
    for g, (got, ref) in enumerate(zip(rows, want)):
        for i, c in enumerate(exp["columns"]):
            same = _close(c["type"], got[i], ref[i]) if tolerant[i] else got[i] == ref[i]
            assert same, f"group {g} (keys {ref[:k]}): {c['name']} got {got[i]!r}, want {ref[i]!r}"


# ---- inputs ------------------------------------------------------------------------------


def few(t):
    """gen kind parameters of few distinct key values (many rows per group)."""
    if t == "bool":
        return {"kind": "uniform", "true_permille": 600}
    if t in INT_TYPES:
        lo = -3 if t in SIGNED_TYPES else 0
        return {"kind": "uniform", "lo": str(lo), "hi": str(lo + 7)}
    return {"kind": "uniform", "integral": True, "lo": -3, "hi": 4}


def small(t):
    """Values whose sums stay exact and whose products wrap the same way everywhere."""
    if t == "bool":
        return {"kind": "uniform"}
    if t in INT_TYPES:
        lo = -100 if t in SIGNED_TYPES else 0
        return {"kind": "uniform", "lo": str(lo), "hi": str(lo + 200)}
    return {"kind": "uniform", "lo": -1000.0, "hi": 1000.0}


def key_specials(t):
    if t == "bool":
        return [True, None, False, True, False, None, True]
    if t in FLOAT_TYPES:
        return [0.0, "-0.0", "nan", None, 1.5, "nan", "-0.0", None, 0.0, "inf", "-inf", 1.5]
    lo, hi = cf.int_range(t)
    return [str(v) for v in (lo, hi, 0, 1, lo, hi, 1)] + [None, "0", None, str(hi - 1)]


def value_type(t):
    """The numeric value column beside a key of type t (every type meets every other
    kind over the sweep)."""
    i = TYPES.index(t)
    return TYPES[(i + 3) % len(TYPES)]


def standard(vt, with_lists=True, variant=0):
    """The aggregate list over v0 (type vt) and v1 (bool): every aggregate, options
    rotating with `variant`."""
    aggs = []
    for name in AGGREGATES:
        if name in ("any", "all"):
            aggs.append([1, name, {}])
        elif name == "count_all":
            aggs.append([None, name, {}])
        elif name in ("variance", "stddev") and vt == "bool" or name == "list" and not with_lists:
            continue
        else:
            aggs.append([0, name, {}])
    v = variant % 3
    if v == 0:
        aggs += [[0, "count", {"mode": "all"}], [0, "count_distinct", {"mode": "only_null"}],
                 [0, "sum", {"skip_nulls": False, "min_count": 1}],
                 [1, "any", {"skip_nulls": False, "min_count": 0}],
                 [0, "first", {"skip_nulls": False, "min_count": 0}]]  # fmt: skip
    elif v == 1:
        aggs += [[0, "count", {"mode": "only_null"}], [0, "distinct", {"mode": "all"}],
                 [0, "mean", {"skip_nulls": True, "min_count": 3}],
                 [1, "all", {"skip_nulls": False, "min_count": 1}],
                 [0, "last", {"skip_nulls": False, "min_count": 1}],
                 [0, "min_max", {"skip_nulls": False, "min_count": 0}]]  # fmt: skip
    else:
        aggs += [[0, "count_distinct", {"mode": "all"}],
                 [0, "product", {"skip_nulls": True, "min_count": 0}],
                 [0, "max", {"skip_nulls": False, "min_count": 2}]]  # fmt: skip
        if vt != "bool":
            aggs += [[0, "variance", {"ddof": 1, "skip_nulls": True, "min_count": 0}],
                     [0, "stddev", {"ddof": 2, "skip_nulls": False, "min_count": 1}]]  # fmt: skip
    return aggs


# ---- cases -----------------------------------------------------------------------------------


@functools.cache
def _bool_kind():
    return {"kind": "uniform", "true_permille": 500}


def gen(g):
    for t in TYPES:
        gen_sweep(g, t)
        gen_specials(g, t)
    gen_multi(g)
    gen_errors(g)
    for t in STRING_TYPES:
        gen_strings(g, t)


def gen_sweep(g, t):
    """One key of type t over the sweep, with a second key in every other case."""
    op = "group_by"
    vt = value_type(t)
    for idx, n, nulls, off, rep in g.sweep(f"{op}/{t}"):
        two = idx % 2 == 1
        cid = g.sweep_id(op, t, "table", n, nulls, off, rep) + ("/two-keys" if two else "")
        inputs = [g.gen_input(t, n, nulls, off, cid + "#k0", **few(t))]
        if two:
            inputs.append(g.gen_input("int8", n, "some-nulls" if n > 1 else "no-nulls",
                                      (off + 7) % 64, cid + "#k1",
                                      kind="uniform", lo="0", hi="2"))  # fmt: skip
        inputs.append(g.gen_input(vt, n, g.other(nulls, 1) if n > 1 else "no-nulls",
                                  (off + 1) % 64, cid + "#v0", **small(vt)))  # fmt: skip
        inputs.append(g.gen_input("bool", n, "some-nulls" if n > 1 else "no-nulls",
                                  (off + 63) % 64, cid + "#v1", **_bool_kind()))  # fmt: skip
        params = {"n_keys": 2 if two else 1, "aggregates": standard(vt, n <= 1000, idx)}
        g.add(cid, op, params, "table", inputs)


def gen_specials(g, t):
    """Keys with NaN, both zeros, infinities, nulls and the integer extremes; empty,
    one-row and all-equal tables; all-null values."""
    op = "group_by"
    vt = value_type(t)
    keys = key_specials(t) * 3
    n = len(keys)
    for off in (0, 7):
        cid = f"{op}/{t}/table/key-specials/offset{off}"
        inputs = [g.inline(t, keys, off),
                  g.gen_input(vt, n, "some-nulls", 3, cid + "#v0", **small(vt)),
                  g.gen_input("bool", n, "some-nulls", 0, cid + "#v1", **_bool_kind())]  # fmt: skip
        g.add(cid, op, {"n_keys": 1, "aggregates": standard(vt, True, off)}, "table", inputs)
    # the specials as values too, grouped by a small key
    if t != "bool":
        cid = f"{op}/{t}/table/value-specials"
        inputs = [g.inline("int8", [str(i % 3) for i in range(n)], 1), g.inline(t, keys, 1),
                  g.inline("bool", [True, False, None] * (n // 3), 0)]  # fmt: skip
        aggs = [a for a in standard(t, True, 0) if a[1] not in ("sum", "product", "mean")]
        if t in FLOAT_TYPES:  # integer extremes' sums wrap; floats' infinities and NaN carry
            aggs = standard(t, True, 0)
        g.add(cid, op, {"n_keys": 1, "aggregates": aggs}, "table", inputs)
    aggs = standard(vt, True, 1)
    g.add(f"{op}/{t}/table/empty", op, {"n_keys": 1, "aggregates": aggs}, "table",
          [g.inline(t, []), g.inline(vt, []), g.inline("bool", [])])  # fmt: skip
    g.add(f"{op}/{t}/table/one-row", op, {"n_keys": 1, "aggregates": aggs}, "table",
          [g.inline(t, [key_specials(t)[1]], 1), g.inline(vt, ["1"] if vt in INT_TYPES else [1.0]
           if vt != "bool" else [True]), g.inline("bool", [None])])  # fmt: skip
    one = "1" if t in INT_TYPES else (True if t == "bool" else 1.0)
    cid = f"{op}/{t}/table/all-equal"
    g.add(cid, op, {"n_keys": 1, "aggregates": standard(vt, True, 2)}, "table",
          [g.inline(t, [one] * 80, 7), g.gen_input(vt, 80, "some-nulls", 0, cid + "#v0",
                                                    **small(vt)),
           g.gen_input("bool", 80, "no-nulls", 0, cid + "#v1", **_bool_kind())])  # fmt: skip
    cid = f"{op}/{t}/table/all-null-values"
    g.add(cid, op, {"n_keys": 1, "aggregates": standard(vt, True, 0)}, "table",
          [g.gen_input(t, 65, "some-nulls", 0, cid + "#k0", **few(t)),
           g.inline(vt, [None] * 65), g.inline("bool", [None] * 65)])  # fmt: skip


def gen_multi(g):
    """Three keys of mixed types, among them floats with NaN and nulls."""
    op = "group_by"
    combos = [("int8", "float64", "bool"), ("float32", "uint64", "int16"),
              ("bool", "int64", "float32")]  # fmt: skip
    for types in combos:
        cid = f"{op}/{types[0]}/table/three-keys/{','.join(types)}"
        inputs = [g.gen_input(tk, 1000, "some-nulls", 3 * k, f"{cid}#k{k}", **few(tk))
                  for k, tk in enumerate(types)]  # fmt: skip
        inputs += [g.gen_input("float64", 1000, "some-nulls", 0, cid + "#v0", **small("float64")),
                   g.gen_input("bool", 1000, "some-nulls", 0, cid + "#v1", **_bool_kind())]  # fmt: skip
        g.add(cid, op, {"n_keys": 3, "aggregates": standard("float64", True, 1)}, "table", inputs)


def gen_errors(g):
    """The aggregates' type refusals (pyarrow's AM_ETYPE) and columns of different
    lengths."""
    op = "group_by"
    for t in TYPES:
        refused = ["variance", "stddev"] if t == "bool" else ["any", "all"]
        for name in refused:
            g.add(f"{op}/{t}/table/refused/{name}", op,
                  {"n_keys": 1, "aggregates": [[0, "count", {}], [0, name, {}]]}, "table",
                  [g.inline("int32", ["1", "2", "1"]), g.inline(t, [None, None, None])])  # fmt: skip
    g.add(f"{op}/int32/table/length-mismatch", op,
          {"n_keys": 1, "aggregates": [[0, "sum", {}], [0, "count", {}]]}, "table",
          [g.inline("int32", ["1", "2", "3"]), g.inline("int32", ["1", "2"])])  # fmt: skip


# ---- string and binary keys and values ---------------------------------------------------

# The aggregates over a string value column (v1), with options; then a sum over v0.
STRING_AGGREGATES = [[1, "count", {}], [1, "count_distinct", {}], [1, "min", {}],
                     [1, "max", {}], [1, "min_max", {}], [1, "first", {}], [1, "last", {}],
                     [1, "list", {}], [1, "distinct", {}], [None, "count_all", {}],
                     [1, "count", {"mode": "only_null"}], [1, "distinct", {"mode": "all"}],
                     [1, "first", {"skip_nulls": False, "min_count": 0}],
                     [1, "min_max", {"skip_nulls": False, "min_count": 0}],
                     [1, "max", {"skip_nulls": True, "min_count": 2}], [0, "sum", {}]]  # fmt: skip


def gen_strings(g, t):
    """String keys (alone, and before an int8 key) over an int64 v0 and a string v1:
    the special keys, generated keys, empty, one-row and all-equal tables."""
    op = "group_by"
    params = {"n_keys": 1, "aggregates": STRING_AGGREGATES}
    keys = string_keys(t) * 3
    n = len(keys)
    for off in (0, 7):
        cid = f"{op}/{t}/table/string-keys/offset{off}"
        g.add(cid, op, params, "table",
              [g.inline(t, keys, off), g.gen_input("int64", n, "some-nulls", 3, cid + "#v0",
                                                   **small("int64")),
               g.inline(t, keys[::-1], 1)])  # fmt: skip
    for two in (False, True):
        cid = f"{op}/{t}/table/string-choice" + ("/two-keys" if two else "")
        inputs = [string_input(g, t, 600, "some-nulls", 5, cid + "#k0")]
        if two:
            inputs.append(g.gen_input("int8", 600, "some-nulls", 0, cid + "#k1",
                                      kind="uniform", lo="0", hi="2"))  # fmt: skip
        inputs += [g.gen_input("int64", 600, "no-nulls", 1, cid + "#v0", **small("int64")),
                   string_input(g, t, 600, "some-nulls", 63, cid + "#v1")]  # fmt: skip
        g.add(cid, op, {"n_keys": 2 if two else 1, "aggregates": STRING_AGGREGATES}, "table",
              inputs)  # fmt: skip
    g.add(f"{op}/{t}/table/empty", op, params, "table",
          [g.inline(t, []), g.inline("int64", []), g.inline(t, [])])  # fmt: skip
    one = string_keys(t)[1:2]
    g.add(f"{op}/{t}/table/one-row", op, params, "table",
          [g.inline(t, one, 1), g.inline("int64", ["1"]), g.inline(t, [None])])  # fmt: skip
    g.add(f"{op}/{t}/table/all-equal", op, params, "table",
          [g.inline(t, one * 40, 7), g.inline("int64", [str(i) for i in range(40)]),
           g.inline(t, (string_keys(t) * 5)[:40])])  # fmt: skip
