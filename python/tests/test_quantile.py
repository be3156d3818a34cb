"""quantile, tdigest and approximate_median against
pyarrow.compute: options (keywords and options objects), ChunkedArrays, the
C ABI's refusals, thread-count independence of the digest, and GPU-resident
arrays (skipped without CUDA)."""

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am

from .fresh import run_python

CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]
TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
         "float64"]  # fmt: skip
INTERPOLATIONS = ["linear", "lower", "higher", "nearest", "midpoint"]


def data(t, n, seed=0, nulls=0.1):
    rng = np.random.default_rng(seed)
    if t.startswith("float"):
        v = rng.normal(0, 100, n).astype(t)
    else:
        info = np.iinfo(t)
        v = rng.integers(max(info.min, -1000), min(info.max, 1000), n, dtype=t, endpoint=True)
    mask = rng.random(n) < nulls
    return pa.array(v, mask=mask)


def same(got, want):
    got = got.to_pyarrow() if isinstance(got, am.Array) else got
    assert got.type == want.type, (got.type, want.type)
    assert got.to_pylist() == want.to_pylist() or all(
        (a is None and b is None) or a == b or (math.isnan(a) and math.isnan(b))
        for a, b in zip(got.to_pylist(), want.to_pylist())
    ), (got.to_pylist(), want.to_pylist())


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_quantile_matches_pyarrow(t, interpolation):
    a = data(t, 5000, seed=len(t))
    q = [0.0, 0.1, 0.5, 0.5, 0.999, 1.0, 0.3]
    same(am.quantile(a, q=q, interpolation=interpolation),
         pc.quantile(a, q=q, interpolation=interpolation))  # fmt: skip


@pytest.mark.parametrize("t", TYPES)
def test_tdigest_is_pyarrows_digest(t):
    a = data(t, 20011, seed=3)
    q = [0.0, 0.01, 0.25, 0.5, 0.75, 0.99, 1.0, 1.5]
    same(am.tdigest(a, q=q), pc.tdigest(a, q=q))
    same(am.tdigest(a, q=q, delta=30, buffer_size=17), pc.tdigest(a, q=q, delta=30, buffer_size=17))
    assert am.approximate_median(a).as_py() == pc.approximate_median(a).as_py()


def test_options_objects_and_keywords():
    a = data("float64", 300)
    opts = pc.QuantileOptions(q=[0.2, 0.8], interpolation="nearest", min_count=5)
    same(am.quantile(a, options=opts), pc.quantile(a, options=opts))
    topts = pc.TDigestOptions(q=[0.2], delta=50, buffer_size=10, skip_nulls=False)
    same(am.tdigest(a, options=topts), pc.tdigest(a, options=topts))
    sopts = pc.ScalarAggregateOptions(skip_nulls=False)
    assert am.approximate_median(a, options=sopts).as_py() is None
    with pytest.raises(TypeError):
        am.quantile(a, options=opts, q=0.3)  # both, as pyarrow refuses
    with pytest.raises((ValueError, TypeError, pa.ArrowInvalid)):
        am.quantile(a, interpolation="cubic")  # pyarrow's own refusal


def test_nulls_min_count_and_nan():
    a = pa.array([float("nan"), 1.0, 2.0, None])
    same(am.quantile(a, q=[0.5], min_count=3), pc.quantile(a, q=[0.5], min_count=3))
    same(am.quantile(a, q=[0.5], skip_nulls=False), pc.quantile(a, q=[0.5], skip_nulls=False))
    same(am.quantile(pa.array([float("nan")] * 3), q=[0.5, 0.1]),
         pc.quantile(pa.array([float("nan")] * 3), q=[0.5, 0.1]))  # fmt: skip
    same(
        am.tdigest(pa.array([], pa.int32()), q=[0.5]), pc.tdigest(pa.array([], pa.int32()), q=[0.5])
    )
    assert am.approximate_median(pa.array([], pa.int8())).as_py() is None


def test_errors():
    a = pa.array([1.0, 2.0])
    for q in (1.5, -0.1, [0.2, 2.0]):
        with pytest.raises(ValueError, match="Quantile must be between 0 and 1"):
            am.quantile(a, q=q)
    with pytest.raises(ValueError, match="Requires quantile argument"):
        am.quantile(a, q=[])
    with pytest.raises(ValueError):
        am.quantile(a, q=float("nan"))  # pyarrow's result is undefined there
    assert am.tdigest(a, q=[]).to_pylist() == []


def test_chunked_arrays_count_as_one():
    c = pa.chunked_array([data("int32", 100, 1), data("int32", 57, 2), data("int32", 0, 3)])
    same(am.quantile(c, q=[0.1, 0.9], interpolation="lower"),
         pc.quantile(c, q=[0.1, 0.9], interpolation="lower"))  # fmt: skip
    # tdigest digests the chunks as one array; pyarrow digests each chunk and
    # merges the digests, so the two agree only within the digest's rank error
    whole = c.combine_chunks()
    same(am.tdigest(c, q=[0.1, 0.9]), pc.tdigest(whole, q=[0.1, 0.9]))


def test_many_equal_keys_and_long_q():
    a = pa.array(np.repeat(np.arange(7, dtype=np.int64), 20000))
    q = list(np.linspace(0, 1, 401))
    same(
        am.quantile(a, q=q, interpolation="midpoint"), pc.quantile(a, q=q, interpolation="midpoint")
    )


def test_digest_does_not_depend_on_threads(tmp_path):
    code = (
        "import numpy as np, pyarrow as pa, arrowmetal as am;"
        "a = pa.array(np.random.default_rng(5).normal(size=400000));"
        "print(am.tdigest(a, q=[0.01, 0.5, 0.99]).to_pylist(), am.quantile(a, q=[0.3]).to_pylist())"
    )
    outs = set()
    for threads in ("1", "2", "4"):
        # fresh.run_python keeps the parent's sys.path (cffi may live outside
        # site-packages, as on the GPU machine).
        run = run_python(code, ARROWMETAL_THREADS=threads, ARROWMETAL_PARALLEL_MIN="1024")
        assert run.returncode == 0, run.stderr
        outs.add(run.stdout)
    assert len(outs) == 1


def test_c_abi_refusals():
    from arrowmetal._capi import ffi, lib

    a = am.array(pa.array([1, 2, 3], pa.int32()))
    out = ffi.new("am_array **")
    q = ffi.new("double[]", [0.5])
    assert lib.am_quantile(a._ptr, q, 1, 7, 1, 0, out) == lib.AM_EINVAL
    assert lib.am_quantile(a._ptr, ffi.NULL, 1, 0, 1, 0, out) == lib.AM_EINVAL
    assert lib.am_tdigest(a._ptr, q, -1, 100, 500, 1, 0, out) == lib.AM_EINVAL
    assert lib.am_tdigest(a._ptr, q, 1, (1 << 20) + 1, 500, 1, 0, out) == lib.AM_EINVAL
    assert lib.am_quantile(ffi.NULL, q, 1, 0, 1, 0, out) == lib.AM_EINVAL
    b = am.array(pa.array([True, False]))
    assert lib.am_tdigest(b._ptr, q, 1, 100, 500, 1, 0, out) == lib.AM_ETYPE
    assert out[0] == ffi.NULL


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("t", ["int64", "uint8", "float32", "float64"])
def test_gpu_resident_arrays(t):
    a = data(t, 300001, seed=9)
    g = am.array(a, device="cuda")
    for interp in INTERPOLATIONS:
        r = am.quantile(g, q=[0.0, 0.37, 0.5, 1.0], interpolation=interp)
        assert r.device.startswith("cuda") if isinstance(r.device, str) else True
        same(r, pc.quantile(a, q=[0.0, 0.37, 0.5, 1.0], interpolation=interp))
    same(am.tdigest(g, q=[0.1, 0.5]), pc.tdigest(a, q=[0.1, 0.5]))


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("t", TYPES)
def test_gpu_tdigest_is_pyarrows_digest(t):
    """The GPU sorts each buffer of values on the device and the host merges them in
    order (gpu/ops_quantile.c): pyarrow's digest, for every type, with NaNs and nulls
    left out, buffers of 0 (taken as 1), 17, 500 and more than the values, a slice, and
    inputs of only NaN or only null."""
    a = data(t, 100_003, seed=len(t) + 3).slice(5)
    if t.startswith("float"):
        v = a.to_numpy(zero_copy_only=False).copy()
        v[::97] = np.nan
        a = pa.array(v, mask=np.asarray(a.is_null()))
    g = am.array(a, device="cuda")
    q = [0.0, 0.01, 0.25, 0.5, 0.75, 0.99, 1.0]
    for delta, buffer_size in ((100, 500), (30, 17), (10, 0), (200, 200_000)):
        same(am.tdigest(g, q=q, delta=delta, buffer_size=buffer_size),
             pc.tdigest(a, q=q, delta=delta, buffer_size=buffer_size))  # fmt: skip
    nothing = pa.array([None, None], getattr(pa, t)())
    same(am.tdigest(am.array(nothing, device="cuda"), q=[0.5]), pc.tdigest(nothing, q=[0.5]))
    if t.startswith("float"):
        nan = pa.array([float("nan")] * 3, getattr(pa, t)())
        same(am.tdigest(am.array(nan, device="cuda"), q=[0.5]), pc.tdigest(nan, q=[0.5]))
