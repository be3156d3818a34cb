/* The temporal field extractions on host memory (the CPU's; GPU arrays use
 * gpu/kernel_source_temporal.c's kernel, on the same calendar): one pass
 * over the values, each split into a day number and the nanoseconds into
 * the day, then core/temporal.h's field. Nulls are computed as whatever
 * value they hold: the caller shares the input's validity bitmap. */
#include "temporal.h"

#include "types.h"

typedef int64_t am_i64;
#define DEVFN static inline
AM_TEMPORAL_DEFS
#undef DEVFN

void am_calendar_civil(int64_t days, int64_t *year, int *month, int *day) {
  *year = am_civil(days, 0);
  *month = (int)am_civil(days, 1);
  *day = (int)am_civil(days, 2);
}

int64_t am_calendar_days(int64_t year, int month, int day) {
  static const int before[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return am_new_year(year) + before[month - 1] + (leap && month > 2) + day - 1;
}

int am_calendar_weekday(int64_t days) { return (int)am_weekday0(days); }

void am_temporal_split(am_type t, int64_t *per_day, int64_t *to_ns) {
  int digits = am_type_unit_digits(t);
  static const int64_t per_second[10] = {1, 0, 0, 1000, 0, 0, 1000000, 0, 0, 1000000000};
  int64_t ticks = digits < 0 ? 1 : per_second[digits];
  *to_ns = 1000000000 / ticks;
  *per_day = t == AM_DATE32 ? 1 : 86400 * ticks;
}

/* v's ticks into its day, by remainder: days * per_day overflows int64 below
 * the first day of the int64 range in nanoseconds (-106,752 * 86,400e9). */
static inline int64_t in_day(int64_t v, int64_t per_day) {
  int64_t r = v % per_day;
  return r < 0 ? r + per_day : r;
}

/* One loop per common unit: with per_day a constant its division becomes a
 * multiplication (10M timestamp[us] on one thread: year 79 -> 72 ms, month
 * 92 -> 67). */
#define FIELD_LOOP(T, PER_DAY)                                                                 \
  for (int64_t i = 0; i < length; i++) {                                                       \
    const int64_t v = ((const T *)data)[offset + i];                                           \
    const int64_t days = am_floor_div(v, PER_DAY);                                             \
    out[i] = am_field((int)op, days, in_day(v, PER_DAY) * to_ns, week_start, count_from_zero); \
  }

void am_temporal_field_values(am_temporal_field_op op, am_type type, const void *data,
                              int64_t offset, int64_t length, int week_start, int count_from_zero,
                              int64_t *out) {
  int64_t per_day, to_ns;
  am_temporal_split(type, &per_day, &to_ns);
  int narrow = am_type_storage(type) == AM_INT32;
  if (!narrow && per_day == 86400000000LL) { /* timestamp[us], pyarrow's default */
    FIELD_LOOP(int64_t, 86400000000LL)
    return;
  }
  if (!narrow && per_day == 86400000000000LL) {
    FIELD_LOOP(int64_t, 86400000000000LL)
    return;
  }
  if (!narrow && per_day == 86400000LL) { /* date64, timestamp[ms] */
    FIELD_LOOP(int64_t, 86400000LL)
    return;
  }
  for (int64_t i = 0; i < length; i++) {
    int64_t v = narrow ? ((const int32_t *)data)[offset + i] : ((const int64_t *)data)[offset + i];
    int64_t days = per_day == 1 ? v : am_floor_div(v, per_day);
    int64_t ns = per_day == 1 ? 0 : in_day(v, per_day) * to_ns;
    out[i] = am_field((int)op, days, ns, week_start, count_from_zero);
  }
}
