/* Struct handles' accessors, am_struct_make, and tables: record batches
 * read from an ArrowArrayStream and written back as one. */
#include <errno.h>
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
      int status = am_settle(err, column);
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

struct am_table {
  am_array *like; /* a struct handle of the schema (rows irrelevant) */
  int64_t n_batches;
  am_array **batches; /* owned struct handles */
};

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

/* A table over `batches` (n of them, moved in: freed on failure too). */
static int table_over(am_err *err, am_array *like, am_array **batches, int64_t n, am_table **out) {
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
  return table_over(err, like, owned, n, out);
}

AM_EXPORT int am_table_make(const am_array *const *batches, int64_t n_batches, am_table **out) {
  AM_API_BEGIN;
  AM_API_RETURN(table_make(err, batches, n_batches, out));
}

/* ---- Stream import */

/* A stream's errno as a status, with get_last_error's text (read before
 * the stream is released: the text is the stream's). */
static int stream_failed(am_err *err, struct ArrowArrayStream *stream, int code, const char *what) {
  const char *text = stream->get_last_error ? stream->get_last_error(stream) : NULL;
  return am_fail(err, code == ENOMEM ? AM_ENOMEM : AM_EINVAL,
                 "ArrowArrayStream.%s failed (errno %d)%s%s", what, code, text ? ": " : "",
                 text ? text : "");
}

static int read_batches(am_err *err, struct ArrowArrayStream *stream,
                        const struct ArrowSchema *schema, am_device *device, am_array ***batches,
                        int64_t *n) {
  int64_t capacity = 0;
  for (;;) {
    struct ArrowArray next;
    memset(&next, 0, sizeof next);
    int code = stream->get_next(stream, &next);
    if (code != 0) return stream_failed(err, stream, code, "get_next");
    if (!next.release) return AM_OK; /* end of stream */
    if (*n == capacity) {
      int64_t grown = capacity ? 2 * capacity : 8;
      am_array **more = realloc(*batches, (size_t)grown * sizeof *more);
      if (!more) {
        next.release(&next);
        return am_fail(err, AM_ENOMEM, "out of memory");
      }
      *batches = more;
      capacity = grown;
    }
    int status = am_import_struct(err, schema, &next, NULL, device, &(*batches)[*n]);
    if (status != AM_OK) {
      char inner[sizeof err->message];
      memcpy(inner, err->message, sizeof inner);
      return am_fail(err, status, "batch %lld: %s", (long long)*n, inner);
    }
    (*n)++;
  }
}

static int import_stream(am_err *err, struct ArrowArrayStream *stream, am_device *device,
                         am_table **out) {
  AM_REQUIRE(stream, "stream");
  if (!stream->release) return am_fail(err, AM_EINVAL, "stream struct is already released");
  int status = AM_OK;
  if (!out)
    status = am_fail(err, AM_EINVAL, "out is NULL");
  else if (!stream->get_schema || !stream->get_next)
    status = am_fail(err, AM_EINVAL, "the stream's get_schema or get_next is NULL");
  else if (!device)
    status = am_default_device_for(err, &device);
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  if (status == AM_OK) {
    int code = stream->get_schema(stream, &schema);
    if (code != 0)
      status = stream_failed(err, stream, code, "get_schema");
    else if (!schema.release)
      status = am_fail(err, AM_EINVAL, "get_schema gave a released schema");
  }
  if (status == AM_OK && !am_is_struct_schema(&schema))
    status = am_fail(err, AM_ETYPE,
                     "the stream's format is '%s', not a struct ('+s'): not a stream of "
                     "record batches",
                     schema.format ? schema.format : "(null)");
  if (status == AM_OK) status = am_check_struct_schema(err, &schema);
  am_array *like = NULL;
  am_array **batches = NULL;
  int64_t n = 0;
  if (status == AM_OK) status = am_struct_empty(err, &schema, &like);
  if (status == AM_OK) status = read_batches(err, stream, &schema, device, &batches, &n);
  if (schema.release) schema.release(&schema);
  stream->release(stream);
  stream->release = NULL;
  if (status != AM_OK) {
    for (int64_t i = 0; i < n; i++) am_array_free(batches[i]);
    free(batches);
    am_array_free(like);
    return status;
  }
  return table_over(err, like, batches, n, out);
}

AM_EXPORT int am_import_stream(struct ArrowArrayStream *stream, am_device *device, am_table **out) {
  AM_API_BEGIN;
  AM_API_RETURN(import_stream(err, stream, device, out));
}

/* ---- Stream export */

typedef struct stream_state {
  am_table *table; /* the stream's own references */
  int64_t next;
  char error[sizeof((am_err *)0)->message + 64];
} stream_state;

static int stream_code(int status) { return status == AM_ENOMEM ? ENOMEM : EIO; }

static void stream_note(stream_state *state, const am_err *err) {
  snprintf(state->error, sizeof state->error, "%s", err->message);
}

static int stream_get_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out) {
  stream_state *state = stream->private_data;
  am_err err;
  am_err_init(&err, "am_export_stream");
  int status = am_struct_schema(&err, state->table->like, out);
  if (status == AM_OK) return 0;
  stream_note(state, &err);
  return stream_code(status);
}

static int stream_get_next(struct ArrowArrayStream *stream, struct ArrowArray *out) {
  stream_state *state = stream->private_data;
  if (state->next == state->table->n_batches) {
    memset(out, 0, sizeof *out); /* release NULL: the end */
    return 0;
  }
  am_err err;
  am_err_init(&err, "am_export_stream");
  int status = am_export_array(&err, state->table->batches[state->next], NULL, out);
  if (status != AM_OK) {
    stream_note(state, &err);
    return stream_code(status);
  }
  state->next++;
  return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *stream) {
  stream_state *state = stream->private_data;
  return state->error[0] ? state->error : NULL;
}

static void stream_release(struct ArrowArrayStream *stream) {
  stream_state *state = stream->private_data;
  am_table_release(state->table);
  free(state);
  stream->release = NULL;
}

static int export_stream(am_err *err, const am_table *table, struct ArrowArrayStream *out) {
  AM_REQUIRE(table, "table");
  AM_REQUIRE(out, "out");
  stream_state *state = calloc(1, sizeof *state);
  if (!state) return am_fail(err, AM_ENOMEM, "out of memory");
  am_array **batches = calloc((size_t)table->n_batches + 1, sizeof *batches);
  am_array *like = am_array_share(table->like);
  int ok = batches && like;
  for (int64_t i = 0; ok && i < table->n_batches; i++)
    ok = (batches[i] = am_array_share(table->batches[i])) != NULL;
  int status = ok ? table_over(err, like, batches, table->n_batches, &state->table) : AM_ENOMEM;
  if (!ok) {
    for (int64_t i = 0; batches && i < table->n_batches; i++) am_array_free(batches[i]);
    free(batches);
    am_array_free(like);
    status = am_fail(err, AM_ENOMEM, "out of memory");
  }
  if (status != AM_OK) {
    free(state);
    return status;
  }
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  out->private_data = state;
  return AM_OK;
}

AM_EXPORT int am_export_stream(const am_table *table, struct ArrowArrayStream *out) {
  AM_API_BEGIN;
  AM_API_RETURN(export_stream(err, table, out));
}
