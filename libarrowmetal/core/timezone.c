/* Time zones (core/timezone.h): finding and caching zones, the period of an
 * instant, the `date` library's reading of a local time, and the bulk
 * conversions with pyarrow's messages. The files are read by core/tzif.c. */
#include "timezone.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "temporal.h"
#include "tzif.h"

#define DAY 86400
/* Local times this far inside a period read as that period alone (offsets
 * of one zone differ by less: RFC 8536 bounds them to [-89999, 93599]). */
#define MARGIN (3 * DAY)
/* TZif files are a few kilobytes; anything past this is not one. */
#define MAX_FILE (1 << 20)
#define MAX_NAME 255

/* ---- arithmetic that wraps (as pyarrow's does) or saturates ----------------------------- */

static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}
/* a / b rounded toward minus infinity (b > 0). */
static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b < 0); }
static int64_t sat_sub(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_sub_overflow(a, b, &r) ? (b < 0 ? INT64_MAX : INT64_MIN) : r;
}

/* ---- the cache ---------------------------------------------------------------------------- */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct am_tz *cache;

/* Two decimal digits at s. */
static int two(const char *s, int *v) {
  if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9') return 0;
  *v = (s[0] - '0') * 10 + (s[1] - '0');
  return 1;
}

/* HH:MM (colon) or HHMM at s, hours below 24, minutes below 60 (Arrow's
 * ParseHH_MM, ParseHHMM). */
static int hours_minutes(const char *s, int colon, int32_t *seconds) {
  int h, m;
  if (!two(s, &h) || (colon && s[2] != ':') || !two(s + 2 + colon, &m) || h >= 24 || m >= 60)
    return 0;
  *seconds = h * 3600 + m * 60;
  return 1;
}

/* Arrow's LocateZone of a name starting with '+' or '-': 6 characters read
 * as "+HH:MM", else (Arrow's switch falls through) as "+HHMM" from their
 * first digits; 5 characters as "+HHMM". */
static int fixed_offset(const char *name, int32_t *offset) {
  size_t n = strlen(name);
  int32_t seconds;
  if (!((n == 6 && hours_minutes(name + 1, 1, &seconds)) ||
        ((n == 6 || n == 5) && hours_minutes(name + 1, 0, &seconds))))
    return 0;
  *offset = name[0] == '-' ? -seconds : seconds;
  return 1;
}

/* The `date` library's zone list leaves these entries out (its
 * init_tzdb), and nothing hidden or above the directory is a zone. */
static int listed(const char *name) {
  static const char *const left_out[] = {
      "Factory",      "iso3166.tab", "right",     "+VERSION",    "version",          "zone.tab",
      "zone1970.tab", "zonenow.tab", "tzdata.zi", "leapseconds", "leap-seconds.list"};
  if (!*name || strlen(name) > MAX_NAME) return 0;
  for (const char *part = name; part;) {
    const char *slash = strchr(part, '/');
    size_t n = slash ? (size_t)(slash - part) : strlen(part);
    if (n == 0 || part[0] == '.' || strncmp(part, "posix", 5) == 0) return 0;
    for (size_t i = 0; i < sizeof left_out / sizeof left_out[0]; i++)
      if (strlen(left_out[i]) == n && strncmp(part, left_out[i], n) == 0) return 0;
    part = slash ? slash + 1 : NULL;
  }
  return 1;
}

static const char *database(void) {
  const char *dir = getenv("TZDIR");
  return dir && *dir ? dir : "/usr/share/zoneinfo";
}

static int not_found(am_err *err, const char *name, const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return am_fail(err, AM_EINVAL,
                   "Cannot locate or parse timezone '%s': %s not found in timezone database "
                   "(there is none at %s: install tzdata, or set TZDIR)",
                   name, name, dir);
  return am_fail(err, AM_EINVAL,
                 "Cannot locate or parse timezone '%s': %s not found in timezone database", name,
                 name);
}

/* Reads and parses the TZif file of `name`. */
static int load(am_err *err, const char *name, struct am_tz **out) {
  if (strcmp(name, "UTC") == 0) {
    *out = am_tzif_fixed(name, 0, "UTC");
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory loading time zone '%s'", name);
  }
  if (name[0] == '+' || name[0] == '-') {
    int32_t offset;
    if (!fixed_offset(name, &offset))
      return am_fail(err, AM_EINVAL, "Cannot locate or parse timezone '%s'", name);
    *out = am_tzif_fixed(name, offset, name);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory loading time zone '%s'", name);
  }
  const char *dir = database();
  if (!listed(name)) return not_found(err, name, dir);
  char path[4096];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
    return not_found(err, name, dir);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) close(fd);
    return not_found(err, name, dir);
  }
  if (st.st_size > MAX_FILE) {
    close(fd);
    return am_fail(err, AM_EINVAL,
                   "Cannot locate or parse timezone '%s': %s is not a TZif file "
                   "(larger than 1 MiB)",
                   name, path);
  }
  uint8_t *data = malloc((size_t)st.st_size + 1);
  size_t got = 0;
  while (data && got < (size_t)st.st_size) {
    ssize_t r = read(fd, data + got, (size_t)st.st_size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  if (!data) return am_fail(err, AM_ENOMEM, "out of memory loading time zone '%s'", name);
  char why[96] = "";
  int status = got == (size_t)st.st_size ? am_tzif_parse(err, name, data, got, out, why, sizeof why)
                                         : AM_EINVAL;
  free(data);
  if (status == AM_EINVAL)
    return am_fail(err, AM_EINVAL,
                   "Cannot locate or parse timezone '%s': %s is not a valid TZif "
                   "file (%s)",
                   name, path, why[0] ? why : "read failed");
  return status;
}

int am_tz_find(am_err *err, const char *name, const am_tz **out) {
  if (!name) return am_fail(err, AM_EINVAL, "Cannot locate or parse timezone '(null)'");
  pthread_mutex_lock(&cache_lock);
  struct am_tz *tz = cache;
  while (tz && strcmp(tz->name, name) != 0) tz = tz->next;
  int status = AM_OK;
  if (!tz && (status = load(err, name, &tz)) == AM_OK) {
    tz->next = cache;
    cache = tz;
  }
  pthread_mutex_unlock(&cache_lock);
  if (status == AM_OK) *out = tz;
  return status;
}

const char *am_tz_name(const am_tz *tz) { return tz->name; }

int am_tz_is_utc(const am_tz *tz) { return tz->count == 1 && tz->types[tz->kind[0]].offset == 0; }

/* ---- periods ------------------------------------------------------------------------------ */

/* `t` brought into the listed stretch: less whole cycles past it (*shift). */
static int64_t reduce(const am_tz *tz, int64_t t, int64_t *shift) {
  *shift = 0;
  if (t < tz->cycle_start) return t;
  uint64_t past = (uint64_t)t - (uint64_t)tz->cycle_start;
  if (past < (uint64_t)AM_TZ_CYCLE) return t;
  *shift = (int64_t)(past / (uint64_t)AM_TZ_CYCLE * (uint64_t)AM_TZ_CYCLE);
  return t - *shift;
}

/* The period of transition index i: [at[i], at[i + 1]) (moved by `shift`). */
static void period(const am_tz *tz, int64_t i, int64_t shift, am_tz_period *out) {
  const am_tz_type *type = &tz->types[tz->kind[i]];
  out->begin = i == 0 ? INT64_MIN : sat_add(tz->at[i], shift);
  out->end = i + 1 < tz->count ? sat_add(tz->at[i + 1], shift) : INT64_MAX;
  out->offset = type->offset;
  out->is_dst = type->is_dst;
  out->abbrev = tz->abbrevs + type->abbrev;
}

/* The first i >= 1 with keys[i] > r (keys: at or local_at, ascending from
 * 1; keys[0] is never after r): a few steps from the index's bucket, or a
 * binary search without one. */
static int64_t first_after(const am_tz_index *x, const int64_t *keys, int64_t count, int64_t r) {
  int64_t lo = 1, hi = count;
  if (x->first) {
    if (r < x->base) return 1;
    if (r >= x->end) return count;
    lo = x->first[((uint64_t)r - (uint64_t)x->base) >> x->shift];
    while (lo < count && keys[lo] <= r) lo++;
    return lo;
  }
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] > r)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

void am_tz_period_at(const am_tz *tz, int64_t t, am_tz_period *out) {
  int64_t shift, r = reduce(tz, t, &shift);
  period(tz, first_after(&tz->by_utc, tz->at, tz->count, r) - 1, shift, out);
}

/* The `date` library's time_zone::get_info(local_seconds): tr is the first
 * transition whose local time (at its new offset) is after `local`; the
 * period before it is read first, then its neighbour when `local` falls
 * within a day after its start (ambiguous where the two overlap) or past
 * its end (nonexistent: the gap). Its load_sys_info(i) is period i - 1
 * here, its first period for i == 0. */
void am_tz_local_at(const am_tz *tz, int64_t local, am_tz_local *out) {
  int64_t shift, r = reduce(tz, local, &shift);
  /* r - offset(i) < at[i], as r < local_at[i] */
  int64_t tr = first_after(&tz->by_local, tz->local_at, tz->count, r);
  memset(out, 0, sizeof *out);
  out->kind = AM_TZ_UNIQUE;
  period(tz, tr - 1, 0, &out->first);
  int64_t tps = sat_sub(r, out->first.offset);
  if (tps < sat_add(out->first.begin, DAY) && tr > 1) {
    period(tz, tr - 2, 0, &out->second);
    if (sat_sub(r, out->second.offset) < out->second.end && out->first.end != out->second.end) {
      am_tz_period later = out->first;
      out->first = out->second;
      out->second = later;
      out->kind = AM_TZ_AMBIGUOUS;
    } else {
      memset(&out->second, 0, sizeof out->second);
    }
  } else if (tps >= out->first.end && tr < tz->count) {
    period(tz, tr, 0, &out->second);
    if (sat_sub(r, out->second.offset) < out->second.begin)
      out->kind = AM_TZ_NONEXISTENT;
    else
      memset(&out->second, 0, sizeof out->second);
  }
  am_tz_period *p[2] = {&out->first, &out->second};
  for (int i = 0; i < 2 && shift; i++) {
    if (p[i]->begin != INT64_MIN) p[i]->begin = sat_add(p[i]->begin, shift);
    if (p[i]->end != INT64_MAX) p[i]->end = sat_add(p[i]->end, shift);
  }
}

/* ---- readers and bulk conversions ------------------------------------------------------- */

void am_tz_reader_init(am_tz_reader *r, const am_tz *tz) {
  memset(r, 0, sizeof *r);
  r->tz = tz;
  r->utc.begin = INT64_MAX; /* empty: the first value looks up */
  r->utc.end = INT64_MIN;
  r->lo = INT64_MAX;
  r->hi = INT64_MIN;
}

/* Local times MARGIN inside a period read as that period alone: the local
 * cache holds them. */
static void keep_local(am_tz_reader *r, const am_tz_period *p) {
  r->offset = p->offset;
  r->lo = p->begin == INT64_MIN ? INT64_MIN : sat_add(p->begin, p->offset + MARGIN);
  r->hi = p->end == INT64_MAX ? INT64_MAX : sat_add(p->end, p->offset - MARGIN);
}

/* The period found serves local times too: a value's local time, rounded,
 * is mostly in its own period (a second search saved). */
void am_tz_reader_find_utc(am_tz_reader *r, int64_t second) {
  am_tz_period_at(r->tz, second, &r->utc);
  keep_local(r, &r->utc);
}

am_tz_local_kind am_tz_reader_find_local(am_tz_reader *r, int64_t second, am_tz_local *info) {
  am_tz_local_at(r->tz, second, info);
  if (info->kind == AM_TZ_UNIQUE) keep_local(r, &info->first);
  return info->kind;
}

void am_tz_localize(const am_tz *tz, int64_t per_second, const int64_t *in, int64_t n,
                    int64_t *out) {
  am_tz_reader r;
  am_tz_reader_init(&r, tz);
  for (int64_t i = 0; i < n; i++) out[i] = am_tz_reader_local(&r, in[i], per_second);
}

int64_t am_tz_to_utc(const am_tz *tz, int64_t per_second, const int64_t *in,
                     const uint8_t *validity, int64_t bit_offset, int64_t n,
                     am_assume_choice ambiguous, am_assume_choice nonexistent, int64_t *out) {
  am_tz_reader r;
  am_tz_reader_init(&r, tz);
  int64_t refused = -1;
  for (int64_t i = 0; i < n; i++) {
    int64_t v = in[i], bit = bit_offset + i;
    if (validity && !(validity[bit >> 3] >> (bit & 7) & 1)) {
      out[i] = v;
      continue;
    }
    am_tz_local info;
    am_tz_local_kind kind = am_tz_reader_utc(&r, v, per_second, &out[i], &info);
    if (kind == AM_TZ_UNIQUE) continue;
    if ((kind == AM_TZ_AMBIGUOUS ? ambiguous : nonexistent) == AM_ASSUME_RAISE) {
      out[i] = v, refused = i;
    } else if (kind == AM_TZ_AMBIGUOUS) {
      int32_t off = ambiguous == AM_ASSUME_LATEST ? info.second.offset : info.first.offset;
      out[i] = wrap_sub(v, (int64_t)off * per_second);
    } else {
      int64_t end = wrap_mul(info.first.end, per_second);
      out[i] = nonexistent == AM_ASSUME_LATEST ? end : wrap_sub(end, 1);
    }
  }
  return refused;
}

/* ---- pyarrow's messages ------------------------------------------------------------------- */

/* `ticks` (per_second a second) as the `date` library writes a time point:
 * "2015-03-08 02:30:00", a fraction of the unit's digits after it. */
static void write_time(char *out, size_t size, int64_t ticks, int64_t per_second) {
  int64_t per_day = per_second * DAY, rest = ticks % per_day;
  int64_t days = ticks / per_day - (rest < 0); /* floored, without overflow */
  if (rest < 0) rest += per_day;
  int64_t secs = rest / per_second, frac = rest % per_second;
  int64_t year;
  int month, day;
  am_calendar_civil(days, &year, &month, &day);
  int digits = per_second == 1000 ? 3 : per_second == 1000000 ? 6 : per_second == 1 ? 0 : 9;
  char fraction[24] = "";
  if (digits) snprintf(fraction, sizeof fraction, ".%0*lld", digits, (long long)frac);
  snprintf(out, size, "%s%04lld-%02lld-%02lld %02lld:%02lld:%02lld%s", year < 0 ? "-" : "",
           (long long)(year < 0 ? -year : year), (long long)month, (long long)day,
           (long long)(secs / 3600), (long long)(secs / 60 % 60), (long long)(secs % 60), fraction);
}

am_tz_local_kind am_tz_describe_local(const am_tz *tz, int64_t per_second, int64_t local, char *out,
                                      size_t size) {
  am_tz_local info;
  am_tz_local_at(tz, per_second == 1 ? local : floor_div(local, per_second), &info);
  char tp[128], a[128], b[128], c[128];
  write_time(tp, sizeof tp, local, per_second);
  if (info.kind == AM_TZ_NONEXISTENT) {
    write_time(a, sizeof a, wrap_add(info.first.end, info.first.offset), 1);
    write_time(b, sizeof b, wrap_add(info.second.begin, info.second.offset), 1);
    write_time(c, sizeof c, info.first.end, 1);
    snprintf(out, size,
             "%s is in a gap between\n%s %s and\n%s %s which are both equivalent to\n%s UTC", tp, a,
             info.first.abbrev, b, info.second.abbrev, c);
  } else if (info.kind == AM_TZ_AMBIGUOUS) {
    write_time(a, sizeof a, wrap_sub(local, (int64_t)info.first.offset * per_second), per_second);
    write_time(b, sizeof b, wrap_sub(local, (int64_t)info.second.offset * per_second), per_second);
    snprintf(out, size, "%s is ambiguous.  It could be\n%s %s == %s UTC or\n%s %s == %s UTC", tp,
             tp, info.first.abbrev, a, tp, info.second.abbrev, b);
  } else {
    snprintf(out, size, "%s", tp);
  }
  return info.kind;
}

int am_tz_refuse_local(am_err *err, const am_tz *tz, int64_t per_second, int64_t local) {
  char what[400];
  am_tz_local_kind kind = am_tz_describe_local(tz, per_second, local, what, sizeof what);
  return am_fail(err, AM_EINVAL, "Timestamp %s in timezone '%s': %s",
                 kind == AM_TZ_NONEXISTENT ? "doesn't exist" : "is ambiguous", tz->name, what);
}
