/* Hash joins on a GPU (am_join_indices; core/backend.h's join_indices), in
 * device memory, with kernel_source_groupby.c's JOIN_MARK / JOIN_WRITE:
 *
 *   1. each left key column is concatenated with its right partner, and the
 *      rows grouped by all keys (am_gpu_group_keys, the group-by's device
 *      hash table), so equal key tuples on either side share one id (the
 *      CPU's way, cpu/join.c);
 *   2. JOIN_MARK 16 counts each group's right rows and flags the groups a
 *      left row has, JOIN_MARK 17 flags the groups whose key holds a null
 *      (such a group has only such rows: null keys never match);
 *   3. the build side: the right rows sorted by group id (the GPU's stable
 *      radix sort, so each group's rows stay in row order) and the groups'
 *      run ends (an inclusive cumulative sum of their counts);
 *   4. two passes: JOIN_MARK gives every left (and, for right / full outer
 *      and right semi / anti, every right) row its number of output rows,
 *      a cumulative sum their places, and the totals (read back: the only
 *      host round trip) size the results exactly; JOIN_WRITE then writes
 *      them, so no buffer can overflow.
 *
 * Output and order are the CPU's (include/arrowmetal.h): int64 indices,
 * left rows in row order each with its matches in right row order, then
 * the unmatched right rows. The pair joins' results carry validity bitmaps
 * (null where a row has no partner). A failed device allocation answers
 * AM_ENOMEM with the sizes; empty sides, Metal and 2^31 rows or more answer
 * AM_EUNSUPPORTED (joined on the host). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/types.h"
#include "gpu/ops_groupby.h"
#include "gpu/ops_shared.h"

static int launch(am_err *err, am_gpu_device *gpu, am_kernel_kind kind, int op, am_gpu_args *args,
                  int64_t n) {
  args->n = n;
  am_gpu_op gop = am_gpu_ops_plain(err);
  am_kernel_key key = {kind, op, AM_TYPE_INVALID, AM_TYPE_INVALID};
  return am_gpu_ops_run(err, gpu, &gop, 0, &key, args, 1);
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

/* An int32 view of ids[from, from + n). */
static int ids_view(am_err *err, const am_array *ids, int64_t from, int64_t n, am_array **out) {
  *out = am_array_make(ids->device, AM_INT32, n, ids->offset + from, 0, NULL, NULL,
                       am_buffer_retain(ids->data_buf), ids->data);
  return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
}

/* The inclusive running sum of an int64 device array. */
static int running_sum(am_err *err, const am_array *a, am_array **out) {
  am_scalar zero;
  memset(&zero, 0, sizeof zero);
  zero.type = AM_INT64;
  return am_gpu_cumulative(err, AM_CUMULATIVE_SUM, a, &zero, 1, out);
}

/* One side's output rows: MARK per row, then their running sum and total. */
static int side_counts(am_err *err, const am_array *flags, const am_array *rcount,
                       const am_array *side_ids, int op, am_array **scan, int64_t *total) {
  am_array *count = NULL;
  int status = am_gpu_ops_result(err, side_ids->device, AM_INT64, side_ids->length, 0, &count);
  if (status == AM_OK) {
    am_gpu_args args = {0};
    args.in0 = am_gpu_ops_address(flags->data);
    args.in1 = am_gpu_ops_address(side_ids->data) + (uint64_t)side_ids->offset * 4;
    args.valid1 = am_gpu_ops_address(rcount->data);
    args.out = am_gpu_ops_address(count->data);
    status =
        launch(err, am_gpu_of(side_ids->device), AM_KERNEL_JOIN_MARK, op, &args, side_ids->length);
  }
  if (status == AM_OK) status = running_sum(err, count, scan);
  if (status == AM_OK) status = read_last(err, *scan, total);
  am_array_free(count);
  return status;
}

static int join(am_err *err, const am_array *const *left_keys, const am_array *const *right_keys,
                int64_t n_keys, am_join_type type, am_array **left_out, am_array **right_out,
                am_array **both) {
  const int64_t nl = left_keys[0]->length, nr = right_keys[0]->length, n = nl + nr;
  am_device *device = left_keys[0]->device;
  am_gpu_device *gpu = am_gpu_of(device);
  const int pairs = type <= AM_JOIN_FULL_OUTER;
  const int left_rows = type != AM_JOIN_RIGHT_SEMI && type != AM_JOIN_RIGHT_ANTI;
  const int right_rows = type == AM_JOIN_RIGHT_OUTER || type == AM_JOIN_FULL_OUTER ||
                         type == AM_JOIN_RIGHT_SEMI || type == AM_JOIN_RIGHT_ANTI;
  am_hash_groups g = {.null_group = -1};
  am_array *flags = NULL, *rcount = NULL, *gend = NULL, *right_ids = NULL, *left_ids = NULL;
  am_array *sorted = NULL, *lscan = NULL, *rscan = NULL, *li = NULL, *ri = NULL;
  int64_t total_l = 0, total_r = 0;
  am_gpu_args args;
  int status;
  for (int64_t k = 0; k < n_keys; k++) {
    const am_array *pair[2] = {left_keys[k], right_keys[k]};
    if ((status = am_gpu_concat(err, pair, 2, &both[k])) != AM_OK) goto done;
  }
  if ((status = am_gpu_group_keys(err, (const am_array *const *)both, n_keys, &g)) != AM_OK ||
      (status = am_gpu_ops_result(err, device, AM_UINT32, 2 * g.groups, 0, &flags)) != AM_OK ||
      (status = am_gpu_ops_zero(err, gpu, flags->data, 2 * g.groups * 4)) != AM_OK ||
      (status = am_gpu_ops_result(err, device, AM_INT64, g.groups, 0, &rcount)) != AM_OK ||
      (status = am_gpu_ops_zero(err, gpu, rcount->data, g.groups * 8)) != AM_OK)
    goto done;
  memset(&args, 0, sizeof args);
  args.in0 = am_gpu_ops_address(flags->data);
  args.in1 = am_gpu_ops_address(g.ids->data);
  args.out = am_gpu_ops_address(rcount->data);
  args.aux = nl;
  if ((status = launch(err, gpu, AM_KERNEL_JOIN_MARK, 16, &args, n)) != AM_OK) goto done;
  for (int64_t k = 0; k < n_keys; k++) {
    if (!am_gpu_ops_has_nulls(both[k])) continue;
    memset(&args, 0, sizeof args);
    am_gpu_ops_bind(&args, 0, both[k]);
    args.in0 = am_gpu_ops_address(flags->data);
    args.in1 = am_gpu_ops_address(g.ids->data);
    if ((status = launch(err, gpu, AM_KERNEL_JOIN_MARK, 17, &args, n)) != AM_OK) goto done;
  }
  if ((status = ids_view(err, g.ids, 0, nl, &left_ids)) != AM_OK ||
      (status = ids_view(err, g.ids, nl, nr, &right_ids)) != AM_OK)
    goto done;
  if (left_rows &&
      (status = side_counts(err, flags, rcount, left_ids, (int)type, &lscan, &total_l)) != AM_OK)
    goto done;
  if (right_rows && (status = side_counts(err, flags, rcount, right_ids, (int)type | 8, &rscan,
                                          &total_r)) != AM_OK)
    goto done;
  const int64_t m = total_l + total_r;
  if (pairs) {
    /* The build side: right rows by group, each group's run's end. */
    const am_array *sort_keys[1] = {right_ids};
    int descending = 0, nulls_first = 0;
    if ((status = am_gpu_sort_indices(err, sort_keys, 1, &descending, &nulls_first, &sorted)) !=
            AM_OK ||
        (status = running_sum(err, rcount, &gend)) != AM_OK ||
        (status = am_gpu_ops_result(err, device, AM_INT64, m, 1, &li)) != AM_OK ||
        (status = am_gpu_ops_result(err, device, AM_INT64, m, 1, &ri)) != AM_OK ||
        (m > 0 && (status = am_gpu_ops_zero(err, gpu, li->validity, (m + 31) / 32 * 4)) != AM_OK) ||
        (m > 0 && (status = am_gpu_ops_zero(err, gpu, ri->validity, (m + 31) / 32 * 4)) != AM_OK))
      goto done;
  } else if (left_rows) {
    if ((status = am_gpu_ops_result(err, device, AM_INT64, m, 0, &li)) != AM_OK) goto done;
  } else if ((status = am_gpu_ops_result(err, device, AM_INT64, m, 0, &ri)) != AM_OK) {
    goto done;
  }
  if (left_rows && total_l > 0) {
    memset(&args, 0, sizeof args);
    args.in0 = am_gpu_ops_address(flags->data);
    args.in1 = am_gpu_ops_address(g.ids->data);
    args.valid1 = am_gpu_ops_address(lscan->data);
    args.out = am_gpu_ops_address(li->data);
    if (pairs) {
      args.out_valid = am_gpu_ops_address(li->validity);
      args.valid0 = am_gpu_ops_address(ri->data);
      args.off1 = (int64_t)am_gpu_ops_address(ri->validity);
      args.scalar = am_gpu_ops_address(sorted->data);
      args.off0 = (int64_t)am_gpu_ops_address(gend->data);
    }
    if ((status = launch(err, gpu, AM_KERNEL_JOIN_WRITE, pairs << 4, &args, nl)) != AM_OK)
      goto done;
  }
  if (right_rows && total_r > 0) {
    memset(&args, 0, sizeof args);
    args.in0 = am_gpu_ops_address(flags->data);
    args.in1 = am_gpu_ops_address(g.ids->data) + (uint64_t)nl * 4;
    args.valid1 = am_gpu_ops_address(rscan->data);
    args.out = am_gpu_ops_address(ri->data);
    args.out_valid = pairs ? am_gpu_ops_address(ri->validity) : 0;
    args.aux = total_l;
    if ((status = launch(err, gpu, AM_KERNEL_JOIN_WRITE, 8, &args, nr)) != AM_OK) goto done;
  }
  *left_out = li;
  *right_out = ri;
  li = ri = NULL;
done:
  am_hash_groups_free(&g);
  am_array_free(flags);
  am_array_free(rcount);
  am_array_free(gend);
  am_array_free(left_ids);
  am_array_free(right_ids);
  am_array_free(sorted);
  am_array_free(lscan);
  am_array_free(rscan);
  am_array_free(li);
  am_array_free(ri);
  return status;
}

int am_gpu_join_indices(am_err *err, const am_array *const *left_keys,
                        const am_array *const *right_keys, int64_t n_keys, am_join_type join_type,
                        am_array **left_indices, am_array **right_indices) {
  const int64_t nl = left_keys[0]->length, nr = right_keys[0]->length;
  if (nl == 0 || nr == 0)
    return am_fail(err, AM_EUNSUPPORTED, "join: an empty side is joined on the host");
  int status = am_gpu_group_supported(err, left_keys[0], "join");
  if (status != AM_OK) return status;
  if (nl + nr >= ((int64_t)1 << 31) - 1)
    return am_fail(err, AM_EUNSUPPORTED, "join: 2^31 rows or more are joined on the host");
  am_array **both = calloc((size_t)n_keys, sizeof *both);
  if (!both) return am_fail(err, AM_ENOMEM, "out of memory");
  am_array *li = NULL, *ri = NULL;
  status = join(err, left_keys, right_keys, n_keys, join_type, &li, &ri, both);
  for (int64_t k = 0; k < n_keys; k++) am_array_free(both[k]);
  free(both);
  if (status == AM_ENOMEM) {
    /* The sizes, with the allocation's own words. */
    char was[sizeof err->message];
    snprintf(was, sizeof was, "%s", err->message);
    int64_t key_bytes = 0;
    for (int64_t k = 0; k < n_keys; k++) key_bytes += am_type_bytes(left_keys[k]->type, nl + nr);
    return am_fail(err, AM_ENOMEM,
                   "join: the GPU hash join of %lld left and %lld right rows (%lld bytes of "
                   "keys, about %lld bytes of tables and row buffers) does not fit device "
                   "memory: %s",
                   (long long)nl, (long long)nr, (long long)key_bytes, (long long)((nl + nr) * 40),
                   was);
  }
  if (status != AM_OK) return status;
  *left_indices = li;
  *right_indices = ri;
  return AM_OK;
}
