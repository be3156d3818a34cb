"""pyarrow.compute's hash-based functions, with its names, argument order and
options: is_in, index_in (SetLookupOptions), unique,
value_counts, count_distinct (CountOptions), dictionary_encode
(DictionaryEncodeOptions), mode (ModeOptions).

Results as pyarrow gives them: is_in, index_in and unique an am.Array (a
ChunkedArray for is_in / index_in of a ChunkedArray, chunks kept);
value_counts and mode a pyarrow StructArray; dictionary_encode a pyarrow
DictionaryArray (of a ChunkedArray: a ChunkedArray whose chunks share the
whole input's dictionary, as pyarrow's do); count_distinct an int64 Scalar.
A ChunkedArray is otherwise one array of all its chunks. Values are equal
when their bits are (0.0 and -0.0 differ), as in pyarrow's hash tables.
"""

from __future__ import annotations

from . import _fallback
from ._array import Array, wrap
from ._capi import ffi, lib
from ._chunked import combined, is_chunked, map_pieces
from ._compute import _FALLBACK, _input_fallback, _operand, _options
from ._compute import cast as _cast
from ._errors import ArrowMetalTypeError, error_from_status
from ._options import OptionsSpec
from ._results import result_value
from ._state import drop
from ._types import TYPE_NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pyarrow as pa

    from ._typing import ArrayLike, DeviceLike

__all__ = [
    "count_distinct",
    "dictionary_decode",
    "dictionary_encode",
    "index_in",
    "is_in",
    "mode",
    "unique",
    "value_counts",
]

_error = error_from_status

# The C++ NullMatchingBehavior of SetLookupOptions: MATCH, SKIP, EMIT_NULL,
# INCONCLUSIVE. pyarrow's Python constructor makes only the first two
# (skip_nulls False / True).
_MATCH, _SKIP = 0, 1


def _pa() -> Any:
    import pyarrow as pa

    return pa


def _call(fn: Any, x: Any, device: DeviceLike | None, outs: int) -> tuple[Any, ...]:
    """fn(handle, *outs) on an array operand of any kind: the handles written."""
    if not isinstance(x, Array) and _is_scalar(x):
        raise ArrowMetalTypeError(
            f"takes an array, not a scalar ({type(x).__name__})", lib.AM_ETYPE
        )
    p, tmp = _operand(x, device)
    out = [ffi.new("am_array **") for _ in range(outs)]
    try:
        rc = fn(p, *out)
        if rc:
            raise _error(rc)
    finally:
        if tmp is not None:
            drop(tmp)
    return tuple(wrap(o[0]) for o in out)


def _is_scalar(x: Any) -> bool:
    from ._dispatch import SCALAR, dispatch

    try:
        return bool(dispatch(type(x))[0] == SCALAR)
    except Exception:  # noqa: BLE001 - not an input the package knows: the import says why
        return False


# ---------------------------------------------------------------------------
# is_in, index_in


def _lookup_options(options: Any) -> tuple[Any, bool]:
    """(value_set, skip_nulls) of a pyarrow SetLookupOptions: its value set
    read back with its type from the serialization, which the field reader
    of _options turns into Python values."""
    pa = _pa()
    if type(options).__name__ != "SetLookupOptions":
        raise TypeError(
            f"Function 'is_in' expected a SetLookupOptions parameter, got {type(options)}"
        )
    table = pa.ipc.open_file(options.serialize()).read_all()
    row = table.column(0).chunk(0)
    value_set = row.field("value_set")[0].values
    behavior = row.field("null_matching_behavior")[0].as_py()
    if behavior not in (_MATCH, _SKIP):
        raise NotImplementedError(f"SetLookupOptions null_matching_behavior {behavior}")
    return value_set, behavior == _SKIP


def _value_set_array(value_set: Any) -> Any:
    """pyarrow's value_set: an Array or a ChunkedArray (its chunks joined)."""
    pa = _pa()
    if isinstance(value_set, Array):
        return value_set
    if is_chunked(value_set):
        return combined(value_set)
    if isinstance(value_set, pa.Array):
        return value_set
    raise TypeError(f'"{value_set}" is not a valid value set')


_PA_NAMES = {"double": "float64", "float": "float32", "halffloat": "float16"}


def _type_of(x: Any) -> str:
    """ArrowMetal's name of an array's type ("float64" for pyarrow's "double");
    a dictionary's values' (a value set meets them)."""
    if isinstance(x, Array):
        return x.type
    t = x.type
    name = str(t.value_type if _pa().types.is_dictionary(t) else t)
    return _PA_NAMES.get(name, name)


def _is_string(name: str) -> bool:
    """Whether a type name (ArrowMetal's or pyarrow's) is a string or binary type."""
    return name in (
        "string", "large_string", "binary", "large_binary", "string_view", "binary_view"
    ) or name.startswith("fixed_size_binary")  # fmt: skip


def _unify(values: Any, value_set: Any, device: DeviceLike | None) -> tuple[Any, Any]:
    """pyarrow's casts between the values and a value set of another type:
    the set to the values' type when that is safe for every member, else the
    values to the set's type (whose failure is the error)."""
    vt, st = _type_of(values), _type_of(value_set)
    if vt.startswith("decimal") and st.startswith("decimal"):
        return values, value_set  # the library converts the set (decimal_hash.c)
    if _is_string(vt) and _is_string(st):
        return values, value_set  # the library takes pyarrow's casts as bytes (string_hash.c)
    if st not in TYPE_NAMES:  # pyarrow's types elsewhere: its own call says what it does
        raise ArrowMetalTypeError(f"no kernel for a value set of {st}", lib.AM_ETYPE)
    if vt == st:
        return values, value_set
    pa = _pa()
    try:
        return values, _cast(value_set, vt, device=device)
    except (pa.ArrowInvalid, OverflowError, ValueError):
        pass
    try:
        return _cast(values, st, device=device), value_set
    except (OverflowError, ValueError) as e:
        # pyarrow's words and class (am.cast's message names am_cast).
        raise pa.ArrowInvalid(str(e).split(": ", 1)[-1]) from None


def _set_lookup(
    name: str,
    cfn: Any,
    values: Any,
    value_set: Any,
    skip_nulls: Any,
    options: Any,
    device: DeviceLike | None,
) -> Any:
    kwargs: dict[str, Any] = {"value_set": value_set, "skip_nulls": skip_nulls}
    if isinstance(options, dict):  # pyarrow builds the class from a dict
        import pyarrow.compute as pc

        options = pc.SetLookupOptions(**options)
    if options is not None:
        if value_set is not None or skip_nulls not in (None, False):
            raise TypeError(
                f"Function '{name}' called with both an 'options' argument and additional arguments"
            )
        kwargs = {"options": options}
        try:
            value_set, skip = _lookup_options(options)
        except NotImplementedError as e:
            return _fallback.run(name, str(e), (values,), kwargs)
    else:
        if value_set is None:
            raise _pa().ArrowInvalid(f"Function '{name}' cannot be called without options")
        skip = bool(skip_nulls)
    pa = _pa()
    if not isinstance(values, Array) and _is_scalar(values):
        return _fallback.run(name, _SCALAR, (values,), kwargs)
    strings = False
    try:
        vs = _value_set_array(value_set)
        vt, st = _type_of(values), _type_of(vs)
        strings = _is_string(vt) and _is_string(st)
        if _is_string(vt) != _is_string(st):
            # Strings and another type (a typeless null set for string values
            # too): pyarrow parses one side as the other's type, or refuses, by
            # rules of its own casts; it runs the call.
            reason = f"no kernel for {vt} values in a {st} value set"
            return _fallback.run(name, reason, (values,), kwargs)
        if not isinstance(vs, Array) and pa.types.is_null(vs.type):
            # A set of nulls of no type: nulls of the values' type.
            vs = pa.nulls(len(vs), type=pa.type_for_alias(vt))

        def one(piece: Any) -> Any:
            v, s = _unify(piece, vs, device)
            p, tmp = _operand(s, device)
            try:
                return _call(lambda x, o: cfn(x, p, 1 if skip else 0, o), v, device, 1)[0]
            finally:
                if tmp is not None:
                    drop(tmp)

        if is_chunked(values):
            # pyarrow answers a ChunkedArray with one chunk (none for none).
            t = pa.bool_() if name == "is_in" else pa.int32()
            if values.num_chunks == 0:
                return pa.chunked_array([], type=t)
            return pa.chunked_array([one(combined(values)).to_pyarrow()], type=t)
        return one(values)
    except ArrowMetalTypeError as e:
        if strings:
            raise  # pyarrow's own refusal of the pair (string_hash.c), in its words
        return _input_fallback(name, e, (values, value_set), (values,), kwargs)


def is_in(
    values: ArrayLike,
    /,
    value_set: Any = None,
    *,
    skip_nulls: bool = False,
    options: Any = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Any:
    """Whether each value is in `value_set` (pyarrow.compute.is_in; am_is_in):
    a bool array that is never null. A null value is in a set holding a null
    unless skip_nulls."""
    return _set_lookup("is_in", lib.am_is_in, values, value_set, skip_nulls, options, device)


def index_in(
    values: ArrayLike,
    /,
    value_set: Any = None,
    *,
    skip_nulls: bool = False,
    options: Any = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Any:
    """The position of each value's first occurrence in `value_set`, null
    where it has none (pyarrow.compute.index_in; am_index_in): int32."""
    return _set_lookup("index_in", lib.am_index_in, values, value_set, skip_nulls, options, device)


# ---------------------------------------------------------------------------
# unique, value_counts, dictionary_encode, count_distinct, mode


_SCALAR = "no kernel for a scalar input (pyarrow takes it as one slot)"


def _run(name: str, fn: Any, x: Any, device: DeviceLike | None, outs: int, kwargs: Any) -> Any:
    if not isinstance(x, Array) and _is_scalar(x):
        return (_fallback.run(name, _SCALAR, (x,), kwargs),)
    try:
        return _call(fn, combined(x), device, outs)
    except ArrowMetalTypeError as e:
        return (_input_fallback(name, e, (x,), (x,), kwargs),)


def _fell_back(result: tuple[Any, ...], outs: int) -> bool:
    return len(result) != outs


def unique(
    array: ArrayLike,
    /,
    *,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Any:
    """The distinct values in the order of their first occurrence, a null
    once where there are nulls (pyarrow.compute.unique; am_unique)."""
    return _run("unique", lib.am_unique, array, device, 1, {})[0]


def _struct(names: tuple[str, str], parts: tuple[Any, ...]) -> Any:
    pa = _pa()
    a, b = (p.to_pyarrow() if isinstance(p, Array) else p for p in parts)
    return pa.StructArray.from_arrays([a, b], names=list(names))


def value_counts(
    array: ArrayLike,
    /,
    *,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Any:
    """pyarrow.compute.value_counts (am_value_counts): a StructArray
    {values, counts: int64} in first-occurrence order."""
    result = _run("value_counts", lib.am_value_counts, array, device, 2, {})
    if _fell_back(result, 2):
        return result[0]
    return _struct(("values", "counts"), result)


_COUNT_MODES = {"only_valid": 0, "only_null": 1, "all": 2}


def count_distinct(
    array: ArrayLike,
    /,
    mode: str = "only_valid",
    *,
    options: Any = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Any:
    """The number of distinct values (pyarrow.compute.count_distinct;
    am_count_distinct): valid ones ("only_valid"), 1 for nulls ("only_null")
    or both ("all")."""
    spec = OptionsSpec("count_distinct", "CountOptions", {"mode": "only_valid"})
    fields, reason = _options(spec, options, {"mode": mode})
    kwargs = {"options": options} if options is not None else {"mode": mode}
    if fields is _FALLBACK:
        return _fallback.run("count_distinct", reason, (array,), kwargs)
    m = fields["mode"]
    if m not in _COUNT_MODES:
        raise ValueError(f'"{m}" is not a valid mode')
    if not isinstance(array, Array) and _is_scalar(array):
        return _fallback.run("count_distinct", _SCALAR, (array,), kwargs)
    try:
        p, tmp = _operand(combined(array), device)
        try:
            s = ffi.new("am_scalar *")
            rc = lib.am_count_distinct(p, _COUNT_MODES[m], s)
            if rc:
                raise _error(rc)
            return result_value(s)
        finally:
            if tmp is not None:
                drop(tmp)
    except ArrowMetalTypeError as e:
        return _input_fallback("count_distinct", e, (array,), (array,), kwargs)


_NULL_ENCODINGS = {"mask": 0, "encode": 1}


def dictionary_encode(
    array: ArrayLike,
    /,
    null_encoding: str = "mask",
    *,
    options: Any = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Any:
    """pyarrow.compute.dictionary_encode (am_dictionary_encode): a
    DictionaryArray of int32 indices over the distinct values in
    first-occurrence order; null_encoding "mask" gives nulls null indices,
    "encode" puts the null in the dictionary."""
    spec = OptionsSpec("dictionary_encode", "DictionaryEncodeOptions", {"null_encoding": "mask"})
    if isinstance(options, dict):  # pyarrow builds the class from a dict
        import pyarrow.compute as pc

        options = pc.DictionaryEncodeOptions(**options)
    if options is not None and type(options).__name__ == "DictionaryEncodeOptions":
        from ._options import read_fields

        raw = read_fields(options)
        behavior = raw.get("null_encoding_behavior", 0)
        if null_encoding != "mask":
            raise TypeError(
                "Function 'dictionary_encode' called with both an 'options' argument "
                "and additional arguments"
            )
        # The C++ NullEncodingBehavior: ENCODE = 0, MASK = 1.
        fields: Any = {"null_encoding": ("encode", "mask")[behavior]}
        reason: Any = None
    else:
        fields, reason = _options(spec, options, {"null_encoding": null_encoding})
    kwargs = {"options": options} if options is not None else {"null_encoding": null_encoding}
    if fields is _FALLBACK:
        return _fallback.run("dictionary_encode", reason, (array,), kwargs)
    enc = fields["null_encoding"]
    if enc not in _NULL_ENCODINGS:
        raise ValueError(f'"{enc}" is not a valid null_encoding')
    fn = lambda p, o: lib.am_dictionary_encode(p, _NULL_ENCODINGS[enc], o)
    result = _run("dictionary_encode", fn, array, device, 1, kwargs)
    # The library's dictionary array comes as Arrow's (wrap): a pa.DictionaryArray;
    # anything else is a fallback's answer.
    encoded = result[0]
    if not isinstance(encoded, _pa().DictionaryArray) or not is_chunked(array):
        return encoded
    pa = _pa()
    chunks, start = [], 0
    pieces: Any = array
    for c in pieces.chunks:
        if len(c):  # pyarrow's result has no empty chunks
            chunks.append(encoded.slice(start, len(c)))
        start += len(c)
    return pa.chunked_array(chunks, type=encoded.type)


def dictionary_decode(
    dictionary_array: ArrayLike,
    /,
    *,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Any:
    """pyarrow.compute.dictionary_decode (am_dictionary_decode): a
    DictionaryArray's values at its indices, of the dictionary's type; any
    other array as it is. A ChunkedArray is decoded chunk by chunk."""
    if is_chunked(dictionary_array):
        return map_pieces(lambda a: dictionary_decode(a, device=device), (dictionary_array,))
    return _run("dictionary_decode", lib.am_dictionary_decode, dictionary_array, device, 1, {})[0]


def mode(
    array: ArrayLike,
    /,
    n: int = 1,
    *,
    skip_nulls: bool = True,
    min_count: int = 0,
    options: Any = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> Any:
    """pyarrow.compute.mode (am_mode): a StructArray {mode, count: int64} of
    the n most common values, by count descending then value ascending."""
    spec = OptionsSpec("mode", "ModeOptions", {"n": 1, "skip_nulls": True, "min_count": 0})
    given = {"n": n, "skip_nulls": skip_nulls, "min_count": min_count}
    fields, reason = _options(spec, options, given)
    kwargs = {"options": options} if options is not None else given
    if fields is _FALLBACK:
        return _fallback.run("mode", reason, (array,), kwargs)
    count = fields["n"]
    if count <= 0:
        raise _pa().ArrowInvalid("ModeOptions::n must be strictly positive")
    need = fields["min_count"]
    keep = 1 if fields["skip_nulls"] else 0
    fn = lambda p, m, c: lib.am_mode(p, count, keep, need, m, c)
    result = _run("mode", fn, array, device, 2, kwargs)
    if _fell_back(result, 2):
        return result[0]
    return _struct(("mode", "count"), result)
