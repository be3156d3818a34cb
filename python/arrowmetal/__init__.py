"""ArrowMetal: Apache Arrow compute kernels on GPUs and CPUs.

The functions carry pyarrow.compute's names and argument order, so code can
switch by changing its import::

    import arrowmetal as am          # instead of: import pyarrow.compute as pc
    total = am.sum(pa_array)
    mask = am.greater(pa_array, 5)
    kept = am.filter(pa_array, mask)

Inputs may be am.Array, anything with ``__arrow_c_array__`` /
``__arrow_c_device_array__`` / ``__arrow_c_stream__`` (pyarrow, polars,
nanoarrow), 1-D numpy arrays and, where pyarrow.compute takes them, Python and
numpy scalars. Reductions return Scalars like pyarrow's (also Python numbers),
the rest am.Array.

The package is typed (PEP 561); the aliases its annotations use (ArrayLike,
ScalarLike, ...) are in ``arrowmetal._typing``.
"""

from __future__ import annotations

from . import _array, _log  # noqa: F401 - _array first: it imports _compute, then _nulls
from ._aggregates import (
    PendingAggregate,
    all,
    any,
    first,
    first_last,
    index,
    last,
    min_max,
    product,
    stddev,
    variance,
)
from ._array import Array, array, full
from ._batch import Batch, PendingScalar, batch
from ._capi import ffi, lib, library_path
from ._compute import (
    TABLE_FUNCTIONS,
    add,
    and_,
    and_kleene,
    and_not,
    and_not_kleene,
    cast,
    count,
    divide,
    equal,
    filter,
    greater,
    greater_equal,
    invert,
    less,
    less_equal,
    max,
    mean,
    min,
    multiply,
    not_equal,
    or_,
    or_kleene,
    subtract,
    sum,
    take,
    xor,
)
from ._cumulative import (  # cumulative functions
    cumulative_max,
    cumulative_mean,
    cumulative_min,
    cumulative_prod,
    cumulative_prod_checked,
    cumulative_sum,
    cumulative_sum_checked,
)
from ._errors import (
    ArrowMetalDeviceError,
    ArrowMetalError,
    ArrowMetalIndexError,
    ArrowMetalInvalid,
    ArrowMetalMemoryError,
    ArrowMetalOverflowError,
    ArrowMetalTypeError,
    ArrowMetalUnsupported,
    ArrowMetalZeroDivisionError,
)
from ._fallback import ArrowMetalFallbackWarning, fallbacks
from ._groupby import TableGroupBy, group_by  # group-by
from ._hash import (  # hash-based functions
    count_distinct,
    dictionary_decode,
    dictionary_encode,
    index_in,
    is_in,
    mode,
    unique,
    value_counts,
)
from ._join import join  # hash joins
from ._nulls import (  # null handling
    coalesce,
    drop_null,
    fill_null,
    fill_null_backward,
    fill_null_forward,
    if_else,
    is_finite,
    is_inf,
    is_nan,
    is_null,
    is_valid,
)
from ._quantile import approximate_median, quantile, tdigest
from ._rank import (
    partition_nth_indices,
    rank,
    rank_normal,
    rank_quantile,
    select_k_unstable,
)
from ._results import StructScalar
from ._round import pairwise_diff, pairwise_diff_checked, round, round_to_multiple
from ._round_temporal import ceil_temporal, floor_temporal, round_temporal
from ._runtime import (
    backend,
    backends,
    binding_mode,
    check_configuration,
    default_device,
    device_name,
    kernel_cache_dir,
    kernel_cache_info,
    low_latency_wait,
    memory_info,
    reset_peak_memory,
    resident_mode,
    resident_status,
    routes,
    set_device,
    spin_microseconds,
    version,
    wait_timeout_ms,
)
from ._sort import array_sort, array_sort_indices, sort_by, sort_indices
from ._split import ascii_split_whitespace, split_pattern, utf8_split_whitespace  # issue #13
from ._strings import (  # string functions (issue #13)
    ascii_lower,
    ascii_ltrim,
    ascii_ltrim_whitespace,
    ascii_rtrim,
    ascii_rtrim_whitespace,
    ascii_trim,
    ascii_trim_whitespace,
    ascii_upper,
    binary_join_element_wise,
    binary_length,
    count_substring,
    ends_with,
    find_substring,
    match_like,
    match_substring,
    starts_with,
    utf8_length,
    utf8_lower,
    utf8_ltrim,
    utf8_ltrim_whitespace,
    utf8_rtrim,
    utf8_rtrim_whitespace,
    utf8_slice_codeunits,
    utf8_trim,
    utf8_trim_whitespace,
    utf8_upper,
)
from ._tables import Table, table  # tables (issue #12)
from ._temporal import (
    assume_timezone,
    day,
    day_of_week,
    day_of_year,
    hour,
    is_dst,
    iso_week,
    iso_year,
    local_timestamp,
    microsecond,
    millisecond,
    minute,
    month,
    nanosecond,
    quarter,
    second,
    strftime,
    strptime,
    year,
)
from ._types import type_id, type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._typing import BinaryFunction, UnaryFunction

    # The functions of the library's table-driven families (set from
    # TABLE_FUNCTIONS below), for type checkers: a function the library
    # gains needs its line here (python/tests/test_typing.py checks).
    abs: UnaryFunction
    abs_checked: UnaryFunction
    acos: UnaryFunction
    acos_checked: UnaryFunction
    asin: UnaryFunction
    asin_checked: UnaryFunction
    atan: UnaryFunction
    bit_wise_not: UnaryFunction
    ceil: UnaryFunction
    cos: UnaryFunction
    exp: UnaryFunction
    floor: UnaryFunction
    ln: UnaryFunction
    ln_checked: UnaryFunction
    log10: UnaryFunction
    log10_checked: UnaryFunction
    log1p: UnaryFunction
    log1p_checked: UnaryFunction
    log2: UnaryFunction
    log2_checked: UnaryFunction
    negate: UnaryFunction
    negate_checked: UnaryFunction
    sign: UnaryFunction
    sin: UnaryFunction
    sqrt: UnaryFunction
    sqrt_checked: UnaryFunction
    tan: UnaryFunction
    trunc: UnaryFunction
    add_checked: BinaryFunction
    atan2: BinaryFunction
    bit_wise_and: BinaryFunction
    bit_wise_or: BinaryFunction
    bit_wise_xor: BinaryFunction
    divide_checked: BinaryFunction
    multiply_checked: BinaryFunction
    power: BinaryFunction
    power_checked: BinaryFunction
    shift_left: BinaryFunction
    shift_left_checked: BinaryFunction
    shift_right: BinaryFunction
    shift_right_checked: BinaryFunction
    subtract_checked: BinaryFunction

check_configuration()
_log.install()

__version__ = "0.1.0"

__all__ = [
    "Array",
    "ArrowMetalDeviceError",
    "ArrowMetalError",
    "ArrowMetalFallbackWarning",
    "ArrowMetalIndexError",
    "ArrowMetalInvalid",
    "ArrowMetalMemoryError",
    "ArrowMetalOverflowError",
    "ArrowMetalTypeError",
    "ArrowMetalUnsupported",
    "ArrowMetalZeroDivisionError",
    "Batch",
    "PendingAggregate",
    "PendingScalar",
    "StructScalar",
    "add",
    "all",
    "and_",
    "and_kleene",
    "and_not",
    "and_not_kleene",
    "any",
    "array",
    "assume_timezone",
    "backend",
    "backends",
    "batch",
    "binding_mode",
    "cast",
    "count",
    "default_device",
    "device_name",
    "divide",
    "equal",
    "fallbacks",
    "ffi",
    "filter",
    "first",
    "first_last",
    "full",
    "greater",
    "greater_equal",
    "index",
    "invert",
    "kernel_cache_dir",
    "kernel_cache_info",
    "last",
    "less",
    "less_equal",
    "lib",
    "library_path",
    "low_latency_wait",
    "max",
    "mean",
    "memory_info",
    "min",
    "min_max",
    "multiply",
    "not_equal",
    "or_",
    "or_kleene",
    "product",
    "reset_peak_memory",
    "resident_mode",
    "resident_status",
    "routes",
    "set_device",
    "spin_microseconds",
    "stddev",
    "subtract",
    "sum",
    "take",
    "type_id",
    "type_name",
    "variance",
    "version",
    "wait_timeout_ms",
    "xor",
]
# Null handling.
__all__ += [
    "coalesce",
    "drop_null",
    "fill_null",
    "fill_null_backward",
    "fill_null_forward",
    "if_else",
    "is_finite",
    "is_inf",
    "is_nan",
    "is_null",
    "is_valid",
]
# Hash-based functions.
__all__ += [
    "count_distinct",
    "dictionary_decode",
    "dictionary_encode",
    "index_in",
    "is_in",
    "mode",
    "unique",
    "value_counts",
]
# Rounding and pairwise differences.
__all__ += ["pairwise_diff", "pairwise_diff_checked", "round", "round_to_multiple"]
__all__ += [  # string functions (issue #13)
    "ascii_lower",
    "ascii_ltrim",
    "ascii_ltrim_whitespace",
    "ascii_rtrim",
    "ascii_rtrim_whitespace",
    "ascii_trim",
    "ascii_trim_whitespace",
    "ascii_upper",
    "binary_join_element_wise",
    "binary_length",
    "count_substring",
    "ends_with",
    "find_substring",
    "match_like",
    "match_substring",
    "starts_with",
    "utf8_length",
    "utf8_lower",
    "utf8_ltrim",
    "utf8_ltrim_whitespace",
    "utf8_rtrim",
    "utf8_rtrim_whitespace",
    "utf8_slice_codeunits",
    "utf8_trim",
    "utf8_trim_whitespace",
    "utf8_upper",
]
__all__ += ["ceil_temporal", "floor_temporal", "round_temporal"]  # temporal rounding
__all__ += ["ascii_split_whitespace", "split_pattern", "utf8_split_whitespace"]  # splitting
__all__ += [  # temporal field extractions
    "day",
    "day_of_week",
    "day_of_year",
    "hour",
    "iso_week",
    "iso_year",
    "microsecond",
    "millisecond",
    "minute",
    "month",
    "nanosecond",
    "quarter",
    "second",
    "year",
]
__all__ += ["strftime", "strptime"]  # temporal values to and from text
__all__ += ["is_dst", "local_timestamp"]  # what a time zone says of each instant
# Quantiles.
__all__ += ["approximate_median", "quantile", "tdigest"]

# Cumulative functions.
__all__ += [
    "cumulative_max",
    "cumulative_mean",
    "cumulative_min",
    "cumulative_prod",
    "cumulative_prod_checked",
    "cumulative_sum",
    "cumulative_sum_checked",
]

# Sorting.
__all__ += ["array_sort", "array_sort_indices", "sort_by", "sort_indices"]
__all__ += [
    "partition_nth_indices",
    "rank",
    "rank_normal",
    "rank_quantile",
    "select_k_unstable",
]

# Group-by.
__all__ += ["TableGroupBy", "group_by", "join"]
# Tables.
__all__ += ["Table", "table"]

# The functions of the library's table-driven families (am_unary: negate,
# abs, ...), by their pyarrow names, from the C library's own list.
globals().update(TABLE_FUNCTIONS)
__all__.extend(sorted(TABLE_FUNCTIONS))


def __getattr__(name: str) -> Any:
    """Every other pyarrow.compute name: its functions run by pyarrow on the
    CPU, counted and announced (see _fallback); its options classes as they are."""
    from . import _fallback

    return _fallback.attribute(name)


def __dir__() -> list[str]:
    from . import _fallback

    return sorted(set(globals()) | _fallback.names())


# Only the package's own names in its namespace (and dir()).
del annotations, TYPE_CHECKING
