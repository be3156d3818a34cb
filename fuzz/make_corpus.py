"""Writes the seed corpora of the fuzz targets: fuzz/corpus/<target>/<name>.

The seeds are byte strings in the order each harness reads its input (see
the harnesses' comments), from a fixed random seed, so running this again
writes the same files. They are starting points, not tests: a few dozen
small files per target that reach every format, every call of ops_fuzz and
every kind of line of a route file; tzif_fuzz's are TZif files of the system's
tz database. Run: python3 fuzz/make_corpus.py
"""

import os
import random
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# fz_types order in fuzz_common.h, with element bits.
TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64"]  # fmt: skip
BITS = [1, 8, 16, 32, 64, 8, 16, 32, 64, 32, 64]
# The first entries of import_fuzz.c's format table.
FORMATS = ["b", "c", "s", "i", "l", "C", "S", "I", "L", "f", "g"]
FORMAT_TABLE = 33  # entries in import_fuzz.c's table
OPS = 38  # the first seeds' steps, op00 .. op37 (new_ops_seeds: 38 .. 63)

rng = random.Random(15)
rng2 = random.Random(64)  # the seeds of the later calls (new_ops_seeds)


def u8(v):
    return bytes([v & 0xFF])


def u16(v):
    return struct.pack("<H", v & 0xFFFF)


def u64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def nbytes(slots, bits):
    return (slots + 7) // 8 if bits == 1 else slots * bits // 8


def honest_array(type_index, length, offset=0, bitmap=1, unknown_count=False, shift=0):
    """fz_make_array's bytes (ops_fuzz): shape, length (max 64: one byte),
    offset, data, bitmap."""
    shape = (3 if offset else 0) | (bitmap << 2) | (16 if unknown_count else 0) | (shift << 5)
    out = u8(shape) + u8(length)
    if offset:
        out += u8(offset)
    slots = offset + length
    out += bytes(rng.randrange(256) for _ in range(nbytes(slots, BITS[type_index])))
    if bitmap == 1:
        out += bytes(rng.randrange(256) for _ in range(nbytes(slots, 1)))
    return out


def ops_seeds():
    seeds = {}
    base_types = [4, 9, 0, 1, 10, 8, 2, 5]
    for op in range(OPS):
        t1 = base_types[op % len(base_types)]
        t2 = base_types[(op + 3) % len(base_types)]
        head = u8(1)  # two arrays
        for t in (t1, t2):
            head += u8(t) + honest_array(t, 12, offset=op % 3, bitmap=1 + op % 3)
        args = bytes(rng.randrange(256) for _ in range(12))
        seeds[f"op{op:02d}"] = head + u8(op) + args
    # A program of several steps on one long array (past the pool's split).
    pattern = bytes(rng.randrange(256) for _ in range(16))  # repeated over the 400 rows
    head = u8(0) + u8(0x80 | 4) + u8(0x40) + u16(400) + pattern
    seeds["pool-steps"] = head + bytes([0, 0, 0, 3, 0, 0, 2, 14, 0, 1, 15, 0, 0, 27, 0, 0, 0, 1])
    seeds["batch"] = (
        u8(0)
        + u8(4)
        + honest_array(4, 8)
        + bytes([33, 0, 0, 0, 0, 0, 33, 0, 2, 33, 0, 1, 33, 0, 3])
    )
    # round_to_multiple (op 23 with the escape byte 254) over a float64 and an int8 array
    # (all valid), each step: the array, ndigits, 254, the multiple (make_scalar: type in
    # its high bits, a small value, one of the float specials), the mode. Fixed bytes,
    # no rng: the other seeds stay as they were.
    floats = struct.pack("<8d", 0.125, 2.5, -7.25, 3.75, 1e300, -0.0, 6.25, 1.5)
    ints = bytes([1, 2, 127, 128, 250, 5, 4, 3])
    head = u8(1) + u8(10) + u8(8) + u8(8) + floats + u8(1) + u8(8) + u8(8) + ints

    def multiple_step(array, am_type, value, special, mode):
        return bytes([23, array, 0, 254, am_type << 3, 0, value, special, 1 + mode])

    seeds["round-to-multiple"] = head + b"".join(
        [
            multiple_step(0, 11, 0, 5, 8),  # float64 2.5, half_to_even
            multiple_step(0, 11, 0, 6, 1),  # float64 1e300, up
            multiple_step(0, 5, 3, 0, 4),  # int64 3 cast to float64, half_down
            multiple_step(1, 5, 3, 0, 8),  # int64 3 over int8
            multiple_step(1, 5, 3, 0, 1),  # up: 127 leaves int8
            multiple_step(1, 11, 0, 5, 8),  # float64 2.5 over int8: not whole
            multiple_step(1, 1, 1, 0, 8),  # a bool multiple
        ]
    )
    return seeds


# The arrays, zones, words, patterns and formats of fuzz_common.h and ops_fuzz.c, by index.
ALL_TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float32", "float64", "float16", "decimal128", "decimal256", "timestamp[s]",
             "timestamp[ms]", "timestamp[us]", "timestamp[ns]", "date32", "date64", "time32[s]",
             "time32[ms]", "time64[us]", "time64[ns]", "duration[s]", "duration[ms]",
             "duration[us]", "duration[ns]", "string", "large_string", "binary", "large_binary",
             "string_view", "binary_view", "fixed_size_binary"]  # fmt: skip
ALL_BITS = BITS + [16, 128, 256] + [64] * 4 + [32, 64, 32, 32, 64, 64] + [64] * 4
ZONES = ["", "UTC", "Etc/UTC", "+00:00", "America/New_York", "Europe/Dublin",
         "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Apia", "America/Sao_Paulo", "+05:30",
         "-0930", "+24:00", "Nowhere/Bogus", "../zoneinfo/UTC", "utc"]  # fmt: skip
WORDS = [w.encode() if isinstance(w, str) else w for w in [
    "", "a", "A,b", "ab,", "hello world", "ß", "ẞ", "K", "\u212a", "İ", "  x\t", "\u2028 ",
    "1", "-0", "1e3", "+1.5E-7", ".5", "nan", "INF", "-infinity", "0x7f", "true", "FALSE",
    "2020-01-01", "2021-03-14 02:30:00", "1970-01-01T00:00:00.123", "2020-01-01T12:00:00Z",
    "2015-11-01 01:30:00+01:00", "1/2/69 3:04 PM", "Jan  5 1999", "%_\\", b"a\xff\x80b",
    b"\xed\xa0\x80", b"\xf4\x90\x80\x80", "0123456789abcdefghij"]]  # fmt: skip
PATTERNS = ["", "a", "A", "k", "K", "\u212a", "ß", "ẞ", "İ", "%", "_", "a%", "%a", "%a%", "a_b",
            "\\", "a\\%", "%\\", ",", "ab,", " ", "\\xff", "surrogate", "\\xc3", "0",
            "nan"]  # fmt: skip
OPS_NOW = 64  # cases of ops_fuzz.c's step() (op % 64)
DEFAULT_OP = 63  # step(): a new honest array of any type


def word(text):
    """fz_value's bytes for a word of fz_words (mode 2): its index, no cut."""
    return u8(WORDS.index(text.encode() if isinstance(text, str) else text)) + u8(0)


def any_array(type_name, values=None, length=None, zone=None, decimal=None, width=3,
              bitmap=2, near=None, view_buffers=1, offset=0):  # fmt: skip
    """fz_import's bytes for an array of any type (after the step's max-length byte,
    even: at most 40 rows). Strings: `values` are words (mode 2). Fixed-width types:
    `length` rows of raw data, all valid (bitmap 2) or a bitmap from the input (1);
    temporal types `near` (an fz_instants index, a steps index) lay values near an
    instant; decimals `decimal` (precision, scale) with small values."""
    t = ALL_TYPES.index(type_name)
    out = u8(t)
    if type_name.startswith("timestamp"):
        out += u8(255 if zone is None else ZONES.index(zone))
    elif type_name.startswith("decimal"):
        precision, scale = decimal
        out += u8(precision - 1) + u8(scale + 3)
    elif type_name == "fixed_size_binary":
        out += u8(width)
    if "string" in type_name or "binary" in type_name and type_name != "fixed_size_binary":
        n = len(values)
        shape = (3 if offset else 0) | (bitmap << 2) | (2 << 4)  # mode 2: words
        out += u8(shape) + u8(n) + (u8(offset) if offset else b"")
        out += b"".join(word(v) for v in [""] * offset + values)
        if type_name.endswith("view"):
            out += u8(view_buffers)
            long_values = [v for v in values if len(WORDS[word(v)[0]]) > 12]
            out += b"".join(u8(0) + u8(i % 3) for i, _ in enumerate(long_values))
        if bitmap == 1:
            out += bytes(rng2.randrange(256) for _ in range(nbytes(offset + n, 1)))
        return out
    bits = 8 if type_name == "fixed_size_binary" else ALL_BITS[t]
    shape = (3 if offset else 0) | (bitmap << 2)
    out += u8(shape) + u8(length) + (u8(offset) if offset else b"")
    slots = offset + length
    out += bytes(rng2.randrange(256) for _ in range(nbytes(slots, bits)))
    if bitmap == 1:
        out += bytes(rng2.randrange(256) for _ in range(nbytes(slots, 1)))
    if type_name == "fixed_size_binary":  # the width's bytes, a 16-byte pattern past 16
        size = slots * width
        out += bytes(rng2.randrange(256) for _ in range(min(size, 16)))
    if type_name.startswith(("decimal", "timestamp", "date", "time", "duration")):
        if decimal:
            out += u8(1) + b"".join(u16(rng2.randrange(-300, 300)) for _ in range(slots))
        elif near:
            out += u8(
                next(
                    h
                    for h in range(256)
                    if h & 3 == 1 and (h >> 2) % 6 == near[0] and (h >> 5) % 6 == near[1]
                )
            )
            out += b"".join(u8(rng2.randrange(-6, 7)) + u8(rng2.randrange(3)) for _ in range(slots))
        else:
            out += u8(0)
    return out


def program(arrays, steps):
    """An ops_fuzz input: one int64 array of 6 rows, then a step making each of `arrays`
    (any_array bytes; they are arrays 1, 2, ... as the steps pick them), then `steps`
    (each: its op, the array it picks, its arguments)."""
    head = u8(0) + u8(4) + u8(2 << 2) + u8(6) + bytes(rng2.randrange(256) for _ in range(48))
    made = b"".join(u8(DEFAULT_OP) + u8(0) + u8(0) + a for a in arrays)
    return head + made + b"".join(steps)


def new_ops_seeds():
    """Seeds of the calls added after the first 40 (fixed bytes but for raw data, from
    their own rng: the seeds above stay as they were)."""
    s, ny, words = {}, "America/New_York", ["a", "K", "ß", "hello world", "ab,", "", "İ"]
    zoned = any_array("timestamp[s]", length=12, zone=ny, near=(0, 4), bitmap=1)
    naive = any_array("timestamp[ms]", length=12, near=(1, 3))
    s["zone-functions"] = program(
        [zoned, any_array("timestamp[us]", length=8, zone="Australia/Lord_Howe", near=(2, 3))],
        [bytes([40, 1, 1]), bytes([40, 1, 2]), bytes([40, 2, 1]), bytes([40, 0, 2]),
         bytes([44, 1, ZONES.index("Pacific/Apia")]), bytes([40, 3, 1]),
         bytes([40, 1, 0])],
    )  # fmt: skip
    s["round-temporal"] = program(
        [zoned, naive, any_array("date32", length=9, near=(4, 5)),
         any_array("duration[ns]", length=9)],
        [bytes([41, 1, 0, 6, 0, 1]), bytes([41, 1, 1, 5, 4, 3]), bytes([41, 1, 3, 11, 2, 2]),
         bytes([41, 2, 0, 8, 1, 2]), bytes([41, 2, 6, 5, 0, 1]), bytes([41, 3, 1, 7, 0, 0]),
         bytes([41, 4, 2, 9, 0, 1]), bytes([41, 4, 1, 8, 4, 1]), bytes([41, 1, 1, 7, 8, 2])],
    )  # fmt: skip
    s["assume-timezone"] = program(
        [naive, any_array("timestamp[s]", length=10, near=(3, 5))],
        [bytes([42, 1, ZONES.index(ny), 1, 1]), bytes([42, 1, ZONES.index(ny), 2, 3]),
         bytes([42, 2, ZONES.index("Pacific/Apia"), 3, 2]), bytes([42, 1, 13, 1, 1]),
         bytes([42, 1, ZONES.index(ny), 0, 4])],
    )  # fmt: skip
    s["temporal-fields-zoned"] = program(
        [zoned, any_array("timestamp[ns]", length=8, zone="+05:30", near=(5, 2))],
        [bytes([43, 1, f + 1, 3, f & 1]) for f in range(14)] + [bytes([43, 2, 4, 9, 1])],
    )
    s["strftime-strptime"] = program(
        [zoned, any_array("string", ["2020-01-01", "2021-03-14 02:30:00", "Jan  5 1999",
                                     "1/2/69 3:04 PM", "2020-01-01T12:00:00Z", "a"])],
        [bytes([48, 1, 1, 0]), bytes([48, 1, 0, 1]), bytes([48, 1, 2, 2]), bytes([48, 1, 7, 0]),
         bytes([48, 1, 12, 3]), bytes([48, 0, 12, 0]),
         bytes([47, 2, 0, 2, 1]), bytes([47, 2, 1, 3, 1]), bytes([47, 2, 5, 2, 0]),
         bytes([47, 2, 3, 3, 1]), bytes([47, 2, 7, 2, 0]), bytes([47, 2, 8, 2, 0]),
         bytes([47, 2, 2, 5, 0])],
    )  # fmt: skip
    texts = ["1e3", "+1.5E-7", ".5", "nan", "INF", "-infinity", "-0", "1", "0x7f", "true"]
    s["string-casts"] = program(
        [any_array("string", texts), any_array("large_string", ["2020-01-01",
         "1970-01-01T00:00:00.123", "2020-01-01T12:00:00Z", "2015-11-01 01:30:00+01:00"]),
         any_array("float64", length=8), any_array("timestamp[ns]", length=5, zone=ny)],
        [bytes([10, 1, 12, 1]), bytes([10, 1, 11, 0]), bytes([10, 1, 5, 1]),
         bytes([10, 3, 31, 1]), bytes([10, 3, 32, 1]), bytes([10, 4, 31, 1]),
         bytes([10, 2, 17, 1]), bytes([10, 2, 21, 1]), bytes([10, 2, 19, 17]),
         bytes([49, 2, 2, 1, 1]), bytes([49, 2, 2, 4, 1]), bytes([49, 1, 3, 1, 1]),
         bytes([49, 3, 0, ZONES.index(ny), 1])],
    )  # fmt: skip
    s["string-matchers"] = program(
        [any_array("string", words, bitmap=1), any_array("binary", words),
         any_array("string_view", words + ["0123456789abcdefghij"]),
         any_array("large_binary", [b"a\xff\x80b", "K", "ab,"])],
        [bytes([45, a, op + 1, PATTERNS.index(p), flags])
         for a, op, p, flags in [(1, 2, "a", 1), (1, 3, "K", 1), (1, 4, "\u212a", 1),
                                 (1, 4, "ß", 1), (1, 5, "ẞ", 1), (1, 6, "a", 1),
                                 (1, 9, "%a%", 1), (1, 9, "a\\%", 0), (1, 9, "_", 0),
                                 (1, 4, "\\xff", 1), (1, 4, "surrogate", 1), (2, 4, "k", 1),
                                 (2, 9, "%a", 1), (3, 4, "a", 1), (3, 9, "%", 1),
                                 (1, 4, "a", 3), (4, 4, "\\xc3", 1), (1, 0, "", 0),
                                 (1, 22, "", 0), (3, 23, "", 0), (1, 19, "a", 0),
                                 (3, 16, " ", 0), (1, 13, "", 0), (2, 1, "", 0)]],
    )  # fmt: skip
    s["string-slice-split"] = program(
        [any_array("string", words + ["  x\t", "\u2028 "]), any_array("string_view", words),
         any_array("large_string", ["A,b", "ab,", ""])],
        [bytes([46, 1, 12, 14, 13]), bytes([46, 1, 250, 12, 11]), bytes([46, 1, 14, 252, 12]),
         bytes([46, 2, 11, 251, 10]), bytes([46, 3, 0, 0, 0]),
         bytes([56, 1, 1, PATTERNS.index(","), 0, 4, 0]), bytes([56, 3, 1, 18, 0, 3, 1]),
         bytes([56, 1, 2, 255, 0, 0, 1]), bytes([56, 2, 3, 255, 255, 0]),
         bytes([56, 1, 3, 255, 0, 1, 1]), bytes([38, 2, 1, 1, 4, 0])],
    )  # fmt: skip
    s["binary-join"] = program(
        [any_array("binary", words), any_array("binary", ["a", "", "K", "ß", "ab,", "1", "-0"]),
         any_array("large_string", words)],
        [bytes([37, 1, 2, 2, 2, 0, 1, 2]), bytes([37, 1, 2, 2, 3, 1, 3, 0, 3]),
         bytes([37, 3, 3, 3, 1, 1, 0, 1, 3]), bytes([37, 1, 3, 3, 0, 0, 1, 0])],
    )  # fmt: skip
    s["decimal-casts"] = program(
        [any_array("decimal128", length=8, decimal=(10, 2)), any_array("int32", length=8),
         any_array("decimal256", length=5, decimal=(40, 5)), any_array("float64", length=6)],
        [bytes([50, 1, 1, 6, 40 + 1, 0, 1]), bytes([50, 1, 2, 41, 40 + 7, 0, 9]),
         bytes([50, 2, 1, 5, 40 + 2, 0, 1]), bytes([50, 3, 1, 39, 40 + 0, 0, 8]),
         bytes([50, 4, 1, 11, 40 + 3, 0, 1]), bytes([50, 2, 1, 6, 40 - 2, 0, 1]),
         bytes([50, 1, 0, 0, 40, 255, 1, 1])],
    )  # fmt: skip

    def group(keys, values, aggs):
        """Step 51 over array `keys[0]`: the other keys, the values, aggregates (op,
        column, flags byte)."""
        out = u8(51) + u8(keys[0]) + u8(len(keys)) + bytes(keys[1:])
        out += u8(len(values)) + bytes(values) + u8(len(aggs))
        return out + b"".join(u8(op + 1) + u8(column + 1) + u8(flags) for op, column, flags in aggs)

    keyed = [any_array("string", words * 2), any_array("float16", length=14, bitmap=1),
             any_array("decimal128", length=14, decimal=(5, 1)),
             any_array("string_view", words * 2), any_array("int64", length=14)]  # fmt: skip
    s["group-by-keys"] = program(
        keyed,
        [bytes([30, 1, 1, 1]),  # array 6: a dictionary of array 1
         group([1], [5], [(0, 0, 0), (15, 0, 0), (7, 0, 0)]), group([2], [3], [(2, 0, 0)]),
         group([3], [3, 1], [(4, 0, 0), (14, 1, 0), (5, 1, 0)]), group([4, 2], [5], [(1, 0, 0)]),
         group([1, 3], [], [(16, 0, 0)]),
         group([6], [6], [(1, 0, 0), (15, 0, 0), (2, 0, 0)]),
         group([5], [1], [(3, 9, 0), (12, 0, 1)])],
    )  # fmt: skip
    s["join-keys"] = program(
        keyed + [any_array("string", ["a", "K", "ab,", "", "ß"]),
                 any_array("decimal128", length=5, decimal=(5, 1))],
        [bytes([30, 1, 1, 1]),  # array 8: a dictionary of array 1
         bytes([52, 1, 1, 6, 1]), bytes([52, 1, 1, 6, 4]), bytes([52, 3, 1, 7, 2]),
         bytes([52, 3, 1, 7, 6]), bytes([52, 2, 1, 2, 1]), bytes([52, 4, 1, 4, 3]),
         bytes([52, 1, 2, 3, 6, 7, 1]), bytes([52, 8, 1, 6, 1]),
         bytes([52, 1, 1, 2, 0]), bytes([52, 1, 0, 9])],
    )  # fmt: skip
    s["sort-rank"] = program(
        keyed,
        [bytes([30, 1, 1, 1]),  # array 6: a dictionary of array 1
         bytes([53, 1, 2, 2, 1, 1, 0, 2, 1, 1, 3]), bytes([53, 3, 1, 0, 1, 1, 2, 0, 1, 7, 5]),
         bytes([53, 4, 1, 1, 1, 0, 1, 0, 1, 3]), bytes([54, 1, 0, 1, 1, 4]),
         bytes([54, 3, 1, 0, 2, 1]), bytes([54, 2, 2, 1, 1, 8]), bytes([54, 4, 0, 0, 2, 2]),
         bytes([53, 6, 1, 0, 1, 0, 1, 0, 1, 0]),
         bytes([55, 6, 1]), bytes([55, 6, 0, 3, 6, 6]), bytes([57, 1, 3, 2, 3, 1])],
    )  # fmt: skip
    views = [any_array("string_view", words + ["0123456789abcdefghij", "hello world"] * 2,
                       view_buffers=2),
             any_array("binary_view", ["0123456789abcdefghij", "a", "ab,"], view_buffers=1),
             any_array("fixed_size_binary", length=6, width=4)]  # fmt: skip
    s["views-and-fixed-binary"] = program(
        views,
        [bytes([3, 1, 1, 1]), bytes([29, 1, 0]), bytes([29, 2, 1]), bytes([15, 1, 0]),
         bytes([14, 1, 0, 1]), bytes([45, 2, 5, 1, 1]), bytes([45, 3, 2, 0, 0]),
         bytes([32, 1, 1, 2, 3]), bytes([17, 3, 1, 0]), bytes([19, 3, 2, 0, 3, 1, 3, 1])],
    )  # fmt: skip
    # The other new calls once each over an array of any type, raw arguments.
    for op in range(38, OPS_NOW):
        t = ALL_TYPES[rng2.randrange(len(ALL_TYPES))]
        if "string" in t or "binary" in t and t != "fixed_size_binary":
            arr = any_array(t, [WORDS[rng2.randrange(len(WORDS))] for _ in range(7)])
        else:
            arr = any_array(t, length=9, zone="Europe/Dublin", decimal=(9, 3), bitmap=1)
        s[f"op{op:02d}"] = program(
            [arr], [u8(op) + u8(1) + bytes(rng2.randrange(256) for _ in range(12))]
        )
    return s


def import_seed(mode, format_choice, array_bytes, schema_shape=0, tail=b""):
    return u8(mode) + u8(format_choice) + u8(schema_shape) + array_bytes + tail


def import_array(type_index, length, offset=0, bitmap_mode=1, null_count="true", shift=0):
    """import_fuzz's make_array bytes for an in-range array (length <= 40)."""
    nc = {"true": 0, "unknown": 2 << 3}[null_count]
    shape = nc
    more = (1 if offset else 0) | (shift << 5) | (bitmap_mode << 6)
    out = u8(shape) + u8(more) + u8(length)
    if offset:
        out += u8(offset)
    slots = offset + length
    if slots:
        out += bytes(rng.randrange(256) for _ in range(nbytes(slots, BITS[type_index])))
        if bitmap_mode == 1:
            out += bytes(rng.randrange(256) for _ in range(nbytes(slots, 1)))
    return out


def import_seeds():
    seeds = {}
    for i, fmt in enumerate(FORMATS):
        seeds[f"ok-{TYPES[i]}"] = import_seed(0, i, import_array(i, 9 + i, offset=i % 4))
        seeds[f"misaligned-{TYPES[i]}"] = import_seed(
            0, i, import_array(i, 5, bitmap_mode=0, null_count="unknown", shift=1)
        )
    # The device import, each device type (CPU, CUDA_HOST, CUDA, METAL, other).
    for d in range(5):
        seeds[f"device-{d}"] = import_seed(0x80, 4, import_array(4, 6), tail=u8(d | 32))
    seeds["empty-offset-null-buffers"] = import_seed(0, 4, u8(3) + u8(0) + u64(5))
    seeds["negative-length"] = import_seed(0, 4, u8(2) + u8(1) + u16(7) + u8(0))
    seeds["huge-offset"] = import_seed(0, 9, u8(2) + u8(4) + u8(3) + u64(1 << 60))
    seeds["null-count-out-of-range"] = import_seed(0, 3, u8(0x18 | 0x20) + u8(0) + u8(4))
    seeds["n-buffers-3"] = import_seed(0, 4, u8(0) + u8(8) + u8(4) + u8(4))
    seeds["children"] = import_seed(4 | 1, 4, u8(0x40) + u8(0) + u8(2) + bytes(20), schema_shape=4)
    seeds["dictionary"] = import_seed(4 | 1, 3, u8(0x20) + u8(0x80) + u8(2) + bytes(24), 32)
    seeds["released-array"] = import_seed(0x60, 4, import_array(4, 3))
    seeds["released-schema"] = import_seed(0x18, 4, import_array(4, 3))
    for name, fmt in [("utf8", 13), ("null-type", 12), ("struct", 20), ("raw", 224 + 3)]:
        seeds[f"format-{name}"] = import_seed(0, fmt, u8(0) + u8(0) + u8(3) + bytes(16))
    seeds.update(view_seeds())
    return seeds


def view_seeds():
    """import_fuzz's view arrays (make_view_array's bytes; fixed, no rng): shape,
    length, variadic buffer count, each buffer's size and bytes, then per slot its kind,
    its buffer and the view's parts, then the bitmap; last main's slice bounds."""
    data = b"0123456789abcdefghijklmnopqrstuvwxyzABCD"  # 40 bytes
    slots = (
        u8(0) + u8(0) + u8(5) + b"hello"  # inline
        + u8(1) + u8(0) + u8(7) + u8(3)  # 20 bytes at 3 of buffer 0
        + u8(0) + u8(0) + u8(0)  # the empty value
    )  # fmt: skip
    sound = u8(0) + u8(3) + u8(1) + u8(40) + data + slots + u8(0) + u8(2)
    near_miss = (
        u8(0) + u8(2) + u8(1) + u8(40) + data
        + u8(1) + u8(0) + u8(7) + u8(3)  # sound
        + u8(2) + u8(0) + u8(30) + u8(30) + u8(1)  # 43 bytes at 28 of buffer 0: past its end
    )  # fmt: skip
    # binary_view, views misaligned, a bitmap (slot 2 null, its view raw bytes), two buffers
    nulls = (
        u8(4 | 8) + u8(4) + u8(2) + u8(16) + data[:16] + u8(30) + data[10:40]
        + u8(1) + u8(1) + u8(4) + u8(2)  # 17 bytes at 2 of buffer 1
        + u8(0) + u8(0) + u8(12) + data[:12]  # 12 bytes inline
        + u8(3) + u8(0) + bytes(range(200, 216))  # raw bytes under a null
        + u8(1) + u8(0) + u8(0) + u8(0)  # 13 bytes at 0 of buffer 0
        + u8(0b1011)
    )  # fmt: skip
    return {
        "view-sound": import_seed(0, 29, sound),
        "view-near-miss": import_seed(0, 29, near_miss),
        "view-nulls-misaligned": import_seed(0, 30, nulls + u8(1) + u8(2)),
    }


def routes_seeds():
    rules = [
        "reduce cpu 100000 cuda",
        "compare cuda 5000 cpu",
        "arith cpu 1 metal",
        "cast metal 70 cpu",
        "logic cpu 0 cuda",
        "filter cpu 9223372036854775807 cuda",
        "take cuda 12 cpu",
        "unary cpu 33 cuda",
        "nulls cpu 44 cuda",
    ]
    seeds = {f"rule-{i}": line + "\n" for i, line in enumerate(rules)}
    seeds.update(
        {
            "table": "# measured\n" + "\n".join(rules) + "\n",
            "comments": "   # only a comment\n\n\t\r\nreduce cpu 10 cuda # trailing\n",
            "crlf": "reduce cpu 10 cuda\r\ntake cpu 3 cuda\r\n",
            "no-newline": "reduce cpu 10 cuda",
            "empty": "",
            "same-backend": "reduce cpu 10 cpu\n",
            "unknown-op": "sort cpu 10 cuda\n",
            "unknown-backend": "reduce tpu 10 cuda\n",
            "long-backend": "reduce cpuuuuuuuuuuuuuuuuuuuuu 10 cuda\n",
            "negative-rows": "reduce cpu -10 cuda\n",
            "rows-overflow": "reduce cpu 99999999999999999999 cuda\n",
            "rows-trailing": "reduce cpu 10x cuda\n",
            "three-fields": "reduce cpu 10\n",
            "five-fields": "reduce cpu 10 cuda extra\n",
            "65-rules": "reduce cpu 10 cuda\n" * 65,
            "long-line": "reduce cpu 10 cuda " + "#" * 1100 + "\n",
        }
    )
    return {name: text.encode() for name, text in seeds.items()}


def tzif_seeds():
    """TZif files of the system's tz database (public domain): versions 2 and up with
    a footer rule, a 30-minute DST, a negative one, none, UTC."""
    root = "/usr/share/zoneinfo"
    names = ["America/New_York", "Australia/Lord_Howe", "Europe/Dublin", "Asia/Kolkata",
             "America/Sao_Paulo", "UTC"]  # fmt: skip
    seeds = {}
    for name in names:
        with open(os.path.join(root, name), "rb") as f:
            seeds[name.replace("/", "-")] = f.read()
    return seeds


def write(target, seeds):
    directory = os.path.join(HERE, "corpus", target)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    for name, data in seeds.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write("ops_fuzz", {**ops_seeds(), **new_ops_seeds()})
    write("import_fuzz", import_seeds())
    write("routes_fuzz", routes_seeds())
    write("tzif_fuzz", tzif_seeds())
