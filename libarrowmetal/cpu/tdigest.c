/* tdigest (am_tdigest) on the CPU: the valid non-NaN values, in slot order,
 * into one merging t-digest (core/tdigest.h), which is how pyarrow builds
 * its digest of one array or of a ChunkedArray's chunks in turn; the same
 * buffers, sorts and merges give pyarrow's centroids and quantiles. The
 * digest runs on the calling thread alone: its merges are a chain (each
 * buffer merges into the digest the previous ones left), and doing them in
 * another order would give another digest, so the result never depends on
 * the pool's thread count. */
#include <stdlib.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/tdigest.h"
#include "cpu.h"

#define DEFINE_FEED(TYPE, CT, UT, SHORT, FIELD, LO, HI)                    \
  static int feed_##SHORT(am_err *err, am_digest *td, const am_array *a) { \
    const CT *x = (const CT *)a->data + a->offset;                         \
    const int nulls = am_cpu_has_nulls(a);                                 \
    for (int64_t i = 0; i < a->length; i++) {                              \
      if (nulls && !am_bit_get(a->validity, a->offset + i)) continue;      \
      const CT v = x[i];                                                   \
      if (v != v) continue; /* NaN: left out, as pyarrow leaves it out */  \
      int status = am_tdigest_add(err, td, (double)v);                     \
      if (status != AM_OK) return status;                                  \
    }                                                                      \
    return AM_OK;                                                          \
  }
AM_CPU_NUMERIC_TYPES(DEFINE_FEED)
#undef DEFINE_FEED

static int feed(am_err *err, am_digest *td, const am_array *a) {
  switch (a->type) {
#define CASE(TYPE, CT, UT, SHORT, FIELD, LO, HI) \
  case TYPE:                                     \
    return feed_##SHORT(err, td, a);
    AM_CPU_NUMERIC_TYPES(CASE)
#undef CASE
    default:
      return am_fail(err, AM_ETYPE, "tdigest takes numbers");
  }
}

int am_cpu_tdigest(am_err *err, const am_array *array, const double *q, int64_t nq, uint32_t delta,
                   uint32_t buffer_size, am_device *host, am_array **out) {
  (void)host; /* the CPU's own device */
  am_digest td;
  int status = am_tdigest_init(err, &td, delta, buffer_size);
  if (status == AM_OK) status = feed(err, &td, array);
  if (status == AM_OK) status = am_tdigest_flush(err, &td);
  if (status == AM_OK && am_tdigest_empty(&td)) {
    status = am_cpu_null_result(err, am_cpu_device(), AM_FLOAT64, nq, out);
  } else if (status == AM_OK) {
    am_array *result = NULL;
    status = am_array_alloc_host(err, am_cpu_device(), AM_FLOAT64, nq, 0, &result);
    if (status == AM_OK) {
      double *o = (double *)result->data;
      for (int64_t i = 0; i < nq; i++) o[i] = am_tdigest_quantile(&td, q[i]);
      atomic_store(&result->null_count, 0);
      *out = result;
    }
  }
  am_tdigest_free(&td);
  return status;
}
