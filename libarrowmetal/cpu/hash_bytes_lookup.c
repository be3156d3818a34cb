/* is_in / index_in of string and binary arrays (am_cpu_hash_lookup sends
 * them here): an open-addressing table of the value set's distinct values
 * (each slot a hash and the row of the value's first occurrence, compared by
 * its bytes), probed by the rows over the pool. The set is mostly small next
 * to the rows, so only the probe is parallel. The two arrays may be of
 * different binary types: they are compared by their bytes. */
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "bytes_key.h"
#include "core/error.h"
#include "core/memstats.h"
#include "core/string_array.h"
#include "cpu.h"
#include "pool.h"

typedef struct set_slot {
  uint64_t hash;
  int64_t row; /* -1: empty */
} set_slot;

typedef struct set_table {
  set_slot *slots;
  uint64_t mask;
  const am_array *set;
} set_table;

static inline int same_bytes(const am_array *a, int64_t i, const uint8_t *p, int64_t n) {
  int64_t m;
  const uint8_t *q = am_string_value(a, i, &m);
  return m == n && am_same_run(p, q, n);
}

/* The slot holding bytes p[0, n) of hash h, or the empty one where they
 * would go (inlined: a call a row cost the probe a fifth of its time). */
static inline __attribute__((always_inline)) set_slot *set_probe(const set_table *t,
                                                                 const uint8_t *p, int64_t n,
                                                                 uint64_t h) {
  for (uint64_t at = h & t->mask;; at = (at + 1) & t->mask) {
    set_slot *s = &t->slots[at];
    if (s->row < 0 || (s->hash == h && same_bytes(t->set, s->row, p, n))) return s;
  }
}

static int set_table_build(am_err *err, const am_array *set, set_table *t) {
  int64_t capacity = 16;
  while (capacity < 2 * set->length) capacity *= 2;
  t->set = set;
  t->mask = (uint64_t)capacity - 1;
  t->slots = am_scratch_alloc(capacity * (int64_t)sizeof *t->slots);
  if (!t->slots) return am_fail(err, AM_ENOMEM, "out of memory for a hash table");
  for (int64_t i = 0; i < capacity; i++) t->slots[i].row = -1;
  const int nullable = am_cpu_has_nulls(set);
  for (int64_t i = 0; i < set->length; i++) {
    if (nullable && !am_string_is_valid(set, i)) continue;
    int64_t n;
    const uint8_t *p = am_string_value(set, i, &n);
    const uint64_t h = am_bytes_hash(p, n);
    set_slot *s = set_probe(t, p, n, h);
    if (s->row < 0) *s = (set_slot){.hash = h, .row = i}; /* the first occurrence stays */
  }
  return AM_OK;
}

typedef struct probe_job {
  const am_array *values;
  const set_table *t;
  int64_t null_at; /* where a null value is found, -1: nowhere */
  int parts, as_bool, nullable;
  void *out;
  uint8_t *valid;
  int64_t *found; /* per part */
} probe_job;

/* Rows a probe hashes at once: their slots are prefetched while the block's
 * hashes are made, and read when they are probed (a large set's table is
 * out of the cache). */
enum { PROBE_BLOCK = 64 };

static void probe_part(void *ctx, int part) {
  probe_job *j = ctx;
  const am_array *v = j->values;
  const set_table *t = j->t;
  int64_t begin, end, found = 0;
  am_pool_range(v->length, j->parts, part, &begin, &end);
  uint64_t hashes[PROBE_BLOCK];
  for (int64_t b = begin; b < end; b += PROBE_BLOCK) {
    const int64_t e = end - b < PROBE_BLOCK ? end : b + PROBE_BLOCK;
    AM_FOR_EACH_VALUE(v, b, e, i, p, n, {
      hashes[i - b] = am_bytes_hash(p, n);
      __builtin_prefetch(&t->slots[hashes[i - b] & t->mask]);
    });
    AM_FOR_EACH_VALUE(v, b, e, i, p, n, {
      const int64_t at = j->nullable && !am_string_is_valid(v, i)
                             ? j->null_at
                             : set_probe(t, p, n, hashes[i - b])->row;
      /* Parts start on 64 slots: each writes whole words and bytes of its own. */
      if (j->as_bool) {
        if (at >= 0) ((uint64_t *)j->out)[i >> 6] |= (uint64_t)1 << (i & 63);
      } else {
        ((int32_t *)j->out)[i] = at >= 0 ? (int32_t)at : 0;
        if (at >= 0) {
          j->valid[i >> 3] |= (uint8_t)(1u << (i & 7));
          found++;
        }
      }
    });
  }
  j->found[part] = found;
}

int am_cpu_hash_lookup_bytes(am_err *err, const am_array *values, const am_array *value_set,
                             int skip_nulls, int as_bool, am_array **out) {
  const int64_t n = values->length;
  set_table t = {0};
  am_array *result = NULL;
  probe_job j = {.values = values, .t = &t, .null_at = -1, .as_bool = as_bool};
  int status = set_table_build(err, value_set, &t);
  if (status == AM_OK)
    status = am_array_alloc_host(err, am_cpu_device(), as_bool ? AM_BOOL : AM_INT32, n, !as_bool,
                                 &result);
  if (status != AM_OK) goto done;
  /* A null value finds the set's first null unless skip_nulls. */
  for (int64_t i = 0; !skip_nulls && am_cpu_has_nulls(value_set) && i < value_set->length; i++)
    if (!am_string_is_valid(value_set, i)) {
      j.null_at = i;
      break;
    }
  j.nullable = am_cpu_has_nulls(values);
  j.parts = am_pool_parts(n);
  if (j.parts < 1) j.parts = 1;
  j.out = (void *)result->data;
  j.valid = (uint8_t *)result->validity;
  if (!(j.found = calloc((size_t)j.parts, sizeof *j.found))) {
    status = am_fail(err, AM_ENOMEM, "out of memory");
    goto done;
  }
  /* is_in is never null: a value is in the set or it is not. */
  if (as_bool)
    memset((void *)result->data, 0, (size_t)(n + 63) / 64 * 8);
  else
    memset(j.valid, 0, (size_t)(n + 7) / 8);
  if (j.parts > 1)
    am_pool_run(j.parts, probe_part, &j);
  else
    probe_part(&j, 0);
  if (!as_bool) {
    int64_t total = 0;
    for (int p = 0; p < j.parts; p++) total += j.found[p];
    am_buffer *bitmap = result->validity_buf;
    result->validity_buf = NULL;
    result->validity = NULL;
    am_cpu_set_validity(result, bitmap, total);
  }
  *out = result;
  result = NULL;
done:
  free(j.found);
  am_scratch_free(t.slots);
  am_array_free(result);
  return status;
}
