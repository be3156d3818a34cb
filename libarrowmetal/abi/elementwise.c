/* Compare, arithmetic and cast: pyarrow's type rules (from the op table,
 * type_rules.c) are applied here, so a backend kernel always gets operands
 * of one type. (Boolean logic is logic.c.) */
#include <string.h>

#include "abi.h"
#include "calls.h"
#include "core/ops.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "float16.h"
#include "route.h"
#include "string_calls.h"

/* Safe-casts `array` to `to` on its own device, or shares it when it already
 * has that type. *converted must be freed by the caller. */
static int convert(am_err *err, const am_array *array, am_type to, am_array **converted) {
  if (array->type == to) {
    *converted = NULL;
    return AM_OK;
  }
  return array->device->backend->kernels.cast(err, array, to, 1, converted);
}

static int check_pair(am_err *err, const am_array *left, const am_array *right) {
  AM_REQUIRE(left, "left");
  AM_REQUIRE(right, "right");
  int status;
  if ((status = am_settle(err, left)) != AM_OK || (status = am_settle(err, right)) != AM_OK)
    return status;
  if (left->length != right->length)
    return am_fail(err, AM_EINVAL, "arrays have different lengths (%lld and %lld)",
                   (long long)left->length, (long long)right->length);
  return AM_OK;
}

int am_elementwise_arrays(am_err *err, const am_op_desc *desc, am_op_class op_class,
                          am_elementwise_kernel kernel, int op, const am_array *left,
                          const am_array *right, am_array **out) {
  if (left && right && (left->type == AM_FLOAT16 || right->type == AM_FLOAT16))
    return am_no_kernel(err, desc, left->type, right->type); /* pyarrow has none */
  int status = check_pair(err, left, right);
  if (status != AM_OK) return status;
  AM_REQUIRE(out, "out");
  am_type type = am_operand_type(desc, left->type, right->type);
  if (type == AM_TYPE_INVALID) return am_no_kernel(err, desc, left->type, right->type);
  am_route route;
  const am_array *inputs[2] = {left, right};
  uint64_t types = AM_TYPE_BIT(left->type) | AM_TYPE_BIT(right->type) | AM_TYPE_BIT(type);
  if ((status = am_route_inputs(err, op_class, types, inputs, 2, &route)) != AM_OK) return status;
  left = route.use[0];
  right = route.use[1];
  am_array *left_converted = NULL, *right_converted = NULL, *result = NULL;
  if ((status = convert(err, left, type, &left_converted)) == AM_OK &&
      (status = convert(err, right, type, &right_converted)) == AM_OK) {
    status = kernel(err, op, left_converted ? left_converted : left,
                    right_converted ? right_converted : right, NULL, &result);
  }
  am_array_free(left_converted);
  am_array_free(right_converted);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

int am_elementwise_scalar(am_err *err, const am_op_desc *desc, am_op_class op_class,
                          am_elementwise_kernel kernel, int op, const am_array *left,
                          const am_scalar *right, am_array **out) {
  AM_REQUIRE(left, "left");
  AM_REQUIRE(right, "right");
  AM_REQUIRE(out, "out");
  if (left->type == AM_FLOAT16 || right->type == AM_FLOAT16)
    return am_no_kernel(err, desc, left->type,
                        am_type_valid(right->type) ? (am_type)right->type : left->type);
  int status = am_settle(err, left);
  if (status != AM_OK) return status;
  am_scalar scalar = *right;
  if (scalar.is_null && !am_type_valid(scalar.type)) scalar.type = left->type;
  if (!am_type_valid(scalar.type))
    return am_fail(err, AM_ETYPE, "invalid scalar type %d", scalar.type);
  am_type type = am_operand_type(desc, left->type, (am_type)scalar.type);
  if (type == AM_TYPE_INVALID) return am_no_kernel(err, desc, left->type, (am_type)scalar.type);
  if ((status = am_scalar_cast(err, &scalar, type, &scalar)) != AM_OK) return status;
  am_route route;
  uint64_t types = AM_TYPE_BIT(left->type) | AM_TYPE_BIT(type);
  if ((status = am_route_inputs(err, op_class, types, &left, 1, &route)) != AM_OK) return status;
  left = route.use[0];
  am_array *converted = NULL, *result = NULL;
  if ((status = convert(err, left, type, &converted)) == AM_OK)
    status = kernel(err, op, converted ? converted : left, NULL, &scalar, &result);
  am_array_free(converted);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

static int compare_kernel(am_err *err, int op, const am_array *left, const am_array *right,
                          const am_scalar *scalar, am_array **out) {
  return left->device->backend->kernels.compare(err, (am_compare_op)op, left, right, scalar, out);
}

static int arith_kernel(am_err *err, int op, const am_array *left, const am_array *right,
                        const am_scalar *scalar, am_array **out) {
  return left->device->backend->kernels.arith(err, (am_arith_op)op, left, right, scalar, out);
}

/* An integer scalar whose value fits the integer array's own type is
 * compared in that type: the answer is the same as in the common type, and
 * the array is not widened (an int8 array of 2^31 rows against a Python int
 * was cast to int64 first: 58.6 s and 19 GB). Writes the narrowed scalar to
 * *narrow and returns 1 when it applies. */
static int narrow_scalar(const am_array *left, const am_scalar *scalar, am_scalar *narrow) {
  if (!left || !scalar || scalar->is_null || !am_type_valid(scalar->type)) return 0;
  am_type to = left->type;
  if (!am_type_is_integer(to) || !am_type_is_integer((am_type)scalar->type) ||
      (am_type)scalar->type == to)
    return 0;
  am_err quiet;
  am_err_init(&quiet, NULL);
  return am_scalar_cast(&quiet, scalar, to, narrow) == AM_OK;
}

static int compare(am_err *err, am_compare_op op, const am_array *left, const am_array *right,
                   const am_scalar *scalar, am_array **out) {
  if ((unsigned)op > AM_GE) return am_fail(err, AM_EINVAL, "unknown compare op %d", (int)op);
  if (am_temporal_inputs(left, right, scalar))
    return am_temporal_elementwise(err, AM_FAMILY_COMPARE, op, left, right, scalar, out);
  am_scalar narrow;
  if (narrow_scalar(left, scalar, &narrow)) scalar = &narrow;
  if (scalar)
    return am_elementwise_scalar(err, am_op_find(AM_FAMILY_COMPARE, op), AM_ROUTE_COMPARE,
                                 compare_kernel, op, left, scalar, out);
  return am_elementwise_arrays(err, am_op_find(AM_FAMILY_COMPARE, op), AM_ROUTE_COMPARE,
                               compare_kernel, op, left, right, out);
}

int am_call_compare(am_err *err, am_compare_op op, const am_array *left, const am_array *right,
                    const am_scalar *scalar, am_array **out) {
  if (left && (right || scalar) && out && (left->dictionary || (right && right->dictionary)))
    return am_dictionary_compare(err, (int)op, left, right, scalar, out);
  if (left && (right || scalar) && out &&
      (am_type_is_binary(left->type) || (right && am_type_is_binary(right->type))))
    return am_string_compare(err, (int)op, left, right, scalar, out);
  if (left && (right || scalar) && out && am_decimal_inputs(left, right, scalar))
    return am_decimal_compare(err, (int)op, left, right, scalar, out);
  return compare(err, op, left, right, scalar, out);
}

AM_EXPORT int am_compare(am_compare_op op, const am_array *left, const am_array *right,
                         am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_compare(err, op, left, right, NULL, out));
}

AM_EXPORT int am_compare_scalar(am_compare_op op, const am_array *left, const am_scalar *right,
                                am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_compare(err, op, left, NULL, right, out));
}

static int arith(am_err *err, am_arith_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, am_array **out) {
  if ((unsigned)op > AM_DIVIDE) return am_fail(err, AM_EINVAL, "unknown arithmetic op %d", (int)op);
  if (left && (right || scalar) && out && am_decimal_inputs(left, right, scalar))
    return am_decimal_arith(err, (int)op, left, right, scalar, out);
  if (am_temporal_inputs(left, right, scalar))
    return am_temporal_elementwise(err, AM_FAMILY_ARITH, op, left, right, scalar, out);
  if (scalar)
    return am_elementwise_scalar(err, am_op_find(AM_FAMILY_ARITH, op), AM_ROUTE_ARITH, arith_kernel,
                                 op, left, scalar, out);
  return am_elementwise_arrays(err, am_op_find(AM_FAMILY_ARITH, op), AM_ROUTE_ARITH, arith_kernel,
                               op, left, right, out);
}

AM_EXPORT int am_arith(am_arith_op op, const am_array *left, const am_array *right,
                       am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(arith(err, op, left, right, NULL, out));
}

AM_EXPORT int am_arith_scalar(am_arith_op op, const am_array *left, const am_scalar *right,
                              am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(arith(err, op, left, NULL, right, out));
}

/* Whether a cast from `from` to `to` under `flags` checks its values: the
 * kernels know one check per pair of types, and which of pyarrow's allow_*
 * fields lifts it depends on the pair alone. */
static int cast_checked(am_type from, am_type to, int flags) {
  if (!(flags & AM_CAST_SAFE) || from == AM_BOOL || to == AM_BOOL) return 0;
  int from_float = am_type_is_float(from), to_float = am_type_is_float(to);
  if (from_float && to_float) return 0;
  if (from_float || to_float) return !(flags & AM_CAST_ALLOW_FLOAT_TRUNCATE);
  return !(flags & AM_CAST_ALLOW_INT_OVERFLOW);
}

static int known_cast_flags(am_err *err, int flags) {
  const int known = AM_CAST_SAFE | AM_CAST_ALLOW_INT_OVERFLOW | AM_CAST_ALLOW_FLOAT_TRUNCATE |
                    AM_CAST_ALLOW_DECIMAL_TRUNCATE | AM_CAST_ALLOW_TIME_TRUNCATE |
                    AM_CAST_ALLOW_TIME_OVERFLOW;
  if (flags & ~known)
    return am_fail(err, AM_EINVAL,
                   "unknown flag bits 0x%x (am_cast_flag: 0x1, 0x2, 0x4, 0x8, 0x10, 0x20)",
                   (unsigned)(flags & ~known));
  return AM_OK;
}

static int cast(am_err *err, const am_array *array, am_type to, int flags, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (!am_type_valid(to)) return am_fail(err, AM_ETYPE, "cannot cast to unknown type %d", (int)to);
  int status = known_cast_flags(err, flags);
  if (status != AM_OK) return status;
  if (am_type_is_decimal(to))
    return am_fail(err, AM_EINVAL, "a cast to %s needs a precision and a scale (am_cast_decimal)",
                   am_type_name(to));
  if (am_type_is_decimal(array->type))
    return am_decimal_cast(err, array, (am_decimal_param){to, 0, 0}, flags, out);
  /* strings (refused by am_settle) */
  if (am_type_is_binary(array->type)) {
    if (array->type == to) {
      *out = am_array_share(array);
      return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
    }
    return am_string_cast(err, array, to, out);
  }
  /* float16 on either side: float16_cast.c */
  if (array->type == AM_FLOAT16 || to == AM_FLOAT16)
    return am_float16_cast(err, array, to, flags, out);
  if ((status = am_settle(err, array)) != AM_OK) return status;
  if (array->type == to) {
    *out = am_array_share(array);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  /* To strings: formatted on the host (a GPU array's copy), the result on
   * the input's device; temporal values too (string_temporal.c). */
  if (am_type_is_binary(to)) return am_string_cast(err, array, to, out);
  /* Temporal types: temporal_cast.c (from and to strings: string_cast.c,
   * above). */
  if (am_type_is_temporal(array->type) || am_type_is_temporal(to))
    return am_temporal_cast(err, array, to, flags, out);
  am_route route;
  uint64_t types = AM_TYPE_BIT(array->type) | AM_TYPE_BIT(to);
  if ((status = am_route_inputs(err, AM_ROUTE_CAST, types, &array, 1, &route)) != AM_OK)
    return status;
  am_array *result = NULL;
  int safe = cast_checked(array->type, to, flags);
  status = route.use[0]->device->backend->kernels.cast(err, route.use[0], to, safe, &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

int am_call_cast(am_err *err, const am_array *array, am_type to, int flags, am_array **out) {
  if (array && out && array->dictionary) return am_dictionary_cast(err, array, to, flags, out);
  return cast(err, array, to, flags, out);
}

AM_EXPORT int am_cast(const am_array *array, am_type to, int flags, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_cast(err, array, to, flags, out));
}

static int cast_timestamp(am_err *err, const am_array *array, am_type to, const char *timezone,
                          int flags, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  int status = known_cast_flags(err, flags);
  if (status != AM_OK) return status;
  if (!am_type_valid(to) || !am_type_is_timestamp(to))
    return am_fail(err, AM_ETYPE, "am_cast_timestamp casts to a timestamp type, not %s",
                   am_type_valid(to) ? am_type_name(to) : "an unknown type");
  if (array->dictionary) { /* its values, decoded, as am_cast takes them */
    am_array *decoded = NULL;
    if ((status = am_dictionary_decode_array(err, array, &decoded)) != AM_OK) return status;
    status = cast_timestamp(err, decoded, to, timezone, flags, out);
    am_array_free(decoded);
    return status;
  }
  /* strings read an offset only for a target with a time zone */
  if (am_type_is_binary(array->type))
    return am_string_cast_timestamp(err, array, to, timezone, out);
  const char *interned = NULL;
  if (timezone && *timezone && !(interned = am_intern(timezone)))
    return am_fail(err, AM_ENOMEM, "out of memory");
  /* the result is a handle of its own (a share at the least): its zone is set here */
  if ((status = cast(err, array, to, flags, out)) == AM_OK) am_retype(*out, to, interned);
  return status;
}

AM_EXPORT int am_cast_timestamp(const am_array *array, am_type to, const char *timezone, int flags,
                                am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(cast_timestamp(err, array, to, timezone, flags, out));
}

static int cast_decimal(am_err *err, const am_array *array, am_type to, int32_t precision,
                        int32_t scale, int flags, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  int status = known_cast_flags(err, flags);
  if (status != AM_OK) return status;
  if (!am_type_is_decimal(to))
    return am_fail(err, AM_ETYPE, "am_cast_decimal casts to decimal128 or decimal256, not %s",
                   am_type_valid(to) ? am_type_name(to) : "an unknown type");
  return am_decimal_cast(err, array, (am_decimal_param){to, precision, scale}, flags, out);
}

AM_EXPORT int am_cast_decimal(const am_array *array, am_type to, int32_t precision, int32_t scale,
                              int flags, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(cast_decimal(err, array, to, precision, scale, flags, out));
}
