"""Writes the conformance cases a second time, for readers with nothing but an Arrow
library: every array of every case (inputs, scalars as arrays of one slot, expected
results) in Arrow IPC files, and per case file a JSON index of ops, parameters,
expected errors and tolerances that names those arrays by file and batch.

    python conformance/write_ipc.py [--cases DIR] [--out DIR]

Reads cases/*.json.gz (what generate.py wrote from pyarrow, which calls this at its
end, and `make` before the C runner) and writes, for each case file NAME, a folder
build/conformance-ipc/NAME/: one IPC file per Arrow type (`int32.arrow`, one column
`values`, one record batch per array) and `index.json`. The same cases give the same bytes. README.md ("Arrow IPC cases") specifies
the index; test_write_ipc.py checks that the two formats agree.

Generated inputs longer than IPC_MAX_SLOTS stay generator specs in the index (the
README's splitmix64 section), their value-bearing fields (choices, pad, overrides,
null_fill) as IPC arrays: the longest inputs would make the files hundreds of MB.
"""

import argparse
import glob
import gzip
import json
import multiprocessing
import os
import re
import shutil
import sys
from collections import OrderedDict

import numpy as np
import pyarrow as pa
from pyarrow import ipc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import casefmt as cf

FORMAT = "arrowmetal-conformance-ipc/1"
# Derived from the committed JSON, so not committed itself (README.md says why).
DEFAULT_OUT = os.path.join(HERE, "..", "build", "conformance-ipc")
IPC_MAX_SLOTS = 10_000
# Uncompressed: not every Arrow library reads compressed IPC (Swift's does not), and
# buffers of a few slots do not compress.
WRITE_OPTIONS = ipc.IpcWriteOptions(compression=None)


def file_name(arrow_type):
    """IPC file of an Arrow type: its pyarrow name in lowercase letters, digits and _."""
    return re.sub(r"[^a-z0-9]+", "_", str(arrow_type).lower()).strip("_") + ".arrow"


class Batches:
    """The arrays written so far, one list per IPC file, and the reference of each."""

    def __init__(self):
        self.files = OrderedDict()

    def add(self, arr):
        """{"file": F, "batch": k}: `arr` is record batch k of IPC file F."""
        name = file_name(arr.type)
        arrays = self.files.setdefault(name, [])
        arrays.append(arr)
        return OrderedDict([("file", name), ("batch", len(arrays) - 1)])

    def add_values(self, t, values):
        """A reference to the array of decoded `values` of case type `t` (None: null)."""
        return self.add(cf.array_of(t, values) if values else _empty(t))

    def write(self, out_dir):
        for name, arrays in self.files.items():
            schema = pa.schema([pa.field("values", arrays[0].type)])
            with ipc.new_file(os.path.join(out_dir, name), schema, options=WRITE_OPTIONS) as w:
                for arr in arrays:
                    w.write_batch(pa.record_batch([arr], schema=schema))


def _empty(t):
    return pa.array([], cf.PA_TYPE[t])


def _encoded(t, values, batches):
    return batches.add_values(t, cf.decode_values(t, values))


# ---- inputs ---------------------------------------------------------------------------------


def index_input(inp, batches):
    """The index entry of an input: {"scalar": ref}; {"array": ref, "offset", "length",
    "null_count"}, the full (unsliced) array and the slice the call gets; or {"gen": ...,
    "offset", "length"} for a long generated one (its null count is the runner's to
    count as it draws it). A dictionary array's indices carry its "dictionary" (an
    input entry) and "ordered"."""
    if "scalar" in inp:
        s = inp["scalar"]
        ref = batches.add_values(s["type"], [cf.decode_value(s["type"], s["value"])])
        return OrderedDict([("type", s["type"]), ("scalar", ref)])
    out = OrderedDict([("type", inp["type"])])
    if "tz" in inp:  # a timestamp's zone: the runner adds it to the IPC array's format
        out["tz"] = inp["tz"]
    spec = inp.get("gen", {})
    if int(spec.get("offset", 0)) + int(spec.get("length", 0)) > IPC_MAX_SLOTS:
        out["gen"] = _index_gen(inp["type"], spec, batches)
        out["offset"] = int(spec.get("offset", 0))
        out["length"] = int(spec["length"])
    else:
        m = cf.materialize(inp)
        whole = cf.Materialized(m.type, m.values, m.valid, 0, len(m.values), m.null_fill)
        out["array"] = batches.add(cf.to_pyarrow(whole))
        out["offset"] = m.offset
        out["length"] = m.length
        out["null_count"] = int((~m.valid[m.offset : m.offset + m.length]).sum())
    if inp.get("null_count") == -1:
        out["unknown_null_count"] = True
    if "dictionary" in inp:  # a dictionary array: these are its indices (casefmt.dictionary_array)
        out["dictionary"] = index_input(inp["dictionary"], batches)
        if "ordered" in inp:
            out["ordered"] = inp["ordered"]
    return out


def _index_gen(t, spec, batches):
    """A generator spec whose values (in the JSON codec) become IPC arrays of type t."""
    out = OrderedDict()
    for key, value in spec.items():
        if key in ("choices", "pad"):
            out[key] = _encoded(t, value, batches)
        elif key == "overrides":
            out[key] = OrderedDict(
                [
                    ("at", [j for j, _ in value]),
                    ("values", _encoded(t, [v for _, v in value], batches)),
                ]
            )
        elif key == "null_fill":
            out[key] = _encoded(t, [value], batches)
        else:
            out[key] = value
    return out


# ---- expected results -------------------------------------------------------------------------


def index_expected(exp, batches, input_type=None):
    """The index entry of an expectation: errors, hashes and counts as they are, every
    value list as an IPC array (`input_type`: the type of the case's first input)."""
    if "fields" in exp:
        fields = OrderedDict((k, index_expected(v, batches)) for k, v in exp["fields"].items())
        return OrderedDict([("fields", fields)])
    if "columns" in exp:  # group_by: the rows, one array per column
        return _index_groups(exp, batches)
    if "pairs_sorted" in exp:  # join: the sorted pairs, one array per side
        return _index_pairs(exp, batches)
    out = OrderedDict()
    for key, value in exp.items():
        if key == "value":
            out["scalar"] = _encoded(exp["type"], [value], batches)
        elif key in ("values", "head", "sample"):
            out["array" if key == "values" else key] = _encoded(exp["type"], value, batches)
        elif key == "key_values":  # rank: the keys' values at the result's indices
            out[key] = [
                OrderedDict(
                    [("type", kv["type"]), ("array", _encoded(kv["type"], kv["values"], batches))]
                )
                for kv in value
            ]
        elif key == "pivot_value":  # partition_nth_indices: of the input's type
            out[key] = _encoded(input_type, [value], batches)
        else:
            out[key] = value
    return out


def _index_groups(exp, batches):
    columns = []
    for i, c in enumerate(exp["columns"]):
        col = OrderedDict([("name", c["name"]), ("kind", c["kind"]), ("type", c["type"])])
        cells = [row[i] for row in exp["rows"]]
        if c["kind"] == "plain":
            col["array"] = _encoded(c["type"], cells, batches)
        elif c["kind"] == "struct":  # min_max: the minima, then the maxima
            col["arrays"] = [
                _encoded(c["type"], [cell[j] for cell in cells], batches) for j in (0, 1)
            ]
        else:  # list and distinct: a list array, one list a group
            # the items as cf.array_of builds them (float16 from its bits, decimals
            # from their unscaled integers), then cut into one list a group
            items = [v for cell in cells for v in cf.decode_values(c["type"], cell)]
            offsets = np.cumsum([0] + [len(cell) for cell in cells], dtype=np.int32)
            lists = pa.ListArray.from_arrays(pa.array(offsets), cf.array_of(c["type"], items))
            col["array"] = batches.add(lists)
        if "dictionary" in c:  # the cells are indices into this dictionary
            d = c["dictionary"]
            col["dictionary"] = OrderedDict(
                [("type", d["type"]), ("array", _encoded(d["type"], d["values"], batches))]
            )
        columns.append(col)
    return OrderedDict(
        [
            ("sorted_by_keys", exp["sorted_by_keys"]),
            ("groups", len(exp["rows"])),
            ("columns", columns),
        ]
    )


def _index_pairs(exp, batches):
    out = OrderedDict((k, exp[k]) for k in ("pairs_sorted", "sides", "count", "sha256") if k in exp)
    if "pairs" in exp:
        out["pairs"] = [
            batches.add(pa.array([p[j] for p in exp["pairs"]], pa.int64()))
            for j in range(len(exp["sides"]))
        ]
    return out


# ---- cases and files ------------------------------------------------------------------------


def index_case(case, batches):
    """The index entry of a case: the JSON case with every value list an IPC reference."""
    out = OrderedDict()
    for key, value in case.items():
        if key == "inputs":
            out[key] = [index_input(inp, batches) for inp in value]
        elif key == "expected":
            first = case["inputs"][0] if case["inputs"] else {}
            out[key] = index_expected(value, batches, first.get("type"))
        else:
            out[key] = value
    return out


def write_family(path, out_dir):
    """One case file (cases/NAME.json.gz) -> out_dir/NAME/index.json and its IPC files."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    batches = Batches()
    cases = [index_case(case, batches) for case in doc["cases"]]
    family_dir = os.path.join(out_dir, os.path.basename(path)[: -len(".json.gz")])
    os.makedirs(family_dir, exist_ok=True)
    for name in os.listdir(family_dir):
        if name.endswith((".arrow", ".json")):
            os.remove(os.path.join(family_dir, name))
    batches.write(family_dir)
    source = os.path.basename(path)
    lines = [f'{{"format": "{FORMAT}", "source": "{source}", "cases": [']
    for k, case in enumerate(cases):
        sep = "," if k + 1 < len(cases) else ""
        lines.append(json.dumps(case, separators=(",", ":"), allow_nan=False) + sep)
    lines.append("]}\n")
    with open(os.path.join(family_dir, "index.json"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return len(cases), sum(len(a) for a in batches.files.values())


def write(cases_dir, out_dir, jobs=None):
    """Every cases_dir/*.json.gz, one family a process."""
    paths = sorted(glob.glob(os.path.join(cases_dir, "*.json.gz")))
    families = {os.path.basename(p)[: -len(".json.gz")] for p in paths}
    for stale in glob.glob(os.path.join(out_dir, "*", "index.json")):  # a family since removed
        if os.path.basename(os.path.dirname(stale)) not in families:
            shutil.rmtree(os.path.dirname(stale))
    with multiprocessing.Pool(jobs) as pool:
        counts = pool.starmap(write_family, [(p, out_dir) for p in paths])
    cases, arrays = (sum(c[i] for c in counts) for i in (0, 1))
    print(f"ipc: {cases} cases, {arrays} arrays, {len(paths)} families in {out_dir}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=os.path.join(HERE, "cases"))
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    write(args.cases, args.out)


if __name__ == "__main__":
    main()
