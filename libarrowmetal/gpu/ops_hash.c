/* The hash-based functions on a GPU (core/hash.h), with the kernels of
 * kernel_source_hash.c (kernels.h: AM_KERNEL_HASH_*), all in device memory:
 *
 *   grouping: HASH_BUILD puts every row's key in the table (with each
 *   slot's first row and, for counts, its rows); HASH_FIRSTS marks the
 *   slots' first rows in a bitmap over the rows, and the filter kernels
 *   compact its set bits' positions: the groups' first rows in pyarrow's
 *   first-occurrence order. HASH_GROUP_SLOTS finds each group's slot again
 *   from its first row's key (its count, and the null group's id through
 *   the status block, one word read by the host) and leaves the group's id
 *   in the slot; HASH_IDS reads it back per row. Nothing is written per row
 *   but the ids.
 *   is_in / index_in: HASH_BUILD over the value set, HASH_PROBE per value.
 *
 * The ABI makes everything else (unique's values, dictionary_encode's
 * dictionary) with the GPU's take; mode orders the groups with the GPU's
 * radix sort and downloads only the first n. What is left to the host (the ABI groups
 * there when these answer AM_EUNSUPPORTED): empty inputs, 2^31 rows or
 * more, and 64-bit keys on Metal (no 64-bit atomic compare-and-swap). */
#include <string.h>

#include "gpu/ops_hash.h"

#include "core/types.h"
#include "gpu/ops_shared.h"

/* Table geometry for `rows` distinct keys of `type`: cap probed slots (a
 * power of two, at least twice the keys: probes stay short and always end),
 * the word where the first rows start (then the counts, then the count of
 * keys a bounded build inserted), and the whole table's u32 words. */
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
/* A bounded build's table holds at most cap / 2 keys plus one per thread
 * of its grid (kernels.h), which must leave empty slots to end probes. */
_Static_assert((int64_t)AM_GPU_MAX_BLOCKS *AM_GPU_BLOCK < FIRST_TRY_KEYS,
               "a bounded build's grid could fill its table");

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

/* A zeroed table for `array`'s rows, built. With `full`, the table may hold
 * fewer keys than rows (a bounded build): *full says whether it ran out of
 * room (read back at once; the table is then useless). */
static int build(am_err *err, const am_array *array, const geometry *g, int counted,
                 am_array **table, int *full) {
  am_gpu_device *gpu = am_gpu_of(array->device);
  int status = am_gpu_ops_result(err, array->device, AM_UINT32, g->words, 0, table);
  if (status != AM_OK) return status;
  status = am_gpu_ops_zero(err, gpu, (*table)->data, g->words * 4);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  am_gpu_ops_bind(&args, 0, array);
  args.out = am_gpu_ops_address((*table)->data);
  args.n = array->length;
  args.aux = g->cap;
  args.scalar = (uint64_t)g->first_word;
  am_gpu_op op = am_gpu_ops_plain(err);
  am_kernel_key key = {AM_KERNEL_HASH_BUILD, counted | (full ? 2 : 0), array->type,
                       AM_TYPE_INVALID};
  if (!full) return am_gpu_ops_run(err, gpu, &op, 0, &key, &args, 1);
  int64_t warps_full = 0;
  op.check = AM_GPU_CHECK_COUNT;
  op.count_out = &warps_full;
  op.immediate = 1;
  status = am_gpu_ops_run(err, gpu, &op, 1, &key, &args, 1);
  *full = warps_full != 0;
  return status;
}

/* The table of every row's key: first one for FIRST_TRY_KEYS keys when
 * there are more rows, then, if they hold more distinct keys, one for every
 * row. */
static int build_rows(am_err *err, const am_array *array, geometry *g, int counted,
                      am_array **table) {
  int64_t n = array->length;
  if (n <= FIRST_TRY_KEYS) {
    *g = geometry_of(array->type, n);
    return build(err, array, g, counted, table, NULL);
  }
  *g = geometry_of(array->type, FIRST_TRY_KEYS);
  int full = 0;
  int status = build(err, array, g, counted, table, &full);
  if (status != AM_OK || !full) return status;
  am_array_free(*table);
  *table = NULL;
  *g = geometry_of(array->type, n);
  return build(err, array, g, counted, table, NULL);
}

/* One launch of `key` over `n`, the args filled by the caller; with
 * `count_out`, the status count read back at once. */
static int launch(am_err *err, am_gpu_device *gpu, am_kernel_key key, am_gpu_args *args, int64_t n,
                  int64_t *count_out) {
  args->n = n;
  am_gpu_op op = am_gpu_ops_plain(err);
  if (count_out) {
    op.check = AM_GPU_CHECK_COUNT;
    op.count_out = count_out;
    op.immediate = 1;
  }
  return am_gpu_ops_run(err, gpu, &op, count_out != NULL, &key, args, 1);
}

int am_gpu_hash_groups_of(am_err *err, const am_array *keys, const am_gpu_hash_table *table,
                          int flags, am_hash_groups *out) {
  am_device *device = keys->device;
  am_gpu_device *gpu = am_gpu_of(device);
  const int64_t n = keys->length, cap = table->cap;
  const int mask_nulls = (flags & AM_HASH_MASK_NULLS) != 0;
  const int has_nulls = am_gpu_ops_has_nulls(keys);
  const uint64_t words = am_gpu_ops_address(table->words->data);
  const uint64_t where = table->dense ? table->lo : (uint64_t)table->first_word;
  am_array *firsts = NULL, *first = NULL, *counts = NULL, *ids = NULL;
  am_hash_groups result = {.null_group = -1};
  am_gpu_args args = {0};
  /* The first rows' bitmap, set by atomic OR on whole words. */
  int status = am_gpu_ops_result(err, device, AM_BOOL, n, 0, &firsts);
  if (status == AM_OK) status = am_gpu_ops_zero(err, gpu, firsts->data, (n + 31) / 32 * 4);
  if (status != AM_OK) goto done;
  args.in0 = words;
  args.out = am_gpu_ops_address(firsts->data);
  args.aux = cap;
  args.scalar = (uint64_t)table->first_word;
  am_kernel_key marks = {AM_KERNEL_HASH_FIRSTS, mask_nulls, AM_TYPE_INVALID, AM_TYPE_INVALID};
  if ((status = launch(err, gpu, marks, &args, cap + 2, NULL)) != AM_OK ||
      (status = am_gpu_positions(err, firsts, &first)) != AM_OK ||
      (am_array_pending(first) && (status = device->backend->queue.resolve(err, first)) != AM_OK))
    goto done;
  result.groups = first->length;
  if ((flags & AM_HASH_COUNTS) &&
      (status = am_gpu_ops_result(err, device, AM_INT64, result.groups, 0, &counts)) != AM_OK)
    goto done;
  /* Each group's slot: its count, its id left in the table, and the null
   * group's id (+ 1) in the status count when nulls form one. */
  memset(&args, 0, sizeof args);
  am_gpu_ops_bind(&args, 0, keys);
  args.in1 = am_gpu_ops_address(first->data);
  args.out = counts ? am_gpu_ops_address(counts->data) : 0;
  args.out_valid = words;
  args.aux = cap;
  args.scalar = where;
  int64_t null_group_plus_one = 0;
  am_kernel_key slots = {AM_KERNEL_HASH_GROUP_SLOTS, table->dense, keys->type, AM_TYPE_INVALID};
  if ((status = launch(err, gpu, slots, &args, result.groups,
                       has_nulls && !mask_nulls ? &null_group_plus_one : NULL)) != AM_OK)
    goto done;
  result.null_group = null_group_plus_one - 1;
  if (flags & AM_HASH_IDS) {
    int with_validity = mask_nulls && has_nulls;
    if ((status = am_gpu_ops_result(err, device, AM_INT32, n, with_validity, &ids)) != AM_OK)
      goto done;
    memset(&args, 0, sizeof args);
    am_gpu_ops_bind(&args, 0, keys);
    args.in1 = words;
    args.out = am_gpu_ops_address(ids->data);
    args.out_valid = with_validity ? am_gpu_ops_address(ids->validity) : 0;
    args.aux = cap;
    args.scalar = where;
    am_kernel_key id_key = {AM_KERNEL_HASH_IDS, mask_nulls | table->dense << 1, keys->type,
                            AM_TYPE_INVALID};
    if ((status = launch(err, gpu, id_key, &args, n, NULL)) != AM_OK) goto done;
  }
  result.first = first;
  result.counts = counts;
  result.ids = ids;
  first = counts = ids = NULL;
  *out = result;
done:
  am_array_free(firsts);
  am_array_free(first);
  am_array_free(counts);
  am_array_free(ids);
  return status;
}

int am_gpu_hash_group(am_err *err, const am_array *array, int flags, am_hash_groups *out) {
  if (am_type_is_binary(array->type))
    return array->length > 0 ? am_gpu_string_group(err, array, flags, out)
                             : supported(err, array, "hash grouping");
  int status = supported(err, array, "hash grouping");
  if (status != AM_OK) return status;
  geometry g;
  am_array *words = NULL;
  status = build_rows(err, array, &g, (flags & AM_HASH_COUNTS) != 0, &words);
  if (status == AM_OK) {
    am_gpu_hash_table table = {words, g.cap, g.first_word, 0, 0};
    status = am_gpu_hash_groups_of(err, array, &table, flags, out);
  }
  am_array_free(words);
  return status;
}

int am_gpu_hash_lookup(am_err *err, const am_array *values, const am_array *value_set,
                       int skip_nulls, int as_bool, am_array **out) {
  const char *what = as_bool ? "is_in" : "index_in";
  if (am_type_is_binary(values->type))
    return values->length > 0
               ? am_gpu_string_lookup(err, values, value_set, skip_nulls, as_bool, out)
               : supported(err, values, what);
  int status = supported(err, values, what);
  if (status != AM_OK) return status;
  if (value_set->length >= ((int64_t)1 << 31) - 1)
    return am_fail(err, AM_EUNSUPPORTED, "%s: a value set of 2^31 rows or more", what);
  am_device *device = values->device;
  am_gpu_device *gpu = am_gpu_of(device);
  geometry g = geometry_of(value_set->type, value_set->length);
  am_array *table = NULL, *result = NULL;
  if ((status = build(err, value_set, &g, 0, &table, NULL)) != AM_OK) goto done;
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
