/* Boolean logic: am_logic (every function of pyarrow's boolean family), its
 * scalar forms, and am_and / am_or / am_not. The type rule comes from the op
 * table (bool only), so a backend kernel always gets bool operands and, for
 * a scalar operand, a bool scalar. */
#include "abi.h"
#include "core/ops.h"
#include "route.h"

/* The op table's row of `op`, or AM_EINVAL for a value no row has. */
static int row_of(am_err *err, am_logic_op op, const am_op_desc **desc) {
  *desc = am_op_find(AM_FAMILY_LOGIC, (int)op);
  if (!*desc)
    return am_fail(err, AM_EINVAL, "unknown logic op %d (am_logic_op: 0 to %d)", (int)op,
                   (int)AM_LOGIC_AND_NOT_KLEENE);
  return AM_OK;
}

/* Runs the kernel where the route says. `right` is NULL for a scalar
 * operand and for AM_LOGIC_NOT. */
static int routed(am_err *err, am_logic_op op, const am_array *left, const am_array *right,
                  const am_scalar *scalar, int scalar_left, am_array **out) {
  am_route route;
  const am_array *inputs[2] = {left, right};
  int status =
      am_route_inputs(err, AM_ROUTE_LOGIC, AM_TYPE_BIT(AM_BOOL), inputs, right ? 2 : 1, &route);
  if (status != AM_OK) return status;
  am_array *result = NULL;
  status = route.use[0]->device->backend->kernels.logic(
      err, op, route.use[0], right ? route.use[1] : NULL, scalar, scalar_left, &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

static int logic_arrays(am_err *err, am_logic_op op, const am_array *left, const am_array *right,
                        am_array **out) {
  const am_op_desc *desc;
  int status = row_of(err, op, &desc);
  if (status != AM_OK) return status;
  AM_REQUIRE(left, "left");
  AM_REQUIRE(out, "out");
  if (desc->arity == 1) {
    if (right)
      return am_fail(err, AM_EINVAL, "'%s' takes one array: right must be NULL", desc->name);
    if ((status = am_settle(err, left)) != AM_OK) return status;
    if (!am_accepts(desc, left->type)) return am_no_kernel(err, desc, left->type, AM_TYPE_INVALID);
    return routed(err, op, left, NULL, NULL, 0, out);
  }
  AM_REQUIRE(right, "right");
  if ((status = am_settle(err, left)) != AM_OK || (status = am_settle(err, right)) != AM_OK)
    return status;
  /* pyarrow checks the types before the lengths. */
  if (am_operand_type(desc, left->type, right->type) == AM_TYPE_INVALID)
    return am_no_kernel(err, desc, left->type, right->type);
  if (left->length != right->length)
    return am_fail(err, AM_EINVAL, "arrays have different lengths (%lld and %lld)",
                   (long long)left->length, (long long)right->length);
  return routed(err, op, left, right, NULL, 0, out);
}

/* `array` with a scalar on its right, or on its left when `scalar_left`
 * (the NULL checks are the caller's, which knows the arguments' names). */
static int logic_scalar(am_err *err, am_logic_op op, const am_array *array, const am_scalar *scalar,
                        int scalar_left, am_array **out) {
  const am_op_desc *desc;
  int status = row_of(err, op, &desc);
  if (status != AM_OK) return status;
  if (desc->arity == 1)
    return am_fail(err, AM_EINVAL, "'%s' takes one array and no scalar: use am_logic", desc->name);
  AM_REQUIRE(out, "out");
  if ((status = am_settle(err, array)) != AM_OK) return status;
  am_scalar value = *scalar;
  /* A null of no type is a null bool, as in the other scalar calls. */
  if (value.is_null && !am_type_valid(value.type)) value.type = AM_BOOL;
  if (!am_type_valid(value.type))
    return am_fail(err, AM_ETYPE, "invalid scalar type %d", value.type);
  am_type scalar_type = (am_type)value.type;
  am_type left_type = scalar_left ? scalar_type : array->type;
  am_type right_type = scalar_left ? array->type : scalar_type;
  if (am_operand_type(desc, left_type, right_type) == AM_TYPE_INVALID)
    return am_no_kernel(err, desc, left_type, right_type);
  /* Kernels read one truth value: any non-zero i64 is true. */
  value.i64 = value.i64 != 0;
  return routed(err, op, array, NULL, &value, scalar_left, out);
}

AM_EXPORT int am_logic(am_logic_op op, const am_array *left, const am_array *right,
                       am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(logic_arrays(err, op, left, right, out));
}

static int array_scalar(am_err *err, am_logic_op op, const am_array *left, const am_scalar *right,
                        am_array **out) {
  AM_REQUIRE(left, "left");
  AM_REQUIRE(right, "right");
  return logic_scalar(err, op, left, right, 0, out);
}

static int scalar_array(am_err *err, am_logic_op op, const am_scalar *left, const am_array *right,
                        am_array **out) {
  AM_REQUIRE(left, "left");
  AM_REQUIRE(right, "right");
  return logic_scalar(err, op, right, left, 1, out);
}

AM_EXPORT int am_logic_scalar(am_logic_op op, const am_array *left, const am_scalar *right,
                              am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(array_scalar(err, op, left, right, out));
}

AM_EXPORT int am_logic_scalar_left(am_logic_op op, const am_scalar *left, const am_array *right,
                                   am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(scalar_array(err, op, left, right, out));
}

AM_EXPORT int am_and(const am_array *left, const am_array *right, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(logic_arrays(err, AM_LOGIC_AND, left, right, out));
}

AM_EXPORT int am_or(const am_array *left, const am_array *right, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(logic_arrays(err, AM_LOGIC_OR, left, right, out));
}

static int not_(am_err *err, const am_array *array, am_array **out) {
  AM_REQUIRE(array, "array");
  return logic_arrays(err, AM_LOGIC_NOT, array, NULL, out);
}

AM_EXPORT int am_not(const am_array *array, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(not_(err, array, out));
}
