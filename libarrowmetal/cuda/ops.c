/* The CUDA backend's kernels: each op fills an argument block, launches the
 * generated kernel(s) for its key and hands completion to submit.c. */
#include <string.h>

#include "core/error.h"
#include "core/types.h"
#include "cuda.h"

static uint64_t address(const void *pointer) { return (uint64_t)(uintptr_t)pointer; }

/* A validity bitmap worth reading: absent when the slot range has no nulls. */
static uint64_t validity_of(const am_array *array) {
  return atomic_load_explicit(&array->null_count, memory_order_relaxed) == 0
             ? 0
             : address(array->validity);
}

static int has_nulls(const am_array *array) { return validity_of(array) != 0; }

static void bind(am_gpu_args *args, int which, const am_array *array) {
  if (which == 0) {
    args->in0 = address(array->data);
    args->valid0 = validity_of(array);
    args->off0 = array->offset;
  } else {
    args->in1 = address(array->data);
    args->valid1 = validity_of(array);
    args->off1 = array->offset;
  }
}

static uint64_t scalar_bits(const am_scalar *scalar) {
  if (am_type_is_float((am_type)scalar->type)) {
    uint64_t bits;
    memcpy(&bits, &scalar->f64, sizeof bits);
    return bits;
  }
  return am_type_is_unsigned((am_type)scalar->type) ? scalar->u64 : (uint64_t)scalar->i64;
}

static uint64_t status_address(am_cuda_device *cuda, int slot) {
  return cuda->status_device + (uint64_t)slot * sizeof(am_gpu_status);
}

static am_cuda_op plain_op(void) {
  am_cuda_op op;
  memset(&op, 0, sizeof op);
  op.slot = -1;
  op.call = am_current_call;
  return op;
}

/* Runs `count` launches of one op under the commit lock, then completes it.
 * The op's status slot, if it wants one, is taken first. */
static int run(am_cuda_device *cuda, am_cuda_op *op, int want_slot, const am_kernel_key *keys,
               am_gpu_args *args, int count) {
  if (want_slot) {
    int status = am_cuda_status_acquire(cuda, &op->slot);
    if (status != AM_OK) return status;
    args->status = status_address(cuda, op->slot);
  }
  int pushed = 0;
  int status = am_cuda_op_begin(cuda, &pushed);
  if (status != AM_OK) {
    am_buffer_release(op->culprit);
    am_cuda_status_release(cuda, op->slot);
    return status;
  }
  args->scratch = cuda->scratch;
  for (int i = 0; i < count && status == AM_OK; i++) status = am_cuda_launch(cuda, &keys[i], args);
  return am_cuda_op_end(cuda, pushed, status, op);
}

/* Allocates a result under the context. */
static int result_array(am_device *device, am_type type, int64_t length, int with_validity,
                        am_array **out) {
  am_cuda_device *cuda = am_cuda_of(device);
  int pushed = am_cuda_enter(cuda);
  int status = am_cuda_alloc_array(device, type, length, with_validity, out);
  am_cuda_leave(cuda, pushed);
  return status;
}

static int zero(am_cuda_device *cuda, const void *pointer, int64_t bytes) {
  if (!pointer || bytes <= 0) return AM_OK;
  int pushed = am_cuda_enter(cuda);
  CUresult result =
      cuda->cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)pointer, 0, (size_t)bytes, cuda->stream);
  am_cuda_leave(cuda, pushed);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(result, "cuMemsetD8Async");
}

/* A result in which every slot is null (a null scalar operand). */
static int all_null(am_device *device, am_type type, int64_t length, am_array **out) {
  int status = result_array(device, type, length, 1, out);
  if (status != AM_OK) return status;
  am_cuda_device *cuda = am_cuda_of(device);
  status = zero(cuda, (*out)->validity, (length + 7) / 8);
  if (status == AM_OK) status = zero(cuda, (*out)->data, am_type_bytes(type, length));
  if (status != AM_OK) {
    am_array_free(*out);
    return status;
  }
  atomic_store(&(*out)->null_count, length);
  return AM_OK;
}

static int finish_result(int status, am_array *result, am_array **out) {
  if (status != AM_OK) {
    am_array_free(result);
    return status;
  }
  *out = result;
  return AM_OK;
}

int am_cuda_count_nulls(const am_array *array, int64_t *out) {
  if (!array->validity) {
    *out = 0;
    return AM_OK;
  }
  am_cuda_device *cuda = am_cuda_of(array->device);
  am_cuda_op op = plain_op();
  op.check = AM_CUDA_CHECK_COUNT;
  op.count_out = out;
  op.immediate = 1;
  am_gpu_args args = {0};
  args.valid0 = address(array->validity);
  args.off0 = array->offset;
  args.n = array->length;
  am_kernel_key key = {AM_KERNEL_COUNT_NULLS, 0, AM_TYPE_INVALID, AM_TYPE_INVALID};
  return run(cuda, &op, 1, &key, &args, 1);
}

int am_cuda_reduce(am_reduce_op reduce, const am_array *array, am_scalar *out) {
  am_cuda_device *cuda = am_cuda_of(array->device);
  am_cuda_op op = plain_op();
  op.check = AM_CUDA_CHECK_SCALAR;
  op.reduce = reduce;
  op.type = array->type;
  op.scalar_out = out;
  am_gpu_args args = {0};
  bind(&args, 0, array);
  args.n = array->length;
  am_kernel_key key = {AM_KERNEL_REDUCE, (int)reduce, array->type, AM_TYPE_INVALID};
  return run(cuda, &op, 1, &key, &args, 1);
}

/* Compare and arithmetic share their shape: out and validity from one or
 * two operands. */
static int binary(am_kernel_kind kind, int sub_op, am_type result_type, const am_array *left,
                  const am_array *right, const am_scalar *scalar, am_array **out) {
  am_device *device = left->device;
  am_cuda_device *cuda = am_cuda_of(device);
  if (scalar && scalar->is_null) return all_null(device, result_type, left->length, out);
  int with_validity = has_nulls(left) || (right && has_nulls(right));
  am_array *result = NULL;
  int status = result_array(device, result_type, left->length, with_validity, &result);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  bind(&args, 0, left);
  if (right)
    bind(&args, 1, right);
  else
    args.scalar = scalar_bits(scalar);
  args.out = address(result->data);
  args.out_valid = address(result->validity);
  args.n = left->length;
  am_cuda_op op = plain_op();
  int integer_divide =
      kind == AM_KERNEL_ARITH && sub_op == AM_DIVIDE && am_type_is_integer(left->type);
  if (integer_divide) {
    op.check = AM_CUDA_CHECK_ERROR;
    op.error_code = AM_EZERODIV;
  }
  am_kernel_key key = {kind, sub_op, left->type, AM_TYPE_INVALID};
  status = run(cuda, &op, integer_divide, &key, &args, 1);
  return finish_result(status, result, out);
}

int am_cuda_compare(am_compare_op op, const am_array *left, const am_array *right,
                    const am_scalar *scalar, am_array **out) {
  return binary(AM_KERNEL_COMPARE, (int)op, AM_BOOL, left, right, scalar, out);
}

int am_cuda_arith(am_arith_op op, const am_array *left, const am_array *right,
                  const am_scalar *scalar, am_array **out) {
  if (left->type == AM_BOOL) return am_error(AM_ETYPE, "no arithmetic kernel for bool");
  return binary(AM_KERNEL_ARITH, (int)op, left->type, left, right, scalar, out);
}

int am_cuda_cast(const am_array *array, am_type to, int safe, am_array **out) {
  am_device *device = array->device;
  am_cuda_device *cuda = am_cuda_of(device);
  am_array *result = NULL;
  int status = result_array(device, to, array->length, has_nulls(array), &result);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  bind(&args, 0, array);
  args.out = address(result->data);
  args.out_valid = address(result->validity);
  args.n = array->length;
  am_cuda_op op = plain_op();
  if (safe) {
    op.check = AM_CUDA_CHECK_ERROR;
    op.error_code = AM_EOVERFLOW;
    op.culprit = am_buffer_retain(array->data_buf);
    op.culprit_data = args.in0;
    op.culprit_type = array->type;
    op.culprit_offset = array->offset;
    op.bound = to;
  }
  am_kernel_key key = {AM_KERNEL_CAST, safe ? 1 : 0, array->type, to};
  status = run(cuda, &op, safe, &key, &args, 1);
  if (status == AM_OK) atomic_store(&result->null_count, atomic_load(&array->null_count));
  return finish_result(status, result, out);
}

int am_cuda_logic(am_logic_op logic, const am_array *left, const am_array *right, am_array **out) {
  am_device *device = left->device;
  int with_validity = has_nulls(left) || (right && has_nulls(right));
  am_array *result = NULL;
  int status = result_array(device, AM_BOOL, left->length, with_validity, &result);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  bind(&args, 0, left);
  if (right) bind(&args, 1, right);
  args.out = address(result->data);
  args.out_valid = address(result->validity);
  args.n = left->length;
  am_cuda_op op = plain_op();
  am_kernel_key key = {AM_KERNEL_LOGIC, (int)logic, AM_BOOL, AM_TYPE_INVALID};
  status = run(am_cuda_of(device), &op, 0, &key, &args, 1);
  return finish_result(status, result, out);
}

int am_cuda_filter(const am_array *array, const am_array *mask, am_array **out) {
  am_device *device = array->device;
  am_cuda_device *cuda = am_cuda_of(device);
  int with_validity = has_nulls(array);
  am_array *result = NULL;
  int status = result_array(device, array->type, array->length, with_validity, &result);
  /* Bit outputs are assembled with atomic OR, so they start at zero. */
  if (status == AM_OK && array->type == AM_BOOL)
    status = zero(cuda, result->data, (array->length + 7) / 8);
  if (status == AM_OK) status = zero(cuda, result->validity, (array->length + 7) / 8);
  if (status != AM_OK) return finish_result(status, result, out);
  am_gpu_args args = {0};
  bind(&args, 0, array);
  bind(&args, 1, mask);
  args.out = address(result->data);
  args.out_valid = address(result->validity);
  args.n = array->length;
  am_cuda_op op = plain_op();
  int batched = am_runtime_batch_depth() > 0;
  if (!batched) {
    op.check = AM_CUDA_CHECK_FILTER;
    op.result = result;
  }
  /* Counting and scanning do not depend on the value type: one kernel each. */
  am_kernel_key keys[3] = {{AM_KERNEL_FILTER_COUNT, 0, AM_TYPE_INVALID, AM_TYPE_INVALID},
                           {AM_KERNEL_FILTER_SCAN, 0, AM_TYPE_INVALID, AM_TYPE_INVALID},
                           {AM_KERNEL_FILTER_SCATTER, 0, array->type, AM_TYPE_INVALID}};
  int slot_for_pending = -1;
  if (batched) {
    /* The length is read from the status slot when first needed; the slot
     * belongs to the pending record, not to the op. */
    status = am_cuda_status_acquire(cuda, &slot_for_pending);
    if (status != AM_OK) return finish_result(status, result, out);
    args.status = status_address(cuda, slot_for_pending);
    status = am_cuda_make_pending(cuda, slot_for_pending, result);
    if (status != AM_OK) {
      am_cuda_status_release(cuda, slot_for_pending);
      return finish_result(status, result, out);
    }
  }
  status = run(cuda, &op, !batched, keys, &args, 3);
  return finish_result(status, result, out);
}

int am_cuda_take(const am_array *array, const am_array *indices, am_array **out) {
  am_device *device = array->device;
  am_cuda_device *cuda = am_cuda_of(device);
  int with_validity = has_nulls(array) || has_nulls(indices);
  am_array *result = NULL;
  int status = result_array(device, array->type, indices->length, with_validity, &result);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  bind(&args, 0, array);
  bind(&args, 1, indices);
  args.out = address(result->data);
  args.out_valid = address(result->validity);
  args.n = indices->length;
  args.aux = array->length;
  am_cuda_op op = plain_op();
  op.check = AM_CUDA_CHECK_ERROR;
  op.error_code = AM_EINDEX;
  op.culprit = am_buffer_retain(indices->data_buf);
  op.culprit_data = args.in1;
  op.culprit_type = indices->type;
  op.culprit_offset = indices->offset;
  op.bound = array->length;
  am_kernel_key key = {AM_KERNEL_TAKE, 0, array->type, indices->type};
  status = run(cuda, &op, 1, &key, &args, 1);
  return finish_result(status, result, out);
}

int am_cuda_fill(am_device *device, const am_scalar *value, int64_t length, am_array **out) {
  am_type type = (am_type)value->type;
  if (value->is_null) return all_null(device, type, length, out);
  am_array *result = NULL;
  int status = result_array(device, type, length, 0, &result);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  args.out = address(result->data);
  args.n = length;
  args.scalar = scalar_bits(value);
  am_cuda_op op = plain_op();
  am_kernel_key key = {AM_KERNEL_FILL, 0, type, AM_TYPE_INVALID};
  status = run(am_cuda_of(device), &op, 0, &key, &args, 1);
  return finish_result(status, result, out);
}
