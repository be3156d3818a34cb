/* What ops_groupby.c shares with ops_join.c: the device grouping of key
 * columns. Private to gpu/. */
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

#endif
