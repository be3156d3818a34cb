"""Every field of every pyarrow options class a native function takes is
honoured: each public function x each field x non-default values, given as
options= and as keywords, against pyarrow.compute on inputs where the field
changes the answer.

The fields come from pyarrow itself (each options class's serialization), so a
pyarrow that adds a field fails test_every_field_has_values until the field is
handled here and in the package."""

import math
import warnings

import pytest

import arrowmetal as am
from arrowmetal import _options

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

# am's public compute functions backed by its own kernels (the rest of
# pyarrow.compute falls back: test_fallback.py).
NATIVE = sorted(
    n
    for n in am.__all__
    if callable(getattr(am, n)) and n in dir(pc) and not isinstance(getattr(am, n), type)
)


def options_class(name):
    """The pyarrow options class of the function, or None."""
    registered = name.rstrip("_")
    try:
        doc = pc.get_function(registered)._doc
    except pa.ArrowKeyError:
        return None
    return getattr(pc, doc.options_class) if doc.options_class else None


# index is walked on its own below: pyarrow.compute.index takes its one field,
# value, as an argument (no options=), and IndexOptions.serialize() crashes
# pyarrow 26, so its fields cannot be read as the others' are.
WITH_OPTIONS = {
    n: options_class(n) for n in NATIVE if options_class(n) is not None and n != "index"
}

# Non-default values of each field, per options class (target_type: the types
# the casts below go to).
VALUES = {
    "ScalarAggregateOptions": {"skip_nulls": [False], "min_count": [0, 2, 3, 5]},
    "VarianceOptions": {"ddof": [1, 2, -1], "skip_nulls": [False], "min_count": [1, 2, 3, 5]},
    "CountOptions": {"mode": ["only_null", "all"]},
    "FilterOptions": {"null_selection_behavior": ["emit_null"]},
    "TakeOptions": {"boundscheck": [False]},
    "NullOptions": {"nan_is_null": [True, False]},  # null handling
    # Hash-based functions; values in the constructors' terms (ARGS).
    "SetLookupOptions": {
        "value_set": [pa.array([1, None, 4, 1], pa.int64()), pa.array([5, 3], pa.int8())],
        "null_matching_behavior": [True, False],
    },
    "DictionaryEncodeOptions": {"null_encoding_behavior": ["encode", "mask"]},
    "ModeOptions": {"n": [2, 3], "skip_nulls": [False], "min_count": [0, 2, 5]},
    "RoundOptions": {
        "ndigits": [-1, 1, 2],
        "round_mode": [
            "down",
            "up",
            "towards_zero",
            "towards_infinity",
            "half_down",
            "half_up",
            "half_towards_zero",
            "half_towards_infinity",
            "half_to_odd",
        ],
    },
    # (a multiple of another type is cast to the input's; 2.5 is refused for integers)
    "RoundToMultipleOptions": {
        "multiple": [2, 0.25, 10, 2.5, pa.scalar(3, pa.int8()), pa.scalar(0.5, pa.float32())],
        "round_mode": ["down", "up", "half_down", "half_towards_infinity", "half_to_odd"],
    },
    "PairwiseOptions": {"period": [-1, 0, 2, 10]},
    "QuantileOptions": {
        "q": [[0.1, 0.9], 0.25],
        "interpolation": ["lower", "higher", "nearest", "midpoint"],
        "skip_nulls": [False],
        "min_count": [1, 3],
    },
    "TDigestOptions": {
        "q": [[0.1, 0.9], 0.25],
        "delta": [10, 50],
        "buffer_size": [1, 7],
        "skip_nulls": [False],
        "min_count": [1, 3],
    },
    "CumulativeOptions": {"start": [5, -2, 1.5, 300, None], "skip_nulls": [True, False]},
    # an array's sort key names nothing; its order and placement count
    "ArraySortOptions": {"order": ["descending"], "null_placement": ["at_start"]},
    # (SortOptions without keys: test_sort.py, pyarrow runs it)
    "SortOptions": {"sort_keys": [[("x", "descending")], [("x", "ascending", "at_start")]]},
    # selection and ranking (select_k's ties and partitions compared as values: canonical)
    "SelectKOptions": {"k": [0, 2, 9], "sort_keys": [[("x", "descending", "at_start")]]},
    "RankOptions": {
        "sort_keys": ["descending", [("x", "ascending", "at_start")]],
        "tiebreaker": ["min", "max", "dense"],
    },
    "RankQuantileOptions": {"sort_keys": ["descending", [("x", "descending", "at_start")]]},
    "PartitionNthOptions": {"pivot": [0, 2, 3], "null_placement": ["at_start"]},
    "DayOfWeekOptions": {"count_from_zero": [False], "week_start": [2, 7]},  # temporal
    "AssumeTimezoneOptions": {
        "timezone": ["America/New_York", "Europe/London", "+05:30", "Nowhere/Land"],
        "ambiguous": ["earliest", "latest"],
        "nonexistent": ["earliest", "latest"],
    },
    "RoundTemporalOptions": {
        "multiple": [2, 3, 15],
        "unit": ["nanosecond", "minute", "hour", "week", "month", "quarter", "year"],
        "week_starts_monday": [False],
        "ceil_is_strictly_greater": [True],
        "calendar_based_origin": [True],
    },
    "MatchSubstringOptions": {"pattern": ["a", "A", ""], "ignore_case": [True]},  # strings
    "TrimOptions": {"characters": ["a", " x", "", "é"]},
    "SliceOptions": {"start": [1, -2, 0], "stop": [2, -1, 100], "step": [2, -1, 3]},
    "JoinOptions": {"null_handling": ["skip", "replace"], "null_replacement": ["N", ""]},
    # temporal text (StrftimeOptions' locale is not in its serialization: "C" only here)
    "StrftimeOptions": {"format": ["%Y", "%d/%m %H:%M:%S", "%F %T %p", "%j %a %b"]},
    "StrptimeOptions": {
        "format": ["%Y-%m-%d", "%d/%m/%Y %H:%M", "%Y-%m-%dT%H:%M:%S%z"],
        "unit": ["ms", "ns"],
        "error_is_null": [True],
    },
    "SplitPatternOptions": {"pattern": [",", "a", "aa"], "max_splits": [0, 1], "reverse": [True]},
    "SplitOptions": {"max_splits": [0, 1], "reverse": [True]},
    "CastOptions": {
        "target_type": [pa.int8(), pa.uint16(), pa.float32(), pa.int64(), pa.bool_()],
        "allow_int_overflow": [True],
        "allow_time_truncate": [True],
        "allow_time_overflow": [True],
        "allow_decimal_truncate": [True],
        "allow_float_truncate": [True],
        "allow_invalid_utf8": [True],
    },
}


# Fields whose constructor argument has another name, and required arguments
# .
ARGS = {
    ("SetLookupOptions", "null_matching_behavior"): "skip_nulls",
    ("DictionaryEncodeOptions", "null_encoding_behavior"): "null_encoding",
}
REQUIRED = {
    "MatchSubstringOptions": {"pattern": "a"},
    "TrimOptions": {"characters": "a"},
    "SliceOptions": {"start": 0},
    "SplitPatternOptions": {"pattern": ","},
    "SetLookupOptions": {"value_set": pa.array([1, None, 4], pa.int64())},
    "SelectKOptions": {"k": 2, "sort_keys": [("x", "ascending")]},
    "PartitionNthOptions": {"pivot": 1},
    "AssumeTimezoneOptions": {"timezone": "America/New_York"},
    "StrptimeOptions": {"format": "%Y-%m-%d", "unit": "s"},
}
RANKING = ("select_k_unstable", "rank", "rank_quantile", "rank_normal", "partition_nth_indices")


def default_options(cls):
    if cls is pc.CastOptions:
        return cls(pa.int64())
    return cls(**REQUIRED.get(cls.__name__, {}))


def test_every_native_function_is_walked():
    assert {"sum", "min", "max", "mean", "count", "filter", "take", "cast"} <= set(WITH_OPTIONS)
    aggregates = {"any", "all", "product", "min_max", "variance", "stddev", "first", "last"}
    assert aggregates | {"first_last"} <= set(WITH_OPTIONS)
    assert "index" in NATIVE
    assert "is_null" in WITH_OPTIONS  # null handling
    hashed = {"is_in", "index_in", "count_distinct", "dictionary_encode", "mode"}
    assert hashed <= set(WITH_OPTIONS)  # hash-based functions


@pytest.mark.parametrize("name", sorted(WITH_OPTIONS))
def test_every_field_has_values(name):
    cls = WITH_OPTIONS[name]
    fields = _options.read_fields(default_options(cls))
    assert set(fields) == set(VALUES[cls.__name__]), (
        f"{cls.__name__} fields changed: {sorted(fields)}; give the new ones values here "
        "and honour them in the package"
    )


# ---- inputs where the fields matter ---------------------------------------------

REDUCE_INPUTS = [
    pa.array([1, None, 3], pa.int32()),
    pa.array([], pa.int64()),
    pa.array([None, None], pa.float64()),
    pa.array([1.5, None, -2.0], pa.float64()),
    pa.array([True, None, False]),
    pa.array([4, 5, 6], pa.uint8()),
]
FILTER_INPUTS = [
    (pa.array([1, 2, None, 4], pa.int16()), pa.array([True, None, False, None])),
    (pa.array([True, False, True]), pa.array([None, True, None])),
    (pa.array([1.5, 2.5]), pa.array([None, None], pa.bool_())),
    (pa.array(list(range(100)), pa.int64()), pa.array([True, None, False, True] * 25)),
]
TAKE_INPUTS = [(pa.array([1, None, 3], pa.int8()), pa.array([2, None, 0], pa.int32()))]
# is_null (NullOptions): NaN among nulls, where nan_is_null matters, and where it cannot.
NULL_INPUTS = [
    pa.array([1.5, None, float("nan"), -0.0], pa.float64()),
    pa.array([float("nan"), None], pa.float32()),
    pa.array([1, None, 3], pa.int16()),
    pa.array([True, None]),
    pa.chunked_array([[float("nan")], [None, 2.0]]),
]
# The hash-based functions: repeats, nulls, NaN.
HASH_INPUTS = [
    pa.array([4, None, 1, 4, None, 4], pa.int64()),
    pa.array([2.0, float("nan"), None, 2.0, -0.0], pa.float64()),
    pa.chunked_array([[1, None], [1, 3]], pa.int64()),
]
# round, round_to_multiple and pairwise_diff: halves, where ndigits, multiple and
# round_mode matter.
ROUND_INPUTS = [
    pa.array([1.25, -2.5, None, 0.125, 2.675, 15.5], pa.float64()),
    pa.array([15, -25, None, 44, 127], pa.int16()),
    pa.array([2.5, 3.5], pa.float32()),
]
# The cumulative functions: nulls where skip_nulls matters,
# starts that fit, are cut or are out of range, a ChunkedArray.
CUMULATIVE_INPUTS = [
    pa.array([1, None, 3], pa.int32()),
    pa.array([1.5, None, -2.0, float("nan")], pa.float64()),
    pa.array([4, 5, 6], pa.uint8()),
    pa.chunked_array([[1, None], [], [2]], pa.int16()),
]
# sorting: nulls, NaN, ties of -0.0 and 0.0, a ChunkedArray.
SORT_INPUTS = [
    pa.array([3, None, 1, 3, None, -2], pa.int32()),
    pa.array([1.5, None, float("nan"), -0.0, 0.0, -1.0], pa.float64()),
    pa.array([True, None, False]),
    pa.chunked_array([[2, None], [], [1]], pa.uint16()),
]
# day_of_week: dates and timestamps across weekdays, before 1970 too, with nulls.
TEMPORAL_INPUTS = [
    pa.array([0, 1, 2, 3, None, -1, -4, 6], pa.date32()),
    pa.array([0, 86_400 * 5 + 7, None, -86_400 * 3], pa.timestamp("s")),
]
# assume_timezone: New York's and London's wall times the clocks skipped (2015-03-08
# 02:30, 2015-03-29 01:30) and went back over (2015-11-01 01:30, 2015-10-25 01:30).
ASSUME_INPUTS = [
    pa.array([1425781800, None, 1446341400, 0], pa.timestamp("s")),  # New York
    pa.array([1427592600_000, 1445736600_000, None], pa.timestamp("ms")),  # London
    pa.chunked_array([[1446341400], [None, 1]], pa.timestamp("s")),
]
# floor/ceil/round_temporal: values on and off the boundaries, before 1970, a time, a
# ChunkedArray.
ROUND_TEMPORAL_INPUTS = TEMPORAL_INPUTS + [
    pa.array([0, 3_599_999, None, -1, 86_400_000 * 400 + 1], pa.timestamp("ms")),
    pa.array([0, 5_400, 86_399, None], pa.time32("s")),
    pa.chunked_array([[1, None], [], [-86_400 * 40 - 1]], pa.timestamp("s")),
]
# the string functions' MatchSubstringOptions: text with case, non-ASCII, nulls.
STRING_INPUTS = [
    pa.array(["abc", None, "AtA", "", "Aa", "Åå\u212a ßẞ"]),
    pa.chunked_array([["xa", None], [], ["BAa"]], pa.large_string()),
]
# strptime: texts each format reads, and some none does; strftime: TEMPORAL_INPUTS.
STRPTIME_INPUTS = [
    pa.array(["2020-01-02", None, "02/01/2020 12:30", "2020-01-02T03:04:05+0100"]),
    pa.chunked_array([["1969-12-31"], [], ["bad", None]], pa.large_string()),
]
# the splits: separators twice, at the ends, overlapping, whitespace runs, nulls.
SPLIT_INPUTS = [
    pa.array(["a,b,,c", None, "aaa", " a  b ", "", ",x,"]),
    pa.chunked_array([["x, y"], [], [None, "a,a \u3000b"]], pa.large_string()),
]
CAST_INPUTS = [
    pa.array([1, 300, -1, None], pa.int64()),
    pa.array([1.5, 2.75, None, 100.0, -0.5], pa.float64()),  # in every target's range
    pa.array([2**53 + 1, 7], pa.int64()),
    pa.array([True, None, False]),
    pa.array([250, 7], pa.uint8()),
]


def calls(name):
    """(args, options class kwargs) pairs for the function."""
    cls = WITH_OPTIONS[name]
    for field, values in VALUES[cls.__name__].items():
        for value in values:
            if name == "cast":
                for target in VALUES["CastOptions"]["target_type"]:
                    kwargs = {"target_type": target}
                    if field != "target_type":
                        kwargs[field] = value
                    elif value != target:
                        continue
                    for x in CAST_INPUTS:
                        yield (x,), kwargs
            elif name == "filter":
                for x, m in FILTER_INPUTS:
                    yield (x, m), {field: value}
            elif name == "take":
                for x, i in TAKE_INPUTS:
                    yield (x, i), {field: value}
            elif name == "is_null":
                for x in NULL_INPUTS:
                    yield (x,), {field: value}
            elif cls.__name__ in ("SetLookupOptions", "DictionaryEncodeOptions", "ModeOptions"):
                kwargs = dict(REQUIRED.get(cls.__name__, {}))
                kwargs[ARGS.get((cls.__name__, field), field)] = value
                for x in REDUCE_INPUTS + HASH_INPUTS:
                    yield (x,), kwargs
            elif name in ("round", "round_to_multiple", "pairwise_diff", "pairwise_diff_checked"):
                for x in ROUND_INPUTS:
                    yield (x,), {field: value}
            elif name in ("sort_indices", "array_sort_indices"):
                for x in SORT_INPUTS:
                    yield (x,), {field: value}
            elif cls.__name__ == "MatchSubstringOptions":
                kwargs = {"pattern": "a", field: value}
                for x in STRING_INPUTS:
                    yield (x,), kwargs
            elif cls.__name__ == "TrimOptions":
                for x in STRING_INPUTS:
                    yield (x,), {field: value}
            elif cls.__name__ == "SliceOptions":
                kwargs = {"start": 1, field: value}
                for x in STRING_INPUTS:
                    yield (x,), kwargs
            elif cls.__name__ == "JoinOptions":
                # a second value without nulls: no row of null values (pyarrow 26's
                # "skip" leaves one out, see test_string_join.py)
                for x in STRING_INPUTS:
                    yield (x, pc.fill_null(x, "k"), pa.scalar("-", x.type)), {field: value}
            elif cls.__name__ in ("SplitPatternOptions", "SplitOptions"):
                for x in SPLIT_INPUTS:
                    yield (x,), {**REQUIRED.get(cls.__name__, {}), field: value}
            elif cls.__name__ == "RoundTemporalOptions":
                for x in ROUND_TEMPORAL_INPUTS:
                    yield (x,), {field: value}
            elif name in ("day_of_week", "strftime"):
                for x in TEMPORAL_INPUTS:
                    yield (x,), {field: value}
            elif name == "assume_timezone":
                for x in ASSUME_INPUTS:
                    yield (x,), {**REQUIRED[cls.__name__], field: value}
            elif name == "strptime":
                kwargs = dict(REQUIRED["StrptimeOptions"])
                kwargs[field] = value
                for x in STRPTIME_INPUTS:
                    yield (x,), kwargs
            elif name.startswith("cumulative_"):
                for x in CUMULATIVE_INPUTS:
                    yield (x,), {field: value}
            elif name in RANKING:
                kwargs = dict(REQUIRED.get(cls.__name__, {}))
                kwargs[field] = value
                for x in SORT_INPUTS:
                    if name == "partition_nth_indices" and isinstance(x, pa.ChunkedArray):
                        # pyarrow 26 partitions a ChunkedArray with nulls wrongly (a
                        # null at pivot 0 of [[2, None], [], [1]]): its combined array
                        x = x.combine_chunks()
                    yield (x,), kwargs
            else:
                for x in REDUCE_INPUTS:
                    yield (x,), {field: value}


def plain(value):
    """A pyarrow or ArrowMetal result as comparable Python data."""
    if isinstance(value, am.Array) and value.type.startswith(("timestamp", "date", "time")):
        value = value.to_pyarrow()  # its datetimes, as pyarrow's (am's to_pylist: integers)
    if isinstance(value, (pa.Array, pa.ChunkedArray, am.Array)):
        value = value.to_pylist()
    elif isinstance(value, pa.Scalar) or hasattr(value, "is_valid"):
        value = value.as_py()  # a pyarrow or an ArrowMetal Scalar
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):  # a struct's row (value_counts, mode)
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return value


def canonical(name, args, kwargs, result):
    """select_k_unstable's ties and partition_nth_indices' partitions may
    come in any order: their values are compared (the pivot's value and the
    sorted values on each side of it). rank_normal's values are rounded: the
    normal quantile function's last bits differ from pyarrow's."""
    if name == "rank_normal":
        return [round(v, 12) for v in result.to_pylist()]
    if name == "assume_timezone" and isinstance(result, am.Array):
        return result.to_pyarrow()  # its zone and datetimes, as pyarrow's
    if name not in ("select_k_unstable", "partition_nth_indices"):
        return result
    x = args[0]
    x = x.combine_chunks() if isinstance(x, pa.ChunkedArray) else x
    idx = result.to_pyarrow() if isinstance(result, am.Array) else result
    vals = [plain(v) for v in pc.take(x, idx).to_pylist()]
    vals = [v + 0 if isinstance(v, float) else v for v in vals]  # -0.0 ties 0.0
    if name == "select_k_unstable":
        return vals
    opts = kwargs.get("options")
    if "pivot" in kwargs:
        pivot = kwargs["pivot"]
    else:
        pivot = opts["pivot"] if isinstance(opts, dict) else _options.read_fields(opts)["pivot"]
    key = repr  # None, "NaN" and numbers sort apart, as sets
    return (vals[pivot:pivot + 1], sorted(vals[:pivot], key=key), sorted(vals[pivot + 1:], key=key))  # fmt: skip


def outcome(fn, *args, **kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", am.ArrowMetalFallbackWarning)
            result = canonical(fn.__name__, args, kwargs, fn(*args, **kwargs))
            return ("ok", plain(result))
    except am.ArrowMetalFallbackWarning as w:
        pytest.fail(f"a native function fell back to pyarrow: {w}")
    except Exception as e:  # noqa: BLE001 - compared with pyarrow's outcome
        return ("error", type(e).__mro__[1].__name__ if "Arrow" in type(e).__name__ else "")


def same_outcome(mine, theirs):
    if theirs[0] == "error":
        return mine[0] == "error"
    return mine == theirs


# StrftimeOptions hides its locale (neither its serialization nor its repr has
# it), so an options object runs in pyarrow (counted): test_temporal_text.py.
@pytest.mark.parametrize("name", sorted(set(WITH_OPTIONS) - {"strftime"}))
def test_every_field_as_options_object(name):
    cls = WITH_OPTIONS[name]
    pc_fn, am_fn = getattr(pc, name), getattr(am, name)
    n = 0
    for args, kwargs in calls(name):
        options = cls(**kwargs)
        theirs = outcome(pc_fn, *args, options=options)
        mine = outcome(am_fn, *args, options=options)
        assert same_outcome(mine, theirs), (name, args, kwargs, mine, theirs)
        n += 1
    assert n > 0


@pytest.mark.parametrize("name", sorted(WITH_OPTIONS))
def test_every_field_as_keywords_and_dict(name):
    """The same fields as keyword arguments where pyarrow takes them, and as
    a dict in options= (pyarrow builds the class from it)."""
    pc_fn, am_fn = getattr(pc, name), getattr(am, name)
    for args, kwargs in calls(name):
        if name == "cast" and set(kwargs) != {"target_type"}:
            continue  # pyarrow.compute.cast takes the allow_* fields only in options
        theirs = outcome(pc_fn, *args, **kwargs)
        assert same_outcome(outcome(am_fn, *args, **kwargs), theirs), (name, args, kwargs)
        if name not in ("cast", "take"):
            mine = outcome(am_fn, *args, options=dict(kwargs))
            assert same_outcome(mine, theirs), (name, args, kwargs, "dict")


def test_the_wrong_results_of_the_issue_are_right():
    x = pa.array([3, 4, None, None])
    assert am.sum(x, options=pc.ScalarAggregateOptions(skip_nulls=False)).as_py() is None
    assert am.count(x, options=pc.CountOptions("all")) == 4
    m = pa.array([True, None])
    got = am.filter(pa.array([1, 2]), m, options=pc.FilterOptions("emit_null"))
    assert got.to_pylist() == [1, None]
    opts = pc.CastOptions(pa.int64(), allow_float_truncate=True)
    assert am.cast(pa.array([1.5, -2.5]), options=opts).to_pylist() == [1, -2]


def test_options_misuse_is_refused_as_pyarrow_does():
    x = pa.array([1, None])
    with pytest.raises(TypeError, match="expected a ScalarAggregateOptions"):
        am.sum(x, options=pc.CountOptions())
    with pytest.raises(TypeError, match="both an 'options' argument"):
        am.sum(x, skip_nulls=False, options=pc.ScalarAggregateOptions())
    with pytest.raises(TypeError, match="no field 'skipnulls'"):
        am.sum(x, options={"skipnulls": False})
    with pytest.raises(ValueError, match="either target_type and safe, or options"):
        am.cast(x, pa.int8(), options=pc.CastOptions(pa.int8()))
    with pytest.raises(ValueError, match="a target type is needed"):
        am.cast(x, options=pc.CastOptions(allow_int_overflow=True))
    with pytest.raises(ValueError, match="count: mode"):
        am.count(x, "some")


def test_cast_flags_in_the_c_abi():
    """am_cast's flags: unknown bits are refused, each ALLOW bit lifts one check."""
    lib, ffi = am.lib, am.ffi
    out = ffi.new("am_array **")
    a = am.array([300, 1], type="int64")
    assert lib.am_cast(a.handle, lib.AM_INT8, 64, out) == lib.AM_EINVAL
    assert lib.am_cast(a.handle, lib.AM_INT8, lib.AM_CAST_SAFE, out) == lib.AM_EOVERFLOW
    flags = lib.AM_CAST_SAFE | lib.AM_CAST_ALLOW_FLOAT_TRUNCATE
    assert lib.am_cast(a.handle, lib.AM_INT8, flags, out) == lib.AM_EOVERFLOW
    flags = lib.AM_CAST_SAFE | lib.AM_CAST_ALLOW_INT_OVERFLOW
    assert lib.am_cast(a.handle, lib.AM_INT8, flags, out) == lib.AM_OK
    lib.am_release(out[0])


# ---- index: IndexOptions' one field, value, as pyarrow.compute.index takes it


INDEX_CALLS = [
    (pa.array([1, None, 3, 1], pa.int8()), 1, {}),
    (pa.array([1, None, 3, 1], pa.int8()), 1, {"start": 1}),
    (pa.array([1, None, 3, 1], pa.int8()), 3, {"start": 1, "end": 2}),
    (pa.array([1, None, 3, 1], pa.int8()), 1, {"end": 0}),
    (pa.array([1, None, 3, 1], pa.int8()), 1, {"start": 10}),
    (pa.array([1, None, 3, 1], pa.int8()), 1, {"start": -1}),
    (pa.array([1, None, 3, 1], pa.int8()), 1, {"start": 2, "end": 1}),
    (pa.array([1, None, 3, 1], pa.int8()), None, {}),
    (pa.array([1, None, 3, 1], pa.int8()), 300, {}),
    (pa.array([1, None, 3, 1], pa.int8()), 1.5, {}),
    (pa.array([1, None, 3, 1], pa.int8()), pa.scalar(3, pa.int64()), {}),
    (pa.array([1, None, 3, 1], pa.int8()), pa.scalar(None, pa.int8()), {}),
    (pa.array([1.5, float("nan"), -0.0], pa.float64()), float("nan"), {}),
    (pa.array([1.5, float("nan"), -0.0], pa.float64()), 0.0, {}),
    (pa.array([0.1, 0.2], pa.float32()), 0.2, {}),
    (pa.array([True, None, False]), False, {}),
    (pa.array([True, None, False]), 1, {}),
    (pa.array([], pa.uint64()), 2**64 - 1, {}),
    (pa.array([2**64 - 1], pa.uint64()), 2**64 - 1, {}),
]


@pytest.mark.parametrize("k", range(len(INDEX_CALLS)))
def test_index_value_start_and_end(k):
    data, value, kwargs = INDEX_CALLS[k]
    theirs = outcome(pc.index, data, value, **kwargs)
    mine = outcome(am.index, data, value, **kwargs)
    assert same_outcome(mine, theirs), (data, value, kwargs, mine, theirs)
    if theirs[0] == "error":  # the same exception class as pyarrow's
        with pytest.raises(Exception) as want:
            pc.index(data, value, **kwargs)
        with pytest.raises(want.type):
            am.index(data, value, **kwargs)


def test_index_takes_no_options_object_as_pyarrow():
    x = pa.array([1, 2])
    with pytest.raises(TypeError):
        pc.index(x, options=pc.IndexOptions(1))
    with pytest.raises(TypeError):
        am.index(x, options=pc.IndexOptions(1))


def test_bad_option_values_are_refused_as_pyarrow_refuses_them():
    x = pa.array([1.0, 2.0, None])
    for fn, kwargs in (
        ("variance", {"ddof": 2**31}),
        ("variance", {"min_count": -1}),
        ("stddev", {"min_count": 2**32}),
        ("product", {"min_count": "3"}),
        ("first", {"min_count": -5}),
    ):
        with pytest.raises(Exception) as want:
            getattr(pc, fn)(x, **kwargs)
        with pytest.raises(want.type):
            getattr(am, fn)(x, **kwargs)
    # A float is truncated, a string is truthy, as in pyarrow's options.
    for kwargs in ({"min_count": 2.9}, {"skip_nulls": "no"}, {"ddof": 1.5}):
        assert plain(am.variance(x, **kwargs)) == plain(pc.variance(x, **kwargs))
