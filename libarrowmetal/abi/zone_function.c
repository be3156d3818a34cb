/* am_zone_function: pyarrow's is_dst and local_timestamp, what a
 * timestamp's time zone says of each instant. Read on the host
 * (core/timezone.h: a zone's rules are host data), the result moved back
 * to the array's device. */
#include <string.h>

#include "abi.h"
#include "core/timezone.h"
#include "core/types.h"

static const char *const names[] = {"is_dst", "local_timestamp"};

/* Bit start + i of `bits` (zeroed) set where values[i]'s period keeps
 * daylight time. */
static void daylight_bits(const am_tz *tz, int64_t per_second, const int64_t *values, int64_t n,
                          uint8_t *bits, int64_t start) {
  am_tz_reader r;
  am_tz_reader_init(&r, tz);
  for (int64_t i = 0; i < n; i++) {
    (void)am_tz_reader_local(&r, values[i], per_second); /* the period of its second */
    if (r.utc.is_dst) bits[(start + i) >> 3] |= (uint8_t)(1u << ((start + i) & 7));
  }
}

static int zone_function(am_err *err, am_zone_op op, const am_array *array, am_array **out) {
  if ((unsigned)op > AM_ZONE_LOCAL_TIMESTAMP)
    return am_fail(err, AM_EINVAL, "unknown zone function %d", (int)op);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  if (!am_type_is_timestamp(array->type)) return am_temporal_no_kernel(err, names[op], array);
  am_type result_type = op == AM_ZONE_IS_DST ? AM_BOOL : array->type;
  /* pyarrow runs no kernel on no rows: neither the zone nor its absence is
   * looked at then. A timestamp without a zone is its own local time. */
  if (!array->timezone && !(op == AM_ZONE_IS_DST && array->length == 0)) {
    if (op == AM_ZONE_IS_DST)
      return am_fail(err, AM_EINVAL, "Timestamps have no timezone. Cannot determine DST.");
    am_array *same = am_array_share(array);
    if (!same) return am_fail(err, AM_ENOMEM, "out of memory");
    *out = same;
    return AM_OK;
  }
  const am_tz *tz = NULL;
  if (array->length > 0 && (status = am_tz_find(err, array->timezone, &tz)) != AM_OK) return status;
  am_array *host = NULL, *result = NULL;
  if ((status = am_to_host(err, array, &host)) != AM_OK) return status;
  int64_t start = host->validity ? host->offset : 0; /* the bitmap shared as it is */
  status = am_array_alloc_host(err, host->device, result_type, start + host->length, 0, &result);
  if (status == AM_OK && host->length > 0) {
    const int64_t *values = (const int64_t *)host->data + host->offset;
    int64_t per_second = 1000000000 / am_temporal_tick_ns(host->type);
    if (op == AM_ZONE_IS_DST) {
      uint8_t *bits = (uint8_t *)result->data;
      memset(bits, 0, (size_t)am_type_bytes(AM_BOOL, start + host->length));
      daylight_bits(tz, per_second, values, host->length, bits, start);
    } else {
      am_tz_localize(tz, per_second, values, host->length, (int64_t *)result->data + start);
    }
  }
  if (status == AM_OK) {
    result->offset = start;
    result->length = host->length;
    if (host->validity) {
      result->validity_buf =
          am_buffer_retain(host->validity_buf ? host->validity_buf : host->data_buf);
      result->validity = host->validity;
      atomic_store(&result->null_count, atomic_load(&host->null_count));
    }
    am_retype(result, result_type, NULL);
  }
  am_array_free(host);
  if (status != AM_OK) {
    am_array_free(result);
    return status;
  }
  return am_place(err, result, array->device, out);
}

AM_EXPORT int am_zone_function(am_zone_op op, const am_array *array, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(zone_function(err, op, array, out));
}
