/* sort_indices and array_sort_indices (am_sort_indices): the
 * checks, then the kernel of the keys' device. Where that device declines
 * (AM_EUNSUPPORTED: a GPU, from 2^32 - 1 rows) or the keys live on different
 * devices, the keys move to the host, are sorted there, and the indices go
 * back to keys[0]'s device. Decimal and dictionary keys are sorted by a view
 * of another type (key_view.h). */
#include <stdlib.h>

#include "abi.h"
#include "calls.h"
#include "core/types.h"
#include "host_fallback.h"
#include "key_view.h"
#include "sort_keys.h"

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
  int status;
  if ((status = am_check_null_placements(err, null_placement, n_keys)) != AM_OK) return status;
  if ((status = am_check_sort_keys(err, keys, n_keys, "sort_indices", 1)) != AM_OK) return status;
  /* the backends' flags: descending (NULL: every key ascending) and nulls
   * first, per key */
  int *flags = am_sort_key_flags(n_keys, descending, null_placement);
  if (!flags) return am_fail(err, AM_ENOMEM, "out of memory");
  sort_call c = {.n_keys = n_keys, .descending = flags, .nulls_first = flags + n_keys};
  status = am_run_here_or_on_host(err, keys, n_keys, sort_on, &c);
  free(flags);
  return am_deliver_home(err, status, &c.sorted, keys[0]->device, out);
}

/* The keys' views (decimals, dictionaries; temporal keys by their storage),
 * then the sort. */
int am_call_sort_indices(am_err *err, const am_array *const *keys, int64_t n_keys,
                         const int *descending, const int *null_placement, am_array **out) {
  am_key_list views;
  int status = am_sort_key_list(err, keys, keys ? n_keys : 0, &views);
  if (status != AM_OK) return status;
  am_storage_list_t list;
  status = am_storage_list(err, views.arrays, keys ? n_keys : 0, &list);
  if (status == AM_OK) {
    status = sort_indices(err, keys ? list.arrays : NULL, n_keys, descending, null_placement, out);
    am_storage_list_free(&list);
  }
  am_key_list_free(&views);
  return status;
}

AM_EXPORT int am_sort_indices(const am_array *const *keys, int64_t n_keys, const int *descending,
                              const int *null_placement, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_sort_indices(err, keys, n_keys, descending, null_placement, out));
}
