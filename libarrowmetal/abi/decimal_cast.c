/* Casts from and to decimals on the host, with pyarrow's rules, results and
 * words (its CastOptions as am_cast_flag bits; flags 0 checks nothing):
 *  - decimal -> decimal: rescaled in the wider of the two widths, then kept
 *    to the target's; checked (no allow_decimal_truncate): a fraction that
 *    would be dropped or a scale-up that Arrow sees wrap is "Rescaling
 *    Decimal value would cause data loss", a result beyond the precision
 *    "Decimal value does not fit in precision P". Arrow's wrap test is only
 *    whether the product moved the wrong way, so a scale-up that wraps to a
 *    value of the precision passes, as in pyarrow;
 *  - decimal -> integer: scaled to 0 (data loss checked as above), then the
 *    target's range ("Integer value out of bounds", lifted by
 *    allow_int_overflow: the low bits);
 *  - integer -> decimal: refused by type when the precision cannot hold the
 *    integer type's digits plus the scale ("Precision is not great enough
 *    for the result. It should be at least N"), whatever the flags;
 *  - float <-> decimal: core/decimal_real.c's conversions; NaN, infinities
 *    and values beyond the precision fail unless allow_decimal_truncate
 *    (pyarrow's choice, not allow_float_truncate), which gives 0.
 * Null slots are never read (they stay 0). */
#include <stdio.h>
#include <string.h>

#include "core/bits.h"
#include "core/decimal_real.h"
#include "decimal_calls.h"

/* A value's failure; Arrow's kernels go through every value and report the
 * last one's, and so does this. */
typedef enum failure {
  NO_FAILURE,
  DATA_LOSS,
  BEYOND_PRECISION,
  OUT_OF_BOUNDS,
  REAL_FAILURE
} failure;

typedef struct cast_job {
  const am_array *in;
  am_decimal_param to; /* type only, for a target that is no decimal */
  int check_truncate;  /* rescale data loss, precision, float -> decimal failures */
  int check_overflow;  /* integer range, decimal precision */
  am_array *out;
  uint8_t *data;
  int out_bytes;
  failure failed; /* the last value's */
  int real_why;   /* REAL_FAILURE: am_decimal_real_status, of `real` */
  double real;
} cast_job;

/* A zeroed host result of `job->to.type` with the input's nulls. */
static int alloc_result(am_err *err, cast_job *job) {
  const am_array *in = job->in;
  int64_t n = in->length, nulls = 0;
  int status =
      am_array_alloc_host(err, am_host_device(), job->to.type, n, in->validity != NULL, &job->out);
  if (status != AM_OK) return status;
  if (am_type_is_decimal(job->to.type))
    am_decimal_retype(job->out, job->to.type, job->to.precision, job->to.scale);
  job->data = (uint8_t *)job->out->data;
  memset(job->data, 0, (size_t)am_type_bytes(job->to.type, n));
  job->out_bytes = am_type_is_decimal(job->to.type) ? am_decimal_bytes(job->to.type)
                                                    : (int)am_type_bytes(job->to.type, 1);
  if (in->validity) {
    uint8_t *bits = (uint8_t *)job->out->validity;
    memset(bits, 0, (size_t)am_type_bytes(AM_BOOL, n));
    for (int64_t i = 0; i < n; i += 64) {
      uint64_t word = am_load_bits(in->validity, in->offset + i, n - i);
      for (int b = 0; b < 8 && i + 8 * b < n; b++) bits[i / 8 + b] = (uint8_t)(word >> (8 * b));
      nulls += (n - i < 64 ? n - i : 64) - am_popcount64(word);
    }
  }
  atomic_store(&job->out->null_count, nulls);
  return AM_OK;
}

static int valid(const am_array *a, int64_t i) {
  int64_t j = a->offset + i;
  return !a->validity || ((a->validity[j >> 3] >> (j & 7)) & 1);
}

static const void *slot(const am_array *a, int64_t i, int bytes) {
  return (const uint8_t *)a->data + (a->offset + i) * bytes;
}

/* v scaled by 10^delta in a decimal of `bytes` (wrapping up, truncating
 * down); *lost as Arrow's Rescale sees data loss: digits dropped, or a
 * scale-up that moved the value the wrong way. */
static am_i256 rescale(am_i256 v, int64_t delta, int bytes, bool *lost) {
  *lost = false;
  if (delta < -76) { /* |v| < 10^77: every digit dropped (10^-delta has no 256-bit value) */
    *lost = !am_i256_zero(v);
    return am_i256_from_u64(0);
  }
  if (delta > 256) delta = 256;   /* 10^delta wraps to 0 in 256 bits from 10^256 on */
  if (delta < 0 && bytes == 32) { /* Arrow's decimal256 division, its quirk and all */
    am_i256 rest, q = am_i256_div_as_arrow256(v, am_i256_pow10(-delta), &rest);
    *lost = !am_i256_zero(rest);
    return q;
  }
  if (delta < 0) return am_i256_scale_down(v, -delta, lost);
  if (delta == 0) return v;
  am_i256 r = am_i256_wrap(am_i256_mul(v, am_i256_pow10(delta)), bytes);
  int moved = am_i256_cmp(r, v);
  *lost = am_i256_negative(v) ? moved > 0 : moved < 0;
  return r;
}

static void decimal_to_decimal(cast_job *job) {
  const am_array *in = job->in;
  int in_bytes = am_decimal_bytes(in->type);
  int wide = in_bytes > job->out_bytes ? in_bytes : job->out_bytes;
  const int64_t delta = (int64_t)job->to.scale - in->scale; /* scales are any int32 */
  for (int64_t i = 0; i < in->length; i++) {
    if (!valid(in, i)) continue;
    bool lost;
    am_i256 v = rescale(am_i256_load(slot(in, i, in_bytes), in_bytes), delta, wide, &lost);
    if (job->check_truncate && (lost || !am_i256_fits(v, job->to.precision)))
      job->failed = lost ? DATA_LOSS : BEYOND_PRECISION;
    else
      am_i256_store(v, job->data + i * job->out_bytes, job->out_bytes);
  }
}

/* The target integer type's range. */
static void integer_range(am_type t, am_i256 *lo, am_i256 *hi) {
  int bits = 8 * (int)am_type_bytes(t, 1);
  if (am_type_is_signed(t)) {
    int64_t top = (int64_t)(((uint64_t)1 << (bits - 1)) - 1);
    *lo = am_i256_from_i64(-top - 1);
    *hi = am_i256_from_i64(top);
  } else {
    *lo = am_i256_from_u64(0);
    *hi = am_i256_from_u64(bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1);
  }
}

static void decimal_to_integer(cast_job *job) {
  const am_array *in = job->in;
  int bytes = am_decimal_bytes(in->type);
  am_i256 lo, hi;
  integer_range(job->to.type, &lo, &hi);
  for (int64_t i = 0; i < in->length; i++) {
    if (!valid(in, i)) continue;
    bool lost;
    am_i256 v = rescale(am_i256_load(slot(in, i, bytes), bytes), -(int64_t)in->scale, bytes, &lost);
    if (job->check_truncate && lost)
      job->failed = DATA_LOSS;
    else if (job->check_overflow && (am_i256_cmp(v, lo) < 0 || am_i256_cmp(v, hi) > 0))
      job->failed = OUT_OF_BOUNDS;
    else
      memcpy(job->data + i * job->out_bytes, &v.w[0], (size_t)job->out_bytes); /* little-endian */
  }
}

static void decimal_to_real(cast_job *job) {
  const am_array *in = job->in;
  int bytes = am_decimal_bytes(in->type);
  for (int64_t i = 0; i < in->length; i++) {
    if (!valid(in, i)) continue;
    am_i256 v = am_i256_load(slot(in, i, bytes), bytes);
    if (job->to.type == AM_FLOAT32)
      ((float *)job->data)[i] = am_decimal_to_float(v, bytes, in->scale);
    else
      ((double *)job->data)[i] = am_decimal_to_double(v, bytes, in->scale);
  }
}

static am_i256 integer_at(const am_array *a, int64_t i) {
  const void *p = slot(a, i, (int)am_type_bytes(a->type, 1));
  switch (a->type) {
    case AM_INT8:
      return am_i256_from_i64(*(const int8_t *)p);
    case AM_INT16:
      return am_i256_from_i64(*(const int16_t *)p);
    case AM_INT32:
      return am_i256_from_i64(*(const int32_t *)p);
    case AM_INT64:
      return am_i256_from_i64(*(const int64_t *)p);
    case AM_UINT8:
      return am_i256_from_u64(*(const uint8_t *)p);
    case AM_UINT16:
      return am_i256_from_u64(*(const uint16_t *)p);
    case AM_UINT32:
      return am_i256_from_u64(*(const uint32_t *)p);
    default:
      return am_i256_from_u64(*(const uint64_t *)p);
  }
}

static int integer_to_decimal(am_err *err, cast_job *job) {
  const am_array *in = job->in;
  if (job->to.scale < 0) return am_fail(err, AM_EINVAL, "Scale must be non-negative");
  /* in 64 bits: a scale near INT32_MAX must not wrap past the check */
  const int64_t need = (int64_t)am_decimal_integer_digits(in->type) + job->to.scale;
  if (job->to.precision < need)
    return am_fail(err, AM_EINVAL,
                   "Precision is not great enough for the result. It should be at least %lld",
                   (long long)need);
  am_i256 ten = am_i256_pow10(job->to.scale);
  for (int64_t i = 0; i < in->length; i++)
    if (valid(in, i))
      am_i256_store(am_i256_mul(integer_at(in, i), ten), job->data + i * job->out_bytes,
                    job->out_bytes);
  return AM_OK;
}

static void real_to_decimal(cast_job *job) {
  const am_array *in = job->in;
  bool single = in->type == AM_FLOAT32;
  for (int64_t i = 0; i < in->length; i++) {
    if (!valid(in, i)) continue;
    double x = single ? (double)((const float *)in->data)[in->offset + i]
                      : ((const double *)in->data)[in->offset + i];
    am_i256 v;
    int why = am_decimal_from_real(x, single, job->out_bytes, job->to.precision, job->to.scale, &v);
    if (why && job->check_truncate) {
      job->failed = REAL_FAILURE;
      job->real_why = why;
      job->real = x;
    } else if (!why) {
      am_i256_store(v, job->data + i * job->out_bytes, job->out_bytes);
    }
  }
}

/* The last failing value's error in pyarrow's words. */
static int report(am_err *err, const cast_job *job) {
  double x = job->real < 0 ? -job->real : job->real; /* Arrow prints the magnitude */
  switch (job->failed) {
    case DATA_LOSS:
      return am_fail(err, AM_EINVAL, "Rescaling Decimal value would cause data loss");
    case BEYOND_PRECISION:
      return am_fail(err, AM_EINVAL, "Decimal value does not fit in precision %d",
                     (int)job->to.precision);
    case OUT_OF_BOUNDS:
      return am_fail(err, AM_EINVAL, "Integer value out of bounds");
    case REAL_FAILURE:
      if (job->real_why == AM_DECIMAL_REAL_NOT_FINITE) /* Arrow says Decimal128 for both */
        return am_fail(err, AM_EINVAL, "Cannot convert %g to Decimal128", job->real);
      return am_fail(err, AM_EINVAL,
                     "Cannot convert %f to %s(precision = %d, scale = %d): overflow", x,
                     job->out_bytes == 16 ? "Decimal128" : "Decimal256", (int)job->to.precision,
                     (int)job->to.scale);
    default:
      return AM_OK;
  }
}

static int unsupported(am_err *err, const am_array *in, am_decimal_param to) {
  char from[48], target[48];
  if (am_type_is_decimal(in->type))
    am_decimal_type_text(in, from, sizeof from);
  else
    snprintf(from, sizeof from, "%s", am_type_name(in->type));
  if (am_type_is_decimal(to.type))
    am_decimal_params_text(to.type, to.precision, to.scale, target, sizeof target);
  else
    snprintf(target, sizeof target, "%s", am_type_name(to.type));
  return am_fail(err, AM_ETYPE, "Unsupported cast from %s to %s", from, target);
}

static int run(am_err *err, cast_job *job) {
  const am_array *in = job->in;
  am_type to = job->to.type;
  int status = alloc_result(err, job);
  if (status != AM_OK) return status;
  if (am_type_is_integer(in->type)) return integer_to_decimal(err, job);
  if (am_type_is_decimal(in->type) && am_type_is_decimal(to))
    decimal_to_decimal(job);
  else if (am_type_is_decimal(in->type) && am_type_is_integer(to))
    decimal_to_integer(job);
  else if (am_type_is_decimal(in->type))
    decimal_to_real(job);
  else
    real_to_decimal(job);
  return report(err, job);
}

int am_decimal_cast(am_err *err, const am_array *array, am_decimal_param to, int flags,
                    am_array **out) {
  int from_decimal = am_type_is_decimal(array->type), to_decimal = am_type_is_decimal(to.type);
  if (array->dictionary) return am_dictionary_refused(err, array);
  if (to_decimal && (to.precision < 1 || to.precision > am_decimal_max_digits(to.type)))
    return am_fail(err, AM_EINVAL, "Decimal precision out of range [1, %d]: %d",
                   am_decimal_max_digits(to.type), (int)to.precision);
  int numeric = am_type_is_integer(to.type) || am_type_is_float(to.type);
  if (from_decimal ? !(to_decimal || numeric)
                   : !(am_type_is_integer(array->type) || am_type_is_float(array->type)))
    return unsupported(err, array, to);
  if (!from_decimal) {
    int status = am_settle(err, array);
    if (status != AM_OK) return status;
  }
  if (array->device != am_host_device()) return am_decimal_not_on(err, array->device);
  if (from_decimal && to_decimal && array->type == to.type && array->precision == to.precision &&
      array->scale == to.scale) {
    *out = am_array_share(array);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  int safe = flags & AM_CAST_SAFE;
  cast_job job = {.in = array,
                  .to = to,
                  .check_truncate = safe && !(flags & AM_CAST_ALLOW_DECIMAL_TRUNCATE),
                  .check_overflow = safe && !(flags & AM_CAST_ALLOW_INT_OVERFLOW)};
  int status = run(err, &job);
  if (status != AM_OK) {
    am_array_free(job.out);
    return status;
  }
  *out = job.out;
  return AM_OK;
}
