/* The null-handling ops of every GPU backend (branch nulls): each fills an
 * argument block and launches the kernels of kernel_source_nulls.c, with the
 * helpers of ops.c (ops_shared.h). */
#include "core/types.h"
#include "gpu/ops_shared.h"

int am_gpu_predicate(am_err *err, am_predicate op, int flags, const am_array *array,
                     am_array **out) {
  int never_null = op == AM_IS_NULL || op == AM_IS_VALID;
  int reads_values = am_type_is_float(array->type) && op != AM_IS_VALID &&
                     (op != AM_IS_NULL || (flags & AM_NAN_IS_NULL));
  am_array *result = NULL;
  int status = am_gpu_ops_result(err, array->device, AM_BOOL, array->length,
                                 !never_null && am_gpu_ops_has_nulls(array), &result);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  am_gpu_ops_bind(&args, 0, array);
  args.out = am_gpu_ops_address(result->data);
  args.out_valid = am_gpu_ops_address(result->validity);
  args.n = array->length;
  am_gpu_op gpu_op = am_gpu_ops_plain(err);
  am_kernel_key key = {AM_KERNEL_PREDICATE, (int)op | (reads_values ? flags : 0) << 8,
                       reads_values ? array->type : AM_TYPE_INVALID, AM_TYPE_INVALID};
  status = am_gpu_ops_run(err, am_gpu_of(array->device), &gpu_op, 0, &key, &args, 1);
  if (status == AM_OK)
    atomic_store(&result->null_count, never_null ? 0 : atomic_load(&array->null_count));
  return am_gpu_ops_finish(status, result, out);
}

/* Values move as bits (no kernels of the element type needed): the result
 * has a bitmap only when both sides may have nulls. */
int am_gpu_coalesce(am_err *err, const am_array *left, const am_array *right,
                    const am_scalar *scalar, am_array **out) {
  int with_validity = right && am_gpu_ops_has_nulls(left) && am_gpu_ops_has_nulls(right);
  am_array *result = NULL;
  int status =
      am_gpu_ops_result(err, left->device, left->type, left->length, with_validity, &result);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  am_gpu_ops_bind(&args, 0, left);
  if (right)
    am_gpu_ops_bind(&args, 1, right);
  else
    args.scalar = am_gpu_ops_scalar_bits(scalar);
  args.out = am_gpu_ops_address(result->data);
  args.out_valid = am_gpu_ops_address(result->validity);
  args.n = left->length;
  am_gpu_op gpu_op = am_gpu_ops_plain(err);
  am_kernel_key key = {AM_KERNEL_COALESCE, 0, left->type, AM_TYPE_INVALID};
  status = am_gpu_ops_run(err, am_gpu_of(left->device), &gpu_op, 0, &key, &args, 1);
  return am_gpu_ops_finish(status, result, out);
}
