/* am_round_temporal: pyarrow's type rules and option checks of
 * floor_temporal, ceil_temporal and round_temporal, then the backend's
 * kernel (cpu/round_temporal.c, or the GPU's gpu/ops_temporal.c) on the
 * array's device; the arithmetic is core/round_temporal.h's. A timestamp
 * in a time zone other than UTC rounds in local time
 * (core/round_temporal_zoned.h), on the CPU: a zone's offsets are host
 * data, so a GPU array's is computed on a host copy and the result moved
 * back. */
#include "core/round_temporal.h"
#include "abi.h"
#include "core/timezone.h"

static const char *const names[] = {"floor_temporal", "ceil_temporal", "round_temporal"};

/* pyarrow's checks, made where its kernel runs: only for a non-empty array
 * (nulls included). A duration's weeks become days (pyarrow's own
 * rewrite); *unit and *multiple are what the kernel is given. */
static int check_values(am_err *err, const char *name, const am_array *array,
                        const am_round_temporal_options *o, int *unit, int64_t *multiple) {
  *unit = o->unit;
  *multiple = o->multiple;
  if (array->length == 0) return AM_OK;
  if (o->multiple < 1)
    return am_fail(err, AM_EINVAL, "%s: the multiple must be positive, got %d", name,
                   (int)o->multiple);
  if (am_temporal_family(array->type) != AM_TEMPORAL_DURATION) return AM_OK;
  if (o->calendar_based_origin)
    return am_fail(err, AM_EINVAL, "calendar_based_origin is not supported for duration inputs");
  if (o->unit == AM_UNIT_WEEK) {
    if (o->multiple > INT32_MAX / 7)
      return am_fail(err, AM_EINVAL, "Duration week multiple would not fit in 32-bit integer");
    *unit = AM_UNIT_DAY;
    *multiple = (int64_t)o->multiple * 7;
  }
  if (o->unit >= AM_UNIT_MONTH)
    return am_fail(err, AM_EINVAL,
                   "Duration values can only be rounded using units from nanoseconds through "
                   "weeks");
  return AM_OK;
}

static int round_temporal(am_err *err, am_round_temporal_op op, const am_array *array,
                          const am_round_temporal_options *options, am_array **out) {
  if ((unsigned)op > AM_ROUND_TEMPORAL)
    return am_fail(err, AM_EINVAL, "unknown temporal rounding op %d", (int)op);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  const am_round_temporal_options defaults = {1, AM_UNIT_DAY, 1, 0, 0};
  const am_round_temporal_options *o = options ? options : &defaults;
  if ((unsigned)o->unit > AM_UNIT_YEAR)
    return am_fail(err, AM_EINVAL, "%s: unknown calendar unit %d", names[op], (int)o->unit);
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  if (!am_type_is_temporal(array->type)) return am_temporal_no_kernel(err, names[op], array);
  int unit;
  int64_t multiple;
  if ((status = check_values(err, names[op], array, o, &unit, &multiple)) != AM_OK) return status;
  /* A zone pyarrow cannot find is its error; one that is not UTC rounds in
   * local time, on the CPU. */
  const am_tz *tz = NULL;
  if (array->timezone && (status = am_tz_find(err, array->timezone, &tz)) != AM_OK) return status;
  const int local = tz && !am_tz_is_utc(tz);
  const int flags = (o->week_starts_monday ? AM_RT_WEEK_STARTS_MONDAY : 0) |
                    (o->ceil_is_strictly_greater ? AM_RT_CEIL_IS_STRICTLY_GREATER : 0) |
                    (o->calendar_based_origin ? AM_RT_CALENDAR_BASED_ORIGIN : 0);
  /* On the array's device; a device without the kernel (AM_EUNSUPPORTED),
   * or a local time off the CPU, has it computed on the host, the result
   * moved back. */
  am_array *result = NULL;
  const am_backend *backend = array->device->backend;
  status =
      local && backend != am_host_device()->backend
          ? AM_EUNSUPPORTED
          : backend->kernels.round_temporal(err, (int)op, array, unit, multiple, flags, &result);
  if (status == AM_EUNSUPPORTED) {
    am_array *host = NULL, *computed = NULL;
    if ((status = am_to_host(err, array, &host)) != AM_OK) return status;
    status = am_host_device()->backend->kernels.round_temporal(err, (int)op, host, unit, multiple,
                                                               flags, &computed);
    am_array_free(host);
    if (status == AM_OK) status = am_place(err, computed, array->device, &result);
  }
  if (status != AM_OK) return status;
  am_retype(result, array->type, array->timezone);
  *out = result;
  return AM_OK;
}

AM_EXPORT int am_round_temporal(am_round_temporal_op op, const am_array *array,
                                const am_round_temporal_options *options, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(round_temporal(err, op, array, options, out));
}
