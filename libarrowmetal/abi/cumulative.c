/* The cumulative functions (am_cumulative): pyarrow's
 * cumulative_sum ... cumulative_mean. The ABI checks the op, the type and
 * the start value, supplies the op's default start, and runs the backend's
 * scan where the route says. */
#include <math.h>

#include "abi.h"
#include "core/ops.h"
#include "core/types.h"
#include "route.h"

/* The start a scan takes when none is given: what leaves the first value
 * unchanged (pyarrow's defaults). */
static am_scalar default_start(am_cumulative_op op, am_type t) {
  am_scalar s = {.type = t};
  bool sgn = am_type_is_signed(t), flt = am_type_is_float(t);
  int bits = am_type_bits(t);
  switch (op) {
    case AM_CUMULATIVE_PROD:
    case AM_CUMULATIVE_PROD_CHECKED:
      s.i64 = 1, s.u64 = 1, s.f64 = 1.0;
      break;
    case AM_CUMULATIVE_MIN: /* the highest value */
      if (flt)
        s.f64 = INFINITY;
      else if (sgn)
        s.i64 = (int64_t)(((uint64_t)1 << (bits - 1)) - 1);
      else
        s.u64 = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
      break;
    case AM_CUMULATIVE_MAX: /* the lowest value */
      if (flt)
        s.f64 = -INFINITY;
      else if (sgn)
        s.i64 = -(int64_t)(((uint64_t)1 << (bits - 1)) - 1) - 1;
      break;
    default: /* sums and the mean: 0 */
      break;
  }
  return s;
}

static int cumulative(am_err *err, am_cumulative_op op, const am_array *array,
                      const am_scalar *start, int skip_nulls, am_array **out) {
  const am_op_desc *desc = am_op_find(AM_FAMILY_CUMULATIVE, (int)op);
  if (!desc)
    return am_fail(err, AM_EINVAL, "op %d is not an am_cumulative_op (0 to %d)", (int)op,
                   (int)AM_CUMULATIVE_MEAN);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  am_type t = array->type;
  if (!am_type_is_numeric(t)) /* pyarrow's words */
    return am_fail(err, AM_ETYPE, "Function '%s' has no kernel matching input types (%s)",
                   desc->name, am_type_name(t));
  am_scalar first = default_start(op, t);
  if (start && op != AM_CUMULATIVE_MEAN) {
    if (start->type != (int32_t)t)
      return am_fail(err, AM_ETYPE, "%s: start has type %s, the values %s (convert it first)",
                     desc->name, am_type_valid(start->type) ? am_type_name(start->type) : "invalid",
                     am_type_name(t));
    /* pyarrow scans from a null start's value, which is zero. */
    first = start->is_null ? (am_scalar){.type = t} : *start;
  }
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  uint64_t types = AM_TYPE_BIT(t) | (op == AM_CUMULATIVE_MEAN ? AM_TYPE_BIT(AM_FLOAT64) : 0);
  am_route route;
  status = am_route_inputs(err, AM_ROUTE_UNARY, types, &array, 1, &route);
  if (status != AM_OK) return status;
  am_array *result = NULL;
  const am_array *input = route.use[0];
  am_err tried;
  am_err_init(&tried, err->entry);
  status = input->device->backend->kernels.cumulative(&tried, op, input, &first, skip_nulls != 0,
                                                      &result);
  if (status == AM_EUNSUPPORTED && input->device != am_host_device()) {
    /* A backend without a scan (the GPU's, for now): the host scans, and the
     * result goes back to the input's device. */
    am_err_merge(err, &tried, 0);
    am_array *on_host = NULL, *scanned = NULL;
    am_device *host = am_host_device();
    status = am_move(err, input, host, &on_host);
    if (status == AM_OK)
      status =
          host->backend->kernels.cumulative(err, op, on_host, &first, skip_nulls != 0, &scanned);
    if (status == AM_OK) status = am_move(err, scanned, input->device, &result);
    am_array_free(scanned);
    am_array_free(on_host);
  } else {
    am_err_merge(err, &tried, 1);
  }
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

AM_EXPORT int am_cumulative(am_cumulative_op op, const am_array *array, const am_scalar *start,
                            int skip_nulls, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(cumulative(err, op, array, start, skip_nulls, out));
}
