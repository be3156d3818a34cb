"""pyarrow.compute's options: every field read, so that none is ignored.

pyarrow's options objects do not expose their fields as attributes (CastOptions
exposes some). Their public ``serialize()`` writes the fields as one row of an
Arrow IPC file with one struct column: the C++ options type's reflection, with
enums as their C++ values and a DataType field as the type of a null. That row
is read once per distinct serialization and kept.

A function names its pyarrow options class and its fields' defaults
(``OptionsSpec``); ``resolve`` merges keyword arguments and ``options=`` the way
pyarrow does: an options object of another class, or an options object together
with keyword arguments that differ from their defaults, is a TypeError.
"""

from __future__ import annotations

import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# pyarrow's RoundMode names, in the order of am_round_mode and of C++'s enum
# (arrow/compute/api_scalar.h's RoundMode).
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
# AssumeTimezoneOptions' Ambiguous and Nonexistent names, in the order of
# am_assume_choice and of C++'s enums.
ASSUME_CHOICES = ("raise", "earliest", "latest")
# RoundTemporalOptions' unit names, in the order of am_calendar_unit and of
# C++'s CalendarUnit (arrow/compute/api_scalar.h).
CALENDAR_UNITS = (
    "nanosecond",
    "microsecond",
    "millisecond",
    "second",
    "minute",
    "hour",
    "day",
    "week",
    "month",
    "quarter",
    "year",
)
# C++ enum values of the fields read here, in declaration order
# (arrow/compute/api_aggregate.h, api_vector.h, api_scalar.h).
ENUMS = {
    ("CountOptions", "mode"): ("only_valid", "only_null", "all"),
    ("FilterOptions", "null_selection_behavior"): ("drop", "emit_null"),
    ("RoundOptions", "round_mode"): ROUND_MODES,
    ("RoundToMultipleOptions", "round_mode"): ROUND_MODES,
    ("AssumeTimezoneOptions", "ambiguous"): ASSUME_CHOICES,
    ("AssumeTimezoneOptions", "nonexistent"): ASSUME_CHOICES,
    ("RoundTemporalOptions", "unit"): CALENDAR_UNITS,
}

# Scalar fields, read as the pyarrow Scalar they hold: its type decides what
# the function does with it (RoundToMultipleOptions casts its multiple).
SCALARS = {("RoundToMultipleOptions", "multiple")}
# Fields named differently in the serialization than in the Python constructor.
RENAMED = {("CastOptions", "to_type"): "target_type"}
# Fields serialized under another name than the Python constructor's, values as
# they are (PairwiseOptions(period) writes "periods").
FIELD_NAMES = {("PairwiseOptions", "periods"): "period"}

_cache: dict[tuple[type, bytes], dict[str, Any]] = {}
_cache_lock = threading.Lock()
_CACHE_LIMIT = 256


# The integer fields of pyarrow's options classes, by their C type: the
# classes take them through Cython's conversion, whose rules and messages
# c_integer follows, so that a keyword pyarrow refuses is refused in its words
# here too. (Enums and bools are not here: they are read by name.) Checked
# against the fields pyarrow serializes by python/tests/test_option_integers.py.
INT_FIELDS = {
    ("ScalarAggregateOptions", "min_count"): "uint32_t",
    ("VarianceOptions", "ddof"): "int",
    ("VarianceOptions", "min_count"): "uint32_t",
    ("ModeOptions", "n"): "int64_t",
    ("ModeOptions", "min_count"): "uint32_t",
    ("QuantileOptions", "min_count"): "uint32_t",
    ("TDigestOptions", "delta"): "uint32_t",
    ("TDigestOptions", "buffer_size"): "uint32_t",
    ("TDigestOptions", "min_count"): "uint32_t",
    ("RoundOptions", "ndigits"): "int64_t",
    ("PairwiseOptions", "period"): "int64_t",
    ("RoundTemporalOptions", "multiple"): "int",
    ("SplitPatternOptions", "max_splits"): "int64_t",
    ("SplitOptions", "max_splits"): "int64_t",
    ("SliceOptions", "start"): "int64_t",
    ("SliceOptions", "stop"): "int64_t",
    ("SliceOptions", "step"): "int64_t",
    ("DayOfWeekOptions", "week_start"): "uint32_t",
}
# Fields whose None pyarrow takes (no limit, to the end).
_NONE_ALLOWED = {
    ("SplitPatternOptions", "max_splits"),
    ("SplitOptions", "max_splits"),
    ("SliceOptions", "stop"),
}
_LONG = 2**63
_ULONG = 2**64


def c_integer(value, ctype):
    """`value` as Cython converts it to the C integer type `ctype` ("int",
    "int64_t", "uint32_t"): an int (a bool too) as it is, any other object
    through its type's __int__ (floats and numpy numbers truncate; NaN and
    infinity raise as float's __int__ does); an object without __int__ (None,
    str, a pyarrow Scalar, one with __index__ only) is "an integer is
    required". Out of range: Cython's OverflowError messages."""
    if not isinstance(value, int):
        to_int = getattr(type(value), "__int__", None)
        if to_int is None:
            raise TypeError("an integer is required")
        value = to_int(value)
    n = int(value)
    if ctype == "uint32_t":
        if n < 0:
            raise OverflowError("can't convert negative value to uint32_t")
        if n >= _ULONG:
            raise OverflowError("Python int too large to convert to C unsigned long")
        if n >= 2**32:
            raise OverflowError("value too large to convert to uint32_t")
        return n
    if not -_LONG <= n < _LONG:
        raise OverflowError("Python int too large to convert to C long")
    if ctype == "int" and not -(2**31) <= n < 2**31:
        raise OverflowError("value too large to convert to int")
    return n


def integer_fields(class_name, fields):
    """`fields` with each integer field converted as pyarrow's class would."""
    out = None
    for name, value in fields.items():
        ctype = INT_FIELDS.get((class_name, name))
        if ctype is None or (type(value) is int and 0 <= value < 2**31):  # valid as any ctype
            continue
        if value is None and (class_name, name) in _NONE_ALLOWED or type(value) is object:
            continue  # None where pyarrow takes it; a function's marker for "not given"
        if out is None:
            out = dict(fields)
        out[name] = c_integer(value, ctype)
    return fields if out is None else out


class OptionsSpec:
    """A function's pyarrow options class (by name) and its fields' defaults."""

    __slots__ = ("class_name", "defaults", "function")

    def __init__(self, function, class_name, defaults):
        self.function = function
        self.class_name = class_name
        self.defaults = defaults


def _decode(class_name, field, value, value_type):
    names = ENUMS.get((class_name, field))
    if names is not None and isinstance(value, int) and 0 <= value < len(names):
        return names[value]
    if (class_name, field) in RENAMED:
        return value_type
    if (class_name, field) in SCALARS:
        import pyarrow as pa

        return pa.scalar(value, type=value_type)
    return value


def _read_serialized(options):
    """{field: value} of a pyarrow options object, from its serialization."""
    import pyarrow as pa

    data = options.serialize()
    key = (type(options), data.to_pybytes())
    fields = _cache.get(key)
    if fields is not None:
        return fields
    table = pa.ipc.open_file(data).read_all()
    struct = table.schema.field(0).type
    row = table.column(0)[0].as_py()
    class_name = type(options).__name__
    fields = {}
    for i in range(struct.num_fields):
        f = struct.field(i)
        if f.name.startswith("_"):
            continue
        name = RENAMED.get((class_name, f.name), f.name)
        name = FIELD_NAMES.get((class_name, f.name), name)
        fields[name] = _decode(class_name, f.name, row[f.name], f.type)
    with _cache_lock:
        if len(_cache) >= _CACHE_LIMIT:
            _cache.clear()
        _cache[key] = fields
    return fields


def _read_cast_options(options):
    """CastOptions without a target type cannot be serialized; its other
    fields are attributes."""
    try:
        return _read_serialized(options)
    except Exception:  # noqa: BLE001 - pyarrow.lib.ArrowInvalid: no target type
        names = [n for n in dir(options) if n.startswith("allow_")]
        fields = {name: bool(getattr(options, name)) for name in names}
        fields["target_type"] = None
        return fields


def read_fields(options):
    """{field: value} of a pyarrow.compute options object (every field)."""
    if type(options).__name__ == "CastOptions":
        return _read_cast_options(options)
    return _read_serialized(options)


def resolve(spec, options, given):
    """The field values a call uses: `given` (the keyword arguments, by field)
    when `options` is None, else the fields of `options` -- a pyarrow options
    object of the spec's class or a dict of its fields."""
    if options is None:
        return integer_fields(spec.class_name, given)
    if isinstance(options, dict):
        unknown = set(options) - set(spec.defaults)
        if unknown:
            raise TypeError(
                f"{spec.function}: {spec.class_name} has no field {min(unknown)!r} "
                f"(fields: {', '.join(spec.defaults)})"
            )
        fields = integer_fields(spec.class_name, {**spec.defaults, **options})
    else:
        if type(options).__name__ != spec.class_name:
            raise TypeError(
                f"Function '{spec.function}' expected a {spec.class_name} parameter, "
                f"got {type(options)}"
            )
        fields = read_fields(options)
    for name, value in given.items():
        if value is not spec.defaults[name] and value != spec.defaults[name]:
            raise TypeError(
                f"Function '{spec.function}' called with both an 'options' argument "
                "and additional arguments"
            )
    return fields
