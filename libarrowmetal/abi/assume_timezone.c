/* am_assume_timezone: pyarrow's assume_timezone. The local wall times are
 * read in the zone on the host (core/timezone.h: a zone's rules are host
 * data), the result moved back to the array's device. */
#include "abi.h"
#include "core/timezone.h"
#include "core/types.h"

static int assume_timezone(am_err *err, const am_array *array, const char *timezone,
                           am_assume_choice ambiguous, am_assume_choice nonexistent,
                           am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(timezone, "timezone");
  AM_REQUIRE(out, "out");
  if ((unsigned)ambiguous > AM_ASSUME_LATEST || (unsigned)nonexistent > AM_ASSUME_LATEST)
    return am_fail(err, AM_EINVAL,
                   "ambiguous and nonexistent must be AM_ASSUME_RAISE, AM_ASSUME_EARLIEST or "
                   "AM_ASSUME_LATEST (got %d and %d)",
                   (int)ambiguous, (int)nonexistent);
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  if (!am_type_is_timestamp(array->type))
    return am_temporal_no_kernel(err, "assume_timezone", array);
  if (array->timezone)
    return am_fail(err, AM_EINVAL,
                   "Timestamps already have a timezone: '%s'. Cannot localize to '%s'.",
                   array->timezone, timezone);
  const am_tz *tz = NULL;
  if ((status = am_tz_find(err, timezone, &tz)) != AM_OK) return status;
  const char *zone = am_intern(timezone);
  if (!zone) return am_fail(err, AM_ENOMEM, "out of memory");
  am_array *host = NULL, *result = NULL;
  if ((status = am_to_host(err, array, &host)) != AM_OK) return status;
  int64_t start = host->validity ? host->offset : 0; /* the bitmap shared as it is */
  status = am_array_alloc_host(err, host->device, host->type, start + host->length, 0, &result);
  if (status == AM_OK) {
    const int64_t *values = (const int64_t *)host->data + host->offset;
    int64_t per_second = 1000000000 / am_temporal_tick_ns(host->type);
    int64_t bad = am_tz_to_utc(tz, per_second, values, host->validity, host->offset, host->length,
                               ambiguous, nonexistent, (int64_t *)result->data + start);
    if (bad >= 0) status = am_tz_refuse_local(err, tz, per_second, values[bad]);
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
    am_retype(result, host->type, zone);
  } else {
    am_array_free(result);
  }
  am_array_free(host);
  return status == AM_OK ? am_place(err, result, array->device, out) : status;
}

AM_EXPORT int am_assume_timezone(const am_array *array, const char *timezone,
                                 am_assume_choice ambiguous, am_assume_choice nonexistent,
                                 am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(assume_timezone(err, array, timezone, ambiguous, nonexistent, out));
}
