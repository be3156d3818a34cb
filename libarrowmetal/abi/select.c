/* Filter and take: type checks, then the backend. */
#include "abi.h"
#include "route.h"

/* The backend's filter or take (by op) on the devices the route chose;
 * take's indices are int32 or int64 by then. */
static int routed(am_op_class op, const am_array *array, const am_array *other, am_array **out) {
  am_route route;
  const am_array *inputs[2] = {array, other};
  int status = am_route_inputs(op, inputs, 2, &route);
  if (status != AM_OK) return status;
  const am_backend *backend = route.use[0]->device->backend;
  am_array *result = NULL;
  status = (op == AM_ROUTE_FILTER ? backend->filter : backend->take)(route.use[0], route.use[1],
                                                                     &result);
  status = am_route_finish(&route, status, result, out);
  am_route_done(&route);
  return status;
}

AM_EXPORT int am_filter(const am_array *array, const am_array *mask, am_array **out) {
  AM_ENTER();
  AM_REQUIRE(array, "array");
  AM_REQUIRE(mask, "mask");
  AM_REQUIRE(out, "out");
  int status;
  if ((status = am_settle(array)) != AM_OK || (status = am_settle(mask)) != AM_OK) return status;
  if (mask->type != AM_BOOL)
    return am_error(AM_ETYPE, "filter mask must be bool, not %s", am_type_name(mask->type));
  if (mask->length != array->length)
    return am_error(AM_EINVAL, "mask length %lld differs from array length %lld",
                    (long long)mask->length, (long long)array->length);
  return routed(AM_ROUTE_FILTER, array, mask, out);
}

AM_EXPORT int am_take(const am_array *array, const am_array *indices, am_array **out) {
  AM_ENTER();
  AM_REQUIRE(array, "array");
  AM_REQUIRE(indices, "indices");
  AM_REQUIRE(out, "out");
  int status;
  if ((status = am_settle(array)) != AM_OK || (status = am_settle(indices)) != AM_OK) return status;
  if (!am_type_is_integer(indices->type))
    return am_error(AM_ETYPE, "indices must be integers, not %s", am_type_name(indices->type));
  if (indices->type == AM_INT32 || indices->type == AM_INT64)
    return routed(AM_ROUTE_TAKE, array, indices, out);
  /* Other integer widths are widened; a uint64 index past INT64_MAX is out
   * of bounds for any array, which the widening cast reports as overflow. */
  am_array *widened = NULL;
  status = indices->device->backend->cast(indices, AM_INT64, 1, &widened);
  if (status == AM_EOVERFLOW) return am_error(AM_EINDEX, "index out of bounds");
  if (status != AM_OK) return status;
  status = routed(AM_ROUTE_TAKE, array, widened, out);
  am_array_free(widened);
  return status;
}
