/* Hash joins (am_join_indices): the checks, then the kernel of the keys'
 * device; keys on a device that declines (Metal) or on several devices are
 * joined on the host and the indices moved to left_keys[0]'s device
 * (abi/host_fallback.c). String keys on a GPU join there as ids
 * (string_key_ids.h); decimal keys join by their bytes, dictionary keys by
 * their values decoded (key_view.h). */
#include <stdlib.h>

#include "abi.h"
#include "core/types.h"
#include "float16.h"
#include "host_fallback.h"
#include "key_view.h"
#include "string_key_ids.h"

static int check_side(am_err *err, const am_array *const *keys, int64_t n_keys, const char *side) {
  int status;
  for (int64_t k = 0; k < n_keys; k++) {
    const am_array *a = keys[k];
    if (!a) return am_fail(err, AM_EINVAL, "%s key %lld is NULL", side, (long long)k);
    /* strings and binary join by their bytes (host arrays: nothing to settle) */
    if (!am_type_is_binary(a->type) && (status = am_settle(err, a)) != AM_OK) return status;
    if (a->dictionary || a->type == AM_TYPE_INVALID || (unsigned)a->type >= (unsigned)AM_TYPE_COUNT)
      return am_fail(err, AM_ETYPE, "%s key %lld: join has no kernel for its type (%s)", side,
                     (long long)k, am_type_name(a->type));
    if (a->length != keys[0]->length)
      return am_fail(err, AM_EINVAL,
                     "%s key %lld has %lld rows, %s key 0 has %lld: a side's keys must have "
                     "equal lengths",
                     side, (long long)k, (long long)a->length, side, (long long)keys[0]->length);
  }
  return AM_OK;
}

/* One join over inputs = the left keys, then the right keys. */
typedef struct join_call {
  int64_t n_keys;
  am_join_type type;
  am_array *left, *right; /* the indices */
} join_call;

static int run_on(am_err *err, const am_array *const *inputs, void *call) {
  join_call *c = call;
  return inputs[0]->device->backend->kernels.join_indices(err, inputs, inputs + c->n_keys,
                                                          c->n_keys, c->type, &c->left, &c->right);
}

static int join_indices(am_err *err, const am_array *const *left_keys,
                        const am_array *const *right_keys, int64_t n_keys, am_join_type type,
                        am_array **left_indices, am_array **right_indices) {
  AM_REQUIRE(left_keys, "left_keys");
  AM_REQUIRE(right_keys, "right_keys");
  AM_REQUIRE(left_indices, "left_indices");
  AM_REQUIRE(right_indices, "right_indices");
  if (n_keys < 1)
    return am_fail(err, AM_EINVAL, "n_keys is %lld: a join needs one or more keys",
                   (long long)n_keys);
  if ((unsigned)type > (unsigned)AM_JOIN_RIGHT_ANTI)
    return am_fail(err, AM_EINVAL, "unknown join type %d", (int)type);
  int status;
  if ((status = check_side(err, left_keys, n_keys, "left")) != AM_OK ||
      (status = check_side(err, right_keys, n_keys, "right")) != AM_OK)
    return status;
  for (int64_t k = 0; k < n_keys; k++)
    if (left_keys[k]->type != right_keys[k]->type ||
        left_keys[k]->byte_width != right_keys[k]->byte_width) /* pyarrow's words */
      return am_fail(err, AM_ETYPE,
                     "Incompatible data types for corresponding join field keys: %s and %s",
                     am_type_name(left_keys[k]->type), am_type_name(right_keys[k]->type));
  /* string keys on a GPU join there as ids (string_key_ids.h) */
  am_string_key_ids left_ids, right_ids;
  status = am_string_key_ids_join(err, left_keys, right_keys, n_keys, &left_ids, &right_ids);
  if (status != AM_OK) return status;
  const am_array **inputs = calloc((size_t)(2 * n_keys), sizeof *inputs);
  for (int64_t k = 0; inputs && k < n_keys; k++) {
    inputs[k] = left_ids.keys ? left_ids.keys[k] : left_keys[k];
    inputs[n_keys + k] = right_ids.keys ? right_ids.keys[k] : right_keys[k];
  }
  if (!inputs) status = am_fail(err, AM_ENOMEM, "out of memory");
  join_call c = {.n_keys = n_keys, .type = type};
  if (status == AM_OK) status = am_run_here_or_on_host(err, inputs, 2 * n_keys, run_on, &c);
  free(inputs);
  am_string_key_ids_free(&left_ids);
  am_string_key_ids_free(&right_ids);
  if (status == AM_OK) status = am_move_home(err, &c.right, left_keys[0]->device);
  status = am_deliver_home(err, status, &c.left, left_keys[0]->device, left_indices);
  if (status == AM_OK) {
    *right_indices = c.right;
    c.right = NULL;
  }
  am_array_free(c.right);
  return status;
}

static int join_over(am_err *err, const am_array *const *left_keys,
                     const am_array *const *right_keys, int64_t n_keys, am_join_type join_type,
                     am_array **left_indices, am_array **right_indices) {
  /* Temporal keys join on their storage integers, float16 ones on their
   * bits, once their types match. */
  for (int64_t k = 0; left_keys && right_keys && k < n_keys; k++)
    if (left_keys[k] && right_keys[k] && left_keys[k]->type != right_keys[k]->type &&
        (am_type_is_temporal(left_keys[k]->type) || am_type_is_temporal(right_keys[k]->type) ||
         left_keys[k]->type == AM_FLOAT16 || right_keys[k]->type == AM_FLOAT16))
      return am_fail(err, AM_ETYPE,
                     "Incompatible data types for corresponding join field keys: %s and %s",
                     am_type_name(left_keys[k]->type), am_type_name(right_keys[k]->type));
  /* float16 keys match by their bits (uint16 views): 0.0 and -0.0 apart, a
   * NaN its own bits, as pyarrow's. */
  const int64_t count = left_keys && right_keys && n_keys > 0 ? n_keys : 0;
  am_storage_list_t left, right, left16, right16;
  int status = am_storage_list(err, left_keys, count, &left);
  if (status != AM_OK) return status;
  if ((status = am_storage_list(err, right_keys, count, &right)) == AM_OK) {
    if ((status = am_float16_list(err, left.arrays, count, &left16)) == AM_OK) {
      if ((status = am_float16_list(err, right.arrays, count, &right16)) == AM_OK) {
        status =
            join_indices(err, left_keys ? left16.arrays : NULL, right_keys ? right16.arrays : NULL,
                         n_keys, join_type, left_indices, right_indices);
        am_storage_list_free(&right16);
      }
      am_storage_list_free(&left16);
    }
    am_storage_list_free(&right);
  }
  am_storage_list_free(&left);
  return status;
}

AM_EXPORT int am_join_indices(const am_array *const *left_keys, const am_array *const *right_keys,
                              int64_t n_keys, am_join_type join_type, am_array **left_indices,
                              am_array **right_indices) {
  AM_API_BEGIN;
  am_key_list left, right;
  int status = am_join_key_lists(err, left_keys, right_keys, n_keys, &left, &right);
  if (status == AM_OK) {
    status =
        join_over(err, left.arrays, right.arrays, n_keys, join_type, left_indices, right_indices);
    am_key_list_free(&left);
    am_key_list_free(&right);
  }
  AM_API_RETURN(status);
}
