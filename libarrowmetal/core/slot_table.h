/* A host hash table of array slots by their bytes (a bool by its bit), for
 * work over dictionaries of any value type, strings included: the
 * unification of dictionaries and the lookup of a string dictionary in a
 * value set. Values are equal when their bytes are, as in pyarrow's memo
 * tables (a float's 0.0 and -0.0 are two values). Null slots are never
 * added or looked up: callers handle nulls themselves. The arrays whose
 * slots are added must outlive the table (it keeps pointers to their
 * bytes). */
#ifndef AM_CORE_SLOT_TABLE_H
#define AM_CORE_SLOT_TABLE_H

#include <stdint.h>

#include "array.h"

typedef struct am_slot_entry {
  const uint8_t *bytes;
  int64_t size;
  uint64_t hash;
  int64_t id; /* -1: empty */
} am_slot_entry;

typedef struct am_slot_table {
  am_slot_entry *entries;
  int64_t capacity; /* a power of two, at least twice count */
  int64_t count;
} am_slot_table;

/* Slot `row`'s bytes as the table compares them (a bool's bit as one
 * byte 0 or 1), and their count. */
const uint8_t *am_slot_value(const am_array *a, int64_t row, int64_t *size);

/* A table for about `expected` values; AM_ENOMEM when it cannot be had. */
int am_slot_table_init(am_err *err, am_slot_table *table, int64_t expected);
void am_slot_table_free(am_slot_table *table);

/* The id of the value in slot `row` of host array `a` (a valid slot), or -1
 * when the table does not hold it. */
int64_t am_slot_table_find(const am_slot_table *table, const am_array *a, int64_t row);

/* The id of the value in slot `row` of `a`, added with id `count` (the
 * number of values before it) when new; AM_ENOMEM when the table cannot
 * grow. */
int am_slot_table_add(am_err *err, am_slot_table *table, const am_array *a, int64_t row,
                      int64_t *id);

#endif
