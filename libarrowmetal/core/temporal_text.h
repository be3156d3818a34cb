/* Temporal values as text, as pyarrow reads and writes them.
 *
 * Three sources of pyarrow's behaviour, each reproduced in its own file:
 *  - temporal_iso.c: Arrow C++'s ISO-8601 reader of the string casts
 *    (ParseTimestampISO8601, the dates' YYYY-MM-DD) and its range-checked
 *    writer of the casts to strings (StringFormatter: timestamps without a
 *    time zone, dates, times);
 *  - strftime.c: the `date` library's to_stream, which pyarrow's strftime
 *    and its cast of a zoned timestamp to a string run ("%Y-%m-%d %H:%M:%SZ"
 *    in UTC, else "...%S%z"), its integer wraps included (days in 32 bits,
 *    years in 16);
 *  - strptime.c: glibc's strptime, which pyarrow's strptime calls on Linux,
 *    and Arrow's reading of the struct tm it fills.
 * Values are integers of a unit of 10^-digits seconds (digits 0, 3, 6, 9). */
#ifndef AM_CORE_TEMPORAL_TEXT_H
#define AM_CORE_TEMPORAL_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Day number (days since 1970-01-01) of a proleptic Gregorian date, by the
 * `date` library's formula (which also takes months past 12 and days past
 * the month's end, counting on: strptime.c relies on it). */
static inline int64_t am_days_from_civil(int64_t year, unsigned month, unsigned day) {
  const int64_t y = year - (month <= 2);
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = (unsigned)(y - era * 400);
  const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

/* ---- temporal_iso.c */

/* s[0, n) read as the string-to-timestamp cast reads it: "YYYY-MM-DD",
 * then ' ' or 'T' and "hh", "hh:mm" or "hh:mm:ss" with up to `digits`
 * fraction digits, then "Z", "+hh", "+hhmm" or "+hh:mm" (or '-'), which
 * converts to UTC. *zone tells whether an offset was read (set as Arrow sets
 * it, also when the text fails after it). 0 when it does not read or the
 * value leaves int64 in the unit. */
int am_iso_parse_timestamp(const uint8_t *s, int64_t n, int digits, int64_t *out, int *zone);

/* s[0, n) as exactly "YYYY-MM-DD" (a valid date): its day number. */
int am_iso_parse_date(const uint8_t *s, int64_t n, int64_t *days);

/* The longest text the writers below and strftime's bound produce for one
 * directive. */
#define AM_TEMPORAL_TEXT_MAX 64

/* Arrow's writers (text: AM_TEMPORAL_TEXT_MAX bytes; returns the length):
 * "2020-01-01 12:00:00[.fff]" of a timestamp without a time zone, the days
 * of a date32, the milliseconds of a date64 (its day truncated toward
 * zero), "12:00:00[.fff]" of a time; a value beyond the years -32767 to
 * 32767 (a time outside 0 to 24 h) is "<value out of range: V>". */
int am_iso_format_timestamp(int64_t v, int digits, char *text);
int am_iso_format_date32(int64_t days, char *text);
int am_iso_format_date64(int64_t ms, char *text);
int am_iso_format_time(int64_t v, int digits, char *text);

/* ---- strftime.c */

/* Whether `format` uses only what am_strftime_format writes: text, %%, and
 * %a %A %b %B %h %C %d %e %D %F %H %I %j %m %M %n %t %p %R %S %T %u %w %y %Y
 * %z %Z (letters `date` does not know, like %s or %f, stay as they are, as
 * there); the others (%c %x %X %r %g %G %U %V %W %Q %q, the E and O
 * modifiers) are not. */
int am_strftime_supported(const char *format);

/* The most bytes am_strftime_format writes for one value. */
int64_t am_strftime_bound(const char *format);

/* The zone of a value: its offset from UTC in seconds (local = UTC +
 * offset) and its abbreviation (%Z; "UTC" for values without a zone). */
#define AM_STRFTIME_ABBREV_MAX 32
typedef struct am_strftime_zone {
  int32_t offset;
  const char *abbrev;
} am_strftime_zone;

/* `format` applied to value v (10^-digits seconds since the epoch, UTC) in
 * `zone` into text (am_strftime_bound bytes); the length, or -1 where the
 * `date` library fails the stream (a year it holds as -32768; a date it
 * finds invalid, for %a %A %u %w %D %F), which pyarrow reports as an
 * error. */
int64_t am_strftime_format(const char *format, int64_t v, int digits, const am_strftime_zone *zone,
                           char *text);

/* pyarrow's error for such a value (the C++ stream's exception, as
 * libstdc++ words it). */
#define AM_STRFTIME_FAILURE "Failed formatting timestamp: basic_ios::clear: iostream error"

/* ---- strptime.c */

/* Whether `format` uses only what am_strptime_parse reads: text, white
 * space, %% and %Y %y %C %m %d %e %j %H %I %M %S %p %b %B %h %a %A %z %Z %n
 * %t %F %T %D %R (strftime's flags and widths after '%' are skipped, as
 * glibc skips them); not %s (the process's local time), %U %W %u %w %c %x
 * %X %r %g %G %V nor the E and O modifiers. */
int am_strptime_supported(const char *format);

/* Whether a format makes strptime's results zoned (UTC): it has "%z". */
int am_strptime_zoned(const char *format);

/* s[0, n) read with `format` as pyarrow's strptime does on Linux (glibc's
 * strptime, the whole text consumed, then the struct's date and time less
 * its UTC offset): 10^-digits seconds since the epoch; 0 when it does not
 * read or leaves int64. */
int am_strptime_parse(const char *format, const uint8_t *s, int64_t n, int digits, int64_t *out);

#endif
