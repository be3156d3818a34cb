/* am_strftime: temporal values as text under a format, as pyarrow's
 * strftime (the `date` library's formatting: core/strftime.c), on the host;
 * a zoned timestamp in its local time (core/timezone.h).
 * A timestamp is formatted in its unit; a date32 as seconds of its day, a
 * date64 and the times as timestamps of their unit (a time on 1970-01-01),
 * as pyarrow's kernels take them. A GPU array is formatted from a host copy
 * and the strings moved back. */
#include <string.h>

#include "core/temporal_text.h"
#include "string_calls.h"
#include "string_device.h"

typedef struct {
  const char *format;
  am_text_zone zone;
} strftime_ctx;

static int64_t value_text(const void *ctx, const am_array *a, int64_t i, char *text) {
  const strftime_ctx *c = ctx;
  static const int64_t per_second[10] = {1, 0, 0, 1000, 0, 0, 1000000, 0, 0, 1000000000};
  const int64_t j = a->offset + i;
  int64_t v;
  int digits;
  if (a->type == AM_DATE32) {
    v = ((const int32_t *)a->data)[j] * (int64_t)86400;
    digits = 0;
  } else {
    v = am_type_storage(a->type) == AM_INT32 ? ((const int32_t *)a->data)[j]
                                             : ((const int64_t *)a->data)[j];
    digits = am_type_unit_digits(a->type);
  }
  am_strftime_zone zone;
  am_text_zone_at(&c->zone, v, per_second[digits], &zone);
  return am_strftime_format(c->format, v, digits, &zone, text);
}

static int strftime_call(am_err *err, const am_array *array, const char *format, const char *locale,
                         am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(format, "format");
  AM_REQUIRE(out, "out");
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  const int family = am_temporal_family(array->type);
  if (family != AM_TEMPORAL_TIMESTAMP && family != AM_TEMPORAL_DATE && family != AM_TEMPORAL_TIME)
    return am_temporal_no_kernel(err, "strftime", array);
  if (locale && strcmp(locale, "C") != 0)
    return am_fail(err, AM_EUNSUPPORTED,
                   "strftime in locale '%s': only the \"C\" locale's names are here", locale);
  if (!array->timezone && (strstr(format, "%z") || strstr(format, "%Z")))
    return am_fail(err, AM_EINVAL,
                   "Timezone not present, cannot convert to string with timezone: %s", format);
  strftime_ctx ctx = {format, {NULL, {0}}};
  if ((status = am_text_zone_open(err, array->timezone, &ctx.zone)) != AM_OK) return status;
  if (!am_strftime_supported(format))
    return am_fail(err, AM_EUNSUPPORTED,
                   "strftime's format '%s' has a directive ArrowMetal does not write yet "
                   "(%%c %%x %%X %%r %%g %%G %%U %%V %%W %%Q %%q, E and O modifiers)",
                   format);
  /* a GPU array's host copy, the strings moved back */
  const am_array *in[1] = {array};
  am_string_hosted h;
  if ((status = am_string_hosted_begin(err, in, 1, &h)) == AM_OK)
    status = am_string_from_slots(err, in[0], AM_UTF8, am_strftime_bound(format), value_text, &ctx,
                                  AM_STRFTIME_FAILURE, out);
  return am_string_hosted_end(err, status, &h, out);
}

AM_EXPORT int am_strftime(const am_array *array, const char *format, const char *locale,
                          am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(strftime_call(err, array, format, locale, out));
}
