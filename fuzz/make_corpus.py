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
OPS = 38  # cases of ops_fuzz.c's step()

rng = random.Random(15)


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
    write("ops_fuzz", ops_seeds())
    write("import_fuzz", import_seeds())
    write("routes_fuzz", routes_seeds())
    write("tzif_fuzz", tzif_seeds())
