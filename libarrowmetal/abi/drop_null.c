/* drop_null (am_drop_null): the backend's filter, with the array's own
 * validity bitmap as the mask (a view of the same buffer: nothing is copied
 * to make it), so that every backend's filter kernels serve, on the device
 * where the array lives. */
#include "abi.h"
#include "calls.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "float16.h"
#include "route.h"
#include "string_calls.h"

/* A boolean array over the validity bits of `array` (its slots: true where
 * `array` is valid), sharing the buffer that keeps them. */
static int validity_mask(am_err *err, const am_array *array, am_array **out) {
  am_buffer *keeper = array->validity_buf ? array->validity_buf : array->data_buf;
  am_array *mask = am_array_make(array->device, AM_BOOL, array->length, array->offset, 0, NULL,
                                 NULL, am_buffer_retain(keeper), array->validity);
  if (!mask) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = mask;
  return AM_OK;
}

static int drop_null(am_err *err, const am_array *array, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (am_type_is_binary(array->type)) return am_string_drop_null(err, array, out);
  if (am_type_is_decimal(array->type)) return am_decimal_drop_null(err, array, out);
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  int64_t nulls = atomic_load(&((am_array *)array)->null_count);
  if (!array->validity || nulls == 0) {
    *out = am_array_share(array);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  am_array *mask = NULL;
  if ((status = validity_mask(err, array, &mask)) != AM_OK) return status;
  am_route route;
  const am_array *inputs[2] = {array, mask};
  uint64_t types = AM_TYPE_BIT(array->type) | AM_TYPE_BIT(AM_BOOL);
  status = am_route_inputs(err, AM_ROUTE_NULLS, types, inputs, 2, &route);
  if (status == AM_OK) {
    am_array *result = NULL;
    status = route.use[0]->device->backend->kernels.filter(err, route.use[0], route.use[1],
                                                           AM_NULL_DROP, &result);
    status = am_route_finish(err, &route, status, result, out);
    am_route_done(&route);
  }
  am_array_free(mask);
  return status;
}

int am_call_drop_null(am_err *err, const am_array *array, am_array **out) {
  if (array && out && array->dictionary) return am_dictionary_drop_null(err, array, out);
  am_storage_keep keep;
  int status = am_bits_begin(err, &array, &keep);
  if (status == AM_OK) status = drop_null(err, array, out);
  return am_storage_end(status, &keep, out);
}

AM_EXPORT int am_drop_null(const am_array *array, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_drop_null(err, array, out));
}
