/* Unit test of core/timezone.c and core/tzif.c, run by test_core.py:
 *  - Arrow's fixed offsets, accepted and refused as its LocateZone does;
 *  - names outside the `date` library's zone list refused without touching
 *    a file; missing zones refused in pyarrow's words;
 *  - TZif files written here (argv[1] is an empty directory, used as TZDIR):
 *    a v1 file and a v2 file with a footer read right; every truncation of
 *    them and 20,000 mutated copies refused with a reason or read, never a
 *    crash (the bulk conversions run over every zone that reads);
 *  - the system's New York (when /usr/share/zoneinfo has it): offsets, the
 *    footer past 2037, a gap and an overlap read as pyarrow reads them;
 *  - 8 threads finding the same zones get the same pointers.
 * Exit status 0 = pass; the last line says "ok". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timezone.h"

static int failures;
#define CHECK(cond, ...)             \
  do {                               \
    if (!(cond)) {                   \
      printf("FAIL %d: ", __LINE__); \
      printf(__VA_ARGS__);           \
      printf("\n");                  \
      failures++;                    \
    }                                \
  } while (0)

static const char *dir;

static int find(const char *name, const am_tz **tz, char *message) {
  am_err err;
  am_err_init(&err, "test");
  int status = am_tz_find(&err, name, tz);
  if (message) snprintf(message, 480, "%s", err.message);
  return status;
}

static int32_t offset_at(const am_tz *tz, int64_t t) {
  am_tz_period p;
  am_tz_period_at(tz, t, &p);
  return p.offset;
}

/* ---- TZif bytes --------------------------------------------------------------------------- */

typedef struct bytes {
  uint8_t data[4096];
  size_t n;
} bytes;

static void put(bytes *b, const void *p, size_t n) {
  memcpy(b->data + b->n, p, n);
  b->n += n;
}
static void be(bytes *b, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; i--) b->data[b->n++] = (uint8_t)(v >> (8 * i));
}

/* A zone of two types: standard at -5h "EST", daylight at -4h "EDT", with
 * `count` transitions at times[i] to kinds[i]; v1 (4-byte times) or v2 (both
 * blocks and `footer`). */
static void tzif(bytes *b, int version, int count, const int64_t *times, const uint8_t *kinds,
                 const char *footer) {
  b->n = 0;
  for (int block = 0; block < (version ? 2 : 1); block++) {
    int width = block ? 8 : 4;
    put(b, "TZif", 4);
    b->data[b->n++] = version ? (uint8_t)version : 0;
    memset(b->data + b->n, 0, 15);
    b->n += 15;
    uint32_t counts[6] = {0, 0, 0, (uint32_t)count, 2, 8}; /* isut isstd leap time type char */
    for (int i = 0; i < 6; i++) be(b, counts[i], 4);
    for (int i = 0; i < count; i++) be(b, (uint64_t)times[i], width);
    put(b, kinds, (size_t)count);
    be(b, (uint64_t)(int64_t)-18000, 4);
    b->data[b->n++] = 0;
    b->data[b->n++] = 0;
    be(b, (uint64_t)(int64_t)-14400, 4);
    b->data[b->n++] = 1;
    b->data[b->n++] = 4;
    put(b, "EST\0EDT\0", 8);
  }
  if (version) {
    b->data[b->n++] = '\n';
    put(b, footer, strlen(footer));
    b->data[b->n++] = '\n';
  }
}

static void write_zone(const char *name, const uint8_t *data, size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) {
    printf("cannot write %s\n", path);
    exit(2);
  }
  fwrite(data, 1, n, f);
  fclose(f);
}

/* Everything a zone answers, over instants from -2^40 to 2^40 seconds and
 * the extremes: a crash or a sanitizer report is the failure. */
static void exercise(const am_tz *tz) {
  static const int64_t edges[] = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX};
  int64_t in[64], out[64];
  int n = 0;
  for (int i = 0; i < 7; i++) in[n++] = edges[i];
  for (int64_t t = -((int64_t)1 << 40); n < 64; t += ((int64_t)1 << 35) + 7919) in[n++] = t;
  for (int i = 0; i < n; i++) {
    am_tz_period p;
    am_tz_local l;
    am_tz_period_at(tz, in[i], &p);
    am_tz_local_at(tz, in[i], &l);
  }
  static const int64_t units[] = {1, 1000, 1000000, 1000000000};
  for (int u = 0; u < 4; u++) {
    am_tz_localize(tz, units[u], in, n, out);
    for (int a = 0; a < 3; a++) {
      int64_t bad = am_tz_to_utc(tz, units[u], in, NULL, 0, n, (am_assume_choice)a,
                                 (am_assume_choice)(2 - a), out);
      am_err err;
      am_err_init(&err, "test");
      if (bad >= 0) CHECK(am_tz_refuse_local(&err, tz, units[u], in[bad]) == AM_EINVAL, "refusal");
    }
  }
}

/* ---- the tests ---------------------------------------------------------------------------- */

static void fixed_offsets(void) {
  static const struct {
    const char *name;
    int ok;
    int32_t offset;
  } cases[] = {{"+05:30", 1, 19800}, {"-08:00", 1, -28800}, {"+0545", 1, 20700},
               {"-1200", 1, -43200}, {"+23:59", 1, 86340},  {"+0530x", 1, 19800},
               {"+25:00", 0, 0},     {"+00:60", 0, 0},      {"+05", 0, 0},
               {"+5:30", 0, 0},      {"+05:3a", 0, 0},      {"-", 0, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const am_tz *tz = NULL;
    char message[480];
    int status = find(cases[i].name, &tz, message);
    CHECK((status == AM_OK) == cases[i].ok, "%s: status %d", cases[i].name, status);
    if (status == AM_OK) {
      CHECK(offset_at(tz, 0) == cases[i].offset && offset_at(tz, INT64_MAX) == cases[i].offset,
            "%s: offset %d", cases[i].name, offset_at(tz, 0));
      CHECK(am_tz_is_utc(tz) == (cases[i].offset == 0), "%s: utc", cases[i].name);
    } else {
      char want[200];
      snprintf(want, sizeof want, "Cannot locate or parse timezone '%s'", cases[i].name);
      CHECK(strcmp(message, want) == 0, "%s: %s", cases[i].name, message);
    }
  }
  const am_tz *utc = NULL;
  CHECK(find("UTC", &utc, NULL) == AM_OK && am_tz_is_utc(utc), "UTC is built in");
}

static void refused_names(void) {
  static const char *const names[] = {
      "",         "posixrules", "posix/UTC",         "right/UTC", "../zoneinfo/UTC", "a/../b",
      "/etc/UTC", ".hidden",    "America//New_York", "Factory",   "zone.tab",        "No/Such"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const am_tz *tz = NULL;
    char message[480], want[200];
    CHECK(find(names[i], &tz, message) == AM_EINVAL, "'%s' is refused", names[i]);
    snprintf(want, sizeof want,
             "Cannot locate or parse timezone '%s': %s not found in timezone database", names[i],
             names[i]);
    CHECK(strncmp(message, want, strlen(want)) == 0, "'%s': %s", names[i], message);
  }
}

static void written_files(void) {
  /* 2000-04-02 07:00 UTC to daylight time, 2000-10-29 06:00 back */
  static const int64_t times[] = {954658800, 972799200};
  static const uint8_t kinds[] = {1, 0};
  bytes v1, v2;
  tzif(&v1, 0, 2, times, kinds, NULL);
  tzif(&v2, '2', 2, times, kinds, "EST5EDT,M3.2.0,M11.1.0");
  write_zone("v1", v1.data, v1.n);
  write_zone("v2", v2.data, v2.n);
  const am_tz *a = NULL, *b = NULL;
  CHECK(find("v1", &a, NULL) == AM_OK && find("v2", &b, NULL) == AM_OK, "written zones read");
  if (!a || !b) return;
  CHECK(offset_at(a, 960000000) == -14400 && offset_at(a, 980000000) == -18000, "v1 offsets");
  CHECK(offset_at(a, 0) == -18000, "v1 before its first transition: standard time");
  CHECK(offset_at(a, 4118400000) == -18000, "v1 keeps its last offset (no footer)");
  CHECK(offset_at(b, 4118400000) == -14400, "v2's footer: 2100-07-05 is daylight time");
  CHECK(offset_at(b, 4102444800) == -18000, "v2's footer: 2100-01-01 is standard time");
  am_tz_local l;
  am_tz_local_at(b, 972777600 + 5400, &l); /* 2000-10-29 01:30 local */
  CHECK(l.kind == AM_TZ_AMBIGUOUS && l.first.offset == -14400 && l.second.offset == -18000,
        "2000-10-29 01:30 is ambiguous");
  am_tz_local_at(b, 4108665600 + 9000, &l); /* 2100-03-14 02:30 local, by the rule */
  CHECK(l.kind == AM_TZ_NONEXISTENT, "2100-03-14 02:30 is in the footer's gap");
  int64_t local = (int64_t)4108665600 + 9000, utc = 0;
  CHECK(am_tz_to_utc(b, 1, &local, NULL, 0, 1, AM_ASSUME_RAISE, AM_ASSUME_LATEST, &utc) == -1 &&
            utc == (int64_t)4108665600 + 7 * 3600,
        "the gap's end: %lld", (long long)utc);
  /* every truncation, then mutations: refused with a reason, or read */
  char name[64];
  for (size_t n = 0; n < v2.n; n++) {
    snprintf(name, sizeof name, "cut%zu", n);
    write_zone(name, v2.data, n);
    const am_tz *tz = NULL;
    char message[480];
    int status = find(name, &tz, message);
    CHECK(status == AM_EINVAL && strstr(message, "is not a valid TZif file ("), "%zu bytes: %d %s",
          n, status, message);
  }
  uint64_t state = 0x9E3779B97F4A7C15u;
  int read_back = 0;
  for (int k = 0; k < 20000; k++) {
    bytes m = k % 2 ? v1 : v2;
    int flips = 1 + k % 4;
    for (int f = 0; f < flips; f++) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      m.data[state % m.n] = (uint8_t)(state >> 24);
    }
    snprintf(name, sizeof name, "m%d", k);
    write_zone(name, m.data, m.n);
    const am_tz *tz = NULL;
    char message[480];
    int status = find(name, &tz, message);
    CHECK(status == AM_OK || (status == AM_EINVAL && strstr(message, "is not a valid TZif file (")),
          "mutation %d: %d %s", k, status, message);
    if (status == AM_OK) {
      read_back++;
      exercise(tz);
    }
    snprintf(name, sizeof name, "%s/m%d", dir, k);
    remove(name);
  }
  CHECK(read_back > 1000, "only %d mutations read", read_back);
  printf("20000 mutations: %d read\n", read_back);
}

static void system_new_york(void) {
  FILE *f = fopen("/usr/share/zoneinfo/America/New_York", "rb");
  if (!f) {
    printf("no system New York: skipped\n");
    return;
  }
  fclose(f);
  setenv("TZDIR", "/usr/share/zoneinfo", 1);
  const am_tz *ny = NULL;
  CHECK(find("America/New_York", &ny, NULL) == AM_OK, "New York");
  if (!ny) return;
  CHECK(offset_at(ny, 1435708800) == -14400, "2015-07-01 EDT");
  CHECK(offset_at(ny, 1420070400) == -18000, "2015-01-01 EST");
  CHECK(offset_at(ny, -5000000000) == -17762, "1811: local mean time, -4:56:02");
  CHECK(offset_at(ny, 4118400000) == -14400, "2100-07-05 EDT: the footer");
  CHECK(offset_at(ny, (int64_t)4118400000 + (int64_t)146097 * 86400) == -14400, "400 years later");
  am_tz_local l;
  am_tz_local_at(ny, 1425781800, &l); /* 2015-03-08 02:30 */
  CHECK(l.kind == AM_TZ_NONEXISTENT && l.first.end == 1425798000, "the 2015 gap");
  am_err err;
  am_err_init(&err, "test");
  am_tz_refuse_local(&err, ny, 1, 1425781800);
  CHECK(strcmp(err.message,
               "Timestamp doesn't exist in timezone 'America/New_York': 2015-03-08 02:30:00 is in "
               "a gap between\n2015-03-08 02:00:00 EST and\n2015-03-08 03:00:00 EDT which are "
               "both equivalent to\n2015-03-08 07:00:00 UTC") == 0,
        "%s", err.message);
  am_tz_local_at(ny, 1446341400, &l); /* 2015-11-01 01:30 */
  CHECK(l.kind == AM_TZ_AMBIGUOUS && strcmp(l.first.abbrev, "EDT") == 0 &&
            strcmp(l.second.abbrev, "EST") == 0,
        "the 2015 overlap");
  exercise(ny);
}

static const char *const zones[] = {"v1", "v2", "+05:30", "UTC", "-0800", "cut3"};
static const am_tz *seen[8][6];

static void *finder(void *arg) {
  int k = (int)(intptr_t)arg;
  for (int i = 0; i < 6; i++) {
    int j = (i + k) % 6;
    char message[480];
    if (find(zones[j], &seen[k][j], message) != AM_OK) seen[k][j] = NULL;
  }
  return NULL;
}

static void threads(void) {
  pthread_t t[8];
  for (int k = 0; k < 8; k++) pthread_create(&t[k], NULL, finder, (void *)(intptr_t)k);
  for (int k = 0; k < 8; k++) pthread_join(t[k], NULL);
  for (int k = 1; k < 8; k++)
    for (int j = 0; j < 6; j++) CHECK(seen[k][j] == seen[0][j], "thread %d, %s", k, zones[j]);
  CHECK(seen[0][5] == NULL && seen[0][0] != NULL, "cut3 refused, v1 found");
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  dir = argv[1];
  setenv("TZDIR", dir, 1);
  fixed_offsets();
  refused_names();
  written_files();
  threads();
  system_new_york();
  printf("%s\n", failures ? "FAIL" : "ok");
  return failures != 0;
}
