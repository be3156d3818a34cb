/* am_strptime: strings read as timestamps under a format, as pyarrow's
 * strptime on Linux (glibc's strptime as Arrow calls it: core/strptime.c),
 * on the host. The first value that does not read fails the call, as
 * pyarrow's kernel stops there, unless error_is_null makes it null. A GPU
 * array is read from a host copy and the timestamps moved back. */
#include <string.h>

#include "core/string_array.h"
#include "core/temporal_text.h"
#include "string_calls.h"
#include "string_device.h"

static int strptime_host(am_err *err, const am_array *strings, const char *format, am_type unit,
                         int error_is_null, am_array **out);

static int strptime_call(am_err *err, const am_array *strings, const char *format, am_type unit,
                         int error_is_null, am_array **out) {
  AM_REQUIRE(strings, "strings");
  AM_REQUIRE(format, "format");
  AM_REQUIRE(out, "out");
  /* a GPU array's host copy, the timestamps moved back */
  const am_array *in[1] = {strings};
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK) status = strptime_host(err, in[0], format, unit, error_is_null, out);
  return am_string_hosted_end(err, status, &h, out);
}

static int strptime_host(am_err *err, const am_array *strings, const char *format, am_type unit,
                         int error_is_null, am_array **out) {
  if (!am_type_valid(unit) || !am_type_is_timestamp(unit))
    return am_fail(err, AM_EINVAL, "strptime's unit is a timestamp type (AM_TIMESTAMP_S ... _NS)");
  if (!am_type_is_utf8(strings->type)) return am_temporal_no_kernel(err, "strptime", strings);
  if (!*format) /* pyarrow reads past the end of an empty format (and may crash) */
    return am_fail(err, AM_EINVAL, "strptime: the format is empty");
  if (!am_strptime_supported(format))
    return am_fail(err, AM_EUNSUPPORTED,
                   "strptime's format '%s' has a directive ArrowMetal does not read yet (%%s "
                   "%%c %%x %%X %%r %%u %%w %%U %%W %%V %%g %%G, E and O modifiers)",
                   format);
  const char *zone = NULL; /* "%z" makes the result UTC, as pyarrow types it */
  if (am_strptime_zoned(format) && !(zone = am_intern("UTC")))
    return am_fail(err, AM_ENOMEM, "out of memory");
  am_array *r = NULL;
  const int64_t n = strings->length;
  int status = am_array_alloc_host(err, strings->device, unit, n,
                                   strings->validity != NULL || error_is_null, &r);
  if (status != AM_OK) return status;
  const int digits = am_type_unit_digits(unit);
  int64_t *v = (int64_t *)r->data, nulls = 0;
  uint8_t *valid = (uint8_t *)r->validity;
  if (valid) memset(valid, 0, (size_t)((n + 7) / 8));
  for (int64_t i = 0; i < n; i++) {
    v[i] = 0;
    if (!am_string_is_valid(strings, i)) {
      nulls++;
      continue;
    }
    int64_t size;
    const uint8_t *s = am_string_value(strings, i, &size);
    if (am_strptime_parse(format, s, size, digits, &v[i])) {
      if (valid) valid[i >> 3] |= (uint8_t)(1u << (i & 7));
      continue;
    }
    v[i] = 0;
    if (!error_is_null) {
      am_array_free(r);
      return am_fail(err, AM_EINVAL, "Failed to parse string: '%.*s' as a scalar of type %s",
                     (int)size, s, am_type_name(unit));
    }
    nulls++;
  }
  atomic_store(&r->null_count, nulls);
  r->timezone = zone;
  *out = r;
  return AM_OK;
}

AM_EXPORT int am_strptime(const am_array *strings, const char *format, am_type unit,
                          int error_is_null, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(strptime_call(err, strings, format, unit, error_is_null, out));
}
