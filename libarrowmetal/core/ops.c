#include "ops.h"

#include <stddef.h>

#include "types.h"

#define ROW(NAME, ENTRY, FAMILY, OP, ARITY, KINDS, TYPE_RULE, NULL_RULE) \
  {NAME, ENTRY, FAMILY, OP, ARITY, KINDS, TYPE_RULE, NULL_RULE}
#define AGG_ROW(NAME, ENTRY, OP, KINDS, TYPE_RULE) \
  ROW(NAME, ENTRY, AM_FAMILY_AGGREGATE, OP, 1, KINDS, TYPE_RULE, AM_NULLS_SKIP)
#define CUMULATIVE_ROW(NAME, OP, TYPE_RULE)                                            \
  ROW(NAME, "am_cumulative", AM_FAMILY_CUMULATIVE, OP, 1, AM_KINDS_NUMERIC, TYPE_RULE, \
      AM_NULLS_SELECT)
/* The group-by aggregates that count or pick values take strings too. */
#define KINDS_WITH_STRINGS (AM_KINDS_ALL | AM_KINDS_BINARY)
#define GROUP_ROW(NAME, OP, KINDS, TYPE_RULE, NULL_RULE) \
  ROW(NAME, "am_group_by", AM_FAMILY_GROUP_BY, OP, 2, KINDS, TYPE_RULE, NULL_RULE)
#define UNARY_ROW(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, CODE, MESSAGE) \
  ROW(NAME, "am_unary", AM_FAMILY_UNARY, ID, 1, KINDS, RULE, AM_NULLS_PROPAGATE),
#define BINARY_ROW(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, C1, M1, C2, M2) \
  ROW(NAME, "am_binary", AM_FAMILY_BINARY, ID, 2, KINDS, RULE, AM_NULLS_PROPAGATE),

/* In the order of the public header. The reductions' op values follow
 * core/backend.h's am_reduce_op; logic's follow am_logic_op. */
const am_op_desc am_ops[] = {
    ROW("sum", "am_sum", AM_FAMILY_REDUCE, 0, 1, AM_KINDS_ALL, AM_RULE_SUM, AM_NULLS_SKIP),
    ROW("min", "am_min", AM_FAMILY_REDUCE, 1, 1, AM_KINDS_ALL, AM_RULE_SAME, AM_NULLS_SKIP),
    ROW("max", "am_max", AM_FAMILY_REDUCE, 2, 1, AM_KINDS_ALL, AM_RULE_SAME, AM_NULLS_SKIP),
    ROW("mean", "am_mean", AM_FAMILY_REDUCE, 3, 1, AM_KINDS_ALL, AM_RULE_FLOAT64, AM_NULLS_SKIP),
    ROW("count", "am_count", AM_FAMILY_COUNT, 0, 1, AM_KINDS_ALL, AM_RULE_INT64, AM_NULLS_COUNT),
    ROW("equal", "am_compare", AM_FAMILY_COMPARE, AM_EQ, 2, AM_KINDS_ALL, AM_RULE_COMMON_TO_BOOL,
        AM_NULLS_PROPAGATE),
    ROW("not_equal", "am_compare", AM_FAMILY_COMPARE, AM_NE, 2, AM_KINDS_ALL,
        AM_RULE_COMMON_TO_BOOL, AM_NULLS_PROPAGATE),
    ROW("less", "am_compare", AM_FAMILY_COMPARE, AM_LT, 2, AM_KINDS_ALL, AM_RULE_COMMON_TO_BOOL,
        AM_NULLS_PROPAGATE),
    ROW("less_equal", "am_compare", AM_FAMILY_COMPARE, AM_LE, 2, AM_KINDS_ALL,
        AM_RULE_COMMON_TO_BOOL, AM_NULLS_PROPAGATE),
    ROW("greater", "am_compare", AM_FAMILY_COMPARE, AM_GT, 2, AM_KINDS_ALL, AM_RULE_COMMON_TO_BOOL,
        AM_NULLS_PROPAGATE),
    ROW("greater_equal", "am_compare", AM_FAMILY_COMPARE, AM_GE, 2, AM_KINDS_ALL,
        AM_RULE_COMMON_TO_BOOL, AM_NULLS_PROPAGATE),
    ROW("add", "am_arith", AM_FAMILY_ARITH, AM_ADD, 2, AM_KINDS_NUMERIC, AM_RULE_COMMON,
        AM_NULLS_PROPAGATE),
    ROW("subtract", "am_arith", AM_FAMILY_ARITH, AM_SUBTRACT, 2, AM_KINDS_NUMERIC, AM_RULE_COMMON,
        AM_NULLS_PROPAGATE),
    ROW("multiply", "am_arith", AM_FAMILY_ARITH, AM_MULTIPLY, 2, AM_KINDS_NUMERIC, AM_RULE_COMMON,
        AM_NULLS_PROPAGATE),
    ROW("divide", "am_arith", AM_FAMILY_ARITH, AM_DIVIDE, 2, AM_KINDS_NUMERIC, AM_RULE_COMMON,
        AM_NULLS_PROPAGATE),
    AM_UNARY_OPS(UNARY_ROW) ROW("and", "am_and", AM_FAMILY_LOGIC, 0, 2, AM_KINDS_BOOL, AM_RULE_BOOL,
                                AM_NULLS_PROPAGATE),
    ROW("or", "am_or", AM_FAMILY_LOGIC, 1, 2, AM_KINDS_BOOL, AM_RULE_BOOL, AM_NULLS_PROPAGATE),
    ROW("invert", "am_not", AM_FAMILY_LOGIC, 2, 1, AM_KINDS_BOOL, AM_RULE_BOOL, AM_NULLS_PROPAGATE),
    /* The rest of pyarrow's boolean family, through am_logic. */
    ROW("and_kleene", "am_logic", AM_FAMILY_LOGIC, AM_LOGIC_AND_KLEENE, 2, AM_KINDS_BOOL,
        AM_RULE_BOOL, AM_NULLS_KLEENE),
    ROW("or_kleene", "am_logic", AM_FAMILY_LOGIC, AM_LOGIC_OR_KLEENE, 2, AM_KINDS_BOOL,
        AM_RULE_BOOL, AM_NULLS_KLEENE),
    ROW("xor", "am_logic", AM_FAMILY_LOGIC, AM_LOGIC_XOR, 2, AM_KINDS_BOOL, AM_RULE_BOOL,
        AM_NULLS_PROPAGATE),
    ROW("and_not", "am_logic", AM_FAMILY_LOGIC, AM_LOGIC_AND_NOT, 2, AM_KINDS_BOOL, AM_RULE_BOOL,
        AM_NULLS_PROPAGATE),
    ROW("and_not_kleene", "am_logic", AM_FAMILY_LOGIC, AM_LOGIC_AND_NOT_KLEENE, 2, AM_KINDS_BOOL,
        AM_RULE_BOOL, AM_NULLS_KLEENE),
    ROW("cast", "am_cast", AM_FAMILY_CAST, 0, 1, AM_KINDS_ALL, AM_RULE_TARGET, AM_NULLS_PROPAGATE),
    ROW("filter", "am_filter", AM_FAMILY_FILTER, 0, 2, AM_KINDS_ALL, AM_RULE_VALUES,
        AM_NULLS_SELECT),
    ROW("take", "am_take", AM_FAMILY_TAKE, 0, 2, AM_KINDS_ALL, AM_RULE_VALUES, AM_NULLS_SELECT),
    AM_BINARY_OPS(BINARY_ROW)
    /* ---- Aggregates with options (op = am_aggregate_op). */
    AGG_ROW("any", "am_aggregate", AM_AGG_ANY, AM_KINDS_BOOL, AM_RULE_BOOL),
    AGG_ROW("all", "am_aggregate", AM_AGG_ALL, AM_KINDS_BOOL, AM_RULE_BOOL),
    AGG_ROW("product", "am_aggregate", AM_AGG_PRODUCT, AM_KINDS_ALL, AM_RULE_SUM),
    AGG_ROW("min_max", "am_min_max", AM_AGG_MIN_MAX, AM_KINDS_ALL, AM_RULE_SAME),
    AGG_ROW("variance", "am_aggregate", AM_AGG_VARIANCE, AM_KINDS_NUMERIC, AM_RULE_FLOAT64),
    AGG_ROW("stddev", "am_aggregate", AM_AGG_STDDEV, AM_KINDS_NUMERIC, AM_RULE_FLOAT64),
    AGG_ROW("first", "am_aggregate", AM_AGG_FIRST, AM_KINDS_ALL, AM_RULE_SAME),
    AGG_ROW("last", "am_aggregate", AM_AGG_LAST, AM_KINDS_ALL, AM_RULE_SAME),
    AGG_ROW("first_last", "am_first_last", AM_AGG_FIRST_LAST, AM_KINDS_ALL, AM_RULE_SAME),
    AGG_ROW("index", "am_index", AM_AGG_INDEX, AM_KINDS_ALL, AM_RULE_INT64),
    /* Null handling. */
    ROW("is_null", "am_is", AM_FAMILY_PREDICATE, AM_IS_NULL, 1, AM_KINDS_ALL, AM_RULE_PREDICATE,
        AM_NULLS_NEVER),
    ROW("is_valid", "am_is", AM_FAMILY_PREDICATE, AM_IS_VALID, 1, AM_KINDS_ALL, AM_RULE_PREDICATE,
        AM_NULLS_NEVER),
    ROW("is_nan", "am_is", AM_FAMILY_PREDICATE, AM_IS_NAN, 1, AM_KINDS_NUMERIC, AM_RULE_PREDICATE,
        AM_NULLS_PROPAGATE),
    ROW("is_finite", "am_is", AM_FAMILY_PREDICATE, AM_IS_FINITE, 1, AM_KINDS_NUMERIC,
        AM_RULE_PREDICATE, AM_NULLS_PROPAGATE),
    ROW("is_inf", "am_is", AM_FAMILY_PREDICATE, AM_IS_INF, 1, AM_KINDS_NUMERIC, AM_RULE_PREDICATE,
        AM_NULLS_PROPAGATE),
    ROW("fill_null", "am_fill_null", AM_FAMILY_FILL_NULL, 0, 2, AM_KINDS_ALL, AM_RULE_VALUES,
        AM_NULLS_FILL),
    ROW("coalesce", "am_coalesce", AM_FAMILY_COALESCE, 0, -1, AM_KINDS_ALL, AM_RULE_COMMON_ALL,
        AM_NULLS_FILL),
    ROW("if_else", "am_if_else", AM_FAMILY_IF_ELSE, 0, 3, AM_KINDS_BOOL, AM_RULE_COMMON_REST,
        AM_NULLS_SELECT),
    ROW("drop_null", "am_drop_null", AM_FAMILY_DROP_NULL, 0, 1, AM_KINDS_ALL, AM_RULE_SAME,
        AM_NULLS_SKIP),
    ROW("fill_null_forward", "am_fill_null_direction", AM_FAMILY_FILL_NULL_DIRECTION,
        AM_FILL_FORWARD, 1, AM_KINDS_ALL, AM_RULE_SAME, AM_NULLS_FILL),
    ROW("fill_null_backward", "am_fill_null_direction", AM_FAMILY_FILL_NULL_DIRECTION,
        AM_FILL_BACKWARD, 1, AM_KINDS_ALL, AM_RULE_SAME, AM_NULLS_FILL),
    /* Rounding and pairwise differences. */
    ROW("round", "am_round", AM_FAMILY_ROUND, 0, 1, AM_KINDS_NUMERIC, AM_RULE_SAME,
        AM_NULLS_PROPAGATE),
    ROW("round_to_multiple", "am_round_to_multiple", AM_FAMILY_ROUND, 1, 1, AM_KINDS_NUMERIC,
        AM_RULE_SAME, AM_NULLS_PROPAGATE),
    ROW("pairwise_diff", "am_pairwise_diff", AM_FAMILY_PAIRWISE_DIFF, AM_PAIRWISE_DIFF, 1,
        AM_KINDS_NUMERIC, AM_RULE_SAME, AM_NULLS_PROPAGATE),
    ROW("pairwise_diff_checked", "am_pairwise_diff", AM_FAMILY_PAIRWISE_DIFF,
        AM_PAIRWISE_DIFF_CHECKED, 1, AM_KINDS_NUMERIC, AM_RULE_SAME, AM_NULLS_PROPAGATE),
    /* Cumulative functions; nulls as skip_nulls says. */
    CUMULATIVE_ROW("cumulative_sum", AM_CUMULATIVE_SUM, AM_RULE_SAME),
    CUMULATIVE_ROW("cumulative_sum_checked", AM_CUMULATIVE_SUM_CHECKED, AM_RULE_SAME),
    CUMULATIVE_ROW("cumulative_prod", AM_CUMULATIVE_PROD, AM_RULE_SAME),
    CUMULATIVE_ROW("cumulative_prod_checked", AM_CUMULATIVE_PROD_CHECKED, AM_RULE_SAME),
    CUMULATIVE_ROW("cumulative_min", AM_CUMULATIVE_MIN, AM_RULE_SAME),
    CUMULATIVE_ROW("cumulative_max", AM_CUMULATIVE_MAX, AM_RULE_SAME),
    CUMULATIVE_ROW("cumulative_mean", AM_CUMULATIVE_MEAN, AM_RULE_FLOAT64),
    /* Hash-based functions: arity counts the array inputs. */
    ROW("is_in", "am_is_in", AM_FAMILY_SET_LOOKUP, 0, 2, AM_KINDS_ALL, AM_RULE_PREDICATE,
        AM_NULLS_NEVER),
    ROW("index_in", "am_index_in", AM_FAMILY_SET_LOOKUP, 1, 2, AM_KINDS_ALL, AM_RULE_INT32,
        AM_NULLS_SELECT),
    ROW("unique", "am_unique", AM_FAMILY_UNIQUE, 0, 1, AM_KINDS_ALL, AM_RULE_SAME, AM_NULLS_SELECT),
    ROW("value_counts", "am_value_counts", AM_FAMILY_VALUE_COUNTS, 0, 1, AM_KINDS_ALL, AM_RULE_SAME,
        AM_NULLS_SELECT),
    ROW("count_distinct", "am_count_distinct", AM_FAMILY_COUNT_DISTINCT, 0, 1, AM_KINDS_ALL,
        AM_RULE_INT64, AM_NULLS_COUNT),
    ROW("dictionary_encode", "am_dictionary_encode", AM_FAMILY_DICTIONARY_ENCODE, 0, 1,
        AM_KINDS_ALL, AM_RULE_INT32, AM_NULLS_SELECT),
    ROW("mode", "am_mode", AM_FAMILY_MODE, 0, 1, AM_KINDS_ALL, AM_RULE_SAME, AM_NULLS_SKIP),
    /* Quantiles: float64 results (quantile's lower, higher
     * and nearest keep the input's type, which its interpolation decides). */
    ROW("quantile", "am_quantile", AM_FAMILY_QUANTILE, 0, 1, AM_KINDS_NUMERIC, AM_RULE_FLOAT64,
        AM_NULLS_SKIP),
    ROW("tdigest", "am_tdigest", AM_FAMILY_TDIGEST, 0, 1, AM_KINDS_NUMERIC, AM_RULE_FLOAT64,
        AM_NULLS_SKIP),
    ROW("approximate_median", "am_tdigest", AM_FAMILY_TDIGEST, 1, 1, AM_KINDS_NUMERIC,
        AM_RULE_FLOAT64, AM_NULLS_SKIP),
    /* Sorting: arity -1, one or more keys; nulls are placed,
     * never given. */
    ROW("sort_indices", "am_sort_indices", AM_FAMILY_SORT_INDICES, 0, -1, AM_KINDS_ALL,
        AM_RULE_UINT64, AM_NULLS_NEVER),
    ROW("array_sort_indices", "am_sort_indices", AM_FAMILY_SORT_INDICES, 1, 1, AM_KINDS_ALL,
        AM_RULE_UINT64, AM_NULLS_NEVER),
    /* Selection and ranking */
    ROW("select_k_unstable", "am_select_k_unstable", AM_FAMILY_SELECT_K, 0, -1, AM_KINDS_ALL,
        AM_RULE_UINT64, AM_NULLS_NEVER),
    ROW("rank", "am_rank", AM_FAMILY_RANK, 0, 1, AM_KINDS_ALL, AM_RULE_UINT64, AM_NULLS_NEVER),
    ROW("rank_quantile", "am_rank_quantile", AM_FAMILY_RANK, 1, 1, AM_KINDS_ALL, AM_RULE_FLOAT64,
        AM_NULLS_NEVER),
    ROW("rank_normal", "am_rank_quantile", AM_FAMILY_RANK, 2, 1, AM_KINDS_ALL, AM_RULE_FLOAT64,
        AM_NULLS_NEVER),
    ROW("partition_nth_indices", "am_partition_nth_indices", AM_FAMILY_PARTITION_NTH, 0, 1,
        AM_KINDS_ALL, AM_RULE_UINT64, AM_NULLS_NEVER),
    /* Group-by: pyarrow's hash_* kernels, by am_group_op;
     * arity 2 (the values and the group ids), kinds those of the values
     * (strings and binary: those that count or pick values). */
    GROUP_ROW("hash_count", AM_GROUP_COUNT, KINDS_WITH_STRINGS, AM_RULE_INT64, AM_NULLS_COUNT),
    GROUP_ROW("hash_count_distinct", AM_GROUP_COUNT_DISTINCT, KINDS_WITH_STRINGS, AM_RULE_INT64,
              AM_NULLS_COUNT),
    GROUP_ROW("hash_sum", AM_GROUP_SUM, AM_KINDS_ALL, AM_RULE_SUM, AM_NULLS_SKIP),
    GROUP_ROW("hash_product", AM_GROUP_PRODUCT, AM_KINDS_ALL, AM_RULE_SUM, AM_NULLS_SKIP),
    GROUP_ROW("hash_mean", AM_GROUP_MEAN, AM_KINDS_ALL, AM_RULE_FLOAT64, AM_NULLS_SKIP),
    GROUP_ROW("hash_min", AM_GROUP_MIN, KINDS_WITH_STRINGS, AM_RULE_SAME, AM_NULLS_SKIP),
    GROUP_ROW("hash_max", AM_GROUP_MAX, KINDS_WITH_STRINGS, AM_RULE_SAME, AM_NULLS_SKIP),
    GROUP_ROW("hash_min_max", AM_GROUP_MIN_MAX, KINDS_WITH_STRINGS, AM_RULE_SAME, AM_NULLS_SKIP),
    GROUP_ROW("hash_first", AM_GROUP_FIRST, KINDS_WITH_STRINGS, AM_RULE_SAME, AM_NULLS_SKIP),
    GROUP_ROW("hash_last", AM_GROUP_LAST, KINDS_WITH_STRINGS, AM_RULE_SAME, AM_NULLS_SKIP),
    GROUP_ROW("hash_any", AM_GROUP_ANY, AM_KINDS_BOOL, AM_RULE_BOOL, AM_NULLS_KLEENE),
    GROUP_ROW("hash_all", AM_GROUP_ALL, AM_KINDS_BOOL, AM_RULE_BOOL, AM_NULLS_KLEENE),
    GROUP_ROW("hash_variance", AM_GROUP_VARIANCE, AM_KINDS_NUMERIC, AM_RULE_FLOAT64, AM_NULLS_SKIP),
    GROUP_ROW("hash_stddev", AM_GROUP_STDDEV, AM_KINDS_NUMERIC, AM_RULE_FLOAT64, AM_NULLS_SKIP),
    GROUP_ROW("hash_list", AM_GROUP_LIST, KINDS_WITH_STRINGS, AM_RULE_SAME, AM_NULLS_SELECT),
    GROUP_ROW("hash_distinct", AM_GROUP_DISTINCT, KINDS_WITH_STRINGS, AM_RULE_SAME,
              AM_NULLS_SELECT),
    GROUP_ROW("hash_count_all", AM_GROUP_COUNT_ALL, KINDS_WITH_STRINGS, AM_RULE_INT64,
              AM_NULLS_NEVER),
/* Temporal field extraction: temporal inputs (which of them each field
 * takes: abi/temporal_field.c), int64 results. */
#define FIELD_ROW(NAME, OP)                                                          \
  ROW(NAME, "am_temporal_field", AM_FAMILY_TEMPORAL_FIELD, OP, 1, AM_KINDS_TEMPORAL, \
      AM_RULE_INT64, AM_NULLS_PROPAGATE)
    FIELD_ROW("year", AM_FIELD_YEAR),
    FIELD_ROW("month", AM_FIELD_MONTH),
    FIELD_ROW("day", AM_FIELD_DAY),
    FIELD_ROW("day_of_week", AM_FIELD_DAY_OF_WEEK),
    FIELD_ROW("day_of_year", AM_FIELD_DAY_OF_YEAR),
    FIELD_ROW("hour", AM_FIELD_HOUR),
    FIELD_ROW("minute", AM_FIELD_MINUTE),
    FIELD_ROW("second", AM_FIELD_SECOND),
    FIELD_ROW("millisecond", AM_FIELD_MILLISECOND),
    FIELD_ROW("microsecond", AM_FIELD_MICROSECOND),
    FIELD_ROW("nanosecond", AM_FIELD_NANOSECOND),
    FIELD_ROW("quarter", AM_FIELD_QUARTER),
    FIELD_ROW("iso_week", AM_FIELD_ISO_WEEK),
    FIELD_ROW("iso_year", AM_FIELD_ISO_YEAR),
#undef FIELD_ROW
/* String functions (issue #13): which string types each takes is
 * abi/string_functions.c's; results typed there too (AM_RULE_SAME: the
 * input's type or its length type). */
#define STRING_ROW(NAME, OP, ARITY)                                                           \
  ROW(NAME, "am_string_function", AM_FAMILY_STRING, OP, ARITY, AM_KINDS_BINARY, AM_RULE_SAME, \
      AM_NULLS_PROPAGATE)
    STRING_ROW("utf8_length", AM_UTF8_LENGTH, 1),
    STRING_ROW("binary_length", AM_BINARY_LENGTH, 1),
    STRING_ROW("starts_with", AM_STARTS_WITH, 1),
    STRING_ROW("ends_with", AM_ENDS_WITH, 1),
    STRING_ROW("match_substring", AM_MATCH_SUBSTRING, 1),
    STRING_ROW("find_substring", AM_FIND_SUBSTRING, 1),
    STRING_ROW("count_substring", AM_COUNT_SUBSTRING, 1),
    STRING_ROW("ascii_upper", AM_ASCII_UPPER, 1),
    STRING_ROW("ascii_lower", AM_ASCII_LOWER, 1),
    STRING_ROW("match_like", AM_MATCH_LIKE, 1),
    STRING_ROW("ascii_trim_whitespace", AM_ASCII_TRIM_WHITESPACE, 1),
    STRING_ROW("ascii_ltrim_whitespace", AM_ASCII_LTRIM_WHITESPACE, 1),
    STRING_ROW("ascii_rtrim_whitespace", AM_ASCII_RTRIM_WHITESPACE, 1),
    STRING_ROW("utf8_trim_whitespace", AM_UTF8_TRIM_WHITESPACE, 1),
    STRING_ROW("utf8_ltrim_whitespace", AM_UTF8_LTRIM_WHITESPACE, 1),
    STRING_ROW("utf8_rtrim_whitespace", AM_UTF8_RTRIM_WHITESPACE, 1),
    STRING_ROW("ascii_trim", AM_ASCII_TRIM, 1),
    STRING_ROW("ascii_ltrim", AM_ASCII_LTRIM, 1),
    STRING_ROW("ascii_rtrim", AM_ASCII_RTRIM, 1),
    STRING_ROW("utf8_trim", AM_UTF8_TRIM, 1),
    STRING_ROW("utf8_ltrim", AM_UTF8_LTRIM, 1),
    STRING_ROW("utf8_rtrim", AM_UTF8_RTRIM, 1),
    STRING_ROW("utf8_upper", AM_UTF8_UPPER, 1),
    STRING_ROW("utf8_lower", AM_UTF8_LOWER, 1),
#undef STRING_ROW
    ROW("utf8_slice_codeunits", "am_utf8_slice_codeunits", AM_FAMILY_STRING_SLICE, 0, 1,
        AM_KINDS_BINARY, AM_RULE_SAME, AM_NULLS_PROPAGATE),
    /* its nulls as JoinOptions say (abi/string_join.c) */
    ROW("binary_join_element_wise", "am_binary_join_element_wise", AM_FAMILY_STRING_JOIN, 0, -1,
        AM_KINDS_BINARY, AM_RULE_SAME, AM_NULLS_OPTION),
    /* temporal values from and to text (abi/strptime.c, abi/strftime.c);
     * error_is_null makes strptime's unread values null */
    ROW("strptime", "am_strptime", AM_FAMILY_STRPTIME, 0, 1, AM_KINDS_BINARY, AM_RULE_TARGET,
        AM_NULLS_OPTION),
    ROW("strftime", "am_strftime", AM_FAMILY_STRFTIME, 0, 1, AM_KINDS_TEMPORAL, AM_RULE_UTF8,
        AM_NULLS_PROPAGATE),
/* Splitting (abi/string_split.c): a list per row (its items of the input's
 * type, int32 list offsets); which string types each takes is that file's. */
#define SPLIT_ROW(NAME, OP)                                                                  \
  ROW(NAME, "am_string_split", AM_FAMILY_STRING_SPLIT, OP, 1, AM_KINDS_BINARY, AM_RULE_SAME, \
      AM_NULLS_PROPAGATE)
    SPLIT_ROW("split_pattern", AM_SPLIT_PATTERN),
    SPLIT_ROW("ascii_split_whitespace", AM_ASCII_SPLIT_WHITESPACE),
    SPLIT_ROW("utf8_split_whitespace", AM_UTF8_SPLIT_WHITESPACE),
#undef SPLIT_ROW
    /* timestamps only (abi/assume_timezone.c): the same unit, with the zone */
    ROW("assume_timezone", "am_assume_timezone", AM_FAMILY_ASSUME_TIMEZONE, 0, 1, AM_KINDS_TEMPORAL,
        AM_RULE_SAME, AM_NULLS_PROPAGATE),
/* Temporal rounding: which temporal types it takes is
 * abi/round_temporal.c's; the result of the input's type. */
#define ROUND_TEMPORAL_ROW(NAME, OP)                                                               \
  ROW(NAME, "am_round_temporal", AM_FAMILY_ROUND_TEMPORAL, OP, 1, AM_KINDS_TEMPORAL, AM_RULE_SAME, \
      AM_NULLS_PROPAGATE)
    ROUND_TEMPORAL_ROW("floor_temporal", AM_FLOOR_TEMPORAL),
    ROUND_TEMPORAL_ROW("ceil_temporal", AM_CEIL_TEMPORAL),
    ROUND_TEMPORAL_ROW("round_temporal", AM_ROUND_TEMPORAL),
#undef ROUND_TEMPORAL_ROW
    /* timestamps only (abi/zone_function.c): is_dst a bool, local_timestamp
     * the same unit without the zone */
    ROW("is_dst", "am_zone_function", AM_FAMILY_ZONE, AM_ZONE_IS_DST, 1, AM_KINDS_TEMPORAL,
        AM_RULE_PREDICATE, AM_NULLS_PROPAGATE),
    ROW("local_timestamp", "am_zone_function", AM_FAMILY_ZONE, AM_ZONE_LOCAL_TIMESTAMP, 1,
        AM_KINDS_TEMPORAL, AM_RULE_SAME, AM_NULLS_PROPAGATE),
};

const int am_op_count = (int)(sizeof am_ops / sizeof am_ops[0]);

/* The enum values of the unary ops are their positions in AM_UNARY_OPS
 * (tables elsewhere are indexed by them). */
enum {
#define POSITION(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, CODE, MESSAGE) POSITION_OF_##ID,
  AM_UNARY_OPS(POSITION)
#undef POSITION
};
#define CHECK_POSITION(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, CODE, MESSAGE) \
  _Static_assert((int)ID == (int)POSITION_OF_##ID, #ID " is not its position in AM_UNARY_OPS");
AM_UNARY_OPS(CHECK_POSITION)
#undef CHECK_POSITION

/* Rows are grouped by family in the order of the family values and, within
 * one, ordered by op value from 0:
 * the row of (family, op) is the family's first row + op. */
enum { FAMILIES = AM_FAMILY_ZONE + 1 };
static const int family_rows[FAMILIES] = {
    [AM_FAMILY_REDUCE] = 4,
    [AM_FAMILY_COUNT] = 1,
    [AM_FAMILY_COMPARE] = 6,
    [AM_FAMILY_ARITH] = 4,
    [AM_FAMILY_UNARY] = AM_UNARY_COUNT,
    [AM_FAMILY_LOGIC] = AM_LOGIC_AND_NOT_KLEENE + 1,
    [AM_FAMILY_CAST] = 1,
    [AM_FAMILY_FILTER] = 1,
    [AM_FAMILY_TAKE] = 1,
    [AM_FAMILY_BINARY] = AM_BINARY_COUNT,
    [AM_FAMILY_AGGREGATE] = AM_AGG_INDEX + 1,
    /* Null handling. */
    [AM_FAMILY_PREDICATE] = AM_IS_INF + 1,
    [AM_FAMILY_FILL_NULL] = 1,
    [AM_FAMILY_COALESCE] = 1,
    [AM_FAMILY_IF_ELSE] = 1,
    [AM_FAMILY_DROP_NULL] = 1,
    [AM_FAMILY_FILL_NULL_DIRECTION] = AM_FILL_BACKWARD + 1,
    /* Hash-based functions. */
    [AM_FAMILY_SET_LOOKUP] = 2,
    [AM_FAMILY_UNIQUE] = 1,
    [AM_FAMILY_VALUE_COUNTS] = 1,
    [AM_FAMILY_COUNT_DISTINCT] = 1,
    [AM_FAMILY_DICTIONARY_ENCODE] = 1,
    [AM_FAMILY_MODE] = 1,
    /* Rounding and pairwise differences. */
    [AM_FAMILY_ROUND] = 2, /* round, round_to_multiple */
    [AM_FAMILY_PAIRWISE_DIFF] = AM_PAIRWISE_DIFF_CHECKED + 1,
    [AM_FAMILY_QUANTILE] = 1,
    [AM_FAMILY_TDIGEST] = 2,
    [AM_FAMILY_CUMULATIVE] = AM_CUMULATIVE_MEAN + 1,
    [AM_FAMILY_SORT_INDICES] = 2,
    [AM_FAMILY_GROUP_BY] = AM_GROUP_COUNT_ALL + 1,
    /* Selection and ranking. */
    [AM_FAMILY_SELECT_K] = 1,
    [AM_FAMILY_RANK] = 3,
    [AM_FAMILY_PARTITION_NTH] = 1,
    /* Temporal functions. */
    [AM_FAMILY_TEMPORAL_FIELD] = AM_FIELD_ISO_YEAR + 1,
    /* Strings. */
    [AM_FAMILY_STRING] = AM_UTF8_LOWER + 1,
    [AM_FAMILY_STRING_SLICE] = 1,
    [AM_FAMILY_STRING_JOIN] = 1,
    [AM_FAMILY_STRPTIME] = 1,
    [AM_FAMILY_STRFTIME] = 1,
    [AM_FAMILY_STRING_SPLIT] = AM_UTF8_SPLIT_WHITESPACE + 1,
    /* More temporal functions. */
    [AM_FAMILY_ASSUME_TIMEZONE] = 1,
    /* Temporal rounding. */
    [AM_FAMILY_ROUND_TEMPORAL] = AM_ROUND_TEMPORAL + 1,
    /* What a time zone says of an instant. */
    [AM_FAMILY_ZONE] = AM_ZONE_LOCAL_TIMESTAMP + 1,
};

const am_op_desc *am_op_find(am_function_family family, int op) {
  if ((unsigned)family >= FAMILIES || op < 0 || op >= family_rows[family]) return NULL;
  int first = 0;
  for (int f = 0; f < (int)family; f++) first += family_rows[f];
  return &am_ops[first + op];
}

const am_unary_check *am_unary_check_of(int op) {
  static const am_unary_check checks[] = {
#define CHECK_OF(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, CODE, MESSAGE) [ID] = {CODE, MESSAGE},
      AM_UNARY_OPS(CHECK_OF)
#undef CHECK_OF
  };
  return op >= 0 && op < AM_UNARY_COUNT && checks[op].message ? &checks[op] : NULL;
}

/* The binary ops' enum values are their positions in AM_BINARY_OPS. */
enum {
#define POSITION(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, C1, M1, C2, M2) \
  BINARY_POSITION_OF_##ID,
  AM_BINARY_OPS(POSITION)
#undef POSITION
};
#define CHECK_POSITION(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, C1, M1, C2, M2) \
  _Static_assert((int)ID == (int)BINARY_POSITION_OF_##ID,                          \
                 #ID " is not its position in AM_BINARY_OPS");
AM_BINARY_OPS(CHECK_POSITION)
#undef CHECK_POSITION

const am_binary_check *am_binary_check_of(int op) {
  static const am_binary_check checks[] = {
#define CHECK_OF(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, C1, M1, C2, M2) \
  [ID] = {{{C1, M1}, {C2, M2}}},
      AM_BINARY_OPS(CHECK_OF)
#undef CHECK_OF
  };
  return op >= 0 && op < AM_BINARY_COUNT && checks[op].failure[0].message ? &checks[op] : NULL;
}

int am_binary_computes(int op, am_type t) {
  const am_op_desc *desc = am_op_find(AM_FAMILY_BINARY, op);
  int kind = am_type_kind_of(t);
  if (!desc || kind < 0 || !(desc->kinds & (1 << kind))) return 0;
  return desc->type_rule != AM_RULE_MATH || kind == AM_KIND_FLOAT;
}

const char *am_binary_op_name(int op) {
  const am_op_desc *desc = am_op_find(AM_FAMILY_BINARY, op);
  return desc ? desc->name : NULL;
}

int am_unary_computes(int op, am_type t) {
  const am_op_desc *desc = am_op_find(AM_FAMILY_UNARY, op);
  int kind = am_type_kind_of(t);
  if (!desc || kind < 0 || !(desc->kinds & (1 << kind))) return 0;
  return desc->type_rule != AM_RULE_MATH || kind == AM_KIND_FLOAT;
}

const char *am_unary_op_name(int op) {
  static const char *const names[] = {
#define NAME_OF(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, CODE, MESSAGE) [ID] = NAME,
      AM_UNARY_OPS(NAME_OF)
#undef NAME_OF
  };
  return op >= 0 && op < AM_UNARY_COUNT ? names[op] : NULL;
}
