"""Runs conformance/cases/*.json.gz against every backend available in this process, through
the C ABI (cffi bindings of arrowmetal.h), never through the high-level package."""

import math
import os

import amabi
import casefmt as cf
import cumulative
import dictionary_cases
import functions
import groupby_cases
import hash_cases
import join_cases
import null_handling
import pytest
import quantile_cases
import rank_cases
import rounding
import sort_cases
import split_cases
import string_cases
import temporal_cases
import timezone_cases
from amabi import ffi, lib

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = cf.load_cases(HERE)
BACKENDS = amabi.available_backends()

REDUCTIONS = {"sum", "min", "max", "mean", "count"} | set(functions.AGGREGATE)
# Functions of two scalar results, by their C entry point.
PAIRS = {"min_max": lib.am_min_max, "first_last": lib.am_first_last}

CMP = {"eq": lib.AM_EQ, "ne": lib.AM_NE, "lt": lib.AM_LT, "le": lib.AM_LE}
CMP.update({"gt": lib.AM_GT, "ge": lib.AM_GE})
ARITH = {"add": lib.AM_ADD, "subtract": lib.AM_SUBTRACT}
ARITH.update({"multiply": lib.AM_MULTIPLY, "divide": lib.AM_DIVIDE})
COUNT = {"only_valid": lib.AM_COUNT_VALID, "only_null": lib.AM_COUNT_NULL}
COUNT["all"] = lib.AM_COUNT_ALL
CAST_ALLOW = {"int_overflow": lib.AM_CAST_ALLOW_INT_OVERFLOW}
CAST_ALLOW["float_truncate"] = lib.AM_CAST_ALLOW_FLOAT_TRUNCATE
CAST_ALLOW["decimal_truncate"] = lib.AM_CAST_ALLOW_DECIMAL_TRUNCATE
CAST_ALLOW["time_truncate"] = lib.AM_CAST_ALLOW_TIME_TRUNCATE
CAST_ALLOW["time_overflow"] = lib.AM_CAST_ALLOW_TIME_OVERFLOW
NULL_SELECTION = {"drop": lib.AM_NULL_DROP, "emit_null": lib.AM_NULL_EMIT}


def _params():
    for backend in BACKENDS:
        for case in CASES:
            yield pytest.param(case, backend, id=f"{backend}:{case['id']}")


# ---- one call of the ABI ------------------------------------------------------------------


def aggregate_options(op, p):
    """am_aggregate_options of the case's params (pyarrow's defaults under the rest), or
    NULL when the case has none: the library's defaults."""
    if not p:
        return ffi.NULL
    opts = ffi.new("am_aggregate_options *")
    amabi.check("am_aggregate_options_default",
                lib.am_aggregate_options_default(functions.AGGREGATE[op], opts))  # fmt: skip
    opts.skip_nulls = int(p.get("skip_nulls", True))
    opts.min_count = p.get("min_count", opts.min_count)
    opts.ddof = p.get("ddof", 0)
    return opts


def call_aggregate(case, arrays, scalars):
    op = case["op"]
    if op == "index":
        out = amabi.output_scalar()
        return "am_index", lib.am_index(arrays[0], scalars[0], out), out
    opts = aggregate_options(op, case["params"])
    if op in PAIRS:
        out = (amabi.output_scalar(), amabi.output_scalar())
        return "am_" + op, PAIRS[op](arrays[0], opts, out[0], out[1]), out
    out = amabi.output_scalar()
    return "am_aggregate", lib.am_aggregate(functions.AGGREGATE[op], arrays[0], opts, out), out


def call(case, arrays, scalars):
    """Makes the case's call; returns (function name, status, output)."""
    op, p = case["op"], case["params"]
    if dictionary_cases.routes(case):  # dictionary results, and the family's own ops
        return dictionary_cases.call(case, arrays, scalars)
    if op in hash_cases.OPS:  # hash-based functions
        return hash_cases.call(case, arrays)
    if op in split_cases.OPS:  # two arrays: the lists' items and offsets
        return split_cases.call(case, arrays, scalars)
    if op in functions.AGGREGATE:
        return call_aggregate(case, arrays, scalars)
    if op in REDUCTIONS:
        out = amabi.output_scalar()
        if op == "count":
            return "am_count", lib.am_count(arrays[0], COUNT[p["mode"]], out), out
        fname = "am_" + op
        return fname, getattr(lib, fname)(arrays[0], out), out
    out = ffi.new("am_array **")
    scalar_form = case["form"] == "array-scalar"
    if op == "compare":
        if scalar_form:
            rc = lib.am_compare_scalar(CMP[p["cmp"]], arrays[0], scalars[0], out)
            return "am_compare_scalar", rc, out
        return "am_compare", lib.am_compare(CMP[p["cmp"]], arrays[0], arrays[1], out), out
    if op == "arith":
        if scalar_form:
            rc = lib.am_arith_scalar(ARITH[p["arith"]], arrays[0], scalars[0], out)
            return "am_arith_scalar", rc, out
        return "am_arith", lib.am_arith(ARITH[p["arith"]], arrays[0], arrays[1], out), out
    if op in functions.BINARY:
        if scalar_form:
            rc = lib.am_binary_scalar(functions.BINARY[op], arrays[0], scalars[0], out)
            return "am_binary_scalar", rc, out
        return "am_binary", lib.am_binary(functions.BINARY[op], arrays[0], arrays[1], out), out
    if op == "cast":
        flags = lib.AM_CAST_SAFE if p["safe"] else 0
        for name in p.get("allow", []):
            flags |= CAST_ALLOW[name]
        to = cf.decimal_params(p["to"])
        if to:  # a decimal target's precision and scale travel beside its type
            rc = lib.am_cast_decimal(arrays[0], cf.AM_TYPE[p["to"]], to[1], to[2], flags, out)
            return "am_cast_decimal", rc, out
        rc = lib.am_cast(arrays[0], cf.AM_TYPE[p["to"]], flags, out)
        return "am_cast", rc, out
    if op == "and":
        return "am_and", lib.am_and(arrays[0], arrays[1], out), out
    if op == "or":
        return "am_or", lib.am_or(arrays[0], arrays[1], out), out
    if op == "not":
        return "am_not", lib.am_not(arrays[0], out), out
    if op == "filter":
        if "null_selection" in p:
            rule = NULL_SELECTION[p["null_selection"]]
            return "am_filter_nulls", lib.am_filter_nulls(arrays[0], arrays[1], rule, out), out
        return "am_filter", lib.am_filter(arrays[0], arrays[1], out), out
    if op == "take":
        return "am_take", lib.am_take(arrays[0], arrays[1], out), out
    if op == "slice":
        return "am_slice", lib.am_slice(arrays[0], p["offset"], p["length"], out), out
    if op in functions.UNARY:
        return "am_unary", lib.am_unary(functions.UNARY[op], arrays[0], out), out
    if op in functions.LOGIC:
        logic = functions.LOGIC[op]
        if case["form"] == "array-scalar":
            rc = lib.am_logic_scalar(logic, arrays[0], scalars[0], out)
            return "am_logic_scalar", rc, out
        if case["form"] == "scalar-array":
            rc = lib.am_logic_scalar_left(logic, scalars[0], arrays[0], out)
            return "am_logic_scalar_left", rc, out
        return "am_logic", lib.am_logic(logic, arrays[0], arrays[1], out), out
    if op in null_handling.OPS:  # null handling
        return null_handling.call(case, arrays, scalars, out)
    if op in rounding.OPS:
        return rounding.call(case, arrays, scalars, out)
    if op in quantile_cases.OPS:  # quantiles
        return quantile_cases.call(case, arrays, scalars, out)
    if op in cumulative.OPS:
        return cumulative.call(case, arrays, scalars, out)
    if op in sort_cases.OPS:
        return sort_cases.call(case, arrays, scalars, out)
    if op in groupby_cases.OPS:  # several results: a tuple of handles
        return groupby_cases.call(case, arrays, scalars, out)
    if op in join_cases.OPS:
        return join_cases.call(case, arrays, scalars, out)
    if op in rank_cases.OPS:
        return rank_cases.call(case, arrays, scalars, out)
    if op in temporal_cases.OPS:
        return temporal_cases.call(case, arrays, scalars, out)
    if op in timezone_cases.OPS:
        return timezone_cases.call(case, arrays, scalars, out)
    if op in string_cases.FUNCTIONS:
        return string_cases.call(case, arrays, scalars, out)
    raise AssertionError("unknown op " + op)


# ---- comparisons --------------------------------------------------------------------------


def show(t, v):
    return cf.encode_value(t, v)


def check_scalar(case, out, exp=None):
    if "fields" in case["expected"] and exp is None:
        for k, (name, field) in enumerate(case["expected"]["fields"].items()):
            try:
                check_scalar(case, out[k], field)
            except AssertionError as e:
                raise AssertionError(f"field {name!r}: {e}") from None
        return
    exp = exp or case["expected"]
    t, got = amabi.scalar_value(out)
    assert t == exp["type"], "result type {}, expected {}".format(t, exp["type"])
    want = cf.decode_value(t, exp["value"])
    tol = case.get("tolerance")
    if tol and want is not None and got is not None and math.isfinite(want):
        bound = tol["abs"] + tol["rel"] * abs(want)
        assert abs(got - want) <= bound, "got {!r}, expected {!r} within {:g} ({})".format(
            got,
            want,
            bound,
            case.get("divergence"),
        )
        return
    zero_sign = case.get("divergence") != "zero-sign"
    assert cf.same_value(t, got, want, zero_sign=zero_sign), (
        f"got {show(t, got)}, expected {show(t, want)}"
    )


def check_values(t, got, want, ulps=0):
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if not cf.same_value(t, g, w, ulps=ulps)]
    if bad:
        shown = ", ".join(f"[{i}] got {show(t, got[i])} want {show(t, want[i])}" for i in bad[:6])
        raise AssertionError(f"{len(bad)} of {len(want)} values differ: {shown}")


def check_within(t, got, want, tol):
    """Float values within the case's {"rel", "abs"} (slot by slot: abs + rel * |want|);
    NaN, infinities and nulls exactly."""
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if g is None or w is None or not math.isfinite(w) or not math.isfinite(g):
            ok = cf.same_value(t, g, w)
        else:
            ok = abs(g - w) <= tol["abs"] + tol["rel"] * abs(w)
        if not ok:
            bad.append(i)
    if bad:
        shown = ", ".join(f"[{i}] got {show(t, got[i])} want {show(t, want[i])}" for i in bad[:6])
        raise AssertionError(f"{len(bad)} of {len(want)} values differ beyond {tol}: {shown}")


def check_array(case, handle, dev):
    exp = case["expected"]
    if "check" in exp:  # a property the case states, not values (rank_cases.py)
        rank_cases.check(case, handle, dev)
        return
    t = exp["type"]
    if "values" in exp:
        want = cf.decode_values(t, exp["values"])
        n, nulls = len(want), sum(v is None for v in want)
    else:
        want = None
        n, nulls = exp["length"], exp["null_count"]
    got_type = amabi.array_type_name(handle)
    assert got_type == t, f"am_array_type {got_type}, expected {t}"
    fmt = lib.am_format(handle)
    want_fmt = cf.FORMAT[t] + exp.get("tz", "")  # a timestamp's zone ends its format
    assert fmt != ffi.NULL and ffi.string(fmt).decode() == want_fmt, "am_format"
    assert lib.am_array_device(handle) == dev, "am_array_device is not the input's device"
    assert lib.am_length(handle) == n, f"am_length {lib.am_length(handle)}, expected {n}"
    assert lib.am_null_count(handle) == nulls, (
        f"am_null_count {lib.am_null_count(handle)}, expected {nulls}"
    )
    arr = amabi.export_array(handle)
    try:
        arr.validate(full=True)
        assert cf.type_name(arr.type) == t, f"exported type {arr.type}"
        assert cf.zone_of(arr.type) == exp.get("tz"), f"exported time zone {arr.type}"
        assert len(arr) == n and arr.null_count == nulls, "exported length/null_count"
        if want is not None:
            got = cf.array_values(arr)
        else:
            sha = cf.digest_array(arr)
            got = cf.array_values(arr) if sha != exp["sha256"] else None
    finally:
        del arr
    tol = case.get("tolerance", {})
    if "rel" in tol and t in cf.FLOAT_TYPES:  # a scan's rounding (cumulative.py)
        if want is not None:
            check_within(t, got, want, tol)
            return
        if sha != exp["sha256"]:
            every = exp["sample_every"]
            check_within(t, got[::every], cf.decode_values(t, exp["sample"]), tol)
        return
    if want is not None:
        check_values(t, got, want, ulps=case.get("tolerance", {}).get("ulps", 0))
        return
    if sha != exp["sha256"] and "sample" in exp:
        # Rounding allowed (case["tolerance"]): the kept sample, within it.
        every = exp["sample_every"]
        check_values(
            t, got[::every], cf.decode_values(t, exp["sample"]), ulps=case["tolerance"]["ulps"]
        )
        return
    if sha != exp["sha256"]:
        head = cf.decode_values(t, exp["head"])
        check_values(t, got[: len(head)], head)
        raise AssertionError(
            f"sha256 of the {n} values differs (first {len(head)} agree; nulls {sum(v is None for v in got)})"
        )


def check_error(case, fname, rc, msg, out, is_scalar):
    want = case["expected"]["error"]
    got = amabi.status_name(rc)
    assert rc == amabi.STATUS_CODE[want], f"{fname} returned {got}, expected {want}: {msg}"
    assert amabi.names_function(msg, fname), (
        f"am_last_error() = {msg!r} does not start with {fname}"
    )
    if is_scalar:
        for s in out if isinstance(out, tuple) else (out,):
            assert s.type == amabi.SENTINEL_TYPE, "scalar output written on failure"
    else:
        assert out[0] == ffi.NULL, "output handle written on failure"


def run_case(case, dev):
    arrays, counters, scalars, results = [], [], [], []
    result = ffi.NULL
    try:
        for inp in case["inputs"]:
            if "scalar" in inp:
                s = inp["scalar"]
                value = cf.decode_value(s["type"], s["value"])
                scalars.append(amabi.make_scalar(s["type"], value))
                continue
            arr = cf.build_input(inp)
            handle, counter = amabi.import_array(arr, dev, inp.get("null_count") == -1)
            arrays.append(handle)
            counters.append(counter)
            del arr
        fname, rc, out = call(case, arrays, scalars)
        msg = amabi.last_error() if rc else ""
        is_scalar = case["op"] in REDUCTIONS or case["op"] == "count_distinct"
        if isinstance(out, tuple) and not is_scalar:  # two arrays
            if rc == lib.AM_OK:
                results = [o[0] for o in out]
            if "error" in case["expected"]:
                check_error(case, fname, rc, msg, out[0], False)
                assert out[1][0] == ffi.NULL, "output handle written on failure"
            else:
                assert rc == lib.AM_OK, f"{fname} returned {amabi.status_name(rc)}: {msg}"
                if "sorted_by_keys" in case["expected"]:  # group_by: rows sorted by key
                    groupby_cases.check(case, results, dev)
                if "pairs_sorted" in case["expected"]:  # join: index pairs sorted
                    join_cases.check(case, results, dev)
                for handle, (name, field) in zip(
                    results, case["expected"].get("fields", {}).items()
                ):
                    try:
                        check_array(dict(case, expected=field), handle, dev)
                    except AssertionError as e:
                        raise AssertionError(f"field {name!r}: {e}") from None
        elif not is_scalar and rc == lib.AM_OK:
            result = out[0]
        if isinstance(out, tuple) and not is_scalar:
            pass
        elif "error" in case["expected"]:
            check_error(case, fname, rc, msg, out, is_scalar)
        else:
            assert rc == lib.AM_OK, f"{fname} returned {amabi.status_name(rc)}: {msg}"
            if is_scalar:
                check_scalar(case, out)
            else:
                assert result != ffi.NULL, f"{fname} returned AM_OK and no handle"
                check_array(case, result, dev)
    finally:
        lib.am_release(result)
        for handle in results:
            lib.am_release(handle)
        for handle in arrays:
            lib.am_release(handle)
    counts = [c.count for c in counters]
    assert all(c == 1 for c in counts), f"input release callbacks ran {counts} times"


@pytest.fixture
def memory_baseline(backend):
    """Every case gives back all the memory it made (issue #15, "Memory"): bytes_in_use of
    the backend's device and of the host, from am_memory_info, must be at their values from
    before the case once its results and inputs are released. One am_memory_info call per
    device on each side; a leak is an error at the case's teardown."""
    devs = amabi.memory_devices(backend)
    baseline = amabi.memory_snapshot(devs)
    yield baseline
    leaks = amabi.memory_leaks(baseline, devs)
    assert not leaks, "memory not given back after the case: " + "; ".join(leaks)


@pytest.mark.skipif(not BACKENDS, reason="no ArrowMetal backend can run in this process")
@pytest.mark.parametrize("case,backend", list(_params()))
def test_case(case, backend, memory_baseline):
    reason = amabi.not_on_backend(case, backend)
    if reason:
        pytest.skip(reason)
    run_case(case, amabi.device(backend))
