/* Group-by on the CPU (am_group_by; core/backend.h's group_by).
 *
 * Grouping reuses the hash-based functions' table (cpu/hash.c) rather than
 * a second hasher: each key column is grouped on its own (nulls a value of
 * their own), and the columns' ids are combined pairwise -- the running id
 * and the next column's id packed into one uint64 per row, grouped again --
 * so that after the last column each row has one dense id over all its keys,
 * in the order of each key tuple's first row (pyarrow's order). Then every
 * aggregate is one pass over the rows by group id; the aggregates run on
 * the worker pool side by side. Aggregates whose result has the values'
 * type (min, max, first, last, list, distinct) pick rows and gather them
 * with take, so one code path serves every element type (strings and
 * binary included: their keys group by their bytes, cpu/hash_bytes.c, and
 * their min and max compare bytes).
 *
 * The semantics (min_count, skip_nulls, NaN, Kleene any / all, count modes)
 * are pyarrow's hash_* kernels', as include/arrowmetal.h states them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/group_result.h"
#include "core/hash.h"
#include "core/memstats.h"
#include "core/quantile.h"
#include "core/string_array.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

static inline int valid_at(const am_array *a, int64_t i) {
  return !a->validity || am_bit_get(a->validity, a->offset + i);
}

/* Slot i's element bits, zero-extended (a bool: 0 or 1). */
static inline uint64_t bits_at(const am_array *a, int64_t i) {
  int64_t j = a->offset + i;
  switch (a->type) {
    case AM_BOOL:
      return (uint64_t)am_bit_get(a->data, j);
    case AM_INT8:
    case AM_UINT8:
      return ((const uint8_t *)a->data)[j];
    case AM_INT16:
    case AM_UINT16:
      return ((const uint16_t *)a->data)[j];
    case AM_INT32:
    case AM_UINT32:
    case AM_FLOAT32:
      return ((const uint32_t *)a->data)[j];
    default:
      return ((const uint64_t *)a->data)[j];
  }
}

static inline int is_nan_bits(am_type t, uint64_t bits) {
  if (t == AM_FLOAT32) return (bits & 0x7fffffffu) > 0x7f800000u;
  if (t == AM_FLOAT64) return (bits & ~((uint64_t)1 << 63)) > 0x7ff0000000000000ULL;
  return 0;
}

/* ---- Grouping by several keys. */

/* An int32 array's values (offset 0, as hash.c writes them). */
static const int32_t *ids_of(const am_hash_groups *g) { return (const int32_t *)g->ids->data; }

int am_cpu_group_keys(am_err *err, const am_array *const *keys, int64_t n_keys,
                      am_hash_groups *out) {
  am_hash_groups acc = {.null_group = -1};
  int status = am_cpu_hash_group(err, keys[0], AM_HASH_IDS, &acc);
  if (status != AM_OK) return status;
  const int64_t n = keys[0]->length;
  for (int64_t k = 1; k < n_keys; k++) {
    am_hash_groups col = {.null_group = -1}, next = {.null_group = -1};
    am_array *pairs = NULL;
    if ((status = am_cpu_hash_group(err, keys[k], AM_HASH_IDS, &col)) == AM_OK &&
        (status = am_array_alloc_host(err, am_cpu_device(), AM_UINT64, n, 0, &pairs)) == AM_OK) {
      /* (running id, this column's id): both below 2^31, so the pair fits
       * one word and equal pairs are equal words. */
      uint64_t *p = (uint64_t *)pairs->data;
      const int32_t *a = ids_of(&acc), *b = ids_of(&col);
      for (int64_t i = 0; i < n; i++) p[i] = (uint64_t)(uint32_t)a[i] << 32 | (uint32_t)b[i];
      am_cpu_set_validity(pairs, NULL, n);
      status = am_cpu_hash_group(err, pairs, AM_HASH_IDS, &next);
    }
    am_array_free(pairs);
    am_hash_groups_free(&col);
    am_hash_groups_free(&acc);
    if (status != AM_OK) return status;
    acc = next;
  }
  /* A null group of the last pass means nothing here: no key tuple is null. */
  acc.null_group = n_keys == 1 ? acc.null_group : -1;
  *out = acc;
  return AM_OK;
}

/* ---- Results. */

/* A host array of `length` slots of `type`, its data zeroed and, with
 * `with_validity`, a bitmap of all-valid slots to clear bits of. */
static int result_alloc(am_err *err, am_type type, int64_t length, int with_validity,
                        am_array **out) {
  int status = am_array_alloc_host(err, am_cpu_device(), type, length, with_validity, out);
  if (status != AM_OK) return status;
  int64_t bytes = am_type_bytes(type, length);
  memset((void *)(*out)->data, 0, (size_t)(bytes + 7) / 8 * 8);
  if (with_validity) memset((void *)(*out)->validity, 0xff, (size_t)(length + 63) / 64 * 8);
  return AM_OK;
}

/* Marks slot g null in a result made by result_alloc with a bitmap. */
static inline void set_null(am_array *a, int64_t g) {
  ((uint8_t *)a->validity)[g >> 3] &= (uint8_t)~(1u << (g & 7));
}

/* Records the null count (dropping an all-valid bitmap). */
static void finish_validity(am_array *a, int64_t nulls) {
  am_buffer *bitmap = a->validity_buf;
  a->validity_buf = NULL;
  a->validity = NULL;
  am_cpu_set_validity(a, bitmap, a->length - nulls);
}

/* Gathers values[rows[g]] per group; rows[g] < 0 gives null. */
static int gather(am_err *err, const am_array *values, const int64_t *rows, int64_t groups,
                  am_array **out) {
  am_array *idx = NULL;
  int status = result_alloc(err, AM_INT64, groups, 1, &idx);
  if (status != AM_OK) return status;
  int64_t *v = (int64_t *)idx->data, nulls = 0;
  for (int64_t g = 0; g < groups; g++) {
    if (rows[g] < 0) {
      set_null(idx, g);
      nulls++;
    } else {
      v[g] = rows[g];
    }
  }
  finish_validity(idx, nulls);
  status = am_cpu_take(err, values, idx, out);
  am_array_free(idx);
  return status;
}

/* ---- One aggregate's pass. */
typedef struct agg_job {
  const am_array *values; /* NULL for count_all */
  const am_group_aggregate *spec;
  const int32_t *ids;
  int64_t rows, groups;
  am_group_result *result;
  am_err err;
  int status;
} agg_job;

/* Per group: valid values and nulls. */
typedef struct tally {
  int64_t *valid, *nulls;
} tally;

static int tally_rows(const agg_job *j, tally *t) {
  t->valid = am_scratch_alloc((j->groups ? j->groups : 1) * 8);
  t->nulls = am_scratch_alloc((j->groups ? j->groups : 1) * 8);
  if (!t->valid || !t->nulls) return AM_ENOMEM;
  memset(t->valid, 0, (size_t)j->groups * 8);
  memset(t->nulls, 0, (size_t)j->groups * 8);
  const am_array *v = j->values;
  const int nullable = am_cpu_has_nulls(v);
  for (int64_t i = 0; i < j->rows; i++) {
    if (nullable && !valid_at(v, i))
      t->nulls[j->ids[i]]++;
    else
      t->valid[j->ids[i]]++;
  }
  return AM_OK;
}

static void tally_free(tally *t) {
  am_scratch_free(t->valid);
  am_scratch_free(t->nulls);
}

/* Whether group g's result is null by min_count and skip_nulls. */
static inline int null_by_options(const am_group_aggregate *s, const tally *t, int64_t g) {
  return t->valid[g] < (int64_t)s->min_count || (!s->skip_nulls && t->nulls[g] > 0);
}

static int do_count(agg_job *j) {
  am_array *out = NULL;
  int status = result_alloc(&j->err, AM_INT64, j->groups, 0, &out);
  if (status != AM_OK) return status;
  int64_t *c = (int64_t *)out->data;
  const am_array *v = j->values;
  const int mode = j->spec->op == AM_GROUP_COUNT_ALL ? AM_COUNT_ALL : j->spec->count_mode;
  const int nullable = v && am_cpu_has_nulls(v);
  for (int64_t i = 0; i < j->rows; i++) {
    int valid = !nullable || valid_at(v, i);
    c[j->ids[i]] += mode == AM_COUNT_ALL || (mode == AM_COUNT_VALID) == valid;
  }
  am_cpu_set_validity(out, NULL, j->groups);
  j->result->values = out;
  return AM_OK;
}

/* sum, product, mean: integers in 64 bits (wrapping), floats in double.
 * The rows' values and their tally (valid and null rows a group) are taken
 * in one pass. A long input with few groups is split into the pool's row
 * ranges, each with accumulators of its own, combined in range order: for
 * floats that is a sum of per-range sums (row order within each), which
 * differs from one row-order sum only in rounding, as pyarrow's threads'
 * partial sums do. */
typedef struct arith_part {
  void *acc; /* double or uint64_t, per group */
  int64_t *valid, *nulls;
} arith_part;

typedef struct arith_job {
  const agg_job *j;
  int parts, product, is_float;
  arith_part *part;
} arith_job;

static void arith_run(void *ctx, int index) {
  const arith_job *job = ctx;
  const agg_job *j = job->j;
  const arith_part *pt = &job->part[index];
  const am_array *v = j->values;
  const am_type t = v->type;
  const int product = job->product, nullable = am_cpu_has_nulls(v);
  const int32_t *ids = j->ids;
  int64_t *valid = pt->valid, *nulls = pt->nulls;
  int64_t begin, end;
  am_pool_range(j->rows, job->parts, index, &begin, &end);
  /* One loop per element type, so that neither the type's switch nor the
   * product / sum choice sits in the row loop. */
#define ACCUMULATE(C_T, ACC, OP)                     \
  do {                                               \
    const C_T *p = (const C_T *)v->data + v->offset; \
    if (nullable) {                                  \
      for (int64_t i = begin; i < end; i++) {        \
        if (valid_at(v, i)) {                        \
          ACC[ids[i]] OP(__typeof__(*ACC)) p[i];     \
          valid[ids[i]]++;                           \
        } else {                                     \
          nulls[ids[i]]++;                           \
        }                                            \
      }                                              \
    } else {                                         \
      for (int64_t i = begin; i < end; i++) {        \
        ACC[ids[i]] OP(__typeof__(*ACC)) p[i];       \
        valid[ids[i]]++;                             \
      }                                              \
    }                                                \
  } while (0)
#define BY_OP(C_T, ACC)         \
  do {                          \
    if (product)                \
      ACCUMULATE(C_T, ACC, *=); \
    else                        \
      ACCUMULATE(C_T, ACC, +=); \
  } while (0)
  if (job->is_float) {
    double *acc = pt->acc;
    if (t == AM_FLOAT32)
      BY_OP(float, acc);
    else
      BY_OP(double, acc);
    return;
  }
  uint64_t *acc = pt->acc; /* integers wrap in 64 bits: signed values sign-extend */
#define INTEGER_CASE(E, C_T, ...) \
  case E:                         \
    BY_OP(C_T, acc);              \
    break;
  switch (t) {
    AM_CPU_INTEGER_TYPES(INTEGER_CASE)
    default: /* bool: a bitmap */
      for (int64_t i = begin; i < end; i++) {
        if (!valid_at(v, i)) {
          nulls[ids[i]]++;
          continue;
        }
        valid[ids[i]]++;
        if (product)
          acc[ids[i]] *= bits_at(v, i);
        else
          acc[ids[i]] += bits_at(v, i);
      }
  }
#undef INTEGER_CASE
#undef BY_OP
#undef ACCUMULATE
}

/* Row ranges for do_arith: the pool's, where a range's accumulators (24
 * bytes a group) are few beside its rows; else one. */
static int arith_parts(const agg_job *j) {
  int parts = am_pool_parts(j->rows);
  return parts > 1 && j->groups * 4 * parts <= j->rows ? parts : 1;
}

static int do_arith(agg_job *j) {
  const am_array *v = j->values;
  const am_type t = v->type;
  const int op = j->spec->op, is_float = am_type_is_float(t);
  const int is_signed = t == AM_INT8 || t == AM_INT16 || t == AM_INT32 || t == AM_INT64;
  am_type out_type = op == AM_GROUP_MEAN ? AM_FLOAT64
                     : is_float          ? AM_FLOAT64
                     : is_signed         ? AM_INT64
                                         : AM_UINT64;
  const int64_t groups = j->groups, bytes = (groups ? groups : 1) * 8;
  const int product = op == AM_GROUP_PRODUCT;
  arith_job job = {.j = j, .parts = arith_parts(j), .product = product, .is_float = is_float};
  tally tl = {0};
  am_array *out = NULL;
  int status = result_alloc(&j->err, out_type, groups, 1, &out);
  if (status != AM_OK) return status;
  job.part = calloc((size_t)job.parts, sizeof *job.part);
  tl.valid = am_scratch_alloc(bytes);
  tl.nulls = am_scratch_alloc(bytes);
  status = job.part && tl.valid && tl.nulls ? AM_OK : AM_ENOMEM;
  /* Range 0 accumulates into the result and the tally themselves. */
  for (int p = 0; status == AM_OK && p < job.parts; p++) {
    arith_part *pt = &job.part[p];
    pt->acc = p ? am_scratch_alloc(bytes) : (void *)out->data;
    pt->valid = p ? am_scratch_alloc(bytes) : tl.valid;
    pt->nulls = p ? am_scratch_alloc(bytes) : tl.nulls;
    if (!pt->acc || !pt->valid || !pt->nulls) {
      status = AM_ENOMEM;
      break;
    }
    memset(pt->valid, 0, (size_t)groups * 8);
    memset(pt->nulls, 0, (size_t)groups * 8);
    if (is_float)
      for (int64_t g = 0; g < groups; g++) ((double *)pt->acc)[g] = product ? 1.0 : 0.0;
    else
      for (int64_t g = 0; g < groups; g++) ((uint64_t *)pt->acc)[g] = product ? 1 : 0;
  }
  if (status != AM_OK) goto done;
  if (job.parts > 1)
    am_pool_run(job.parts, arith_run, &job);
  else
    arith_run(&job, 0);
  for (int p = 1; p < job.parts; p++) {
    const arith_part *pt = &job.part[p];
    for (int64_t g = 0; g < groups; g++) {
      tl.valid[g] += pt->valid[g];
      tl.nulls[g] += pt->nulls[g];
    }
    if (is_float) {
      double *acc = (double *)out->data;
      const double *part = pt->acc;
      for (int64_t g = 0; g < groups; g++) acc[g] = product ? acc[g] * part[g] : acc[g] + part[g];
    } else {
      uint64_t *acc = (uint64_t *)out->data;
      const uint64_t *part = pt->acc;
      for (int64_t g = 0; g < groups; g++) acc[g] = product ? acc[g] * part[g] : acc[g] + part[g];
    }
  }
  if (op == AM_GROUP_MEAN && !is_float) {
    /* the integer sum (int64 or uint64), then over the count */
    uint64_t *acc = (uint64_t *)out->data;
    double *mean = (double *)out->data;
    for (int64_t g = 0; g < groups; g++)
      mean[g] = is_signed ? (double)(int64_t)acc[g] : (double)acc[g];
  }
  int64_t nulls = 0;
  for (int64_t g = 0; g < groups; g++) {
    if (null_by_options(j->spec, &tl, g)) {
      set_null(out, g);
      nulls++;
    } else if (op == AM_GROUP_MEAN) {
      double *mean = (double *)out->data;
      mean[g] = mean[g] / (double)tl.valid[g];
    }
  }
  finish_validity(out, nulls);
  j->result->values = out;
  out = NULL;
done:
  for (int p = 1; job.part && p < job.parts; p++) {
    am_scratch_free(job.part[p].acc);
    am_scratch_free(job.part[p].valid);
    am_scratch_free(job.part[p].nulls);
  }
  free(job.part);
  am_array_free(out);
  tally_free(&tl);
  return status;
}

/* variance and stddev: the groups' means, then their squared deviations. */
static int do_variance(agg_job *j) {
  const am_array *v = j->values;
  const am_type t = v->type;
  tally tl = {0};
  am_array *out = NULL;
  double *mean = NULL;
  int status = tally_rows(j, &tl);
  if (status != AM_OK) goto done;
  if ((status = result_alloc(&j->err, AM_FLOAT64, j->groups, 1, &out)) != AM_OK) goto done;
  if (!(mean = am_scratch_alloc((j->groups ? j->groups : 1) * 8))) {
    status = AM_ENOMEM;
    goto done;
  }
  memset(mean, 0, (size_t)j->groups * 8);
  double *m2 = (double *)out->data;
  for (int64_t i = 0; i < j->rows; i++)
    if (valid_at(v, i)) mean[j->ids[i]] += am_quantile_as_double(t, bits_at(v, i));
  for (int64_t g = 0; g < j->groups; g++)
    if (tl.valid[g]) mean[g] /= (double)tl.valid[g];
  for (int64_t i = 0; i < j->rows; i++) {
    if (!valid_at(v, i)) continue;
    double d = am_quantile_as_double(t, bits_at(v, i)) - mean[j->ids[i]];
    m2[j->ids[i]] += d * d;
  }
  int64_t nulls = 0;
  const int ddof = j->spec->ddof;
  for (int64_t g = 0; g < j->groups; g++) {
    if (null_by_options(j->spec, &tl, g) || tl.valid[g] <= ddof) {
      set_null(out, g);
      nulls++;
      continue;
    }
    double var = m2[g] / (double)(tl.valid[g] - ddof);
    m2[g] = j->spec->op == AM_GROUP_STDDEV ? sqrt(var) : var;
  }
  finish_validity(out, nulls);
  j->result->values = out;
  out = NULL;
done:
  am_scratch_free(mean);
  am_array_free(out);
  tally_free(&tl);
  return status;
}

/* any and all over bools, Kleene logic without skip_nulls. */
static int do_any_all(agg_job *j) {
  const am_array *v = j->values;
  const int any = j->spec->op == AM_GROUP_ANY;
  tally tl = {0};
  am_array *out = NULL;
  uint8_t *hit = NULL; /* per group: a true (any) or a false (all) was seen */
  int status = tally_rows(j, &tl);
  if (status != AM_OK) goto done;
  if ((status = result_alloc(&j->err, AM_BOOL, j->groups, 1, &out)) != AM_OK) goto done;
  if (!(hit = am_scratch_alloc(j->groups ? j->groups : 1))) {
    status = AM_ENOMEM;
    goto done;
  }
  memset(hit, 0, (size_t)j->groups);
  for (int64_t i = 0; i < j->rows; i++)
    if (valid_at(v, i) && (int)bits_at(v, i) == any) hit[j->ids[i]] = 1;
  int64_t nulls = 0;
  uint8_t *bits = (uint8_t *)out->data;
  for (int64_t g = 0; g < j->groups; g++) {
    /* any: true on a hit; all: false on a hit */
    int value = any ? hit[g] : !hit[g];
    int null = tl.valid[g] < (int64_t)j->spec->min_count ||
               (!j->spec->skip_nulls && tl.nulls[g] > 0 && !hit[g]);
    if (null) {
      set_null(out, g);
      nulls++;
    } else if (value) {
      bits[g >> 3] |= (uint8_t)(1u << (g & 7));
    }
  }
  finish_validity(out, nulls);
  j->result->values = out;
  out = NULL;
done:
  am_scratch_free(hit);
  am_array_free(out);
  tally_free(&tl);
  return status;
}

/* Negative, zero or positive as string slot x sorts before, with or after
 * slot y (bytes unsigned, a prefix first: pyarrow's order). */
static int string_order(const am_array *a, int64_t x, int64_t y) {
  int64_t nx, ny;
  const uint8_t *px = am_string_value(a, x, &nx), *py = am_string_value(a, y, &ny);
  const int c = nx && ny ? memcmp(px, py, (size_t)(nx < ny ? nx : ny)) : 0;
  return c ? c : (nx > ny) - (nx < ny);
}

/* min, max, min_max, first, last: a row per group, then a gather. */
static int do_pick(agg_job *j) {
  const am_array *v = j->values;
  const am_type t = v->type;
  const int op = j->spec->op;
  tally tl = {0};
  int64_t *lo = NULL, *hi = NULL, *nan = NULL;
  const int64_t cap = j->groups ? j->groups : 1;
  int status = tally_rows(j, &tl);
  if (status != AM_OK) goto done;
  lo = am_scratch_alloc(cap * 8);
  hi = am_scratch_alloc(cap * 8);
  nan = am_scratch_alloc(cap * 8);
  if (!lo || !hi || !nan) {
    status = AM_ENOMEM;
    goto done;
  }
  for (int64_t g = 0; g < j->groups; g++) lo[g] = hi[g] = nan[g] = -1;
  if (op == AM_GROUP_FIRST || op == AM_GROUP_LAST) {
    /* lo: first row, hi: last row -- valid ones with skip_nulls, any else */
    const int any_row = !j->spec->skip_nulls;
    for (int64_t i = 0; i < j->rows; i++) {
      if (!any_row && !valid_at(v, i)) continue;
      int32_t g = j->ids[i];
      if (lo[g] < 0) lo[g] = i;
      hi[g] = i;
    }
  } else if (am_type_is_binary(t)) {
    /* strings and binary: bytewise, the first such row on ties */
    for (int64_t i = 0; i < j->rows; i++) {
      if (!valid_at(v, i)) continue;
      int32_t g = j->ids[i];
      if (lo[g] < 0 || string_order(v, i, lo[g]) < 0) lo[g] = i;
      if (hi[g] < 0 || string_order(v, i, hi[g]) > 0) hi[g] = i;
    }
  } else {
    /* Smallest and largest (integers by order key); the first such row on
     * ties. NaN only where a group has nothing else. */
    const int is_float = am_type_is_float(t);
    for (int64_t i = 0; i < j->rows; i++) {
      if (!valid_at(v, i)) continue;
      int32_t g = j->ids[i];
      uint64_t bits = bits_at(v, i);
      if (is_nan_bits(t, bits)) {
        if (nan[g] < 0) nan[g] = i;
        continue;
      }
      if (is_float) {
        /* by value: -0.0 and 0.0 tie, and the first of them stays (pyarrow's) */
        double x = am_quantile_as_double(t, bits);
        if (lo[g] < 0 || x < am_quantile_as_double(t, bits_at(v, lo[g]))) lo[g] = i;
        if (hi[g] < 0 || x > am_quantile_as_double(t, bits_at(v, hi[g]))) hi[g] = i;
        continue;
      }
      uint64_t key = am_quantile_key(t, bits);
      if (lo[g] < 0 || key < am_quantile_key(t, bits_at(v, lo[g]))) lo[g] = i;
      if (hi[g] < 0 || key > am_quantile_key(t, bits_at(v, hi[g]))) hi[g] = i;
    }
    for (int64_t g = 0; g < j->groups; g++)
      if (lo[g] < 0) lo[g] = hi[g] = nan[g];
  }
  /* first and last without skip_nulls give the row's value, null or not:
   * only min_count makes them null; min, max and min_max ignore min_count,
   * as pyarrow's hash_min_max does (null only for a null without skip_nulls,
   * or no value) */
  const int by_count = op == AM_GROUP_FIRST || op == AM_GROUP_LAST;
  for (int64_t g = 0; g < j->groups; g++)
    if (by_count ? tl.valid[g] < (int64_t)j->spec->min_count
                 : !j->spec->skip_nulls && tl.nulls[g] > 0)
      lo[g] = hi[g] = -1;
  am_array *a = NULL, *b = NULL;
  switch (op) {
    case AM_GROUP_MIN:
    case AM_GROUP_FIRST:
      status = gather(&j->err, v, lo, j->groups, &a);
      break;
    case AM_GROUP_MAX:
    case AM_GROUP_LAST:
      status = gather(&j->err, v, hi, j->groups, &a);
      break;
    default: /* min_max */
      if ((status = gather(&j->err, v, lo, j->groups, &a)) == AM_OK &&
          (status = gather(&j->err, v, hi, j->groups, &b)) != AM_OK) {
        am_array_free(a);
        a = NULL;
      }
  }
  if (status == AM_OK) {
    j->result->values = a;
    j->result->max = b;
  }
done:
  am_scratch_free(lo);
  am_scratch_free(hi);
  am_scratch_free(nan);
  tally_free(&tl);
  return status;
}

/* Lists: the rows `pick` selects (all rows when NULL), grouped by id in
 * row order (a counting sort), gathered; offsets from the counts. With
 * `count_only`, only the counts (count_distinct). */
static int lists_of(agg_job *j, const uint8_t *pick, int count_only) {
  const int64_t n = j->rows, groups = j->groups;
  am_array *offsets = NULL, *rows = NULL, *items = NULL;
  int64_t *start = am_scratch_alloc((groups + 1) * 8);
  int status = AM_OK;
  if (!start) return AM_ENOMEM;
  memset(start, 0, (size_t)(groups + 1) * 8);
  for (int64_t i = 0; i < n; i++)
    if (!pick || pick[i]) start[j->ids[i] + 1]++;
  if (count_only) {
    if ((status = result_alloc(&j->err, AM_INT64, groups, 0, &offsets)) == AM_OK) {
      memcpy((void *)offsets->data, start + 1, (size_t)groups * 8);
      am_cpu_set_validity(offsets, NULL, groups);
      j->result->values = offsets;
    }
    am_scratch_free(start);
    return status;
  }
  for (int64_t g = 0; g < groups; g++) start[g + 1] += start[g];
  const int64_t total = start[groups];
  if (total > INT32_MAX) {
    am_scratch_free(start);
    return am_fail(&j->err, AM_EINVAL, "more than 2^31 - 1 list items (int32 offsets)");
  }
  if ((status = result_alloc(&j->err, AM_INT32, groups + 1, 0, &offsets)) != AM_OK) goto done;
  int32_t *off = (int32_t *)offsets->data;
  for (int64_t g = 0; g <= groups; g++) off[g] = (int32_t)start[g];
  am_cpu_set_validity(offsets, NULL, groups + 1);
  if ((status = result_alloc(&j->err, AM_INT64, total, 0, &rows)) != AM_OK) goto done;
  int64_t *r = (int64_t *)rows->data;
  for (int64_t i = 0; i < n; i++)
    if (!pick || pick[i]) r[start[j->ids[i]]++] = i;
  am_cpu_set_validity(rows, NULL, total);
  if ((status = am_cpu_take(&j->err, j->values, rows, &items)) != AM_OK) goto done;
  j->result->values = items;
  j->result->offsets = offsets;
  items = offsets = NULL;
done:
  am_scratch_free(start);
  am_array_free(offsets);
  am_array_free(rows);
  am_array_free(items);
  return status;
}

/* count_distinct and distinct: the distinct (group, value) pairs -- the
 * values grouped on their own, their ids paired with the group ids and
 * grouped again -- each at its first row, kept as the count mode says. */
static int do_distinct(agg_job *j) {
  const am_array *v = j->values;
  const int64_t n = j->rows;
  am_hash_groups vals = {.null_group = -1}, pairs = {.null_group = -1};
  am_array *packed = NULL;
  uint8_t *pick = NULL;
  int status = am_cpu_hash_group(&j->err, v, AM_HASH_IDS, &vals);
  if (status != AM_OK) goto done;
  if ((status = am_array_alloc_host(&j->err, am_cpu_device(), AM_UINT64, n, 0, &packed)) != AM_OK)
    goto done;
  uint64_t *p = (uint64_t *)packed->data;
  const int32_t *vid = ids_of(&vals);
  for (int64_t i = 0; i < n; i++) p[i] = (uint64_t)(uint32_t)j->ids[i] << 32 | (uint32_t)vid[i];
  am_cpu_set_validity(packed, NULL, n);
  if ((status = am_cpu_hash_group(&j->err, packed, 0, &pairs)) != AM_OK) goto done;
  if (!(pick = am_scratch_alloc(n ? n : 1))) {
    status = AM_ENOMEM;
    goto done;
  }
  memset(pick, 0, (size_t)n);
  const int64_t *first = (const int64_t *)pairs.first->data;
  const int mode = j->spec->count_mode;
  for (int64_t g = 0; g < pairs.groups; g++) {
    int64_t row = first[g];
    int null = vid[row] == vals.null_group;
    pick[row] = mode == AM_COUNT_ALL || (mode == AM_COUNT_NULL) == null;
  }
  status = lists_of(j, pick, j->spec->op == AM_GROUP_COUNT_DISTINCT);
done:
  am_scratch_free(pick);
  am_array_free(packed);
  am_hash_groups_free(&vals);
  am_hash_groups_free(&pairs);
  return status;
}

static void run_one(void *ctx, int index) {
  agg_job *j = &((agg_job *)ctx)[index];
  int status;
  switch (j->spec->op) {
    case AM_GROUP_COUNT:
    case AM_GROUP_COUNT_ALL:
      status = do_count(j);
      break;
    case AM_GROUP_SUM:
    case AM_GROUP_PRODUCT:
    case AM_GROUP_MEAN:
      status = do_arith(j);
      break;
    case AM_GROUP_VARIANCE:
    case AM_GROUP_STDDEV:
      status = do_variance(j);
      break;
    case AM_GROUP_ANY:
    case AM_GROUP_ALL:
      status = do_any_all(j);
      break;
    case AM_GROUP_LIST:
      status = lists_of(j, NULL, 0);
      break;
    case AM_GROUP_COUNT_DISTINCT:
    case AM_GROUP_DISTINCT:
      status = do_distinct(j);
      break;
    default:
      status = do_pick(j);
  }
  if (status == AM_ENOMEM && !j->err.message[0])
    status = am_fail(&j->err, AM_ENOMEM, "out of memory for group-by's work areas");
  j->status = status;
}

int am_cpu_group_by(am_err *err, const am_array *const *keys, int64_t n_keys,
                    const am_array *const *values, const am_group_aggregate *aggregates,
                    int64_t n_aggregates, am_array **keys_out, am_group_result *results) {
  am_hash_groups groups = {.null_group = -1};
  agg_job *jobs = NULL;
  am_array **got_keys = calloc((size_t)n_keys, sizeof *got_keys);
  am_group_result *got = calloc((size_t)(n_aggregates ? n_aggregates : 1), sizeof *got);
  int status = AM_OK;
  if (!got_keys || !got) {
    status = am_fail(err, AM_ENOMEM, "out of memory");
    goto done;
  }
  if ((status = am_cpu_group_keys(err, keys, n_keys, &groups)) != AM_OK) goto done;
  for (int64_t k = 0; k < n_keys; k++)
    if ((status = am_cpu_take(err, keys[k], groups.first, &got_keys[k])) != AM_OK) goto done;
  jobs = calloc((size_t)(n_aggregates ? n_aggregates : 1), sizeof *jobs);
  if (!jobs) {
    status = am_fail(err, AM_ENOMEM, "out of memory");
    goto done;
  }
  for (int64_t a = 0; a < n_aggregates; a++) {
    jobs[a] = (agg_job){
        .values = aggregates[a].op == AM_GROUP_COUNT_ALL ? NULL : values[aggregates[a].column],
        .spec = &aggregates[a],
        .ids = ids_of(&groups),
        .rows = keys[0]->length,
        .groups = groups.groups,
        .result = &got[a],
    };
    am_err_init(&jobs[a].err, err->entry);
  }
  /* Aggregates side by side on the pool where there is work enough (a part
   * that groups again, for distinct, finds the pool busy and runs alone). */
  if (n_aggregates > 1 && am_pool_parts(keys[0]->length) > 1)
    am_pool_run((int)n_aggregates, run_one, jobs);
  else
    for (int64_t a = 0; a < n_aggregates; a++) run_one(jobs, (int)a);
  for (int64_t a = 0; a < n_aggregates; a++) {
    if (jobs[a].status != AM_OK) {
      am_err_merge(err, &jobs[a].err, 1);
      status = jobs[a].status;
      goto done;
    }
  }
  am_group_hand_over(got_keys, n_keys, got, n_aggregates, keys_out, results);
done:
  am_group_work_free(got_keys, n_keys, got, n_aggregates);
  free(jobs);
  am_hash_groups_free(&groups);
  return status;
}
