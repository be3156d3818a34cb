"""The hash GPU kernels (kernel_source_hash.c: HASH_BUILD, HASH_FIRSTS,
HASH_GROUP_SLOTS, HASH_IDS, HASH_PROBE) run where there is no GPU: their CUDA source
compiled as C++ against emu/cuda_emu.h (as test_nulls_kernels.py does) and
launched in gpu/ops_hash.c's order, the filter step done here with numpy (the
filter kernels have tests of their own). Each grouping is checked against a
reference of the values' bits (first-occurrence order, 0.0 / -0.0 and NaN
payloads apart, one null group) and against pyarrow.compute's unique,
value_counts, dictionary_encode, count_distinct, is_in and index_in; with tiny
tables (long probe chains: many keys share their low hash bits), several
blocks, nulls, offsets and float specials."""

import pathlib
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_nulls_kernels import Args, bind, kernels, label, sample  # noqa: F401 (kernels: a fixture)


def geometry(t, rows, cap=None):
    """ops_hash.c's table geometry (cap may be forced smaller: > distinct keys)."""
    if cap is None:
        cap = 64
        while cap < 2 * rows:
            cap *= 2
    key_words = 2 if t.bit_width == 64 else 1
    first_word = (cap + 2) * key_words
    return cap, first_word, first_word + 2 * (cap + 2) + 1


def bits_of(x):
    """Each row's key: None for null, else its value's bits (as the kernels see them)."""
    out = []
    if x.type == pa.bool_():
        return [None if v is None else int(v) for v in x.to_pylist()]
    width = x.type.bit_width // 8
    raw = np.frombuffer(x.buffers()[1], dtype=f"u{width}", count=len(x) + x.offset)[x.offset :]
    for i, v in enumerate(x.is_valid().to_pylist()):
        out.append(int(raw[i]) if v else None)
    return out


def reference(x, mask_nulls):
    keys = bits_of(x)
    group, first, counts = {}, [], []
    ids = []
    for i, k in enumerate(keys):
        if k is None and mask_nulls:
            ids.append(None)
            continue
        if k not in group:
            group[k] = len(first)
            first.append(i)
            counts.append(0)
        counts[group[k]] += 1
        ids.append(group[k])
    return first, counts, ids, group.get(None, -1)


def unpack(words, n):
    return np.unpackbits(words.view(np.uint8), bitorder="little")[:n].astype(bool)


def run_group(run, x, blocks, mask_nulls, cap=None, counted=True, bounded=False):
    n = len(x)
    cap, first_word, words = geometry(x.type, n, cap)
    table = np.zeros(words + 16, np.uint32)
    build_status = np.zeros(8, np.uint64)
    args = Args(n=n, aux=cap, scalar=first_word)
    bind(args, 0, x)
    args.out, args.status = table.ctypes.data, build_status.ctypes.data
    name = f"am_hash_build{'_counted' if counted else ''}{'_bounded' if bounded else ''}"
    run(f"{name}_{label(x.type)}", blocks, args)
    assert build_status[1] == 0, "the table ran out of room"
    return group_table(run, x, blocks, mask_nulls, table, cap, first_word, counted)


def group_table(run, x, blocks, mask_nulls, table, cap, first_word, counted, lo=None):
    """ops_hash.c's grouping after a build (lo: GROUP_DENSE's table)."""
    n, dense = len(x), lo is not None
    firsts = np.zeros((n + 31) // 32 + 2, np.uint32)
    args = Args(n=cap + 2, aux=cap, scalar=first_word, in0=table.ctypes.data)
    args.out = firsts.ctypes.data
    run(f"am_hash_firsts{'_masked' if mask_nulls else ''}", blocks, args)
    first = np.flatnonzero(unpack(firsts, n)).astype(np.int64)  # the filter kernels' positions
    counts = np.zeros(len(first) + 8, np.int64)
    status = np.zeros(8, np.uint64)
    where = lo & (2**64 - 1) if dense else first_word
    gargs = Args(n=len(first), aux=cap, scalar=where, in1=first.ctypes.data)
    bind(gargs, 0, x)
    gargs.out = counts.ctypes.data if counted else 0
    gargs.out_valid, gargs.status = table.ctypes.data, status.ctypes.data
    run(f"am_hash_group_slots{'_dense' if dense else ''}_{label(x.type)}", max(1, blocks // 2),
        gargs)  # fmt: skip
    counts = counts[: len(first)]
    ids = np.zeros(n + 8, np.int32)
    ids_valid = np.zeros((n + 31) // 32 + 2, np.uint32)
    iargs = Args(n=n, aux=cap, scalar=where, in1=table.ctypes.data)
    bind(iargs, 0, x)
    iargs.out, iargs.out_valid = ids.ctypes.data, ids_valid.ctypes.data
    suffix = ("_masked" if mask_nulls else "") + ("_dense" if dense else "")
    run(f"am_hash_ids{suffix}_{label(x.type)}", blocks, iargs)
    valid = unpack(ids_valid, n)
    id_list = [int(ids[i]) if valid[i] else None for i in range(n)]
    null_group = -1 if mask_nulls else int(status[1]) - 1
    return list(first), list(counts), id_list, null_group


CASES = [  # n, blocks, null share, offset, forced cap (None: ops_hash.c's)
    (1000, 2, 0.2, 3, None),
    (3000, 5, 0.1, 7, None),
    (70, 1, 0.0, 0, None),
    (300, 2, 1.0, 1, None),
    (2049, 3, 0.3, 63, None),
]


def many(t, n, seed, share, offset):
    """test_nulls_kernels.sample, with uint64's whole range."""
    if t != pa.uint64():
        return sample(t, n, seed, share, offset)
    rng = np.random.default_rng(seed)
    values = [int(v) for v in rng.integers(0, 2**64 - 1, n + offset, np.uint64, endpoint=True)]
    nulls = rng.random(n + offset) < share
    return pa.array([None if m else v for v, m in zip(values, nulls)], type=t).slice(offset)


def few_distinct(t, n, seed, share, offset):
    """Many rows over few keys (so a table of 64 slots holds them: long probes)."""
    rng = np.random.default_rng(seed)
    if t == pa.bool_() or pa.types.is_floating(t):
        return sample(t, n, seed, share, offset)
    info = np.iinfo(t.to_pandas_dtype())
    pool = [0, 1, int(info.min), int(info.max)] + [int(v) for v in rng.integers(0, 100, 20)]
    values = [pool[i] for i in rng.integers(0, len(pool), n + offset)]
    nulls = rng.random(n + offset) < share
    return pa.array([None if m else v for v, m in zip(values, nulls)], type=t).slice(offset)


TYPES = [pa.bool_(), pa.int8(), pa.uint16(), pa.int32(), pa.int64(), pa.uint64(), pa.float32(),
         pa.float64()]  # fmt: skip


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("mask_nulls", [False, True])
def test_grouping(kernels, t, mask_nulls):  # noqa: F811
    cases = CASES + [(4000, 4, 0.2, 5, 64)]
    for n, blocks, share, offset, cap in cases:
        x = (few_distinct if cap else many)(t, n, n + blocks, share, offset)
        got = run_group(kernels, x, blocks, mask_nulls, cap)
        want = reference(x, mask_nulls)
        assert got[0] == want[0], (t, n, "first rows")
        assert got[1] == want[1], (t, n, "counts")
        assert got[2] == want[2], (t, n, "ids")
        assert got[3] == want[3], (t, n, "null group")
        if n == 1000:  # the build without counts (unique, dictionary_encode), and a
            # bounded one with room: the same groups
            plain = run_group(kernels, x, blocks, mask_nulls, cap, counted=False)
            assert plain[0] == got[0] and plain[2] == got[2] and plain[3] == got[3]
            assert run_group(kernels, x, blocks, mask_nulls, cap, bounded=True) == got
        # And as pyarrow sees it (unique, value_counts and count_distinct group nulls).
        enc = pc.dictionary_encode(x, null_encoding="mask" if mask_nulls else "encode")
        assert got[2] == enc.indices.to_pylist()
        if mask_nulls:
            continue
        first = pa.array(got[0], pa.int64())
        assert x.take(first).equals(pc.unique(x)) or pa.types.is_floating(t)
        vc = pc.value_counts(x)
        assert got[1] == vc.field("counts").to_pylist()
        assert len(got[0]) - (got[3] >= 0) == pc.count_distinct(x, mode="only_valid").as_py()
        assert (got[3] >= 0) == (pc.count_distinct(x, mode="only_null").as_py() == 1)


@pytest.mark.parametrize("t", [pa.int32(), pa.int64()])
def test_build_reports_a_full_table(kernels, t):  # noqa: F811
    """More distinct keys than half a table's slots: a bounded build stops taking slots
    at half (the keys it inserted, counted a warp at a time; a warp learns it at its
    next insert), ends, and reports it in the status count, which sends ops_hash.c
    round again with a table for every row; as many keys as fit: no report."""
    for keys, want_full in ((5000, True), (32, False)):
        x = pa.array(np.arange(1, keys + 1) % 100003, type=t)
        cap, first_word, words = geometry(t, 0, 64)
        table = np.zeros(words + 16, np.uint32)
        status = np.zeros(8, np.uint64)
        args = Args(n=len(x), aux=cap, scalar=first_word)
        bind(args, 0, x)
        args.out, args.status = table.ctypes.data, status.ctypes.data
        kernels(f"am_hash_build_bounded_{label(t)}", 3, args)
        assert (status[1] != 0) == want_full, keys
        assert table[first_word + 2 * (cap + 2)] <= cap // 2 + 3 * 256


def run_probe(run, values, value_set, blocks, as_bool, skip_nulls, cap=None):
    m, n = len(value_set), len(values)
    cap, first_word, words = geometry(value_set.type, m, cap)
    table = np.zeros(words + 16, np.uint32)
    args = Args(n=m, aux=cap, scalar=first_word)
    bind(args, 0, value_set)
    args.out = table.ctypes.data
    run(f"am_hash_build_{label(value_set.type)}", 1, args)
    out = np.zeros(n + 64, np.int32)
    valid = np.zeros((n + 31) // 32 + 2, np.uint32)
    args = Args(n=n, aux=cap, scalar=first_word, in1=table.ctypes.data)
    bind(args, 0, values)
    args.out, args.out_valid = out.ctypes.data, valid.ctypes.data
    name = "is_in" if as_bool else "index_in"
    run(f"am_{name}_{label(values.type)}{'_skip_nulls' if skip_nulls else ''}", blocks, args)
    if as_bool:
        return [bool(b) for b in unpack(out.view(np.uint32), n)]
    ok = unpack(valid, n)
    return [int(out[i]) if ok[i] else None for i in range(n)]


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("skip_nulls", [False, True])
def test_probe(kernels, t, skip_nulls):  # noqa: F811
    for n, blocks, share, offset, set_n, cap in ((3000, 3, 0.2, 5, 40, None),
                                                  (500, 2, 0.3, 0, 30, 64),
                                                  (100, 1, 0.0, 1, 0, None)):  # fmt: skip
        values = few_distinct(t, n, n, share, offset)
        value_set = few_distinct(t, set_n, set_n + 1, 0.2, 2)
        for as_bool in (True, False):
            got = run_probe(kernels, values, value_set, blocks, as_bool, skip_nulls, cap)
            fn = pc.is_in if as_bool else pc.index_in
            want = fn(values, value_set=value_set, skip_nulls=skip_nulls).to_pylist()
            if pa.types.is_floating(t):
                # pyarrow's set lookups match by bits too, but -0.0 == 0.0 in Python: compare
                # with the reference of bits.
                keys, set_keys = bits_of(values), bits_of(value_set)
                firsts = {}
                for j, k in enumerate(set_keys):
                    firsts.setdefault(k, j)
                want = []
                for k in keys:
                    at = None if (k is None and skip_nulls) else firsts.get(k)
                    want.append(at is not None if as_bool else at)
            assert got == want, (t, n, as_bool, skip_nulls)
