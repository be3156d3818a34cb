/* Hash joins on a GPU: not written yet (the device build and probe are
 * issue #12's GPU part); until then the ABI (abi/join.c) joins GPU keys on
 * the host and moves the indices back. */
#include "core/error.h"
#include "runtime.h"

int am_gpu_join_indices(am_err *err, const am_array *const *left_keys,
                        const am_array *const *right_keys, int64_t n_keys, am_join_type join_type,
                        am_array **left_indices, am_array **right_indices) {
  (void)left_keys, (void)right_keys, (void)n_keys, (void)join_type, (void)left_indices,
      (void)right_indices;
  return am_fail(err, AM_EUNSUPPORTED, "join has no GPU kernel: GPU keys are joined on the host");
}
