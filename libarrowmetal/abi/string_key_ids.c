/* String keys on a GPU as ids there (string_key_ids.h). */
#include "string_key_ids.h"

#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "core/hash.h"
#include "core/types.h"

static int on_gpu(const am_array *a) { return !(a->device->backend->memory.caps & AM_MEMORY_HOST); }

/* Whether a call over these inputs runs on the first one's GPU once its
 * var-binary keys are ids: every input on that device, none of them a
 * string but var-binary keys (a string value, or inputs on several devices,
 * send the whole call to the host whatever its keys are). */
static int gpu_call(const am_array *const *keys, int64_t n_keys, const am_array *const *others,
                    int64_t n_others) {
  am_device *device = keys[0]->device;
  if (!on_gpu(keys[0])) return 0;
  int strings = 0;
  for (int64_t i = 0; i < n_keys; i++) {
    if (keys[i]->device != device) return 0;
    if (am_type_is_binary(keys[i]->type) && !am_type_is_var_binary(keys[i]->type)) return 0;
    strings |= am_type_is_var_binary(keys[i]->type);
  }
  for (int64_t i = 0; i < n_others; i++)
    if (others[i]->device != device || am_type_is_binary(others[i]->type)) return 0;
  return strings;
}

static int start(am_err *err, const am_array *const *keys, int64_t n, am_string_key_ids *s) {
  memset(s, 0, sizeof *s);
  s->n = n;
  s->keys = calloc((size_t)n, sizeof *s->keys);
  s->ids = calloc((size_t)n, sizeof *s->ids);
  s->first = calloc((size_t)n, sizeof *s->first);
  if (!s->keys || !s->ids || !s->first) {
    am_string_key_ids_free(s);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  for (int64_t k = 0; k < n; k++) s->keys[k] = keys[k];
  return AM_OK;
}

/* Keeps `keys` as they are when nothing was replaced (s->keys NULL). */
static void finish(am_string_key_ids *s) {
  for (int64_t k = 0; k < s->n; k++)
    if (s->ids[k]) return;
  am_string_key_ids_free(s);
}

/* A device's answer: AM_EUNSUPPORTED (it declines) clears err and says 0. */
static int declined(am_err *err, am_err *attempt, int status) {
  am_err_merge(err, attempt, status != AM_EUNSUPPORTED);
  return status == AM_EUNSUPPORTED;
}

int am_string_key_ids_group(am_err *err, const am_array *const *keys, int64_t n_keys,
                            const am_array *const *values, int64_t n_values, am_string_key_ids *s) {
  memset(s, 0, sizeof *s);
  if (!gpu_call(keys, n_keys, values, n_values)) return AM_OK;
  int status = start(err, keys, n_keys, s);
  for (int64_t k = 0; status == AM_OK && k < n_keys; k++) {
    if (!am_type_is_var_binary(keys[k]->type)) continue; /* only var-binary keys become ids */
    am_hash_groups g = {.null_group = -1};
    am_err attempt;
    am_err_init(&attempt, err->entry);
    status = keys[k]->device->backend->kernels.hash_group(&attempt, keys[k],
                                                          AM_HASH_IDS | AM_HASH_MASK_NULLS, &g);
    if (declined(err, &attempt, status)) {
      status = AM_OK;
      continue;
    }
    if (status == AM_OK) status = am_settle(err, g.ids); /* as the group-by's checks would */
    if (status == AM_OK) {
      s->keys[k] = s->ids[k] = g.ids;
      s->first[k] = g.first;
      g.ids = g.first = NULL;
    }
    am_hash_groups_free(&g);
  }
  if (status != AM_OK) {
    am_string_key_ids_free(s);
    return status;
  }
  finish(s);
  return AM_OK;
}

int am_string_key_ids_group_keys(am_err *err, const am_string_key_ids *s,
                                 const am_array *const *given, am_array **keys_out) {
  for (int64_t k = 0; s->keys && k < s->n; k++) {
    if (!s->ids[k]) continue;
    am_array *rows = NULL, *strings = NULL;
    int status = am_call_take(err, s->first[k], keys_out[k], &rows);
    if (status == AM_OK) status = am_call_take(err, given[k], rows, &strings);
    am_array_free(rows);
    if (status != AM_OK) return status;
    am_array_free(keys_out[k]);
    keys_out[k] = strings;
  }
  return AM_OK;
}

int am_string_key_ids_join(am_err *err, const am_array *const *left_keys,
                           const am_array *const *right_keys, int64_t n_keys,
                           am_string_key_ids *left, am_string_key_ids *right) {
  memset(left, 0, sizeof *left);
  memset(right, 0, sizeof *right);
  /* the right keys as the left ones' others: same device, same types */
  if (!gpu_call(left_keys, n_keys, NULL, 0) || right_keys[0]->device != left_keys[0]->device ||
      !gpu_call(right_keys, n_keys, NULL, 0))
    return AM_OK;
  int status = start(err, left_keys, n_keys, left);
  if (status == AM_OK && (status = start(err, right_keys, n_keys, right)) != AM_OK)
    am_string_key_ids_free(left);
  for (int64_t k = 0; status == AM_OK && k < n_keys; k++) {
    const am_array *l = left_keys[k], *r = right_keys[k];
    if (!am_type_is_var_binary(l->type)) continue; /* only var-binary keys become ids */
    const am_kernel_ops *kernels = &l->device->backend->kernels;
    am_array *left_ids = NULL, *right_ids = NULL;
    am_err attempt;
    am_err_init(&attempt, err->entry);
    /* the right rows' positions first: a right side the device cannot
     * group (clashing hashes, no rows) keeps both sides' strings */
    status = kernels->hash_lookup(&attempt, r, r, 1, 0, &right_ids);
    if (status == AM_OK) status = kernels->hash_lookup(&attempt, l, r, 1, 0, &left_ids);
    if (status == AM_OK && (status = am_settle(&attempt, right_ids)) == AM_OK)
      status = am_settle(&attempt, left_ids); /* as the join's checks would */
    if (declined(err, &attempt, status)) {
      am_array_free(left_ids);
      am_array_free(right_ids);
      status = AM_OK;
      continue;
    }
    if (status != AM_OK) {
      am_array_free(left_ids);
      am_array_free(right_ids);
      break;
    }
    left->keys[k] = left->ids[k] = left_ids;
    right->keys[k] = right->ids[k] = right_ids;
  }
  if (status != AM_OK) {
    am_string_key_ids_free(left);
    am_string_key_ids_free(right);
    return status;
  }
  finish(left);
  finish(right);
  return AM_OK;
}

void am_string_key_ids_free(am_string_key_ids *s) {
  for (int64_t k = 0; k < s->n; k++) {
    if (s->ids) am_array_free(s->ids[k]);
    if (s->first) am_array_free(s->first[k]);
  }
  free(s->keys);
  free(s->ids);
  free(s->first);
  memset(s, 0, sizeof *s);
}
