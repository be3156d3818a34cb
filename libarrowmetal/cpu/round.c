/* round on the CPU: core/round.h's element functions,
 * compiled here as C, over the pool's ranges. Every slot is computed, null
 * ones too (no input can fault), and the result shares the input's
 * validity; a failure counts only where the slot is valid, and the last
 * such slot is the one reported, as pyarrow reports it (its kernel runs on,
 * each failure replacing the one before). */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bitmap.h"
#include "core/round.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

/* core/round.h's vocabulary, for C. The scaling product is a plain one:
 * the library is built as ISO C (-std=c11), where GCC contracts nothing
 * into an fma, and clang contracts only within one expression. */
#define DEVFN static inline
#define PRIV
typedef uint32_t am_u32;
typedef uint64_t am_u64;
#define AM_LIBM(fn, x) _Generic((x), float: fn##f, double: fn)(x)
#define am_floor(x) AM_LIBM(floor, x)
#define am_ceil(x) AM_LIBM(ceil, x)
#define am_trunc(x) AM_LIBM(trunc, x)
#define am_round(x) AM_LIBM(round, x)
#define am_isfinite(x) isfinite(x)
#define am_signbit(x) signbit(x)
#define am_fmul(a, b) ((a) * (b))

AM_ROUND_FLOAT_DEF(float, round_f32)
AM_ROUND_FLOAT_DEF(double, round_f64)
#define AM_NEG(x) ((x) < 0)
AM_ROUND_INT_DEF(int8_t, round_i8)
AM_ROUND_INT_DEF(int16_t, round_i16)
AM_ROUND_INT_DEF(int32_t, round_i32)
AM_ROUND_INT_DEF(int64_t, round_i64)
#undef AM_NEG
#define AM_NEG(x) 0
AM_ROUND_INT_DEF(uint8_t, round_u8)
AM_ROUND_INT_DEF(uint16_t, round_u16)
AM_ROUND_INT_DEF(uint32_t, round_u32)
AM_ROUND_INT_DEF(uint64_t, round_u64)
#undef AM_NEG

typedef struct round_job {
  const char *x;
  char *o;
  const uint8_t *valid; /* the result's bitmap (offset 0), NULL: all valid */
  int64_t width;
  am_type type;
  int mode;
  int up, down;         /* floats: scale by multiplying; scale back by dividing */
  double p;             /* floats: 10^|ndigits| or the multiple */
  uint64_t m;           /* integers: the multiple */
  _Atomic int64_t last; /* slot * 8 + failure of the last refused slot, or -1 */
} round_job;

/* Slots [begin, end) of one type; the last refused valid slot of the range
 * is reported. */
#define FLOAT_RANGE(T, FN)                                                   \
  do {                                                                       \
    const T *xs = (const T *)job->x;                                         \
    T *o = (T *)job->o;                                                      \
    const T p = (T)job->p;                                                   \
    for (int64_t i = begin; i < end; i++) {                                  \
      am_u32 f = 0;                                                          \
      o[i] = FN(xs[i], p, job->up, job->down, job->mode, &f);                \
      if (f && (!job->valid || am_bit_get(job->valid, i))) last = i * 8 + f; \
    }                                                                        \
  } while (0)
#define INT_RANGE(T, FN, LO, HI)                                             \
  do {                                                                       \
    const T *xs = (const T *)job->x;                                         \
    T *o = (T *)job->o;                                                      \
    const T m = (T)job->m;                                                   \
    for (int64_t i = begin; i < end; i++) {                                  \
      am_u32 f = 0;                                                          \
      o[i] = FN(xs[i], m, (T)(LO), (T)(HI), job->mode, &f);                  \
      if (f && (!job->valid || am_bit_get(job->valid, i))) last = i * 8 + f; \
    }                                                                        \
  } while (0)

/* Floats to whole numbers (ndigits 0 or a multiple of 1: p = 1) in the
 * modes that are one libm function: round_f64's result for every input (an
 * integral x, -0.0 and the infinities are kept, ties go to even in
 * HALF_TO_EVEN, nothing can fail), in a loop the compiler vectorizes
 * (roundpd): pyarrow's default round ran 5.8 ns a slot through the general
 * path, 1.9x pyarrow. */
#define WHOLE_LOOP(T, NAME, FN)                                                    \
  AM_CPU_CLONES static void NAME(const T *restrict xs, T *restrict o, int64_t n) { \
    for (int64_t i = 0; i < n; i++) o[i] = FN(xs[i]);                              \
  }
WHOLE_LOOP(double, floor_f64, floor)
WHOLE_LOOP(double, ceil_f64, ceil)
WHOLE_LOOP(double, trunc_f64, trunc)
WHOLE_LOOP(double, even_f64, rint)
WHOLE_LOOP(float, floor_f32, floorf)
WHOLE_LOOP(float, ceil_f32, ceilf)
WHOLE_LOOP(float, trunc_f32, truncf)
WHOLE_LOOP(float, even_f32, rintf)

/* 1 when the float range went through a WHOLE_LOOP: modes DOWN (0), UP (1),
 * TOWARDS_ZERO (2) and HALF_TO_EVEN (8) at p = 1. */
static int round_whole(const round_job *job, int64_t begin, int64_t end) {
  if (job->p != 1.0 || (job->mode > 2 && job->mode != 8)) return 0;
  const int k = job->mode == 8 ? 3 : job->mode;
  if (job->type == AM_FLOAT64) {
    static void (*const fns[4])(const double *, double *, int64_t) = {floor_f64, ceil_f64,
                                                                      trunc_f64, even_f64};
    fns[k]((const double *)job->x + begin, (double *)job->o + begin, end - begin);
    return 1;
  }
  if (job->type == AM_FLOAT32) {
    static void (*const fns[4])(const float *, float *, int64_t) = {floor_f32, ceil_f32, trunc_f32,
                                                                    even_f32};
    fns[k]((const float *)job->x + begin, (float *)job->o + begin, end - begin);
    return 1;
  }
  return 0;
}

/* The rest of the float calls (other ndigits and multiples, or the modes
 * WHOLE_LOOP lacks): round_f64's steps without a branch a slot, so that the
 * loop vectorizes (round_f64 slot by slot: 1.06x pyarrow at 1M rows, 2
 * digits).
 * r = x p / q (one of p and q is 1: exact). f = r - floor(r) is exact
 * (|r| < 2^52 where f is not 0; larger r are whole and keep x), so the
 * rounded r is floor(r) + add, add 0 or 1 (floor(r) + 1 is exact): in a
 * HALF_ mode 1 above the tie (f > 0.5, as round() gives it), and at the tie,
 * or in a directed mode, the mode's rule of r's sign and floor(r)'s parity.
 * The result takes r's sign, as floor, ceil, trunc and round give a zero
 * (a nonzero result has it already). Each slot is round_f64's bit for bit
 * (python/tests/test_round.py, every mode against pyarrow); returns nonzero
 * when a slot's result was not finite (a failure, whose slot round_range
 * then finds with round_f64). */
typedef struct scaled_rule {
  int half;                     /* a HALF_ mode */
  int one, neg, pos, odd, even; /* add where: always, r < 0, r > 0, floor(r) odd, even */
} scaled_rule;

static scaled_rule scaled_rule_of(int mode) {
  static const scaled_rule rules[10] = {
      {0, 0, 0, 0, 0, 0}, /* DOWN */
      {0, 1, 0, 0, 0, 0}, /* UP */
      {0, 0, 1, 0, 0, 0}, /* TOWARDS_ZERO */
      {0, 0, 0, 1, 0, 0}, /* TOWARDS_INFINITY */
      {1, 0, 0, 0, 0, 0}, /* HALF_DOWN */
      {1, 1, 0, 0, 0, 0}, /* HALF_UP */
      {1, 0, 1, 0, 0, 0}, /* HALF_TOWARDS_ZERO */
      {1, 0, 0, 1, 0, 0}, /* HALF_TOWARDS_INFINITY */
      {1, 0, 0, 0, 1, 0}, /* HALF_TO_EVEN */
      {1, 0, 0, 0, 0, 1}, /* HALF_TO_ODD */
  };
  return rules[mode];
}

/* Bitwise & and | on masks as wide as the float (M), so that their lanes
 * and the float's line up, and ?: only between two values: GCC vectorizes no
 * loop with control flow in it. */
#define SCALED_LOOP(T, M, NAME, FLOOR, COPYSIGN)                                             \
  AM_CPU_CLONES static int NAME(const T *restrict xs, T *restrict o, int64_t n, T p, int up, \
                                int down, scaled_rule rule) {                                \
    const T pm = up ? p : (T)1, pd = up ? (T)1 : p;                                          \
    const T qm = down ? (T)1 : p, qd = down ? p : (T)1;                                      \
    const M half = rule.half, one = rule.one, rneg = rule.neg, rpos = rule.pos;              \
    const M rodd = rule.odd, reven = rule.even;                                              \
    M bad = 0;                                                                               \
    for (int64_t i = 0; i < n; i++) {                                                        \
      const T x = xs[i];                                                                     \
      const T r = x * pm / pd;                                                               \
      const T fl = FLOOR(r);                                                                 \
      const T f = r - fl;                                                                    \
      const M neg = r < (T)0;                                                                \
      const M odd = FLOOR(fl * (T)0.5) != fl * (T)0.5;                                       \
      const M by_rule =                                                                      \
          one | (rneg & neg) | (rpos & (neg ^ 1)) | (rodd & odd) | (reven & (odd ^ 1));      \
      const M above = (f > (T)0.5) | ((f == (T)0.5) & by_rule);                              \
      const M add = (half & above) | ((half ^ 1) & by_rule);                                 \
      const T y = COPYSIGN(fl + (add ? (T)1 : (T)0), r) * qm / qd;                           \
      const M keep = (isfinite(x) == 0) | (f == (T)0);                                       \
      const M fail = (keep ^ 1) & (isfinite(y) == 0);                                        \
      bad |= fail;                                                                           \
      o[i] = (keep | fail) ? x : y;                                                          \
    }                                                                                        \
    return bad != 0;                                                                         \
  }
SCALED_LOOP(double, int64_t, scaled_f64, floor, copysign)
SCALED_LOOP(float, int32_t, scaled_f32, floorf, copysignf)

static void round_range(void *ctx, int64_t begin, int64_t end) {
  round_job *job = ctx;
  if (round_whole(job, begin, end)) return;
  int64_t last = -1;
  const scaled_rule rule = scaled_rule_of(job->mode);
  switch (job->type) {
    case AM_FLOAT32:
      if (scaled_f32((const float *)job->x + begin, (float *)job->o + begin, end - begin,
                     (float)job->p, job->up, job->down, rule))
        FLOAT_RANGE(float, round_f32);
      break;
    case AM_FLOAT64:
      if (scaled_f64((const double *)job->x + begin, (double *)job->o + begin, end - begin, job->p,
                     job->up, job->down, rule))
        FLOAT_RANGE(double, round_f64);
      break;
    case AM_INT8:
      INT_RANGE(int8_t, round_i8, INT8_MIN, INT8_MAX);
      break;
    case AM_INT16:
      INT_RANGE(int16_t, round_i16, INT16_MIN, INT16_MAX);
      break;
    case AM_INT32:
      INT_RANGE(int32_t, round_i32, INT32_MIN, INT32_MAX);
      break;
    case AM_INT64:
      INT_RANGE(int64_t, round_i64, INT64_MIN, INT64_MAX);
      break;
    case AM_UINT8:
      INT_RANGE(uint8_t, round_u8, 0, UINT8_MAX);
      break;
    case AM_UINT16:
      INT_RANGE(uint16_t, round_u16, 0, UINT16_MAX);
      break;
    case AM_UINT32:
      INT_RANGE(uint32_t, round_u32, 0, UINT32_MAX);
      break;
    case AM_UINT64:
      INT_RANGE(uint64_t, round_u64, 0, UINT64_MAX);
      break;
    default:
      break;
  }
  if (last < 0) return;
  int64_t seen = atomic_load(&job->last);
  while (last > seen && !atomic_compare_exchange_weak(&job->last, &seen, last)) {
  }
}

int am_cpu_round(am_err *err, const am_array *array, const am_round_spec *spec, am_array **out) {
  am_type t = array->type;
  round_job job = {.width = am_type_bits(t) / 8,
                   .type = t,
                   .mode = (int)spec->mode,
                   .up = spec->scale >= 0,
                   .down = spec->scale > 0,
                   .p = spec->p,
                   .m = spec->m};
  am_array *result = NULL;
  int status = am_cpu_result(err, t, array->length, array, NULL, &result);
  if (status != AM_OK) return status;
  job.x = (const char *)array->data + array->offset * job.width;
  job.o = result->data_buf->ptr;
  job.valid = result->validity;
  atomic_init(&job.last, -1);
  /* Ranges index from 0 here: round_range takes whole slots, not bytes. */
  am_pool_sweep(array->length, job.width, round_range, &job);
  int64_t last = atomic_load(&job.last);
  if (last >= 0) {
    char value[64], multiple[32];
    am_value_text(t, job.x + (last / 8) * job.width, value, sizeof value);
    /* m is within the type and above 0 (a signed type's too): its unsigned
     * digits are the type's value. */
    snprintf(multiple, sizeof multiple, "%llu", (unsigned long long)job.m);
    am_array_free(result);
    return am_round_fail(err, am_type_is_float(t) ? 0 : (int)(last % 8), value, multiple);
  }
  *out = result;
  return AM_OK;
}
