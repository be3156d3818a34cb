/* The predicates of one array (am_is): is_null and is_valid read the
 * validity bitmap alone, a word at a time; is_nan, is_finite and is_inf of
 * floats test 64 values into bytes, which vectorizes, and pack the bytes into
 * one word (as compare does); of integers they are constants, since an
 * integer is never NaN nor infinite. The results of is_nan, is_finite and
 * is_inf share the input's validity; those of is_null and is_valid have none. */
#include <math.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

typedef void (*float_fn)(const void *in, uint64_t *out, int64_t n);

/* The words of out for TEST(x[i]) over n values. The tail word is masked. */
#define PREDICATE_LOOP(TEST)                                                 \
  int64_t w = 0;                                                             \
  for (; (w + 1) * 64 <= n; w++) {                                           \
    uint8_t bytes[64];                                                       \
    for (int j = 0; j < 64; j++) bytes[j] = TEST(x[w * 64 + j]);             \
    out[w] = am_pack64(bytes);                                               \
  }                                                                          \
  if (w * 64 < n) {                                                          \
    uint8_t bytes[64] = {0};                                                 \
    for (int64_t j = 0; j < n - w * 64; j++) bytes[j] = TEST(x[w * 64 + j]); \
    out[w] = am_pack64(bytes);                                               \
  }

/* NaN is the one value unequal to itself; the others compare |x| with the
 * infinity (false for NaN). */
#define TEST_NAN(v) ((v) != (v))
#define TEST_INF_F(v) (fabsf(v) == INFINITY)
#define TEST_FINITE_F(v) (fabsf(v) < INFINITY)
#define TEST_INF_D(v) (fabs(v) == INFINITY)
#define TEST_FINITE_D(v) (fabs(v) < INFINITY)

#define DEFINE_PREDICATE(NAME, T, TEST)                                      \
  AM_CPU_CLONES static void NAME(const void *in, uint64_t *out, int64_t n) { \
    const T *x = in;                                                         \
    PREDICATE_LOOP(TEST)                                                     \
  }
DEFINE_PREDICATE(nan_f32, float, TEST_NAN)
DEFINE_PREDICATE(inf_f32, float, TEST_INF_F)
DEFINE_PREDICATE(finite_f32, float, TEST_FINITE_F)
DEFINE_PREDICATE(nan_f64, double, TEST_NAN)
DEFINE_PREDICATE(inf_f64, double, TEST_INF_D)
DEFINE_PREDICATE(finite_f64, double, TEST_FINITE_D)

/* The test of each value-reading predicate, for float32 and float64 (is_null
 * with AM_NAN_IS_NULL tests NaN, then ORs in the nulls). */
static float_fn float_test(am_predicate op, am_type t) {
  int wide = t == AM_FLOAT64;
  switch (op) {
    case AM_IS_NULL:
    case AM_IS_NAN:
      return wide ? nan_f64 : nan_f32;
    case AM_IS_INF:
      return wide ? inf_f64 : inf_f32;
    case AM_IS_FINITE:
      return wide ? finite_f64 : finite_f32;
    case AM_IS_VALID:
      break;
  }
  return NULL;
}

/* What a part computes: either the values' test (then, for is_null, the
 * nulls ORed in) or a function of the validity bitmap alone. */
typedef struct predicate_job {
  const am_array *array;
  float_fn test; /* NULL: from the validity alone */
  am_bits_op op; /* COPY (is_valid) or NOT (is_null) of the validity */
  int constant;  /* the value where there is nothing to read (-1: none) */
  int or_nulls;  /* is_null with AM_NAN_IS_NULL: the test's bits | ~validity */
  uint64_t *dst;
  int64_t width;
  int parts;
} predicate_job;

/* Slots [begin, end) of part `part`: ranges start on 64 slots, so each part
 * writes whole words of the offset-0 result. */
static void predicate_part(void *ctx, int part) {
  const predicate_job *job = ctx;
  const am_array *a = job->array;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  if (end <= begin) return;
  uint64_t *dst = job->dst + begin / 64;
  int64_t n = end - begin;
  int has_nulls = am_cpu_has_nulls(a);
  if (job->test) {
    job->test((const char *)a->data + (a->offset + begin) * job->width, dst, n);
    if (job->or_nulls && has_nulls)
      am_bits_apply(AM_BITS_ORNOT, dst, (const uint8_t *)dst, 0, a->validity, a->offset + begin, n);
  } else if (job->constant >= 0) {
    am_bits_fill(dst, n, job->constant);
  } else if (has_nulls) {
    am_bits_apply(job->op, dst, a->validity, a->offset + begin, NULL, 0, n);
  } else {
    am_bits_fill(dst, n, job->op == AM_BITS_COPY);
  }
}

int am_cpu_predicate(am_err *err, am_predicate op, int flags, const am_array *array,
                     am_array **out) {
  am_type t = array->type;
  int reads_values =
      am_type_is_float(t) && (op == AM_IS_NAN || op == AM_IS_INF || op == AM_IS_FINITE ||
                              (op == AM_IS_NULL && (flags & AM_NAN_IS_NULL)));
  if ((op == AM_IS_NAN || op == AM_IS_INF || op == AM_IS_FINITE) && !am_type_is_numeric(t))
    return am_fail(err, AM_ETYPE, "no %s kernel for %s",
                   op == AM_IS_NAN   ? "is_nan"
                   : op == AM_IS_INF ? "is_inf"
                                     : "is_finite",
                   am_type_name(t));
  am_array *result = NULL;
  int status;
  int never_null = op == AM_IS_NULL || op == AM_IS_VALID;
  if (never_null) {
    status = am_array_alloc_host(err, am_cpu_device(), AM_BOOL, array->length, 0, &result);
    if (status == AM_OK) atomic_store_explicit(&result->null_count, 0, memory_order_relaxed);
  } else {
    status = am_cpu_result(err, AM_BOOL, array->length, array, NULL, &result);
  }
  if (status != AM_OK) return status;
  predicate_job job = {.array = array,
                       .test = reads_values ? float_test(op, t) : NULL,
                       .op = op == AM_IS_VALID ? AM_BITS_COPY : AM_BITS_NOT,
                       /* An integer is finite, and never NaN nor infinite. */
                       .constant = never_null ? -1 : op == AM_IS_FINITE,
                       .or_nulls = op == AM_IS_NULL,
                       .dst = result->data_buf->ptr,
                       .width = am_type_bits(t) / 8};
  if (job.test) job.constant = -1;
  /* Where no values are read the work is over bits (pool.h). */
  job.parts = reads_values ? am_pool_parts(array->length) : am_pool_bit_parts(array->length);
  am_pool_run(job.parts, predicate_part, &job);
  *out = result;
  return AM_OK;
}
