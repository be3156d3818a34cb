/* select_k_unstable, rank (rank_quantile, rank_normal) and
 * partition_nth_indices on a GPU: no device kernels. They answer
 * AM_EUNSUPPORTED, and the ABI (abi/rank.c) runs them on the host and moves
 * the result back to the input's device. A device version would build on
 * the device radix sort (gpu/ops_sort.c) once it exists. */
#include "core/error.h"
#include "runtime.h"

int am_gpu_select_k(am_err *err, const am_array *const *keys, int64_t n_keys, const int *descending,
                    const int *nulls_first, int64_t k, am_array **out) {
  (void)keys, (void)n_keys, (void)descending, (void)nulls_first, (void)k, (void)out;
  return am_fail(err, AM_EUNSUPPORTED,
                 "select_k_unstable has no GPU kernel: GPU arrays are selected on the host");
}

int am_gpu_rank(am_err *err, const am_array *array, int descending, int nulls_first, int how,
                am_array **out) {
  (void)array, (void)descending, (void)nulls_first, (void)how, (void)out;
  return am_fail(err, AM_EUNSUPPORTED, "rank has no GPU kernel: GPU arrays are ranked on the host");
}

int am_gpu_partition_nth(am_err *err, const am_array *array, int64_t pivot, int nulls_first,
                         am_array **out) {
  (void)array, (void)pivot, (void)nulls_first, (void)out;
  return am_fail(err, AM_EUNSUPPORTED,
                 "partition_nth_indices has no GPU kernel: GPU arrays are partitioned on the host");
}
