/* am_temporal_field: pyarrow's type rules and options of the field
 * extractions, then the backend's kernel (cpu/temporal.c, or the GPU's
 * gpu/ops_temporal.c) on the array's device. A timestamp in local time (a
 * time zone other than UTC's) is the CPU's: a zone's offsets are host data
 * (core/timezone.h). */
#include <string.h>

#include "abi.h"
#include "core/timezone.h"

static const char *const names[] = {
    "year",   "month",       "day",         "day_of_week", "day_of_year", "hour",     "minute",
    "second", "millisecond", "microsecond", "nanosecond",  "quarter",     "iso_week", "iso_year"};

static int takes(am_temporal_field_op op, am_type t) {
  int date_field = op <= AM_FIELD_DAY_OF_YEAR || op >= AM_FIELD_QUARTER;
  if (am_type_is_timestamp(t)) return 1;
  if (date_field) return t == AM_DATE32 || t == AM_DATE64;
  return t >= AM_TIME32_S && t <= AM_TIME64_NS;
}

static int temporal_field(am_err *err, am_temporal_field_op op, const am_array *array,
                          int week_start, int count_from_zero, am_array **out) {
  if ((unsigned)op > AM_FIELD_ISO_YEAR)
    return am_fail(err, AM_EINVAL, "unknown temporal field %d", (int)op);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  if (!takes(op, array->type)) return am_temporal_no_kernel(err, names[op], array);
  if (op == AM_FIELD_DAY_OF_WEEK && (week_start < 1 || week_start > 7))
    return am_fail(err, AM_EINVAL,
                   "week_start must follow ISO convention (Monday=1, Sunday=7). Got week_start=%d",
                   week_start);
  const am_tz *tz = NULL;
  if (array->timezone && (status = am_tz_find(err, array->timezone, &tz)) != AM_OK) return status;
  /* On the array's device; a device without the kernel (AM_EUNSUPPORTED),
   * or a local time off the CPU, has it computed on the host, the result
   * moved back. */
  if (!tz || am_tz_is_utc(tz) || array->device->backend == am_host_device()->backend) {
    status = array->device->backend->kernels.temporal_field(err, op, array, week_start,
                                                            count_from_zero, out);
    if (status != AM_EUNSUPPORTED) return status;
  }
  am_array *host = NULL, *result = NULL;
  am_device *cpu = am_host_device();
  if ((status = am_to_host(err, array, &host)) != AM_OK) return status;
  status =
      cpu->backend->kernels.temporal_field(err, op, host, week_start, count_from_zero, &result);
  am_array_free(host);
  if (status != AM_OK) return status;
  return am_place(err, result, array->device, out);
}

AM_EXPORT int am_temporal_field(am_temporal_field_op op, const am_array *array, int week_start,
                                int count_from_zero, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(temporal_field(err, op, array, week_start, count_from_zero, out));
}
