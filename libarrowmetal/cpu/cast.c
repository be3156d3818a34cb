/* Conversions between every pair of types.
 *
 * Numbers convert with one kernel per ordered pair, so that both types are
 * known to the compiler and the loop vectorizes. A kernel converts every
 * slot (null ones too, so it must never hit C's undefined conversions);
 * a safe cast then ORs together, per chunk, whether any value failed its
 * check, and only a failing chunk is searched for its first failing valid
 * slot. */
#include <math.h>
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

/* Slots per check: long enough to amortise the per-chunk test. */
#define CHUNK 1024

/* Range checks on values widened to 64 bits. Inline functions, not
 * expressions in the macros, so that comparisons which a narrow source type
 * makes constant fold silently instead of warning. */
static inline int outside_signed(int64_t v, int64_t lo, int64_t hi) { return (v < lo) | (v > hi); }
static inline int outside_unsigned(uint64_t v, uint64_t hi) { return v > hi; }
static inline int negative_or_above(int64_t v, uint64_t hi) { return (v < 0) | ((uint64_t)v > hi); }

/* Integers a float of `precision` mantissa bits holds exactly: [-2^p, 2^p]. */
#define EXACT_LIMIT(T2) ((int64_t)1 << (sizeof(T2) == 4 ? 24 : 53))

/* The largest float of T1's precision not above `hi` (2^k - 1): the top of
 * the range a float converts from without undefined behaviour. */
static inline uint64_t float_top(uint64_t hi, int precision) {
  int bits = 64 - __builtin_clzll(hi);
  return bits > precision ? hi >> (bits - precision) << (bits - precision) : hi;
}
#define PRECISION(T1) (sizeof(T1) == 4 ? 24 : 53)

/* Saturates v into [lo, top], NaN to 0: afterwards the conversion to the
 * integer type is defined. Written as separate selects, which vectorize as
 * min/max/blend; a nested conditional becomes branches. */
#define DEFINE_CLAMP(T, N)                      \
  static inline T clamp_##N(T v, T lo, T top) { \
    T c = v > top ? top : v;                    \
    c = c < lo ? lo : c;                        \
    return v == v ? c : (T)0;                   \
  }
DEFINE_CLAMP(float, f32)
DEFINE_CLAMP(double, f64)

/* CONVERT_<from field>_<to field>: integers convert as C does (wrapping into
 * narrower types); floats to integers truncate after saturating. */
#define CONVERT_i64_i64(T1, N1, T2, LO2, HI2, v) (T2)(v)
#define CONVERT_i64_u64 CONVERT_i64_i64
#define CONVERT_i64_f64 CONVERT_i64_i64
#define CONVERT_u64_i64 CONVERT_i64_i64
#define CONVERT_u64_u64 CONVERT_i64_i64
#define CONVERT_u64_f64 CONVERT_i64_i64
#define CONVERT_f64_f64 CONVERT_i64_i64
#define CONVERT_f64_i64(T1, N1, T2, LO2, HI2, v) \
  (T2) clamp_##N1(v, (T1)(LO2), (T1)float_top((uint64_t)(HI2), PRECISION(T1)))
#define CONVERT_f64_u64 CONVERT_f64_i64

/* CHECK_<from field>_<to field>: nonzero when value v (converted: c) does not
 * survive a safe cast. A float must come back unchanged from the integer,
 * which catches fractions, NaN, infinities and range at once. */
#define CHECK_i64_i64(T1, T2, LO2, HI2, v, c) outside_signed(v, LO2, HI2)
#define CHECK_i64_u64(T1, T2, LO2, HI2, v, c) negative_or_above(v, HI2)
#define CHECK_u64_i64(T1, T2, LO2, HI2, v, c) outside_unsigned(v, (uint64_t)(HI2))
#define CHECK_u64_u64 CHECK_u64_i64
#define CHECK_i64_f64(T1, T2, LO2, HI2, v, c) outside_signed(v, -EXACT_LIMIT(T2), EXACT_LIMIT(T2))
#define CHECK_u64_f64(T1, T2, LO2, HI2, v, c) outside_unsigned(v, (uint64_t)EXACT_LIMIT(T2))
#define CHECK_f64_i64(T1, T2, LO2, HI2, v, c) ((T1)(c) != (v))
#define CHECK_f64_u64 CHECK_f64_i64
#define CHECK_f64_f64(T1, T2, LO2, HI2, v, c) 0

/* Returns the first valid slot that fails the safe check, or -1. */
typedef am_cpu_cast_fn cast_fn;

/* Converting and checking are separate loops over a chunk in L1: fused, the
 * compiler threads the saturated constants through the check and gives up
 * vectorizing. */
#define DEFINE_CAST(E1, T1, U1, N1, F1, LO1, HI1, E2, T2, U2, N2, F2, LO2, HI2)                   \
  AM_CPU_CLONES static int64_t cast_##N1##_##N2(const void *src, void *dst, const uint8_t *valid, \
                                                int64_t vpos, int64_t n, int safe) {              \
    const T1 *x = src;                                                                            \
    T2 *o = dst;                                                                                  \
    for (int64_t i = 0; i < n; i += CHUNK) {                                                      \
      int64_t m = n - i < CHUNK ? n - i : CHUNK;                                                  \
      for (int64_t j = 0; j < m; j++)                                                             \
        o[i + j] = CONVERT_##F1##_##F2(T1, N1, T2, LO2, HI2, x[i + j]);                           \
      if (!safe) continue;                                                                        \
      int bad = 0;                                                                                \
      for (int64_t j = 0; j < m; j++)                                                             \
        bad |= CHECK_##F1##_##F2(T1, T2, LO2, HI2, x[i + j], o[i + j]);                           \
      if (!bad) continue;                                                                         \
      for (int64_t j = 0; j < m; j++)                                                             \
        if (CHECK_##F1##_##F2(T1, T2, LO2, HI2, x[i + j], o[i + j]) &&                            \
            (!valid || am_bit_get(valid, vpos + i + j)))                                          \
          return i + j;                                                                           \
    }                                                                                             \
    return -1;                                                                                    \
  }
#define DEFINE_CASTS_FROM(E, T, U, N, F, LO, HI) \
  AM_CPU_NUMERIC_TYPES_AFTER(DEFINE_CAST, E, T, U, N, F, LO, HI)
AM_CPU_NUMERIC_TYPES(DEFINE_CASTS_FROM)

static const cast_fn casts[AM_TYPE_COUNT][AM_TYPE_COUNT] = {
#define ENTRY(E1, T1, U1, N1, F1, LO1, HI1, E2, T2, U2, N2, F2, LO2, HI2) \
  [E1][E2] = cast_##N1##_##N2,
#define ENTRIES_FROM(E, T, U, N, F, LO, HI) AM_CPU_NUMERIC_TYPES_AFTER(ENTRY, E, T, U, N, F, LO, HI)
    AM_CPU_NUMERIC_TYPES(ENTRIES_FROM)
#undef ENTRIES_FROM
#undef ENTRY
};

/* Booleans to numbers: 0 or 1. */
#define DEFINE_FROM_BOOL(E, T, U, N, F, LO, HI)                                        \
  AM_CPU_CLONES static void from_bool_##N(const uint8_t *bits, int64_t pos, void *dst, \
                                          int64_t n) {                                 \
    T *o = dst;                                                                        \
    for (int64_t i = 0; i < n; i += 64) {                                              \
      uint64_t w = am_bits_load(bits, pos + i, n - i);                                 \
      uint64_t m = n - i < 64 ? (uint64_t)(n - i) : 64;                                \
      for (uint64_t j = 0; j < m; j++) o[i + j] = (T)((w >> j) & 1);                   \
    }                                                                                  \
  }
AM_CPU_NUMERIC_TYPES(DEFINE_FROM_BOOL)

static void (*const from_bool[AM_TYPE_COUNT])(const uint8_t *, int64_t, void *, int64_t) = {
#define ENTRY(E, T, U, N, F, LO, HI) [E] = from_bool_##N,
    AM_CPU_NUMERIC_TYPES(ENTRY)
#undef ENTRY
};

/* [lo, hi] of the integers `t` holds exactly (a float: +-2^precision). */
static void exact_range(am_type t, int64_t *lo, uint64_t *hi) {
  int bits = am_type_bits(t);
  if (am_type_is_float(t)) {
    *hi = (uint64_t)1 << (t == AM_FLOAT32 ? 24 : 53);
    *lo = -(int64_t)*hi;
  } else if (am_type_is_signed(t)) {
    *hi = ((uint64_t)1 << (bits - 1)) - 1;
    *lo = -(int64_t)*hi - 1;
  } else {
    *hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    *lo = 0;
  }
}

/* pyarrow's messages; the range it names is the target's clipped to the
 * source type's. */
static int cast_failure(am_err *err, am_type from, am_type to, const void *x, int64_t i) {
  am_scalar v = {0};
  switch (from) {
#define CASE(E, T, U, N, F, LO, HI) \
  case E:                           \
    v.F = ((const T *)x)[i];        \
    break;
    AM_CPU_NUMERIC_TYPES(CASE)
#undef CASE
    default:
      break;
  }
  if (am_type_is_float(from))
    return am_fail(err, AM_EOVERFLOW, "Float value %f was truncated converting to %s", v.f64,
                   am_type_name(to));
  int64_t lo, from_lo;
  uint64_t hi, from_hi;
  exact_range(to, &lo, &hi);
  exact_range(from, &from_lo, &from_hi);
  if (from_lo > lo) lo = from_lo;
  if (from_hi < hi) hi = from_hi;
  if (am_type_is_signed(from))
    return am_fail(err, AM_EOVERFLOW, "Integer value %lld not in range: %lld to %llu",
                   (long long)v.i64, (long long)lo, (unsigned long long)hi);
  return am_fail(err, AM_EOVERFLOW, "Integer value %llu not in range: %lld to %llu",
                 (unsigned long long)v.u64, (long long)lo, (unsigned long long)hi);
}

typedef struct cast_job {
  cast_fn fn;
  const char *x;
  char *o;
  size_t from_width, to_width;
  const uint8_t *valid;
  int64_t vpos, n;
  int safe, parts;
  int64_t bad[64];
} cast_job;

static void cast_part(void *ctx, int part) {
  cast_job *job = ctx;
  int64_t begin, end;
  am_pool_range(job->n, job->parts, part, &begin, &end);
  job->bad[part] = -1;
  if (end <= begin) return;
  if ((int64_t)job->to_width * job->n >= AM_STREAM_MIN) {
    /* Blocks through L1, streamed out (see AM_STREAM_MIN). */
    _Alignas(64) char block[AM_STREAM_BLOCK];
    int64_t step = AM_STREAM_BLOCK / (int64_t)job->to_width;
    for (int64_t i = begin; i < end; i += step) {
      int64_t m = end - i < step ? end - i : step;
      int64_t bad =
          job->fn(job->x + i * job->from_width, block, job->valid, job->vpos + i, m, job->safe);
      if (bad >= 0) {
        job->bad[part] = i + bad;
        break;
      }
      int64_t bytes = m * (int64_t)job->to_width, whole = bytes / 64 * 64;
      char *o = job->o + i * job->to_width;
      am_stream_copy(o, block, whole);
      if (whole < bytes) memcpy(o + whole, block + whole, (size_t)(bytes - whole));
    }
    am_stream_fence();
    return;
  }
  int64_t bad = job->fn(job->x + begin * job->from_width, job->o + begin * job->to_width,
                        job->valid, job->vpos + begin, end - begin, job->safe);
  if (bad >= 0) job->bad[part] = begin + bad;
}

/* The first failing slot of any part, or -1. */
static int64_t cast_parallel(cast_job *job) {
  am_pool_run(job->parts, cast_part, job);
  for (int p = 0; p < job->parts; p++)
    if (job->bad[p] >= 0) return job->bad[p];
  return -1;
}

int am_cpu_cast(am_err *err, const am_array *array, am_type to, int safe, am_array **out) {
  am_type from = array->type;
  /* bool and numbers only: the ABI converts the other kinds itself (temporal
   * types on their storage integers); a caller that passes one anyway (as
   * coalesce's common type once did with a duration) gets an error, not a
   * missing table entry. */
  cast_fn fn = am_cpu_float16_cast(from, to); /* float16's pairs (cast_float16.c) */
  const int kernel = fn || (am_type_valid(from) && am_type_valid(to) &&
                            (from == AM_BOOL || am_type_is_numeric(from)) &&
                            (to == AM_BOOL || am_type_is_numeric(to)));
  if (!kernel)
    return am_fail(err, AM_ETYPE, "no cast from %s to %s", am_type_name(from), am_type_name(to));
  if (to == AM_BOOL && from != AM_BOOL) {
    am_scalar zero = {.type = from};
    return am_cpu_compare(err, AM_NE, array, NULL, &zero, out);
  }
  am_array *result = NULL;
  int status = am_cpu_result(err, to, array->length, array, NULL, &result);
  if (status != AM_OK) return status;
  void *o = result->data_buf->ptr;
  if (from == AM_BOOL) {
    if (to == AM_BOOL)
      am_bits_apply(AM_BITS_COPY, o, array->data, array->offset, NULL, 0, array->length);
    else
      from_bool[to](array->data, array->offset, o, array->length);
  } else {
    if (!fn) fn = casts[from][to];
    const void *x = (const char *)array->data + array->offset * (am_type_bits(from) / 8);
    const uint8_t *valid = am_cpu_has_nulls(array) ? array->validity : NULL;
    int parts = am_pool_parts(array->length);
    int64_t bad;
    if (parts > 1) {
      cast_job job = {.fn = fn,
                      .x = x,
                      .o = o,
                      .from_width = (size_t)am_type_bits(from) / 8,
                      .to_width = (size_t)am_type_bits(to) / 8,
                      .valid = valid,
                      .vpos = array->offset,
                      .n = array->length,
                      .safe = safe,
                      .parts = parts};
      bad = cast_parallel(&job);
    } else {
      bad = fn(x, o, valid, array->offset, array->length, safe);
    }
    if (bad >= 0) {
      am_array_free(result);
      return cast_failure(err, from, to, x, bad);
    }
  }
  *out = result;
  return AM_OK;
}
