/* The hash-based functions on a GPU (core/hash.h).
 *
 * Not written yet: both answer AM_EUNSUPPORTED, and the ABI (abi/hash.c)
 * then groups a GPU array on the host and moves the results back to the
 * device. The GPU design (open addressing in device memory, atomicCAS
 * inserts, first rows by atomicMin, first-occurrence order by compacting a
 * first-occurrence mask with the filter kernels) is in README.md's #11
 * status. */
#include "runtime.h"

int am_gpu_hash_group(am_err *err, const am_array *array, int flags, am_hash_groups *out) {
  (void)array;
  (void)flags;
  (void)out;
  return am_fail(err, AM_EUNSUPPORTED, "the hash-based functions have no GPU kernels yet");
}

int am_gpu_hash_lookup(am_err *err, const am_array *values, const am_array *value_set,
                       int skip_nulls, int as_bool, am_array **out) {
  (void)values;
  (void)value_set;
  (void)skip_nulls;
  (void)as_bool;
  (void)out;
  return am_fail(err, AM_EUNSUPPORTED, "the hash-based functions have no GPU kernels yet");
}
