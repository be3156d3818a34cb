"""The group-by and join GPU kernels (kernel_source_groupby.c: GROUP_PACK,
GROUP_DENSE, GROUP_ACCUM, GROUP_FINISH, JOIN_MARK, JOIN_WRITE) run where there is
no GPU: their CUDA source compiled as C++ against emu/cuda_emu.h (as
test_nulls_kernels.py does) and launched in gpu/ops_groupby.c's and
gpu/ops_join.c's order. The steps the other kernels do (the hash grouping, which
test_hash_kernels.py checks; take, sort, cumulative sum, filter) are done here with
numpy. Results are compared with pa.TableGroupBy.aggregate and pa.Table.join.

Each kernel is one C++ compile, so by default a few (type, aggregate) pairs and
two join types run (a few seconds); ARROWMETAL_EMULATE_EVERY_TYPE=1 runs every
aggregate over every type and every join type."""

import math
import os
import pathlib
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_hash_kernels import group_table
from test_nulls_kernels import Args, bind, kernels, label, sample  # noqa: F401 (kernels: a fixture)

EVERY = os.environ.get("ARROWMETAL_EMULATE_EVERY_TYPE") == "1"
W = 8  # AM_GROUP_STATE_WORDS
ACC_NAMES = [
    "INIT",
    "COUNT",
    "SUM",
    "PRODUCT",
    "MINMAX",
    "PICK",
    "FIRST",
    "ANY",
    "ALL",
    "DSUM",
    "M2",
]
ACC = {name: i for i, name in enumerate(ACC_NAMES)}
GOP = {"count": 0, "sum": 2, "product": 3, "mean": 4, "min": 5, "max": 6, "min_max": 7,
       "first": 8, "last": 9, "any": 10, "all": 11, "variance": 12, "stddev": 13,
       "count_all": 16}  # fmt: skip
JOIN = ["inner", "left outer", "right outer", "full outer", "left semi", "left anti",
        "right semi", "right anti"]  # fmt: skip


def first_ids(keys):
    """Group ids in first-row order (nulls one group), as the hash kinds give them."""
    seen, ids = {}, []
    for k in keys:
        ids.append(seen.setdefault(k, len(seen)))
    return np.array(ids, np.int32), len(seen)


def group_keys(n, seed, offset=0):
    rng = np.random.default_rng(seed)
    vals = [None if rng.random() < 0.1 else int(v) for v in rng.integers(-5, 9, n + offset)]
    return pa.array(vals, pa.int16()).slice(offset)


def accumulate(run, cls, values, ids, state, blocks, scalar=0):
    args = Args(n=len(ids) if cls else state.size // W)
    if values is not None and cls:
        bind(args, 0, values)
    args.in1 = ids.ctypes.data
    args.out = state.ctypes.data
    args.scalar = scalar
    t = label(values.type) if values is not None and cls else "any"
    run(f"am_group_accum{cls}_{t}", blocks, args)


def finish(run, name, state, groups, t, opts, upper=0):
    counts = name in ("count", "count_all")
    op = GOP[name] | (opts.get("mode", 0) << 6 if name == "count" else 0) if counts else (
        GOP[name] | int(opts.get("skip_nulls", True)) << 5 | upper << 8)  # fmt: skip
    out = np.zeros(groups + 64, np.uint64)
    valid = np.zeros((groups + 31) // 32 + 8, np.uint32)
    args = Args(n=groups, scalar=opts.get("min_count", 0 if name in ("variance", "stddev") else 1),
                aux=opts.get("ddof", 0))  # fmt: skip
    args.in0 = state.ctypes.data
    args.out = out.ctypes.data
    args.out_valid = valid.ctypes.data
    tl = "any" if counts else label(t)
    run(f"am_group_finish{op}_{tl}", 1 + groups // 256, args)
    ok = np.unpackbits(valid.view(np.uint8), bitorder="little")[:groups].astype(bool)
    if counts:
        ok[:] = True
    return out[:groups], ok, out.view(np.uint32)


def gpu_aggregate(run, name, values, ids, groups, opts, blocks):
    state = np.zeros(groups * W, np.uint64)
    t = values.type if values is not None else None

    def acc(cls, scalar=0):
        accumulate(run, cls, values, ids, state, blocks, scalar)

    if name in ("count", "count_all"):
        acc(ACC["COUNT"])
    elif name in ("sum", "mean", "product"):
        if name == "product":
            one = int(np.float64(1).view(np.uint64)) if pa.types.is_floating(t) else 1
            acc(ACC["INIT"], one)
        acc(ACC["PRODUCT" if name == "product" else "SUM"])
    elif name in ("variance", "stddev"):
        acc(ACC["DSUM"])
        acc(ACC["M2"])
    elif name in ("any", "all"):
        acc(ACC[name.upper()])
    elif name in ("first", "last"):
        acc(ACC["FIRST"] | (0 if opts.get("skip_nulls", True) else 16))
    else:
        acc(ACC["MINMAX"])
        acc(ACC["PICK"])
    raw, ok, words = finish(run, name, state, groups, t, opts)
    if name in ("any", "all"):
        bits = np.unpackbits(words.view(np.uint8), bitorder="little")[:groups]
        return [bool(b) if o else None for b, o in zip(bits, ok)]
    if name in ("min", "max", "first", "last", "min_max"):
        vals = values.to_pylist()
        got = [vals[int(r)] if o else None for r, o in zip(raw, ok)]
        if name == "min_max":
            raw2, ok2, _ = finish(run, name, state, groups, t, opts, upper=1)
            got = [{"min": a, "max": vals[int(r)] if o else None}
                   for a, r, o in zip(got, raw2, ok2)]  # fmt: skip
        return got
    if name in ("mean", "variance", "stddev") or (pa.types.is_floating(t) and name != "count"):
        return [float(v) if o else None for v, o in zip(raw.view(np.float64), ok)]
    signed = t is not None and pa.types.is_signed_integer(t) and name != "count"
    return [int(v) if o else None for v, o in zip(raw.view(np.int64) if signed else raw, ok)]


def same(a, b, tolerant):
    if a is None or b is None:
        return a is b
    if isinstance(a, dict):
        return all(same(a[k], b[k], False) for k in a)
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if not tolerant:
            return a == b and math.copysign(1, a) == math.copysign(1, b)
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    return a == b


NUMERIC = ["count", "sum", "product", "mean", "min", "max", "min_max", "first", "last",
           "variance", "stddev"]  # fmt: skip
CASES = [(pa.int32(), ["count", "sum", "min_max", "first"]), (pa.float64(), ["variance"]),
         (pa.bool_(), ["any"])]  # fmt: skip
if EVERY:
    BOOL = [a for a in NUMERIC if a not in ("variance", "stddev")] + ["any", "all"]
    CASES = [(t, BOOL if t == pa.bool_() else NUMERIC)
             for t in [pa.bool_(), pa.int8(), pa.int16(), pa.uint32(), pa.int64(), pa.uint64(),
                       pa.float32(), pa.float64()]]  # fmt: skip


@pytest.mark.parametrize("t,names", CASES, ids=[label(t) for t, _ in CASES])
def test_aggregates(kernels, t, names):  # noqa: F811
    n, blocks = 700, 2
    keys = group_keys(n, 3, offset=2)
    if pa.types.is_integer(t):  # products and sums that pyarrow and 64 bits agree on
        rng = np.random.default_rng(9)
        lo = -2 if pa.types.is_signed_integer(t) else 0
        small = [None if rng.random() < 0.2 else int(x) for x in rng.integers(lo, 3, n + 3)]
        values = pa.array(small, t).slice(3)
    else:
        values = sample(t, n, 5, 0.2, offset=3)
    ids, groups = first_ids(keys.to_pylist())
    table = pa.table({"k": keys, "v": values})
    # a min_count above every group's count: null sums, means, ...; min and max
    # ignore it (pyarrow's hash_min_max)
    option_sets = (
        [{}, {"skip_nulls": False, "min_count": 0}, {"min_count": 10**6}] if EVERY else [{}]
    )
    for name in names:
        for opts in option_sets:
            if name in ("first", "last", "min_max") and opts:
                continue
            got = gpu_aggregate(kernels, name, values, ids, groups, opts, blocks)
            po = None
            if opts and name not in ("count",):
                cls = pc.VarianceOptions if name in ("variance", "stddev") else (
                    pc.ScalarAggregateOptions)  # fmt: skip
                po = cls(**opts)
            res = pa.TableGroupBy(table, "k", use_threads=False).aggregate([("v", name, po)])
            want = dict(zip(res.column("k").to_pylist(), res.column(f"v_{name}").to_pylist()))
            order = list(dict.fromkeys(keys.to_pylist()))
            tolerant = name in ("sum", "product", "mean", "variance", "stddev")
            for g, k in enumerate(order):
                assert same(got[g], want[k], tolerant), (name, opts, k, got[g], want[k])


def test_pack_and_dense(kernels):  # noqa: F811
    n = 600
    a = np.arange(n, dtype=np.int32) % 7
    b = (np.arange(n, dtype=np.int32) * 5) % 11
    out = np.zeros(n, np.uint64)
    args = Args(n=n)
    args.in0, args.in1, args.out = a.ctypes.data, b.ctypes.data, out.ctypes.data
    kernels("am_group_pack", 2, args)
    assert (out == (a.astype(np.uint64) << np.uint64(32) | b.astype(np.uint64))).all()
    # GROUP_DENSE: slot = key - min, nulls cap + 1, first rows as ~row; then the hash
    # table's grouping with slots computed the same way (first-row order).
    keys = group_keys(n, 11, offset=1)
    vals = keys.to_pylist()
    lo = min(v for v in vals if v is not None)
    cap = max(v for v in vals if v is not None) - lo + 1
    table = np.zeros(2 * (cap + 2) + 1, np.uint32)
    args = Args(n=n, aux=cap, scalar=lo & (2**64 - 1))
    bind(args, 0, keys)
    args.out = table.ctypes.data
    kernels("am_group_dense_int16", 3, args)
    want = [cap + 1 if v is None else v - lo for v in vals]
    for s in set(want):
        assert int(~table[s] & 0xFFFFFFFF) == want.index(s)
    first, _, ids, null_group = group_table(kernels, keys, 3, False, table, cap, 0, False, lo)
    want_ids, groups = first_ids(vals)
    assert ids == want_ids.tolist() and len(first) == groups
    assert first == [vals.index(v) for v in dict.fromkeys(vals)]
    assert null_group == list(dict.fromkeys(vals)).index(None)


JOIN_CASES = JOIN if EVERY else ["full outer"]


@pytest.mark.parametrize("how", JOIN_CASES)
def test_join(kernels, how):  # noqa: F811
    nl, nr = 300, 280
    left, right = group_keys(nl, 21, 1), group_keys(nr, 22, 0)
    both = pa.concat_arrays([left, right])
    ids, groups = first_ids(both.to_pylist())
    type_ = JOIN.index(how)
    flags = np.zeros(2 * groups, np.uint32)
    rcount = np.zeros(groups, np.int64)
    args = Args(n=nl + nr, aux=nl)
    args.in0, args.in1, args.out = flags.ctypes.data, ids.ctypes.data, rcount.ctypes.data
    kernels("am_join_mark16", 2, args)
    args = Args(n=nl + nr)
    bind(args, 0, both)
    args.in0, args.in1 = flags.ctypes.data, ids.ctypes.data
    kernels("am_join_mark17", 2, args)
    assert (rcount == np.bincount(ids[nl:], minlength=groups)).all()

    def side(op, side_ids):
        count = np.zeros(len(side_ids), np.int64)
        a = Args(n=len(side_ids))
        a.in0, a.in1 = flags.ctypes.data, side_ids.ctypes.data
        a.valid1, a.out = rcount.ctypes.data, count.ctypes.data
        kernels(f"am_join_mark{op}", 2, a)
        return np.cumsum(count)

    lids, rids = np.ascontiguousarray(ids[:nl]), np.ascontiguousarray(ids[nl:])
    left_rows = how not in ("right semi", "right anti")
    right_rows = how in ("right outer", "full outer", "right semi", "right anti")
    pairs = type_ <= 3
    lscan = side(type_, lids) if left_rows else np.zeros(1, np.int64)
    rscan = side(type_ | 8, rids) if right_rows else np.zeros(1, np.int64)
    tl, tr = (int(lscan[-1]) if left_rows else 0), (int(rscan[-1]) if right_rows else 0)
    m = tl + tr
    li, ri = np.zeros(m + 1, np.int64), np.zeros(m + 1, np.int64)
    lv, rv = np.zeros(m // 32 + 2, np.uint32), np.zeros(m // 32 + 2, np.uint32)
    sorted_rows = np.argsort(rids, kind="stable").astype(np.int64)
    gend = np.cumsum(rcount)
    if left_rows:
        a = Args(n=nl)
        a.in0, a.in1, a.valid1 = flags.ctypes.data, lids.ctypes.data, lscan.ctypes.data
        a.out = li.ctypes.data
        if pairs:
            a.out_valid, a.valid0, a.off1 = lv.ctypes.data, ri.ctypes.data, rv.ctypes.data
            a.scalar, a.off0 = sorted_rows.ctypes.data, gend.ctypes.data
        kernels(f"am_join_write{16 if pairs else 0}", 2, a)
    if right_rows:
        a = Args(n=nr, aux=tl)
        a.in0, a.in1, a.valid1 = flags.ctypes.data, rids.ctypes.data, rscan.ctypes.data
        a.out = (ri if pairs or not left_rows else li).ctypes.data
        a.out_valid = rv.ctypes.data if pairs else 0
        kernels("am_join_write8", 2, a)

    def column(data, valid, use_valid):
        bits = np.unpackbits(valid.view(np.uint8), bitorder="little")
        return [int(data[i]) if (not use_valid or bits[i]) else None for i in range(m)]

    lt = pa.table({"k": left, "lrow": pa.array(range(nl))})
    rt = pa.table({"k": right, "rrow": pa.array(range(nr))})
    want = lt.join(rt, "k", join_type=how)
    if pairs:
        got = sorted(zip(column(li, lv, True), column(ri, rv, True)), key=str)
        ref = sorted(zip(want.column("lrow").to_pylist(), want.column("rrow").to_pylist()), key=str)
        assert got == ref
        # The CPU's order: left rows in order, then the unmatched right rows.
        lcol = column(li, lv, True)
        assert [x for x in lcol if x is not None] == sorted(x for x in lcol if x is not None)
    else:
        col = "lrow" if left_rows else "rrow"
        got = column(ri if right_rows else li, lv, False)
        assert got == sorted(want.column(col).to_pylist())
