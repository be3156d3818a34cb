/* Add, subtract, multiply and divide, element-wise in the operands' type.
 *
 * Integer results wrap: they are computed in the unsigned type of the same
 * width, where overflow is defined. Values are computed for every slot, null
 * ones included (their inputs are arbitrary but no slot can fault), and the
 * validity is the AND of the inputs'. */
#include <math.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"

typedef void (*arith_arrays_fn)(const void *a, const void *b, void *out, int64_t n);
typedef void (*arith_scalar_fn)(const void *a, const am_scalar *b, void *out, int64_t n);

#define ARRAY_RHS(i) y[i]
#define SCALAR_RHS(i) s

/* NAME_N (two arrays) and NAME_scalar_N computing out[i] = EXPR(x[i], RHS(i)). */
#define DEFINE_ARITH(T, U, N, F, LO, NAME, EXPR)                                                \
  AM_CPU_CLONES static void NAME##_##N(const void *a, const void *b, void *out, int64_t n) {    \
    const T *x = a, *y = b;                                                                     \
    T *o = out;                                                                                 \
    for (int64_t i = 0; i < n; i++) o[i] = EXPR(T, U, LO, x[i], ARRAY_RHS(i));                  \
  }                                                                                             \
  AM_CPU_CLONES static void NAME##_scalar_##N(const void *a, const am_scalar *b, void *out,     \
                                              int64_t n) {                                      \
    const T *x = a;                                                                             \
    const T s = (T)b->F;                                                                        \
    T *o = out;                                                                                 \
    for (int64_t i = 0; i < n; i++) o[i] = EXPR(T, U, LO, x[i], SCALAR_RHS(i));                 \
  }

#define ADD(T, U, LO, x, y) (T)((U)(x) + (U)(y))
#define SUBTRACT(T, U, LO, x, y) (T)((U)(x) - (U)(y))
/* 1u first: a uint16_t product would otherwise be computed in (signed) int. */
#define MULTIPLY(T, U, LO, x, y) (T)(1u * (U)(x) * (U)(y))
#define FLOAT_ADD(T, U, LO, x, y) ((x) + (y))
#define FLOAT_SUBTRACT(T, U, LO, x, y) ((x) - (y))
#define FLOAT_MULTIPLY(T, U, LO, x, y) ((x) * (y))
#define FLOAT_DIVIDE(T, U, LO, x, y) ((x) / (y))

/* Integer division truncating toward zero. Hardware has no vector integer
 * division, but an IEEE quotient rounded to float (16-bit operands) or double
 * (32-bit) and truncated is the exact integer quotient: its rounding error is
 * below 1/|y|, the least distance of an inexact quotient from an integer. */
#define QUOTIENT(T, x, d)                              \
  (sizeof(T) <= 2   ? (T)((float)(x) / (float)(d))    \
   : sizeof(T) == 4 ? (T)((double)(x) / (double)(d)) \
                    : (T)((x) / (d)))
/* LO / -1 does not fit (pyarrow gives 0), and zero divisors are left only in
 * null slots: both divide by 1 instead, and the first is then replaced by 0. */
#define OVERFLOWS(LO, x, y) ((y) == -1 && (x) == (LO))
#define SIGNED_DIVIDE(T, U, LO, x, y) \
  (OVERFLOWS(LO, x, y) ? (T)0 : QUOTIENT(T, x, (y) == 0 || OVERFLOWS(LO, x, y) ? (T)1 : (y)))
#define UNSIGNED_DIVIDE(T, U, LO, x, y) QUOTIENT(T, x, (y) == 0 ? (T)1 : (y))

/* Whether y has a zero in a slot that `valid` (an offset-0 bitmap, NULL: all
 * valid) marks valid: the one error of integer division. The scan is cheap
 * next to the division and keeps a failed call from writing anything. */
#define DEFINE_HAS_ZERO(T, N)                                                                  \
  AM_CPU_CLONES static int has_zero_##N(const void *b, const uint8_t *valid, int64_t n) {      \
    const T *y = b;                                                                            \
    for (int64_t i = 0; i < n; i += 64) {                                                      \
      int64_t m = n - i < 64 ? n - i : 64;                                                     \
      int zero = 0;                                                                            \
      for (int64_t j = 0; j < m; j++) zero |= y[i + j] == 0;                                   \
      if (!zero) continue;                                                                     \
      uint64_t w = am_bits_valid(valid, i, m);                                                 \
      for (int64_t j = 0; j < m; j++)                                                          \
        if (y[i + j] == 0 && ((w >> j) & 1)) return 1;                                         \
    }                                                                                          \
    return 0;                                                                                  \
  }

#define DEFINE_INT_ARITH(T, U, N, F, LO, DIVIDE)       \
  DEFINE_ARITH(T, U, N, F, LO, add, ADD)               \
  DEFINE_ARITH(T, U, N, F, LO, subtract, SUBTRACT)     \
  DEFINE_ARITH(T, U, N, F, LO, multiply, MULTIPLY)     \
  DEFINE_ARITH(T, U, N, F, LO, divide, DIVIDE)         \
  DEFINE_HAS_ZERO(T, N)
#define DEFINE_SIGNED(E, T, U, N, F, LO, HI) DEFINE_INT_ARITH(T, U, N, F, LO, SIGNED_DIVIDE)
#define DEFINE_UNSIGNED(E, T, U, N, F, LO, HI) DEFINE_INT_ARITH(T, U, N, F, LO, UNSIGNED_DIVIDE)
#define DEFINE_FLOAT(E, T, U, N, F, LO, HI)               \
  DEFINE_ARITH(T, U, N, F, LO, add, FLOAT_ADD)            \
  DEFINE_ARITH(T, U, N, F, LO, subtract, FLOAT_SUBTRACT)  \
  DEFINE_ARITH(T, U, N, F, LO, multiply, FLOAT_MULTIPLY)  \
  DEFINE_ARITH(T, U, N, F, LO, divide, FLOAT_DIVIDE)
AM_CPU_SIGNED_TYPES(DEFINE_SIGNED)
AM_CPU_UNSIGNED_TYPES(DEFINE_UNSIGNED)
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
#define ENTRY(E, T, U, N, F, LO, HI)                                                  \
  [E] = {{add_##N, subtract_##N, multiply_##N, divide_##N},                           \
         {add_scalar_##N, subtract_scalar_##N, multiply_scalar_##N, divide_scalar_##N}, \
         HAS_ZERO_##F(N)},
    AM_CPU_NUMERIC_TYPES(ENTRY)
#undef ENTRY
};

static int divide_by_zero(void) { return am_error(AM_EZERODIV, "divide by zero"); }

int am_cpu_arith(am_arith_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, am_array **out) {
  if (!am_type_is_numeric(left->type))
    return am_error(AM_ETYPE, "no kernel for %s", am_type_name(left->type));
  if (scalar && scalar->is_null)
    return am_cpu_null_result(left->device, left->type, left->length, out);
  am_array *result = NULL;
  int status = am_cpu_result(left->type, left->length, left, right, &result);
  if (status != AM_OK) return status;
  int64_t n = left->length;
  size_t width = (size_t)am_type_bits(left->type) / 8;
  const char *x = (const char *)left->data + left->offset * width;
  const char *y = right ? (const char *)right->data + right->offset * width : NULL;
  if (op == AM_DIVIDE && kernels[left->type].has_zero) {
    int64_t valid = n - am_cpu_recorded_nulls(result);
    int zero = scalar ? valid > 0 && (am_type_is_signed(left->type) ? scalar->i64 == 0
                                                                     : scalar->u64 == 0)
                      : kernels[left->type].has_zero(y, result->validity, n);
    if (zero) {
      am_array_free(result);
      return divide_by_zero();
    }
  }
  void *o = result->data_buf->ptr;
  if (scalar)
    kernels[left->type].scalar[op](x, scalar, o, n);
  else
    kernels[left->type].arrays[op](x, y, o, n);
  *out = result;
  return AM_OK;
}
