/* Group-by (am_group_by, am_group_aggregate_default): the checks, then the
 * kernel of the keys' device. Where that device declines (Metal, a string
 * value on a GPU) or the inputs live on different devices, every input
 * moves to the host, is grouped there, and the results go back to keys[0]'s
 * device (abi/host_fallback.c). String keys on a GPU group there as ids
 * (string_key_ids.h); decimal and dictionary columns run on views of other
 * types (group_views.h). */
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "core/group_result.h"
#include "core/ops.h"
#include "core/types.h"
#include "float16.h"
#include "group_views.h"
#include "host_fallback.h"
#include "string_key_ids.h"

static int valid_op(int32_t op) { return op >= AM_GROUP_COUNT && op <= AM_GROUP_COUNT_ALL; }

static int aggregate_default(am_err *err, am_group_op op, int32_t column, am_group_aggregate *out) {
  AM_REQUIRE(out, "out");
  if (!valid_op(op)) return am_fail(err, AM_EINVAL, "unknown group-by aggregate %d", (int)op);
  *out = (am_group_aggregate){
      .op = op,
      .column = column,
      .skip_nulls = 1,
      .min_count = op == AM_GROUP_VARIANCE || op == AM_GROUP_STDDEV ? 0 : 1,
      .ddof = 0,
      .count_mode = AM_COUNT_VALID,
  };
  return AM_OK;
}

AM_EXPORT int am_group_aggregate_default(am_group_op op, int32_t column, am_group_aggregate *out) {
  AM_API_BEGIN;
  AM_API_RETURN(aggregate_default(err, op, column, out));
}

static int check_array(am_err *err, const am_array *a, const char *what, int64_t i, int64_t rows) {
  if (!a) return am_fail(err, AM_EINVAL, "%s %lld is NULL", what, (long long)i);
  /* strings and binary group by their bytes (host arrays: nothing to settle) */
  int status = am_type_is_binary(a->type) ? AM_OK : am_settle(err, a);
  if (status != AM_OK) return status;
  if (a->dictionary || a->type == AM_TYPE_INVALID || (unsigned)a->type >= (unsigned)AM_TYPE_COUNT)
    return am_fail(err, AM_ETYPE, "%s %lld: group_by has no kernel for its type (%s)", what,
                   (long long)i, am_type_name(a->type));
  if (a->length != rows)
    return am_fail(err, AM_EINVAL,
                   "%s %lld has %lld rows, key 0 has %lld: keys and values must have equal lengths",
                   what, (long long)i, (long long)a->length, (long long)rows);
  return AM_OK;
}

static int check_aggregate(am_err *err, const am_group_aggregate *g, int64_t a,
                           const am_array *const *values, int64_t n_values) {
  if (!valid_op(g->op))
    return am_fail(err, AM_EINVAL, "aggregate %lld: unknown group-by aggregate %d", (long long)a,
                   (int)g->op);
  if (g->op == AM_GROUP_COUNT_ALL) return AM_OK;
  if (g->column < 0 || g->column >= n_values)
    return am_fail(err, AM_EINVAL, "aggregate %lld: column %d is out of range (%lld value columns)",
                   (long long)a, (int)g->column, (long long)n_values);
  if ((g->op == AM_GROUP_COUNT || g->op == AM_GROUP_COUNT_DISTINCT || g->op == AM_GROUP_DISTINCT) &&
      (g->count_mode < AM_COUNT_VALID || g->count_mode > AM_COUNT_ALL))
    return am_fail(err, AM_EINVAL,
                   "aggregate %lld: count_mode %d is not AM_COUNT_VALID (0), AM_COUNT_NULL (1) or "
                   "AM_COUNT_ALL (2)",
                   (long long)a, (int)g->count_mode);
  const am_op_desc *row = am_op_find(AM_FAMILY_GROUP_BY, g->op);
  am_type t = values[g->column]->type;
  if (!am_accepts(row, t)) /* pyarrow's words; its group ids are uint32 */
    return am_fail(err, AM_ETYPE, "Function '%s' has no kernel matching input types (%s, uint32)",
                   row->name, am_type_name(t));
  return AM_OK;
}

/* One group-by over inputs = the keys, then the value columns. */
typedef struct group_call {
  int64_t n_keys;
  const am_group_aggregate *aggregates;
  int64_t n_aggregates;
  am_array **keys_out;
  am_group_result *results;
} group_call;

static int run_on(am_err *err, const am_array *const *inputs, void *call) {
  group_call *c = call;
  return inputs[0]->device->backend->kernels.group_by(err, inputs, c->n_keys, inputs + c->n_keys,
                                                      c->aggregates, c->n_aggregates, c->keys_out,
                                                      c->results);
}

static int group_by(am_err *err, const am_array *const *keys, int64_t n_keys,
                    const am_array *const *values, int64_t n_values,
                    const am_group_aggregate *aggregates, int64_t n_aggregates, am_array **keys_out,
                    am_group_result *results) {
  if (n_keys < 1) return am_fail(err, AM_EINVAL, "Must specify one or more keys (n_keys < 1)");
  AM_REQUIRE(keys, "keys");
  AM_REQUIRE(keys_out, "keys_out");
  if (n_values < 0) return am_fail(err, AM_EINVAL, "n_values is negative");
  if (n_aggregates < 0) return am_fail(err, AM_EINVAL, "n_aggregates is negative");
  if (n_values > 0) AM_REQUIRE(values, "values");
  if (n_aggregates > 0) {
    AM_REQUIRE(aggregates, "aggregates");
    AM_REQUIRE(results, "results");
  }
  int status;
  if (!keys[0]) return am_fail(err, AM_EINVAL, "key 0 is NULL");
  const int64_t rows = keys[0]->length;
  for (int64_t i = 0; i < n_keys; i++)
    if ((status = check_array(err, keys[i], "key", i, rows)) != AM_OK) return status;
  for (int64_t i = 0; i < n_values; i++)
    if ((status = check_array(err, values[i], "value column", i, rows)) != AM_OK) return status;
  for (int64_t a = 0; a < n_aggregates; a++)
    if ((status = check_aggregate(err, &aggregates[a], a, values, n_values)) != AM_OK)
      return status;

  /* string keys on a GPU group there as ids (string_key_ids.h) */
  am_string_key_ids ids;
  if ((status = am_string_key_ids_group(err, keys, n_keys, values, n_values, &ids)) != AM_OK)
    return status;
  const am_array *const *run_keys = ids.keys ? ids.keys : keys;
  am_array **got_keys = calloc((size_t)n_keys, sizeof *got_keys);
  am_group_result *got = calloc((size_t)(n_aggregates ? n_aggregates : 1), sizeof *got);
  const am_array **inputs = calloc((size_t)(n_keys + n_values), sizeof *inputs);
  if (!got_keys || !got || !inputs) {
    status = am_fail(err, AM_ENOMEM, "out of memory");
    goto done;
  }
  for (int64_t i = 0; i < n_keys; i++) inputs[i] = run_keys[i];
  for (int64_t i = 0; i < n_values; i++) inputs[n_keys + i] = values[i];
  group_call c = {.n_keys = n_keys,
                  .aggregates = aggregates,
                  .n_aggregates = n_aggregates,
                  .keys_out = got_keys,
                  .results = got};
  status = am_run_here_or_on_host(err, inputs, n_keys + n_values, run_on, &c);
  if (status != AM_OK) goto done;
  am_device *home = keys[0]->device;
  for (int64_t k = 0; k < n_keys; k++)
    if ((status = am_move_home(err, &got_keys[k], home)) != AM_OK) goto done;
  if ((status = am_string_key_ids_group_keys(err, &ids, keys, got_keys)) != AM_OK) goto done;
  for (int64_t a = 0; a < n_aggregates; a++)
    if ((status = am_move_home(err, &got[a].values, home)) != AM_OK ||
        (status = am_move_home(err, &got[a].max, home)) != AM_OK ||
        (status = am_move_home(err, &got[a].offsets, home)) != AM_OK)
      goto done;
  am_group_hand_over(got_keys, n_keys, got, n_aggregates, keys_out, results);
done:
  am_group_work_free(got_keys, n_keys, got, n_aggregates);
  free(inputs);
  am_string_key_ids_free(&ids);
  return status;
}

AM_EXPORT int am_group_by(const am_array *const *keys, int64_t n_keys,
                          const am_array *const *values, int64_t n_values,
                          const am_group_aggregate *aggregates, int64_t n_aggregates,
                          am_array **keys_out, am_group_result *results) {
  AM_API_BEGIN;
  /* Temporal keys and values group on their storage integers; a temporal
   * value column takes only the aggregates that count or pick values.
   * float16 keys and values group by their bits (uint16 views), as
   * pyarrow's grouper does (0.0 and -0.0 apart); a float16 value column
   * takes only count, count_distinct and distinct, as in pyarrow 26. */
  for (int64_t a = 0; aggregates && a < n_aggregates; a++) {
    int32_t c = aggregates[a].column, op = aggregates[a].op;
    /* checked against the caller's columns here: the views may append
     * columns (a decimal's order bytes) that the later checks count */
    if (op != AM_GROUP_COUNT_ALL && valid_op(op) && (c < 0 || c >= n_values))
      AM_API_RETURN(am_fail(err, AM_EINVAL,
                            "aggregate %lld: column %d is out of range (%lld value columns)",
                            (long long)a, (int)c, (long long)(n_values > 0 ? n_values : 0)));
    if (op == AM_GROUP_COUNT_ALL || c < 0 || c >= n_values || !values || !values[c]) continue;
    if (values[c]->type == AM_FLOAT16 && !values[c]->dictionary && op != AM_GROUP_COUNT &&
        op != AM_GROUP_COUNT_DISTINCT && op != AM_GROUP_DISTINCT && valid_op(op))
      AM_API_RETURN(am_fail(err, AM_ETYPE,
                            "Function '%s' has no kernel matching input types (halffloat, uint32)",
                            am_group_kernel_name(op)));
    if (!am_type_is_temporal(values[c]->type)) continue;
    int picks = op == AM_GROUP_MIN || op == AM_GROUP_MAX || op == AM_GROUP_MIN_MAX ||
                op == AM_GROUP_FIRST || op == AM_GROUP_LAST;
    if (picks && am_type_is_duration(values[c]->type)) /* pyarrow: none of durations */
      AM_API_RETURN(am_temporal_no_kernel(
          err, op == AM_GROUP_FIRST || op == AM_GROUP_LAST ? "hash_first_last" : "hash_min_max",
          values[c]));
    if (op != AM_GROUP_COUNT && op != AM_GROUP_COUNT_DISTINCT && !picks) {
      const am_op_desc *desc = am_op_find(AM_FAMILY_GROUP_BY, op);
      AM_API_RETURN(am_temporal_no_kernel(err, desc ? desc->name : "group_by", values[c]));
    }
  }
  am_group_views views;
  int status =
      am_group_views_begin(err, keys, n_keys, values, n_values, aggregates, n_aggregates, &views);
  if (status != AM_OK) AM_API_RETURN(status);
  am_storage_list_t k, v, k16, v16;
  const int64_t n_cols = views.n_values, key_count = keys && n_keys > 0 ? n_keys : 0;
  const int64_t col_count = views.values && n_cols > 0 ? n_cols : 0;
  status = am_storage_list(err, views.keys, key_count, &k);
  if (status == AM_OK) {
    if ((status = am_storage_list(err, views.values, col_count, &v)) == AM_OK) {
      if ((status = am_float16_list(err, k.arrays, key_count, &k16)) == AM_OK) {
        if ((status = am_float16_list(err, v.arrays, col_count, &v16)) == AM_OK) {
          status = group_by(err, keys ? k16.arrays : NULL, n_keys, views.values ? v16.arrays : NULL,
                            n_cols, views.aggregates, n_aggregates, keys_out, results);
          am_storage_list_free(&v16);
        }
        am_storage_list_free(&k16);
      }
      am_storage_list_free(&v);
    }
    am_storage_list_free(&k);
  }
  status = am_group_views_end(err, status, &views, keys_out, results);
  for (int64_t i = 0; status == AM_OK && keys_out && i < n_keys; i++)
    if (am_type_is_temporal(keys[i]->type) || (keys[i]->type == AM_FLOAT16 && !keys[i]->dictionary))
      am_retype(keys_out[i], keys[i]->type, keys[i]->timezone);
  for (int64_t a = 0; status == AM_OK && a < n_aggregates; a++) {
    int32_t c = aggregates[a].column;
    if (aggregates[a].op == AM_GROUP_DISTINCT && c >= 0 && c < n_values &&
        values[c]->type == AM_FLOAT16 && !values[c]->dictionary)
      am_retype(results[a].values, AM_FLOAT16, NULL); /* the items */
  }
  for (int64_t a = 0; status == AM_OK && a < n_aggregates; a++) {
    int32_t c = aggregates[a].column, op = aggregates[a].op;
    if (op == AM_GROUP_COUNT_ALL || op == AM_GROUP_COUNT || op == AM_GROUP_COUNT_DISTINCT ||
        c < 0 || c >= n_values || !am_type_is_temporal(values[c]->type))
      continue;
    if (results[a].values) am_retype(results[a].values, values[c]->type, values[c]->timezone);
    if (results[a].max) am_retype(results[a].max, values[c]->type, values[c]->timezone);
  }
  AM_API_RETURN(status);
}
