/* A time of day plus or minus a duration (pyarrow's AddTimeDuration and
 * SubtractTimeDuration kernels and their checked variants), on the host.
 * pyarrow computes these in the result's storage (int32 for time32: the
 * duration truncated to it, the sum wrapping), over every slot, null ones
 * included, and refuses a sum outside the day -- the last such slot's
 * value in its message; the checked variants also report an overflow of
 * that storage, which a refusal of the range replaces. Before that, both
 * sides are brought to the result's unit (pyarrow's implicit casts: a
 * valid value that leaves int64 is refused, the first one named). A GPU
 * array is read back and the result moved to its device. */
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "core/bits.h"
#include "core/memstats.h"
#include "core/types.h"

/* The time type of a unit (0, 3, 6 or 9 digits), as pyarrow's implicit cast
 * picks it: time32 for seconds and milliseconds, else time64. */
am_type am_time_of_unit(int digits) {
  return digits == 0   ? AM_TIME32_S
         : digits == 3 ? AM_TIME32_MS
         : digits == 6 ? AM_TIME64_US
                       : AM_TIME64_NS;
}

/* The type an operand of type `t` is cast to before the kernel: the
 * result's time type, or the duration of its unit. */
static am_type cast_target(am_type t, am_type result) {
  return am_temporal_family(t) == AM_TEMPORAL_TIME
             ? result
             : am_duration_of_unit(am_type_unit_digits(result));
}

/* Slot i of a temporal host array (any storage width) as int64. */
static int64_t value_at(const am_array *a, int64_t i) {
  if (am_type_storage(a->type) == AM_INT32) return ((const int32_t *)a->data)[a->offset + i];
  return ((const int64_t *)a->data)[a->offset + i];
}

/* `values` brought to the result's tick: `factor` times each, checked on
 * the valid slots as pyarrow's cast checks them, wrapped on the others. */
static int scale(am_err *err, const am_array *a, am_type to, int64_t factor, int64_t *out) {
  for (int64_t i = 0; i < a->length; i++) {
    int64_t v = value_at(a, i), scaled;
    int valid = !a->validity || (a->validity[(a->offset + i) >> 3] >> ((a->offset + i) & 7) & 1);
    if (__builtin_mul_overflow(v, factor, &scaled)) {
      if (valid)
        return am_fail(err, AM_EINVAL,
                       "Casting from %s to %s would result in out of bounds timestamp: %lld",
                       am_type_name(a->type), am_type_name(to), (long long)v);
      scaled = (int64_t)((uint64_t)v * (uint64_t)factor);
    }
    out[i] = scaled;
  }
  return AM_OK;
}

/* The combined validity of the operands into `bits` (n slots from bit 0). */
static void both_valid(const am_array *l, const am_array *r, int64_t n, uint8_t *bits) {
  for (int64_t i = 0; i < n; i += 64) {
    uint64_t w = am_load_bits(l->validity, l->offset + i, n - i);
    if (r) w &= am_load_bits(r->validity, r->offset + i, n - i);
    int64_t bytes = (n - i >= 64 ? 64 : n - i + 7) / 8;
    for (int64_t b = 0; b < bytes; b++) bits[i / 8 + b] = (uint8_t)(w >> (8 * b));
  }
}

static int compute(am_err *err, int subtract, int checked, const am_array *left,
                   const am_array *right, const am_scalar *scalar, am_type scalar_type,
                   am_type result, am_array *out) {
  const int64_t n = left->length, tick = am_temporal_tick_ns(result);
  const int64_t day = 86400 * (1000000000 / tick);
  const int narrow = am_type_storage(result) == AM_INT32;
  int64_t *a = am_scratch_alloc(2 * n * (int64_t)sizeof(int64_t) + 1);
  if (!a) return am_fail(err, AM_ENOMEM, "out of memory for %lld slots", (long long)n);
  int64_t *b = a + n;
  int status =
      scale(err, left, cast_target(left->type, result), am_temporal_tick_ns(left->type) / tick, a);
  if (status == AM_OK && right)
    status = scale(err, right, cast_target(right->type, result),
                   am_temporal_tick_ns(right->type) / tick, b);
  if (status == AM_OK && !right) {
    int64_t s = scalar->i64;
    if (__builtin_mul_overflow(s, am_temporal_tick_ns(scalar_type) / tick, &s))
      status = am_fail(err, AM_EINVAL,
                       "Casting from %s to %s would result in out of bounds timestamp: %lld",
                       am_type_name(scalar_type), am_type_name(cast_target(scalar_type, result)),
                       (long long)scalar->i64);
    for (int64_t i = 0; i < n; i++) b[i] = s;
  }
  int64_t refused = -1, refused_value = 0, overflowed = -1;
  for (int64_t i = 0; status == AM_OK && i < n; i++) {
    int64_t r;
    int over;
    if (narrow) {
      int32_t x = (int32_t)a[i], y = (int32_t)b[i], z;
      over = subtract ? __builtin_sub_overflow(x, y, &z) : __builtin_add_overflow(x, y, &z);
      r = z;
      ((int32_t *)out->data)[i] = z;
    } else {
      over = subtract ? __builtin_sub_overflow(a[i], b[i], &r)
                      : __builtin_add_overflow(a[i], b[i], &r);
      ((int64_t *)out->data)[i] = r;
    }
    if (checked && over) overflowed = i;
    if (r < 0 || r >= day) refused = i, refused_value = r;
  }
  am_scratch_free(a);
  if (status != AM_OK) return status;
  /* pyarrow's status is its last failing slot's: a range refusal replaces
   * the overflow of its own slot or an earlier one */
  if (refused >= 0 && refused >= overflowed)
    return am_fail(err, AM_EINVAL, "%lld is not within the acceptable range of [0, %lld) s",
                   (long long)refused_value, (long long)day);
  if (overflowed >= 0) return am_fail(err, AM_EOVERFLOW, "overflow");
  return AM_OK;
}

int am_time_duration(am_err *err, int subtract, int checked, const am_array *left,
                     const am_array *right, const am_scalar *scalar, am_type scalar_type,
                     am_type result, am_array **out) {
  am_array *l = NULL, *r = NULL, *made = NULL;
  int status = am_to_host(err, left, &l);
  if (status == AM_OK && right) status = am_to_host(err, right, &r);
  const int64_t n = left->length;
  int all_null = !right && scalar->is_null; /* pyarrow computes nothing then */
  int with_validity = status == AM_OK && (all_null || l->validity || (r && r->validity));
  if (status == AM_OK)
    status = am_array_alloc_host(err, am_host_device(), result, n, with_validity, &made);
  if (status == AM_OK && with_validity) {
    if (all_null)
      memset((void *)made->validity, 0, (size_t)(n + 7) / 8);
    else
      both_valid(l, r, n, (uint8_t *)made->validity);
  }
  if (status == AM_OK && all_null) memset((void *)made->data, 0, (size_t)am_type_bytes(result, n));
  if (status == AM_OK && !all_null)
    status = compute(err, subtract, checked, l, r, scalar, scalar_type, result, made);
  am_array_free(l);
  am_array_free(r);
  if (status != AM_OK) {
    am_array_free(made);
    return status;
  }
  return am_place(err, made, left->device, out);
}
