"""Integer option fields taken as pyarrow takes them: its options classes
convert each through Cython to a C integer type, so floats truncate, numpy
numbers count, bools are 0 and 1, and None, strings, pyarrow Scalars and
objects with only __index__ are "an integer is required"; out-of-range values
are Cython's OverflowErrors. Every keyword below is called on arrowmetal and on
pyarrow.compute with the same value and must give the same result or the same
exception and message."""

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal._options import ENUMS, FIELD_NAMES, INT_FIELDS


class _IndexOnly:
    def __index__(self):
        return 2


class _IntOnly:
    def __int__(self):
        return 2


VALUES = [
    True,
    False,
    np.int64(3),
    np.uint8(2),
    3.7,
    -2.9,
    np.float32(2.5),
    -1,
    0,
    2**31,
    2**32,
    2**63,
    2**64,
    -(2**63) - 1,
    None,
    math.nan,
    math.inf,
    "2",
    pa.scalar(2),
    _IndexOnly(),
    _IntOnly(),
]

NUMBERS = pa.array([1.5, None, 2.25, 4.0, 4.0, -3.125])
INTEGERS = pa.array([3, 1, None, 3, 7])
TEXT = pa.array(["a b a", None, "", "xyaz a", "ééa aé"])
DATES = pa.array([0, 19000, None, 20000], pa.date32())
STAMPS = pa.array([0, 86_400_000_123, None], pa.timestamp("ms"))

CALLS = {
    "sum min_count": lambda m, v: m.sum(NUMBERS, min_count=v),
    "variance ddof": lambda m, v: m.variance(NUMBERS, ddof=v),
    "stddev min_count": lambda m, v: m.stddev(NUMBERS, min_count=v),
    "mode n": lambda m, v: m.mode(INTEGERS, n=v),
    "mode min_count": lambda m, v: m.mode(INTEGERS, min_count=v),
    "quantile min_count": lambda m, v: m.quantile(NUMBERS, min_count=v),
    "tdigest delta": lambda m, v: m.tdigest(NUMBERS, delta=v),
    "tdigest buffer_size": lambda m, v: m.tdigest(NUMBERS, buffer_size=v),
    "round ndigits": lambda m, v: m.round(NUMBERS, ndigits=v),
    "pairwise_diff period": lambda m, v: m.pairwise_diff(INTEGERS, period=v),
    "floor_temporal multiple": lambda m, v: m.floor_temporal(STAMPS, multiple=v),
    "split_pattern max_splits": lambda m, v: m.split_pattern(TEXT, "a", max_splits=v),
    "utf8_split_whitespace max_splits": lambda m, v: m.utf8_split_whitespace(TEXT, max_splits=v),
    "utf8_slice_codeunits start": lambda m, v: m.utf8_slice_codeunits(TEXT, v),
    "utf8_slice_codeunits stop": lambda m, v: m.utf8_slice_codeunits(TEXT, 1, v),
    "utf8_slice_codeunits step": lambda m, v: m.utf8_slice_codeunits(TEXT, 0, 9, v),
    "day_of_week week_start": lambda m, v: m.day_of_week(DATES, week_start=v),
}


# Values pyarrow 26 takes down the process on (std::bad_alloc; a division by
# zero, SIGFPE) or answers with values of no meaning, and arrowmetal's refusal
# of them instead (include/arrowmetal.h's Divergence notes).
PYARROW_CRASHES = {
    "tdigest delta": (
        lambda v: type(v) is int and 2**31 <= v < 2**32,
        "delta 2147483648 is above 1048576",
    ),
    "floor_temporal multiple": (  # 0: SIGFPE; below 0: values of no meaning (a Divergence)
        lambda v: type(v) in (bool, int, float) and math.isfinite(v) and -(2**31) <= int(v) <= 0,
        "the multiple must be positive",
    ),
}


def _outcome(call, module, value):
    """("ok", the result as Python values) or (the exception, its message)."""
    try:
        result = call(module, value)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return e, str(e)
    if hasattr(result, "to_pylist"):
        return "ok", result.to_pylist()
    return "ok", result.as_py() if hasattr(result, "as_py") else result


def _same(left, right):
    if isinstance(left, float) and isinstance(right, float):  # variance: a last bit apart
        return math.isclose(left, right, rel_tol=1e-14) or (math.isnan(left) and math.isnan(right))
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    return left == right


@pytest.mark.parametrize(
    "value",
    VALUES,
    ids=lambda v: type(v).__name__ if type(v).__repr__ is object.__repr__ else repr(v),
)
@pytest.mark.parametrize("call", CALLS, ids=str)
def test_integer_options_convert_as_pyarrow(call, value):
    crash = PYARROW_CRASHES.get(call)
    if crash is not None and crash[0](value):  # pyarrow 26 would end the process
        with pytest.raises(am.ArrowMetalInvalid, match=crash[1]):
            CALLS[call](am, value)
        return
    want, want_message = _outcome(CALLS[call], pc, value)
    got, got_message = _outcome(CALLS[call], am, value)
    if want == "ok":
        assert got == "ok", got_message
        assert _same(got_message, want_message), (got_message, want_message)
        return
    assert isinstance(got, type(want)), (got, want)
    if isinstance(want, pa.ArrowException):  # the library's own words, naming the function
        assert want_message.split(": ")[-1] in got_message, (got_message, want_message)
    else:
        assert got_message == want_message


def test_the_table_of_integer_fields_is_pyarrows():
    """INT_FIELDS holds every plain integer field (enums aside) of the options
    classes it names, with the C type pyarrow serializes."""
    widths = {"int": pa.int32(), "int64_t": pa.int64(), "uint32_t": pa.uint32()}
    made = {
        "SplitPatternOptions": lambda: pc.SplitPatternOptions("a"),
        "SliceOptions": lambda: pc.SliceOptions(0),
    }
    enums = {
        ("QuantileOptions", "interpolation"),
        ("RoundOptions", "round_mode"),
        ("RoundTemporalOptions", "unit"),
    } | set(ENUMS)
    for class_name in {c for c, _ in INT_FIELDS}:
        options = made.get(class_name, getattr(pc, class_name))()
        struct = pa.ipc.open_file(options.serialize()).read_all().schema.field(0).type
        found = {}
        for f in struct:
            name = FIELD_NAMES.get((class_name, f.name), f.name)
            if pa.types.is_integer(f.type) and (class_name, name) not in enums:
                found[name] = f.type
        listed = {n: widths[t] for (c, n), t in INT_FIELDS.items() if c == class_name}
        assert found == listed, class_name
