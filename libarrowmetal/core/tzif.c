/* TZif files (RFC 8536) into the transitions of core/tzif.h, the way
 * pyarrow's vendored `date` library reads them (its time_zone::init_impl),
 * plus the footer's POSIX TZ rule past the last transition. Every count,
 * index and offset is checked against the file's size and RFC 8536's
 * limits before use: a bad file is a reason, never a read out of bounds. */
#include "tzif.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "temporal.h"

#define DAY 86400
/* RFC 8536 section 3.2: a UT offset lies in [-89999, 93599] seconds. */
#define MIN_OFFSET (-89999)
#define MAX_OFFSET 93599
/* Abbreviations the footer adds: at most this long. */
#define MAX_ABBREV 32

static int64_t days_from_civil(int64_t y, int m, int d) { return am_calendar_days(y, m, d); }

/* The `date` library's first second (year -32767): earlier transitions are
 * moved to it. */
static int64_t min_seconds(void) { return days_from_civil(-32767, 1, 1) * DAY; }

static uint32_t be32(const uint8_t *b) {
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static int64_t be64(const uint8_t *b) { return (int64_t)((uint64_t)be32(b) << 32 | be32(b + 4)); }

/* ---- the zone being built ---------------------------------------------------------------- */

typedef struct build {
  struct am_tz *tz;
  int64_t cap;     /* transitions room */
  size_t abbrev_n; /* bytes used in tz->abbrevs */
  size_t abbrev_cap;
  int64_t last; /* the file's last transition; INT64_MIN when it has none */
} build;

static int push(am_err *err, build *b, int64_t at, int kind) {
  struct am_tz *tz = b->tz;
  if (tz->count == b->cap) {
    int64_t cap = b->cap ? b->cap * 2 : 64;
    int64_t *a = realloc(tz->at, (size_t)cap * sizeof *a);
    if (a) tz->at = a;
    uint16_t *k = a ? realloc(tz->kind, (size_t)cap * sizeof *k) : NULL;
    if (!k) return am_fail(err, AM_ENOMEM, "out of memory loading time zone '%s'", tz->name);
    tz->kind = k;
    b->cap = cap;
  }
  tz->at[tz->count] = at;
  tz->kind[tz->count++] = (uint16_t)kind;
  return AM_OK;
}

static int same_type(const struct am_tz *tz, int a, int b) {
  const am_tz_type *x = &tz->types[a], *y = &tz->types[b];
  return x->offset == y->offset && x->is_dst == y->is_dst &&
         strcmp(tz->abbrevs + x->abbrev, tz->abbrevs + y->abbrev) == 0;
}

/* Drops every transition to the type in effect already (the `date`
 * library's merge of transitions that change nothing). */
static void merge_same(struct am_tz *tz) {
  int64_t kept = tz->count ? 1 : 0;
  for (int64_t i = 1; i < tz->count; i++) {
    if (same_type(tz, tz->kind[i], tz->kind[kept - 1])) continue;
    tz->at[kept] = tz->at[i];
    tz->kind[kept++] = tz->kind[i];
  }
  tz->count = kept;
}

/* The type of (offset, dst, abbreviation), added when new; -1 when full. */
static int type_of(build *b, int32_t offset, int is_dst, const char *abbrev) {
  struct am_tz *tz = b->tz;
  for (int i = 0; i < tz->n_types; i++)
    if (tz->types[i].offset == offset && tz->types[i].is_dst == is_dst &&
        strcmp(tz->abbrevs + tz->types[i].abbrev, abbrev) == 0)
      return i;
  size_t n = strlen(abbrev) + 1;
  if (tz->n_types >= 258 || b->abbrev_n + n > b->abbrev_cap) return -1;
  memcpy(tz->abbrevs + b->abbrev_n, abbrev, n);
  tz->types[tz->n_types] = (am_tz_type){offset, (uint8_t)is_dst, (uint32_t)b->abbrev_n};
  b->abbrev_n += n;
  return tz->n_types++;
}

/* ---- the footer: a POSIX TZ string ------------------------------------------------------- */

typedef struct rule_day {
  char form;      /* 'J' (1-365, no Feb 29), 'N' (0-365), 'M' (month.week.weekday) */
  int n, m, w, d; /* J/N: n; M: m, w, d */
  int32_t time;   /* local seconds into that day: -167h .. 167h (RFC 8536's extension) */
} rule_day;

typedef struct posix_tz {
  char std[MAX_ABBREV + 1], dst[MAX_ABBREV + 1];
  int32_t std_offset, dst_offset; /* seconds east of UTC */
  int has_dst;
  rule_day start, end;
} posix_tz;

static int digits(const char **s, int max_digits, int *out) {
  int v = 0, n = 0;
  while (n < max_digits && **s >= '0' && **s <= '9') v = v * 10 + (*(*s)++ - '0'), n++;
  *out = v;
  return n > 0;
}

/* [+-]hh[:mm[:ss]], hh <= max_hours, as signed seconds. */
static int hms(const char **s, int max_hours, int32_t *out) {
  int sign = 1, h, m = 0, sec = 0;
  if (**s == '+' || **s == '-') sign = *(*s)++ == '-' ? -1 : 1;
  if (!digits(s, 3, &h) || h > max_hours) return 0;
  if (**s == ':') {
    (*s)++;
    if (!digits(s, 2, &m) || m > 59) return 0;
    if (**s == ':') {
      (*s)++;
      if (!digits(s, 2, &sec) || sec > 59) return 0;
    }
  }
  *out = sign * (h * 3600 + m * 60 + sec);
  return 1;
}

/* An abbreviation: three or more letters, or <...> of letters, digits,
 * '+' and '-'. */
static int abbreviation(const char **s, char *out) {
  int n = 0;
  if (**s == '<') {
    (*s)++;
    while (**s && **s != '>') {
      char c = *(*s)++;
      int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '+' || c == '-';
      if (!ok || n == MAX_ABBREV) return 0;
      out[n++] = c;
    }
    if (**s != '>') return 0;
    (*s)++;
  } else {
    while ((**s >= 'A' && **s <= 'Z') || (**s >= 'a' && **s <= 'z')) {
      if (n == MAX_ABBREV) return 0;
      out[n++] = *(*s)++;
    }
  }
  out[n] = '\0';
  return n >= 3;
}

static int rule(const char **s, rule_day *r) {
  int ok;
  if (**s == 'J') {
    (*s)++;
    r->form = 'J';
    ok = digits(s, 3, &r->n) && r->n >= 1 && r->n <= 365;
  } else if (**s == 'M') {
    (*s)++;
    r->form = 'M';
    ok = digits(s, 2, &r->m) && r->m >= 1 && r->m <= 12 && *(*s)++ == '.' && digits(s, 1, &r->w) &&
         r->w >= 1 && r->w <= 5 && *(*s)++ == '.' && digits(s, 1, &r->d) && r->d <= 6;
  } else {
    r->form = 'N';
    ok = digits(s, 3, &r->n) && r->n <= 365;
  }
  r->time = 7200;
  if (ok && **s == '/') {
    (*s)++;
    ok = hms(s, 167, &r->time);
  }
  return ok;
}

static int rules(const char **s, posix_tz *p) {
  if (*(*s)++ != ',' || !rule(s, &p->start) || *(*s)++ != ',') return 0;
  return rule(s, &p->end);
}

/* A footer: "EST5EDT,M3.2.0,M11.1.0", "<+0530>-5:30", "IST-1GMT0,M10.5.0,M3.5.0/1". A
 * daylight name without rules takes the US rules, as glibc does. */
static int parse_posix(const char *s, posix_tz *p) {
  memset(p, 0, sizeof *p);
  int32_t west;
  if (!abbreviation(&s, p->std) || !hms(&s, 24, &west)) return 0;
  p->std_offset = -west;
  if (*s == '\0') return 1;
  if (!abbreviation(&s, p->dst)) return 0;
  p->has_dst = 1;
  p->dst_offset = p->std_offset + 3600;
  if (*s != ',' && *s != '\0') {
    if (!hms(&s, 24, &west)) return 0;
    p->dst_offset = -west;
  }
  const char *us = ",M3.2.0,M11.1.0";
  if (*s == '\0') return rules(&us, p);
  return rules(&s, p) && *s == '\0';
}

/* The day number (days since 1970-01-01) of rule day `r` in `year`. */
static int64_t rule_date(const rule_day *r, int64_t year) {
  int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (r->form == 'J') return days_from_civil(year, 1, 1) + r->n - 1 + (leap && r->n >= 60);
  if (r->form == 'N') return days_from_civil(year, 1, 1) + r->n;
  static const int length[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int64_t first = days_from_civil(year, r->m, 1);
  int64_t sunday0 = (am_calendar_weekday(first) + 1) % 7; /* Sunday 0 .. Saturday 6 */
  int64_t day = first + (r->d - sunday0 + 7) % 7 + (r->w - 1) * 7;
  int64_t last = first + length[r->m - 1] + (leap && r->m == 2) - 1;
  while (day > last) day -= 7;
  return day;
}

/* UTC seconds at which daylight time starts and ends in `year`. */
static int64_t dst_start(const posix_tz *p, int64_t year) {
  return rule_date(&p->start, year) * DAY + p->start.time - p->std_offset;
}
static int64_t dst_end(const posix_tz *p, int64_t year) {
  return rule_date(&p->end, year) * DAY + p->end.time - p->dst_offset;
}

/* The footer's transitions after `after` (the file's last), from `year` on
 * for 403 years: the cycle of 400 past the next year, with a year's margin
 * both sides. Daylight stretches that touch or overlap merge (a rule of
 * permanent daylight time, "0/0,J365/25", is one stretch). */
static int extend(am_err *err, build *b, const posix_tz *p, int64_t after, int64_t year) {
  int std = type_of(b, p->std_offset, 0, p->std);
  int dst = type_of(b, p->dst_offset, 1, p->dst);
  if (std < 0 || dst < 0) return AM_EINVAL;
  int64_t open = 0, close = 0;
  int have = 0;
  for (int64_t y = year - 1; y <= year + 403; y++) {
    int64_t s = dst_start(p, y), e = dst_end(p, y);
    if (e <= s) e = dst_end(p, y + 1); /* the southern hemisphere's: into the next year */
    if (have && s <= close) {
      if (e > close) close = e;
      continue;
    }
    if (have) {
      int status = AM_OK;
      if (open > after) status = push(err, b, open, dst);
      if (status == AM_OK && close > after) status = push(err, b, close, std);
      if (status != AM_OK) return status;
    }
    open = s, close = e, have = 1;
  }
  int status = open > after ? push(err, b, open, dst) : AM_OK;
  if (status == AM_OK) status = push(err, b, close, std);
  if (status != AM_OK) return status;
  b->tz->cycle_start = days_from_civil(year + 2, 1, 1) * DAY;
  return AM_OK;
}

/* ---- the file -------------------------------------------------------------------------- */

typedef struct header {
  int version;
  uint32_t isut, isstd, leap, time, type, chars;
} header;

static const char *read_header(const uint8_t *data, size_t size, size_t at, header *h) {
  if (size - at < 44) return "truncated header";
  const uint8_t *b = data + at;
  if (memcmp(b, "TZif", 4) != 0) return "no TZif magic";
  h->version = b[4];
  if (h->version != 0 && (h->version < '2' || h->version > '4')) return "unknown version";
  h->isut = be32(b + 20);
  h->isstd = be32(b + 24);
  h->leap = be32(b + 28);
  h->time = be32(b + 32);
  h->type = be32(b + 36);
  h->chars = be32(b + 40);
  if (h->type == 0 || h->type > 256) return "bad count of local time types";
  if ((h->isut && h->isut != h->type) || (h->isstd && h->isstd != h->type))
    return "bad count of UT/standard indicators";
  if (h->time > (1u << 20) || h->chars > (1u << 16) || h->leap > (1u << 16))
    return "counts too large";
  return NULL;
}

static size_t block_size(const header *h, size_t time_size) {
  return (size_t)h->time * (time_size + 1) + (size_t)h->type * 6 + h->chars +
         (size_t)h->leap * (time_size + 4) + h->isstd + h->isut;
}

/* The transitions and types of one data block (4- or 8-byte times). */
static const char *read_block(am_err *err, build *b, const header *h, const uint8_t *block,
                              size_t time_size, int *status) {
  struct am_tz *tz = b->tz;
  const uint8_t *times = block, *index = block + (size_t)h->time * time_size;
  const uint8_t *info = index + h->time, *chars = info + (size_t)h->type * 6;
  if (h->leap) return "leap seconds, which pyarrow's zones (and these) leave out";
  b->abbrev_cap = h->chars + 2 * (MAX_ABBREV + 1) + 1;
  tz->abbrevs = calloc(b->abbrev_cap, 1);
  tz->types = calloc(h->type + 2, sizeof *tz->types);
  if (!tz->abbrevs || !tz->types) {
    *status = am_fail(err, AM_ENOMEM, "out of memory loading time zone '%s'", tz->name);
    return NULL;
  }
  memcpy(tz->abbrevs, chars, h->chars);
  b->abbrev_n = h->chars + 1; /* a NUL after them, whatever they hold */
  for (uint32_t i = 0; i < h->type; i++) {
    const uint8_t *t = info + 6 * (size_t)i;
    int32_t offset = (int32_t)be32(t);
    if (offset < MIN_OFFSET || offset > MAX_OFFSET) return "UT offset out of range";
    if (t[4] > 1) return "bad DST flag";
    if (t[5] >= h->chars || !memchr(chars + t[5], '\0', h->chars - t[5]))
      return "bad abbreviation index";
    tz->types[i] = (am_tz_type){offset, t[4], t[5]};
  }
  tz->n_types = (int)h->type;
  /* Before the first transition: the first type that is not daylight time. */
  int first = 0;
  while (first < tz->n_types && tz->types[first].is_dst) first++;
  if (first == tz->n_types) first = 0;
  int64_t floor_at = min_seconds(), previous = INT64_MIN;
  for (uint32_t i = 0; i < h->time; i++) {
    int64_t at =
        time_size == 8 ? be64(times + 8 * (size_t)i) : (int32_t)be32(times + 4 * (size_t)i);
    if (i > 0 && at <= previous) return "transition times not ascending";
    if (index[i] >= h->type) return "bad type index";
    previous = b->last = at;
    if (i == 0 && at > floor_at && (*status = push(err, b, floor_at, first)) != AM_OK) return NULL;
    if ((*status = push(err, b, at < floor_at ? floor_at : at, index[i])) != AM_OK) return NULL;
  }
  if (h->time == 0 && (*status = push(err, b, floor_at, first)) != AM_OK) return NULL;
  return NULL;
}

/* An index of keys[1 .. count) (tzif.h), its buckets at most 2^16 (a
 * year's transitions in a few of them for real zones). Out of memory, or
 * keys out of order (a file that means nothing), it stays NULL: search. */
static void index_keys(am_tz_index *x, const int64_t *keys, int64_t count) {
  x->first = NULL;
  if (count < 2 || keys[count - 1] <= keys[1]) return;
  x->base = keys[1];
  x->end = keys[count - 1] == INT64_MAX ? INT64_MAX : keys[count - 1] + 1;
  uint64_t span = (uint64_t)x->end - (uint64_t)x->base;
  x->shift = 21; /* about 24 days */
  while ((span >> x->shift) >= (1u << 16)) x->shift++;
  size_t buckets = (size_t)(span >> x->shift) + 1;
  x->first = malloc(buckets * sizeof *x->first);
  int64_t i = 1;
  for (size_t b = 0; x->first && b < buckets; b++) {
    int64_t start = (int64_t)((uint64_t)x->base + ((uint64_t)b << x->shift));
    while (i < count && keys[i] <= start) i++;
    x->first[b] = (uint32_t)i;
  }
}

/* The zone as lookups read it: transitions merged, the first instant
 * unbounded, local times and indexes made. AM_ENOMEM. */
static int finish(am_err *err, struct am_tz *tz) {
  merge_same(tz);
  tz->at[0] = INT64_MIN; /* the date library's first second, and all before it */
  tz->local_at = malloc((size_t)tz->count * sizeof *tz->local_at);
  if (!tz->local_at)
    return am_fail(err, AM_ENOMEM, "out of memory loading time zone '%s'", tz->name);
  for (int64_t i = 0; i < tz->count; i++) {
    int64_t offset = tz->types[tz->kind[i]].offset, at = tz->at[i];
    tz->local_at[i] = offset > 0 && at > INT64_MAX - offset   ? INT64_MAX
                      : offset < 0 && at < INT64_MIN - offset ? INT64_MIN
                                                              : at + offset;
  }
  index_keys(&tz->by_utc, tz->at, tz->count);
  index_keys(&tz->by_local, tz->local_at, tz->count);
  return AM_OK;
}

int am_tzif_parse(am_err *err, const char *name, const uint8_t *data, size_t size,
                  struct am_tz **out, char *why, size_t why_size) {
  struct am_tz *tz = calloc(1, sizeof *tz);
  char *copy = strdup(name);
  if (!tz || !copy) {
    free(tz);
    free(copy);
    return am_fail(err, AM_ENOMEM, "out of memory loading time zone '%s'", name);
  }
  tz->name = copy;
  tz->cycle_start = INT64_MAX;
  build b = {tz, 0, 0, 0, INT64_MIN};
  header h;
  const char *bad = read_header(data, size, 0, &h);
  size_t at = 44, time_size = 4;
  if (!bad && h.version != 0) { /* the 64-bit block after the 32-bit one */
    size_t skip = block_size(&h, 4);
    if (size - at < skip)
      bad = "truncated data";
    else {
      at += skip;
      bad = read_header(data, size, at, &h);
      at += 44;
      time_size = 8;
    }
  }
  if (!bad && size - at < block_size(&h, time_size)) bad = "truncated data";
  int status = AM_OK;
  if (!bad) bad = read_block(err, &b, &h, data + at, time_size, &status);
  posix_tz footer = {0};
  int has_footer = 0;
  if (!bad && status == AM_OK && h.version != 0) {
    const char *s = (const char *)data + at + block_size(&h, 8);
    size_t left = size - at - block_size(&h, 8);
    const char *end = left > 1 && s[0] == '\n' ? memchr(s + 1, '\n', left - 1) : NULL;
    char text[128];
    if (!end || (size_t)(end - s - 1) >= sizeof text)
      bad = "bad footer";
    else {
      memcpy(text, s + 1, (size_t)(end - s - 1));
      text[end - s - 1] = '\0';
      has_footer = text[0] != '\0';
      if (has_footer && !parse_posix(text, &footer)) bad = "footer's TZ string does not parse";
    }
  }
  if (!bad && status == AM_OK) {
    merge_same(tz);
    if (has_footer && footer.has_dst) {
      /* a zone that changes its clocks by rule since its last transition */
      int64_t year = 1900, days = b.last / DAY - (b.last % DAY < 0);
      int month, day;
      if (b.last != INT64_MIN) am_calendar_civil(days, &year, &month, &day);
      if (year < -30000 || year > 100000)
        bad = "last transition out of range";
      else {
        status = extend(err, &b, &footer, b.last, year);
        if (status == AM_EINVAL) bad = "footer's abbreviations do not fit", status = AM_OK;
      }
    }
  }
  if (bad || status != AM_OK) {
    if (bad) snprintf(why, why_size, "%s", bad);
    am_tzif_free(tz);
    return bad ? AM_EINVAL : status;
  }
  if ((status = finish(err, tz)) != AM_OK) {
    am_tzif_free(tz);
    return status;
  }
  *out = tz;
  return AM_OK;
}

struct am_tz *am_tzif_fixed(const char *name, int32_t offset, const char *abbrev) {
  struct am_tz *tz = calloc(1, sizeof *tz);
  if (!tz) return NULL;
  size_t n = strlen(abbrev) + 1;
  tz->name = strdup(name);
  tz->at = malloc(sizeof *tz->at);
  tz->kind = calloc(1, sizeof *tz->kind);
  tz->types = calloc(1, sizeof *tz->types);
  tz->abbrevs = malloc(n);
  if (!tz->name || !tz->at || !tz->kind || !tz->types || !tz->abbrevs) {
    am_tzif_free(tz);
    return NULL;
  }
  memcpy(tz->abbrevs, abbrev, n);
  tz->count = 1;
  tz->at[0] = INT64_MIN;
  tz->types[0] = (am_tz_type){offset, 0, 0};
  tz->n_types = 1;
  tz->cycle_start = INT64_MAX;
  am_err err;
  am_err_init(&err, "am_tzif_fixed");
  if (finish(&err, tz) != AM_OK) {
    am_tzif_free(tz);
    return NULL;
  }
  return tz;
}

void am_tzif_free(struct am_tz *tz) {
  if (!tz) return;
  free((char *)tz->name);
  free(tz->at);
  free(tz->kind);
  free(tz->types);
  free(tz->abbrevs);
  free(tz->local_at);
  free(tz->by_utc.first);
  free(tz->by_local.first);
  free(tz);
}
