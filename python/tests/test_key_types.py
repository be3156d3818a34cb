"""Decimal and dictionary keys (issue #13) against pyarrow 26: sort_indices,
array_sort_indices, sort_by, rank, rank_quantile, rank_normal,
select_k_unstable, partition_nth_indices, group_by (keys and value columns)
and join, run by the library (no fallback), with pyarrow's results -- and
pyarrow's errors where it refuses (a dictionary array is sorted alone only,
ranked never, grouped by index)."""

import decimal
import math
import random

import numpy as np
import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

pytestmark = pytest.mark.usefixtures("no_fallback")  # conftest.py

D = decimal.Decimal
CTX = decimal.Context(prec=100)  # every digit of a decimal256
DECIMALS = [pa.decimal128(5, 2), pa.decimal128(38, 10), pa.decimal256(40, 2)]
DEC_IDS = ["d128_5_2", "d128_38_10", "d256_40_2"]
ORDERS = ["ascending", "descending"]
PLACEMENTS = ["at_end", "at_start"]
JOIN_TYPES = ["inner", "left outer", "right outer", "full outer", "left semi", "left anti",
              "right semi", "right anti"]  # fmt: skip


def decimals(t, n, seed, few=True):
    """n values of decimal type t: few distinct (ties, both edges, negatives,
    zero) or spread over the precision, a sixth null."""
    rng = random.Random(seed)
    top = 10**t.precision - 1
    pool = [top, -top, 0, 1, -1, 10**t.scale, -(10**t.scale), 7 * 10**t.scale + 3]
    out = []
    for _ in range(n):
        if rng.random() < 1 / 6:
            out.append(None)
            continue
        v = rng.choice(pool) if few else rng.randint(-top, top)
        out.append(D(v).scaleb(-t.scale, context=CTX))
    return pa.array(out, t)


def dictionary(index_type, values, n, seed):
    """n rows over `values` (a pyarrow array, nulls and repeats allowed), a
    tenth of the indices null."""
    rng = random.Random(seed)
    idx = [None if rng.random() < 0.1 else rng.randrange(len(values)) for _ in range(n)]
    return pa.DictionaryArray.from_arrays(pa.array(idx, index_type), values)


DICTIONARIES = [
    (pa.int8(), pa.array(["b", None, "a", "c", "a", ""])),
    (pa.int32(), pa.array([5, -3, None, 5, 2**62], pa.int64())),
    (pa.int8(), pa.array([1.5, None, math.nan, -2.0, 0.0, -0.0, math.nan, math.inf])),
    (pa.uint16(), pa.array(["x", "y"])),
]
DICT_IDS = ["int8-string", "int32-int64", "int8-float64", "uint16-string"]


def pylist(x):
    return (x.to_pyarrow() if hasattr(x, "to_pyarrow") else x).to_pylist()


def same_error(ours, theirs):
    """Our exception is an instance of pyarrow's class, with its message."""
    assert isinstance(ours, type(theirs)), (type(ours), type(theirs))
    assert str(theirs) in str(ours), (str(ours), str(theirs))


def raised(f, *args):
    try:
        f(*args)
    except Exception as e:  # noqa: BLE001 - compared with the other side's
        return e
    raise AssertionError("no error")


# ---- sorting ----------------------------------------------------------------------------


@pytest.mark.parametrize("t", DECIMALS, ids=DEC_IDS)
@pytest.mark.parametrize("few", [True, False])
def test_decimal_array_sort(t, few):
    a = decimals(t, 500, 1, few)
    for order in ORDERS:
        for placement in PLACEMENTS:
            want = pc.array_sort_indices(a, order=order, null_placement=placement)
            got = am.array_sort_indices(a, order=order, null_placement=placement)
            assert pylist(got) == want.to_pylist(), (order, placement)
    chunked = pa.chunked_array([a.slice(0, 200), a.slice(200)])
    assert pylist(am.sort_indices(chunked)) == pc.sort_indices(chunked).to_pylist()
    assert pylist(am.array_sort(a)) == pc.take(a, pc.array_sort_indices(a)).to_pylist()


@pytest.mark.parametrize("t", DECIMALS, ids=DEC_IDS)
def test_decimal_keys_among_others(t):
    rng = random.Random(2)
    n = 400
    table = pa.table({"d": decimals(t, n, 3), "i": pa.array([rng.randint(0, 3) for _ in range(n)]),
                      "e": decimals(pa.decimal256(40, 2), n, 4)})  # fmt: skip
    for keys in ([("i", "descending"), ("d", "ascending")],
                 [("d", "descending", "at_start"), ("i", "ascending", "at_end")],
                 [("e", "ascending"), ("d", "descending")]):  # fmt: skip
        want = pc.sort_indices(table, sort_keys=keys)
        assert pylist(am.sort_indices(table, sort_keys=keys)) == want.to_pylist(), keys
        got = am.sort_by(table, keys)
        assert got.equals(table.sort_by(keys)), keys


@pytest.mark.parametrize(("it", "values"), DICTIONARIES, ids=DICT_IDS)
def test_dictionary_array_sort(it, values):
    """pyarrow 26 sorts a dictionary array by its values' ranks: a null index and a
    null value are both nulls, NaN ranks after the numbers (first when descending)."""
    d = dictionary(it, values, 300, 5)
    batch = pa.record_batch({"k": d})
    for order in ORDERS:
        for placement in PLACEMENTS:
            want = pc.array_sort_indices(d, order=order, null_placement=placement)
            got = am.array_sort_indices(d, order=order, null_placement=placement)
            assert pylist(got) == want.to_pylist(), (order, placement)
            keys = [("k", order, placement)]
            got = am.sort_indices(batch, sort_keys=keys)
            assert pylist(got) == pc.sort_indices(batch, sort_keys=keys).to_pylist()
    got, want = am.sort_by(batch, "k").column(0), batch.sort_by("k").column(0)
    assert got.indices.equals(want.indices)
    assert str(got.dictionary.to_pylist()) == str(want.dictionary.to_pylist())  # NaN too


def test_dictionary_sort_refusals_are_pyarrows():
    """A dictionary ChunkedArray, a Table's dictionary column and a dictionary key
    beside another: pyarrow 26's errors, without a fallback."""
    d = dictionary(pa.int8(), pa.array(["b", "a"]), 20, 6)
    table = pa.table({"k": d, "i": pa.array(range(20))})
    calls = [
        lambda m: m.array_sort_indices(pa.chunked_array([d])),
        lambda m: m.sort_indices(pa.chunked_array([d, d])),
        lambda m: m.sort_indices(table, sort_keys=[("k", "ascending")]),
        lambda m: m.sort_indices(table, sort_keys=[("i", "ascending"), ("k", "ascending")]),
        lambda m: m.sort_indices(pa.record_batch(table), [("k", "ascending"), ("i", "ascending")]),
    ]
    before = am.fallbacks()  # the counts are the process's: earlier tests' too
    for call in calls:
        same_error(raised(call, am), raised(call, pc))
    same_error(raised(lambda: am.sort_by(table, "k")), raised(lambda: table.sort_by("k")))
    assert am.fallbacks() == before


# ---- ranking and selection ----------------------------------------------------------------


@pytest.mark.parametrize("t", DECIMALS, ids=DEC_IDS)
def test_decimal_rank(t):
    a = decimals(t, 300, 7)
    for order in ORDERS:
        for placement in PLACEMENTS:
            for tb in ("min", "max", "first", "dense"):
                keys = [("", order, placement)]
                want = pc.rank(a, keys, tiebreaker=tb)
                got = am.rank(a, keys, tiebreaker=tb)
                assert pylist(got) == want.to_pylist(), (order, placement, tb)
            keys = [("", order, placement)]
            assert pylist(am.rank_quantile(a, keys)) == pc.rank_quantile(a, keys).to_pylist()
            got, want = pylist(am.rank_normal(a, keys)), pc.rank_normal(a, keys).to_pylist()
            assert all(math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-15) for x, y in zip(got, want))


@pytest.mark.parametrize("t", DECIMALS, ids=DEC_IDS)
def test_decimal_select_k_and_partition(t):
    a = decimals(t, 300, 8, few=False)
    table = pa.table({"d": a, "i": pa.array([i % 3 for i in range(300)])})
    for k in (0, 1, 10, 300):
        for keys in ([("d", "descending")], [("i", "ascending"), ("d", "ascending")]):
            got = pylist(am.select_k_unstable(table, k, keys))
            want = pc.select_k_unstable(table, k, keys).to_pylist()
            # ties may come in any order: the keys' values at the indices agree
            for name, _ in keys:
                col = table.column(name).to_pylist()
                assert [col[i] for i in got] == [col[i] for i in want], (k, keys)
    order = sorted((v is None, v) for v in a.to_pylist() if v is not None)
    for pivot in (0, 100, 250, 299, 300):
        idx = pylist(am.partition_nth_indices(a, pivot))
        assert sorted(idx) == list(range(300))
        vals = [a[i].as_py() for i in idx]
        if pivot < len(order):
            p = vals[pivot]
            assert p == order[pivot][1]
            assert all(v is not None and v <= p for v in vals[:pivot])
            assert all(v is None or v >= p for v in vals[pivot + 1 :])


def test_dictionary_rank_refusals_are_pyarrows():
    d = dictionary(pa.int32(), pa.array(["b", "a"]), 20, 9)
    for call in (lambda m: m.rank(d), lambda m: m.rank_quantile(d), lambda m: m.rank_normal(d),
                 lambda m: m.partition_nth_indices(d, 3),
                 lambda m: m.select_k_unstable(d, 2, [("x", "ascending")])):  # fmt: skip
        same_error(raised(call, am), raised(call, pc))
    # pyarrow 26 crashes on select_k over a table with a dictionary key: the library
    # gives the error of its array form
    err = raised(lambda: am.select_k_unstable(pa.table({"k": d}), 2, [("k", "descending")]))
    assert isinstance(err, pa.ArrowNotImplementedError)
    assert str(d.type) in str(err)


# ---- group-by ----------------------------------------------------------------------------


def rows(table, distinct=()):
    """The rows of a group-by result in a canonical order (distinct lists as sets,
    floats to 12 digits)."""

    def cell(name, v):
        if isinstance(v, float):
            return "nan" if math.isnan(v) else f"{v:.12g}"
        if name in distinct:
            return str(sorted(str(x) for x in v))
        return str(v)

    return sorted(tuple(cell(k, v) for k, v in r.items()) for r in table.to_pylist())


DECIMAL_AGGREGATES = [("v", "count"), ("v", "count_distinct"), ("v", "distinct"), ("v", "list"),
                      ("v", "min"), ("v", "max"), ("v", "min_max"), ("v", "sum"), ("v", "mean"),
                      ("v", "variance"), ("v", "stddev"), ([], "count_all"), ("x", "sum"),
                      ("v", "sum", pc.ScalarAggregateOptions(skip_nulls=False)),
                      ("v", "mean", pc.ScalarAggregateOptions(min_count=3)),
                      ("v", "stddev", pc.VarianceOptions(ddof=1)),
                      ("v", "count", pc.CountOptions("all"))]  # fmt: skip


@pytest.mark.parametrize("t", DECIMALS, ids=DEC_IDS)
def test_decimal_group_by(t):
    rng = random.Random(10)
    n = 500
    small = pa.array([None if rng.random() < 0.1 else D(rng.randint(-999, 999)).scaleb(-2)
                      for _ in range(n)], t)  # fmt: skip
    table = pa.table({"k": decimals(t, n, 11), "g": pa.array([rng.randint(0, 4) for _ in range(n)]),
                      "v": small, "x": pa.array(range(n))})  # fmt: skip
    for keys in (["k"], ["g"], ["k", "g"]):
        got = am.group_by(table, keys).aggregate(DECIMAL_AGGREGATES)
        want = table.group_by(keys, use_threads=False).aggregate(DECIMAL_AGGREGATES)
        assert got.schema == want.schema
        assert rows(got, {"v_distinct"}) == rows(want, {"v_distinct"}), keys
    factors = pa.array([D(v).scaleb(-1) for v in (5, -15, 20, 10, 25, 5, -5, 15)] * 4, t)
    near_one = pa.table({"g": pa.array([i % 5 for i in range(32)]), "v": factors})
    got = am.group_by(near_one, "g").aggregate([("v", "product")])
    assert rows(got) == rows(
        near_one.group_by("g", use_threads=False).aggregate([("v", "product")])
    )


def test_decimal_group_by_errors_are_pyarrows():
    t = pa.table({"g": [1, 1, 2], "v": pa.array([None, None, D("1.5")], pa.decimal128(5, 1))})
    for aggs in ([("v", "first")], [("v", "any")],
                 [("v", "mean", pc.ScalarAggregateOptions(min_count=0))]):  # fmt: skip
        same_error(raised(lambda a: am.group_by(t, "g").aggregate(a), aggs),
                   raised(lambda a: t.group_by("g", use_threads=False).aggregate(a), aggs))  # fmt: skip


@pytest.mark.parametrize(("it", "values"), DICTIONARIES, ids=DICT_IDS)
def test_dictionary_group_by(it, values):
    """By index, as pyarrow's grouper: a value twice in the dictionary is two groups;
    the keys come back as dictionary arrays of the key's dictionary."""
    n = 400
    rng = random.Random(12)
    table = pa.table({"k": dictionary(it, values, n, 13), "g": pa.array([rng.randint(0, 2)
                      for _ in range(n)]), "x": pa.array(range(n)),
                      "s": dictionary(pa.int16(), pa.array(["p", "q", None, "p"]), n, 14)})  # fmt: skip
    aggs = [("x", "sum"), ([], "count_all"), ("s", "count"), ("s", "count_distinct"),
            ("s", "distinct"), ("s", "count", pc.CountOptions("only_null")),
            ("s", "distinct", pc.CountOptions("all"))]  # fmt: skip
    for keys in (["k"], ["g", "k"], ["k", "s"]):
        got = am.group_by(table, keys).aggregate(aggs)
        want = table.group_by(keys, use_threads=False).aggregate(aggs)
        assert got.schema == want.schema
        assert rows(got, {"s_distinct"}) == rows(want, {"s_distinct"}), keys
        if keys == ["k"]:
            mine, theirs = got.column("k").combine_chunks(), want.column("k").combine_chunks()
            assert str(mine.dictionary.to_pylist()) == str(theirs.dictionary.to_pylist())
            key = lambda v: (v is None, v or 0)
            assert sorted(mine.indices.to_pylist(), key=key) == sorted(
                theirs.indices.to_pylist(), key=key
            )


def test_dictionary_group_by_edges():
    d = pa.array(["b", "a"])
    chunks = [pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int8()), d),
              pa.DictionaryArray.from_arrays(pa.array([1, 0], pa.int8()), pa.array(["a", "b"]))]  # fmt: skip
    table = pa.table({"k": pa.chunked_array(chunks), "x": [1, 2, 3, 4]})
    aggs = [("x", "sum")]
    same_error(raised(lambda: am.group_by(table, "k").aggregate(aggs)),
               raised(lambda: table.group_by("k", use_threads=False).aggregate(aggs)))  # fmt: skip
    t = pa.table({"g": [1, 2], "s": chunks[0]})
    same_error(raised(lambda: am.group_by(t, "g").aggregate([("s", "sum")])),
               raised(lambda: t.group_by("g").aggregate([("s", "sum")])))  # fmt: skip
    # pyarrow 26 aborts the process on distinct over an empty dictionary column; the
    # library gives the empty result of pyarrow's type
    got = am.group_by(t.slice(0, 0), "g").aggregate([("s", "distinct")])
    assert got.num_rows == 0
    assert got.schema.field("s_distinct").type == pa.list_(chunks[0].type)


# ---- joins ---------------------------------------------------------------------------------


def join_rows(table):
    return sorted(tuple(str(v) for v in r.values()) for r in table.to_pylist())


def check_join(left, right, join_type, keys="k"):
    got = am.join(left, right, keys, join_type=join_type)
    want = left.join(right, keys, join_type=join_type, use_threads=False)
    assert got.schema == want.schema, join_type
    assert join_rows(got) == join_rows(want), join_type


@pytest.mark.parametrize("t", DECIMALS, ids=DEC_IDS)
def test_decimal_join(t):
    left = pa.table({"k": decimals(t, 120, 15), "a": pa.array(range(120))})
    right = pa.table({"k": decimals(t, 50, 16), "b": pa.array(range(50))})
    for jt in JOIN_TYPES:
        check_join(left, right, jt)
    other = pa.table({"k": decimals(pa.decimal128(5, 1), 5, 17), "b": pa.array(range(5))})
    same_error(raised(lambda: am.join(left, other, "k")),
               raised(lambda: left.join(other, "k")))  # fmt: skip


@pytest.mark.parametrize("distinct", [60_000, 20_000])
@pytest.mark.parametrize("t", [pa.decimal128(18, 2), pa.decimal256(40, 2)], ids=str)
def test_decimal_keys_many_distinct(t, distinct):
    """Enough rows and distinct keys that the tables are probed with the look ahead (the
    values kept whole in the slots), grouped on one part (60,000 distinct in 400,000
    rows: fewer than 16 rows a value) or split over the pool and merged (20,000):
    counts, sums and joins as pyarrow's, the groups in first-occurrence order. The
    joins' right side (more than 16,384 rows, one null key) is probed, not grouped
    with the left."""
    rng = np.random.default_rng(23)
    pool = pa.array([D(int(v)).scaleb(-2) for v in rng.integers(-(10**12), 10**12, distinct)], t)
    picks = pa.array(rng.integers(0, len(pool), 400_000), mask=rng.random(400_000) < 0.05)
    table = pa.table({"k": pc.take(pool, picks), "v": pa.array(rng.random(400_000))})
    aggs = [("v", "count"), ("v", "sum")]
    got = am.group_by(table, "k").aggregate(aggs)
    want = table.group_by("k", use_threads=False).aggregate(aggs)
    assert rows(got) == rows(want)  # pyarrow 26 puts the null key elsewhere: order apart
    assert got.column("k").to_pylist() == list(dict.fromkeys(table.column("k").to_pylist()))
    right_keys = pa.concat_arrays([pool, pa.array([None], t)])
    right = pa.table({"k": right_keys, "r": pa.array(range(len(right_keys)))})
    for jt in ["inner", "full outer", "right anti"]:
        check_join(table.slice(0, 100_000), right, jt)


@pytest.mark.parametrize(("it", "values"), DICTIONARIES[:2] + DICTIONARIES[3:], ids=DICT_IDS[:2] + DICT_IDS[3:])  # fmt: skip
def test_dictionary_join(it, values):
    """By value: against another dictionary (other index type too) and a plain array
    of the value type; a full outer join's keys coalesced by value."""
    left = pa.table({"k": dictionary(it, values, 100, 18), "a": pa.array(range(100))})
    reordered = pa.array(values.to_pylist()[::-1], values.type)
    same = pa.table({"k": dictionary(it, reordered, 40, 19), "b": pa.array(range(40))})
    wider = pa.table({"k": dictionary(pa.int64(), reordered, 40, 20), "b": pa.array(range(40))})
    plain = pa.table({"k": pc.dictionary_decode(dictionary(it, values, 40, 21)),
                      "b": pa.array(range(40))})  # fmt: skip
    for jt in JOIN_TYPES:
        check_join(left, same, jt)
        check_join(left, plain, jt)
        check_join(plain, left, jt)
        if jt != "full outer":
            check_join(left, wider, jt)
    same_error(raised(lambda: am.join(left, wider, "k", join_type="full outer")),
               raised(lambda: left.join(wider, "k", join_type="full outer")))  # fmt: skip
    other = pa.table({"k": pa.array([1.5]), "b": [0]})
    same_error(raised(lambda: am.join(left, other, "k")), raised(lambda: left.join(other, "k")))


@pytest.mark.parametrize("values", [
    (pa.array(["a", "b", "c", None, "a"]), pa.array(["d", "c", None, "b", "e", "b"])),
    (pa.array([1, 2, 3, 2], pa.timestamp("ms", tz="Europe/Paris")),
     pa.array([4, 2, None, 1], pa.timestamp("ms", tz="Europe/Paris"))),
    (pa.array([1.0, -0.0, 2.0, None], pa.float16()), pa.array([0.0, 2.0, 1.0, 3.0], pa.float16())),
], ids=["string", "timestamp_tz", "float16"])  # fmt: skip
def test_dictionary_join_by_value_ids(values):
    """Two dictionary keys join on ids of their values in the left dictionary
    (abi/key_view.c): values one side lacks, repeats and nulls in either
    dictionary, sliced arrays, a second key beside, every join type, against
    pyarrow (float16: against pyarrow's join of the decoded keys, which it
    joins by bits, 0.0 and -0.0 apart)."""
    lv, rv = values
    left = pa.table({"k": dictionary(pa.int8(), lv, 300, 31).slice(7),
                     "j": pa.array([i % 3 for i in range(293)]), "a": pa.array(range(293))})  # fmt: skip
    right = pa.table({"k": dictionary(pa.int8(), rv, 90, 32).slice(3),
                      "j": pa.array([i % 2 for i in range(87)]), "b": pa.array(range(87))})  # fmt: skip
    if pa.types.is_float16(lv.type):

        def decoded(t):
            columns = [pc.dictionary_decode(c) if pa.types.is_dictionary(c.type) else c
                       for c in t.columns]  # fmt: skip
            return pa.table(columns, names=t.column_names)

        for jt in JOIN_TYPES:
            got = am.join(left, right, "k", join_type=jt)
            want = decoded(left).join(decoded(right), "k", join_type=jt, use_threads=False)
            assert join_rows(decoded(got)) == join_rows(want), jt
        return
    for jt in JOIN_TYPES:
        check_join(left, right, jt)
        check_join(right, left, jt)
        check_join(left, right, jt, keys=["k", "j"])


def test_dictionary_join_with_nan():
    """Divergence: pyarrow 26 refuses a join whose dictionary holds NaN ("Unifying
    differing dictionaries": the dictionary never equals itself); the library joins
    by value, as pyarrow joins the decoded keys."""
    values = pa.array([1.5, math.nan, None, 0.0])
    left = pa.table({"k": dictionary(pa.int8(), values, 50, 22), "a": pa.array(range(50))})
    right = pa.table({"k": dictionary(pa.int8(), values, 20, 23), "b": pa.array(range(20))})
    with pytest.raises(pa.ArrowNotImplementedError, match="Unifying differing dictionaries"):
        left.join(right, "k")
    got = am.join(left, right, "k", join_type="inner")

    def decoded(t):
        return t.set_column(0, "k", pc.dictionary_decode(t.column("k")))

    want = decoded(left).join(decoded(right), "k", join_type="inner", use_threads=False)
    assert join_rows(decoded(got)) == join_rows(want)
