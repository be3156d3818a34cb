/* Decimal and dictionary columns of a group-by (group_views.c), on the
 * group-by kernels of other types, with pyarrow 26's semantics:
 *
 * - a decimal key groups by its bytes (a fixed_size_binary view: values of
 *   one type are equal exactly when their bytes are) and comes back a
 *   decimal of its type;
 * - a dictionary key groups by its indices, as pyarrow's grouper does (two
 *   indices of equal values are two groups, a null value's index is a group
 *   apart from the null index), and comes back a dictionary array of the
 *   groups' indices and the key's dictionary;
 * - decimal values: count, count_distinct, distinct and list by the bytes;
 *   min, max and min_max by the order bytes (key_view.h), converted back;
 *   sum (decimal of the width's most digits), mean and product (the value
 *   type) from each group's list, in pyarrow's arithmetic (wrapping at the
 *   width, half away from zero, a product rescaled at every step, a mean of
 *   no values "Division by 0 in Decimal"), and variance and stddev (float64:
 *   the mean from that sum as a double over the count, then each value's
 *   squared deviation as a double, in row order, as Arrow's hash_variance);
 *   first, last, any and all AM_ETYPE in pyarrow's words;
 * - dictionary values: count, count_distinct and distinct by index (a
 *   null value's index counts as a value, as in pyarrow), distinct's items
 *   a dictionary array; the others AM_ETYPE in pyarrow's words. */
#ifndef AM_ABI_GROUP_VIEWS_H
#define AM_ABI_GROUP_VIEWS_H

#include "abi.h"

/* One group-by's inputs as its kernels take them. `keys`, `values`,
 * `n_values` and `aggregates` are what to run (the caller's own when no
 * column is a decimal or a dictionary array). */
typedef struct am_group_views {
  const am_array *const *keys;
  const am_array *const *values;
  int64_t n_values;
  const am_group_aggregate *aggregates;
  /* the caller's */
  const am_array *const *given_keys;
  const am_array *const *given_values;
  const am_group_aggregate *given_aggregates;
  int64_t n_keys, n_aggregates;
  /* owned while active */
  const am_array **key_list, **value_list;
  am_group_aggregate *aggregate_list;
  unsigned char *after; /* per aggregate: what its result needs */
  am_array **owned;
  int64_t n_owned;
} am_group_views;

/* Fills *v for a group-by of these arguments (which the group-by checks
 * afterwards: anything malformed is passed on as it is). AM_ETYPE for an
 * aggregate pyarrow has no kernel for over a decimal or dictionary column. */
int am_group_views_begin(am_err *err, const am_array *const *keys, int64_t n_keys,
                         const am_array *const *values, int64_t n_values,
                         const am_group_aggregate *aggregates, int64_t n_aggregates,
                         am_group_views *v);

/* Ends the group-by that returned `status` over *v's inputs: on success
 * types its results as the caller's columns (decimals, dictionaries) and
 * computes the decimal sums, means and products; frees the views. On a
 * failure (the group-by's or its own) nothing stays in keys_out and
 * results. Returns the status. */
int am_group_views_end(am_err *err, int status, am_group_views *v, am_array **keys_out,
                       am_group_result *results);

/* pyarrow's hash kernel behind aggregate `op`, as its errors name it
 * ("hash_min_max", ...). */
const char *am_group_kernel_name(int op);

#endif
