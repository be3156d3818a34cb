/* The hash-based functions of decimal arrays (unique, value_counts,
 * count_distinct, is_in, index_in) on the host: a slot table
 * (core/slot_table.h) of the values' bytes over a fixed_size_binary view.
 * Values of one type, precision and scale are equal exactly when their
 * bytes are; a value set of other parameters is converted to the values'
 * first (pyarrow casts it), and a set value that the values' type cannot
 * hold exactly matches nothing. */
#include <stdlib.h>
#include <string.h>

#include "core/slot_table.h"
#include "decimal_calls.h"

/* A grouping of decimal rows in first-occurrence order, nulls one group. */
typedef struct grouping {
  int64_t groups;
  int64_t null_group; /* -1: none */
  int64_t *first;     /* per group: its first row */
  int64_t *counts;    /* per group: its rows */
} grouping;

static void grouping_free(grouping *g) {
  free(g->first);
  free(g->counts);
}

static int group_rows(am_err *err, const am_array *values, grouping *g) {
  memset(g, 0, sizeof *g);
  g->null_group = -1;
  size_t n = (size_t)(values->length + 1);
  g->first = malloc(n * sizeof *g->first);
  g->counts = calloc(n, sizeof *g->counts);
  am_array *view = NULL;
  am_slot_table table = {0};
  int status = g->first && g->counts ? am_decimal_bytes_view(err, values, &view)
                                     : am_fail(err, AM_ENOMEM, "out of memory");
  if (status == AM_OK) status = am_slot_table_init(err, &table, 64);
  /* Table ids count the valid values; groups count the null one too. */
  int64_t *group_of_id = status == AM_OK ? malloc(n * sizeof *group_of_id) : NULL;
  if (status == AM_OK && !group_of_id) status = am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; status == AM_OK && i < values->length; i++) {
    int64_t group;
    if (!am_decimal_valid(values, i)) {
      if (g->null_group < 0) g->first[g->null_group = g->groups++] = i;
      group = g->null_group;
    } else {
      int64_t before = table.count, id;
      if ((status = am_slot_table_add(err, &table, view, i, &id)) != AM_OK) break;
      if (table.count > before) g->first[group_of_id[id] = g->groups++] = i;
      group = group_of_id[id];
    }
    g->counts[group]++;
  }
  free(group_of_id);
  am_slot_table_free(&table);
  am_array_free(view);
  if (status != AM_OK) grouping_free(g);
  return status;
}

/* A host int64 array of `n` values. */
static int int64_array(am_err *err, const int64_t *v, int64_t n, am_array **out) {
  int status = am_array_alloc_host(err, am_host_device(), AM_INT64, n, 0, out);
  if (status == AM_OK) {
    if (n) memcpy((void *)(*out)->data, v, (size_t)n * sizeof *v);
    atomic_store(&(*out)->null_count, 0);
  }
  return status;
}

static int first_rows(am_err *err, const am_array *values, const grouping *g, am_array **out) {
  am_array *rows = NULL;
  int status = int64_array(err, g->first, g->groups, &rows);
  if (status == AM_OK) status = am_decimal_take(err, values, rows, out);
  am_array_free(rows);
  return status;
}

int am_decimal_unique(am_err *err, const am_array *values, am_array **out) {
  grouping g;
  int status = group_rows(err, values, &g);
  if (status != AM_OK) return status;
  status = first_rows(err, values, &g, out);
  grouping_free(&g);
  return status;
}

int am_decimal_value_counts(am_err *err, const am_array *values, am_array **values_out,
                            am_array **counts_out) {
  grouping g;
  int status = group_rows(err, values, &g);
  if (status != AM_OK) return status;
  am_array *made = NULL;
  if ((status = first_rows(err, values, &g, &made)) == AM_OK &&
      (status = int64_array(err, g.counts, g.groups, counts_out)) == AM_OK)
    *values_out = made;
  else
    am_array_free(made);
  grouping_free(&g);
  return status;
}

int am_decimal_count_distinct(am_err *err, const am_array *values, am_count_mode mode,
                              am_scalar *out) {
  if ((unsigned)mode > AM_COUNT_ALL)
    return am_fail(err, AM_EINVAL, "unknown count mode %d (0: only_valid, 1: only_null, 2: all)",
                   (int)mode);
  grouping g;
  int status = group_rows(err, values, &g);
  if (status != AM_OK) return status;
  int64_t nulls = g.null_group >= 0;
  memset(out, 0, sizeof *out);
  out->type = AM_INT64;
  out->i64 = mode == AM_COUNT_VALID ? g.groups - nulls : mode == AM_COUNT_NULL ? nulls : g.groups;
  grouping_free(&g);
  return AM_OK;
}

/* The value set converted to the values' parameters: a host decimal array
 * of its valid, representable values, and each one's row in the set. */
typedef struct converted_set {
  am_array *array;
  int64_t *row;
  int64_t null_row; /* the set's first null, -1: none */
} converted_set;

static int convert_set(am_err *err, const am_array *values, const am_array *set, converted_set *c) {
  memset(c, 0, sizeof *c);
  c->null_row = -1;
  int width = am_decimal_bytes(values->type);
  int status = am_array_alloc_host(err, am_host_device(), values->type, set->length, 0, &c->array);
  if (status != AM_OK) return status;
  am_decimal_retype(c->array, values->type, values->precision, values->scale);
  if (!(c->row = malloc((size_t)(set->length + 1) * sizeof *c->row)))
    return am_fail(err, AM_ENOMEM, "out of memory");
  int64_t kept = 0;
  am_err quiet;
  am_err_init(&quiet, err->entry);
  for (int64_t i = 0; i < set->length; i++) {
    if (!am_decimal_valid(set, i)) {
      if (c->null_row < 0) c->null_row = i;
      continue;
    }
    am_i256 v = am_decimal_at(set, i);
    am_scalar s = {.type = (int32_t)set->type,
                   .i64 = am_decimal_pack(set->precision, set->scale),
                   .u64 = (uint64_t)(uintptr_t)v.w};
    am_i256 converted;
    if (am_decimal_scalar_value(&quiet, &s, values->precision, values->scale, &converted) != AM_OK)
      continue; /* not a value of the values' type: it matches none */
    am_i256_store(converted, (uint8_t *)c->array->data + kept * width, width);
    c->row[kept++] = i;
  }
  c->array->length = kept;
  atomic_store(&c->array->null_count, 0);
  return AM_OK;
}

int am_decimal_set_lookup(am_err *err, const am_array *values, const am_array *value_set,
                          int skip_nulls, int as_bool, am_array **out) {
  if (value_set->dictionary) return am_dictionary_refused(err, value_set);
  if (!am_type_is_decimal(value_set->type)) {
    char text[48];
    am_decimal_type_text(values, text, sizeof text);
    return am_fail(err, AM_ETYPE, "Array type didn't match type of values set: %s vs %s", text,
                   am_type_name(value_set->type));
  }
  converted_set c;
  am_slot_table table = {0};
  am_array *set_view = NULL, *view = NULL, *result = NULL;
  int status = convert_set(err, values, value_set, &c);
  if (status == AM_OK) status = am_decimal_bytes_view(err, c.array, &set_view);
  if (status == AM_OK) status = am_decimal_bytes_view(err, values, &view);
  if (status == AM_OK) status = am_slot_table_init(err, &table, c.array->length);
  int64_t *row_of_id = status == AM_OK ? malloc((size_t)(c.array->length + 1) * 8) : NULL;
  if (status == AM_OK && !row_of_id) status = am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; status == AM_OK && i < c.array->length; i++) {
    int64_t before = table.count, id;
    if ((status = am_slot_table_add(err, &table, set_view, i, &id)) == AM_OK &&
        table.count > before)
      row_of_id[id] = c.row[i];
  }
  int64_t n = values->length, nulls = 0;
  if (status == AM_OK)
    status = as_bool ? am_decimal_bool_result(err, n, 0, &result)
                     : am_array_alloc_host(err, am_host_device(), AM_INT32, n, 1, &result);
  if (status == AM_OK && !as_bool)
    memset((void *)result->validity, 0, (size_t)am_type_bytes(AM_BOOL, n));
  int null_matches = !skip_nulls && c.null_row >= 0;
  for (int64_t i = 0; status == AM_OK && i < n; i++) {
    int64_t found = null_matches ? c.null_row : -1;
    if (am_decimal_valid(values, i)) {
      int64_t id = am_slot_table_find(&table, view, i);
      found = id >= 0 ? row_of_id[id] : -1;
    }
    if (as_bool) {
      if (found >= 0) am_decimal_set_bit(result->data, i);
    } else {
      ((int32_t *)result->data)[i] = found >= 0 ? (int32_t)found : 0;
      if (found >= 0)
        am_decimal_set_bit(result->validity, i);
      else
        nulls++;
    }
  }
  if (status == AM_OK) {
    atomic_store(&result->null_count, nulls);
    *out = result;
    result = NULL;
  }
  free(row_of_id);
  am_slot_table_free(&table);
  am_array_free(result);
  am_array_free(view);
  am_array_free(set_view);
  am_array_free(c.array);
  free(c.row);
  return status;
}
