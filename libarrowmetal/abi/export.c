/* am_export / am_export_device: standard structs that share our buffers. */
#include <stdlib.h>
#include <string.h>

#include "abi.h"

typedef struct export_state {
  am_buffer *validity;
  am_buffer *data;
  const void *buffers[2];
} export_state;

static void release_schema(struct ArrowSchema *schema) { schema->release = NULL; }

static void release_array(struct ArrowArray *array) {
  export_state *state = array->private_data;
  am_buffer_release(state->validity);
  am_buffer_release(state->data);
  free(state);
  array->release = NULL;
}

static void fill_schema(const am_array *array, struct ArrowSchema *schema) {
  memset(schema, 0, sizeof *schema);
  schema->format = am_type_format_of(array->type);
  schema->name = "";
  schema->flags = ARROW_FLAG_NULLABLE;
  schema->release = release_schema;
}

/* Exports a final host array: the struct takes its own buffer references. */
static int export_host(const am_array *array, struct ArrowArray *out) {
  export_state *state = malloc(sizeof *state);
  if (!state) return am_error(AM_ENOMEM, "out of memory");
  int64_t null_count = am_null_count(array);
  state->validity = null_count ? am_buffer_retain(array->validity_buf) : NULL;
  state->data = am_buffer_retain(array->data_buf);
  state->buffers[0] = null_count ? array->validity : NULL;
  state->buffers[1] = array->data;
  memset(out, 0, sizeof *out);
  out->length = array->length;
  out->null_count = null_count;
  out->offset = array->offset;
  out->n_buffers = 2;
  out->buffers = state->buffers;
  out->release = release_array;
  out->private_data = state;
  return AM_OK;
}

AM_EXPORT int am_export(const am_array *array, struct ArrowSchema *schema_out,
                        struct ArrowArray *array_out) {
  AM_ENTER();
  AM_REQUIRE(array, "array");
  int status = am_settle(array);
  if (status != AM_OK) return status;
  if (array_out) {
    if (array->device == am_host_device()) {
      status = export_host(array, array_out);
    } else {
      am_array *host = NULL;
      status = array->device->backend->download(array, am_host_device(), &host);
      if (status != AM_OK) return status;
      status = export_host(host, array_out);
      am_array_free(host);
    }
    if (status != AM_OK) return status;
  }
  if (schema_out) fill_schema(array, schema_out);
  return AM_OK;
}

AM_EXPORT int am_export_device(const am_array *array, struct ArrowSchema *schema_out,
                               struct ArrowDeviceArray *array_out) {
  AM_ENTER();
  AM_REQUIRE(array, "array");
  AM_REQUIRE(array_out, "array_out");
  int status = am_settle(array);
  if (status != AM_OK) return status;
  if (array->device->backend->export_device) {
    status = array->device->backend->export_device(array, array_out);
  } else {
    memset(array_out, 0, sizeof *array_out);
    status = export_host(array, &array_out->array);
    array_out->device_type = ARROW_DEVICE_CPU;
    array_out->device_id = -1;
  }
  if (status == AM_OK && schema_out) fill_schema(array, schema_out);
  return status;
}
