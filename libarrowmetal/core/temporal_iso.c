/* Arrow C++'s ISO-8601 reading and its plain writing of temporal values
 * (temporal_text.h), step by step as arrow/util/value_parsing.h and
 * formatting.h take them, so that the texts that read, the offsets found
 * (even in a text that then fails) and the ranges written match. */
#include <stdio.h>
#include <string.h>

#include "temporal_text.h"

static const int64_t ticks_per_second[10] = {1, 0, 0, 1000, 0, 0, 1000000, 0, 0, 1000000000};

/* n decimal digits at s, and nothing else */
static int read_digits(const uint8_t *s, int n, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (unsigned)(s[i] - '0');
  }
  *out = v;
  return 1;
}

static unsigned last_day(unsigned year, unsigned month) {
  static const unsigned char days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  return month == 2 && leap ? 29 : days[month - 1];
}

/* "YYYY-MM-DD" at s (10 bytes there) */
static int read_date(const uint8_t *s, int64_t *days) {
  unsigned y, m, d;
  if (s[4] != '-' || s[7] != '-') return 0;
  if (!read_digits(s, 4, &y) || !read_digits(s + 5, 2, &m) || !read_digits(s + 8, 2, &d)) return 0;
  if (m < 1 || m > 12 || d < 1 || d > last_day(y, m)) return 0;
  *days = am_days_from_civil(y, m, d);
  return 1;
}

/* "hh", "hh:mm", "hhmm", "hh:mm:ss" as seconds (hours below 24, minutes
 * and seconds below 60) */
static int read_hh(const uint8_t *s, int64_t *seconds) {
  unsigned h;
  if (!read_digits(s, 2, &h) || h >= 24) return 0;
  *seconds = 3600 * (int64_t)h;
  return 1;
}

static int read_hh_mm(const uint8_t *s, int colon, int64_t *seconds) {
  unsigned h, m;
  if (colon && s[2] != ':') return 0;
  if (!read_digits(s, 2, &h) || !read_digits(s + 2 + colon, 2, &m) || h >= 24 || m >= 60) return 0;
  *seconds = 3600 * (int64_t)h + 60 * (int64_t)m;
  return 1;
}

static int read_hh_mm_ss(const uint8_t *s, int64_t *seconds) {
  unsigned sec;
  if (s[5] != ':' || !read_hh_mm(s, 1, seconds) || !read_digits(s + 6, 2, &sec) || sec >= 60)
    return 0;
  *seconds += sec;
  return 1;
}

/* seconds * 10^digits + fraction, 0 when it leaves int64 */
static int in_unit(int64_t seconds, int64_t fraction, int digits, int64_t *out) {
  int64_t v;
  if (__builtin_mul_overflow(seconds, ticks_per_second[digits], &v)) return 0;
  return !__builtin_add_overflow(v, fraction, out);
}

int am_iso_parse_timestamp(const uint8_t *s, int64_t n, int digits, int64_t *out, int *zone) {
  *zone = 0;
  int64_t days;
  if (n < 10 || !read_date(s, &days)) return 0;
  int64_t seconds = days * 86400;
  if (n == 10) return in_unit(seconds, 0, digits, out);
  if (s[10] != ' ' && s[10] != 'T') return 0;
  /* the offset, found from the end as Arrow looks for it */
  int64_t len = n, offset = 0;
  if (s[len - 1] == 'Z') {
    len--;
    *zone = 1;
  } else if (s[len - 3] == '+' || s[len - 3] == '-') {
    len -= 3;
    if (!read_hh(s + len + 1, &offset)) return 0;
    *zone = 1;
  } else if (s[len - 5] == '+' || s[len - 5] == '-') {
    len -= 5;
    if (!read_hh_mm(s + len + 1, 0, &offset)) return 0;
    *zone = 1;
  } else if ((s[len - 6] == '+' || s[len - 6] == '-') && s[len - 3] == ':') {
    len -= 6;
    if (!read_hh_mm(s + len + 1, 1, &offset)) return 0;
    *zone = 1;
  }
  if (*zone && s[len] == '+') offset = -offset; /* to UTC */
  int64_t of_day;
  if (len == 13) {
    if (!read_hh(s + 11, &of_day)) return 0;
  } else if (len == 16) {
    if (!read_hh_mm(s + 11, 1, &of_day)) return 0;
  } else if (len == 19 || (len >= 21 && len <= 29)) {
    if (!read_hh_mm_ss(s + 11, &of_day)) return 0;
  } else {
    return 0;
  }
  seconds += of_day + offset;
  if (len <= 19) return in_unit(seconds, 0, digits, out);
  /* a fraction of 1 to `digits` digits */
  const int count = (int)len - 20;
  unsigned fraction;
  if (s[19] != '.' || count > digits || !read_digits(s + 20, count, &fraction)) return 0;
  int64_t scaled = fraction;
  for (int i = count; i < digits; i++) scaled *= 10;
  return in_unit(seconds, scaled, digits, out);
}

int am_iso_parse_date(const uint8_t *s, int64_t n, int64_t *days) {
  return n == 10 && read_date(s, days);
}

/* ---- writing */

/* Arrow writes dates of the years -32767 to 32767 (the `date` library's
 * range) and refuses the others; these are its day numbers' bounds. */
#define MIN_DAY (-12687428)
#define END_DAY 11248738

static int out_of_range(int64_t v, char *text) {
  return snprintf(text, AM_TEMPORAL_TEXT_MAX, "<value out of range: %lld>", (long long)v);
}

static const char pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static char *two(char *p, uint32_t v) {
  memcpy(p, pairs + 2 * v, 2);
  return p + 2;
}

/* "YYYY-MM-DD" of day number `days` (within the years +-32767: a year of 4
 * or 5 digits, '-' before a negative one), as FormatYYYY_MM_DD; the day's
 * parts in 32 bits, where the divisions by constants are cheapest */
static char *write_date(char *p, int64_t days) {
  const int32_t z = (int32_t)(days + 719468);
  const int32_t era = (z >= 0 ? z : z - 146096) / 146097;
  const uint32_t doe = (uint32_t)(z - era * 146097);
  const uint32_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const uint32_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const uint32_t mp = (5 * doy + 2) / 153;
  const uint32_t day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
  const int32_t signed_year = (int32_t)yoe + era * 400 + (month <= 2);
  if (signed_year < 0) *p++ = '-';
  const uint32_t year = (uint32_t)(signed_year < 0 ? -signed_year : signed_year);
  if (year >= 10000) *p++ = (char)('0' + year / 10000);
  p = two(p, year / 100 % 100);
  p = two(p, year % 100);
  *p++ = '-';
  p = two(p, month);
  *p++ = '-';
  return two(p, day);
}

/* "hh:mm:ss[.fff]" of second `s` of the day and `fraction` (digits of it) */
static char *write_time(char *p, uint32_t s, uint32_t fraction, int digits) {
  p = two(p, s / 3600);
  *p++ = ':';
  p = two(p, s / 60 % 60);
  *p++ = ':';
  p = two(p, s % 60);
  if (digits) {
    *p++ = '.';
    int i = digits;
    if (digits & 1) p[--i] = (char)('0' + fraction % 10), fraction /= 10;
    for (; i > 0; i -= 2, fraction /= 100) memcpy(p + i - 2, pairs + 2 * (fraction % 100), 2);
    p += digits;
  }
  return p;
}

/* The text of a timestamp of PER ticks a second (a constant in each use,
 * so its divisions are multiplications) */
#define FORMAT_TIMESTAMP(PER, DIGITS)                                                \
  do {                                                                               \
    const int64_t per_day = 86400 * (int64_t)(PER);                                  \
    /* in nanoseconds every int64 is within the years (Arrow skips the check) */     \
    if ((DIGITS) < 9 && (v < MIN_DAY * per_day || v >= END_DAY * per_day))           \
      return out_of_range(v, text);                                                  \
    /* floor division (days * per_day overflows in ns below day -106,751) */         \
    int64_t days = v / per_day, rest = v % per_day;                                  \
    if (rest < 0) days--, rest += per_day;                                           \
    char *p = write_date(text, days);                                                \
    *p++ = ' ';                                                                      \
    p = write_time(p, (uint32_t)(rest / (PER)), (uint32_t)(rest % (PER)), (DIGITS)); \
    return (int)(p - text);                                                          \
  } while (0)

int am_iso_format_timestamp(int64_t v, int digits, char *text) {
  switch (digits) {
    case 0:
      FORMAT_TIMESTAMP(1, 0);
    case 3:
      FORMAT_TIMESTAMP(1000, 3);
    case 6:
      FORMAT_TIMESTAMP(1000000, 6);
    default:
      FORMAT_TIMESTAMP(1000000000, 9);
  }
}

int am_iso_format_date32(int64_t days, char *text) {
  if (days < MIN_DAY || days >= END_DAY) return out_of_range(days, text);
  return (int)(write_date(text, days) - text);
}

int am_iso_format_date64(int64_t ms, char *text) {
  const int64_t per_day = 86400000;
  if (ms < MIN_DAY * per_day || ms >= END_DAY * per_day) return out_of_range(ms, text);
  return (int)(write_date(text, ms / per_day) - text); /* the day toward zero, as Arrow */
}

int am_iso_format_time(int64_t v, int digits, char *text) {
  const int64_t per = ticks_per_second[digits];
  if (v < 0 || v >= 86400 * per) return out_of_range(v, text);
  return (int)(write_time(text, (uint32_t)(v / per), (uint32_t)(v % per), digits) - text);
}
