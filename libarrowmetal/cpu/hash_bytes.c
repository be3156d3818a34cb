/* Grouping string and binary rows by their bytes, for group-by keys and
 * values (count_distinct, distinct) and join keys: am_cpu_hash_group and
 * am_cpu_hash_join_ids send such arrays here. Groups come out in
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

/* A row's 64 bits: 8-byte words folded by multiply-xorshift, the length
 * mixed in first (so "" and "\0" differ). */
static inline uint64_t hash_value(const uint8_t *p, int64_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  for (int64_t k = 0; i + k < n; k++) w |= (uint64_t)p[i + k] << (8 * k);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 29);
}

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
  for (int64_t i = begin; i < end; i++) {
    int64_t size;
    const uint8_t *p = am_string_value(j->a, i, &size);
    j->hashes[i] = hash_value(p, size);
  }
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
  for (int64_t i = begin; i < end; i++) {
    if (j->valid && !am_bit_get((const uint8_t *)j->valid, i)) continue;
    const int64_t f = j->first[j->id[i]];
    if (f == i) continue;
    int64_t n, m;
    const uint8_t *p = am_string_value(j->a, i, &n), *q = am_string_value(j->a, f, &m);
    if (n != m || (n && memcmp(p, q, (size_t)n) != 0)) {
      j->mismatch[part] = 1;
      return;
    }
  }
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
  if ((status = am_cpu_hash_group(err, hashes, flags | AM_HASH_IDS, &g)) != AM_OK) goto done;
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
