/* The ops of every GPU backend: each fills an argument block, launches the
 * generated kernel(s) for its key and hands completion to submit.c. Only the
 * hooks touch the driver. */
#include <string.h>

#include "core/ops.h"
#include "core/runtime.h"
#include "core/types.h"
#include "gpu/ops_shared.h"
#include "gpu/resident_ops.h"
#include "gpu/submit.h"

static uint64_t address(const void *pointer) { return (uint64_t)(uintptr_t)pointer; }

/* A validity bitmap worth reading: absent when the slot range has no nulls. */
static uint64_t validity_of(const am_array *array) {
  return atomic_load_explicit(&((am_array *)array)->null_count, memory_order_relaxed) == 0
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

/* 0, 1 or 2: whether each operand bitmap of LOGIC or PREDICATE (a pointer 0
 * is none) starts its slot 0 on a 4-byte boundary, so that its 32-slot words
 * load whole (1), and on a 16-byte one, with the results too, so that four
 * words load and store at once (2). H200, 10^8 rows: the five byte loads a
 * word took held and_kleene to 22% of the copy floor. */
static int words_aligned(const am_gpu_args *args) {
  const uint64_t bitmaps[4] = {args->in0, args->valid0, args->in1, args->valid1};
  int aligned = 2;
  for (int i = 0; i < 4; i++) {
    int64_t off = i < 2 ? args->off0 : args->off1;
    if (!bitmaps[i]) continue;
    if ((off & 31) != 0 || ((bitmaps[i] + (uint64_t)(off >> 3)) & 3) != 0) return 0;
    if (((bitmaps[i] + (uint64_t)(off >> 3)) & 15) != 0) aligned = 1;
  }
  return ((args->out | args->out_valid) & 15) != 0 ? 1 : aligned;
}

static uint64_t scalar_bits(const am_scalar *scalar) {
  if (am_type_is_float((am_type)scalar->type)) {
    uint64_t bits;
    memcpy(&bits, &scalar->f64, sizeof bits);
    return bits;
  }
  return am_type_is_unsigned((am_type)scalar->type) ? scalar->u64 : (uint64_t)scalar->i64;
}

static am_gpu_op plain_op(const am_err *err) {
  am_gpu_op op;
  memset(&op, 0, sizeof op);
  op.slot = -1;
  op.call = err->entry;
  op.immediate = am_runtime_wait_now();
  return op;
}

/* Runs `count` launches of one op under the commit lock, then completes it.
 * The op's status slot, if it wants one, is taken first. */
static int run(am_err *err, am_gpu_device *gpu, am_gpu_op *op, int want_slot,
               const am_kernel_key *keys, am_gpu_args *args, int count) {
  if (want_slot) {
    int status = am_gpu_status_acquire(err, gpu, &op->slot);
    if (status != AM_OK) {
      am_buffer_release(op->culprit);
      return status;
    }
    args->status = am_gpu_status_address(gpu, op->slot);
  }
  int token = 0;
  int status = am_gpu_op_begin(err, gpu, &token);
  if (status != AM_OK) {
    am_buffer_release(op->culprit);
    am_gpu_status_release(gpu, op->slot);
    return status;
  }
  args->scratch = address(gpu->scratch->ptr);
  /* A one-launch reduction takes the next of the reductions' areas. */
  if (count == 1 && (keys[0].kind == AM_KERNEL_REDUCE || keys[0].kind == AM_KERNEL_AGGREGATE)) {
    gpu->scratch_turn = gpu->scratch_turn % (AM_GPU_SCRATCH_AREAS - 1) + 1;
    args->scratch += (uint64_t)gpu->scratch_turn * AM_GPU_SCRATCH_BYTES;
  }
  for (int i = 0; i < count && status == AM_OK; i++)
    status = am_gpu_launch(err, gpu, &keys[i], args);
  return am_gpu_op_end(err, gpu, token, status, op);
}

/* Allocates a result inside the context. */
static int result_array(am_err *err, am_device *device, am_type type, int64_t length,
                        int with_validity, am_array **out) {
  am_gpu_device *gpu = am_gpu_of(device);
  int status = am_gpu_check_broken(err, gpu);
  if (status != AM_OK) return status;
  int token = gpu->hooks->enter(gpu);
  status = am_gpu_alloc_array(err, gpu, type, length, with_validity, out);
  gpu->hooks->leave(gpu, token);
  return status;
}

static int zero(am_err *err, am_gpu_device *gpu, const void *pointer, int64_t bytes) {
  if (!pointer || bytes <= 0) return AM_OK;
  int token = gpu->hooks->enter(gpu);
  int status = gpu->hooks->zero(err, gpu, address(pointer), bytes);
  gpu->hooks->leave(gpu, token);
  return status;
}

/* A result in which every slot is null (a null scalar operand). */
static int all_null(am_err *err, am_device *device, am_type type, int64_t length, am_array **out) {
  int status = result_array(err, device, type, length, 1, out);
  if (status != AM_OK) return status;
  am_gpu_device *gpu = am_gpu_of(device);
  status = zero(err, gpu, (*out)->validity, (length + 7) / 8);
  if (status == AM_OK) status = zero(err, gpu, (*out)->data, am_type_bytes(type, length));
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

/* An element-wise op's result (`type`, one slot per slot of `left`, with a
 * validity bitmap when an input has nulls) and its argument block: `left`
 * (and `right` when given) read, the result written. */
static int elementwise(am_err *err, am_type type, const am_array *left, const am_array *right,
                       am_array **result, am_gpu_args *args) {
  int with_validity = has_nulls(left) || (right && has_nulls(right));
  int status = result_array(err, left->device, type, left->length, with_validity, result);
  if (status != AM_OK) return status;
  memset(args, 0, sizeof *args);
  bind(args, 0, left);
  if (right) bind(args, 1, right);
  args->out = address((*result)->data);
  args->out_valid = address((*result)->validity);
  args->n = left->length;
  return AM_OK;
}

int am_gpu_count_nulls(am_err *err, const am_array *array, int64_t *out) {
  if (!array->validity) {
    *out = 0;
    return AM_OK;
  }
  am_gpu_device *gpu = am_gpu_of(array->device);
  am_gpu_op op = plain_op(err);
  op.check = AM_GPU_CHECK_COUNT;
  op.count_out = out;
  op.immediate = 1;
  am_gpu_args args = {0};
  args.valid0 = address(array->validity);
  args.off0 = array->offset;
  args.n = array->length;
  am_kernel_key key = {AM_KERNEL_COUNT_NULLS, 0, AM_TYPE_INVALID, AM_TYPE_INVALID};
  return run(err, gpu, &op, 1, &key, &args, 1);
}

int am_gpu_reduce(am_err *err, am_reduce_op reduce, const am_array *array, am_type type,
                  am_scalar *out) {
  am_gpu_device *gpu = am_gpu_of(array->device);
  am_gpu_op op = plain_op(err);
  op.check = AM_GPU_CHECK_SCALAR;
  op.reduce = reduce;
  op.type = array->type;
  op.result_type = type;
  op.scalar_out = out;
  op.tag = am_runtime_scalar_tag();
  am_gpu_args args = {0};
  bind(&args, 0, array);
  args.n = array->length;
  am_kernel_key key = {AM_KERNEL_REDUCE, (int)reduce, array->type, AM_TYPE_INVALID};
  int taken = 0;
  int status = am_gpu_resident_run(err, gpu, &op, &key, &args, &taken);
  if (status != AM_OK || taken) return status;
  return run(err, gpu, &op, 1, &key, &args, 1);
}

/* Compare and arithmetic share their shape: out and validity from one or
 * two operands. */
static int binary(am_err *err, am_kernel_kind kind, int sub_op, am_type result_type,
                  const am_array *left, const am_array *right, const am_scalar *scalar,
                  am_array **out) {
  am_device *device = left->device;
  am_gpu_device *gpu = am_gpu_of(device);
  if (scalar && scalar->is_null) return all_null(err, device, result_type, left->length, out);
  am_array *result = NULL;
  am_gpu_args args;
  int status = elementwise(err, result_type, left, right, &result, &args);
  if (status != AM_OK) return status;
  if (!right) args.scalar = scalar_bits(scalar);
  am_gpu_op op = plain_op(err);
  int integer_divide =
      kind == AM_KERNEL_ARITH && sub_op == AM_DIVIDE && am_type_is_integer(left->type);
  if (integer_divide) {
    op.check = AM_GPU_CHECK_ERROR;
    op.error_code = AM_EZERODIV;
  }
  am_kernel_key key = {kind, sub_op, left->type, AM_TYPE_INVALID};
  status = run(err, gpu, &op, integer_divide, &key, &args, 1);
  return finish_result(status, result, out);
}

int am_gpu_compare(am_err *err, am_compare_op op, const am_array *left, const am_array *right,
                   const am_scalar *scalar, am_array **out) {
  return binary(err, AM_KERNEL_COMPARE, (int)op, AM_BOOL, left, right, scalar, out);
}

int am_gpu_arith(am_err *err, am_arith_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, am_array **out) {
  if (left->type == AM_BOOL) return am_fail(err, AM_ETYPE, "no arithmetic kernel for bool");
  return binary(err, AM_KERNEL_ARITH, (int)op, left->type, left, right, scalar, out);
}

int am_gpu_cast(am_err *err, const am_array *array, am_type to, int safe, am_array **out) {
  am_gpu_device *gpu = am_gpu_of(array->device);
  am_array *result = NULL;
  am_gpu_args args;
  int status = elementwise(err, to, array, NULL, &result, &args);
  if (status != AM_OK) return status;
  am_gpu_op op = plain_op(err);
  if (safe) {
    op.check = AM_GPU_CHECK_ERROR;
    op.error_code = AM_EOVERFLOW;
    op.culprit = am_buffer_retain(array->data_buf);
    op.culprit_address = args.in0;
    op.culprit_type = array->type;
    op.culprit_offset = array->offset;
    op.bound = to;
  }
  am_kernel_key key = {AM_KERNEL_CAST, safe ? 1 : 0, array->type, to};
  status = run(err, gpu, &op, safe, &key, &args, 1);
  if (status == AM_OK) atomic_store(&result->null_count, atomic_load(&array->null_count));
  return finish_result(status, result, out);
}

int am_gpu_unary(am_err *err, am_unary_op op, const am_array *array, am_array **out) {
  am_array *result = NULL;
  am_gpu_args args;
  int status = elementwise(err, array->type, array, NULL, &result, &args);
  if (status != AM_OK) return status;
  am_gpu_op gpu_op = plain_op(err);
  const am_unary_check *check = am_unary_check_of(op);
  if (check) {
    gpu_op.check = AM_GPU_CHECK_ERROR;
    gpu_op.error_code = check->status;
    gpu_op.message = check->message;
    gpu_op.culprit = am_buffer_retain(array->data_buf);
    gpu_op.culprit_address = args.in0;
    gpu_op.culprit_type = array->type;
    gpu_op.culprit_offset = array->offset;
  }
  am_kernel_key key = {AM_KERNEL_UNARY, (int)op, array->type, AM_TYPE_INVALID};
  status = run(err, am_gpu_of(array->device), &gpu_op, check != NULL, &key, &args, 1);
  if (status == AM_OK) atomic_store(&result->null_count, atomic_load(&array->null_count));
  return finish_result(status, result, out);
}

int am_gpu_binary(am_err *err, am_binary_op op, const am_array *left, const am_array *right,
                  const am_scalar *scalar, am_array **out) {
  am_device *device = left->device;
  if (scalar && scalar->is_null) return all_null(err, device, left->type, left->length, out);
  am_array *result = NULL;
  am_gpu_args args;
  int status = elementwise(err, left->type, left, right, &result, &args);
  if (status != AM_OK) return status;
  if (!right) args.scalar = scalar_bits(scalar);
  am_gpu_op gpu_op = plain_op(err);
  const am_binary_check *failures = am_binary_check_of(op);
  if (failures) {
    gpu_op.check = AM_GPU_CHECK_ERROR;
    gpu_op.failures = failures;
    gpu_op.op_name = am_binary_op_name(op);
    gpu_op.culprit = am_buffer_retain(left->data_buf);
    gpu_op.culprit_address = args.in0;
    gpu_op.culprit_type = left->type;
    gpu_op.culprit_offset = left->offset;
    gpu_op.bound = left->length;
  }
  am_kernel_key key = {AM_KERNEL_BINARY, (int)op, left->type, AM_TYPE_INVALID};
  status = run(err, am_gpu_of(device), &gpu_op, failures != NULL, &key, &args, 1);
  return finish_result(status, result, out);
}

/* The plain op a Kleene op is when no operand slot is null (the two logics
 * differ only at nulls), or `logic` itself. */
static am_logic_op plain_logic(am_logic_op logic) {
  switch (logic) {
    case AM_LOGIC_AND_KLEENE:
      return AM_LOGIC_AND;
    case AM_LOGIC_OR_KLEENE:
      return AM_LOGIC_OR;
    case AM_LOGIC_AND_NOT_KLEENE:
      return AM_LOGIC_AND_NOT;
    default:
      return logic;
  }
}

int am_gpu_logic(am_err *err, am_logic_op logic, const am_array *left, const am_array *right,
                 const am_scalar *scalar, int scalar_left, am_array **out) {
  int scalar_null = scalar && scalar->is_null;
  int nulls = has_nulls(left) || (right && has_nulls(right)) || scalar_null;
  int kleene = plain_logic(logic) != logic;
  if (kleene && !nulls) logic = plain_logic(logic);
  /* A null scalar under a propagating op: every slot is null. */
  if (!kleene && scalar_null) return all_null(err, left->device, AM_BOOL, left->length, out);
  am_array *result = NULL;
  int status = result_array(err, left->device, AM_BOOL, left->length, nulls, &result);
  if (status != AM_OK) return status;
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  if (scalar) {
    /* The array takes the other operand's place; aux names the scalar's. */
    bind(&args, scalar_left ? 1 : 0, left);
    args.aux = scalar_left ? 1 : 2;
    args.scalar = scalar->i64 != 0;
    args.scalar_null = scalar_null;
  } else {
    bind(&args, 0, left);
    if (right) bind(&args, 1, right);
  }
  args.out = address(result->data);
  args.out_valid = address(result->validity);
  args.n = left->length;
  args.pad = words_aligned(&args);
  am_gpu_op op = plain_op(err);
  am_kernel_key key = {AM_KERNEL_LOGIC, (int)logic, AM_TYPE_INVALID, AM_TYPE_INVALID};
  status = run(err, am_gpu_of(left->device), &op, 0, &key, &args, 1);
  return finish_result(status, result, out);
}

/* am_gpu_filter, or with `array` NULL the positions of the mask's set bits
 * (int64; the mask has no nulls). */
static int filter(am_err *err, const am_array *array, const am_array *mask, am_null_selection nulls,
                  am_array **out) {
  am_device *device = mask->device;
  am_gpu_device *gpu = am_gpu_of(device);
  const am_type type = array ? array->type : AM_INT64;
  const int64_t length = array ? array->length : mask->length;
  /* emit_null: null mask slots give null result slots. */
  int emit = nulls == AM_NULL_EMIT && has_nulls(mask);
  int with_validity = (array && has_nulls(array)) || emit;
  am_array *result = NULL;
  int status = result_array(err, device, type, length, with_validity, &result);
  /* Bit outputs are assembled with atomic OR, so they start at zero. */
  if (status == AM_OK && type == AM_BOOL) status = zero(err, gpu, result->data, (length + 7) / 8);
  if (status == AM_OK) status = zero(err, gpu, result->validity, (length + 7) / 8);
  if (status != AM_OK) return finish_result(status, result, out);
  am_gpu_args args = {0};
  if (array) bind(&args, 0, array);
  bind(&args, 1, mask);
  args.out = address(result->data);
  args.out_valid = address(result->validity);
  args.n = length;
  am_gpu_op op = plain_op(err);
  int batched = am_runtime_batch_depth() > 0;
  if (!batched) {
    op.check = AM_GPU_CHECK_FILTER;
    op.result = result;
  }
  /* Counting and scanning do not depend on the value type: one kernel each. */
  int rule = emit ? AM_NULL_EMIT : AM_NULL_DROP;
  am_kernel_key keys[3] = {
      {AM_KERNEL_FILTER_COUNT, rule, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_FILTER_SCAN, 0, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_FILTER_SCATTER, array ? rule : AM_FILTER_POSITIONS, type, AM_TYPE_INVALID}};
  if (batched) {
    /* The length is read from the status slot when first needed; the slot
     * belongs to the pending record, not to the op. */
    int slot = -1;
    status = am_gpu_status_acquire(err, gpu, &slot);
    if (status != AM_OK) return finish_result(status, result, out);
    args.status = am_gpu_status_address(gpu, slot);
    status = am_gpu_make_pending(err, gpu, slot, result);
    if (status != AM_OK) {
      am_gpu_status_release(gpu, slot);
      return finish_result(status, result, out);
    }
  }
  status = run(err, gpu, &op, !batched, keys, &args, 3);
  return finish_result(status, result, out);
}

int am_gpu_filter(am_err *err, const am_array *array, const am_array *mask, am_null_selection nulls,
                  am_array **out) {
  return filter(err, array, mask, nulls, out);
}

int am_gpu_positions(am_err *err, const am_array *mask, am_array **out) {
  return filter(err, NULL, mask, AM_NULL_DROP, out);
}

int am_gpu_take(am_err *err, const am_array *array, const am_array *indices, am_array **out) {
  am_device *device = array->device;
  am_gpu_device *gpu = am_gpu_of(device);
  int with_validity = has_nulls(array) || has_nulls(indices);
  am_array *result = NULL;
  int status = result_array(err, device, array->type, indices->length, with_validity, &result);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  bind(&args, 0, array);
  bind(&args, 1, indices);
  args.out = address(result->data);
  args.out_valid = address(result->validity);
  args.n = indices->length;
  args.aux = array->length;
  am_gpu_op op = plain_op(err);
  op.check = AM_GPU_CHECK_ERROR;
  op.error_code = AM_EINDEX;
  op.culprit = am_buffer_retain(indices->data_buf);
  op.culprit_address = args.in1;
  op.culprit_type = indices->type;
  op.culprit_offset = indices->offset;
  op.bound = array->length;
  am_kernel_key key = {AM_KERNEL_TAKE, 0, array->type, indices->type};
  status = run(err, gpu, &op, 1, &key, &args, 1);
  return finish_result(status, result, out);
}

int am_gpu_fill(am_err *err, am_device *device, const am_scalar *value, int64_t length,
                am_array **out) {
  am_type type = (am_type)value->type;
  if (value->is_null) return all_null(err, device, type, length, out);
  am_array *result = NULL;
  int status = result_array(err, device, type, length, 0, &result);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  args.out = address(result->data);
  args.n = length;
  args.scalar = scalar_bits(value);
  am_gpu_op op = plain_op(err);
  am_kernel_key key = {AM_KERNEL_FILL, 0, type, AM_TYPE_INVALID};
  status = run(err, am_gpu_of(device), &op, 0, &key, &args, 1);
  return finish_result(status, result, out);
}

/* One COPY launch per input, all under one commit and one completion. The
 * null counts of the inputs are known (the ABI settled them), so the
 * result's is their sum. */
int am_gpu_concat(am_err *err, const am_array *const *arrays, int64_t count, am_array **out) {
  am_device *device = arrays[0]->device;
  am_gpu_device *gpu = am_gpu_of(device);
  am_type type = arrays[0]->type;
  int64_t total = 0, nulls = 0;
  for (int64_t i = 0; i < count; i++) {
    int64_t counted = atomic_load(&((am_array *)arrays[i])->null_count);
    if (counted < 0) {
      int status = am_gpu_count_nulls(err, arrays[i], &counted);
      if (status != AM_OK) return status;
    }
    total += arrays[i]->length;
    nulls += counted;
  }
  am_array *result = NULL;
  int status = result_array(err, device, type, total, nulls > 0, &result);
  if (status == AM_OK && type == AM_BOOL) status = zero(err, gpu, result->data, (total + 7) / 8);
  if (status == AM_OK) status = zero(err, gpu, result->validity, (total + 7) / 8);
  if (status != AM_OK) return finish_result(status, result, out);
  am_gpu_op op = plain_op(err);
  int token = 0;
  status = am_gpu_op_begin(err, gpu, &token);
  if (status != AM_OK) return finish_result(status, result, out);
  am_kernel_key key = {AM_KERNEL_COPY, 0, type, AM_TYPE_INVALID};
  int64_t position = 0;
  for (int64_t i = 0; i < count && status == AM_OK; i++) {
    if (arrays[i]->length > 0) {
      am_gpu_args args = {0};
      bind(&args, 0, arrays[i]);
      args.out = address(result->data);
      args.out_valid = address(result->validity);
      args.n = arrays[i]->length;
      args.aux = position;
      args.scratch = address(gpu->scratch->ptr);
      status = am_gpu_launch(err, gpu, &key, &args);
    }
    position += arrays[i]->length;
  }
  status = am_gpu_op_end(err, gpu, token, status, &op);
  if (status == AM_OK) atomic_store(&result->null_count, nulls);
  return finish_result(status, result, out);
}

/* For ops written in other files of gpu/ (gpu/aggregate.c). */
int am_gpu_run_op(am_err *err, am_gpu_device *gpu, am_gpu_op *op, int want_slot,
                  const am_kernel_key *keys, am_gpu_args *args, int count) {
  return run(err, gpu, op, want_slot, keys, args, count);
}
/* ---- The helpers above, for the ops of other families (ops_shared.h) */

uint64_t am_gpu_ops_address(const void *pointer) { return address(pointer); }
int am_gpu_ops_has_nulls(const am_array *array) { return has_nulls(array); }
int am_gpu_ops_words_aligned(const am_gpu_args *args) { return words_aligned(args); }
void am_gpu_ops_bind(am_gpu_args *args, int which, const am_array *array) {
  bind(args, which, array);
}
uint64_t am_gpu_ops_scalar_bits(const am_scalar *scalar) { return scalar_bits(scalar); }
am_gpu_op am_gpu_ops_plain(const am_err *err) { return plain_op(err); }
int am_gpu_ops_run(am_err *err, am_gpu_device *gpu, am_gpu_op *op, int want_slot,
                   const am_kernel_key *keys, am_gpu_args *args, int count) {
  return run(err, gpu, op, want_slot, keys, args, count);
}
int am_gpu_ops_result(am_err *err, am_device *device, am_type type, int64_t length,
                      int with_validity, am_array **out) {
  return result_array(err, device, type, length, with_validity, out);
}
int am_gpu_ops_zero(am_err *err, am_gpu_device *gpu, const void *pointer, int64_t bytes) {
  return zero(err, gpu, pointer, bytes);
}
int am_gpu_ops_all_null(am_err *err, am_device *device, am_type type, int64_t length,
                        am_array **out) {
  return all_null(err, device, type, length, out);
}
int am_gpu_ops_finish(int status, am_array *result, am_array **out) {
  return finish_result(status, result, out);
}
