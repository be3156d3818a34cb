/* add, subtract, multiply and divide of decimals, with Arrow's promotion
 * rules (pyarrow's results and errors; the checked variants are the same,
 * as in pyarrow: the result type always holds the exact result):
 *   add, subtract: both scaled up to s = max(s1, s2); the result is
 *     decimal(max(p1 - s1, p2 - s2) + s + 1, s);
 *   multiply: decimal(p1 + p2 + 1, s1 + s2);
 *   divide: the left scaled up by max(4, s1 + p2 - s2 + 1) + s2 - s1 digits
 *     (p1' = p1 + that), the result decimal(p1', s1' - s2), truncated toward
 *     zero; a zero divisor is "Divide by zero".
 * A precision the width cannot hold, of a scaled operand or of the result,
 * is pyarrow's "Decimal precision out of range [1, 38]: 39". Operands of
 * both widths meet as decimal256. */
#include <string.h>

#include "decimal_calls.h"

typedef __int128 am_s128;

/* The scale-ups of the operands and the result's parameters. */
typedef struct plan {
  int lup, rup;
  am_decimal_param out;
} plan;

/* In 64 bits: a scalar's scale may be any int32, and sums of scales must not
 * overflow (ops_fuzz: a scale of INT32_MAX). */
static int make_plan(am_err *err, int op, am_decimal_param l, am_decimal_param r, plan *p) {
  am_type t = am_decimal_wider(l.type, r.type);
  int64_t lup = 0, rup = 0;
  if (op == AM_ADD || op == AM_SUBTRACT) {
    int64_t s = l.scale > r.scale ? l.scale : r.scale;
    lup = s - l.scale;
    rup = s - r.scale;
  } else if (op == AM_DIVIDE) {
    int64_t need = (int64_t)l.scale + r.precision - r.scale + 1;
    lup = (need > 4 ? need : 4) + (int64_t)r.scale - l.scale;
  }
  int64_t lp = l.precision + lup, rp = r.precision + rup;
  am_decimal_param scaled;
  int status = am_decimal_make_param(err, t, lp, l.scale + lup, &scaled);
  if (status == AM_OK) status = am_decimal_make_param(err, t, rp, r.scale + rup, &scaled);
  if (status != AM_OK) return status;
  /* Both scaled precisions fit the width: the scale-ups are small. */
  p->lup = (int)lup;
  p->rup = (int)rup;
  switch (op) {
    case AM_ADD:
    case AM_SUBTRACT:
      return am_decimal_make_param(err, t, (lp > rp ? lp : rp) + 1, l.scale + lup, &p->out);
    case AM_MULTIPLY:
      return am_decimal_make_param(err, t, (int64_t)l.precision + r.precision + 1,
                                   (int64_t)l.scale + r.scale, &p->out);
    default:
      return am_decimal_make_param(err, t, lp, l.scale + lup - r.scale, &p->out);
  }
}

static am_s128 to128(am_i256 v) { return (am_s128)(((unsigned __int128)v.w[1] << 64) | v.w[0]); }

/* x op y wrapping at 128 bits, as Arrow's decimal128 arithmetic: values past
 * the precision (kept as they come) may leave the width, which signed
 * __int128 arithmetic may not (UB). y != 0 for divide; MIN / -1 wraps. */
static am_s128 wrap128(am_arith_op op, am_s128 x, am_s128 y) {
  typedef unsigned __int128 u128;
  if (op == AM_ADD) return (am_s128)((u128)x + (u128)y);
  if (op == AM_SUBTRACT) return (am_s128)((u128)x - (u128)y);
  if (op == AM_MULTIPLY) return (am_s128)((u128)x * (u128)y);
  return y == -1 ? (am_s128)(0 - (u128)x) : x / y;
}

static int divide_by_zero(am_err *err) { return am_fail(err, AM_EZERODIV, "Divide by zero"); }

int am_decimal_arith(am_err *err, int op, const am_array *left, const am_array *right,
                     const am_scalar *scalar, am_array **out) {
  if ((unsigned)op > AM_DIVIDE) return am_fail(err, AM_EINVAL, "unknown arithmetic op %d", op);
  am_decimal_param l = {0}, r = {0};
  plan p;
  int status = am_decimal_operand(err, left, NULL, &l);
  if (status == AM_OK) status = am_decimal_operand(err, right, scalar, &r);
  if (status == AM_OK) status = make_plan(err, op, l, r, &p);
  if (status != AM_OK) return status;
  if (right && right->length != left->length)
    return am_fail(err, AM_EINVAL, "arrays have different lengths (%lld and %lld)",
                   (long long)left->length, (long long)right->length);
  int64_t n = left->length;
  int scalar_null = scalar && scalar->is_null;
  int nullable = left->validity || (right && right->validity) || scalar_null;
  am_i256 constant = am_i256_from_u64(0);
  if (scalar && !scalar_null &&
      (status = am_decimal_scalar_value(err, scalar, r.precision, r.scale, &constant)) != AM_OK)
    return status;
  am_array *result = NULL;
  if ((status = am_array_alloc_host(err, am_host_device(), p.out.type, n, nullable, &result)) !=
      AM_OK)
    return status;
  am_decimal_retype(result, p.out.type, p.out.precision, p.out.scale);
  int width = am_decimal_bytes(p.out.type);
  uint8_t *o = (uint8_t *)result->data;
  memset(o, 0, (size_t)am_type_bytes(p.out.type, n));
  if (nullable) memset((void *)result->validity, 0, (size_t)am_type_bytes(AM_BOOL, n));
  am_i256 lm = am_i256_pow10(p.lup), rm = am_i256_pow10(p.rup);
  /* decimal128 throughout: every value and product fits 128 bits (the
   * result's precision is at most 38), so native arithmetic serves */
  int native = p.out.type == AM_DECIMAL128;
  am_s128 lm1 = to128(lm), rm1 = to128(rm), c1 = to128(constant);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n && status == AM_OK; i++) {
    if (nullable) {
      if (scalar_null || !am_decimal_valid(left, i) || (right && !am_decimal_valid(right, i))) {
        nulls++;
        continue;
      }
      am_decimal_set_bit(result->validity, i);
    }
    am_i256 a = am_decimal_at(left, i), b = scalar ? constant : am_decimal_at(right, i);
    if (native) {
      am_s128 x = wrap128(AM_MULTIPLY, to128(a), lm1);
      am_s128 y = wrap128(AM_MULTIPLY, scalar ? c1 : to128(b), rm1), z;
      if (op == AM_DIVIDE && y == 0) {
        status = divide_by_zero(err);
        break;
      }
      z = wrap128(op, x, y);
      memcpy(o + i * width, &z, 16);
      continue;
    }
    if (p.lup) a = am_i256_mul(a, lm);
    if (p.rup) b = am_i256_mul(b, rm);
    am_i256 z;
    if (op == AM_DIVIDE && am_i256_zero(b)) {
      status = divide_by_zero(err);
      break;
    }
    z = op == AM_ADD        ? am_i256_add(a, b)
        : op == AM_SUBTRACT ? am_i256_sub(a, b)
        : op == AM_MULTIPLY ? am_i256_mul(a, b)
                            : am_i256_div(a, b, NULL);
    am_i256_store(z, o + i * width, width);
  }
  if (status != AM_OK) {
    am_array_free(result);
    return status;
  }
  atomic_store(&result->null_count, nulls);
  *out = result;
  return AM_OK;
}
