/* The hash-based functions on a GPU (core/hash.h), with the kernels of
 * kernel_source_hash.c (kernels.h: AM_KERNEL_HASH_*), all in device memory:
 *
 *   grouping: HASH_BUILD puts every row in the table (its slot per row),
 *   HASH_FIRSTS marks the rows that are their slot's first, and the filter
 *   kernels compact the row numbers (HASH_ROWS) under that mask: the groups'
 *   first rows in pyarrow's first-occurrence order. Counts are the slots'
 *   counts gathered through those first rows; ids come from HASH_GROUPS (each
 *   slot's group) and HASH_IDS. The null group's id comes back through the
 *   status block (one word read by the host).
 *   is_in / index_in: HASH_BUILD over the value set, HASH_PROBE per value.
 *
 * The ABI makes everything else (unique's values, dictionary_encode's
 * dictionary) with the GPU's take; mode downloads only the groups' values
 * and counts to order them. What is left to the host (the ABI groups
 * there when these answer AM_EUNSUPPORTED): empty inputs, 2^31 rows or
 * more, and 64-bit keys on Metal (no 64-bit atomic compare-and-swap). */
#include <string.h>

#include "core/hash.h"
#include "core/types.h"
#include "gpu/ops_shared.h"

/* Table geometry for `rows` distinct keys of `type`: cap probed slots (a
 * power of two, at least twice the keys: probes stay short and always end),
 * the word where the first rows start (then the counts, then the count of
 * taken slots), and the whole table's u32 words. */
typedef struct geometry {
  int64_t cap, first_word, words;
} geometry;

static geometry geometry_of(am_type type, int64_t rows) {
  geometry g;
  g.cap = 64;
  while (g.cap < 2 * rows) g.cap *= 2;
  int64_t key_words = am_type_bits(type) == 64 ? 2 : 1;
  g.first_word = (g.cap + 2) * key_words;
  g.words = g.first_word + 2 * (g.cap + 2) + 1;
  return g;
}

/* Grouping more rows than this tries a table for this many keys first (32
 * MB with 64-bit keys: it stays in the L2 cache of a large GPU, and a table
 * for every row of a long input is gigabytes to zero and cache misses to
 * probe); more distinct keys than it holds send the build round again with
 * room for every row. */
#define FIRST_TRY_KEYS ((int64_t)1 << 20)

/* Whether the GPU can group `array` here; else a reason (AM_EUNSUPPORTED,
 * and the ABI groups on the host). */
static int supported(am_err *err, const am_array *array, const char *what) {
  am_gpu_device *gpu = am_gpu_of(array->device);
  am_kernel_key build = {AM_KERNEL_HASH_BUILD, 0, array->type, AM_TYPE_INVALID};
  if (!am_kernel_supported(gpu->dialect, &build))
    return am_fail(err, AM_EUNSUPPORTED,
                   "%s: no GPU hash table of %s keys here (Metal has no 64-bit atomic "
                   "compare-and-swap); grouped on the host",
                   what, am_type_name(array->type));
  if (array->length == 0)
    return am_fail(err, AM_EUNSUPPORTED, "%s: an empty input is grouped on the host", what);
  if (array->length >= ((int64_t)1 << 31) - 1)
    return am_fail(err, AM_EUNSUPPORTED,
                   "%s: %lld rows is more than the GPU hash table's 2^31 - 2; grouped on the host",
                   what, (long long)array->length);
  return AM_OK;
}

/* A zeroed table for `array`'s rows, built: `slots` (u32 per row) when
 * given. With `full`, the table may hold fewer keys than rows: *full says
 * whether it ran out of room (read back at once; the table is then
 * useless). */
static int build(am_err *err, const am_array *array, const geometry *g, int counted,
                 am_array **table, am_array *slots, int *full) {
  am_gpu_device *gpu = am_gpu_of(array->device);
  int status = am_gpu_ops_result(err, array->device, AM_UINT32, g->words, 0, table);
  if (status != AM_OK) return status;
  status = am_gpu_ops_zero(err, gpu, (*table)->data, g->words * 4);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  am_gpu_ops_bind(&args, 0, array);
  args.out = am_gpu_ops_address((*table)->data);
  args.out_valid = slots ? am_gpu_ops_address(slots->data) : 0;
  args.n = array->length;
  args.aux = g->cap;
  args.scalar = (uint64_t)g->first_word;
  am_gpu_op op = am_gpu_ops_plain(err);
  am_kernel_key key = {AM_KERNEL_HASH_BUILD, counted, array->type, AM_TYPE_INVALID};
  if (!full) return am_gpu_ops_run(err, gpu, &op, 0, &key, &args, 1);
  int64_t warps_full = 0;
  op.check = AM_GPU_CHECK_COUNT;
  op.count_out = &warps_full;
  op.immediate = 1;
  status = am_gpu_ops_run(err, gpu, &op, 1, &key, &args, 1);
  *full = warps_full != 0;
  return status;
}

/* The table and every row's slot: first in a table for FIRST_TRY_KEYS keys
 * when there are more rows, then, if they hold more distinct keys, in one
 * for every row. */
static int build_rows(am_err *err, const am_array *array, geometry *g, int counted,
                      am_array **table, am_array *slots) {
  int64_t n = array->length;
  if (n <= FIRST_TRY_KEYS) {
    *g = geometry_of(array->type, n);
    return build(err, array, g, counted, table, slots, NULL);
  }
  *g = geometry_of(array->type, FIRST_TRY_KEYS);
  int full = 0;
  int status = build(err, array, g, counted, table, slots, &full);
  if (status != AM_OK || !full) return status;
  am_array_free(*table);
  *table = NULL;
  *g = geometry_of(array->type, n);
  return build(err, array, g, counted, table, slots, NULL);
}

/* One launch over `n` of a kind that reads the table (in0) and the rows'
 * slots (in1). */
static int launch(am_err *err, am_gpu_device *gpu, am_kernel_kind kind, int sub_op,
                  const am_array *in0, const am_array *in1, const am_array *out,
                  const am_array *out_valid, int64_t n, const geometry *g) {
  am_gpu_args args = {0};
  args.in0 = am_gpu_ops_address(in0->data);
  args.in1 = am_gpu_ops_address(in1->data);
  args.out = am_gpu_ops_address(out->data);
  args.out_valid = out_valid ? am_gpu_ops_address(out_valid->validity) : 0;
  args.n = n;
  args.aux = g->cap;
  args.scalar = (uint64_t)g->first_word;
  am_gpu_op op = am_gpu_ops_plain(err);
  am_kernel_key key = {kind, sub_op, AM_TYPE_INVALID, AM_TYPE_INVALID};
  return am_gpu_ops_run(err, gpu, &op, 0, &key, &args, 1);
}

/* The rows marked in `mask`, of `values` (int64 per row), in row order. */
static int compact(am_err *err, const am_array *values, const am_array *mask, am_array **out) {
  int status = am_gpu_filter(err, values, mask, AM_NULL_DROP, out);
  if (status == AM_OK && am_array_pending(*out))
    status = (*out)->device->backend->queue.resolve(err, *out);
  return status;
}

int am_gpu_hash_group(am_err *err, const am_array *array, int flags, am_hash_groups *out) {
  int status = supported(err, array, "hash grouping");
  if (status != AM_OK) return status;
  am_device *device = array->device;
  am_gpu_device *gpu = am_gpu_of(device);
  const int64_t n = array->length;
  const int mask_nulls = (flags & AM_HASH_MASK_NULLS) != 0;
  const int has_nulls = am_gpu_ops_has_nulls(array);
  geometry g;
  am_array *table = NULL, *slots = NULL, *firsts = NULL, *rows = NULL, *first = NULL;
  am_array *counts = NULL, *slot_group = NULL, *ids = NULL;
  am_hash_groups result = {.null_group = -1};
  if ((status = am_gpu_ops_result(err, device, AM_UINT32, n, 0, &slots)) != AM_OK ||
      (status = build_rows(err, array, &g, (flags & AM_HASH_COUNTS) != 0, &table, slots)) !=
          AM_OK ||
      (status = am_gpu_ops_result(err, device, AM_BOOL, n, 0, &firsts)) != AM_OK ||
      (status = launch(err, gpu, AM_KERNEL_HASH_FIRSTS, mask_nulls, table, slots, firsts, NULL, n,
                       &g)) != AM_OK ||
      (status = am_gpu_ops_result(err, device, AM_INT64, n, 0, &rows)) != AM_OK ||
      (status = launch(err, gpu, AM_KERNEL_HASH_ROWS, 0, table, slots, rows, NULL, n, &g)) !=
          AM_OK ||
      (status = compact(err, rows, firsts, &first)) != AM_OK)
    goto done;
  result.groups = first->length;
  if (flags & AM_HASH_COUNTS) { /* each group's slot's count, through its first row */
    if ((status = am_gpu_ops_result(err, device, AM_INT64, result.groups, 0, &counts)) != AM_OK)
      goto done;
    am_gpu_args args = {0};
    args.in0 = am_gpu_ops_address(table->data);
    args.in1 = am_gpu_ops_address(slots->data);
    args.valid1 = am_gpu_ops_address(first->data);
    args.out = am_gpu_ops_address(counts->data);
    args.n = result.groups;
    args.aux = g.cap;
    args.scalar = (uint64_t)g.first_word;
    am_gpu_op op = am_gpu_ops_plain(err);
    am_kernel_key key = {AM_KERNEL_HASH_ROWS, 1, AM_TYPE_INVALID, AM_TYPE_INVALID};
    if ((status = am_gpu_ops_run(err, gpu, &op, 0, &key, &args, 1)) != AM_OK) goto done;
  }
  /* Each slot's group, and the null group's (when nulls form one). */
  if ((flags & AM_HASH_IDS) || (has_nulls && !mask_nulls)) {
    if ((status = am_gpu_ops_result(err, device, AM_UINT32, g.cap + 2, 0, &slot_group)) != AM_OK ||
        (status = am_gpu_ops_zero(err, gpu, slot_group->data, (g.cap + 2) * 4)) != AM_OK)
      goto done;
    int64_t null_group_plus_one = 0;
    am_gpu_args args = {0};
    args.in0 = am_gpu_ops_address(slots->data);
    args.in1 = am_gpu_ops_address(first->data);
    args.out = am_gpu_ops_address(slot_group->data);
    args.n = result.groups;
    args.aux = g.cap;
    am_gpu_op op = am_gpu_ops_plain(err);
    op.check = AM_GPU_CHECK_COUNT;
    op.count_out = &null_group_plus_one;
    op.immediate = 1;
    am_kernel_key key = {AM_KERNEL_HASH_GROUPS, 0, AM_TYPE_INVALID, AM_TYPE_INVALID};
    if ((status = am_gpu_ops_run(err, gpu, &op, 1, &key, &args, 1)) != AM_OK) goto done;
    result.null_group = mask_nulls ? -1 : null_group_plus_one - 1;
  }
  if (flags & AM_HASH_IDS) {
    int with_validity = mask_nulls && has_nulls;
    if ((status = am_gpu_ops_result(err, device, AM_INT32, n, with_validity, &ids)) != AM_OK ||
        (status = launch(err, gpu, AM_KERNEL_HASH_IDS, mask_nulls, slot_group, slots, ids,
                         with_validity ? ids : NULL, n, &g)) != AM_OK)
      goto done;
  }
  result.first = first;
  result.counts = counts;
  result.ids = ids;
  first = counts = ids = NULL;
  *out = result;
done:
  am_array_free(table);
  am_array_free(slots);
  am_array_free(firsts);
  am_array_free(rows);
  am_array_free(first);
  am_array_free(counts);
  am_array_free(slot_group);
  am_array_free(ids);
  return status;
}

int am_gpu_hash_lookup(am_err *err, const am_array *values, const am_array *value_set,
                       int skip_nulls, int as_bool, am_array **out) {
  const char *what = as_bool ? "is_in" : "index_in";
  int status = supported(err, values, what);
  if (status != AM_OK) return status;
  if (value_set->length >= ((int64_t)1 << 31) - 1)
    return am_fail(err, AM_EUNSUPPORTED, "%s: a value set of 2^31 rows or more", what);
  am_device *device = values->device;
  am_gpu_device *gpu = am_gpu_of(device);
  geometry g = geometry_of(value_set->type, value_set->length);
  am_array *table = NULL, *result = NULL;
  if ((status = build(err, value_set, &g, 0, &table, NULL, NULL)) != AM_OK) goto done;
  /* is_in is never null; index_in is null where nothing is found. */
  status = am_gpu_ops_result(err, device, as_bool ? AM_BOOL : AM_INT32, values->length, !as_bool,
                             &result);
  if (status != AM_OK) goto done;
  am_gpu_args args = {0};
  am_gpu_ops_bind(&args, 0, values);
  args.in1 = am_gpu_ops_address(table->data);
  args.out = am_gpu_ops_address(result->data);
  args.out_valid = am_gpu_ops_address(result->validity);
  args.n = values->length;
  args.aux = g.cap;
  args.scalar = (uint64_t)g.first_word;
  am_gpu_op op = am_gpu_ops_plain(err);
  am_kernel_key key = {AM_KERNEL_HASH_PROBE, (as_bool ? 1 : 0) | (skip_nulls ? 2 : 0), values->type,
                       AM_TYPE_INVALID};
  status = am_gpu_ops_run(err, gpu, &op, 0, &key, &args, 1);
done:
  am_array_free(table);
  return am_gpu_ops_finish(status, result, out);
}
