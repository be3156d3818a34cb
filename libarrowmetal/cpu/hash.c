/* The hash-based functions on the CPU (core/hash.h): one open-addressing
 * table of value bits (linear probing, a 64-bit finalizer mix), walked in
 * row order so that group ids come out in pyarrow's first-occurrence order
 * without a sort. The table grows as distinct values appear (load <= 1/2),
 * so its memory follows the distinct count, not the length. Booleans and
 * 8-bit values index a direct table of 2 or 256 groups instead.
 *
 * Values are keys by their bits (a float's 0.0 and -0.0 differ, NaNs differ
 * by payload), which is the equality pyarrow's memo tables give. */
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/types.h"
#include "cpu.h"

/* murmur3's 64-bit finalizer: every input bit reaches every output bit, so
 * the low bits that index the table see the whole key. */
static inline uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

/* Slot i's value as key bits (zero-extended). */
static inline uint64_t key_at(const am_array *a, int width, int64_t i) {
  int64_t j = a->offset + i;
  switch (width) {
    case 0:
      return (uint64_t)am_bit_get(a->data, j);
    case 1:
      return ((const uint8_t *)a->data)[j];
    case 2:
      return ((const uint16_t *)a->data)[j];
    case 4:
      return ((const uint32_t *)a->data)[j];
    default:
      return ((const uint64_t *)a->data)[j];
  }
}

static int width_of(am_type t) { return t == AM_BOOL ? 0 : am_type_bits(t) / 8; }

static inline int valid_at(const am_array *a, int64_t i) {
  return !a->validity || am_bit_get(a->validity, a->offset + i);
}

/* Records the null count of a result allocated with a bitmap, dropping the
 * bitmap when nothing is null. */
static void set_validity(am_array *array, int64_t valid) {
  am_buffer *bitmap = array->validity_buf;
  array->validity_buf = NULL;
  array->validity = NULL;
  am_cpu_set_validity(array, bitmap, valid);
}

/* ---- The table: keys and their group ids; -1 marks an empty slot. */
typedef struct table {
  uint64_t *keys;
  int32_t *group;
  uint64_t mask; /* capacity - 1 */
  int64_t used;
  int direct; /* keys index `group` directly (booleans, 8-bit values) */
} table;

static int table_init(table *t, int width) {
  memset(t, 0, sizeof *t);
  t->direct = width <= 1;
  uint64_t cap = t->direct ? (width == 0 ? 2 : 256) : 1024;
  t->group = malloc(cap * sizeof *t->group);
  t->keys = t->direct ? NULL : malloc(cap * sizeof *t->keys);
  if (!t->group || (!t->direct && !t->keys)) return AM_ENOMEM;
  memset(t->group, 0xff, cap * sizeof *t->group);
  t->mask = cap - 1;
  return AM_OK;
}

static void table_free(table *t) {
  free(t->keys);
  free(t->group);
}

static int table_grow(table *t) {
  uint64_t cap = (t->mask + 1) * 2;
  uint64_t *keys = malloc(cap * sizeof *keys);
  int32_t *group = malloc(cap * sizeof *group);
  if (!keys || !group) {
    free(keys);
    free(group);
    return AM_ENOMEM;
  }
  memset(group, 0xff, cap * sizeof *group);
  for (uint64_t s = 0; s <= t->mask; s++) {
    if (t->group[s] < 0) continue;
    uint64_t h = mix(t->keys[s]) & (cap - 1);
    while (group[h] >= 0) h = (h + 1) & (cap - 1);
    keys[h] = t->keys[s];
    group[h] = t->group[s];
  }
  free(t->keys);
  free(t->group);
  t->keys = keys;
  t->group = group;
  t->mask = cap - 1;
  return AM_OK;
}

/* The slot of `key`: its group there, or an empty slot (group -1). */
static inline uint64_t table_slot(const table *t, uint64_t key) {
  if (t->direct) return key;
  uint64_t h = mix(key) & t->mask;
  while (t->group[h] >= 0 && t->keys[h] != key) h = (h + 1) & t->mask;
  return h;
}

/* ---- Growing int64 vectors of the groups' first rows and counts. */
typedef struct vec {
  int64_t *v;
  int64_t n, cap;
} vec;

static int vec_push(vec *x, int64_t value) {
  if (x->n == x->cap) {
    int64_t cap = x->cap ? x->cap * 2 : 256;
    int64_t *v = realloc(x->v, (size_t)cap * sizeof *v);
    if (!v) return AM_ENOMEM;
    x->v = v;
    x->cap = cap;
  }
  x->v[x->n++] = value;
  return AM_OK;
}

/* A host int64 array holding `x`'s values. */
static int int64_array(am_err *err, const vec *x, am_array **out) {
  int status = am_array_alloc_host(err, am_cpu_device(), AM_INT64, x->n, 0, out);
  if (status == AM_OK && x->n) memcpy((void *)(*out)->data, x->v, (size_t)x->n * 8);
  return status;
}

/* Groups the rows of `array` (core/hash.h). With `lookup`, also builds the
 * table the caller then probes; it is freed otherwise. */
static int group_rows(am_err *err, const am_array *array, int flags, am_hash_groups *out,
                      table *lookup) {
  const int width = width_of(array->type);
  const int64_t n = array->length;
  const int mask_nulls = (flags & AM_HASH_MASK_NULLS) != 0;
  const int with_counts = (flags & AM_HASH_COUNTS) != 0;
  am_array *ids = NULL;
  int32_t *id = NULL;
  uint8_t *id_valid = NULL;
  int status = AM_OK;
  if (flags & AM_HASH_IDS) {
    if ((status = am_array_alloc_host(err, am_cpu_device(), AM_INT32, n, mask_nulls, &ids)) !=
        AM_OK)
      return status;
    id = (int32_t *)ids->data;
    id_valid = (uint8_t *)ids->validity;
    if (id_valid) memset(id_valid, 0xff, (size_t)(n + 7) / 8);
  }
  table t;
  vec first = {0}, counts = {0};
  int64_t null_group = -1, masked = 0;
  if (table_init(&t, width) != AM_OK) {
    status = am_fail(err, AM_ENOMEM, "out of memory for a hash table");
    goto done;
  }
  const int nullable = am_cpu_has_nulls(array);
  for (int64_t i = 0; i < n; i++) {
    int64_t g;
    if (nullable && !valid_at(array, i)) {
      if (mask_nulls) {
        if (id) {
          id_valid[i >> 3] &= (uint8_t)~(1u << (i & 7));
          id[i] = 0;
        }
        masked++;
        continue;
      }
      if (null_group < 0) {
        null_group = first.n;
        if (vec_push(&first, i) != AM_OK || (with_counts && vec_push(&counts, 0) != AM_OK))
          goto nomem;
      }
      g = null_group;
    } else {
      uint64_t key = key_at(array, width, i);
      uint64_t s = table_slot(&t, key);
      g = t.group[s];
      if (g < 0) {
        g = first.n;
        if (g > INT32_MAX) {
          status = am_fail(err, AM_EINVAL, "more than 2^31 - 1 distinct values");
          goto done;
        }
        if (!t.direct) t.keys[s] = key;
        t.group[s] = (int32_t)g;
        if (vec_push(&first, i) != AM_OK || (with_counts && vec_push(&counts, 0) != AM_OK))
          goto nomem;
        if (!t.direct && ++t.used * 2 > (int64_t)t.mask + 1 && table_grow(&t) != AM_OK) goto nomem;
      }
    }
    if (with_counts) counts.v[g]++;
    if (id) id[i] = (int32_t)g;
  }
  if (ids) set_validity(ids, n - masked);
  memset(out, 0, sizeof *out);
  out->groups = first.n;
  out->null_group = null_group;
  if ((status = int64_array(err, &first, &out->first)) != AM_OK) goto done;
  if (with_counts && (status = int64_array(err, &counts, &out->counts)) != AM_OK) goto done;
  out->ids = ids;
  ids = NULL;
  goto done;
nomem:
  status = am_fail(err, AM_ENOMEM, "out of memory for a hash table");
done:
  am_array_free(ids);
  free(first.v);
  free(counts.v);
  if (status != AM_OK) am_hash_groups_free(out);
  if (status == AM_OK && lookup)
    *lookup = t;
  else if (t.group)
    table_free(&t);
  return status;
}

int am_cpu_hash_group(am_err *err, const am_array *array, int flags, am_hash_groups *out) {
  am_hash_groups result = {.null_group = -1};
  int status = group_rows(err, array, flags, &result, NULL);
  if (status == AM_OK) *out = result;
  return status;
}

int am_cpu_hash_lookup(am_err *err, const am_array *values, const am_array *value_set,
                       int skip_nulls, int as_bool, am_array **out) {
  am_hash_groups set = {.null_group = -1};
  table t;
  int status = group_rows(err, value_set, 0, &set, &t);
  if (status != AM_OK) return status;
  const int width = width_of(values->type);
  const int64_t n = values->length;
  const int64_t *first = set.first->data;
  /* A null value finds the set's first null unless skip_nulls. */
  const int64_t null_at = skip_nulls || set.null_group < 0 ? -1 : first[set.null_group];
  am_array *result = NULL;
  status =
      am_array_alloc_host(err, am_cpu_device(), as_bool ? AM_BOOL : AM_INT32, n, !as_bool, &result);
  if (status != AM_OK) goto done;
  const int nullable = am_cpu_has_nulls(values);
  if (as_bool) {
    /* is_in is never null: a value is in the set or it is not. */
    uint64_t *bits = (uint64_t *)result->data;
    memset(bits, 0, (size_t)(n + 63) / 64 * 8);
    for (int64_t i = 0; i < n; i++) {
      int hit;
      if (nullable && !valid_at(values, i))
        hit = null_at >= 0;
      else
        hit = t.group[table_slot(&t, key_at(values, width, i))] >= 0;
      bits[i >> 6] |= (uint64_t)hit << (i & 63);
    }
  } else {
    int32_t *index = (int32_t *)result->data;
    uint8_t *valid = (uint8_t *)result->validity;
    memset(valid, 0, (size_t)(n + 7) / 8);
    int64_t found = 0;
    for (int64_t i = 0; i < n; i++) {
      int64_t at = -1;
      if (nullable && !valid_at(values, i)) {
        at = null_at;
      } else {
        int32_t g = t.group[table_slot(&t, key_at(values, width, i))];
        if (g >= 0) at = first[g];
      }
      index[i] = at >= 0 ? (int32_t)at : 0;
      if (at >= 0) {
        valid[i >> 3] |= (uint8_t)(1u << (i & 7));
        found++;
      }
    }
    set_validity(result, found);
  }
  *out = result;
  result = NULL;
done:
  am_array_free(result);
  table_free(&t);
  am_hash_groups_free(&set);
  return status;
}
