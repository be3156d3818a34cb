"""pyarrow.compute's round, pairwise_diff and pairwise_diff_checked (branch
round), with its names, argument order and options (RoundOptions: ndigits,
round_mode; PairwiseOptions: period).

round works slot by slot: am.Array inputs give an am.Array, ChunkedArray
inputs a ChunkedArray with the chunks kept, scalars a Python value (pyarrow
gives its Scalar). pairwise_diff pairs slots `period` apart: a scalar is an
array of one slot (pyarrow's answer is such an array too), and a ChunkedArray
is refused, as pyarrow.compute refuses it (its vector kernel has no chunked
form). Inputs of types ArrowMetal has no kernel for run in pyarrow.compute
(see _fallback).
"""

from __future__ import annotations

import operator

from . import _fallback
from ._array import Array, wrap
from ._capi import ffi, lib
from ._chunked import is_chunked, map_pieces
from ._compute import _FALLBACK, _input_fallback, _on_operand, _options
from ._devices import device_ptr
from ._dispatch import SCALAR, dispatch
from ._errors import ArrowMetalInvalid, ArrowMetalTypeError, error_from_status
from ._exporters import read_values
from ._options import OptionsSpec
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
        PyValue,
        RoundMode,
        RoundOptions,
        ScalarLike,
    )

__all__ = ["pairwise_diff", "pairwise_diff_checked", "round"]

_error = error_from_status

# pyarrow's RoundMode names, in the order of am_round_mode (and of C++'s enum).
ROUND_MODES = (
    "down",
    "up",
    "towards_zero",
    "towards_infinity",
    "half_down",
    "half_up",
    "half_towards_zero",
    "half_towards_infinity",
    "half_to_even",
    "half_to_odd",
)

_ROUND_SPEC = OptionsSpec("round", "RoundOptions", {"ndigits": 0, "round_mode": "half_to_even"})
_PAIRWISE_SPECS = {
    name: OptionsSpec(name, "PairwiseOptions", {"period": 1})
    for name in ("pairwise_diff", "pairwise_diff_checked")
}


def _mode(round_mode: Any) -> int:
    """am_round_mode of a mode name; pyarrow's ValueError otherwise."""
    if isinstance(round_mode, str) and round_mode in ROUND_MODES:
        return ROUND_MODES.index(round_mode)
    raise ValueError(f'"{round_mode}" is not a valid round mode')


def _int64(value: Any) -> int:
    """An integer option as pyarrow's options take it (int(value), int64)."""
    if isinstance(value, (str, bytes)):
        raise TypeError("an integer is required")
    n = operator.index(value) if not isinstance(value, float) else int(value)
    if not -(2**63) <= n < 2**63:
        raise OverflowError("Python int too large to convert to C long")
    return n


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


def _round(x: Any, ndigits: int, mode: int, device: DeviceLike | None) -> Array | PyValue:
    def call(p: Any, o: Any) -> int:
        return lib.am_round(p, ndigits, mode, o)

    one = _one(x, device)
    if one is not None:
        result = _on_operand(call, one, device)
        return read_values(result._ptr)[0]
    return _on_operand(call, x, device)


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
    ) -> PyValue: ...
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
    mode_value = fields["round_mode"]
    if isinstance(mode_value, int) and options is not None and not isinstance(options, dict):
        mode_value = ROUND_MODES[mode_value]  # a pyarrow options object's enum value
    mode = _mode(mode_value)
    digits = _int64(fields["ndigits"])
    try:
        if is_chunked(x):
            return map_pieces(lambda a: _round(a, digits, mode, device), (x,))
        return _round(x, digits, mode, device)
    except ArrowMetalTypeError as e:
        kwargs = {"options": options} if options is not None else given
        return _input_fallback("round", e, (x,), (x,), kwargs)


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
        p = _int64(fields["period"])
        if is_chunked(input):
            # pyarrow.compute's own refusal: the function is a vector kernel
            # without a chunked form.
            raise ArrowMetalInvalid(
                "Vector kernel cannot execute chunkwise and no chunked exec function was defined",
                lib.AM_EINVAL,
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
