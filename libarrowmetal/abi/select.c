/* Filter and take: type checks, then the backend. */
#include "abi.h"
#include "calls.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "float16.h"
#include "route.h"
#include "string_calls.h"

/* The backend's filter (with `nulls`) or take (by op) on the devices the
 * route chose; take's indices are int32 or int64 by then. */
static int routed(am_err *err, am_op_class op, const am_array *array, const am_array *other,
                  am_null_selection nulls, am_array **out) {
  am_route route;
  const am_array *inputs[2] = {array, other};
  uint64_t types = AM_TYPE_BIT(array->type) | AM_TYPE_BIT(other->type);
  int status = am_route_inputs(err, op, types, inputs, 2, &route);
  if (status != AM_OK) return status;
  const am_kernel_ops *kernels = &route.use[0]->device->backend->kernels;
  am_array *result = NULL;
  status = op == AM_ROUTE_FILTER ? kernels->filter(err, route.use[0], route.use[1], nulls, &result)
                                 : kernels->take(err, route.use[0], route.use[1], &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

static int filter(am_err *err, const am_array *array, const am_array *mask, am_null_selection nulls,
                  am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(mask, "mask");
  AM_REQUIRE(out, "out");
  if (nulls != AM_NULL_DROP && nulls != AM_NULL_EMIT)
    return am_fail(err, AM_EINVAL, "null selection %d is not AM_NULL_DROP (0) or AM_NULL_EMIT (1)",
                   (int)nulls);
  int status;
  if ((status = am_settle(err, array)) != AM_OK || (status = am_settle(err, mask)) != AM_OK)
    return status;
  if (mask->type != AM_BOOL)
    return am_fail(err, AM_ETYPE, "filter mask must be bool, not %s", am_type_name(mask->type));
  if (mask->length != array->length)
    return am_fail(err, AM_EINVAL, "mask length %lld differs from array length %lld",
                   (long long)mask->length, (long long)array->length);
  /* Without a validity bitmap both rules are one: the kernels see EMIT only
   * where it may change the result. (Counting the mask's nulls would wait for
   * a GPU mask inside a batch.) */
  if (!mask->validity || atomic_load(&mask->null_count) == 0) nulls = AM_NULL_DROP;
  return routed(err, AM_ROUTE_FILTER, array, mask, nulls, out);
}

int am_call_filter(am_err *err, const am_array *array, const am_array *mask,
                   am_null_selection nulls, am_array **out) {
  if (array && mask && out && array->dictionary)
    return am_dictionary_filter(err, array, mask, (int)nulls, out);
  if (array && mask && out && am_type_is_binary(array->type))
    return am_string_filter(err, array, mask, (int)nulls, out);
  if (array && mask && out && am_type_is_decimal(array->type))
    return am_decimal_filter(err, array, mask, (int)nulls, out);
  am_storage_keep keep;
  int status = am_bits_begin(err, &array, &keep);
  if (status == AM_OK) status = filter(err, array, mask, nulls, out);
  return am_storage_end(status, &keep, out);
}

AM_EXPORT int am_filter(const am_array *array, const am_array *mask, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_filter(err, array, mask, AM_NULL_DROP, out));
}

AM_EXPORT int am_filter_nulls(const am_array *array, const am_array *mask, am_null_selection nulls,
                              am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_filter(err, array, mask, nulls, out));
}

/* The refusal of uint64 indices of which some are past INT64_MAX, naming the
 * largest (pyarrow names the first; any of them is out of bounds). */
static int index_past_int64(am_err *err, const am_array *array, const am_array *indices) {
  am_err quiet;
  am_err_init(&quiet, err->entry);
  am_scalar largest = {0};
  if (am_reduce_now(&quiet, AM_REDUCE_MAX, indices, AM_UINT64, &largest) != AM_OK ||
      largest.is_null)
    return am_fail(err, AM_EINDEX, "an index past INT64_MAX is out of bounds for length %lld",
                   (long long)array->length);
  return am_fail(err, AM_EINDEX, "index %llu out of bounds for length %lld",
                 (unsigned long long)largest.u64, (long long)array->length);
}

static int take(am_err *err, const am_array *array, const am_array *indices, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(indices, "indices");
  AM_REQUIRE(out, "out");
  int status;
  if ((status = am_settle(err, array)) != AM_OK || (status = am_settle(err, indices)) != AM_OK)
    return status;
  if (!am_type_is_integer(indices->type))
    return am_fail(err, AM_ETYPE, "indices must be integers, not %s", am_type_name(indices->type));
  if (indices->type == AM_INT32 || indices->type == AM_INT64)
    return routed(err, AM_ROUTE_TAKE, array, indices, AM_NULL_DROP, out);
  /* Other integer widths are widened; a uint64 index past INT64_MAX is out
   * of bounds for any array, which the widening cast reports as overflow
   * (at once, inside a GPU batch too: the refusal is take's own). */
  am_array *widened = NULL;
  int now = am_wait_now_begin();
  status = indices->device->backend->kernels.cast(err, indices, AM_INT64, 1, &widened);
  am_wait_now_end(now);
  if (status == AM_EOVERFLOW) return index_past_int64(err, array, indices);
  if (status != AM_OK) return status;
  status = routed(err, AM_ROUTE_TAKE, array, widened, AM_NULL_DROP, out);
  am_array_free(widened);
  return status;
}

int am_call_take(am_err *err, const am_array *array, const am_array *indices, am_array **out) {
  if (array && indices && out && array->dictionary)
    return am_dictionary_take(err, array, indices, out);
  if (array && indices && out && am_type_is_binary(array->type))
    return am_string_take(err, array, indices, out);
  if (array && indices && out && am_type_is_decimal(array->type))
    return am_decimal_take(err, array, indices, out);
  am_storage_keep keep;
  int status = am_bits_begin(err, &array, &keep);
  if (status == AM_OK) status = take(err, array, indices, out);
  return am_storage_end(status, &keep, out);
}

AM_EXPORT int am_take(const am_array *array, const am_array *indices, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_take(err, array, indices, out));
}
