/* quantile and tdigest on a GPU (branch quantile): not written yet. The ABI
 * (abi/quantile.c) ranks GPU-resident arrays on the host and moves the
 * result back, so these slots are never reached from it; they refuse, with
 * the reason, rather than give anything. The plan: a radix select over the
 * order keys of core/quantile.h (8- or 11-bit histogram passes over the rows
 * whose key prefix still matches, the bucket of each rank chosen on the
 * device) for quantile, and a device sort feeding core/tdigest.c's
 * am_tdigest_merge_sorted for tdigest. */
#include "core/error.h"
#include "gpu/runtime.h"

int am_gpu_quantile(am_err *err, const am_array *array, const double *q, int64_t nq,
                    am_quantile_interpolation interpolation, am_array **out) {
  (void)array, (void)q, (void)nq, (void)interpolation, (void)out;
  return am_fail(err, AM_EUNSUPPORTED,
                 "quantile has no GPU kernel yet: GPU arrays are ranked on the host");
}

int am_gpu_tdigest(am_err *err, const am_array *array, const double *q, int64_t nq,
                   uint32_t delta, uint32_t buffer_size, am_array **out) {
  (void)array, (void)q, (void)nq, (void)delta, (void)buffer_size, (void)out;
  return am_fail(err, AM_EUNSUPPORTED,
                 "tdigest has no GPU kernel yet: GPU arrays are digested on the host");
}
