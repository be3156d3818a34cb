"""pyarrow.compute's splitting functions on am_string_split (issue #13):
split_pattern (SplitPatternOptions: pattern, max_splits, reverse),
ascii_split_whitespace and utf8_split_whitespace (SplitOptions: max_splits,
reverse), with pyarrow's names, options and results.

The library has no list type: it gives each list's items (one array of the
input's type) and the int32 list offsets (the input's validity on them), and
the result here is the pyarrow ListArray of type list<input type> over those
two arrays' buffers, without a copy (a ChunkedArray of them for a
ChunkedArray, chunk by chunk). A scalar input and the types the library has
no kernel for run in pyarrow (counted, as every fallback); so does
split_pattern_regex, which this module does not define.
"""

from __future__ import annotations

from . import _fallback
from ._array import wrap
from ._capi import ffi, lib
from ._chunked import is_chunked
from ._compute import _FALLBACK, _input_fallback, _operand, _options
from ._dispatch import SCALAR, dispatch
from ._errors import ArrowMetalTypeError, ArrowMetalUnsupported, error_from_status
from ._options import OptionsSpec
from ._state import drop

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ascii_split_whitespace", "split_pattern", "utf8_split_whitespace"]

_PATTERN_SPEC = OptionsSpec(
    "split_pattern", "SplitPatternOptions", {"pattern": None, "max_splits": None, "reverse": False}
)
_WHITESPACE_SPECS = {
    name: OptionsSpec(name, "SplitOptions", {"max_splits": None, "reverse": False})
    for name in ("ascii_split_whitespace", "utf8_split_whitespace")
}
_OPS = {
    "split_pattern": lib.AM_SPLIT_PATTERN,
    "ascii_split_whitespace": lib.AM_ASCII_SPLIT_WHITESPACE,
    "utf8_split_whitespace": lib.AM_UTF8_SPLIT_WHITESPACE,
}


def _split_one(op: int, x: Any, pattern: Any, n: int, max_splits: int, reverse: bool,
               device: Any) -> Any:  # fmt: skip
    """The ListArray of one array operand (imported, or an am.Array)."""
    import pyarrow as pa

    items = ffi.new("am_array **")
    offsets = ffi.new("am_array **")
    p, tmp = _operand(x, device)
    try:
        rc = lib.am_string_split(op, p, pattern, n, max_splits, reverse, items, offsets)
        if rc:
            raise error_from_status(rc)
    finally:
        if tmp is not None:
            drop(tmp)
    values = wrap(items[0]).to_pyarrow()
    lists = wrap(offsets[0]).to_pyarrow()
    # the offsets array's validity and data buffers are the list's own
    return pa.Array.from_buffers(pa.list_(values.type), len(lists) - 1, lists.buffers(),
                                 null_count=lists.null_count, offset=lists.offset,
                                 children=[values])  # fmt: skip


def _split(name: str, strings: Any, pattern: bytes | None, fields: dict[str, Any],
           kwargs: dict[str, Any], device: Any) -> Any:  # fmt: skip
    max_splits = -1 if fields["max_splits"] is None else int(fields["max_splits"])
    reverse = bool(fields["reverse"])
    keep = ffi.new("char[]", pattern) if pattern is not None else ffi.NULL
    n = len(pattern) if pattern is not None else 0
    op = _OPS[name]
    try:
        if type(strings).__module__ != "arrowmetal._array" and dispatch(type(strings))[0] == SCALAR:
            raise ArrowMetalUnsupported("a scalar input")  # pyarrow's ListScalar
        if is_chunked(strings):
            import pyarrow as pa

            # no chunks: an empty one tells the result type (or the type error)
            pieces = strings.chunks or [pa.array([], strings.type)]
            chunks = [_split_one(op, c, keep, n, max_splits, reverse, device) for c in pieces]
            return pa.chunked_array(chunks if strings.chunks else [], chunks[0].type)
        return _split_one(op, strings, keep, n, max_splits, reverse, device)
    except ArrowMetalUnsupported as e:  # a scalar
        return _fallback.run(name, str(e), (strings,), kwargs)
    except ArrowMetalTypeError as e:
        return _input_fallback(name, e, (strings,), (strings,), kwargs)


def split_pattern(
    strings: Any,
    /,
    pattern: Any = None,
    *,
    max_splits: Any = None,
    reverse: bool = False,
    options: Any = None,
    memory_pool: Any = None,
    device: Any = None,
) -> Any:
    """pyarrow.compute.split_pattern (am_string_split) with SplitPatternOptions:
    each value cut at every occurrence of `pattern` (at most `max_splits`
    times, from the end when `reverse`), as a pyarrow list<input type> array."""
    name = "split_pattern"
    given = {"pattern": pattern, "max_splits": max_splits, "reverse": reverse}
    fields, reason = _options(_PATTERN_SPEC, options, given)
    kwargs = {"options": options} if options is not None else given
    if fields is _FALLBACK:
        return _fallback.run(name, reason, (strings,), kwargs)
    text = fields["pattern"]
    if text is None:
        if options is None and given == _PATTERN_SPEC.defaults:  # no option given at all
            _fallback.without_options(name, strings)
        raise TypeError(f"{name}() missing required argument: 'pattern'")
    if isinstance(text, str):
        text = text.encode("utf-8")
    elif not isinstance(text, (bytes, bytearray)):
        raise TypeError(f"{name}: pattern must be str or bytes, not {type(text).__name__}")
    return _split(name, strings, bytes(text), fields, kwargs, device)


def _make_whitespace(name: str) -> Any:
    spec = _WHITESPACE_SPECS[name]

    def function(
        strings: Any,
        /,
        *,
        max_splits: Any = None,
        reverse: bool = False,
        options: Any = None,
        memory_pool: Any = None,
        device: Any = None,
    ) -> Any:
        given = {"max_splits": max_splits, "reverse": reverse}
        fields, reason = _options(spec, options, given)
        kwargs = {"options": options} if options is not None else given
        if fields is _FALLBACK:
            return _fallback.run(name, reason, (strings,), kwargs)
        return _split(name, strings, None, fields, kwargs, device)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"pyarrow.compute.{name} (am_string_split) with SplitOptions: each value cut at "
        "every run of whitespace (at most `max_splits` times, from the end when "
        "`reverse`), as a pyarrow list<input type> array."
    )
    return function


ascii_split_whitespace = _make_whitespace("ascii_split_whitespace")
utf8_split_whitespace = _make_whitespace("utf8_split_whitespace")
