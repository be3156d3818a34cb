/* Group-by on a GPU (am_group_by; core/backend.h's group_by), all in device
 * memory, with the kernels of kernel_source_groupby.c (kernels.h:
 * AM_KERNEL_GROUP_*) on the hash-based functions' table (ops_hash.c):
 *
 *   grouping (am_gpu_group_keys, shared with ops_join.c): one key column is
 *   grouped by am_gpu_hash_group (ids in first-row order, as the CPU's);
 *   several: column by column, GROUP_PACK pairing the running id with the
 *   next column's into one u64 key grouped again, so rows share a group
 *   when every column is equal (nulls a value of their own). One integer
 *   key whose range (max - min + 1, two reductions read back) is at most
 *   AM_DENSE_RANGE slots: GROUP_DENSE puts each row in slot key - min (no
 *   hashing, no probing), then the hash table's grouping after its build
 *   (ops_hash.c, with the slot computed the same way) makes the same
 *   first-row order.
 *   keys_out: each key column taken at the groups' first rows.
 *   aggregates: GROUP_ACCUM passes over the rows into 8 u64 words of state
 *   per group (atomics), GROUP_FINISH per group; min, max, min_max, first
 *   and last give rows, gathered by the GPU's take (every value type).
 *
 * The output order is the CPU kernel's: groups in the order of their first
 * row. Floating-point sums, products, means and variances add in the order
 * the atomics land, not row order: they may differ from the CPU's in the
 * last bits (the conformance cases compare them within {"rel": 1e-9}).
 *
 *   list, distinct and count_distinct: ops_group_lists.c, from the
 *   device's sort, take, filter and scan and the grouping above.
 *
 * Answered AM_EUNSUPPORTED (the ABI then groups on the host,
 * abi/host_fallback.c): Metal (no 64-bit atomics), empty inputs and 2^31
 * rows or more (the hash table's limits). */
#include "gpu/ops_groupby.h"

#include <stdlib.h>
#include <string.h>

#include "core/group_result.h"
#include "core/hash.h"
#include "core/types.h"
#include "gpu/ops_hash.h"
#include "gpu/ops_shared.h"

/* One launch of `key` over `n` (args filled by the caller). */
static int launch(am_err *err, am_gpu_device *gpu, am_kernel_kind kind, int op, am_type t0,
                  am_gpu_args *args, int64_t n) {
  args->n = n;
  am_gpu_op gop = am_gpu_ops_plain(err);
  am_kernel_key key = {kind, op, t0, AM_TYPE_INVALID};
  return am_gpu_ops_run(err, gpu, &gop, 0, &key, args, 1);
}

/* ---- The dense-key path */

/* A 64-bit form of a reduction's extreme, read now (immediate, in a batch
 * too). */
static int extreme(am_err *err, const am_array *a, am_reduce_op reduce, am_scalar *out) {
  am_gpu_device *gpu = am_gpu_of(a->device);
  am_gpu_op op = am_gpu_ops_plain(err);
  op.check = AM_GPU_CHECK_SCALAR;
  op.reduce = reduce;
  op.type = a->type;
  op.result_type = a->type;
  op.scalar_out = out;
  op.immediate = 1;
  am_gpu_args args = {0};
  am_gpu_ops_bind(&args, 0, a);
  args.n = a->length;
  am_kernel_key key = {AM_KERNEL_REDUCE, (int)reduce, a->type, AM_TYPE_INVALID};
  return am_gpu_ops_run(err, gpu, &op, 1, &key, &args, 1);
}

/* The key's range when it is one small-range integer column: *cap = max -
 * min + 1 (0: not dense), *lo = min in the key's 64-bit form. */
static int dense_range(am_err *err, const am_array *key, int64_t *cap, uint64_t *lo) {
  *cap = 0;
  int kind = am_type_kind_of(key->type);
  if (kind != AM_KIND_SIGNED && kind != AM_KIND_UNSIGNED) return AM_OK;
  am_scalar mn, mx;
  memset(&mn, 0, sizeof mn);
  memset(&mx, 0, sizeof mx);
  int status = extreme(err, key, AM_REDUCE_MIN, &mn);
  if (status == AM_OK) status = extreme(err, key, AM_REDUCE_MAX, &mx);
  if (status != AM_OK || mn.is_null || mx.is_null) return status; /* all null: hash it */
  uint64_t a = kind == AM_KIND_SIGNED ? (uint64_t)mn.i64 : mn.u64;
  uint64_t b = kind == AM_KIND_SIGNED ? (uint64_t)mx.i64 : mx.u64;
  uint64_t span = b - a; /* wraps correctly for signed too */
  if (span < AM_DENSE_RANGE) {
    *cap = (int64_t)span + 1;
    *lo = a;
  }
  return AM_OK;
}

/* GROUP_DENSE's table (no key words: first rows from word 0), then the hash
 * table's grouping after its build (ops_hash.c): ids in first-row order. */
static int dense_group(am_err *err, const am_array *key, int64_t cap, uint64_t lo,
                       am_hash_groups *out) {
  am_device *device = key->device;
  am_gpu_device *gpu = am_gpu_of(device);
  const int64_t words = 2 * (cap + 2) + 1;
  am_array *table = NULL;
  int status = am_gpu_ops_result(err, device, AM_UINT32, words, 0, &table);
  if (status == AM_OK) status = am_gpu_ops_zero(err, gpu, table->data, words * 4);
  if (status == AM_OK) {
    am_gpu_args args = {0};
    am_gpu_ops_bind(&args, 0, key);
    args.out = am_gpu_ops_address(table->data);
    args.aux = cap;
    args.scalar = lo;
    status = launch(err, gpu, AM_KERNEL_GROUP_DENSE, 0, key->type, &args, key->length);
  }
  if (status == AM_OK) {
    am_gpu_hash_table dense = {table, cap, 0, lo, 1};
    status = am_gpu_hash_groups_of(err, key, &dense, AM_HASH_IDS, out);
  }
  am_array_free(table);
  return status;
}

/* ---- Grouping */

int am_gpu_group_supported(am_err *err, const am_array *a, const char *what) {
  am_gpu_device *gpu = am_gpu_of(a->device);
  am_kernel_key acc = {AM_KERNEL_GROUP_ACCUM, AM_ACC_COUNT, AM_TYPE_INVALID, AM_TYPE_INVALID};
  if (!am_kernel_supported(gpu->dialect, &acc))
    return am_fail(err, AM_EUNSUPPORTED,
                   "%s: no GPU kernels here (they need 64-bit atomics); run on the host", what);
  if (a->length == 0)
    return am_fail(err, AM_EUNSUPPORTED, "%s: an empty input runs on the host", what);
  if (a->length >= ((int64_t)1 << 31) - 1)
    return am_fail(err, AM_EUNSUPPORTED, "%s: 2^31 rows or more run on the host", what);
  return AM_OK;
}

int am_gpu_group_keys(am_err *err, const am_array *const *keys, int64_t n_keys,
                      am_hash_groups *out) {
  am_hash_groups acc = {.null_group = -1};
  int64_t cap = 0;
  uint64_t lo = 0;
  int status = AM_OK;
  if (n_keys == 1 && (status = dense_range(err, keys[0], &cap, &lo)) != AM_OK) return status;
  status = cap ? dense_group(err, keys[0], cap, lo, &acc)
               : am_gpu_hash_group(err, keys[0], AM_HASH_IDS, &acc);
  if (status != AM_OK) return status;
  const int64_t n = keys[0]->length;
  am_device *device = keys[0]->device;
  for (int64_t k = 1; k < n_keys; k++) {
    am_hash_groups col = {.null_group = -1}, next = {.null_group = -1};
    am_array *pairs = NULL;
    if ((status = am_gpu_hash_group(err, keys[k], AM_HASH_IDS, &col)) == AM_OK &&
        (status = am_gpu_ops_result(err, device, AM_UINT64, n, 0, &pairs)) == AM_OK) {
      am_gpu_args args = {0};
      args.in0 = am_gpu_ops_address(acc.ids->data);
      args.in1 = am_gpu_ops_address(col.ids->data);
      args.out = am_gpu_ops_address(pairs->data);
      status = launch(err, am_gpu_of(device), AM_KERNEL_GROUP_PACK, 0, AM_TYPE_INVALID, &args, n);
      if (status == AM_OK) status = am_gpu_hash_group(err, pairs, AM_HASH_IDS, &next);
    }
    am_array_free(pairs);
    am_hash_groups_free(&col);
    am_hash_groups_free(&acc);
    if (status != AM_OK) return status;
    acc = next;
  }
  *out = acc;
  return AM_OK;
}

/* ---- Aggregates */

/* One pass of GROUP_ACCUM over the rows (or, for INIT, the groups). */
static int accum(am_err *err, const am_array *values, const am_array *ids, const am_array *state,
                 int op, uint64_t scalar, int64_t n) {
  am_gpu_args args = {0};
  am_type t0 = AM_TYPE_INVALID;
  if (values && (op & 15) != AM_ACC_INIT) {
    am_gpu_ops_bind(&args, 0, values);
    t0 = values->type;
  }
  args.in1 = am_gpu_ops_address(ids->data);
  args.out = am_gpu_ops_address(state->data);
  args.scalar = scalar;
  return launch(err, am_gpu_of(state->device), AM_KERNEL_GROUP_ACCUM, op, t0, &args, n);
}

/* GROUP_FINISH into a new array of `type` (with a validity unless count). */
static int finish(am_err *err, const am_array *state, const am_group_aggregate *s, am_type t0,
                  int upper, am_type type, int64_t groups, am_array **out) {
  const int counts = s->op == AM_GROUP_COUNT || s->op == AM_GROUP_COUNT_ALL;
  int status = am_gpu_ops_result(err, state->device, type, groups, !counts, out);
  if (status != AM_OK) return status;
  am_gpu_args args = {0};
  args.in0 = am_gpu_ops_address(state->data);
  args.out = am_gpu_ops_address((*out)->data);
  args.out_valid = counts ? 0 : am_gpu_ops_address((*out)->validity);
  args.scalar = s->min_count;
  args.aux = s->ddof;
  /* counts read the mode alone; the others skip_nulls alone */
  int op = counts ? s->op | (s->op == AM_GROUP_COUNT ? (s->count_mode & 3) << 6 : 0)
                  : s->op | (s->skip_nulls ? 1 : 0) << 5 | upper << 8;
  return launch(err, am_gpu_of(state->device), AM_KERNEL_GROUP_FINISH, op,
                counts ? AM_TYPE_INVALID : t0, &args, groups);
}

/* The picked rows' values: take of `values` by a finished row array. */
static int pick(am_err *err, const am_array *state, const am_group_aggregate *s,
                const am_array *values, int upper, int64_t groups, am_array **out) {
  am_array *rows = NULL;
  int status = finish(err, state, s, values->type, upper, AM_INT64, groups, &rows);
  if (status == AM_OK) status = am_gpu_take(err, values, rows, out);
  am_array_free(rows);
  return status;
}

static am_type sum_type(am_type t) {
  if (am_type_is_float(t)) return AM_FLOAT64;
  return am_type_kind_of(t) == AM_KIND_SIGNED ? AM_INT64 : AM_UINT64;
}

int am_gpu_group_counts(am_err *err, const am_array *ids, int64_t groups, am_array **out) {
  am_array *state = NULL;
  const int64_t words = groups * AM_GROUP_STATE_WORDS;
  int status = am_gpu_ops_result(err, ids->device, AM_UINT64, words, 0, &state);
  if (status == AM_OK)
    status = am_gpu_ops_zero(err, am_gpu_of(ids->device), state->data, words * 8);
  if (status == AM_OK) status = accum(err, NULL, ids, state, AM_ACC_COUNT, 0, ids->length);
  if (status == AM_OK) {
    const am_group_aggregate all = {.op = AM_GROUP_COUNT_ALL};
    status = finish(err, state, &all, AM_TYPE_INVALID, 0, AM_INT64, groups, out);
  }
  am_array_free(state);
  return status;
}

static int one_aggregate(am_err *err, const am_group_aggregate *s, const am_array *values,
                         const am_array *ids, int64_t rows, int64_t groups,
                         am_group_result *result) {
  if (s->op == AM_GROUP_LIST || s->op == AM_GROUP_DISTINCT || s->op == AM_GROUP_COUNT_DISTINCT)
    return am_gpu_group_lists(err, s, values, ids, groups, result);
  am_device *device = ids->device;
  am_array *state = NULL;
  int64_t words = groups * AM_GROUP_STATE_WORDS;
  int status = am_gpu_ops_result(err, device, AM_UINT64, words, 0, &state);
  if (status == AM_OK) status = am_gpu_ops_zero(err, am_gpu_of(device), state->data, words * 8);
  if (status != AM_OK) goto done;
  const am_type t = values ? values->type : AM_TYPE_INVALID;
  switch (s->op) {
    case AM_GROUP_COUNT:
    case AM_GROUP_COUNT_ALL:
      if ((status = accum(err, values, ids, state, AM_ACC_COUNT, 0, rows)) == AM_OK)
        status = finish(err, state, s, t, 0, AM_INT64, groups, &result->values);
      break;
    case AM_GROUP_SUM:
    case AM_GROUP_PRODUCT:
    case AM_GROUP_MEAN: {
      const int product = s->op == AM_GROUP_PRODUCT;
      if (product) {
        uint64_t one = 1;
        if (am_type_is_float(t)) {
          double d = 1.0;
          memcpy(&one, &d, 8);
        }
        status = accum(err, NULL, ids, state, AM_ACC_INIT, one, groups);
      }
      if (status == AM_OK)
        status = accum(err, values, ids, state, product ? AM_ACC_PRODUCT : AM_ACC_SUM, 0, rows);
      if (status == AM_OK)
        status = finish(err, state, s, t, 0, s->op == AM_GROUP_MEAN ? AM_FLOAT64 : sum_type(t),
                        groups, &result->values);
      break;
    }
    case AM_GROUP_VARIANCE:
    case AM_GROUP_STDDEV:
      if ((status = accum(err, values, ids, state, AM_ACC_DSUM, 0, rows)) == AM_OK &&
          (status = accum(err, values, ids, state, AM_ACC_M2, 0, rows)) == AM_OK)
        status = finish(err, state, s, t, 0, AM_FLOAT64, groups, &result->values);
      break;
    case AM_GROUP_ANY:
    case AM_GROUP_ALL:
      status =
          accum(err, values, ids, state, s->op == AM_GROUP_ANY ? AM_ACC_ANY : AM_ACC_ALL, 0, rows);
      if (status == AM_OK) status = finish(err, state, s, t, 0, AM_BOOL, groups, &result->values);
      break;
    case AM_GROUP_FIRST:
    case AM_GROUP_LAST:
      status = accum(err, values, ids, state, AM_ACC_FIRST | (s->skip_nulls ? 0 : 16), 0, rows);
      if (status == AM_OK) status = pick(err, state, s, values, 0, groups, &result->values);
      break;
    default: /* min, max, min_max */
      if ((status = accum(err, values, ids, state, AM_ACC_MINMAX, 0, rows)) == AM_OK &&
          (status = accum(err, values, ids, state, AM_ACC_PICK, 0, rows)) == AM_OK &&
          (status = pick(err, state, s, values, 0, groups, &result->values)) == AM_OK &&
          s->op == AM_GROUP_MIN_MAX)
        status = pick(err, state, s, values, 1, groups, &result->max);
  }
done:
  am_array_free(state);
  return status;
}

int am_gpu_group_by(am_err *err, const am_array *const *keys, int64_t n_keys,
                    const am_array *const *values, const am_group_aggregate *aggregates,
                    int64_t n_aggregates, am_array **keys_out, am_group_result *results) {
  int status = am_gpu_group_supported(err, keys[0], "group_by");
  if (status != AM_OK) return status;
  am_hash_groups groups = {.null_group = -1};
  am_array **got_keys = calloc((size_t)n_keys, sizeof *got_keys);
  am_group_result *got = calloc((size_t)(n_aggregates ? n_aggregates : 1), sizeof *got);
  if (!got_keys || !got) {
    status = am_fail(err, AM_ENOMEM, "out of memory");
    goto done;
  }
  if ((status = am_gpu_group_keys(err, keys, n_keys, &groups)) != AM_OK) goto done;
  for (int64_t k = 0; k < n_keys; k++)
    if ((status = am_gpu_take(err, keys[k], groups.first, &got_keys[k])) != AM_OK) goto done;
  for (int64_t a = 0; a < n_aggregates; a++) {
    const am_group_aggregate *s = &aggregates[a];
    const am_array *v = s->op == AM_GROUP_COUNT_ALL ? NULL : values[s->column];
    status = one_aggregate(err, s, v, groups.ids, keys[0]->length, groups.groups, &got[a]);
    if (status != AM_OK) goto done;
  }
  am_group_hand_over(got_keys, n_keys, got, n_aggregates, keys_out, results);
done:
  am_group_work_free(got_keys, n_keys, got, n_aggregates);
  am_hash_groups_free(&groups);
  return status;
}
