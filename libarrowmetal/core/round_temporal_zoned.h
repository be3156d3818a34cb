/* floor_temporal, ceil_temporal and round_temporal of timestamps in a time
 * zone other than UTC (issue #13): pyarrow 26 rounds them in local time.
 *
 * pyarrow's zoned kernels (arrow/compute/kernels/scalar_temporal_unary.cc
 * with temporal_internal.h's ZonedLocalizer; read, not copied) take each
 * value to local time (the offset of its UTC second), round it with the
 * arithmetic of the UTC kernels (core/round_temporal.h) and take the
 * rounded local time back to UTC with the `date` library's to_sys, which
 * never chooses: a local time the clocks skipped or repeated is an error,
 * "Local time does not exist: " or "Local time is ambiguous: " and the
 * library's words (am_tz_describe_local). So rounding to the hour in a
 * fall-back hour, to the day where midnight was skipped (America/Sao_Paulo
 * until 2018), or even to the second inside a repeated hour, is refused.
 * The steps, as pyarrow takes them:
 *  - floor: to_sys(the local floor). For weeks pyarrow converts the
 *    local floor moved by the week start (3 days for Monday, 4 for Sunday,
 *    as its arithmetic shifts them) and takes the shift off afterwards,
 *    so the offset is read 3 or 4 days after the week's start (where the
 *    clocks change in between, the result is off by the change: pyarrow's
 *    answer), except with calendar_based_origin and a multiple above 1,
 *    where no shift is taken off (as in UTC);
 *  - ceil below months: the floor f (UTC), cl = local(f), cs = to_sys(cl);
 *    cs when neither ceil_is_strictly_greater nor cs < the value, else
 *    to_sys(cl + multiple units);
 *  - round below months: the floor and that ceil, the nearer in UTC (ties
 *    up);
 *  - months, quarters and years: to_sys of the local floor or ceil; round
 *    compares the LOCAL value with the two UTC results (pyarrow's mix of
 *    the two, kept).
 * A failed to_sys gives 0 (pyarrow's Duration{0}) and the steps go on from
 * it; each failure replaces the row's error, and each failing row the
 * call's (pyarrow's Status is overwritten per row), so the message names
 * the last local time that failed in the last row that failed. Nulls are
 * not read. Units finer than an offset's granularity (30- and 45-minute
 * offsets: Asia/Kolkata, Asia/Kathmandu, Pacific/Chatham, Lord Howe's
 * 30-minute DST) need nothing of their own: the rounding is of local
 * times, whatever their offset.
 * Divergence: past a zone file's last transition the offsets are
 * core/timezone.h's (the footer rule), where pyarrow keeps the last
 * offset; and a timestamp[s] within an offset of the int64 ends, whose
 * local time wraps to the other end, is read back with the saturating
 * comparisons of am_tz_local_at where pyarrow's `date` library wraps them
 * (a period of no meaning): the two differ there. */
#ifndef AM_CORE_ROUND_TEMPORAL_ZONED_H
#define AM_CORE_ROUND_TEMPORAL_ZONED_H

#include <stdint.h>

#include "arrowmetal.h"
#include "error.h"
#include "timezone.h"

/* out[i] = the zoned floor/ceil/round (op: 0, 1, 2) of UTC ticks in[i] of
 * timestamp type `type` in zone `tz`, for i in [0, n); slots that are null
 * in `validity` (bit bit_offset + i; NULL: none) are copied as they are.
 * unit, multiple and flags as am_round_temporal_values'. Returns -1, or the
 * last valid slot whose steps met a local time that does not exist or is
 * ambiguous, with that local time (ticks) in *refused. Thread-safe. */
int64_t am_round_temporal_zoned(const am_tz *tz, int op, am_type type, const int64_t *in,
                                const uint8_t *validity, int64_t bit_offset, int64_t n, int unit,
                                int64_t multiple, int flags, int64_t *out, int64_t *refused);

/* AM_EINVAL with pyarrow's message for local ticks `local` of `type` that a
 * zoned rounding met ("Local time does not exist: 2015-03-08 02:30:00 is
 * in a gap between ...", "Local time is ambiguous: ..."). */
int am_round_temporal_refuse(am_err *err, const am_tz *tz, am_type type, int64_t local);

#endif
