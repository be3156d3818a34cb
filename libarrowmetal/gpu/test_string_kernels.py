"""The string GPU kernels (kernel_source_strings.c: STRING_FUNCTION, STRING_CASE,
STRING_COMPARE, STRING_SIZES, STRING_GATHER) run where there is no GPU: their
CUDA source, as the generator writes it, compiled as C++ against the CPU
emulation of CUDA (emu/cuda_emu.h) and launched as gpu/ops_strings.c launches
them, over pyarrow's own buffers (sliced arrays, nulls, non-ASCII UTF-8,
empty values, several blocks); each result against pyarrow.compute's. The
GPU runs of the same kernels are the string conformance cases on CUDA."""

import pathlib
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import test_nulls_kernels as emu
from test_nulls_kernels import Args, address, as_array

kernels = emu.kernels  # the fixture: kernel name -> a runner over (blocks, Args)

BLOCK = 256
OPS = {  # am_string_op
    "utf8_length": 0,
    "binary_length": 1,
    "starts_with": 2,
    "ends_with": 3,
    "match_substring": 4,
    "find_substring": 5,
    "count_substring": 6,
    "match_like": 9,
}
COMPARES = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
WORDS = ["", "a", "ab", "abc", "b", "ba", "héllo", "h\u00e9", "\u00e9t\u00e9", "a\x00b", "zz" * 20,
         "aXa", "%", "_", "a%b", "a_b", "ab\\"]  # fmt: skip


def strings(t, n, seed, nulls=0.25, offset=0):
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(WORDS), n + offset)
    mask = rng.random(n + offset) < nulls
    values = [None if m else WORDS[k] for k, m in zip(pick, mask)]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        values = [None if v is None else v.encode() for v in values]
    return pa.array(values, t).slice(offset)


def name_of(t):
    return {pa.string(): "string", pa.large_string(): "large_string", pa.binary(): "binary",
            pa.large_binary(): "large_binary"}[t]  # fmt: skip


def bind_strings(args, arr, which=0):
    """Operand 0 (in0/in1/valid0/off0) or 2 (in2/valid2/off2, bytes address
    in `scalar`) of a pyarrow string array."""
    validity, offsets, data = arr.buffers()[:3]
    valid = address(validity) if arr.null_count else 0
    data_address = address(data) if data is not None else address(offsets)
    if which == 0:
        args.in0, args.in1, args.valid0, args.off0 = (
            address(offsets),
            data_address,
            valid,
            arr.offset,
        )
    else:
        args.in2, args.scalar, args.valid2, args.off2 = (
            address(offsets),
            data_address,
            valid,
            arr.offset,
        )


def blocks_for(n, per_thread=1, cap=3):
    """A few blocks at most, so that the grid-stride loops take several passes."""
    threads = (n + per_thread - 1) // per_thread
    return max(1, min(cap, (threads + BLOCK - 1) // BLOCK))


def run_function(kernels, op, arr, pattern):
    n = len(arr)
    bits = op in ("starts_with", "ends_with", "match_substring", "match_like")
    large = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    rt = pa.bool_() if bits else (pa.int64() if large else pa.int32())
    out = np.zeros((n + 31) // 32 * 4 + 64 if bits else n * (8 if large else 4) + 64, np.uint8)
    valid = np.zeros((n + 31) // 32 * 4 + 64, np.uint8)
    pat = np.frombuffer(pattern + b"\0", np.uint8)  # never an empty buffer
    args = Args(n=n, aux=len(pattern))
    bind_strings(args, arr)
    args.in2 = pat.ctypes.data
    args.out, args.out_valid = out.ctypes.data, valid.ctypes.data
    kernels(f"am_{op}_{name_of(arr.type)}", blocks_for(n), args)
    return as_array(rt, n, out, valid if arr.null_count else None)


TYPES = [pa.string(), pa.large_string(), pa.binary()]


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize(("n", "offset"), [(1, 0), (33, 5), (2000, 7)])
def test_functions_match_pyarrow(kernels, t, n, offset):
    arr = strings(t, n, seed=n + offset, offset=offset)
    text = pa.types.is_string(t) or pa.types.is_large_string(t)
    length = run_function(kernels, "binary_length", arr, b"")
    assert length.equals(pc.binary_length(arr))
    if text:
        assert run_function(kernels, "utf8_length", arr, b"").equals(pc.utf8_length(arr))
    for pattern in ["", "a", "ab", "é", "zz", "\x00"]:
        p = pattern.encode()
        for op in ("starts_with", "ends_with", "match_substring", "find_substring",
                   "count_substring"):  # fmt: skip
            got = run_function(kernels, op, arr, p)
            want = getattr(pc, op)(arr, pattern)
            assert got.equals(want), (op, pattern)
    # LIKE patterns that pyarrow runs as a regular expression (each has '_'
    # or an inner '%'): the full matcher, escapes included.
    for pattern in ["a_", "_", "%a_c%", "h_llo", "%\u00e9%t%", "a\\%b", "a\\_b", "%b_%", "z%z",
                    "a%%b", "_%_"]:  # fmt: skip
        got = run_function(kernels, "match_like", arr, pattern.encode())
        assert got.equals(pc.match_like(arr, pattern)), pattern


def test_utf8_underscore_takes_a_code_point(kernels):
    arr = pa.array(["é", "ée", "e", "\U0001f600x"])
    got = run_function(kernels, "match_like", arr, b"_")
    assert got.to_pylist() == [True, False, True, False]
    got = run_function(kernels, "match_like", pa.array([b"\xc3\xa9"], pa.binary()), b"__")
    assert got.to_pylist() == [True]  # binary: '_' is a byte


def test_utf8_values_that_dot_does_not_cover_match_nothing(kernels):
    """pyarrow's RE2 reads a value's bytes as its '.' takes them (a lead byte
    C2-F4 and its continuation bytes, overlong E0/F0 forms included): a value
    with any other byte matches no LIKE expression, as on the CPU."""
    raw = [b"\xff", b"a\xffb", b"\xc3", b"\x80", b"\xc1\x81", b"\xe0\x80\x80",
           b"\xf4\x90\x80\x80", b"\xed\xa0\x80", b"ab", b"a\xc3\xa9b"]  # fmt: skip
    offsets = np.zeros(len(raw) + 1, np.int32)
    offsets[1:] = np.cumsum([len(r) for r in raw])
    arr = pa.Array.from_buffers(pa.string(), len(raw), [None, pa.py_buffer(offsets.tobytes()),
                                                         pa.py_buffer(b"".join(raw))])  # fmt: skip
    for pattern in ["_", "a_b", "a%b", "%_", "_%", "__"]:
        got = run_function(kernels, "match_like", arr, pattern.encode())
        assert got.equals(pc.match_like(arr, pattern)), pattern


def run_case(kernels, upper, data, aligned_out=True):
    """ascii_upper / ascii_lower of the bytes `data` (a numpy uint8 view)."""
    n = len(data)
    out = np.zeros(n + 64, np.uint8)
    args = Args(n=n)
    args.in1 = data.ctypes.data
    args.out = out.ctypes.data
    args.pad = int(args.in1 % 4 == 0 and args.out % 4 == 0)
    kernels(f"am_ascii_{'upper' if upper else 'lower'}_bytes", blocks_for(n, 4, cap=2), args)
    return out[:n].tobytes()


@pytest.mark.parametrize("shift", [0, 1, 3])
@pytest.mark.parametrize("n", [0, 1, 5, 4099])
def test_case_maps_bytes(kernels, shift, n):
    rng = np.random.default_rng(n * 7 + shift)
    raw = np.zeros(n + shift + 8, np.uint8)
    raw[shift : shift + n] = rng.integers(0, 256, n, dtype=np.uint8)
    raw[shift : shift + n : 3] = rng.integers(ord("A"), ord("z") + 1, len(range(0, n, 3)))
    data = raw[shift : shift + n]
    src = data.tobytes()
    for upper in (True, False):
        want = bytes(
            b ^ 0x20 if (ord("a") <= b <= ord("z") if upper else ord("A") <= b <= ord("Z")) else b
            for b in src
        )
        assert run_case(kernels, upper, data) == want


def run_compare(kernels, op, left, right, broadcast):
    n = len(left)
    out = np.zeros((n + 31) // 32 * 4 + 64, np.uint8)
    valid = np.zeros((n + 31) // 32 * 4 + 64, np.uint8)
    args = Args(n=n)
    bind_strings(args, left)
    bind_strings(args, right, which=2)
    args.out, args.out_valid = out.ctypes.data, valid.ctypes.data
    code = COMPARES.index(op) | (8 if broadcast else 0)
    kernel = f"am_{op}_{name_of(left.type)}{'_scalar' if broadcast else ''}"
    assert code & 8 == (8 if broadcast else 0)
    kernels(kernel, blocks_for(n), args)
    return as_array(pa.bool_(), n, out, valid)


@pytest.mark.parametrize("t", TYPES)
def test_compare_arrays_and_a_broadcast_value(kernels, t):
    left = strings(t, 700, seed=1, offset=3)
    right = strings(t, 700, seed=2, offset=9)
    for op in COMPARES:
        got = run_compare(kernels, op, left, right, False)
        assert got.equals(getattr(pc, op)(left, right).cast(pa.bool_())), op
        for word in ["", "ab", "héllo", "zz"]:
            value = word if pa.types.is_string(t) or pa.types.is_large_string(t) else word.encode()
            one = pa.array([value], t)
            got = run_compare(kernels, op, left, one, True)
            want = getattr(pc, op)(left, pa.scalar(value, t))
            assert got.fill_null(False).equals(want.fill_null(False)), (op, word)
            assert got.is_valid().equals(want.is_valid())


def run_take(kernels, values, indices):
    """SIZES, the running sum (numpy, as the device's cumulative kernels),
    then GATHER; the status block's first failing slot too."""
    n = len(indices)
    large = pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type)
    sizes = np.zeros(n + 8, np.int64)
    valid = np.zeros((n + 31) // 32 * 4 + 64, np.uint8)
    status = np.array([2**64 - 1] + [0] * 7, np.uint64)
    args = Args(n=n, aux=len(values))
    bind_strings(args, values)
    ivalid, idata = indices.buffers()
    args.in2 = address(idata)
    args.valid2 = address(ivalid) if indices.null_count else 0
    args.off2 = indices.offset
    args.out, args.out_valid = sizes.ctypes.data, valid.ctypes.data
    args.status = status.ctypes.data
    tail = f"{name_of(values.type)}_by_{indices.type}"
    kernels(f"am_take_sizes_{tail}", blocks_for(n), args)
    if status[0] != 2**64 - 1:
        return None, int(status[0])
    ends = np.cumsum(sizes[:n])
    total = int(ends[-1]) if n else 0
    data = np.zeros(total + 64, np.uint8)
    offsets = np.zeros((n + 1) * (8 if large else 4) + 64, np.uint8)
    args.scalar = ends.ctypes.data
    args.out, args.out_valid = data.ctypes.data, offsets.ctypes.data
    kernels(f"am_take_bytes_{tail}", blocks_for(n), args)
    buffers = [pa.py_buffer(valid.tobytes()), pa.py_buffer(offsets.tobytes()),
               pa.py_buffer(data[:total].tobytes())]  # fmt: skip
    return pa.Array.from_buffers(values.type, n, buffers), None


@pytest.mark.parametrize("t", [pa.string(), pa.large_binary()])
@pytest.mark.parametrize("it", [pa.int32(), pa.int64()])
def test_take_gathers_rows(kernels, t, it):
    values = strings(t, 300, seed=5, offset=11)
    rng = np.random.default_rng(3)
    raw = rng.integers(0, len(values), 1500)
    mask = rng.random(1500) < 0.2
    indices = pa.array([None if m else int(k) for k, m in zip(raw, mask)], it).slice(4)
    got, failed = run_take(kernels, values, indices)
    assert failed is None
    got.validate(full=True)
    assert got.equals(pc.take(values, indices))
    empty, failed = run_take(kernels, values, pa.array([], it))
    assert failed is None and len(empty) == 0


def test_take_reports_the_first_index_out_of_bounds(kernels):
    values = strings(pa.string(), 10, seed=1)
    indices = pa.array([0, 3, 10, 1, -1, 12], pa.int64())
    got, failed = run_take(kernels, values, indices)
    assert got is None and failed == 2


@pytest.mark.parametrize(("offsets", "failed"), [
    ([0, 1, 1, 5], None), ([3, 4], None), ([-1, 2, 3], 0), ([0, 5, 3, 6], 2),
    ([0, 2, 4, 3, 1], 3), ([0] * 700 + [5, 4], 701),
])  # fmt: skip
@pytest.mark.parametrize("large", [False, True])
def test_check_finds_the_first_bad_offset(kernels, offsets, failed, large):
    o = np.array(offsets, np.int64 if large else np.int32)
    status = np.array([2**64 - 1] + [0] * 7, np.uint64)
    args = Args(n=len(o) - 1)
    args.in0 = o.ctypes.data
    args.status = status.ctypes.data
    kernels(
        f"am_check_offsets_{'large_string' if large else 'string'}", blocks_for(len(o), cap=2), args
    )
    assert (None if status[0] == 2**64 - 1 else int(status[0])) == failed


def fnv_fmix(data):
    """STRING_HASH's hash of one value's bytes."""
    mask = 2**64 - 1
    h = 0xCBF29CE484222325 ^ len(data)
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & mask
    for mult in (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53):
        h ^= h >> 33
        h = (h * mult) & mask
    return h ^ (h >> 33)


def as_bytes(v):
    return v if isinstance(v, bytes) else v.encode()


@pytest.mark.parametrize("t", TYPES)
def test_hash_of_each_row(kernels, t):
    arr = strings(t, 900, seed=12, offset=9)
    n = len(arr)
    out = np.zeros(n + 8, np.uint64)
    valid = np.zeros((n + 31) // 32 * 4 + 64, np.uint8)
    args = Args(n=n)
    bind_strings(args, arr)
    args.out, args.out_valid = out.ctypes.data, valid.ctypes.data
    kernels(f"am_hash_bytes_{name_of(t)}", blocks_for(n), args)
    got = as_array(pa.uint64(), n, out, valid if arr.null_count else None)
    want = [None if v is None else fnv_fmix(as_bytes(v)) for v in arr.to_pylist()]
    assert got.to_pylist() == want


def run_group_verify(kernels, arr, ids, first):
    ids = np.asarray(ids, np.int32)
    first = np.asarray(first, np.int64)
    status = np.array([2**64 - 1] + [0] * 7, np.uint64)
    args = Args(n=len(arr))
    bind_strings(args, arr)
    args.in2, args.scalar, args.status = ids.ctypes.data, first.ctypes.data, status.ctypes.data
    kernels(f"am_verify_groups_{name_of(arr.type)}", blocks_for(len(arr)), args)
    return int(status[1])


@pytest.mark.parametrize("t", [pa.string(), pa.large_binary()])
def test_verify_counts_rows_unlike_their_group(kernels, t):
    arr = strings(t, 700, seed=3, offset=2)
    values = arr.to_pylist()
    order, ids = {}, []
    for v in values:
        ids.append(order.setdefault(v, len(order)))
    first = [values.index(v) for v in order]
    assert run_group_verify(kernels, arr, ids, first) == 0
    # two groups merged, as a hash clash would: every row of the second
    # (valid rows only) differs from the first's first row
    a, b = [v for v in order if v is not None][:2]
    clashed = [order[a] if ids_ == order[b] else ids_ for ids_ in ids]
    assert run_group_verify(kernels, arr, clashed, first) == values.count(b)


@pytest.mark.parametrize("as_bool", [False, True])
def test_verify_keeps_lookups_whose_bytes_agree(kernels, as_bool):
    values = strings(pa.string(), 500, seed=8, offset=3)
    value_set = pa.array(["ab", "héllo", None, "zz" * 30, "b"]).slice(0)
    pos = {v: i for i, v in reversed(list(enumerate(value_set.to_pylist())))}
    n = len(values)
    rng = np.random.default_rng(1)
    found = np.zeros(n + 8, np.int32)
    fvalid = np.zeros((n + 31) // 32 * 4 + 64, np.uint8)
    for i, v in enumerate(values.to_pylist()):
        j = pos.get(v)
        if j is None and rng.random() < 0.3:
            j = int(rng.integers(0, len(value_set) - 1))  # a clash: a wrong row found
            j = j if value_set[j].is_valid else 0
        if j is not None:
            found[i] = j
            fvalid[i >> 3] |= 1 << (i & 7)
    out = np.zeros((n + 31) // 32 * 4 + 64, np.uint8)
    valid = np.zeros((n + 31) // 32 * 4 + 64, np.uint8)
    args = Args(n=n)
    bind_strings(args, values)
    _, soffsets, sdata = value_set.buffers()
    args.in2, args.valid2 = found.ctypes.data, fvalid.ctypes.data
    args.valid1, args.off1, args.scalar = soffsets.address, value_set.offset, sdata.address
    args.out, args.out_valid = out.ctypes.data, valid.ctypes.data
    kernels(f"am_verify_{'is_in' if as_bool else 'index_in'}_string", blocks_for(n), args)
    if as_bool:
        got = as_array(pa.bool_(), n, out, None)
        assert got.equals(pc.is_in(values, value_set=value_set))
    else:
        got = as_array(pa.int32(), n, found.view(np.uint8), valid)
        assert got.equals(pc.index_in(values, value_set=value_set))
