"""The generated-input rules of README.md, re-implemented from its text in plain Python (no
numpy), must agree with casefmt.py, which the generator and the runners use."""

import json
import math
import struct

import casefmt as cf
import pytest

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def output(seed, j):
    z = (seed + (j + 1) * GAMMA) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


WIDTH = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
WIDTH.update({"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64})


def to_f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def decode(t, j):
    if j is None or t == "bool":
        return j
    if "int" in t:
        return int(j)
    v = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0.0": -0.0}.get(j, j)
    return to_f32(float(v)) if t == "float32" else float(v)


def value(t, spec, u):
    kind = spec.get("kind", "uniform")
    if kind == "choice":
        return decode(t, spec["choices"][u % len(spec["choices"])])
    if t == "bool":
        v = (u % 1000) < spec.get("true_permille", 500)
    elif "int" in t:
        if "lo" in spec:
            lo, hi = int(spec["lo"]), int(spec["hi"])
            v = lo + (u % (hi - lo + 1))
        else:
            b = WIDTH[t]
            v = u & ((1 << b) - 1)
            if not t.startswith("u") and v >= 1 << (b - 1):
                v -= 1 << b
    elif spec.get("integral"):
        lo, hi = int(spec["lo"]), int(spec["hi"])
        v = float(lo + (u % (hi - lo + 1)))
    else:
        lo, hi = float(spec.get("lo", -1000.0)), float(spec.get("hi", 1000.0))
        f = (u >> 11) * 2.0**-53
        d = hi - lo
        p = f * d
        v = lo + p
        if t == "float32":
            v = to_f32(v)
    if spec.get("exclude_zero") and v == 0:
        v = True if t == "bool" else 1 if "int" in t else 1.0
    return v


def slots(t, spec):
    """(value, valid) of every slot, padding included; null slots hold null_fill."""
    offset, length = spec.get("offset", 0), spec["length"]
    out = []
    for i in range(offset + length):
        u, w = output(spec["seed"], 2 * i), output(spec["seed"], 2 * i + 1)
        valid = w % 1000 >= spec.get("null_permille", 0)
        out.append([value(t, spec, u), valid])
    for i, v in enumerate(spec.get("pad", [])):
        out[i] = [decode(t, v), True] if v is not None else [out[i][0], False]
    for j, v in spec.get("overrides", []):
        k = offset + j
        out[k] = [decode(t, v), True] if v is not None else [out[k][0], False]
    zero = {"bool": False}.get(t, 0 if "int" in t else 0.0)
    fill = decode(t, spec.get("null_fill", zero))
    return [(v if ok else fill, ok) for v, ok in out]


def bits(t, v):
    if t in ("float32", "float64"):
        if math.isnan(v):
            return "nan"
        return struct.pack("<f" if t == "float32" else "<d", v)
    return int(v)


SPECS = [
    ("bool", {"kind": "uniform", "true_permille": 300, "null_permille": 250}),
    ("int8", {"kind": "uniform"}),
    ("int16", {"kind": "uniform", "null_permille": 1000}),
    ("int32", {"kind": "uniform", "lo": "-20", "hi": "20", "exclude_zero": True}),
    ("int64", {"kind": "uniform", "null_permille": 100, "null_fill": "-9"}),
    ("uint8", {"kind": "uniform", "lo": "1", "hi": "20"}),
    ("uint16", {"kind": "uniform"}),
    ("uint32", {"kind": "uniform", "lo": "0", "hi": "4294967295"}),
    ("uint64", {"kind": "uniform"}),
    ("uint64", {"kind": "uniform", "lo": "0", "hi": "18446744073709551615"}),
    ("int64", {"kind": "uniform", "lo": "-9223372036854775808", "hi": "9223372036854775807"}),
    ("float32", {"kind": "uniform", "lo": -0.5, "hi": 255.5}),
    ("float64", {"kind": "uniform"}),
    ("float64", {"kind": "uniform", "lo": -4.611686018427388e18, "hi": 4.611686018427388e18}),
    ("float32", {"kind": "uniform", "integral": True, "lo": "-16777216", "hi": "16777216"}),
    ("float64", {"kind": "choice", "choices": ["nan", "-0.0", 1.5, "inf"], "null_permille": 500}),
    ("int8", {"kind": "choice", "choices": ["-128", "127", "0"]}),
]


@pytest.mark.parametrize("t,extra", SPECS, ids=[f"{s[0]}-{i}" for i, s in enumerate(SPECS)])
@pytest.mark.parametrize("offset", [0, 3])
def test_gen_matches_readme(t, extra, offset):
    spec = {"rng": "splitmix64", "seed": hash_seed(t, extra, offset)}
    spec.update({"length": 300, "offset": offset})
    spec.update(extra)
    one = True if t == "bool" else "1" if "int" in t else "-0.0"
    if offset:
        spec["pad"] = [None, one, "nan" if "float" in t else one][:offset]
    spec["overrides"] = [[5, None], [7, one]]
    want = slots(t, spec)
    m = cf.materialize({"type": t, "gen": spec})
    got = list(zip(m.values.tolist(), m.valid.tolist()))
    assert len(got) == len(want)
    for i, ((gv, gok), (wv, wok)) in enumerate(zip(got, want)):
        assert gok == wok, f"slot {i} validity"
        assert bits(t, gv) == bits(t, wv), f"slot {i}: {gv!r} != {wv!r}"


def hash_seed(t, extra, offset):
    h = 1469598103934665603
    for ch in json.dumps([t, extra, offset], sort_keys=True):
        h = ((h ^ ord(ch)) * 1099511628211) & MASK
    return h


def test_splitmix64_vectors():
    assert [output(0, j) for j in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    assert [output(17, j) for j in range(2)] == [0x808475F02EE37363, 0x6434FF62B4E8EDD1]
    assert cf.splitmix64(17, 2).tolist() == [output(17, 0), output(17, 1)]
    assert cf.splitmix64_py(12345, 5) == [output(12345, j) for j in range(5)]


def test_canonical_encoding():
    assert cf.canonical_bytes("float64", [1.0, None, -0.0, math.nan]) == (
        b'["3ff0000000000000",null,"8000000000000000","nan"]'
    )
    assert cf.canonical_bytes("float32", [-0.0, 1.0]) == b'["80000000","3f800000"]'
    assert cf.canonical_bytes("int8", [-5, None]) == b'["-5",null]'
    assert cf.canonical_bytes("uint64", [2**64 - 1]) == b'["18446744073709551615"]'
    assert cf.canonical_bytes("bool", [True, False, None]) == b"[true,false,null]"
