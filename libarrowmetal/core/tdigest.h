/* A merging t-digest (Dunning and Ertl, "Computing extremely accurate
 * quantiles using t-digests", 2019), as pyarrow's tdigest builds it, so that
 * the same values in the same order give pyarrow's digest and quantiles:
 *
 * - values are buffered `buffer_size` at a time (0 acts as 1); a full buffer
 *   is sorted and merged with the digest in one sorted pass, and so is what
 *   is left when a quantile is asked for;
 * - the merge walks centroids in order of their means and adds each to the
 *   last one while the weight so far stays within a limit; a new centroid
 *   sets the next limit from the scale function k1, k(q) = delta / (2 pi)
 *   asin(2 q - 1): the weight up to the quantile whose k is one more than
 *   the current one's;
 * - a quantile interpolates between the centres of the two centroids around
 *   its rank q * total, exactly at a centroid of weight one, and between the
 *   smallest (largest) value and the first (last) centroid at the ends.
 *
 * Both backends share it: the CPU feeds values in slot order; a GPU sorts
 * them on the device first. No locks: one digest per caller. */
#ifndef AM_CORE_TDIGEST_H
#define AM_CORE_TDIGEST_H

#include <stdint.h>

#include "error.h"

typedef struct am_digest {
  double delta_norm;       /* delta / (2 pi) */
  int64_t buffer_size;     /* values buffered before a merge (>= 1) */
  double *buffer;          /* buffer_size values */
  int64_t buffered;        /* values in the buffer */
  double *mean, *weight;   /* the centroids, by increasing mean */
  int64_t count;           /* centroids */
  double *mean2, *weight2; /* the merge's output (swapped in after it) */
  int64_t capacity;        /* slots of each centroid array */
  double total;            /* weight of the merged centroids */
  double min, max;         /* of the merged values */
} am_digest;

/* An empty digest; AM_ENOMEM when its buffers cannot be had. */
int am_tdigest_init(am_err *err, am_digest *td, uint32_t delta, uint32_t buffer_size);
void am_tdigest_free(am_digest *td);

/* Adds one value (not NaN). AM_ENOMEM when a merge needs room it cannot
 * get. */
int am_tdigest_add(am_err *err, am_digest *td, double value);

/* Merges `n` values sorted ascending (the buffer's work already done, as a
 * GPU's sorted run), in one pass. */
int am_tdigest_merge_sorted(am_err *err, am_digest *td, const double *values, int64_t n);

/* Merges what is buffered. */
int am_tdigest_flush(am_err *err, am_digest *td);

/* Whether nothing was added. */
static inline int am_tdigest_empty(const am_digest *td) {
  return td->count == 0 && td->buffered == 0;
}

/* The quantile q of the merged values (call am_tdigest_flush first): NaN
 * for q outside [0, 1] or NaN, or an empty digest. */
double am_tdigest_quantile(const am_digest *td, double q);

#endif
