/* Zoned floor/ceil/round_temporal (core/round_temporal_zoned.h): pyarrow's
 * steps around core/round_temporal.h's arithmetic, with core/timezone.h's
 * readers for both directions. */
#include "round_temporal_zoned.h"

#include "round_temporal.h"
#include "types.h"

typedef int64_t am_i64;
typedef uint64_t am_u64;
typedef uint32_t am_u32;
typedef int32_t am_i32;
/* Inlined into each loop below, whose tick and unit are constants (as in
 * core/round_temporal.c). */
#define DEVFN static inline __attribute__((always_inline))
AM_ROUND_TEMPORAL_DEFS

typedef struct zoned {
  am_tz_reader reader;
  int failed;    /* this row met a local time to_sys refuses */
  int64_t local; /* the last such local time */
} zoned;

/* pyarrow's ConvertLocalToSys: a unique local time's UTC, else 0 and the
 * row's error. */
DEVFN int64_t to_sys(zoned *z, int64_t local, int64_t tick) {
  int64_t utc;
  am_tz_local info;
  if (am_tz_reader_utc(&z->reader, local, 1000000000 / tick, &utc, &info) == AM_TZ_UNIQUE)
    return utc;
  z->failed = 1;
  z->local = local;
  return 0;
}

/* FloorTimePoint / FloorWeekTimePoint of local ticks `t`, in UTC. */
DEVFN int64_t floor_utc(zoned *z, int64_t t, int unit, int64_t multiple, int flags, int64_t tick) {
  const int64_t f = am_round_temporal_value(t, 0, unit, multiple, flags, tick, 0);
  if (unit != AM_UNIT_WEEK || ((flags & AM_RT_CALENDAR_BASED_ORIGIN) && multiple != 1))
    return to_sys(z, f, tick);
  /* the week start's shift, converted with the floor and taken off after */
  const int64_t days = flags & AM_RT_WEEK_STARTS_MONDAY ? 3 : 4;
  const int64_t shift = am_rt_cast(days, am_rt_period(AM_UNIT_DAY), tick, 0);
  return am_rt_sub(to_sys(z, am_rt_add(f, shift), tick), shift);
}

/* One value: UTC ticks `v` rounded as pyarrow rounds it in the zone. */
DEVFN int64_t zoned_value(zoned *z, int64_t v, int op, int unit, int64_t multiple, int flags,
                          int64_t tick) {
  const int64_t t = am_tz_reader_local(&z->reader, v, 1000000000 / tick);
  if (unit >= AM_UNIT_MONTH) {
    const int64_t f =
        op == 1 ? 0
                : to_sys(z, am_round_temporal_value(t, 0, unit, multiple, flags, tick, 0), tick);
    if (op == 0) return f;
    const int64_t c =
        to_sys(z, am_round_temporal_value(t, 1, unit, multiple, flags, tick, 0), tick);
    if (op == 1) return c;
    return am_rt_sub(t, f) >= am_rt_sub(c, t) ? c : f; /* local against UTC: pyarrow's */
  }
  const int64_t f = floor_utc(z, t, unit, multiple, flags, tick);
  if (op == 0) return f;
  const int64_t cl = am_tz_reader_local(&z->reader, f, 1000000000 / tick);
  const int64_t cs = to_sys(z, cl, tick);
  const int64_t c =
      (flags & AM_RT_CEIL_IS_STRICTLY_GREATER) || cs < v
          ? to_sys(z, am_rt_add(cl, am_rt_cast(multiple, am_rt_period(unit), tick, 0)), tick)
          : cs;
  if (op == 1) return c;
  return am_rt_sub(v, f) >= am_rt_sub(c, v) ? c : f;
}

typedef int64_t (*zoned_loop)(zoned *z, int op, const int64_t *in, const uint8_t *validity,
                              int64_t bit_offset, int64_t n, int64_t multiple, int flags,
                              int64_t *out, int64_t *refused);

/* The loop of tick TICK (nanoseconds) and unit UNIT. */
#define ZONED_LOOP(NAME, TICK, UNIT)                                                         \
  static int64_t NAME##_##UNIT(zoned *z, int op, const int64_t *in, const uint8_t *validity, \
                               int64_t bit_offset, int64_t n, int64_t multiple, int flags,   \
                               int64_t *out, int64_t *refused) {                             \
    int64_t last = -1;                                                                       \
    for (int64_t i = 0; i < n; i++) {                                                        \
      const int64_t bit = bit_offset + i;                                                    \
      if (validity && !(validity[bit >> 3] >> (bit & 7) & 1)) {                              \
        out[i] = in[i];                                                                      \
        continue;                                                                            \
      }                                                                                      \
      z->failed = 0;                                                                         \
      out[i] = zoned_value(z, in[i], op, UNIT, multiple, flags, TICK);                       \
      if (z->failed) last = i, *refused = z->local;                                          \
    }                                                                                        \
    return last;                                                                             \
  }
/* clang-format off */
#define ZONED_LOOPS(NAME, TICK)                                                                  \
  ZONED_LOOP(NAME, TICK, 0) ZONED_LOOP(NAME, TICK, 1) ZONED_LOOP(NAME, TICK, 2)                  \
  ZONED_LOOP(NAME, TICK, 3) ZONED_LOOP(NAME, TICK, 4) ZONED_LOOP(NAME, TICK, 5)                  \
  ZONED_LOOP(NAME, TICK, 6) ZONED_LOOP(NAME, TICK, 7) ZONED_LOOP(NAME, TICK, 8)                  \
  ZONED_LOOP(NAME, TICK, 9) ZONED_LOOP(NAME, TICK, 10)                                           \
  static const zoned_loop NAME[AM_UNIT_YEAR + 1] = {NAME##_0, NAME##_1, NAME##_2, NAME##_3,      \
                                                    NAME##_4, NAME##_5, NAME##_6, NAME##_7,      \
                                                    NAME##_8, NAME##_9, NAME##_10};
/* clang-format on */

ZONED_LOOPS(zoned_s, 1000000000)
ZONED_LOOPS(zoned_ms, 1000000)
ZONED_LOOPS(zoned_us, 1000)
ZONED_LOOPS(zoned_ns, 1)

int64_t am_round_temporal_zoned(const am_tz *tz, int op, am_type type, const int64_t *in,
                                const uint8_t *validity, int64_t bit_offset, int64_t n, int unit,
                                int64_t multiple, int flags, int64_t *out, int64_t *refused) {
  const int64_t tick = am_round_temporal_tick(type);
  const zoned_loop *loops = tick == 1000000000 ? zoned_s
                            : tick == 1000000  ? zoned_ms
                            : tick == 1000     ? zoned_us
                                               : zoned_ns;
  zoned z;
  am_tz_reader_init(&z.reader, tz);
  return loops[unit](&z, op, in, validity, bit_offset, n, multiple, flags, out, refused);
}

int am_round_temporal_refuse(am_err *err, const am_tz *tz, am_type type, int64_t local) {
  char what[400];
  const int64_t per_second = 1000000000 / am_round_temporal_tick(type);
  am_tz_local_kind kind = am_tz_describe_local(tz, per_second, local, what, sizeof what);
  return am_fail(err, AM_EINVAL, "Local time %s: %s",
                 kind == AM_TZ_AMBIGUOUS ? "is ambiguous" : "does not exist", what);
}
