"""sort_indices, array_sort_indices and array_sort against
pyarrow.compute: every type in both orders and null placements, tables and
record batches by column name, multi-key ties (stability), options objects
and keywords, ChunkedArrays, the refusals (bad options, unsupported per-key
placements, the C ABI's checks), thread-count independence of the parallel
radix passes, the memory accounting of its scratch, and GPU-resident arrays
(skipped without CUDA; there the device radix sort of gpu/ops_sort.c
runs, its memory counted and freed)."""

import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am

from .fresh import run_python

# SortOptions(null_placement=...) is deprecated in pyarrow but still taken
pytestmark = pytest.mark.filterwarnings(
    "ignore:Specifying null_placement in SortOptions:FutureWarning"
)
CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]
TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64"]  # fmt: skip
ORDERS = ["ascending", "descending"]
PLACEMENTS = ["at_end", "at_start"]


def data(t, n, seed=0, nulls=0.1, distinct=None):
    """n values of type t, with NaN and -0.0 among floats; `distinct` bounds
    the values (ties) where given."""
    rng = np.random.default_rng(seed)
    if t == "bool":
        v = rng.random(n) < 0.5
    elif t.startswith("float"):
        v = rng.normal(0, 100, n).astype(t)
        if distinct:
            v = rng.integers(-distinct, distinct, n).astype(t)
        v[rng.random(n) < 0.05] = np.nan
        v[rng.random(n) < 0.05] = -0.0
        v[rng.random(n) < 0.05] = 0.0
    else:
        info = np.iinfo(t)
        lo, hi = info.min, info.max
        if distinct:
            lo, hi = max(lo, -distinct), min(hi, distinct)
        v = rng.integers(lo, hi, n, dtype=t, endpoint=True)
    return pa.array(v, mask=rng.random(n) < nulls)


def same(got, want):
    assert isinstance(got, am.Array)
    got = got.to_pyarrow()
    assert got.type == pa.uint64() == want.type
    assert got.to_pylist() == want.to_pylist()


@pytest.mark.parametrize("t", TYPES)
def test_array_sort_indices_matches_pyarrow(t):
    for n, distinct in ((1000, None), (3000, 5)):
        a = data(t, n, seed=n, distinct=distinct)[3:]  # sliced
        for order in ORDERS:
            for placement in PLACEMENTS:
                got = am.array_sort_indices(a, order, null_placement=placement)
                same(got, pc.array_sort_indices(a, order, null_placement=placement))
                opts = pc.ArraySortOptions(order, null_placement=placement)
                same(am.array_sort_indices(a, options=opts), pc.array_sort_indices(a, options=opts))
                keys = [("x", order)]
                same(am.sort_indices(a, keys, null_placement=placement),
                     pc.sort_indices(a, keys, null_placement=placement))  # fmt: skip


def test_nan_zero_and_null_order():
    a = pa.array([1.0, None, float("nan"), -0.0, 0.0, 3.0, float("nan"), None, -1.0, -0.0])
    for order in ORDERS:
        for placement in PLACEMENTS:
            same(am.array_sort_indices(a, order, null_placement=placement),
                 pc.array_sort_indices(a, order, null_placement=placement))  # fmt: skip
    # -0.0 and 0.0 tie: they keep their row order
    assert am.array_sort_indices(pa.array([0.0, -0.0, 0.0, -0.0])).to_pylist() == [0, 1, 2, 3]


def test_tables_record_batches_and_ties():
    rng = np.random.default_rng(3)
    n = 5000
    t = pa.table({
        "a": data("int16", n, 1, distinct=3), "b": data("float64", n, 2, distinct=4),
        "c": data("bool", n, 3), "d": pa.array(rng.integers(0, 2, n).astype("uint8")),
    })  # fmt: skip
    for keys in (
        [("a", "ascending")],
        [("a", "descending"), ("b", "ascending")],
        [("c", "ascending"), ("a", "descending"), ("b", "descending")],
        [("d", "descending"), ("c", "ascending"), ("b", "ascending"), ("a", "ascending")],
    ):
        for placement in PLACEMENTS:
            want = pc.sort_indices(t, keys, null_placement=placement)
            same(am.sort_indices(t, keys, null_placement=placement), want)
            same(am.sort_indices(t.to_batches()[0], sort_keys=keys, null_placement=placement),
                 want)  # fmt: skip
            opts = pc.SortOptions(keys, null_placement=placement)
            same(am.sort_indices(t, options=opts), want)
    # chunked columns are combined
    t2 = pa.concat_tables([t.slice(0, 1000), t.slice(1000)])
    keys = [("b", "descending"), ("a", "ascending")]
    same(am.sort_indices(t2, keys), pc.sort_indices(t2, keys))
    # per-key placements (pyarrow 26's third field), mixed over keys with nulls;
    # null_placement= overrides them all
    for keys3 in (
        [("d", "ascending", "at_start"), ("a", "descending", "at_end")],
        [("a", "ascending", "at_start"), ("b", "descending", "at_end")],
        [
            ("b", "descending", "at_end"),
            ("a", "ascending", "at_start"),
            ("c", "descending", "at_start"),
        ],
    ):
        same(am.sort_indices(t, keys3), pc.sort_indices(t, keys3))
        for placement in PLACEMENTS:
            same(am.sort_indices(t, keys3, null_placement=placement),
                 pc.sort_indices(t, keys3, null_placement=placement))  # fmt: skip


def test_array_sort_and_chunked_arrays():
    a = data("int32", 2000, 7, distinct=50)
    ch = pa.chunked_array([a.slice(0, 500), a.slice(500)])
    got = am.array_sort_indices(ch, "descending")  # of a ChunkedArray, one chunk as pyarrow's
    assert isinstance(got, pa.ChunkedArray) and got.num_chunks == 1
    same(am.array(got.chunk(0)), pc.array_sort_indices(ch, "descending"))
    same(am.sort_indices(ch), pc.sort_indices(ch))
    got = am.array_sort(a, "descending", null_placement="at_start")
    want = pc.take(a, pc.array_sort_indices(a, "descending", null_placement="at_start"))
    assert isinstance(got, am.Array)
    assert got.to_pyarrow().equals(want)
    same(am.array_sort_indices(am.array(a)), pc.array_sort_indices(a))
    same(am.array_sort_indices([3, 1, None, 2]), pc.array_sort_indices(pa.array([3, 1, None, 2])))


def test_refusals():
    t = pa.table({"a": [1, None, 2], "b": [None, 1.0, 2.0]})
    with pytest.raises(pa.ArrowInvalid, match="Must specify one or more sort keys"):
        am.sort_indices(t)
    with pytest.raises(pa.ArrowInvalid, match="No match for FieldRef.Name\\(c\\)"):
        am.sort_indices(t, [("c", "ascending")])
    with pytest.raises(ValueError, match="not a valid sort order"):
        am.sort_indices(t, [("a", "up")])
    with pytest.raises(ValueError, match="not a valid null placement"):
        am.array_sort_indices(pa.array([1]), null_placement="middle")
    with pytest.raises(ValueError, match="not a valid sort order"):
        am.array_sort_indices(pa.array([1]), "sideways")
    with pytest.raises(TypeError, match="expected a ArraySortOptions"):
        am.array_sort_indices(pa.array([1]), options=pc.SortOptions())
    with pytest.raises(TypeError, match="both an 'options' argument"):
        am.array_sort_indices(pa.array([1]), "descending", options=pc.ArraySortOptions())
    with pytest.raises(TypeError, match="both an 'options' argument"):
        am.sort_indices(t, [("a", "ascending")], options=pc.SortOptions([("a", "ascending")]))
    with pytest.raises(am.ArrowMetalUnsupported, match="plain column name"):
        am.sort_indices(pa.table({"s": [{"x": 1}]}), [(("s", "x"), "ascending")])


def test_keyless_sort_options_run_in_pyarrow():
    """A SortOptions without keys keeps its null_placement out of Python's
    reach: pyarrow runs the call, announced, rather than a guess."""
    a = pa.array([2, None, 1])
    opts = pc.SortOptions(null_placement="at_start")
    with pytest.warns(am.ArrowMetalFallbackWarning, match="without sort keys"):
        got = am.sort_indices(a, options=opts)
    assert got.to_pylist() == pc.sort_indices(a, options=opts).to_pylist() == [1, 2, 0]


def test_c_abi_refusals():
    from arrowmetal._capi import ffi, lib

    a = am.array(pa.array([3, 1, 2], pa.int32()))
    b = am.array(pa.array([3.0, 1.0], pa.float64()))
    out = ffi.new("am_array **")
    keys = ffi.new("am_array *[]", [a._ptr, b._ptr])
    desc = ffi.new("int[]", [0, 1])
    end = ffi.new("int[]", [lib.AM_NULLS_AT_END] * 2)
    start = ffi.new("int[]", [lib.AM_NULLS_AT_START] * 2)
    cases = [
        (keys, 2, desc, end, "equal lengths"),
        (keys, 0, desc, end, "one or more sort keys"),
        (keys, -1, desc, end, "one or more sort keys"),
        (keys, 1, desc, ffi.new("int[]", [0]), "null_placement[0] 0"),
        (keys, 2, desc, ffi.new("int[]", [lib.AM_NULLS_AT_END, 42]), "null_placement[1] 42"),
        (ffi.NULL, 1, desc, end, "keys is NULL"),
        (ffi.new("am_array *[]", [a._ptr, ffi.NULL]), 2, desc, end, "key 1"),
    ]
    for k, n, d, placement, text in cases:
        assert lib.am_sort_indices(k, n, d, placement, out) == lib.AM_EINVAL
        msg = ffi.string(lib.am_last_error()).decode()
        assert msg.startswith("am_sort_indices") and text in msg, msg
        assert out[0] == ffi.NULL
    assert lib.am_sort_indices(keys, 1, desc, end, ffi.NULL) == lib.AM_EINVAL
    # descending NULL: every key ascending
    assert lib.am_sort_indices(keys, 1, ffi.NULL, start, out) == lib.AM_OK
    r = am._array.wrap(out[0])
    assert r.to_pylist() == [1, 2, 0]
    # null_placement NULL: nulls at the end of every key
    n = am.array(pa.array([None, 2, 1], pa.int8()))
    one = ffi.new("am_array *[]", [n._ptr])
    assert lib.am_sort_indices(one, 1, ffi.NULL, ffi.NULL, out) == lib.AM_OK
    assert am._array.wrap(out[0]).to_pylist() == [2, 1, 0]


def test_parallel_passes_do_not_depend_on_threads():
    code = (
        "import numpy as np, pyarrow as pa, arrowmetal as am, hashlib;"
        "r = np.random.default_rng(5); n = 300000;"
        "v = r.integers(0, 40, n).astype('float64'); v[r.random(n) < .05] = np.nan;"
        "t = pa.table({'a': pa.array(v, mask=r.random(n) < .1),"
        " 'b': pa.array(r.integers(-9, 9, n).astype('int16'))});"
        "i = am.sort_indices(t, [('a', 'descending'), ('b', 'ascending')]).to_pyarrow();"
        "import pyarrow.compute as pc;"
        "assert i.equals(pc.sort_indices(t, [('a', 'descending'), ('b', 'ascending')]));"
        "print(hashlib.sha256(i.to_numpy().tobytes()).hexdigest())"
    )
    outs = set()
    for threads in ("1", "2", "4"):
        run = run_python(code, ARROWMETAL_THREADS=threads, ARROWMETAL_PARALLEL_MIN="1024")
        assert run.returncode == 0, run.stderr
        outs.add(run.stdout)
    assert len(outs) == 1


def test_scratch_is_counted_and_freed():
    n = 400000
    a = am.array(data("float64", n, 11))
    am.reset_peak_memory("cpu")
    before = am.memory_info("cpu")
    r = am.array_sort_indices(a)
    after = am.memory_info("cpu")
    # the result (8 bytes a row) and, at the peak, three more n-sized areas
    assert after["peak_bytes"] - before["bytes_in_use"] >= 4 * 8 * n
    # after: the result alone (its buffer rounded up by the host allocator)
    assert after["bytes_in_use"] - before["bytes_in_use"] <= 2 * 8 * n
    del r


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("t", ["bool", "int32", "uint64", "float32", "float64"])
def test_gpu_resident_arrays(t):
    a = data(t, 300001, seed=9, distinct=20)
    b = data("int64", 300001, seed=10, distinct=5)
    g, h = am.array(a, device="cuda"), am.array(b, device="cuda")
    r = am.array_sort_indices(g, "descending", null_placement="at_start")
    assert str(r.device).startswith("cuda")
    same(r, pc.array_sort_indices(a, "descending", null_placement="at_start"))
    t2 = pa.table({"a": a, "b": b})
    keys = [("a", "ascending"), ("b", "descending")]
    same(am.sort_indices(t2, keys), pc.sort_indices(t2, keys))
    from arrowmetal._capi import ffi, lib

    out = ffi.new("am_array **")
    keys_c = ffi.new("am_array *[]", [g._ptr, h._ptr])
    assert lib.am_sort_indices(keys_c, 2, ffi.new("int[]", [0, 1]), ffi.NULL, out) == 0
    r2 = am._array.wrap(out[0])
    assert str(r2.device).startswith("cuda")
    same(r2, pc.sort_indices(t2, keys))


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("t", TYPES)
def test_gpu_radix_sort_every_type(t):
    # gpu/ops_sort.c's device sort: lengths 0, 1 and several tiles (4096
    # rows a block), both orders and placements, ties (stability)
    for n, distinct in ((0, None), (1, None), (3 * 4096 + 5, 7), (20000, None)):
        a = data(t, n, seed=n + 1, distinct=distinct)
        g = am.array(a, device="cuda")
        for order in ORDERS:
            for placement in PLACEMENTS:
                r = am.array_sort_indices(g, order, null_placement=placement)
                assert str(r.device).startswith("cuda")
                same(r, pc.array_sort_indices(a, order, null_placement=placement))


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_gpu_sort_memory_is_counted_and_freed():
    n = 400000
    g = am.array(data("float64", n, 12), device="cuda")
    am.reset_peak_memory("cuda")
    before = am.memory_info("cuda")
    r = am.array_sort_indices(g)
    after = am.memory_info("cuda")
    # at the peak two u64 key buffers and two u32 row buffers (gpu/ops_sort.c),
    # all counted; afterwards only the u64 result is left
    assert after["peak_bytes"] - before["bytes_in_use"] >= (2 * 8 + 2 * 4) * n
    assert after["bytes_in_use"] - before["bytes_in_use"] <= 8 * n + 4096
    del r
    assert am.memory_info("cuda")["bytes_in_use"] <= before["bytes_in_use"]


def test_sort_by_tables_and_record_batches():
    """am.sort_by is pa.Table.sort_by / pa.RecordBatch.sort_by: every column
    taken in sort_indices' order, strings included (pyarrow's take, announced)."""
    n = 3000
    t = pa.table({
        "a": data("int16", n, 1, distinct=3), "b": data("float64", n, 2, distinct=4),
        "s": pa.array([f"r{i}" for i in range(n)]),
    })  # fmt: skip
    t = pa.concat_tables([t.slice(0, 1000), t.slice(1000)])  # chunked columns
    cases = [
        ("a", {}),
        ([("a", "descending"), ("b", "ascending")], {}),
        ([("a", "descending"), ("b", "ascending")], {"null_placement": "at_start"}),
        ([("b", "descending", "at_start"), ("a", "ascending", "at_end")], {}),
    ]
    for sorting, kwargs in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = am.sort_by(t, sorting, **kwargs)
            want = t.sort_by(sorting, **kwargs)
            assert isinstance(got, pa.Table)
            assert got.schema == want.schema
            assert repr(got.to_pylist()) == repr(want.to_pylist()), (sorting, kwargs)  # NaN
            b = t.combine_chunks().to_batches()[0]
            gotb = am.sort_by(b, sorting, **kwargs)
            assert isinstance(gotb, pa.RecordBatch)
            assert repr(gotb.to_pylist()) == repr(b.sort_by(sorting, **kwargs).to_pylist())
    with pytest.raises(TypeError, match="sort_by takes a pa.Table"):
        am.sort_by(pa.array([1]), "a")
    with pytest.raises(TypeError):
        am.sort_by(t, "a", bogus=1)


def test_array_sort_honours_order_and_placement():
    a = data("float32", 2000, 13, distinct=6)
    for order in ORDERS:
        for placement in PLACEMENTS:
            want = pc.take(a, pc.array_sort_indices(a, order, null_placement=placement))
            got = am.array_sort(a, order, null_placement=placement)
            assert repr(got.to_pylist()) == repr(want.to_pylist())  # NaN
            opts = pc.ArraySortOptions(order, null_placement=placement)
            assert repr(am.array_sort(a, options=opts).to_pylist()) == repr(want.to_pylist())


def test_counting_sort_edges():
    """One integer key of a small range takes the counting sort
    (cpu/sort_counting.c); wide spans and uint64 above INT64_MAX decline to
    the radix sort. Both agree with pyarrow at every edge."""
    arrays = [
        pa.array([5, -3, None, 5, -3, 0, None, 7], pa.int8()),
        pa.array([2**63 - 1, 2**63 - 2, None, 2**63 - 1], pa.int64()),
        pa.array([-(2**63), 2**63 - 1, 0, None], pa.int64()),  # the widest span
        pa.array([2**64 - 1, 2**64 - 2, 2**64 - 1, None], pa.uint64()),  # above INT64_MAX
        pa.array([None, None, None], pa.int32()),
        pa.array([7] * 50, pa.uint16()),
        data("int32", 5000, 3, distinct=40).slice(77, 3000),  # an offset
        data("uint32", 5000, 4, nulls=0.0, distinct=1000),
    ]
    for a in arrays:
        for order in ORDERS:
            for placement in PLACEMENTS:
                same(am.array_sort_indices(a, order, null_placement=placement),
                     pc.array_sort_indices(a, order, null_placement=placement))  # fmt: skip


# ---- string and binary keys (cpu/sort_strings.c) ----------------------------

STRING_TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]
# empty, prefixes of each other (a prefix sorts first), embedded and trailing
# NULs (which zero padding alone would tie with the shorter value), bytes
# above 0x7f (unsigned), values past the 8-byte chunks with long common
# prefixes, non-ASCII UTF-8
WORDS = ["", "a", "a\x00", "a\x00\x00", "ab", "abcdefgh", "abcdefgh\x00", "abcdefghi",
         "abcdefgh" * 5, "abcdefgh" * 5 + "a", "é", "日本語", "zz\x00z", "\x7f", "Z"]  # fmt: skip


def words(n, seed, nulls=0.1):
    """n values drawn from WORDS and random ones over a small alphabet (long
    runs of ties and of shared prefixes), with nulls."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        r = rng.random()
        if r < nulls:
            out.append(None)
        elif r < 0.6:
            out.append(WORDS[rng.integers(len(WORDS))])
        else:
            out.append("".join(rng.choice(list("ab\x00é"), rng.integers(0, 30))))
    return out


def string_array(values, t):
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        values = [None if v is None else v.encode() for v in values]
    return pa.array(values, t)


@pytest.mark.parametrize("t", STRING_TYPES, ids=str)
@pytest.mark.parametrize("n", [0, 1, 2, 23, 25, 1000, 20000])
def test_string_keys_match_pyarrow(t, n):
    """One string key, both orders and placements, sliced: pyarrow's order,
    run here (no fallback)."""
    a = string_array(words(n + 5, n), t).slice(5)
    before = am.fallbacks().get("array_sort_indices", 0)
    for order in ORDERS:
        for placement in PLACEMENTS:
            got = am.array_sort_indices(a, order, null_placement=placement)
            same(got, pc.array_sort_indices(a, order, null_placement=placement))
    assert am.fallbacks().get("array_sort_indices", 0) == before


def test_fixed_size_binary_keys():
    rng = np.random.default_rng(3)
    vals = [bytes(rng.choice([0, 1, 0x80, 0xFF], 3).astype(np.uint8)) if rng.random() > 0.1 else None
            for _ in range(3000)]  # fmt: skip
    a = pa.array(vals, pa.binary(3))
    for order in ORDERS:
        for placement in PLACEMENTS:
            got = am.array_sort_indices(a, order, null_placement=placement)
            same(got, pc.array_sort_indices(a, order, null_placement=placement))


@pytest.mark.parametrize("t", [pa.string(), pa.large_binary()], ids=str)
def test_string_keys_among_numeric_keys(t):
    """Multi-key sorts with string keys first, last and between numeric ones,
    every order combination and per-key placements: each string key is a
    stable pass of the permutation."""
    n = 5000
    s1, s2 = string_array(words(n, 1), t), string_array(words(n, 2, nulls=0.3), t)
    table = pa.table({"s1": s1, "s2": s2, "x": data("int16", n, 4, distinct=3),
                      "f": data("float64", n, 5, distinct=2)})  # fmt: skip
    for names in (["s1", "x"], ["x", "s1"], ["f", "s2", "s1"], ["s2", "f", "x"]):
        for mask in range(2 ** len(names)):
            keys = [(c, ORDERS[(mask >> k) & 1], PLACEMENTS[(mask >> (k + 1)) & 1])
                    for k, c in enumerate(names)]  # fmt: skip
            same(am.sort_indices(table, keys), pc.sort_indices(table, keys))
    by = [("s1", "descending"), ("x", "ascending")]
    plain = table.drop_columns(["f"])  # NaN != NaN in Table.equals
    assert am.sort_by(plain, by).equals(plain.sort_by(by))


def test_string_keys_edges():
    """Empty, one row, all equal (stable: row order), all null, values
    differing only past long shared prefixes."""
    for vals in ([], ["x"], [None], ["same"] * 100, [None] * 50, ["", None, ""] * 20,
                 ["p" * 1000 + c for c in "cabacb"] * 9):  # fmt: skip
        a = pa.array(vals, pa.string())
        for order in ORDERS:
            for placement in PLACEMENTS:
                got = am.array_sort_indices(a, order, null_placement=placement)
                same(got, pc.array_sort_indices(a, order, null_placement=placement))


def test_string_scratch_is_freed_and_rank_still_refuses():
    """The string sort's work areas are given back; rank and select_k have no
    string kernel yet: the C calls refuse the key (AM_ETYPE), so Python runs
    them in pyarrow."""
    from arrowmetal._capi import ffi, lib

    a = am.array(pa.array(words(50000, 7), pa.string()))
    before = am.memory_info("cpu")["bytes_in_use"]
    r = am.array_sort_indices(a)
    assert am.memory_info("cpu")["bytes_in_use"] - before <= 2 * 8 * len(a)
    del r
    out = ffi.new("am_array **")
    assert lib.am_rank(a._ptr, 0, lib.AM_NULLS_AT_END, 0, out) == lib.AM_ETYPE
    keys = ffi.new("am_array *[]", [a._ptr])
    assert lib.am_select_k_unstable(keys, 1, ffi.NULL, ffi.NULL, 3, out) == lib.AM_ETYPE
