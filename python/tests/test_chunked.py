"""ChunkedArray inputs give ChunkedArray results with the chunk boundaries
kept (per-piece kernels in one batch), with pyarrow.compute's values."""

import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

C = pa.chunked_array([[1, 2, None], [4], [], [5, -6]], pa.int64())
D = pa.chunked_array([[1], [2, 3, 4, 5], [6]], pa.int64())
MASK = pa.chunked_array([[True, None], [False, True, True, None]])


def boundaries(chunked):
    at, cuts = 0, []
    for chunk in chunked.chunks:
        if len(chunk):
            cuts.append(at)
        at += len(chunk)
    return cuts


@pytest.mark.parametrize(
    ("name", "args", "kwargs"),
    [
        ("add", (C, D), {}),
        ("multiply", (C, 3), {}),
        ("subtract", (2, C), {}),
        ("greater", (C, pa.array([1, 1, 1, 1, 1, 1])), {}),
        ("negate", (C,), {}),
        ("abs", (C,), {}),
        ("cast", (C, pa.float32()), {}),
        ("invert", (pa.chunked_array([[True], [False, None]]),), {}),
        ("filter", (C, MASK), {}),
        ("filter", (C, MASK), {"null_selection_behavior": "emit_null"}),
        ("take", (C, pa.array([0, 5, None])), {}),
    ],
)
def test_chunked_results(name, args, kwargs):
    got = getattr(am, name)(*args, **kwargs)
    expected = getattr(pc, name)(*args, **kwargs)
    assert isinstance(got, pa.ChunkedArray)
    assert got.equals(expected)
    if name not in ("filter", "take"):
        cuts = sorted({c for a in args if isinstance(a, pa.ChunkedArray) for c in boundaries(a)})
        assert boundaries(got) == cuts


def test_empty_chunked():
    empty = pa.chunked_array([], pa.int32())
    got = am.negate(empty)
    assert isinstance(got, pa.ChunkedArray) and got.type == pa.int32() and len(got) == 0


def test_reductions_over_chunks():
    assert am.sum(C) == pc.sum(C).as_py()
    assert am.min(C) == pc.min(C).as_py()


@pytest.mark.skipif(not {n: ok for n, ok, _ in am.backends()}["cuda"], reason="needs a CUDA device")
def test_chunks_on_the_gpu():
    got = am.add(C, D, device="cuda")
    assert got.equals(pc.add(C, D)) and boundaries(got) == [0, 1, 3, 4, 5]
