/* select_k_unstable, rank, rank_quantile, rank_normal and
 * partition_nth_indices (am_select_k_unstable, am_rank, am_rank_quantile,
 * am_partition_nth_indices): pyarrow's option checks, then the kernel of
 * the inputs' device. Where that device has none (the GPUs answer
 * AM_EUNSUPPORTED: gpu/ops_rank.c) or keys live on different devices, the
 * inputs move to the host, run there, and the result goes back to the
 * (first) input's device (abi/host_fallback.c). Decimal keys are ranked by
 * the ranks of their values (key_view.h); pyarrow 26 has none of these
 * calls for dictionary arrays, and neither has the library. */
#include <stdlib.h>

#include "abi.h"
#include "core/backend.h"
#include "core/types.h"
#include "host_fallback.h"
#include "key_view.h"
#include "sort_keys.h"

/* One call of a kernel over inputs on one device. */
typedef struct call {
  enum { SELECT_K, RANK, PARTITION } what;
  const int *descending, *nulls_first; /* per key */
  int64_t n_keys, k_or_pivot;
  int how;
  am_array *result;
} call;

static int run_kernel(am_err *err, const am_array *const *keys, void *state) {
  call *c = state;
  am_array **out = &c->result;
  const am_kernel_ops *k = &keys[0]->device->backend->kernels;
  switch (c->what) {
    case SELECT_K:
      if (!k->select_k) return AM_EUNSUPPORTED;
      return k->select_k(err, keys, c->n_keys, c->descending, c->nulls_first, c->k_or_pivot, out);
    case RANK:
      if (!k->rank) return AM_EUNSUPPORTED;
      return k->rank(err, keys[0], c->descending[0], c->nulls_first[0], c->how, out);
    default:
      if (!k->partition_nth) return AM_EUNSUPPORTED;
      return k->partition_nth(err, keys[0], c->k_or_pivot, c->nulls_first[0], out);
  }
}

/* The kernel on the keys' device, else on host copies; the result on
 * keys[0]'s device. */
static int run(am_err *err, call *c, const am_array *const *keys, am_array **out) {
  int status = am_run_here_or_on_host(err, keys, c->n_keys, run_kernel, c);
  return am_deliver_home(err, status, &c->result, keys[0]->device, out);
}

static int select_k(am_err *err, const am_array *const *keys, int64_t n_keys, const int *descending,
                    const int *null_placement, int64_t k, am_array **out) {
  /* pyarrow's words and order of checks */
  if (k < 0)
    return am_fail(err, AM_EINVAL, "select_k_unstable requires a nonnegative `k`, got %lld",
                   (long long)k);
  if (n_keys < 1)
    return am_fail(err, AM_EINVAL, "select_k_unstable requires a non-empty `sort_keys`");
  AM_REQUIRE(keys, "keys");
  AM_REQUIRE(out, "out");
  int status;
  if ((status = am_check_null_placements(err, null_placement, n_keys)) != AM_OK) return status;
  if ((status = am_check_sort_keys(err, keys, n_keys, NULL, 0)) != AM_OK) return status;
  int *flags = am_sort_key_flags(n_keys, descending, null_placement);
  if (!flags) return am_fail(err, AM_ENOMEM, "out of memory");
  call c = {.what = SELECT_K,
            .descending = flags,
            .nulls_first = flags + n_keys,
            .n_keys = n_keys,
            .k_or_pivot = k};
  status = run(err, &c, keys, out);
  free(flags);
  return status;
}

AM_EXPORT int am_select_k_unstable(const am_array *const *keys, int64_t n_keys,
                                   const int *descending, const int *null_placement, int64_t k,
                                   am_array **out) {
  AM_API_BEGIN;
  am_key_list views;
  int status = am_rank_key_list(err, keys, keys ? n_keys : 0, "select_k_unstable", &views);
  if (status != AM_OK) AM_API_RETURN(status);
  am_storage_list_t list;
  status = am_storage_list(err, views.arrays, keys ? n_keys : 0, &list);
  if (status == AM_OK) {
    status = select_k(err, keys ? list.arrays : NULL, n_keys, descending, null_placement, k, out);
    am_storage_list_free(&list);
  }
  am_key_list_free(&views);
  AM_API_RETURN(status);
}

/* One array's call (rank, partition_nth) over its view: a decimal's ranks,
 * a temporal array's storage. */
typedef int (*one_key_call)(am_err *err, const am_array *array, int64_t arg, int null_placement,
                            int how, am_array **out);

static int over_view(am_err *err, const char *function, one_key_call call, const am_array *array,
                     int64_t arg, int null_placement, int how, am_array **out) {
  am_key_list views;
  int status = am_rank_key_list(err, &array, 1, function, &views);
  if (status != AM_OK) return status;
  const am_array *key = views.arrays[0];
  am_storage_keep keep;
  if ((status = am_storage_begin(err, &key, &keep)) == AM_OK)
    status = am_storage_end(call(err, key, arg, null_placement, how, out), &keep, NULL);
  am_key_list_free(&views);
  return status;
}

/* The checks of a call over one array (rank, partition_nth): the
 * pointers, the null placement, the array as a sort key. */
static int check_one_key(am_err *err, const am_array *array, int null_placement, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  int status = am_check_null_placement(err, "null_placement", null_placement);
  return status == AM_OK ? am_check_sort_keys(err, &array, 1, NULL, 0) : status;
}

static int rank(am_err *err, const am_array *array, int64_t descending, int null_placement, int how,
                am_array **out) {
  int status = check_one_key(err, array, null_placement, out);
  if (status != AM_OK) return status;
  const int desc = descending != 0, first = null_placement == AM_NULLS_AT_START;
  call c = {.what = RANK, .descending = &desc, .nulls_first = &first, .n_keys = 1, .how = how};
  return run(err, &c, &array, out);
}

AM_EXPORT int am_rank(const am_array *array, int descending, int null_placement, int tiebreaker,
                      am_array **out) {
  AM_API_BEGIN;
  if (tiebreaker < AM_RANK_MIN || tiebreaker > AM_RANK_DENSE)
    AM_API_RETURN(am_fail(err, AM_EINVAL,
                          "tiebreaker %d is not AM_RANK_MIN (0), AM_RANK_MAX (1), AM_RANK_FIRST "
                          "(2) or AM_RANK_DENSE (3)",
                          tiebreaker));
  AM_API_RETURN(over_view(err, "rank", rank, array, descending, null_placement, tiebreaker, out));
}

AM_EXPORT int am_rank_quantile(const am_array *array, int descending, int null_placement,
                               int normal, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(over_view(err, normal ? "rank_normal" : "rank_quantile", rank, array, descending,
                          null_placement, normal ? AM_RANK_HOW_NORMAL : AM_RANK_HOW_QUANTILE, out));
}

static int partition_nth(am_err *err, const am_array *array, int64_t pivot, int null_placement,
                         int unused, am_array **out) {
  (void)unused;
  int status = check_one_key(err, array, null_placement, out);
  if (status != AM_OK) return status;
  /* pyarrow takes a negative pivot unchecked (and reads out of bounds) */
  if (pivot < 0) return am_fail(err, AM_EINVAL, "pivot %lld is negative", (long long)pivot);
  if (pivot > array->length)
    return am_fail(err, AM_EINDEX, "NthToIndices index out of bound (pivot %lld, %lld rows)",
                   (long long)pivot, (long long)array->length);
  const int first = null_placement == AM_NULLS_AT_START;
  call c = {.what = PARTITION, .nulls_first = &first, .n_keys = 1, .k_or_pivot = pivot};
  return run(err, &c, &array, out);
}

AM_EXPORT int am_partition_nth_indices(const am_array *array, int64_t pivot, int null_placement,
                                       am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(
      over_view(err, "partition_nth_indices", partition_nth, array, pivot, null_placement, 0, out));
}
