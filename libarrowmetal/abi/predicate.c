/* The predicates of one array (am_is: is_null, is_valid, is_nan, is_finite,
 * is_inf): argument and type checks from the op table, then the backend. */
#include "abi.h"
#include "calls.h"
#include "core/ops.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "float16.h"
#include "route.h"
#include "string_calls.h"

static int predicate(am_err *err, am_predicate op, int flags, const am_array *array,
                     am_array **out) {
  if ((unsigned)op > AM_IS_INF) return am_fail(err, AM_EINVAL, "unknown predicate %d", (int)op);
  if (flags & ~AM_NAN_IS_NULL)
    return am_fail(err, AM_EINVAL, "unknown flag bits 0x%x (am_predicate_flag: 0x1)",
                   (unsigned)(flags & ~AM_NAN_IS_NULL));
  const am_op_desc *desc = am_op_find(AM_FAMILY_PREDICATE, (int)op);
  if (flags && op != AM_IS_NULL)
    return am_fail(err, AM_EINVAL, "AM_NAN_IS_NULL is a flag of is_null, not of %s", desc->name);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (am_type_is_decimal(array->type)) return am_decimal_is(err, op, array, out);
  if (am_type_is_host_only(array->type)) {
    if (op == AM_IS_NULL || op == AM_IS_VALID)
      return am_string_validity(err, array, op == AM_IS_VALID, out);
    return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  }
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  if (!am_accepts(desc, array->type)) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  /* Only a float can be NaN: elsewhere nan_is_null changes nothing. */
  int reads_values = am_type_is_float(array->type) && (op != AM_IS_VALID) &&
                     (op != AM_IS_NULL || (flags & AM_NAN_IS_NULL));
  if (!reads_values) flags = 0;
  /* Kernels that read only the validity bitmap take any element type (so
   * Metal runs is_null of float64 itself). */
  uint64_t types = AM_TYPE_BIT(AM_BOOL) | (reads_values ? AM_TYPE_BIT(array->type) : 0);
  am_route route;
  if ((status = am_route_inputs(err, AM_ROUTE_NULLS, types, &array, 1, &route)) != AM_OK)
    return status;
  am_array *result = NULL;
  status = route.use[0]->device->backend->kernels.predicate(err, op, flags, route.use[0], &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

int am_call_is(am_err *err, am_predicate op, int flags, const am_array *array, am_array **out) {
  /* pyarrow has is_nan, is_inf and is_finite of durations (never NaN nor
   * infinite) but of no other temporal type */
  if (array && out && am_type_is_temporal(array->type) && !am_type_is_duration(array->type) &&
      !array->dictionary && (op == AM_IS_NAN || op == AM_IS_INF || op == AM_IS_FINITE)) {
    char text[128];
    return am_fail(err, AM_ETYPE, "function '%s' has no kernel matching input types (%s)",
                   am_op_find(AM_FAMILY_PREDICATE, (int)op)->name,
                   am_temporal_type_text(array->timezone, array->type, text, sizeof text));
  }
  if (array && out && array->dictionary) return am_dictionary_is(err, (int)op, flags, array, out);
  if (array && out && array->type == AM_FLOAT16) return am_float16_is(err, op, flags, array, out);
  am_storage_keep keep;
  int status = am_storage_begin(err, &array, &keep);
  if (status == AM_OK) status = predicate(err, op, flags, array, out);
  return am_storage_end(status, &keep, NULL);
}

AM_EXPORT int am_is(am_predicate op, int flags, const am_array *array, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_is(err, op, flags, array, out));
}
