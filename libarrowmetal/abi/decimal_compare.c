/* Decimal compare and aggregates (sum, mean, min, max, min_max) on the
 * host, with pyarrow's rules: two decimals compare at their common scale
 * (the common type's precision may not pass the width's digits: pyarrow's
 * "Decimal precision out of range"); sum is decimal128(38, s) /
 * decimal256(76, s) and wraps at the width as pyarrow's does; mean keeps
 * the input's type, rounding half away from zero. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "decimal_calls.h"
#include "string_calls.h"

typedef __int128 am_s128;

int am_decimal_operand(am_err *err, const am_array *array, const am_scalar *scalar,
                       am_decimal_param *out) {
  if (array) {
    if (!am_type_is_decimal(array->type))
      return am_fail(err, AM_ETYPE, "a %s array does not go with decimals here",
                     am_type_name(array->type));
    *out = (am_decimal_param){array->type, array->precision, array->scale};
  } else if (am_type_is_decimal((am_type)scalar->type)) {
    *out = (am_decimal_param){(am_type)scalar->type, am_decimal_unpack_precision(scalar->i64),
                              am_decimal_unpack_scale(scalar->i64)};
    if (out->precision < 1 || out->precision > am_decimal_max_digits(out->type))
      return am_fail(err, AM_EINVAL, "a %s scalar's precision must be 1 to %d, not %d",
                     am_type_name(out->type), am_decimal_max_digits(out->type),
                     (int)out->precision);
  } else if (am_type_is_integer((am_type)scalar->type)) {
    /* pyarrow casts an integer to the decimal of its type's digits */
    *out = (am_decimal_param){AM_DECIMAL128, am_decimal_integer_digits((am_type)scalar->type), 0};
  } else {
    return am_fail(err, AM_ETYPE, "a %s scalar does not go with decimals here",
                   am_type_name((am_type)scalar->type));
  }
  if (out->scale < 0)
    return am_fail(err, AM_EUNSUPPORTED, "Decimals with negative scales not supported");
  return AM_OK;
}

int am_decimal_integer_digits(am_type integer) {
  static const int digits[] = {[AM_INT8] = 3,  [AM_INT16] = 5,  [AM_INT32] = 10,  [AM_INT64] = 19,
                               [AM_UINT8] = 3, [AM_UINT16] = 5, [AM_UINT32] = 10, [AM_UINT64] = 20};
  return digits[integer];
}

int am_decimal_make_param(am_err *err, am_type type, int64_t precision, int64_t scale,
                          am_decimal_param *out) {
  int most = am_decimal_max_digits(type);
  if (precision < 1 || precision > most)
    return am_fail(err, AM_EINVAL, "Decimal precision out of range [1, %d]: %lld", most,
                   (long long)precision);
  if (scale < INT32_MIN || scale > INT32_MAX)
    return am_fail(err, AM_EINVAL, "Decimal scale out of range: %lld", (long long)scale);
  *out = (am_decimal_param){type, (int32_t)precision, (int32_t)scale};
  return AM_OK;
}

am_type am_decimal_wider(am_type a, am_type b) {
  return a == AM_DECIMAL256 || b == AM_DECIMAL256 ? AM_DECIMAL256 : AM_DECIMAL128;
}

int am_decimal_bool_result(am_err *err, int64_t length, int with_validity, am_array **out) {
  int status = am_array_alloc_host(err, am_host_device(), AM_BOOL, length, with_validity, out);
  if (status != AM_OK) return status;
  memset((void *)(*out)->data, 0, (size_t)am_type_bytes(AM_BOOL, length));
  if (with_validity) memset((void *)(*out)->validity, 0, (size_t)am_type_bytes(AM_BOOL, length));
  atomic_store(&(*out)->null_count, 0);
  return AM_OK;
}

void am_decimal_set_bit(const uint8_t *bits, int64_t i) {
  ((uint8_t *)bits)[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static inline am_s128 load128(const am_array *a, int64_t i) {
  am_s128 v;
  memcpy(&v, (const uint8_t *)a->data + (a->offset + i) * 16, 16);
  return v;
}

int am_decimal_compare(am_err *err, int op, const am_array *left, const am_array *right,
                       const am_scalar *scalar, am_array **out) {
  if ((unsigned)op > AM_GE) return am_fail(err, AM_EINVAL, "unknown compare op %d", op);
  am_decimal_param l = {0}, r = {0}, common = {0};
  int status = am_decimal_operand(err, left, NULL, &l);
  if (status == AM_OK) status = am_decimal_operand(err, right, scalar, &r);
  if (status != AM_OK) return status;
  if (right && right->length != left->length)
    return am_fail(err, AM_EINVAL, "arrays have different lengths (%lld and %lld)",
                   (long long)left->length, (long long)right->length);
  int32_t scale = l.scale > r.scale ? l.scale : r.scale;
  /* in 64 bits: a scalar's scale may be any int32 */
  int64_t lw = (int64_t)l.precision - l.scale, rw = (int64_t)r.precision - r.scale;
  int64_t digits = (lw > rw ? lw : rw) + scale;
  if ((status = am_decimal_make_param(err, am_decimal_wider(l.type, r.type), digits, scale,
                                      &common)) != AM_OK)
    return status;
  int64_t n = left->length;
  int scalar_null = scalar && scalar->is_null;
  int nullable = left->validity || (right && right->validity) || scalar_null;
  if ((status = am_decimal_bool_result(err, n, nullable, out)) != AM_OK) return status;
  if (scalar_null) {
    atomic_store(&(*out)->null_count, n);
    return AM_OK;
  }
  am_i256 constant = am_i256_from_u64(0);
  if (scalar &&
      (status = am_decimal_scalar_value(err, scalar, r.precision, r.scale, &constant)) != AM_OK) {
    am_array_free(*out);
    return status;
  }
  am_i256 lm = am_i256_pow10(scale - l.scale), rm = am_i256_pow10(scale - r.scale);
  int lup = scale != l.scale, rup = scale != r.scale;
  if (rup && scalar) constant = am_i256_mul(constant, rm), rup = 0;
  const uint8_t *bits = (*out)->data, *valid = (*out)->validity;
  int64_t nulls = 0;
  /* decimal128 at one scale: native 128-bit compares */
  int fast = !lup && !rup && l.type == AM_DECIMAL128 && (scalar || r.type == AM_DECIMAL128) &&
             am_i256_fits(constant, AM_DECIMAL128_DIGITS);
  am_s128 c128 = (am_s128)(((unsigned __int128)constant.w[1] << 64) | constant.w[0]);
  for (int64_t i = 0; i < n; i++) {
    if (nullable) {
      if (!am_decimal_valid(left, i) || (right && !am_decimal_valid(right, i))) {
        nulls++;
        continue;
      }
      am_decimal_set_bit(valid, i);
    }
    int c;
    if (fast) {
      am_s128 a = load128(left, i), b = scalar ? c128 : load128(right, i);
      c = (a > b) - (a < b);
    } else {
      am_i256 a = am_decimal_at(left, i), b = scalar ? constant : am_decimal_at(right, i);
      if (lup) a = am_i256_mul(a, lm);
      if (rup) b = am_i256_mul(b, rm);
      c = am_i256_cmp(a, b);
    }
    if (am_compare_holds((am_compare_op)op, c)) am_decimal_set_bit(bits, i);
  }
  atomic_store(&(*out)->null_count, nulls);
  return AM_OK;
}

/* ---- aggregates */

/* The thread's result values: a scalar the library writes points here. */
static _Thread_local am_i256 results[2];

static void write_result(am_scalar *s, int k, am_decimal_param p, const am_i256 *v) {
  memset(s, 0, sizeof *s);
  s->type = (int32_t)p.type;
  s->i64 = am_decimal_pack(p.precision, p.scale);
  s->is_null = v == NULL;
  if (v) {
    results[k] = *v;
    s->u64 = (uint64_t)(uintptr_t)results[k].w; /* little-endian limbs: the value's bytes */
  }
}

static const char *aggregate_name(int op) {
  switch (op) {
    case AM_AGG_SUM:
      return "sum";
    case AM_AGG_MEAN:
      return "mean";
    case AM_AGG_MIN:
    case AM_AGG_MAX:
    case AM_AGG_MIN_MAX:
      return "min_max";
    case AM_AGG_FIRST:
    case AM_AGG_LAST:
    case AM_AGG_FIRST_LAST:
      return "first_last";
    case AM_AGG_PRODUCT:
      return "product";
    case AM_AGG_ANY:
      return "any";
    case AM_AGG_ALL:
      return "all";
    case AM_AGG_VARIANCE:
      return "variance";
    case AM_AGG_STDDEV:
      return "stddev";
    default:
      return "index";
  }
}

/* The sum of the valid slots, wrapping at the array's width. */
static am_i256 sum_of(const am_array *a) {
  if (a->type == AM_DECIMAL128) {
    unsigned __int128 s = 0;
    for (int64_t i = 0; i < a->length; i++)
      if (am_decimal_valid(a, i)) s += (unsigned __int128)load128(a, i);
    return am_i256_load(&s, 16);
  }
  am_i256 s = am_i256_from_u64(0);
  for (int64_t i = 0; i < a->length; i++)
    if (am_decimal_valid(a, i)) s = am_i256_add(s, am_decimal_at(a, i));
  return s;
}

int am_decimal_aggregate(am_err *err, int op, const am_array *array,
                         const am_aggregate_options *options, am_scalar *a, am_scalar *b) {
  if (op != AM_AGG_SUM && op != AM_AGG_MEAN && op != AM_AGG_MIN && op != AM_AGG_MAX &&
      op != AM_AGG_MIN_MAX) {
    char text[48];
    am_decimal_type_text(array, text, sizeof text);
    return am_fail(err, AM_ETYPE, "Function '%s' has no kernel matching input types (%s)",
                   aggregate_name(op), text);
  }
  am_aggregate_options o = {1, 1, 0};
  if (options) o = *options;
  int64_t nulls = 0;
  int status = am_count_nulls(err, array, &nulls);
  if (status != AM_OK) return status;
  int64_t valid = array->length - nulls;
  am_decimal_param p = {array->type, array->precision, array->scale};
  if (op == AM_AGG_SUM) p.precision = am_decimal_max_digits(array->type);
  int null = valid < (int64_t)o.min_count || (!o.skip_nulls && nulls > 0);
  if (op == AM_AGG_SUM || op == AM_AGG_MEAN) {
    am_i256 s = sum_of(array);
    null |= op == AM_AGG_MEAN && valid == 0;
    if (op == AM_AGG_MEAN && !null) {
      /* half away from zero: (|s| + valid / 2) / valid, signed back */
      am_i256 m = am_i256_negative(s) ? am_i256_neg(s) : s, rem;
      am_i256 q = am_i256_div(m, am_i256_from_i64(valid), &rem);
      if (am_i256_cmp(am_i256_add(rem, rem), am_i256_from_i64(valid)) >= 0)
        q = am_i256_add(q, am_i256_from_u64(1));
      s = am_i256_negative(s) ? am_i256_neg(q) : q;
      /* a wrapped sum's mean wraps too, as pyarrow's */
      if (array->type == AM_DECIMAL128) s = am_i256_load(s.w, 16);
    }
    write_result(a, 0, p, null ? NULL : &s);
    return AM_OK;
  }
  null |= valid == 0;
  am_i256 lo = am_i256_from_u64(0), hi = lo;
  int seen = 0;
  for (int64_t i = 0; i < array->length && !null; i++) {
    if (!am_decimal_valid(array, i)) continue;
    am_i256 v = am_decimal_at(array, i);
    if (!seen || am_i256_cmp(v, lo) < 0) lo = v;
    if (!seen || am_i256_cmp(v, hi) > 0) hi = v;
    seen = 1;
  }
  if (op == AM_AGG_MIN_MAX) {
    write_result(a, 0, p, null ? NULL : &lo);
    write_result(b, 1, p, null ? NULL : &hi);
  } else {
    write_result(a, 0, p, null ? NULL : op == AM_AGG_MIN ? &lo : &hi);
  }
  return AM_OK;
}
