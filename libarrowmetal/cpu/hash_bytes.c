/* Grouping string and binary rows by their bytes, for group-by keys and
 * values (count_distinct, distinct), join keys and the hash-based functions
 * (unique, value_counts, ...: abi/string_hash.c): am_cpu_hash_group and
 * am_cpu_hash_join_ids send such arrays here, and am_cpu_hash_lookup its
 * is_in / index_in (a table of the value set probed by every row). Groups come out in
 * first-occurrence order as hash.c's do; nulls are one group of their own
 * (or none, masked).
 *
 * A grouping first hashes every row's bytes to 64 bits and groups those
 * words with hash.c's table (parallel, prefetching: the numbers' fast
 * path), then checks each row's bytes against its group's first row. Why:
 * a table of the values themselves reads each row's entry and then the
 * first occurrence's bytes, two cache misses a row once the distinct values
 * outgrow the cache (1M rows of 100,000 distinct keys: 295 ms by core's
 * slot table against pyarrow's 160). Two different values of one hash fail
 * the check; the grouping is then redone exactly on core's slot table
 * (core/slot_table.h, the one dictionary is_in and unification use), which
 * the one-key join's probe uses as well. */
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/memstats.h"
#include "core/slot_table.h"
#include "core/string_array.h"
#include "cpu.h"
#include "pool.h"

/* A host int64 array of v[0, n). */
static int int64_array(am_err *err, const int64_t *v, int64_t n, am_array **out) {
  int status = am_array_alloc_host(err, am_cpu_device(), AM_INT64, n, 0, out);
  if (status != AM_OK) return status;
  if (n) memcpy((void *)(*out)->data, v, (size_t)n * sizeof *v);
  am_cpu_set_validity(*out, NULL, n);
  return AM_OK;
}

/* Groups of a binary array: the table of its valid values (ids in
 * first-occurrence order) and, per row, its group. */
typedef struct byte_groups {
  am_slot_table table;
  int64_t *first, *counts; /* per group */
  int64_t *group_of_id;    /* per table id: its group (the null group shifts them) */
  int64_t groups, null_group;
} byte_groups;

static void byte_groups_free(byte_groups *g) {
  am_slot_table_free(&g->table);
  am_scratch_free(g->first);
  am_scratch_free(g->counts);
  am_scratch_free(g->group_of_id);
}

/* Groups the rows of `a`; ids (when not NULL) gets each row's group, and
 * with mask_nulls a null row gets none (id_valid's bit cleared). */
static int group_bytes(am_err *err, const am_array *a, int mask_nulls, int32_t *ids,
                       uint8_t *id_valid, byte_groups *g) {
  const int64_t n = a->length, cap = (n ? n : 1) * (int64_t)sizeof(int64_t);
  memset(g, 0, sizeof *g);
  g->null_group = -1;
  g->first = am_scratch_alloc(cap);
  g->counts = am_scratch_alloc(cap);
  g->group_of_id = am_scratch_alloc(cap);
  if (!g->first || !g->counts || !g->group_of_id)
    return am_fail(err, AM_ENOMEM, "out of memory for a hash table");
  int status = am_slot_table_init(err, &g->table, 1024);
  const int nullable = am_cpu_has_nulls(a);
  for (int64_t i = 0; status == AM_OK && i < n; i++) {
    int64_t group;
    if (nullable && !am_string_is_valid(a, i)) {
      if (mask_nulls) {
        id_valid[i >> 3] &= (uint8_t)~(1u << (i & 7));
        ids[i] = 0;
        continue;
      }
      if (g->null_group < 0) {
        g->null_group = g->groups++;
        g->first[g->null_group] = i;
        g->counts[g->null_group] = 0;
      }
      group = g->null_group;
    } else {
      const int64_t before = g->table.count;
      int64_t id;
      if ((status = am_slot_table_add(err, &g->table, a, i, &id)) != AM_OK) break;
      if (g->table.count > before) {
        g->group_of_id[id] = g->groups;
        g->first[g->groups] = i;
        g->counts[g->groups++] = 0;
      }
      group = g->group_of_id[id];
    }
    if (g->groups > INT32_MAX) {
      status = am_fail(err, AM_EINVAL, "more than 2^31 - 1 distinct values");
      break;
    }
    g->counts[group]++;
    if (ids) ids[i] = (int32_t)group;
  }
  return status;
}

static inline uint64_t load64(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

/* Bytes p[0, n) for n <= 7 as one word that tells any two such runs of one
 * length apart: two 4-byte loads that overlap (4 to 7 bytes), or the first,
 * middle and last byte (1 to 3). No byte past p + n is read. */
static inline uint64_t short_word(const uint8_t *p, int64_t n) {
  if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + n - 4, 4);
    return lo | (uint64_t)hi << 32;
  }
  return n ? p[0] | (uint64_t)p[n >> 1] << 8 | (uint64_t)p[n - 1] << 16 : 0;
}

/* A row's 64 bits: 8-byte words folded by multiply-xorshift, the last
 * (partial) one read as the 8 bytes that end the value, the length mixed in
 * first (so "" and "\0" differ). */
static inline uint64_t hash_value(const uint8_t *p, int64_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
  if (n < 8) {
    h = (h ^ short_word(p, n)) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
  }
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    h = (h ^ load64(p + i)) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  h = (h ^ (i < n ? load64(p + n - 8) : 0)) * 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 29);
}

/* Whether p[0, n) and q[0, n) are the same bytes (short values without a
 * call). */
static inline int same_run(const uint8_t *p, const uint8_t *q, int64_t n) {
  if (n < 8) return short_word(p, n) == short_word(q, n);
  if (load64(p) != load64(q) || load64(p + n - 8) != load64(q + n - 8)) return 0;
  return n <= 16 || memcmp(p + 8, q + 8, (size_t)(n - 16)) == 0;
}

/* Rows [begin, end) of a string array, each as `body` sees p (its bytes) and
 * n (their count), in a loop of its own for each layout: the offsets' width
 * or the fixed width read once, not per row; views slot by slot. */
#define FOR_EACH_VALUE(a, begin, end, i, p, n, body)                      \
  do {                                                                    \
    if (am_type_is_view((a)->type)) {                                     \
      for (int64_t i = (begin); i < (end); i++) {                         \
        int64_t n;                                                        \
        const uint8_t *p = am_view_value((a), i, &n);                     \
        body;                                                             \
      }                                                                   \
    } else if ((a)->type == AM_FIXED_SIZE_BINARY) {                       \
      const int64_t n = (a)->byte_width;                                  \
      const uint8_t *base = (const uint8_t *)(a)->data + (a)->offset * n; \
      for (int64_t i = (begin); i < (end); i++) {                         \
        const uint8_t *p = base + i * n;                                  \
        body;                                                             \
      }                                                                   \
    } else if (am_type_is_large_binary((a)->type)) {                      \
      const int64_t *off = (const int64_t *)(a)->data + (a)->offset;      \
      for (int64_t i = (begin); i < (end); i++) {                         \
        const uint8_t *p = (a)->bytes + off[i];                           \
        const int64_t n = off[i + 1] - off[i];                            \
        body;                                                             \
      }                                                                   \
    } else {                                                              \
      const int32_t *off = (const int32_t *)(a)->data + (a)->offset;      \
      for (int64_t i = (begin); i < (end); i++) {                         \
        const uint8_t *p = (a)->bytes + off[i];                           \
        const int64_t n = (int64_t)off[i + 1] - off[i];                   \
        body;                                                             \
      }                                                                   \
    }                                                                     \
  } while (0)

static int group_exactly(am_err *err, const am_array *array, int flags, am_hash_groups *out);

typedef struct hash_job {
  const am_array *a;
  uint64_t *hashes;
  uint64_t *valid;   /* the hashes' bitmap (offset 0), NULL: no nulls */
  const int32_t *id; /* the check: each row's group and the groups' first rows */
  const int64_t *first;
  const uint8_t *id_valid;
  int parts;
  int *mismatch; /* per part */
} hash_job;

/* Hashes a part's rows (whole 64-row words, so each part owns its bitmap
 * words). */
static void hash_part(void *ctx, int part) {
  hash_job *j = ctx;
  int64_t begin, end;
  am_pool_range(j->a->length, j->parts, part, &begin, &end);
  uint64_t *hashes = j->hashes;
  FOR_EACH_VALUE(j->a, begin, end, i, p, n, hashes[i] = hash_value(p, n));
  if (j->valid)
    for (int64_t i = begin; i < end; i += 64)
      j->valid[i >> 6] =
          am_bits_load(j->a->validity, j->a->offset + i, end - i < 64 ? end - i : 64);
}

/* Whether every valid row of a part has its group's first row's bytes. */
static void check_part(void *ctx, int part) {
  hash_job *j = ctx;
  int64_t begin, end;
  am_pool_range(j->a->length, j->parts, part, &begin, &end);
  const uint8_t *valid = (const uint8_t *)j->valid;
  int same = 1;
  FOR_EACH_VALUE(j->a, begin, end, i, p, n, {
    const int64_t f = !valid || am_bit_get(valid, i) ? j->first[j->id[i]] : i;
    if (f != i) { /* a valid row after its group's first */
      int64_t m;
      const uint8_t *q = am_string_value(j->a, f, &m);
      same &= n == m && same_run(p, q, n);
    }
  });
  j->mismatch[part] = !same;
}

static void run_parts(hash_job *j, void (*fn)(void *, int)) {
  if (j->parts > 1)
    am_pool_run(j->parts, fn, j);
  else
    fn(j, 0);
}

/* The grouping by the rows' hashes; *exact is 0 when two values of one
 * hash met (the result is then not written). */
static int group_hashes(am_err *err, const am_array *a, int flags, am_hash_groups *out,
                        int *exact) {
  const int64_t n = a->length;
  const int nullable = am_cpu_has_nulls(a);
  am_array *hashes = NULL;
  am_hash_groups g = {.null_group = -1};
  hash_job j = {.a = a, .parts = am_pool_parts(n)};
  if (j.parts < 1) j.parts = 1;
  int status = am_array_alloc_host(err, am_cpu_device(), AM_UINT64, n, nullable, &hashes);
  if (status != AM_OK) return status;
  j.hashes = (uint64_t *)hashes->data;
  j.valid = nullable ? (uint64_t *)hashes->validity : NULL;
  run_parts(&j, hash_part);
  am_buffer *bitmap = hashes->validity_buf;
  hashes->validity_buf = NULL;
  hashes->validity = NULL;
  am_cpu_set_validity(hashes, bitmap, n - (nullable ? am_cpu_nulls(a) : 0));
  /* the check needs each row's group and the groups' first rows */
  if ((status = am_cpu_hash_group(err, hashes, flags | AM_HASH_IDS | AM_CPU_HASH_SPREAD, &g)) !=
      AM_OK)
    goto done;
  j.id = (const int32_t *)g.ids->data;
  j.first = (const int64_t *)g.first->data;
  if (!(j.mismatch = calloc((size_t)j.parts, sizeof *j.mismatch))) {
    status = am_fail(err, AM_ENOMEM, "out of memory");
    goto done;
  }
  run_parts(&j, check_part);
  *exact = 1;
  for (int p = 0; p < j.parts; p++) *exact &= !j.mismatch[p];
  if (*exact) {
    if (!(flags & AM_HASH_IDS)) { /* asked for first rows and counts only */
      am_array_free(g.ids);
      g.ids = NULL;
    }
    *out = g;
    g = (am_hash_groups){.null_group = -1};
  }
done:
  free(j.mismatch);
  am_hash_groups_free(&g);
  am_array_free(hashes);
  return status;
}

int am_cpu_hash_group_bytes(am_err *err, const am_array *array, int flags, am_hash_groups *out) {
  int exact = 0;
  int status = group_hashes(err, array, flags, out, &exact);
  if (status != AM_OK || exact) return status;
  return group_exactly(err, array, flags, out);
}

/* The grouping on core's slot table of the values' bytes. */
static int group_exactly(am_err *err, const am_array *array, int flags, am_hash_groups *out) {
  const int64_t n = array->length;
  const int mask_nulls = (flags & AM_HASH_MASK_NULLS) != 0;
  am_hash_groups result = {.null_group = -1};
  byte_groups g;
  int status = AM_OK;
  if (flags & AM_HASH_IDS) {
    status = am_array_alloc_host(err, am_cpu_device(), AM_INT32, n, mask_nulls, &result.ids);
    if (status != AM_OK) return status;
    if (mask_nulls) memset((void *)result.ids->validity, 0xff, (size_t)(n + 7) / 8);
  }
  int32_t *ids = result.ids ? (int32_t *)result.ids->data : NULL;
  uint8_t *id_valid = result.ids ? (uint8_t *)result.ids->validity : NULL;
  if ((status = group_bytes(err, array, mask_nulls, ids, id_valid, &g)) == AM_OK &&
      (status = int64_array(err, g.first, g.groups, &result.first)) == AM_OK &&
      (!(flags & AM_HASH_COUNTS) ||
       (status = int64_array(err, g.counts, g.groups, &result.counts)) == AM_OK)) {
    result.groups = g.groups;
    result.null_group = g.null_group;
    if (result.ids) {
      /* the bitmap of a masked grouping stays, with its count (hash.c's way) */
      am_buffer *bitmap = result.ids->validity_buf;
      result.ids->validity_buf = NULL;
      result.ids->validity = NULL;
      int64_t valid = n;
      if (mask_nulls && am_cpu_has_nulls(array)) valid = n - am_cpu_nulls(array);
      am_cpu_set_validity(result.ids, bitmap, valid);
    }
    *out = result;
  } else {
    am_hash_groups_free(&result);
  }
  byte_groups_free(&g);
  return status;
}

int am_cpu_hash_join_ids_bytes(am_err *err, const am_array *left, const am_array *right,
                               int32_t *ids, int64_t *groups) {
  const int64_t nl = left->length, nr = right->length;
  byte_groups g = {.null_group = -1};
  /* the right rows' groups (nulls masked), then the left rows probed */
  uint8_t *masked = am_scratch_alloc((nr + 7) / 8 + 1);
  int status = masked ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  if (status == AM_OK) {
    memset(masked, 0xff, (size_t)(nr + 7) / 8 + 1);
    status = group_bytes(err, right, 1, ids + nl, masked, &g);
  }
  if (status == AM_OK && g.groups > INT32_MAX - 2)
    status = am_fail(err, AM_EINVAL, "more than 2^31 - 3 distinct keys");
  if (status == AM_OK) {
    const int32_t none = (int32_t)g.groups, null_key = (int32_t)g.groups + 1;
    for (int64_t r = 0; r < nr; r++)
      if (!am_bit_get(masked, r)) ids[nl + r] = null_key;
    const int nullable = am_cpu_has_nulls(left);
    for (int64_t i = 0; i < nl; i++) {
      int64_t id = -1;
      if (!nullable || am_string_is_valid(left, i)) id = am_slot_table_find(&g.table, left, i);
      ids[i] = id < 0 ? none : (int32_t)g.group_of_id[id];
    }
    *groups = g.groups;
  }
  am_scratch_free(masked);
  byte_groups_free(&g);
  return status;
}

/* ---- is_in / index_in: an open-addressing table of the value set's
 * distinct values (each slot a hash and the row of the value's first
 * occurrence, compared by its bytes), probed by the rows over the pool. The
 * set is mostly small next to the rows, so only the probe is parallel. */
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
  return m == n && same_run(p, q, n);
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
    const uint64_t h = hash_value(p, n);
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
    FOR_EACH_VALUE(v, b, e, i, p, n, {
      hashes[i - b] = hash_value(p, n);
      __builtin_prefetch(&t->slots[hashes[i - b] & t->mask]);
    });
    FOR_EACH_VALUE(v, b, e, i, p, n, {
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
