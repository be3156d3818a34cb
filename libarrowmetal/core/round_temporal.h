/* floor_temporal, ceil_temporal, round_temporal: pyarrow 26's arithmetic,
 * written once for every backend.
 *
 * pyarrow computes these with the chrono types of Howard Hinnant's date
 * library (arrow/compute/kernels/scalar_temporal_unary.cc, read, not
 * copied): a value is a duration of its type's tick (days for date32,
 * milliseconds for date64, the unit otherwise); a unit of the options is
 * another duration (nanoseconds ... hours, days, weeks); months, quarters
 * and years go through a year_month_day. Its results are those of that
 * arithmetic exactly, including where it overflows, which happens within
 * ordinary inputs (a date32 rounded to nanoseconds multiplies days by
 * 86,400e9): days and weeks count in 32-bit ints, a year is a 16-bit short
 * and a month and a day unsigned chars, every int64 product wraps. The
 * functions below follow those steps and those widths, so the library's
 * results are pyarrow's bit for bit over the whole range of every type
 * (python/tests/test_round_temporal.py sweeps random int64s against it):
 *  - a duration is a count with a period (nanoseconds in one tick) and a
 *    width (am_rt_rep: 32 bits for days and weeks); a cast to another
 *    period multiplies, wrapping, or divides, truncating (chrono's
 *    duration_cast), then narrows to the target's width; chrono's floor is
 *    that cast less one where it went up, compared in the finer period;
 *  - two folds of pyarrow's compiler are kept: a floor to a finer unit cast
 *    back (x * k / k) gives x itself, never the wrapped product's quotient
 *    (so floor_temporal of a timestamp[s] to 1 nanosecond is the identity
 *    at any value; am_rt_unit and the origins of calendar_based_origin);
 *  - the calendar is date.h's civil_from_days / days_from_civil in int and
 *    unsigned 32-bit arithmetic (am_rt_ymd, am_rt_days), month arithmetic
 *    its year_month + months (am_rt_add_months).
 * What pyarrow's options do, as its code does it (not always what its
 * documentation says): ceil of months, quarters and years always moves to
 * the next boundary, even from one (ceil_is_strictly_greater changes
 * nothing there); round takes ceil's ceil_is_strictly_greater too; a
 * week with calendar_based_origin counts from the Monday (Sunday) of the
 * year's first ISO-like week and leaves the week_starts offset in the
 * result; a year's multiple counts from year 0 truncating toward zero.
 *
 * The functions are macro text (AM_ROUND_TEMPORAL_DEFS) in the C subset
 * that C, CUDA C++ and the Metal Shading Language share: the CPU compiles it
 * (core/round_temporal.c), the kernel source emits it as text with
 * AM_ROUND_TEMPORAL_TEXT (gpu/kernel_source_temporal.c). They use am_i64,
 * am_u64, am_u32 (date.h's unsigned arithmetic) and am_i32 (its int
 * divisions, which 64-bit ones would slow) only, wrap through
 * unsigned arithmetic (C's signed overflow is undefined; pyarrow's compiled
 * code wraps), and return one value each (no
 * pointers: MSL would need address spaces); a year_month_day travels packed
 * in one am_i64 (am_rt_pack). The entry is am_round_temporal_value. */
#ifndef AM_CORE_ROUND_TEMPORAL_H
#define AM_CORE_ROUND_TEMPORAL_H

#include <stdint.h>

#include "arrowmetal.h"

#define AM_ROUND_TEMPORAL_STR(...) #__VA_ARGS__
#define AM_ROUND_TEMPORAL_TEXT(...) AM_ROUND_TEMPORAL_STR(__VA_ARGS__)

/* am_round_temporal_value's flags: RoundTemporalOptions' booleans. */
#define AM_RT_WEEK_STARTS_MONDAY 1
#define AM_RT_CEIL_IS_STRICTLY_GREATER 2
#define AM_RT_CALENDAR_BASED_ORIGIN 4

/* The vocabulary: DEVFN (a function), am_i64, am_u64, am_u32, am_i32.
 * am_rt_w32 / am_rt_w16 / am_rt_u32: x wrapped to int, short, unsigned.
 * am_rt_div32: int division (INT_MIN / -1 wraps, where C++'s would trap).
 * am_rt_period: the nanoseconds of am_calendar_unit `unit` (ns .. week).
 * am_rt_cast(x, from, to, narrow): duration_cast between periods.
 * am_rt_floor(x, pd, rd, pu, ru): chrono's floor of a duration of period
 *   pd (rd: 32-bit) to period pu (ru: 32-bit).
 * am_rt_ymd(days): year_month_day, packed (am_rt_year/_month/_day read it).
 * am_rt_days(y, m, d): the day number of a year_month_day.
 * am_rt_weekday: date.h's weekday of a day number, Sunday 0.
 * am_rt_add_months(y, m, n): year/month + months{n}, packed with day 1.
 * am_rt_unit: FloorTimePoint of unit ns .. day; am_rt_week:
 *   FloorWeekTimePoint; am_rt_calendar: months, quarters and years, for
 *   `op` (0 floor, 1 ceil, 2 round).
 * am_round_temporal_value(v, op, unit, multiple, flags, pd, rd): one value
 *   of a type of tick pd (rd: a 32-bit duration, date32), as pyarrow's
 *   kernel returns it before its cast to the storage type. */
/* clang-format off */
#define AM_ROUND_TEMPORAL_DEFS                                                                      \
  DEVFN am_i64 am_rt_add(am_i64 a, am_i64 b) { return (am_i64)((am_u64)a + (am_u64)b); }            \
  DEVFN am_i64 am_rt_sub(am_i64 a, am_i64 b) { return (am_i64)((am_u64)a - (am_u64)b); }            \
  DEVFN am_i64 am_rt_mul(am_i64 a, am_i64 b) { return (am_i64)((am_u64)a * (am_u64)b); }            \
  DEVFN am_i64 am_rt_u32(am_i64 x) { return (am_i64)((am_u64)x & (am_u64)0xffffffffu); }            \
  DEVFN am_i64 am_rt_w32(am_i64 x) {                                                                \
    return (am_i64)(((am_u64)x + (am_u64)0x80000000u) & (am_u64)0xffffffffu) - (am_i64)0x80000000u; \
  }                                                                                                 \
  DEVFN am_i64 am_rt_w16(am_i64 x) {                                                                \
    return (am_i64)(((am_u64)x + (am_u64)0x8000u) & (am_u64)0xffffu) - (am_i64)0x8000u;             \
  }                                                                                                 \
  DEVFN am_i64 am_rt_rep(am_i64 x, int narrow) { return narrow ? am_rt_w32(x) : x; }                \
  DEVFN am_i64 am_rt_div32(am_i64 a, am_i64 b) {                                                    \
    return b == -1 ? am_rt_w32(-a) : (am_i64)((am_i32)a / (am_i32)b);                               \
  }                                                                                                 \
  DEVFN am_i64 am_rt_period(int unit) {                                                             \
    if (unit == 0) return 1;                                                                        \
    if (unit == 1) return 1000;                                                                     \
    if (unit == 2) return 1000000;                                                                  \
    if (unit == 3) return 1000000000;                                                               \
    if (unit == 4) return 60000000000;                                                              \
    if (unit == 5) return 3600000000000;                                                            \
    if (unit == 6) return 86400000000000;                                                           \
    return 604800000000000;                                                                         \
  }                                                                                                 \
  DEVFN am_i64 am_rt_cast(am_i64 x, am_i64 from, am_i64 to, int narrow) {                           \
    return am_rt_rep(from >= to ? am_rt_mul(x, from / to) : x / (to / from), narrow);               \
  }                                                                                                 \
  DEVFN am_i64 am_rt_floor(am_i64 x, am_i64 pd, int rd, am_i64 pu, int ru) {                        \
    const am_i64 t = am_rt_cast(x, pd, pu, ru);                                                     \
    const am_i64 pc = pd < pu ? pd : pu;                                                            \
    const int rc = rd && ru;                                                                        \
    const int up = am_rt_cast(t, pu, pc, rc) > am_rt_cast(x, pd, pc, rc);                           \
    return up ? am_rt_rep(am_rt_sub(t, 1), ru) : t;                                                 \
  }                                                                                                 \
  DEVFN am_i64 am_rt_pack(am_i64 y, am_i64 m, am_i64 d) {                                           \
    return (am_i64)(((am_u64)(am_rt_w16(y) + 32768) << 16) | ((am_u64)m & 255u) << 8 |              \
                    ((am_u64)d & 255u));                                                            \
  }                                                                                                 \
  DEVFN am_i64 am_rt_year(am_i64 p) { return (am_i64)((am_u64)p >> 16) - 32768; }                   \
  DEVFN am_i64 am_rt_month(am_i64 p) { return (am_i64)(((am_u64)p >> 8) & 255u); }                  \
  DEVFN am_i64 am_rt_day(am_i64 p) { return (am_i64)((am_u64)p & 255u); }                           \
  DEVFN am_i64 am_rt_ymd(am_i64 days) {                                                             \
    const am_i64 z = am_rt_w32(days + 719468);                                                      \
    const am_i64 era = (z >= 0 ? z : am_rt_w32(z - 146096)) / 146097;                               \
    const am_u32 doe = (am_u32)(am_u64)(z - era * 146097);                                          \
    const am_u32 yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;                   \
    const am_i64 y = am_rt_w32((am_i64)yoe + era * 400);                                            \
    const am_u32 doy = doe - (365u * yoe + yoe / 4u - yoe / 100u);                                  \
    const am_u32 mp = (5u * doy + 2u) / 153u;                                                       \
    const am_u32 d = doy - (153u * mp + 2u) / 5u + 1u;                                              \
    const am_u32 m = mp < 10u ? mp + 3u : mp - 9u;                                                  \
    return am_rt_pack(y + (m <= 2u ? 1 : 0), (am_i64)m, (am_i64)d);                                 \
  }                                                                                                 \
  DEVFN am_i64 am_rt_days(am_i64 y, am_i64 m, am_i64 d) {                                           \
    const am_i64 y2 = y - (m <= 2 ? 1 : 0);                                                         \
    const am_i64 era = (y2 >= 0 ? y2 : y2 - 399) / 400;                                             \
    const am_u32 yoe = (am_u32)(y2 - era * 400);                                                    \
    const am_u32 mu = (am_u32)m;                                                                    \
    const am_u32 doy = (153u * (mu > 2u ? mu - 3u : mu + 9u) + 2u) / 5u + (am_u32)d - 1u;           \
    const am_u32 doe = yoe * 365u + yoe / 4u - yoe / 100u + doy;                                    \
    return am_rt_w32(era * 146097 + am_rt_w32((am_i64)doe) - 719468);                               \
  }                                                                                                 \
  DEVFN am_i64 am_rt_weekday(am_i64 z) { return z >= -4 ? (z + 4) % 7 : (z + 5) % 7 + 6; }          \
  DEVFN am_i64 am_rt_add_months(am_i64 y, am_i64 m, am_i64 n) {                                     \
    const am_i64 dmi = am_rt_w32(m - 1 + n);                                                        \
    const am_i64 dy = (dmi >= 0 ? dmi : am_rt_w32(dmi - 11)) / 12;                                  \
    return am_rt_pack(am_rt_w32(y + dy), am_rt_w32(dmi - am_rt_w32(dy * 12) + 1), 1);               \
  }                                                                                                 \
  DEVFN am_i64 am_rt_unit(am_i64 t, am_i64 pd, int rd, int unit, am_i64 mult, int cal) {            \
    const am_i64 pu = am_rt_period(unit);                                                           \
    const int ru = unit >= 6;                                                                       \
    if (mult == 1) return pu < pd ? t : am_rt_cast(am_rt_floor(t, pd, rd, pu, ru), pu, pd, rd);     \
    if (cal) {                                                                                      \
      am_i64 origin;                                                                                \
      if (unit >= 5) {                                                                              \
        const am_i64 p = am_rt_ymd(am_rt_floor(t, pd, rd, am_rt_period(6), 1));                     \
        const am_i64 day = am_rt_days(am_rt_year(p), am_rt_month(p), unit == 6 ? 1 : am_rt_day(p)); \
        origin = am_rt_cast(day, am_rt_period(6), pd, rd);                                          \
      } else {                                                                                      \
        const am_i64 pb = am_rt_period(unit + 1);                                                   \
        origin = pb < pd ? t : am_rt_cast(am_rt_floor(t, pd, rd, pb, 0), pb, pd, rd);               \
      }                                                                                             \
      const am_i64 pc = pd < pu ? pd : pu;                                                          \
      const int rc = rd && ru;                                                                      \
      const am_i64 diff = am_rt_cast(am_rt_rep(am_rt_sub(t, origin), rd), pd, pc, rc);              \
      const am_i64 k = am_rt_rep(am_rt_mul(diff / am_rt_cast(mult, pu, pc, rc), mult), rc);         \
      const am_i64 s = am_rt_add(am_rt_cast(k, pu, pc, rc), am_rt_cast(origin, pd, pc, rc));        \
      return am_rt_cast(am_rt_rep(s, rc), pc, pd, rd);                                              \
    }                                                                                               \
    const am_i64 d = am_rt_floor(t, pd, rd, pu, ru);                                                \
    const am_i64 e = d >= 0 ? d : am_rt_rep(am_rt_add(am_rt_rep(am_rt_sub(d, mult), ru), 1), ru);   \
    const am_i64 q = ru ? am_rt_div32(e, mult) : e / mult;                                          \
    return am_rt_cast(am_rt_rep(am_rt_mul(q, mult), ru), pu, pd, rd);                               \
  }                                                                                                 \
  DEVFN am_i64 am_rt_week(am_i64 a, am_i64 pd, int rd, am_i64 mult, int cal, int monday) {          \
    const am_i64 pday = am_rt_period(6), pweek = am_rt_period(7);                                   \
    const am_i64 offset = am_rt_cast(monday ? 3 : 4, pday, pd, rd);                                 \
    const am_i64 t = am_rt_rep(am_rt_add(a, offset), rd);                                           \
    if (cal && mult != 1) {                                                                         \
      const am_i64 p = am_rt_ymd(am_rt_floor(t, pd, rd, pday, 1));                                  \
      const am_i64 last = am_rt_days(am_rt_w16(am_rt_year(p) - 1), 12, 31);                         \
      const am_i64 wdu = am_rt_weekday(last) - (monday ? 4 : 3);                                    \
      const am_i64 wk = (wdu >= 0 ? wdu : wdu - 6) / 7;                                             \
      const am_i64 start = am_rt_w32(am_rt_w32(last - (wdu - wk * 7)) + 4);                         \
      const am_i64 pc = pd < pday ? pd : pday;                                                      \
      const am_i64 from = am_rt_cast(start, pday, pc, rd);                                          \
      const am_i64 diff = am_rt_rep(am_rt_sub(am_rt_cast(t, pd, pc, rd), from), rd);                \
      const am_i64 k = am_rt_rep(am_rt_mul(diff / am_rt_cast(mult, pweek, pc, rd), mult), rd);      \
      const am_i64 s = am_rt_add(am_rt_cast(k, pweek, pday, rd), start);                            \
      return am_rt_cast(am_rt_rep(s, rd), pday, pd, rd);                                            \
    }                                                                                               \
    const am_i64 d = am_rt_floor(t, pd, rd, pweek, 1);                                              \
    const am_i64 e = d >= 0 ? d : am_rt_w32(am_rt_w32(d - mult) + 1);                               \
    const am_i64 m = mult == 1 ? d : am_rt_w32(am_rt_div32(e, mult) * mult);                        \
    return am_rt_rep(am_rt_sub(am_rt_cast(m, pweek, pd, rd), offset), rd);                          \
  }                                                                                                 \
  DEVFN am_i64 am_rt_calendar(int op, am_i64 a, am_i64 pd, int rd, int unit, am_i64 mult,           \
                              int cal) {                                                            \
    const am_i64 pday = am_rt_period(6);                                                            \
    const am_i64 p = am_rt_ymd(am_rt_floor(a, pd, rd, pday, 1));                                    \
    const am_i64 y = am_rt_year(p);                                                                 \
    am_i64 fy, fm, cy, cm;                                                                          \
    if (unit == 10) {                                                                               \
      const am_i64 q = am_rt_div32(y, mult);                                                        \
      fy = am_rt_w16(am_rt_mul(q, mult));                                                           \
      cy = am_rt_w16(op == 1 ? am_rt_mul(q + 1, mult) : fy + mult);                                 \
      fm = cm = 1;                                                                                  \
    } else {                                                                                        \
      const am_i64 months = unit == 8 ? mult : am_rt_w32(3 * mult);                                 \
      const am_i64 m = am_rt_month(p);                                                              \
      am_i64 fl;                                                                                    \
      if (months == 1) {                                                                            \
        fl = am_rt_pack(y, m, 1);                                                                   \
      } else if (cal) {                                                                             \
        const am_i64 um = am_rt_u32(months);                                                        \
        fl = am_rt_add_months(y, 1, am_rt_w32((m - 1) / um * um));                                  \
      } else {                                                                                      \
        am_i64 total = am_rt_w32(y * 12 + m - 1 - 1970 * 12);                                       \
        if (total < 0) total = am_rt_w32(am_rt_w32(total - months) + 1);                            \
        fl = am_rt_add_months(1970, 1, am_rt_w32(am_rt_div32(total, months) * months));             \
      }                                                                                             \
      fy = am_rt_year(fl);                                                                          \
      fm = am_rt_month(fl);                                                                         \
      const am_i64 cl = op == 0 ? fl : am_rt_add_months(fy, fm, months);                            \
      cy = am_rt_year(cl);                                                                          \
      cm = am_rt_month(cl);                                                                         \
    }                                                                                               \
    const am_i64 f = op == 1 ? 0 : am_rt_cast(am_rt_days(fy, fm, 1), pday, pd, rd);                 \
    if (op == 0) return f;                                                                          \
    const am_i64 c = am_rt_cast(am_rt_days(cy, cm, 1), pday, pd, rd);                               \
    if (op == 1) return c;                                                                          \
    return am_rt_rep(am_rt_sub(a, f), rd) >= am_rt_rep(am_rt_sub(c, a), rd) ? c : f;                \
  }                                                                                                 \
  DEVFN am_i64 am_round_temporal_value(am_i64 v, int op, int unit, am_i64 mult, int flags,          \
                                       am_i64 pd, int rd) {                                         \
    if (unit >= 8) return am_rt_calendar(op, v, pd, rd, unit, mult, (flags & 4) != 0);              \
    const int cal = (flags & 4) != 0;                                                               \
    const am_i64 f = unit == 7 ? am_rt_week(v, pd, rd, mult, cal, (flags & 1) != 0)                 \
                               : am_rt_unit(v, pd, rd, unit, mult, cal);                            \
    if (op == 0) return f;                                                                          \
    const am_i64 step = am_rt_cast(mult, am_rt_period(unit), pd, rd);                               \
    const am_i64 c = ((flags & 2) != 0 || f < v) ? am_rt_rep(am_rt_add(f, step), rd) : f;           \
    if (op == 1) return c;                                                                          \
    return am_rt_rep(am_rt_sub(v, f), rd) >= am_rt_rep(am_rt_sub(c, v), rd) ? c : f;                \
  }
/* clang-format on */

/* The nanoseconds of one tick of temporal type `t` (a day for date32). */
int64_t am_round_temporal_tick(am_type t);

/* out[i] = am_round_temporal_value of slot offset + i of `data` (a type's
 * storage, in host memory), wrapped to the storage width, for every slot,
 * nulls too (whatever value they hold): `out` has the storage type. */
void am_round_temporal_values(int op, am_type type, const void *data, int64_t offset,
                              int64_t length, int unit, int64_t multiple, int flags, void *out);

#endif
