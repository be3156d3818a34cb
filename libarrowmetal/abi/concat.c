/* am_concat: one array from several of one type. */
#include <stdlib.h>

#include "abi.h"
#include "calls.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "float16.h"
#include "string_calls.h"

/* Host copies of arrays that live elsewhere (GPU arrays are downloaded). */
static int gather_on_host(am_err *err, const am_array *const *arrays, int64_t count,
                          am_array **hosts) {
  for (int64_t i = 0; i < count; i++) {
    int status = am_to_host(err, arrays[i], &hosts[i]);
    if (status != AM_OK) return status;
  }
  return AM_OK;
}

static int concat(am_err *err, const am_array *const *arrays, int64_t count, am_device *device,
                  am_array **out) {
  AM_REQUIRE(arrays, "arrays");
  AM_REQUIRE(out, "out");
  if (count < 1)
    return am_fail(err, AM_EINVAL, "count %lld: at least one array is needed", (long long)count);
  int64_t total = 0;
  for (int64_t i = 0; i < count; i++) {
    if (!arrays[i]) return am_fail(err, AM_EINVAL, "arrays[%lld] is NULL", (long long)i);
    int status = am_settle(err, arrays[i]);
    if (status != AM_OK) return status;
    if (arrays[i]->type != arrays[0]->type)
      return am_fail(err, AM_ETYPE, "arrays[%lld] is %s, arrays[0] is %s", (long long)i,
                     am_type_name(arrays[i]->type), am_type_name(arrays[0]->type));
    if (arrays[i]->length > AM_MAX_LENGTH - total)
      return am_fail(err, AM_EINVAL, "the total length is beyond 2^52 slots");
    total += arrays[i]->length;
  }
  if (!device) device = arrays[0]->device;
  int same = 1;
  for (int64_t i = 0; i < count; i++) same &= arrays[i]->device == device;
  if (same) return device->backend->kernels.concat(err, arrays, count, out);
  am_array **hosts = calloc((size_t)count, sizeof *hosts);
  if (!hosts) return am_fail(err, AM_ENOMEM, "out of memory");
  am_array *joined = NULL;
  am_device *host = am_host_device();
  int status = gather_on_host(err, arrays, count, hosts);
  if (status == AM_OK)
    status = host->backend->kernels.concat(err, (const am_array *const *)hosts, count, &joined);
  for (int64_t i = 0; i < count; i++) am_array_free(hosts[i]);
  free(hosts);
  if (status != AM_OK) return status;
  return am_place(err, joined, device, out);
}

int am_call_concat(am_err *err, const am_array *const *arrays, int64_t count, am_device *device,
                   am_array **out) {
  if (arrays && out && count > 0 && arrays[0] && arrays[0]->dictionary)
    return am_dictionary_concat(err, arrays, count, device, out);
  if (arrays && out && count > 0 && am_any_binary(arrays, NULL, count))
    return am_string_concat(err, arrays, count, device, out);
  if (arrays && out && count > 0 && am_any_decimal(arrays, NULL, count))
    return am_decimal_concat(err, arrays, count, device, out);
  /* Temporal arrays of one type join as their storage integers. */
  for (int64_t i = 1; arrays && arrays[0] && i < count; i++)
    if (arrays[i] && arrays[i]->type != arrays[0]->type)
      return am_fail(err, AM_ETYPE, "arrays[%lld] is %s, arrays[0] is %s", (long long)i,
                     am_type_name(arrays[i]->type), am_type_name(arrays[0]->type));
  am_storage_list_t list;
  int status = arrays && count > 0 && am_any_float16(arrays, NULL, count)
                   ? am_float16_list(err, arrays, count, &list)
                   : am_storage_list(err, arrays, arrays && count > 0 ? count : 0, &list);
  if (status != AM_OK) return status;
  status = concat(err, arrays ? list.arrays : NULL, count, device, out);
  if (status == AM_OK && list.views) am_retype(*out, arrays[0]->type, arrays[0]->timezone);
  am_storage_list_free(&list);
  return status;
}

AM_EXPORT int am_concat(const am_array *const *arrays, int64_t count, am_device *device,
                        am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_concat(err, arrays, count, device, out));
}
