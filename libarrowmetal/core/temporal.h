/* The calendar of the temporal field extractions (year ... iso_year), once:
 * proleptic Gregorian dates from days since 1970-01-01 by 400-year eras
 * (146097 days each), and times of day by floored division, as pyarrow
 * computes them in UTC. Plain C on int64, so that the CPU compiles it and a
 * GPU kernel source can emit the same steps. */
#ifndef AM_CORE_TEMPORAL_H
#define AM_CORE_TEMPORAL_H

#include <stdint.h>

#include "arrowmetal.h"

/* Division rounded toward minus infinity (b > 0). */
static inline int64_t am_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return q - (a % b != 0 && a < 0);
}

/* Year, month (1-12) and day (1-31) of day number `days`. */
static inline void am_civil_of_days(int64_t days, int64_t *year, int64_t *month, int64_t *day) {
  int64_t z = days + 719468; /* days from 0000-03-01 */
  int64_t era = am_floor_div(z, 146097);
  int64_t doe = z - era * 146097;                                      /* [0, 146096] */
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* from March 1st */
  int64_t mp = (5 * doy + 2) / 153;                                    /* March = 0 */
  *day = doy - (153 * mp + 2) / 5 + 1;
  *month = mp < 10 ? mp + 3 : mp - 9;
  *year = yoe + era * 400 + (*month <= 2);
}

/* Day number of year-01-01. */
static inline int64_t am_days_of_new_year(int64_t year) {
  int64_t y = year - 1; /* the year before holds the previous March-February */
  int64_t era = am_floor_div(y, 400);
  int64_t yoe = y - era * 400;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + 306; /* Jan 1st is day 306 from March 1st */
  return era * 146097 + doe - 719468;
}

/* Monday 0 .. Sunday 6. */
static inline int64_t am_iso_weekday0(int64_t days) {
  return am_floor_div(days + 3, 7) * -7 + days + 3;
}

/* The ISO year and week of day number `days` (weeks start on Monday; week 1
 * holds the year's first Thursday). */
static inline void am_iso_week_of_days(int64_t days, int64_t *iso_year, int64_t *iso_week) {
  int64_t thursday = days - am_iso_weekday0(days) + 3;
  int64_t y, m, d;
  am_civil_of_days(thursday, &y, &m, &d);
  *iso_year = y;
  *iso_week = (thursday - am_days_of_new_year(y)) / 7 + 1;
}

/* out[i] = field `op` of slot offset + i of `data` (a temporal type's
 * storage, in host memory), for every slot, nulls too (whatever value they
 * hold). week_start and count_from_zero: DayOfWeekOptions. */
void am_temporal_field_values(am_temporal_field_op op, am_type type, const void *data,
                              int64_t offset, int64_t length, int week_start, int count_from_zero,
                              int64_t *out);

#endif
