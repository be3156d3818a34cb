/* am_cast with float16 on either side, as pyarrow 26 casts (measured):
 *
 *   float16 -> float32, float64, and back: one kernel of every backend (the
 *     bit conversions of core/float16.h; never fails: a float rounds to the
 *     nearest float16, ties to even, or to an infinity);
 *   float16 -> integers: widened to float32 (exactly), then float32's cast
 *     with the caller's flags; a safe cast that fails is reported as
 *     pyarrow words it, naming the float16's storage integer ("Float value
 *     15872 was truncated converting to int8" for 1.5: pyarrow prints the
 *     bits, not the value);
 *   integers -> float16: through float32 (8- to 32-bit integers) or float64
 *     (64-bit ones) with that cast's safe check ("Integer value 2147483647
 *     not in range: -16777216 to 16777216"), then rounded: past 65504 an
 *     infinity, never an error;
 *   strings <-> float16: pyarrow's (AM_ETYPE "Unsupported cast from ...":
 *     the Python package runs pyarrow);
 *   bool, temporal types and binary: pyarrow's refusal and words. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calls.h"
#include "core/bits.h"
#include "float16.h"
#include "route.h"

/* One kernel: float16 <-> float32 / float64, where the route puts it. */
static int convert(am_err *err, const am_array *array, am_type to, am_array **out) {
  am_route route;
  uint64_t types = AM_TYPE_BIT(array->type) | AM_TYPE_BIT(to);
  int status = am_route_inputs(err, AM_ROUTE_CAST, types, &array, 1, &route);
  if (status != AM_OK) return status;
  am_array *result = NULL;
  status = route.use[0]->device->backend->kernels.cast(err, route.use[0], to, 0, &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

/* pyarrow's name of a cast's target in its refusal: the type's name without
 * parameters ("timestamp", "decimal128"), and of the function it looked in
 * ("cast_timestamp"; "cast_boolean", "cast_decimal" for decimal128). */
static void target_words(am_type to, char *name, size_t n, char *function, size_t fn) {
  const char *full = am_type_name(to);
  size_t len = strcspn(full, "[(");
  snprintf(name, n, "%.*s", (int)len, full);
  const char *suffix = to == AM_BOOL ? "boolean" : to == AM_DECIMAL128 ? "decimal" : name;
  snprintf(function, fn, "cast_%s", suffix);
}

static int unsupported(am_err *err, const am_array *array, am_type to) {
  char from[128], name[64], function[80];
  am_temporal_type_text(array->timezone, array->type, from, sizeof from);
  if (am_type_is_utf8(to) || am_type_is_utf8(array->type))
    /* pyarrow formats and parses these; the library does not (yet) */
    return am_fail(err, AM_ETYPE, "Unsupported cast from %s to %s", from, am_type_name(to));
  if (array->type == AM_FLOAT16) {
    target_words(to, name, sizeof name, function, sizeof function);
    return am_fail(err, AM_ETYPE, "Unsupported cast from %s to %s using function %s", from, name,
                   function);
  }
  return am_fail(err, AM_ETYPE, "Unsupported cast from %s to halffloat using function func", from);
}

/* The float16 bits of the first valid slot of `array` whose float32 value
 * `wide` fails a safe cast to integer type `to` (not a whole number in its
 * range); 0 if none is found (the caller's message then stands). */
static int first_truncated(am_err *err, const am_array *array, am_type to, uint16_t *bits) {
  am_array *host = NULL;
  int status = am_to_host(err, array, &host);
  if (status != AM_OK) return status;
  const uint16_t *x = (const uint16_t *)host->data + host->offset;
  double lo = am_type_is_signed(to) ? -ldexp(1.0, am_type_bits(to) - 1) : 0.0;
  double hi = ldexp(1.0, am_type_bits(to) - am_type_is_signed(to)); /* exclusive */
  int found = 0;
  for (int64_t i = 0; i < host->length && !found; i += 64) {
    uint64_t valid = am_load_bits(host->validity, host->offset + i, host->length - i);
    for (int64_t j = 0; valid; j++, valid >>= 1) {
      if (!(valid & 1)) continue;
      double v = am_float16_value(x[i + j]);
      if (!(v >= lo && v < hi && v == trunc(v))) {
        *bits = x[i + j];
        found = 1;
        break;
      }
    }
  }
  am_array_free(host);
  return found ? AM_OK : AM_EOVERFLOW;
}

/* float16 -> an integer type: through float32, then its cast. */
static int to_integer(am_err *err, const am_array *array, am_type to, int flags, am_array **out) {
  am_array *wide = NULL;
  int status = convert(err, array, AM_FLOAT32, &wide);
  if (status != AM_OK) return status;
  int now = am_wait_now_begin(); /* an overflow is reworded below */
  status = am_call_cast(err, wide, to, flags, out);
  am_wait_now_end(now);
  am_array_free(wide);
  if (status != AM_EOVERFLOW) return status;
  am_err quiet;
  am_err_init(&quiet, err->entry);
  uint16_t bits;
  if (first_truncated(&quiet, array, to, &bits) != AM_OK) return status;
  return am_fail(err, AM_EOVERFLOW, "Float value %u was truncated converting to %s", (unsigned)bits,
                 am_type_name(to));
}

/* An integer type -> float16: float32 or float64 first, with that cast's
 * checks, then rounded. */
static int from_integer(am_err *err, const am_array *array, int flags, am_array **out) {
  am_array *wide = NULL;
  am_type via = am_type_bits(array->type) <= 32 ? AM_FLOAT32 : AM_FLOAT64;
  int status = am_call_cast(err, array, via, flags, &wide);
  if (status != AM_OK) return status;
  status = convert(err, wide, AM_FLOAT16, out);
  am_array_free(wide);
  return status;
}

int am_float16_cast(am_err *err, const am_array *array, am_type to, int flags, am_array **out) {
  int status = am_settle_data(err, array);
  if (status != AM_OK) return status;
  am_type from = array->type;
  if (from == to) {
    *out = am_array_share(array);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  am_type other = from == AM_FLOAT16 ? to : from;
  if (other == AM_FLOAT32 || other == AM_FLOAT64) return convert(err, array, to, out);
  if (am_type_is_integer(other))
    return from == AM_FLOAT16 ? to_integer(err, array, to, flags, out)
                              : from_integer(err, array, flags, out);
  return unsupported(err, array, to);
}
