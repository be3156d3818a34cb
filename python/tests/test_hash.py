"""The hash-based functions: is_in, index_in, unique,
value_counts, count_distinct, dictionary_encode, mode, against pyarrow.compute
on random data of every type, with pyarrow's options, keywords, ChunkedArrays
and value-set casts, and the C ABI's checks."""

import struct
import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal import ffi, lib

TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
TYPES += ["float32", "float64"]
CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]
FUNCTIONS = ["unique", "value_counts", "count_distinct", "dictionary_encode", "mode"]


def random_array(t, n, distinct, null_fraction, seed):
    """`n` values of type t drawn from `distinct` values (floats with NaN, both zeros
    and infinities among them), about null_fraction of them null."""
    rng = np.random.default_rng(seed)
    valid = rng.random(n) >= null_fraction
    if t == "bool":
        values = rng.random(n) < 0.6
    elif t.startswith("float"):
        pool = rng.integers(-1000, 1000, max(distinct, 1)).astype(np.float64) / 4
        pool[: min(4, len(pool))] = [np.nan, 0.0, -0.0, np.inf][: min(4, len(pool))]
        values = pool[rng.integers(0, len(pool), n)].astype(t)
    else:
        info = np.iinfo(t)
        pool = rng.integers(info.min, info.max, max(distinct, 1), dtype=t, endpoint=True)
        values = pool[rng.integers(0, len(pool), n)]
    return pa.array(values, type=pa.type_for_alias(t), mask=~valid)


def norm(x):
    """A comparable form of a result (NaN as a string; -0.0 keeps its sign)."""
    if isinstance(x, am.Array):
        x = x.to_pyarrow()
    if isinstance(x, pa.ChunkedArray):
        return ("chunked", str(x.type), [norm(c) for c in x.chunks])
    if isinstance(x, pa.DictionaryArray):
        return ("dict", norm(x.indices), norm(x.dictionary))
    if isinstance(x, pa.StructArray):
        return ("struct", str(x.type), [norm(x.field(i)) for i in range(x.type.num_fields)])
    if isinstance(x, pa.Array):
        return (str(x.type), [repr(v) for v in x.to_pylist()])
    if isinstance(x, pa.Scalar) or hasattr(x, "as_py"):
        return repr(x.as_py())
    return repr(x)


def same(got, want):
    assert norm(got) == norm(want)


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("distinct", [3, 1000])
@pytest.mark.parametrize("nulls", [0.0, 0.3])
def test_grouping_functions_match_pyarrow(t, distinct, nulls):
    arr = random_array(t, 3000, distinct, nulls, seed=hash((t, distinct, nulls)) % 2**32)
    for sliced in (arr, arr.slice(17, 2000)):
        same(am.unique(sliced), pc.unique(sliced))
        same(am.value_counts(sliced), pc.value_counts(sliced))
        for mode in ("only_valid", "only_null", "all"):
            assert am.count_distinct(sliced, mode=mode).as_py() == (
                pc.count_distinct(sliced, mode=mode).as_py()
            )
        for enc in ("mask", "encode"):
            same(am.dictionary_encode(sliced, null_encoding=enc),
                 pc.dictionary_encode(sliced, null_encoding=enc))  # fmt: skip
        if not t.startswith("float"):  # floats' zero signs: see test_mode_floats
            for n in (1, 5):
                same(am.mode(sliced, n=n), pc.mode(sliced, n=n))


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("skip_nulls", [False, True])
def test_set_lookup_matches_pyarrow(t, skip_nulls):
    values = random_array(t, 2000, 50, 0.2, seed=7)
    for value_set in (
        random_array(t, 30, 50, 0.2, seed=8),
        random_array(t, 30, 50, 0.0, seed=9),
        pa.array([], type=values.type),
        pa.nulls(3, type=values.type),
    ):
        for fn in ("is_in", "index_in"):
            same(getattr(am, fn)(values, value_set=value_set, skip_nulls=skip_nulls),
                 getattr(pc, fn)(values, value_set=value_set, skip_nulls=skip_nulls))  # fmt: skip


def test_float_equality_is_by_bits_as_pyarrow():
    other_nan = struct.unpack("d", struct.pack("Q", 0x7FF8000000000001))[0]
    arr = pa.array([0.0, -0.0, float("nan"), other_nan, -float("nan"), 0.0, None])
    for fn in ("unique", "value_counts", "dictionary_encode", "count_distinct"):
        same(getattr(am, fn)(arr), getattr(pc, fn)(arr))
    vs = pa.array([-0.0, float("nan")])
    same(am.index_in(arr, value_set=vs), pc.index_in(arr, value_set=vs))


def test_mode_floats():
    """pyarrow's mode compares floats by value: 0.0 and -0.0 are one mode, every
    NaN one (reported as the canonical NaN), NaN after every number on ties."""
    arr = pa.array([1.0, float("nan"), -float("nan"), 2.0, 2.0, 0.0, 0.0, -0.0, None])
    same(am.mode(arr, n=4), pc.mode(arr, n=4))
    got = am.mode(pa.array([-float("nan"), 1.0], pa.float32()), n=2).field(0)
    assert got.to_numpy(zero_copy_only=False).view(np.uint32)[1] == 0x7FC00000  # after 1.0


@pytest.mark.skipif(not CUDA, reason="no CUDA device")
def test_gpu_mode_orders_on_the_device():
    """mode of a GPU array orders its groups with the GPU's sort (abi/hash.c
    mode_on_device): floats compared by value (0.0 and -0.0 one mode shown with the
    first occurrence's bits, every NaN one and canonical), ties by value, the null
    group never a mode, n past the groups."""
    arr = pa.array([1.0, float("nan"), -float("nan"), 2.0, 2.0, -0.0, 0.0, 0.0, None, None, None])
    g = am.array(arr, device="cuda")
    for n in (1, 2, 4, 10):
        same(am.mode(g, n=n), am.mode(arr, n=n))
    zero = am.mode(g, n=1).field(0)  # -0.0 first: its bits
    assert np.signbit(zero.to_numpy(zero_copy_only=False)[0])
    nan = am.mode(am.array(pa.array([-float("nan"), 1.0], pa.float32()), device="cuda"), n=2)
    assert nan.field(0).to_numpy(zero_copy_only=False).view(np.uint32)[1] == 0x7FC00000
    ints = pa.array([5, 3, 3, None, None, None, 5, 7, -1], pa.int8())
    for skip in (False, True):
        for n in (1, 3, 9):
            same(am.mode(am.array(ints, device="cuda"), n=n, skip_nulls=skip),
                 pc.mode(ints, n=n, skip_nulls=skip))  # fmt: skip


def test_mode_options():
    arr = pa.array([3, 1, 1, None, 3, 2], pa.int16())
    same(am.mode(arr, n=2, skip_nulls=False), pc.mode(arr, n=2, skip_nulls=False))
    same(am.mode(arr, min_count=6), pc.mode(arr, min_count=6))
    same(am.mode(arr, min_count=5), pc.mode(arr, min_count=5))
    same(am.mode(arr, options=pc.ModeOptions(3)), pc.mode(arr, options=pc.ModeOptions(3)))
    with pytest.raises(pa.ArrowInvalid, match="strictly positive"):
        am.mode(arr, n=0)
    with pytest.raises(TypeError, match="both an 'options' argument"):
        am.mode(arr, n=2, options=pc.ModeOptions(3))


def test_options_objects_and_keywords():
    arr = pa.array([1, None, 2, 1], pa.int32())
    vs = pa.array([2, None], pa.int32())
    for skip in (False, True):
        opts = pc.SetLookupOptions(vs, skip_nulls=skip)
        same(am.is_in(arr, options=opts), pc.is_in(arr, options=opts))
        same(am.index_in(arr, options=opts), pc.index_in(arr, options=opts))
    for enc in ("mask", "encode"):
        opts = pc.DictionaryEncodeOptions(enc)
        same(am.dictionary_encode(arr, options=opts), pc.dictionary_encode(arr, options=opts))
    for mode in ("only_valid", "only_null", "all"):
        opts = pc.CountOptions(mode)
        same(am.count_distinct(arr, options=opts), pc.count_distinct(arr, options=opts))
    with pytest.raises(pa.ArrowInvalid, match="cannot be called without options"):
        am.is_in(arr)
    with pytest.raises(TypeError, match="not a valid value set"):
        am.is_in(arr, value_set=[1, 2])
    with pytest.raises(TypeError):
        am.count_distinct(arr, options=pc.ModeOptions(2))


@pytest.mark.parametrize(
    "values,value_set",
    [
        (pa.array([44, 1], pa.int8()), pa.array([300, 44], pa.int64())),
        (pa.array([44, 1], pa.int8()), pa.array([44.5, 1.0])),
        (pa.array([0.1, 1], pa.float32()), pa.array([0.1, 1])),
        (pa.array([0.1, 1]), pa.array([0.1, 1], pa.float32())),
        (pa.array([True, False]), pa.array([1, 2], pa.int8())),
        (pa.array([1, 0], pa.int8()), pa.array([True])),
        (pa.array([1, 2], pa.uint64()), pa.array([-1, 2])),
        (pa.array([1, 2]), pa.array([2**64 - 1, 2], pa.uint64())),
        (pa.array([1, 0], pa.int8()), pa.array([None], pa.null())),
        (pa.array([1, 2], pa.int8()), pa.chunked_array([[1], [2]], pa.int8())),
    ],
)
def test_value_set_casts_as_pyarrow(values, value_set):
    for fn in ("is_in", "index_in"):
        same(getattr(am, fn)(values, value_set=value_set),
             getattr(pc, fn)(values, value_set=value_set))  # fmt: skip


@pytest.mark.parametrize(
    "values,value_set",
    [
        (pa.array([255, 1], pa.uint8()), pa.array([-1, 1], pa.int8())),
        (pa.array([-1, 1], pa.int8()), pa.array([255, 1], pa.uint8())),
        (pa.array([2**64 - 1], pa.uint64()), pa.array([-1])),
    ],
)
def test_value_set_cast_errors_as_pyarrow(values, value_set):
    with pytest.raises(pa.ArrowInvalid) as want:
        pc.is_in(values, value_set=value_set)
    with pytest.raises(pa.ArrowInvalid) as got:
        am.is_in(values, value_set=value_set)
    assert str(got.value) == str(want.value)


def test_chunked_inputs_as_pyarrow():
    chunked = pa.chunked_array([[1, 2], [], [2, None, 3, 1]], pa.int64())
    vs = pa.array([1, None])
    for fn in ("is_in", "index_in"):
        same(getattr(am, fn)(chunked, value_set=vs), getattr(pc, fn)(chunked, value_set=vs))
    for fn in FUNCTIONS:
        same(getattr(am, fn)(chunked), getattr(pc, fn)(chunked))
    empty = pa.chunked_array([], pa.int64())
    for fn in FUNCTIONS:
        same(getattr(am, fn)(empty), getattr(pc, fn)(empty))


def test_am_array_inputs_and_results():
    a = am.array([3, 1, 3, None], type="int32")
    assert isinstance(am.unique(a), am.Array)
    assert am.unique(a).to_pylist() == [3, 1, None]
    assert am.is_in(a, value_set=am.array([3], type="int32")).to_pylist() == [
        True, False, True, False,
    ]  # fmt: skip
    assert isinstance(am.value_counts(a), pa.StructArray)
    assert isinstance(am.dictionary_encode(a), pa.DictionaryArray)
    assert isinstance(am.mode(a), pa.StructArray)


def test_dictionary_export_is_released_once():
    """The exported dictionary array owns its dictionary's structs: pyarrow imports a
    DictionaryArray, and dropping it releases everything (the handle still works)."""
    a = am.array([5, None, 7, 5], type="int16")
    out = ffi.new("am_array **")
    assert lib.am_dictionary_encode(a.handle, lib.AM_NULL_ENCODING_ENCODE, out) == 0
    handle = out[0]
    try:
        for _ in range(3):
            schema = ffi.new("struct ArrowSchema *")
            array = ffi.new("struct ArrowArray *")
            assert lib.am_export(handle, schema, array) == 0
            assert schema.dictionary != ffi.NULL and array.dictionary != ffi.NULL
            got = pa.Array._import_from_c(
                int(ffi.cast("uintptr_t", array)), int(ffi.cast("uintptr_t", schema))
            )
            assert array.release == ffi.NULL and schema.release == ffi.NULL
            assert got.indices.to_pylist() == [0, 1, 2, 0]
            assert got.dictionary.to_pylist() == [5, None, 7]
            del got
        # Export without the schema, then release by hand: the dictionary goes with it.
        array = ffi.new("struct ArrowArray *")
        assert lib.am_export(handle, ffi.NULL, array) == 0
        array.release(array)
        assert array.release == ffi.NULL
        sliced = ffi.new("am_array **")
        assert lib.am_slice(handle, 1, 2, sliced) == 0
        kept = ffi.new("am_array **")
        assert lib.am_dictionary(sliced[0], kept) == 0  # a slice keeps the dictionary
        lib.am_release(kept[0])
        lib.am_release(sliced[0])
        device_array = ffi.new("struct ArrowDeviceArray *")
        assert lib.am_export_device(handle, ffi.NULL, device_array) == lib.AM_EUNSUPPORTED
        assert b"dictionary" in ffi.string(lib.am_last_error())
    finally:
        lib.am_release(handle)


def test_c_abi_checks():
    a = am.array([1, 2], type="int32")
    b = am.array([1.0], type="float64")
    out = ffi.new("am_array **")
    assert lib.am_is_in(a.handle, b.handle, 0, out) == lib.AM_ETYPE
    msg = ffi.string(lib.am_last_error()).decode()
    assert msg.startswith("am_is_in:") and "doesn't match type of values set" in msg
    assert lib.am_index_in(ffi.NULL, a.handle, 0, out) == lib.AM_EINVAL
    assert lib.am_unique(a.handle, ffi.NULL) == lib.AM_EINVAL
    assert lib.am_dictionary(a.handle, out) == lib.AM_EINVAL
    assert lib.am_dictionary_encode(a.handle, 7, out) == lib.AM_EINVAL
    s = ffi.new("am_scalar *")
    assert lib.am_count_distinct(a.handle, 9, s) == lib.AM_EINVAL
    two = (ffi.new("am_array **"), ffi.new("am_array **"))
    assert lib.am_mode(a.handle, 0, 1, 0, *two) == lib.AM_EINVAL
    assert "strictly positive" in ffi.string(lib.am_last_error()).decode()
    assert two[0][0] == ffi.NULL and two[1][0] == ffi.NULL


def test_results_do_not_depend_on_threads():
    arr = random_array("int64", 200_000, 5000, 0.1, seed=3)
    want = norm(am.value_counts(arr))
    results = []

    def work():
        results.append(norm(am.value_counts(arr)))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == [want] * 4
    same(am.value_counts(arr), pc.value_counts(arr))


def test_many_distinct_grow_the_table():
    arr = pa.array(np.arange(300_000, dtype=np.int64)[::-1])
    same(am.unique(arr), pc.unique(arr))
    assert am.count_distinct(arr).as_py() == 300_000


@pytest.mark.parametrize("nulls", [0.0, 0.2])
def test_large_tables_match_pyarrow(nulls):
    """Tables past cpu/hash.c's PREFETCH_SLOTS: a part's rows switch to the
    look ahead as its table grows (150,000 distinct values), a sample
    predicts a large table made at once (all distinct), and is_in / index_in
    probe a value set of 100,000 with the look ahead."""
    rng = np.random.default_rng(11)
    pool = rng.integers(-(2**62), 2**62, 150_000)
    rows = pool[rng.integers(0, len(pool), 700_000)]
    mask = rng.random(len(rows)) < nulls
    for arr in (pa.array(rows, mask=mask), pa.array(np.arange(400_000)[::-1], mask=mask[:400_000])):
        same(am.unique(arr), pc.unique(arr))
        same(am.value_counts(arr), pc.value_counts(arr))
        same(am.dictionary_encode(arr), pc.dictionary_encode(arr))
        assert am.count_distinct(arr).as_py() == pc.count_distinct(arr).as_py()
    values = pa.array(rows, mask=mask)
    value_set = pa.array(pool[50_000:])
    same(am.is_in(values, value_set=value_set), pc.is_in(values, value_set=value_set))
    same(am.index_in(values, value_set=value_set), pc.index_in(values, value_set=value_set))


@pytest.mark.parametrize("t", ["int16", "uint16", "int32", "uint32", "int64", "uint64",
                               "timestamp[ms]"])  # fmt: skip
@pytest.mark.parametrize("low, span", [(-50, 100), (0, 1000), (2**31 - 5000, 3000),
                                       (-(2**20), 2**21), (-3, 70000)])  # fmt: skip
def test_dense_keys_match_pyarrow(t, low, span):
    """Integers within a small span take cpu/hash.c's direct table (the slot is
    the value's distance from the smallest, signed types by their flipped
    sign bit): across zero, near the type's top, spans past 2^16 (direct only
    for long inputs), with nulls; is_in / index_in with values outside the
    set's span."""
    rng = np.random.default_rng(span)
    info_type = pa.from_numpy_dtype(np.dtype(t)) if t != "timestamp[ms]" else pa.int64()
    info = np.iinfo(info_type.to_pandas_dtype())
    lo, hi = int(info.min), min(int(info.max), 2**63 - 1)
    first, last = max(lo, low), min(hi, low + span)
    if first >= last:
        pytest.skip("the span is outside the type")
    rows = rng.integers(first, last, 300_000, endpoint=True)
    mask = rng.random(len(rows)) < 0.1
    arr = pa.array(rows, mask=mask).cast(t)
    same(am.unique(arr), pc.unique(arr))
    same(am.value_counts(arr), pc.value_counts(arr))
    same(am.dictionary_encode(arr), pc.dictionary_encode(arr))
    value_set = arr.slice(0, 2000)
    outside = pa.array(rng.integers(lo, hi, 5000, endpoint=True)).cast(t)
    for values in (arr, outside):
        same(am.is_in(values, value_set=value_set), pc.is_in(values, value_set=value_set))
        same(am.index_in(values, value_set=value_set), pc.index_in(values, value_set=value_set))


@pytest.mark.parametrize("t", ["int16", "uint32", "int64"])
@pytest.mark.parametrize("under_nulls", ["near", "far", "first"])
def test_dense_keys_with_values_under_nulls(t, under_nulls):
    """cpu/hash.c takes the dense range over every slot first, null rows'
    values too: values under nulls that stay near the valid ones widen the
    direct table a little, far ones make it measure the valid rows alone;
    either way a null row groups as a null (first row null included), over
    one part and several (300,000 rows), with ids, counts and both."""
    rng = np.random.default_rng(5)
    n = 300_000
    rows = rng.integers(100, 1100, n)
    nulls = rng.random(n) < 0.05
    nulls[0] = under_nulls == "first"
    info = np.iinfo(t)
    junk = {"near": 99, "far": int(info.max), "first": 1200}[under_nulls]
    rows[nulls] = junk
    data = pa.array(rows.astype(t))
    valid = pc.invert(pa.array(nulls)).buffers()[1]
    arr = pa.Array.from_buffers(data.type, n, [valid, data.buffers()[1]])
    same(am.unique(arr), pc.unique(arr))
    same(am.value_counts(arr), pc.value_counts(arr))
    same(am.dictionary_encode(arr), pc.dictionary_encode(arr))
    assert am.count_distinct(arr, mode="all").as_py() == pc.count_distinct(arr, mode="all").as_py()
    table = pa.table({"k": arr, "v": np.arange(n, dtype=np.float64)})
    aggs = [("v", "sum"), ("v", "count")]
    got = am.group_by(table, "k").aggregate(aggs)
    want = table.group_by("k", use_threads=False).aggregate(aggs)
    assert got.column("k")[0].as_py() == table.column("k")[0].as_py()  # first-occurrence order
    assert got.sort_by("k").equals(want.sort_by("k"))  # pyarrow orders small integers its own way
    value_set = pa.array([100, 500, None], data.type)
    same(am.is_in(arr, value_set=value_set), pc.is_in(arr, value_set=value_set))
    same(am.index_in(arr, value_set=value_set), pc.index_in(arr, value_set=value_set))


@pytest.mark.skipif(not CUDA, reason="no CUDA device")
def test_gpu_arrays_match_the_cpu():
    arr = random_array("int32", 100_000, 1000, 0.1, seed=5)
    g = am.array(arr, device="cuda")
    assert am.unique(g).device.startswith("cuda")
    same(am.unique(g), pc.unique(arr))
    same(am.value_counts(g), pc.value_counts(arr))
    same(am.dictionary_encode(g), pc.dictionary_encode(arr))
    vs = arr.slice(0, 50)
    same(am.index_in(g, value_set=vs), pc.index_in(arr, value_set=vs))


@pytest.mark.skipif(not CUDA, reason="no CUDA device")
@pytest.mark.parametrize("t", TYPES)
def test_gpu_hash_kernels_match_pyarrow(t):
    """The GPU's own hash table (gpu/ops_hash.c): every function of it against pyarrow,
    with few and many distinct values, nulls, slices, float specials and a value set
    with duplicates and nulls; results stay on the device."""
    for n, distinct, nulls, seed in ((1, 1, 0.0, 1), (5000, 7, 0.2, 2), (200_003, 150_000, 0.05, 3),
                                     (3000, 3000, 1.0, 4)):  # fmt: skip
        arr = random_array(t, n, distinct, nulls, seed).slice(min(n - 1, 3))
        g = am.array(arr, device="cuda")
        for fn in ("unique", "value_counts", "dictionary_encode", "count_distinct"):
            got = getattr(am, fn)(g)
            if fn == "unique":  # an am.Array; the others are pyarrow's results
                assert got.device.startswith("cuda"), fn
            same(got, getattr(pc, fn)(arr))
        same(am.dictionary_encode(g, null_encoding="encode"),
             pc.dictionary_encode(arr, null_encoding="encode"))  # fmt: skip
        for mode in ("only_valid", "only_null", "all"):
            same(am.count_distinct(g, mode=mode), pc.count_distinct(arr, mode=mode))
        # pyarrow's mode counts 0.0 and -0.0 together and reports either zero
        # (its sort is unstable): float inputs, which hold both, are checked
        # against the CPU backend's mode (held to pyarrow by the conformance cases).
        host = am.array(arr, device="cpu")
        for skip in (False, True):
            want = (am.mode(host, n=3, skip_nulls=skip) if pa.types.is_floating(arr.type)
                    else pc.mode(arr, n=3, skip_nulls=skip))  # fmt: skip
            same(am.mode(g, n=3, skip_nulls=skip), want)
        vs = pa.concat_arrays([arr.slice(0, 40), arr.slice(0, 10)])
        for skip in (False, True):
            for fn in ("is_in", "index_in"):
                got = getattr(am, fn)(g, value_set=vs, skip_nulls=skip)
                assert got.device.startswith("cuda"), fn
                same(got, getattr(pc, fn)(arr, value_set=vs, skip_nulls=skip))


@pytest.mark.skipif(not CUDA, reason="no CUDA device")
@pytest.mark.parametrize("distinct", [1000, 4_000_000])
def test_gpu_long_inputs_first_try_table(distinct):
    """Past 2^20 rows the GPU first builds a table for 2^20 keys (gpu/ops_hash.c): with
    fewer distinct keys it is the table, with more it fills, says so, and the build goes
    round again with room for every row. Both against pyarrow."""
    arr = random_array("int64", (1 << 21) + 77, distinct, 0.01, seed=distinct)
    g = am.array(arr, device="cuda")
    same(am.unique(g), pc.unique(arr))
    same(am.value_counts(g), pc.value_counts(arr))
    same(am.dictionary_encode(g), pc.dictionary_encode(arr))
    assert am.count_distinct(g).as_py() == pc.count_distinct(arr).as_py()


def test_array_methods_as_pyarrow():
    arr = pa.array([2, None, 2, 1], pa.uint32())
    a = am.array(arr)
    same(a.unique(), arr.unique())
    same(a.value_counts(), arr.value_counts())
    same(a.dictionary_encode(), arr.dictionary_encode())
    same(a.dictionary_encode("encode"), arr.dictionary_encode("encode"))


@pytest.mark.filterwarnings("ignore::arrowmetal.ArrowMetalFallbackWarning")
def test_scalar_inputs_run_in_pyarrow_as_it_takes_them():
    s = pa.scalar(3, pa.int16())
    vs = pa.array([3], pa.int16())
    for fn in ("is_in", "index_in"):
        same(getattr(am, fn)(s, value_set=vs), getattr(pc, fn)(s, value_set=vs))
    for fn in FUNCTIONS:
        same(getattr(am, fn)(s), getattr(pc, fn)(s))
