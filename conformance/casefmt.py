"""The conformance case format: types, value codec, the splitmix64 input generator,
array construction and the canonical result hash.

Both conformance/generate.py (which writes the cases) and the runners (which
read them) use this module, so an input is built the same way on both sides.
README.md in this directory specifies everything here in language-neutral terms;
keep the two in step.
"""

import decimal
import hashlib
import json
import math
import re
import struct

import numpy as np
import pyarrow as pa

# ---- Types --------------------------------------------------------------------------------

TYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
]
INT_TYPES = [t for t in TYPES if "int" in t]
SIGNED_TYPES = [t for t in INT_TYPES if not t.startswith("u")]
UNSIGNED_TYPES = [t for t in INT_TYPES if t.startswith("u")]
FLOAT_TYPES = ["float32", "float64"]
NUMERIC_TYPES = INT_TYPES + FLOAT_TYPES
# Temporal types (conformance/temporal_cases.py): integers of a unit, coded as their
# storage integers (int32 for date32 and time32, int64 for the others), never part of
# TYPES (whose sweeps the other families run). Timestamps here carry no time zone.
TEMPORAL_STORAGE = {
    "timestamp[s]": "int64",
    "timestamp[ms]": "int64",
    "timestamp[us]": "int64",
    "timestamp[ns]": "int64",
    "date32[day]": "int32",
    "date64[ms]": "int64",
    "time32[s]": "int32",
    "time32[ms]": "int32",
    "time64[us]": "int64",
    "time64[ns]": "int64",
    "duration[s]": "int64",
    "duration[ms]": "int64",
    "duration[us]": "int64",
    "duration[ns]": "int64",
}
TEMPORAL_TYPES = list(TEMPORAL_STORAGE)
# Strings and binary (conformance/string_cases.py), never part of TYPES either. Values are
# JSON strings: the text itself for string and large_string, lowercase hex of the bytes
# for the binary types; fixed_size_binary cases use a width of 3.
STRING_TYPES = ["string", "large_string", "binary", "large_binary", "fixed_size_binary[3]"]
UTF8_TYPES = STRING_TYPES[:2]
# Views of strings and binary (conformance/view_cases.py), coded as string and binary.
VIEW_TYPES = ["string_view", "binary_view"]
BYTES_TYPES = STRING_TYPES + VIEW_TYPES  # values coded as text or as hex
TEXT_TYPES = UTF8_TYPES + ["string_view"]  # as text
# float16 (conformance/float16_cases.py), never part of TYPES: its values are coded as
# their bits, the uint16 storage integer ("15872" for 1.5), so that NaN payloads and -0.0
# travel exactly; pyarrow's arrays of it are viewed as uint16 to read them.
FLOAT16_STORAGE = {"float16": "uint16"}
# Types whose values are coded as signed integers.
SIGNED_LIKE = SIGNED_TYPES + TEMPORAL_TYPES
INT_LIKE = INT_TYPES + TEMPORAL_TYPES + list(FLOAT16_STORAGE)

# am_type enum values of arrowmetal.h.
AM_TYPE = {name: i + 1 for i, name in enumerate(TYPES)}
AM_TYPE.update({name: 16 + i for i, name in enumerate(TEMPORAL_TYPES)})
AM_TYPE.update({name: 30 + i for i, name in enumerate(STRING_TYPES)})
AM_TYPE.update({name: 35 + i for i, name in enumerate(VIEW_TYPES)})
AM_TYPE["float16"] = 12
AM_TYPE_NAME = {v: k for k, v in AM_TYPE.items()}

FORMAT = {
    "bool": "b",
    "int8": "c",
    "int16": "s",
    "int32": "i",
    "int64": "l",
    "uint8": "C",
    "uint16": "S",
    "uint32": "I",
    "uint64": "L",
    "float32": "f",
    "float64": "g",
}
FORMAT.update(
    zip(
        TEMPORAL_TYPES,
        [
            "tss:",
            "tsm:",
            "tsu:",
            "tsn:",
            "tdD",
            "tdm",
            "tts",
            "ttm",
            "ttu",
            "ttn",
            "tDs",
            "tDm",
            "tDu",
            "tDn",
        ],
    )
)

PA_TYPE = {
    "bool": pa.bool_(),
    "int8": pa.int8(),
    "int16": pa.int16(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "uint8": pa.uint8(),
    "uint16": pa.uint16(),
    "uint32": pa.uint32(),
    "uint64": pa.uint64(),
    "float32": pa.float32(),
    "float64": pa.float64(),
}
PA_TYPE.update({t: pa.type_for_alias(t) for t in TEMPORAL_TYPES})
PA_TYPE["float16"] = pa.float16()
FORMAT["float16"] = "e"
PA_TYPE.update(zip(STRING_TYPES, [pa.string(), pa.large_string(), pa.binary(),
                                  pa.large_binary(), pa.binary(3)]))  # fmt: skip
FORMAT.update(zip(STRING_TYPES, ["u", "U", "z", "Z", "w:3"]))
PA_TYPE.update(zip(VIEW_TYPES, [pa.string_view(), pa.binary_view()]))
FORMAT.update(zip(VIEW_TYPES, ["vu", "vz"]))
TYPE_OF_PA = {str(v): k for k, v in PA_TYPE.items()}

# Decimals (conformance/decimal_cases.py): a type per precision and scale, named as pyarrow
# prints it ("decimal128(5, 2)", "decimal256(76, 5)"), never part of TYPES. Values are
# JSON strings of the number at exactly the type's scale ("-1.50", "0.00"; "7" at scale
# 0), decoded as decimal.Decimal. The tables below compute a decimal entry on first use,
# so every precision and scale (a sum's decimal128(38, s), arithmetic's promotions) has one.
DECIMAL_RE = re.compile(r"^decimal(128|256)\((\d+), (-?\d+)\)$")
DECIMAL_CONTEXT = decimal.Context(prec=200, Emax=1000, Emin=-1000)


def decimal_params(t):
    """(bit width, precision, scale) of a decimal type name; None for other types."""
    m = DECIMAL_RE.match(t) if isinstance(t, str) else None
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def decimal_type(width, precision, scale):
    return f"decimal{width}({precision}, {scale})"


class _DecimalAware(dict):
    """A type table whose decimal entries `entry(width, precision, scale)` makes on use."""

    def __init__(self, entry, *args):
        super().__init__(*args)
        self._entry = entry

    def __missing__(self, t):
        params = decimal_params(t)
        if params is None:
            raise KeyError(t)
        return self._entry(*params)


PA_TYPE = _DecimalAware(lambda w, p, s: (pa.decimal128 if w == 128 else pa.decimal256)(p, s),
                        PA_TYPE)  # fmt: skip
FORMAT = _DecimalAware(lambda w, p, s: f"d:{p},{s}" + (",256" if w == 256 else ""), FORMAT)
TYPE_OF_PA = _DecimalAware(decimal_type, TYPE_OF_PA)
AM_TYPE = _DecimalAware(lambda w, p, s: 13 if w == 128 else 14, AM_TYPE)

NP_DTYPE = {
    "bool": np.dtype(np.bool_),
    "int8": np.dtype(np.int8),
    "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
}

NP_DTYPE.update({t: NP_DTYPE[s] for t, s in TEMPORAL_STORAGE.items()})
NP_DTYPE.update({t: NP_DTYPE[s] for t, s in FLOAT16_STORAGE.items()})
NP_DTYPE.update({t: np.dtype(object) for t in BYTES_TYPES})
NP_DTYPE = _DecimalAware(lambda w, p, s: np.dtype(object), NP_DTYPE)
BITS = {t: NP_DTYPE[t].itemsize * 8 for t in INT_LIKE}


def int_range(t):
    """(min, max) of an integer type."""
    b = BITS[t]
    if t in UNSIGNED_TYPES or t in FLOAT16_STORAGE:
        return 0, (1 << b) - 1
    return -(1 << (b - 1)), (1 << (b - 1)) - 1


def type_name(pa_type):
    """Case type name of a pyarrow type (a timestamp's without its time zone, which
    travels beside it: zone_of); KeyError for a type outside the 11."""
    if pa.types.is_timestamp(pa_type) and pa_type.tz is not None:
        pa_type = pa.timestamp(pa_type.unit)
    return TYPE_OF_PA[str(pa_type)]


def zone_of(pa_type):
    """A timestamp type's time zone (an input's or an expected array's "tz"), else None."""
    return pa_type.tz if pa.types.is_timestamp(pa_type) else None


# ---- Value codec --------------------------------------------------------------------------
# JSON values: null for a null slot, true/false for bool, a decimal string for every
# integer, a number (or "nan", "inf", "-inf", "-0.0") for floats.


def f32(x):
    """x rounded to the nearest float32, as a Python float."""
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def decimal_unscaled(t, v):
    """The unscaled integer of decimal value v (a Decimal, an int or a decimal string) in
    decimal type t; ValueError when v is not a value of t: digits past its scale, or
    beyond its width (not its precision: a sum wraps at the width, as in pyarrow)."""
    width, _, scale = decimal_params(t)
    exact = DECIMAL_CONTEXT.scaleb(decimal.Decimal(v), scale)
    unscaled = int(exact)  # Decimal's own comparisons round at the thread's precision
    if DECIMAL_CONTEXT.compare(exact, decimal.Decimal(unscaled)) or not (
        -(1 << (width - 1)) <= unscaled < 1 << (width - 1)
    ):
        raise ValueError(f"{t} value {v!r} out of range")
    return unscaled


def decimal_text(unscaled, scale):
    """The JSON text of a decimal: its unscaled integer written at `scale`."""
    digits = str(abs(unscaled)).rjust(scale + 1, "0")
    text = digits[: len(digits) - scale] + ("." + digits[len(digits) - scale :] if scale else "")
    return "-" + text if unscaled < 0 else text


def encode_value(t, v):
    if v is None:
        return None
    if decimal_params(t):
        return decimal_text(decimal_unscaled(t, v), decimal_params(t)[2])
    if t in BYTES_TYPES:
        return v if t in TEXT_TYPES else bytes(v).hex()
    if t == "bool":
        return bool(v)
    if t in INT_LIKE:
        return str(int(v))
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0.0 and math.copysign(1.0, v) < 0:
        return "-0.0"
    if t == "float32":
        short = float(str(np.float32(v)))
        if f32(short) == v:
            return short
    return v


def decode_value(t, j):
    if j is None:
        return None
    if t in BYTES_TYPES:
        if not isinstance(j, str):
            raise ValueError(f"{t} value must be a JSON string: {j!r}")
        return j if t in TEXT_TYPES else bytes.fromhex(j)
    if decimal_params(t):
        if not isinstance(j, str):
            raise ValueError(f"{t} value must be a JSON string: {j!r}")
        return DECIMAL_CONTEXT.scaleb(decimal_unscaled(t, j), -decimal_params(t)[2])
    if t == "bool":
        if not isinstance(j, bool):
            raise ValueError(f"bool value must be true/false: {j!r}")
        return j
    if t in INT_LIKE:
        v = int(j)
        lo, hi = int_range(t)
        if not lo <= v <= hi:
            raise ValueError(f"{t} value {j!r} out of range")
        return v
    if isinstance(j, str):
        v = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0.0": -0.0}[j]
    else:
        v = float(j)
    return f32(v) if t == "float32" else v


def encode_values(t, values):
    return [encode_value(t, v) for v in values]


def decode_values(t, values):
    return [decode_value(t, v) for v in values]


def same_value(t, a, b, zero_sign=True, ulps=0):
    """Bit-exact equality of two decoded values (NaN equals NaN; the sign of zero counts
    unless zero_sign is False), or, for floats with ulps > 0, finite values at most that
    many units in the last place of type t apart (infinities and zeros still exact)."""
    if a is None or b is None:
        return a is None and b is None
    if t in FLOAT_TYPES:
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if a == 0.0 and b == 0.0 and zero_sign:
            return math.copysign(1.0, a) == math.copysign(1.0, b)
        if ulps and a != b and math.isfinite(a) and math.isfinite(b) and a != 0.0 and b != 0.0:
            return ulp_distance(t, a, b) <= ulps
        return a == b
    return a == b


def ulp_distance(t, a, b):
    """How many representable values of float type t lie between a and b (same sign)."""
    fmt, bits = ("<f", "<i") if t == "float32" else ("<d", "<q")
    ia = struct.unpack(bits, struct.pack(fmt, a))[0]
    ib = struct.unpack(bits, struct.pack(fmt, b))[0]
    if (ia < 0) != (ib < 0):
        return float("inf")
    return abs(ia - ib)


# ---- splitmix64 ---------------------------------------------------------------------------

GAMMA = 0x9E3779B97F4A7C15
M1 = 0xBF58476D1CE4E5B9
M2 = 0x94D049BB133111EB
MASK64 = (1 << 64) - 1


def splitmix64_py(seed, count):
    """Reference (scalar) implementation: the first `count` outputs for `seed`."""
    state = seed & MASK64
    out = []
    for _ in range(count):
        state = (state + GAMMA) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * M1) & MASK64
        z = ((z ^ (z >> 27)) * M2) & MASK64
        out.append(z ^ (z >> 31))
    return out


def splitmix64(seed, count):
    """Outputs 0..count-1 of splitmix64 started at `seed`, as a numpy uint64 array."""
    k = np.arange(1, count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed & MASK64) + k * np.uint64(GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(M1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(M2)
    return z ^ (z >> np.uint64(31))


def _int_from_draws(t, u, spec):
    lo, hi = spec.get("lo"), spec.get("hi")
    if lo is None and hi is None:
        b = BITS[t]
        low = u & np.uint64((1 << b) - 1) if b < 64 else u
        unsigned_dtype = np.dtype(f"uint{b}")
        return low.astype(unsigned_dtype).view(NP_DTYPE[t])
    lo, hi = int(lo), int(hi)
    tlo, thi = int_range(t)
    if not tlo <= lo <= hi <= thi:
        raise ValueError(f"bad lo/hi for {t}: {lo!r} {hi!r}")
    span = hi - lo + 1
    r = u % np.uint64(span) if span < (1 << 64) else u.copy()
    with np.errstate(over="ignore"):
        v = np.uint64(lo & MASK64) + r
    if t in SIGNED_LIKE:
        return v.view(np.int64).astype(NP_DTYPE[t])
    return v.astype(NP_DTYPE[t])


def _float_from_draws(t, u, spec):
    if spec.get("integral"):
        lo, hi = int(spec["lo"]), int(spec["hi"])
        limit = 1 << (24 if t == "float32" else 53)
        if not -limit <= lo <= hi <= limit:
            raise ValueError(f"integral range not exact in {t}")
        r = (u % np.uint64(hi - lo + 1)).astype(np.int64) + np.int64(lo)
        return r.astype(NP_DTYPE[t])
    lo = float(spec.get("lo", -1000.0))
    hi = float(spec.get("hi", 1000.0))
    f = (u >> np.uint64(11)).astype(np.float64) * np.float64(2.0**-53)
    v = np.float64(lo) + f * np.float64(hi - lo)
    return v.astype(NP_DTYPE[t])


def gen_values(t, spec, total):
    """Values and validity of slots 0..total-1 of a "gen" spec, before pad/overrides."""
    draws = splitmix64(int(spec["seed"]), 2 * total)
    u = draws[0::2]
    w = draws[1::2]
    kind = spec.get("kind", "uniform")
    if kind == "choice":
        choices = decode_values(t, spec["choices"])
        if any(c is None for c in choices):
            raise ValueError("choices may not hold null")
        idx = (u % np.uint64(len(choices))).astype(np.int64)
        table = np.empty(len(choices), dtype=NP_DTYPE[t])
        table[:] = choices  # strings: an object array (np.array would make a str dtype)
        values = table[idx]
    elif t in BYTES_TYPES:
        raise ValueError("string inputs are drawn with kind 'choice'")
    elif kind == "uniform":
        if t == "bool":
            values = (u % np.uint64(1000)) < np.uint64(int(spec.get("true_permille", 500)))
        elif t in INT_LIKE:
            values = _int_from_draws(t, u, spec)
        else:
            values = _float_from_draws(t, u, spec)
        if spec.get("exclude_zero"):
            values = values.copy()
            values[values == 0] = 1
    else:
        raise ValueError(f"unknown gen kind {kind!r}")
    permille = int(spec.get("null_permille", 0))
    valid = (w % np.uint64(1000)) >= np.uint64(permille)
    return values, valid


# ---- Arrays -------------------------------------------------------------------------------


class Materialized:
    """The full (unsliced) values and validity of an array input, its slice offset and
    length, and the physical value stored under null slots."""

    def __init__(self, t, values, valid, offset, length, null_fill):
        self.type = t
        self.values = values
        self.valid = valid
        self.offset = offset
        self.length = length
        self.null_fill = null_fill


def materialize(inp):
    """Materialized form of an array input ({"type", "offset", "values"} or {"type", "gen"})."""
    t = inp["type"]
    dtype = NP_DTYPE[t]
    if "gen" in inp:
        spec = inp["gen"]
        offset = int(spec.get("offset", 0))
        length = int(spec["length"])
        total = offset + length
        values, valid = gen_values(t, spec, total)
        values = values.copy()
        if "pad" in spec:
            pad = decode_values(t, spec["pad"])
            if len(pad) != offset:
                raise ValueError("pad must hold `offset` values")
            for i, v in enumerate(pad):
                valid[i] = v is not None
                if v is not None:
                    values[i] = v
        for j, v in spec.get("overrides", []):
            v = decode_value(t, v)
            valid[offset + j] = v is not None
            if v is not None:
                values[offset + j] = v
        null_fill = decode_value(t, spec.get("null_fill", _zero(t)))
    else:
        offset = int(inp.get("offset", 0))
        decoded = decode_values(t, inp["values"])
        total = len(decoded)
        length = total - offset
        if length < 0:
            raise ValueError("offset beyond values")
        valid = np.array([v is not None for v in decoded], dtype=bool)
        null_fill = decode_value(t, inp.get("null_fill", _zero(t)))
        values = np.empty(total, dtype=dtype)
        values[:] = [null_fill if v is None else v for v in decoded]
    values = values.astype(dtype, copy=False)
    if (~valid).any():
        values = values.copy()
        values[~valid] = null_fill
    return Materialized(t, values, valid, offset, length, null_fill)


def _zero(t):
    if decimal_params(t):
        return "0"
    if t in BYTES_TYPES:
        return "000000" if t == "fixed_size_binary[3]" else ""
    if t == "bool":
        return False
    if t in INT_LIKE:
        return "0"
    return 0.0


def to_pyarrow(m):
    """The sliced pyarrow array of a Materialized input. The validity bitmap is present
    exactly when some slot of the full array (padding included) is null."""
    t = m.type
    total = len(m.values)
    if t in BYTES_TYPES:
        vals = [v if ok else None for v, ok in zip(m.values.tolist(), m.valid.tolist())]
        arr = pa.array(vals, PA_TYPE[t])
        return arr.slice(m.offset, m.length) if m.offset or m.length != total else arr
    if t == "bool":
        data = pa.py_buffer(np.packbits(m.values, bitorder="little").tobytes())
    elif decimal_params(t):
        data = decimal_bytes(t, m.values.tolist())
    else:
        data = pa.py_buffer(np.ascontiguousarray(m.values).tobytes())
    nulls = int((~m.valid).sum())
    validity = None
    if nulls:
        validity = pa.py_buffer(np.packbits(m.valid, bitorder="little").tobytes())
    arr = pa.Array.from_buffers(PA_TYPE[t], total, [validity, data], null_count=nulls)
    if m.offset or m.length != total:
        arr = arr.slice(m.offset, m.length)
    return arr


def decimal_bytes(t, values):
    """The value buffer of decoded decimal `values` (not None): little-endian two's
    complement, any value of the width (pyarrow's own constructors refuse those beyond
    the precision, which a sum's wrap gives)."""
    nbytes = decimal_params(t)[0] // 8
    return pa.py_buffer(b"".join(decimal_unscaled(t, v).to_bytes(nbytes, "little", signed=True)
                                 for v in values))  # fmt: skip


def array_of(t, values):
    """A pyarrow array of type t of decoded `values` (None: null)."""
    if t in FLOAT16_STORAGE:  # the bits, viewed as float16
        return pa.array(values, PA_TYPE[FLOAT16_STORAGE[t]]).view(PA_TYPE[t])
    if not decimal_params(t):
        return pa.array(values, PA_TYPE[t])
    data = decimal_bytes(t, [0 if v is None else v for v in values])
    validity = None
    if None in values:
        validity = pa.py_buffer(np.packbits([v is not None for v in values],
                                            bitorder="little").tobytes())  # fmt: skip
    return pa.Array.from_buffers(PA_TYPE[t], len(values), [validity, data])


def build_input(inp):
    """pyarrow value of an input: a sliced array, a pyarrow scalar for {"scalar": ...}, or
    a dictionary array for an array input with a "dictionary" (below)."""
    if "scalar" in inp:
        s = inp["scalar"]
        v = decode_value(s["type"], s["value"])
        if s["type"] in FLOAT16_STORAGE and v is not None:  # its value, NaN payloads kept
            v = float16_value(v)
        return pa.scalar(v, PA_TYPE[s["type"]])
    if "dictionary" in inp:
        return dictionary_array(inp)
    arr = to_pyarrow(materialize(inp))
    if "tz" in inp:  # a timestamp's time zone (conformance/timezone_cases.py)
        arr = arr.view(pa.timestamp(arr.type.unit, inp["tz"]))
    return arr


def dictionary_array(inp):
    """The dictionary array of an array input with a "dictionary": the input itself (its
    "type" an integer type, its values, offset and nulls) holds the indices, "dictionary"
    is an array input of the values (its own offset and nulls), "ordered" (default false)
    Arrow's ordered flag. The indices are not checked against the dictionary (the cases
    of out-of-range indices are the importer's to refuse)."""
    indices = to_pyarrow(materialize(inp))
    dictionary = to_pyarrow(materialize(inp["dictionary"]))
    ordered = bool(inp.get("ordered", False))
    return pa.DictionaryArray.from_arrays(indices, dictionary, ordered=ordered, safe=False)


def input_values(inp):
    """Decoded values of the sliced part of an array input (list, None for nulls)."""
    m = materialize(inp)
    sl = slice(m.offset, m.offset + m.length)
    vals = m.values[sl].tolist()
    return [v if ok else None for v, ok in zip(vals, m.valid[sl].tolist())]


# ---- Results ------------------------------------------------------------------------------


def array_values(arr):
    """Decoded values of a pyarrow array (floats keep NaN and -0.0; temporal values as
    their storage integers)."""
    return _storage(arr).to_pylist()


def _storage(arr):
    """A temporal or float16 array as its storage integers (the same buffers); others as
    they are."""
    t = type_name(arr.type) if zone_of(arr.type) else TYPE_OF_PA.get(str(arr.type))
    if t in FLOAT16_STORAGE:
        return arr.view(PA_TYPE[FLOAT16_STORAGE[t]])
    return arr.view(PA_TYPE[TEMPORAL_STORAGE[t]]) if t in TEMPORAL_STORAGE else arr


def float16_value(bits):
    """The value of float16 bits as a Python float (exact; a NaN keeps its payload)."""
    return float(np.array(bits, np.uint16).view(np.float16))


def float16_bits(value):
    """The bits of a float16 value given as a Python float (float16_value's inverse)."""
    return int(np.array(value, np.float16).view(np.uint16))


def scalar_value_of(scalar):
    """Decoded value of a pyarrow scalar (temporal ones as their storage integer, float16
    as its bits)."""
    t = TYPE_OF_PA.get(str(scalar.type))
    if t in TEMPORAL_STORAGE:
        return scalar.cast(PA_TYPE[TEMPORAL_STORAGE[t]]).as_py()
    if t in FLOAT16_STORAGE:
        return None if not scalar.is_valid else float16_bits(scalar.as_py())
    return scalar.as_py()


def canonical_token(t, v):
    if v is None:
        return "null"
    if t in BYTES_TYPES:  # JSON's own string (text) or the hex of the bytes
        return json.dumps(encode_value(t, v), ensure_ascii=True)
    if t == "bool":
        return "true" if v else "false"
    if t in INT_LIKE:
        return f'"{v}"'
    if decimal_params(t):  # its JSON text, at the type's scale
        return f'"{encode_value(t, v)}"'
    if math.isnan(v):
        return '"nan"'
    if t == "float32":
        return '"{:08x}"'.format(struct.unpack("<I", struct.pack("<f", v))[0])
    return '"{:016x}"'.format(struct.unpack("<Q", struct.pack("<d", v))[0])


def canonical_bytes(t, values):
    """Canonical encoding (README.md, "Hashed results") of decoded values."""
    return ("[" + ",".join(canonical_token(t, v) for v in values) + "]").encode("ascii")


def digest(t, values):
    return hashlib.sha256(canonical_bytes(t, values)).hexdigest()


def canonical_bytes_array(arr):
    """canonical_bytes of a pyarrow array, vectorised (same bytes, much faster)."""
    t = type_name(arr.type)
    if t in BYTES_TYPES or decimal_params(t):
        return canonical_bytes(t, arr.to_pylist())
    arr = _storage(arr)
    valid = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    if len(arr) == 0:
        return b"[]"
    if t == "bool":
        vals = np.asarray(arr.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
        strs = np.where(vals, "true", "false").tolist()
        mark = "\x00"
    else:
        vals = arr.fill_null(0).to_numpy(zero_copy_only=False)
        if t in INT_LIKE:
            strs = list(map(str, vals.tolist()))
        else:
            nbytes = vals.dtype.itemsize
            big_endian = vals.view(f"u{nbytes}").astype(f">u{nbytes}")
            digits = np.frombuffer(big_endian.tobytes().hex().encode("ascii"), f"S{2 * nbytes}")
            strs = digits.astype(f"U{2 * nbytes}").tolist()
            for k in np.flatnonzero(np.isnan(vals)).tolist():
                strs[k] = "nan"
        mark = '"\x00"'
    for k in np.flatnonzero(~valid).tolist():
        strs[k] = "\x00"
    if t == "bool":
        text = ",".join(strs)
    else:
        text = '"' + '","'.join(strs) + '"'
    return ("[" + text.replace(mark, "null") + "]").encode("ascii")


def digest_array(arr):
    return hashlib.sha256(canonical_bytes_array(arr)).hexdigest()


HEAD = 8


def hashed_expectation(arr):
    """Expected-result record of a long pyarrow array."""
    t = type_name(arr.type)
    sha = digest_array(arr)
    return {
        "type": t,
        "length": len(arr),
        "null_count": arr.null_count,
        "sha256": sha,
        "head": encode_values(t, array_values(arr.slice(0, HEAD))),
    }


def load_cases(directory):
    """All cases of directory/cases/*.json.gz (gzip-compressed JSON), in file then case
    order."""
    import glob
    import gzip
    import os

    cases = []
    for path in sorted(glob.glob(os.path.join(directory, "cases", "*.json.gz"))):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            doc = json.load(f)
        cases.extend(doc["cases"])
    return cases


def matrix_rows(cases, ops, subject_type=lambda case: case["inputs"][0]["type"]):
    """README.md's op x type rows of `ops`: "yes" where a case of that type (the
    type `subject_type` names) succeeds, else the status its type's cases fail with."""
    ok, errors = set(), {}
    for case in cases.values():
        if case["op"] not in ops:
            continue
        key = case["op"], subject_type(case)
        if "error" in case["expected"]:
            errors.setdefault(key, case["expected"]["error"])
        else:
            ok.add(key)
    return [
        f"| {op} | "
        + " | ".join("yes" if (op, t) in ok else errors.get((op, t), "-") for t in TYPES)
        + " |"
        for op in ops
    ]
