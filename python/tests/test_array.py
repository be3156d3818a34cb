"""am.Array: properties, operators, slicing, conversions, capsules, lifetime."""

import gc
import weakref

import pytest

import arrowmetal as am
from arrowmetal import _exporters, _importers
from arrowmetal._capi import ffi

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")
np = pytest.importorskip("numpy")


def data_address(arr):
    """Address of a pyarrow array's data buffer (buffer 1)."""
    return arr.buffers()[1].address


def test_properties():
    src = pa.array([1, None, 3], pa.int32())
    a = am.array(src)
    assert isinstance(a, am.Array)
    assert len(a) == 3
    assert a.type == "int32"
    assert a.arrow_format == "i"
    assert a.null_count == 1
    assert a.device == "cpu" or ":" in a.device
    assert isinstance(a.backend, str)
    assert a.to_pylist() == [1, None, 3]
    assert list(a) == [1, None, 3]
    for t, name in [
        (pa.bool_(), "bool"),
        (pa.int8(), "int8"),
        (pa.uint64(), "uint64"),
        (pa.float32(), "float32"),
        (pa.float64(), "float64"),
    ]:
        assert am.array(pa.array([], t)).type == name


def test_array_constructor_forms():
    src = pa.array([1, 2, 3])
    a = am.Array(src)
    assert a.to_pylist() == [1, 2, 3]
    b = am.array(a)
    assert b is a  # immutable: no new handle needed
    c = am.Array(a)  # a new handle over the same buffers
    assert c is not a and c.to_pylist() == [1, 2, 3]
    d = am.array([1, 2, None])
    assert d.type == "int64" and d.to_pylist() == [1, 2, None]
    e = am.array([1, 2], type="float32")
    assert e.type == "float32" and e.to_pylist() == [1.0, 2.0]
    with pytest.raises(TypeError):
        am.array(object())
    with pytest.raises(TypeError):
        am.array(5)


def test_repr():
    r = repr(am.array(pa.array(range(20))))
    assert "int64" in r and "length=20" in r and "..." in r
    r = repr(am.array(pa.array([1.5, None])))
    assert "null" in r and "1.5" in r


def test_truth_value_is_ambiguous():
    with pytest.raises(ValueError):
        bool(am.array([1]))


def test_operators():
    x = pa.array([1, 2, None, 4], pa.int64())
    y = pa.array([4, 2, 1, None], pa.int64())
    a, b = am.array(x), am.array(y)
    cases = [
        (a == b, pc.equal(x, y)),
        (a != b, pc.not_equal(x, y)),
        (a < b, pc.less(x, y)),
        (a <= b, pc.less_equal(x, y)),
        (a > b, pc.greater(x, y)),
        (a >= b, pc.greater_equal(x, y)),
        (a + b, pc.add(x, y)),
        (a - b, pc.subtract(x, y)),
        (a * b, pc.multiply(x, y)),
        (a / b, pc.divide(x, y)),
        (a + 1, pc.add(x, 1)),
        (1 + a, pc.add(1, x)),
        (5 - a, pc.subtract(5, x)),
        (10 / a, pc.divide(10, x)),
        (2.5 * a, pc.multiply(2.5, x)),
        (a > 2, pc.greater(x, 2)),
        (2 < a, pc.greater(x, 2)),
        (a == 2, pc.equal(x, 2)),
        (a + x, pc.add(x, x)),  # foreign operand on the right
        (am.subtract(x, a), pc.subtract(x, x)),  # (pyarrow >= 25 has its own Array.__sub__)
    ]
    for got, expected in cases:
        assert got.to_pyarrow().equals(expected), (got, expected)


def test_logical_operators():
    p = pa.array([True, False, None, True])
    q = pa.array([True, True, False, None])
    a, b = am.array(p), am.array(q)
    assert (a & b).to_pyarrow().equals(pc.and_(p, q))
    assert (a | b).to_pyarrow().equals(pc.or_(p, q))
    assert (~a).to_pyarrow().equals(pc.invert(p))
    assert (a & True).to_pyarrow().equals(pc.and_(p, True))
    assert (False | a).to_pyarrow().equals(pc.or_(p, False))


def test_operators_with_numpy():
    x = np.array([1, 2, 3], dtype=np.int64)
    a = am.array(x)
    assert (x + a).to_pylist() == [2, 4, 6]  # numpy defers to Array's reflected operator
    assert (a * x).to_pylist() == [1, 4, 9]
    assert (np.int64(2) < a).to_pylist() == [False, False, True]
    assert (a == np.float64(2.0)).to_pylist() == [False, True, False]


def test_unsupported_operand_gives_notimplemented():
    a = am.array([1, 2])
    assert (a == "x") is False
    assert (a != "x") is True
    with pytest.raises(TypeError):
        a + "x"
    with pytest.raises(TypeError):
        "x" - a


def test_slicing_and_indexing():
    src = pa.array([0, 1, 2, None, 4, 5, 6])
    a = am.array(src)
    assert a[2:5].to_pylist() == [2, None, 4]
    assert a[-2:].to_pylist() == [5, 6]
    assert a[:100].to_pylist() == src.to_pylist()
    assert len(a[5:2]) == 0
    assert a.slice(1, 2).to_pylist() == [1, 2]
    assert a.slice(5).to_pylist() == [5, 6]
    assert a[0] == 0 and a[-1] == 6 and a[3] is None
    assert a[np.int64(4)] == 4
    if a.device != "cpu":
        a = am.array(src, device="cpu")  # for the buffer address checks below
    with pytest.raises(IndexError):
        a[7]
    with pytest.raises(IndexError):
        a[-8]
    with pytest.raises(NotImplementedError):
        a[::2]
    with pytest.raises(TypeError):
        a["x"]
    with pytest.raises(ValueError):
        a.slice(-1, 2)
    # slices of slices, and zero-copy
    s = a[1:6][1:3]
    assert s.to_pylist() == [2, None]
    assert data_address(a[2:4].to_pyarrow()) == data_address(src)


def test_to_pyarrow_zero_copy():
    src = pa.array(np.arange(1000, dtype=np.int64))
    a = am.array(src)
    out = a.to_pyarrow()
    assert out.equals(src)
    if a.device == "cpu":
        assert data_address(out) == data_address(src)


def test_arrow_c_array_roundtrip_zero_copy():
    src = pa.array([1.5, None, 3.25, 4.0])
    a = am.array(src, device="cpu")  # pa.array() takes only CPU data without pyarrow.cuda
    out = pa.array(a)  # through __arrow_c_array__
    assert out.equals(src)
    assert data_address(out) == data_address(src)
    assert out.buffers()[0].address == src.buffers()[0].address
    sc, ac = a.__arrow_c_array__()
    assert type(sc).__name__ == "PyCapsule"
    del sc, ac  # never consumed: the destructors release the exports
    gc.collect()
    # Re-importing the export gives the same buffers again.
    b = am.array(pa.array(a), device="cpu")
    assert data_address(b.to_pyarrow()) == data_address(src)


def test_arrow_c_device_array():
    src = pa.array([1, 2, 3], pa.int16())
    a = am.array(src, device="cpu")
    sc, dc = a.__arrow_c_device_array__()
    out = pa.Array._import_from_c_device_capsule(sc, dc)
    assert out.equals(src)
    if a.device == "cpu":
        assert data_address(out) == data_address(src)
    with pytest.raises(NotImplementedError):
        a.__arrow_c_device_array__(bogus=1)
    del sc, dc


class _DeviceOnly:
    """A producer that only speaks the device protocol."""

    def __init__(self, arr):
        self._arr = arr

    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
        return self._arr.__arrow_c_device_array__(requested_schema, **kwargs)


def test_import_device_producer():
    src = pa.array([1, None, 3], pa.int64())
    a = am.array(_DeviceOnly(src))
    assert a.to_pylist() == [1, None, 3]
    assert am.sum(_DeviceOnly(src)) == 4
    b = am.array(_DeviceOnly(am.array(src)))
    assert b.to_pylist() == [1, None, 3]


def test_to_numpy():
    x = np.arange(10, dtype=np.float32)
    a = am.array(x)
    y = a.to_numpy()
    assert y.dtype == np.float32 and (y == x).all()
    if a.device == "cpu":
        assert y.ctypes.data == x.ctypes.data  # zero-copy both ways
    assert not y.flags.writeable
    assert a.to_numpy(writable=True).flags.writeable
    n = am.array(pa.array([1, None, 3])).to_numpy()
    assert n.dtype == np.float64 and np.isnan(n[1]) and n[2] == 3
    assert (
        am.array(pa.array([True, False, True])).to_numpy() == np.array([True, False, True])
    ).all()
    bn = am.array(pa.array([True, None])).to_numpy()
    assert bn.dtype == object and bn[1] is None
    assert np.asarray(am.array([1, 2])).tolist() == [1, 2]
    sl = am.array(np.arange(10))[3:6].to_numpy()
    assert sl.tolist() == [3, 4, 5]
    assert am.array(pa.array([], pa.int8())).to_numpy().dtype == np.int8
    with pytest.raises(ValueError):
        am.array(pa.array([1, None])).to_numpy(zero_copy_only=True)


def test_to_numpy_keeps_export_alive():
    a = am.array(np.arange(100, dtype=np.int64))
    v = a.to_numpy()
    del a
    gc.collect()
    assert v.sum() == 4950


def test_equals_and_pickle():
    import pickle

    a = am.array(pa.array([1.0, None, float("nan")]))
    assert a.equals(pa.array([1.0, None, float("nan")]))
    assert not a.equals(pa.array([1.0, None, 2.0]))
    assert not a.equals(pa.array([1, None, 2]))
    b = pickle.loads(pickle.dumps(a))
    assert b.type == a.type and b.equals(a)


def test_full():
    assert am.full(7, 3).to_pylist() == [7, 7, 7]
    f = am.full(1, 2, type="float32")
    assert f.type == "float32" and f.to_pylist() == [1.0, 1.0]
    n = am.full(None, 2, type="int16")
    assert n.type == "int16" and n.null_count == 2
    assert am.full(True, 3).type == "bool"
    with pytest.raises(ValueError):
        am.full(None, 2)
    with pytest.raises(OverflowError):
        am.full(300, 2, type="uint8")


def test_lifetime_many_imports_exports():
    """Every handle and export is released exactly once (a double release or
    a use after free would crash or corrupt the values)."""
    src = pa.array(np.arange(64, dtype=np.int64))
    np_src = np.arange(64, dtype=np.float64)
    refs = []
    for i in range(1000):
        a = am.array(src, device="cpu")
        b = am.array(np_src)
        if i % 7 == 0:
            refs.append(weakref.ref(a))
        out = pa.array(a)  # export through capsules
        s = a[1:3]
        assert am.sum(out) == 2016
        assert am.sum(b) == 2016.0
        sc, ac = a.__arrow_c_array__()
        del a, b, out, s, sc, ac
    gc.collect()
    assert all(r() is None for r in refs)
    assert am.sum(src) == 2016


def test_numpy_release_drops_reference():
    x = np.arange(32, dtype=np.int32)
    before = _importers.kept_producers()
    a = am.array(x)
    assert am.sum(a) == 496
    del a
    gc.collect()
    assert _importers.kept_producers() == before
    # A temporary import inside a call is released at once, too.
    am.sum(x)
    assert _importers.kept_producers() == before


def test_capsule_exports_freed():
    a = am.array([1, 2, 3], device="cpu")
    for _ in range(50):
        pa.array(a)
        a.__arrow_c_array__()  # never consumed: released by the next sweep
        a.__arrow_c_device_array__()
    assert _exporters.pending_exports() <= 4  # each export sweeps the earlier ones
    _exporters.sweep()
    assert _exporters.pending_exports() == 0


def test_held_export_survives_sweeps():
    a = am.array(pa.array([4, 5, None]), device="cpu")
    sc, ac = a.__arrow_c_array__()
    del a
    for _ in range(3):
        _exporters.sweep()
        am.array([1]).__arrow_c_array__()  # more exports sweep too
    gc.collect()
    out = pa.Array._import_from_c_capsule(sc, ac)
    assert out.to_pylist() == [4, 5, None]


def test_unconsumed_export_is_released():
    """An export nobody imports gives its buffers back (at the next sweep)."""
    x = np.arange(16, dtype=np.int64)
    before = _importers.kept_producers()
    a = am.array(x)
    sc, ac = a.__arrow_c_array__()
    del a, sc, ac
    gc.collect()
    _exporters.sweep()
    assert _importers.kept_producers() == before


def test_consumer_exception_propagates():
    """A consumer failing while it holds our capsules keeps its own exception
    (a capsule destructor in Python would turn it into a SystemError)."""
    a = am.array([1, 2, 3], device="cpu")
    try:
        pa.array(a, type=pa.string())  # no such cast here: pyarrow fails with capsules alive
    except Exception as e:  # noqa: BLE001 - pyarrow's own error, whatever it is
        assert not isinstance(e, SystemError), e
    with pytest.raises(OverflowError):  # the requested (safe) cast fails in the producer
        pa.array(am.array(pa.array([1.5]), device="cpu"), type=pa.int64())


def test_requested_schema_casts():
    a = am.array(pa.array([1, 2, None], pa.int32()), device="cpu")
    out = pa.array(a, type=pa.float64())
    assert out.type == pa.float64() and out.to_pylist() == [1.0, 2.0, None]
    assert pa.array(a, type=pa.int32()).type == pa.int32()


def test_handle_is_cdata():
    a = am.array([1, 2, 3])
    assert isinstance(a.handle, ffi.CData)
    assert am.lib.am_length(a.handle) == 3


def test_operators_and_methods_are_defined_by_the_class():
    for name in ("__eq__", "__lt__", "__add__", "__rsub__", "__rand__", "__invert__", "take"):
        method = am.Array.__dict__[name]
        assert method.__module__ == "arrowmetal._array"
        assert method.__qualname__ == "Array." + name
    a = am.array(pa.array([3, None, 1]))
    assert a.sum() == 4 and a.min() == 1 and a.max() == 3 and a.mean() == 2.0
    assert a.sum(skip_nulls=False).as_py() is None and a.count() == 2 and a.count("all") == 3
    assert am.array(pa.array([], pa.int64())).sum(min_count=0) == 0
    assert a.cast("float64").type == "float64" and a.cast(target_type="int8").type == "int8"
    assert a.filter(pa.array([True, True, False])).to_pylist() == [3, None]
    assert a.take(pa.array([2, 0])).to_pylist() == [1, 3]
