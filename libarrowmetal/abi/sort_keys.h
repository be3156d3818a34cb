/* The argument checks sorting (sort.c) and selection and ranking (rank.c)
 * share: null placements, the sort keys themselves, and the per-key flags
 * the backends' kernels take. One copy, so the two families refuse the
 * same input with the same words. */
#ifndef AM_ABI_SORT_KEYS_H
#define AM_ABI_SORT_KEYS_H

#include "abi.h"

/* AM_EINVAL naming `what` unless `placement` is AM_NULLS_AT_END or
 * AM_NULLS_AT_START. */
int am_check_null_placement(am_err *err, const char *what, int placement);

/* am_check_null_placement of each of the n_keys placements (named
 * "null_placement[i]"); NULL (every key at the end) passes. */
int am_check_null_placements(am_err *err, const int *null_placement, int64_t n_keys);

/* Settles and checks the keys: non-NULL, one length, a type with kernels.
 * `who`, when not NULL, names the call in the message of a type without a
 * kernel ("key 1: sort_indices has no kernel for its type (...)").
 * `strings`: string and binary keys pass (the call's kernels sort them);
 * else they are refused (AM_ETYPE, am_settle's words). */
int am_check_sort_keys(am_err *err, const am_array *const *keys, int64_t n_keys, const char *who,
                       int strings);

/* The backends' flags of n_keys keys in one allocation (free() it):
 * [0, n_keys) descending (`descending` NULL: every key ascending), then
 * [n_keys, 2 n_keys) nulls first. NULL when out of memory. */
int *am_sort_key_flags(int64_t n_keys, const int *descending, const int *null_placement);

#endif
