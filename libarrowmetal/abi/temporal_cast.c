/* am_cast with a temporal type on either side, as pyarrow's cast_timestamp,
 * cast_date32, cast_duration, cast_time64 ... cast, on every device: each
 * cast is a few passes of the storage integers' kernels (a handful of
 * launches on a GPU, never a trip to the host unless a check fails).
 *  - To and from the storage integer (int64: timestamps, durations, time64,
 *    date64; int32: date32, time32) the buffers are shared.
 *  - A change of unit within timestamps, durations or times, between the
 *    dates, or from a date to a timestamp, multiplies (checked unless the
 *    cast is unsafe or allows time overflow: "would result in out of bounds
 *    timestamp: V", V the first such input) or divides, truncating toward
 *    zero (checked unless unsafe or allowing time truncation: "would lose
 *    data: V").
 *  - A timestamp to a date takes its day, rounded down, unchecked (the day
 *    wraps to 32 bits, date64's too), and to a time its time of day (the
 *    floor's remainder), then in the time's unit as above, as pyarrow. With
 *    a time zone other than UTC both are of the local wall time: the values
 *    are read on the host (core/timezone.h), converted there, and the
 *    result moved back to the array's device.
 *  - Every other pair is AM_ETYPE in pyarrow's words.
 * A timestamp result keeps the input timestamp's time zone (none from a
 * date); am_array_with_timezone gives it another. */
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "core/timezone.h"

enum { SHARE, RESCALE, TO_DATE, TIME_OF_DAY, NO };

static int how(am_type from, am_type to) {
  int f = am_temporal_family(from), t = am_temporal_family(to);
  if (f == AM_TEMPORAL_NONE || t == AM_TEMPORAL_NONE) {
    am_type temporal = f == AM_TEMPORAL_NONE ? to : from, other = f == AM_TEMPORAL_NONE ? from : to;
    return am_type_is_temporal(temporal) && other == am_type_storage(temporal) ? SHARE : NO;
  }
  if (f == t || (f == AM_TEMPORAL_DATE && t == AM_TEMPORAL_TIMESTAMP)) return RESCALE;
  if (f == AM_TEMPORAL_TIMESTAMP && t == AM_TEMPORAL_DATE) return TO_DATE;
  if (f == AM_TEMPORAL_TIMESTAMP && t == AM_TEMPORAL_TIME) return TIME_OF_DAY;
  return NO;
}

/* *a replaced by `result` of a kernel pass that succeeded. */
static int step(am_array **a, int status, am_array *result) {
  if (status == AM_OK) {
    am_array_free(*a);
    *a = result;
  }
  return status;
}

static int arith(am_err *err, am_arith_op op, am_array **a, int64_t by) {
  am_scalar s = {.type = AM_INT64, .i64 = by};
  am_array *r = NULL;
  int status = (*a)->device->backend->kernels.arith(err, op, *a, NULL, &s, &r);
  return step(a, status, r);
}

/* *a cast to integer type `to` (checked or wrapping). */
static int narrow(am_err *err, am_array **a, am_type to, int checked) {
  am_array *r = NULL;
  int status = (*a)->device->backend->kernels.cast(err, *a, to, checked, &r);
  return step(a, status, r);
}

/* The first (or the last) valid value of int64 `x` for which bad(x) holds,
 * read on the host: the value pyarrow's message names. */
static int find_bad(am_err *err, const am_array *x, int (*bad)(int64_t, int64_t), int64_t by,
                    int last, int64_t *value) {
  am_array *host = NULL;
  int status = am_to_host(err, x, &host);
  if (status != AM_OK) return status;
  const int64_t *v = (const int64_t *)host->data + host->offset;
  const uint8_t *valid = host->validity;
  *value = 0;
  for (int64_t i = 0; i < host->length; i++) {
    int64_t bit = host->offset + i;
    if ((!valid || (valid[bit >> 3] >> (bit & 7) & 1)) && bad(v[i], by)) {
      *value = v[i];
      if (!last) break;
    }
  }
  am_array_free(host);
  return AM_OK;
}

static int overflows(int64_t x, int64_t by) {
  int64_t y;
  return __builtin_mul_overflow(x, by, &y);
}

static int overflows32(int64_t x, int64_t by) {
  int64_t y;
  return __builtin_mul_overflow(x, by, &y) || y < INT32_MIN || y > INT32_MAX;
}

static int inexact(int64_t x, int64_t by) { return x % by != 0; }

/* A checked step that failed (bad: which input failed it): pyarrow's
 * message naming the first such input of int64 `x` (read back from the
 * device); of a time of day (`from` NULL) its words, naming the last. */
static int refuse(am_err *err, const am_array *x, const char *from, const char *to,
                  int (*bad)(int64_t, int64_t), int64_t by) {
  int64_t value = 0;
  int status = find_bad(err, x, bad, by, from == NULL, &value);
  if (status != AM_OK) return status;
  if (!from) return am_fail(err, AM_EINVAL, "Cast would lose data: %lld", (long long)value);
  return am_fail(err, AM_EINVAL, "Casting from %s to %s would %s: %lld", from, to,
                 bad == inexact ? "lose data" : "result in out of bounds timestamp",
                 (long long)value);
}

/* Whether any valid slot of int64 `x` is not a multiple of `by`: the
 * remainder x - (x / by) * by over the kernels, then its min and max. */
static int any_inexact(am_err *err, const am_array *x, int64_t by, int *found) {
  am_array *r = am_array_share(x);
  if (!r) return am_fail(err, AM_ENOMEM, "out of memory");
  int status = arith(err, AM_DIVIDE, &r, by);
  if (status == AM_OK) status = arith(err, AM_MULTIPLY, &r, by);
  am_array *rest = NULL;
  if (status == AM_OK)
    status = x->device->backend->kernels.arith(err, AM_SUBTRACT, x, r, NULL, &rest);
  am_array_free(r);
  am_scalar lo = {0}, hi = {0};
  if (status == AM_OK) status = am_reduce_now(err, AM_REDUCE_MIN, rest, AM_INT64, &lo);
  if (status == AM_OK) status = am_reduce_now(err, AM_REDUCE_MAX, rest, AM_INT64, &hi);
  am_array_free(rest);
  *found = status == AM_OK && !lo.is_null && (lo.i64 != 0 || hi.i64 != 0);
  return status;
}

/* `x` (int64) floor-divided by `by` > 0: the truncated quotient, less one
 * where the remainder is negative. */
static int floor_divide(am_err *err, am_array **x, int64_t by) {
  const am_kernel_ops *k = &(*x)->device->backend->kernels;
  am_array *q = am_array_share(*x), *m = NULL, *rest = NULL, *negative = NULL, *one = NULL;
  if (!q) return am_fail(err, AM_ENOMEM, "out of memory");
  int status = arith(err, AM_DIVIDE, &q, by);
  if (status == AM_OK && (m = am_array_share(q)) == NULL)
    status = am_fail(err, AM_ENOMEM, "out of memory");
  if (status == AM_OK) status = arith(err, AM_MULTIPLY, &m, by);
  if (status == AM_OK) status = k->arith(err, AM_SUBTRACT, *x, m, NULL, &rest);
  am_scalar zero = {.type = AM_INT64, .i64 = 0};
  if (status == AM_OK) status = k->compare(err, AM_LT, rest, NULL, &zero, &negative);
  if (status == AM_OK) status = k->cast(err, negative, AM_INT64, 0, &one);
  am_array *floored = NULL;
  if (status == AM_OK) status = k->arith(err, AM_SUBTRACT, q, one, NULL, &floored);
  am_array_free(q);
  am_array_free(m);
  am_array_free(rest);
  am_array_free(negative);
  am_array_free(one);
  return step(x, status, floored);
}

/* x - floor(x / by) * by: the time of day of int64 `x`, `by` ticks a day. */
static int time_of_day(am_err *err, am_array **x, int64_t by) {
  am_array *days = am_array_share(*x), *rest = NULL;
  if (!days) return am_fail(err, AM_ENOMEM, "out of memory");
  int status = floor_divide(err, &days, by);
  if (status == AM_OK) status = arith(err, AM_MULTIPLY, &days, by);
  if (status == AM_OK)
    status = (*x)->device->backend->kernels.arith(err, AM_SUBTRACT, *x, days, NULL, &rest);
  am_array_free(days);
  return step(x, status, rest);
}

/* int64 `x` from ticks of `from_ns` to ticks of `to`, checked as `flags`
 * say, into `to`'s storage integer; `from_text` NULL for a time of day
 * (refuse's words). */
static int rescale(am_err *err, am_array **x, int64_t from_ns, am_type to, int flags,
                   const char *from_text, const char *to_text) {
  int64_t to_ns = am_temporal_tick_ns(to);
  int narrow_to = am_type_storage(to) == AM_INT32;
  int safe = flags & AM_CAST_SAFE, status = AM_OK;
  if (from_ns > to_ns) {
    int64_t by = from_ns / to_ns;
    int checked = safe && !(flags & AM_CAST_ALLOW_TIME_OVERFLOW);
    am_scalar s = {.type = AM_INT64, .i64 = by};
    am_array *r = NULL;
    am_err quiet;
    am_err_init(&quiet, err->entry);
    const am_kernel_ops *k = &(*x)->device->backend->kernels;
    int now = am_wait_now_begin(); /* an overflow is turned into the cast's own error */
    status = checked ? k->binary(&quiet, AM_MULTIPLY_CHECKED, *x, NULL, &s, &r)
                     : k->arith(&quiet, AM_MULTIPLY, *x, NULL, &s, &r);
    if (status == AM_OK && narrow_to) {
      am_array *n = NULL;
      status = k->cast(&quiet, r, AM_INT32, checked, &n);
      am_array_free(r);
      r = status == AM_OK ? n : NULL;
    }
    am_wait_now_end(now);
    if (status == AM_EOVERFLOW)
      status = refuse(err, *x, from_text, to_text, narrow_to ? overflows32 : overflows, by);
    else if (status != AM_OK)
      status = am_fail(err, status, "%s", quiet.message);
    return step(x, status, r);
  }
  if (from_ns < to_ns) {
    int64_t by = to_ns / from_ns;
    int found = 0;
    if (safe && !(flags & AM_CAST_ALLOW_TIME_TRUNCATE)) status = any_inexact(err, *x, by, &found);
    if (status == AM_OK && found) status = refuse(err, *x, from_text, to_text, inexact, by);
    if (status == AM_OK) status = arith(err, AM_DIVIDE, x, by);
  }
  if (status == AM_OK && narrow_to) status = narrow(err, x, AM_INT32, 0);
  return status;
}

static int convert(am_err *err, const am_array *array, am_type to, int flags, int kind,
                   am_array **out) {
  char from_text[160], to_text[64];
  am_temporal_type_text(array->timezone, array->type, from_text, sizeof from_text);
  am_temporal_type_text(NULL, to, to_text, sizeof to_text);
  am_array *x = am_array_share(array);
  if (!x) return am_fail(err, AM_ENOMEM, "out of memory");
  am_retype(x, am_type_storage(array->type), NULL);
  int status = x->type == AM_INT64 ? AM_OK : narrow(err, &x, AM_INT64, 0);
  int64_t from_ns = am_temporal_tick_ns(array->type);
  int64_t day = am_temporal_tick_ns(AM_DATE32);
  if (status == AM_OK && kind == TO_DATE) {
    /* the day as date32 holds it (wrapped), then as date64 from that, as
     * pyarrow makes it */
    status = floor_divide(err, &x, day / from_ns);
    if (status == AM_OK) status = narrow(err, &x, AM_INT32, 0);
    if (status == AM_OK && to == AM_DATE64) status = narrow(err, &x, AM_INT64, 0);
    if (status == AM_OK && to == AM_DATE64)
      status = arith(err, AM_MULTIPLY, &x, day / am_temporal_tick_ns(to));
  } else if (status == AM_OK) {
    if (kind == TIME_OF_DAY) status = time_of_day(err, &x, day / from_ns);
    if (status == AM_OK)
      status =
          rescale(err, &x, from_ns, to, flags, kind == TIME_OF_DAY ? NULL : from_text, to_text);
  }
  if (status != AM_OK) {
    am_array_free(x);
    return status;
  }
  am_retype(x, to, am_type_is_timestamp(array->type) ? array->timezone : NULL);
  *out = x;
  return AM_OK;
}

/* Timestamp `array` as the local wall times of zone `tz`: a host array of
 * its type without a time zone, the input's validity shared. */
static int local_times(am_err *err, const am_array *array, const am_tz *tz, am_array **out) {
  am_array *host = NULL, *local = NULL;
  int status = am_to_host(err, array, &host);
  if (status != AM_OK) return status;
  int64_t start = host->validity ? host->offset : 0; /* the bitmap shared as it is */
  status = am_array_alloc_host(err, host->device, host->type, start + host->length, 0, &local);
  if (status == AM_OK) {
    am_tz_localize(tz, 1000000000 / am_temporal_tick_ns(host->type),
                   (const int64_t *)host->data + host->offset, host->length,
                   (int64_t *)local->data + start);
    local->offset = start;
    local->length = host->length;
    if (host->validity) {
      local->validity_buf =
          am_buffer_retain(host->validity_buf ? host->validity_buf : host->data_buf);
      local->validity = host->validity;
      atomic_store(&local->null_count, atomic_load(&host->null_count));
    }
    *out = local;
  }
  am_array_free(host);
  return status;
}

/* A cast to a date or a time of day of the local times of a zoned
 * timestamp: converted on the host, moved back to the array's device. */
static int convert_local(am_err *err, const am_array *array, const am_tz *tz, am_type to, int flags,
                         int kind, am_array **out) {
  am_array *local = NULL, *result = NULL;
  int status = local_times(err, array, tz, &local);
  if (status == AM_OK) status = convert(err, local, to, flags, kind, &result);
  am_array_free(local);
  return status == AM_OK ? am_place(err, result, array->device, out) : status;
}

int am_temporal_cast(am_err *err, const am_array *array, am_type to, int flags, am_array **out) {
  char from_text[160];
  am_temporal_type_text(array->timezone, array->type, from_text, sizeof from_text);
  int kind = how(array->type, to);
  if (kind == NO)
    return am_fail(err, AM_ETYPE, "Unsupported cast from %s to %s", from_text, am_type_name(to));
  if ((kind == TO_DATE || kind == TIME_OF_DAY) && array->timezone) {
    const am_tz *tz = NULL;
    int status = am_tz_find(err, array->timezone, &tz);
    if (status != AM_OK) return status;
    if (!am_tz_is_utc(tz)) return convert_local(err, array, tz, to, flags, kind, out);
  }
  if (kind == SHARE) {
    *out = am_array_share(array);
    if (!*out) return am_fail(err, AM_ENOMEM, "out of memory");
    am_retype(*out, to, am_type_is_timestamp(array->type) ? array->timezone : NULL);
    return AM_OK;
  }
  return convert(err, array, to, flags, kind, out);
}
