/* fill_null_forward and fill_null_backward (am_fill_null_direction): the
 * backend's scan, where the route says. */
#include "abi.h"
#include "float16.h"
#include "route.h"

static int fill_direction(am_err *err, am_fill_direction direction, const am_array *values,
                          am_array **out) {
  if (direction != AM_FILL_FORWARD && direction != AM_FILL_BACKWARD)
    return am_fail(err, AM_EINVAL,
                   "direction %d is not AM_FILL_FORWARD (0) or AM_FILL_BACKWARD (1)",
                   (int)direction);
  AM_REQUIRE(values, "values");
  AM_REQUIRE(out, "out");
  int status = am_settle(err, values);
  if (status != AM_OK) return status;
  if (!values->validity || atomic_load(&((am_array *)values)->null_count) == 0) {
    *out = am_array_share(values); /* nothing to fill */
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  /* The kernels move values as bits: no kernels of the element type needed. */
  am_route route;
  status = am_route_inputs(err, AM_ROUTE_NULLS, AM_TYPE_BIT(AM_BOOL), &values, 1, &route);
  if (status != AM_OK) return status;
  am_array *result = NULL;
  status =
      route.use[0]->device->backend->kernels.fill_direction(err, direction, route.use[0], &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

AM_EXPORT int am_fill_null_direction(am_fill_direction direction, const am_array *values,
                                     am_array **out) {
  AM_API_BEGIN;
  am_storage_keep keep;
  int status = am_bits_begin(err, &values, &keep);
  if (status == AM_OK) status = fill_direction(err, direction, values, out);
  AM_API_RETURN(am_storage_end(status, &keep, out));
}
