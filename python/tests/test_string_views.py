"""string_view and binary_view (issue #13): zero-copy import and export across the C
ABI (every view checked, released once), the string calls over view arrays against
pyarrow, and malformed view arrays built as raw C structs refused with a message.

pyarrow 26 computes little over views (is_null, is_valid, count, compare, unique,
value_counts, dictionary_encode, group-by keys, casts); where it computes, the library's
answers are compared with its answers on the views themselves. Where it refuses
("no kernel matching input types (string_view)"), the library computes anyway: the
answers are compared with pyarrow's over the same values as string / binary, a string
result typed as the input's view type (README, divergences)."""

import gc
import random
import struct
import warnings

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal._capi import ffi, lib
from tests.test_strings import _TAKES_STRING
from tests.test_tables import CPU, Counter, _addr, _argument, _error, _is_array_argument, exported

VIEWS = [pa.string_view(), pa.binary_view()]
FLAT = {pa.string_view(): pa.string(), pa.binary_view(): pa.binary()}
# inline values (12 bytes or fewer) and out-of-line ones (13 or more)
WORDS = ["", "a", "héllo", "日本語", "zz\x00z", "exactly12byt", "thirteen byte", "A" * 40,
         "a long value é that spills", "short"]  # fmt: skip


def values(n, t, null_fraction, seed, chunks=3):
    """n values of view type t, in `chunks` parts concatenated: their data
    buffers stay apart, so the array has several variadic buffers."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if rng.random() < null_fraction:
            out.append(None)
        else:
            w = rng.choice(WORDS)
            out.append(w if t == pa.string_view() else w.encode())
    step = max(1, -(-n // chunks))
    parts = [pa.array(out[i : i + step], t) for i in range(0, n, step)] or [pa.array([], t)]
    return pa.concat_arrays(parts)


CASES = [(0, 0, 0), (1, 0, 0), (17, 0.3, 0), (200, 0.1, 5), (65, 1.0, 3), (3000, 0.2, 11)]


def cases():
    for t in VIEWS:
        for n, nulls, off in CASES:
            yield pytest.param(t, n, nulls, off, id=f"{t}-{n}-{nulls}-{off}")


def sliced(t, n, nulls, off, seed=1):
    return values(n + off, t, nulls, seed).slice(off)


def as_pa(x):
    x = x.to_pyarrow() if isinstance(x, am.Array) else x
    return x.combine_chunks() if isinstance(x, pa.ChunkedArray) else x


def check(got, want):
    got, want = as_pa(got), as_pa(want)
    assert got.type == want.type
    assert got.to_pylist() == want.to_pylist()
    got.validate(full=True)


def flat(a):
    """The same values as string / binary (pyarrow computes on those)."""
    t = a.type
    return a.cast(FLAT[t]) if t in FLAT else a.cast(FLAT[t.value_type])


def as_view(result, t):
    """pyarrow's result over the flat values, typed as the library types a
    view input's: a string result in the input's view type."""
    result = as_pa(result)
    if result.type in (pa.string(), pa.binary()):
        return result.cast(pa.string_view() if result.type == pa.string() else pa.binary_view())
    return result


def data_addresses(a):
    return {b.address for b in a.buffers()[2:] if b is not None and b.size}


pytestmark = pytest.mark.usefixtures("no_fallback")  # conftest.py


@pytest.mark.parametrize(("t", "n", "nulls", "off"), list(cases()))
def test_round_trip_is_zero_copy(t, n, nulls, off):
    a = sliced(t, n, nulls, off)
    m = am.array(a)
    assert m.type == str(t)
    back = m.to_pyarrow()
    assert back.type == a.type and back.equals(a)
    back.validate(full=True)
    assert len(back.buffers()) == len(a.buffers())  # every variadic buffer, as given
    if n:  # the same views and bytes: no copy either way
        assert back.buffers()[1].address == a.buffers()[1].address
        assert data_addresses(back) == data_addresses(a)


@pytest.mark.parametrize(("t", "n", "nulls", "off"), list(cases()))
def test_selection_and_nulls(t, n, nulls, off):
    a = sliced(t, n, nulls, off)
    f = flat(a)
    rng = random.Random(n)
    mask = pa.array([rng.choice([True, False, None]) for _ in range(n)], pa.bool_())
    idx = pa.array(
        [rng.randrange(n) if rng.random() > 0.2 else None for _ in range(n)] if n else [],
        pa.int32(),
    )
    # pyarrow 26 has no filter or take of views: its answers over the flat values
    check(am.filter(a, mask), as_view(pc.filter(f, mask), t))
    check(
        am.filter(a, mask, null_selection_behavior="emit_null"),
        as_view(pc.filter(f, mask, null_selection_behavior="emit_null"), t),
    )
    taken = am.take(a, idx)
    check(taken, as_view(pc.take(f, idx), t))
    # the values are not copied: the result's data buffers are the input's
    assert data_addresses(as_pa(taken)) <= data_addresses(a)
    check(am.drop_null(a), as_view(pc.drop_null(f), t))
    # is_null, is_valid and count pyarrow computes over views
    check(am.is_null(a), pc.is_null(a))
    check(am.is_valid(a), pc.is_valid(a))
    assert am.count(a).as_py() == pc.count(a).as_py()
    assert am.count(a, mode="only_null").as_py() == pc.count(a, mode="only_null").as_py()
    other = sliced(t, n, 0.5, 2, seed=9)
    check(am.fill_null(a, other), as_view(pc.fill_null(f, flat(other)), t))
    check(am.coalesce(a, other, a), as_view(pc.coalesce(f, flat(other), f), t))
    check(am.if_else(mask, a, other), as_view(pc.if_else(mask, f, flat(other)), t))
    for word in ["xyz", "a replacement past twelve bytes"]:
        fill = pa.scalar(word if t == pa.string_view() else word.encode(), t)
        flat_fill = pa.scalar(fill.as_py(), FLAT[t])
        check(am.fill_null(a, fill), as_view(pc.fill_null(f, flat_fill), t))
        check(am.coalesce(a, fill), as_view(pc.coalesce(f, flat_fill), t))
        check(am.if_else(mask, fill, a), as_view(pc.if_else(mask, flat_fill, f), t))
    m = am.array(a)
    check(m[1:3] if n > 3 else m, a[1:3] if n > 3 else a)
    ch = pa.chunked_array([a, other, a], t)
    check(am.drop_null(ch), as_view(pc.drop_null(flat(ch.combine_chunks())), t))
    chmask = pa.chunked_array([mask, mask, mask])
    check(am.filter(ch, chmask), as_view(pc.filter(flat(ch.combine_chunks()), chmask), t))


def test_concat_renumbers_data_buffers():
    parts = [sliced(pa.string_view(), 50, 0.2, k, seed=k) for k in range(1, 4)]
    handles = [am.array(p) for p in parts]
    out = ffi.new("am_array **")
    arr = ffi.new("am_array *[]", [h.handle for h in handles])
    assert lib.am_concat(arr, 3, CPU, out) == 0, _error()
    back = exported_values(out[0])
    lib.am_release(out[0])
    want = pa.concat_arrays(parts)
    assert back.type == want.type and back.to_pylist() == want.to_pylist()
    # every part's data buffers, shared (pyarrow's buffers(): validity, views, data)
    assert len(back.buffers()) == 2 + sum(len(p.buffers()) - 2 for p in parts)
    assert data_addresses(back) == set().union(*map(data_addresses, parts))


FUNCTIONS = [
    ("utf8_length", {}),
    ("binary_length", {}),
    ("starts_with", {"pattern": "a"}),
    ("ends_with", {"pattern": "s"}),
    ("match_substring", {"pattern": "l"}),
    ("match_substring", {"pattern": ""}),
    ("find_substring", {"pattern": "e"}),
    ("count_substring", {"pattern": "A"}),
    ("ascii_upper", {}),
    ("ascii_lower", {}),
    ("utf8_upper", {}),
    ("utf8_lower", {}),
    ("match_like", {"pattern": "%l%"}),
    ("match_like", {"pattern": "t_ir%"}),
    ("ascii_trim_whitespace", {}),
    ("utf8_rtrim_whitespace", {}),
    ("utf8_trim", {"characters": "aé"}),
    ("ascii_ltrim", {"characters": "ath"}),
    ("utf8_slice_codeunits", {"start": 1, "stop": 14}),
    ("utf8_slice_codeunits", {"start": -3, "stop": None, "step": -1}),
]


@pytest.mark.parametrize(("t", "n", "nulls", "off"), list(cases()))
def test_string_functions(t, n, nulls, off):
    a = sliced(t, n, nulls, off)
    f = flat(a)
    ch = pa.chunked_array([a, a.slice(1)], t)
    for name, kw in FUNCTIONS:
        if t == pa.binary_view() and "pattern" in kw:
            kw = {"pattern": kw["pattern"].encode()}
        with pytest.raises(pa.ArrowNotImplementedError):  # pyarrow 26: no view kernels
            getattr(pc, name)(a, **kw)
        try:
            want = getattr(pc, name)(f, **kw)
        except pa.ArrowNotImplementedError:  # none for binary either: neither here
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
                with pytest.raises(pa.ArrowNotImplementedError):
                    getattr(am, name)(a, **kw)
            continue
        check(getattr(am, name)(a, **kw), as_view(want, t))
        check(getattr(am, name)(ch, **kw), as_view(getattr(pc, name)(flat(ch), **kw), t))


def test_ascii_case_maps_buffers_or_copies_values():
    """ascii_upper maps a view array's data buffers whole where they hold little else
    (the result's buffers as large as the input's), and otherwise copies only the
    values (a few rows of large buffers: the result's bytes are those rows')."""
    big = sliced(pa.string_view(), 5000, 0.1, 0)
    held = sum(b.size for b in big.buffers()[2:])
    for a in (big, as_pa(am.take(big, pa.array([4, 77, None, 4000])))):
        got = as_pa(am.ascii_upper(a))
        check(got, as_view(pc.ascii_upper(flat(a)), pa.string_view()))
        size = sum(b.size for b in got.buffers()[2:])
        assert size == held if len(a) == len(big) else size < held // 10


def test_empty_slices_export():
    """An empty slice past slot 0 exports at offset 0 (pyarrow's import of an empty
    view array refuses any other offset)."""
    a = sliced(pa.string_view(), 5, 0.2, 1)
    m = am.array(a)
    for part in (m[2:2], m[5:], am.filter(a, pa.array([False] * 5))):
        back = as_pa(part)
        back.validate(full=True)
        assert back.type == a.type and len(back) == 0


def test_binary_join_element_wise():
    for t in VIEWS:
        a, b = sliced(t, 300, 0.2, 3, seed=2), sliced(t, 300, 0.1, 1, seed=3)
        sep = "--" if t == pa.string_view() else b"--"
        for handling in ["emit_null", "replace"]:
            got = am.binary_join_element_wise(a, b, sep, null_handling=handling)
            want = pc.binary_join_element_wise(flat(a), flat(b), sep, null_handling=handling)
            check(got, as_view(want, t))
        # "skip": pyarrow 26 drops rows whose values are all null (a divergence of the
        # string types too, README): the library's answer over the flat values
        got = am.binary_join_element_wise(a, b, sep, null_handling="skip")
        check(got, as_view(am.binary_join_element_wise(flat(a), flat(b), sep,
                                                       null_handling="skip"), t))  # fmt: skip
        check(am.binary_join_element_wise(a, b, a), as_view(
            pc.binary_join_element_wise(flat(a), flat(b), flat(a)), t))  # fmt: skip


@pytest.mark.parametrize(("t", "n", "nulls", "off"), list(cases()))
def test_compare_and_aggregates(t, n, nulls, off):
    a = sliced(t, n, nulls, off)
    b = sliced(t, n, 0.3, 1, seed=5)
    s = pa.scalar("héllo" if t == pa.string_view() else b"thirteen byte", t)
    for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        # pyarrow compares views with views
        check(getattr(am, name)(a, b), getattr(pc, name)(a, b))
        check(getattr(am, name)(a, s), getattr(pc, name)(a, s))
    f = flat(a)
    for name in ("min", "max", "first", "last"):  # pyarrow 26: no kernel for views
        want = getattr(pc, name)(f).as_py()
        got = getattr(am, name)(a)
        assert got.type == t and got.as_py() == want, name
    assert am.min_max(a).as_py() == pc.min_max(f).as_py()


def test_hash_functions():
    """unique, value_counts, count_distinct and dictionary_encode group views by their
    bytes. pyarrow 26 computes them over views but gives a null as a valid empty value
    (its unique of ["a", None] is ["a", ""]): the library keeps the null, as pyarrow
    does over string (README, divergences)."""
    for t in VIEWS:
        for n, nulls, off in CASES:
            a = sliced(t, n, nulls, off)
            f = flat(a)
            check(am.unique(a), as_view(pc.unique(f), t))
            got = as_pa(am.value_counts(a))
            want = pc.value_counts(f)
            assert got.type == pa.struct([("values", t), ("counts", pa.int64())])
            assert got.to_pylist() == want.to_pylist()
            for mode in ("only_valid", "only_null", "all"):
                assert am.count_distinct(a, mode=mode).as_py() == pc.count_distinct(
                    f, mode=mode).as_py()  # fmt: skip
            enc = as_pa(am.dictionary_encode(a))
            assert enc.type == pa.dictionary(pa.int32(), t)
            assert enc.to_pylist() == pc.dictionary_encode(f).to_pylist()
    a = pa.array(["x", None, "x"], pa.string_view())
    if pc.unique(a).null_count == 0:  # pyarrow 26's answer: the null is lost
        assert as_pa(am.unique(a)).to_pylist() == ["x", None]


def test_sort_group_by_and_join_keys():
    for t in VIEWS:
        a = sliced(t, 500, 0.2, 3)
        f = flat(a)
        # pyarrow 26 sorts no views: the order of the same bytes
        check(am.sort_indices(a), pc.sort_indices(f))
        check(am.array_sort_indices(a, order="descending", null_placement="at_start"),
              pc.array_sort_indices(f, order="descending", null_placement="at_start"))  # fmt: skip
        values = pa.array(range(len(a)))
        table = pa.table({"k": a, "v": values})
        got = am.group_by(table, "k").aggregate([("v", "sum"), ("v", "count")])
        want = table.group_by("k").aggregate([("v", "sum"), ("v", "count")])  # pyarrow groups views
        got = got.to_pyarrow() if hasattr(got, "to_pyarrow") else got
        assert got.schema == want.schema
        assert sorted(got.to_pylist(), key=repr) == sorted(want.to_pylist(), key=repr)
        # join keys through the C ABI (pyarrow 26's Table.join refuses view keys, and so
        # does am.join, which asks pyarrow for the result's schema)
        right = sliced(t, 80, 0.1, 0, seed=8)
        lh, rh = am.array(a), am.array(right)
        li, ri = ffi.new("am_array **"), ffi.new("am_array **")
        lk, rk = ffi.new("am_array *[]", [lh.handle]), ffi.new("am_array *[]", [rh.handle])
        assert lib.am_join_indices(lk, rk, 1, 0, li, ri) == 0, _error()
        pairs = set()
        for h, side in ((li, 0), (ri, 1)):
            schema, arr = ffi.new("struct ArrowSchema *"), ffi.new("struct ArrowArray *")
            assert lib.am_export(h[0], schema, arr) == 0
            lib.am_release(h[0])
            rows = pa.Array._import_from_c(_addr(arr), _addr(schema)).to_pylist()
            pairs = pairs or [[None, None] for _ in rows]
            for k, r in enumerate(rows):
                pairs[k][side] = r
        got_pairs = sorted(map(tuple, pairs), key=repr)
        al, ar = a.to_pylist(), right.to_pylist()
        want_pairs = sorted(((i, j) for i in range(len(al)) for j in range(len(ar))
                             if al[i] is not None and al[i] == ar[j]), key=repr)  # fmt: skip
        assert [p for p in got_pairs if None not in p] == want_pairs


def test_casts():
    a = sliced(pa.string_view(), 300, 0.2, 3)
    for to in [pa.string(), pa.large_string(), pa.binary(), pa.large_binary(), pa.binary_view()]:
        check(am.cast(a, to), a.cast(to))
    s = flat(a)
    check(am.cast(s, pa.string_view()), s.cast(pa.string_view()))
    check(am.cast(s.cast(pa.large_string()), pa.binary_view()), s.cast(pa.binary_view()))
    b = sliced(pa.binary_view(), 100, 0.1, 1)
    check(am.cast(b, pa.large_binary()), b.cast(pa.large_binary()))
    numbers = pa.array([1, None, -300, 2**40])
    check(am.cast(numbers, pa.string_view()), numbers.cast(pa.string_view()))
    texts = pa.array(["12", None, "-7"], pa.string_view())
    check(am.cast(texts, pa.int16()), texts.cast(pa.int16()))
    # string_view to binary_view shares the views and bytes
    back = as_pa(am.cast(a, pa.binary_view()))
    assert back.buffers()[1].address == a.buffers()[1].address
    # string to string_view: views over the string's bytes, not a copy of them
    views = as_pa(am.cast(s, pa.string_view()))
    assert data_addresses(views) <= {s.buffers()[2].address}
    # binary_view to string_view checks UTF-8 in pyarrow: pyarrow runs it, counted
    before = am.fallbacks().get("cast", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", am.ArrowMetalFallbackWarning)
        check(am.cast(b.slice(0, 0), pa.string_view()), b.slice(0, 0).cast(pa.string_view()))
    assert am.fallbacks()["cast"] == before + 1


def test_dictionary_struct_and_table():
    d = pa.DictionaryArray.from_arrays(
        pa.array([0, 1, None, 2, 1]),
        pa.array(["x", "a long dictionary value", "z"], pa.string_view()),
    )
    assert as_pa(am.dictionary_decode(d)).to_pylist() == d.to_pylist()
    assert as_pa(am.take(d, pa.array([4, 3]))).to_pylist() == ["a long dictionary value", "z"]
    a, b = sliced(pa.string_view(), 50, 0.2, 2), sliced(pa.binary_view(), 50, 0.2, 2)
    t = pa.table({"a": a, "b": b, "i": pa.array(range(50))})
    got = am.table(t)
    assert got.to_pyarrow().equals(t)
    batch = pa.record_batch({"a": a})
    schema, array = exported(batch)
    counter = Counter(array)
    out = ffi.new("am_array **")
    assert lib.am_import(schema, array, CPU, out) == 0, _error()
    schema.release(schema)
    child = ffi.new("am_array **")
    assert lib.am_struct_field(out[0], 0, child) == 0
    assert lib.am_array_type(child[0]) == lib.AM_STRING_VIEW
    lib.am_release(out[0])
    assert counter.count == 0  # the child still holds the parent's buffers
    lib.am_release(child[0])
    gc.collect()
    assert counter.count == 1


def test_export_device_of_a_view_array():
    a = sliced(pa.string_view(), 40, 0.2, 1)
    m = am.array(a)
    schema = ffi.new("struct ArrowSchema *")
    dev = ffi.new("struct ArrowDeviceArray *")
    assert lib.am_export_device(m.handle, schema, dev) == 0, _error()
    assert dev.device_type == lib.ARROW_DEVICE_CPU
    # validity, views, the data buffers and their sizes (pyarrow's buffers() has no sizes)
    assert dev.array.n_buffers == len(a.buffers()) + 1 and ffi.string(schema.format) == b"vu"
    back = pa.Array._import_from_c(_addr(ffi.addressof(dev, "array")), _addr(schema))
    assert back.equals(a)


@pytest.mark.skipif(not {n: ok for n, ok, _ in am.backends()}["cuda"], reason="needs a CUDA device")
def test_gpu_devices_refuse_views_cleanly():
    a = sliced(pa.string_view(), 20, 0.2, 1)
    with pytest.raises(am.ArrowMetalError, match="not on GPUs yet"):
        am.array(a, device="cuda")
    with pytest.raises(am.ArrowMetalError, match="not on GPUs yet"):
        am.array(a).to_device("cuda")
    # a string array goes, its view cast stays on the CPU
    on_gpu = am.array(flat(a), device="cuda")
    assert as_pa(am.unique(on_gpu)).to_pylist() == pc.unique(flat(a)).to_pylist()


def test_every_other_call_refuses_a_view_handle():
    for t in VIEWS:
        m = am.array(values(5, t, 0.2, 4))
        h = m.handle
        tried = 0
        for name in dir(lib):
            fn = getattr(lib, name)
            if not name.startswith("am_") or name in _TAKES_STRING or not callable(fn):
                continue
            ft = ffi.typeof(fn)
            if not any(_is_array_argument(a) for a in ft.args):
                continue
            kept = []

            def keep(x, kept=kept):
                kept.append(x)
                return x

            rc = fn(*[_argument(a, h, keep) for a in ft.args])
            if ft.result.cname != "int":
                continue
            if name.startswith("am_struct_") and rc == -1:
                continue
            assert rc in (lib.AM_ETYPE, lib.AM_EINVAL), (name, rc, _error())
            tried += 1
        assert tried >= 30
        s = ffi.new("am_scalar *")
        assert lib.am_sum(h, s) == lib.AM_ETYPE and "no kernel for" in _error()


# ---- malformed view arrays, as raw C structs ----------------------------------------------

_RAW = {}  # key -> (keepalive objects, the release count)


@ffi.callback("void(struct ArrowArray *)")
def _raw_release(arr):
    _RAW[_addr(arr.private_data)][1][0] += 1
    arr.release = ffi.NULL


@ffi.callback("void(struct ArrowSchema *)")
def _raw_schema_release(schema):
    schema.release = ffi.NULL


def view(data, buffer=0, offset=0, length=None, prefix=None):
    """A view's 16 bytes: inline when `data` fits 12 bytes (and no buffer is forced)."""
    n = len(data) if length is None else length
    if n <= 12 and prefix is None:
        return struct.pack("<i12s", n, data)
    return struct.pack("<i4sii", n, (data[:4] if prefix is None else prefix), buffer, offset)


def raw_import(views, data, fmt=b"vu", length=None, offset=0, validity=None, null_count=0,
               n_buffers=None, sizes=None, drop=()):  # fmt: skip
    """am_import of an ArrowArray made here: (rc, handle, release count, message).
    `drop` names buffers to pass as NULL ("views", "sizes", or a data buffer's index)."""
    keep = [ffi.new("char[]", d or b"\0") for d in data]
    view_buf = ffi.new("char[]", b"".join(views) or b"\0")
    size_buf = ffi.new("int64_t[]", sizes if sizes is not None else [len(d) for d in data] or [0])
    bits = ffi.new("char[]", validity) if validity is not None else ffi.NULL
    bufs = [bits, ffi.NULL if "views" in drop else view_buf]
    bufs += [ffi.NULL if k in drop else p for k, p in enumerate(keep)]
    bufs.append(ffi.NULL if "sizes" in drop else size_buf)
    c_bufs = ffi.new("const void *[]", bufs)
    arr = ffi.new("struct ArrowArray *")
    arr.length = len(views) - offset if length is None else length
    arr.offset = offset
    arr.null_count = null_count
    arr.n_buffers = len(bufs) if n_buffers is None else n_buffers
    arr.buffers = c_bufs
    key = ffi.new("char[1]")
    count = [0]
    _RAW[_addr(key)] = ((keep, view_buf, size_buf, bits, c_bufs, key), count)
    arr.private_data = key
    arr.release = _raw_release
    fmt_buf = ffi.new("char[]", fmt)
    schema = ffi.new("struct ArrowSchema *")
    schema.format = fmt_buf
    schema.flags = lib.ARROW_FLAG_NULLABLE
    schema.release = _raw_schema_release
    out = ffi.new("am_array **")
    rc = lib.am_import(schema, arr, CPU, out)
    msg = _error() if rc else ""
    assert arr.release == ffi.NULL  # moved in, success or not
    return rc, (out[0] if rc == 0 else None), count, msg


def exported_values(h):
    schema, arr = ffi.new("struct ArrowSchema *"), ffi.new("struct ArrowArray *")
    assert lib.am_export(h, schema, arr) == 0, _error()
    back = pa.Array._import_from_c(_addr(arr), _addr(schema))
    back.validate(full=True)
    return back


LONG = b"a value longer than twelve bytes"


def test_raw_import_of_a_valid_view_array():
    data = [LONG + b"|second buffer value", b"0123456789abcdefXYZ"]
    views = [view(b"hi"), view(LONG, 0, 0), view(b"second buffer value", 0, len(LONG) + 1),
             view(b"456789abcdefXYZ", 1, 4), view(b"")]  # fmt: skip
    rc, h, count, msg = raw_import(views, data)
    assert rc == 0, msg
    want = ["hi", LONG.decode(), "second buffer value", "456789abcdefXYZ", ""]
    back = exported_values(h)
    assert back.to_pylist() == want
    # the slots of an offset window only (a bad view outside it is never read)
    rc2, h2, count2, msg2 = raw_import([view(b"", 9, 0, length=99, prefix=b"zzzz"), *views], data,
                                       offset=1)  # fmt: skip
    assert rc2 == 0, msg2
    assert exported_values(h2).to_pylist() == want
    del back
    gc.collect()
    lib.am_release(h)
    lib.am_release(h2)
    gc.collect()
    assert count == [1] and count2 == [1]


def test_raw_import_refuses_bad_views():
    data = [LONG]
    good = view(LONG, 0, 0)
    for views, kw, words in [
        ([good, view(LONG, 0, 5)], {}, "slot 1: its bytes [5, 37) are past the end of data buffer 0"),
        ([view(LONG, 1, 0)], {}, "names data buffer 1, but the array has 1 data buffers"),
        ([good, good, view(LONG, -1, 0)], {}, "slot 2: its value of 32 bytes names data buffer -1"),
        ([view(b"ab", length=-3)], {}, "slot 0: its length -3 is negative"),
        ([view(LONG, 0, -4)], {}, "its offset -4 in data buffer 0 is negative"),
        ([view(LONG, 0, 0, prefix=b"nope")], {}, "prefix differs"),
        ([good], {"n_buffers": 2}, "needs 3 buffers or more"),
        ([good], {"sizes": [-1]}, "data buffer 0 has a negative size (-1)"),
        ([good], {"drop": ("sizes",)}, "sizes buffer (buffer 3, the last) is NULL"),
        ([good], {"drop": (0,)}, "data buffer 0 (buffer 2) is NULL with 32 bytes"),
        ([good], {"drop": ("views",)}, "views buffer is NULL with length 1"),
        ([good, view(LONG, 0, 1)], {"sizes": [20]}, "slot 0: its bytes [0, 32) are past the end"),
    ]:  # fmt: skip
        rc, h, count, msg = raw_import(views, data, **kw)
        assert rc == lib.AM_EINVAL, (words, rc, msg)
        assert msg.startswith("am_import: string_view") or "needs 3 buffers" in msg, msg
        assert words in msg, (words, msg)
        assert h is None and count == [1]
    # a slot's view checked against the bytes of binary_view too
    rc, _, count, msg = raw_import([view(LONG, 0, 1)], data, fmt=b"vz")
    assert rc == lib.AM_EINVAL and msg.startswith("am_import: binary_view view of slot 0")
    assert count == [1]


def test_raw_import_of_null_slots_with_unsafe_views():
    """A null slot's view is never read: one that would fail is accepted, and the
    views (not the data) are copied with it zeroed."""
    data = [LONG]
    views = [view(LONG, 0, 0), view(LONG, 7, 900), view(b"ok")]
    rc, h, count, msg = raw_import(views, data, validity=b"\x05", null_count=1)
    assert rc == 0, msg
    back = exported_values(h)
    assert back.to_pylist() == [LONG.decode(), None, "ok"]
    for other in (am.take(back, pa.array([1, 0, 2])), am.utf8_upper(back)):
        as_pa(other).validate(full=True)
    # with no nulls declared, the same view is a valid slot's: refused
    rc, _, count2, msg = raw_import(views, data, validity=b"\x05", null_count=0)
    assert rc == lib.AM_EINVAL and "slot 1" in msg and count2 == [1]
    del back
    lib.am_release(h)
    gc.collect()
    assert count == [1]


def test_release_once_across_shared_results():
    """Results that share the import's data buffers (take, slices) keep it: its
    release runs once, after the last of them."""
    data = [LONG]
    rc, h, count, msg = raw_import([view(LONG, 0, 0), view(b"x")], data)
    assert rc == 0, msg
    out = ffi.new("am_array **")
    idx = am.array(pa.array([0, 0, 1], pa.int32()))
    assert lib.am_take(h, idx.handle, out) == 0, _error()
    taken = out[0]
    lib.am_release(h)
    gc.collect()
    assert count == [0]
    assert exported_values(taken).to_pylist() == [LONG.decode(), LONG.decode(), "x"]
    gc.collect()
    lib.am_release(taken)
    gc.collect()
    assert count == [1]


def test_bad_view_child_of_a_struct():
    """A malformed view column refuses the whole struct; the parent is released once."""
    bad = pa.Array.from_buffers(pa.string_view(), 1, [None, pa.py_buffer(view(LONG, 3, 0))])
    batch = pa.RecordBatch.from_arrays([pa.array([1]), bad], ["i", "s"])
    schema, array = exported(batch)
    counter = Counter(array)
    out = ffi.new("am_array **")
    rc = lib.am_import(schema, array, CPU, out)
    msg = _error()
    schema.release(schema)
    assert rc == lib.AM_EINVAL and "names data buffer 3" in msg, msg
    gc.collect()
    assert counter.count == 1


def test_import_counts_releases_of_pyarrow_exports():
    for t in VIEWS:
        a = sliced(t, 100, 0.3, 4)
        schema, array = exported(a)
        counter = Counter(array)
        out = ffi.new("am_array **")
        assert lib.am_import(schema, array, CPU, out) == 0, _error()
        schema.release(schema)
        up = ffi.new("am_array **")
        assert lib.am_string_function(lib.AM_ASCII_UPPER, out[0], ffi.NULL, 0, 0, up) == (
            0 if t == pa.string_view() else lib.AM_ETYPE)  # fmt: skip
        if t == pa.string_view():
            got = exported_values(up[0])
            assert got.to_pylist() == pc.ascii_upper(flat(a)).to_pylist()
            del got
            lib.am_release(up[0])
        lib.am_release(out[0])
        gc.collect()
        assert counter.count == 1
