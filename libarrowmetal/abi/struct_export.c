/* Export of struct handles ("+s"): one parent struct owning its children's
 * exports, in one allocation. The interface lets a consumer move a child
 * out (it then marks the child released), so the parent's release skips
 * children already released. */
#include <stdlib.h>
#include <string.h>

#include "tables.h"

typedef struct struct_export {
  int64_t count;
  const void *buffers[1]; /* the struct's own validity (at bit 0), or NULL */
  am_buffer *validity;    /* its owner, held while the export lives */
  struct ArrowArray **pointers;
  struct ArrowArray *children;
} struct_export;

static struct_export *export_alloc(int64_t count) {
  struct_export *state = calloc(1, sizeof *state);
  if (!state) return NULL;
  state->count = count;
  state->pointers = calloc((size_t)count + 1, sizeof *state->pointers);
  state->children = calloc((size_t)count + 1, sizeof *state->children);
  if (!state->pointers || !state->children) {
    free(state->pointers);
    free(state->children);
    free(state);
    return NULL;
  }
  for (int64_t i = 0; i < count; i++) state->pointers[i] = &state->children[i];
  return state;
}

static void export_free(struct_export *state) {
  for (int64_t i = 0; i < state->count; i++)
    if (state->children[i].release) state->children[i].release(&state->children[i]);
  am_buffer_release(state->validity);
  free(state->pointers);
  free(state->children);
  free(state);
}

static void release_struct_export(struct ArrowArray *array) {
  export_free(array->private_data);
  array->release = NULL;
}

static void fill_parent(const am_array *array, struct_export *state, struct ArrowArray *out) {
  memset(out, 0, sizeof *out);
  state->buffers[0] = array->validity;
  state->validity = am_buffer_retain(array->validity_buf);
  out->length = array->length;
  out->null_count = am_struct_null_count(array);
  out->offset = 0;
  out->n_buffers = 1;
  out->buffers = state->buffers;
  out->n_children = state->count;
  out->children = state->pointers;
  out->release = release_struct_export;
  out->private_data = state;
}

int am_export_struct(am_err *err, const am_array *array, struct ArrowArray *out) {
  const am_struct_fields *fields = array->fields;
  struct_export *state = export_alloc(fields->count);
  if (!state) return am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; i < fields->count; i++) {
    int status = am_export_array(err, fields->children[i], NULL, &state->children[i]);
    if (status != AM_OK) {
      export_free(state);
      return status;
    }
  }
  fill_parent(array, state, out);
  return AM_OK;
}

int am_export_struct_device(am_err *err, const am_array *array, struct ArrowDeviceArray *out) {
  const am_struct_fields *fields = array->fields;
  struct_export *state = export_alloc(fields->count);
  if (!state) return am_fail(err, AM_ENOMEM, "out of memory");
  struct ArrowDeviceArray last;
  memset(&last, 0, sizeof last);
  last.device_type = array->device->backend->device_type;
  last.device_id = last.device_type == ARROW_DEVICE_CPU ? -1 : array->device->ordinal;
  for (int64_t i = 0; i < fields->count; i++) {
    int status = am_export_device_array(err, fields->children[i], &last);
    if (status != AM_OK) {
      export_free(state);
      return status;
    }
    state->children[i] = last.array;
  }
  memset(out, 0, sizeof *out);
  fill_parent(array, state, &out->array);
  out->device_type = last.device_type;
  out->device_id = last.device_id;
  /* Every child's work is on the device's one queue, and the last child's
   * event was recorded after all of it: waiting on it covers the struct.
   * It lives in that child's export, which the parent owns. */
  out->sync_event = last.sync_event;
  return AM_OK;
}

typedef struct struct_schema {
  int64_t count;
  struct ArrowSchema **pointers;
  struct ArrowSchema *children;
  char **names;
} struct_schema;

static void schema_free(struct_schema *state) {
  for (int64_t i = 0; i < state->count; i++) {
    if (state->children[i].release) state->children[i].release(&state->children[i]);
    free(state->names[i]);
  }
  free(state->pointers);
  free(state->children);
  free(state->names);
  free(state);
}

static void release_struct_schema(struct ArrowSchema *schema) {
  schema_free(schema->private_data);
  schema->release = NULL;
}

int am_struct_schema(am_err *err, const am_array *array, struct ArrowSchema *out) {
  const am_struct_fields *fields = array->fields;
  struct_schema *state = calloc(1, sizeof *state);
  if (state) {
    state->pointers = calloc((size_t)fields->count + 1, sizeof *state->pointers);
    state->children = calloc((size_t)fields->count + 1, sizeof *state->children);
    state->names = calloc((size_t)fields->count + 1, sizeof *state->names);
  }
  if (!state || !state->pointers || !state->children || !state->names) {
    if (state) schema_free(state);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  for (int64_t i = 0; i < fields->count; i++) {
    struct ArrowSchema *child = &state->children[i];
    state->pointers[i] = child;
    int status = am_export_schema(err, fields->children[i], child);
    state->count = i + 1;
    if (status == AM_OK && !(state->names[i] = strdup(fields->names[i])))
      status = am_fail(err, AM_ENOMEM, "out of memory");
    if (status != AM_OK) {
      schema_free(state);
      return status;
    }
    child->name = state->names[i];
    child->flags = fields->nullable[i] ? ARROW_FLAG_NULLABLE : 0;
  }
  state->count = fields->count;
  memset(out, 0, sizeof *out);
  out->format = "+s";
  out->name = "";
  out->flags = 0;
  out->n_children = fields->count;
  out->children = state->pointers;
  out->release = release_struct_schema;
  out->private_data = state;
  return AM_OK;
}
