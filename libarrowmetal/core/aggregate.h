/* am_aggregate's ops as data every layer shares.
 *
 * The ABI decides what does not depend on the values (options, the null
 * count, the result type) and hands a backend an am_agg_spec; the backend's
 * kernel measures the array (am_agg_stats) and am_agg_finish turns the
 * measurements into the result under the spec. The CPU finishes at once; a
 * GPU backend finishes when its work has completed, which inside a batch is
 * at the batch's end, long after the ABI returned: so the options that need
 * the data (Kleene logic, ddof) travel in the spec rather than being applied
 * by the ABI afterwards.
 *
 * Kernel-level ops: ANY, ALL, PRODUCT, MIN_MAX, VARIANCE (STDDEV measures
 * the same), FIRST, LAST and INDEX. The ABI splits FIRST_LAST into a FIRST and
 * a LAST, and runs SUM, MIN, MAX and MEAN through the reduce kernels. */
#ifndef AM_CORE_AGGREGATE_H
#define AM_CORE_AGGREGATE_H

#include <stdint.h>

#include "arrowmetal.h"

typedef struct am_agg_spec {
  am_aggregate_op op;
  am_type type;        /* the input's element type */
  am_type result_type; /* of every output (pyarrow's rule, core/ops.c's row) */
  int skip_nulls;      /* ANY, ALL: 0 is Kleene logic */
  int32_t ddof;        /* VARIANCE, STDDEV */
  int64_t nulls;       /* null slots of the input */
  am_scalar value;     /* INDEX: the value sought, of `type`, valid */
} am_agg_spec;

/* What a kernel measured over the valid slots it was given. Values of the
 * input type sit in the am_scalar field of that type (i64 for bool and
 * signed integers, u64 for unsigned ones, f64 for floats). */
typedef struct am_agg_stats {
  int64_t count;     /* valid slots */
  int64_t nan_count; /* MIN_MAX: of them NaN */
  uint64_t trues;    /* ANY, ALL, PRODUCT of bool: valid slots holding true */
  int64_t position;  /* FIRST, LAST, INDEX: the slot found, -1 for none */
  am_scalar a;       /* PRODUCT: the product; MIN_MAX: the min; FIRST, LAST: the value */
  am_scalar b;       /* MIN_MAX: the max */
  double mean, m2;   /* VARIANCE: the mean and the sum of squared deviations */
} am_agg_stats;

/* Outputs of an op: 2 for MIN_MAX and FIRST_LAST, else 1. */
int am_agg_outputs(am_aggregate_op op);

/* Writes the result(s) of `stats` under `spec`: out, and out2 for MIN_MAX. */
void am_agg_finish(const am_agg_spec *spec, const am_agg_stats *stats, am_scalar *out,
                   am_scalar *out2);

/* Folds the moments (nb, mb, m2b) of a later block into (n, mean, m2): Chan,
 * Golub and LeVeque's pairwise update, exact in the counts and stable in
 * M2 (no difference of large sums). */
static inline void am_agg_merge_moments(int64_t *n, double *mean, double *m2, int64_t nb, double mb,
                                        double m2b) {
  if (nb == 0) return;
  if (*n == 0) {
    *n = nb, *mean = mb, *m2 = m2b;
    return;
  }
  int64_t total = *n + nb;
  double delta = mb - *mean;
  double share = (double)nb / (double)total;
  *mean += delta * share;
  *m2 += m2b + delta * delta * (double)*n * share;
  *n = total;
}

#endif
