/* The last step of every aggregate kernel, shared by the backends so that a
 * GPU's answer and the CPU's are decided by the same lines. */
#include "aggregate.h"

#include <math.h>
#include <string.h>

#include "types.h"

int am_agg_outputs(am_aggregate_op op) {
  return op == AM_AGG_MIN_MAX || op == AM_AGG_FIRST_LAST ? 2 : 1;
}

static am_scalar null_of(am_type type) {
  am_scalar s;
  memset(&s, 0, sizeof s);
  s.type = type;
  s.is_null = 1;
  return s;
}

static am_scalar bool_of(int value) {
  am_scalar s;
  memset(&s, 0, sizeof s);
  s.type = AM_BOOL;
  s.i64 = value != 0;
  return s;
}

/* A value of the input type as a (valid) result of that type. */
static am_scalar value_of(const am_agg_spec *spec, am_scalar v) {
  v.type = spec->result_type;
  v.is_null = 0;
  return v;
}

/* An extreme: min and max skip NaN, so a kernel that saw only NaN has none,
 * and the answer is NaN (as pyarrow's). */
static am_scalar extreme_of(const am_agg_spec *spec, const am_agg_stats *stats, am_scalar v) {
  v = value_of(spec, v);
  if (am_type_is_float(spec->type) && stats->nan_count == stats->count) v.f64 = NAN;
  return v;
}

void am_agg_finish(const am_agg_spec *spec, const am_agg_stats *stats, am_scalar *out,
                   am_scalar *out2) {
  am_scalar r = null_of(spec->result_type);
  /* Kleene logic where nulls are not skipped: a null could be either value,
   * so only a decisive valid value gives an answer. */
  int unknown = !spec->skip_nulls && spec->nulls > 0;
  switch (spec->op) {
    case AM_AGG_ANY:
      if (stats->trues > 0)
        r = bool_of(1);
      else if (!unknown)
        r = bool_of(0);
      break;
    case AM_AGG_ALL:
      if ((uint64_t)stats->count > stats->trues)
        r = bool_of(0);
      else if (!unknown)
        r = bool_of(1);
      break;
    case AM_AGG_PRODUCT:
      r.is_null = 0;
      if (spec->type == AM_BOOL)
        r.u64 = stats->count == 0 || stats->trues == (uint64_t)stats->count;
      else if (stats->count == 0) /* min_count 0 and nothing valid: the empty product */
        r.i64 = 1, r.u64 = 1, r.f64 = 1.0;
      else
        r.i64 = stats->a.i64, r.u64 = stats->a.u64, r.f64 = stats->a.f64;
      break;
    case AM_AGG_MIN_MAX:
      if (stats->count > 0) {
        r = extreme_of(spec, stats, stats->a);
        if (out2) *out2 = extreme_of(spec, stats, stats->b);
      } else if (out2) {
        *out2 = r;
      }
      break;
    case AM_AGG_VARIANCE:
    case AM_AGG_STDDEV:
      /* ddof may be negative (pyarrow takes it): the divisor stays positive. */
      if (stats->count > (int64_t)spec->ddof) {
        double variance = stats->m2 / (double)(stats->count - (int64_t)spec->ddof);
        r.is_null = 0;
        r.f64 = spec->op == AM_AGG_STDDEV ? sqrt(variance) : variance;
      }
      break;
    case AM_AGG_FIRST:
    case AM_AGG_LAST:
      if (stats->count > 0) r = value_of(spec, stats->a);
      break;
    case AM_AGG_INDEX:
      r.is_null = 0;
      r.i64 = stats->position;
      break;
    default: /* FIRST_LAST and the reduce ops never reach a kernel's finish */
      break;
  }
  *out = r;
}
