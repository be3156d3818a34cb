/* Decimal and dictionary columns of a group-by (group_views.h). */
#include "group_views.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/decimal_real.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "host_fallback.h"
#include "key_view.h"

/* What an aggregate's result needs after the group-by. */
enum {
  AFTER_NONE,
  AFTER_DECIMAL_TYPE, /* values are a decimal's bytes: type them back */
  AFTER_ORDER_BYTES,  /* values (and max) are order bytes: convert them back */
  AFTER_SUM,          /* values and offsets are each group's list: reduce them */
  AFTER_MEAN,
  AFTER_PRODUCT,
  AFTER_VARIANCE,
  AFTER_STDDEV,
  AFTER_DICTIONARY /* values are indices: give them the dictionary */
};

static int special(const am_array *a) {
  return a && (a->dictionary || am_type_is_decimal(a->type));
}

const char *am_group_kernel_name(int op) {
  switch (op) {
    case AM_GROUP_MIN:
    case AM_GROUP_MAX:
    case AM_GROUP_MIN_MAX:
      return "hash_min_max";
    case AM_GROUP_FIRST:
    case AM_GROUP_LAST:
      return "hash_first_last";
    case AM_GROUP_SUM:
      return "hash_sum";
    case AM_GROUP_PRODUCT:
      return "hash_product";
    case AM_GROUP_MEAN:
      return "hash_mean";
    case AM_GROUP_ANY:
      return "hash_any";
    case AM_GROUP_ALL:
      return "hash_all";
    case AM_GROUP_VARIANCE:
      return "hash_variance";
    case AM_GROUP_STDDEV:
      return "hash_stddev";
    default:
      return "hash_list";
  }
}

static int no_kernel(am_err *err, int op, const am_array *column) {
  char name[160];
  if (column->dictionary)
    am_dictionary_type_name(column, name, sizeof name);
  else
    am_decimal_type_text(column, name, sizeof name);
  return am_fail(err, AM_ETYPE, "Function '%s' has no kernel matching input types (%s, uint32)",
                 am_group_kernel_name(op), name);
}

/* The view a column's aggregates read by default: a decimal's bytes, a
 * dictionary array's indices. */
static int base_view(am_err *err, const am_array *a, am_array **out) {
  return a->dictionary ? am_dictionary_indices(err, a, out) : am_decimal_bytes_view(err, a, out);
}

static void own(am_group_views *v, am_array *a) { v->owned[v->n_owned++] = a; }

/* The aggregate request g over decimal or dictionary column `column` (index
 * c), rewritten to read a view; *after says what its result needs. A
 * column's order bytes, made for its first min or max, are appended to the
 * value list (*order_col). */
static int rewrite(am_err *err, am_group_views *v, am_group_aggregate *g, const am_array *column,
                   int64_t *order_col, unsigned char *after) {
  am_array *made = NULL;
  int status;
  if (column->dictionary) {
    if (g->op == AM_GROUP_COUNT || g->op == AM_GROUP_COUNT_DISTINCT) return AM_OK;
    if (g->op != AM_GROUP_DISTINCT) return no_kernel(err, g->op, column);
    *after = AFTER_DICTIONARY;
    return AM_OK;
  }
  switch (g->op) {
    case AM_GROUP_COUNT:
    case AM_GROUP_COUNT_DISTINCT:
      return AM_OK;
    case AM_GROUP_DISTINCT:
    case AM_GROUP_LIST:
      *after = AFTER_DECIMAL_TYPE;
      return AM_OK;
    case AM_GROUP_MIN:
    case AM_GROUP_MAX:
    case AM_GROUP_MIN_MAX:
      if (*order_col < 0) {
        if ((status = am_decimal_order_bytes(err, column, &made)) != AM_OK) return status;
        own(v, made);
        *order_col = v->n_values++;
        v->value_list[*order_col] = made;
      }
      g->column = (int32_t)*order_col;
      *after = AFTER_ORDER_BYTES;
      return AM_OK;
    case AM_GROUP_SUM:
    case AM_GROUP_MEAN:
    case AM_GROUP_PRODUCT:
    case AM_GROUP_VARIANCE:
    case AM_GROUP_STDDEV:
      *after = g->op == AM_GROUP_SUM        ? AFTER_SUM
               : g->op == AM_GROUP_MEAN     ? AFTER_MEAN
               : g->op == AM_GROUP_PRODUCT  ? AFTER_PRODUCT
               : g->op == AM_GROUP_VARIANCE ? AFTER_VARIANCE
                                            : AFTER_STDDEV;
      g->op = AM_GROUP_LIST; /* each group's values, reduced after */
      return AM_OK;
    default:
      return no_kernel(err, g->op, column);
  }
}

static void views_free(am_group_views *v) {
  for (int64_t i = 0; v->owned && i < v->n_owned; i++) am_array_free(v->owned[i]);
  free(v->owned);
  free(v->key_list);
  free(v->value_list);
  free(v->aggregate_list);
  free(v->after);
  v->owned = NULL;
  v->key_list = v->value_list = NULL;
  v->aggregate_list = NULL;
  v->after = NULL;
}

int am_group_views_begin(am_err *err, const am_array *const *keys, int64_t n_keys,
                         const am_array *const *values, int64_t n_values,
                         const am_group_aggregate *aggregates, int64_t n_aggregates,
                         am_group_views *v) {
  memset(v, 0, sizeof *v);
  v->keys = v->given_keys = keys;
  v->values = v->given_values = values;
  v->n_values = n_values;
  v->aggregates = v->given_aggregates = aggregates;
  v->n_keys = keys && n_keys > 0 ? n_keys : 0;
  v->n_aggregates = aggregates && n_aggregates > 0 ? n_aggregates : 0;
  const int64_t n_cols = values && n_values > 0 ? n_values : 0;
  int any = 0;
  for (int64_t i = 0; i < v->n_keys; i++) any |= special(keys[i]);
  for (int64_t i = 0; i < n_cols; i++) any |= special(values[i]);
  if (!any) return AM_OK;
  v->key_list = calloc((size_t)v->n_keys + 1, sizeof *v->key_list);
  v->value_list = calloc((size_t)(2 * n_cols) + 1, sizeof *v->value_list);
  v->aggregate_list = calloc((size_t)v->n_aggregates + 1, sizeof *v->aggregate_list);
  v->after = calloc((size_t)v->n_aggregates + 1, 1);
  v->owned = calloc((size_t)(v->n_keys + 2 * n_cols) + 1, sizeof *v->owned);
  int64_t *order_cols = calloc((size_t)n_cols + 1, sizeof *order_cols);
  int status = AM_OK;
  if (!v->key_list || !v->value_list || !v->aggregate_list || !v->after || !v->owned || !order_cols)
    status = am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; status == AM_OK && i < v->n_keys; i++) {
    am_array *view = NULL;
    if (special(keys[i]) && (status = base_view(err, keys[i], &view)) == AM_OK) own(v, view);
    v->key_list[i] = view ? view : keys[i];
  }
  for (int64_t c = 0; status == AM_OK && c < n_cols; c++) {
    am_array *view = NULL;
    if (special(values[c]) && (status = base_view(err, values[c], &view)) == AM_OK) own(v, view);
    v->value_list[c] = view ? view : values[c];
    order_cols[c] = -1;
  }
  v->n_values = n_cols;
  for (int64_t a = 0; status == AM_OK && a < v->n_aggregates; a++) {
    am_group_aggregate *g = &v->aggregate_list[a];
    *g = aggregates[a];
    const int32_t c = g->column;
    if (g->op == AM_GROUP_COUNT_ALL || c < 0 || c >= n_cols || !special(values[c])) continue;
    status = rewrite(err, v, g, values[c], &order_cols[c], &v->after[a]);
  }
  free(order_cols);
  if (n_values < 0) v->n_values = n_values; /* the group-by's to refuse */
  if (status != AM_OK) {
    views_free(v);
    return status;
  }
  v->keys = v->key_list;
  v->values = v->value_list;
  v->aggregates = v->aggregate_list;
  return AM_OK;
}

/* ---- The decimal reductions of each group's list (pyarrow's hash_sum,
 * hash_mean, hash_product for decimals). */

/* v / 10^k as Arrow's ReduceScaleBy rounds it: half away from zero, by its
 * division of the width (decimal256's can be one unit short: core/decimal.h). */
static am_i256 reduce_scale(am_i256 v, int k, int bytes) {
  if (k <= 0) return v;
  am_i256 d = am_i256_pow10(k), rem;
  am_i256 q = bytes == 32 ? am_i256_div_as_arrow256(v, d, &rem) : am_i256_div(v, d, &rem);
  if (am_i256_negative(rem)) rem = am_i256_neg(rem);
  if (am_i256_cmp(am_i256_add(rem, rem), d) >= 0)
    q = am_i256_negative(v) ? am_i256_sub(q, am_i256_from_u64(1))
                            : am_i256_add(q, am_i256_from_u64(1));
  return q;
}

/* A decimal sum over its count, as Arrow's hash_mean: the quotient moved
 * one away from zero when twice the remainder reaches the count. */
static am_i256 mean_of(am_i256 sum, int64_t count, int bytes) {
  am_i256 n = am_i256_from_i64(count), rem;
  am_i256 q = bytes == 32 ? am_i256_div_as_arrow256(sum, n, &rem) : am_i256_div(sum, n, &rem);
  if (am_i256_negative(rem)) rem = am_i256_neg(rem);
  if (am_i256_cmp(am_i256_add(rem, rem), n) >= 0)
    q = am_i256_negative(sum) ? am_i256_sub(q, am_i256_from_u64(1))
                              : am_i256_add(q, am_i256_from_u64(1));
  return q;
}

/* Item i of a list result of a decimal's bytes. */
static am_i256 item_at(const am_array *items, int64_t i, int bytes) {
  return am_i256_load((const uint8_t *)items->data + (items->offset + i) * bytes, bytes);
}

/* Arrow's hash_variance / hash_stddev of one group's items [lo, hi) of a
 * decimal at `scale`: the mean from the values' sum (wrapping at the width)
 * as a double over the count, then the squared deviations of each value as
 * a double, in row order. Returns whether the result is null. */
static int variance_of(const am_array *items, int64_t lo, int64_t hi, int bytes, int scale,
                       const am_group_aggregate *g, int stddev, double *out) {
  am_i256 sum = am_i256_from_u64(0);
  int64_t count = 0, missing = 0;
  for (int64_t i = lo; i < hi; i++) {
    if (!am_decimal_valid(items, i)) {
      missing++;
      continue;
    }
    sum = am_i256_wrap(am_i256_add(sum, item_at(items, i, bytes)), bytes);
    count++;
  }
  if (count <= g->ddof || count < (int64_t)g->min_count || (!g->skip_nulls && missing > 0))
    return 1;
  const double mean = am_decimal_to_double(sum, bytes, scale) / (double)count;
  double m2 = 0;
  for (int64_t i = lo; i < hi; i++) {
    if (!am_decimal_valid(items, i)) continue;
    const double d = am_decimal_to_double(item_at(items, i, bytes), bytes, scale) - mean;
    m2 += d * d;
  }
  *out = m2 / (double)(count - g->ddof);
  if (stddev) *out = sqrt(*out);
  return 0;
}

/* The float64 result of variance or stddev per group of r's lists. */
static int reduce_to_doubles(am_err *err, int kind, const am_group_aggregate *g,
                             const am_array *column, am_group_result *r, am_array **out) {
  const am_array *items = r->values, *offsets = r->offsets;
  const int64_t groups = offsets->length - 1;
  const int32_t *off = (const int32_t *)offsets->data + offsets->offset;
  int status = am_array_alloc_host(err, am_host_device(), AM_FLOAT64, groups, 1, out);
  if (status != AM_OK) return status;
  uint8_t *valid = (uint8_t *)(*out)->validity;
  double *data = (double *)(*out)->data;
  memset(valid, 0, (size_t)(groups + 7) / 8);
  int64_t nulls = 0;
  for (int64_t grp = 0; grp < groups; grp++) {
    data[grp] = 0;
    if (variance_of(items, off[grp], off[grp + 1], am_decimal_bytes(column->type), column->scale, g,
                    kind == AFTER_STDDEV, &data[grp]))
      nulls++;
    else
      valid[grp >> 3] |= (uint8_t)(1u << (grp & 7));
  }
  atomic_store(&(*out)->null_count, nulls);
  return AM_OK;
}

/* The decimal result of sum, mean or product per group of r's lists. */
static int reduce_to_decimals(am_err *err, int kind, const am_group_aggregate *g,
                              const am_array *column, am_group_result *r, am_array **result) {
  const am_array *items = r->values, *offsets = r->offsets;
  const int bytes = am_decimal_bytes(column->type);
  const int64_t groups = offsets->length - 1;
  const int32_t *off = (const int32_t *)offsets->data + offsets->offset;
  am_array *out = NULL;
  int status = am_array_alloc_host(err, am_host_device(), column->type, groups, 1, &out);
  if (status != AM_OK) return status;
  out->precision = kind == AFTER_SUM ? am_decimal_max_digits(column->type) : column->precision;
  out->scale = column->scale;
  uint8_t *valid = (uint8_t *)out->validity;
  memset(valid, 0, (size_t)(groups + 7) / 8);
  int64_t nulls = 0;
  for (int64_t grp = 0; grp < groups; grp++) {
    am_i256 acc = kind == AFTER_PRODUCT ? am_i256_pow10(column->scale) : am_i256_from_u64(0);
    int64_t count = 0, missing = 0;
    for (int64_t i = off[grp]; i < off[grp + 1]; i++) {
      if (!am_decimal_valid(items, i)) {
        missing++;
        continue;
      }
      am_i256 x = item_at(items, i, bytes);
      count++;
      if (kind == AFTER_PRODUCT)
        acc = am_i256_wrap(
            reduce_scale(am_i256_wrap(am_i256_mul(acc, x), bytes), column->scale, bytes), bytes);
      else
        acc = am_i256_wrap(am_i256_add(acc, x), bytes);
    }
    int null = count < (int64_t)g->min_count;
    if (kind == AFTER_MEAN && !null) {
      if (count == 0) {
        am_array_free(out);
        return am_fail(err, AM_EINVAL, "Division by 0 in Decimal");
      }
      acc = am_i256_wrap(mean_of(acc, count, bytes), bytes);
    }
    null |= !g->skip_nulls && missing > 0;
    am_i256_store(null ? am_i256_from_u64(0) : acc, (uint8_t *)out->data + grp * bytes, bytes);
    if (null)
      nulls++;
    else
      valid[grp >> 3] |= (uint8_t)(1u << (grp & 7));
  }
  atomic_store(&out->null_count, nulls);
  *result = out;
  return AM_OK;
}

/* Replaces r's lists (items: the decimal's bytes, offsets) by one value a
 * group: `kind`'s reduction of `column`'s values under g's options. */
static int reduce_lists(am_err *err, int kind, const am_group_aggregate *g, const am_array *column,
                        am_group_result *r) {
  am_array *out = NULL;
  int status = kind == AFTER_VARIANCE || kind == AFTER_STDDEV
                   ? reduce_to_doubles(err, kind, g, column, r, &out)
                   : reduce_to_decimals(err, kind, g, column, r, &out);
  if (status != AM_OK) return status;
  am_array_free(r->values);
  am_array_free(r->offsets);
  r->values = out;
  r->offsets = NULL;
  return AM_OK;
}

/* ---- The results typed back. */

static int to_host(am_err *err, am_array **a) { return am_move_home(err, a, am_host_device()); }

static int key_back(am_err *err, const am_array *given, am_array **key) {
  int status = to_host(err, key);
  if (status != AM_OK) return status;
  if (given->dictionary) {
    am_array *indices = *key;
    *key = NULL;
    return am_dictionary_attach(err, indices, given, key);
  }
  am_decimal_retype(*key, given->type, given->precision, given->scale);
  return AM_OK;
}

static int result_back(am_err *err, int after, const am_group_aggregate *g, const am_array *column,
                       am_group_result *r) {
  int status = to_host(err, &r->values);
  if (status == AM_OK) status = to_host(err, &r->max);
  if (status == AM_OK) status = to_host(err, &r->offsets);
  if (status != AM_OK) return status;
  switch (after) {
    case AFTER_DECIMAL_TYPE:
      am_decimal_retype(r->values, column->type, column->precision, column->scale);
      return AM_OK;
    case AFTER_ORDER_BYTES:
      for (int k = 0; k < 2; k++) {
        am_array **slot = k ? &r->max : &r->values, *typed = NULL;
        if (!*slot) continue;
        status = am_decimal_from_order_bytes(err, *slot, column->type, column->precision,
                                             column->scale, &typed);
        if (status != AM_OK) return status;
        am_array_free(*slot);
        *slot = typed;
      }
      return AM_OK;
    case AFTER_SUM:
    case AFTER_MEAN:
    case AFTER_PRODUCT:
    case AFTER_VARIANCE:
    case AFTER_STDDEV:
      return reduce_lists(err, after, g, column, r);
    case AFTER_DICTIONARY: {
      am_array *indices = r->values;
      r->values = NULL;
      return am_dictionary_attach(err, indices, column, &r->values);
    }
    default:
      return AM_OK;
  }
}

/* Frees what a group-by wrote to keys_out and results, leaving NULLs. */
static void unwrite(am_group_views *v, am_array **keys_out, am_group_result *results) {
  for (int64_t k = 0; k < v->n_keys; k++) {
    am_array_free(keys_out[k]);
    keys_out[k] = NULL;
  }
  for (int64_t a = 0; results && a < v->n_aggregates; a++) {
    am_array_free(results[a].values);
    am_array_free(results[a].max);
    am_array_free(results[a].offsets);
    memset(&results[a], 0, sizeof results[a]);
  }
}

int am_group_views_end(am_err *err, int status, am_group_views *v, am_array **keys_out,
                       am_group_result *results) {
  if (!v->key_list) return status; /* nothing was replaced */
  const int wrote = status == AM_OK;
  for (int64_t k = 0; status == AM_OK && k < v->n_keys; k++)
    if (special(v->given_keys[k])) status = key_back(err, v->given_keys[k], &keys_out[k]);
  for (int64_t a = 0; status == AM_OK && a < v->n_aggregates; a++)
    if (v->after[a] != AFTER_NONE)
      status = result_back(err, v->after[a], &v->given_aggregates[a],
                           v->given_values[v->given_aggregates[a].column], &results[a]);
  if (status != AM_OK && wrote) unwrite(v, keys_out, results); /* nothing stays on a failure */
  views_free(v);
  return status;
}
