"""float16 (issue #13) against pyarrow 26: the type in and out (pyarrow, numpy,
scalars), every function pyarrow computes over halffloat, compared bit for bit
(NaN payloads, -0.0), the casts both ways, and the refusals of the others, on
the CPU and, where there is one, on a CUDA device."""

import warnings

import numpy as np
import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]
DEVICES = ["cpu", "cuda"] if CUDA else ["cpu"]

# Both zeros and infinities, quiet and signalling NaNs of both signs and
# several payloads, the subnormal and normal extremes, values around 1.
SPECIALS = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00,
            0x7E00, 0xFE00, 0x7C01, 0x7D55, 0xFC2A, 0x7FFF, 0x3C00, 0xBC00, 0x3C01, 0x3C04,
            0x3E00, 0xC100, 0x3555, 0x6800, 0x6801]  # fmt: skip
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def halves(bits, nulls=None):
    """A pyarrow float16 array of these bit patterns (None: null)."""
    b = np.array([0 if v is None else v for v in bits], np.uint16)
    mask = np.array([v is None for v in bits]) if nulls is None else nulls
    return pa.array(b.view(np.float16), mask=mask)


def sample(n=500, seed=0, offset=3):
    """Specials and uniform bits, a quarter null, sliced past `offset` slots."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 1 << 16, n + offset).astype(np.uint16)
    bits[offset : offset + len(SPECIALS)] = SPECIALS
    bits[-len(SPECIALS) :] = SPECIALS
    mask = rng.random(n + offset) < 0.25
    return pa.array(bits.view(np.float16), mask=mask).slice(offset)


def bits_of(arr):
    """(validity, bits under the valid slots) of a float16 result, in any form."""
    if isinstance(arr, am.Array):
        arr = arr.to_pyarrow()
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    assert arr.type == pa.float16(), arr.type
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    raw = np.frombuffer(arr.buffers()[1], np.uint16)[arr.offset : arr.offset + len(arr)]
    return valid.tolist(), [int(b) if ok else None for b, ok in zip(raw, valid)]


def same(got, want):
    """Equal results: float16 ones bit for bit, others by value."""
    if isinstance(got, am.Array):
        got = got.to_pyarrow()
    if isinstance(want, pa.ChunkedArray) and isinstance(got, pa.ChunkedArray):
        got, want = got.combine_chunks(), want.combine_chunks()
    if getattr(want, "type", None) == pa.float16():
        assert bits_of(got) == bits_of(want)
    else:
        assert got.equals(want) if hasattr(got, "equals") else got == want, (got, want)


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


def on(arr, device):
    return am.array(arr, device=device)


# ---- the type ------------------------------------------------------------------------------


def test_the_type_is_float16_in_every_name():
    t = am.type_id("float16")
    assert t == 12 and am.type_id("halffloat") == t and am.type_id(np.float16) == t
    assert am.type_id(pa.float16()) == t
    a = am.array(halves(SPECIALS))
    assert a.type == "float16" and a.to_pyarrow().type == pa.float16()


def test_arrays_come_in_and_go_out_bit_for_bit():
    h = sample()
    a = am.array(h)
    assert bits_of(a) == bits_of(h)
    n = np.array(SPECIALS, np.uint16).view(np.float16)
    from_numpy = am.array(n)
    assert from_numpy.to_numpy().dtype == np.float16
    assert (from_numpy.to_numpy().view(np.uint16) == np.array(SPECIALS, np.uint16)).all()
    same_or_nan = [x == y or (np.isnan(x) and np.isnan(y)) if x is not None else y is None
                   for x, y in zip(a.to_pylist(), h.to_pylist())]  # fmt: skip
    assert all(same_or_nan)
    with_nulls = am.array(halves([0x3C00, None]))
    got = with_nulls.to_numpy()
    assert got.dtype == np.float16 and got[0] == 1.0 and np.isnan(got[1])


def test_placement_on_every_device_keeps_the_bits(device):
    h = sample(200, 1)
    a = on(h, device)
    assert bits_of(a) == bits_of(h)
    assert bits_of(am.array(a, device="cpu")) == bits_of(h)


# ---- functions pyarrow computes ---------------------------------------------------------


PREDICATES = ["is_null", "is_valid", "is_nan", "is_finite", "is_inf"]


@pytest.mark.parametrize("name", PREDICATES)
def test_predicates_match_pyarrow(name, device):
    h = sample(300, 2)
    same(getattr(am, name)(on(h, device)), getattr(pc, name)(h))
    if name == "is_null":
        same(am.is_null(on(h, device), nan_is_null=True), pc.is_null(h, nan_is_null=True))


@pytest.mark.parametrize("name", ["negate", "negate_checked", "sign"])
def test_negate_and_sign_match_pyarrow_bit_for_bit(name, device):
    h = sample(300, 3)
    same(getattr(am, name)(on(h, device)), getattr(pc, name)(h))
    same(getattr(am, name)(on(halves(SPECIALS), device)), getattr(pc, name)(halves(SPECIALS)))


def test_selection_matches_pyarrow(device):
    h = sample(400, 4)
    idx = pa.array([0, 5, None, 399, 17, 17], pa.int32())
    mask = pa.array([(i % 3 == 0) if i % 7 else None for i in range(400)])
    same(am.take(on(h, device), idx), pc.take(h, idx))
    same(am.filter(on(h, device), mask), pc.filter(h, mask))
    same(am.filter(on(h, device), mask, null_selection_behavior="emit_null"),
         pc.filter(h, mask, null_selection_behavior="emit_null"))  # fmt: skip
    same(am.drop_null(on(h, device)), pc.drop_null(h))
    same(am.fill_null_forward(on(h, device)), pc.fill_null_forward(h))
    same(am.fill_null_backward(on(h, device)), pc.fill_null_backward(h))
    same(on(h, device)[5:20], h.slice(5, 15))


def test_chunked_arrays_keep_their_chunks():
    c = pa.chunked_array([sample(50, 5), sample(30, 6)])
    got = am.take(c, pa.array([0, 60, 79]))
    same(got, pc.take(c, pa.array([0, 60, 79])))
    same(am.negate(c), pc.negate(c))
    same(am.unique(c), pc.unique(c))


@pytest.mark.parametrize(
    "fill",
    [
        np.float16(2.5),
        2.5,
        7,
        True,
        1e10,
        1.0001,
        pa.scalar(-0.0, pa.float16()),
        pa.scalar(3.0, pa.float32()),
        None,
    ],
    ids=repr,
)
def test_fill_null_converts_the_fill_as_pyarrow(fill, device):
    h = sample(200, 7)
    same(am.fill_null(on(h, device), fill), pc.fill_null(h, fill))


def test_fill_null_refuses_what_pyarrow_refuses():
    h = sample(60, 8)
    with pytest.raises(pa.ArrowInvalid, match="exactly representable"):
        am.fill_null(h, 2**53 + 1)


def test_coalesce_and_if_else_match_pyarrow(device):
    h, g = sample(300, 9), sample(300, 10)
    cond = pa.array([None if i % 11 == 0 else i % 2 == 0 for i in range(300)])
    s = pa.scalar(np.float16(-1.5))
    same(am.coalesce(on(h, device), on(g, device), s), pc.coalesce(h, g, s))
    same(am.if_else(cond, on(h, device), on(g, device)), pc.if_else(cond, h, g))
    same(am.if_else(cond, s, on(g, device)), pc.if_else(cond, s, g))
    same(am.if_else(cond, on(h, device), None), pc.if_else(cond, h, None))


@pytest.mark.parametrize(
    "other",
    [pa.array(np.zeros(4, np.float32)), pa.scalar(1.0), pa.array([1, 2, 3, 4])],
    ids=str,
)
def test_coalesce_and_if_else_refuse_other_types_as_pyarrow(other):
    h = halves([0x3C00, None, 0x7E01, None])
    cond = pa.array([True, False, None, True])
    for f in (lambda m: m.coalesce(h, other), lambda m: m.if_else(cond, h, other)):
        with pytest.raises(pa.ArrowNotImplementedError) as theirs:
            f(pc)
        with pytest.raises(pa.ArrowNotImplementedError) as ours:
            f(am)
        assert str(theirs.value).split(": ")[-1].lower() in str(ours.value).lower()


def test_count_and_hash_functions_match_pyarrow(device):
    pool = [0x0000, 0x8000, 0x7E00, 0xFE00, 0x7D55, 0x7C01, 0x3C00, 0x3C01, 0x3C04, None]
    rng = np.random.default_rng(11)
    h = halves([pool[i] for i in rng.integers(0, len(pool), 500)])
    x = on(h, device)
    for mode in ("only_valid", "only_null", "all"):
        assert am.count(x, mode=mode).as_py() == pc.count(h, mode=mode).as_py()
        assert am.count_distinct(x, mode=mode).as_py() == pc.count_distinct(h, mode=mode).as_py()
    same(am.unique(x), pc.unique(h))
    got, want = am.value_counts(x), pc.value_counts(h)
    same(got.field("values"), want.field("values"))
    same(got.field("counts"), want.field("counts"))
    for encoding in ("mask", "encode"):
        got = am.dictionary_encode(x, null_encoding=encoding)
        want = pc.dictionary_encode(h, null_encoding=encoding)
        same(got.indices, want.indices)
        same(got.dictionary, want.dictionary)


def test_count_distinct_counts_pyarrows_keys_over_every_pattern():
    """pyarrow 26 counts each storage integer rounded to a float16 (see
    abi/float16_calls.c), not the bit patterns unique() gives: the same count."""
    every = pa.array(np.arange(1 << 16, dtype=np.uint16).view(np.float16))
    assert am.count_distinct(every).as_py() == pc.count_distinct(every).as_py()
    assert am.count_distinct(every).as_py() != len(pc.unique(every))


def _by_bits(table):
    """A table with its float16 columns (and list items) as their bits, sorted by every
    column: results compared bit for bit, in any order."""
    cols = []
    for col in table.columns:
        col = col.combine_chunks()
        if col.type == pa.float16():
            col = col.view(pa.uint16())
        elif pa.types.is_list(col.type) and col.type.value_type == pa.float16():
            items = col.values.view(pa.uint16()).to_pylist()
            off = col.offsets.to_pylist()
            col = pa.array([sorted(items[off[i] : off[i + 1]], key=lambda v: (v is None, v))
                            for i in range(len(col))])  # fmt: skip
        cols.append(col)
    out = pa.table(cols, names=[f"c{i}" for i in range(len(cols))])
    sortable = [n for n, c in zip(out.column_names, cols) if not pa.types.is_list(c.type)]
    return out.sort_by([(n, "ascending") for n in sortable])


def test_group_by_float16_keys_and_values_by_their_bits(device, no_fallback):
    # NaNs of several payloads and both zeros are groups of their own, as pyarrow's grouper
    pool = [0x0000, 0x8000, 0x7E00, 0xFE00, 0x7D55, 0x3C00, 0x3C01, 0xFC00, None]
    rng = np.random.default_rng(5)
    k = halves([pool[i] for i in rng.integers(0, len(pool), 400)])
    v = halves([pool[i] for i in rng.integers(0, len(pool), 400)])
    table = pa.table({"k": k, "j": pa.array(rng.integers(0, 3, 400)), "v": v,
                      "w": pa.array(rng.integers(-9, 9, 400))})  # fmt: skip
    aggs = [("w", "sum"), ("v", "count"), ("v", "count_distinct"), ("v", "distinct"),
            ("v", "count", pc.CountOptions("all")), ([], "count_all")]  # fmt: skip
    for by in (["k"], ["k", "j"], ["j"]):
        got = am.group_by(am.table(table, device=device), by).aggregate(aggs)
        want = table.group_by(by, use_threads=False).aggregate(aggs)
        assert got.schema == want.schema
        assert _by_bits(got).equals(_by_bits(want)), by


def test_float16_keys_beside_string_and_decimal_keys(no_fallback):
    # the uint16 views settle the float16 columns alone: a string or decimal key
    # beside one is not refused
    import decimal

    h = halves([0x3C00, 0x8000, None, 0x3C00, 0x7E00, 0x8000])
    table = pa.table({
        "h": h,
        "s": pa.array(["a", "b", "a", "a", None, "b"]),
        "d": pa.array([decimal.Decimal(x) for x in "121211"], pa.decimal128(5, 0)),
        "v": pa.array(range(6)),
    })  # fmt: skip
    for by in (["h", "s"], ["s", "h"], ["h", "d"]):
        got = am.group_by(table, by).aggregate([("v", "sum")])
        want = table.group_by(by, use_threads=False).aggregate([("v", "sum")])
        assert _by_bits(got).equals(_by_bits(want)), by
        joined = am.join(table, table.rename_columns(["h", "s", "d", "w"]), by)
        assert _by_bits(pa.table(joined)).equals(_by_bits(table.join(
            table.rename_columns(["h", "s", "d", "w"]), by))), by  # fmt: skip


@pytest.mark.parametrize("name", ["sum", "min", "first", "list", "variance"])
def test_group_by_refuses_other_aggregates_of_float16_as_pyarrow(name):
    table = pa.table({"k": pa.array([1, 2, 1]), "v": halves([0x3C00, None, 0x7E00])})
    with pytest.raises(pa.ArrowNotImplementedError) as theirs:
        table.group_by("k", use_threads=False).aggregate([("v", name)])
    with pytest.raises(pa.ArrowNotImplementedError) as ours:
        am.group_by(table, "k", use_threads=False).aggregate([("v", name)])
    assert str(theirs.value) == str(ours.value)


@pytest.mark.parametrize("join_type", ["inner", "left outer", "full outer", "left anti"])
def test_join_by_float16_keys_matches_bits(device, join_type, no_fallback):
    pool = [0x0000, 0x8000, 0x7E00, 0xFE00, 0x3C00, 0x3C01, None]
    rng = np.random.default_rng(9)
    left = pa.table({"k": halves([pool[i] for i in rng.integers(0, len(pool), 200)]),
                     "v": pa.array(range(200))})  # fmt: skip
    right = pa.table({"k": halves([pool[i] for i in rng.integers(0, len(pool), 30)]),
                      "w": pa.array(range(30))})  # fmt: skip
    got = am.join(am.table(left, device=device), am.table(right, device=device), "k",
                  join_type=join_type)  # fmt: skip
    want = left.join(right, "k", join_type=join_type)
    assert _by_bits(pa.table(got)).equals(_by_bits(want))
    with pytest.raises(pa.ArrowInvalid, match="Incompatible data types"):
        am.join(left, right.set_column(0, "k", pa.array(range(30), pa.uint16())), "k")


# ---- casts -------------------------------------------------------------------------------


@pytest.mark.parametrize("to", ["float32", "float64"])
def test_every_float16_widens_exactly(to, device):
    every = pa.array(np.arange(1 << 16, dtype=np.uint16).view(np.float16))
    got = am.cast(on(every, device), to).to_pyarrow()
    want = pc.cast(every, to)
    width = np.uint32 if to == "float32" else np.uint64
    assert (np.frombuffer(got.buffers()[1], width) == np.frombuffer(want.buffers()[1], width)).all()


@pytest.mark.parametrize("src", ["float32", "float64"])
def test_floats_round_to_float16_as_pyarrow(src, device):
    rng = np.random.default_rng(12)
    if src == "float32":
        bits = rng.integers(0, 1 << 32, 300_000, dtype=np.uint64).astype(np.uint32)
        ties = (np.arange(1 << 16, dtype=np.uint32) << 13) | 0x1000  # exact ties of float16
        values = np.concatenate([bits, ties]).view(np.float32)
    else:
        bits = rng.integers(0, 1 << 63, 300_000, dtype=np.uint64) * np.uint64(2)
        values = np.concatenate([bits, bits | np.uint64(1)]).view(np.float64)
    x = pa.array(values)
    same(am.cast(on(x, device), "float16"), pc.cast(x, pa.float16()))


@pytest.mark.parametrize("t", INTS)
def test_integers_cast_to_float16_as_pyarrow(t):
    info = np.iinfo(t)
    vals = [v for v in (0, 1, -1, 2049, 2051, 65519, 65520, 100000, 2**24 + 1, 2**53 + 1,
                        int(info.min), int(info.max)) if info.min <= v <= info.max]  # fmt: skip
    x = pa.array(vals + [None], t)
    same(am.cast(x, "float16", safe=False), pc.cast(x, pa.float16(), safe=False))
    try:
        want = pc.cast(x, pa.float16())
    except pa.ArrowInvalid as e:
        with pytest.raises(pa.ArrowInvalid, match=str(e).split(":")[0]):
            am.cast(x, "float16")
    else:
        same(am.cast(x, "float16"), want)


@pytest.mark.parametrize("t", INTS)
def test_float16_casts_to_integers_as_pyarrow(t):
    info = np.iinfo(t)
    whole = [v for v in (0.0, -0.0, 1.0, -1.0, 127.0, 255.0, 2048.0, -300.0, 65504.0)
             if info.min <= v <= info.max]  # fmt: skip
    x = pa.array(np.array(whole, np.float16))
    same(am.cast(x, t), pc.cast(x, t))
    for bad in (1.5, np.nan, np.inf, 65504.0, -65504.0):
        y = pa.array(np.array([1.0, bad], np.float16))
        try:
            pc.cast(y, t)
        except pa.ArrowInvalid as e:  # the same words: pyarrow names the storage integer
            with pytest.raises(pa.ArrowInvalid) as ours:
                am.cast(y, t)
            assert str(e) in str(ours.value)
        else:
            same(am.cast(y, t), pc.cast(y, t))
    options = pc.CastOptions(pa.type_for_alias(t), allow_float_truncate=True)
    fractions = pa.array([1.5, -0.75, 2.25, None], pa.float16())
    same(am.cast(fractions, options=options), pc.cast(fractions, options=options))


@pytest.mark.parametrize(
    "pair",
    [
        ("float16", pa.bool_()),
        ("bool", pa.float16()),
        ("float16", pa.timestamp("s")),
        ("timestamp[s]", pa.float16()),
        ("float16", pa.binary()),
    ],
    ids=str,
)
def test_casts_pyarrow_refuses_are_refused_in_its_words(pair):
    src, to = pair
    x = pa.array([1, None]).cast(pa.type_for_alias(src)) if src != "bool" else pa.array([True])
    with pytest.raises(pa.ArrowNotImplementedError) as theirs:
        pc.cast(x, to)
    with pytest.raises(pa.ArrowNotImplementedError) as ours:
        am.cast(x, to)
    assert str(theirs.value) in str(ours.value)


def test_string_casts_run_in_pyarrow():
    h = halves([0x3E00, 0x8000, None])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        assert am.cast(h, pa.string()).equals(pc.cast(h, pa.string()))
        s = pa.array(["1.5", "-0", None])
        same(am.cast(s, pa.float16()), pc.cast(s, pa.float16()))


# ---- refusals ----------------------------------------------------------------------------

REFUSED = {
    "sum": (), "min": (), "max": (), "mean": (), "product": (), "min_max": (), "first": (),
    "last": (), "variance": (), "stddev": (), "abs": (), "sqrt": (), "floor": (), "exp": (),
    "cumulative_sum": (), "round": (), "pairwise_diff": (), "mode": (), "equal": ("x",),
    "add": ("x",), "power": ("x",), "less": (1.0,), "sort_indices": (), "rank": (),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_other_functions_refuse_float16_as_pyarrow(name):
    """The library's refusal of an am.Array (a pyarrow input runs pyarrow, which
    refuses it too: not called here, since a fallback's warning comes once a
    process and other tests wait for it)."""
    h = halves([0x3C00, None, 0xC100])
    extra = [h if a == "x" else a for a in REFUSED[name]]
    with pytest.raises(pa.ArrowNotImplementedError):
        getattr(pc, name)(h, *extra)
    ours = [am.array(a) if a is h else a for a in extra]
    with pytest.raises(pa.ArrowNotImplementedError, match="halffloat"):
        getattr(am, name)(am.array(h), *ours)


def test_reductions_refuse_under_their_options_too():
    a = am.array(halves([0x3C00, None]))
    for kw in ({"skip_nulls": False}, {"min_count": 5}):
        for name in ("sum", "mean", "min", "max"):
            with pytest.raises(pa.ArrowNotImplementedError, match="halffloat"):
                getattr(am, name)(a, **kw)


def test_table_columns_of_float16_travel_bit_for_bit():
    h = sample(100, 13)
    t = pa.table({"h": h, "i": pa.array(range(100))})
    back = am.table(t).to_pyarrow()
    assert back.schema == t.schema
    assert bits_of(back["h"]) == bits_of(h)
