/* Strings and binary on every GPU backend (core/backend.h's string slots),
 * with kernel_source_strings.c's kernels and the helpers of ops.c
 * (ops_shared.h). A device string array is the Arrow layout in device
 * memory: offsets, data bytes, validity (core/string_array.h).
 *
 *   - the lengths and the matching functions: one launch, a row a thread;
 *   - ascii_upper / ascii_lower: one launch over the data bytes, the result
 *     sharing the input's offsets and validity (as the CPU's and pyarrow's);
 *   - compare: one launch, the right operand an array or one value;
 *   - take: each output row's size (SIZES, which checks the indices), their
 *     running sum by the cumulative kernels, the total read back -- the one
 *     round trip, to size the data buffer exactly -- then the bytes and the
 *     offsets (GATHER);
 *   - filter: the mask's positions (the filter kernels), then take;
 *   - an import's offsets checked where they are (STRING_CHECK), and the
 *     last one read back.
 * Fixed-size binary and the calls these do not cover run on the host (the
 * ABI's, over host copies). */
#include <string.h>

#include "core/types.h"
#include "gpu/ops_shared.h"

static int is_case(am_string_op op) { return op == AM_ASCII_UPPER || op == AM_ASCII_LOWER; }

static int bool_result(am_string_op op) {
  return op == AM_STARTS_WITH || op == AM_ENDS_WITH || op == AM_MATCH_SUBSTRING ||
         op == AM_MATCH_LIKE;
}

/* A device buffer of `bytes` bytes (whole 64-byte lines). */
static int alloc_bytes(am_err *err, am_device *device, int64_t bytes, am_buffer **out) {
  am_gpu_device *gpu = am_gpu_of(device);
  int status = am_gpu_check_broken(err, gpu);
  if (status != AM_OK) return status;
  int token = gpu->hooks->enter(gpu);
  status = gpu->hooks->alloc(err, gpu, bytes > 0 ? bytes : 1, out);
  gpu->hooks->leave(gpu, token);
  return status;
}

/* ascii_upper / ascii_lower: the data bytes mapped into a new buffer; the
 * offsets and validity are the input's. */
static int ascii_case(am_err *err, am_string_op op, const am_array *array, am_array **out) {
  am_buffer *bytes = NULL;
  int status = alloc_bytes(err, array->device, array->bytes_size, &bytes);
  if (status != AM_OK) return status;
  am_array *result = am_array_share(array);
  if (!result) {
    am_buffer_release(bytes);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  am_buffer_release(result->bytes_buf);
  result->bytes_buf = bytes;
  result->bytes = bytes->ptr;
  if (array->bytes_size > 0) {
    am_gpu_args args;
    memset(&args, 0, sizeof args);
    args.in1 = am_gpu_ops_address(array->bytes);
    args.out = am_gpu_ops_address(bytes->ptr);
    args.n = array->bytes_size;
    args.pad = (args.in1 % 4 == 0 && args.out % 4 == 0) ? 1 : 0;
    am_kernel_key key = {AM_KERNEL_STRING_CASE, (int)op, AM_TYPE_INVALID, AM_TYPE_INVALID};
    am_gpu_op gop = am_gpu_ops_plain(err);
    status = am_gpu_ops_run(err, am_gpu_of(array->device), &gop, 0, &key, &args, 1);
  }
  return am_gpu_ops_finish(status, result, out);
}

int am_gpu_string_function(am_err *err, am_string_op op, const am_array *array,
                           const am_array *pattern, am_array **out) {
  if (!am_type_is_var_binary(array->type))
    return am_fail(err, AM_EUNSUPPORTED, "fixed_size_binary runs on the host");
  if (is_case(op)) return ascii_case(err, op, array, out);
  am_kernel_key key = {AM_KERNEL_STRING_FUNCTION, (int)op, array->type, AM_TYPE_INVALID};
  if (!am_kernel_supported(am_gpu_of(array->device)->dialect, &key))
    return am_fail(err, AM_EUNSUPPORTED, "no GPU kernel for this string function");
  am_type rt = bool_result(op)                        ? AM_BOOL
               : am_type_is_large_binary(array->type) ? AM_INT64
                                                      : AM_INT32;
  am_array *result = NULL;
  int status = am_gpu_ops_result(err, array->device, rt, array->length, am_gpu_ops_has_nulls(array),
                                 &result);
  if (status != AM_OK) return status;
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  am_gpu_ops_bind(&args, 0, array);
  args.in1 = am_gpu_ops_address(array->bytes);
  if (pattern) {
    args.in2 = am_gpu_ops_address(pattern->data) + (uint64_t)pattern->offset;
    args.aux = pattern->length;
  }
  args.out = am_gpu_ops_address(result->data);
  args.out_valid = am_gpu_ops_address(result->validity);
  args.n = array->length;
  am_gpu_op gop = am_gpu_ops_plain(err);
  if (array->length > 0)
    status = am_gpu_ops_run(err, am_gpu_of(array->device), &gop, 0, &key, &args, 1);
  if (status == AM_OK) atomic_store(&result->null_count, atomic_load(&array->null_count));
  return am_gpu_ops_finish(status, result, out);
}

int am_gpu_string_compare(am_err *err, am_compare_op op, const am_array *left,
                          const am_array *right, int broadcast, am_array **out) {
  if (!am_type_is_var_binary(left->type))
    return am_fail(err, AM_EUNSUPPORTED, "fixed_size_binary runs on the host");
  am_array *result = NULL;
  int status =
      am_gpu_ops_result(err, left->device, AM_BOOL, left->length,
                        am_gpu_ops_has_nulls(left) || am_gpu_ops_has_nulls(right), &result);
  if (status != AM_OK) return status;
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  am_gpu_ops_bind(&args, 0, left);
  args.in1 = am_gpu_ops_address(left->bytes);
  args.in2 = am_gpu_ops_address(right->data);
  args.valid2 = am_gpu_ops_has_nulls(right) ? am_gpu_ops_address(right->validity) : 0;
  args.off2 = right->offset;
  args.scalar = am_gpu_ops_address(right->bytes);
  args.out = am_gpu_ops_address(result->data);
  args.out_valid = am_gpu_ops_address(result->validity);
  args.n = left->length;
  am_kernel_key key = {AM_KERNEL_STRING_COMPARE, (int)op | (broadcast ? 8 : 0), left->type,
                       AM_TYPE_INVALID};
  am_gpu_op gop = am_gpu_ops_plain(err);
  if (left->length > 0)
    status = am_gpu_ops_run(err, am_gpu_of(left->device), &gop, 0, &key, &args, 1);
  if (status == AM_OK && !result->validity) atomic_store(&result->null_count, 0);
  return am_gpu_ops_finish(status, result, out);
}

/* The last slot of an int64 device array, after the work queued so far. */
static int read_last(am_err *err, const am_array *a, int64_t *out) {
  *out = 0;
  if (a->length == 0) return AM_OK;
  am_gpu_device *gpu = am_gpu_of(a->device);
  int status = am_gpu_sync(err, a->device);
  if (status != AM_OK) return status;
  int token = gpu->hooks->enter(gpu);
  status = gpu->hooks->read(
      err, gpu, out, am_gpu_ops_address(a->data) + (uint64_t)(a->offset + a->length - 1) * 8, 8);
  gpu->hooks->leave(gpu, token);
  return status;
}

/* SIZES: each output row's bytes into `sizes` and its validity into
 * `validity` (NULL: no nulls possible), the indices checked. */
static int row_sizes(am_err *err, const am_array *values, const am_array *indices,
                     const am_array *sizes, const uint8_t *validity) {
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  am_gpu_ops_bind(&args, 0, values);
  args.in2 = am_gpu_ops_address(indices->data);
  args.valid2 = am_gpu_ops_has_nulls(indices) ? am_gpu_ops_address(indices->validity) : 0;
  args.off2 = indices->offset;
  args.aux = values->length;
  args.out = am_gpu_ops_address(sizes->data);
  args.out_valid = am_gpu_ops_address(validity);
  args.n = indices->length;
  am_gpu_op op = am_gpu_ops_plain(err);
  op.check = AM_GPU_CHECK_ERROR;
  op.error_code = AM_EINDEX;
  op.culprit = am_buffer_retain(indices->data_buf);
  op.culprit_address = args.in2;
  op.culprit_type = indices->type;
  op.culprit_offset = indices->offset;
  op.bound = values->length;
  op.immediate = 1; /* the sizes are read back next: a bad index must stop us here */
  am_kernel_key key = {AM_KERNEL_STRING_SIZES, 0, values->type, indices->type};
  return am_gpu_ops_run(err, am_gpu_of(values->device), &op, 1, &key, &args, 1);
}

int am_gpu_string_take(am_err *err, const am_array *values, const am_array *indices,
                       am_array **out) {
  if (!am_type_is_var_binary(values->type))
    return am_fail(err, AM_EUNSUPPORTED, "fixed_size_binary runs on the host");
  if (indices->type != AM_INT32 && indices->type != AM_INT64)
    return am_fail(err, AM_EUNSUPPORTED, "%s indices run on the host", am_type_name(indices->type));
  am_device *device = values->device;
  const int64_t n = indices->length;
  const int large = am_type_is_large_binary(values->type);
  const int nulls = am_gpu_ops_has_nulls(values) || am_gpu_ops_has_nulls(indices);
  am_array *offsets = NULL, *sizes = NULL, *ends = NULL, *result = NULL;
  am_buffer *bytes = NULL;
  int64_t total = 0;
  am_scalar zero;
  memset(&zero, 0, sizeof zero);
  zero.type = AM_INT64;
  int status = am_gpu_ops_result(err, device, large ? AM_INT64 : AM_INT32, n + 1, nulls, &offsets);
  if (status == AM_OK) status = am_gpu_ops_result(err, device, AM_INT64, n, 0, &sizes);
  if (status == AM_OK && n > 0) status = row_sizes(err, values, indices, sizes, offsets->validity);
  if (status == AM_OK && n > 0)
    status = am_gpu_cumulative(err, AM_CUMULATIVE_SUM, sizes, &zero, 1, &ends);
  if (status == AM_OK) status = read_last(err, ends ? ends : sizes, &total);
  if (status == AM_OK && !large && total > INT32_MAX)
    status = am_fail(err, AM_EOVERFLOW,
                     "offset overflow: the %lld bytes taken do not fit %s's 32-bit offsets "
                     "(large_%s takes them)",
                     (long long)total, am_type_name(values->type), am_type_name(values->type));
  if (status == AM_OK) status = alloc_bytes(err, device, total, &bytes);
  if (status == AM_OK) {
    am_gpu_args args;
    memset(&args, 0, sizeof args);
    am_gpu_ops_bind(&args, 0, values);
    args.in1 = am_gpu_ops_address(values->bytes);
    args.in2 = am_gpu_ops_address(indices->data);
    args.off2 = indices->offset;
    args.scalar = am_gpu_ops_address(ends ? ends->data : NULL);
    args.out = am_gpu_ops_address(bytes->ptr);
    args.out_valid = am_gpu_ops_address(offsets->data);
    args.n = n;
    am_kernel_key key = {AM_KERNEL_STRING_GATHER, 0, values->type, indices->type};
    am_gpu_op op = am_gpu_ops_plain(err);
    if (n > 0)
      status = am_gpu_ops_run(err, am_gpu_of(device), &op, 0, &key, &args, 1);
    else /* no rows: the one offset 0 */
      status = am_gpu_ops_zero(err, am_gpu_of(device), offsets->data, large ? 8 : 4);
  }
  if (status == AM_OK &&
      !(result = am_array_make(device, values->type, n, 0, nulls ? -1 : 0,
                               nulls ? am_buffer_retain(offsets->validity_buf) : NULL,
                               nulls ? offsets->validity : NULL,
                               am_buffer_retain(offsets->data_buf), offsets->data)))
    status = am_fail(err, AM_ENOMEM, "out of memory");
  if (status == AM_OK) {
    result->bytes = bytes->ptr;
    result->bytes_buf = bytes;
    result->bytes_size = total;
    bytes = NULL;
    *out = result;
  }
  am_buffer_release(bytes);
  am_array_free(offsets);
  am_array_free(sizes);
  am_array_free(ends);
  return status;
}

int am_gpu_string_check(am_err *err, const am_array *array, int64_t *bytes_size) {
  *bytes_size = 0;
  if (!am_type_is_var_binary(array->type))
    return am_fail(err, AM_EUNSUPPORTED, "a fixed_size_binary has no offsets to check");
  am_gpu_device *gpu = am_gpu_of(array->device);
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  args.in0 = am_gpu_ops_address(array->data);
  args.off0 = array->offset;
  args.n = array->length;
  am_gpu_op op = am_gpu_ops_plain(err);
  op.check = AM_GPU_CHECK_ERROR;
  op.error_code = AM_EINVAL;
  op.message = "string offsets must start at 0 or more and never decrease";
  op.culprit = am_buffer_retain(array->data_buf);
  op.culprit_address = args.in0;
  op.culprit_type = am_type_is_large_binary(array->type) ? AM_INT64 : AM_INT32;
  op.culprit_offset = array->offset;
  op.immediate = 1;
  am_kernel_key key = {AM_KERNEL_STRING_CHECK, 0, array->type, AM_TYPE_INVALID};
  int status = AM_OK;
  if (array->length > 0)
    status = am_gpu_ops_run(err, gpu, &op, 1, &key, &args, 1);
  else
    am_buffer_release(op.culprit);
  if (status != AM_OK) return status;
  /* The last offset: the bytes known to be there. */
  const int width = am_type_is_large_binary(array->type) ? 8 : 4;
  int64_t last = 0;
  int token = gpu->hooks->enter(gpu);
  status = gpu->hooks->read(err, gpu, &last,
                            args.in0 + (uint64_t)((array->offset + array->length) * width), width);
  gpu->hooks->leave(gpu, token);
  if (status == AM_OK) *bytes_size = width == 8 ? last : (int64_t)(int32_t)last;
  return status;
}

int am_gpu_string_filter(am_err *err, const am_array *values, const am_array *mask,
                         am_array **out) {
  if (!am_type_is_var_binary(values->type))
    return am_fail(err, AM_EUNSUPPORTED, "fixed_size_binary runs on the host");
  am_array *positions = NULL;
  int status = am_gpu_positions(err, mask, &positions);
  if (status == AM_OK && am_array_pending(positions)) status = am_gpu_resolve(err, positions);
  if (status == AM_OK) status = am_gpu_string_take(err, values, positions, out);
  am_array_free(positions);
  return status;
}

/* ---- Grouping and lookups by value (core/hash.h), as the CPU's
 * (cpu/hash_bytes.c): each row's bytes hashed to 64 bits (STRING_HASH), the
 * hashes grouped or looked up by the numeric hash kernels (ops_hash.c), and
 * every row then compared with the row its hash led to (STRING_VERIFY). Two
 * different values of one hash in a grouping answer AM_EUNSUPPORTED (the
 * ABI groups on the host); in a lookup a value whose hash meets another
 * value's is simply not in the set, the set having been grouped first. */

/* The hashes of `array`'s rows, with its validity (offset 0). */
static int row_hashes(am_err *err, const am_array *array, am_array **out) {
  am_array *hashes = NULL;
  int status = am_gpu_ops_result(err, array->device, AM_UINT64, array->length,
                                 am_gpu_ops_has_nulls(array), &hashes);
  if (status != AM_OK) return status;
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  am_gpu_ops_bind(&args, 0, array);
  args.in1 = am_gpu_ops_address(array->bytes);
  args.out = am_gpu_ops_address(hashes->data);
  args.out_valid = am_gpu_ops_address(hashes->validity);
  args.n = array->length;
  am_kernel_key key = {AM_KERNEL_STRING_HASH, 0, array->type, AM_TYPE_INVALID};
  am_gpu_op op = am_gpu_ops_plain(err);
  status = am_gpu_ops_run(err, am_gpu_of(array->device), &op, 0, &key, &args, 1);
  if (status == AM_OK) atomic_store(&hashes->null_count, atomic_load(&array->null_count));
  return am_gpu_ops_finish(status, hashes, out);
}

/* How many valid rows differ from the first row of their group. */
static int group_clashes(am_err *err, const am_array *array, const am_hash_groups *g,
                         int64_t *clashes) {
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  am_gpu_ops_bind(&args, 0, array);
  args.in1 = am_gpu_ops_address(array->bytes);
  args.in2 = am_gpu_ops_address(g->ids->data);
  args.scalar = am_gpu_ops_address(g->first->data);
  args.n = array->length;
  am_gpu_op op = am_gpu_ops_plain(err);
  op.check = AM_GPU_CHECK_COUNT;
  op.count_out = clashes;
  op.immediate = 1;
  am_kernel_key key = {AM_KERNEL_STRING_VERIFY, 0, array->type, AM_TYPE_INVALID};
  return am_gpu_ops_run(err, am_gpu_of(array->device), &op, 1, &key, &args, 1);
}

int am_gpu_string_group(am_err *err, const am_array *array, int flags, am_hash_groups *out) {
  if (!am_type_is_var_binary(array->type))
    return am_fail(err, AM_EUNSUPPORTED, "%s rows are grouped on the host",
                   am_type_name(array->type));
  am_array *hashes = NULL;
  am_hash_groups g = {.null_group = -1};
  int64_t clashes = 0;
  int status = row_hashes(err, array, &hashes);
  /* the ids are the check's: every row against its group's first */
  if (status == AM_OK) status = am_gpu_hash_group(err, hashes, flags | AM_HASH_IDS, &g);
  if (status == AM_OK) status = group_clashes(err, array, &g, &clashes);
  am_array_free(hashes);
  if (status == AM_OK && clashes > 0)
    status = am_fail(err, AM_EUNSUPPORTED,
                     "two different values share a 64-bit hash: grouped on the host");
  if (status != AM_OK) {
    am_hash_groups_free(&g);
    return status;
  }
  if (!(flags & AM_HASH_IDS)) {
    am_array_free(g.ids);
    g.ids = NULL;
  }
  *out = g;
  return AM_OK;
}

int am_gpu_string_lookup(am_err *err, const am_array *values, const am_array *value_set,
                         int skip_nulls, int as_bool, am_array **out) {
  if (!am_type_is_var_binary(values->type) || value_set->type != values->type)
    return am_fail(err, AM_EUNSUPPORTED, "%s values are looked up on the host",
                   am_type_name(values->type));
  am_array *set_hashes = NULL, *hashes = NULL, *found = NULL, *result = NULL;
  am_hash_groups set_groups = {.null_group = -1};
  /* The set first: a set whose values clash is looked up on the host. */
  int status = value_set->length > 0 ? am_gpu_string_group(err, value_set, 0, &set_groups)
                                     : am_fail(err, AM_EUNSUPPORTED, "an empty value set");
  am_hash_groups_free(&set_groups);
  if (status == AM_OK) status = row_hashes(err, value_set, &set_hashes);
  if (status == AM_OK) status = row_hashes(err, values, &hashes);
  if (status == AM_OK) status = am_gpu_hash_lookup(err, hashes, set_hashes, skip_nulls, 0, &found);
  if (status == AM_OK)
    status = am_gpu_ops_result(err, values->device, as_bool ? AM_BOOL : AM_INT32, values->length,
                               !as_bool, &result);
  if (status == AM_OK && values->length > 0) {
    am_gpu_args args;
    memset(&args, 0, sizeof args);
    am_gpu_ops_bind(&args, 0, values);
    args.in1 = am_gpu_ops_address(values->bytes);
    args.in2 = am_gpu_ops_address(found->data);
    args.valid2 = am_gpu_ops_address(found->validity);
    args.valid1 = am_gpu_ops_address(value_set->data);
    args.off1 = value_set->offset;
    args.scalar = am_gpu_ops_address(value_set->bytes);
    args.out = am_gpu_ops_address(result->data);
    args.out_valid = am_gpu_ops_address(result->validity);
    args.n = values->length;
    am_kernel_key key = {AM_KERNEL_STRING_VERIFY, as_bool ? 2 : 1, values->type, AM_TYPE_INVALID};
    am_gpu_op op = am_gpu_ops_plain(err);
    status = am_gpu_ops_run(err, am_gpu_of(values->device), &op, 0, &key, &args, 1);
  }
  /* index_in's positions are the lookup's, valid where the bytes agreed */
  if (status == AM_OK && !as_bool && values->length > 0) {
    am_buffer_release(result->data_buf);
    result->data_buf = am_buffer_retain(found->data_buf);
    result->data = found->data;
  }
  if (status == AM_OK) atomic_store(&result->null_count, as_bool ? 0 : -1);
  am_array_free(set_hashes);
  am_array_free(hashes);
  am_array_free(found);
  return am_gpu_ops_finish(status, result, out);
}
