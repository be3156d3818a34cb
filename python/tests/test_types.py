"""The type tables, built from the C library's am_type_info_get, agree with
pyarrow, numpy and cffi; type_id reads a type in every form a user writes."""

import pytest

import arrowmetal as am
from arrowmetal import _types
from arrowmetal._capi import ffi, lib

pa = pytest.importorskip("pyarrow")
np = pytest.importorskip("numpy")

TYPES = [t for t in range(1, _types.TYPE_COUNT) if _types.TYPE_NAMES[t] is not None]


def test_every_type_of_the_library_is_in_the_tables():
    assert _types.TYPE_COUNT == lib.am_type_count()
    assert [_types.TYPE_NAMES[t] for t in TYPES] == [
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
        "float16",
        "decimal128",
        "decimal256",
        *(f"timestamp[{u}]" for u in ("s", "ms", "us", "ns")),
        "date32[day]",
        "date64[ms]",
        "time32[s]",
        "time32[ms]",
        "time64[us]",
        "time64[ns]",
        *(f"duration[{u}]" for u in ("s", "ms", "us", "ns")),
        "string",
        "large_string",
        "binary",
        "large_binary",
        "fixed_size_binary",
        "string_view",
        "binary_view",
    ]
    assert _types.TYPE_NAMES[0] is None and _types.KINDS[0] == -1


NUMERIC = [
    t
    for t in TYPES
    if _types.KINDS[t] not in (_types.KIND_TEMPORAL, _types.KIND_BINARY, _types.KIND_DECIMAL)
]
TEMPORAL = [t for t in TYPES if _types.KINDS[t] == _types.KIND_TEMPORAL]


@pytest.mark.parametrize("t", TEMPORAL)
def test_temporal_rows_agree_with_pyarrow(t):
    pa_type = pa.type_for_alias(_types.ARROW_NAMES[t])
    assert str(pa_type) == _types.ARROW_NAMES[t] == _types.TYPE_NAMES[t]
    assert _types.BIT_WIDTHS[t] == pa_type.bit_width == 8 * _types.ITEM_SIZES[t]
    a = am.array(pa.array([1, None, -3], pa_type))
    assert a.type == _types.TYPE_NAMES[t]
    assert a.to_pyarrow().equals(pa.array([1, None, -3], pa_type))
    if _types.NUMPY_NAMES[t] is not None:
        assert _types.numpy_types()[np.dtype(_types.NUMPY_NAMES[t])] == t


def test_a_timestamps_time_zone_travels_with_the_array():
    pa_type = pa.timestamp("us", tz="Europe/Paris")
    a = am.array(pa.array([0, None], pa_type))
    assert a.arrow_format == "tsu:Europe/Paris"
    assert ffi.string(lib.am_array_timezone(a._ptr)) == b"Europe/Paris"
    assert a.to_pyarrow().type == pa_type
    assert am.take(a, pa.array([1, 0])).to_pyarrow().type == pa_type


def test_the_reserved_type_numbers_are_not_types():
    info = ffi.new("am_type_info *")
    for t in (15, lib.am_type_count()):
        assert lib.am_type_info_get(t, info) == lib.AM_ETYPE


@pytest.mark.parametrize("t", NUMERIC)
def test_tables_agree_with_pyarrow_numpy_and_cffi(t):
    name = _types.TYPE_NAMES[t]
    pa_type = pa.type_for_alias(_types.ARROW_NAMES[t])
    assert str(pa_type) == _types.ARROW_NAMES[t]
    assert _types.BIT_WIDTHS[t] == pa_type.bit_width
    empty = am.array(pa.array([], pa_type))
    assert empty.type == name
    assert empty.arrow_format.encode() == _types.FORMATS[t]
    assert ffi.string(lib.am_type_format(t)) == _types.FORMATS[t]
    assert _types.FORMAT_TO_TYPE[_types.FORMATS[t]] == t
    dtype = np.dtype(_types.NUMPY_NAMES[t])
    assert _types.numpy_types()[dtype] == t
    kind = _types.KINDS[t]
    letters = {_types.KIND_BOOL: "b", _types.KIND_SIGNED: "i", _types.KIND_UNSIGNED: "u"}
    assert dtype.kind == letters.get(kind, "f")
    if kind == _types.KIND_BOOL:
        assert _types.ITEM_SIZES[t] == 0  # bits
        assert _types.CTYPE_NAMES[t] is None and _types.ARRAY_INTERFACE_CODES[t] is None
    elif kind == _types.KIND_FLOAT16:  # no C value type: read through numpy or pyarrow
        assert _types.ITEM_SIZES[t] == dtype.itemsize == 2 and _types.CTYPE_NAMES[t] is None
        assert _types.ARRAY_INTERFACE_CODES[t] == dtype.str[1:] == "f2"
    else:
        assert _types.ITEM_SIZES[t] == dtype.itemsize == ffi.sizeof(_types.CTYPE_NAMES[t])
        assert _types.ARRAY_INTERFACE_CODES[t] == dtype.str[1:]
    if kind in (_types.KIND_SIGNED, _types.KIND_UNSIGNED):
        info = np.iinfo(dtype)
        assert _types.INT_RANGES[t] == (int(info.min), int(info.max) + 1)


@pytest.mark.parametrize("t", NUMERIC)
def test_type_id_reads_every_form(t):
    name = _types.TYPE_NAMES[t]
    assert am.type_id(name) == am.type_id(name.upper()) == t
    assert am.type_id(_types.ARROW_NAMES[t]) == t
    assert am.type_id(pa.type_for_alias(_types.ARROW_NAMES[t])) == t
    assert am.type_id(np.dtype(_types.NUMPY_NAMES[t])) == t
    assert am.type_id(t) == t and am.type_name(t) == name


def test_type_id_aliases_and_refusals():
    for alias, name in {
        "double": "float64",
        "float": "float32",
        "boolean": "bool",
        "i8": "int64",
        "u1": "uint8",
        "f4": "float32",
    }.items():
        assert am.type_name(am.type_id(alias)) == name
    assert am.type_id(bool) == lib.AM_BOOL and am.type_id(float) == lib.AM_FLOAT64
    assert am.type_id(int) == lib.AM_INT64
    assert am.type_id(np.dtype(">i4")) == lib.AM_INT32  # byte order aside
    assert am.type_id("halffloat") == am.type_id(np.float16) == lib.AM_FLOAT16
    for bad in ("float128", "utf16", 0, _types.TYPE_COUNT, pa.month_day_nano_interval(),
                np.complex64, object()):  # fmt: skip
        with pytest.raises(am.ArrowMetalTypeError):
            am.type_id(bad)
