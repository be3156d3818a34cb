/* Add, subtract, multiply and divide, element-wise in the operands' type.
 *
 * Integer results wrap: they are computed in the unsigned type of the same
 * width, where overflow is defined. Values are computed for every slot, null
 * ones included (their inputs are arbitrary but no slot can fault), and the
 * validity is the AND of the inputs'. */
#include <math.h>
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

typedef void (*arith_arrays_fn)(const void *a, const void *b, void *out, int64_t n);
typedef void (*arith_scalar_fn)(const void *a, const am_scalar *b, void *out, int64_t n);

/* Every kernel exists for two arrays (NAME_N, right operand y[i]) and for an
 * array and a scalar (NAME_scalar_N, right operand s): BODY(..., RHS) is the
 * loop over o[0, n) = x (op) RHS. */
#define ARRAY_RHS(i) y[i]
#define SCALAR_RHS(i) s
#define DEFINE_BOTH(T, U, N, F, LO, NAME, BODY, OP)                                          \
  AM_CPU_CLONES static void NAME##_##N(const void *a, const void *b, void *out, int64_t n) { \
    const T *x = a, *y = b;                                                                  \
    T *o = out;                                                                              \
    BODY(T, U, N, LO, OP, ARRAY_RHS)                                                         \
  }                                                                                          \
  AM_CPU_CLONES static void NAME##_scalar_##N(const void *a, const am_scalar *b, void *out,  \
                                              int64_t n) {                                   \
    const T *x = a;                                                                          \
    const T s = (T)b->F;                                                                     \
    T *o = out;                                                                              \
    BODY(T, U, N, LO, OP, SCALAR_RHS)                                                        \
  }

/* ---- add, subtract, multiply (and float divide) */

#define ELEMENTWISE(T, U, N, LO, OP, RHS) \
  for (int64_t i = 0; i < n; i++) o[i] = OP(T, U, x[i], RHS(i));
#define ADD(T, U, x, y) (T)((U)(x) + (U)(y))
#define SUBTRACT(T, U, x, y) (T)((U)(x) - (U)(y))
/* 1u first: a uint16_t product would otherwise be computed in (signed) int. */
#define MULTIPLY(T, U, x, y) (T)(1u * (U)(x) * (U)(y))
#define FLOAT_ADD(T, U, x, y) ((x) + (y))
#define FLOAT_SUBTRACT(T, U, x, y) ((x) - (y))
#define FLOAT_MULTIPLY(T, U, x, y) ((x) * (y))
#define FLOAT_DIVIDE(T, U, x, y) ((x) / (y))

/* ---- integer divide
 *
 * Division truncates toward zero. Hardware has no vector integer division,
 * but the IEEE quotient of integers held exactly, rounded and truncated, is
 * the exact integer quotient when its rounding error is below 1/|y|, the least
 * distance of an inexact quotient from an integer; with |x| < 2^p / 2 it is at
 * most |x/y| 2^-p < 1/|y|. So 8- and 16-bit operands divide in float (p = 24),
 * 32-bit ones in double (p = 53), and 64-bit ones in double for the chunks
 * whose operands are all below 2^52 in magnitude, by integer division in the
 * others. */
#define VIA_i8 float
#define VIA_i16 float
#define VIA_i32 double
#define VIA_i64 double
#define VIA_u8 float
#define VIA_u16 float
#define VIA_u32 double
#define VIA_u64 double
/* LO / -1 does not fit (pyarrow gives 0), and zero divisors are left only in
 * null slots: both divide by 1 instead (y + 1 and y + 2), and the first is
 * then masked to 0. Arithmetic, not selects: a select between converted
 * values becomes a branch (the conversion might trap), which does not
 * vectorize. */
#define OVERFLOWS(T, LO, x, y) (((LO) != 0) & ((y) == (T) - 1) & ((x) == (LO)))
#define DIVIDE(T, VIA, LO, x, y)                                                \
  (T)((T)((VIA)(x) / (VIA)(T)((y) + ((y) == 0) + 2 * OVERFLOWS(T, LO, x, y))) & \
      (OVERFLOWS(T, LO, x, y) - 1))
/* |v| < 2^52, as one unsigned compare. (A function: written out on a narrow
 * type the compare would warn as always true.) */
static inline int below_2_52(uint64_t v, int is_signed) {
  return is_signed ? v + ((uint64_t)1 << 52) < ((uint64_t)1 << 53) : v < ((uint64_t)1 << 52);
}
#define BELOW_2_52(LO, v) below_2_52((uint64_t)(v), (LO) != 0)
#define INT_DIVIDE(T, U, N, LO, OP, RHS)                                                       \
  for (int64_t i = 0; i < n; i += 64) {                                                        \
    int64_t m = n - i < 64 ? n - i : 64;                                                       \
    int small = 1;                                                                             \
    if (sizeof(T) == 8)                                                                        \
      for (int64_t j = 0; j < m; j++)                                                          \
        small &= BELOW_2_52(LO, x[i + j]) & BELOW_2_52(LO, RHS(i + j));                        \
    if (small)                                                                                 \
      for (int64_t j = 0; j < m; j++) o[i + j] = DIVIDE(T, VIA_##N, LO, x[i + j], RHS(i + j)); \
    else                                                                                       \
      for (int64_t j = 0; j < m; j++) o[i + j] = DIVIDE(T, T, LO, x[i + j], RHS(i + j));       \
  }

/* Whether y has a zero in a slot that `valid` (an offset-0 bitmap, NULL: all
 * valid) marks valid: the one error of integer division. The scan is cheap
 * next to the division and keeps a failed call from writing anything. */
#define DEFINE_HAS_ZERO(T, N)                                                             \
  AM_CPU_CLONES static int has_zero_##N(const void *b, const uint8_t *valid, int64_t n) { \
    const T *y = b;                                                                       \
    for (int64_t i = 0; i < n; i += 64) {                                                 \
      int64_t m = n - i < 64 ? n - i : 64;                                                \
      int zero = 0;                                                                       \
      for (int64_t j = 0; j < m; j++) zero |= y[i + j] == 0;                              \
      if (!zero) continue;                                                                \
      uint64_t w = am_bits_valid(valid, i, m);                                            \
      for (int64_t j = 0; j < m; j++)                                                     \
        if (y[i + j] == 0 && ((w >> j) & 1)) return 1;                                    \
    }                                                                                     \
    return 0;                                                                             \
  }

/* ---- kernels per type */

#define DEFINE_INT(E, T, U, N, F, LO, HI)                      \
  DEFINE_BOTH(T, U, N, F, LO, add, ELEMENTWISE, ADD)           \
  DEFINE_BOTH(T, U, N, F, LO, subtract, ELEMENTWISE, SUBTRACT) \
  DEFINE_BOTH(T, U, N, F, LO, multiply, ELEMENTWISE, MULTIPLY) \
  DEFINE_BOTH(T, U, N, F, LO, divide, INT_DIVIDE, )            \
  DEFINE_HAS_ZERO(T, N)
#define DEFINE_FLOAT(E, T, U, N, F, LO, HI)                          \
  DEFINE_BOTH(T, U, N, F, LO, add, ELEMENTWISE, FLOAT_ADD)           \
  DEFINE_BOTH(T, U, N, F, LO, subtract, ELEMENTWISE, FLOAT_SUBTRACT) \
  DEFINE_BOTH(T, U, N, F, LO, multiply, ELEMENTWISE, FLOAT_MULTIPLY) \
  DEFINE_BOTH(T, U, N, F, LO, divide, ELEMENTWISE, FLOAT_DIVIDE)
AM_CPU_INTEGER_TYPES(DEFINE_INT)
AM_CPU_FLOAT_TYPES(DEFINE_FLOAT)

/* Indexed by am_arith_op; has_zero is NULL where division cannot fail. */
#define HAS_ZERO_i64(N) has_zero_##N
#define HAS_ZERO_u64(N) has_zero_##N
#define HAS_ZERO_f64(N) NULL
static const struct {
  arith_arrays_fn arrays[AM_DIVIDE + 1];
  arith_scalar_fn scalar[AM_DIVIDE + 1];
  int (*has_zero)(const void *b, const uint8_t *valid, int64_t n);
} kernels[AM_TYPE_COUNT] = {
#define ENTRY(E, T, U, N, F, LO, HI)                                                    \
  [E] = {{add_##N, subtract_##N, multiply_##N, divide_##N},                             \
         {add_scalar_##N, subtract_scalar_##N, multiply_scalar_##N, divide_scalar_##N}, \
         HAS_ZERO_##F(N)},
    AM_CPU_NUMERIC_TYPES(ENTRY)
#undef ENTRY
};

typedef struct arith_job {
  arith_arrays_fn arrays;
  arith_scalar_fn scalar;
  const char *x, *y;
  const am_scalar *s;
  char *o;
  int64_t width;
  int stream;
} arith_job;

/* Slots [begin, end) (see am_pool_sweep). */
static void arith_range(void *ctx, int64_t begin, int64_t end) {
  const arith_job *job = ctx;
  size_t at = (size_t)(begin * job->width);
  if (!job->stream) {
    if (job->scalar)
      job->scalar(job->x + at, job->s, job->o + at, end - begin);
    else
      job->arrays(job->x + at, job->y + at, job->o + at, end - begin);
    return;
  }
  /* Blocks through L1, streamed out; every block but the range's last is
   * whole (ranges start on 64 slots, so the output stays 64-byte aligned). */
  _Alignas(64) char block[AM_STREAM_BLOCK];
  int64_t step = AM_STREAM_BLOCK / job->width;
  for (int64_t i = begin; i < end; i += step) {
    int64_t m = end - i < step ? end - i : step;
    size_t off = (size_t)(i * job->width);
    if (job->scalar)
      job->scalar(job->x + off, job->s, block, m);
    else
      job->arrays(job->x + off, job->y + off, block, m);
    int64_t bytes = m * job->width, whole = bytes / 64 * 64;
    am_stream_copy(job->o + off, block, whole);
    if (whole < bytes) memcpy(job->o + off + whole, block + whole, (size_t)(bytes - whole));
  }
  am_stream_fence();
}

int am_cpu_arith(am_err *err, am_arith_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, am_array **out) {
  if (!am_type_is_numeric(left->type))
    return am_fail(err, AM_ETYPE, "no kernel for %s", am_type_name(left->type));
  if (scalar && scalar->is_null)
    return am_cpu_null_result(err, left->device, left->type, left->length, out);
  am_array *result = NULL;
  int status = am_cpu_result(err, left->type, left->length, left, right, &result);
  if (status != AM_OK) return status;
  int64_t n = left->length;
  size_t width = (size_t)am_type_bits(left->type) / 8;
  const char *x = (const char *)left->data + left->offset * width;
  const char *y = right ? (const char *)right->data + right->offset * width : NULL;
  if (op == AM_DIVIDE && kernels[left->type].has_zero) {
    int64_t valid = n - am_cpu_recorded_nulls(result);
    int zero =
        scalar ? valid > 0 && (am_type_is_signed(left->type) ? scalar->i64 == 0 : scalar->u64 == 0)
               : kernels[left->type].has_zero(y, result->validity, n);
    if (zero) {
      am_array_free(result);
      return am_fail(err, AM_EZERODIV, "divide by zero");
    }
  }
  int64_t w = (int64_t)width;
  arith_job job = {.arrays = scalar ? NULL : kernels[left->type].arrays[op],
                   .scalar = scalar ? kernels[left->type].scalar[op] : NULL,
                   .x = x,
                   .y = y,
                   .s = scalar,
                   .o = result->data_buf->ptr,
                   .width = w,
                   .stream = w * n >= AM_STREAM_MIN};
  am_pool_sweep(n, w, arith_range, &job);
  *out = result;
  return AM_OK;
}
