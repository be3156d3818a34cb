/* Element-wise functions of two arrays beyond am_arith (am_binary): the op
 * table's rows (AM_BINARY_OPS) decide the operand type; the shared binary
 * shape (elementwise.c) converts, routes and runs the backend's kernel. */
#include "abi.h"
#include "core/ops.h"
#include "decimal_calls.h"
#include "route.h"

static int binary_kernel(am_err *err, int op, const am_array *left, const am_array *right,
                         const am_scalar *scalar, am_array **out) {
  return left->device->backend->kernels.binary(err, (am_binary_op)op, left, right, scalar, out);
}

static int binary(am_err *err, am_binary_op op, const am_array *left, const am_array *right,
                  const am_scalar *scalar, am_array **out) {
  if ((unsigned)op >= AM_BINARY_COUNT)
    return am_fail(err, AM_EINVAL, "unknown binary op %d", (int)op);
  /* the checked decimal arithmetic is the unchecked: its result type holds
   * the exact result */
  if (left && (right || scalar) && out && op <= AM_DIVIDE_CHECKED &&
      am_decimal_inputs(left, right, scalar))
    return am_decimal_arith(err, (int)op, left, right, scalar, out);
  if (am_temporal_inputs(left, right, scalar))
    return am_temporal_elementwise(err, AM_FAMILY_BINARY, op, left, right, scalar, out);
  const am_op_desc *desc = am_op_find(AM_FAMILY_BINARY, (int)op);
  if (scalar)
    return am_elementwise_scalar(err, desc, AM_ROUTE_ARITH, binary_kernel, op, left, scalar, out);
  return am_elementwise_arrays(err, desc, AM_ROUTE_ARITH, binary_kernel, op, left, right, out);
}

AM_EXPORT int am_binary(am_binary_op op, const am_array *left, const am_array *right,
                        am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(binary(err, op, left, right, NULL, out));
}

AM_EXPORT int am_binary_scalar(am_binary_op op, const am_array *left, const am_scalar *right,
                               am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(binary(err, op, left, NULL, right, out));
}
