/* Element-wise functions of one array: one loop per op and type, written by
 * the op table (AM_UNARY_OPS in core/ops.h), whose expressions are compiled
 * here as C. Values are computed for every slot, null ones included (their
 * inputs are arbitrary but no expression can fault), and the result shares
 * the input's validity. */
#include <math.h>
#include <string.h>

#include "core/ops.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

typedef void (*unary_fn)(const void *in, void *out, int64_t n);

/* The expression vocabulary of core/ops.h, for the element type am_t and
 * the unsigned type am_u of its width (floats: am_u is am_t). */
#define AM_WRAP_NEG(x) ((am_t)((am_u)0 - (am_u)(x)))
#define am_fabs(x) _Generic((x), float: fabsf, double: fabs)(x)
#define am_fneg(x) (-(x)) /* C's unary minus flips the sign bit, NaN's included */

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
#define DEFINE_OP(ID, NAME, KINDS, SIGNED, UNSIGNED, FLOAT) \
  AM_CPU_SIGNED_TYPES_AFTER(UNARY_LOOP, ID, SIGNED)         \
  AM_CPU_UNSIGNED_TYPES_AFTER(UNARY_LOOP, ID, UNSIGNED)     \
  AM_CPU_FLOAT_TYPES_AFTER(UNARY_LOOP, ID, FLOAT)
AM_UNARY_OPS(DEFINE_OP)

/* loops[op][type]; a kind the op does not take has none (the ABI refuses it
 * before the kernel runs). */
#define ENTRY(ID, E, T, U, N, F, LO, HI) [E] = unary_##ID##_##N,
#define ROW(ID, NAME, KINDS, SIGNED, UNSIGNED, FLOAT) \
  [ID] = {AM_CPU_NUMERIC_TYPES_AFTER(ENTRY, ID)},
static const unary_fn loops[AM_UNARY_COUNT][AM_TYPE_COUNT] = {AM_UNARY_OPS(ROW)};
#undef ROW
#undef ENTRY

typedef struct unary_job {
  unary_fn fn;
  const char *x;
  char *o;
  int64_t width;
} unary_job;

/* Slots [begin, end) (see am_pool_sweep). */
static void unary_range(void *ctx, int64_t begin, int64_t end) {
  const unary_job *job = ctx;
  size_t at = (size_t)(begin * job->width);
  job->fn(job->x + at, job->o + at, end - begin);
}

int am_cpu_unary(am_err *err, am_unary_op op, const am_array *array, am_array **out) {
  unary_fn fn =
      (unsigned)op < AM_UNARY_COUNT && am_type_valid(array->type) ? loops[op][array->type] : NULL;
  if (!fn)
    return am_fail(err, AM_ETYPE, "no %s kernel for %s", am_unary_op_name(op),
                   am_type_name(array->type));
  am_array *result = NULL;
  int status = am_cpu_result(err, array->type, array->length, array, NULL, &result);
  if (status != AM_OK) return status;
  int64_t width = am_type_bits(array->type) / 8;
  unary_job job = {.fn = fn,
                   .x = (const char *)array->data + array->offset * width,
                   .o = result->data_buf->ptr,
                   .width = width};
  am_pool_sweep(array->length, width, unary_range, &job);
  *out = result;
  return AM_OK;
}
