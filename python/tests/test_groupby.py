"""am.group_by(...).aggregate(...) against pa.TableGroupBy: every aggregate
over every value type with nulls, NaN and both zeros, one and two keys of
every type, options, result names/types/order, first-appearance group order,
the inputs it takes (Table, RecordBatch, ChunkedArray columns, Arrow C
streams), pyarrow's refusals, fallbacks, the C ABI's checks and messages,
the parallel path, the memory accounting, and GPU-resident inputs (skipped
without CUDA)."""

import math
import struct

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal._capi import ffi, lib

from .string_keys import string_column

CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]
TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64"]  # fmt: skip
AGGS = ["count", "count_distinct", "sum", "product", "mean", "min", "max", "min_max", "first",
        "last", "variance", "stddev", "list", "distinct"]  # fmt: skip


def column(t, n, seed, card=6, nulls=0.15):
    rng = np.random.default_rng(seed)
    if t == "bool":
        v = rng.random(n) < 0.5
    elif t.startswith("float"):
        v = (rng.integers(-card, card, n) / 2).astype(t)
        v[rng.random(n) < 0.05] = np.nan
        v[rng.random(n) < 0.05] = -0.0
    else:
        info = np.iinfo(t)
        v = rng.integers(max(info.min, -card), min(info.max, card) + 1, n).astype(t)
    mask = rng.random(n) < nulls if nulls else None
    return pa.array(v, mask=mask)


def canon(v):
    if isinstance(v, float):
        return ("f", struct.pack("<d", v).hex())
    if isinstance(v, dict):
        return tuple((k, canon(x)) for k, x in v.items())
    if isinstance(v, list):
        return tuple(canon(x) for x in v)
    return ("v", repr(v))


def close(a, b):
    if a == b:
        return True
    if isinstance(a, tuple) and a and a[0] == "f" and b[0] == "f":
        x, y = (struct.unpack("<d", bytes.fromhex(z[1]))[0] for z in (a, b))
        return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 1e-9 * max(abs(x), abs(y))
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return all(close(p, q) for p, q in zip(a, b))
    return False


def rows(table, n_keys):
    cols = [table.column(i).to_pylist() for i in range(table.num_columns)]
    out = []
    for r in zip(*cols):
        row = []
        for name, v in zip(table.column_names, r):
            if name.endswith("_distinct") and not name.endswith("count_distinct"):
                v = sorted(v, key=repr)  # pyarrow's order within is unspecified
            row.append(canon(v))
        out.append(tuple(row))
    return sorted(out, key=lambda x: x[:n_keys])


def same(got, want, n_keys):
    assert got.schema == want.schema
    a, b = rows(got, n_keys), rows(want, n_keys)
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        for name, x, y in zip(got.column_names, ra, rb):
            assert close(x, y), f"{name}: {x} != {y}"


def both(table, keys, aggs):
    got = am.group_by(table, keys).aggregate(aggs)
    want = table.group_by(keys, use_threads=False).aggregate(aggs)
    same(got, want, len([keys] if isinstance(keys, str) else keys))
    return got


@pytest.mark.parametrize("vt", TYPES)
def test_every_aggregate_over_every_value_type(vt):
    n = 500
    t = pa.table({"k": column("int16", n, 1, card=4), "v": column(vt, n, 2, card=20),
                  "b": column("bool", n, 3)})  # fmt: skip
    aggs = [("v", a) for a in AGGS if not (vt == "bool" and a in ("variance", "stddev"))]
    aggs += [("b", "any"), ("b", "all"), ([], "count_all"), ("v", "hash_sum")]
    both(t, "k", aggs)


@pytest.mark.parametrize("kt", TYPES)
def test_key_types_one_and_two_keys(kt):
    n = 300
    t = pa.table({"k": column(kt, n, 4), "k2": column("uint8", n, 5, card=2),
                  "v": column("float64", n, 6, card=50)})  # fmt: skip
    aggs = [("v", "sum"), ("v", "min_max"), ("v", "list"), ([], "count_all")]
    both(t, ["k"], aggs)
    both(t, ["k", "k2"], aggs)
    both(t, ["k2", "k"], aggs)


def test_options():
    n = 400
    t = pa.table({"k": column("int8", n, 7, card=3), "v": column("int32", n, 8, nulls=0.3),
                  "b": column("bool", n, 9, nulls=0.3)})  # fmt: skip
    so = pc.ScalarAggregateOptions
    aggs = [
        ("v", "count", pc.CountOptions("only_null")),
        ("v", "count", pc.CountOptions("all")),
        ("v", "count_distinct", pc.CountOptions("all")),
        ("v", "distinct", pc.CountOptions("only_null")),
        ("v", "sum", so(skip_nulls=False)),
        ("v", "sum", so(min_count=50)),
        ("v", "product", so(min_count=0)),
        ("v", "mean", so(skip_nulls=False, min_count=0)),
        ("v", "first", so(skip_nulls=False)),
        ("v", "last", so(skip_nulls=False)),
        ("v", "min_max", so(skip_nulls=False)),
        ("b", "any", so(skip_nulls=False)),
        ("b", "all", so(skip_nulls=False, min_count=0)),
        ("v", "variance", pc.VarianceOptions(ddof=1)),
        ("v", "stddev", pc.VarianceOptions(ddof=3, skip_nulls=False)),
    ]
    both(t, "k", aggs)


def test_group_order_is_first_appearance_and_keys_by_bits():
    t = pa.table({"k": pa.array([5, 3, 5, None, 1, 3, None], pa.int32()), "v": list(range(7))})
    r = am.group_by(t, "k").aggregate([("v", "list")])
    assert r.column("k").to_pylist() == [5, 3, None, 1]
    assert r.column("v_list").to_pylist() == [[0, 2], [1, 5], [3, 6], [4]]
    f = pa.table({"k": [0.0, -0.0, float("nan"), None, float("nan"), 0.0], "v": list(range(6))})
    r = am.group_by(f, "k").aggregate([("v", "list")])
    keys = r.column("k").to_pylist()
    assert [struct.pack("<d", x) if x is not None else None for x in keys] == [
        struct.pack("<d", x) if x is not None else None for x in (0.0, -0.0, float("nan"), None)
    ]
    assert r.column("v_list").to_pylist() == [[0, 5], [1], [2, 4], [3]]


def test_min_max_zero_sign_is_the_first_seen():
    for vals in ([-0.0, 0.0], [0.0, -0.0, 0.0]):
        t = pa.table({"k": [1] * len(vals), "v": vals})
        both(t, "k", [("v", "min"), ("v", "max"), ("v", "min_max")])


def test_inputs_record_batch_chunked_and_streams():
    t = pa.table({"k": column("int32", 200, 10), "v": column("float32", 200, 11)})
    aggs = [("v", "mean"), ("v", "count")]
    want = t.group_by("k", use_threads=False).aggregate(aggs)
    same(am.group_by(t.to_batches()[0], "k").aggregate(aggs), want, 1)
    chunked = pa.Table.from_batches(t.to_batches(max_chunksize=37))
    same(am.group_by(chunked, "k").aggregate(aggs), want, 1)

    class Stream:  # anything with __arrow_c_stream__ (a polars DataFrame...)
        def __arrow_c_stream__(self, requested_schema=None):
            return t.__arrow_c_stream__(requested_schema)

    same(am.group_by(Stream(), "k").aggregate(aggs), want, 1)
    with pytest.raises(TypeError):
        am.group_by([1, 2, 3], "k")


def test_empty_one_row_all_equal():
    aggs = [("v", a) for a in AGGS] + [([], "count_all")]
    for t in (
        pa.table({"k": pa.array([], pa.int64()), "v": pa.array([], pa.float64())}),
        pa.table({"k": pa.array([None], pa.int64()), "v": pa.array([1.5])}),
        pa.table({"k": pa.array([7] * 70, pa.int64()), "v": column("float64", 70, 12)}),
    ):
        both(t, "k", aggs)


def test_pyarrow_refusals():
    t = pa.table({"k": [1, 2], "v": [1, 2], "b": [True, False]})
    with pytest.raises(pa.ArrowNotImplementedError, match="hash_any"):
        am.group_by(t, "k").aggregate([("v", "any")])
    with pytest.raises(pa.ArrowNotImplementedError, match="hash_variance"):
        am.group_by(t, "k").aggregate([("b", "variance")])
    with pytest.raises(Exception):  # noqa: B017 - pyarrow's own error for an unknown name
        am.group_by(t, "k").aggregate([("v", "no_such_aggregate")])
    with pytest.raises(pa.ArrowInvalid, match="No match for FieldRef"):
        am.group_by(t, "nope").aggregate([("v", "sum")])


def test_fallback_for_aggregates_it_lacks(monkeypatch):
    import decimal

    s = pa.array([decimal.Decimal(x) for x in ("1.5", "2.5", "1.5")])  # decimal keys: the library's
    t = pa.table({"s": s, "k": [1, 1, 2], "v": [1.0, 2.0, 3.0]})
    before = am.fallbacks().get("group_by", 0)
    r = am.group_by(t, "s").aggregate([("v", "sum")])
    assert r.equals(t.group_by("s", use_threads=False).aggregate([("v", "sum")]))
    assert am.fallbacks().get("group_by", 0) == before
    with pytest.warns(am.ArrowMetalFallbackWarning):
        r = am.group_by(t, "k").aggregate([("v", "approximate_median")])
    assert r.column_names == ["k", "v_approximate_median"]
    assert am.fallbacks()["group_by"] == before + 1


def test_parallel_path_matches():
    n = 300000  # above the pool's threshold: grouping and aggregates in parallel
    t = pa.table({"k": column("int64", n, 13, card=2000), "k2": column("bool", n, 14),
                  "v": column("float64", n, 15, card=1000), "w": column("uint16", n, 16)})  # fmt: skip
    both(t, ["k", "k2"], [("v", "sum"), ("v", "mean"), ("w", "max"), ("w", "count_distinct"),
                          ("v", "stddev"), ([], "count_all")])  # fmt: skip
    # sum / product / mean over row ranges, combined (cpu/groupby.c's arith_run),
    # one aggregate alone (so the ranges run on the pool), nulls and min_count
    both(t, "k", [("w", "sum")])
    both(t, "k", [("v", "product"), ("w", "mean"), ("w", "product"),
                  ("v", "sum", pc.ScalarAggregateOptions(min_count=200))])  # fmt: skip


def test_scratch_is_counted_and_freed():
    n = 200000
    t = pa.table({"k": column("int64", n, 17, card=100000), "v": column("int64", n, 18)})
    am.group_by(t, "k").aggregate([("v", "sum")])  # warm the large-block cache
    am.reset_peak_memory("cpu")
    before = am.memory_info("cpu")
    r = am.group_by(t, "k").aggregate([("v", "sum"), ("v", "distinct")])
    after = am.memory_info("cpu")
    assert after["peak_bytes"] - before["bytes_in_use"] >= 4 * n  # the ids, at least
    del r
    assert am.memory_info("cpu")["bytes_in_use"] <= before["bytes_in_use"] + 4096


# ---- the C ABI ---------------------------------------------------------------------------


def call(keys, values, specs):
    ks = ffi.new("am_array *[]", [k._ptr for k in keys] or [ffi.NULL])
    vs = ffi.new("am_array *[]", [v._ptr for v in values] or [ffi.NULL])
    aggs = ffi.new("am_group_aggregate[]", max(len(specs), 1))
    for i, (op, col, fields) in enumerate(specs):
        if lib.am_group_aggregate_default(op, col, aggs + i) != lib.AM_OK:
            aggs[i].op, aggs[i].column = op, col  # an op the library does not know
        for name, value in fields.items():
            setattr(aggs[i], name, value)
    keys_out = ffi.new("am_array *[]", max(len(keys), 1))
    results = ffi.new("am_group_result[]", max(len(specs), 1))
    rc = lib.am_group_by(ks, len(keys), vs, len(values), aggs, len(specs), keys_out, results)
    msg = ffi.string(lib.am_last_error()).decode() if rc else ""
    return rc, msg, keys_out, results


def test_c_abi_checks_and_messages():
    k = am.array(pa.array([1, 2, 1], pa.int32()))
    v = am.array(pa.array([1, 2, 3], pa.int8()))
    short = am.array(pa.array([1, 2], pa.int8()))
    ok_sum = (lib.AM_GROUP_SUM, 0, {})
    cases = [
        (([k], [short], [ok_sum]), lib.AM_EINVAL, "value column 0 has 2 rows, key 0 has 3"),
        (([], [v], [ok_sum]), lib.AM_EINVAL, "one or more keys"),
        (([k], [v], [(lib.AM_GROUP_SUM, 1, {})]), lib.AM_EINVAL, "column 1 is out of range"),
        (([k], [v], [(lib.AM_GROUP_SUM, -1, {})]), lib.AM_EINVAL, "column -1 is out of range"),
        (([k], [v], [(lib.AM_GROUP_COUNT, 0, {"count_mode": 7})]), lib.AM_EINVAL, "count_mode 7"),
        (([k], [v], [(99, 0, {})]), lib.AM_EINVAL, "unknown group-by aggregate 99"),
        (([k], [v], [(lib.AM_GROUP_ANY, 0, {})]), lib.AM_ETYPE,
         "Function 'hash_any' has no kernel matching input types (int8, uint32)"),
    ]  # fmt: skip
    for args, code, text in cases:
        rc, msg, keys_out, results = call(*args)
        assert rc == code, msg
        assert msg.startswith("am_group_by") and text in msg, msg
        assert keys_out[0] == ffi.NULL and results[0].values == ffi.NULL
    out = ffi.new("am_group_aggregate *")
    assert lib.am_group_aggregate_default(42, 0, out) == lib.AM_EINVAL
    assert lib.am_group_aggregate_default(lib.AM_GROUP_VARIANCE, 3, out) == lib.AM_OK
    assert (out.column, out.min_count, out.skip_nulls, out.ddof) == (3, 0, 1, 0)
    # count_all reads no column: none is needed
    rc, msg, keys_out, results = call([k], [], [(lib.AM_GROUP_COUNT_ALL, 0, {})])
    assert rc == lib.AM_OK, msg
    assert am._array.wrap(keys_out[0]).to_pylist() == [1, 2]
    assert am._array.wrap(results[0].values).to_pylist() == [2, 1]
    assert results[0].max == ffi.NULL and results[0].offsets == ffi.NULL


def test_c_abi_list_offsets_and_min_max_fields():
    k = am.array(pa.array([2, 1, 2, 2], pa.int64()))
    v = am.array(pa.array([None, 4, 5, 4], pa.uint8()))
    specs = [(lib.AM_GROUP_LIST, 0, {}), (lib.AM_GROUP_MIN_MAX, 0, {}),
             (lib.AM_GROUP_DISTINCT, 0, {"count_mode": lib.AM_COUNT_ALL})]  # fmt: skip
    rc, msg, keys_out, results = call([k], [v], specs)
    assert rc == lib.AM_OK, msg
    w = am._array.wrap
    assert w(keys_out[0]).to_pylist() == [2, 1]
    assert w(results[0].offsets).to_pylist() == [0, 3, 4]
    assert w(results[0].values).to_pylist() == [None, 5, 4, 4]
    assert w(results[1].values).to_pylist() == [4, 4]
    assert w(results[1].max).to_pylist() == [5, 4]
    assert w(results[2].offsets).to_pylist() == [0, 3, 4]
    assert w(results[2].values).to_pylist() == [None, 5, 4, 4]


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_gpu_resident_inputs():
    n = 200001
    a, b = column("int32", n, 19), column("float64", n, 20)
    g, h = am.array(a, device="cuda"), am.array(b, device="cuda")
    rc, msg, keys_out, results = call([g], [h], [(lib.AM_GROUP_SUM, 0, {})])
    assert rc == lib.AM_OK, msg
    keys = am._array.wrap(keys_out[0])
    sums = am._array.wrap(results[0].values)
    assert str(keys.device).startswith("cuda") and str(sums.device).startswith("cuda")
    got = pa.table({"k": keys.to_pyarrow(), "v_sum": sums.to_pyarrow()})
    want = pa.table({"k": a, "v": b}).group_by("k", use_threads=False).aggregate([("v", "sum")])
    same(got, want, 1)


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("mode", ["only_valid", "only_null", "all"])
def test_gpu_lists_stay_on_the_device(mode):
    # list, distinct and count_distinct run in device memory (ops_group_lists.c):
    # their results are CUDA arrays, equal to pyarrow's
    n = 30011
    a, b = column("int16", n, 21, card=40), column("float64", n, 22, card=7)
    g, h = am.array(a, device="cuda"), am.array(b, device="cuda")
    code = {
        "only_valid": lib.AM_COUNT_VALID,
        "only_null": lib.AM_COUNT_NULL,
        "all": lib.AM_COUNT_ALL,
    }
    specs = [(lib.AM_GROUP_LIST, 0, {}), (lib.AM_GROUP_DISTINCT, 0, {"count_mode": code[mode]}),
             (lib.AM_GROUP_COUNT_DISTINCT, 0, {"count_mode": code[mode]})]  # fmt: skip
    rc, msg, keys_out, results = call([g], [h], specs)
    assert rc == lib.AM_OK, msg
    w = am._array.wrap
    got = {"k": w(keys_out[0]).to_pyarrow()}
    for i, name in enumerate(["v_list", "v_distinct"]):
        items, offsets = w(results[i].values), w(results[i].offsets)
        assert str(items.device).startswith("cuda") and str(offsets.device).startswith("cuda")
        got[name] = pa.ListArray.from_arrays(offsets.to_pyarrow(), items.to_pyarrow())
    counts = w(results[2].values)
    assert str(counts.device).startswith("cuda")
    got["v_count_distinct"] = counts.to_pyarrow()
    opts = pc.CountOptions(mode=mode)
    want = (
        pa.table({"k": a, "v": b})
        .group_by("k", use_threads=False)
        .aggregate([("v", "list"), ("v", "distinct", opts), ("v", "count_distinct", opts)])
    )
    same(pa.table(got), want, 1)


# ---- string and binary keys and values (cpu/hash_bytes.c) -------------------


STRING_AGGS = ["count", "count_distinct", "min", "max", "min_max", "first", "last", "list",
               "distinct"]  # fmt: skip


@pytest.mark.parametrize("t", [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()],
                         ids=str)  # fmt: skip
def test_string_keys_and_values(t):
    """String keys alone and among numeric ones, every aggregate that takes
    string values, run here (no fallback); null keys one group."""
    n = 3000
    table = pa.table({"s": string_column(n, 1, t, card=40), "s2": string_column(n, 2, t, card=3),
                      "k": column("int8", n, 3, card=2), "w": string_column(n, 4, t, card=40),
                      "v": column("float64", n, 5, card=50)})  # fmt: skip
    aggs = [("w", a) for a in STRING_AGGS] + [("v", "sum"), ([], "count_all")]
    before = am.fallbacks().get("group_by", 0)
    for keys in (["s"], ["s", "k"], ["k", "s2", "s"]):
        both(table, keys, aggs)
    assert am.fallbacks().get("group_by", 0) == before


def test_string_keys_edges_and_fixed_size_binary():
    for vals in ([], ["x"], [None], ["same"] * 50, [None, "", None, ""]):
        t = pa.table(
            {"s": pa.array(vals, pa.string()), "v": pa.array(range(len(vals)), pa.int64())}
        )
        both(t, "s", [("v", "sum"), ("s", "min"), ("s", "count_distinct"), ([], "count_all")])
    rng = np.random.default_rng(8)
    fixed = pa.array([bytes(rng.choice([0, 1, 0xFF], 3).astype(np.uint8)) if rng.random() > 0.1
                      else None for _ in range(500)], pa.binary(3))  # fmt: skip
    t = pa.table({"f": fixed, "v": column("int32", 500, 9)})
    both(t, "f", [("v", "sum"), ("f", "max"), ("f", "distinct")])


def test_string_group_order_is_first_appearance():
    t = pa.table({"s": ["b", None, "a", "b", "", None, "a\x00"], "v": [1, 2, 3, 4, 5, 6, 7]})
    got = am.group_by(t, "s").aggregate([("v", "sum")])
    assert got.column("s").to_pylist() == ["b", None, "a", "", "a\x00"]
    assert got.column("v_sum").to_pylist() == [5, 8, 3, 5, 7]


def test_string_parallel_path_matches():
    n = 300000  # above the pool's threshold: aggregates side by side
    t = pa.table({"s": string_column(n, 10, card=5000), "w": string_column(n, 11, card=40),
                  "v": column("float64", n, 12, card=1000)})  # fmt: skip
    both(t, "s", [("v", "sum"), ("w", "min_max"), ("w", "count_distinct"), ([], "count_all")])


def test_min_max_ignore_min_count():
    """pyarrow's hash_min_max takes no notice of min_count (null only for a
    null without skip_nulls); numbers and strings alike."""
    t = pa.table({"k": [1, 1, 2, 3, 3, 3], "n": [1, None, 2, 5, 6, None],
                  "s": ["a", None, "b", "x", "y", None]})  # fmt: skip
    for skip in (True, False):
        o = pc.ScalarAggregateOptions(skip_nulls=skip, min_count=3)
        both(t, "k", [(c, a, o) for c in ("n", "s") for a in ("min", "max", "min_max")])
