/* sort_indices on a GPU: not written yet. The device radix
 * sort (order-preserving key bits as the CPU's, segmented for multi-key, its
 * temporaries counted) is issue #12's GPU part; until then the ABI
 * (abi/sort.c) sorts GPU keys on the host and moves the indices back. */
#include "core/error.h"
#include "runtime.h"

int am_gpu_sort_indices(am_err *err, const am_array *const *keys, int64_t n_keys,
                        const int *descending, const int *null_placement, am_array **out) {
  (void)keys, (void)n_keys, (void)descending, (void)null_placement, (void)out;
  return am_fail(err, AM_EUNSUPPORTED,
                 "sort_indices has no GPU kernel: GPU arrays are sorted on the host");
}
