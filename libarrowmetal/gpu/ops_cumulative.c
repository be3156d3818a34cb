/* The cumulative functions on a GPU (am_cumulative): a
 * scan in three launches (kernels.h: CUM_BLOCKS, CUM_CARRY, CUM_SCAN) with
 * the same arguments, under one commit, so each launch sees the partials of
 * the one before it. The checked integer ops report their first slot out of
 * range through the status block, as the checked unary ops do (at once, or
 * at the batch's end). */

#include "core/types.h"
#include "gpu/ops_shared.h"

int am_gpu_cumulative(am_err *err, am_cumulative_op op, const am_array *array,
                      const am_scalar *start, int skip_nulls, am_array **out) {
  am_device *device = array->device;
  am_gpu_device *gpu = am_gpu_of(device);
  am_type t = array->type;
  int64_t n = array->length;
  int nulls = am_gpu_ops_has_nulls(array);
  am_type result_type = op == AM_CUMULATIVE_MEAN ? AM_FLOAT64 : t;
  am_array *result = NULL;
  int status = am_gpu_ops_result(err, device, result_type, n, nulls, &result);
  if (status != AM_OK) return status;
  if (n == 0) return am_gpu_ops_finish(AM_OK, result, out);
  if (nulls) status = am_gpu_ops_zero(err, gpu, result->validity, (n + 7) / 8);
  if (status != AM_OK) return am_gpu_ops_finish(status, result, out);
  if (!nulls) atomic_store(&result->null_count, 0);
  am_gpu_args args = {0};
  am_gpu_ops_bind(&args, 0, array);
  args.out = am_gpu_ops_address(result->data);
  args.out_valid = nulls ? am_gpu_ops_address(result->validity) : 0;
  args.n = n;
  args.scalar = am_gpu_ops_scalar_bits(start);
  int key_op = (int)op | (skip_nulls ? 8 : 0);
  am_kernel_key keys[3] = {{AM_KERNEL_CUM_BLOCKS, key_op, t, AM_TYPE_INVALID},
                           {AM_KERNEL_CUM_CARRY, key_op, t, AM_TYPE_INVALID},
                           {AM_KERNEL_CUM_SCAN, key_op, t, AM_TYPE_INVALID}};
  am_gpu_op gpu_op = am_gpu_ops_plain(err);
  int checked = am_type_is_integer(t) &&
                (op == AM_CUMULATIVE_SUM_CHECKED || op == AM_CUMULATIVE_PROD_CHECKED);
  if (checked) { /* "overflow (value v at slot s)": the value where the running one left */
    gpu_op.check = AM_GPU_CHECK_ERROR;
    gpu_op.error_code = AM_EOVERFLOW;
    gpu_op.message = "overflow";
    gpu_op.culprit = am_buffer_retain(array->data_buf);
    gpu_op.culprit_address = args.in0;
    gpu_op.culprit_type = t;
    gpu_op.culprit_offset = array->offset;
  }
  status = am_gpu_ops_run(err, gpu, &gpu_op, checked, keys, &args, 3);
  return am_gpu_ops_finish(status, result, out);
}
