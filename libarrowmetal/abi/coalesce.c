/* fill_null and coalesce (am_fill_null, am_coalesce): pyarrow's type rules
 * for their fills, then the backend's coalesce of two, once for fill_null and
 * once per further value for coalesce. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "core/ops.h"
#include "decimal_calls.h"
#include "float16.h"
#include "nulls.h"
#include "route.h"
#include "string_calls.h"

/* The backend's coalesce of `left` with `right` or `scalar`, where the route
 * says (inputs on two devices meet on the larger one's). The kernels move
 * values as bits, so they need no kernels of the element type (Metal moves
 * float64 too). */
static int step(am_err *err, const am_array *left, const am_array *right, const am_scalar *scalar,
                am_array **out) {
  const am_array *inputs[2] = {left, right};
  am_route route;
  int status =
      am_route_inputs(err, AM_ROUTE_NULLS, AM_TYPE_BIT(AM_BOOL), inputs, right ? 2 : 1, &route);
  if (status != AM_OK) return status;
  am_array *result = NULL;
  status = route.use[0]->device->backend->kernels.coalesce(err, route.use[0], route.use[1], scalar,
                                                           &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

/* (nulls.h) */
int am_nulls_cast(am_err *err, const am_array *array, am_type to, am_array **out) {
  am_route route;
  uint64_t types = AM_TYPE_BIT(array->type) | AM_TYPE_BIT(to);
  int status = am_route_inputs(err, AM_ROUTE_NULLS, types, &array, 1, &route);
  if (status != AM_OK) return status;
  am_array *result = NULL;
  status = route.use[0]->device->backend->kernels.cast(err, route.use[0], to, 1, &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

/* `length` copies of a valid scalar on `device` (filled on the CPU and
 * placed there where the device has no kernels for its type, as am_full). */
static int fill_on(am_err *err, am_device *device, const am_scalar *scalar, int64_t length,
                   am_array **out) {
  if (am_has_kernels(device, AM_TYPE_BIT(scalar->type)))
    return device->backend->kernels.fill(err, device, scalar, length, out);
  am_array *host = NULL;
  am_device *cpu = am_host_device();
  int status = cpu->backend->kernels.fill(err, cpu, scalar, length, &host);
  return status == AM_OK ? am_place(err, host, device, out) : status;
}

/* Whether every slot of a settled array is valid, as far as is known
 * without counting (a GPU array's count may be unknown). */
static int known_complete(const am_array *array) {
  return !array->validity || atomic_load(&((am_array *)array)->null_count) == 0;
}

static int share(am_err *err, const am_array *array, am_array **out) {
  *out = am_array_share(array);
  return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
}

/* A fill scalar converted to the values' type `to` as pyarrow.compute.fill_null
 * converts it (pa.scalar(value, type)): floats to integers truncated toward
 * zero first, then as a safe cast; a bool becomes a float (1.0, 0.0) but no
 * integer, and nothing else becomes a bool. */
static int convert_fill(am_err *err, const am_scalar *in, am_type to, am_scalar *out) {
  am_type from = (am_type)in->type;
  if ((to == AM_BOOL && from != AM_BOOL) || (from == AM_BOOL && am_type_is_integer(to)))
    return am_fail(err, AM_ETYPE, "cannot fill nulls of %s with a %s scalar", am_type_name(to),
                   am_type_name(from));
  am_scalar value = *in;
  if (am_type_is_ieee(from) && am_type_is_integer(to) && isfinite(value.f64))
    value.f64 = trunc(value.f64);
  /* an integer becomes a float16 as a double first, then rounded; pyarrow
   * refuses one a double does not hold */
  if (to == AM_FLOAT16 && am_type_is_integer(from)) {
    int negative = am_type_is_signed(from) && value.i64 < 0;
    uint64_t magnitude = am_type_is_unsigned(from) ? value.u64
                         : negative                ? (uint64_t)0 - (uint64_t)value.i64
                                                   : (uint64_t)value.i64;
    if (magnitude > (uint64_t)1 << 53)
      return am_fail(err, AM_EOVERFLOW,
                     "Integer value %s%llu is outside of the range exactly representable by a "
                     "IEEE 754 double precision value",
                     negative ? "-" : "", (unsigned long long)magnitude);
    int status = am_scalar_cast(err, &value, AM_FLOAT64, &value);
    if (status != AM_OK) return status;
  }
  return am_scalar_cast(err, &value, to, out);
}

static int fill_null(am_err *err, const am_array *values, const am_array *fill,
                     const am_scalar *fill_scalar, am_array **out) {
  AM_REQUIRE(values, "values");
  AM_REQUIRE(out, "out");
  if (!fill == !fill_scalar)
    return am_fail(err, AM_EINVAL, "give one fill: fill (an array) or fill_scalar, %s",
                   fill ? "not both" : "both are NULL");
  int status;
  if ((status = am_settle(err, values)) != AM_OK) return status;
  if (fill) {
    if ((status = am_settle(err, fill)) != AM_OK) return status;
    if (fill->type != values->type)
      return am_fail(err, AM_ETYPE,
                     "fill array of %s for values of %s (pyarrow converts only a scalar fill; "
                     "am_coalesce promotes)",
                     am_type_name(fill->type), am_type_name(values->type));
    if (fill->length != values->length)
      return am_fail(err, AM_EINVAL, "arrays have different lengths (%lld and %lld)",
                     (long long)values->length, (long long)fill->length);
    if (known_complete(values)) return share(err, values, out);
    return step(err, values, fill, NULL, out);
  }
  if (!fill_scalar->is_null && !am_type_valid(fill_scalar->type))
    return am_fail(err, AM_ETYPE, "invalid scalar type %d", fill_scalar->type);
  /* A null fill, of any type or none, changes nothing. */
  if (fill_scalar->is_null || known_complete(values)) {
    if (!fill_scalar->is_null) { /* still one pyarrow would refuse */
      am_scalar converted;
      if ((status = convert_fill(err, fill_scalar, values->type, &converted)) != AM_OK)
        return status;
    }
    return share(err, values, out);
  }
  am_scalar converted;
  if ((status = convert_fill(err, fill_scalar, values->type, &converted)) != AM_OK) return status;
  return step(err, values, NULL, &converted, out);
}

AM_EXPORT int am_fill_null(const am_array *values, const am_array *fill,
                           const am_scalar *fill_scalar, am_array **out) {
  AM_API_BEGIN;
  if (values && out && am_type_is_decimal(values->type)) {
    if (fill_scalar && !fill && fill_scalar->is_null) {
      *out = am_array_share(values);
      AM_API_RETURN(*out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory"));
    }
    const am_array *pair[2] = {values, fill};
    const am_scalar *fills[2] = {NULL, fill_scalar};
    AM_API_RETURN(am_decimal_choose(err, "fill_null", NULL, pair, fills, 2, out));
  }
  if (values && out && am_type_is_binary(values->type)) {
    /* A null scalar leaves the values as they are (of any type, or none). */
    if (fill_scalar && !fill && fill_scalar->is_null) {
      *out = am_array_share(values);
      AM_API_RETURN(*out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory"));
    }
    const am_array *pair[2] = {values, fill};
    const am_scalar *fills[2] = {NULL, fill_scalar};
    AM_API_RETURN(am_string_coalesce(err, "fill_null", pair, fills, 2, out));
  }
  const am_array *arrays[2] = {values, fill};
  const am_scalar *scalars[2] = {NULL, fill_scalar};
  am_storage_values_t v;
  am_scalar fill16;
  if (values && values->type == AM_FLOAT16 && fill_scalar && !fill &&
      am_type_valid(fill_scalar->type) && fill_scalar->type != AM_FLOAT16) {
    /* a scalar fill becomes a float16 first, as pyarrow converts it */
    int status = fill_scalar->is_null ? AM_OK : convert_fill(err, fill_scalar, AM_FLOAT16, &fill16);
    if (status != AM_OK) AM_API_RETURN(status);
    if (fill_scalar->is_null) fill16 = (am_scalar){.type = AM_FLOAT16, .is_null = 1};
    scalars[1] = &fill16;
  }
  int status = values && (values->type == AM_FLOAT16 || (fill && fill->type == AM_FLOAT16))
                   ? am_float16_values(err, "fill_null", AM_TYPE_INVALID, arrays, scalars, 2, &v)
               : values ? am_storage_values(err, arrays, scalars, 2, &v)
                        : AM_OK;
  if (status != AM_OK) AM_API_RETURN(status);
  if (!values || !v.active) {
    if (values && v.mixed && am_type_is_temporal(values->type) &&
        !(fill_scalar && fill_scalar->is_null))
      AM_API_RETURN(am_fail(
          err, AM_ETYPE, "cannot fill nulls of %s with a %s value", am_type_name(values->type),
          am_type_name(v.type == values->type ? (fill ? fill->type : (am_type)fill_scalar->type)
                                              : v.type)));
    AM_API_RETURN(fill_null(err, values, fill, fill_scalar, out));
  }
  status = fill_null(err, v.arrays[0], v.arrays[1], v.scalar_ptrs[1], out);
  if (status == AM_OK) am_retype(*out, v.type, v.tz);
  am_storage_values_free(&v);
  AM_API_RETURN(status);
}

/* ---- coalesce */

/* One of coalesce's values: an array (converted to the common type when it
 * has another: `own`) or a scalar (converted). */
typedef struct value {
  const am_array *array;
  am_array *own;
  am_scalar scalar;
} value;

static int type_of(const am_array *array, const am_scalar *scalar) {
  return array ? (int)array->type : scalar->type;
}

/* pyarrow's message for inputs without a common type: every input's type,
 * "null" for a scalar of none. */
static int no_common_type(am_err *err, const am_array *const *arrays,
                          const am_scalar *const *scalars, int64_t count) {
  char types[400] = "";
  size_t used = 0;
  for (int64_t i = 0; i < count && used < sizeof types - 8; i++) {
    int t = type_of(arrays ? arrays[i] : NULL, scalars ? scalars[i] : NULL);
    used += (size_t)snprintf(types + used, sizeof types - used, "%s%s", i ? ", " : "",
                             am_type_valid(t) ? am_type_name((am_type)t) : "null");
  }
  if (used >= sizeof types - 8) snprintf(types + sizeof types - 8, 8, ", ...");
  return am_fail(err, AM_ETYPE, "function 'coalesce' has no kernel matching input types (%s)",
                 types);
}

/* Checks the values and finds their common type and the first array. */
static int coalesce_inputs(am_err *err, const am_array *const *arrays,
                           const am_scalar *const *scalars, int64_t count, am_type *common,
                           const am_array **first) {
  *common = AM_TYPE_INVALID;
  *first = NULL;
  int typeless = 0;
  /* Every value given, before any is read: the message for no common type
   * lists the type of each one. */
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays ? arrays[i] : NULL;
    const am_scalar *s = scalars ? scalars[i] : NULL;
    if (!a == !s)
      return am_fail(err, AM_EINVAL, "value %lld: give an array or a scalar, %s", (long long)i,
                     a ? "not both" : "neither is given");
  }
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays ? arrays[i] : NULL;
    const am_scalar *s = scalars ? scalars[i] : NULL;
    if (a) {
      int status = am_settle(err, a);
      if (status != AM_OK) return status;
      if (!*first) *first = a;
      if (a->length != (*first)->length)
        return am_fail(err, AM_EINVAL, "arrays have different lengths (%lld and %lld)",
                       (long long)(*first)->length, (long long)a->length);
    } else if (!am_type_valid(s->type)) {
      if (!s->is_null) return am_fail(err, AM_ETYPE, "invalid scalar type %d", s->type);
      typeless = 1; /* pyarrow's null type: no kernel takes it */
      continue;
    }
    am_type t = (am_type)type_of(a, s);
    if (*common == AM_TYPE_INVALID)
      *common = t;
    else if ((*common == AM_BOOL) != (t == AM_BOOL))
      return no_common_type(err, arrays, scalars, count);
    else if (t != AM_BOOL)
      *common = am_common_numeric(*common, t);
  }
  if (typeless) return no_common_type(err, arrays, scalars, count);
  if (!*first) return am_fail(err, AM_EINVAL, "no array among the %lld values", (long long)count);
  return AM_OK;
}

/* Every value in the common type, as pyarrow converts them all before it
 * looks at one (a value that does not fit fails the call wherever it is). */
static int convert_all(am_err *err, const am_array *const *arrays, const am_scalar *const *scalars,
                       int64_t count, am_type common, value *values) {
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays ? arrays[i] : NULL;
    int status;
    if (!a) {
      status = am_scalar_cast(err, scalars[i], common, &values[i].scalar);
    } else if (a->type == common) {
      values[i].array = a;
      status = AM_OK;
    } else {
      status = am_nulls_cast(err, a, common, &values[i].own);
      values[i].array = values[i].own;
    }
    if (status != AM_OK) return status;
  }
  return AM_OK;
}

/* The fold: the first value, then each next one fills what is still null,
 * until nothing is (a valid scalar fills everything). */
static int fold(am_err *err, int64_t count, const value *values, int64_t length, am_device *device,
                am_array **out) {
  am_array *acc = NULL;
  for (int64_t i = 0; i < count; i++) {
    const value *v = &values[i];
    if (!v->array && v->scalar.is_null) continue;
    am_array *next = NULL;
    int status;
    if (acc)
      status = step(err, acc, v->array, v->array ? NULL : &v->scalar, &next);
    else if (v->array)
      status = share(err, v->array, &next);
    else /* a valid scalar first: the whole result */
      status = fill_on(err, device, &v->scalar, length, &next);
    am_array_free(acc);
    if (status != AM_OK) return status;
    acc = next;
    if (!v->array || known_complete(acc)) break;
  }
  *out = acc; /* there is an array among the values, so a first value was taken */
  return AM_OK;
}

static int coalesce(am_err *err, const am_array *const *arrays, const am_scalar *const *scalars,
                    int64_t count, am_array **out) {
  AM_REQUIRE(out, "out");
  if (count < 1)
    return am_fail(err, AM_EINVAL, "coalesce needs at least 1 value, not %lld", (long long)count);
  if (!arrays && !scalars) return am_fail(err, AM_EINVAL, "arrays and scalars are both NULL");
  am_type common;
  const am_array *first;
  int status = coalesce_inputs(err, arrays, scalars, count, &common, &first);
  if (status != AM_OK) return status;
  value *values = calloc((size_t)count, sizeof *values);
  if (!values) return am_fail(err, AM_ENOMEM, "out of memory for %lld values", (long long)count);
  status = convert_all(err, arrays, scalars, count, common, values);
  if (status == AM_OK) status = fold(err, count, values, first->length, first->device, out);
  for (int64_t i = 0; i < count; i++) am_array_free(values[i].own);
  free(values);
  return status;
}

AM_EXPORT int am_coalesce(const am_array *const *arrays, const am_scalar *const *scalars,
                          int64_t count, am_array **out) {
  AM_API_BEGIN;
  /* no inputs at all: coalesce's own error (v would be unset) */
  if (!arrays && !scalars) AM_API_RETURN(coalesce(err, arrays, scalars, count, out));
  /* a string or binary value: the string path answers, refusing values of
   * other types as pyarrow does (no kernel) */
  if (out && count > 0 && arrays && am_any_binary(arrays, scalars, count))
    AM_API_RETURN(am_string_coalesce(err, "coalesce", arrays, scalars, count, out));
  if (out && count > 0 && am_any_decimal(arrays, scalars, count))
    AM_API_RETURN(am_decimal_choose(err, "coalesce", NULL, arrays, scalars, count, out));
  am_storage_values_t v;
  int status = count > 0 && am_any_float16(arrays, scalars, count)
                   ? am_float16_values(err, "coalesce", AM_TYPE_INVALID, arrays, scalars, count, &v)
                   : am_storage_values(err, arrays, scalars, count, &v);
  if (status != AM_OK) AM_API_RETURN(status);
  if (!v.active) AM_API_RETURN(coalesce(err, arrays, scalars, count, out));
  status = coalesce(err, v.arrays, v.scalar_ptrs, count, out);
  if (status == AM_OK) am_retype(*out, v.type, v.tz);
  am_storage_values_free(&v);
  AM_API_RETURN(status);
}
