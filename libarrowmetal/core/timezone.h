/* Time zones (issue #13): the IANA zones of the system's compiled tz
 * database and Arrow's fixed offsets, read as pyarrow reads them, so that
 * local times agree with pyarrow's.
 *
 * A zone name is either a fixed offset ("+05:30", "-0800": Arrow's
 * LocateZone, hours below 24, minutes below 60) or the path of a TZif file
 * (RFC 8536, versions 1 to 4) under $TZDIR, else /usr/share/zoneinfo (where
 * pyarrow's vendored `date` library reads on Linux), with the entries that
 * library leaves out of its zone list refused (hidden ones, posix*, right,
 * Factory, the .tab/.zi/leap-second/version files). "UTC" is built in (no
 * file needed). A zone is loaded once per process, kept in a cache behind a
 * lock and never freed: a const am_tz * stays valid, and reading one is
 * thread-safe. A missing, malformed or refused zone is AM_EINVAL in
 * pyarrow's words: "Cannot locate or parse timezone 'X': X not found in
 * timezone database" (a TZif file that does not parse says why).
 *
 * The offsets follow the `date` library's reading of the file: the periods
 * of the 64-bit section, the time before the first transition in the first
 * type that is not daylight time, consecutive transitions to the same
 * offset, abbreviation and DST flag merged into one. Past the file's last
 * transition the footer's POSIX TZ rule applies (RFC 8536 section 3.3),
 * repeated every 400 years. Divergence: pyarrow's library ignores the
 * footer and keeps the last transition's offset for ever, so zones that
 * still change their clocks differ from pyarrow after the last transition
 * the file lists (2037 in Debian's "fat" files: pyarrow keeps winter time
 * from then on; the rule, and Python's zoneinfo, keep changing).
 *
 * Times here are seconds since the epoch: UTC instants, or local wall times
 * counted the same way (local - offset = UTC). The bulk functions take the
 * ticks of a unit (`per_second` of them a second) and look each value up by
 * its second, floored, as pyarrow does; their arithmetic wraps as pyarrow's
 * does on values whose local time leaves int64. */
#ifndef AM_CORE_TIMEZONE_H
#define AM_CORE_TIMEZONE_H

#include <stddef.h>
#include <stdint.h>

#include "arrowmetal.h"
#include "error.h"

typedef struct am_tz am_tz;

/* The zone `name`, loaded on first use; AM_EINVAL (pyarrow's message) when
 * there is none. Thread-safe. */
int am_tz_find(am_err *err, const char *name, const am_tz **out);

/* The name it was found by. */
const char *am_tz_name(const am_tz *tz);

/* Whether local time is UTC at every instant ("UTC", "Etc/GMT", "+00:00"):
 * then callers may skip the conversion. */
int am_tz_is_utc(const am_tz *tz);

/* A stretch of time with one offset: UTC seconds [begin, end), INT64_MIN /
 * INT64_MAX where unbounded. */
typedef struct am_tz_period {
  int64_t begin, end;
  int32_t offset;     /* seconds east of UTC: local = UTC + offset */
  int is_dst;         /* the TZif type's flag */
  const char *abbrev; /* "EST"; lives as long as the zone */
} am_tz_period;

/* The period holding UTC second `t`. */
void am_tz_period_at(const am_tz *tz, int64_t t, am_tz_period *out);

/* A local wall time's reading: one UTC instant (first), none (in the gap
 * between first and second: the clocks skipped it) or two (first the
 * earlier period, second the later: the clocks went back over it). The
 * `date` library's time_zone::get_info(local_time), step for step. */
typedef enum am_tz_local_kind { AM_TZ_UNIQUE, AM_TZ_NONEXISTENT, AM_TZ_AMBIGUOUS } am_tz_local_kind;
typedef struct am_tz_local {
  am_tz_local_kind kind;
  am_tz_period first, second; /* second: for the other two kinds */
} am_tz_local;

void am_tz_local_at(const am_tz *tz, int64_t local, am_tz_local *out);

/* A reader of many values of one zone that keeps the periods of its last
 * lookups: values near each other need no search. Each thread uses its own
 * (am_tz_reader_init). The values are ticks of a unit, `per_second` a
 * second (a constant where the caller's loop is compiled for one unit, so
 * that its divisions fold). UTC -> local (am_tz_reader_local) adds the
 * offset of the value's second, floored; local -> UTC (am_tz_reader_utc)
 * subtracts that of a unique local time and says which kind the local time
 * is, as pyarrow's to_sys does; both wrap as pyarrow's arithmetic on values
 * whose result leaves int64. */
typedef struct am_tz_reader {
  const am_tz *tz;
  am_tz_period utc;       /* the last UTC lookup's period */
  int64_t lo, hi, offset; /* local seconds [lo, hi) read uniquely at `offset` */
} am_tz_reader;

void am_tz_reader_init(am_tz_reader *r, const am_tz *tz);

/* The second of `ticks` (floored) and the wrapping sum of ticks and an
 * offset in seconds. */
static inline int64_t am_tz_second(int64_t ticks, int64_t per_second) {
  return per_second == 1 ? ticks : ticks / per_second - (ticks % per_second < 0);
}
static inline int64_t am_tz_shift(int64_t ticks, int64_t offset, int64_t per_second) {
  return (int64_t)((uint64_t)ticks + (uint64_t)offset * (uint64_t)per_second);
}

/* Look a second up (the slow paths of the two below). */
void am_tz_reader_find_utc(am_tz_reader *r, int64_t second);
am_tz_local_kind am_tz_reader_find_local(am_tz_reader *r, int64_t second, am_tz_local *info);

static inline int64_t am_tz_reader_local(am_tz_reader *r, int64_t utc, int64_t per_second) {
  const int64_t s = am_tz_second(utc, per_second);
  if (s < r->utc.begin || s >= r->utc.end) am_tz_reader_find_utc(r, s);
  return am_tz_shift(utc, r->utc.offset, per_second);
}

/* Local ticks -> UTC ticks in *utc when the local time is unique; else its
 * kind, with the periods in *info (*utc untouched). */
static inline am_tz_local_kind am_tz_reader_utc(am_tz_reader *r, int64_t local, int64_t per_second,
                                                int64_t *utc, am_tz_local *info) {
  const int64_t s = am_tz_second(local, per_second);
  if (s < r->lo || s >= r->hi) {
    am_tz_local_kind kind = am_tz_reader_find_local(r, s, info);
    if (kind != AM_TZ_UNIQUE) return kind;
  }
  *utc = am_tz_shift(local, -r->offset, per_second);
  return AM_TZ_UNIQUE;
}

/* UTC -> local: out[i] = in[i] + offset(floor(in[i] / per_second)) *
 * per_second, for every slot (null ones too: the caller keeps the
 * validity). `out` may be `in`. */
void am_tz_localize(const am_tz *tz, int64_t per_second, const int64_t *in, int64_t n,
                    int64_t *out);

/* Local -> UTC, as pyarrow's assume_timezone: a unique local time less its
 * offset; an ambiguous one by `ambiguous` (earliest: the earlier instant,
 * latest: the later), a nonexistent one by `nonexistent` (latest: the
 * instant the gap ends, earliest: one tick before it). Slots that are null
 * in `validity` (bit `bit_offset` + i; NULL: none) are copied as they are.
 * Returns -1, or the last valid slot that is ambiguous or nonexistent
 * with AM_ASSUME_RAISE (the one pyarrow's message names: each such slot
 * overwrites its kernel's status; out[i] is then in[i]). */
int64_t am_tz_to_utc(const am_tz *tz, int64_t per_second, const int64_t *in,
                     const uint8_t *validity, int64_t bit_offset, int64_t n,
                     am_assume_choice ambiguous, am_assume_choice nonexistent, int64_t *out);

/* The `date` library's words for local ticks `local` (its exception's
 * what(): "2015-03-08 02:30:00 is in a gap between\n2015-03-08 02:00:00 EST
 * and\n...", "... is ambiguous.  It could be\n..."; the time alone for a
 * unique one) into out[0, size), and which it is. Callers that refuse a
 * local time in other words than assume_timezone's (floor_temporal's
 * "Local time does not exist: ") prefix their own. */
am_tz_local_kind am_tz_describe_local(const am_tz *tz, int64_t per_second, int64_t local, char *out,
                                      size_t size);

/* AM_EINVAL with pyarrow's message for local ticks `local` that
 * am_tz_to_utc refused ("Timestamp doesn't exist in timezone 'X': 2015-03-08
 * 02:30:00 is in a gap between ...", "Timestamp is ambiguous in timezone
 * 'X': ..."), its fraction written in the unit's digits. */
int am_tz_refuse_local(am_err *err, const am_tz *tz, int64_t per_second, int64_t local);

#endif
