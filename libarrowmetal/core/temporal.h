/* The calendar of the temporal field extractions (year ... iso_year), once:
 * proleptic Gregorian dates from day numbers (days since 1970-01-01) by
 * 400-year eras of 146097 days, ISO weeks from the week's Thursday, and the
 * time of day by floored division, in UTC as pyarrow computes them.
 *
 * The functions are macro text (AM_TEMPORAL_DEFS) that the CPU compiles as
 * C (core/temporal.c, DEVFN = static inline) and the kernel source turns
 * into CUDA and MSL text with AM_TEMPORAL_TEXT (gpu/kernel_source_temporal.c),
 * so both compute with the same steps. They use only am_i64 arithmetic and
 * return one value (no pointers: MSL would need address spaces). */
#ifndef AM_CORE_TEMPORAL_H
#define AM_CORE_TEMPORAL_H

#include <stdint.h>

#include "arrowmetal.h"

#define AM_TEMPORAL_STR(...) #__VA_ARGS__
#define AM_TEMPORAL_TEXT(...) AM_TEMPORAL_STR(__VA_ARGS__)

/* am_floor_div: a / b rounded toward minus infinity (b > 0).
 * am_civil: year (which 0), month 1-12 (1) or day 1-31 (2) of day number z.
 * am_new_year: the day number of January 1st of `year`.
 * am_weekday0: Monday 0 .. Sunday 6.
 * am_iso: the ISO year (which 0) or week (1) of a day: the year of its
 * week's Thursday, and the weeks since that year's first Thursday's week.
 * am_field: pyarrow's field `op` (am_temporal_field_op) of a value split
 * into its day number and the nanoseconds into that day; week_start and
 * count_from_zero are DayOfWeekOptions'. */
/* clang-format off */
#define AM_TEMPORAL_DEFS                                                                   \
  DEVFN am_i64 am_floor_div(am_i64 a, am_i64 b) {                                          \
    const am_i64 q = a / b;                                                                \
    return (a % b != 0 && a < 0) ? q - 1 : q;                                              \
  }                                                                                        \
  DEVFN am_i64 am_civil(am_i64 days, int which) {                                          \
    const am_i64 z = days + 719468;                                                        \
    const am_i64 era = am_floor_div(z, 146097);                                            \
    const am_i64 doe = z - era * 146097;                                                   \
    const am_i64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;              \
    const am_i64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                            \
    const am_i64 mp = (5 * doy + 2) / 153;                                                 \
    const am_i64 month = mp < 10 ? mp + 3 : mp - 9;                                        \
    if (which == 1) return month;                                                          \
    if (which == 2) return doy - (153 * mp + 2) / 5 + 1;                                   \
    return yoe + era * 400 + (month <= 2 ? 1 : 0);                                         \
  }                                                                                        \
  DEVFN am_i64 am_new_year(am_i64 year) {                                                  \
    const am_i64 y = year - 1;                                                             \
    const am_i64 era = am_floor_div(y, 400);                                               \
    const am_i64 yoe = y - era * 400;                                                      \
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + 306 - 719468;                  \
  }                                                                                        \
  DEVFN am_i64 am_weekday0(am_i64 days) { return days + 3 - am_floor_div(days + 3, 7) * 7; } \
  DEVFN am_i64 am_iso(am_i64 days, int which) {                                            \
    const am_i64 thursday = days - am_weekday0(days) + 3;                                  \
    const am_i64 year = am_civil(thursday, 0);                                             \
    return which == 0 ? year : (thursday - am_new_year(year)) / 7 + 1;                     \
  }                                                                                        \
  DEVFN am_i64 am_field(int op, am_i64 days, am_i64 ns, int week_start, int count_from_zero) { \
    switch (op) {                                                                          \
      case 0: return am_civil(days, 0);                                                    \
      case 1: return am_civil(days, 1);                                                    \
      case 2: return am_civil(days, 2);                                                    \
      case 3: return (am_weekday0(days) + 8 - week_start) % 7 + (count_from_zero ? 0 : 1); \
      case 4: return days - am_new_year(am_civil(days, 0)) + 1;                            \
      case 5: return ns / 3600000000000;                                                   \
      case 6: return ns / 60000000000 % 60;                                                \
      case 7: return ns / 1000000000 % 60;                                                 \
      case 8: return ns / 1000000 % 1000;                                                  \
      case 9: return ns / 1000 % 1000;                                                     \
      case 10: return ns % 1000;                                                           \
      case 11: return (am_civil(days, 1) - 1) / 3 + 1;                                     \
      case 12: return am_iso(days, 1);                                                     \
      default: return am_iso(days, 0);                                                     \
    }                                                                                      \
  }
/* clang-format on */

/* The same calendar as functions, for host code (core/timezone.c, tzif.c):
 * the year, month (1-12) and day (1-31) of day number `days`; the day
 * number of a date (any year, month 1-12, day 1-31); the weekday of a day
 * number, Monday 0 .. Sunday 6. */
void am_calendar_civil(int64_t days, int64_t *year, int *month, int *day);
int64_t am_calendar_days(int64_t year, int month, int day);
int am_calendar_weekday(int64_t days);

/* How a value of temporal type `t` splits into days and nanoseconds:
 * value = days * per_day + rest, rest * to_ns nanoseconds (per_day 1 for
 * date32). A time splits as a timestamp of its unit: a value outside the
 * day is read as its time of day (floored), as pyarrow's hour() ...
 * nanosecond() read it, and the nanoseconds stay within a day. */
void am_temporal_split(am_type t, int64_t *per_day, int64_t *to_ns);

/* out[i] = field `op` of slot offset + i of `data` (a temporal type's
 * storage, in host memory), for every slot, nulls too (whatever value they
 * hold). week_start and count_from_zero: DayOfWeekOptions. */
void am_temporal_field_values(am_temporal_field_op op, am_type type, const void *data,
                              int64_t offset, int64_t length, int week_start, int count_from_zero,
                              int64_t *out);

#endif
