/* Comparisons into bit-packed booleans.
 *
 * Numbers are compared 64 slots at a time into bytes, which vectorizes, and
 * the bytes are packed into one word (am_pack64). Only ==, < and <= exist per
 * type for two arrays: > and >= swap the operands, and != inverts == (exact
 * for NaN too: NaN != x is true because NaN == x is false). */
#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

typedef void (*compare_arrays_fn)(const void *a, const void *b, uint64_t *out, int64_t n,
                                  uint64_t flip);
typedef void (*compare_scalar_fn)(const void *a, const am_scalar *b, uint64_t *out, int64_t n,
                                  uint64_t flip);

/* The words of out for x[j] OP RHS(j), each XORed with `flip`. */
#define COMPARE_LOOP(OP, RHS)                                            \
  int64_t w = 0;                                                         \
  for (; (w + 1) * 64 <= n; w++) {                                       \
    const int64_t base = w * 64;                                         \
    uint8_t bytes[64];                                                   \
    for (int j = 0; j < 64; j++) bytes[j] = x[base + j] OP RHS(j);       \
    out[w] = am_pack64(bytes) ^ flip;                                    \
  }                                                                      \
  if (w * 64 < n) {                                                      \
    const int64_t base = w * 64;                                         \
    uint8_t bytes[64] = {0};                                             \
    for (int j = 0; j < n - base; j++) bytes[j] = x[base + j] OP RHS(j); \
    out[w] = (am_pack64(bytes) ^ flip) & am_bits_mask(n - base);         \
  }

#define ARRAY_RHS(j) y[base + (j)]
#define SCALAR_RHS(j) s

#define DEFINE_COMPARE_ARRAYS(T, N, NAME, OP)                                                  \
  AM_CPU_CLONES static void NAME##_##N(const void *a, const void *b, uint64_t *out, int64_t n, \
                                       uint64_t flip) {                                        \
    const T *x = a, *y = b;                                                                    \
    COMPARE_LOOP(OP, ARRAY_RHS)                                                                \
  }
#define DEFINE_COMPARE_SCALAR(T, N, F, NAME, OP)                                         \
  AM_CPU_CLONES static void NAME##_##N(const void *a, const am_scalar *b, uint64_t *out, \
                                       int64_t n, uint64_t flip) {                       \
    const T *x = a;                                                                      \
    const T s = (T)b->F;                                                                 \
    COMPARE_LOOP(OP, SCALAR_RHS)                                                         \
  }

#define DEFINE_COMPARES(E, T, U, N, F, LO, HI)  \
  DEFINE_COMPARE_ARRAYS(T, N, eq, ==)           \
  DEFINE_COMPARE_ARRAYS(T, N, lt, <)            \
  DEFINE_COMPARE_ARRAYS(T, N, le, <=)           \
  DEFINE_COMPARE_SCALAR(T, N, F, eq_scalar, ==) \
  DEFINE_COMPARE_SCALAR(T, N, F, lt_scalar, <)  \
  DEFINE_COMPARE_SCALAR(T, N, F, le_scalar, <=) \
  DEFINE_COMPARE_SCALAR(T, N, F, gt_scalar, >)  \
  DEFINE_COMPARE_SCALAR(T, N, F, ge_scalar, >=)
AM_CPU_NUMERIC_TYPES(DEFINE_COMPARES)

/* Indexed by am_compare_op; arrays[AM_GT] and [AM_GE] are < and <=, called
 * with the operands swapped. */
static const struct {
  compare_arrays_fn arrays[AM_GE + 1];
  compare_scalar_fn scalar[AM_GE + 1];
} kernels[AM_TYPE_COUNT] = {
#define ENTRY(E, T, U, N, F, LO, HI)                    \
  [E] = {                                               \
      {eq_##N, eq_##N, lt_##N, le_##N, lt_##N, le_##N}, \
      {eq_scalar_##N, eq_scalar_##N, lt_scalar_##N, le_scalar_##N, gt_scalar_##N, ge_scalar_##N}},
    AM_CPU_NUMERIC_TYPES(ENTRY)
#undef ENTRY
};

/* Booleans as bit operations, false < true. */
static void compare_bools(am_compare_op op, const am_array *left, const am_array *right,
                          uint64_t *out) {
  static const struct {
    am_bits_op bits;
    int swap;
  } as_bits[AM_GE + 1] = {
      [AM_EQ] = {AM_BITS_XNOR, 0},   [AM_NE] = {AM_BITS_XOR, 0},
      [AM_LT] = {AM_BITS_ANDNOT, 1}, /* right & ~left */
      [AM_LE] = {AM_BITS_ORNOT, 1},  /* right | ~left */
      [AM_GT] = {AM_BITS_ANDNOT, 0}, [AM_GE] = {AM_BITS_ORNOT, 0},
  };
  const am_array *a = as_bits[op].swap ? right : left, *b = as_bits[op].swap ? left : right;
  am_bits_apply(as_bits[op].bits, out, a->data, a->offset, b->data, b->offset, left->length);
}

/* Against a constant each slot's result depends on its bit alone: constant,
 * the bit, or its inverse. */
static void compare_bool_scalar(am_compare_op op, const am_array *left, int s, uint64_t *out) {
  int when[2];
  for (int a = 0; a < 2; a++) {
    switch (op) {
      case AM_EQ:
        when[a] = a == s;
        break;
      case AM_NE:
        when[a] = a != s;
        break;
      case AM_LT:
        when[a] = a < s;
        break;
      case AM_LE:
        when[a] = a <= s;
        break;
      case AM_GT:
        when[a] = a > s;
        break;
      case AM_GE:
        when[a] = a >= s;
        break;
    }
  }
  if (when[0] == when[1])
    am_bits_fill(out, left->length, when[0]);
  else
    am_bits_apply(when[1] ? AM_BITS_COPY : AM_BITS_NOT, out, left->data, left->offset, NULL, 0,
                  left->length);
}

/* Numbers in parallel: ranges of whole words. */
typedef struct compare_job {
  compare_arrays_fn arrays;
  compare_scalar_fn scalar;
  const char *x, *y;
  const am_scalar *s;
  size_t width;
  uint64_t *bits, flip;
  int64_t n;
  int parts;
} compare_job;

static void compare_part(void *ctx, int part) {
  const compare_job *job = ctx;
  int64_t begin, end;
  am_pool_range(job->n, job->parts, part, &begin, &end);
  if (end <= begin) return;
  const char *x = job->x + begin * job->width;
  uint64_t *bits = job->bits + begin / 64;
  if (job->scalar)
    job->scalar(x, job->s, bits, end - begin, job->flip);
  else
    job->arrays(x, job->y + begin * job->width, bits, end - begin, job->flip);
}

int am_cpu_compare(am_err *err, am_compare_op op, const am_array *left, const am_array *right,
                   const am_scalar *scalar, am_array **out) {
  if (left->type != AM_BOOL && !am_type_is_numeric(left->type))
    return am_fail(err, AM_ETYPE, "no comparison for %s", am_type_name(left->type));
  if (scalar && scalar->is_null)
    return am_cpu_null_result(err, left->device, AM_BOOL, left->length, out);
  am_array *result = NULL;
  int status = am_cpu_result(err, AM_BOOL, left->length, left, right, &result);
  if (status != AM_OK) return status;
  uint64_t *bits = result->data_buf->ptr;
  int64_t n = left->length;
  if (left->type == AM_BOOL) {
    if (scalar)
      compare_bool_scalar(op, left, scalar->i64 != 0, bits);
    else
      compare_bools(op, left, right, bits);
  } else {
    size_t width = (size_t)am_type_bits(left->type) / 8;
    const char *x = (const char *)left->data + left->offset * width;
    uint64_t flip = op == AM_NE ? ~(uint64_t)0 : 0;
    int parts = am_pool_parts(n);
    if (parts > 1) {
      int swap = !scalar && (op == AM_GT || op == AM_GE);
      const char *y = scalar ? NULL : (const char *)right->data + right->offset * width;
      compare_job job = {.arrays = scalar ? NULL : kernels[left->type].arrays[op],
                         .scalar = scalar ? kernels[left->type].scalar[op] : NULL,
                         .x = swap ? y : x,
                         .y = swap ? x : y,
                         .s = scalar,
                         .width = width,
                         .bits = bits,
                         .flip = flip,
                         .n = n,
                         .parts = parts};
      am_pool_run(parts, compare_part, &job);
    } else if (scalar) {
      kernels[left->type].scalar[op](x, scalar, bits, n, flip);
    } else {
      const char *y = (const char *)right->data + right->offset * width;
      int swap = op == AM_GT || op == AM_GE;
      kernels[left->type].arrays[op](swap ? y : x, swap ? x : y, bits, n, flip);
    }
  }
  *out = result;
  return AM_OK;
}
