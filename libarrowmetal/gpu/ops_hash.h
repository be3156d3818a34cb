/* What ops_hash.c shares with ops_groupby.c: the grouping that follows a
 * table's build, for the hash table and GROUP_DENSE's. Private to gpu/. */
#ifndef AM_GPU_OPS_HASH_H
#define AM_GPU_OPS_HASH_H

#include "core/hash.h"
#include "gpu/runtime.h"

/* A built table (kernels.h, the hash-based functions): u32 words, cap
 * probed slots, first rows from first_word. Dense: GROUP_DENSE's, where a
 * key's slot is key - lo (its 64-bit form) and no keys are stored. */
typedef struct am_gpu_hash_table {
  am_array *words;
  int64_t cap, first_word;
  uint64_t lo;
  int dense;
} am_gpu_hash_table;

/* The groups of `keys` (the column the table was built from) in the order
 * of their first rows, with what `flags` (core/hash.h) asks for. The table
 * is changed (its first-row words become group ids) and stays the
 * caller's. */
int am_gpu_hash_groups_of(am_err *err, const am_array *keys, const am_gpu_hash_table *table,
                          int flags, am_hash_groups *out);

#endif
