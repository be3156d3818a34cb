/* The CPU's aggregate kernels (core/aggregate.h): any, all, product,
 * min_max, variance (and stddev), first, last and index. Each measures the
 * valid slots into an am_agg_stats; am_agg_finish makes the result.
 *
 * - any, all and product of bool count set bits (bitmap.c).
 * - Integer products wrap in 64 bits, so partial products of ranges,
 *   multiplied in any order, give the exact answer: they run on the pool.
 *   Float products multiply in slot order on one thread, as pyarrow does,
 *   so the two agree bit for bit (a different order rounds differently and
 *   can overflow where slot order does not, or the reverse).
 * - min_max is the vectorized min and max of cpu/reduce.c, one after the
 *   other (two passes over memory, each at memory speed).
 * - variance splits the slots into tiles of TILE slots; each tile is two
 *   passes over data in L1 (its mean, then the sums of the deviations from it
 *   and of their squares: the corrected two-pass algorithm, no cancellation
 *   of large sums), and the tiles' (count, mean, M2) are merged in
 *   tile order with Chan et al.'s formula. Tiles go to the pool, but the
 *   merge order is fixed, so the result never depends on the thread count.
 * - first and last stop at their end's first valid slot; index compares 64
 *   slots at a time and stops at the first hit (per part, on the pool). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "core/aggregate.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

/* ---- Loading 64 slots with their nulls replaced: `c` (64 values of type
 * CT) holds x[i + j] converted by CONV where slot j is valid, `identity`
 * elsewhere, and never reads past n. */
#define LOAD64(CT, c, x, i, n, w, CONV, identity)                                 \
  CT c[64];                                                                       \
  if ((n) - (i) >= 64) {                                                          \
    for (int64_t j = 0; j < 64; j++) {                                            \
      CT v_ = CONV((x)[(i) + j]);                                                 \
      c[j] = ((w) >> j) & 1 ? v_ : (identity);                                    \
    }                                                                             \
  } else {                                                                        \
    for (int64_t j = 0; j < 64; j++)                                              \
      c[j] = j < (n) - (i) && (((w) >> j) & 1) ? CONV((x)[(i) + j]) : (identity); \
  }

/* ---- Integer products: 8 independent wrapping accumulators. */
#define AS_U64_SIGNED(v) ((uint64_t)(int64_t)(v))
#define AS_U64_UNSIGNED(v) ((uint64_t)(v))
#define DEFINE_INT_PRODUCT(T, N, CONV)                                                            \
  AM_CPU_CLONES static uint64_t product_##N(const void *data, const uint8_t *valid, int64_t vpos, \
                                            int64_t n) {                                          \
    const T *x = data;                                                                            \
    uint64_t acc[8] = {1, 1, 1, 1, 1, 1, 1, 1};                                                   \
    for (int64_t i = 0; i < n; i += 64) {                                                         \
      uint64_t w = am_bits_valid(valid, vpos + i, n - i);                                         \
      if (!w) continue;                                                                           \
      LOAD64(uint64_t, c, x, i, n, w, CONV, 1)                                                    \
      for (int j = 0; j < 64; j += 8)                                                             \
        for (int k = 0; k < 8; k++) acc[k] *= c[j + k];                                           \
    }                                                                                             \
    return acc[0] * acc[1] * acc[2] * acc[3] * acc[4] * acc[5] * acc[6] * acc[7];                 \
  }
#define DEFINE_SIGNED_PRODUCT(E, T, U, N, F, LO, HI) DEFINE_INT_PRODUCT(T, N, AS_U64_SIGNED)
#define DEFINE_UNSIGNED_PRODUCT(E, T, U, N, F, LO, HI) DEFINE_INT_PRODUCT(T, N, AS_U64_UNSIGNED)
AM_CPU_SIGNED_TYPES(DEFINE_SIGNED_PRODUCT)
AM_CPU_UNSIGNED_TYPES(DEFINE_UNSIGNED_PRODUCT)

typedef uint64_t (*product_fn)(const void *data, const uint8_t *valid, int64_t vpos, int64_t n);

static product_fn product_of(am_type type) {
  switch (type) {
#define CASE(E, T, U, N, F, LO, HI) \
  case E:                           \
    return product_##N;
    AM_CPU_INTEGER_TYPES(CASE)
#undef CASE
    default:
      return NULL;
  }
}

typedef struct product_job {
  product_fn fn;
  const char *data;
  size_t width;
  const uint8_t *valid;
  int64_t vpos, n;
  int parts;
  uint64_t partial[64];
} product_job;

static void product_part(void *ctx, int part) {
  product_job *job = ctx;
  int64_t begin, end;
  am_pool_range(job->n, job->parts, part, &begin, &end);
  job->partial[part] = end > begin ? job->fn(job->data + begin * job->width, job->valid,
                                             job->vpos + begin, end - begin)
                                   : 1;
}

static uint64_t int_product(const am_array *array, const uint8_t *valid) {
  product_job job = {.fn = product_of(array->type),
                     .width = (size_t)am_type_bits(array->type) / 8,
                     .valid = valid,
                     .vpos = array->offset,
                     .n = array->length,
                     .parts = am_pool_parts(array->length)};
  job.data = (const char *)array->data + array->offset * job.width;
  am_pool_run(job.parts, product_part, &job);
  uint64_t product = 1;
  for (int p = 0; p < job.parts; p++) product *= job.partial[p];
  return product;
}

/* Float products: in slot order, in double (pyarrow's order and type). */
#define DEFINE_FLOAT_PRODUCT(E, T, U, N, F, LO, HI)                                            \
  static double product_##N(const T *x, const uint8_t *valid, int64_t vpos, int64_t n) {       \
    double p = 1.0;                                                                            \
    for (int64_t i = 0; i < n; i += 64) {                                                      \
      uint64_t w = am_bits_valid(valid, vpos + i, n - i);                                      \
      int64_t m = n - i < 64 ? n - i : 64;                                                     \
      if (w == am_bits_mask(m)) {                                                              \
        for (int64_t j = 0; j < m; j++) p *= (double)x[i + j];                                 \
      } else {                                                                                 \
        for (; w; w &= w - 1) p *= (double)x[i + __builtin_ctzll(w)]; /* set bits, in order */ \
      }                                                                                        \
    }                                                                                          \
    return p;                                                                                  \
  }
AM_CPU_FLOAT_TYPES(DEFINE_FLOAT_PRODUCT)

/* ---- Variance: per-tile moments, merged in tile order. */
enum { TILE = 8192 }; /* slots: 64 KiB of float64, two passes from L1/L2 */

typedef struct moments {
  int64_t n;
  double mean, m2;
} moments;

/* Values are taken less `shift` (the array's first valid value): moments of
 * data far from zero (1e9 + small) then keep their digits through the
 * tiles' means and Chan's merges, which would otherwise round every mean
 * to the ulp of the data. */
#define SHIFTED(v) ((double)(v) - shift)
#define DEFINE_MOMENTS(E, T, U, N, F, LO, HI)                                                     \
  AM_CPU_CLONES static void moments_##N(const void *data, const uint8_t *valid, int64_t vpos,     \
                                        int64_t n, double shift, moments *out) {                  \
    const T *x = data;                                                                            \
    double acc[8] = {0};                                                                          \
    int64_t count = 0;                                                                            \
    for (int64_t i = 0; i < n; i += 64) {                                                         \
      uint64_t w = am_bits_valid(valid, vpos + i, n - i);                                         \
      if (!w) continue;                                                                           \
      count += am_popcount64(w);                                                                  \
      LOAD64(double, c, x, i, n, w, SHIFTED, 0.0)                                                 \
      for (int j = 0; j < 64; j += 8)                                                             \
        for (int k = 0; k < 8; k++) acc[k] += c[j + k];                                           \
    }                                                                                             \
    out->n = count;                                                                               \
    out->mean = out->m2 = 0.0;                                                                    \
    if (!count) return;                                                                           \
    double mean =                                                                                 \
        (((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))) /     \
        (double)count;                                                                            \
    double dev[8] = {0}, sq[8] = {0};                                                             \
    for (int64_t i = 0; i < n; i += 64) {                                                         \
      uint64_t w = am_bits_valid(valid, vpos + i, n - i);                                         \
      if (!w) continue;                                                                           \
      /* A null slot holds the mean: it adds a zero deviation. */                                 \
      LOAD64(double, c, x, i, n, w, SHIFTED, mean)                                                \
      for (int j = 0; j < 64; j += 8)                                                             \
        for (int k = 0; k < 8; k++) {                                                             \
          double d = c[j + k] - mean;                                                             \
          dev[k] += d;                                                                            \
          sq[k] += d * d;                                                                         \
        }                                                                                         \
    }                                                                                             \
    /* The corrected two-pass formula (Chan, Golub and LeVeque): the deviations' sum is           \
     * the rounding error of the mean, times the count; it corrects the mean and takes            \
     * that error's square out of M2. */                                                          \
    double d = ((dev[0] + dev[1]) + (dev[2] + dev[3])) + ((dev[4] + dev[5]) + (dev[6] + dev[7])); \
    double s2 = ((sq[0] + sq[1]) + (sq[2] + sq[3])) + ((sq[4] + sq[5]) + (sq[6] + sq[7]));        \
    out->mean = mean + d / (double)count;                                                         \
    out->m2 = s2 - d * d / (double)count;                                                         \
    if (out->m2 < 0.0) out->m2 = 0.0; /* a rounding below zero is no variance */                  \
  }
AM_CPU_NUMERIC_TYPES(DEFINE_MOMENTS)

typedef void (*moments_fn)(const void *data, const uint8_t *valid, int64_t vpos, int64_t n,
                           double shift, moments *out);

static moments_fn moments_of(am_type type) {
  switch (type) {
#define CASE(E, T, U, N, F, LO, HI) \
  case E:                           \
    return moments_##N;
    AM_CPU_NUMERIC_TYPES(CASE)
#undef CASE
    default:
      return NULL;
  }
}

typedef struct moments_job {
  moments_fn fn;
  const char *data;
  size_t width;
  const uint8_t *valid;
  int64_t vpos, n, tiles;
  double shift;
  atomic_llong next;
  moments *tile;
} moments_job;

/* Parts take tiles as they go: any part may compute any tile, and each
 * tile's moments depend on its slots only. */
static void moments_part(void *ctx, int part) {
  (void)part;
  moments_job *job = ctx;
  for (;;) {
    int64_t t = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
    if (t >= job->tiles) return;
    int64_t begin = t * TILE, end = begin + TILE < job->n ? begin + TILE : job->n;
    job->fn(job->data + begin * job->width, job->valid, job->vpos + begin, end - begin, job->shift,
            &job->tile[t]);
  }
}

static int64_t first_valid(const uint8_t *valid, int64_t vpos, int64_t n);
static am_scalar element(const am_array *array, int64_t i);

static int variance_stats(am_err *err, const am_array *array, const uint8_t *valid,
                          am_agg_stats *stats) {
  /* The shift: the first valid value (a NaN or an infinity there makes the
   * variance NaN, as it would anyway). */
  int64_t at = first_valid(valid, array->offset, array->length);
  am_scalar first = element(array, at < 0 ? 0 : at);
  double shift = am_type_is_float(array->type)    ? first.f64
                 : am_type_is_signed(array->type) ? (double)first.i64
                                                  : (double)first.u64;
  moments_job job = {.fn = moments_of(array->type),
                     .width = (size_t)am_type_bits(array->type) / 8,
                     .valid = valid,
                     .vpos = array->offset,
                     .n = array->length,
                     .tiles = (array->length + TILE - 1) / TILE,
                     .shift = at < 0 ? 0.0 : shift};
  job.data = (const char *)array->data + array->offset * job.width;
  atomic_init(&job.next, 0);
  moments one;
  job.tile = job.tiles <= 1 ? &one : malloc((size_t)job.tiles * sizeof *job.tile);
  if (!job.tile)
    return am_fail(err, AM_ENOMEM, "out of memory for %lld tiles", (long long)job.tiles);
  int parts = am_pool_parts(array->length);
  if (parts > job.tiles) parts = (int)job.tiles;
  am_pool_run(parts > 0 ? parts : 1, moments_part, &job);
  int64_t n = 0;
  double mean = 0.0, m2 = 0.0;
  for (int64_t t = 0; t < job.tiles; t++)
    am_agg_merge_moments(&n, &mean, &m2, job.tile[t].n, job.tile[t].mean, job.tile[t].m2);
  if (job.tile != &one) free(job.tile);
  stats->count = n;
  stats->mean = mean + shift;
  stats->m2 = m2;
  return AM_OK;
}

/* ---- first, last */

/* The first valid slot of [0, n), -1 when none. */
static int64_t first_valid(const uint8_t *valid, int64_t vpos, int64_t n) {
  for (int64_t i = 0; i < n; i += 64) {
    uint64_t w = am_bits_valid(valid, vpos + i, n - i);
    if (w) return i + __builtin_ctzll(w);
  }
  return -1;
}

static int64_t last_valid(const uint8_t *valid, int64_t vpos, int64_t n) {
  for (int64_t i = (n - 1) / 64 * 64; n > 0 && i >= 0; i -= 64) {
    uint64_t w = am_bits_valid(valid, vpos + i, n - i);
    if (w) return i + 63 - __builtin_clzll(w);
  }
  return -1;
}

/* Slot i's value in the am_scalar field of its type. */
static am_scalar element(const am_array *array, int64_t i) {
  am_scalar s;
  memset(&s, 0, sizeof s);
  s.type = array->type;
  switch (array->type) {
    case AM_BOOL:
      s.i64 = am_bit_get(array->data, array->offset + i);
      break;
#define CASE(E, T, U, N, F, LO, HI)                    \
  case E:                                              \
    s.F = ((const T *)array->data)[array->offset + i]; \
    break;
      AM_CPU_NUMERIC_TYPES(CASE)
#undef CASE
    default:
      break;
  }
  return s;
}

/* ---- index */

#define DEFINE_FIND(E, T, U, N, F, LO, HI)                                                    \
  AM_CPU_CLONES static int64_t find_##N(const void *data, const uint8_t *valid, int64_t vpos, \
                                        int64_t n, const am_scalar *value) {                  \
    const T *x = data;                                                                        \
    const T v = (T)value->F;                                                                  \
    for (int64_t i = 0; i < n; i += 64) {                                                     \
      uint64_t w = am_bits_valid(valid, vpos + i, n - i);                                     \
      if (!w) continue;                                                                       \
      uint8_t eq[64];                                                                         \
      if (n - i >= 64) {                                                                      \
        for (int j = 0; j < 64; j++) eq[j] = x[i + j] == v;                                   \
      } else {                                                                                \
        for (int j = 0; j < 64; j++) eq[j] = j < n - i && x[i + j] == v;                      \
      }                                                                                       \
      uint64_t hits = am_pack64(eq) & w;                                                      \
      if (hits) return i + __builtin_ctzll(hits);                                             \
    }                                                                                         \
    return -1;                                                                                \
  }
AM_CPU_NUMERIC_TYPES(DEFINE_FIND)

/* Booleans: the data bits (or their complement) are the hits. `data` and
 * `vpos` address bits; the data and validity share the offset. */
static int64_t find_bool(const void *data, const uint8_t *valid, int64_t vpos, int64_t n,
                         const am_scalar *value) {
  for (int64_t i = 0; i < n; i += 64) {
    uint64_t w = am_bits_valid(valid, vpos + i, n - i);
    uint64_t bits = am_bits_load(data, vpos + i, n - i);
    uint64_t hits = (value->i64 ? bits : ~bits) & w;
    if (hits) return i + __builtin_ctzll(hits);
  }
  return -1;
}

typedef int64_t (*find_fn)(const void *data, const uint8_t *valid, int64_t vpos, int64_t n,
                           const am_scalar *value);

typedef struct find_job {
  find_fn fn;
  const am_array *array;
  const uint8_t *valid;
  const am_scalar *value;
  int parts;
  int64_t found[64];
} find_job;

static void find_part(void *ctx, int part) {
  find_job *job = ctx;
  const am_array *a = job->array;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  job->found[part] = -1;
  if (end <= begin) return;
  int64_t at;
  if (a->type == AM_BOOL) {
    at = job->fn(a->data, job->valid, a->offset + begin, end - begin, job->value);
  } else {
    size_t width = (size_t)am_type_bits(a->type) / 8;
    at = job->fn((const char *)a->data + (a->offset + begin) * width, job->valid, a->offset + begin,
                 end - begin, job->value);
  }
  job->found[part] = at < 0 ? -1 : begin + at;
}

static find_fn find_of(am_type type) {
  switch (type) {
    case AM_BOOL:
      return find_bool;
#define CASE(E, T, U, N, F, LO, HI) \
  case E:                           \
    return find_##N;
      AM_CPU_NUMERIC_TYPES(CASE)
#undef CASE
    default:
      return NULL;
  }
}

/* The first part with a hit holds the first hit. */
static int64_t find_value(const am_array *array, const uint8_t *valid, const am_scalar *value) {
  find_job job = {.fn = find_of(array->type),
                  .array = array,
                  .valid = valid,
                  .value = value,
                  .parts = am_pool_parts(array->length)};
  am_pool_run(job.parts, find_part, &job);
  for (int p = 0; p < job.parts; p++)
    if (job.found[p] >= 0) return job.found[p];
  return -1;
}

/* ---- The backend entry */

int am_cpu_aggregate(am_err *err, const am_agg_spec *spec, const am_array *array, am_scalar *out,
                     am_scalar *out2) {
  am_agg_stats stats;
  memset(&stats, 0, sizeof stats);
  stats.position = -1;
  stats.count = array->length - am_cpu_nulls(array);
  const uint8_t *valid = am_cpu_has_nulls(array) ? array->validity : NULL;
  int status = AM_OK;
  am_type type = array->type;
  switch (spec->op) {
    case AM_AGG_ANY:
    case AM_AGG_ALL:
    case AM_AGG_PRODUCT:
      if (type == AM_BOOL) {
        stats.trues = (uint64_t)(valid ? am_bits_count_and(array->data, array->offset, valid,
                                                           array->offset, array->length)
                                       : am_bits_count(array->data, array->offset, array->length));
      } else if (spec->op != AM_AGG_PRODUCT) {
        return am_fail(err, AM_ETYPE, "no %s kernel for %s", spec->op == AM_AGG_ANY ? "any" : "all",
                       am_type_name(type));
      } else if (type == AM_FLOAT32) {
        stats.a.f64 = product_f32((const float *)array->data + array->offset, valid, array->offset,
                                  array->length);
      } else if (type == AM_FLOAT64) {
        stats.a.f64 = product_f64((const double *)array->data + array->offset, valid, array->offset,
                                  array->length);
      } else {
        stats.a.u64 = int_product(array, valid);
        stats.a.i64 = (int64_t)stats.a.u64;
      }
      break;
    case AM_AGG_MIN_MAX:
      if ((status = am_cpu_reduce(err, AM_REDUCE_MIN, array, type, &stats.a)) != AM_OK ||
          (status = am_cpu_reduce(err, AM_REDUCE_MAX, array, type, &stats.b)) != AM_OK)
        return status;
      break;
    case AM_AGG_VARIANCE:
    case AM_AGG_STDDEV:
      if (!moments_of(type))
        return am_fail(err, AM_ETYPE, "no variance kernel for %s", am_type_name(type));
      if ((status = variance_stats(err, array, valid, &stats)) != AM_OK) return status;
      break;
    case AM_AGG_FIRST:
    case AM_AGG_LAST:
      stats.position = spec->op == AM_AGG_FIRST ? first_valid(valid, array->offset, array->length)
                                                : last_valid(valid, array->offset, array->length);
      if (stats.position >= 0) stats.a = element(array, stats.position);
      break;
    case AM_AGG_INDEX:
      stats.position = find_value(array, valid, &spec->value);
      break;
    default:
      return am_fail(err, AM_EINVAL, "no CPU kernel for aggregate op %d", (int)spec->op);
  }
  am_agg_finish(spec, &stats, out, out2);
  return AM_OK;
}
