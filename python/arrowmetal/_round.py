"""pyarrow.compute's round, round_to_multiple, pairwise_diff and
pairwise_diff_checked (branch round), with its names, argument order and
options (RoundOptions: ndigits, round_mode; RoundToMultipleOptions: multiple,
round_mode; PairwiseOptions: period).

round and round_to_multiple work slot by slot: am.Array inputs give an
am.Array, ChunkedArray inputs a ChunkedArray with the chunks kept, scalars a
Scalar as pyarrow's (_exporters.read_scalar). round_to_multiple's multiple is what
pyarrow's RoundToMultipleOptions takes (a pyarrow Scalar, or a value
pa.scalar() makes one of), checked and cast to the input's type by the
library in pyarrow's words; a float16 or decimal multiple, which only pyarrow
reads, runs the call in pyarrow. pairwise_diff pairs slots `period` apart: a
scalar is an array of one slot (pyarrow's answer is such an array too), and a
ChunkedArray is refused, as pyarrow.compute refuses it (its vector kernel has
no chunked form). Inputs of types ArrowMetal has no kernel for run in
pyarrow.compute (see _fallback).
"""

from __future__ import annotations

from . import _fallback
from ._array import Array, wrap
from ._capi import ffi, lib
from ._chunked import is_chunked, map_pieces
from ._compute import _FALLBACK, _input_fallback, _on_operand, _options
from ._devices import device_ptr
from ._dispatch import SCALAR, dispatch
from ._errors import ArrowMetalTypeError, error_from_status
from ._exporters import read_scalar
from ._options import ROUND_MODES, OptionsSpec
from ._state import tls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, overload

    import pyarrow as pa

    from ._typing import (
        ArrayLike,
        ArrayResult,
        DeviceLike,
        ElementwiseResult,
        PairwiseFunction,
        PairwiseOptions,
        PlainScalar,
        RoundMode,
        RoundMultiple,
        RoundOptions,
        RoundToMultipleOptions,
        ScalarLike,
        ScalarResult,
    )

__all__ = ["pairwise_diff", "pairwise_diff_checked", "round", "round_to_multiple"]

_error = error_from_status

_ROUND_SPEC = OptionsSpec("round", "RoundOptions", {"ndigits": 0, "round_mode": "half_to_even"})
_MULTIPLE_SPEC = OptionsSpec(
    "round_to_multiple", "RoundToMultipleOptions", {"multiple": 1.0, "round_mode": "half_to_even"}
)
_PAIRWISE_SPECS = {
    name: OptionsSpec(name, "PairwiseOptions", {"period": 1})
    for name in ("pairwise_diff", "pairwise_diff_checked")
}


def _mode(round_mode: Any) -> int:
    """am_round_mode of a mode name; pyarrow's ValueError otherwise."""
    if isinstance(round_mode, str) and round_mode in ROUND_MODES:
        return ROUND_MODES.index(round_mode)
    raise ValueError(f'"{round_mode}" is not a valid round mode')


def _options_mode(fields: dict[str, Any], options: Any) -> int:
    """am_round_mode of the fields' round_mode (a pyarrow options object holds
    its enum value)."""
    mode_value = fields["round_mode"]
    if isinstance(mode_value, int) and options is not None and not isinstance(options, dict):
        mode_value = ROUND_MODES[mode_value]
    return _mode(mode_value)


def _one(x: Any, device: DeviceLike | None) -> Array | None:
    """A scalar input as an am.Array of one slot; None for other inputs."""
    if type(x) is Array:
        return None
    kind, fill = dispatch(type(x))
    if kind != SCALAR:
        return None
    s = ffi.new("am_scalar *")
    fill(x, s, None)
    out = tls.out
    rc = lib.am_full(s, 1, device_ptr(device), out)
    if rc:
        raise _error(rc)
    return wrap(out[0])


def _slotwise(call: Any, x: Any, device: DeviceLike | None) -> Array | ScalarResult:
    """`call` (handle, out) over x: a scalar x as one slot, read back as a
    Scalar."""
    one = _one(x, device)
    if one is not None:
        result = _on_operand(call, one, device)
        return read_scalar(result._ptr)
    return _on_operand(call, x, device)


def _round(x: Any, ndigits: int, mode: int, device: DeviceLike | None) -> Array | ScalarResult:
    def call(p: Any, o: Any) -> int:
        return lib.am_round(p, ndigits, mode, o)

    return _slotwise(call, x, device)


if TYPE_CHECKING:

    @overload
    def round(
        x: Array,
        /,
        ndigits: int = 0,
        round_mode: RoundMode = "half_to_even",
        *,
        options: RoundOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def round(
        x: PlainScalar,
        /,
        ndigits: int = 0,
        round_mode: RoundMode = "half_to_even",
        *,
        options: RoundOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ScalarResult: ...
    @overload
    def round(
        x: ArrayLike | ScalarLike,
        /,
        ndigits: int = 0,
        round_mode: RoundMode = "half_to_even",
        *,
        options: RoundOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ElementwiseResult: ...


def round(
    x: ArrayLike | ScalarLike,
    /,
    ndigits: int = 0,
    round_mode: RoundMode = "half_to_even",
    *,
    options: RoundOptions | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ElementwiseResult:
    """x rounded to `ndigits` fractional digits (negative: to a multiple of
    10^-ndigits) by `round_mode` (pyarrow.compute.round; RoundOptions), in
    the input's type; null where x is (am_round)."""
    given = {"ndigits": ndigits, "round_mode": round_mode}
    fields, reason = _options(_ROUND_SPEC, options, given)
    if fields is _FALLBACK:
        return _fallback.run("round", reason, (x,), {"options": options})
    mode = _options_mode(fields, options)
    digits = fields["ndigits"]
    try:
        if is_chunked(x):
            return map_pieces(lambda a: _round(a, digits, mode, device), (x,))
        return _round(x, digits, mode, device)
    except ArrowMetalTypeError as e:
        kwargs = {"options": options} if options is not None else given
        return _input_fallback("round", e, (x,), (x,), kwargs)


def _not_valid(multiple: Any) -> TypeError:
    """pyarrow's refusal of a multiple pa.scalar() cannot convert."""
    return TypeError(f'"{multiple}" is not a valid multiple type for RoundToMultipleOptions')


def _multiple(multiple: Any) -> tuple[Any, str]:
    """(the am_scalar, "") of a multiple as RoundToMultipleOptions takes it
    (a pyarrow Scalar, or pa.scalar() of the value), for the library to check
    and cast; (None, why) for a float16 or decimal multiple, whose sign
    pyarrow reads its own way (it calls a negative float16 positive)."""
    s = ffi.new("am_scalar *")
    tp = type(multiple)
    if tp is float or tp is bool or multiple is None:  # pa.scalar's double, bool, null
        dispatch(tp)[1](multiple, s, None)
        return s, ""
    if tp is int:  # pa.scalar's int64
        if not -(2**63) <= multiple < 2**63:
            raise _not_valid(multiple)
        dispatch(tp)[1](multiple, s, None)
        return s, ""
    import pyarrow as pa

    if not isinstance(multiple, pa.Scalar):
        try:
            multiple = pa.scalar(multiple)
        except Exception:  # noqa: BLE001 - pyarrow's own catch-all
            raise _not_valid(multiple) from None
    t = multiple.type
    if not multiple.is_valid:
        s.is_null = 1
    elif pa.types.is_float16(t) or pa.types.is_decimal(t):
        return None, f"no support for a multiple of type {t}"
    elif pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
        dispatch(type(multiple))[1](multiple, s, None)
    else:  # not a number (a string, a date, a list): the library's "must be positive"
        s.type = lib.AM_TYPE_INVALID
    return s, ""


def _round_to_multiple(x: Any, multiple: Any, mode: int, device: DeviceLike | None) -> Any:
    def call(p: Any, o: Any) -> int:
        return lib.am_round_to_multiple(p, multiple, mode, o)

    return _slotwise(call, x, device)


if TYPE_CHECKING:

    @overload
    def round_to_multiple(
        x: Array,
        /,
        multiple: RoundMultiple = 1.0,
        round_mode: RoundMode = "half_to_even",
        *,
        options: RoundToMultipleOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> Array: ...
    @overload
    def round_to_multiple(
        x: PlainScalar,
        /,
        multiple: RoundMultiple = 1.0,
        round_mode: RoundMode = "half_to_even",
        *,
        options: RoundToMultipleOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ScalarResult: ...
    @overload
    def round_to_multiple(
        x: ArrayLike | ScalarLike,
        /,
        multiple: RoundMultiple = 1.0,
        round_mode: RoundMode = "half_to_even",
        *,
        options: RoundToMultipleOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ElementwiseResult: ...


def round_to_multiple(
    x: ArrayLike | ScalarLike,
    /,
    multiple: RoundMultiple = 1.0,
    round_mode: RoundMode = "half_to_even",
    *,
    options: RoundToMultipleOptions | None = None,
    memory_pool: pa.MemoryPool | None = None,
    device: DeviceLike | None = None,
) -> ElementwiseResult:
    """x rounded to a multiple of `multiple` (> 0, cast to x's type as
    pyarrow casts it) by `round_mode` (pyarrow.compute.round_to_multiple;
    RoundToMultipleOptions), in the input's type; null where x is
    (am_round_to_multiple)."""
    given = {"multiple": multiple, "round_mode": round_mode}
    fields, reason = _options(_MULTIPLE_SPEC, options, given)
    if fields is _FALLBACK:
        return _fallback.run("round_to_multiple", reason, (x,), {"options": options})
    kwargs = {"options": options} if options is not None else given
    m, reason = _multiple(fields["multiple"])  # before the mode, as pyarrow's options check
    mode = _options_mode(fields, options)
    if m is None:
        return _fallback.run("round_to_multiple", reason, (x,), kwargs)
    try:
        if is_chunked(x):
            return map_pieces(lambda a: _round_to_multiple(a, m, mode, device), (x,))
        return _round_to_multiple(x, m, mode, device)
    except ArrowMetalTypeError as e:
        return _input_fallback("round_to_multiple", e, (x,), (x,), kwargs)


def _make_pairwise(name: str, op: int, doc: str) -> PairwiseFunction:
    spec = _PAIRWISE_SPECS[name]

    def pairwise(
        input: ArrayLike | ScalarLike,
        /,
        period: int = 1,
        *,
        options: PairwiseOptions | None = None,
        memory_pool: pa.MemoryPool | None = None,
        device: DeviceLike | None = None,
    ) -> ArrayResult:
        given = {"period": period}
        fields, reason = _options(spec, options, given)
        if fields is _FALLBACK:
            return _fallback.run(name, reason, (input,), {"options": options})
        p = fields["period"]
        if is_chunked(input):
            # pyarrow.compute's own refusal: the function is a vector kernel
            # without a chunked form (its no-kernel error first, for a type
            # it has no kernel for).
            _fallback.refuse_as_pyarrow(
                name,
                (input,),
                "Vector kernel cannot execute chunkwise and no chunked exec function was defined",
                period=p,
            )

        def call(h: Any, o: Any) -> int:
            return lib.am_pairwise_diff(op, h, p, o)

        try:
            one = _one(input, device)
            return _on_operand(call, one if one is not None else input, device)
        except ArrowMetalTypeError as e:
            kwargs = {"options": options} if options is not None else given
            return _input_fallback(name, e, (input,), (input,), kwargs)

    pairwise.__name__ = pairwise.__qualname__ = name
    pairwise.__doc__ = doc
    return pairwise


pairwise_diff = _make_pairwise(
    "pairwise_diff",
    lib.AM_PAIRWISE_DIFF,
    "x[i] - x[i - period], null where either is null or out of the array; integers wrap "
    "(pyarrow.compute.pairwise_diff; PairwiseOptions) (am_pairwise_diff).",
)
pairwise_diff_checked = _make_pairwise(
    "pairwise_diff_checked",
    lib.AM_PAIRWISE_DIFF_CHECKED,
    "pairwise_diff, with integer overflow an error (pyarrow.compute.pairwise_diff_checked; "
    "PairwiseOptions) (am_pairwise_diff).",
)
