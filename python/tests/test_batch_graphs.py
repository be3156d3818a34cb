"""Batches on a GPU send their launches together as one CUDA graph
(libarrowmetal/cuda/batch_graph.c; ARROWMETAL_BATCH_GRAPHS=0 launches one by
one), or a recurring batch of small independent ops as one launch of its
batch interpreter (cuda/batch_interpreter.c). Whatever the submission, batched results must stay exactly the unbatched
ones, in every order the stream has to keep: one length of batch replayed with
new arrays, a batch longer than one graph, intermediates released inside the
batch while later calls allocate, reads and exports inside the batch, batches
committed without a wait, failures found by a kernel, and threads batching at
once. These run where the CUDA backend works (benchmarks/device_run.sh); on
the CPU the batch has nothing to hold back and the same tests check the
results there too."""

import re
import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am

CUDA = {name: ok for name, ok, _ in am.backends()}["cuda"]
CUDA_REASON = {name: reason for name, _, reason in am.backends()}["cuda"]
needs_cuda = pytest.mark.skipif(not CUDA, reason=f"no usable CUDA backend: {CUDA_REASON}")


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=needs_cuda)])
def device(request):
    return request.param


def plain(x):
    """A result as Python values (arrays, scalars, pending scalars, tuples)."""
    if isinstance(x, (tuple, list)):
        return [plain(v) for v in x]
    if hasattr(x, "to_pyarrow"):
        return x.to_pyarrow().to_pylist()
    if hasattr(x, "as_py"):
        return x.as_py()
    return x


def inputs(n, seed, device):
    rng = np.random.default_rng(seed)
    a = pa.array(rng.integers(-1000, 1000, n), mask=rng.random(n) < 0.1)
    b = pa.array(rng.integers(-1000, 1000, n))
    f = pa.array(rng.random(n) < 0.5)
    m = pa.array(rng.random(n) < 0.3, mask=rng.random(n) < 0.05)
    idx = pa.array(rng.integers(0, n, n // 2))
    return [am.array(v, device=device) for v in (a, b, f, m, idx)]


def calls(a, b, f, m, idx):
    """Calls of one- and several-kernel ops, reductions among them."""
    return [
        lambda: am.add(a, b),
        lambda: am.multiply(a, 3),
        lambda: am.greater(a, 0),
        lambda: am.equal(a, b),
        lambda: am.sum(a),
        lambda: am.min_max(b),
        lambda: am.mean(a),
        lambda: am.cast(a, pa.float64()),
        lambda: am.sqrt(am.cast(am.abs(b), pa.float64())),
        lambda: am.filter(a, m),
        lambda: am.take(b, idx),
        lambda: am.and_kleene(f, m),
        lambda: am.invert(f),
        lambda: am.is_null(a),
        lambda: am.fill_null(a, 0),
        lambda: am.if_else(m, a, b),
        lambda: am.coalesce(a, b),
        lambda: am.cumulative_sum(b),
        lambda: am.subtract_checked(a, b),
        lambda: am.count(a),
        lambda: am.sum(am.multiply(b, 2)),
    ]


@pytest.mark.parametrize("n", [1000, 100_003])
def test_batched_results_equal_unbatched(device, n):
    # The same length of batch three times, with other arrays each time: the
    # kept graph gets each batch's parameters.
    for seed in range(3):
        ops = calls(*inputs(n, seed, device))
        want = [plain(op()) for op in ops]
        with am.batch():
            got = [op() for op in ops]
        assert [plain(r) for r in got] == want


CHECKED_INSIDE = [
    # first_last without skipping nulls: two one-slot aggregates into the
    # caller's two results
    (
        "first_last",
        lambda d: am.first_last(am.array(pa.array([None, 4, 9]), device=d), skip_nulls=False),
    ),
    (
        "first_last",
        lambda d: am.first_last(am.array(pa.array([3, 4, None]), device=d), skip_nulls=False),
    ),
    # a safe cast to a coarser unit: the remainders' min and max, read at once
    (
        "cast",
        lambda d: am.cast(
            am.array(pa.array([1000, 2500], pa.timestamp("ms")), device=d), pa.timestamp("s")
        ),
    ),
    (
        "cast",
        lambda d: am.cast(
            am.array(pa.array([1000, 3000], pa.timestamp("ms")), device=d), pa.timestamp("s")
        ),
    ),
    # a cast or compare to a finer unit: the checked multiply's overflow
    # becomes the call's own error
    (
        "cast",
        lambda d: am.cast(
            am.array(pa.array([10**12], pa.timestamp("s")), device=d), pa.timestamp("ns")
        ),
    ),
    (
        "cast",
        lambda d: am.cast(
            am.array(pa.array([86_400 * 10**6], pa.duration("s")), device=d), pa.duration("ns")
        ),
    ),
    (
        "less",
        lambda d: am.less(
            am.array(pa.array([10**12], pa.timestamp("s")), device=d),
            am.array(pa.array([5], pa.timestamp("ns")), device=d),
        ),
    ),
    ("cast", lambda d: am.cast(am.array(pa.array([1.5], pa.float16()), device=d), pa.int8())),
    # distinct values per group: a filter whose length the next take reads
    (
        "group_by",
        lambda d: am.group_by(
            am.table(pa.table({"k": [1, 1, 2, 2, 2], "v": [5, 5, None, 7, 8]}), device=d), "k"
        ).aggregate([("v", "count_distinct"), ("v", "distinct")]),
    ),
    # uint64 indices past INT64_MAX: the largest, read at once for the message
    (
        "take",
        lambda d: am.take(
            am.array(pa.array([1, 2, 3]), device=d),
            am.array(pa.array([0, 2**63 + 7], pa.uint64()), device=d),
        ),
    ),
]


@pytest.mark.parametrize("case", range(len(CHECKED_INSIDE)), ids=lambda i: CHECKED_INSIDE[i][0])
def test_reductions_a_call_reads_at_once_inside_a_batch(device, case):
    # Some calls reduce values they read before returning (to decide on an
    # error, or to fill two results): inside a GPU batch those reductions
    # must still be answered at once, not at the batch's end into a scalar
    # gone by then. Result or error, the batched call is the unbatched one.
    call = CHECKED_INSIDE[case][1]
    try:
        want = plain(call(device))
    except Exception as e:  # noqa: BLE001 - the batched call must fail alike
        with pytest.raises(type(e), match=re.escape(str(e))), am.batch():
            call(device)
        return
    with am.batch():
        got = call(device)
    assert plain(got) == want


def small_ops(a, b, f, seed):
    """Sums and compares of 1,000 slots: one block each, none waiting for another."""
    return [
        lambda: am.sum(a),
        lambda: am.less(a, 0),
        lambda: am.sum(b),
        lambda: am.greater_equal(b, seed),
        lambda: am.max(a),
        lambda: am.invert(f),
        lambda: am.min_max(b),
    ]


def test_a_recurring_batch_of_small_ops(device):
    # On CUDA the 16th batch of this set compiles its batch interpreter
    # (cuda/batch_interpreter.c) and later ones run as one launch of it, with
    # new arrays each time. Every batch stays the unbatched calls.
    for seed in range(24):
        a, b, f, *_ = inputs(1000, seed % 5, device)
        ops = small_ops(a, b, f, seed)
        want = [plain(op()) for op in ops]
        with am.batch():
            got = [op() for op in ops]
        assert [plain(r) for r in got] == want, seed


def test_batch_longer_than_one_graph(device):
    a, b, *_ = inputs(5000, 7, device)
    expect = pc.add(a.to_pyarrow(), b.to_pyarrow()).to_pylist()
    with am.batch():
        results = [am.add(am.add(a, i), b) for i in range(150)]
        sums = [am.sum(r) for r in results[::10]]
    for i, r in enumerate(results):
        assert r.to_pyarrow().to_pylist() == [None if v is None else v + i for v in expect]
    for k, s in enumerate(sums):
        assert s.as_py() == sum(v + 10 * k for v in expect if v is not None)


def test_intermediates_released_inside_the_batch(device):
    # Each step's input is released while its kernels may still wait to go
    # out, and the next step allocates: its memory must not be reused early.
    a, b, *_ = inputs(20_000, 3, device)
    base = np.asarray(b.to_pyarrow())
    with am.batch():
        x = am.multiply(b, 1)
        for _ in range(60):
            y = am.add(x, 1)
            del x
            noise = am.multiply(a, 0)  # an allocation of the same size
            del noise
            x = y
        total = am.sum(x)
    assert np.array_equal(np.asarray(x.to_pyarrow()), base + 60)
    assert total.as_py() == int((base + 60).sum())


class Producer:
    """Another library's array: only the C Device Data Interface's capsules."""

    def __init__(self, array):
        self.array = array

    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
        return self.array.__arrow_c_device_array__(requested_schema, **kwargs)


def test_reads_and_exports_inside_the_batch(device):
    _a, b, *_ = inputs(10_000, 5, device)
    want = pc.multiply(b.to_pyarrow(), 2).to_pylist()
    with am.batch():
        y = am.multiply(b, 2)
        assert y.to_pyarrow().to_pylist() == want  # a download sends the held-back work
        z = am.add(y, 1)
        exported = am.array(Producer(z))  # through the C Device Data Interface
        assert exported.to_pyarrow().to_pylist() == [v + 1 for v in want]
        s = am.sum(z)
    assert s.as_py() == sum(want) + len(want)


def test_committed_batches_waited_out_of_order(device):
    _a, b, *_ = inputs(4096, 11, device)
    batches, results = [], []
    for k in range(6):
        bt = am.batch(wait=False)
        with bt:
            results.append((am.add(b, k), am.sum(am.add(b, k))))
        batches.append(bt)
    base = np.asarray(b.to_pyarrow())
    for k in [3, 0, 5, 1, 4, 2]:
        batches[k].wait()
        array, total = results[k]
        assert np.array_equal(np.asarray(array.to_pyarrow()), base + k)
        assert total.as_py() == int((base + k).sum())


def test_kernel_failure_in_a_batch_then_batches_go_on(device):
    big = am.array(pa.array([2**62, 2**62, 1], pa.int64()), device=device)
    a, b, *_ = inputs(1000, 13, device)
    with pytest.raises(OverflowError, match="overflow"), am.batch():
        am.add(a, b)
        am.add_checked(big, big)
        am.multiply(a, 2)
    with am.batch():
        r = am.add(a, b)
    assert r.to_pyarrow() == pc.add(a.to_pyarrow(), b.to_pyarrow())


def test_threads_batch_at_once(device):
    errors = []

    def work(seed):
        try:
            ops = calls(*inputs(3000, 100 + seed, device))
            want = [plain(op()) for op in ops]
            for _ in range(15):
                with am.batch():
                    got = [op() for op in ops]
                if [plain(r) for r in got] != want:
                    errors.append(f"thread {seed}: a batched result differs")
                    return
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {seed}: {e!r}")

    threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


REDUCED = [
    pa.array([3, None, -7, 12], pa.int64()),
    pa.array([1.5, None, -2.25], pa.float64()),
    pa.array([True, None, True, False]),
    pa.array([0, 86_400_000_000, None], pa.timestamp("us", "UTC")),
    pa.array([None, 5, -86_400_000_000_000], pa.timestamp("ns")),
    pa.array([19_000, None, 1], pa.date32()),
    pa.array([3_600_000_000, 7, None], pa.time64("us")),
    pa.array(["b", None, "a"]),
    pa.array([1, 2, None, 250], pa.uint8()),
    pa.array([None, 1, 2], pa.decimal128(9, 2)),
]


@pytest.mark.parametrize("values", REDUCED, ids=lambda v: str(v.type))
@pytest.mark.parametrize(
    "name", ["sum", "min", "max", "count", "mean", "min_max", "first", "last", "first_last"]
)
def test_reductions_in_a_batch_equal_unbatched(device, values, name):
    # Inside a batch a reduction of an am.Array with default options takes a
    # path of its own (a pending result at once); the result, or the error,
    # stays the unbatched one for every kind of value. A temporal array's
    # extremes run on its storage integers and take its type (and zone) back
    # when the batch writes them.
    try:
        a = am.array(values, device=device)
    except am.ArrowMetalError:
        pytest.skip(f"{values.type} does not live on {device}")
    function = getattr(am, name)
    try:
        want = plain(function(a))
    except Exception as e:  # noqa: BLE001 - the batched call must fail alike
        with pytest.raises(type(e)), am.batch():
            function(a)
        return
    with am.batch():
        got = function(a)
    assert plain(got) == want
