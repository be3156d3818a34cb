/* Reductions: argument checks, then the array's backend. */
#include <string.h>

#include "abi.h"
#include "core/ops.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "float16.h"
#include "route.h"
#include "string_calls.h"

static int reduce(am_err *err, am_reduce_op op, const am_array *array, am_scalar *out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  const am_op_desc *desc = am_op_find(AM_FAMILY_REDUCE, (int)op);
  if (array->type == AM_FLOAT16) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  if (!am_accepts(desc, array->type)) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  am_type type = am_result_type(desc, array->type);
  am_route route;
  if ((status = am_route_inputs(err, AM_ROUTE_REDUCE, AM_TYPE_BIT(array->type), &array, 1,
                                &route)) != AM_OK)
    return status;
  status = route.use[0]->device->backend->kernels.reduce(err, op, route.use[0], type, out);
  am_route_done(&route);
  return status;
}

int am_reduce_now(am_err *err, am_reduce_op op, const am_array *array, am_type type,
                  am_scalar *out) {
  int now = am_wait_now_begin();
  int status = array->device->backend->kernels.reduce(err, op, array, type, out);
  am_wait_now_end(now);
  return status;
}

AM_EXPORT int am_sum(const am_array *array, am_scalar *out) {
  AM_API_BEGIN;
  if (array && out && am_type_is_decimal(array->type))
    AM_API_RETURN(am_decimal_aggregate(err, AM_AGG_SUM, array, NULL, out, NULL));
  AM_API_RETURN(reduce(err, AM_REDUCE_SUM, array, out));
}

AM_EXPORT int am_min(const am_array *array, am_scalar *out) {
  AM_API_BEGIN;
  if (array && out && am_type_is_binary(array->type))
    AM_API_RETURN(am_string_aggregate(err, AM_AGG_MIN, array, NULL, out, NULL));
  if (array && out && am_type_is_decimal(array->type))
    AM_API_RETURN(am_decimal_aggregate(err, AM_AGG_MIN, array, NULL, out, NULL));
  /* pyarrow: no min_max of durations or float16 */
  if (array && (am_type_is_duration(array->type) || array->type == AM_FLOAT16))
    AM_API_RETURN(am_temporal_no_kernel(err, "min_max", array));
  am_storage_keep keep;
  int status = am_storage_begin_scalars(err, &array, &keep);
  if (status == AM_OK) status = reduce(err, AM_REDUCE_MIN, array, out);
  AM_API_RETURN(am_storage_end_scalars(status, &keep, out, NULL));
}

AM_EXPORT int am_max(const am_array *array, am_scalar *out) {
  AM_API_BEGIN;
  if (array && out && am_type_is_binary(array->type))
    AM_API_RETURN(am_string_aggregate(err, AM_AGG_MAX, array, NULL, out, NULL));
  if (array && out && am_type_is_decimal(array->type))
    AM_API_RETURN(am_decimal_aggregate(err, AM_AGG_MAX, array, NULL, out, NULL));
  if (array && (am_type_is_duration(array->type) || array->type == AM_FLOAT16))
    AM_API_RETURN(am_temporal_no_kernel(err, "min_max", array));
  am_storage_keep keep;
  int status = am_storage_begin_scalars(err, &array, &keep);
  if (status == AM_OK) status = reduce(err, AM_REDUCE_MAX, array, out);
  AM_API_RETURN(am_storage_end_scalars(status, &keep, out, NULL));
}

AM_EXPORT int am_mean(const am_array *array, am_scalar *out) {
  AM_API_BEGIN;
  if (array && out && am_type_is_decimal(array->type))
    AM_API_RETURN(am_decimal_aggregate(err, AM_AGG_MEAN, array, NULL, out, NULL));
  AM_API_RETURN(reduce(err, AM_REDUCE_MEAN, array, out));
}

static int count(am_err *err, const am_array *array, am_count_mode mode, am_scalar *out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (mode != AM_COUNT_VALID && mode != AM_COUNT_NULL && mode != AM_COUNT_ALL)
    return am_fail(err, AM_EINVAL, "unknown count mode %d", (int)mode);
  int64_t nulls = 0;
  int status = array->dictionary ? am_dictionary_logical_nulls(err, array, &nulls)
                                 : am_count_nulls(err, array, &nulls);
  if (status != AM_OK) return status;
  memset(out, 0, sizeof *out);
  out->type = AM_INT64;
  out->i64 = mode == AM_COUNT_VALID  ? array->length - nulls
             : mode == AM_COUNT_NULL ? nulls
                                     : array->length;
  return AM_OK;
}

AM_EXPORT int am_count(const am_array *array, am_count_mode mode, am_scalar *out) {
  AM_API_BEGIN;
  if (array && array->dictionary) AM_API_RETURN(count(err, array, mode, out));
  am_storage_keep keep;
  int status = am_bits_begin(err, &array, &keep);
  if (status == AM_OK) status = count(err, array, mode, out);
  AM_API_RETURN(am_storage_end(status, &keep, NULL));
}
