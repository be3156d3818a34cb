"""The C runner fails where it must: one family's IPC cases, written afresh, with cases
broken, run by the runner that `make` builds; exactly the broken IDs fail and the rest
pass. The select family: four cases broken in four ways (an expected array swapped for
another, a hashed result's digest, an expected error, a generated input's seed), and
three cases it cannot run (a type it does not read, an op it has no call for, a cast
target it does not read) skipped with their reasons. The dictionary family: a result's
expected ordered flag, either way, an input's ordered flag (which am_concat must see),
and the error of indices posing as integers (which am_import must refuse by their
format). The decimal family: an expected decimal128 and decimal256 array (take, filter,
drop_null) swapped for another of the same file, length and null count, a sum's
expected scalar for another of its type, a cast's target precision (which
am_cast_decimal must be given). The timezone family: a result's expected zone, an
input's zone replaced and one dropped (am_import must be given them), and a refusal's
"raise" turned into "latest"."""

import json
import os
import subprocess
import sys

import pytest
from pyarrow import ipc

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
RUNNER = os.path.join(ROOT, "build", "conformance-c", "conformance_runner")
sys.path.insert(0, os.path.dirname(HERE))

import write_ipc


def _break_cases(cases, directory):
    """Breaks four cases of the select family in place; returns their IDs."""
    files = {}

    def expected(case):
        ref = case["expected"]["array"]
        if ref["file"] not in files:
            files[ref["file"]] = ipc.open_file(os.path.join(directory, ref["file"]))
        return files[ref["file"]].get_batch(ref["batch"]).column(0)

    arrays = [c for c in cases if c["expected"].get("array") and c["op"] == "take"]
    a = next(c for c in arrays if len(expected(c)) > 3 and expected(c).null_count == 0)
    b = next(c for c in arrays if c["expected"]["array"]["file"] == a["expected"]["array"]["file"]
             and not expected(c).equals(expected(a)))  # fmt: skip
    a["expected"]["array"] = dict(b["expected"]["array"])
    broken = [a["id"]]
    hashed = next(c for c in cases if "sha256" in c["expected"])
    hashed["expected"]["sha256"] = "0" * 64
    broken.append(hashed["id"])
    error = next(c for c in cases if c["expected"].get("error") == "AM_EINDEX")
    error["expected"]["error"] = "AM_EINVAL"
    broken.append(error["id"])
    drawn = next(  # values drawn without nulls: a new seed gives other values
        c
        for c in cases
        if c["id"] not in broken
        and "sha256" in c["expected"]
        and c["inputs"][0].get("gen", {}).get("null_permille", 1) == 0
    )
    gen = drawn["inputs"][0]["gen"]
    gen["seed"] = int(gen["seed"]) ^ 1
    broken.append(drawn["id"])
    return broken


def _run(tmp_path, family, break_cases):
    """Writes `family`'s IPC cases, breaks them (break_cases(cases, directory) -> IDs),
    runs the runner; returns (its completed process, the failed IDs, the broken IDs,
    the cases)."""
    write_ipc.write_family(
        os.path.join(ROOT, "conformance", "cases", family + ".json.gz"), str(tmp_path)
    )
    index = tmp_path / family / "index.json"
    doc = json.loads(index.read_text())
    broken = break_cases(doc["cases"], str(tmp_path / family))
    index.write_text(json.dumps(doc))
    ran = subprocess.run(
        [RUNNER, "--backend", "cpu", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    failed = [
        line.split("failed: cpu:", 1)[1]
        for line in ran.stdout.splitlines()
        if "failed: cpu:" in line
    ]
    assert sorted(failed) == sorted(broken), ran.stderr
    return ran, doc["cases"]


@pytest.mark.skipif(not os.path.exists(RUNNER), reason="the C runner is not built (make)")
def test_runner_reports_broken_cases(tmp_path):
    def break_and_unread(cases, directory):
        broken = _break_cases(cases, directory)
        unread = [c for c in cases if c["id"] not in broken][:3]
        unread[0]["inputs"][0]["type"] = "month_day_nano_interval"
        unread[1]["op"] = "no_such_op"
        unread[2]["params"]["to"] = "decimal32(5, 2)"  # a cast's target counts too
        return broken

    ran, cases = _run(tmp_path, "select", break_and_unread)
    assert f": {len(cases) - 7} passed, 4 failed, 3 skipped" in ran.stdout, ran.stdout
    for reason in [
        "type month_day_nano_interval is not read by the C runner yet",
        "no C call for op no_such_op yet",
        "type decimal32(5, 2) is not read by the C runner yet",
    ]:
        assert f"skipped: 1, {reason}" in ran.stdout, ran.stdout


def _break_dictionary_cases(cases, directory):
    """Breaks four dictionary cases in place; returns their IDs."""

    def expects_dictionary(c):
        return "dictionary" in c["expected"].get("fields", {})

    ordered = next(c for c in cases if c["expected"].get("fields", {}).get("dictionary", {})
                   .get("ordered"))  # fmt: skip
    del ordered["expected"]["fields"]["dictionary"]["ordered"]
    unordered = next(c for c in cases if expects_dictionary(c) and c["op"] == "unique"
                     and not c["expected"]["fields"]["dictionary"].get("ordered"))  # fmt: skip
    unordered["expected"]["fields"]["dictionary"]["ordered"] = True
    concat = next(c for c in cases if c["op"] == "concat" and expects_dictionary(c)
                  and not any(i.get("ordered") for i in c["inputs"]))  # fmt: skip
    concat["inputs"][0]["ordered"] = True
    posing = next(
        c for c in cases if c["id"] == "dictionary_from_arrays/bool/array-array/type-error"
    )
    posing["expected"]["error"] = "AM_EINDEX"
    return [ordered["id"], unordered["id"], concat["id"], posing["id"]]


@pytest.mark.skipif(not os.path.exists(RUNNER), reason="the C runner is not built (make)")
def test_runner_reports_broken_dictionary_cases(tmp_path):
    ran, cases = _run(tmp_path, "dictionary", _break_dictionary_cases)
    assert f": {len(cases) - 4} passed, 4 failed, 0 skipped" in ran.stdout, ran.stdout


def _break_decimal_cases(cases, directory):
    """Breaks four decimal cases in place; returns their IDs."""
    files = {}

    def read(ref):
        if ref["file"] not in files:
            files[ref["file"]] = ipc.open_file(os.path.join(directory, ref["file"]))
        return files[ref["file"]].get_batch(ref["batch"]).column(0)

    broken = []
    for width in ("decimal128", "decimal256"):
        arrays = [c for c in cases if c["op"] in ("take", "filter", "drop_null")
                  and c["expected"].get("array")
                  and c["expected"]["type"].startswith(width)]  # fmt: skip
        a, b = next(
            (a, b)
            for a in arrays
            for b in arrays
            if a["expected"]["array"]["file"] == b["expected"]["array"]["file"]
            and len(read(a["expected"]["array"])) == len(read(b["expected"]["array"])) > 0
            and read(a["expected"]["array"]).null_count == read(b["expected"]["array"]).null_count
            and not read(a["expected"]["array"]).equals(read(b["expected"]["array"]))
        )
        a["expected"]["array"] = dict(b["expected"]["array"])
        broken.append(a["id"])
    sums = [c for c in cases if c["op"] == "sum" and "scalar" in c["expected"]]
    s, t = next(
        (s, t)
        for s in sums
        for t in sums
        if s["expected"]["type"] == t["expected"]["type"]
        and None not in read(s["expected"]["scalar"]).to_pylist()
        and read(s["expected"]["scalar"]) != read(t["expected"]["scalar"])
    )
    s["expected"]["scalar"] = dict(t["expected"]["scalar"])
    broken.append(s["id"])
    cast = next(c for c in cases if c["op"] == "cast" and c["params"]["to"] == "decimal128(38, 10)"
                and c["expected"].get("type") == "decimal128(38, 10)")  # fmt: skip
    cast["params"]["to"] = "decimal128(37, 10)"
    broken.append(cast["id"])
    return broken


@pytest.mark.skipif(not os.path.exists(RUNNER), reason="the C runner is not built (make)")
def test_runner_reports_broken_decimal_cases(tmp_path):
    ran, cases = _run(tmp_path, "decimal", _break_decimal_cases)
    assert f": {len(cases) - 4} passed, 4 failed, 0 skipped" in ran.stdout, ran.stdout


def _break_timezone_cases(cases, directory):
    """Breaks four time zone cases in place; returns their IDs."""
    by_id = {c["id"]: c for c in cases}
    assumed = by_id["assume_timezone/timestamp[s]/unary/Asia/Kolkata/earliest,latest/transitions"]
    assumed["expected"]["tz"] = "UTC"
    replaced = by_id["hour/timestamp[ms]/unary/tz=America/New_York/transitions"]
    replaced["inputs"][0]["tz"] = "Asia/Kolkata"
    dropped = by_id["day/timestamp[s]/unary/tz=Pacific/Chatham/transitions"]
    del dropped["inputs"][0]["tz"]
    refused = next(c for c in cases if c["op"] == "assume_timezone" and "/raise/wall" in c["id"]
                   and c["expected"].get("error") and "America/New_York" in c["id"])  # fmt: skip
    refused["params"]["ambiguous"] = refused["params"]["nonexistent"] = "latest"
    return [assumed["id"], replaced["id"], dropped["id"], refused["id"]]


@pytest.mark.skipif(not os.path.exists(RUNNER), reason="the C runner is not built (make)")
def test_runner_reports_broken_timezone_cases(tmp_path):
    ran, cases = _run(tmp_path, "timezone", _break_timezone_cases)
    assert f": {len(cases) - 4} passed, 4 failed, 0 skipped" in ran.stdout, ran.stdout
