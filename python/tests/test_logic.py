"""pyarrow's boolean family (and_, or_, invert, and_kleene, or_kleene, xor, and_not,
and_not_kleene): the Python functions against pyarrow.compute on every kind of input
(arrays, am.Array, ChunkedArrays, bool and null scalars on either side, two scalars),
lengths that reach the worker pool, the ^ operator, and the C entry points' argument
checks, which the conformance cases (one call each, well-formed) do not reach."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am
from arrowmetal import ffi, lib

BINARY = ["and_", "or_", "and_kleene", "or_kleene", "xor", "and_not", "and_not_kleene"]
NEW = {
    "and_kleene": lib.AM_LOGIC_AND_KLEENE,
    "or_kleene": lib.AM_LOGIC_OR_KLEENE,
    "xor": lib.AM_LOGIC_XOR,
    "and_not": lib.AM_LOGIC_AND_NOT,
    "and_not_kleene": lib.AM_LOGIC_AND_NOT_KLEENE,
}
TV = [True, False, None]
LEFT = pa.array([a for a in TV for _ in TV])
RIGHT = pa.array([b for _ in TV for b in TV])
NULL_BOOL = pa.scalar(None, pa.bool_())


def equal(got, want):
    """Values, nulls and type of an am result against pyarrow's."""
    if isinstance(got, am.Array):
        got = got.to_pyarrow()
    assert got.type == want.type
    assert got.to_pylist() == want.to_pylist()
    assert got.null_count == want.null_count


def bools(rng, n, true_share, null_share):
    mask = rng.random(n) < null_share if null_share else None
    return pa.array(rng.random(n) < true_share, mask=mask)


def test_the_new_functions_are_rows_of_the_library_and_exported():
    info = ffi.new("am_function_info *")
    rows = {}
    for i in range(lib.am_function_count()):
        assert lib.am_function_info_get(i, info) == lib.AM_OK
        if info.family == lib.AM_FAMILY_LOGIC:
            rows[ffi.string(info.name).decode()] = (
                ffi.string(info.entry).decode(),
                info.op,
                info.arity,
                info.null_rule,
            )
    assert rows["and"] == ("am_and", lib.AM_LOGIC_AND, 2, lib.AM_NULLS_PROPAGATE)
    assert rows["invert"] == ("am_not", lib.AM_LOGIC_NOT, 1, lib.AM_NULLS_PROPAGATE)
    for name, op in NEW.items():
        kleene = lib.AM_NULLS_KLEENE if name.endswith("kleene") else lib.AM_NULLS_PROPAGATE
        assert rows[name] == ("am_logic", op, 2, kleene)
        assert name in am.__all__ and getattr(am, name).__name__ == name
        getattr(am, name)(LEFT, RIGHT)
        assert name not in am.fallbacks()  # ArrowMetal's kernel ran, not pyarrow


@pytest.mark.parametrize("name", BINARY)
def test_truth_table_in_every_form(name):
    fn, ref = getattr(am, name), getattr(pc, name)
    equal(fn(LEFT, RIGHT), ref(LEFT, RIGHT))
    equal(fn(am.array(LEFT), am.array(RIGHT)), ref(LEFT, RIGHT))
    equal(fn(am.array(LEFT), RIGHT), ref(LEFT, RIGHT))
    for s in (True, False, NULL_BOOL, pa.scalar(True), pa.scalar(False), np.bool_(True)):
        equal(fn(LEFT, s), ref(LEFT, s))
        equal(fn(s, LEFT), ref(s, LEFT))
        equal(fn(am.array(LEFT), s), ref(LEFT, s))
        equal(fn(s, am.array(LEFT)), ref(s, LEFT))
    for x in (True, False, NULL_BOOL):
        for y in (True, False, NULL_BOOL):
            assert fn(x, y) == ref(x, y).as_py(), (x, y)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 1000, 100_003])
def test_against_pyarrow_at_lengths_offsets_and_null_shares(name, n):
    fn, ref = getattr(am, name), getattr(pc, name)
    rng = np.random.default_rng(n)
    for (lo, ro), (ln, rn) in [((0, 0), (0.0, 0.2)), ((3, 64), (0.3, 0.0)), ((7, 5), (0.2, 0.9))]:
        x = bools(rng, n + 64, 0.3, ln).slice(lo, n)
        y = bools(rng, n + 64, 0.7, rn).slice(ro, n)
        equal(fn(x, y), ref(x, y))
        equal(fn(y, x), ref(y, x))
        for s in (True, False, NULL_BOOL):
            equal(fn(x, s), ref(x, s))
            equal(fn(s, y), ref(s, y))


@pytest.mark.parametrize("name", ["and_kleene", "or_kleene", "and_not_kleene"])
def test_kleene_over_nulls_on_the_worker_pool(name):
    # Bit kernels split 2^23 slots and more (a word is the unit of work) over
    # the pool, in parts of whole words; over nulls the Kleene ones count the
    # valid slots of each part.
    fn, ref = getattr(am, name), getattr(pc, name)
    rng = np.random.default_rng(9)
    n = 9_000_003
    x = bools(rng, n + 64, 0.4, 0.3).slice(5, n)
    y = bools(rng, n + 64, 0.6, 0.1).slice(64, n)
    equal(fn(x, y), ref(x, y))
    equal(fn(NULL_BOOL, y), ref(NULL_BOOL, y))


@pytest.mark.parametrize("name", BINARY)
def test_chunked_arrays_keep_their_chunks(name):
    fn, ref = getattr(am, name), getattr(pc, name)
    x = pa.chunked_array([LEFT[:4], LEFT[4:]])
    y = pa.chunked_array([RIGHT[:2], RIGHT[2:7], RIGHT[7:]])
    got = fn(x, y)
    assert isinstance(got, pa.ChunkedArray) and got.num_chunks == 4
    equal(got.combine_chunks(), ref(x, y).combine_chunks())
    for s in (True, NULL_BOOL):
        got = fn(x, s)
        assert got.num_chunks == 2
        equal(got.combine_chunks(), ref(x, s).combine_chunks())
        equal(fn(s, y).combine_chunks(), ref(s, y).combine_chunks())


@pytest.mark.parametrize("name", BINARY)
def test_errors_are_pyarrows(name):
    fn = getattr(am, name)
    with pytest.raises(TypeError, match="no kernel matching input types"):
        fn(LEFT, pa.array(range(9), pa.int8()))
    with pytest.raises(TypeError, match="no kernel matching input types"):
        fn(pa.array([1.0, 2.0]), pa.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="no kernel matching input types"):
        fn(LEFT, pa.scalar(1, pa.int8()))
    with pytest.raises(TypeError, match="no kernel matching input types"):
        fn(pa.scalar(None, pa.int8()), LEFT)
    with pytest.raises(ValueError, match="different lengths"):
        fn(LEFT, RIGHT[:3])
    assert fn(LEFT, RIGHT, memory_pool=None) is not None  # pyarrow's keyword is taken


def test_xor_operator_and_the_others():
    x, y = am.array(LEFT), am.array(RIGHT)
    equal(x ^ y, pc.xor(LEFT, RIGHT))
    equal(x ^ True, pc.xor(LEFT, True))
    equal(False ^ x, pc.xor(False, LEFT))
    equal(x ^ RIGHT, pc.xor(LEFT, RIGHT))
    equal(x & y, pc.and_(LEFT, RIGHT))  # & | ^ are the null-propagating functions
    equal(x | y, pc.or_(LEFT, RIGHT))
    equal(~x, pc.invert(LEFT))
    with pytest.raises(TypeError):
        x ^ object()
    with pytest.raises(TypeError, match="no kernel matching input types"):
        am.array([1, 2]) ^ am.array([3, 4])


# ---- the C entry points


def handles(*arrays):
    return [am.array(a) for a in arrays]


def scalar(value, type_=lib.AM_BOOL):
    s = ffi.new("am_scalar *")
    s.type = type_
    s.is_null = value is None
    s.i64 = 0 if value is None else int(value)
    return s


def last_error():
    return ffi.string(lib.am_last_error()).decode()


def result(rc, out):
    assert rc == lib.AM_OK, last_error()
    return am._array.wrap(out[0]).to_pyarrow()


def test_am_logic_is_am_and_am_or_am_not():
    x, y = handles(LEFT, RIGHT)
    out = ffi.new("am_array **")
    for op, cfn, ref in [
        (lib.AM_LOGIC_AND, lib.am_and, pc.and_),
        (lib.AM_LOGIC_OR, lib.am_or, pc.or_),
    ]:
        equal(result(lib.am_logic(op, x._ptr, y._ptr, out), out), ref(LEFT, RIGHT))
        equal(result(cfn(x._ptr, y._ptr, out), out), ref(LEFT, RIGHT))
    equal(result(lib.am_logic(lib.AM_LOGIC_NOT, x._ptr, ffi.NULL, out), out), pc.invert(LEFT))


def test_a_bool_scalar_is_true_when_nonzero_and_a_typeless_null_is_a_null_bool():
    (x,) = handles(LEFT)
    out = ffi.new("am_array **")
    equal(
        result(lib.am_logic_scalar(lib.AM_LOGIC_XOR, x._ptr, scalar(-5), out), out),
        pc.xor(LEFT, True),
    )
    typeless = scalar(None, lib.AM_TYPE_INVALID)
    for op, ref in [(lib.AM_LOGIC_AND_KLEENE, pc.and_kleene), (lib.AM_LOGIC_XOR, pc.xor)]:
        equal(result(lib.am_logic_scalar(op, x._ptr, typeless, out), out), ref(LEFT, NULL_BOOL))
        equal(
            result(lib.am_logic_scalar_left(op, typeless, x._ptr, out), out), ref(NULL_BOOL, LEFT)
        )


def test_bad_arguments_are_errors_that_name_the_problem():
    x, y = handles(LEFT, RIGHT)
    out = ffi.new("am_array **")
    s = scalar(True)
    cases = [
        (lambda: lib.am_logic(8, x._ptr, y._ptr, out), lib.AM_EINVAL, "unknown logic op 8"),
        (lambda: lib.am_logic(1000, x._ptr, y._ptr, out), lib.AM_EINVAL, "unknown logic op 1000"),
        (
            lambda: lib.am_logic(lib.AM_LOGIC_NOT, x._ptr, y._ptr, out),
            lib.AM_EINVAL,
            "'invert' takes one array",
        ),
        (
            lambda: lib.am_logic(lib.AM_LOGIC_XOR, x._ptr, ffi.NULL, out),
            lib.AM_EINVAL,
            "right is NULL",
        ),
        (
            lambda: lib.am_logic(lib.AM_LOGIC_XOR, ffi.NULL, y._ptr, out),
            lib.AM_EINVAL,
            "left is NULL",
        ),
        (
            lambda: lib.am_logic(lib.AM_LOGIC_XOR, x._ptr, y._ptr, ffi.NULL),
            lib.AM_EINVAL,
            "out is NULL",
        ),
        (
            lambda: lib.am_logic_scalar(lib.AM_LOGIC_NOT, x._ptr, s, out),
            lib.AM_EINVAL,
            "'invert' takes one array and no scalar",
        ),
        (
            lambda: lib.am_logic_scalar(lib.AM_LOGIC_OR_KLEENE, x._ptr, ffi.NULL, out),
            lib.AM_EINVAL,
            "right is NULL",
        ),
        (
            lambda: lib.am_logic_scalar_left(lib.AM_LOGIC_OR_KLEENE, ffi.NULL, x._ptr, out),
            lib.AM_EINVAL,
            "left is NULL",
        ),
        (
            lambda: lib.am_logic_scalar_left(lib.AM_LOGIC_OR_KLEENE, s, ffi.NULL, out),
            lib.AM_EINVAL,
            "right is NULL",
        ),
        (
            lambda: lib.am_logic_scalar(lib.AM_LOGIC_AND, x._ptr, scalar(1, 99), out),
            lib.AM_ETYPE,
            "invalid scalar type 99",
        ),
        (
            lambda: lib.am_logic_scalar_left(
                lib.AM_LOGIC_AND_NOT, scalar(1, lib.AM_INT8), x._ptr, out
            ),
            lib.AM_ETYPE,
            "function 'and_not' has no kernel matching input types (int8, bool)",
        ),
        (
            lambda: lib.am_logic_scalar(9, x._ptr, s, out),
            lib.AM_EINVAL,
            "unknown logic op 9",
        ),
    ]
    for call, status, words in cases:
        out[0] = ffi.NULL
        assert call() == status, words
        assert words in last_error(), last_error()
        assert out[0] == ffi.NULL, "output written on failure"
