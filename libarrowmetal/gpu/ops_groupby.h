/* What ops_groupby.c shares with ops_join.c and ops_group_lists.c: the
 * device grouping of key columns, and counts by group. Private to gpu/. */
#ifndef AM_GPU_OPS_GROUPBY_H
#define AM_GPU_OPS_GROUPBY_H

#include "core/hash.h"
#include "gpu/runtime.h"

/* One integer key of at most this many distinct slots (max - min + 1) is
 * grouped by GROUP_DENSE (slot = key - min) rather than the hash table: a
 * table of 2 * (2^16 + 2) + 1 u32 words is 0.5 MB, zeroed in microseconds. */
#define AM_DENSE_RANGE ((uint64_t)1 << 16)

/* Whether the device can group `a`'s rows here; else AM_EUNSUPPORTED with
 * the reason (`what` names the call). */
int am_gpu_group_supported(am_err *err, const am_array *a, const char *what);

/* Groups the rows of n_keys (>= 1) device key columns of one length:
 * out->ids (int32 per row, no nulls: a null is a value of its own),
 * out->first (int64 per group, its first row), out->groups; groups in the
 * order of their first row (cpu/groupby.c's am_cpu_group_keys, on the GPU). */
int am_gpu_group_keys(am_err *err, const am_array *const *keys, int64_t n_keys,
                      am_hash_groups *out);

/* The rows of each of `groups` groups (int64 counts) from the group ids
 * (int32, one per row; ops_groupby.c). */
int am_gpu_group_counts(am_err *err, const am_array *ids, int64_t groups, am_array **out);

/* list, distinct or count_distinct (s->op) of `values` by the group ids
 * (int32 per row) into *result (ops_group_lists.c). */
int am_gpu_group_lists(am_err *err, const am_group_aggregate *s, const am_array *values,
                       const am_array *ids, int64_t groups, am_group_result *result);

#endif
