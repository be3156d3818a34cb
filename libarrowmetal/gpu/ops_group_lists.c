/* The list-valued aggregates of a GPU group-by (AM_GROUP_LIST,
 * AM_GROUP_DISTINCT) and count_distinct, in device memory, from the
 * device's own ops: no host round trip, the same results as cpu/groupby.c.
 *
 *   list:            the rows in group order, stably (the GPU radix sort of
 *                    the group ids), then the values taken in that order;
 *                    each group's items in row order, as the CPU's.
 *   distinct:        the (group, value) pairs grouped (am_gpu_group_keys:
 *                    pairs in the order of their first row, a null value a
 *                    value of its own); their first rows, kept by the count
 *                    mode (only valid values, only the null, or all); then
 *                    as list over those rows, so a group's items come in
 *                    first-occurrence order.
 *   count_distinct:  distinct's kept rows counted by group.
 *
 * Offsets are int32, groups + 1 of them: the counts' inclusive scan after a
 * 0. More than 2^31 - 1 items is AM_EINVAL, as on the CPU. */
#include <string.h>

#include "core/error.h"
#include "gpu/ops_groupby.h"
#include "gpu/ops_shared.h"

/* The stable order of `ids` (int32), as int64 row indices: the sort's
 * uint64 indices (rows below 2^31) have the same bits, and take reads
 * int32 or int64 indices. */
static int order_of(am_err *err, const am_array *ids, am_array **out) {
  const int descending = 0, nulls_first = 0;
  int status = am_gpu_sort_indices(err, &ids, 1, &descending, &nulls_first, out);
  if (status == AM_OK) (*out)->type = AM_INT64;
  return status;
}

/* groups + 1 int32 offsets from the groups' item counts (int64), whose sum
 * is `total`. */
static int offsets_of(am_err *err, const am_array *counts, int64_t total, am_array **out) {
  if (total > INT32_MAX)
    return am_fail(err, AM_EINVAL, "more than 2^31 - 1 list items (int32 offsets)");
  am_array *narrow = NULL, *scan = NULL, *zero = NULL;
  am_scalar start;
  memset(&start, 0, sizeof start);
  start.type = AM_INT32;
  int status = am_gpu_cast(err, counts, AM_INT32, 0, &narrow);
  if (status == AM_OK) status = am_gpu_cumulative(err, AM_CUMULATIVE_SUM, narrow, &start, 1, &scan);
  if (status == AM_OK) status = am_gpu_fill(err, counts->device, &start, 1, &zero);
  if (status == AM_OK) {
    const am_array *parts[2] = {zero, scan};
    status = am_gpu_concat(err, parts, 2, out);
  }
  am_array_free(narrow);
  am_array_free(scan);
  am_array_free(zero);
  return status;
}

/* list's result over the rows `rows` (int64; NULL: every row) of `values`,
 * whose groups are `ids` (int32, one per row kept) and counts `counts`. */
static int lists_of(am_err *err, const am_array *values, const am_array *rows, const am_array *ids,
                    const am_array *counts, am_group_result *result) {
  am_array *order = NULL, *picked = NULL, *items = NULL, *offsets = NULL;
  int status = order_of(err, ids, &order);
  if (status == AM_OK && rows) status = am_gpu_take(err, rows, order, &picked);
  if (status == AM_OK) status = am_gpu_take(err, values, rows ? picked : order, &items);
  if (status == AM_OK) status = offsets_of(err, counts, ids->length, &offsets);
  if (status == AM_OK) {
    result->values = items;
    result->offsets = offsets;
    items = offsets = NULL;
  }
  am_array_free(order);
  am_array_free(picked);
  am_array_free(items);
  am_array_free(offsets);
  return status;
}

/* The first row of each distinct (group, value) pair, kept by the count
 * mode: int64 rows in increasing order. */
static int distinct_rows(am_err *err, const am_array *values, const am_array *ids, int mode,
                         am_array **out) {
  am_hash_groups pairs = {.null_group = -1};
  const am_array *keys[2] = {ids, values};
  int status = am_gpu_group_keys(err, keys, 2, &pairs);
  if (status == AM_OK && mode == AM_COUNT_ALL) {
    *out = pairs.first;
    pairs.first = NULL;
  } else if (status == AM_OK) {
    am_array *firsts = NULL, *keep = NULL;
    status = am_gpu_take(err, values, pairs.first, &firsts);
    if (status == AM_OK)
      status =
          am_gpu_predicate(err, mode == AM_COUNT_NULL ? AM_IS_NULL : AM_IS_VALID, 0, firsts, &keep);
    if (status == AM_OK) status = am_gpu_filter(err, pairs.first, keep, AM_NULL_DROP, out);
    /* Its length is read next (a take of its rows): inside a batch it is
     * known only once resolved. */
    if (status == AM_OK && am_array_pending(*out))
      status = (*out)->device->backend->queue.resolve(err, *out);
    am_array_free(firsts);
    am_array_free(keep);
  }
  am_hash_groups_free(&pairs);
  return status;
}

int am_gpu_group_lists(am_err *err, const am_group_aggregate *s, const am_array *values,
                       const am_array *ids, int64_t groups, am_group_result *result) {
  if (s->op == AM_GROUP_LIST) {
    am_array *counts = NULL;
    int status = am_gpu_group_counts(err, ids, groups, &counts);
    if (status == AM_OK) status = lists_of(err, values, NULL, ids, counts, result);
    am_array_free(counts);
    return status;
  }
  am_array *rows = NULL, *kept_ids = NULL, *counts = NULL;
  int status = distinct_rows(err, values, ids, s->count_mode, &rows);
  if (status == AM_OK) status = am_gpu_take(err, ids, rows, &kept_ids);
  if (status == AM_OK) status = am_gpu_group_counts(err, kept_ids, groups, &counts);
  if (status == AM_OK && s->op == AM_GROUP_COUNT_DISTINCT) {
    result->values = counts;
    counts = NULL;
  } else if (status == AM_OK) {
    status = lists_of(err, values, rows, kept_ids, counts, result);
  }
  am_array_free(rows);
  am_array_free(kept_ids);
  am_array_free(counts);
  return status;
}
