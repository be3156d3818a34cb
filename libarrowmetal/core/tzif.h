/* The loaded form of a time zone (core/timezone.h), and the reader that
 * makes one from a TZif file's bytes (core/tzif.c). Only timezone.c and
 * tzif.c see inside an am_tz. */
#ifndef AM_CORE_TZIF_H
#define AM_CORE_TZIF_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* 400 Gregorian years (146097 days): a POSIX TZ rule's transitions repeat
 * after it exactly. */
#define AM_TZ_CYCLE ((int64_t)146097 * 86400)

typedef struct am_tz_type {
  int32_t offset; /* seconds east of UTC */
  uint8_t is_dst;
  uint32_t abbrev; /* the abbreviation's first byte in the zone's `abbrevs` */
} am_tz_type;

/* An index of ascending keys[1 .. count): first[b] is the first i >= 1 with
 * keys[i] > base + (b << shift); a key at or past `end` is past them all,
 * one before `base` before them all. */
typedef struct am_tz_index {
  int64_t base, end;
  int shift;
  uint32_t *first;
} am_tz_index;

struct am_tz {
  const char *name; /* owned copy */
  /* Transitions, ascending: from at[i] on, types[kind[i]] holds (until
   * at[i + 1]). at[0] is INT64_MIN: the time before the first transition.
   * No two consecutive ones have the same offset, abbreviation and flag. */
  int64_t count;
  int64_t *at;
  uint16_t *kind;
  am_tz_type *types;
  int n_types;
  char *abbrevs; /* NUL-terminated abbreviations */
  /* The footer rule's stretch: an instant at or past cycle_start +
   * AM_TZ_CYCLE reads as the same instant whole cycles earlier (the
   * transitions are listed up to a year past cycle_start + AM_TZ_CYCLE).
   * INT64_MAX when the zone ends in one offset. */
  int64_t cycle_start;
  /* Each transition's local time at its new offset (at[i] + its offset,
   * saturated): the key of the `date` library's reading of a local time. */
  int64_t *local_at;
  /* Bucket indexes of the transitions by UTC time (at) and by local time
   * (local_at), so that a lookup scans a few transitions instead of
   * searching them all (NULL first: search). */
  am_tz_index by_utc, by_local;
  struct am_tz *next; /* the cache's list */
};

/* A zone of one offset (seconds east of UTC) for all time. NULL when out of
 * memory. */
struct am_tz *am_tzif_fixed(const char *name, int32_t offset, const char *abbrev);

/* The zone `name` read from TZif bytes data[0, size). AM_EINVAL, with why
 * in `why` (a short phrase), when they do not parse; AM_ENOMEM. */
int am_tzif_parse(am_err *err, const char *name, const uint8_t *data, size_t size,
                  struct am_tz **out, char *why, size_t why_size);

/* Frees a zone that was never published (a failed load). */
void am_tzif_free(struct am_tz *tz);

#endif
