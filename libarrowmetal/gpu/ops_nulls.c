/* The null-handling ops of every GPU backend: each fills an
 * argument block and launches the kernels of kernel_source_nulls.c, with the
 * helpers of ops.c (ops_shared.h). */
#include <string.h>

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
  if (!reads_values) {
    /* Only the validity is read: as a bitmap, not the values' buffer. */
    args.in0 = 0;
    args.pad = am_gpu_ops_words_aligned(&args);
  }
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

/* One side of if_else in an argument block: its array, or its scalar. */
static void bind_side(am_gpu_args *args, const am_array *array, const am_scalar *scalar) {
  if (array) {
    am_gpu_ops_bind(args, 0, array);
    return;
  }
  args->in0 = 0;
  args->valid0 = 0;
  args->off0 = 0;
  args->scalar_null = scalar->is_null != 0;
  args->scalar = scalar->is_null ? 0 : am_gpu_ops_scalar_bits(scalar);
}

static int side_has_nulls(const am_array *array, const am_scalar *scalar) {
  return array ? am_gpu_ops_has_nulls(array) : scalar->is_null;
}

/* One launch where both sides are arrays; else two into one output under
 * one commit: the left side where the condition is true (writing every
 * word), then the right side where it is false. */
int am_gpu_if_else(am_err *err, const am_array *cond, const am_array *left,
                   const am_scalar *left_scalar, const am_array *right,
                   const am_scalar *right_scalar, am_array **out) {
  am_device *device = cond->device;
  am_gpu_device *gpu = am_gpu_of(device);
  am_type type = left ? left->type : (am_type)left_scalar->type;
  int with_validity = am_gpu_ops_has_nulls(cond) || side_has_nulls(left, left_scalar) ||
                      side_has_nulls(right, right_scalar);
  am_array *result = NULL;
  int status = am_gpu_ops_result(err, device, type, cond->length, with_validity, &result);
  if (status != AM_OK) return status;
  am_gpu_args args[2];
  for (int side = 0; side < 2; side++) {
    memset(&args[side], 0, sizeof args[side]);
    bind_side(&args[side], side ? right : left, side ? right_scalar : left_scalar);
    am_gpu_ops_bind(&args[side], 1, cond);
    args[side].out = am_gpu_ops_address(result->data);
    args[side].out_valid = am_gpu_ops_address(result->validity);
    args[side].n = cond->length;
    args[side].scratch = am_gpu_ops_address(gpu->scratch->ptr);
  }
  am_gpu_op op = am_gpu_ops_plain(err);
  int token = 0;
  status = am_gpu_op_begin(err, gpu, &token);
  if (status != AM_OK) return am_gpu_ops_finish(status, result, out);
  if (left && right) {
    /* Both arrays: one launch, the right side as in2. */
    args[0].in2 = args[1].in0;
    args[0].valid2 = args[1].valid0;
    args[0].off2 = args[1].off0;
    am_kernel_key key = {AM_KERNEL_IF_ELSE, 2, type, AM_TYPE_INVALID};
    status = am_gpu_launch(err, gpu, &key, &args[0]);
  } else {
    for (int side = 0; side < 2 && status == AM_OK; side++) {
      am_kernel_key key = {AM_KERNEL_IF_ELSE, side, type, AM_TYPE_INVALID};
      status = am_gpu_launch(err, gpu, &key, &args[side]);
    }
  }
  status = am_gpu_op_end(err, gpu, token, status, &op);
  if (status == AM_OK && !with_validity) atomic_store(&result->null_count, 0);
  return am_gpu_ops_finish(status, result, out);
}

/* A scan in three launches (kernels.h: FILL_BLOCKS, FILL_CARRY,
 * FILL_GATHER), with the same arguments, under one commit. The ABI calls it
 * for an array that may have nulls; bit outputs are ORed in, so they start
 * at zero. The result's null count is counted when first asked for. */
int am_gpu_fill_direction(am_err *err, am_fill_direction direction, const am_array *array,
                          am_array **out) {
  am_device *device = array->device;
  am_gpu_device *gpu = am_gpu_of(device);
  int64_t n = array->length;
  am_array *result = NULL;
  int status = am_gpu_ops_result(err, device, array->type, n, 1, &result);
  if (status == AM_OK && array->type == AM_BOOL)
    status = am_gpu_ops_zero(err, gpu, result->data, (n + 7) / 8);
  if (status == AM_OK) status = am_gpu_ops_zero(err, gpu, result->validity, (n + 7) / 8);
  if (status != AM_OK) return am_gpu_ops_finish(status, result, out);
  am_gpu_args args = {0};
  am_gpu_ops_bind(&args, 0, array);
  args.out = am_gpu_ops_address(result->data);
  args.out_valid = am_gpu_ops_address(result->validity);
  args.n = n;
  am_kernel_key keys[3] = {
      {AM_KERNEL_FILL_BLOCKS, (int)direction, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_FILL_CARRY, 0, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_FILL_GATHER, (int)direction, array->type, AM_TYPE_INVALID}};
  am_gpu_op op = am_gpu_ops_plain(err);
  status = am_gpu_ops_run(err, gpu, &op, 0, keys, &args, 3);
  return am_gpu_ops_finish(status, result, out);
}
