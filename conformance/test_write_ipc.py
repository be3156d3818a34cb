"""The Arrow IPC cases (write_ipc.py) agree with the JSON cases: every index entry, its
IPC arrays decoded back into the JSON codec, gives the JSON case it was written from,
and every array input's IPC array holds the same buffers as the array the Python runner
builds (casefmt.to_pyarrow), values under null slots included."""

import glob
import gzip
import json
import os

import casefmt as cf
import pyarrow as pa
import pytest
import write_ipc
from pyarrow import ipc

HERE = os.path.dirname(os.path.abspath(__file__))
CASE_FILES = sorted(glob.glob(os.path.join(HERE, "cases", "*.json.gz")))


def _family_dir(path, tmp_path):
    """The family's IPC folder that `make` wrote, when it is newer than the case file and
    the writer; else one written here."""
    family = os.path.basename(path)[: -len(".json.gz")]
    built = os.path.join(write_ipc.DEFAULT_OUT, family)
    index = os.path.join(built, "index.json")
    sources = max(os.path.getmtime(p) for p in (path, write_ipc.__file__, cf.__file__))
    if os.path.exists(index) and os.path.getmtime(index) > sources:
        return built
    write_ipc.write_family(path, str(tmp_path))
    return os.path.join(str(tmp_path), family)


class Reader:
    """Arrays by reference ({"file", "batch"}) from one family's IPC files."""

    def __init__(self, directory):
        self.directory = directory
        self.files = {}

    def array(self, ref):
        name = ref["file"]
        if name not in self.files:
            self.files[name] = ipc.open_file(os.path.join(self.directory, name))
        batch = self.files[name].get_batch(ref["batch"])
        assert batch.schema.names == ["values"], batch.schema
        return batch.column(0)

    def values(self, t, ref):
        return cf.encode_values(t, cf.array_values(self.array(ref)))


def _same_values(t, got, want):
    """Decoded values of type t, bit for bit (a generator spec's values may be written
    in other words than the codec's own: 0.800000011920929 for float32 0.8)."""
    got, want = cf.decode_values(t, got), cf.decode_values(t, want)
    return len(got) == len(want) and all(cf.same_value(t, g, w) for g, w in zip(got, want))


def _check_gen(t, entry, spec, reader):
    assert set(entry) == set(spec)
    for key, value in entry.items():
        if key in ("choices", "pad"):
            assert _same_values(t, reader.values(t, value), spec[key]), key
        elif key == "overrides":
            assert value["at"] == [j for j, _ in spec[key]], key
            assert _same_values(t, reader.values(t, value["values"]), [v for _, v in spec[key]])
        elif key == "null_fill":
            assert _same_values(t, reader.values(t, value), [spec[key]]), key
        else:
            assert value == spec[key], key


def _check_input(inp, entry, reader):
    if "scalar" in inp:
        s = inp["scalar"]
        assert entry["type"] == s["type"]
        assert reader.values(s["type"], entry["scalar"]) == [s["value"]]
        return
    t = inp["type"]
    assert entry["type"] == t
    assert entry.get("tz") == inp.get("tz"), "tz"
    assert entry.get("unknown_null_count", False) == (inp.get("null_count") == -1)
    assert ("dictionary" in entry) == ("dictionary" in inp), "dictionary"
    assert entry.get("ordered") == inp.get("ordered"), "ordered"
    if "dictionary" in inp:
        _check_input(inp["dictionary"], entry["dictionary"], reader)
    if "gen" in entry:
        assert "gen" in inp
        _check_gen(t, entry["gen"], inp["gen"], reader)
        assert (entry["offset"], entry["length"]) == (inp["gen"]["offset"], inp["gen"]["length"])
        return
    m = cf.materialize(inp)
    assert (entry["offset"], entry["length"]) == (m.offset, m.length)
    assert entry["null_count"] == int((~m.valid[m.offset : m.offset + m.length]).sum())
    got = reader.array(entry["array"])
    want = cf.to_pyarrow(cf.Materialized(t, m.values, m.valid, 0, len(m.values), m.null_fill))
    assert got.type == want.type and len(got) == len(want)
    if t in cf.BYTES_TYPES:
        assert got.equals(want)
    else:  # bit for bit (NaN and -0.0; the values under nulls, null_fill, too)
        for mine, theirs in zip(got.buffers(), want.buffers()):
            assert (mine is None) == (theirs is None), "validity bitmap"
            if theirs is not None:
                assert mine.to_pybytes()[: theirs.size] == theirs.to_pybytes()


def _expected(entry, reader, input_type):
    """The JSON expectation an index expectation was written from."""
    if "fields" in entry:
        fields = {k: _expected(v, reader, input_type) for k, v in entry["fields"].items()}
        return {"fields": fields}
    if "columns" in entry:
        return _groups(entry, reader)
    if "pairs_sorted" in entry:
        out = {k: entry[k] for k in ("pairs_sorted", "sides", "count", "sha256") if k in entry}
        if "pairs" in entry:
            cols = [reader.array(ref).to_pylist() for ref in entry["pairs"]]
            out["pairs"] = [list(p) for p in zip(*cols)]
        return out
    out = {}
    for key, value in entry.items():
        if key == "scalar":
            out["value"] = reader.values(entry["type"], value)[0]
        elif key in ("array", "head", "sample"):
            out["values" if key == "array" else key] = reader.values(entry["type"], value)
        elif key == "key_values":
            out[key] = [{"type": kv["type"], "values": reader.values(kv["type"], kv["array"])}
                        for kv in value]  # fmt: skip
        elif key == "pivot_value":
            out[key] = reader.values(input_type, value)[0]
        else:
            out[key] = value
    return out


def _groups(entry, reader):
    columns, cells = [], []
    for c in entry["columns"]:
        columns.append({k: c[k] for k in ("name", "type", "kind")})
        if "dictionary" in c:  # the cells are indices into it
            d = c["dictionary"]
            columns[-1]["dictionary"] = {"type": d["type"],
                                         "values": reader.values(d["type"], d["array"])}  # fmt: skip
        t = c["type"]
        if c["kind"] == "plain":
            cells.append(reader.values(t, c["array"]))
        elif c["kind"] == "struct":
            lo, hi = (reader.values(t, ref) for ref in c["arrays"])
            cells.append([[a, b] for a, b in zip(lo, hi)])
        else:
            lists = reader.array(c["array"])
            assert lists.null_count == 0
            # the items as the suite codes them (float16 as its bits)
            items, off = cf.array_values(lists.values), lists.offsets.to_pylist()
            cells.append([cf.encode_values(t, items[off[g] : off[g + 1]])
                          for g in range(len(lists))])  # fmt: skip
        assert len(cells[-1]) == entry["groups"]
    rows = [list(r) for r in zip(*cells)]
    return {"columns": columns, "rows": rows, "sorted_by_keys": entry["sorted_by_keys"]}


def _without_order(d):
    return json.loads(json.dumps(d, sort_keys=True))


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: os.path.basename(p))
def test_ipc_agrees_with_json(path, tmp_path):
    directory = _family_dir(path, tmp_path)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    with open(os.path.join(directory, "index.json"), encoding="utf-8") as f:
        index = json.load(f)
    assert index["format"] == write_ipc.FORMAT and index["source"] == os.path.basename(path)
    assert [c["id"] for c in index["cases"]] == [c["id"] for c in cases]
    reader = Reader(directory)
    for case, entry in zip(cases, index["cases"]):
        try:
            assert set(entry) == set(case)
            for key in set(case) - {"inputs", "expected"}:
                assert entry[key] == case[key], key
            assert len(entry["inputs"]) == len(case["inputs"])
            for inp, e in zip(case["inputs"], entry["inputs"]):
                _check_input(inp, e, reader)
            first = case["inputs"][0].get("type") if case["inputs"] else None
            got = _expected(entry["expected"], reader, first)
            assert _without_order(got) == _without_order(case["expected"]), "expected"
        except AssertionError as e:
            raise AssertionError(f"{case['id']}: {e}") from None


def test_a_changed_value_is_caught(tmp_path):
    """The comparison can fail: one expected value changed in an IPC file is found."""
    path = os.path.join(HERE, "cases", "select.json.gz")
    write_ipc.write_family(path, str(tmp_path))
    directory = os.path.join(str(tmp_path), "select")
    with open(os.path.join(directory, "index.json"), encoding="utf-8") as f:
        entries = [c for c in json.load(f)["cases"] if c["expected"].get("array")]
    arrays = Reader(directory)
    entry = next(c for c in entries if arrays.array(c["expected"]["array"]).null_count < 3)
    ref = entry["expected"]["array"]
    name = os.path.join(directory, ref["file"])
    reader = ipc.open_file(name)
    batches = [reader.get_batch(k) for k in range(reader.num_record_batches)]
    arr = batches[ref["batch"]].column(0)
    changed = pa.array([None] * (len(arr) + 1), arr.type)
    batches[ref["batch"]] = pa.record_batch([changed], names=["values"])
    with ipc.new_file(name, batches[0].schema) as w:
        for b in batches:
            w.write_batch(b)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        case = next(c for c in json.load(f)["cases"] if c["id"] == entry["id"])
    got = _expected(entry["expected"], Reader(directory), None)
    assert _without_order(got) != _without_order(case["expected"])
