/* The temporal field extractions on host memory (the CPU's, and the GPU's
 * until it has kernels of its own): one pass over the values,
 * each split into a day number and a time of day, then the field
 * (core/temporal.h's calendar). Nulls are not read for their value: the
 * result shares the input's validity bitmap. */
#include "temporal.h"

#include "types.h"

/* The field of one value split into days and the nanoseconds into the day. */
static int64_t field_of(am_temporal_field_op op, int64_t days, int64_t ns, int week_start,
                        int count_from_zero) {
  int64_t y, m, d, iy, iw;
  switch (op) {
    case AM_FIELD_YEAR:
    case AM_FIELD_MONTH:
    case AM_FIELD_DAY:
    case AM_FIELD_QUARTER:
      am_civil_of_days(days, &y, &m, &d);
      return op == AM_FIELD_YEAR    ? y
             : op == AM_FIELD_MONTH ? m
             : op == AM_FIELD_DAY   ? d
                                    : (m - 1) / 3 + 1;
    case AM_FIELD_DAY_OF_WEEK:
      return (am_iso_weekday0(days) + 8 - week_start) % 7 + (count_from_zero ? 0 : 1);
    case AM_FIELD_DAY_OF_YEAR:
      am_civil_of_days(days, &y, &m, &d);
      return days - am_days_of_new_year(y) + 1;
    case AM_FIELD_ISO_WEEK:
    case AM_FIELD_ISO_YEAR:
      am_iso_week_of_days(days, &iy, &iw);
      return op == AM_FIELD_ISO_WEEK ? iw : iy;
    case AM_FIELD_HOUR:
      return ns / 3600000000000LL;
    case AM_FIELD_MINUTE:
      return ns / 60000000000LL % 60;
    case AM_FIELD_SECOND:
      return ns / 1000000000LL % 60;
    case AM_FIELD_MILLISECOND:
      return ns / 1000000 % 1000;
    case AM_FIELD_MICROSECOND:
      return ns / 1000 % 1000;
    case AM_FIELD_NANOSECOND:
      return ns % 1000;
  }
  return 0;
}

void am_temporal_field_values(am_temporal_field_op op, am_type type, const void *data,
                              int64_t offset, int64_t length, int week_start, int count_from_zero,
                              int64_t *out) {
  int digits = am_type_unit_digits(type);
  static const int64_t per_second[10] = {1, 0, 0, 1000, 0, 0, 1000000, 0, 0, 1000000000};
  int64_t ticks = digits < 0 ? 1 : per_second[digits]; /* ticks of a second */
  int64_t to_ns = 1000000000 / ticks;
  int is_time = type >= AM_TIME32_S && type <= AM_TIME64_NS;
  for (int64_t i = 0; i < length; i++) {
    int64_t v = am_type_storage(type) == AM_INT32 ? ((const int32_t *)data)[offset + i]
                                                  : ((const int64_t *)data)[offset + i];
    int64_t days, ns;
    if (type == AM_DATE32) {
      days = v;
      ns = 0;
    } else if (is_time) { /* a time of day: no date */
      days = 0;
      ns = v * to_ns;
    } else {
      int64_t per_day = 86400 * ticks;
      days = am_floor_div(v, per_day);
      ns = (v - days * per_day) * to_ns;
    }
    out[i] = field_of(op, days, ns, week_start, count_from_zero);
  }
}
