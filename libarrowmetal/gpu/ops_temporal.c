/* The temporal field extractions and temporal rounding of every GPU
 * backend: one element-wise launch of kernel_source_temporal.c's kernels,
 * with the helpers of ops.c (ops_shared.h). The ABI has checked the type,
 * the options and that the array's time zone, if any, reads as UTC (local
 * times are the host's). */
#include <string.h>

#include "core/types.h"
#include "gpu/ops_shared.h"

int am_gpu_temporal_field(am_err *err, am_temporal_field_op op, const am_array *array,
                          int week_start, int count_from_zero, am_array **out) {
  am_array *result = NULL;
  int status = am_gpu_ops_result(err, array->device, AM_INT64, array->length,
                                 am_gpu_ops_has_nulls(array), &result);
  if (status != AM_OK) return status;
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  am_gpu_ops_bind(&args, 0, array);
  args.out = am_gpu_ops_address(result->data);
  args.out_valid = am_gpu_ops_address(result->validity);
  args.n = array->length;
  args.aux = (int64_t)(week_start & 0xff) | (int64_t)(count_from_zero ? 1 : 0) << 8;
  am_kernel_key key = {AM_KERNEL_TEMPORAL_FIELD, (int)op, array->type, AM_TYPE_INVALID};
  am_gpu_op gop = am_gpu_ops_plain(err);
  status = am_gpu_ops_run(err, am_gpu_of(array->device), &gop, 0, &key, &args, 1);
  if (status == AM_OK) atomic_store(&result->null_count, atomic_load(&array->null_count));
  return am_gpu_ops_finish(status, result, out);
}

/* floor/ceil/round_temporal: one element-wise launch of the ROUND_TEMPORAL
 * kernel of the array's type and the unit (the ABI has checked the options
 * and the time zone, and made a duration's weeks days). */
int am_gpu_round_temporal(am_err *err, int op, const am_array *array, int unit, int64_t multiple,
                          int flags, am_array **out) {
  am_array *result = NULL;
  int status = am_gpu_ops_result(err, array->device, array->type, array->length,
                                 am_gpu_ops_has_nulls(array), &result);
  if (status != AM_OK) return status;
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  am_gpu_ops_bind(&args, 0, array);
  args.out = am_gpu_ops_address(result->data);
  args.out_valid = am_gpu_ops_address(result->validity);
  args.n = array->length;
  args.aux = multiple | (int64_t)flags << 32 | (int64_t)op << 40;
  am_kernel_key key = {AM_KERNEL_ROUND_TEMPORAL, unit, array->type, AM_TYPE_INVALID};
  am_gpu_op gop = am_gpu_ops_plain(err);
  status = am_gpu_ops_run(err, am_gpu_of(array->device), &gop, 0, &key, &args, 1);
  if (status == AM_OK) atomic_store(&result->null_count, atomic_load(&array->null_count));
  return am_gpu_ops_finish(status, result, out);
}
