/* Element-wise functions of one array (am_unary): the op table's type rule,
 * then the array's backend. */
#include "abi.h"
#include "core/ops.h"
#include "float16.h"
#include "route.h"

/* The op on `array` (on the device the route chose): converted first to
 * the operand type (integers to float64 for a function of floats), and the
 * kernel's result narrowed after to the result type (int8 for the sign of
 * an integer: -1, 0 and 1 need no check). */
static int compute(am_err *err, const am_op_desc *desc, const am_array *array, am_array **out) {
  const am_backend *backend = array->device->backend;
  am_type operand = am_operand_type(desc, array->type, AM_TYPE_INVALID);
  am_type result_type = am_result_type(desc, operand);
  am_array *converted = NULL, *computed = NULL;
  int status = AM_OK;
  /* pyarrow's conversion is a safe cast: an integer beyond 2^53, which float64
   * cannot hold exactly, is an error rather than a rounded input. */
  if (operand != array->type) status = backend->kernels.cast(err, array, operand, 1, &converted);
  if (status == AM_OK)
    status = backend->kernels.unary(err, (am_unary_op)desc->op, converted ? converted : array,
                                    &computed);
  am_array_free(converted);
  if (status != AM_OK || computed->type == result_type) {
    *out = computed;
    return status;
  }
  status = backend->kernels.cast(err, computed, result_type, 0, out);
  am_array_free(computed);
  return status;
}

static int unary(am_err *err, am_unary_op op, const am_array *array, am_array **out);

/* A duration takes negate, abs, sign and their checked variants, as in
 * pyarrow 26, on its int64 storage: the result a duration of its unit
 * (sign: int8). pyarrow's negate_checked of a duration is its unchecked
 * kernel (the smallest value stays itself), abs_checked refuses it. */
static int duration_unary(am_err *err, am_unary_op op, const am_array *array, am_array **out) {
  const am_op_desc *desc = am_op_find(AM_FAMILY_UNARY, (int)op);
  if (op != AM_NEGATE && op != AM_NEGATE_CHECKED && op != AM_ABS && op != AM_ABS_CHECKED &&
      op != AM_SIGN)
    return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  am_storage_keep keep;
  int status = am_storage_begin(err, &array, &keep);
  if (status == AM_OK) status = unary(err, op == AM_NEGATE_CHECKED ? AM_NEGATE : op, array, out);
  return am_storage_end(status, &keep, op == AM_SIGN ? NULL : out);
}

static int unary(am_err *err, am_unary_op op, const am_array *array, am_array **out) {
  if ((unsigned)op >= AM_UNARY_COUNT)
    return am_fail(err, AM_EINVAL, "unknown unary op %d", (int)op);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (array->type == AM_FLOAT16 && !array->dictionary) return am_float16_unary(err, op, array, out);
  if (am_type_is_duration(array->type) && !array->dictionary)
    return duration_unary(err, op, array, out);
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  const am_op_desc *desc = am_op_find(AM_FAMILY_UNARY, (int)op);
  if (!am_accepts(desc, array->type)) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  am_type operand = am_operand_type(desc, array->type, AM_TYPE_INVALID);
  uint64_t types =
      AM_TYPE_BIT(array->type) | AM_TYPE_BIT(operand) | AM_TYPE_BIT(am_result_type(desc, operand));
  am_route route;
  if ((status = am_route_inputs(err, AM_ROUTE_UNARY, types, &array, 1, &route)) != AM_OK)
    return status;
  am_array *result = NULL;
  status = compute(err, desc, route.use[0], &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

AM_EXPORT int am_unary(am_unary_op op, const am_array *array, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(unary(err, op, array, out));
}
