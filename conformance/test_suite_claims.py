"""Checks the claims of README.md against the case files: unique ids, the op x type
matrix, the coverage of lengths, null patterns and offsets, the counts. (The library is
read only for its list of functions.)"""

import collections
import os
import re

import casefmt as cf
import cumulative
import dictionary_cases
import functions
import groupby_cases
import hash_cases
import join_cases
import null_handling
import quantile_cases
import rank_cases
import rounding
import sort_cases
import split_cases
import string_cases
import temporal_cases
import timezone_cases

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = cf.load_cases(HERE)
OPS = ["sum", "min", "max", "mean", "count", "compare", "arith", "cast"]
OPS += ["and", "or", "not"] + list(functions.LOGIC) + list(functions.UNARY)
OPS += list(functions.BINARY)
OPS += ["filter", "take", "slice"]
OPS += list(functions.AGGREGATE)
OPS += null_handling.OPS  # null handling
OPS += hash_cases.OPS  # hash-based functions
OPS += rounding.OPS
OPS += quantile_cases.OPS  # quantiles
OPS += cumulative.OPS
OPS += sort_cases.OPS
OPS += rank_cases.OPS
OPS += groupby_cases.OPS
OPS += join_cases.OPS
OPS += temporal_cases.OPS
OPS += timezone_cases.OPS  # time zones (issue #13)
OPS += string_cases.FUNCTIONS  # string functions (issue #13)
OPS += split_cases.OPS  # splitting (issue #13)
OPS += dictionary_cases.OPS  # dictionary arrays (issue #13)
LENGTHS = [0, 1, 7, 63, 64, 65, 1000, 100003]
OFFSETS = [0, 1, 7, 63]


def test_ids_unique_and_ops_known():
    ids = collections.Counter(c["id"] for c in CASES)
    assert not [i for i, k in ids.items() if k > 1]
    assert {c["op"] for c in CASES} == set(OPS)
    assert len(CASES) >= 3000


def null_pattern(inp):
    if "values" in inp:
        vals = inp["values"][inp.get("offset", 0) :]
        nulls = sum(v is None for v in vals)
        n = len(vals)
    else:
        g = inp["gen"]
        n = g["length"]
        nulls = {0: 0, 1000: n}.get(g.get("null_permille", 0), 1)
        nulls = 0 if n == 0 else nulls
    if n == 0 or nulls == 0:
        return "no-nulls"
    return "all-nulls" if nulls == n else "some-nulls"


def subject(case):
    # the first array input (the second input of form scalar-array)
    inp = next(i for i in case["inputs"] if "scalar" not in i)
    if case["op"] in null_handling.OPS:  # null handling: not always the first
        inp = null_handling.subject_input(case)
    off = inp["gen"].get("offset", 0) if "gen" in inp else inp.get("offset", 0)
    n = inp["gen"]["length"] if "gen" in inp else len(inp["values"]) - off
    return inp["type"], n, null_pattern(inp), off


def observed_matrix():
    ok = collections.defaultdict(list)
    errors = collections.defaultdict(set)
    for case in CASES:
        t, n, nulls, off = subject(case)
        if "error" in case["expected"]:
            errors[case["op"], t].add(case["expected"]["error"])
        else:
            ok[case["op"], t].append((n, nulls, off))
    return ok, errors


def readme_block(name):
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(rf"<!-- {name}:begin -->\n(.*?)<!-- {name}:end -->", text, re.DOTALL)
    assert m, f"README.md has no {name} block"
    rows = []
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 1 and not set(cells[0]) <= set("-:"):
            rows.append(cells)
    return rows


def test_readme_matrix_and_coverage():
    """README.md's op x type matrix matches the cases, and every supported op x type meets
    every length, null pattern and offset at least once."""
    rows = readme_block("matrix")
    header, body = rows[0], rows[1:]
    assert header[1:] == cf.TYPES
    assert [r[0] for r in body] == OPS
    ok, errors = observed_matrix()
    gaps = []
    for row in body:
        op = row[0]
        for t, cell in zip(cf.TYPES, row[1:]):
            if cell == "yes":
                seen = ok.get((op, t), [])
                for what, want in (
                    ("length", LENGTHS),
                    ("nulls", ["no-nulls", "some-nulls", "all-nulls"]),
                    ("offset", OFFSETS),
                ):
                    k = ("length", "nulls", "offset").index(what)
                    missing = sorted(set(want) - {s[k] for s in seen}, key=str)
                    if missing:
                        gaps.append(f"{op} x {t}: no {what} {missing}")
            else:
                assert (op, t) not in ok, f"{op} x {t} succeeds in the cases"
                assert cell in errors.get((op, t), set()), f"{op} x {t}: no {cell} case"
    assert not gaps, "\n".join(gaps)


def test_readme_counts():
    rows = readme_block("counts")
    per_op = collections.Counter(c["op"] for c in CASES)
    claimed = {r[0]: int(r[1]) for r in rows[1:]}
    want = dict(per_op)
    want["total"] = len(CASES)
    assert claimed == want, "README.md case counts are stale: run conformance/generate.py"
