/* strftime as pyarrow runs it: the `date` library's to_stream over a UTC
 * time (temporal_text.h), in the C locale.
 *
 * The value's fields are computed as `date` computes them, wraps included:
 * the day is the value truncated to a 32-bit count of days (then one less
 * when that passes the value), the time of day what remains (which, after a
 * wrap, can be any number of hours, or negative: "-" before the first
 * %H/%I/%M/%S), and the year of that day a 16-bit integer. Past an int64
 * wrap of the time of day, the compiled library (which assumes none) divides
 * it as unsigned and leaves its sign clear; so does this file. So the far
 * timestamps that pyarrow writes as "-23901-10-13 438292822622229:33:09"
 * come out the same. Each directive then writes what `date` writes: its
 * fill and width rules ("00-5" for the year -5 under %F, "-0005" under %Y),
 * and the C locale's names through %a %A %b %B %p; the local time is the
 * value plus its zone's offset, which %z writes in minutes and %Z by its
 * abbreviation. Where `date` fails the
 * stream (a year held as -32768; a date it finds invalid after the wraps,
 * for %a %A %u %w %D %F), the value has no text (-1). */
#include <stdint.h>
#include <string.h>

#include "temporal_text.h"

static const int64_t ticks_per_second[10] = {1, 0, 0, 1000, 0, 0, 1000000, 0, 0, 1000000000};

static const char *const weekday_names[7] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                             "Thursday", "Friday", "Saturday"};
static const char *const month_names[12] = {"January",   "February", "March",    "April",
                                            "May",       "June",     "July",     "August",
                                            "September", "October",  "November", "December"};

/* A value's fields as `date` holds them. */
typedef struct {
  int32_t day_number; /* the 32-bit day count the date was made from */
  int16_t year;
  unsigned month, day;
  int negative;                    /* the time of day's own sign (%T) */
  int insert_negative;             /* the '-' before the first %H %I %M %S */
  int64_t hours, minutes, seconds; /* of its absolute value */
  int64_t subseconds;
  int64_t time_of_day, per_day; /* the signed time of day, in ticks */
  int digits;
} fields;

static int is_leap(int y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

static unsigned last_day(int y, unsigned month) {
  static const unsigned char days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(y) ? 29 : days[month - 1];
}

/* 32-bit arithmetic that wraps, as the compiled library's int does */
static int32_t wrap32(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }

static void civil(int32_t day_number, fields *f) {
  const int32_t z = wrap32((int64_t)day_number + 719468);
  const int32_t era = (z >= 0 ? z : wrap32((int64_t)z - 146096)) / 146097;
  const uint32_t doe = (uint32_t)wrap32((int64_t)z - (int64_t)era * 146097);
  const uint32_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int32_t y = wrap32((int64_t)yoe + (int64_t)era * 400);
  const uint32_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const uint32_t mp = (5 * doy + 2) / 153;
  f->day = doy - (153 * mp + 2) / 5 + 1;
  f->month = mp < 10 ? mp + 3 : mp - 9;
  f->year = (int16_t)(uint16_t)(uint32_t)wrap32((int64_t)y + (f->month <= 2));
}

static void split(int64_t v, int digits, fields *f) {
  const int64_t per = ticks_per_second[digits], per_day = 86400 * per;
  /* time_point_cast<days>: toward zero, then narrowed to int */
  int32_t day = wrap32(v / per_day);
  /* no overflow: a day count wraps only in s and ms, where 2^31 days fit */
  const int64_t start = (int64_t)day * per_day;
  uint64_t tod;
  int known_positive;
  if (start <= v) {
    /* tp - ld, which the compiled library takes as known not negative: past
     * an int64 wrap its divisions are unsigned and its sign flag clear */
    tod = (uint64_t)v - (uint64_t)start;
    known_positive = 1;
  } else {
    day = wrap32((int64_t)day - 1);
    tod = (uint64_t)per_day - ((uint64_t)start - (uint64_t)v);
    known_positive = 0;
  }
  const int64_t t = (int64_t)tod;
  f->day_number = day;
  civil(day, f);
  f->negative = !known_positive && t < 0;
  f->insert_negative = t < 0; /* hours + minutes + seconds, in int64, below zero */
  const uint64_t a = f->negative ? (uint64_t)0 - tod : tod;
  f->hours = (int64_t)(a / (uint64_t)(3600 * per));
  f->minutes = (int64_t)(a / (uint64_t)(60 * per)) - f->hours * 60;
  const int64_t rest = (int64_t)(a - (uint64_t)(f->hours * 3600 + f->minutes * 60) * (uint64_t)per);
  f->seconds = rest / per;
  f->subseconds = rest % per;
  f->time_of_day = t;
  f->per_day = per_day;
  f->digits = digits;
}

static int ymd_ok(const fields *f) {
  return f->year != -32768 && f->day >= 1 && f->day <= last_day(f->year, f->month);
}

/* Sunday 0 ... Saturday 6 of the date's fields, as `date` derives it */
static int weekday(const fields *f) {
  const int64_t z = am_days_from_civil(f->year, f->month, f->day);
  return (int)(z >= -4 ? (z + 4) % 7 : (z + 5) % 7 + 6);
}

/* ---- writing with an ostream's fill, width and adjustment */

typedef struct {
  char *p;
} out;

static void put(out *o, const char *s, size_t n) {
  memcpy(o->p, s, n);
  o->p += n;
}

static void put_char(out *o, char c) { *o->p++ = c; }

/* v in decimal, padded to `width` with `fill`: before the sign (right
 * adjustment) or after it (internal) */
static void put_int(out *o, int64_t v, int width, char fill, int internal) {
  char d[24];
  int n = 0;
  uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do d[n++] = (char)('0' + a % 10);
  while ((a /= 10) != 0);
  const int length = n + (v < 0);
  if (v < 0 && internal) put_char(o, '-');
  for (int i = length; i < width; i++) put_char(o, fill);
  if (v < 0 && !internal) put_char(o, '-');
  while (n) put_char(o, d[--n]);
}

/* `date`'s "if (x < 10) os << '0'; os << x" */
static void put_two(out *o, int64_t v) {
  if (v < 10) put_char(o, '0');
  put_int(o, v, 0, ' ', 0);
}

static void put_seconds(out *o, const fields *f) {
  put_two(o, f->seconds);
  if (f->digits) {
    put_char(o, '.');
    put_int(o, f->subseconds, f->digits, '0', 0);
  }
}

static void put_name(out *o, const char *name, int abbreviated) {
  put(o, name, abbreviated ? 3 : strlen(name));
}

/* The `date` directives this file writes (and the ones it refuses, which
 * `date` knows but prints otherwise). */
static int written(char c) { return c && strchr("aAbBhCdeDFHIjmMnptRSTuwyYzZ%", c) != NULL; }
static int refused(char c) { return c && strchr("cxXrgGUVWQqEO", c) != NULL; }

int am_strftime_supported(const char *format) {
  for (const char *p = format; *p; p++) {
    if (*p != '%') continue;
    if (refused(p[1])) return 0;
    if (written(p[1])) p++;
  }
  return 1;
}

/* The longest text of directive c */
static int64_t longest(char c) {
  switch (c) {
    case 'a':
    case 'A':
    case 'b':
    case 'B':
    case 'h':
      return 9; /* Wednesday, September */
    case 'H':
    case 'I':
    case 'M':
    case 'C':
      return 22;
    case 'S':
      return 24 + 11;
    case 'T':
      return 1 + 22 + 1 + 22 + 1 + 24 + 11;
    case 'R':
      return 22 + 1 + 22;
    case 'D':
      return 2 + 1 + 2 + 1 + 3;
    case 'F':
      return 6 + 1 + 2 + 1 + 2;
    case 'Y':
      return 6;
    case 'z':
      return 5;
    case 'Z':
      return AM_STRFTIME_ABBREV_MAX;
    default:
      return 3;
  }
}

int64_t am_strftime_bound(const char *format) {
  int64_t n = 0;
  for (const char *p = format; *p; p++) {
    if (*p == '%' && written(p[1])) {
      n += longest(*++p);
    } else {
      n += 1;
    }
  }
  return n;
}

int64_t am_strftime_format(const char *format, int64_t v, int digits, const am_strftime_zone *zone,
                           char *text) {
  /* the local time: the zone's offset added in the unit, wrapping as
   * pyarrow's int64 arithmetic does */
  const int64_t per = ticks_per_second[digits];
  const int64_t local = (int64_t)((uint64_t)v + (uint64_t)((int64_t)zone->offset * per));
  fields f;
  split(local, digits, &f);
  int insert_negative = f.insert_negative;
  out o = {text};
  for (const char *p = format; *p; p++) {
    if (*p != '%' || !written(p[1])) { /* text, and '%' before what `date` leaves */
      put_char(&o, *p);
      continue;
    }
    const char c = *++p;
    if (strchr("HIMS", c) && insert_negative) {
      put_char(&o, '-');
      insert_negative = 0;
    }
    switch (c) {
      case 'a':
      case 'A':
      case 'u':
      case 'w': {
        if (!ymd_ok(&f)) return -1;
        const int wd = weekday(&f);
        if (c == 'u')
          put_int(&o, wd ? wd : 7, 0, ' ', 0);
        else if (c == 'w')
          put_int(&o, wd, 0, ' ', 0);
        else
          put_name(&o, weekday_names[wd], c == 'a');
        break;
      }
      case 'b':
      case 'B':
      case 'h':
        put_name(&o, month_names[f.month - 1], c != 'B');
        break;
      case 'C':
        if (f.year == -32768) return -1;
        if (f.year >= 0) {
          put_int(&o, f.year / 100, 2, '0', 0);
        } else {
          put_char(&o, '-');
          put_int(&o, -(f.year - 99) / 100, 2, '0', 0);
        }
        break;
      case 'd':
      case 'e':
        put_int(&o, f.day, 2, c == 'd' ? '0' : ' ', 0);
        break;
      case 'D':
        if (!ymd_ok(&f)) return -1;
        put_int(&o, f.month, 2, '0', 0);
        put_char(&o, '/');
        put_int(&o, f.day, 2, '0', 0);
        put_char(&o, '/');
        put_int(&o, f.year % 100, 2, '0', 0);
        break;
      case 'F':
        if (!ymd_ok(&f)) return -1;
        put_int(&o, f.year, 4, '0', 0);
        put_char(&o, '-');
        put_int(&o, f.month, 2, '0', 0);
        put_char(&o, '-');
        put_int(&o, f.day, 2, '0', 0);
        break;
      case 'H':
        put_two(&o, f.hours);
        break;
      case 'I': {
        const int64_t h =
            f.hours < 12 ? (f.hours == 0 ? 12 : f.hours) : (f.hours == 12 ? 12 : f.hours - 12);
        put_two(&o, h);
        break;
      }
      case 'j': { /* of the date, or when `date` finds it invalid, the time's days */
        const int64_t doy = ymd_ok(&f) ? am_days_from_civil(f.year, f.month, f.day) -
                                             am_days_from_civil(f.year, 1, 1) + 1
                                       : f.time_of_day / f.per_day;
        put_int(&o, doy, 3, '0', 0);
        break;
      }
      case 'm':
        put_two(&o, f.month);
        break;
      case 'M':
        put_two(&o, f.minutes);
        break;
      case 'n':
        put_char(&o, '\n');
        break;
      case 't':
        put_char(&o, '\t');
        break;
      case 'p': /* the C locale's, from the hours as an int */
        put(&o, (int32_t)(uint32_t)(uint64_t)f.hours > 11 ? "PM" : "AM", 2);
        break;
      case 'R':
        put_two(&o, f.hours);
        put_char(&o, ':');
        put_two(&o, f.minutes);
        break;
      case 'S':
        put_seconds(&o, &f);
        break;
      case 'T': /* the time of day's own text: its sign, whatever %H took */
        if (f.negative) put_char(&o, '-');
        put_two(&o, f.hours);
        put_char(&o, ':');
        put_two(&o, f.minutes);
        put_char(&o, ':');
        put_seconds(&o, &f);
        break;
      case 'y':
        if (f.year == -32768) return -1;
        put_int(&o, (f.year < 0 ? -f.year : f.year) % 100, 2, '0', 0);
        break;
      case 'Y':
        if (f.year == -32768) return -1;
        put_int(&o, f.year, 4 + (f.year < 0), '0', 1);
        break;
      case 'z': { /* the offset in whole minutes, toward zero: "-0456" */
        const int32_t minutes = zone->offset / 60;
        const int32_t m = minutes < 0 ? -minutes : minutes;
        put_char(&o, minutes < 0 ? '-' : '+');
        put_int(&o, m / 60, 2, '0', 0);
        put_int(&o, m % 60, 2, '0', 0);
        break;
      }
      case 'Z': {
        const size_t n = strlen(zone->abbrev);
        put(&o, zone->abbrev, n < AM_STRFTIME_ABBREV_MAX ? n : AM_STRFTIME_ABBREV_MAX);
        break;
      }
      default: /* '%' */
        put_char(&o, '%');
    }
  }
  return o.p - text;
}
