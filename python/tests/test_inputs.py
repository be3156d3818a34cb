"""Accepted inputs: numpy arrays, chunked arrays and streams, sequences, scalars."""

import gc

import pytest

import arrowmetal as am

from .fresh import run_python

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")
np = pytest.importorskip("numpy")


@pytest.mark.parametrize(
    "dtype",
    [
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
    ],
)
def test_numpy_dtypes_zero_copy(dtype):
    x = np.arange(1, 11).astype(dtype)
    a = am.array(x)
    assert a.type == dtype
    assert a.null_count == 0
    assert a.to_pylist() == x.tolist()
    assert am.sum(x) == pc.sum(pa.array(x)).as_py()
    if a.device == "cpu":
        assert a.to_pyarrow().buffers()[1].address == x.ctypes.data


def test_numpy_bool_is_packed():
    x = np.array([True, False, True, True, False, False, False, True, True])
    a = am.array(x)
    assert a.type == "bool"
    assert a.to_pylist() == x.tolist()
    assert am.sum(x) == 5
    assert am.filter(np.arange(9), x).to_pylist() == [0, 2, 3, 7, 8]


def test_numpy_layouts():
    x = np.arange(20, dtype=np.int64)
    assert am.array(x[::2]).to_pylist() == list(range(0, 20, 2))  # strided: copied
    assert am.array(x[3:7]).to_pylist() == [3, 4, 5, 6]  # offset view: zero-copy
    assert am.array(x.astype(">i4")).to_pylist() == list(range(20))  # byte-swapped
    assert am.array(np.array([], dtype=np.float64)).to_pylist() == []
    with pytest.raises(ValueError):
        am.array(np.zeros((2, 2)))
    with pytest.raises(TypeError):
        am.array(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        am.array(np.zeros(3, dtype=np.complex64))


def test_numpy_memory_outlives_caller_reference():
    x = np.arange(1000, dtype=np.int64)
    a = am.array(x)
    del x
    gc.collect()
    assert am.sum(a) == 499500


def test_numpy_masked_array():
    m = np.ma.masked_array([1, 2, 3], mask=[False, True, False])
    assert am.array(m).to_pylist() == [1, None, 3]


def test_chunked_array():
    single = pa.chunked_array([[1, 2, 3]])
    assert am.array(single).to_pylist() == [1, 2, 3]
    multi = pa.chunked_array([[1, 2], [None, 4], [], [5]])
    a = am.array(multi)
    assert a.to_pylist() == [1, 2, None, 4, 5]
    assert am.sum(multi) == pc.sum(multi).as_py()
    assert am.greater(multi, 1).to_pylist() == [False, True, None, True, True]
    empty = pa.chunked_array([], pa.float32())
    e = am.array(empty)
    assert e.type == "float32" and len(e) == 0


class _Stream:
    """A producer that only speaks the stream protocol."""

    def __init__(self, chunks, type=None):
        self._ca = pa.chunked_array(chunks, type=type)

    def __arrow_c_stream__(self, requested_schema=None):
        return self._ca.__arrow_c_stream__(requested_schema)


def test_generic_stream():
    assert am.array(_Stream([[1, 2, 3]])).to_pylist() == [1, 2, 3]
    assert am.array(_Stream([[1.5], [None, 2.5]])).to_pylist() == [1.5, None, 2.5]
    e = am.array(_Stream([], type=pa.int16()))
    assert e.type == "int16" and len(e) == 0
    assert am.sum(_Stream([[1, 2], [3]])) == 6


def test_record_batch_reader_stream_error():
    class Broken:
        def __arrow_c_stream__(self, requested_schema=None):
            raise RuntimeError("producer failed")

    with pytest.raises(RuntimeError, match="producer failed"):
        am.array(Broken())


def test_unsupported_arrow_type():
    with pytest.raises(TypeError):
        am.array(pa.array([pa.MonthDayNano([1, 2, 3])], pa.month_day_nano_interval()))
    # pyarrow.compute runs it (test_fallback.py), and refuses it as pyarrow does
    with pytest.raises(pa.ArrowNotImplementedError):
        am.sum(pa.array(["a", "b"]))


def test_sequences():
    assert am.array((1, 2, 3)).to_pylist() == [1, 2, 3]
    assert am.array([1.5, None]).type == "float64"
    assert am.array([True, False]).type == "bool"
    assert am.sum([1, 2, 3]) == 6
    assert am.take([10, 20, 30], [2, 0]).to_pylist() == [30, 10]
    assert am.filter([1, 2, 3], [True, False, True]).to_pylist() == [1, 3]


def test_python_scalars():
    x = pa.array([1, 2, 3], pa.int64())
    assert am.multiply(x, 0.5).to_pylist() == [0.5, 1.0, 1.5]
    assert am.equal(x, None).null_count == 3


PA_NAMES = {"float": "float32", "double": "float64"}


@pytest.mark.parametrize(
    "scalar", [np.int8(2), np.uint8(2), np.float32(2), np.float64(2), np.int64(2)]
)
def test_numpy_scalars(scalar):
    x = pa.array([1, 2, 3], pa.int64())
    r = am.add(x, scalar)
    expected = pc.add(x, pa.scalar(scalar))
    assert r.type == PA_NAMES.get(str(expected.type), str(expected.type))
    assert r.to_pylist() == expected.to_pylist()


def test_numpy_scalar_keeps_its_type():
    x = pa.array([1, 2, 3], pa.int8())
    assert am.add(x, np.int8(1)).type == "int8"
    assert am.add(x, 1).type == str(pc.add(x, 1).type)  # a Python int is an int64 scalar
    f = pa.array([1.0], pa.float32())
    assert am.multiply(f, np.float32(2)).type == "float32"
    assert am.greater(np.float32(1.5), f).to_pylist() == [True]


def test_pyarrow_scalars():
    x = pa.array([1, 2, 3], pa.int32())
    assert am.add(x, pa.scalar(1, pa.int32())).type == "int32"
    assert am.add(x, pa.scalar(None, pa.int32())).null_count == 3
    assert am.add(x, pa.scalar(None)).null_count == 3
    assert am.less(x, pa.scalar(2.5)).to_pylist() == [True, True, False]


def test_mixed_inputs():
    x = np.array([1, 2, 3], dtype=np.int64)
    y = pa.array([3, 2, 1], pa.int64())
    assert am.add(x, y).to_pylist() == [4, 4, 4]
    assert am.less(am.array(x), y).to_pylist() == [True, False, False]
    assert am.subtract(y, am.array(x)).to_pylist() == [2, 0, -2]


class _Swapped:
    """A producer that hands its two capsules over in the wrong order."""

    def __init__(self, src):
        self._src = src

    def __arrow_c_array__(self, requested_schema=None):
        sc, ac = self._src.__arrow_c_array__()
        return ac, sc


class _NotCapsules:
    """A producer whose "capsules" are other objects."""

    def __arrow_c_array__(self, requested_schema=None):
        return object(), "arrow_array"


class _DeviceSwapped:
    def __init__(self, src):
        self._src = src

    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
        sc, ac = self._src.__arrow_c_device_array__()
        return ac, sc


def test_capsules_are_read_through_the_c_api():
    # The pointer a capsule holds, as CPython's own PyCapsule_GetPointer reads it.
    import ctypes

    from arrowmetal import _capi

    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    sc, ac = pa.array([1, 2, 3]).__arrow_c_array__()
    assert _capi.capsule_pointer(sc, b"arrow_schema") == get_pointer(sc, b"arrow_schema")
    assert _capi.capsule_pointer(ac, b"arrow_array") == get_pointer(ac, b"arrow_array")
    # A wrong name or an object that is no capsule: 0, and no exception left set.
    assert _capi.capsule_pointer(sc, b"arrow_array") == 0
    assert _capi.capsule_pointer(object(), b"arrow_array") == 0
    assert _capi.capsule_pointer(b"arrow_array", b"arrow_array") == 0
    out = _capi.ffi.new("am_array **")
    assert _capi.import_capsules(ac, sc, _capi.ffi.NULL, out) == _capi.CAPSULE_MISMATCH
    assert _capi.import_capsules(sc, ac, _capi.ffi.NULL, out) == 0
    try:
        assert _capi.lib.am_length(out[0]) == 3
    finally:
        _capi.lib.am_release(out[0])


@pytest.mark.parametrize("producer", [_Swapped, _NotCapsules, _DeviceSwapped])
def test_capsule_names_are_checked(producer):
    src = pa.array([1, 2, 3])
    bad = producer() if producer is _NotCapsules else producer(src)
    for call in (am.array, am.sum, lambda x: am.add(x, 1), lambda x: am.filter(x, x)):
        with pytest.raises(am.ArrowMetalInvalid, match="expected PyCapsules named") as info:
            call(bad)
        assert isinstance(info.value, ValueError)
    assert am.sum(src) == 6 and am.array(src).to_pylist() == [1, 2, 3]


def test_capsule_checks_in_abi_mode():
    # ABI mode (no compiled module) reads capsules through ctypes instead.
    import os
    import subprocess
    import sys

    code = (
        "import pyarrow as pa, arrowmetal as am\n"
        "from arrowmetal import _capi\n"
        "src = pa.array([1, None, 3])\n"
        "class Swapped:\n"
        "    def __arrow_c_array__(self, requested_schema=None):\n"
        "        sc, ac = src.__arrow_c_array__()\n"
        "        return ac, sc\n"
        "class Device:\n"
        "    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):\n"
        "        return src.__arrow_c_device_array__()\n"
        "try:\n"
        "    am.sum(Swapped())\n"
        "except am.ArrowMetalInvalid as e:\n"
        "    print('refused', str(e).startswith('expected PyCapsules named'))\n"
        "print(_capi.mode, am.sum(src), am.array(Device()).to_pylist(),\n"
        "      am.array(pa.chunked_array([[1], [2]])).to_pylist())\n"
    )
    env = dict(os.environ, ARROWMETAL_CFFI="abi")
    python_dir = os.path.dirname(os.path.dirname(am.__file__))
    rest = os.environ.get("PYTHONPATH")
    env["PYTHONPATH"] = python_dir + (os.pathsep + rest if rest else "")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout == "refused True\nabi 4 [1, None, 3] [1, 2]\n"


def test_a_stream_capsule_name_is_checked():
    class WrongCapsule:
        def __arrow_c_stream__(self, requested_schema=None):
            return pa.array([1]).__arrow_c_array__()[0]  # an arrow_schema capsule

    with pytest.raises(am.ArrowMetalInvalid, match="'arrow_array_stream', got <capsule"):
        am.array(WrongCapsule())


def test_a_requested_schema_that_is_no_capsule_is_ignored():
    a = am.array(pa.array([1, 2]), device="cpu")
    sc, ac = a.__arrow_c_array__(requested_schema=object())
    assert pa.Array._import_from_c_capsule(sc, ac).to_pylist() == [1, 2]


class _FakeCudaArray:
    """A CUDA Array Interface producer (no memory behind it)."""

    @property
    def __cuda_array_interface__(self):
        return {
            "shape": (3,),
            "typestr": "<i8",
            "data": (4096, False),
            "version": 3,
            "strides": None,
            "stream": 1,
        }


def test_cuda_array_interface_without_cuda():
    if {name: ok for name, ok, _ in am.backends()}["cuda"]:
        pytest.skip("CUDA works here: test_cuda_interop covers the interface")
    # The CUDA device the producer names cannot open: the library says why
    # (nothing is loaded behind its back to wait on the producer's stream).
    with pytest.raises(am.ArrowMetalUnsupported):
        am.array(_FakeCudaArray())
    a = am.array([1, 2, 3])
    assert not hasattr(a, "__cuda_array_interface__")  # a CPU array does not claim it


def test_empty_and_all_null_sequences():
    assert am.array([]).to_pylist() == []
    assert am.array([]).type == "float64"  # no value to infer from: numpy's choice
    assert am.array([], type="int8").type == "int8"
    assert am.array([None, None]).null_count == 2
    assert am.sum(am.array([])).as_py() is None
    assert am.sum(am.array([]), min_count=0) == 0.0


def test_lists_without_pyarrow_or_numpy():
    """The base install (cffi only) builds arrays from Python lists."""
    code = """
import sys
sys.modules["pyarrow"] = None
sys.modules["numpy"] = None
import arrowmetal as am
print(am.array([1, None, 3]).to_pylist(), am.sum(am.array([1, None, 3])))
print(am.array([True, None]).type, am.array([1, 2.5]).type, am.array([]).type)
try:
    am.array(["a"])
except am.ArrowMetalUnsupported as e:
    print(e)
"""
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "[1, None, 3] 4"
    assert lines[1] == "bool float64 float64"
    assert "pip install pyarrow" in lines[2]
