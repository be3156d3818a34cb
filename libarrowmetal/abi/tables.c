/* Struct handles' accessors, am_struct_make, and the table object (its
 * streams: stream_import.c, stream_export.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h"

static const am_struct_fields *fields_of(const am_array *array) {
  return array && array->type == AM_STRUCT ? array->fields : NULL;
}

AM_EXPORT int64_t am_struct_num_fields(const am_array *array) {
  const am_struct_fields *fields = fields_of(array);
  return fields ? fields->count : -1;
}

AM_EXPORT const char *am_struct_field_name(const am_array *array, int64_t index) {
  const am_struct_fields *fields = fields_of(array);
  return fields && index >= 0 && index < fields->count ? fields->names[index] : NULL;
}

AM_EXPORT int am_struct_field_nullable(const am_array *array, int64_t index) {
  const am_struct_fields *fields = fields_of(array);
  return fields && index >= 0 && index < fields->count ? fields->nullable[index] : -1;
}

static int struct_field(am_err *err, const am_array *array, int64_t index, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  const am_struct_fields *fields = fields_of(array);
  if (!fields)
    return am_fail(err, AM_ETYPE, "a %s array has no fields (not a struct)",
                   am_type_name(array->type));
  if (index < 0 || index >= fields->count)
    return am_fail(err, AM_EINVAL, "field index %lld out of range for %lld fields",
                   (long long)index, (long long)fields->count);
  am_array *child = am_array_share(fields->children[index]);
  if (!child) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = child;
  return AM_OK;
}

AM_EXPORT int am_struct_field(const am_array *array, int64_t index, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(struct_field(err, array, index, out));
}

static int struct_make(am_err *err, const char *const *names, const am_array *const *columns,
                       int64_t n_fields, int64_t length, am_array **out) {
  AM_REQUIRE(out, "out");
  if (n_fields < 0)
    return am_fail(err, AM_EINVAL, "n_fields %lld is negative", (long long)n_fields);
  if (n_fields > 0) AM_REQUIRE(columns, "columns");
  if (length < 0 || length > AM_MAX_LENGTH)
    return am_fail(err, AM_EINVAL, "length %lld is outside 0 to 2^52", (long long)length);
  am_device *device = NULL;
  for (int64_t i = 0; i < n_fields; i++) {
    const am_array *column = columns[i];
    if (!column) return am_fail(err, AM_EINVAL, "columns[%lld] is NULL", (long long)i);
    if (column->type != AM_STRUCT && !am_type_is_host_only(column->type)) {
      int status = am_settle_data(err, column);
      if (status != AM_OK) return status;
    }
    if (column->length != length)
      return am_fail(err, AM_EINVAL, "column %lld has %lld rows, the struct %lld", (long long)i,
                     (long long)column->length, (long long)length);
    if (device && column->device != device)
      return am_fail(err, AM_EINVAL, "column %lld is on %s, column 0 on %s", (long long)i,
                     column->device->name, device->name);
    device = column->device;
  }
  if (!device) device = am_host_device();
  am_struct_fields *fields = am_struct_fields_alloc(n_fields);
  if (!fields) return am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; i < n_fields; i++) {
    fields->children[i] = am_array_share(columns[i]);
    fields->names[i] = strdup(names && names[i] ? names[i] : "");
    fields->nullable[i] = 1;
    if (!fields->children[i] || !fields->names[i]) {
      am_struct_fields_free(fields);
      return am_fail(err, AM_ENOMEM, "out of memory");
    }
  }
  am_array *result = am_struct_array_make(device, length, fields);
  if (!result) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = result;
  return AM_OK;
}

AM_EXPORT int am_struct_make(const char *const *names, const am_array *const *columns,
                             int64_t n_fields, int64_t length, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(struct_make(err, names, columns, n_fields, length, out));
}

/* ---- Tables */

AM_EXPORT void am_table_release(am_table *table) {
  if (!table) return;
  for (int64_t i = 0; i < table->n_batches; i++) am_array_free(table->batches[i]);
  am_array_free(table->like);
  free(table->batches);
  free(table);
}

AM_EXPORT int64_t am_table_num_batches(const am_table *table) {
  return table ? table->n_batches : -1;
}

AM_EXPORT int64_t am_table_num_rows(const am_table *table) {
  if (!table) return -1;
  int64_t rows = 0;
  for (int64_t i = 0; i < table->n_batches; i++) rows += table->batches[i]->length;
  return rows;
}

static int table_batch(am_err *err, const am_table *table, int64_t index, am_array **out) {
  AM_REQUIRE(table, "table");
  AM_REQUIRE(out, "out");
  if (index < 0 || index >= table->n_batches)
    return am_fail(err, AM_EINVAL, "batch index %lld out of range for %lld batches",
                   (long long)index, (long long)table->n_batches);
  am_array *batch = am_array_share(table->batches[index]);
  if (!batch) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = batch;
  return AM_OK;
}

AM_EXPORT int am_table_batch(const am_table *table, int64_t index, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(table_batch(err, table, index, out));
}

static int table_schema(am_err *err, const am_table *table, struct ArrowSchema *out) {
  AM_REQUIRE(table, "table");
  AM_REQUIRE(out, "out");
  return am_struct_schema(err, table->like, out);
}

AM_EXPORT int am_table_schema(const am_table *table, struct ArrowSchema *out) {
  AM_API_BEGIN;
  AM_API_RETURN(table_schema(err, table, out));
}

/* Whether two handles have one schema: field count, names and types. */
static int same_schema(const am_array *a, const am_array *b) {
  if (a->type != b->type) return 0;
  if (a->type != AM_STRUCT) return 1;
  if (a->fields->count != b->fields->count) return 0;
  for (int64_t i = 0; i < a->fields->count; i++)
    if (strcmp(a->fields->names[i], b->fields->names[i]) != 0 ||
        !same_schema(a->fields->children[i], b->fields->children[i]))
      return 0;
  return 1;
}

/* tables.h */
int am_table_over(am_err *err, am_array *like, am_array **batches, int64_t n, am_table **out) {
  am_table *table = malloc(sizeof *table);
  if (!table) {
    for (int64_t i = 0; i < n; i++) am_array_free(batches[i]);
    free(batches);
    am_array_free(like);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  table->like = like;
  table->n_batches = n;
  table->batches = batches;
  *out = table;
  return AM_OK;
}

static int table_make(am_err *err, const am_array *const *batches, int64_t n, am_table **out) {
  AM_REQUIRE(batches, "batches");
  AM_REQUIRE(out, "out");
  if (n < 1) return am_fail(err, AM_EINVAL, "n_batches %lld is less than 1", (long long)n);
  for (int64_t i = 0; i < n; i++) {
    if (!batches[i]) return am_fail(err, AM_EINVAL, "batches[%lld] is NULL", (long long)i);
    if (batches[i]->type != AM_STRUCT)
      return am_fail(err, AM_ETYPE, "batches[%lld] is a %s array, not a struct", (long long)i,
                     am_type_name(batches[i]->type));
    if (!same_schema(batches[0], batches[i]))
      return am_fail(err, AM_EINVAL, "batches[%lld] has another schema than batches[0]",
                     (long long)i);
  }
  am_array **owned = calloc((size_t)n, sizeof *owned);
  am_array *like = am_array_share(batches[0]);
  for (int64_t i = 0; owned && like && i < n; i++)
    if (!(owned[i] = am_array_share(batches[i]))) {
      for (int64_t j = 0; j < i; j++) am_array_free(owned[j]);
      free(owned);
      owned = NULL;
    }
  if (!owned || !like) {
    free(owned);
    am_array_free(like);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  return am_table_over(err, like, owned, n, out);
}

AM_EXPORT int am_table_make(const am_array *const *batches, int64_t n_batches, am_table **out) {
  AM_API_BEGIN;
  AM_API_RETURN(table_make(err, batches, n_batches, out));
}
