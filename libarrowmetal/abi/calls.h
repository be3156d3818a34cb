/* The work of entry points, for entry points that compose them: the same
 * checks and dispatch as the exported call (strings, temporal views,
 * routing), reporting into the caller's `err`. Dictionary arrays run the
 * ordinary calls on their indices and dictionaries through these. */
#ifndef AM_ABI_CALLS_H
#define AM_ABI_CALLS_H

#include "abi.h"

int am_call_take(am_err *err, const am_array *array, const am_array *indices, am_array **out);
int am_call_filter(am_err *err, const am_array *array, const am_array *mask,
                   am_null_selection nulls, am_array **out);
int am_call_drop_null(am_err *err, const am_array *array, am_array **out);
int am_call_is(am_err *err, am_predicate op, int flags, const am_array *array, am_array **out);
/* exactly one of right / scalar */
int am_call_compare(am_err *err, am_compare_op op, const am_array *left, const am_array *right,
                    const am_scalar *scalar, am_array **out);
int am_call_cast(am_err *err, const am_array *array, am_type to, int flags, am_array **out);
int am_call_set_lookup(am_err *err, const am_array *values, const am_array *value_set,
                       int skip_nulls, int as_bool, am_array **out);
int am_call_unique(am_err *err, const am_array *array, am_array **out);
int am_call_value_counts(am_err *err, const am_array *array, am_array **values, am_array **counts);
/* am_sort_indices (descending, null_placement: NULL or one a key) */
int am_call_sort_indices(am_err *err, const am_array *const *keys, int64_t n_keys,
                         const int *descending, const int *null_placement, am_array **out);
int am_call_concat(am_err *err, const am_array *const *arrays, int64_t count, am_device *device,
                   am_array **out);

#endif
