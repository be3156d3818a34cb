/* Element-wise functions of one array (am_unary): the op table's type rule,
 * then the array's backend. */
#include "abi.h"
#include "core/ops.h"
#include "route.h"

static int unary(am_err *err, am_unary_op op, const am_array *array, am_array **out) {
  if ((unsigned)op >= AM_UNARY_COUNT)
    return am_fail(err, AM_EINVAL, "unknown unary op %d", (int)op);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  const am_op_desc *desc = am_op_find(AM_FAMILY_UNARY, (int)op);
  if (!am_accepts(desc, array->type)) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  am_route route;
  if ((status = am_route_inputs(err, AM_ROUTE_UNARY, AM_TYPE_BIT(array->type), &array, 1,
                                &route)) != AM_OK)
    return status;
  am_array *result = NULL;
  status = route.use[0]->device->backend->kernels.unary(err, op, route.use[0], &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

AM_EXPORT int am_unary(am_unary_op op, const am_array *array, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(unary(err, op, array, out));
}
