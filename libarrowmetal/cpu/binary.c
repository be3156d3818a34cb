/* Element-wise functions of two arrays beyond add/subtract/multiply/divide
 * (am_binary): one loop per op and type for two arrays and for an array and a
 * scalar, written by the op table (AM_BINARY_OPS in core/ops.h), whose
 * expressions are compiled here as C; for the checked ops, each chunk is
 * checked for refused slots before it is computed (a refused slot drops the
 * whole result). Values are computed for
 * every slot, null ones included (their inputs are arbitrary, and no
 * expression can fault: divisions are guarded), and the validity is the AND
 * of the inputs'. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "bitmap.h"
#include "core/ops.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"
#include "vector_math.h"

/* ---- The vocabulary of AM_BINARY_OPS, for am_t (and am_u, its unsigned
 * type of the same width) */
#define AM_WRAP_ADD(x, y) ((am_t)((am_u)(x) + (am_u)(y)))
#define AM_WRAP_SUB(x, y) ((am_t)((am_u)(x) - (am_u)(y)))
/* 1u first: a uint16_t product would otherwise be computed in (signed) int. */
#define AM_WRAP_MUL(x, y) ((am_t)(1u * (am_u)(x) * (am_u)(y)))
#define am_add_overflows(x, y)         \
  __extension__({                      \
    am_t r_;                           \
    __builtin_add_overflow(x, y, &r_); \
  })
#define am_sub_overflows(x, y)         \
  __extension__({                      \
    am_t r_;                           \
    __builtin_sub_overflow(x, y, &r_); \
  })
#define am_mul_overflows(x, y)         \
  __extension__({                      \
    am_t r_;                           \
    __builtin_mul_overflow(x, y, &r_); \
  })
#define AM_LIBM2(fn, x, y) _Generic((x), float: fn##f, double: fn)(x, y)
#define am_pow(x, y) AM_LIBM2(pow, x, y)
#define am_atan2(x, y) AM_LIBM2(atan2, x, y)
#define AM_SHIFT_OK_S(y) ((y) >= 0 && (y) < am_precision)
#define AM_SHIFT_OK_U(y) ((y) < am_precision)
#define AM_SHL(x, y) ((am_t)((am_u)(x) << (y)))
#define AM_SHR(x, y) ((am_t)((x) >> (y)))

/* x^y for y >= 0 by squaring, in 64 bits: the low bits of a wrapped 64-bit
 * product are those of the narrower type's wrapped product. */
static inline uint64_t ipow_bits(uint64_t x, uint64_t y) {
  uint64_t r = 1;
  for (; y; y >>= 1) {
    if (y & 1) r *= x;
    x *= x;
  }
  return r;
}
/* A negative signed exponent (refused before any result is kept) as 0. */
static inline uint64_t exponent(uint64_t bits, int is_signed) {
  return is_signed && (int64_t)bits < 0 ? 0 : bits;
}
#define am_ipow(x, y) ((am_t)ipow_bits((uint64_t)(x), exponent((uint64_t)(y), am_signed)))

/* Whether x^y (y >= 0) leaves [lo, hi]: each product the result is made of
 * is checked in that range, and a squared base only when a later bit uses it
 * (for |x| >= 2 it then bounds the result). */
static inline int ipow_overflows_signed(int64_t x, int64_t y, int64_t lo, int64_t hi) {
  int64_t r = 1, b = x;
  for (; y > 0; y >>= 1) {
    if (y & 1 && (__builtin_mul_overflow(r, b, &r) || r < lo || r > hi)) return 1;
    if (y > 1 && (__builtin_mul_overflow(b, b, &b) || b < lo || b > hi)) return 1;
  }
  return 0;
}
static inline int ipow_overflows_unsigned(uint64_t x, uint64_t y, uint64_t hi) {
  uint64_t r = 1, b = x;
  for (; y > 0; y >>= 1) {
    if (y & 1 && (__builtin_mul_overflow(r, b, &r) || r > hi)) return 1;
    if (y > 1 && (__builtin_mul_overflow(b, b, &b) || b > hi)) return 1;
  }
  return 0;
}
#define am_ipow_overflows(x, y)                                                      \
  (am_signed ? ipow_overflows_signed((int64_t)(x), (int64_t)(y), (int64_t)am_lowest, \
                                     (int64_t)am_highest)                            \
             : ipow_overflows_unsigned((uint64_t)(x), (uint64_t)(y), (uint64_t)am_highest))

/* The loop's view of its type: am_t, am_u, the range and the precision. */
#define TYPE_FACTS(T, U, LO, HI)                              \
  typedef T am_t;                                             \
  typedef U am_u;                                             \
  const am_t am_lowest = (am_t)(LO), am_highest = (am_t)(HI); \
  const int am_signed = (LO) < 0;                             \
  const int am_precision = (int)sizeof(am_t) * 8 - am_signed; \
  (void)sizeof(am_u); /* floats and some ops do not use it */ \
  (void)am_lowest, (void)am_highest, (void)am_signed, (void)am_precision

typedef void (*binary_fn)(const void *a, const void *b, int scalar, void *out, int64_t n);
typedef int64_t (*check_fn)(const void *a, const void *b, int scalar, const uint8_t *valid,
                            int64_t n, int *failure);

/* o[i] = EXPR(x[i], y[i]), y from the array or, with `scalar`, b[0]. */
#define BINARY_LOOP(ID, EXPR, E, T, U, N, F, LO, HI)                                               \
  AM_CPU_CLONES static void binary_##ID##_##N(const void *a, const void *b, int scalar, void *out, \
                                              int64_t n) {                                         \
    TYPE_FACTS(T, U, LO, HI);                                                                      \
    const am_t *xs = a, *ys = b;                                                                   \
    am_t *o = out;                                                                                 \
    if (scalar) {                                                                                  \
      const am_t y = ys[0];                                                                        \
      for (int64_t i = 0; i < n; i++) {                                                            \
        const am_t x = xs[i];                                                                      \
        (void)x, (void)y;                                                                          \
        o[i] = (am_t)(EXPR);                                                                       \
      }                                                                                            \
      return;                                                                                      \
    }                                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                              \
      const am_t x = xs[i], y = ys[i];                                                             \
      (void)x, (void)y;                                                                            \
      o[i] = (am_t)(EXPR);                                                                         \
    }                                                                                              \
  }

/* The last valid slot (`valid`: offset-0 bitmap, NULL: all valid) whose
 * check is not 0, with that failure in *failure; -1 when none. The last, as
 * pyarrow reports: its checked kernels run on, each failure replacing the
 * one before, so an array that fails in two ways reports the later one. */
#define CHECK_LOOP(ID, FAILS, E, T, U, N, F, LO, HI)                                             \
  AM_CPU_CLONES static int64_t check_##ID##_##N(const void *a, const void *b, int scalar,        \
                                                const uint8_t *valid, int64_t n, int *failure) { \
    TYPE_FACTS(T, U, LO, HI);                                                                    \
    const am_t *xs = a, *ys = b;                                                                 \
    int64_t last = -1;                                                                           \
    for (int64_t i = 0; i < n; i += 64) {                                                        \
      int64_t m = n - i < 64 ? n - i : 64;                                                       \
      int any = 0;                                                                               \
      for (int64_t j = 0; j < m; j++) {                                                          \
        const am_t x = xs[i + j], y = ys[scalar ? 0 : i + j];                                    \
        (void)x, (void)y;                                                                        \
        any |= (FAILS) != 0;                                                                     \
      }                                                                                          \
      if (!any) continue;                                                                        \
      uint64_t w = am_bits_valid(valid, i, m);                                                   \
      for (int64_t j = 0; j < m; j++) {                                                          \
        const am_t x = xs[i + j], y = ys[scalar ? 0 : i + j];                                    \
        (void)x, (void)y;                                                                        \
        int k = (int)(FAILS);                                                                    \
        if (k && ((w >> j) & 1)) {                                                               \
          *failure = k;                                                                          \
          last = i + j;                                                                          \
        }                                                                                        \
      }                                                                                          \
    }                                                                                            \
    return last;                                                                                 \
  }

#define DEFINE_OP(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, C1, M1, C2, M2) \
  AM_CPU_SIGNED_TYPES_AFTER(BINARY_LOOP, ID, S)                               \
  AM_CPU_UNSIGNED_TYPES_AFTER(BINARY_LOOP, ID, U)                             \
  AM_CPU_FLOAT_TYPES_AFTER(BINARY_LOOP, ID, F)                                \
  AM_CPU_SIGNED_TYPES_AFTER(CHECK_LOOP, ID, FS)                               \
  AM_CPU_UNSIGNED_TYPES_AFTER(CHECK_LOOP, ID, FU)                             \
  AM_CPU_FLOAT_TYPES_AFTER(CHECK_LOOP, ID, FF)
AM_BINARY_OPS(DEFINE_OP)
#undef DEFINE_OP

#define ENTRY(ID, E, T, U, N, F, LO, HI) [E] = binary_##ID##_##N,
#define ROW(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, C1, M1, C2, M2) \
  [ID] = {AM_CPU_NUMERIC_TYPES_AFTER(ENTRY, ID)},
static const binary_fn loops[AM_BINARY_COUNT][AM_TYPE_COUNT] = {AM_BINARY_OPS(ROW)};
#undef ENTRY
#define ENTRY(ID, E, T, U, N, F, LO, HI) [E] = check_##ID##_##N,
static const check_fn checks[AM_BINARY_COUNT][AM_TYPE_COUNT] = {AM_BINARY_OPS(ROW)};
#undef ROW
#undef ENTRY

/* Integer divide_checked through doubles, which the CPU divides several at a
 * time (vdivpd; x86's integer division is one value at a time, and
 * divide_checked over int64 ran at 1.6-1.75x pyarrow on 2 cores). Exact:
 * for |x| < 2^53 both x and the quotient are doubles, and a quotient that
 * is not an integer is at least 1/|y| from the nearest one, more than its
 * rounding error of |x/y| 2^-53 < 1/|y|, so truncating fl(x/y) truncates
 * x/y (a y that is not a double, |y| > 2^53 > |x|, still gives 0). Types
 * of 32 bits and less always fit; a call with a 64-bit |x| >= 2^53 takes
 * the integer loop. The results are the table's expression's: 0 where y
 * is 0 or (signed) x is the lowest and y is -1. */
#define EXACT_DIVIDE(IS_SIGNED, E, T, U, N, F, LO, HI)                                            \
  AM_CPU_CLONES static void divide_exact_##N(const void *a, const void *b, int scalar, void *out, \
                                             int64_t n) {                                         \
    const T *xs = a, *ys = b;                                                                     \
    T *o = out;                                                                                   \
    if (sizeof(T) == 8) {                                                                         \
      int fits = 1;                                                                               \
      for (int64_t i = 0; i < n; i++)                                                             \
        /* |x| < 2^53, in unsigned arithmetic (no overflow, no sign tests) */                     \
        fits &= IS_SIGNED ? (uint64_t)xs[i] + ((1ull << 53) - 1) < (1ull << 54) - 1               \
                          : (uint64_t)xs[i] < (1ull << 53);                                       \
      if (!fits) {                                                                                \
        binary_AM_DIVIDE_CHECKED_##N(a, b, scalar, out, n);                                       \
        return;                                                                                   \
      }                                                                                           \
    }                                                                                             \
    for (int64_t i = 0; i < n; i++) {                                                             \
      const T x = xs[i], y = ys[scalar ? 0 : i];                                                  \
      const int none = y == 0 || (IS_SIGNED && x == (T)(LO) && y == (T) - 1);                     \
      const double q = (double)x / (double)(none ? 1 : y);                                        \
      o[i] = none ? 0 : (T)q;                                                                     \
    }                                                                                             \
  }
AM_CPU_SIGNED_TYPES_AFTER(EXACT_DIVIDE, 1)
AM_CPU_UNSIGNED_TYPES_AFTER(EXACT_DIVIDE, 0)
#undef EXACT_DIVIDE

static binary_fn exact_divide(am_type t) {
  switch (t) {
    case AM_INT8:
      return divide_exact_i8;
    case AM_INT16:
      return divide_exact_i16;
    case AM_INT32:
      return divide_exact_i32;
    case AM_INT64:
      return divide_exact_i64;
    case AM_UINT8:
      return divide_exact_u8;
    case AM_UINT16:
      return divide_exact_u16;
    case AM_UINT32:
      return divide_exact_u32;
    case AM_UINT64:
      return divide_exact_u64;
    default:
      return NULL;
  }
}

/* The ops whose float expression is one libm call that the vector math layer
 * (vector_math.h) has: their float loops are that layer's where it offers
 * one (power_checked's float expression is power's). */
static const am_vm_func vector_of[AM_BINARY_COUNT] = {
    [AM_POWER] = AM_VM_POW,
    [AM_POWER_CHECKED] = AM_VM_POW,
    [AM_ATAN2] = AM_VM_ATAN2,
};

/* Slots a checked op checks and then computes at a time, so that its inputs
 * come from memory once (two sweeps read them twice: add_checked at 50M
 * int64 ran at 1.57x pyarrow's single pass). A multiple of 64: each chunk's
 * validity bits start at a whole byte. */
#define CHECK_CHUNK 16384

typedef struct binary_job {
  binary_fn fn;
  check_fn check; /* NULL for an op that refuses nothing */
  const char *x, *y;
  int scalar;
  char *o;
  const uint8_t *valid; /* the result's offset-0 bitmap (NULL: all valid) */
  int64_t width;
  int stream;           /* a large output: blocks through L1, streamed out (pool.h) */
  _Atomic int64_t last; /* slot * 4 + failure of the last refused slot, or -1 */
} binary_job;

/* Slots [begin, end) (see am_pool_sweep; ranges start on 64-slot
 * boundaries, so a streamed output stays 64-byte aligned and a chunk's
 * validity bits start at a whole byte). A checked op's chunks are checked,
 * then computed; each range reports its last refused slot and the largest
 * report wins (slot * 4 + failure, so the failure rides along), the result
 * then dropped. */
static void binary_range(void *ctx, int64_t begin, int64_t end) {
  binary_job *job = ctx;
  const int64_t step = job->stream  ? AM_STREAM_BLOCK / job->width
                       : job->check ? CHECK_CHUNK
                                    : end - begin;
  _Alignas(64) char block[AM_STREAM_BLOCK];
  int64_t report = -1;
  for (int64_t c = begin; c < end; c += step) {
    const int64_t m = end - c < step ? end - c : step;
    const size_t at = (size_t)(c * job->width);
    const char *y = job->scalar ? job->y : job->y + at;
    if (job->check) {
      int failure = 0;
      int64_t slot = job->check(job->x + at, y, job->scalar, job->valid ? job->valid + c / 8 : NULL,
                                m, &failure);
      if (slot >= 0) report = (c + slot) * 4 + failure;
    }
    if (!job->stream) {
      job->fn(job->x + at, y, job->scalar, job->o + at, m);
      continue;
    }
    job->fn(job->x + at, y, job->scalar, block, m);
    const int64_t bytes = m * job->width, whole = bytes / 64 * 64;
    am_stream_copy(job->o + at, block, whole);
    if (whole < bytes) memcpy(job->o + at + whole, block + whole, (size_t)(bytes - whole));
  }
  if (job->stream) am_stream_fence();
  if (report < 0) return;
  int64_t seen = atomic_load(&job->last);
  while (report > seen && !atomic_compare_exchange_weak(&job->last, &seen, report)) {
  }
}

/* The failure of a checked op at `slot`, naming its values. */
static int refuse(am_err *err, am_binary_op op, am_type type, const char *x, const char *y,
                  int64_t slot, int failure) {
  const am_unary_check *why = &am_binary_check_of(op)->failure[failure - 1];
  char xv[64], yv[64];
  am_value_text(type, x, xv, sizeof xv);
  am_value_text(type, y, yv, sizeof yv);
  return am_fail(err, why->status, "%s (%s(%s, %s) at slot %lld)", why->message,
                 am_binary_op_name(op), xv, yv, (long long)slot);
}

int am_cpu_binary(am_err *err, am_binary_op op, const am_array *left, const am_array *right,
                  const am_scalar *scalar, am_array **out) {
  am_type type = left->type;
  binary_fn fn = (unsigned)op < AM_BINARY_COUNT && am_type_valid(type) ? loops[op][type] : NULL;
  if (!fn || !am_binary_computes(op, type))
    return am_fail(err, AM_ETYPE, "no %s kernel for %s", am_binary_op_name(op), am_type_name(type));
  if (scalar && scalar->is_null)
    return am_cpu_null_result(err, left->device, type, left->length, out);
  if (op == AM_DIVIDE_CHECKED && exact_divide(type)) fn = exact_divide(type);
  if (vector_of[op] && (type == AM_FLOAT32 || type == AM_FLOAT64)) {
    am_vm_binary_fn vector = am_vm_binary(vector_of[op], type == AM_FLOAT32);
    if (vector) fn = vector;
  }
  am_array *result = NULL;
  int status = am_cpu_result(err, type, left->length, left, right, &result);
  if (status != AM_OK) return status;
  int64_t width = am_type_bits(type) / 8;
  /* A scalar as one element: the low bytes of its bits (little-endian). */
  const uint64_t element = scalar ? am_cpu_scalar_bits(type, scalar) : 0;
  const char *x = (const char *)left->data + left->offset * width;
  const char *y =
      scalar ? (const char *)&element : (const char *)right->data + right->offset * width;
  binary_job job = {.fn = fn,
                    .check = am_binary_check_of(op) ? checks[op][type] : NULL,
                    .x = x,
                    .y = y,
                    .scalar = scalar != NULL,
                    .o = result->data_buf->ptr,
                    .valid = result->validity,
                    .width = width,
                    .stream = width * left->length >= AM_STREAM_MIN};
  atomic_init(&job.last, -1);
  am_pool_sweep(left->length, width, binary_range, &job);
  int64_t last = atomic_load(&job.last);
  if (last >= 0) {
    int64_t slot = last / 4;
    am_array_free(result);
    return refuse(err, op, type, x + slot * width, scalar ? y : y + slot * width, slot,
                  (int)(last % 4));
  }
  *out = result;
  return AM_OK;
}
