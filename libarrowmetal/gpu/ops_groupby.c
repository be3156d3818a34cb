/* Group-by on a GPU: not written yet. The device hash table over the
 * combined keys and the per-aggregate passes by group id (issue #12's GPU
 * part) come later; until then the ABI (abi/groupby.c) moves GPU inputs to
 * the host, groups them there, and moves the results back. */
#include "core/error.h"
#include "runtime.h"

int am_gpu_group_by(am_err *err, const am_array *const *keys, int64_t n_keys,
                    const am_array *const *values, const am_group_aggregate *aggregates,
                    int64_t n_aggregates, am_array **keys_out, am_group_result *results) {
  (void)keys, (void)n_keys, (void)values, (void)aggregates, (void)n_aggregates, (void)keys_out,
      (void)results;
  return am_fail(err, AM_EUNSUPPORTED,
                 "group_by has no GPU kernel: GPU arrays are grouped on the host");
}
