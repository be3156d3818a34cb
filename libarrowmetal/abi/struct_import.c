/* Import of struct arrays and record batches ("+s").
 *
 * Ownership, the way nanoarrow's array views and pyarrow's importer share
 * a parent: the caller's parent ArrowArray is moved into one reference-
 * counted box. Each child is handed to the ordinary import (import.c) as a
 * standalone ArrowArray of its own -- a shallow copy of the child with the
 * parent's offset and length applied -- whose release callback drops one
 * reference to the box. So every child is validated, aligned, counted and
 * placed exactly as a primitive import is, and the parent's release
 * callback runs once, when the last child's buffers go. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal_calls.h"
#include "tables.h"

int am_is_struct_schema(const struct ArrowSchema *schema) {
  return schema && schema->format && strcmp(schema->format, "+s") == 0;
}

static const char *field_name(const struct ArrowSchema *schema) {
  return schema && schema->name ? schema->name : "";
}

/* Checks `schema` (a field at `path`), recursing into structs. */
static int check_field(am_err *err, const struct ArrowSchema *schema, const char *path) {
  if (!schema) return am_fail(err, AM_EINVAL, "field '%s': schema is NULL", path);
  if (!am_is_struct_schema(schema)) {
    int status = am_check_field_schema(err, schema);
    if (status != AM_OK) {
      char inner[sizeof err->message];
      memcpy(inner, err->message, sizeof inner);
      return am_fail(err, status, "field '%s': %s", path, inner);
    }
    return AM_OK;
  }
  if (schema->dictionary)
    return am_fail(err, AM_ETYPE, "field '%s': a dictionary-encoded struct is not supported", path);
  if (schema->n_children < 0)
    return am_fail(err, AM_EINVAL, "field '%s': schema n_children is negative (%lld)", path,
                   (long long)schema->n_children);
  if (schema->n_children > 0 && !schema->children)
    return am_fail(err, AM_EINVAL, "field '%s': schema children is NULL", path);
  for (int64_t i = 0; i < schema->n_children; i++) {
    const struct ArrowSchema *child = schema->children[i];
    char child_path[256];
    snprintf(child_path, sizeof child_path, "%s%s%s", path, *path ? "." : "", field_name(child));
    int status = check_field(err, child, child_path);
    if (status != AM_OK) return status;
  }
  return AM_OK;
}

int am_check_struct_schema(am_err *err, const struct ArrowSchema *schema) {
  AM_REQUIRE(schema, "schema");
  if (!schema->release) return am_fail(err, AM_EINVAL, "schema struct is already released");
  return check_field(err, schema, "");
}

/* The moved parent and the references the children's copies hold. */
typedef struct parent_box {
  atomic_long refs;
  struct ArrowArray parent;
} parent_box;

static void box_release(parent_box *box) {
  if (atomic_fetch_sub_explicit(&box->refs, 1, memory_order_acq_rel) == 1) {
    if (box->parent.release) box->parent.release(&box->parent);
    free(box);
  }
}

/* A child's standalone copy: released by dropping its box reference. */
static void release_child_copy(struct ArrowArray *child) {
  box_release(child->private_data);
  child->release = NULL;
}

/* Whether bits [offset, offset + length) of `bitmap` hold a 0. */
static int has_zero_bit(const uint8_t *bitmap, int64_t offset, int64_t length) {
  for (int64_t i = offset; i < offset + length; i++)
    if (!(bitmap[i >> 3] >> (i & 7) & 1)) return 1;
  return 0;
}

/* The struct's own checks: ranges (as import.c's), buffers, its nulls (in
 * host memory only), its children's lengths. `host` says whether a bitmap
 * may be read here. */
static int check_struct_array(am_err *err, const struct ArrowSchema *schema,
                              const struct ArrowArray *a, int host) {
  int status = am_check_array_extent(err, a);
  if (status != AM_OK) return status;
  if (a->n_buffers != 1)
    return am_fail(err, AM_EINVAL, "format '+s' needs 1 buffer, the array has %lld",
                   (long long)a->n_buffers);
  if (!a->buffers) return am_fail(err, AM_EINVAL, "buffers is NULL");
  if (a->dictionary) return am_fail(err, AM_EINVAL, "a struct array has no dictionary");
  if (a->n_children != schema->n_children)
    return am_fail(err, AM_EINVAL, "the schema has %lld fields, the array %lld children",
                   (long long)schema->n_children, (long long)a->n_children);
  if (a->n_children > 0 && !a->children) return am_fail(err, AM_EINVAL, "array children is NULL");
  const uint8_t *validity = a->buffers[0];
  if (!host && validity && a->null_count != 0 && a->length > 0)
    return am_fail(err, AM_EUNSUPPORTED,
                   "a struct array with null rows of its own in device memory is not supported "
                   "(null_count %lld); on the host it is",
                   (long long)a->null_count);
  for (int64_t i = 0; i < a->n_children; i++) {
    const struct ArrowArray *child = a->children[i];
    const char *name = field_name(schema->children[i]);
    if (!child) return am_fail(err, AM_EINVAL, "field '%s': child array is NULL", name);
    if (!child->release)
      return am_fail(err, AM_EINVAL, "field '%s': child array is already released", name);
    if (child->length < 0 || child->length < a->offset + a->length)
      return am_fail(err, AM_EINVAL,
                     "field '%s': child length %lld is shorter than the struct's offset %lld + "
                     "length %lld",
                     name, (long long)child->length, (long long)a->offset, (long long)a->length);
  }
  return AM_OK;
}

/* The child's standalone copy: the parent's rows of it. */
static void child_copy(const struct ArrowArray *parent, int64_t i, parent_box *box,
                       struct ArrowArray *copy) {
  const struct ArrowArray *child = parent->children[i];
  *copy = *child;
  copy->offset = child->offset + parent->offset;
  copy->length = parent->length;
  /* The child's count is over its whole length; for a part of it only 0
   * stays true. */
  if (copy->length != child->length || copy->offset != child->offset)
    copy->null_count = child->null_count == 0 ? 0 : -1;
  copy->release = release_child_copy;
  copy->private_data = box;
}

static int import_children(am_err *err, const struct ArrowSchema *schema, parent_box *box,
                           const struct ArrowDeviceArray *meta, am_device *device,
                           am_struct_fields *fields) {
  const struct ArrowArray *parent = &box->parent;
  for (int64_t i = 0; i < parent->n_children; i++) {
    const struct ArrowSchema *child_schema = schema->children[i];
    fields->names[i] = strdup(field_name(child_schema));
    fields->nullable[i] = (child_schema->flags & ARROW_FLAG_NULLABLE) != 0;
    if (!fields->names[i]) return am_fail(err, AM_ENOMEM, "out of memory");
    atomic_fetch_add_explicit(&box->refs, 1, memory_order_relaxed);
    int status;
    if (meta) {
      struct ArrowDeviceArray child = *meta;
      child_copy(parent, i, box, &child.array);
      status = am_import_device_array(err, child_schema, &child, device, &fields->children[i]);
    } else {
      struct ArrowArray child;
      child_copy(parent, i, box, &child);
      status = am_import_array(err, child_schema, &child, device, &fields->children[i]);
    }
    if (status != AM_OK) {
      char inner[sizeof err->message];
      memcpy(inner, err->message, sizeof inner);
      return am_fail(err, status, "field '%s': %s", fields->names[i], inner);
    }
  }
  return AM_OK;
}

int am_import_struct(am_err *err, const struct ArrowSchema *schema, struct ArrowArray *array,
                     const struct ArrowDeviceArray *meta, am_device *device, am_array **out) {
  AM_REQUIRE(array, "array");
  if (!array->release) return am_fail(err, AM_EINVAL, "array struct is already released");
  int host =
      !meta || meta->device_type == ARROW_DEVICE_CPU || meta->device_type == ARROW_DEVICE_CUDA_HOST;
  int status = am_check_struct_schema(err, schema);
  if (status == AM_OK) status = check_struct_array(err, schema, array, host);
  if (status == AM_OK && !out) status = am_fail(err, AM_EINVAL, "out is NULL");
  if (status == AM_OK && !device) status = am_default_device_for(err, &device);
  if (status == AM_OK && meta && device->backend->device_type != meta->device_type)
    status = am_fail(err, AM_EUNSUPPORTED, "device type %d cannot be imported onto %s",
                     (int)meta->device_type, device->name);
  parent_box *box = status == AM_OK ? malloc(sizeof *box) : NULL;
  if (status == AM_OK && !box) status = am_fail(err, AM_ENOMEM, "out of memory");
  if (status != AM_OK) {
    array->release(array);
    array->release = NULL;
    return status;
  }
  atomic_init(&box->refs, 1); /* ours, dropped below */
  box->parent = *array;
  array->release = NULL;
  int64_t length = box->parent.length;
  /* The struct's own null rows (host memory): taken while the box is held. */
  const uint8_t *validity = box->parent.buffers[0];
  const int nulls = validity && box->parent.null_count != 0 && length > 0 &&
                    has_zero_bit(validity, box->parent.offset, length);
  if (nulls && device->backend->device_type != ARROW_DEVICE_CPU)
    status = am_fail(err, AM_EUNSUPPORTED,
                     "a struct array with null rows of its own is not supported on %s (null_count "
                     "%lld); on the CPU it is",
                     device->name, (long long)box->parent.null_count);
  am_struct_fields *fields =
      status == AM_OK ? am_struct_fields_alloc(box->parent.n_children) : NULL;
  if (status == AM_OK && !fields) status = am_fail(err, AM_ENOMEM, "out of memory");
  if (status == AM_OK) status = import_children(err, schema, box, meta, device, fields);
  am_array *result = NULL;
  if (status != AM_OK)
    am_struct_fields_free(fields);
  else if (!(result = am_struct_array_make(device, length, fields))) /* frees fields */
    status = am_fail(err, AM_ENOMEM, "out of memory");
  if (status == AM_OK && nulls)
    status = am_struct_take_nulls(err, result, validity, box->parent.offset);
  /* The children hold the box now (or, on failure, have let it go). */
  box_release(box);
  if (status != AM_OK) {
    am_array_free(result);
    return status;
  }
  *out = result;
  return AM_OK;
}

/* Zero rows of a primitive type on the host: a valid empty block, no owner. */
static int empty_column(am_err *err, am_type type, am_array **out) {
  static const _Alignas(64) uint64_t empty[8];
  am_array *array = am_array_make(am_host_device(), type, 0, 0, 0, NULL, NULL, NULL, empty);
  if (!array) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = array;
  return AM_OK;
}

int am_struct_empty(am_err *err, const struct ArrowSchema *schema, am_array **out) {
  am_struct_fields *fields = am_struct_fields_alloc(schema->n_children);
  if (!fields) return am_fail(err, AM_ENOMEM, "out of memory");
  int status = AM_OK;
  for (int64_t i = 0; i < schema->n_children && status == AM_OK; i++) {
    const struct ArrowSchema *child = schema->children[i];
    fields->names[i] = strdup(field_name(child));
    fields->nullable[i] = (child->flags & ARROW_FLAG_NULLABLE) != 0;
    if (!fields->names[i])
      status = am_fail(err, AM_ENOMEM, "out of memory");
    else if (am_is_struct_schema(child))
      status = am_struct_empty(err, child, &fields->children[i]);
    else
      status = empty_column(err, am_type_from_format(child->format), &fields->children[i]);
    if (status == AM_OK && am_type_is_decimal(fields->children[i]->type))
      am_decimal_take_format(fields->children[i], child->format);
  }
  am_array *result = status == AM_OK ? am_struct_array_make(am_host_device(), 0, fields) : NULL;
  if (status != AM_OK)
    am_struct_fields_free(fields);
  else if (!result)
    status = am_fail(err, AM_ENOMEM, "out of memory");
  if (status == AM_OK) *out = result;
  return status;
}
