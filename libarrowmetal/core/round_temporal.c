/* floor/ceil/round_temporal on host memory (the CPU's loop; GPU arrays use
 * gpu/kernel_source_temporal.c's kernel, from the same text): one pass of
 * core/round_temporal.h's arithmetic over the storage integers. */
#include "round_temporal.h"

#include "temporal.h"
#include "types.h"

typedef int64_t am_i64;
typedef uint64_t am_u64;
typedef uint32_t am_u32;
typedef int32_t am_i32;
/* Inlined whole into each loop below, whose tick and unit are constants:
 * the periods' divisions fold into multiplications (10M timestamp[us]
 * floored to days on one thread: 229 ms with them as variables, 39 ms
 * folded). */
#define DEVFN static inline __attribute__((always_inline))
AM_ROUND_TEMPORAL_DEFS
#undef DEVFN

int64_t am_round_temporal_tick(am_type t) {
  int64_t per_day, to_ns;
  am_temporal_split(t, &per_day, &to_ns);
  return per_day == 1 ? 86400 * (int64_t)1000000000 : to_ns;
}

typedef void (*round_loop)(int op, const void *data, int64_t length, int64_t multiple, int flags,
                           void *out);

/* The loop of storage T, tick TICK nanoseconds (NARROW: a 32-bit duration,
 * date32's days) and unit UNIT. A calendar unit (month, quarter, year) with
 * pyarrow's default multiple, 1, has a loop of its own where the multiple is
 * a constant too, so that its divisions fold (10M timestamp[us] on one
 * thread, CPU time: round to quarters 384 -> 308 ms, floor to years 115 ->
 * 105; the units below, whose multiple of 1 is a branch of its own, lose by
 * such a loop: round to seconds 24 -> 59 ms). */
#define ROUND_VALUES(T, TICK, NARROW, UNIT, MULTIPLE)                                           \
  for (int64_t i = 0; i < length; i++) {                                                        \
    const am_i64 r =                                                                            \
        am_round_temporal_value(((const T *)data)[i], op, UNIT, MULTIPLE, flags, TICK, NARROW); \
    ((T *)out)[i] = (T)am_rt_rep(r, sizeof(T) == 4);                                            \
  }
#define ROUND_LOOP(NAME, T, TICK, NARROW, UNIT)                                                    \
  static void NAME##_##UNIT(int op, const void *data, int64_t length, int64_t multiple, int flags, \
                            void *out) {                                                           \
    if (UNIT >= AM_UNIT_MONTH && multiple == 1) {                                                  \
      ROUND_VALUES(T, TICK, NARROW, UNIT, 1)                                                       \
    } else {                                                                                       \
      ROUND_VALUES(T, TICK, NARROW, UNIT, multiple)                                                \
    }                                                                                              \
  }
/* clang-format off */
#define ROUND_LOOPS(NAME, T, TICK, NARROW)                                                     \
  ROUND_LOOP(NAME, T, TICK, NARROW, 0) ROUND_LOOP(NAME, T, TICK, NARROW, 1)                    \
  ROUND_LOOP(NAME, T, TICK, NARROW, 2) ROUND_LOOP(NAME, T, TICK, NARROW, 3)                    \
  ROUND_LOOP(NAME, T, TICK, NARROW, 4) ROUND_LOOP(NAME, T, TICK, NARROW, 5)                    \
  ROUND_LOOP(NAME, T, TICK, NARROW, 6) ROUND_LOOP(NAME, T, TICK, NARROW, 7)                    \
  ROUND_LOOP(NAME, T, TICK, NARROW, 8) ROUND_LOOP(NAME, T, TICK, NARROW, 9)                    \
  ROUND_LOOP(NAME, T, TICK, NARROW, 10)                                                        \
  static const round_loop NAME[AM_UNIT_YEAR + 1] = {NAME##_0, NAME##_1, NAME##_2, NAME##_3,    \
                                                    NAME##_4, NAME##_5, NAME##_6, NAME##_7,    \
                                                    NAME##_8, NAME##_9, NAME##_10};
/* clang-format on */

/* Timestamps, durations, time64 and date64 (int64); date32 and time32. */
ROUND_LOOPS(i64_s, int64_t, 1000000000, 0)
ROUND_LOOPS(i64_ms, int64_t, 1000000, 0)
ROUND_LOOPS(i64_us, int64_t, 1000, 0)
ROUND_LOOPS(i64_ns, int64_t, 1, 0)
ROUND_LOOPS(i32_day, int32_t, 86400000000000, 1)
ROUND_LOOPS(i32_s, int32_t, 1000000000, 0)
ROUND_LOOPS(i32_ms, int32_t, 1000000, 0)

void am_round_temporal_values(int op, am_type type, const void *data, int64_t offset,
                              int64_t length, int unit, int64_t multiple, int flags, void *out) {
  const int64_t tick = am_round_temporal_tick(type);
  const round_loop *loops;
  if (type == AM_DATE32)
    loops = i32_day;
  else if (am_type_storage(type) == AM_INT32)
    loops = tick == 1000000000 ? i32_s : i32_ms;
  else
    loops = tick == 1000000000 ? i64_s : tick == 1000000 ? i64_ms : tick == 1000 ? i64_us : i64_ns;
  const int64_t width = am_type_storage(type) == AM_INT32 ? 4 : 8;
  loops[unit](op, (const char *)data + offset * width, length, multiple, flags, out);
}
