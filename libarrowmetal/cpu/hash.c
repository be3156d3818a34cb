/* The hash-based functions on the CPU (core/hash.h): one open-addressing
 * table of value bits (linear probing, a 64-bit finalizer mix), walked in
 * row order so that group ids come out in pyarrow's first-occurrence order
 * without a sort. The table grows as distinct values appear (load <= 1/2),
 * so its memory follows the distinct count, not the length. Booleans and
 * 8-bit values index a direct table of 2 or 256 groups instead, and so do
 * integers whose values span a small range (dense keys: the slot is the
 * value's distance from the smallest, no hashing and no probing).
 *
 * Values are keys by their bits (a float's 0.0 and -0.0 differ, NaNs differ
 * by payload), which is the equality pyarrow's memo tables give. */
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/memstats.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

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

/* ---- The table: keys and their group ids; -1 marks an empty slot. Two
 * arrays rather than slots of both: a table of 1,000 values (24 KB so)
 * stays in the first-level cache, where slots of 16 bytes (32 KB) did not
 * and ran 25% slower; large tables prefetch both lines instead. */
typedef struct table {
  uint64_t *keys;
  int32_t *group;
  uint64_t mask; /* capacity - 1 */
  int64_t used;
  /* keys index `group` directly (booleans, 8-bit values, dense keys): the
   * slot of a key is (key ^ flip) - base, at most mask */
  int direct;
  uint64_t flip, base;
} table;

/* Dense keys: integer values within `span` of each other, as a slot range.
 * flip turns a signed type's bits into an order-preserving unsigned number
 * (its sign bit flipped), base is the smallest such number. */
typedef struct dense_range {
  uint64_t flip, base, span; /* span 0: not dense */
} dense_range;

static int table_init(table *t, int width, const dense_range *dense) {
  memset(t, 0, sizeof *t);
  t->direct = width <= 1 || dense->span;
  uint64_t cap = width == 0 ? 2 : width == 1 ? 256 : dense->span ? dense->span : 1024;
  if (t->direct && width > 1) {
    t->flip = dense->flip;
    t->base = dense->base;
  }
  /* a direct table has one slot more, past `mask`: the null rows' (direct_rows) */
  const uint64_t slots = cap + (uint64_t)t->direct;
  t->group = am_scratch_alloc((int64_t)(slots * sizeof *t->group));
  t->keys = t->direct ? NULL : am_scratch_alloc((int64_t)(cap * sizeof *t->keys));
  if (!t->group || (!t->direct && !t->keys)) return AM_ENOMEM;
  memset(t->group, 0xff, slots * sizeof *t->group);
  t->mask = cap - 1;
  return AM_OK;
}

static void table_free(table *t) {
  am_scratch_free(t->keys);
  am_scratch_free(t->group);
}

/* The table moved to `cap` slots (a power of two), its keys rehashed. */
static int table_resize(table *t, uint64_t cap) {
  uint64_t *keys = am_scratch_alloc((int64_t)(cap * sizeof *keys));
  int32_t *group = am_scratch_alloc((int64_t)(cap * sizeof *group));
  if (!keys || !group) {
    am_scratch_free(keys);
    am_scratch_free(group);
    return AM_ENOMEM;
  }
  memset(group, 0xff, cap * sizeof *group);
  for (uint64_t s = 0; t->used && s <= t->mask; s++) {
    if (t->group[s] < 0) continue;
    uint64_t h = mix(t->keys[s]) & (cap - 1);
    while (group[h] >= 0) h = (h + 1) & (cap - 1);
    keys[h] = t->keys[s];
    group[h] = t->group[s];
  }
  table_free(t);
  t->keys = keys;
  t->group = group;
  t->mask = cap - 1;
  return AM_OK;
}

static int table_grow(table *t) { return table_resize(t, (t->mask + 1) * 2); }

/* An empty table's room for `keys` keys at most half full, allocated at once
 * (growing there a doubling at a time rehashes about as many keys again and
 * touches twice the memory). */
static int table_reserve(table *t, int64_t keys) {
  uint64_t cap = t->mask + 1;
  while ((int64_t)cap < 2 * keys) cap *= 2;
  if (t->direct || t->used || cap == t->mask + 1) return AM_OK;
  return table_resize(t, cap);
}

/* About how many distinct values rows [begin, end) hold, from SAMPLE rows
 * spread over the range: k rows drawn from D values repeat one another in
 * about k^2 / 2D pairs, so D ~ k^2 / 2 / pairs (with no pair seen, the range
 * may be all distinct). The table is then made for that many at once. A
 * range of 25M rows with 1M distinct values used to get a table for all 25M
 * (a 1 GB table whose every probe missed) from a test that could only tell
 * "nearly all distinct in 256 rows". */
static int64_t distinct_estimate(const am_array *a, int width, int64_t begin, int64_t end) {
  enum { SAMPLE = 4096, CAP = 8192 };
  uint64_t keys[CAP];
  uint8_t taken[CAP] = {0};
  int64_t rows = end - begin, step = rows / SAMPLE, pairs = 0;
  for (int k = 0; k < SAMPLE; k++) {
    uint64_t key = key_at(a, width, begin + k * step);
    uint64_t h = mix(key) & (CAP - 1);
    while (taken[h] && keys[h] != key) h = (h + 1) & (CAP - 1);
    if (taken[h]) {
      pairs += taken[h]; /* a key seen m times before adds m pairs */
      if (taken[h] < 255) taken[h]++;
    } else {
      taken[h] = 1;
      keys[h] = key;
    }
  }
  int64_t estimate = (int64_t)SAMPLE * SAMPLE / 2 / (pairs ? pairs : 1);
  return estimate < rows ? estimate : rows;
}

/* The slot of `key` (hash h = mix(key)): its group there, or an empty slot
 * (group -1). */
static inline uint64_t table_slot_h(const table *t, uint64_t key, uint64_t h) {
  if (t->direct) return (key ^ t->flip) - t->base;
  h &= t->mask;
  while (t->group[h] >= 0 && t->keys[h] != key) h = (h + 1) & t->mask;
  return h;
}

static inline uint64_t table_slot(const table *t, uint64_t key) {
  return table_slot_h(t, key, t->direct ? 0 : mix(key));
}

/* The group of `key` (hash h), or -1: for keys that need not be in the
 * table's range (is_in's values against a dense value set). */
static inline int32_t table_find(const table *t, uint64_t key, uint64_t h) {
  uint64_t at = table_slot_h(t, key, h);
  return t->direct && at > t->mask ? -1 : t->group[at];
}

/* Probing a large table in row order waits on one cache miss after
 * another; the loops below hash AHEAD rows ahead and prefetch their slots,
 * so that many misses are in flight at once. A table of fewer than
 * PREFETCH_SLOTS slots (512 KB) stays in the caches, where the look ahead
 * only costs (about 12% at 1,000 distinct values). */
enum { AHEAD = 16, PREFETCH_SLOTS = 1 << 15 };

static inline int worth_prefetching(const table *t) {
  return !t->direct && t->mask + 1 >= PREFETCH_SLOTS;
}

static inline void prefetch_slot(const table *t, uint64_t h) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(&t->group[h & t->mask]);
  __builtin_prefetch(&t->keys[h & t->mask]);
#else
  (void)t;
  (void)h;
#endif
}

/* ---- Dense keys: the range of the values, over the pool. */
typedef struct range_job {
  const am_array *array;
  int width, parts;
  int exact; /* leave null rows out (else every slot's value counts) */
  uint64_t flip;
  uint64_t *lo, *hi; /* per part; lo > hi: no valid row */
} range_job;

/* The smallest and largest of n values ^ flip, into *lo and *hi (which hold
 * the bounds so far): a loop per width, compiled for wide vectors too
 * (AM_CPU_CLONES), since one compare-and-select chain ran at two cycles a
 * row and this pass took three times the grouping's time. */
#define RANGE_OF(NAME, C_T)                                                                \
  AM_CPU_CLONES static void NAME(const C_T *p, int64_t n, uint64_t flip, uint64_t *lo_out, \
                                 uint64_t *hi_out) {                                       \
    const C_T f = (C_T)flip;                                                               \
    C_T lo = (C_T)(*lo_out > (C_T) - 1 ? (C_T) - 1 : *lo_out), hi = (C_T) * hi_out;        \
    for (int64_t i = 0; i < n; i++) {                                                      \
      const C_T v = p[i] ^ f;                                                              \
      lo = v < lo ? v : lo;                                                                \
      hi = v > hi ? v : hi;                                                                \
    }                                                                                      \
    if (n) {                                                                               \
      *lo_out = lo < *lo_out ? lo : *lo_out;                                               \
      *hi_out = hi > *hi_out ? hi : *hi_out;                                               \
    }                                                                                      \
  }
RANGE_OF(range_u16, uint16_t)
RANGE_OF(range_u32, uint32_t)
RANGE_OF(range_u64, uint64_t)
#undef RANGE_OF

static void range_part(void *ctx, int part) {
  range_job *job = ctx;
  const am_array *a = job->array;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  uint64_t lo = UINT64_MAX, hi = 0;
  const uint64_t flip = job->flip;
  if (job->exact) {
    /* a null row's value widens neither bound: all ones for the low one,
     * zero for the high one (no branch on the validity) */
    for (int64_t i = begin; i < end; i++) {
      const uint64_t v = key_at(a, job->width, i) ^ flip, keep = 0 - (uint64_t)valid_at(a, i);
      const uint64_t low = v | ~keep, high = v & keep;
      lo = low < lo ? low : lo;
      hi = high > hi ? high : hi;
    }
    if (lo > hi) lo = UINT64_MAX, hi = 0; /* no valid row */
  } else {
    if (job->width == 2)
      range_u16((const uint16_t *)a->data + a->offset + begin, end - begin, flip, &lo, &hi);
    else if (job->width == 4)
      range_u32((const uint32_t *)a->data + a->offset + begin, end - begin, flip, &lo, &hi);
    else
      range_u64((const uint64_t *)a->data + a->offset + begin, end - begin, flip, &lo, &hi);
  }
  job->lo[part] = lo;
  job->hi[part] = hi;
}

/* The range of job's rows, over the pool, into *low and *high. */
static void range_run(range_job *job, uint64_t *low, uint64_t *high) {
  if (job->parts > 1)
    am_pool_run(job->parts, range_part, job);
  else
    range_part(job, 0);
  *low = UINT64_MAX;
  *high = 0;
  for (int p = 0; p < job->parts; p++) {
    *low = job->lo[p] < *low ? job->lo[p] : *low;
    *high = job->hi[p] > *high ? job->hi[p] : *high;
  }
}

/* Whether `a`'s values are dense keys: 16 bits or more, within a span of
 * at most max(2^16, min(rows, 2^22)) slots -- a direct table no larger
 * than a hash table for as many rows would be (4 bytes a slot against 12 a
 * slot at 2 slots a key), and at most 16 MB a part. Booleans and 8-bit
 * values are direct already. The range is first taken over every slot,
 * null rows' values too, in the vector loops: it holds the valid values'
 * range, and where it is narrow enough the table covers them (a few slots
 * more at most). Only a column whose null rows widen it past the limit is
 * measured again without them, a row at a time (that pass over 1M int32
 * rows with 5% nulls cost about 1.4 ms more than the vector one, on one
 * thread). */
static dense_range dense_range_of(const am_array *a, int width) {
  dense_range d = {0};
  if (width < 2 || a->length == 0) return d;
  const int64_t n = a->length, most = n < ((int64_t)1 << 22) ? n : (int64_t)1 << 22;
  const uint64_t limit = (uint64_t)(most > 65536 ? most : 65536);
  range_job job = {.array = a, .width = width, .parts = am_pool_parts(n)};
  if (am_type_is_signed(a->type) || am_type_is_temporal(a->type))
    job.flip = (uint64_t)1 << (width * 8 - 1);
  uint64_t *bounds = calloc((size_t)job.parts * 2, sizeof *bounds);
  if (!bounds) return d; /* then hashed: no worse */
  job.lo = bounds;
  job.hi = bounds + job.parts;
  uint64_t low, high;
  range_run(&job, &low, &high);
  if (high - low >= limit && am_cpu_has_nulls(a)) {
    job.exact = 1;
    range_run(&job, &low, &high);
  }
  free(bounds);
  if (low > high || high - low >= limit) return d;
  d.flip = job.flip;
  d.base = low;
  d.span = high - low + 1;
  return d;
}

/* ---- Growing int64 vectors of the groups' first rows and counts. */
typedef struct vec {
  int64_t *v;
  int64_t n, cap;
} vec;

static int vec_push(vec *x, int64_t value) {
  if (x->n == x->cap) {
    int64_t cap = x->cap ? x->cap * 2 : 256;
    int64_t *v = am_scratch_realloc(x->v, cap * (int64_t)sizeof *v);
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

/* ---- Grouping, over the pool: each part groups its range of rows in a
 * table of its own (its groups in their first-occurrence order within the
 * range, ids local), then the parts' groups are merged in part order into
 * one table -- which keeps pyarrow's first-occurrence order, since the
 * ranges are in row order -- and the ids are rewritten through each part's
 * map in parallel. With one part the part's table is the result. */
typedef struct part_groups {
  table t;
  vec first, counts;  /* per local group: its first row, its rows */
  int64_t null_group; /* local id of the null group, -1 when none */
  int64_t masked;     /* null rows left out (AM_HASH_MASK_NULLS) */
  int32_t *map;       /* local id -> global id (phase 2) */
  int status;
} part_groups;

typedef struct group_job {
  const am_array *array;
  dense_range dense;
  int width, flags, parts;
  int32_t *id;
  uint8_t *id_valid;
  part_groups *part;
} group_job;

static int local_group(part_groups *pg, int64_t row, int with_counts) {
  if (pg->first.n >= INT32_MAX) return AM_EINVAL;
  if (vec_push(&pg->first, row) != AM_OK || (with_counts && vec_push(&pg->counts, 0) != AM_OK))
    return AM_ENOMEM;
  return AM_OK;
}

/* What group_row needs of the job, read once a part (as locals, which the
 * stores into ids and counts cannot be taken to change). */
typedef struct row_ctx {
  const am_array *array;
  int32_t *id;
  uint8_t *id_valid;
  int nullable, mask_nulls, with_counts;
} row_ctx;

/* Row i (key bits `key`, hash h = mix(key) unless the table is direct) into
 * pg, its local id into c.id; AM_OK, or the status that stops the part. */
static inline __attribute__((always_inline)) int group_row(const row_ctx c, part_groups *pg,
                                                           int64_t i, uint64_t key, uint64_t h) {
  table *t = &pg->t;
  int64_t g;
  if (c.nullable && !valid_at(c.array, i)) {
    if (c.mask_nulls) {
      if (c.id) {
        c.id_valid[i >> 3] &= (uint8_t)~(1u << (i & 7));
        c.id[i] = 0;
      }
      pg->masked++;
      return AM_OK;
    }
    if (pg->null_group < 0) {
      pg->null_group = pg->first.n;
      int status = local_group(pg, i, c.with_counts);
      if (status != AM_OK) return status;
    }
    g = pg->null_group;
  } else {
    uint64_t at = table_slot_h(t, key, h);
    g = t->group[at];
    if (g < 0) {
      g = pg->first.n;
      int status = local_group(pg, i, c.with_counts);
      if (status != AM_OK) return status;
      if (!t->direct) t->keys[at] = key;
      t->group[at] = (int32_t)g;
      if (!t->direct && ++t->used * 2 > (int64_t)t->mask + 1 && table_grow(t) != AM_OK)
        return AM_ENOMEM;
    }
  }
  if (c.with_counts) pg->counts.v[g]++;
  if (c.id) c.id[i] = (int32_t)g;
  return AM_OK;
}

/* Rows [begin, end) into a dense table: a loop per element width, with the
 * table's arrays in locals, since the general row (group_row) spent most of
 * its time on the width's switch and on reloading what its stores might
 * have changed (10M int64 rows of 100 values: 24 ms for value_counts on 2
 * cores, pyarrow's speed, before). Null rows (a column with nulls, nulls
 * not masked) go to the slot past the values' (table_init's), whose group
 * is then the null group, made at the first null row as group_row makes
 * it. unique of 1M int32 rows of 1,000 values, 5% null (a dictionary
 * key's indices), on one thread: 1.4 ms, against 3.9 on group_row's path
 * with the range taken a row at a time. */
static int direct_rows(const row_ctx c, part_groups *pg, int64_t begin, int64_t end, int width) {
  int32_t *group = pg->t.group, *id = c.id;
  const uint64_t flip = pg->t.flip, base = pg->t.base, null_slot = pg->t.mask + 1;
  const uint8_t *valid = c.nullable ? c.array->validity : NULL;
  const int64_t offset = c.array->offset;
  /* Counts and ids are chosen outside the loop: a loop for each of the
   * three uses (value_counts; dictionary_encode and group-by; unique), and
   * for columns with and without nulls. */
#define DIRECT_ROWS(C_T, COUNT, ID, SLOT)               \
  do {                                                  \
    const C_T *p = (const C_T *)c.array->data + offset; \
    for (int64_t i = begin; i < end; i++) {             \
      const uint64_t at = SLOT;                         \
      int32_t g = group[at];                            \
      if (g < 0) {                                      \
        g = (int32_t)pg->first.n;                       \
        int status = local_group(pg, i, c.with_counts); \
        if (status != AM_OK) return status;             \
        group[at] = g;                                  \
      }                                                 \
      COUNT;                                            \
      ID;                                               \
    }                                                   \
  } while (0)
#define VALUE_SLOT (((uint64_t)p[i] ^ flip) - base)
#define NULLABLE_SLOT (am_bit_get(valid, offset + i) ? VALUE_SLOT : null_slot)
#define DIRECT_WIDTHS(COUNT, ID, SLOT)        \
  do {                                        \
    if (width == 2)                           \
      DIRECT_ROWS(uint16_t, COUNT, ID, SLOT); \
    else if (width == 4)                      \
      DIRECT_ROWS(uint32_t, COUNT, ID, SLOT); \
    else                                      \
      DIRECT_ROWS(uint64_t, COUNT, ID, SLOT); \
  } while (0)
#define DIRECT_USES(SLOT)                                \
  do {                                                   \
    if (c.with_counts && id)                             \
      DIRECT_WIDTHS(pg->counts.v[g]++, id[i] = g, SLOT); \
    else if (c.with_counts)                              \
      DIRECT_WIDTHS(pg->counts.v[g]++, (void)0, SLOT);   \
    else if (id)                                         \
      DIRECT_WIDTHS((void)0, id[i] = g, SLOT);           \
    else                                                 \
      DIRECT_WIDTHS((void)0, (void)0, SLOT);             \
  } while (0)
  if (valid) {
    DIRECT_USES(NULLABLE_SLOT);
    pg->null_group = group[null_slot];
  } else {
    DIRECT_USES(VALUE_SLOT);
  }
#undef DIRECT_USES
#undef DIRECT_WIDTHS
#undef NULLABLE_SLOT
#undef VALUE_SLOT
#undef DIRECT_ROWS
  return AM_OK;
}

/* Groups rows [begin, end) into pg; ids (local) into job->id: row by row
 * while the table is small, then with the look ahead. */
static void group_part(void *ctx, int part) {
  group_job *job = ctx;
  part_groups *pg = &job->part[part];
  const am_array *a = job->array;
  const int width = job->width;
  table *t = &pg->t;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  pg->null_group = -1;
  if ((pg->status = table_init(t, width, &job->dense)) != AM_OK) return;
  /* A table for the values a sample predicts, made at once where that is
   * many (a few thousand are grown to as cheaply, and a table grown to fit
   * stays the smallest that holds them: in the first-level cache longer). */
  if (!t->direct && end - begin >= 16384) {
    int64_t expected = distinct_estimate(a, width, begin, end);
    if (expected >= PREFETCH_SLOTS / 2 && (pg->status = table_reserve(t, expected)) != AM_OK)
      return;
  }
  const row_ctx c = {.array = a,
                     .id = job->id,
                     .id_valid = job->id_valid,
                     .nullable = am_cpu_has_nulls(a),
                     .mask_nulls = (job->flags & AM_HASH_MASK_NULLS) != 0,
                     .with_counts = (job->flags & AM_HASH_COUNTS) != 0};
  /* The status stays a local: a store into pg each row would make the
   * compiler read the table's fields again after it. */
  int status = AM_OK;
  int64_t i = begin;
  if (t->direct && width >= 2 && !(c.nullable && c.mask_nulls)) {
    pg->status = direct_rows(c, pg, begin, end, width);
    return;
  }
  if (t->direct) {
    for (; i < end; i++)
      if ((status = group_row(c, pg, i, key_at(a, width, i), 0)) != AM_OK) break;
    pg->status = status;
    return;
  }
  /* While the table is small: the rows one by one (checked each time it
   * grows). */
  while (i < end && !worth_prefetching(t)) {
    const uint64_t mask = t->mask;
    for (; i < end && t->mask == mask; i++) {
      uint64_t key = key_at(a, width, i);
      if ((status = group_row(c, pg, i, key, mix(key))) != AM_OK) {
        pg->status = status;
        return;
      }
    }
  }
  /* Row j's key and hash at j % AHEAD (null rows' too: unused). */
  uint64_t keys[AHEAD], hashes[AHEAD];
  for (int64_t j = i; j < end && j < i + AHEAD; j++) {
    keys[j % AHEAD] = key_at(a, width, j);
    hashes[j % AHEAD] = mix(keys[j % AHEAD]);
    prefetch_slot(t, hashes[j % AHEAD]);
  }
  for (; i < end; i++) {
    uint64_t key = keys[i % AHEAD], h = hashes[i % AHEAD];
    if (i + AHEAD < end) {
      keys[i % AHEAD] = key_at(a, width, i + AHEAD);
      hashes[i % AHEAD] = mix(keys[i % AHEAD]);
      prefetch_slot(t, hashes[i % AHEAD]);
    }
    if ((status = group_row(c, pg, i, key, h)) != AM_OK) break;
  }
  pg->status = status;
}

/* Rewrites part `part`'s local ids through its map (part 0's are global
 * already: no map). */
static void remap_part(void *ctx, int part) {
  group_job *job = ctx;
  const part_groups *pg = &job->part[part];
  if (!pg->map) return;
  int64_t begin, end;
  am_pool_range(job->array->length, job->parts, part, &begin, &end);
  for (int64_t i = begin; i < end; i++)
    if (!job->id_valid || am_bit_get(job->id_valid, i)) job->id[i] = pg->map[job->id[i]];
}

/* Merges the parts' groups in part order into `merged`, `first` and
 * `counts`, filling each later part's map. Part 0's groups are the first
 * global ones with the same ids, so its table and vectors are taken over
 * as they are; the table is grown up front to hold each later part's
 * groups (at most that many are new), not one doubling at a time. */
static int merge_parts(group_job *job, table *merged, vec *first, vec *counts,
                       int64_t *null_group) {
  const am_array *a = job->array;
  const int with_counts = (job->flags & AM_HASH_COUNTS) != 0;
  part_groups *head = &job->part[0];
  *merged = head->t;
  *first = head->first;
  *counts = head->counts;
  *null_group = head->null_group;
  head->t.keys = NULL;
  head->t.group = NULL;
  head->first = (vec){0};
  head->counts = (vec){0};
  for (int p = 1; p < job->parts; p++) {
    part_groups *pg = &job->part[p];
    while (!merged->direct && (merged->used + pg->first.n) * 2 > (int64_t)merged->mask + 1)
      if (table_grow(merged) != AM_OK) return AM_ENOMEM;
    pg->map = am_scratch_alloc((pg->first.n ? pg->first.n : 1) * (int64_t)sizeof *pg->map);
    if (!pg->map) return AM_ENOMEM;
    const int ahead = worth_prefetching(merged);
    for (int64_t g = 0; g < pg->first.n; g++) {
      int64_t global;
      if (ahead && g + AHEAD < pg->first.n) /* as in group_part, one hash twice */
        prefetch_slot(merged, mix(key_at(a, job->width, pg->first.v[g + AHEAD])));
      if (g == pg->null_group) {
        if (*null_group < 0) {
          *null_group = first->n;
          if (vec_push(first, pg->first.v[g]) != AM_OK ||
              (with_counts && vec_push(counts, 0) != AM_OK))
            return AM_ENOMEM;
        }
        global = *null_group;
      } else {
        uint64_t key = key_at(a, job->width, pg->first.v[g]);
        uint64_t at = table_slot(merged, key);
        global = merged->group[at];
        if (global < 0) {
          global = first->n;
          if (global >= INT32_MAX) return AM_EINVAL;
          if (vec_push(first, pg->first.v[g]) != AM_OK ||
              (with_counts && vec_push(counts, 0) != AM_OK))
            return AM_ENOMEM;
          if (!merged->direct) merged->keys[at] = key;
          merged->group[at] = (int32_t)global;
          merged->used++;
        }
      }
      if (with_counts) counts->v[global] += pg->counts.v[g];
      pg->map[g] = (int32_t)global;
    }
  }
  return AM_OK;
}

/* Groups the rows of `array` (core/hash.h). With `lookup`, also hands the
 * caller the table of the groups (to probe); it is freed otherwise. */
static int group_rows(am_err *err, const am_array *array, int flags, am_hash_groups *out,
                      table *lookup) {
  const int64_t n = array->length;
  const int mask_nulls = (flags & AM_HASH_MASK_NULLS) != 0;
  am_array *ids = NULL;
  int status = AM_OK;
  group_job job = {.array = array, .width = width_of(array->type), .flags = flags};
  if (flags & AM_HASH_IDS) {
    if ((status = am_array_alloc_host(err, am_cpu_device(), AM_INT32, n, mask_nulls, &ids)) !=
        AM_OK)
      return status;
    job.id = (int32_t *)ids->data;
    job.id_valid = (uint8_t *)ids->validity;
    if (job.id_valid) memset(job.id_valid, 0xff, (size_t)(n + 7) / 8);
  }
  job.dense = dense_range_of(array, job.width);
  job.parts = am_pool_parts(n);
  job.part = calloc((size_t)job.parts, sizeof *job.part);
  table merged = {0};
  vec first = {0}, counts = {0};
  int64_t null_group = -1, masked = 0;
  if (!job.part) goto nomem;
  if (job.parts > 1)
    am_pool_run(job.parts, group_part, &job);
  else
    group_part(&job, 0);
  for (int p = 0; p < job.parts; p++) {
    if (job.part[p].status == AM_EINVAL) {
      status = am_fail(err, AM_EINVAL, "more than 2^31 - 1 distinct values");
      goto done;
    }
    if (job.part[p].status != AM_OK) goto nomem;
    masked += job.part[p].masked;
  }
  if (job.parts == 1) {
    /* One part: its groups are the result. */
    part_groups *pg = &job.part[0];
    merged = pg->t;
    pg->t.group = NULL;
    pg->t.keys = NULL;
    first = pg->first;
    counts = pg->counts;
    pg->first = (vec){0};
    pg->counts = (vec){0};
    null_group = pg->null_group;
  } else {
    int merged_status = merge_parts(&job, &merged, &first, &counts, &null_group);
    if (merged_status == AM_EINVAL) {
      status = am_fail(err, AM_EINVAL, "more than 2^31 - 1 distinct values");
      goto done;
    }
    if (merged_status != AM_OK) goto nomem;
    if (ids) am_pool_run(job.parts, remap_part, &job);
  }
  if (ids) set_validity(ids, n - masked);
  memset(out, 0, sizeof *out);
  out->groups = first.n;
  out->null_group = null_group;
  if ((status = int64_array(err, &first, &out->first)) != AM_OK) goto done;
  if ((flags & AM_HASH_COUNTS) && (status = int64_array(err, &counts, &out->counts)) != AM_OK)
    goto done;
  out->ids = ids;
  ids = NULL;
  goto done;
nomem:
  status = am_fail(err, AM_ENOMEM, "out of memory for a hash table");
done:
  for (int p = 0; job.part && p < job.parts; p++) {
    table_free(&job.part[p].t);
    am_scratch_free(job.part[p].first.v);
    am_scratch_free(job.part[p].counts.v);
    am_scratch_free(job.part[p].map);
  }
  free(job.part);
  am_array_free(ids);
  am_scratch_free(first.v);
  am_scratch_free(counts.v);
  if (status != AM_OK) am_hash_groups_free(out);
  if (status == AM_OK && lookup)
    *lookup = merged;
  else
    table_free(&merged);
  return status;
}

int am_cpu_hash_group(am_err *err, const am_array *array, int flags, am_hash_groups *out) {
  if (am_type_is_binary(array->type)) return am_cpu_hash_group_bytes(err, array, flags, out);
  am_hash_groups result = {.null_group = -1};
  int status = group_rows(err, array, flags, &result, NULL);
  if (status == AM_OK) *out = result;
  return status;
}

/* The probes of is_in / index_in, over the pool (the table is only read). */
typedef struct lookup_job {
  const am_array *values;
  const table *t;
  const int64_t *first; /* the set's first rows, per group */
  int64_t null_at;      /* where a null value is found, -1: nowhere */
  int width, parts, as_bool, nullable;
  void *out;
  uint8_t *valid;
  int64_t *found;  /* per part */
  int32_t *groups; /* instead of out: each value's group, else `missing` */
  int32_t missing;
} lookup_job;

static void lookup_part(void *ctx, int part) {
  lookup_job *job = ctx;
  const am_array *values = job->values;
  const table *t = job->t;
  const int width = job->width, ahead = worth_prefetching(t);
  int64_t begin, end, found = 0;
  am_pool_range(values->length, job->parts, part, &begin, &end);
  uint64_t hashes[AHEAD]; /* as in group_part */
  for (int64_t i = begin; ahead && i < end && i < begin + AHEAD; i++) {
    hashes[i % AHEAD] = mix(key_at(values, width, i));
    prefetch_slot(t, hashes[i % AHEAD]);
  }
  for (int64_t i = begin; i < end; i++) {
    int64_t at = -1;
    int32_t g = -1;
    if (job->nullable && !valid_at(values, i)) {
      at = job->null_at;
    } else {
      uint64_t key = key_at(values, width, i);
      g = table_find(t, key, ahead ? hashes[i % AHEAD] : t->direct ? 0 : mix(key));
      if (g >= 0 && job->first) at = job->first[g];
    }
    if (ahead && i + AHEAD < end) {
      uint64_t next = mix(key_at(values, width, i + AHEAD));
      hashes[i % AHEAD] = next;
      prefetch_slot(t, next);
    }
    if (job->groups) {
      job->groups[i] = g >= 0 ? g : job->missing;
      continue;
    }
    /* Parts start on 64 slots: each writes whole words and bytes of its own. */
    if (job->as_bool) {
      if (at >= 0) ((uint64_t *)job->out)[i >> 6] |= (uint64_t)1 << (i & 63);
    } else {
      ((int32_t *)job->out)[i] = at >= 0 ? (int32_t)at : 0;
      if (at >= 0) {
        job->valid[i >> 3] |= (uint8_t)(1u << (i & 7));
        found++;
      }
    }
  }
  job->found[part] = found;
}

/* A probe job over `values` against table t, run on the pool. */
static void run_lookup(lookup_job *job) {
  if (job->parts > 1)
    am_pool_run(job->parts, lookup_part, job);
  else
    lookup_part(job, 0);
}

int am_cpu_hash_lookup(am_err *err, const am_array *values, const am_array *value_set,
                       int skip_nulls, int as_bool, am_array **out) {
  if (am_type_is_binary(values->type))
    return am_cpu_hash_lookup_bytes(err, values, value_set, skip_nulls, as_bool, out);
  am_hash_groups set = {.null_group = -1};
  table t;
  int status = group_rows(err, value_set, 0, &set, &t);
  if (status != AM_OK) return status;
  const int64_t n = values->length;
  const int64_t *first = set.first->data;
  am_array *result = NULL;
  int64_t *found = NULL;
  status =
      am_array_alloc_host(err, am_cpu_device(), as_bool ? AM_BOOL : AM_INT32, n, !as_bool, &result);
  if (status != AM_OK) goto done;
  lookup_job job = {
      .values = values,
      .t = &t,
      .first = first,
      /* A null value finds the set's first null unless skip_nulls. */
      .null_at = skip_nulls || set.null_group < 0 ? -1 : first[set.null_group],
      .width = width_of(values->type),
      .parts = am_pool_parts(n),
      .as_bool = as_bool,
      .nullable = am_cpu_has_nulls(values),
      .out = (void *)result->data,
      .valid = (uint8_t *)result->validity,
  };
  if (!(found = calloc((size_t)job.parts, sizeof *found))) {
    status = am_fail(err, AM_ENOMEM, "out of memory");
    goto done;
  }
  job.found = found;
  /* is_in is never null: a value is in the set or it is not. */
  if (as_bool)
    memset((void *)result->data, 0, (size_t)(n + 63) / 64 * 8);
  else
    memset(job.valid, 0, (size_t)(n + 7) / 8);
  run_lookup(&job);
  if (!as_bool) {
    int64_t total = 0;
    for (int p = 0; p < job.parts; p++) total += found[p];
    set_validity(result, total);
  }
  *out = result;
  result = NULL;
done:
  free(found);
  am_array_free(result);
  table_free(&t);
  am_hash_groups_free(&set);
  return status;
}

int am_cpu_hash_join_ids(am_err *err, const am_array *left, const am_array *right, int32_t *ids,
                         int64_t *groups) {
  if (am_type_is_binary(left->type))
    return am_cpu_hash_join_ids_bytes(err, left, right, ids, groups);
  am_hash_groups set = {.null_group = -1};
  table t;
  int status = group_rows(err, right, AM_HASH_IDS | AM_HASH_MASK_NULLS, &set, &t);
  if (status != AM_OK) return status;
  const int64_t nl = left->length, nr = right->length, g = set.groups;
  if (g > INT32_MAX - 2) {
    status = am_fail(err, AM_EINVAL, "more than 2^31 - 3 distinct keys");
    goto done;
  }
  const int32_t *right_ids = (const int32_t *)set.ids->data;
  const uint8_t *right_valid = (const uint8_t *)set.ids->validity;
  for (int64_t r = 0; r < nr; r++)
    ids[nl + r] = !right_valid || am_bit_get(right_valid, r) ? right_ids[r] : (int32_t)g + 1;
  int64_t *found = calloc((size_t)am_pool_parts(nl), sizeof *found);
  if (!found) {
    status = am_fail(err, AM_ENOMEM, "out of memory");
    goto done;
  }
  lookup_job job = {.values = left,
                    .t = &t,
                    .width = width_of(left->type),
                    .parts = am_pool_parts(nl),
                    .nullable = am_cpu_has_nulls(left),
                    .found = found,
                    .groups = ids,
                    .missing = (int32_t)g};
  run_lookup(&job);
  free(found);
  *groups = g;
done:
  table_free(&t);
  am_hash_groups_free(&set);
  return status;
}
