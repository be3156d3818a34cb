/* The hash-based functions' kernel contract (unique, value_counts,
 * count_distinct, dictionary_encode, mode; is_in and index_in).
 *
 * Every one of them is a grouping of the rows by value, in the order of
 * each value's first occurrence (pyarrow's order), or a lookup of rows in
 * such a grouping of a value set. Values are equal when their bits are: a
 * float's 0.0 and -0.0 are two values and NaNs with different bits are too,
 * as pyarrow's memo tables (which hash the bits) keep them. */
#ifndef AM_CORE_HASH_H
#define AM_CORE_HASH_H

#include <stdint.h>

#include "array.h"

enum {
  AM_HASH_COUNTS = 1,    /* fill `counts` */
  AM_HASH_IDS = 2,       /* fill `ids` */
  AM_HASH_MASK_NULLS = 4 /* nulls form no group; their ids are null */
};

/* A grouping's result, on the array's device. Each array is owned by the
 * struct once written (am_hash_groups_free releases them, each once). */
typedef struct am_hash_groups {
  int64_t groups;     /* distinct values, the null group included */
  int64_t null_group; /* the null group's id, -1 when there is none */
  am_array *first;    /* int64, per group: the row of its first occurrence */
  am_array *counts;   /* int64, per group: its rows (AM_HASH_COUNTS) */
  am_array *ids;      /* int32, per row: its group (AM_HASH_IDS); null for
                         null rows under AM_HASH_MASK_NULLS */
} am_hash_groups;

void am_hash_groups_free(am_hash_groups *groups);

#endif
