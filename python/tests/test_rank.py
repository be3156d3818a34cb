"""select_k_unstable, rank, rank_quantile, rank_normal and
partition_nth_indices against pyarrow.compute: every type, both orders and
null placements, every tiebreaker, tables by column name (select_k),
options objects and keywords, ChunkedArrays, the refusals (pyarrow's option
errors, the C ABI's checks), the heap and sort paths of select_k agreeing,
the partition property, and GPU-resident arrays (skipped without CUDA)."""

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am

from .test_sort import CUDA, ORDERS, PLACEMENTS, TYPES, data

# RankOptions(null_placement=...) is deprecated in pyarrow but still taken
pytestmark = pytest.mark.filterwarnings("ignore:Specifying null_placement in:FutureWarning")
TIEBREAKERS = ["min", "max", "first", "dense"]


def values_at(arr, idx):
    """The values of `arr` at indices `idx` (-0.0 read as 0.0: it ties 0.0)."""
    idx = idx.to_pyarrow() if isinstance(idx, am.Array) else idx
    out = pc.take(arr, idx).to_pylist()
    return [v + 0.0 if isinstance(v, float) and not math.isnan(v) else
            ("nan" if isinstance(v, float) else v) for v in out]  # fmt: skip


@pytest.mark.parametrize("t", TYPES)
def test_rank_matches_pyarrow(t):
    for n, distinct in ((1500, None), (3000, 4), (0, None), (1, None)):
        a = data(t, n, seed=n, distinct=distinct)
        for order in ORDERS:
            for placement in PLACEMENTS:
                for tb in TIEBREAKERS:
                    got = am.rank(a, order, null_placement=placement, tiebreaker=tb)
                    want = pc.rank(a, order, null_placement=placement, tiebreaker=tb)
                    assert isinstance(got, am.Array)
                    assert got.to_pyarrow().equals(want), (order, placement, tb)
                keys = [("x", order, placement)]
                got = am.rank_quantile(a, keys).to_pyarrow()
                assert got.equals(pc.rank_quantile(a, keys))
                got = np.array(am.rank_normal(a, keys).to_pyarrow().to_pylist(), dtype=float)
                want = np.array(pc.rank_normal(a, keys).to_pylist(), dtype=float)
                np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("t", TYPES)
def test_select_k_matches_pyarrow_values(t):
    for n, distinct in ((5000, None), (5000, 3), (40, None)):
        a = data(t, n, seed=n + 1, distinct=distinct)
        for order in ORDERS:
            for placement in PLACEMENTS:
                keys = [("x", order, placement)]
                for k in (0, 1, 10, n // 2, n, n + 5):
                    got = am.select_k_unstable(a, k, keys)
                    want = pc.select_k_unstable(a, k, keys)
                    assert len(got) == len(want)
                    assert values_at(a, got) == values_at(a, want), (order, placement, k)


def test_select_k_heap_and_sort_paths_agree():
    """k small beside the rows (a heap) and k large (the stable sort) give
    the stable sort's first k rows, ties in row order."""
    rng = np.random.default_rng(4)
    n = 20000
    t = pa.table({"a": pa.array(rng.integers(0, 5, n), mask=rng.random(n) < 0.2),
                  "b": data("float64", n, 5, distinct=3)})  # fmt: skip
    keys = [("a", "descending", "at_start"), ("b", "ascending", "at_end")]
    order = pc.sort_indices(t, keys).to_pylist()
    for k in (1, 7, 100, n // 8 - 1, n // 8 + 1, n // 2):
        got = am.select_k_unstable(t, k, keys).to_pylist()
        assert got == order[:k], k
        want = pc.select_k_unstable(t, k, keys)
        for col in ("a", "b"):
            assert values_at(t.column(col), pa.array(got)) == values_at(t.column(col), want)
    # record batches, options objects, chunked columns
    b = t.to_batches()[0]
    opts = pc.SelectKOptions(50, keys)
    assert am.select_k_unstable(b, options=opts).to_pylist() == order[:50]
    t2 = pa.concat_tables([t.slice(0, 777), t.slice(777)])
    assert am.select_k_unstable(t2, 50, keys).to_pylist() == order[:50]
    ch = pa.chunked_array([t.column("b").chunk(0).slice(0, 10), t.column("b").chunk(0).slice(10)])
    got = am.select_k_unstable(ch, 9, [("b", "descending")])
    want = pc.select_k_unstable(ch, 9, [("b", "descending")])
    assert values_at(t.column("b"), got) == values_at(t.column("b"), want)


def check_partition(a, idx, pivot, placement):
    idx = idx.to_pyarrow().to_pylist()
    n = len(a)
    assert sorted(idx) == list(range(n))
    if pivot == n:
        return
    srt = pc.take(a, pc.array_sort_indices(a, null_placement=placement)).to_pylist()

    def key(v):
        cls = 2 if v is None else (1 if isinstance(v, float) and math.isnan(v) else 0)
        return (2 - cls if placement == "at_start" else cls, v + 0 if cls == 0 else 0)

    vals = pc.take(a, pa.array(idx, pa.uint64())).to_pylist()
    assert key(vals[pivot]) == key(srt[pivot])
    assert all(key(v) <= key(vals[pivot]) for v in vals[:pivot])
    assert all(key(v) >= key(vals[pivot]) for v in vals[pivot + 1 :])


@pytest.mark.parametrize("t", TYPES)
def test_partition_nth_indices(t):
    for n, distinct in ((3000, None), (3000, 3), (1, None), (0, None)):
        a = data(t, n, seed=n + 2, distinct=distinct)
        for placement in PLACEMENTS:
            for pivot in sorted({0, n // 2, max(n - 1, 0), n}):
                got = am.partition_nth_indices(a, pivot, null_placement=placement)
                check_partition(a, got, pivot, placement)
    a = data(t, 500, seed=9)
    opts = pc.PartitionNthOptions(100, null_placement="at_start")
    check_partition(a, am.partition_nth_indices(a, options=opts), 100, "at_start")
    check_partition(a, am.partition_nth_indices(pa.chunked_array([a[:10], a[10:]]), 7), 7, "at_end")


def test_refusals():
    a = pa.array([3, None, 1])
    t = pa.table({"a": a})
    with pytest.raises(pa.ArrowInvalid, match="requires a nonnegative `k`, got -1"):
        am.select_k_unstable(a, -1, [("a", "ascending")])
    with pytest.raises(pa.ArrowInvalid, match="requires a non-empty `sort_keys`"):
        am.select_k_unstable(t, 1, [])
    with pytest.raises(pa.ArrowInvalid, match=r"No match for FieldRef.Name\(c\)"):
        am.select_k_unstable(t, 1, [("c", "ascending")])
    with pytest.raises(pa.ArrowIndexError, match="NthToIndices index out of bound"):
        am.partition_nth_indices(a, 4)
    with pytest.raises(am.ArrowMetalInvalid, match="negative"):
        am.partition_nth_indices(a, -1)
    with pytest.raises(ValueError, match="not a valid tiebreaker"):
        am.rank(a, tiebreaker="middle")
    with pytest.raises(ValueError, match="not a valid sort order"):
        am.rank(a, "sideways")
    with pytest.raises(ValueError, match="not a valid null placement"):
        am.partition_nth_indices(a, 1, null_placement="middle")
    with pytest.raises(pa.ArrowNotImplementedError, match="Unsupported types for rank"):
        am.rank(t)
    with pytest.raises(TypeError, match="expected a RankOptions"):
        am.rank(a, options=pc.SortOptions())
    with pytest.raises(TypeError, match="both an 'options' argument"):
        am.rank(a, "descending", options=pc.RankOptions())
    with pytest.raises(TypeError, match="expected a RankQuantileOptions"):
        am.rank_normal(a, options=pc.RankOptions())
    with pytest.raises(TypeError, match="both an 'options' argument"):
        am.partition_nth_indices(a, 1, options=pc.PartitionNthOptions(1))


def test_unsupported_types_run_in_pyarrow():
    s = pa.array(["b", None, "a"])
    with pytest.warns(am.ArrowMetalFallbackWarning):
        got = am.rank(s, tiebreaker="dense")
    assert got.to_pylist() == pc.rank(s, tiebreaker="dense").to_pylist()


def test_c_abi_refusals():
    from arrowmetal._capi import ffi, lib

    a = am.array(pa.array([3, 1, 2], pa.int32()))
    b = am.array(pa.array([3.0, 1.0], pa.float64()))
    out = ffi.new("am_array **")
    keys = ffi.new("am_array *[]", [a._ptr, b._ptr])
    end = ffi.new("int[]", [lib.AM_NULLS_AT_END] * 2)
    cases = [
        (lambda: lib.am_select_k_unstable(keys, 2, ffi.NULL, end, 1, out), "equal lengths"),
        (lambda: lib.am_select_k_unstable(keys, 1, ffi.NULL, ffi.new("int[]", [7]), 1, out),
         "null_placement[0] 7"),
        (lambda: lib.am_select_k_unstable(ffi.NULL, 1, ffi.NULL, ffi.NULL, 1, out), "keys is NULL"),
        (lambda: lib.am_select_k_unstable(keys, 1, ffi.NULL, ffi.NULL, 1, ffi.NULL), "out is NULL"),
        (lambda: lib.am_rank(a._ptr, 0, lib.AM_NULLS_AT_END, 4, out), "tiebreaker 4"),
        (lambda: lib.am_rank(a._ptr, 0, 0, lib.AM_RANK_MIN, out), "null_placement 0"),
        (lambda: lib.am_rank(ffi.NULL, 0, lib.AM_NULLS_AT_END, lib.AM_RANK_MIN, out), "array is NULL"),
        (lambda: lib.am_rank_quantile(a._ptr, 0, 39, 0, out), "null_placement 39"),
        (lambda: lib.am_partition_nth_indices(a._ptr, 0, 1, out), "null_placement 1"),
        (lambda: lib.am_partition_nth_indices(ffi.NULL, 0, lib.AM_NULLS_AT_END, out), "array is NULL"),
    ]  # fmt: skip
    for call, text in cases:
        assert call() == lib.AM_EINVAL
        msg = ffi.string(lib.am_last_error()).decode()
        assert msg.startswith("am_") and text in msg, msg
        assert out[0] == ffi.NULL
    # NULL descending / null_placement: ascending, nulls at the end
    assert lib.am_select_k_unstable(keys, 1, ffi.NULL, ffi.NULL, 2, out) == lib.AM_OK
    assert am._array.wrap(out[0]).to_pylist() == [1, 2]


def test_scratch_is_freed():
    n = 200000
    a = am.array(data("float64", n, 12))
    before = am.memory_info("cpu")["bytes_in_use"]
    r = am.partition_nth_indices(a, n // 2)
    q = am.rank(a)
    k = am.select_k_unstable(a, 10, [("x", "descending")])
    after = am.memory_info("cpu")["bytes_in_use"]
    # only the results stay (rounded up by the host allocator)
    assert after - before <= 2 * 8 * (2 * n + 10) + 65536
    del r, q, k


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_gpu_resident_arrays():
    a = data("float32", 100001, seed=3, distinct=30)
    g = am.array(a, device="cuda")
    r = am.rank(g, "descending", tiebreaker="min")
    assert str(r.device).startswith("cuda")
    assert r.to_pyarrow().equals(pc.rank(a, "descending", tiebreaker="min"))
    k = am.select_k_unstable(g, 50, [("x", "ascending")])
    assert str(k.device).startswith("cuda")
    assert values_at(a, k) == values_at(a, pc.select_k_unstable(a, 50, [("x", "ascending")]))
    p = am.partition_nth_indices(g, 777)
    assert str(p.device).startswith("cuda")
    check_partition(a, p, 777, "at_end")
