/* Decimal and dictionary keys on the kernels of other types (key_view.c).
 * No kernel orders or groups decimals or dictionary arrays; sorting,
 * ranking, group-by and joins give their kernels a view instead:
 *
 * - a decimal's order bytes (a fixed_size_binary of its width: each value
 *   big-endian with the sign bit flipped, so that bytes compared unsigned
 *   order the values numerically), which the string sorter takes in its
 *   LSD loop over the keys and the group-by's min and max compare;
 * - the dense ranks of values in pyarrow's sort order (equal values one
 *   rank), an integer key that sorts, ranks and selects as the values do;
 * - a decimal's bytes as they are (am_decimal_bytes_view), which group and
 *   join by value: values of one type, precision and scale are equal
 *   exactly when their bytes are;
 * - a dictionary array's indices, by which pyarrow 26 groups (two indices of
 *   equal values are two groups), or its values decoded, by which it joins. */
#ifndef AM_ABI_KEY_VIEW_H
#define AM_ABI_KEY_VIEW_H

#include "abi.h"

/* A host fixed_size_binary array of decimal `array`'s order bytes, null
 * where the value is (host arrays only, as every decimal is). */
int am_decimal_order_bytes(am_err *err, const am_array *array, am_array **out);
/* The inverse: a host decimal array of `type`, `precision` and `scale` from
 * a fixed_size_binary array of order bytes of that type's width. */
int am_decimal_from_order_bytes(am_err *err, const am_array *bytes, am_type type, int32_t precision,
                                int32_t scale, am_array **out);

/* The dense rank (0, 1, ...) of each slot of `values` among its values in
 * pyarrow's ascending order, equal values one rank (-0.0 and 0.0 are
 * equal; every NaN is one value, after the numbers), as a host array of
 * `type` (AM_INT32 or AM_INT64), null where the value is. Any type the
 * sort takes, decimals too. */
int am_value_ranks(am_err *err, const am_array *values, am_type type, am_array **out);

/* A list of keys with each decimal or dictionary key replaced by a view:
 * `arrays` is the list to use (the caller's own when nothing was replaced). */
typedef struct am_key_list {
  const am_array *const *arrays;
  am_array **views;
  int64_t count;
} am_key_list;
void am_key_list_free(am_key_list *list);

/* sort_indices' keys: a decimal as its order bytes; a dictionary array as
 * the ranks of its values (am_value_ranks read at each row's index; null
 * where the index or its value is), pyarrow 26's order for a dictionary
 * array: its values ranked, nulls and NaN included, then the ranks sorted
 * in the key's direction -- so NaN comes first in a descending sort, unlike
 * a float array's. A dictionary among several keys is AM_ETYPE in
 * pyarrow's words ("Unsupported type for RecordBatch sorting: ..."). */
int am_sort_key_list(am_err *err, const am_array *const *keys, int64_t count, am_key_list *list);

/* The keys of select_k_unstable, rank, rank_quantile, rank_normal and
 * partition_nth_indices (`function` names the call, as pyarrow does): a
 * decimal as the ranks of its values; a dictionary array is AM_ETYPE in
 * pyarrow's words (pyarrow 26 has none of these calls for them). */
int am_rank_key_list(am_err *err, const am_array *const *keys, int64_t count, const char *function,
                     am_key_list *list);

/* join's keys, pair by pair (pyarrow 26's Table.join): a dictionary array
 * joins by its values, decoded, and meets a dictionary array or a plain
 * array of its value type; a decimal joins by its bytes and meets a decimal
 * of its type, precision and scale. Other pairs that differ are AM_ETYPE in
 * pyarrow's words ("Incompatible data types for corresponding join field
 * keys: decimal128(5, 2) and decimal128(5, 1)"); pairs of neither kind are
 * left as they are. */
int am_join_key_lists(am_err *err, const am_array *const *left, const am_array *const *right,
                      int64_t n_keys, am_key_list *left_list, am_key_list *right_list);

#endif
