"""Running pyarrow.compute where ArrowMetal has no kernel, loudly.

Code that switched ``import pyarrow.compute as pc`` to ``import arrowmetal as
am`` keeps working: ``am.<name>`` exists for every pyarrow.compute function.
Where ArrowMetal has no kernel for the function, for its input types (strings,
timestamps, decimals, dictionaries, tables) or for an option's value, the call
runs pyarrow.compute on the CPU (as cudf.pandas does): the first such call of
each function warns (ArrowMetalFallbackWarning), ``am.fallbacks()`` counts them,
and ``ARROWMETAL_FALLBACK=error`` makes them raise instead. GPU-resident inputs
are downloaded first. A fallback returns what pyarrow.compute returns.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
import warnings

from ._capi import lib
from ._errors import ArrowMetalInvalid, ArrowMetalUnsupported

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from collections.abc import Set as AbstractSet
    from types import FrameType, ModuleType
    from typing import Any, Callable, NoReturn

__all__ = [
    "ArrowMetalFallbackWarning",
    "attribute",
    "fallbacks",
    "names",
    "run",
    "unsupported_input",
    "unsupported_target",
]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

_MODES = ("warn", "error")


class ArrowMetalFallbackWarning(UserWarning):
    """A call ran pyarrow.compute on the CPU: ArrowMetal has no kernel for it."""


def _mode() -> str:
    value = os.environ.get("ARROWMETAL_FALLBACK", "warn")
    if value not in _MODES:
        raise ArrowMetalInvalid(f"ARROWMETAL_FALLBACK={value!r} is not one of: {', '.join(_MODES)}")
    return value


MODE = _mode()

_lock = threading.Lock()
_counts: dict[str, int] = {}


def fallbacks() -> dict[str, int]:
    """{function name: calls run by pyarrow.compute} since the process began."""
    with _lock:
        return dict(_counts)


def _pyarrow_compute(name: str, reason: str) -> ModuleType:
    try:
        import pyarrow.compute as pc
    except ImportError:
        raise ArrowMetalUnsupported(
            f"{name}: {reason}, and running it with pyarrow.compute needs pyarrow "
            "(pip install pyarrow)"
        ) from None
    return pc


def _to_pyarrow(value: Any) -> Any:
    """An argument as pyarrow.compute takes it: am.Array (downloaded from a
    GPU), numpy arrays and other Arrow producers become pyarrow objects."""
    from ._array import Array

    if isinstance(value, Array):
        return value.to_pyarrow()
    if isinstance(value, list) and any(isinstance(v, Array) for v in value):
        return [_to_pyarrow(v) for v in value]
    pa = sys.modules.get("pyarrow")
    if pa is None or isinstance(value, (pa.Array, pa.ChunkedArray, pa.Table, pa.RecordBatch)):
        return value
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        return pa.array(value)
    tp = type(value)
    if hasattr(tp, "__arrow_c_array__") or hasattr(tp, "__arrow_c_device_array__"):
        return pa.array(value)
    if hasattr(tp, "__arrow_c_stream__"):
        return pa.chunked_array(value)
    return value


def run(
    name: str,
    reason: str,
    args: Sequence[Any],
    kwargs: dict[str, Any],
    pc_name: str | None = None,
) -> Any:
    """pyarrow.compute.<pc_name or name>(*args, **kwargs), counted and announced
    (or refused under ARROWMETAL_FALLBACK=error). `reason` says what
    ArrowMetal lacks."""
    with _lock:
        first = name not in _counts
        _counts[name] = _counts.get(name, 0) + 1
    if MODE == "error":
        raise ArrowMetalUnsupported(
            f"{name}: {reason}; ARROWMETAL_FALLBACK=error forbids running it with pyarrow.compute"
        )
    pc = _pyarrow_compute(name, reason)
    if first:
        warnings.warn(
            f"arrowmetal.{name}: {reason}; running pyarrow.compute.{pc_name or name} on the "
            "CPU (warned once per function; am.fallbacks() counts the calls)",
            ArrowMetalFallbackWarning,
            stacklevel=_caller_level(),
        )
    args = [_to_pyarrow(a) for a in args]
    kwargs = {k: _to_pyarrow(v) for k, v in kwargs.items()}
    kwargs.pop("device", None)
    return getattr(pc, pc_name or name)(*args, **kwargs)


def refuse_as_pyarrow(name: str, inputs: Sequence[Any], message: str, **kwargs: Any) -> NoReturn:
    """Raises pyarrow.compute's own refusal of `name` over these inputs (its
    "no kernel" error where it has none for their types, before any other),
    made over empty slices of them so that no data moves; ArrowMetalInvalid
    with `message` where pyarrow is not installed or accepts them."""
    try:
        import pyarrow.compute as pc
    except ImportError:
        pc = None
    if pc is not None:
        empty = []
        for x in inputs:
            x = _to_pyarrow(x.slice(0, 0) if hasattr(x, "slice") else x)
            empty.append(x.slice(0, 0) if hasattr(x, "slice") else x)
        getattr(pc, name)(*empty, **kwargs)
    raise ArrowMetalInvalid(message)


def without_options(name: str, *inputs: Any) -> NoReturn:
    """Raises pyarrow's refusal of a call given none of the options its
    function requires (its "no kernel" error where it has no kernel for the
    inputs' types, else "cannot be called without options")."""
    refuse_as_pyarrow(name, inputs, f"Function '{name}' cannot be called without options")


def _caller_level() -> int:
    """The warnings stacklevel of the first frame outside this package."""
    frame: FrameType | None
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


# ---------------------------------------------------------------------------
# am.<name> for the rest of pyarrow.compute

# pyarrow.compute's Python-level functions that compute on data, besides the
# registered functions (which it exposes under their names, "and" as "and_").
_PYTHON_LEVEL = ("index", "fill_null", "top_k_unstable", "bottom_k_unstable", "random")

_made: dict[str, Any] = {}


_names: frozenset[str] | None = None


def _compute_names(pc: ModuleType) -> frozenset[str]:
    global _names
    if _names is None:
        registered = set(pc.list_functions())
        _names = frozenset(
            n
            for n in dir(pc)
            if not n.startswith("_")
            and inspect.isroutine(getattr(pc, n))
            and (n in registered or n.rstrip("_") in registered or n in _PYTHON_LEVEL)
        )
    return _names


def names() -> AbstractSet[str]:
    """The pyarrow.compute functions (empty without pyarrow)."""
    try:
        import pyarrow.compute as pc
    except ImportError:
        return set()
    return _compute_names(pc)


def _make(pc: ModuleType, name: str) -> Callable[..., Any]:
    target = getattr(pc, name)

    def function(*args: Any, **kwargs: Any) -> Any:
        return run(name, "no ArrowMetal kernel for this function yet", args, kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"pyarrow.compute.{name}, run by pyarrow on the CPU: ArrowMetal has no kernel for it "
        "yet (ArrowMetalFallbackWarning on first use; am.fallbacks() counts the calls).\n\n"
        + (target.__doc__ or "")
    )
    try:
        function.__signature__ = inspect.signature(target)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        pass
    return function


def attribute(name: str) -> Any:
    """am.<name> for a pyarrow.compute attribute this package does not define:
    a counted, announced fallback for a compute function; the attribute itself
    for the rest (options classes, expressions)."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        import pyarrow.compute as pc
    except ImportError:
        raise AttributeError(
            f"module 'arrowmetal' has no attribute {name!r} (pyarrow.compute's other "
            "functions need pyarrow: pip install pyarrow)"
        ) from None
    if not hasattr(pc, name):
        raise AttributeError(f"module 'arrowmetal' has no attribute {name!r}")
    made = _made.get(name)
    if made is None:
        made = _make(pc, name) if name in _compute_names(pc) else getattr(pc, name)
        _made[name] = made
    return made


# ---------------------------------------------------------------------------
# Inputs ArrowMetal has no kernel for

_NATIVE_TYPES: frozenset[int] | None = None


def _native_types(pa: ModuleType) -> frozenset[int]:
    global _NATIVE_TYPES
    if _NATIVE_TYPES is None:
        _NATIVE_TYPES = frozenset(
            t.id
            for t in (
                pa.bool_(),
                pa.int8(),
                pa.int16(),
                pa.int32(),
                pa.int64(),
                pa.uint8(),
                pa.uint16(),
                pa.uint32(),
                pa.uint64(),
                pa.float32(),
                pa.float64(),
            )
        )
    return _NATIVE_TYPES


def unsupported_input(values: Iterable[object]) -> str | None:
    """What ArrowMetal cannot take among `values` (a reason), or None. Only
    pyarrow objects and am.Arrays are judged: anything else that fails is a
    plain error."""
    pa = sys.modules.get("pyarrow")
    if pa is None:
        return None
    from ._array import Array
    from ._types import KIND_BOOL, KIND_FLOAT, KIND_SIGNED, KIND_UNSIGNED, KINDS

    for v in values:
        if type(v) is Array:  # judged by its type: pyarrow computes what it holds
            if KINDS[lib.am_array_type(v._ptr)] not in (
                KIND_BOOL,
                KIND_SIGNED,
                KIND_UNSIGNED,
                KIND_FLOAT,
            ):
                return f"no kernel for {v.type} input"
            continue
        if isinstance(v, (str, bytes)):  # a string scalar where the call takes none
            return f"no kernel for a {type(v).__name__} input"
        if isinstance(v, (pa.Table, pa.RecordBatch)):
            return f"no kernel for a {type(v).__name__} input"
        if isinstance(v, (pa.Array, pa.ChunkedArray, pa.Scalar)):
            t = v.type
        elif hasattr(type(v), "__arrow_c_schema__"):
            try:
                t = pa.field(v).type
            except Exception:  # noqa: BLE001 - not readable: judged by the import
                t = None
        else:
            t = None
        if t is not None and t.id not in _native_types(pa):
            return f"no kernel for {t} input"
    return None


def unsupported_target(target: object) -> str | None:
    """Why a cast to `target` is pyarrow's (a pyarrow type, or a name pyarrow
    knows, that ArrowMetal has no kernel for), or None."""
    pa = sys.modules.get("pyarrow")
    if pa is None:
        return None
    if isinstance(target, str):
        try:
            target = pa.type_for_alias(target)
        except (ValueError, KeyError):
            return None
    if isinstance(target, pa.DataType) and target.id not in _native_types(pa):
        return f"no kernel for casts to {target}"
    return None
