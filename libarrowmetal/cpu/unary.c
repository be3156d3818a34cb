/* Element-wise functions of one array: one loop per op and type, written by
 * the op table (AM_UNARY_OPS in core/ops.h), whose expressions are compiled
 * here as C, and for the checked ops a check of each chunk for its first refused slot before the
 * chunk is computed (a refused slot drops the whole result). Values are computed for
 * every slot, null ones included (their inputs are arbitrary but no expression can fault), and the
 * result shares the input's validity. */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "bitmap.h"
#include "core/ops.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"
#include "sqrt.h"
#include "vector_math.h"

typedef void (*unary_fn)(const void *in, void *out, int64_t n);

/* The expression vocabulary of core/ops.h, for the element type am_t and
 * the unsigned type am_u of its width (floats: am_u is am_t). */
#define AM_WRAP_NEG(x) ((am_t)((am_u)0 - (am_u)(x)))
#define am_fabs(x) _Generic((x), float: fabsf, double: fabs)(x)
#define am_fneg(x) (-(x)) /* C's unary minus flips the sign bit, NaN's included */
#define AM_LIBM(fn, x) _Generic((x), float: fn##f, double: fn)(x)
#define am_sqrt(x) AM_LIBM(sqrt, x)
#define am_exp(x) AM_LIBM(exp, x)
#define am_log(x) AM_LIBM(log, x)
#define am_log10(x) AM_LIBM(log10, x)
#define am_log2(x) AM_LIBM(log2, x)
#define am_log1p(x) AM_LIBM(log1p, x)
#define am_floor(x) AM_LIBM(floor, x)
#define am_ceil(x) AM_LIBM(ceil, x)
#define am_trunc(x) AM_LIBM(trunc, x)
#define am_sin(x) AM_LIBM(sin, x)
#define am_cos(x) AM_LIBM(cos, x)
#define am_tan(x) AM_LIBM(tan, x)
#define am_asin(x) AM_LIBM(asin, x)
#define am_acos(x) AM_LIBM(acos, x)
#define am_atan(x) AM_LIBM(atan, x)

#define UNARY_LOOP(ID, EXPR, E, T, U, N, F, LO, HI)                                  \
  AM_CPU_CLONES static void unary_##ID##_##N(const void *in, void *out, int64_t n) { \
    typedef T am_t;                                                                  \
    typedef U am_u;                                                                  \
    (void)sizeof(am_u); /* floats do not use it */                                   \
    const am_t *xs = in;                                                             \
    am_t *o = out;                                                                   \
    for (int64_t i = 0; i < n; i++) {                                                \
      const am_t x = xs[i];                                                          \
      (void)x; /* an expression for a kind the op refuses is a constant */           \
      o[i] = (am_t)(EXPR);                                                           \
    }                                                                                \
  }
/* The first slot in [0, n) that is valid (`valid`: an offset-0 bitmap, NULL:
 * all valid) and that the op's check refuses; -1 when none. The values are
 * scanned 64 at a time, and the bitmap read only where one fails. */
#define CHECK_LOOP(ID, FAILS, E, T, U, N, F, LO, HI)                                               \
  AM_CPU_CLONES static int64_t check_##ID##_##N(const void *in, const uint8_t *valid, int64_t n) { \
    typedef T am_t;                                                                                \
    const am_t *xs = in;                                                                           \
    const am_t am_lowest = (am_t)(LO);                                                             \
    (void)am_lowest;                                                                               \
    for (int64_t i = 0; i < n; i += 64) {                                                          \
      int64_t m = n - i < 64 ? n - i : 64;                                                         \
      int any = 0;                                                                                 \
      for (int64_t j = 0; j < m; j++) {                                                            \
        const am_t x = xs[i + j];                                                                  \
        (void)x;                                                                                   \
        any |= (FAILS) != 0;                                                                       \
      }                                                                                            \
      if (!any) continue;                                                                          \
      uint64_t w = am_bits_valid(valid, i, m);                                                     \
      for (int64_t j = 0; j < m; j++) {                                                            \
        const am_t x = xs[i + j];                                                                  \
        (void)x;                                                                                   \
        if ((FAILS) && ((w >> j) & 1)) return i + j;                                               \
      }                                                                                            \
    }                                                                                              \
    return -1;                                                                                     \
  }
#define DEFINE_OP(ID, NAME, KINDS, RULE, SIGNED, UNSIGNED, FLOAT, FS, FU, FF, CODE, MESSAGE) \
  AM_CPU_SIGNED_TYPES_AFTER(UNARY_LOOP, ID, SIGNED)                                          \
  AM_CPU_UNSIGNED_TYPES_AFTER(UNARY_LOOP, ID, UNSIGNED)                                      \
  AM_CPU_FLOAT_TYPES_AFTER(UNARY_LOOP, ID, FLOAT)                                            \
  AM_CPU_SIGNED_TYPES_AFTER(CHECK_LOOP, ID, FS)                                              \
  AM_CPU_UNSIGNED_TYPES_AFTER(CHECK_LOOP, ID, FU)                                            \
  AM_CPU_FLOAT_TYPES_AFTER(CHECK_LOOP, ID, FF)
AM_UNARY_OPS(DEFINE_OP)

/* loops[op][type] and checks[op][type]; a kind the op does not take has
 * none (the ABI refuses it before the kernel runs). A check runs only for an
 * op whose row has one (am_unary_check_of). */
typedef int64_t (*check_fn)(const void *in, const uint8_t *valid, int64_t n);
#define ENTRY(ID, E, T, U, N, F, LO, HI) [E] = unary_##ID##_##N,
#define ROW(ID, NAME, KINDS, RULE, SIGNED, UNSIGNED, FLOAT, FS, FU, FF, CODE, MESSAGE) \
  [ID] = {AM_CPU_NUMERIC_TYPES_AFTER(ENTRY, ID)},
static const unary_fn loops[AM_UNARY_COUNT][AM_TYPE_COUNT] = {AM_UNARY_OPS(ROW)};
#undef ENTRY
#define ENTRY(ID, E, T, U, N, F, LO, HI) [E] = check_##ID##_##N,
static const check_fn checks[AM_UNARY_COUNT][AM_TYPE_COUNT] = {AM_UNARY_OPS(ROW)};
#undef ROW
#undef ENTRY

/* The ops whose float expression is one libm call that the vector math layer
 * (vector_math.h) has, and which: their float32 and float64 loops are that
 * layer's where it offers one (the checked ops share their expressions). */
static const am_vm_func vector_of[AM_UNARY_COUNT] = {
    [AM_EXP] = AM_VM_EXP,
    [AM_LN] = AM_VM_LOG,
    [AM_LOG10] = AM_VM_LOG10,
    [AM_LOG2] = AM_VM_LOG2,
    [AM_LOG1P] = AM_VM_LOG1P,
    [AM_SIN] = AM_VM_SIN,
    [AM_COS] = AM_VM_COS,
    [AM_TAN] = AM_VM_TAN,
    [AM_ASIN] = AM_VM_ASIN,
    [AM_ACOS] = AM_VM_ACOS,
    [AM_ATAN] = AM_VM_ATAN,
    [AM_LN_CHECKED] = AM_VM_LOG,
    [AM_LOG10_CHECKED] = AM_VM_LOG10,
    [AM_LOG2_CHECKED] = AM_VM_LOG2,
    [AM_LOG1P_CHECKED] = AM_VM_LOG1P,
    [AM_ASIN_CHECKED] = AM_VM_ASIN,
    [AM_ACOS_CHECKED] = AM_VM_ACOS,
};

/* Slots a checked op checks and then computes at a time: its input stays in
 * the cache between the two, so the array is read from memory once (two
 * sweeps, a check and then the op, read it twice: sqrt_checked at 50M rows
 * ran at 1.35x pyarrow's single pass). A multiple of 64: each chunk's
 * validity bits start at a whole byte. */
#define CHECK_CHUNK 16384

typedef struct unary_job {
  unary_fn fn;
  check_fn check; /* NULL for an op that refuses nothing */
  const char *x;
  char *o;
  const uint8_t *valid; /* the result's offset-0 bitmap (NULL: all valid) */
  int64_t width;
  int stream;            /* a large output: blocks through L1, streamed out (pool.h) */
  _Atomic int64_t first; /* the first refused slot, or INT64_MAX */
} unary_job;

/* Slots [begin, end) (see am_pool_sweep; ranges start on 64-slot
 * boundaries, so a streamed output stays 64-byte aligned and a chunk's
 * validity bits start at a whole byte). A checked op's range stops at its
 * first refused slot and reports it: the smallest report wins, and the
 * result is then dropped. */
static void unary_range(void *ctx, int64_t begin, int64_t end) {
  unary_job *job = ctx;
  if (!job->check && !job->stream) {
    size_t at = (size_t)(begin * job->width);
    job->fn(job->x + at, job->o + at, end - begin);
    return;
  }
  _Alignas(64) char block[AM_STREAM_BLOCK];
  const int64_t step = job->stream ? AM_STREAM_BLOCK / job->width : CHECK_CHUNK;
  for (int64_t c = begin; c < end; c += step) {
    const int64_t m = end - c < step ? end - c : step;
    const size_t at = (size_t)(c * job->width);
    if (job->check) {
      int64_t slot = job->check(job->x + at, job->valid ? job->valid + c / 8 : NULL, m);
      if (slot >= 0) {
        int64_t report = c + slot;
        int64_t seen = atomic_load(&job->first);
        while (report < seen && !atomic_compare_exchange_weak(&job->first, &seen, report)) {
        }
        break;
      }
    }
    if (!job->stream) {
      job->fn(job->x + at, job->o + at, m);
      continue;
    }
    job->fn(job->x + at, block, m);
    const int64_t bytes = m * job->width, whole = bytes / 64 * 64;
    am_stream_copy(job->o + at, block, whole);
    if (whole < bytes) memcpy(job->o + at + whole, block + whole, (size_t)(bytes - whole));
  }
  if (job->stream) am_stream_fence();
}

int am_cpu_unary(am_err *err, am_unary_op op, const am_array *array, am_array **out) {
  unary_fn fn =
      (unsigned)op < AM_UNARY_COUNT && am_type_valid(array->type) ? loops[op][array->type] : NULL;
  if (!fn)
    return am_fail(err, AM_ETYPE, "no %s kernel for %s", am_unary_op_name(op),
                   am_type_name(array->type));
  if (vector_of[op] && (array->type == AM_FLOAT32 || array->type == AM_FLOAT64)) {
    am_vm_unary_fn vector = am_vm_unary(vector_of[op], array->type == AM_FLOAT32);
    if (vector) fn = vector;
  }
  if ((op == AM_SQRT || op == AM_SQRT_CHECKED) && array->type == AM_FLOAT64) {
    am_vm_unary_fn fast = am_fast_sqrt_f64();
    if (fast) fn = fast;
  }
  am_array *result = NULL;
  int status = am_cpu_result(err, array->type, array->length, array, NULL, &result);
  if (status != AM_OK) return status;
  int64_t width = am_type_bits(array->type) / 8;
  const am_unary_check *check = am_unary_check_of(op);
  const char *x = (const char *)array->data + array->offset * width;
  unary_job job = {.fn = fn,
                   .check = check ? checks[op][array->type] : NULL,
                   .x = x,
                   .o = result->data_buf->ptr,
                   .valid = result->validity,
                   .width = width,
                   .stream = width * array->length >= AM_STREAM_MIN};
  atomic_init(&job.first, INT64_MAX);
  am_pool_sweep(array->length, width, unary_range, &job);
  /* a refused slot fails the call whole */
  int64_t slot = atomic_load(&job.first);
  if (slot != INT64_MAX) {
    char value[64];
    am_value_text(array->type, x + slot * width, value, sizeof value);
    am_array_free(result);
    return am_fail(err, check->status, "%s (value %s at slot %lld)", check->message, value,
                   (long long)slot);
  }
  *out = result;
  return AM_OK;
}
