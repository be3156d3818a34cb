/* Reductions: sum, mean, min and max over the valid slots.
 *
 * Slots go 64 at a time beside their validity word: a full word takes the
 * plain loop, an empty one is skipped, a mixed one (and the last, partial
 * chunk) is first copied with its null slots replaced by the operation's
 * identity, so that every chunk runs the same fixed-length, vectorizable
 * loop. */
#include <math.h>
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

/* Points `c` at the 64 slots of x from i on, or, unless every one is valid
 * (w all ones), at `buf` holding them with the null slots and those past n
 * replaced by `identity`. The main loops then never look at validity. (The
 * index is 64-bit because GCC does not vectorize a 64-bit shift by an int.) */
#define CHUNK(T, c, buf, x, i, n, w, identity)                                       \
  const T *c = (x) + (i);                                                            \
  T buf[64];                                                                         \
  if ((w) != ~(uint64_t)0) {                                                         \
    if ((n) - (i) >= 64) {                                                           \
      for (uint64_t j = 0; j < 64; j++) {                                            \
        T v = c[j];                                                                  \
        buf[j] = ((w) >> j) & 1 ? v : (identity);                                    \
      }                                                                              \
    } else { /* the load is conditional: no slot past n is read */                   \
      for (uint64_t j = 0; j < 64; j++) buf[j] = ((w) >> j) & 1 ? c[j] : (identity); \
    }                                                                                \
    c = buf;                                                                         \
  }

/* Slots per block of an exact integer sum: narrow integers, and the 32-bit
 * halves of 64-bit ones, sum exactly in 64 bits over a block this long. */
#define EXACT_BLOCK ((int64_t)1 << 31)

/* Pairwise summation of leaf sums: a binary counter of partial sums bounds
 * the rounding error by O(log n), as numpy's pairwise sum does. */
typedef struct pairwise {
  double partial[64];
  int depth;
  uint64_t chunks;
} pairwise;

static inline void pairwise_add(pairwise *p, double sum) {
  for (uint64_t c = ++p->chunks; !(c & 1); c >>= 1) sum += p->partial[--p->depth];
  p->partial[p->depth++] = sum;
}

static inline double pairwise_total(const pairwise *p) {
  double total = 0.0;
  for (int d = p->depth - 1; d >= 0; d--) total += p->partial[d];
  return total;
}

/* Min and max over 16 independent accumulators, which vectorize where a single
 * running value does not. NaN never wins a comparison, so it is skipped. */
#define LESS(a, b) ((a) < (b))
#define GREATER(a, b) ((a) > (b))
#define DEFINE_INT_EXTREME(T, N, NAME, BETTER, IDENTITY)                                         \
  AM_CPU_CLONES static T NAME##_##N(const T *x, const uint8_t *valid, int64_t vpos, int64_t n) { \
    T acc[16];                                                                                   \
    for (int k = 0; k < 16; k++) acc[k] = IDENTITY;                                              \
    for (int64_t i = 0; i < n; i += 64) {                                                        \
      uint64_t w = am_bits_valid(valid, vpos + i, n - i);                                        \
      if (!w) continue;                                                                          \
      CHUNK(T, c, buf, x, i, n, w, IDENTITY)                                                     \
      for (int j = 0; j < 64; j += 16)                                                           \
        for (int k = 0; k < 16; k++) acc[k] = BETTER(c[j + k], acc[k]) ? c[j + k] : acc[k];      \
    }                                                                                            \
    T best = acc[0];                                                                             \
    for (int k = 1; k < 16; k++) best = BETTER(acc[k], best) ? acc[k] : best;                    \
    return best;                                                                                 \
  }

/* GCC vectorizes no float compare-select reduction without -ffast-math, so
 * the float accumulators are spelled as vectors (GCC and clang extensions;
 * lowered to whatever width the target has). A compare gives a lane mask. */
typedef float f32_vector __attribute__((vector_size(64)));
typedef int32_t f32_mask __attribute__((vector_size(64)));
typedef double f64_vector __attribute__((vector_size(64)));
typedef int64_t f64_mask __attribute__((vector_size(64)));

#define DEFINE_FLOAT_EXTREME(T, N, NAME, BETTER, IDENTITY)                                       \
  AM_CPU_CLONES static T NAME##_##N(const T *x, const uint8_t *valid, int64_t vpos, int64_t n) { \
    enum { LANES = sizeof(N##_vector) / sizeof(T) };                                             \
    N##_vector acc[2];                                                                           \
    for (int a = 0; a < 2; a++)                                                                  \
      for (int k = 0; k < LANES; k++) acc[a][k] = IDENTITY;                                      \
    for (int64_t i = 0; i < n; i += 64) {                                                        \
      uint64_t w = am_bits_valid(valid, vpos + i, n - i);                                        \
      if (!w) continue;                                                                          \
      CHUNK(T, c, buf, x, i, n, w, IDENTITY)                                                     \
      for (int j = 0; j < 64; j += 2 * LANES)                                                    \
        for (int a = 0; a < 2; a++) {                                                            \
          N##_vector v;                                                                          \
          memcpy(&v, c + j + a * LANES, sizeof v);                                               \
          N##_mask better = BETTER(v, acc[a]);                                                   \
          acc[a] = (N##_vector)(((N##_mask)v & better) | ((N##_mask)acc[a] & ~better));          \
        }                                                                                        \
    }                                                                                            \
    T best = IDENTITY;                                                                           \
    for (int a = 0; a < 2; a++)                                                                  \
      for (int k = 0; k < LANES; k++) best = BETTER(acc[a][k], best) ? acc[a][k] : best;         \
    return best;                                                                                 \
  }

/* ---- Integers */

/* Wrapping sum; the exact sum of narrow types over an EXACT_BLOCK. Without
 * nulls one plain loop, so the vector accumulator is reduced only once. */
#define DEFINE_INT_SUM(T, N)                                                            \
  AM_CPU_CLONES static uint64_t sum_##N(const T *x, const uint8_t *valid, int64_t vpos, \
                                        int64_t n) {                                    \
    uint64_t acc = 0;                                                                   \
    if (!valid) {                                                                       \
      for (int64_t i = 0; i < n; i++) acc += (uint64_t)x[i];                            \
      return acc;                                                                       \
    }                                                                                   \
    for (int64_t i = 0; i < n; i += 64) {                                               \
      uint64_t w = am_bits_load(valid, vpos + i, n - i);                                \
      if (!w) continue;                                                                 \
      CHUNK(T, c, buf, x, i, n, w, 0)                                                   \
      for (int j = 0; j < 64; j++) acc += (uint64_t)c[j];                               \
    }                                                                                   \
    return acc;                                                                         \
  }

/* Sums of the high (arithmetic shift) and low 32-bit halves, which stay exact
 * in 64 bits over an EXACT_BLOCK; used for 64-bit types only. */
#define DEFINE_SPLIT_SUM(T, N, ACC)                                                       \
  AM_CPU_CLONES static void split_sum_##N(const T *x, const uint8_t *valid, int64_t vpos, \
                                          int64_t n, uint64_t *high, uint64_t *low) {     \
    uint64_t hi = 0, lo = 0;                                                              \
    for (int64_t i = 0; i < n; i += 64) {                                                 \
      uint64_t w = am_bits_valid(valid, vpos + i, n - i);                                 \
      if (!w) continue;                                                                   \
      CHUNK(T, c, buf, x, i, n, w, 0)                                                     \
      for (int j = 0; j < 64; j++) {                                                      \
        hi += (uint64_t)((ACC)c[j] >> 32);                                                \
        lo += (uint32_t)c[j];                                                             \
      }                                                                                   \
    }                                                                                     \
    *high = hi;                                                                           \
    *low = lo;                                                                            \
  }

/* pyarrow's integer mean divides the exact sum, so it needs 128 bits. */
#define DEFINE_EXACT_SUM(T, N, ACC, WIDE)                                                \
  static WIDE exact_sum_##N(const T *x, const uint8_t *valid, int64_t vpos, int64_t n) { \
    WIDE total = 0;                                                                      \
    for (int64_t i = 0; i < n; i += EXACT_BLOCK) {                                       \
      int64_t m = n - i < EXACT_BLOCK ? n - i : EXACT_BLOCK;                             \
      if (sizeof(T) < 8) {                                                               \
        total += (ACC)sum_##N(x + i, valid, vpos + i, m);                                \
      } else {                                                                           \
        uint64_t hi, lo;                                                                 \
        split_sum_##N(x + i, valid, vpos + i, m, &hi, &lo);                              \
        total += (WIDE)(ACC)hi * ((WIDE)1 << 32) + lo;                                   \
      }                                                                                  \
    }                                                                                    \
    return total;                                                                        \
  }

/* ACC: the 64-bit type of the sums, WIDE: of the exact sum, SUM_TYPE: am_sum's
 * result type. */
#define DEFINE_INT_REDUCE(E, T, U, N, F, LO, HI, ACC, WIDE, SUM_TYPE)                           \
  DEFINE_INT_SUM(T, N)                                                                          \
  DEFINE_SPLIT_SUM(T, N, ACC)                                                                   \
  DEFINE_EXACT_SUM(T, N, ACC, WIDE)                                                             \
  DEFINE_INT_EXTREME(T, N, min, LESS, HI)                                                       \
  DEFINE_INT_EXTREME(T, N, max, GREATER, LO)                                                    \
  static void reduce_##N(am_reduce_op op, const void *data, const uint8_t *valid, int64_t vpos, \
                         int64_t n, int64_t count, am_scalar *out) {                            \
    const T *x = data;                                                                          \
    switch (op) {                                                                               \
      case AM_REDUCE_SUM:                                                                       \
        out->type = SUM_TYPE, out->F = (ACC)sum_##N(x, valid, vpos, n);                         \
        break;                                                                                  \
      case AM_REDUCE_MEAN:                                                                      \
        out->type = AM_FLOAT64, out->f64 = (double)exact_sum_##N(x, valid, vpos, n) / count;    \
        break;                                                                                  \
      case AM_REDUCE_MIN:                                                                       \
        out->type = E, out->F = min_##N(x, valid, vpos, n);                                     \
        break;                                                                                  \
      case AM_REDUCE_MAX:                                                                       \
        out->type = E, out->F = max_##N(x, valid, vpos, n);                                     \
        break;                                                                                  \
    }                                                                                           \
  }
#define DEFINE_SIGNED_REDUCE(E, T, U, N, F, LO, HI) \
  DEFINE_INT_REDUCE(E, T, U, N, F, LO, HI, int64_t, __int128, AM_INT64)
#define DEFINE_UNSIGNED_REDUCE(E, T, U, N, F, LO, HI) \
  DEFINE_INT_REDUCE(E, T, U, N, F, LO, HI, uint64_t, unsigned __int128, AM_UINT64)
AM_CPU_SIGNED_TYPES(DEFINE_SIGNED_REDUCE)
AM_CPU_UNSIGNED_TYPES(DEFINE_UNSIGNED_REDUCE)

/* ---- Floats: accumulated in double. */

/* 16 accumulators, because a compiler may not reassociate a float sum
 * itself and independent chains hide the add latency. They are folded into
 * the pairwise sum every LEAF chunks (each then holds 16 values, as in
 * numpy's 128-value leaves of 8 accumulators). */
#define LEAF 4
#define DEFINE_FLOAT_SUM(T, N)                                                                     \
  static inline void fold_leaf_##N(double acc[16], pairwise *sums) {                               \
    for (int half = 8; half; half >>= 1)                                                           \
      for (int k = 0; k < half; k++) acc[k] += acc[k + half];                                      \
    pairwise_add(sums, acc[0]);                                                                    \
    memset(acc, 0, 16 * sizeof *acc);                                                              \
  }                                                                                                \
  AM_CPU_CLONES static double sum_##N(const T *x, const uint8_t *valid, int64_t vpos, int64_t n) { \
    pairwise sums = {.depth = 0, .chunks = 0};                                                     \
    double acc[16] = {0};                                                                          \
    int chunks = 0;                                                                                \
    for (int64_t i = 0; i < n; i += 64) {                                                          \
      uint64_t w = am_bits_valid(valid, vpos + i, n - i);                                          \
      if (!w) continue;                                                                            \
      CHUNK(T, c, buf, x, i, n, w, 0)                                                              \
      for (int j = 0; j < 64; j += 16)                                                             \
        for (int k = 0; k < 16; k++) acc[k] += (double)c[j + k];                                   \
      if (++chunks == LEAF) {                                                                      \
        fold_leaf_##N(acc, &sums);                                                                 \
        chunks = 0;                                                                                \
      }                                                                                            \
    }                                                                                              \
    if (chunks) fold_leaf_##N(acc, &sums);                                                         \
    return pairwise_total(&sums);                                                                  \
  }

/* Min stays +inf (max -inf) when every valid slot is NaN or that infinity:
 * the answer is the infinity if one is there, else NaN. Rare, so plain. */
#define DEFINE_FLOAT_EXTREME_FIX(T, N)                                                            \
  static double nan_unless_present_##N(const T *x, const uint8_t *valid, int64_t vpos, int64_t n, \
                                       T infinity) {                                              \
    for (int64_t i = 0; i < n; i++)                                                               \
      if (x[i] == infinity && (!valid || am_bit_get(valid, vpos + i))) return infinity;           \
    return NAN;                                                                                   \
  }

#define DEFINE_FLOAT_REDUCE(E, T, U, N, F, LO, HI)                                              \
  DEFINE_FLOAT_SUM(T, N)                                                                        \
  DEFINE_FLOAT_EXTREME(T, N, min, LESS, HI)                                                     \
  DEFINE_FLOAT_EXTREME(T, N, max, GREATER, LO)                                                  \
  DEFINE_FLOAT_EXTREME_FIX(T, N)                                                                \
  static void reduce_##N(am_reduce_op op, const void *data, const uint8_t *valid, int64_t vpos, \
                         int64_t n, int64_t count, am_scalar *out) {                            \
    const T *x = data;                                                                          \
    T r;                                                                                        \
    out->type = AM_FLOAT64;                                                                     \
    switch (op) {                                                                               \
      case AM_REDUCE_SUM:                                                                       \
        out->f64 = sum_##N(x, valid, vpos, n);                                                  \
        break;                                                                                  \
      case AM_REDUCE_MEAN:                                                                      \
        out->f64 = sum_##N(x, valid, vpos, n) / count;                                          \
        break;                                                                                  \
      case AM_REDUCE_MIN:                                                                       \
        r = min_##N(x, valid, vpos, n);                                                         \
        out->type = E, out->f64 = r == HI ? nan_unless_present_##N(x, valid, vpos, n, HI) : r;  \
        break;                                                                                  \
      case AM_REDUCE_MAX:                                                                       \
        r = max_##N(x, valid, vpos, n);                                                         \
        out->type = E, out->f64 = r == LO ? nan_unless_present_##N(x, valid, vpos, n, LO) : r;  \
        break;                                                                                  \
    }                                                                                           \
  }
AM_CPU_FLOAT_TYPES(DEFINE_FLOAT_REDUCE)

/* ---- Booleans: counts of set bits. min is "every valid slot is true". */
static void reduce_bool(am_reduce_op op, const am_array *array, int64_t count, am_scalar *out) {
  int64_t trues = am_cpu_has_nulls(array)
                      ? am_bits_count_and(array->data, array->offset, array->validity,
                                          array->offset, array->length)
                      : am_bits_count(array->data, array->offset, array->length);
  switch (op) {
    case AM_REDUCE_SUM:
      out->type = AM_UINT64, out->u64 = (uint64_t)trues;
      break;
    case AM_REDUCE_MEAN:
      out->type = AM_FLOAT64, out->f64 = (double)trues / count;
      break;
    case AM_REDUCE_MIN:
      out->type = AM_BOOL, out->i64 = trues == count;
      break;
    case AM_REDUCE_MAX:
      out->type = AM_BOOL, out->i64 = trues > 0;
      break;
  }
}

/* ---- In parallel: sums of integers, min and max, one partial per range.
 * (Integer sums wrap, so partials add exactly; float sums and means stay on
 * one thread, so their bits never depend on the thread count.) */
typedef void (*reduce_fn)(am_reduce_op op, const void *data, const uint8_t *valid, int64_t vpos,
                          int64_t n, int64_t count, am_scalar *out);

typedef struct reduce_job {
  reduce_fn fn;
  am_reduce_op op;
  const char *data;
  size_t width;
  const uint8_t *valid;
  int64_t vpos, n, count;
  int parts;
  am_scalar partial[64];
} reduce_job;

static void reduce_part(void *ctx, int part) {
  reduce_job *job = ctx;
  int64_t begin, end;
  am_pool_range(job->n, job->parts, part, &begin, &end);
  memset(&job->partial[part], 0, sizeof job->partial[part]);
  job->partial[part].is_null = 1;
  if (end > begin)
    job->fn(job->op, job->data + begin * job->width, job->valid, job->vpos + begin, end - begin,
            job->count, &job->partial[part]),
        job->partial[part].is_null = 0;
}

/* Whether partial value a beats b for op (NaN never beats). */
static int better(am_reduce_op op, am_type type, const am_scalar *a, const am_scalar *b) {
  if (am_type_is_float(type)) {
    if (a->f64 != a->f64) return 0;
    if (b->f64 != b->f64) return 1;
    return op == AM_REDUCE_MIN ? a->f64 < b->f64 : a->f64 > b->f64;
  }
  if (am_type_is_signed(type)) return op == AM_REDUCE_MIN ? a->i64 < b->i64 : a->i64 > b->i64;
  return op == AM_REDUCE_MIN ? a->u64 < b->u64 : a->u64 > b->u64;
}

static void reduce_parallel(reduce_job *job, am_type type, am_scalar *out) {
  am_pool_run(job->parts, reduce_part, job);
  am_scalar result;
  int first = 0;
  while (job->partial[first].is_null) first++; /* n > 0: some range is not empty */
  result = job->partial[first];
  for (int p = first + 1; p < job->parts; p++) {
    const am_scalar *s = &job->partial[p];
    if (s->is_null) continue;
    if (job->op == AM_REDUCE_SUM) {
      result.i64 = (int64_t)((uint64_t)result.i64 + (uint64_t)s->i64);
      result.u64 += s->u64;
    } else if (better(job->op, type, s, &result)) {
      result = *s;
    }
  }
  *out = result;
}

static const reduce_fn reducers[AM_TYPE_COUNT] = {
#define ENTRY(E, T, U, N, F, LO, HI) [E] = reduce_##N,
    AM_CPU_NUMERIC_TYPES(ENTRY)
#undef ENTRY
};

/* The value fields are filled for the input type; `type` (the ABI's
 * decision, core/ops.h's rule) is what the caller reads them as. */
int am_cpu_reduce(am_err *err, am_reduce_op op, const am_array *array, am_type type,
                  am_scalar *out) {
  am_scalar result;
  memset(&result, 0, sizeof result);
  int64_t count = array->length - am_cpu_nulls(array);
  if (count == 0) {
    result.is_null = 1;
  } else if (array->type == AM_BOOL) {
    reduce_bool(op, array, count, &result);
  } else {
    const uint8_t *valid = am_cpu_has_nulls(array) ? array->validity : NULL;
    int parts = am_type_is_numeric(array->type) && op != AM_REDUCE_MEAN &&
                        !(op == AM_REDUCE_SUM && am_type_is_float(array->type))
                    ? am_pool_parts(array->length)
                    : 1;
    if (parts > 1) {
      reduce_job job = {.fn = reducers[array->type],
                        .op = op,
                        .width = (size_t)am_type_bits(array->type) / 8,
                        .valid = valid,
                        .vpos = array->offset,
                        .n = array->length,
                        .count = count,
                        .parts = parts};
      job.data = (const char *)array->data + array->offset * job.width;
      reduce_parallel(&job, array->type, &result);
      result.type = type;
      *out = result;
      return AM_OK;
    }
    switch (array->type) {
#define CASE(E, T, U, N, F, LO, HI)                                                             \
  case E:                                                                                       \
    reduce_##N(op, (const T *)array->data + array->offset, valid, array->offset, array->length, \
               count, &result);                                                                 \
    break;
      AM_CPU_NUMERIC_TYPES(CASE)
#undef CASE
      default:
        return am_fail(err, AM_ETYPE, "no reduction for %s", am_type_name(array->type));
    }
  }
  result.type = type;
  *out = result;
  return AM_OK;
}
