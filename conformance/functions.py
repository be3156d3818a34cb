"""The library's own list of functions (am_function_count / am_function_info_get), for
the generator and the runners: a function of a table-driven family (am_unary, and
am_logic's) gets its cases and its runner call from this list, so a new one needs no
change here."""

import os
import sys

import casefmt as cf

try:
    from arrowmetal._capi import ffi, lib
except ImportError:  # run from the source tree (generate.py): the package beside it
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    from arrowmetal._capi import ffi, lib

KIND = {"bool": 0, "signed": 1, "unsigned": 2, "float": 3}


def kind_of(t):
    if t == "bool":
        return KIND["bool"]
    if t in cf.FLOAT_TYPES:
        return KIND["float"]
    return KIND["unsigned"] if t in cf.UNSIGNED_TYPES else KIND["signed"]


def _rows():
    info = ffi.new("am_function_info *")
    rows = []
    for i in range(lib.am_function_count()):
        if lib.am_function_info_get(i, info) != lib.AM_OK:
            raise RuntimeError(ffi.string(lib.am_last_error()).decode())
        rows.append(
            {
                "name": ffi.string(info.name).decode(),
                "entry": ffi.string(info.entry).decode(),
                "family": info.family,
                "op": info.op,
                "arity": info.arity,
                "kinds": info.kinds,
                "type_rule": info.type_rule,
            }
        )
    return rows


ROWS = _rows()

# name -> am_unary_op / am_binary_op value, in the library's order.
UNARY = {r["name"]: r["op"] for r in ROWS if r["family"] == lib.AM_FAMILY_UNARY}
BINARY = {r["name"]: r["op"] for r in ROWS if r["family"] == lib.AM_FAMILY_BINARY}
# name -> am_logic_op value of the boolean functions called through am_logic (and_kleene,
# xor, ...; "and", "or" and "invert" have cases of their own, through am_and, am_or,
# am_not).
LOGIC = {
    r["name"]: r["op"]
    for r in ROWS
    if r["family"] == lib.AM_FAMILY_LOGIC and r["entry"] == "am_logic"
}
# name -> am_aggregate_op value of the aggregates with options (am_aggregate, am_min_max,
# am_first_last, am_index).
AGGREGATE = {r["name"]: r["op"] for r in ROWS if r["family"] == lib.AM_FAMILY_AGGREGATE}
_KINDS = {r["name"]: r["kinds"] for r in ROWS}


def accepts(name, t):
    """Whether function `name` takes elements of type `t`."""
    return bool(_KINDS[name] & (1 << kind_of(t)))


_RULES = {r["name"]: r["type_rule"] for r in ROWS}


def is_math(name):
    """Whether `name` is a function of floats (integers are computed as float64)."""
    return _RULES[name] == lib.AM_RULE_MATH


def is_checked(name):
    """Whether `name` is a checked variant (refuses values rather than wrapping)."""
    return name.endswith("_checked")


# Null handling: name -> am_predicate value of am_is.
PREDICATE = {r["name"]: r["op"] for r in ROWS if r["family"] == lib.AM_FAMILY_PREDICATE}
