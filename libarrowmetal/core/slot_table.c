#include "slot_table.h"

#include <stdlib.h>
#include <string.h>

#include "string_array.h"
#include "types.h"

static const uint8_t bit_values[2] = {0, 1};

const uint8_t *am_slot_value(const am_array *a, int64_t row, int64_t *size) {
  if (am_type_is_binary(a->type)) return am_string_value(a, row, size);
  int64_t at = a->offset + row;
  if (a->type == AM_BOOL) {
    *size = 1;
    return &bit_values[(((const uint8_t *)a->data)[at >> 3] >> (at & 7)) & 1];
  }
  int64_t width = am_type_bits(a->type) / 8;
  *size = width;
  return (const uint8_t *)a->data + at * width;
}

/* FNV-1a, then a final mix so that the low bits (the bucket) depend on
 * every byte. */
static uint64_t hash_bytes(const uint8_t *p, int64_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int64_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

static int64_t capacity_for(int64_t expected) {
  int64_t capacity = 16;
  while (capacity < 2 * expected) capacity *= 2;
  return capacity;
}

static am_slot_entry *alloc_entries(int64_t capacity) {
  am_slot_entry *entries = malloc((size_t)capacity * sizeof *entries);
  for (int64_t i = 0; entries && i < capacity; i++) entries[i].id = -1;
  return entries;
}

int am_slot_table_init(am_err *err, am_slot_table *table, int64_t expected) {
  table->capacity = capacity_for(expected);
  table->count = 0;
  table->entries = alloc_entries(table->capacity);
  return table->entries ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
}

void am_slot_table_free(am_slot_table *table) {
  free(table->entries);
  table->entries = NULL;
}

/* The entry holding these bytes, or the empty one where they would go. */
static am_slot_entry *probe(const am_slot_table *table, const uint8_t *p, int64_t n, uint64_t h) {
  const uint64_t mask = (uint64_t)table->capacity - 1;
  for (uint64_t at = h & mask;; at = (at + 1) & mask) {
    am_slot_entry *e = &table->entries[at];
    if (e->id < 0) return e;
    if (e->hash == h && e->size == n && (n == 0 || memcmp(e->bytes, p, (size_t)n) == 0)) return e;
  }
}

int64_t am_slot_table_find(const am_slot_table *table, const am_array *a, int64_t row) {
  int64_t n = 0;
  const uint8_t *p = am_slot_value(a, row, &n);
  return probe(table, p, n, hash_bytes(p, n))->id;
}

static int grow(am_err *err, am_slot_table *table) {
  int64_t capacity = table->capacity * 2;
  am_slot_entry *entries = alloc_entries(capacity), *old = table->entries;
  if (!entries) return am_fail(err, AM_ENOMEM, "out of memory");
  int64_t old_capacity = table->capacity;
  table->entries = entries;
  table->capacity = capacity;
  for (int64_t i = 0; i < old_capacity; i++)
    if (old[i].id >= 0) *probe(table, old[i].bytes, old[i].size, old[i].hash) = old[i];
  free(old);
  return AM_OK;
}

int am_slot_table_add(am_err *err, am_slot_table *table, const am_array *a, int64_t row,
                      int64_t *id) {
  int64_t n = 0;
  const uint8_t *p = am_slot_value(a, row, &n);
  uint64_t h = hash_bytes(p, n);
  am_slot_entry *e = probe(table, p, n, h);
  if (e->id < 0) {
    if (2 * (table->count + 1) > table->capacity) {
      int status = grow(err, table);
      if (status != AM_OK) return status;
      e = probe(table, p, n, h);
    }
    *e = (am_slot_entry){.bytes = p, .size = n, .hash = h, .id = table->count++};
  }
  *id = e->id;
  return AM_OK;
}
