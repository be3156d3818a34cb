"""pyarrow.compute's string functions of one array on am_string_function
(issue #13): utf8_length, binary_length, starts_with, ends_with,
match_substring, find_substring, count_substring, match_like
(MatchSubstringOptions: pattern, ignore_case), ascii_upper, ascii_lower,
utf8_upper and utf8_lower (pyarrow's Unicode case mappings),
the trims ({ascii,utf8}_{,l,r}trim_whitespace, and {ascii,utf8}_{,l,r}trim
with TrimOptions: characters), and utf8_slice_codeunits (SliceOptions, on
am_utf8_slice_codeunits), with pyarrow's names,
options and result types, ChunkedArrays chunk by chunk.

ignore_case=True folds case as pyarrow's RE2 does (Unicode's simple case
folding for strings, ASCII letters for binary; core/unicode_fold.h), in the
library. For scalar inputs and input types the library has no kernel for,
pyarrow.compute runs the call, counted and announced as every fallback (see
_fallback).
"""

from __future__ import annotations

from . import _fallback
from ._array import wrap
from ._capi import ffi, lib
from ._chunked import is_chunked, map_pieces
from ._compute import _FALLBACK, _input_fallback, _on_operand, _operand, _options
from ._dispatch import SCALAR, dispatch
from ._errors import (
    ArrowMetalTypeError,
    ArrowMetalUnsupported,
    error_from_status,
)
from ._options import OptionsSpec
from ._state import drop, tls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# pyarrow's names, in the order of am_string_op.
FUNCTIONS = (
    "utf8_length",
    "binary_length",
    "starts_with",
    "ends_with",
    "match_substring",
    "find_substring",
    "count_substring",
    "ascii_upper",
    "ascii_lower",
    "match_like",
    "ascii_trim_whitespace",
    "ascii_ltrim_whitespace",
    "ascii_rtrim_whitespace",
    "utf8_trim_whitespace",
    "utf8_ltrim_whitespace",
    "utf8_rtrim_whitespace",
    "ascii_trim",
    "ascii_ltrim",
    "ascii_rtrim",
    "utf8_trim",
    "utf8_ltrim",
    "utf8_rtrim",
    "utf8_upper",
    "utf8_lower",
)
MATCHING = FUNCTIONS[2:7] + ("match_like",)

__all__ = list(FUNCTIONS)  # and utf8_slice_codeunits, below
__all__.append("utf8_slice_codeunits")


def _run(name: str, x: Any, pattern: bytes | None, flags: int, kwargs: dict[str, Any],
         device: Any) -> Any:  # fmt: skip
    op = FUNCTIONS.index(name)
    keep = ffi.new("char[]", pattern) if pattern is not None else ffi.NULL
    n = len(pattern) if pattern is not None else 0

    def call(p: Any, o: Any) -> int:
        return lib.am_string_function(op, p, keep, n, flags, o)

    return _call(name, call, x, kwargs, device)


def _call(name: str, call: Callable[[Any, Any], int], x: Any, kwargs: dict[str, Any],
          device: Any) -> Any:  # fmt: skip
    """`call` (the C function, on an operand handle and the out pointer) over
    x, chunk by chunk; pyarrow runs what the library does not take."""
    try:
        if type(x).__module__ != "arrowmetal._array" and dispatch(type(x))[0] == SCALAR:
            raise ArrowMetalUnsupported("a scalar input")  # pyarrow's scalar result
        if is_chunked(x):
            return map_pieces(lambda a: _on_operand(call, a, device), (x,))
        return _on_operand(call, x, device)
    except ArrowMetalUnsupported as e:  # a scalar
        return _fallback.run(name, str(e), (x,), kwargs)
    except ArrowMetalTypeError as e:
        return _input_fallback(name, e, (x,), (x,), kwargs)


def _make(name: str) -> Callable[..., Any]:
    def function(strings: Any, /, *, memory_pool: Any = None, device: Any = None) -> Any:
        return _run(name, strings, None, 0, {}, device)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"pyarrow.compute.{name} (am_string_function), on the CPU."
    return function


_MATCH_SPEC = OptionsSpec(
    "match_substring", "MatchSubstringOptions", {"pattern": None, "ignore_case": False}
)


def _with_text(name: str, spec: OptionsSpec, field: str, given: dict[str, Any], options: Any,
               strings: Any, device: Any, flags: Callable[[dict[str, Any]], int]) -> Any:  # fmt: skip
    """A string function whose options hold one text field (`field`, str or bytes,
    required): the options read as pyarrow reads them, the text passed as the
    pattern with the flags `flags` makes of the fields."""
    fields, reason = _options(spec, options, given)
    kwargs = {"options": options} if options is not None else given
    if fields is _FALLBACK:
        return _fallback.run(name, reason, (strings,), kwargs)
    text = fields[field]
    if text is None:
        if options is None and given == spec.defaults:  # no option given at all
            _fallback.without_options(name, strings)
        raise TypeError(f"{name}() missing required argument: '{field}'")
    if isinstance(text, str):
        text = text.encode("utf-8")
    elif not isinstance(text, (bytes, bytearray)):
        raise TypeError(f"{name}: {field} must be str or bytes, not {type(text).__name__}")
    return _run(name, strings, bytes(text), flags(fields), kwargs, device)


def _make_matching(name: str) -> Callable[..., Any]:
    def function(
        strings: Any,
        /,
        pattern: Any = None,
        *,
        ignore_case: bool = False,
        options: Any = None,
        memory_pool: Any = None,
        device: Any = None,
    ) -> Any:
        given = {"pattern": pattern, "ignore_case": ignore_case}
        return _with_text(name, _MATCH_SPEC, "pattern", given, options, strings, device,
                          lambda f: lib.AM_STRING_IGNORE_CASE if f["ignore_case"] else 0)  # fmt: skip

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"pyarrow.compute.{name} (am_string_function) with MatchSubstringOptions "
        "(pattern, ignore_case), on the CPU."
    )
    return function


_TRIM_SPEC = OptionsSpec("utf8_trim", "TrimOptions", {"characters": None})


def _make_trim(name: str) -> Callable[..., Any]:
    def function(
        strings: Any,
        /,
        characters: Any = None,
        *,
        options: Any = None,
        memory_pool: Any = None,
        device: Any = None,
    ) -> Any:
        given = {"characters": characters}
        return _with_text(name, _TRIM_SPEC, "characters", given, options, strings, device,
                          lambda f: 0)  # fmt: skip

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"pyarrow.compute.{name} (am_string_function) with TrimOptions, on the CPU."
    return function


utf8_length = _make("utf8_length")
binary_length = _make("binary_length")
starts_with = _make_matching("starts_with")
ends_with = _make_matching("ends_with")
match_substring = _make_matching("match_substring")
find_substring = _make_matching("find_substring")
count_substring = _make_matching("count_substring")
ascii_upper = _make("ascii_upper")
ascii_lower = _make("ascii_lower")
match_like = _make_matching("match_like")
ascii_trim_whitespace = _make("ascii_trim_whitespace")
ascii_ltrim_whitespace = _make("ascii_ltrim_whitespace")
ascii_rtrim_whitespace = _make("ascii_rtrim_whitespace")
utf8_trim_whitespace = _make("utf8_trim_whitespace")
utf8_ltrim_whitespace = _make("utf8_ltrim_whitespace")
utf8_rtrim_whitespace = _make("utf8_rtrim_whitespace")
ascii_trim = _make_trim("ascii_trim")
ascii_ltrim = _make_trim("ascii_ltrim")
ascii_rtrim = _make_trim("ascii_rtrim")
utf8_trim = _make_trim("utf8_trim")
utf8_ltrim = _make_trim("utf8_ltrim")
utf8_rtrim = _make_trim("utf8_rtrim")
utf8_upper = _make("utf8_upper")
utf8_lower = _make("utf8_lower")


# utf8_slice_codeunits' start when none is given (None given is pyarrow's
# "an integer is required").
_NO_START = object()
_SLICE_SPEC = OptionsSpec(
    "utf8_slice_codeunits", "SliceOptions", {"start": _NO_START, "stop": None, "step": 1}
)


def utf8_slice_codeunits(
    strings: Any,
    /,
    start: Any = _NO_START,
    stop: Any = None,
    step: Any = 1,
    *,
    options: Any = None,
    memory_pool: Any = None,
    device: Any = None,
) -> Any:
    """pyarrow.compute.utf8_slice_codeunits (am_utf8_slice_codeunits) with
    SliceOptions (start, stop, step: Python's slicing of each value's code
    points), on the CPU."""
    name = "utf8_slice_codeunits"
    given = {"start": start, "stop": stop, "step": step}
    fields, reason = _options(_SLICE_SPEC, options, given)
    kwargs = {"options": options} if options is not None else given
    if fields is _FALLBACK:
        return _fallback.run(name, reason, (strings,), kwargs)
    if fields["start"] is _NO_START:  # pyarrow's words: no options at all, or SliceOptions'
        if options is None and stop is None and step == 1:
            _fallback.without_options(name, strings)
        raise TypeError("__init__() takes at least 2 positional arguments (1 given)")
    first = fields["start"]  # ints: integer_fields converted them as pyarrow does
    last = lib.AM_SLICE_NO_STOP if fields["stop"] is None else fields["stop"]
    by = fields["step"]

    def call(p: Any, o: Any) -> int:
        return lib.am_utf8_slice_codeunits(p, first, last, by, o)

    return _call(name, call, strings, kwargs, device)


_JOIN_SPEC = OptionsSpec(
    "binary_join_element_wise",
    "JoinOptions",
    {"null_handling": "emit_null", "null_replacement": ""},
)
_JOIN_NULLS = {
    "emit_null": lib.AM_JOIN_EMIT_NULL,
    "skip": lib.AM_JOIN_SKIP,
    "replace": lib.AM_JOIN_REPLACE,
}


# A view type's values go with a separator of this type.
_VIEW_OF = {"string_view": "string", "binary_view": "binary"}


def _text(value: Any) -> bytes | None:
    """The bytes of a str, bytes or pyarrow string/binary scalar (None: null);
    anything else is not a separator the library takes."""
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return value
    as_py = getattr(value, "as_py", None)
    if as_py is None or getattr(value, "is_valid", None) is None:
        raise ArrowMetalUnsupported("a separator that is not a string or binary value")
    v = as_py()
    return v if v is None or isinstance(v, bytes) else v.encode()


def binary_join_element_wise(
    *strings: Any,
    null_handling: str = "emit_null",
    null_replacement: str = "",
    options: Any = None,
    memory_pool: Any = None,
    device: Any = None,
) -> Any:
    """pyarrow.compute.binary_join_element_wise (am_binary_join_element_wise)
    with JoinOptions: row i joins the arrays' slots i with the last argument,
    the separator (an array or a scalar), between them, on the CPU. Scalar
    values other than the separator, all-scalar calls and other types run in
    pyarrow (counted)."""
    name = "binary_join_element_wise"
    given = {"null_handling": null_handling, "null_replacement": null_replacement}
    fields, reason = _options(_JOIN_SPEC, options, given)
    kwargs = {"options": options} if options is not None else given
    if fields is _FALLBACK:
        return _fallback.run(name, reason, strings, kwargs)
    how = fields["null_handling"]
    if isinstance(how, int) or (isinstance(how, str) and how.isdigit()):  # JoinOptions' enum
        how = list(_JOIN_NULLS)[int(how)] if int(how) < len(_JOIN_NULLS) else how
    if how not in _JOIN_NULLS:
        raise ValueError(f'"{how}" is not a valid null handling')
    replacement = fields["null_replacement"]
    replacement = replacement.encode() if isinstance(replacement, str) else bytes(replacement)
    try:
        if not strings:
            raise ArrowMetalUnsupported("no arguments")
        if any(is_chunked(s) for s in strings):
            return map_pieces(
                lambda *pieces: (
                    binary_join_element_wise(*pieces, options=options, device=device)
                    if options is not None
                    else binary_join_element_wise(*pieces, **given, device=device)
                ),
                strings,
            )
        *values, sep = strings
        is_scalar = [
            type(v).__module__ != "arrowmetal._array" and dispatch(type(v))[0] == SCALAR
            for v in strings
        ]
        if any(is_scalar[:-1]) or all(is_scalar):
            raise ArrowMetalUnsupported("a scalar value to join")
        sep_bytes = _text(sep) if is_scalar[-1] else None
        if is_scalar[-1]:  # a scalar separator of the values' type, as pyarrow takes it
            kind = (
                "string" if isinstance(sep, str) else "binary" if isinstance(sep, bytes) else None
            )
            names = [str(getattr(v, "type", "")) for v in values] + [kind or str(sep.type)]
            # a str / bytes separator goes with views of text / bytes too
            if len({_VIEW_OF.get(n, n) for n in names[:-1]} | {names[-1]}) > 1:
                raise ArrowMetalTypeError(
                    f"Function '{name}' has no kernel matching input types ({', '.join(names)})",
                    lib.AM_ETYPE,
                )
        operands = [_operand(v, device) for v in (values if is_scalar[-1] else strings)]
        try:
            handles = [p for p, _ in operands]
            sep_handle = ffi.NULL if is_scalar[-1] else handles.pop()
            out = tls.out
            rc = lib.am_binary_join_element_wise(
                ffi.new("am_array *[]", handles) if handles else ffi.NULL,
                len(handles),
                sep_handle,
                sep_bytes if sep_bytes is not None else ffi.NULL,
                len(sep_bytes or b""),
                _JOIN_NULLS[how],
                replacement,
                len(replacement),
                out,
            )
            if rc:
                raise error_from_status(rc)
            return wrap(out[0])
        finally:
            for _, tmp in operands:
                if tmp is not None:
                    drop(tmp)
    except ArrowMetalUnsupported as e:
        return _fallback.run(name, str(e), strings, kwargs)
    except ArrowMetalTypeError as e:
        # inputs of types the library takes that do not go together: pyarrow's
        # refusal, ours; a type it does not take at all: pyarrow's call
        texts = ("string", "large_string", "binary", "large_binary", "string_view", "binary_view")
        judged = tuple(
            s
            for s in strings
            if not isinstance(s, (str, bytes)) and str(getattr(s, "type", "")) not in texts
        )
        return _input_fallback(name, e, judged, strings, kwargs)


__all__.append("binary_join_element_wise")
