/* Casts between strings and temporal types, on the host, as pyarrow's (the
 * text rules: core/temporal_text.h):
 *
 * - string and large_string to timestamps (every unit) by Arrow's ISO-8601
 *   reader, and to date32 / date64 from exactly "YYYY-MM-DD". A target with
 *   a time zone takes only texts with an offset ("Z", "+01:00": converted to
 *   UTC), one without only texts without; the last value that fails names
 *   the call's error (AM_EINVAL, pyarrow's words: "Failed to parse string:
 *   '2020-01-01' as a scalar of type timestamp[s, tz=UTC]: expected a zone
 *   offset. If these ..."). Binary, and the other temporal targets, are
 *   pyarrow's refusals (AM_ETYPE).
 * - timestamps, dates, times and durations to string and large_string:
 *   Arrow's "2020-01-01 00:00:00.000" (its range checks included) without a
 *   time zone; a zoned timestamp through the `date` library's
 *   "%Y-%m-%d %H:%M:%SZ" in "UTC", else its local time (core/timezone.h)
 *   and "%z" ("2020-01-01 07:00:00-0500"), as pyarrow; a duration's
 *   integer. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/string_array.h"
#include "core/temporal_text.h"
#include "core/timezone.h"
#include "string_calls.h"

enum { PARSED, UNREAD, NEED_ZONE, NO_ZONE };

static int parse_failure(am_err *err, const am_array *a, int64_t i, int why, const char *type) {
  int64_t n;
  const uint8_t *s = am_string_value(a, i, &n);
  const char *why_text =
      why == NEED_ZONE ? ": expected a zone offset. If these timestamps are in local time, cast "
                         "to timestamp without timezone, then call assume_timezone."
      : why == NO_ZONE ? ": expected no zone offset."
                       : "";
  return am_fail(err, AM_EINVAL, "Failed to parse string: '%.*s' as a scalar of type %s%s", (int)n,
                 s, type, why_text);
}

int am_string_to_temporal(am_err *err, const am_array *a, am_type to, const char *timezone,
                          am_array **out) {
  const int zoned = timezone && *timezone;
  char type[160];
  am_temporal_type_text(zoned ? timezone : NULL, to, type, sizeof type);
  const int timestamp = am_type_is_timestamp(to);
  if (!am_type_is_utf8(a->type) || !(timestamp || to == AM_DATE32 || to == AM_DATE64))
    return am_fail(err, AM_ETYPE, "Unsupported cast from %s to %s", am_type_name(a->type), type);
  const char *interned = NULL;
  if (zoned && timestamp && !(interned = am_intern(timezone)))
    return am_fail(err, AM_ENOMEM, "out of memory");
  am_array *r = NULL;
  int status = am_array_alloc_host(err, a->device, to, a->length, a->validity != NULL, &r);
  if (status != AM_OK) return status;
  const int digits = am_type_unit_digits(to);
  int64_t bad = -1;
  int bad_why = PARSED;
  for (int64_t i = 0; i < a->length; i++) {
    int64_t v = 0, n;
    int why = PARSED;
    if (am_string_is_valid(a, i)) {
      const uint8_t *s = am_string_value(a, i, &n);
      if (timestamp) {
        int zone = 0;
        why = am_iso_parse_timestamp(s, n, digits, &v, &zone) ? PARSED : UNREAD;
        if (zone != zoned) why = zoned ? NEED_ZONE : NO_ZONE; /* Arrow checks it after */
      } else {
        why = am_iso_parse_date(s, n, &v) ? PARSED : UNREAD;
        if (to == AM_DATE64) v *= 86400000;
      }
      if (why != PARSED) bad = i, bad_why = why, v = 0;
    }
    if (to == AM_DATE32)
      ((int32_t *)r->data)[i] = (int32_t)v;
    else
      ((int64_t *)r->data)[i] = v;
  }
  if (bad >= 0) {
    am_array_free(r);
    return parse_failure(err, a, bad, bad_why, type);
  }
  r->timezone = interned;
  if (!a->validity) atomic_store(&r->null_count, 0);
  am_string_copy_validity(a, r);
  *out = r;
  return AM_OK;
}

static int64_t value_of(const am_array *a, int64_t i) {
  return am_type_storage(a->type) == AM_INT32 ? ((const int32_t *)a->data)[a->offset + i]
                                              : ((const int64_t *)a->data)[a->offset + i];
}

static int64_t plain_text(const void *ctx, const am_array *a, int64_t i, char *text) {
  (void)ctx;
  const int64_t v = value_of(a, i);
  const int digits = am_type_unit_digits(a->type);
  switch (am_temporal_family(a->type)) {
    case AM_TEMPORAL_TIMESTAMP:
      return am_iso_format_timestamp(v, digits, text);
    case AM_TEMPORAL_DATE:
      return a->type == AM_DATE32 ? am_iso_format_date32(v, text) : am_iso_format_date64(v, text);
    case AM_TEMPORAL_TIME:
      return am_iso_format_time(v, digits, text);
    default: { /* a duration: its count */
      char buffer[24];
      const int n = snprintf(buffer, sizeof buffer, "%" PRId64, v);
      memcpy(text, buffer, (size_t)n);
      return n;
    }
  }
}

int am_text_zone_open(am_err *err, const char *timezone, am_text_zone *z) {
  z->tz = NULL;
  z->fixed[0] = 0;
  if (!timezone) return AM_OK;
  int status = am_tz_find(err, timezone, &z->tz);
  if (status != AM_OK) return status;
  if (timezone[0] == '+' || timezone[0] == '-') { /* a fixed offset's %Z: "+0100" */
    am_tz_period p;
    am_tz_period_at(z->tz, 0, &p);
    const int m = (int)((p.offset < 0 ? -p.offset : p.offset) / 60 % 1440); /* below a day */
    snprintf(z->fixed, sizeof z->fixed, "%c%02d%02d", p.offset < 0 ? '-' : '+', m / 60, m % 60);
  }
  return AM_OK;
}

void am_text_zone_at(const am_text_zone *z, int64_t v, int64_t per_second, am_strftime_zone *out) {
  if (!z->tz) {
    out->offset = 0;
    out->abbrev = "UTC";
    return;
  }
  int64_t second = v / per_second; /* floored, as the `date` library's get_info */
  if (second * per_second > v) second--;
  am_tz_period p;
  am_tz_period_at(z->tz, second, &p);
  out->offset = p.offset;
  out->abbrev = z->fixed[0] ? z->fixed : p.abbrev;
}

/* A zoned timestamp's text: pyarrow's "%Y-%m-%d %H:%M:%SZ" in UTC, its
 * local time and "%z" in another zone. */
typedef struct {
  const char *format;
  am_text_zone zone;
} zoned_ctx;

static int64_t zoned_text(const void *ctx, const am_array *a, int64_t i, char *text) {
  const zoned_ctx *c = ctx;
  const int digits = am_type_unit_digits(a->type);
  const int64_t v = value_of(a, i);
  am_strftime_zone zone;
  am_text_zone_at(&c->zone, v, am_temporal_tick_ns(AM_TIMESTAMP_S) / am_temporal_tick_ns(a->type),
                  &zone);
  return am_strftime_format(c->format, v, digits, &zone, text);
}

int am_temporal_to_string(am_err *err, const am_array *a, am_type to, am_array **out) {
  char type[160];
  am_temporal_type_text(a->timezone, a->type, type, sizeof type);
  if (!am_type_is_utf8(to))
    return am_fail(err, AM_ETYPE, "Unsupported cast from %s to %s", type, am_type_name(to));
  if (!a->timezone)
    return am_string_from_slots(err, a, to, AM_TEMPORAL_TEXT_MAX, plain_text, NULL, NULL, out);
  zoned_ctx ctx;
  ctx.format = strcmp(a->timezone, "UTC") == 0 ? "%Y-%m-%d %H:%M:%SZ" : "%Y-%m-%d %H:%M:%S%z";
  int status = am_text_zone_open(err, a->timezone, &ctx.zone);
  if (status != AM_OK) return status;
  return am_string_from_slots(err, a, to, am_strftime_bound(ctx.format), zoned_text, &ctx,
                              AM_STRFTIME_FAILURE, out);
}
