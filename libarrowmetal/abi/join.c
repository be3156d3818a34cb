/* Hash joins (am_join_indices): the checks, then the kernel of the keys'
 * device; keys on a device without a join (the GPUs for now) or on several
 * devices are joined on the host and the indices moved to left_keys[0]'s
 * device, as abi/groupby.c does. */
#include <stdlib.h>

#include "abi.h"
#include "core/types.h"
#include "route.h"

static int check_side(am_err *err, const am_array *const *keys, int64_t n_keys, const char *side) {
  int status;
  for (int64_t k = 0; k < n_keys; k++) {
    const am_array *a = keys[k];
    if (!a) return am_fail(err, AM_EINVAL, "%s key %lld is NULL", side, (long long)k);
    if ((status = am_settle(err, a)) != AM_OK) return status;
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

static int run_on(am_err *err, const am_array *const *left, const am_array *const *right,
                  int64_t n_keys, am_join_type type, am_array **li, am_array **ri) {
  return left[0]->device->backend->kernels.join_indices(err, left, right, n_keys, type, li, ri);
}

static int move_to(am_err *err, am_array **a, am_device *device) {
  if (!*a || (*a)->device == device) return AM_OK;
  am_array *moved = NULL;
  int status = am_move(err, *a, device, &moved);
  if (status != AM_OK) return status;
  am_array_free(*a);
  *a = moved;
  return AM_OK;
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
  int same_device = 1;
  for (int64_t k = 0; k < n_keys; k++) {
    if (left_keys[k]->type != right_keys[k]->type) /* pyarrow's words */
      return am_fail(err, AM_ETYPE,
                     "Incompatible data types for corresponding join field keys: %s and %s",
                     am_type_name(left_keys[k]->type), am_type_name(right_keys[k]->type));
    same_device &= left_keys[k]->device == left_keys[0]->device &&
                   right_keys[k]->device == left_keys[0]->device;
  }
  am_array *li = NULL, *ri = NULL;
  am_array **host = NULL;
  am_err tried;
  am_err_init(&tried, err->entry);
  status =
      same_device ? run_on(&tried, left_keys, right_keys, n_keys, type, &li, &ri) : AM_EUNSUPPORTED;
  if (status == AM_EUNSUPPORTED) {
    am_err_merge(err, &tried, 0);
    if (!(host = calloc((size_t)(2 * n_keys), sizeof *host))) {
      status = am_fail(err, AM_ENOMEM, "out of memory");
      goto done;
    }
    for (int64_t k = 0; k < n_keys; k++)
      if ((status = am_to_host(err, left_keys[k], &host[k])) != AM_OK ||
          (status = am_to_host(err, right_keys[k], &host[n_keys + k])) != AM_OK)
        goto done;
    status = run_on(err, (const am_array *const *)host, (const am_array *const *)host + n_keys,
                    n_keys, type, &li, &ri);
  } else {
    am_err_merge(err, &tried, 1);
  }
  if (status != AM_OK) goto done;
  if ((status = move_to(err, &li, left_keys[0]->device)) != AM_OK ||
      (status = move_to(err, &ri, left_keys[0]->device)) != AM_OK)
    goto done;
  *left_indices = li;
  *right_indices = ri;
  li = ri = NULL;
done:
  if (host)
    for (int64_t k = 0; k < 2 * n_keys; k++) am_array_free(host[k]);
  free(host);
  am_array_free(li);
  am_array_free(ri);
  return status;
}

AM_EXPORT int am_join_indices(const am_array *const *left_keys, const am_array *const *right_keys,
                              int64_t n_keys, am_join_type join_type, am_array **left_indices,
                              am_array **right_indices) {
  AM_API_BEGIN;
  AM_API_RETURN(
      join_indices(err, left_keys, right_keys, n_keys, join_type, left_indices, right_indices));
}
