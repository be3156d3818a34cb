/* The string calls a GPU runs itself (string_device.h): each checks that
 * its inputs suit the device's kernels -- one GPU device, var-binary
 * values, what the slot takes -- and hands them to the backend's string
 * slot; anything else answers AM_EUNSUPPORTED and the caller runs the call
 * on host copies, where the argument checks and pyarrow's messages live.
 * A device's refusal (AM_EUNSUPPORTED: a kernel it lacks) is dropped too. */
#include <string.h>

#include "core/string_array.h"
#include "string_calls.h"
#include "string_device.h"

static int on_gpu(const am_array *a) {
  return !(a->device->backend->memory.caps & AM_MEMORY_HOST) && am_type_is_var_binary(a->type);
}

/* The slot's answer: its failure's message is kept unless it declined. */
static int tried(am_err *err, am_err *attempt, int status) {
  am_err_merge(err, attempt, status != AM_EUNSUPPORTED);
  return status;
}

/* A settled input of `type` on `device`, or no attempt. */
static int usable(am_err *err, const am_array *a, const am_device *device) {
  return a->device == device && am_settle(err, a) == AM_OK;
}

int am_string_gpu_filter(am_err *err, const am_array *values, const am_array *mask, int emit,
                         am_array **out) {
  am_err attempt;
  am_err_init(&attempt, err->entry);
  int64_t nulls = 0;
  if (!on_gpu(values) || mask->type != AM_BOOL || !usable(&attempt, mask, values->device) ||
      mask->length != values->length || am_count_nulls(&attempt, mask, &nulls) != AM_OK ||
      (nulls > 0 && emit))
    return AM_EUNSUPPORTED;
  const am_kernel_ops *k = &values->device->backend->kernels;
  am_array *dropped = NULL; /* a null mask slot drops its row: false */
  int status = AM_OK;
  if (nulls > 0) {
    am_scalar no;
    memset(&no, 0, sizeof no);
    no.type = AM_BOOL;
    status = k->coalesce(&attempt, mask, NULL, &no, &dropped);
  }
  if (status == AM_OK) status = k->string_filter(&attempt, values, dropped ? dropped : mask, out);
  am_array_free(dropped);
  return tried(err, &attempt, status);
}

int am_string_gpu_take(am_err *err, const am_array *values, const am_array *indices,
                       am_array **out) {
  am_err attempt;
  am_err_init(&attempt, err->entry);
  if (!on_gpu(values) || (indices->type != AM_INT32 && indices->type != AM_INT64) ||
      !usable(&attempt, indices, values->device))
    return AM_EUNSUPPORTED;
  return tried(err, &attempt,
               values->device->backend->kernels.string_take(&attempt, values, indices, out));
}

int am_string_gpu_compare(am_err *err, int op, const am_array *left, const am_array *right,
                          const am_scalar *scalar, am_array **out) {
  am_err attempt;
  am_err_init(&attempt, err->entry);
  if (op < AM_EQ || op > AM_GE || !on_gpu(left)) return AM_EUNSUPPORTED;
  if (right &&
      (right->device != left->device || right->type != left->type || right->length != left->length))
    return AM_EUNSUPPORTED;
  /* A value: one slot of left's type on the device, read for every row. */
  am_array *one = NULL;
  int status = AM_OK;
  if (!right) {
    if (scalar->is_null || !am_type_is_var_binary((am_type)scalar->type)) return AM_EUNSUPPORTED;
    am_scalar s = *scalar;
    s.type = left->type;
    am_array *host = NULL;
    status = am_string_scalar_array(&attempt, &s, left->type, 0, &host);
    if (status == AM_OK) status = am_string_place(&attempt, host, left->device, &one);
  }
  if (status == AM_OK)
    status = left->device->backend->kernels.string_compare(&attempt, (am_compare_op)op, left,
                                                           right ? right : one, right == NULL, out);
  am_array_free(one);
  return tried(err, &attempt, status);
}

/* The ops the GPU's string_function takes. */
static int gpu_op(am_string_op op) {
  return op <= AM_COUNT_SUBSTRING || op == AM_ASCII_UPPER || op == AM_ASCII_LOWER ||
         op == AM_MATCH_LIKE;
}

int am_string_gpu_function(am_err *err, am_string_op op, const am_array *array,
                           const uint8_t *pattern, int64_t m, int flags, am_array **out) {
  if (!on_gpu(array) || flags || !gpu_op(op)) return AM_EUNSUPPORTED;
  am_err attempt;
  am_err_init(&attempt, err->entry);
  if (op == AM_MATCH_LIKE) { /* pyarrow's fast paths first, as on the host */
    const int utf8 = am_type_is_utf8(array->type);
    int64_t at = 0, len = m;
    am_string_op shortcut = am_string_like_shortcut(pattern, m, utf8, &at, &len);
    if (shortcut != AM_MATCH_LIKE)
      op = shortcut, pattern += at, m = len;
    else if (utf8 && !am_string_like_valid(pattern, m))
      return AM_EUNSUPPORTED; /* RE2 refuses its expression: the host says so */
  }
  /* The pattern's bytes as a uint8 array on the device. */
  am_array *p = NULL;
  int status = AM_OK;
  if (op >= AM_STARTS_WITH && op != AM_ASCII_UPPER && op != AM_ASCII_LOWER) {
    am_array *host = NULL;
    status = am_array_alloc_host(&attempt, am_host_device(), AM_UINT8, m, 0, &host);
    if (status == AM_OK && m > 0) memcpy((void *)host->data, pattern, (size_t)m);
    if (status == AM_OK) status = am_place(&attempt, host, array->device, &p);
  }
  if (status == AM_OK)
    status = array->device->backend->kernels.string_function(&attempt, op, array, p, out);
  am_array_free(p);
  return tried(err, &attempt, status);
}
