/* sort_indices and array_sort_indices (am_sort_indices): the
 * checks, then the kernel of the keys' device. Where that device declines
 * (AM_EUNSUPPORTED: a GPU, from 2^32 - 1 rows) or the keys live on different
 * devices, the keys move to the host, are sorted there, and the indices go
 * back to keys[0]'s device. */
#include <stdlib.h>

#include "abi.h"
#include "core/types.h"
#include "host_fallback.h"

/* The flags of one sort, for sort_on. */
typedef struct sort_call {
  int64_t n_keys;
  const int *descending, *nulls_first;
  am_array *sorted;
} sort_call;

static int sort_on(am_err *err, const am_array *const *keys, void *call) {
  sort_call *c = call;
  const am_kernel_ops *k = &keys[0]->device->backend->kernels;
  if (!k->sort_indices) return AM_EUNSUPPORTED;
  return k->sort_indices(err, keys, c->n_keys, c->descending, c->nulls_first, &c->sorted);
}

static int sort_indices(am_err *err, const am_array *const *keys, int64_t n_keys,
                        const int *descending, const int *null_placement, am_array **out) {
  /* pyarrow's words first: no keys is an error whatever `keys` is */
  if (n_keys < 1) return am_fail(err, AM_EINVAL, "Must specify one or more sort keys");
  AM_REQUIRE(keys, "keys");
  AM_REQUIRE(out, "out");
  if (null_placement)
    for (int64_t i = 0; i < n_keys; i++)
      if (null_placement[i] != AM_NULLS_AT_END && null_placement[i] != AM_NULLS_AT_START)
        return am_fail(err, AM_EINVAL,
                       "null_placement[%lld] %d is not AM_NULLS_AT_END (40) or "
                       "AM_NULLS_AT_START (41)",
                       (long long)i, null_placement[i]);
  int status;
  for (int64_t i = 0; i < n_keys; i++) {
    if (!keys[i]) return am_fail(err, AM_EINVAL, "key %lld is NULL", (long long)i);
    if ((status = am_settle(err, keys[i])) != AM_OK) return status;
    if (keys[i]->length != keys[0]->length)
      return am_fail(err, AM_EINVAL,
                     "key %lld has %lld rows, key 0 has %lld: sort keys must have equal lengths",
                     (long long)i, (long long)keys[i]->length, (long long)keys[0]->length);
    if (keys[i]->dictionary || keys[i]->type == AM_TYPE_INVALID ||
        (unsigned)keys[i]->type >= (unsigned)AM_TYPE_COUNT)
      return am_fail(err, AM_ETYPE, "key %lld: sort_indices has no kernel for its type (%s)",
                     (long long)i, am_type_name(keys[i]->type));
  }
  /* the backends' flags: descending (NULL: every key ascending) and nulls
   * first, per key */
  int *flags = calloc((size_t)n_keys * 2, sizeof *flags);
  if (!flags) return am_fail(err, AM_ENOMEM, "out of memory");
  int *first = flags + n_keys;
  for (int64_t i = 0; i < n_keys; i++) {
    if (descending) flags[i] = descending[i] != 0;
    first[i] = null_placement && null_placement[i] == AM_NULLS_AT_START;
  }
  sort_call c = {.n_keys = n_keys, .descending = flags, .nulls_first = first};
  status = am_run_here_or_on_host(err, keys, n_keys, sort_on, &c);
  free(flags);
  return am_deliver_home(err, status, &c.sorted, keys[0]->device, out);
}

AM_EXPORT int am_sort_indices(const am_array *const *keys, int64_t n_keys, const int *descending,
                              const int *null_placement, am_array **out) {
  AM_API_BEGIN;
  am_storage_list_t list;
  int status = am_storage_list(err, keys, keys ? n_keys : 0, &list);
  if (status == AM_OK) {
    status = sort_indices(err, keys ? list.arrays : NULL, n_keys, descending, null_placement, out);
    am_storage_list_free(&list);
  }
  AM_API_RETURN(status);
}
