"""The temporal field extraction GPU kernel (kernel_source_temporal.c:
TEMPORAL_FIELD) run where there is no GPU: its CUDA source, as the generator
writes it, compiled as C++ against the CPU emulation of CUDA (emu/cuda_emu.h)
and launched as gpu/ops_temporal.c launches it, on inputs with offsets,
nulls, pre-1970 values and several blocks; each result against
pyarrow.compute's. One type per field keeps the compiles few (CI time); the
GPU runs of every field x type are the conformance cases on the H200."""

import pathlib
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import test_nulls_kernels as emu
from test_nulls_kernels import Args, as_array, bind, output  # the emulation's buffers

kernels = emu.kernels  # the fixture: kernel name -> a runner over (blocks, Args)

FIELDS = ["year", "month", "day", "day_of_week", "day_of_year", "hour", "minute", "second",
          "millisecond", "microsecond", "nanosecond", "quarter", "iso_week", "iso_year"]  # fmt: skip
# One type per field, every unit and storage width among them.
TYPE_OF = {
    "year": pa.timestamp("s"),
    "month": pa.date32(),
    "day": pa.timestamp("ns"),
    "day_of_week": pa.date64(),
    "day_of_year": pa.timestamp("ms"),
    "hour": pa.time32("s"),
    "minute": pa.timestamp("us"),
    "second": pa.time64("ns"),
    "millisecond": pa.time32("ms"),
    "microsecond": pa.timestamp("ns"),
    "nanosecond": pa.time64("us"),
    "quarter": pa.timestamp("us"),
    "iso_week": pa.date32(),
    "iso_year": pa.timestamp("s"),
}
PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def name_of(field, t):
    return f"am_{field}_" + str(t).replace("[", "_").replace("]", "")


def values(t, n, seed, offset):
    rng = np.random.default_rng(seed)
    if pa.types.is_date32(t):
        lo, hi = -2_900_000, 2_900_000  # about 8,000 years either side of 1970
    elif pa.types.is_date64(t):
        days = rng.integers(-2_900_000, 2_900_000, n + offset)
        return _with_nulls([int(d) * 86_400_000 for d in days], t, rng, offset)
    elif pa.types.is_time32(t) or pa.types.is_time64(t):
        lo, hi = 0, 86400 * PER_SECOND[t.unit] - 1
    elif t.unit == "ns":
        lo, hi = -(2**63), 2**63 - 1
    else:
        lo, hi = -(250_000_000_000 * PER_SECOND[t.unit]), 250_000_000_000 * PER_SECOND[t.unit]
    v = [int(x) for x in rng.integers(lo, hi, n + offset, endpoint=True, dtype=np.int64)]
    return _with_nulls(v, t, rng, offset)


def _with_nulls(v, t, rng, offset):
    mask = rng.random(len(v)) < 0.25
    return pa.array([None if m else x for x, m in zip(v, mask)], type=t).slice(offset)


def run(kernels, field, x, blocks, week_start=1, count_from_zero=True):
    n = len(x)
    data, valid = output(pa.int64(), n, True)
    args = Args(n=n, aux=week_start | (1 if count_from_zero else 0) << 8)
    bind(args, 0, x)
    args.out = data.ctypes.data
    args.out_valid = valid.ctypes.data
    kernels(name_of(field, x.type), blocks, args)
    return as_array(pa.int64(), n, data, valid)


@pytest.mark.parametrize("field", FIELDS)
def test_field_matches_pyarrow(kernels, field):
    t = TYPE_OF[field]
    for n, blocks, offset in ((1000, 2, 3), (70, 1, 0)):
        x = values(t, n, n + len(field), offset)
        got = run(kernels, field, x, blocks)
        want = getattr(pc, field)(x)
        assert got.to_pylist() == want.to_pylist(), (field, t, n)


def test_day_of_week_options_come_in_the_arguments(kernels):
    x = values(pa.date64(), 200, 7, 1)
    for ws in (1, 3, 7):
        for zero in (True, False):
            got = run(kernels, "day_of_week", x, 1, ws, zero)
            want = pc.day_of_week(x, week_start=ws, count_from_zero=zero)
            assert got.to_pylist() == want.to_pylist(), (ws, zero)


# ---- ROUND_TEMPORAL (floor/ceil/round_temporal) ----------------------------------------

UNITS = ["nanosecond", "microsecond", "millisecond", "second", "minute", "hour", "day", "week",
         "month", "quarter", "year"]  # fmt: skip
# (unit, type): every unit and every type among them, the wrapping ones too (a
# timestamp[s] to nanoseconds, a date32 to microseconds multiply past int64).
ROUND_KERNELS = [
    ("nanosecond", pa.timestamp("s")),
    ("microsecond", pa.date32()),
    ("millisecond", pa.time32("s")),
    ("second", pa.timestamp("ns")),
    ("minute", pa.time64("us")),
    ("hour", pa.date64()),
    ("hour", pa.duration("s")),
    ("day", pa.duration("ms")),
    ("day", pa.time64("ns")),
    ("week", pa.timestamp("us")),
    ("month", pa.time32("ms")),
    ("quarter", pa.timestamp("ms")),
    ("year", pa.date32()),
    ("second", pa.duration("ns")),
    ("minute", pa.duration("us")),
]
FLAG_SETS = [(m, s, c) for m in (True, False) for s in (False, True) for c in (False, True)]


def round_values(t, n, seed, offset):
    """Storage integers over the type's whole range (or a random scale of it),
    a quarter null, sliced by `offset`."""
    rng = np.random.default_rng(seed)
    bits = t.bit_width
    top = 2 ** (bits - 1)
    v = rng.integers(-top, top, n + offset, dtype=np.int64)
    v[: (n + offset) // 2] >>= rng.integers(0, bits - 4, (n + offset) // 2)  # smaller scales
    storage = pa.int32() if bits == 32 else pa.int64()
    mask = rng.random(n + offset) < 0.25
    return pa.array(v, storage, mask=mask).view(t).slice(offset)


def run_round(kernels, unit, x, blocks, op, multiple, flags):
    n = len(x)
    storage = pa.int32() if x.type.bit_width == 32 else pa.int64()
    data, valid = output(storage, n, True)
    monday, strict, calendar = flags
    bits = int(monday) | int(strict) << 1 | int(calendar) << 2
    args = Args(n=n, aux=multiple | bits << 32 | op << 40)
    bind(args, 0, x)
    args.out = data.ctypes.data
    args.out_valid = valid.ctypes.data
    name = "am_round_temporal_" + unit + "_" + str(x.type).replace("[", "_").replace("]", "")
    kernels(name, blocks, args)
    return as_array(storage, n, data, valid).view(x.type)


@pytest.mark.parametrize("unit,t", ROUND_KERNELS, ids=lambda p: str(p))
def test_round_temporal_matches_pyarrow(kernels, unit, t):
    """Each function x multiples (one past 2^31 / 7 where pyarrow wraps) x every
    flag set, on several blocks and on one; a duration without calendar_based_origin,
    as the ABI gives it (its weeks as days)."""
    duration = pa.types.is_duration(t)
    for n, blocks, offset in ((1000, 2, 3), (70, 1, 0)):
        x = round_values(t, n, n + len(unit), offset)
        for op, name in enumerate(("floor_temporal", "ceil_temporal", "round_temporal")):
            for multiple in (1, 3, 7, 2**31 - 1):
                for flags in FLAG_SETS:
                    if duration and flags[2]:
                        continue
                    got = run_round(kernels, unit, x, blocks, op, multiple, flags)
                    opts = pc.RoundTemporalOptions(multiple, unit, week_starts_monday=flags[0],
                                                   ceil_is_strictly_greater=flags[1],
                                                   calendar_based_origin=flags[2])  # fmt: skip
                    want = getattr(pc, name)(x, options=opts)
                    assert got.equals(want), (name, unit, t, multiple, flags, n)
