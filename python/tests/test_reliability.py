"""Regression tests of the defects issue #15 lists: each failed before its fix.

Structs are built by hand through the C ABI (cffi), as a producer in C would
hand them over, so that the odd shapes the C Data Interface allows reach
am_import unchanged.
"""

import math
import pickle

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal._array import wrap
from arrowmetal._capi import ffi, lib

from .fresh import run_python


@ffi.callback("void(struct ArrowSchema *)")
def _release_schema(schema):
    schema.release = ffi.NULL


@ffi.callback("void(struct ArrowArray *)")
def _release_array(array):
    array.release = ffi.NULL


def _import(fmt, length, offset, data, null_count=0, schema_children=0, keep=None):
    """am_import of a primitive array whose data buffer is `data` (a cffi pointer or
    NULL), without validity. Returns (status, message, am_array * or None)."""
    keep = [] if keep is None else keep
    schema = ffi.new("struct ArrowSchema *")
    array = ffi.new("struct ArrowArray *")
    format_ = ffi.new("char[]", fmt)
    buffers = ffi.new("void *[2]", [ffi.NULL, data])
    keep += [schema, array, format_, buffers]
    schema.format = format_
    schema.n_children = schema_children
    schema.release = _release_schema
    array.length, array.offset, array.null_count = length, offset, null_count
    array.n_buffers, array.buffers, array.n_children = 2, buffers, 0
    array.release = _release_array
    out = ffi.new("am_array **")
    status = lib.am_import(schema, array, ffi.NULL, out)
    message = ffi.string(lib.am_last_error()).decode()
    schema.release(schema)
    return status, message, (out[0] if status == lib.AM_OK else None)


def _exported_data(array):
    """The address of the data buffer an exported copy of `array` points at."""
    schema = ffi.new("struct ArrowSchema *")
    out = ffi.new("struct ArrowArray *")
    assert lib.am_export(array, schema, out) == lib.AM_OK
    address = int(ffi.cast("uintptr_t", out.buffers[1]))
    out.release(out)
    schema.release(schema)
    return address


def test_spin_budget_is_clamped_not_overflowed():
    before = lib.am_spin_microseconds(-1)
    try:
        assert lib.am_spin_microseconds(2**63 - 1) == lib.AM_SPIN_MICROSECONDS_MAX
        assert lib.am_spin_microseconds(-1) == 10_000_000
        assert lib.am_spin_microseconds(123) == 123
    finally:
        lib.am_spin_microseconds(before)


def test_wait_watchdog_setting_is_clamped_and_read_from_the_environment():
    before = lib.am_wait_timeout_ms(-1)
    try:
        assert lib.am_wait_timeout_ms(2**63 - 1) == lib.AM_WAIT_TIMEOUT_MS_MAX
        assert lib.am_wait_timeout_ms(250) == 250
        assert am.wait_timeout_ms() == 250
        assert am.wait_timeout_ms(0) == 0
    finally:
        lib.am_wait_timeout_ms(before)
    read = "import arrowmetal as am; print(am.wait_timeout_ms())"
    out = run_python(read, ARROWMETAL_WAIT_TIMEOUT_MS="4321")
    assert out.stdout.split() == ["4321"], out.stderr
    out = run_python(read, ARROWMETAL_WAIT_TIMEOUT_MS="5s")
    assert out.stdout.split() == ["0"], out.stderr
    assert "ARROWMETAL_WAIT_TIMEOUT_MS=5s is not a number of milliseconds" in out.stderr


def test_negative_children_is_invalid_not_a_type_error():
    data = ffi.new("int64_t[1]")
    status, message, _ = _import(b"l", 1, 0, data, schema_children=-1)
    assert status == lib.AM_EINVAL
    assert "n_children is negative (-1)" in message


def test_empty_array_with_null_buffers_and_an_offset():
    status, message, empty = _import(b"l", 0, 5, ffi.NULL)
    assert status == lib.AM_OK, message
    try:
        out = ffi.new("am_array **")
        index = am.array(pa.array([], pa.int32()))
        mask = am.array(pa.array([], pa.bool_()))
        s = ffi.new("am_scalar *", {"type": lib.AM_INT64, "i64": 3})
        calls = {
            "take": lambda: lib.am_take(empty, index._ptr, out),
            "filter": lambda: lib.am_filter(empty, mask._ptr, out),
            "cast": lambda: lib.am_cast(empty, lib.AM_FLOAT64, 0, out),
            "compare": lambda: lib.am_compare_scalar(lib.AM_LT, empty, s, out),
            "divide": lambda: lib.am_arith(lib.AM_DIVIDE, empty, empty, out),
        }
        for name, call in calls.items():
            assert call() == lib.AM_OK, (name, ffi.string(lib.am_last_error()))
            assert lib.am_length(out[0]) == 0, name
            lib.am_release(out[0])
        total = ffi.new("am_scalar *")
        assert lib.am_sum(empty, total) == lib.AM_OK and total.is_null
    finally:
        lib.am_release(empty)


@pytest.mark.parametrize("fmt,dtype", [(b"l", np.int64), (b"g", np.float64), (b"i", np.int32)])
def test_misaligned_data_is_copied_once_aligned_data_is_not(fmt, dtype):
    values = np.arange(-500, 1500, dtype=dtype)
    width = values.itemsize
    raw = ffi.new("char[]", values.nbytes + 2 * width)
    base = int(ffi.cast("uintptr_t", raw))
    start = (-base) % width  # the first aligned byte
    for shift in (0, 1):  # aligned, then one byte past it
        at = start + shift
        ffi.memmove(raw + at, values.tobytes(), values.nbytes)
        status, message, array = _import(fmt, len(values) - 3, 3, raw + at)
        assert status == lib.AM_OK, message
        try:
            address = _exported_data(array)
            if shift == 0:
                assert address == base + at  # zero-copy
            else:
                assert address % width == 0 and address != base + at  # an aligned copy
            s = ffi.new("am_scalar *")
            assert lib.am_sum(array, s) == lib.AM_OK
            expected = values[3:].sum()
            assert (s.f64 if dtype == np.float64 else s.i64) == expected
            out = ffi.new("am_array **")
            assert lib.am_cast(array, lib.AM_FLOAT64, 0, out) == lib.AM_OK
            casted = pa.array(wrap(out[0])).to_numpy()
            np.testing.assert_array_equal(casted, values[3:].astype(np.float64))
        finally:
            lib.am_release(array)


def test_take_by_uint64_past_int64_max_names_the_index():
    with pytest.raises(am.ArrowMetalIndexError, match="index 9223372036854775813 out of bounds"):
        am.take(pa.array([1, 2, 3]), pa.array([0, 2**63 + 5], pa.uint64()))


@pytest.mark.parametrize(
    "call,theirs",
    [
        (lambda: am.divide(pa.array([1]), pa.array([0])), pa.ArrowInvalid),
        (lambda: am.add_checked(pa.array([2**62]), pa.array([2**62])), pa.ArrowInvalid),
        (lambda: am.cast(pa.array([300]), pa.int8()), pa.ArrowInvalid),
        (lambda: am.take(pa.array([1]), pa.array([5])), pa.ArrowIndexError),
        (lambda: am.sqrt_checked(pa.array([-1.0])), pa.ArrowInvalid),
    ],
)
def test_errors_are_caught_as_pyarrows(call, theirs):
    with pytest.raises(theirs) as caught:
        call()
    error = caught.value
    assert isinstance(error, am.ArrowMetalError) and isinstance(error, pa.ArrowException)
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error) and again.code == error.code


def test_error_classes_keep_their_python_bases():
    error = am.ArrowMetalZeroDivisionError("x")
    assert isinstance(error, ZeroDivisionError) and isinstance(error, pa.ArrowInvalid)
    assert type(error).__name__ == "ArrowMetalZeroDivisionError"
    assert isinstance(am.ArrowMetalTypeError("x"), pa.ArrowNotImplementedError)
    assert isinstance(am.ArrowMetalTypeError("x"), TypeError)


def test_pinned_divergences_give_the_exact_answers():
    assert am.mean(pa.array([2**63 - 1, -(2**63), 5])).as_py() == 4 / 3
    assert am.sum(pa.array([1e30, 1.0, -1e30, 2.0])).as_py() == math.fsum([1e30, 1, -1e30, 2])


_SUMMED = am.array(pa.array([1, 2]))  # made outside any batch


def _commit_empty_batch():
    """A committed batch with one CPU sum in it; returns its ticket."""
    assert lib.am_batch_begin() == lib.AM_OK
    total = ffi.new("am_scalar *")
    assert lib.am_sum(_SUMMED._ptr, total) == lib.AM_OK
    ticket = ffi.new("uint64_t *")
    assert lib.am_batch_commit(ticket) == lib.AM_OK
    return ticket[0]


def test_tickets_never_waited_on_are_bounded_and_answer_late():
    first = _commit_empty_batch()
    later = [_commit_empty_batch() for _ in range(300)]  # past the 256 held in flight
    # The first was settled by a later commit; its outcome still answers, once.
    assert lib.am_wait(first) == lib.AM_OK
    assert lib.am_wait(first) == lib.AM_EINVAL
    assert "already waited on" in ffi.string(lib.am_last_error()).decode()
    for ticket in later[:10] + later[-10:]:
        assert lib.am_wait(ticket) == lib.AM_OK
    # Once 4,096 more batches were settled unwaited, an outcome is no longer kept:
    # a clear error, not a wrong answer.
    old = later[10]
    flood = [_commit_empty_batch() for _ in range(4400)]
    assert lib.am_wait(old) == lib.AM_EINVAL
    assert "expired" in ffi.string(lib.am_last_error()).decode()
    assert lib.am_wait(flood[-1]) == lib.AM_OK  # still in flight
    for ticket in flood[-256:-1]:
        assert lib.am_wait(ticket) == lib.AM_OK


def test_narrow_compare_does_not_widen_the_array():
    """An int8 array against an int64 scalar is compared as int8: the peak memory
    of the comparison stays near its 1-bit result instead of an int64 copy
    (512 MiB for these 2^26 rows, before)."""
    code = """
import resource, numpy as np, pyarrow as pa, arrowmetal as am
from arrowmetal._capi import ffi, lib
a = am.array(pa.array(np.full(1 << 26, 7, dtype=np.int8)))  # no large temporary
five = ffi.new("am_scalar *", {"type": lib.AM_INT64, "i64": 5})  # as a C caller's int
out = ffi.new("am_array **")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert lib.am_compare_scalar(lib.AM_LT, a._ptr, five, out) == lib.AM_OK
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
assert lib.am_length(out[0]) == 1 << 26
lib.am_release(out[0])
print("grown_kib", grown)
"""
    run = run_python(code, ARROWMETAL_BACKEND="cpu")
    assert run.returncode == 0, run.stderr
    grown_kib = int(run.stdout.split()[-1])
    assert grown_kib < 128 * 1024, grown_kib


# ---- Defects the fuzz targets found (fuzz/regressions/ops_fuzz/ replays each
# under ASan and UBSan; these tests reach them from Python).


def test_round_to_int64_min_digits_does_not_read_outside_the_table():
    """am_round's power of ten negated ndigits: -INT64_MIN overflowed and indexed
    its table at -2^63 (a crash in a normal build). |ndigits| that large makes
    the power +inf either way, so INT64_MIN answers (values, or the overflow
    error) as -INT64_MAX does. The -O3 build happened to answer so before the fix
    too; the test that failed before is the UBSan replay of
    fuzz/regressions/ops_fuzz/round-ndigits-int64-min (fuzz/test_fuzz.py)."""
    code = """
import math, pyarrow as pa, arrowmetal as am
from arrowmetal._capi import ffi, lib
a = am.array(pa.array([1.5, -2.25, 0.0, 1e300]))
answers = []
for digits in (-2**63, -(2**63 - 1), 2**63 - 1):
    out = ffi.new("am_array **")
    status = lib.am_round(a._ptr, digits, lib.AM_ROUND_HALF_TO_EVEN, out)
    if status != lib.AM_OK:
        answers.append((status, ffi.string(lib.am_last_error()).decode()))
        continue
    schema, array = ffi.new("struct ArrowSchema *"), ffi.new("struct ArrowArray *")
    assert lib.am_export(out[0], schema, array) == lib.AM_OK
    data = ffi.cast("double *", array.buffers[1])
    answers.append([repr(data[array.offset + i]) for i in range(array.length)])
    array.release(array); schema.release(schema); lib.am_release(out[0])
print(answers)
assert answers[0] == answers[1], answers
"""
    run = run_python(code, ARROWMETAL_BACKEND="cpu")
    assert run.returncode == 0, run.stderr[-2000:]


def test_coalesce_without_a_value_is_invalid_even_after_a_type_mismatch():
    """A value given as neither array nor scalar, after inputs of no common type:
    the message listing the types read the missing scalar (a NULL dereference)."""
    code = """
import pyarrow as pa, arrowmetal as am
from arrowmetal._capi import ffi, lib
ints = am.array(pa.array([1, None, 3], pa.int64()))
flag = ffi.new("am_scalar *", {"type": lib.AM_BOOL, "i64": 1})
arrays = ffi.new("am_array *[3]", [ints._ptr, ffi.NULL, ffi.NULL])
scalars = ffi.new("am_scalar *[3]", [ffi.NULL, flag, ffi.NULL])
out = ffi.new("am_array **")
status = lib.am_coalesce(arrays, scalars, 3, out)
print(status, ffi.string(lib.am_last_error()).decode())
"""
    run = run_python(code, ARROWMETAL_BACKEND="cpu")
    assert run.returncode == 0, run.stderr[-2000:]
    status, message = run.stdout.strip().split(" ", 1)
    assert int(status) == lib.AM_EINVAL
    assert "value 2: give an array or a scalar, neither is given" in message


@pytest.mark.parametrize("dtype", [pa.uint8(), pa.uint16(), pa.int16()])
def test_cumulative_prod_of_narrow_integers_wraps_as_pyarrow(dtype):
    """uint8/uint16 products were multiplied in C's int (signed overflow). The
    -O3 build wrapped as intended anyway, so this passed before the fix too; the
    test that failed before is the UBSan replay of
    fuzz/regressions/ops_fuzz/cumulative-prod-uint16-int-promotion."""
    values = pa.array([38784, 60093, 65535, 40000, None, 65521, 3], pa.uint16()).cast(
        dtype, safe=False
    )
    import pyarrow.compute as pc

    ours = am.cumulative_prod(values)
    theirs = pc.cumulative_prod(values)
    assert pa.array(ours).equals(theirs)


def test_temporal_inputs_the_c_calls_cannot_pair_fail_cleanly():
    # ops_fuzz's finds (fuzz/regressions/ops_fuzz): is_in of a duration in an int64 set
    # freed a view it never made, and coalesce of a duration with int64 called the CPU's
    # numeric cast table for the duration (a NULL entry). Both now refuse with AM_ETYPE /
    # AM_EUNSUPPORTED.
    dur = am.array(pa.array([1, None, 3], pa.duration("s")))
    ints = am.array(pa.array([1, 2, 3], pa.int64()))
    out = ffi.new("am_array **")
    assert lib.am_is_in(dur.handle, ints.handle, 1, out) == lib.AM_ETYPE
    assert b"didn't match type of values set" in ffi.string(lib.am_last_error())
    arrays = ffi.new("am_array *[]", [dur.handle, ints.handle])
    scalars = ffi.new("am_scalar *[]", [ffi.NULL, ffi.NULL])
    assert lib.am_coalesce(arrays, scalars, 2, out) in (lib.AM_ETYPE, lib.AM_EUNSUPPORTED)
    cast = ffi.new("am_array **")
    assert lib.am_cast(ints.handle, lib.AM_DURATION_S, lib.AM_CAST_SAFE, cast) == lib.AM_OK
    arrays = ffi.new("am_array *[]", [cast[0], ints.handle])
    assert lib.am_coalesce(arrays, scalars, 2, out) in (lib.AM_ETYPE, lib.AM_EUNSUPPORTED)
    lib.am_release(cast[0])


@pytest.mark.parametrize(
    "values, dtype",
    [
        ([-6744761025979416715, 2**62, -1, 90_000_000_000, None, 0], pa.time64("us")),
        ([-(2**63), 2**63 - 1, -1, 86_400_000_000_000, 3], pa.time64("ns")),
        ([-(2**31), 2**31 - 1, -1, 86_400_000 + 1], pa.time32("ms")),
        ([-(2**31), 2**31 - 1, -1, 86_400 * 3 + 61], pa.time32("s")),
    ],
)
def test_time_fields_outside_the_day_as_pyarrow(values, dtype):
    """ops_fuzz's find (fuzz/regressions/ops_fuzz/time-field-of-a-value-outside-the-day-
    overflows): a time's field multiplied its whole value to nanoseconds (signed
    overflow past 106 days in us), and read a value outside the day unfloored
    (-1 us gave hour 0, pyarrow 23). pyarrow floors it into the day."""
    import pyarrow.compute as pc

    array = pa.array(values, dtype)
    for name in ("hour", "minute", "second", "millisecond", "microsecond", "nanosecond"):
        ours = getattr(am, name)(array)
        assert pa.array(ours).equals(getattr(pc, name)(array)), name


def test_full_of_a_string_scalar_checks_its_length_first():
    """ops_fuzz's find: am_full of a string or binary scalar sized its picks as
    (length + 1) entries before the length was checked, so 2^60 rows wrapped the
    size and wrote past a small allocation (a crash), and -5 was "out of memory"."""
    code = """
import arrowmetal as am
from arrowmetal._capi import ffi, lib
for length in (2**60, -5):
    try:
        am.full("abc", length)
        print("no error")
    except am.ArrowMetalInvalid as e:
        print(e.code, str(e).count("is outside 0 to 2^52"))
"""
    run = run_python(code, ARROWMETAL_BACKEND="cpu")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == [str(lib.AM_EINVAL), "1"] * 2


def test_cast_of_integers_to_a_decimal_of_a_huge_scale_is_refused():
    """ops_fuzz's find (fuzz/regressions/ops_fuzz/cast-decimal-scale-int32-max-wraps-the-
    precision-check): the digits needed, 3 + scale, were summed in int, so a scale
    near INT32_MAX wrapped negative past the check and the cast wrote values of no
    meaning. (pyarrow 26 crashes on this cast: no comparison.)"""
    values = pa.array([1, 2], pa.int8())
    with pytest.raises(am.ArrowMetalInvalid, match="It should be at least 2147483650"):
        am.cast(values, pa.decimal128(5, 2**31 - 1))


def test_decimal_rescale_past_76_digits_is_exact_not_a_division_by_zero():
    """ops_fuzz's find (fuzz/regressions/ops_fuzz/cast-decimal-rescale-past-76-digits-
    divides-by-zero): am_cast_decimal takes any int32 scale, and a rescale down by 256
    digits or more divided by 10^k wrapped to 0 in 256 bits (SIGFPE). Every digit is
    dropped now: 0 for a zero, data loss otherwise (0 unchecked)."""
    code = """
import decimal, pyarrow as pa, arrowmetal as am
from arrowmetal._capi import ffi, lib
values = am.array(pa.array([decimal.Decimal(0), decimal.Decimal(5)], pa.decimal256(40, 0)))
back = ffi.new("am_array **")
status = lib.am_cast_decimal(values.handle, lib.AM_DECIMAL256, 40, -300, lib.AM_CAST_SAFE, back)
print(status, b"data loss" in ffi.string(lib.am_last_error()))
assert lib.am_cast_decimal(values.handle, lib.AM_DECIMAL256, 40, -300, 0, back) == lib.AM_OK
data = ffi.new("struct ArrowArray *")
assert lib.am_export(back[0], ffi.NULL, data) == lib.AM_OK
words = ffi.cast("uint64_t *", data.buffers[1])
print([words[i] for i in range(8)])
data.release(data)
lib.am_release(back[0])
"""
    run = run_python(code, ARROWMETAL_BACKEND="cpu")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split("\n")[:2] == [f"{lib.AM_EINVAL} True", str([0] * 8)]


@pytest.mark.parametrize("scale", [-(2**31), 2**31 - 1])
@pytest.mark.parametrize("unscaled, fits", [(7, False), (0, True)])
def test_decimal_scalar_of_an_int32_end_scale_is_rescaled_without_overflow(scale, unscaled, fits):
    """ops_fuzz's find (found by CI; its artifact was not kept):
    a decimal scalar's scale is any int32, and bringing it to the values' scale took
    `scale - from` in int, which overflowed at INT32_MIN. A nonzero value that far
    below the values' scale does not fit, one above it loses data; zero is zero at any
    scale."""
    values = am.array(pa.array([None, 1], pa.decimal128(10, 2)))
    s = ffi.new("am_scalar *")
    s.type = lib.AM_DECIMAL128
    s.i64 = int(ffi.cast("int64_t", (scale << 32) | 10))
    data = ffi.new("char[]", unscaled.to_bytes(16, "little", signed=True))
    s.u64 = int(ffi.cast("uintptr_t", data))
    out = ffi.new("am_array **")
    status = lib.am_fill_null(values.handle, ffi.NULL, s, out)
    if not fits:
        assert status == lib.AM_EINVAL and out[0] == ffi.NULL
        words = "does not fit in precision 10" if scale < 0 else "would cause data loss"
        assert words in ffi.string(lib.am_last_error()).decode()
        return
    assert status == lib.AM_OK, ffi.string(lib.am_last_error())
    assert wrap(out[0]).to_pyarrow().to_pylist() == [0, 1]


@pytest.mark.parametrize("scale", [2**31 - 1, -(2**31)])
@pytest.mark.parametrize("op", ["AM_ADD", "AM_SUBTRACT", "AM_MULTIPLY", "AM_DIVIDE"])
def test_decimal_arithmetic_with_an_int32_end_scale_is_refused(op, scale):
    """ops_fuzz's find (fuzz/regressions/ops_fuzz/decimal-arith-scale-near-int32-max-summed-in-int):
    a decimal scalar's scale is any int32, and working out the result's parameters summed
    scales and precisions in int (signed overflow). A precision or scale past what the type
    holds is refused as pyarrow refuses a precision."""
    values = am.array(pa.array([None, 1], pa.decimal128(10, 2)))
    s = ffi.new("am_scalar *")
    s.type = lib.AM_DECIMAL128
    s.i64 = int(ffi.cast("int64_t", (scale << 32) | 10))
    data = ffi.new("char[]", (3).to_bytes(16, "little", signed=True))
    s.u64 = int(ffi.cast("uintptr_t", data))
    out = ffi.new("am_array **")
    status = lib.am_arith_scalar(getattr(lib, op), values.handle, s, out)
    message = ffi.string(lib.am_last_error()).decode()
    assert out[0] == ffi.NULL
    if scale < 0:  # refused before its parameters are worked out, in pyarrow's words
        assert status == lib.AM_EUNSUPPORTED
        assert "Decimals with negative scales not supported" in message
    elif op == "AM_MULTIPLY":  # precision 21, scale 2 + INT32_MAX
        assert status == lib.AM_EINVAL
        assert "Decimal scale out of range: 2147483649" in message
    else:  # scaled up by about 2^31 digits
        assert status == lib.AM_EINVAL
        assert "Decimal precision out of range [1, 38]: 21474836" in message


@pytest.mark.parametrize("scale", [2**31 - 1, -(2**31)])
@pytest.mark.parametrize("to", ["AM_FLOAT64", "AM_FLOAT32"])
def test_decimal_of_an_int32_end_scale_converts_to_floats(scale, to):
    """A decimal's scale may be any int32 (am_cast_decimal casts to one). Its conversion
    to a float multiplied by 10^-scale, negating INT32_MIN in int (signed overflow, which
    the sanitizer builds stop at); and zero times an infinite power of ten was NaN."""
    values = am.array(pa.array([None, 0, 1], pa.decimal128(10, 2)))
    scaled = ffi.new("am_array **")
    status = lib.am_cast_decimal(values.handle, lib.AM_DECIMAL128, 38, scale, 0, scaled)
    assert status == lib.AM_OK, ffi.string(lib.am_last_error())
    out = ffi.new("am_array **")
    try:
        assert lib.am_cast(scaled[0], getattr(lib, to), 0, out) == lib.AM_OK
        # (the unsafe cast above left 0.01 as 0 at either scale)
        assert wrap(out[0]).to_pyarrow().to_pylist() == [None, 0.0, 0.0]
    finally:
        lib.am_release(scaled[0])


@pytest.mark.parametrize(
    "op", ["AM_STARTS_WITH", "AM_ENDS_WITH", "AM_MATCH_SUBSTRING", "AM_FIND_SUBSTRING",
           "AM_COUNT_SUBSTRING", "AM_MATCH_LIKE"],
)  # fmt: skip
@pytest.mark.parametrize("flags", [0, 1])
def test_string_match_of_an_empty_pattern_given_as_null(op, flags):
    """ops_fuzz's find (fuzz/regressions/ops_fuzz/string-match-ignore-case-of-a-null-empty-pattern):
    the C ABI takes an empty pattern as NULL with length 0, and folding it for ignore_case
    did pointer arithmetic on NULL (UB, which the sanitizer builds stop at). An empty
    pattern is pyarrow's empty pattern."""
    values = pa.array(["", "aB", None, "é"])
    out = ffi.new("am_array **")
    a = am.array(values)
    assert lib.am_string_function(getattr(lib, op), a.handle, ffi.NULL, 0, flags, out) == 0
    want = getattr(pc, op[3:].lower())(values, pattern="", ignore_case=bool(flags))
    assert wrap(out[0]).to_pyarrow() == want


def test_a_string_scalar_with_values_of_another_type_is_refused():
    """ops_fuzz's find (fuzz/regressions/ops_fuzz/if-else-of-a-string-scalar-with-int8-values-
    gathered-as-strings): if_else and coalesce of a string scalar with int8 values took the
    string path (a string value is there) and gathered the int8 values as strings, reading
    offsets they do not have (heap overflow). Refused now with pyarrow's no-kernel error."""
    cond = pa.array([True, False, None])
    ints = pa.array([1, 2, 3], pa.int8())
    with pytest.raises(NotImplementedError, match="has no kernel matching input types"):
        am.if_else(cond, pa.scalar("a"), ints)
    text = ffi.new("char[]", b"a")
    s = ffi.new("am_scalar *")
    s.type = lib.AM_UTF8
    s.i64 = 1
    s.u64 = int(ffi.cast("uintptr_t", text))
    values, condition = am.array(ints), am.array(cond)  # kept alive across the calls
    out = ffi.new("am_array **")
    status = lib.am_if_else(condition.handle, ffi.NULL, s, values.handle, ffi.NULL, out)
    assert status == lib.AM_ETYPE and out[0] == ffi.NULL
    assert "int8 values with a string or binary value" in ffi.string(lib.am_last_error()).decode()
    arrays = ffi.new("am_array *[2]", [values.handle, ffi.NULL])
    scalars = ffi.new("am_scalar *[2]", [ffi.NULL, s])
    assert lib.am_coalesce(arrays, scalars, 2, out) == lib.AM_ETYPE and out[0] == ffi.NULL
    with pytest.raises(NotImplementedError, match="has no kernel matching input types"):
        am.coalesce(ints, pa.scalar("a"))  # pyarrow's error (was ArrowMetal's own: no kernels)


@pytest.mark.parametrize(
    "start, stop, step",
    [(0, None, -(2**63)), (5, None, -(2**63)), (0, None, 2**63 - 1), (-1, -(2**63), -(2**63))],
)
def test_utf8_slice_with_a_step_at_the_int64_ends_is_pythons(start, stop, step):
    """ops_fuzz's find (fuzz/regressions/ops_fuzz/utf8-slice-step-int64-min-negated): the
    count of code points taken negated the step and added it to the distance (signed
    overflow at INT64_MIN and near INT64_MAX). Divergence: pyarrow 26 overflows the same
    way for steps near INT64_MAX and gives '\\x00'; the answer here is Python's slice."""
    values = ["abcdef", "xy", "", None, "éß漢"]
    ours = pa.array(am.utf8_slice_codeunits(pa.array(values), start, stop, step)).to_pylist()
    assert ours == [None if v is None else v[start:stop:step] for v in values]
