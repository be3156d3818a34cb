"""am.binary_join_element_wise (am_binary_join_element_wise) against
pyarrow.compute: the four string and binary types, one to three values, the
separator an array or a scalar (a null one too), every JoinOptions null
handling, sliced and chunked inputs, pyarrow's refusals; a Python reference
where pyarrow 26 drops a row ("skip" with every value null: the header's
divergence)."""

import pytest

import arrowmetal as am

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]
HOW = ["emit_null", "skip", "replace"]


def _enc(t, x):
    return x if x is None or "string" in str(t) else x.encode()


def _arrow(result):
    return result.to_pyarrow() if isinstance(result, am.Array) else result


def _reference(args, how, replacement, t):
    *values, sep = args
    n = len(values[0])
    if isinstance(sep, pa.Array):
        seps = sep.to_pylist()
    else:
        seps = [sep.as_py() if isinstance(sep, pa.Scalar) else sep] * n
    out = []
    for i in range(n):
        parts = [] if seps[i] is not None else None
        for v in values:
            if parts is None:
                break
            x = v[i].as_py()
            if x is None and how == "emit_null":
                parts = None
            elif x is not None or how == "replace":
                parts.append(replacement if x is None else x)
        out.append(None if parts is None else seps[i].join(parts))
    return pa.array(out, t)


pytestmark = pytest.mark.usefixtures("no_fallback")  # conftest.py


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("t", TYPES, ids=str)
def test_matches_pyarrow(t, how):
    words = ["a", None, "c", "d", "héllo", "", "日本"]
    a = pa.array([_enc(t, x) for x in words], t)
    b = pa.array([_enc(t, x) for x in ["x", "y", None, "", "w", "z", None]], t)
    sep = pa.array([_enc(t, x) for x in ["-", "+", None, "/", "", ", ", "·"]], t)
    seps = [sep, pa.scalar(_enc(t, "-"), t), pa.scalar(None, t)]
    seps += [_enc(t, "::")] if t in (pa.string(), pa.binary()) else []
    replacement = _enc(t, "N")
    for s in seps:
        sliced = s.slice(2) if isinstance(s, pa.Array) else s
        for args in [(a, b, s), (a, s), (a, b, a, s), (a.slice(2), b.slice(2), sliced)]:
            got = _arrow(am.binary_join_element_wise(*args, null_handling=how,
                                                     null_replacement=replacement))  # fmt: skip
            assert got.equals(_reference(args, how, replacement, t))
            want = pc.binary_join_element_wise(*args, null_handling=how,
                                               null_replacement=replacement)  # fmt: skip
            if len(want) == len(got):
                assert got.equals(want)
            else:
                assert how == "skip"  # pyarrow 26 drops a row of null values


def test_options_and_chunks():
    c = pa.chunked_array([["a", None], ["c"]])
    d = pa.array(["x", "y", "z"])
    opts = pc.JoinOptions(null_handling="replace", null_replacement="?")
    got = am.binary_join_element_wise(c, d, "-", options=opts)
    assert isinstance(got, pa.ChunkedArray) and got.num_chunks == 2
    assert got.equals(pc.binary_join_element_wise(c, d, "-", options=opts))
    with pytest.raises(ValueError, match='"bogus" is not a valid null handling'):
        am.binary_join_element_wise(d, "-", null_handling="bogus")


def test_refusals_in_pyarrows_words():
    with pytest.raises(ValueError, match="Array arguments must all be the same length"):
        am.binary_join_element_wise(pa.array(["a", "b"]), pa.array(["a"]), ",")
    with pytest.raises(TypeError, match=r"no kernel matching input types \(string, binary\)"):
        am.binary_join_element_wise(pa.array(["a"]), b",")
    with pytest.raises(TypeError, match="no kernel matching input types"):
        am.binary_join_element_wise(pa.array([1]), pa.array([","]))


def test_the_c_call():
    from arrowmetal._capi import ffi, lib

    a = am.array(pa.array(["a", None]))
    b = am.array(pa.array(["b", "c"], pa.large_string()))
    out = ffi.new("am_array **")
    values = ffi.new("am_array *[]", [a.handle])
    assert lib.am_binary_join_element_wise(
        values, 1, b.handle, ffi.NULL, 0, 0, ffi.NULL, 0, out
    ) == (lib.AM_ETYPE)
    assert b"(string, large_string)" in ffi.string(lib.am_last_error())
    assert lib.am_binary_join_element_wise(values, 1, ffi.NULL, b"-", 1, 3, ffi.NULL, 0, out) == (
        lib.AM_EINVAL
    )
    assert lib.am_binary_join_element_wise(ffi.NULL, 0, ffi.NULL, b"-", 1, 0, ffi.NULL, 0, out) == (
        lib.AM_EINVAL
    )
    assert lib.am_binary_join_element_wise(values, -1, ffi.NULL, b"-", 1, 0, ffi.NULL, 0, out) == (
        lib.AM_EINVAL
    )
    # no values: each valid separator row joins nothing
    sep = am.array(pa.array(["-", None]))
    assert (
        lib.am_binary_join_element_wise(ffi.NULL, 0, sep.handle, ffi.NULL, 0, 0, ffi.NULL, 0, out)
        == 0
    )
    assert am._array.wrap(out[0]).to_pylist() == ["", None]
