/* A table written as a stream of its batches: an ArrowArrayStream
 * (am_export_stream: each batch as am_export gives it, GPU batches
 * downloaded) or an ArrowDeviceArrayStream (am_export_device_stream: each
 * batch as am_export_device gives it, in the memory it is in). The streams
 * hold their own references to the batches. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h"

typedef struct stream_state {
  am_table *table; /* the stream's own references */
  int64_t next;
  const char *function; /* am_export_stream or am_export_device_stream */
  char error[sizeof((am_err *)0)->message + 64];
} stream_state;

static int stream_code(int status) { return status == AM_ENOMEM ? ENOMEM : EIO; }

static void stream_note(stream_state *state, const am_err *err) {
  snprintf(state->error, sizeof state->error, "%s", err->message);
}

static int schema_of(stream_state *state, struct ArrowSchema *out) {
  am_err err;
  am_err_init(&err, state->function);
  int status = am_struct_schema(&err, state->table->like, out);
  if (status == AM_OK) return 0;
  stream_note(state, &err);
  return stream_code(status);
}

/* The next batch by `put` (0), the end (1), or an errno (stream_code's). */
static int next_of(stream_state *state, int device, void *out) {
  if (state->next == state->table->n_batches) return 1;
  am_err err;
  am_err_init(&err, state->function);
  const am_array *batch = state->table->batches[state->next];
  int status =
      device ? am_export_device_array(&err, batch, out) : am_export_array(&err, batch, NULL, out);
  if (status != AM_OK) {
    stream_note(state, &err);
    return stream_code(status);
  }
  state->next++;
  return 0;
}

static const char *error_of(stream_state *state) { return state->error[0] ? state->error : NULL; }

static void free_state(stream_state *state) {
  am_table_release(state->table);
  free(state);
}

/* A state holding its own references to the table's batches. */
static int state_of(am_err *err, const am_table *table, const char *function, stream_state **out) {
  stream_state *state = calloc(1, sizeof *state);
  if (!state) return am_fail(err, AM_ENOMEM, "out of memory");
  am_array **batches = calloc((size_t)table->n_batches + 1, sizeof *batches);
  am_array *like = am_array_share(table->like);
  int ok = batches && like;
  for (int64_t i = 0; ok && i < table->n_batches; i++)
    ok = (batches[i] = am_array_share(table->batches[i])) != NULL;
  int status = ok ? am_table_over(err, like, batches, table->n_batches, &state->table) : AM_ENOMEM;
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
  state->function = function;
  *out = state;
  return AM_OK;
}

/* ---- ArrowArrayStream */

static int host_get_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out) {
  return schema_of(stream->private_data, out);
}

static int host_get_next(struct ArrowArrayStream *stream, struct ArrowArray *out) {
  int code = next_of(stream->private_data, 0, out);
  if (code == 1) memset(out, 0, sizeof *out); /* release NULL: the end */
  return code == 1 ? 0 : code;
}

static const char *host_last_error(struct ArrowArrayStream *stream) {
  return error_of(stream->private_data);
}

static void host_release(struct ArrowArrayStream *stream) {
  free_state(stream->private_data);
  stream->release = NULL;
}

static int export_stream(am_err *err, const am_table *table, struct ArrowArrayStream *out) {
  AM_REQUIRE(table, "table");
  AM_REQUIRE(out, "out");
  stream_state *state = NULL;
  int status = state_of(err, table, "am_export_stream", &state);
  if (status != AM_OK) return status;
  out->get_schema = host_get_schema;
  out->get_next = host_get_next;
  out->get_last_error = host_last_error;
  out->release = host_release;
  out->private_data = state;
  return AM_OK;
}

AM_EXPORT int am_export_stream(const am_table *table, struct ArrowArrayStream *out) {
  AM_API_BEGIN;
  AM_API_RETURN(export_stream(err, table, out));
}

/* ---- ArrowDeviceArrayStream */

static int device_get_schema(struct ArrowDeviceArrayStream *stream, struct ArrowSchema *out) {
  return schema_of(stream->private_data, out);
}

static int device_get_next(struct ArrowDeviceArrayStream *stream, struct ArrowDeviceArray *out) {
  int code = next_of(stream->private_data, 1, out);
  if (code == 1) memset(out, 0, sizeof *out); /* release NULL: the end */
  return code == 1 ? 0 : code;
}

static const char *device_last_error(struct ArrowDeviceArrayStream *stream) {
  return error_of(stream->private_data);
}

static void device_release(struct ArrowDeviceArrayStream *stream) {
  free_state(stream->private_data);
  stream->release = NULL;
}

/* The stream's device type: its batches' (one device type for all, as the
 * interface requires), the CPU's for a table of no batches. */
static int stream_device_type(am_err *err, const am_table *table, ArrowDeviceType *out) {
  *out = ARROW_DEVICE_CPU;
  for (int64_t i = 0; i < table->n_batches; i++) {
    ArrowDeviceType t = (ArrowDeviceType)table->batches[i]->device->backend->device_type;
    if (i > 0 && t != *out)
      return am_fail(err, AM_EINVAL,
                     "batch %lld is on a device of type %d, batch 0 on one of type %d: a device "
                     "stream has one device type (move the table to one device first)",
                     (long long)i, (int)t, (int)*out);
    *out = t;
  }
  return AM_OK;
}

static int export_device_stream(am_err *err, const am_table *table,
                                struct ArrowDeviceArrayStream *out) {
  AM_REQUIRE(table, "table");
  AM_REQUIRE(out, "out");
  ArrowDeviceType type;
  int status = stream_device_type(err, table, &type);
  stream_state *state = NULL;
  if (status == AM_OK) status = state_of(err, table, "am_export_device_stream", &state);
  if (status != AM_OK) return status;
  out->device_type = type;
  out->get_schema = device_get_schema;
  out->get_next = device_get_next;
  out->get_last_error = device_last_error;
  out->release = device_release;
  out->private_data = state;
  return AM_OK;
}

AM_EXPORT int am_export_device_stream(const am_table *table, struct ArrowDeviceArrayStream *out) {
  AM_API_BEGIN;
  AM_API_RETURN(export_device_stream(err, table, out));
}
