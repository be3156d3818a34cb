/* The cumulative functions (am_cumulative): slot i is the
 * op over the start value and slots 0..i, left to right, as pyarrow's
 * cumulative_sum ... cumulative_mean.
 *
 * Integers: a scan in two passes over the pool's parts. The first measures
 * each part: its first null, and the op over its values (the part's total).
 * The host then folds the totals in order into each part's carry (its
 * running value on entry), and the second pass rescans every part from its
 * carry, writing the results. Wrapping sums and products, min and max are
 * associative, so the carries are exact. For the checked ops the totals and
 * carries are kept exactly (sums in 128 bits; products as a sign and a
 * magnitude that saturates): a part whose carry is out of the type's range
 * is skipped, because some earlier part's rescan -- the one where the
 * running value first left the range, whose carry is in range -- reports
 * the overflow; and each rescan checks every step, so nothing is missed and
 * nothing is reported that a left-to-right scan would not report.
 *
 * Floats (and every mean) scan on one thread in pyarrow's order, so the
 * rounding of sums, products and means is pyarrow's exactly.
 *
 * skip_nulls false: the scan stops at the first null of the whole array
 * (the first part with a null holds it), and every slot from there on is
 * null (zero data). skip_nulls true: the result's validity is the input's,
 * and a null slot holds the running value. */
#include <math.h>
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

typedef unsigned __int128 am_u128;
typedef __int128 am_i128;

/* A part's or a carry's value in a form every op of every type fits. */
typedef struct acc {
  uint64_t bits; /* the value in the type's 64-bit form: int64, uint64 or double bits */
  am_i128 exact; /* checked sums: the exact sum */
  am_u128 mag;   /* checked products: the magnitude, saturating at SAT */
  int neg;       /* checked products: the sign */
} acc;

#define SAT ((am_u128)1 << 126)

typedef struct scan_job {
  const am_array *array;
  am_cumulative_op op;
  int skip;
  int parts;
  int pass;
  int64_t stop;           /* skip false: the first null slot (n when none) */
  void *out;              /* offset-0 result data */
  int64_t first_null[64]; /* pass 1 */
  acc total[64];          /* pass 1 */
  acc carry[64];          /* pass 2 */
  int carry_ok[64];       /* pass 2: the carry is in the type's range */
  int64_t overflow[64];   /* pass 2: the first slot where the part overflowed, or -1 */
  const am_scalar *start;
} scan_job;

/* The first null slot in [begin, end), or -1. */
static int64_t first_null(const am_array *a, int64_t begin, int64_t end) {
  if (!a->validity) return -1;
  for (int64_t pos = begin; pos < end; pos += 64) {
    const int64_t m = end - pos < 64 ? end - pos : 64;
    const uint64_t w = ~am_bits_load(a->validity, a->offset + pos, m) & am_bits_mask(m);
    if (w) return pos + __builtin_ctzll(w);
  }
  return -1;
}

static inline int valid_at(const am_array *a, int64_t i) {
  return !a->validity || am_bit_get(a->validity, a->offset + i);
}

/* Checked products' magnitudes: exact below SAT, SAT above. */
static am_u128 mag_mul(am_u128 a, am_u128 b) {
  if (a == 0 || b == 0) return 0;
  const am_u128 big = (am_u128)1 << 64;
  if (a >= big || b >= big) return SAT;
  am_u128 r = a * b;
  return r > SAT ? SAT : r;
}

/* Signs and magnitudes through 128 bits (no type-limits warning for the
 * unsigned rows). */
static inline int is_neg(am_i128 v) { return v < 0; }
static inline am_u128 abs128(am_i128 v) { return (am_u128)(v < 0 ? -v : v); }

/* Integer rows: per type, the part total (pass 1), the fold of two totals,
 * the range test of a checked carry, and the rescan (pass 2). UT is the
 * unsigned type of the same width: wrapping arithmetic without undefined
 * behaviour. */
#define DEFINE_INT(E, T, UT, SHORT, FIELD, LO, HI)                                             \
  static void total_##SHORT(scan_job *job, int64_t begin, int64_t end, acc *out) {             \
    const am_array *a = job->array;                                                            \
    const T *x = (const T *)a->data + a->offset;                                               \
    T v = 0;                                                                                   \
    UT w = job->op == AM_CUMULATIVE_PROD ? 1 : 0;                                              \
    T m = job->op == AM_CUMULATIVE_MIN ? (T)HI : (T)LO;                                        \
    am_i128 s = 0;                                                                             \
    am_u128 mag = 1;                                                                           \
    int neg = 0;                                                                               \
    for (int64_t i = begin; i < end; i++) {                                                    \
      if (!valid_at(a, i)) continue;                                                           \
      v = x[i];                                                                                \
      switch (job->op) {                                                                       \
        case AM_CUMULATIVE_SUM:                                                                \
          w = (UT)(w + (UT)v);                                                                 \
          break;                                                                               \
        case AM_CUMULATIVE_PROD:                                                               \
          w = (UT)(1u * w * (UT)v);                                                            \
          break;                                                                               \
        case AM_CUMULATIVE_SUM_CHECKED:                                                        \
          s += (am_i128)v;                                                                     \
          break;                                                                               \
        case AM_CUMULATIVE_PROD_CHECKED:                                                       \
          neg ^= is_neg(v);                                                                    \
          mag = mag_mul(mag, abs128(v));                                                       \
          break;                                                                               \
        case AM_CUMULATIVE_MIN:                                                                \
          m = v < m ? v : m;                                                                   \
          break;                                                                               \
        case AM_CUMULATIVE_MAX:                                                                \
          m = v > m ? v : m;                                                                   \
          break;                                                                               \
        default:                                                                               \
          break;                                                                               \
      }                                                                                        \
    }                                                                                          \
    out->exact = s, out->mag = mag, out->neg = neg;                                            \
    out->bits = job->op == AM_CUMULATIVE_MIN || job->op == AM_CUMULATIVE_MAX ? (uint64_t)(T)m  \
                                                                             : (uint64_t)(T)w; \
  }                                                                                            \
  /* carry = op(carry, total); returns whether the carry is in range. */                       \
  static int fold_##SHORT(am_cumulative_op op, acc *c, const acc *t) {                         \
    T cv = (T)c->bits, tv = (T)t->bits;                                                        \
    switch (op) {                                                                              \
      case AM_CUMULATIVE_SUM:                                                                  \
        c->bits = (uint64_t)(T)(UT)((UT)cv + (UT)tv);                                          \
        return 1;                                                                              \
      case AM_CUMULATIVE_PROD:                                                                 \
        c->bits = (uint64_t)(T)(UT)(1u * (UT)cv * (UT)tv);                                     \
        return 1;                                                                              \
      case AM_CUMULATIVE_MIN:                                                                  \
        c->bits = (uint64_t)(tv < cv ? tv : cv);                                               \
        return 1;                                                                              \
      case AM_CUMULATIVE_MAX:                                                                  \
        c->bits = (uint64_t)(tv > cv ? tv : cv);                                               \
        return 1;                                                                              \
      case AM_CUMULATIVE_SUM_CHECKED:                                                          \
        c->exact += t->exact;                                                                  \
        c->bits = (uint64_t)(T)c->exact;                                                       \
        return c->exact >= (am_i128)(LO) && c->exact <= (am_i128)(HI);                         \
      default: /* PROD_CHECKED */                                                              \
        c->neg ^= t->neg;                                                                      \
        c->mag = mag_mul(c->mag, t->mag);                                                      \
        if (c->mag == 0) c->neg = 0;                                                           \
        if (c->neg ? c->mag > (am_u128)(-(am_i128)(LO)) : c->mag > (am_u128)(HI)) return 0;    \
        c->bits = (uint64_t)(T)(c->neg ? -(am_i128)c->mag : (am_i128)c->mag);                  \
        return 1;                                                                              \
    }                                                                                          \
  }                                                                                            \
  /* The carry as exact forms, from the start value. */                                        \
  static void start_##SHORT(const am_scalar *s, acc *c) {                                      \
    T v = (T)s->FIELD;                                                                         \
    c->bits = (uint64_t)v;                                                                     \
    c->exact = (am_i128)v;                                                                     \
    c->neg = is_neg(v);                                                                        \
    c->mag = abs128(v);                                                                        \
  }                                                                                            \
  /* Slots [begin, end) from `carry`; the first overflowing slot or -1. */                     \
  static int64_t rescan_##SHORT(scan_job *job, int64_t begin, int64_t end, uint64_t carry) {   \
    const am_array *a = job->array;                                                            \
    const T *x = (const T *)a->data + a->offset;                                               \
    T *o = job->out;                                                                           \
    T c = (T)carry;                                                                            \
    const int dense = !a->validity;                                                            \
    switch (job->op) {                                                                         \
      case AM_CUMULATIVE_SUM:                                                                  \
        for (int64_t i = begin; i < end; i++) {                                                \
          if (dense || valid_at(a, i)) c = (T)(UT)((UT)c + (UT)x[i]);                          \
          o[i] = c;                                                                            \
        }                                                                                      \
        break;                                                                                 \
      case AM_CUMULATIVE_PROD:                                                                 \
        for (int64_t i = begin; i < end; i++) {                                                \
          if (dense || valid_at(a, i)) c = (T)(UT)(1u * (UT)c * (UT)x[i]);                     \
          o[i] = c;                                                                            \
        }                                                                                      \
        break;                                                                                 \
      case AM_CUMULATIVE_SUM_CHECKED:                                                          \
        for (int64_t i = begin; i < end; i++) {                                                \
          if ((dense || valid_at(a, i)) && __builtin_add_overflow(c, x[i], &c)) return i;      \
          o[i] = c;                                                                            \
        }                                                                                      \
        break;                                                                                 \
      case AM_CUMULATIVE_PROD_CHECKED:                                                         \
        for (int64_t i = begin; i < end; i++) {                                                \
          if ((dense || valid_at(a, i)) && __builtin_mul_overflow(c, x[i], &c)) return i;      \
          o[i] = c;                                                                            \
        }                                                                                      \
        break;                                                                                 \
      case AM_CUMULATIVE_MIN:                                                                  \
        for (int64_t i = begin; i < end; i++) {                                                \
          if ((dense || valid_at(a, i)) && x[i] < c) c = x[i];                                 \
          o[i] = c;                                                                            \
        }                                                                                      \
        break;                                                                                 \
      default:                                                                                 \
        for (int64_t i = begin; i < end; i++) {                                                \
          if ((dense || valid_at(a, i)) && x[i] > c) c = x[i];                                 \
          o[i] = c;                                                                            \
        }                                                                                      \
        break;                                                                                 \
    }                                                                                          \
    return -1;                                                                                 \
  }
AM_CPU_INTEGER_TYPES(DEFINE_INT)
#undef DEFINE_INT

/* Floats, on one thread, in pyarrow's order: the running value in the
 * type (float32 sums stay float32), min / max as fmin / fmax with ties to
 * the later value (pyarrow gives -0.0 after 0.0, and 0.0 after -0.0). */
#define DEFINE_FLOAT(E, T, UT, SHORT, FIELD, LO, HI)     \
  static void scan_##SHORT(scan_job *job, int64_t end) { \
    const am_array *a = job->array;                      \
    const T *x = (const T *)a->data + a->offset;         \
    T *o = job->out;                                     \
    T c = (T)job->start->f64;                            \
    for (int64_t i = 0; i < end; i++) {                  \
      if (valid_at(a, i)) {                              \
        T v = x[i];                                      \
        switch (job->op) {                               \
          case AM_CUMULATIVE_SUM:                        \
          case AM_CUMULATIVE_SUM_CHECKED:                \
            c = c + v;                                   \
            break;                                       \
          case AM_CUMULATIVE_PROD:                       \
          case AM_CUMULATIVE_PROD_CHECKED:               \
            c = c * v;                                   \
            break;                                       \
          case AM_CUMULATIVE_MIN:                        \
            c = v != v ? c : c < v ? c : v;              \
            break;                                       \
          default:                                       \
            c = v != v ? c : c > v ? c : v;              \
            break;                                       \
        }                                                \
      }                                                  \
      o[i] = c;                                          \
    }                                                    \
  }
AM_CPU_FLOAT_TYPES(DEFINE_FLOAT)
#undef DEFINE_FLOAT

/* Means: the running float64 sum of the values over their count. */
#define DEFINE_MEAN(E, T, UT, SHORT, FIELD, LO, HI)      \
  static void mean_##SHORT(scan_job *job, int64_t end) { \
    const am_array *a = job->array;                      \
    const T *x = (const T *)a->data + a->offset;         \
    double *o = job->out, s = 0.0;                       \
    int64_t count = 0;                                   \
    for (int64_t i = 0; i < end; i++) {                  \
      if (valid_at(a, i)) s += (double)x[i], count++;    \
      o[i] = count ? s / (double)count : 0.0;            \
    }                                                    \
  }
AM_CPU_NUMERIC_TYPES(DEFINE_MEAN)
#undef DEFINE_MEAN

typedef struct int_row {
  void (*total)(scan_job *job, int64_t begin, int64_t end, acc *out);
  int (*fold)(am_cumulative_op op, acc *c, const acc *t);
  void (*start)(const am_scalar *s, acc *c);
  int64_t (*rescan)(scan_job *job, int64_t begin, int64_t end, uint64_t carry);
} int_row;

static const int_row *int_row_of(am_type t) {
  static const int_row rows[AM_TYPE_COUNT] = {
#define ROW(E, T, UT, SHORT, FIELD, LO, HI) \
  [E] = {total_##SHORT, fold_##SHORT, start_##SHORT, rescan_##SHORT},
      AM_CPU_INTEGER_TYPES(ROW)
#undef ROW
  };
  return am_type_is_integer(t) ? &rows[t] : NULL;
}

static void scan_part(void *ctx, int part) {
  scan_job *job = ctx;
  const am_array *a = job->array;
  const int_row *row = int_row_of(a->type);
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  if (job->pass == 1) {
    job->first_null[part] = job->skip || end <= begin ? -1 : first_null(a, begin, end);
    int64_t stop = job->first_null[part] >= 0 ? job->first_null[part] : end;
    row->total(job, begin, stop, &job->total[part]);
    return;
  }
  job->overflow[part] = -1;
  int64_t stop = end < job->stop ? end : job->stop;
  if (stop > begin && job->carry_ok[part])
    job->overflow[part] = row->rescan(job, begin, stop, job->carry[part].bits);
  int64_t from = begin > job->stop ? begin : job->stop; /* null from the first null on */
  if (end > from)
    memset((char *)job->out + from * (am_type_bits(a->type) / 8), 0,
           (size_t)(end - from) * (size_t)(am_type_bits(a->type) / 8));
}

/* The result, valid up to `stop` (skip false) or where the input is. */
static int alloc_result(am_err *err, const scan_job *job, am_type type, am_array **out) {
  const am_array *a = job->array;
  int64_t n = a->length;
  if (job->skip) return am_cpu_result(err, type, n, a, NULL, out);
  am_array *result = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), type, n, 0, &result);
  if (status != AM_OK) return status;
  if (job->stop >= n) {
    atomic_store_explicit(&result->null_count, 0, memory_order_relaxed);
  } else {
    am_buffer *validity = am_buffer_alloc_host((n + 7) / 8);
    if (!validity) {
      am_array_free(result);
      return am_fail(err, AM_ENOMEM, "out of memory allocating a bitmap of %lld slots",
                     (long long)n);
    }
    uint64_t *bits = validity->ptr;
    am_bits_fill(bits, n, 0);
    for (int64_t w = 0; w * 64 < job->stop; w++)
      bits[w] = job->stop - w * 64 >= 64 ? ~(uint64_t)0 : am_bits_mask(job->stop - w * 64);
    am_cpu_set_validity(result, validity, job->stop);
  }
  *out = result;
  return AM_OK;
}

static const char *op_name(am_cumulative_op op) {
  static const char *const names[] = {
      "cumulative_sum", "cumulative_sum_checked", "cumulative_prod", "cumulative_prod_checked",
      "cumulative_min", "cumulative_max",         "cumulative_mean"};
  return (unsigned)op <= AM_CUMULATIVE_MEAN ? names[op] : "cumulative";
}

int am_cpu_cumulative(am_err *err, am_cumulative_op op, const am_array *array,
                      const am_scalar *start, int skip_nulls, am_array **out) {
  am_type t = array->type;
  int64_t n = array->length;
  if (!am_type_is_numeric(t) || (unsigned)op > AM_CUMULATIVE_MEAN)
    return am_fail(err, AM_ETYPE, "no %s kernel for %s", op_name(op), am_type_name(t));
  const int mean = op == AM_CUMULATIVE_MEAN;
  const int_row *row = mean ? NULL : int_row_of(t);
  scan_job job = {.array = array,
                  .op = op,
                  .skip = skip_nulls,
                  .parts = row ? am_pool_parts(n) : 1,
                  .stop = n,
                  .start = start};
  if (!skip_nulls) {
    int64_t f = first_null(array, 0, n);
    if (f >= 0) job.stop = f;
  }
  am_array *result = NULL;
  int status = alloc_result(err, &job, mean ? AM_FLOAT64 : t, &result);
  if (status != AM_OK) return status;
  job.out = result->data_buf->ptr;
  int width = am_type_bits(mean ? AM_FLOAT64 : t) / 8;
  if (!row) { /* floats and means: one thread, pyarrow's order */
    switch (mean ? AM_TYPE_INVALID : t) {
      case AM_FLOAT32:
        scan_f32(&job, job.stop);
        break;
      case AM_FLOAT64:
        scan_f64(&job, job.stop);
        break;
      default:
        switch (t) {
#define CASE(E, T, UT, SHORT, FIELD, LO, HI) \
  case E:                                    \
    mean_##SHORT(&job, job.stop);            \
    break;
          AM_CPU_NUMERIC_TYPES(CASE)
#undef CASE
          default:
            break;
        }
    }
    if (job.stop < n)
      memset((char *)job.out + job.stop * width, 0, (size_t)(n - job.stop) * (size_t)width);
    *out = result;
    return AM_OK;
  }
  job.pass = 1; /* one part: its carry is the start, nothing to measure */
  if (job.parts > 1) am_pool_run(job.parts, scan_part, &job);
  acc c = {0};
  row->start(start, &c);
  int ok = 1;
  for (int p = 0; p < job.parts; p++) {
    job.carry[p] = c;
    job.carry_ok[p] = ok;
    /* A carry out of range stays out: the earlier part reports it. */
    if (ok && p + 1 < job.parts) ok = row->fold(op, &c, &job.total[p]);
  }
  job.pass = 2;
  am_pool_run(job.parts, scan_part, &job);
  for (int p = 0; p < job.parts; p++) {
    if (job.overflow[p] >= 0) {
      am_array_free(result);
      return am_fail(err, AM_EOVERFLOW, "overflow (%s of %s at slot %lld)", op_name(op),
                     am_type_name(t), (long long)job.overflow[p]);
    }
  }
  *out = result;
  return AM_OK;
}
