/* The GPU kernels of the temporal field extractions and of temporal
 * rounding (kernels.h: AM_KERNEL_TEMPORAL_FIELD, AM_KERNEL_ROUND_TEMPORAL),
 * written once for CUDA and MSL on the pieces of text of kernel_source.c
 * (kernel_source_emit.h).
 *
 * The element-wise loop (as ROUND's) over core/temporal.h's calendar, whose
 * text is the one the CPU compiles (AM_TEMPORAL_TEXT): each value splits
 * into its day number and the nanoseconds into the day by the unit of the
 * key's type (a constant of the kernel), then the key's field. The values
 * are read as their storage integers (int32 for date32 and time32, int64
 * for the others); the result is int64, valid where the input is.
 * DayOfWeekOptions come in the argument block (aux: week_start, and
 * count_from_zero in bit 8), so one kernel serves every option.
 *
 * ROUND_TEMPORAL is the same loop over core/round_temporal.h's text: the
 * key's type (its tick) and unit are constants of the kernel, so that the
 * periods' divisions fold as on the CPU; the op, the multiple and the
 * flags come in aux, so that one kernel serves floor, ceil and round with
 * any options. The result has the input's storage type. */
#include <stdio.h>

#include "arrowmetal.h"
#include "core/round_temporal.h"
#include "core/temporal.h"
#include "core/types.h"
#include "gpu/kernel_source_emit.h"

static const char *const unit_names[] = {"nanosecond", "microsecond", "millisecond", "second",
                                         "minute",     "hour",        "day",         "week",
                                         "month",      "quarter",     "year"};

static const char *const field_names[] = {
    "year",   "month",       "day",         "day_of_week", "day_of_year", "hour",     "minute",
    "second", "millisecond", "microsecond", "nanosecond",  "quarter",     "iso_week", "iso_year"};

int am_ks_temporal_kind(am_kernel_kind kind) {
  switch (kind) {
    AM_KS_TEMPORAL_CASES
    return 1;
    default:
      return 0;
  }
}

/* Whether field `op` takes type `t` (pyarrow's kernels; time zones are the
 * ABI's business: a kernel reads UTC). */
static int takes(int op, am_type t) {
  int date_field = op <= AM_FIELD_DAY_OF_YEAR || op >= AM_FIELD_QUARTER;
  if (am_type_is_timestamp(t)) return 1;
  if (date_field) return t == AM_DATE32 || t == AM_DATE64;
  return t >= AM_TIME32_S && t <= AM_TIME64_NS;
}

int am_ks_temporal_key_ok(const am_kernel_key *k) {
  if (!am_type_is_temporal(k->t0) || k->t1 != AM_TYPE_INVALID) return 0;
  if (k->kind == AM_KERNEL_ROUND_TEMPORAL) /* a duration's units end at days (the ABI's weeks) */
    return k->op >= AM_UNIT_NANOSECOND &&
           k->op <= (k->t0 >= AM_DURATION_S ? AM_UNIT_DAY : AM_UNIT_YEAR);
  return k->op >= AM_FIELD_YEAR && k->op <= AM_FIELD_ISO_YEAR && takes(k->op, k->t0);
}

int am_ks_temporal_missing_type(am_dialect dialect, const am_kernel_key *k) {
  return !am_dialect_has_type(dialect, am_type_storage(k->t0)) ||
         !am_dialect_has_type(dialect, AM_INT64);
}

/* The type's part of a kernel name ("timestamp[ms]" -> "timestamp_ms"). */
static void type_part(am_type t, char *out, size_t capacity) {
  const char *label = am_type_label(t);
  size_t j = 0;
  for (size_t i = 0; label[i] && j + 1 < capacity; i++) {
    char c = label[i];
    if (c == '[') c = '_';
    if (c == ']') continue;
    out[j++] = c;
  }
  out[j] = '\0';
}

void am_ks_temporal_name(const am_kernel_key *k, char *name, size_t capacity) {
  char type[32];
  type_part(k->t0, type, sizeof type);
  if (k->kind == AM_KERNEL_ROUND_TEMPORAL)
    snprintf(name, capacity, "am_round_temporal_%s_%s", unit_names[k->op], type);
  else
    snprintf(name, capacity, "am_%s_%s", field_names[k->op], type);
}

int64_t am_ks_temporal_blocks(const am_kernel_key *key, int64_t n, int multiprocessors) {
  (void)key;
  (void)multiprocessors;
  return (n + AM_GPU_BLOCK - 1) / AM_GPU_BLOCK; /* one slot per thread per pass */
}

static const char load_one[] =
    "    bool ok# = false;\n"
    "    T0 x# = 0;\n"
    "    if (i# < n) {\n"
    "      ok# = !hv0 || am_bit(a.valid0, a.off0 + i#) != 0u;\n"
    "      x# = AM_LOAD0(i#);\n"
    "    }\n";

static const char field_compute[] =
    "      TR r# = 0;\n"
    "      if (ok#) r# = am_temporal_one((am_i64)x#, week_start, count_from_zero);\n";

static const char round_compute[] =
    "      TR r# = 0;\n"
    "      if (ok#) r# = (TR)am_rt_rep(am_round_temporal_one((am_i64)x#, op, mult, flags), "
    "narrow);\n";

/* ROUND_TEMPORAL: the loop of FIELD, over am_round_temporal_value with the
 * key's unit and the type's tick as constants. */
static void emit_round(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type storage = am_type_storage(k->t0);
  am_ks_operand(sb, 0, storage);
  am_sb_puts(sb, "typedef T0 TR;\n");
  am_sb_puts(sb, AM_ROUND_TEMPORAL_TEXT(AM_ROUND_TEMPORAL_DEFS));
  am_sb_printf(sb,
               "\nDEVFN am_i64 am_round_temporal_one(am_i64 v, int op, am_i64 mult, int flags) {\n"
               "  return am_round_temporal_value(v, op, %d, mult, flags, %lld, %d);\n"
               "}\n",
               k->op, (long long)am_round_temporal_tick(k->t0), k->t0 == AM_DATE32 ? 1 : 0);
  am_ks_args(sb, am_ks_ptype(storage), "am_u8", am_ks_ptype(storage));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_printf(sb,
               "  const bool hv0 = a.valid0 != 0;\n"
               "  const am_i64 mult = a.aux & 0xffffffff;\n"
               "  const int flags = (int)((a.aux >> 32) & 0xff);\n"
               "  const int op = (int)((a.aux >> 40) & 0xff);\n"
               "  const int narrow = %d;\n",
               storage == AM_INT32 ? 1 : 0);
  am_ks_warp_loop(sb, am_ks_unroll(storage, 0), load_one, NULL, round_compute, 0);
}

void am_ks_temporal_emit(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  if (k->kind == AM_KERNEL_ROUND_TEMPORAL) {
    emit_round(sb, d, k, name);
    return;
  }
  am_type storage = am_type_storage(k->t0);
  int64_t per_day, to_ns;
  am_temporal_split(k->t0, &per_day, &to_ns);
  am_ks_operand(sb, 0, storage);
  am_sb_puts(sb, "typedef am_i64 TR;\n");
  am_sb_puts(sb, AM_TEMPORAL_TEXT(AM_TEMPORAL_DEFS));
  am_sb_printf(sb,
               "\nDEVFN am_i64 am_temporal_one(am_i64 v, int week_start, int count_from_zero) {\n"
               "  const am_i64 per_day = %lld;\n"
               "  const am_i64 days = per_day == 1 ? v : am_floor_div(v, per_day);\n"
               /* the day's ticks in unsigned arithmetic: days * per_day wraps
                * below day -106,751 in ns, the difference does not */
               "  const am_i64 ns = per_day == 1 ? 0 : (am_i64)((am_u64)v - (am_u64)days *\n"
               "      (am_u64)per_day) * %lld;\n"
               "  return am_field(%d, days, ns, week_start, count_from_zero);\n"
               "}\n",
               (long long)per_day, (long long)to_ns, k->op);
  am_ks_args(sb, am_ks_ptype(storage), "am_u8", "am_i64");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  const int week_start = (int)(a.aux & 0xff);\n"
             "  const int count_from_zero = (int)((a.aux >> 8) & 1);\n");
  am_ks_warp_loop(sb, am_ks_unroll(storage, 0), load_one, NULL, field_compute, 0);
}
