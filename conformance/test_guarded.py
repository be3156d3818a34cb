"""Behaviours of the C ABI that are not one call on one case: runtime controls, batching,
many threads on one device, malformed Arrow structs and the ownership of imported arrays.
Driven through the cffi bindings of arrowmetal.h, on every backend available here."""

import os
import re
import subprocess
import sys
import threading

import amabi
import casefmt as cf
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from amabi import ffi, lib

BACKENDS = amabi.available_backends()
INT64_MAX = 2**63 - 1

pytestmark = pytest.mark.skipif(not BACKENDS, reason="no ArrowMetal backend can run here")


@pytest.fixture(params=BACKENDS)
def dev(request):
    return amabi.device(request.param)


@pytest.fixture
def cpu():
    return amabi.device("cpu")


def new_out():
    return ffi.new("am_array **")


def take_handle(fname, rc, out):
    amabi.check(fname, rc)
    assert out[0] != ffi.NULL
    return out[0]


def imp(arr, dev):
    handle, counter = amabi.import_array(arr, dev)
    return handle, counter


def values_of(handle):
    arr = amabi.export_array(handle)
    try:
        return arr.to_pylist()
    finally:
        del arr


# ---- runtime controls and small contracts -------------------------------------------------


def test_resident_mode_on_cpu(cpu):
    old_default = lib.am_default_device()
    amabi.check("am_set_default_device", lib.am_set_default_device(cpu))
    try:
        assert lib.am_resident_mode(1) == 0
        status = lib.am_resident_status()
        assert status != ffi.NULL and ffi.string(status).decode().strip()
        assert lib.am_resident_mode(-1) == 0
    finally:
        lib.am_resident_mode(0)
        lib.am_set_default_device(old_default)


@pytest.mark.skipif("cuda" not in amabi.available_backends(), reason="no usable CUDA backend")
def test_resident_mode_on_cuda_is_1_only_while_a_worker_answers():
    """Both states on a GPU that can run one: 0 with a reason before it is asked
    for and after it is stopped; 1 only once its probe answered (the status says
    so). A GPU where none can start answers 0 with the reason instead."""
    old_default = lib.am_default_device()
    amabi.check("am_set_default_device", lib.am_set_default_device(amabi.device("cuda")))
    try:
        if lib.am_resident_mode(-1) == 0:
            assert ffi.string(lib.am_resident_status()).decode().strip()
        on = lib.am_resident_mode(1)
        status = ffi.string(lib.am_resident_status()).decode()
        if on:
            assert "probe answered" in status and lib.am_resident_mode(-1) == 1
        else:
            assert status.strip() and lib.am_resident_mode(-1) == 0
        assert lib.am_resident_mode(0) == 0
        assert lib.am_resident_mode(-1) == 0
        assert ffi.string(lib.am_resident_status()).decode().strip()
    finally:
        lib.am_resident_mode(0)
        lib.am_set_default_device(old_default)


def test_resident_mode_reads_back_a_boolean():
    state = lib.am_resident_mode(-1)
    assert state in (0, 1)
    if state == 0:
        assert ffi.string(lib.am_resident_status()).decode().strip()


def test_spin_microseconds_reads_back():
    old = lib.am_spin_microseconds(-1)
    assert old >= 0
    try:
        for us in (0, 1, 123, 5000):
            assert lib.am_spin_microseconds(us) == us
            assert lib.am_spin_microseconds(-1) == us
    finally:
        assert lib.am_spin_microseconds(old) == old


def test_low_latency_wait_reads_back():
    old = lib.am_low_latency_wait(-1)
    assert old in (0, 1)
    try:
        for on in (0, 1, 0):
            assert lib.am_low_latency_wait(on) == on
            assert lib.am_low_latency_wait(-1) == on
    finally:
        assert lib.am_low_latency_wait(old) == old


def _fresh_process(env_extra):
    code = (
        "from arrowmetal._capi import lib; "
        "print(lib.am_spin_microseconds(-1), lib.am_low_latency_wait(-1), lib.am_resident_mode(-1))"
    )
    env = dict(os.environ)
    env.pop("ARROWMETAL_LOW_LATENCY", None)
    env.update(env_extra)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_runtime_defaults_in_a_fresh_process():
    assert _fresh_process({}) == ["2000", "1", "0"]
    assert _fresh_process({"ARROWMETAL_LOW_LATENCY": "0"})[1] == "0"


def test_version_types_backends(dev):
    assert re.fullmatch(r"\d+\.\d+\.\d+", ffi.string(lib.am_version()).decode())
    for t in cf.TYPES:
        assert ffi.string(lib.am_type_format(cf.AM_TYPE[t])).decode() == cf.FORMAT[t]
    assert lib.am_type_format(0) == ffi.NULL
    assert lib.am_type_format(99) == ffi.NULL
    n = lib.am_backend_count()
    assert n >= 1 and lib.am_backend_name(n) == ffi.NULL and lib.am_backend_name(-1) == ffi.NULL
    names = [ffi.string(lib.am_backend_name(i)).decode() for i in range(n)]
    assert "cpu" in names
    name = ffi.string(lib.am_device_backend(dev)).decode()
    assert name in names
    again = ffi.new("am_device **")
    amabi.check("am_device_open", lib.am_device_open(name.encode(), again))
    assert again[0] == dev
    assert ffi.string(lib.am_device_name(dev)).decode().startswith(name)
    assert lib.am_default_device() != ffi.NULL
    assert lib.am_last_error() != ffi.NULL


def test_type_info_describes_every_type():
    # The numeric types 1-11, float16 12, decimals 13-14, 15 reserved, the temporal types
    # 16-29, strings 30-34, views 35-36.
    assert lib.am_type_count() == 16 + len(cf.TEMPORAL_TYPES) + len(cf.BYTES_TYPES)
    for t in cf.BYTES_TYPES:
        amabi.check(
            "am_type_info_get",
            lib.am_type_info_get(cf.AM_TYPE[t], info := ffi.new("am_type_info *")),
        )
        assert info.kind == lib.AM_KIND_BINARY
        assert ffi.string(info.format).decode() == cf.FORMAT[t].split(":")[0] + (
            ":" if ":" in cf.FORMAT[t] else ""
        )
    info = ffi.new("am_type_info *")
    for t in cf.TEMPORAL_TYPES:
        amabi.check("am_type_info_get", lib.am_type_info_get(cf.AM_TYPE[t], info))
        assert ffi.string(info.arrow_name).decode() == str(cf.PA_TYPE[t]) == t
        assert ffi.string(info.format).decode() == cf.FORMAT[t]
        assert info.bit_width == cf.PA_TYPE[t].bit_width and info.kind == lib.AM_KIND_TEMPORAL
    for t in cf.TYPES:
        amabi.check("am_type_info_get", lib.am_type_info_get(cf.AM_TYPE[t], info))
        assert ffi.string(info.name).decode() == t
        assert ffi.string(info.numpy).decode() == t
        assert ffi.string(info.format).decode() == cf.FORMAT[t]
        assert ffi.string(info.arrow_name).decode() == str(cf.PA_TYPE[t])
        assert info.bit_width == (1 if t == "bool" else cf.PA_TYPE[t].bit_width)
        kind = {
            "bool": lib.AM_KIND_BOOL,
            "float32": lib.AM_KIND_FLOAT,
            "float64": lib.AM_KIND_FLOAT,
        }
        expected = kind.get(t, lib.AM_KIND_UNSIGNED if t.startswith("u") else lib.AM_KIND_SIGNED)
        assert info.kind == expected
    amabi.check("am_type_info_get", lib.am_type_info_get(lib.AM_FLOAT16, info))
    assert ffi.string(info.name).decode() == ffi.string(info.numpy).decode() == "float16"
    assert ffi.string(info.arrow_name).decode() == str(pa.float16()) == "halffloat"
    assert ffi.string(info.format).decode() == "e" and info.bit_width == 16
    assert info.kind == lib.AM_KIND_FLOAT16
    for bad in (0, 15, lib.am_type_count(), 99):
        assert lib.am_type_info_get(bad, info) == lib.AM_ETYPE
        assert amabi.names_function(amabi.last_error(), "am_type_info_get")
    assert lib.am_type_info_get(lib.AM_INT8, ffi.NULL) == lib.AM_EINVAL


def test_batch_depth_follows_begin_and_end():
    assert lib.am_batch_depth() == 0
    amabi.check("am_batch_begin", lib.am_batch_begin())
    amabi.check("am_batch_begin", lib.am_batch_begin())
    assert lib.am_batch_depth() == 2
    amabi.check("am_batch_end", lib.am_batch_end())
    assert lib.am_batch_depth() == 1
    amabi.check("am_batch_end", lib.am_batch_end())
    assert lib.am_batch_depth() == 0
    assert lib.am_batch_end() == lib.AM_EINVAL  # a stray end leaves the depth at 0
    assert lib.am_batch_depth() == 0


def test_device_sync_and_foreign_streams(dev):
    amabi.check("am_device_sync", lib.am_device_sync(dev))
    assert lib.am_device_sync(ffi.NULL) == lib.AM_EINVAL
    if not amabi.is_gpu(dev):
        assert lib.am_device_wait_stream(dev, 0) == lib.AM_EINVAL
        assert amabi.names_function(amabi.last_error(), "am_device_wait_stream")


def test_getters_and_successful_calls_leave_the_message_alone(dev):
    h, _ = imp(pa.array([1, None, 3], pa.int64()), dev)
    idx, _ = imp(pa.array([7], pa.int32()), dev)
    out = new_out()
    assert lib.am_take(h, idx, out) == lib.AM_EINDEX
    message = amabi.last_error()
    assert amabi.names_function(message, "am_take")
    info = ffi.new("am_type_info *")
    assert lib.am_length(h) == 3 and lib.am_null_count(h) == 1
    assert lib.am_array_type(h) == lib.AM_INT64 and lib.am_array_device(h) == dev
    assert lib.am_type_info_get(lib.AM_INT64, info) == lib.AM_OK
    assert lib.am_batch_depth() == 0 and lib.am_routes() != ffi.NULL
    s = amabi.output_scalar()
    assert lib.am_sum(h, s) == lib.AM_OK
    assert amabi.last_error() == message
    lib.am_release(h)
    lib.am_release(idx)


def test_unknown_backend_is_refused():
    assert lib.am_backend_probe(b"no-such-backend") != lib.AM_OK
    out = ffi.new("am_device **")
    rc = lib.am_device_open(b"no-such-backend", out)
    assert rc != lib.AM_OK and out[0] == ffi.NULL
    assert amabi.names_function(amabi.last_error(), "am_device_open")


def test_properties_of_null_handle():
    assert lib.am_length(ffi.NULL) == -1
    assert lib.am_null_count(ffi.NULL) == -1
    assert lib.am_array_type(ffi.NULL) == 0
    assert lib.am_format(ffi.NULL) == ffi.NULL
    assert lib.am_array_device(ffi.NULL) == ffi.NULL
    lib.am_release(ffi.NULL)


def test_null_arguments_are_einval(dev):
    h, _ = imp(pa.array([1, 2, 3], pa.int64()), dev)
    out = new_out()
    s = amabi.output_scalar()
    sc = amabi.make_scalar("int64", 1)
    try:
        calls = [
            ("am_sum", lambda: lib.am_sum(ffi.NULL, s)),
            ("am_sum", lambda: lib.am_sum(h, ffi.NULL)),
            ("am_count", lambda: lib.am_count(ffi.NULL, lib.AM_COUNT_ALL, s)),
            ("am_compare", lambda: lib.am_compare(lib.AM_EQ, ffi.NULL, h, out)),
            ("am_compare", lambda: lib.am_compare(lib.AM_EQ, h, h, ffi.NULL)),
            ("am_compare_scalar", lambda: lib.am_compare_scalar(lib.AM_EQ, h, ffi.NULL, out)),
            ("am_arith", lambda: lib.am_arith(lib.AM_ADD, h, ffi.NULL, out)),
            ("am_arith_scalar", lambda: lib.am_arith_scalar(lib.AM_ADD, ffi.NULL, sc, out)),
            ("am_cast", lambda: lib.am_cast(ffi.NULL, lib.AM_INT8, 1, out)),
            ("am_filter", lambda: lib.am_filter(h, ffi.NULL, out)),
            ("am_take", lambda: lib.am_take(ffi.NULL, h, out)),
            ("am_slice", lambda: lib.am_slice(h, 0, 1, ffi.NULL)),
            ("am_not", lambda: lib.am_not(ffi.NULL, out)),
            ("am_export", lambda: lib.am_export(ffi.NULL, ffi.NULL, ffi.NULL)),
            ("am_full", lambda: lib.am_full(ffi.NULL, 3, dev, out)),
            ("am_to_device", lambda: lib.am_to_device(ffi.NULL, dev, out)),
            ("am_batch_commit", lambda: lib.am_batch_commit(ffi.NULL)),
        ]
        for fname, fn in calls:
            rc = fn()
            assert rc == lib.AM_EINVAL, f"{fname}: {amabi.status_name(rc)}"
            assert amabi.names_function(amabi.last_error(), fname), amabi.last_error()
            assert out[0] == ffi.NULL and s.type == amabi.SENTINEL_TYPE
        # enum values outside their range
        for fname, fn in [
            ("am_compare", lambda: lib.am_compare(99, h, h, out)),
            ("am_arith", lambda: lib.am_arith(99, h, h, out)),
            ("am_count", lambda: lib.am_count(h, 7, s)),
        ]:
            rc = fn()
            assert rc == lib.AM_EINVAL, f"{fname}: {amabi.status_name(rc)}"
            assert out[0] == ffi.NULL and s.type == amabi.SENTINEL_TYPE
        for to in (0, 15, 1000):
            rc = lib.am_cast(h, to, 1, out)
            assert rc in (lib.AM_EINVAL, lib.AM_ETYPE), amabi.status_name(rc)
            assert out[0] == ffi.NULL
        bad = amabi.make_scalar("int64", 1)
        bad.type = 0
        rc = lib.am_compare_scalar(lib.AM_EQ, h, bad, out)
        assert rc in (lib.AM_EINVAL, lib.AM_ETYPE) and out[0] == ffi.NULL
    finally:
        lib.am_release(h)


@pytest.mark.parametrize("t", cf.TYPES)
def test_full(dev, t):
    v = {"bool": True, "float32": -0.0, "float64": float("nan")}.get(t, 5)
    for value, n in ((v, 65), (None, 7), (v, 0)):
        out = new_out()
        s = amabi.make_scalar(t, value)
        h = take_handle("am_full", lib.am_full(s, n, dev, out), out)
        try:
            assert lib.am_array_device(h) == dev and lib.am_array_type(h) == cf.AM_TYPE[t]
            got = values_of(h)
            assert len(got) == n
            assert all(cf.same_value(t, g, value) for g in got)
        finally:
            lib.am_release(h)
    out = new_out()
    assert lib.am_full(amabi.make_scalar(t, v), -1, dev, out) == lib.AM_EINVAL
    assert out[0] == ffi.NULL


def test_to_device_same_device(dev):
    h, counter = imp(pa.array([1, None, 3], pa.int16()), dev)
    out = new_out()
    h2 = take_handle("am_to_device", lib.am_to_device(h, dev, out), out)
    lib.am_release(h)
    assert values_of(h2) == [1, None, 3]
    lib.am_release(h2)
    assert counter.count == 1


def test_export_with_one_null_out(dev):
    h, counter = imp(pa.array([1, 2], pa.int32()), dev)
    try:
        arr = ffi.new("struct ArrowArray *")
        amabi.check("am_export", lib.am_export(h, ffi.NULL, arr))
        assert arr.length == 2 and arr.release != ffi.NULL
        arr.release(arr)
        schema = ffi.new("struct ArrowSchema *")
        amabi.check("am_export", lib.am_export(h, schema, ffi.NULL))
        assert ffi.string(schema.format) == b"i" and schema.release != ffi.NULL
        schema.release(schema)
    finally:
        lib.am_release(h)
    assert counter.count == 1


# ---- batching -----------------------------------------------------------------------------

rng = np.random.default_rng(7)
N_BATCH = 5000
A = pa.array(rng.integers(-1000, 1000, N_BATCH), pa.int32(), mask=rng.random(N_BATCH) < 0.1)
B = pa.array(rng.integers(-1000, 1000, N_BATCH), pa.int32(), mask=rng.random(N_BATCH) < 0.1)
IDX = pa.array(rng.integers(0, N_BATCH, 3000), pa.int64(), mask=rng.random(3000) < 0.05)


def run_sequence(dev, mode):
    """A chain of calls whose array results feed later calls. mode: "plain", "batch",
    "nested" or "commit". Returns (exported arrays, scalar values, lengths seen in the
    batch)."""
    handles, counters = [], []
    scalars = [amabi.output_scalar() for _ in range(5)]

    def keep(fname, rc, out):
        h = take_handle(fname, rc, out)
        handles.append(h)
        return h

    for arr in (A, B, IDX):
        h, c = imp(arr, dev)
        handles.append(h)
        counters.append(c)
    a, b, idx = handles
    if mode != "plain":
        amabi.check("am_batch_begin", lib.am_batch_begin())
    if mode == "nested":
        amabi.check("am_batch_begin", lib.am_batch_begin())
    o = new_out()
    c = keep("am_arith", lib.am_arith(lib.AM_MULTIPLY, a, b, o), o)
    o = new_out()
    m = keep(
        "am_compare_scalar",
        lib.am_compare_scalar(lib.AM_GT, c, amabi.make_scalar("int32", 0), o),
        o,
    )
    o = new_out()
    f = keep("am_filter", lib.am_filter(c, m, o), o)
    lengths = [lib.am_length(f), lib.am_null_count(f)]
    o = new_out()
    t = keep("am_take", lib.am_take(c, idx, o), o)
    o = new_out()
    k = keep("am_cast", lib.am_cast(t, lib.AM_FLOAT64, 1, o), o)
    o = new_out()
    sl = keep("am_slice", lib.am_slice(k, 10, 100, o), o)
    amabi.check("am_sum", lib.am_sum(f, scalars[0]))
    amabi.check("am_max", lib.am_max(t, scalars[1]))
    amabi.check("am_count", lib.am_count(f, lib.AM_COUNT_ALL, scalars[2]))
    amabi.check("am_mean", lib.am_mean(k, scalars[3]))
    amabi.check("am_min", lib.am_min(sl, scalars[4]))
    if mode == "nested":
        amabi.check("am_batch_end", lib.am_batch_end())
    if mode in ("batch", "nested"):
        amabi.check("am_batch_end", lib.am_batch_end())
    elif mode == "commit":
        ticket = ffi.new("uint64_t *")
        amabi.check("am_batch_commit", lib.am_batch_commit(ticket))
        amabi.check("am_wait", lib.am_wait(ticket[0]))
    try:
        arrays = [amabi.export_array(h) for h in (c, m, f, t, k, sl)]
        values = [amabi.scalar_value(s) for s in scalars]
    finally:
        for h in handles:
            lib.am_release(h)
    return arrays, values, lengths, counters


@pytest.mark.parametrize("mode", ["batch", "nested", "commit"])
def test_batched_equals_unbatched(dev, mode):
    plain, plain_scalars, plain_lengths, _ = run_sequence(dev, "plain")
    got, got_scalars, got_lengths, counters = run_sequence(dev, mode)
    c = pc.multiply(A, B)
    f = pc.filter(c, pc.greater(c, 0))
    assert plain[2].equals(f)
    assert plain_lengths == [len(f), f.null_count] == got_lengths
    for x, y in zip(plain, got):
        assert x.equals(y)
    assert got_scalars == plain_scalars
    assert got_scalars[0] == ("int64", pc.sum(f).as_py())
    del plain, got
    assert [c.count for c in counters] == [1, 1, 1]


def test_batch_reports_data_errors(dev):
    h, _ = imp(pa.array([1, 2, 3], pa.int64()), dev)
    z, _ = imp(pa.array([1, 0, 1], pa.int64()), dev)
    idx, _ = imp(pa.array([0, 5], pa.int64()), dev)
    try:
        for fname, call, code in (
            ("am_arith", lambda o: lib.am_arith(lib.AM_DIVIDE, h, z, o), lib.AM_EZERODIV),
            ("am_take", lambda o: lib.am_take(h, idx, o), lib.AM_EINDEX),
            ("am_cast", lambda o: lib.am_cast(z, lib.AM_BOOL, 1, o), lib.AM_OK),
        ):
            amabi.check("am_batch_begin", lib.am_batch_begin())
            o = new_out()
            rc = call(o)
            if rc == lib.AM_OK:
                lib.am_release(o[0])
            end = lib.am_batch_end()
            assert rc == code or (rc == lib.AM_OK and end == code), (fname, rc, end)
            if code == lib.AM_OK:
                assert end == lib.AM_OK
        # the device is not left broken
        s = amabi.output_scalar()
        amabi.check("am_sum", lib.am_sum(h, s))
        assert amabi.scalar_value(s) == ("int64", 6)
    finally:
        for x in (h, z, idx):
            lib.am_release(x)


def test_batch_commit_several_in_flight(dev):
    h, counter = imp(pa.array(range(1000), pa.int64()), dev)
    tickets, outs = [], []
    try:
        for k in range(4):
            amabi.check("am_batch_begin", lib.am_batch_begin())
            s = amabi.output_scalar()
            o = new_out()
            amabi.check("am_slice", lib.am_slice(h, k * 100, 100, o))
            amabi.check("am_sum", lib.am_sum(o[0], s))
            ticket = ffi.new("uint64_t *")
            amabi.check("am_batch_commit", lib.am_batch_commit(ticket))
            tickets.append(ticket[0])
            outs.append((s, o[0]))
        assert len(set(tickets)) == 4
        for k, ticket in reversed(list(enumerate(tickets))):
            amabi.check("am_wait", lib.am_wait(ticket))
            assert amabi.scalar_value(outs[k][0]) == ("int64", sum(range(k * 100, k * 100 + 100)))
    finally:
        for _, o in outs:
            lib.am_release(o)
        lib.am_release(h)
    assert counter.count == 1


# ---- many threads, one device -------------------------------------------------------------


N_THREADS = 8
CALLS_PER_THREAD = 1000


def shared_inputs(dev):
    """Per size: pyarrow arrays (sliced at 3) and their handles on `dev`."""
    r = np.random.default_rng(11)
    out = {}
    for n in (10, 1000, 100003):
        k = n // 2 + 1
        arrays = {
            "i": pa.array(
                r.integers(-(2**40), 2**40, n + 3), pa.int64(), mask=r.random(n + 3) < 0.1
            ),
            "f": pa.array(r.uniform(-1e3, 1e3, n + 3), pa.float64(), mask=r.random(n + 3) < 0.1),
            "m": pa.array(r.random(n + 3) < 0.5, pa.bool_(), mask=r.random(n + 3) < 0.1),
            "x": pa.array(r.integers(0, n, k + 3), pa.int32(), mask=r.random(k + 3) < 0.1),
        }
        for name, arr in arrays.items():
            arr = arr.slice(3)
            out[name, n] = (arr, imp(arr, dev)[0])
    return out


def thread_tasks(inputs):
    """(name, call(out) -> status, is_scalar, expected) for every size."""
    s5 = amabi.make_scalar("int64", 5)
    s25 = amabi.make_scalar("float64", 2.5)
    tasks = []
    for n in (10, 1000, 100003):
        (i, hi), (f, hf), (m, hm), (x, hx) = (inputs[k, n] for k in "ifmx")
        tasks += [
            (f"sum{n}", lambda o, h=hi: lib.am_sum(h, o), True, ("int64", pc.sum(i).as_py())),
            (
                f"count{n}",
                lambda o, h=hf: lib.am_count(h, lib.AM_COUNT_NULL, o),
                True,
                ("int64", f.null_count),
            ),
            (f"max{n}", lambda o, h=hf: lib.am_max(h, o), True, ("float64", pc.max(f).as_py())),
            (
                f"compare{n}",
                lambda o, h=hi: lib.am_compare_scalar(lib.AM_LT, h, s5, o),
                False,
                pc.less(i, 5),
            ),
            (f"filter{n}", lambda o, h=hi, k=hm: lib.am_filter(h, k, o), False, pc.filter(i, m)),
            (f"take{n}", lambda o, h=hf, k=hx: lib.am_take(h, k, o), False, pc.take(f, x)),
            (
                f"arith{n}",
                lambda o, h=hi: lib.am_arith(lib.AM_SUBTRACT, h, h, o),
                False,
                pc.subtract(i, i),
            ),
            (
                f"arith_scalar{n}",
                lambda o, h=hf: lib.am_arith_scalar(lib.AM_MULTIPLY, h, s25, o),
                False,
                pc.multiply(f, 2.5),
            ),
            (
                f"cast{n}",
                lambda o, h=hi: lib.am_cast(h, lib.AM_FLOAT64, 1, o),
                False,
                pc.cast(i, pa.float64()),
            ),
            (f"not{n}", lambda o, h=hm: lib.am_not(h, o), False, pc.invert(m)),
        ]
    return tasks, (s5, s25)


def test_threads_share_one_device(dev):
    inputs = shared_inputs(dev)
    tasks, keep = thread_tasks(inputs)
    failures = []
    lock = threading.Lock()

    def worker(tid):
        try:
            for k in range(CALLS_PER_THREAD):
                name, call, is_scalar, want = tasks[(tid * 7919 + k * 31) % len(tasks)]
                if is_scalar:
                    s = amabi.output_scalar()
                    rc = call(s)
                    if rc != lib.AM_OK:
                        raise AssertionError(
                            f"{name}: {amabi.status_name(rc)} {amabi.last_error()}"
                        )
                    got = amabi.scalar_value(s)
                    if got != want:
                        raise AssertionError(f"{name}: got {got}, expected {want}")
                    continue
                o = new_out()
                rc = call(o)
                if rc != lib.AM_OK:
                    raise AssertionError(f"{name}: {amabi.status_name(rc)} {amabi.last_error()}")
                try:
                    got = amabi.export_array(o[0])
                finally:
                    lib.am_release(o[0])
                if not got.equals(want):
                    raise AssertionError(f"{name}: result differs (thread {tid}, call {k})")
        except Exception as exc:  # noqa: BLE001 - collected and reported below
            with lock:
                failures.append(f"thread {tid}: {exc}")

    threads = [threading.Thread(target=worker, args=(tid,)) for tid in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for _, h in inputs.values():
        lib.am_release(h)
    del keep
    assert not failures, "\n".join(failures[:10])


def test_slow_work_never_releases_fast_callers_early(dev):
    """Deliberately slow calls (over an array large for the backend) interleaved
    with fast ones from 8 threads on one device: every scalar result is checked
    the moment its caller is released. A waiter released before its own work
    finished would read a stale result."""
    big_n = 20_000_000 if amabi.is_gpu(dev) else 400_000
    r = np.random.default_rng(5)
    big_values = r.integers(-1000, 1000, big_n)
    small = [pa.array(r.integers(-(2**30), 2**30, 1000)) for _ in range(8)]
    big = pa.array(big_values)
    big_handle = imp(big, dev)[0]
    small_handles = [imp(a, dev)[0] for a in small]
    want_big = int(big_values.sum())
    want_small = [pc.sum(a).as_py() for a in small]
    failures = []

    def worker(tid):
        try:
            for k in range(120):
                s = amabi.output_scalar()
                if k % 6 == tid % 6:  # slow: a full pass over the large array
                    amabi.check("am_sum", lib.am_sum(big_handle, s))
                    if amabi.scalar_value(s) != ("int64", want_big):
                        raise AssertionError(f"slow sum released early at call {k}")
                    continue
                j = (tid + k) % len(small_handles)
                amabi.check("am_sum", lib.am_sum(small_handles[j], s))
                if amabi.scalar_value(s) != ("int64", want_small[j]):
                    raise AssertionError(f"fast sum {j} released early at call {k}")
        except Exception as exc:  # noqa: BLE001 - collected and reported below
            failures.append(f"thread {tid}: {exc}")

    threads = [threading.Thread(target=worker, args=(tid,)) for tid in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for h in [big_handle, *small_handles]:
        lib.am_release(h)
    assert not failures, "\n".join(failures[:10])


# ---- malformed Arrow structs and ownership ------------------------------------------------


class Hand:
    """An int64 (or other primitive) ArrowArray and ArrowSchema built by hand in cffi, with
    release callbacks that count their calls. Buffers live as long as this object."""

    def __init__(self, fmt=b"l", values=(1, 2, 3, 4), valid=(1, 1, 0, 1), ctype="int64_t"):
        self.array_releases = 0
        self.schema_releases = 0
        self.handle = ffi.new_handle(self)
        self.data = ffi.new(f"{ctype}[]", list(values))
        bits = 0
        for k, v in enumerate(valid):
            bits |= (1 if v else 0) << k
        self.bitmap = ffi.new("uint8_t[]", [bits & 0xFF, bits >> 8 & 0xFF, 0, 0])
        self.buffers = ffi.new("const void *[]", 3)
        self.buffers[0] = self.bitmap
        self.buffers[1] = self.data
        self.array = ffi.new("struct ArrowArray *")
        self.array.length = len(values)
        self.array.null_count = sum(1 for v in valid if not v)
        self.array.offset = 0
        self.array.n_buffers = 2
        self.array.n_children = 0
        self.array.buffers = self.buffers
        self.array.children = ffi.NULL
        self.array.dictionary = ffi.NULL
        self.array.release = _hand_array_release
        self.array.private_data = self.handle
        self.fmt = ffi.new("char[]", fmt)
        self.schema = ffi.new("struct ArrowSchema *")
        self.schema.format = self.fmt
        self.schema.flags = 2
        self.schema.release = _hand_schema_release
        self.schema.private_data = self.handle
        # storage for children / dictionary variants
        self.child = ffi.new("struct ArrowArray *")
        self.children = ffi.new("struct ArrowArray *[]", [self.child])


@ffi.callback("void(struct ArrowArray *)")
def _hand_array_release(arr):
    ffi.from_handle(arr.private_data).array_releases += 1
    arr.release = ffi.NULL


@ffi.callback("void(struct ArrowSchema *)")
def _hand_schema_release(schema):
    ffi.from_handle(schema.private_data).schema_releases += 1
    schema.release = ffi.NULL


def _set(attr, value):
    def mutate(h):
        setattr(h.array, attr, value)

    return mutate


def _null_buffer(k):
    def mutate(h):
        h.buffers[k] = ffi.NULL

    return mutate


def _children(h):
    h.array.n_children = 1
    h.array.children = h.children


def _dictionary(h):
    h.array.dictionary = h.child


def _format(fmt):
    def mutate(h):
        h.fmt = ffi.new("char[]", fmt)
        h.schema.format = h.fmt

    return mutate


def _offset_overflow(h):
    h.array.offset = INT64_MAX - 1


def _no_validity_with_nulls(h):
    h.buffers[0] = ffi.NULL
    h.array.null_count = 1


MALFORMED = [
    ("negative-length", _set("length", -1), "AM_EINVAL"),
    ("negative-offset", _set("offset", -1), "AM_EINVAL"),
    ("offset-plus-length-overflows", _offset_overflow, "AM_EINVAL"),
    ("null-count-below-minus-one", _set("null_count", -2), "AM_EINVAL"),
    ("null-count-above-length", _set("null_count", 5), "AM_EINVAL"),
    ("null-data-buffer", _null_buffer(1), "AM_EINVAL"),
    ("null-validity-with-nulls", _no_validity_with_nulls, "AM_EINVAL"),
    ("one-buffer", _set("n_buffers", 1), "AM_EINVAL"),
    ("three-buffers", _set("n_buffers", 3), "AM_EINVAL"),
    ("zero-buffers", _set("n_buffers", 0), "AM_EINVAL"),
    ("children", _children, "AM_EINVAL"),
    ("dictionary", _dictionary, "AM_EINVAL"),
    ("null-buffers", _set("buffers", ffi.NULL), "AM_EINVAL"),
    ("unknown-format", _format(b"zz"), "AM_ETYPE"),
    ("utf8-format", _format(b"u"), "AM_EINVAL"),  # a string array needs 3 buffers
    ("interval-format", _format(b"tin"), "AM_ETYPE"),
    ("timestamp-unit-format", _format(b"tsx:"), "AM_ETYPE"),
    ("time-unit-format", _format(b"ttx"), "AM_ETYPE"),
    ("decimal32-format", _format(b"d:9,2,32"), "AM_ETYPE"),  # decimal128/256 are supported
    ("empty-format", _format(b""), "AM_ETYPE"),
]


def _import_hand(h, dev):
    out = new_out()
    sentinel = ffi.cast("am_array *", 0x5A5A)
    out[0] = sentinel
    rc = lib.am_import(h.schema, h.array, dev, out)
    msg = amabi.last_error()
    return rc, msg, out, sentinel


@pytest.mark.parametrize("name,mutate,code", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_struct(dev, name, mutate, code):
    h = Hand()
    mutate(h)
    rc, msg, out, sentinel = _import_hand(h, dev)
    assert amabi.status_name(rc) == code, msg
    assert amabi.names_function(msg, "am_import"), msg
    assert out[0] == sentinel, "am_import wrote its output on failure"
    assert h.array.release == ffi.NULL, "the moved struct is not marked released"
    assert h.array_releases == 1, f"release ran {h.array_releases} times"
    assert h.schema_releases == 0, "the borrowed schema was released"


def test_released_array_is_refused(dev):
    h = Hand()
    h.array.release = ffi.NULL
    rc, msg, out, sentinel = _import_hand(h, dev)
    assert rc == lib.AM_EINVAL and amabi.names_function(msg, "am_import"), msg
    assert out[0] == sentinel and h.array_releases == 0 and h.schema_releases == 0


def test_released_schema_is_refused(dev):
    h = Hand()
    h.schema.release = ffi.NULL
    rc, msg, out, sentinel = _import_hand(h, dev)
    assert rc == lib.AM_EINVAL and amabi.names_function(msg, "am_import"), msg
    assert out[0] == sentinel and h.array_releases == 1 and h.array.release == ffi.NULL


def test_null_schema_array_out(dev):
    h = Hand()
    out = new_out()
    rc = lib.am_import(ffi.NULL, h.array, dev, out)
    assert rc == lib.AM_EINVAL and amabi.names_function(amabi.last_error(), "am_import")
    assert h.array_releases == 1 and out[0] == ffi.NULL
    h = Hand()
    rc = lib.am_import(h.schema, ffi.NULL, dev, out)
    assert rc == lib.AM_EINVAL and out[0] == ffi.NULL
    rc = lib.am_import(h.schema, h.array, dev, ffi.NULL)
    assert rc == lib.AM_EINVAL
    assert h.array_releases == 1 and h.schema_releases == 0


@pytest.mark.parametrize("null_count", [-1, 1])
def test_hand_built_import_sums(dev, null_count):
    h = Hand(values=(10, 20, 30, 40, 50), valid=(1, 0, 1, 1, 1))
    h.array.offset = 1
    h.array.length = 4
    h.array.null_count = null_count
    rc, msg, out, _ = _import_hand(h, dev)
    assert rc == lib.AM_OK, msg
    try:
        assert lib.am_null_count(out[0]) == 1 and lib.am_length(out[0]) == 4
        s = amabi.output_scalar()
        amabi.check("am_sum", lib.am_sum(out[0], s))
        assert amabi.scalar_value(s) == ("int64", 120)
    finally:
        lib.am_release(out[0])
    assert h.array_releases == 1 and h.schema_releases == 0


def test_hand_built_bool_at_bit_offset(dev):
    # data bits 0b1011_0110, validity all set; slice [3, 3 + 5): bits 0,1,1,0,1 -> 3 true
    h = Hand(fmt=b"b", values=(0b10110110, 0), valid=(1,) * 8, ctype="uint8_t")
    h.array.length = 5
    h.array.offset = 3
    h.array.null_count = -1
    rc, msg, out, _ = _import_hand(h, dev)
    assert rc == lib.AM_OK, msg
    try:
        assert values_of(out[0]) == [False, True, True, False, True]
    finally:
        lib.am_release(out[0])
    assert h.array_releases == 1


def test_no_validity_and_unknown_null_count(dev):
    h = Hand()
    h.buffers[0] = ffi.NULL
    h.array.null_count = -1
    rc, msg, out, _ = _import_hand(h, dev)
    assert rc == lib.AM_OK, msg
    try:
        assert lib.am_null_count(out[0]) == 0
        assert values_of(out[0]) == [1, 2, 3, 4]
    finally:
        lib.am_release(out[0])
    assert h.array_releases == 1


def _is_cpu(dev):
    return ffi.string(lib.am_device_backend(dev)) == b"cpu"


def test_release_once_after_am_release(dev):
    h = Hand()
    rc, msg, out, _ = _import_hand(h, dev)
    assert rc == lib.AM_OK, msg
    assert h.array.release == ffi.NULL
    assert h.array_releases == (0 if _is_cpu(dev) else h.array_releases) <= 1
    lib.am_release(out[0])
    assert h.array_releases == 1 and h.schema_releases == 0


@pytest.mark.parametrize("order", ["export-first", "handle-first", "export-on-thread"])
def test_release_once_with_export(dev, order):
    h = Hand()
    rc, msg, out, _ = _import_hand(h, dev)
    assert rc == lib.AM_OK, msg
    schema = ffi.new("struct ArrowSchema *")
    array = ffi.new("struct ArrowArray *")
    amabi.check("am_export", lib.am_export(out[0], schema, array))
    assert array.length == 4 and ffi.string(schema.format) == b"l"
    cpu = _is_cpu(dev)
    schema.release(schema)
    if order == "export-first":
        array.release(array)
        assert h.array_releases == 0 or not cpu
        lib.am_release(out[0])
    else:
        lib.am_release(out[0])
        assert h.array_releases == 0 or not cpu, "buffers released while the export lives"
        # the export still reads the data
        data = ffi.cast("int64_t *", array.buffers[1])
        assert [data[array.offset + k] for k in range(4)] == [1, 2, 3, 4]
        if order == "export-on-thread":
            t = threading.Thread(target=lambda: array.release(array))
            t.start()
            t.join()
        else:
            array.release(array)
    assert array.release == ffi.NULL and schema.release == ffi.NULL
    assert h.array_releases == 1 and h.schema_releases == 0


def test_release_once_with_slice(dev):
    h = Hand()
    rc, msg, out, _ = _import_hand(h, dev)
    assert rc == lib.AM_OK, msg
    o = new_out()
    amabi.check("am_slice", lib.am_slice(out[0], 1, 2, o))
    lib.am_release(out[0])
    assert h.array_releases == 0 or not _is_cpu(dev)
    assert values_of(o[0]) == [2, None]
    lib.am_release(o[0])
    assert h.array_releases == 1


def test_import_device_cpu(cpu):
    h = Hand()
    dev_array = ffi.new("struct ArrowDeviceArray *")
    dev_array.array = h.array[0]
    dev_array.device_id = 0
    dev_array.device_type = lib.ARROW_DEVICE_CPU
    out = new_out()
    rc = lib.am_import_device(h.schema, dev_array, cpu, out)
    assert rc == lib.AM_OK, amabi.last_error()
    assert dev_array.array.release == ffi.NULL
    try:
        assert values_of(out[0]) == [1, 2, None, 4]
    finally:
        lib.am_release(out[0])
    assert h.array_releases == 1
    # memory of a device type the CPU does not serve
    h = Hand()
    dev_array = ffi.new("struct ArrowDeviceArray *")
    dev_array.array = h.array[0]
    dev_array.device_type = lib.ARROW_DEVICE_METAL
    out = new_out()
    rc = lib.am_import_device(h.schema, dev_array, cpu, out)
    assert rc != lib.AM_OK and out[0] == ffi.NULL
    assert amabi.names_function(amabi.last_error(), "am_import_device")
    assert h.array_releases == 1 and dev_array.array.release == ffi.NULL


@pytest.mark.parametrize(
    "device_type, device_id, words",
    [
        ("ARROW_DEVICE_METAL", 0, "metal"),  # its own device: Metal, unavailable off Apple
        (99, 0, "no backend here serves device type 99"),
        ("ARROW_DEVICE_CUDA", -1, "device_id -1 is not a cuda device"),
        ("ARROW_DEVICE_CUDA", 5000, "device_id 5000 is not a cuda device"),
    ],
)
def test_device_memory_with_no_device_named_goes_to_its_own_device(device_type, device_id, words):
    """am_import_device with a NULL device keeps device memory where it lives
    (the device its backend numbers device_id), so what cannot open that
    device is refused naming it, and the array is released once."""
    if device_type == "ARROW_DEVICE_METAL" and "metal" in BACKENDS:
        pytest.skip("Metal runs here")
    h = Hand()
    dev_array = ffi.new("struct ArrowDeviceArray *")
    dev_array.array = h.array[0]
    dev_array.device_type = (
        getattr(lib, device_type) if isinstance(device_type, str) else device_type
    )
    dev_array.device_id = device_id
    out = new_out()
    rc = lib.am_import_device(h.schema, dev_array, ffi.NULL, out)
    message = amabi.last_error()
    assert rc != lib.AM_OK and out[0] == ffi.NULL
    assert amabi.names_function(message, "am_import_device") and words in message.lower(), message
    assert h.array_releases == 1 and dev_array.array.release == ffi.NULL


@pytest.mark.parametrize(
    "device_type", ["ARROW_DEVICE_METAL", "ARROW_DEVICE_CUDA", "ARROW_DEVICE_CPU"]
)
def test_a_released_device_array_with_no_device_named_is_refused_as_released(device_type):
    """import_fuzz's find: with a NULL device, the device the array names was
    looked for first, so a released struct was refused as 'unsupported'."""
    dev_array = ffi.new("struct ArrowDeviceArray *")
    dev_array.device_type = getattr(lib, device_type)
    h = Hand()
    out = new_out()
    rc = lib.am_import_device(h.schema, dev_array, ffi.NULL, out)  # array.release is NULL
    assert rc == lib.AM_EINVAL and out[0] == ffi.NULL
    assert "already released" in amabi.last_error()


@pytest.mark.skipif("cuda" in BACKENDS, reason="needs a machine without a CUDA driver")
def test_cuda_host_memory_with_a_sync_event_is_not_read_without_waiting(cpu):
    """Pinned memory a GPU may still be writing comes with an event the
    consumer must wait on; with no CUDA driver to wait with, the import is
    refused (and the array released once) rather than read early."""
    h = Hand()
    dev_array = ffi.new("struct ArrowDeviceArray *")
    dev_array.array = h.array[0]
    dev_array.device_type = lib.ARROW_DEVICE_CUDA_HOST
    event = ffi.new("void **")
    dev_array.sync_event = event
    out = new_out()
    rc = lib.am_import_device(h.schema, dev_array, cpu, out)
    assert rc == lib.AM_EUNSUPPORTED and out[0] == ffi.NULL
    assert amabi.names_function(amabi.last_error(), "am_import_device")
    assert h.array_releases == 1 and dev_array.array.release == ffi.NULL


@pytest.mark.parametrize("type_name", ["bool", "int64"])
@pytest.mark.parametrize("length", [2**53, 2**61, 2**63 - 1])
def test_full_refuses_lengths_no_memory_could_hold(dev, type_name, length):
    out = new_out()
    rc = lib.am_full(amabi.make_scalar(type_name, 1), length, dev, out)
    assert rc == lib.AM_EINVAL and out[0] == ffi.NULL
    assert amabi.names_function(amabi.last_error(), "am_full")


# ---- concatenation ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "type_name", ["bool", "int8", "uint16", "int32", "int64", "uint64", "float32", "float64"]
)
def test_concat_matches_pyarrow(dev, type_name):
    """am_concat of sliced pieces with and without nulls (bit offsets that are
    not byte-aligned) equals pyarrow's concat_arrays; inputs stay usable."""
    r = np.random.default_rng(9)
    pieces = []
    for n, null_rate, offset in [(0, 0, 0), (1, 0, 3), (70, 0.3, 5), (130, 0, 1), (64, 1.0, 7)]:
        values = (
            r.integers(0, 2, n + offset) if type_name == "bool" else r.integers(0, 100, n + offset)
        )
        mask = r.random(n + offset) < null_rate
        arr = pa.array(values, mask=mask).cast(pa.type_for_alias(type_name))
        pieces.append(arr.slice(offset))
    handles = [imp(p, dev)[0] for p in pieces]
    out = new_out()
    try:
        rc = lib.am_concat(ffi.new("am_array *[]", handles), len(handles), dev, out)
        assert rc == lib.AM_OK, amabi.last_error()
        got = amabi.export_array(out[0])
        lib.am_release(out[0])
        assert got.equals(pa.concat_arrays(pieces))
        assert got.null_count == sum(p.null_count for p in pieces)
    finally:
        for h in handles:
            lib.am_release(h)


def test_concat_refuses_mixed_types_and_empty_lists(dev):
    a = imp(pa.array([1, 2]), dev)[0]
    b = imp(pa.array([1.5]), dev)[0]
    out = new_out()
    try:
        rc = lib.am_concat(ffi.new("am_array *[]", [a, b]), 2, dev, out)
        assert rc == lib.AM_ETYPE and out[0] == ffi.NULL
        assert amabi.names_function(amabi.last_error(), "am_concat")
        rc = lib.am_concat(ffi.new("am_array *[]", [a]), 0, dev, out)
        assert rc == lib.AM_EINVAL and out[0] == ffi.NULL
    finally:
        lib.am_release(a)
        lib.am_release(b)
