/* Tables read from streams of record batches: an ArrowArrayStream
 * (am_import_stream) or an ArrowDeviceArrayStream (am_import_device_stream).
 * Both are read by one loop over the calls they share (a batch_source);
 * they differ only in how a batch comes and is imported. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h"

/* A stream being read, through the calls both kinds have. */
typedef struct batch_source {
  const char *name; /* "ArrowArrayStream", for messages */
  void *stream;
  int (*get_schema)(void *stream, struct ArrowSchema *out);
  /* Takes the next batch from the stream: an errno from the stream, or 0
   * with *out the batch imported onto `device` (NULL at the end of the
   * stream) and *status the import's. */
  int (*next)(am_err *err, void *stream, const struct ArrowSchema *schema, am_device *device,
              am_array **out, int *status);
  const char *(*last_error)(void *stream);
  void (*release)(void *stream);
} batch_source;

/* A stream's errno as a status, with get_last_error's text (read before
 * the stream is released: the text is the stream's). */
static int stream_failed(am_err *err, const batch_source *source, int code, const char *what) {
  const char *text = source->last_error ? source->last_error(source->stream) : NULL;
  return am_fail(err, code == ENOMEM ? AM_ENOMEM : AM_EINVAL, "%s.%s failed (errno %d)%s%s",
                 source->name, what, code, text ? ": " : "", text ? text : "");
}

static int read_batches(am_err *err, const batch_source *source, const struct ArrowSchema *schema,
                        am_device *device, am_array ***batches, int64_t *n) {
  int64_t capacity = 0;
  for (;;) {
    if (*n == capacity) {
      int64_t grown = capacity ? 2 * capacity : 8;
      am_array **more = realloc(*batches, (size_t)grown * sizeof *more);
      if (!more) return am_fail(err, AM_ENOMEM, "out of memory");
      *batches = more;
      capacity = grown;
    }
    am_array *batch = NULL;
    int status = AM_OK;
    int code = source->next(err, source->stream, schema, device, &batch, &status);
    if (code != 0) return stream_failed(err, source, code, "get_next");
    if (status != AM_OK) {
      char inner[sizeof err->message];
      memcpy(inner, err->message, sizeof inner);
      return am_fail(err, status, "batch %lld: %s", (long long)*n, inner);
    }
    if (!batch) return AM_OK; /* end of stream */
    (*batches)[(*n)++] = batch;
  }
}

/* Reads the whole stream into *out. The stream is released exactly once,
 * before this returns, whatever happens. */
static int import_batches(am_err *err, const batch_source *source, am_device *device,
                          am_table **out) {
  int status = AM_OK;
  if (!out)
    status = am_fail(err, AM_EINVAL, "out is NULL");
  else if (!device)
    status = am_default_device_for(err, &device);
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  if (status == AM_OK) {
    int code = source->get_schema(source->stream, &schema);
    if (code != 0)
      status = stream_failed(err, source, code, "get_schema");
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
  if (status == AM_OK) status = read_batches(err, source, &schema, device, &batches, &n);
  if (schema.release) schema.release(&schema);
  source->release(source->stream);
  if (status != AM_OK) {
    for (int64_t i = 0; i < n; i++) am_array_free(batches[i]);
    free(batches);
    am_array_free(like);
    return status;
  }
  return am_table_over(err, like, batches, n, out);
}

/* ---- ArrowArrayStream */

static int host_schema(void *stream, struct ArrowSchema *out) {
  struct ArrowArrayStream *s = stream;
  return s->get_schema(s, out);
}

static int host_next(am_err *err, void *stream, const struct ArrowSchema *schema, am_device *device,
                     am_array **out, int *status) {
  struct ArrowArrayStream *s = stream;
  struct ArrowArray next;
  memset(&next, 0, sizeof next);
  int code = s->get_next(s, &next);
  if (code == 0 && next.release) *status = am_import_struct(err, schema, &next, NULL, device, out);
  return code;
}

static const char *host_last_error(void *stream) {
  struct ArrowArrayStream *s = stream;
  return s->get_last_error ? s->get_last_error(s) : NULL;
}

static void host_release(void *stream) {
  struct ArrowArrayStream *s = stream;
  s->release(s);
  s->release = NULL;
}

static int import_stream(am_err *err, struct ArrowArrayStream *stream, am_device *device,
                         am_table **out) {
  AM_REQUIRE(stream, "stream");
  if (!stream->release) return am_fail(err, AM_EINVAL, "stream struct is already released");
  if (!stream->get_schema || !stream->get_next) {
    host_release(stream);
    return am_fail(err, AM_EINVAL, "the stream's get_schema or get_next is NULL");
  }
  const batch_source source = {"ArrowArrayStream", stream,          host_schema,
                               host_next,          host_last_error, host_release};
  return import_batches(err, &source, device, out);
}

AM_EXPORT int am_import_stream(struct ArrowArrayStream *stream, am_device *device, am_table **out) {
  AM_API_BEGIN;
  AM_API_RETURN(import_stream(err, stream, device, out));
}

/* ---- ArrowDeviceArrayStream */

static int device_schema(void *stream, struct ArrowSchema *out) {
  struct ArrowDeviceArrayStream *s = stream;
  return s->get_schema(s, out);
}

/* Each batch as am_import_device takes it (device memory zero-copy where
 * the device is the batch's, its sync event waited on). A batch of another
 * device type than the stream's is refused, as the interface promises
 * there are none. */
static int device_next(am_err *err, void *stream, const struct ArrowSchema *schema,
                       am_device *device, am_array **out, int *status) {
  struct ArrowDeviceArrayStream *s = stream;
  struct ArrowDeviceArray next;
  memset(&next, 0, sizeof next);
  int code = s->get_next(s, &next);
  if (code != 0 || !next.array.release) return code;
  if (next.device_type != s->device_type) {
    next.array.release(&next.array);
    *status = am_fail(err, AM_EINVAL, "a batch of device type %d in a stream of device type %d",
                      (int)next.device_type, (int)s->device_type);
    return 0;
  }
  *status = am_import_device_array(err, schema, &next, device, out);
  return 0;
}

static const char *device_last_error(void *stream) {
  struct ArrowDeviceArrayStream *s = stream;
  return s->get_last_error ? s->get_last_error(s) : NULL;
}

static void device_release(void *stream) {
  struct ArrowDeviceArrayStream *s = stream;
  s->release(s);
  s->release = NULL;
}

static int import_device_stream(am_err *err, struct ArrowDeviceArrayStream *stream,
                                am_device *device, am_table **out) {
  AM_REQUIRE(stream, "stream");
  if (!stream->release) return am_fail(err, AM_EINVAL, "stream struct is already released");
  if (!stream->get_schema || !stream->get_next) {
    device_release(stream);
    return am_fail(err, AM_EINVAL, "the stream's get_schema or get_next is NULL");
  }
  const batch_source source = {"ArrowDeviceArrayStream", stream,        device_schema, device_next,
                               device_last_error,        device_release};
  return import_batches(err, &source, device, out);
}

AM_EXPORT int am_import_device_stream(struct ArrowDeviceArrayStream *stream, am_device *device,
                                      am_table **out) {
  AM_API_BEGIN;
  AM_API_RETURN(import_device_stream(err, stream, device, out));
}
