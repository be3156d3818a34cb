/* The round (and round_to_multiple) and pairwise_diff ops of every GPU
 * backend: each fills an argument block and launches its kernel of
 * kernel_source_round.c, with the helpers of ops.c (ops_shared.h).
 * Divergence from the CPU: a refused slot's message is the GPU runtime's
 * ("... (round at slot 3, left value 127)"), which says which way it went
 * but not pyarrow's words with the multiple. */
#include <string.h>

#include "core/ops.h"
#include "core/round.h"
#include "core/types.h"
#include "gpu/ops_shared.h"

/* What a kernel's report means (failure 1: up, or a float's overflow; 2:
 * down); the text is static, as the runtime keeps it. */
static const am_binary_check float_failures = {{{AM_EINVAL, "overflow occurred during rounding"},
                                                {AM_EINVAL, "overflow occurred during rounding"}}};
static const am_binary_check int_failures = {
    {{AM_EINVAL, "Rounding up to a multiple would overflow"},
     {AM_EINVAL, "Rounding down to a multiple would overflow"}}};

/* One element-wise launch with a checked op's report. */
static int launch(am_err *err, const am_array *array, am_array *result, am_kernel_key key,
                  am_gpu_args *args, const am_binary_check *failures, const char *op_name,
                  int checked) {
  am_gpu_ops_bind(args, 0, array);
  args->out = am_gpu_ops_address(result->data);
  args->out_valid = am_gpu_ops_address(result->validity);
  args->n = array->length;
  am_gpu_op op = am_gpu_ops_plain(err);
  if (checked) {
    op.check = AM_GPU_CHECK_ERROR;
    op.failures = failures;
    op.op_name = op_name;
    op.culprit = am_buffer_retain(array->data_buf);
    op.culprit_address = args->in0;
    op.culprit_type = array->type;
    op.culprit_offset = array->offset;
    op.bound = array->length;
  }
  return am_gpu_ops_run(err, am_gpu_of(array->device), &op, checked, &key, args, 1);
}

/* The kernel reads the scaling from aux's sign (up: aux >= 0, down: aux > 0,
 * to whole numbers: aux == 0), as the spec's scale says it. */
int am_gpu_round(am_err *err, const am_array *array, const am_round_spec *spec, am_array **out) {
  am_type t = array->type;
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  args.aux = spec->scale;
  if (am_type_is_float(t))
    memcpy(&args.scalar, &spec->p, sizeof spec->p);
  else
    args.scalar = spec->m;
  am_array *result = NULL;
  int status =
      am_gpu_ops_result(err, array->device, t, array->length, am_gpu_ops_has_nulls(array), &result);
  if (status != AM_OK) return status;
  am_kernel_key key = {AM_KERNEL_ROUND, (int)spec->mode, t, AM_TYPE_INVALID};
  status = launch(err, array, result, key, &args,
                  am_type_is_float(t) ? &float_failures : &int_failures, "round", 1);
  if (status == AM_OK) atomic_store(&result->null_count, atomic_load(&array->null_count));
  return am_gpu_ops_finish(status, result, out);
}

/* The result always has a bitmap: the slots without a pair are null. Its
 * null count is counted when first asked for. */
int am_gpu_pairwise_diff(am_err *err, am_pairwise_op op, const am_array *array, int64_t period,
                         am_array **out) {
  am_type t = array->type;
  am_array *result = NULL;
  int status = am_gpu_ops_result(err, array->device, t, array->length, 1, &result);
  if (status != AM_OK) return status;
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  args.aux = period;
  am_kernel_key key = {AM_KERNEL_PAIRWISE_DIFF, (int)op, t, AM_TYPE_INVALID};
  int checked = op == AM_PAIRWISE_DIFF_CHECKED;
  status = launch(err, array, result, key, &args, am_binary_check_of(AM_SUBTRACT_CHECKED),
                  "pairwise_diff_checked", checked);
  return am_gpu_ops_finish(status, result, out);
}
