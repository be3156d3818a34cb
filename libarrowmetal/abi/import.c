/* am_import / am_import_device: validation of Arrow C Data Interface input
 * and the move of the caller's struct into a buffer keeper. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "core/decimal.h"
#include "core/string_array.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "string_calls.h"
#include "string_device.h"
#include "tables.h"

/* `indices`: the schema of a dictionary array's indices, whose dictionary
 * dictionary_import.c reads (elsewhere a dictionary is refused). */
static int check_schema(am_err *err, const struct ArrowSchema *schema, int indices, am_type *type) {
  AM_REQUIRE(schema, "schema");
  if (!schema->release) return am_fail(err, AM_EINVAL, "schema struct is already released");
  if (!schema->format) return am_fail(err, AM_EINVAL, "schema format is NULL");
  if (schema->n_children < 0)
    return am_fail(err, AM_EINVAL, "schema n_children is negative (%lld)",
                   (long long)schema->n_children);
  if (schema->dictionary && !indices)
    return am_fail(err, AM_ETYPE, "a dictionary-encoded array is not supported here");
  if (schema->n_children != 0)
    return am_fail(err, AM_ETYPE, "format '%s' with %lld children is not a supported type",
                   schema->format, (long long)schema->n_children);
  char why[160];
  int32_t precision, scale;
  int status = am_decimal_parse_format(schema->format, type, &precision, &scale, why, sizeof why);
  if (status != AM_OK) return am_fail(err, status, "%s", why);
  if (*type == AM_TYPE_INVALID) *type = am_type_from_format(schema->format);
  if (*type == AM_TYPE_INVALID)
    return am_fail(err, AM_ETYPE,
                   "unsupported format '%s' (supported: b c s i l C S I L f g e, tss: tsm: tsu: "
                   "tsn: with a time zone, tdD tdm tts ttm ttu ttn tDs tDm tDu tDn, u U z Z vu vz "
                   "w:N, d:P,S d:P,S,256)",
                   schema->format);
  if (*type == AM_FIXED_SIZE_BINARY && am_string_format_width(schema->format) < 0)
    return am_fail(err, AM_EINVAL,
                   "malformed fixed_size_binary format '%s' (expected 'w:' and a byte width)",
                   schema->format);
  return AM_OK;
}

int am_take_timezone(am_err *err, am_array *array, const char *format) {
  if (!am_type_is_timestamp(array->type) || !format[4]) return AM_OK;
  if (!(array->timezone = am_intern(format + 4))) {
    am_array_free(array);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  return AM_OK;
}

int am_check_array_extent(am_err *err, const struct ArrowArray *a) {
  if (a->length < 0) return am_fail(err, AM_EINVAL, "negative length %lld", (long long)a->length);
  if (a->offset < 0) return am_fail(err, AM_EINVAL, "negative offset %lld", (long long)a->offset);
  if (a->offset > AM_MAX_LENGTH - a->length)
    return am_fail(err, AM_EINVAL, "offset %lld + length %lld is beyond 2^52 slots",
                   (long long)a->offset, (long long)a->length);
  if (a->null_count < -1 || a->null_count > a->length)
    return am_fail(err, AM_EINVAL, "null_count %lld out of range for length %lld",
                   (long long)a->null_count, (long long)a->length);
  return AM_OK;
}

static int check_array(am_err *err, const struct ArrowArray *a, int indices, am_type type) {
  int status = am_check_array_extent(err, a);
  if (status != AM_OK) return status;
  int64_t buffers = am_type_is_var_binary(type) ? 3 : 2;
  /* a view array: validity, views, its data buffers, their sizes */
  if (am_type_is_view(type) && a->n_buffers < 3)
    return am_fail(err, AM_EINVAL,
                   "format '%s' needs 3 buffers or more (validity, views, the variadic data "
                   "buffers, their sizes), the array has %lld",
                   am_type_format_of(type), (long long)a->n_buffers);
  if (!am_type_is_view(type) && a->n_buffers != buffers)
    return am_fail(err, AM_EINVAL, "format '%s' needs %lld buffers, the array has %lld",
                   am_type_format_of(type), (long long)buffers, (long long)a->n_buffers);
  if (a->n_children < 0)
    return am_fail(err, AM_EINVAL, "array n_children is negative (%lld)", (long long)a->n_children);
  if (a->n_children != 0)
    return am_fail(err, AM_EINVAL, "a primitive array has no children, this one has %lld",
                   (long long)a->n_children);
  if (a->dictionary && !indices)
    return am_fail(err, AM_EINVAL, "a primitive array has no dictionary");
  if (!a->dictionary && indices)
    return am_fail(err, AM_EINVAL, "the schema has a dictionary, the array has none");
  if (!a->buffers) return am_fail(err, AM_EINVAL, "buffers is NULL");
  if (!a->buffers[1] && a->length > 0 && !am_type_is_binary(type))
    return am_fail(err, AM_EINVAL, "data buffer is NULL with length %lld", (long long)a->length);
  if (!a->buffers[0] && a->null_count > 0)
    return am_fail(err, AM_EINVAL, "validity bitmap is NULL with null_count %lld",
                   (long long)a->null_count);
  return AM_OK;
}

/* Whether the data buffer of `a` starts at a multiple of its element width,
 * as kernels load elements with typed loads. The C Data Interface asks
 * producers for aligned buffers (8 bytes at least) but cannot promise them. */
static int data_aligned(const struct ArrowArray *a, am_type type) {
  /* views are read a 4-byte field at a time */
  uintptr_t width = am_type_is_view(type) ? 4 : (uintptr_t)am_type_bits(type) / 8;
  return width <= 1 || !a->buffers[1] || (uintptr_t)a->buffers[1] % width == 0;
}

/* A host array whose data buffer is misaligned is copied once, here, into
 * an aligned offset-0 array (the CPU's concatenation of one array moves
 * bytes, never typed elements); every kernel then loads aligned. An aligned
 * array stays zero-copy. */
static int align_host(am_err *err, am_array **host) {
  am_array *copy = NULL;
  const am_array *one = *host;
  int status = one->device->backend->kernels.concat(err, &one, 1, &copy);
  am_array_free(*host);
  *host = status == AM_OK ? copy : NULL;
  return status;
}

/* Validates the caller's struct and moves it in; every path after the
 * first check -- failure included -- releases it exactly once. A
 * dictionary array's indices come here from dictionary_import.c, which
 * imports the dictionary. */
int am_import_host(am_err *err, const struct ArrowSchema *schema, struct ArrowArray *array,
                   int indices, am_array **host_out) {
  AM_REQUIRE(array, "array");
  if (!array->release) return am_fail(err, AM_EINVAL, "array struct is already released");
  if (!indices && schema && schema->dictionary)
    return am_import_dictionary(err, schema, array, host_out);
  am_type type = AM_TYPE_INVALID;
  int status = check_schema(err, schema, indices, &type);
  if (status == AM_OK && indices && !am_type_is_integer(type))
    status =
        am_fail(err, AM_ETYPE, "dictionary indices must be integers, not '%s'", schema->format);
  if (status == AM_OK) status = check_array(err, array, indices, type);
  if (status != AM_OK) {
    array->release(array);
    array->release = NULL;
    return status;
  }
  int aligned = data_aligned(array, type);
  int32_t width = type == AM_FIXED_SIZE_BINARY ? am_string_format_width(schema->format) : 0;
  int64_t bytes_size = 0;
  int unsafe_nulls = 0;
  if (am_type_is_view(type))
    status = am_view_check_import(err, type, array, &unsafe_nulls);
  else if (am_type_is_binary(type))
    status = am_string_check_import(err, type, width, array->buffers[1],
                                    array->n_buffers > 2 ? array->buffers[2] : NULL, array->offset,
                                    array->length, &bytes_size);
  if (status != AM_OK) {
    array->release(array);
    array->release = NULL;
    return status;
  }
  am_array *host = NULL;
  status = am_array_adopt(err, am_host_device(), type, array, &host);
  if (status == AM_OK && am_type_is_binary(type)) {
    host->bytes_size = bytes_size;
    host->byte_width = width;
    /* A copy of the views (never the data) where they are misaligned, or
     * where a null slot's view would be unsafe to read: zeroed there. */
    if (!aligned || unsafe_nulls) status = am_string_realign(err, &host);
  } else if (status == AM_OK && !aligned) {
    status = align_host(err, &host);
  }
  if (status == AM_OK) status = am_take_timezone(err, host, schema->format);
  if (status != AM_OK) return status;
  if (am_type_is_decimal(type)) am_decimal_take_format(host, schema->format);
  if (atomic_load(&host->null_count) < 0) {
    int64_t counted = 0;
    status = am_count_nulls(err, host, &counted);
    if (status != AM_OK) {
      am_array_free(host);
      return status;
    }
    if (counted == 0) {
      am_buffer_release(host->validity_buf);
      host->validity_buf = NULL;
      host->validity = NULL;
    }
  }
  *host_out = host;
  return AM_OK;
}

int am_place(am_err *err, am_array *host, am_device *device, am_array **out) {
  if (device == host->device) {
    *out = host;
    return AM_OK;
  }
  if (am_type_is_binary(host->type)) return am_string_place(err, host, device, out);
  if (am_type_is_decimal(host->type)) {
    am_array_free(host);
    return am_decimal_not_on(err, device);
  }
  if (host->dictionary) {
    am_array_free(host);
    return am_dictionary_not_on(err, device);
  }
  int status = device->backend->memory.upload(err, device, host, out);
  if (status == AM_OK) (*out)->timezone = host->timezone;
  am_array_free(host);
  return status;
}

static int import(am_err *err, const struct ArrowSchema *schema, struct ArrowArray *array,
                  am_device *device, am_array **out) {
  if (am_is_struct_schema(schema)) return am_import_struct(err, schema, array, NULL, device, out);
  am_array *host = NULL;
  int status = am_import_host(err, schema, array, 0, &host);
  if (status != AM_OK) return status;
  if (!out) {
    am_array_free(host);
    return am_fail(err, AM_EINVAL, "out is NULL");
  }
  if (!device && (status = am_default_device_for(err, &device)) != AM_OK) {
    am_array_free(host);
    return status;
  }
  return am_place(err, host, device, out);
}

AM_EXPORT int am_import(const struct ArrowSchema *schema, struct ArrowArray *array,
                        am_device *device, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(import(err, schema, array, device, out));
}

/* Releases the moved-in struct of a failed device import. */
static int refuse(struct ArrowDeviceArray *array, int status) {
  array->array.release(&array->array);
  array->array.release = NULL;
  return status;
}

/* With no device named, an array in device memory stays where it lives (the
 * device numbered device_id of the backend that serves its device type:
 * zero-copy), and host memory goes to the default device. */
static int own_device(am_err *err, const struct ArrowDeviceArray *array, am_device **out) {
  ArrowDeviceType where = array->device_type;
  if (where == ARROW_DEVICE_CPU || where == ARROW_DEVICE_CUDA_HOST)
    return am_default_device_for(err, out);
  const am_backend *backend = am_registry_for_device_type(where);
  if (!backend)
    return am_fail(err, AM_EUNSUPPORTED, "no backend here serves device type %d", (int)where);
  if (array->device_id < 0 || array->device_id > 1024)
    return am_fail(err, AM_EINVAL, "device_id %lld is not a %s device", (long long)array->device_id,
                   backend->name);
  char spec[64];
  snprintf(spec, sizeof spec, "%s:%lld", backend->name, (long long)array->device_id);
  return am_open_device(err, spec, out);
}

static int import_device(am_err *err, const struct ArrowSchema *schema,
                         struct ArrowDeviceArray *array, am_device *device, am_array **out) {
  AM_REQUIRE(array, "array");
  int status;
  /* A released struct is refused as such whatever its device, before that
   * device is looked for. */
  if (!device && !array->array.release)
    return am_fail(err, AM_EINVAL, "array struct is already released");
  if (!device && (status = own_device(err, array, &device)) != AM_OK) {
    if (array->array.release) refuse(array, status);
    return status;
  }
  ArrowDeviceType where = array->device_type;
  if (where == ARROW_DEVICE_CPU || where == ARROW_DEVICE_CUDA_HOST) {
    /* Pinned host memory a GPU is still writing: wait for the producer's
     * event before any kernel reads it (the spec's consumer duty). */
    if (where == ARROW_DEVICE_CUDA_HOST && array->sync_event && array->array.release) {
      const am_backend *producer = am_registry_for_device_type(where);
      int status = producer ? am_registry_probe(err, producer) : AM_OK;
      if (!producer)
        status = am_fail(err, AM_EUNSUPPORTED,
                         "no backend here waits on sync events of device type %d", (int)where);
      if (status == AM_OK) status = producer->memory.wait_event(err, array->sync_event);
      if (status != AM_OK) return refuse(array, status);
    }
    return import(err, schema, &array->array, device, out);
  }
  if (!array->array.release) return am_fail(err, AM_EINVAL, "array struct is already released");
  if (am_is_struct_schema(schema))
    return am_import_struct(err, schema, &array->array, array, device, out);
  if (schema && schema->dictionary) return refuse(array, am_dictionary_not_on(err, device));
  am_type type = AM_TYPE_INVALID;
  status = check_schema(err, schema, 0, &type);
  if (status == AM_OK) status = check_array(err, &array->array, 0, type);
  if (status == AM_OK && !out) status = am_fail(err, AM_EINVAL, "out is NULL");
  if (status == AM_OK && am_type_is_decimal(type)) status = am_decimal_not_on(err, device);
  if (status == AM_OK && am_type_is_view(type))
    return refuse(array, am_view_not_on(err, type, device));
  if (status == AM_OK && am_type_is_binary(type)) {
    if (device->backend->device_type != where)
      return refuse(array,
                    am_fail(err, AM_EUNSUPPORTED, "device type %d cannot be imported onto %s",
                            (int)where, device->name));
    /* Host-visible device memory (Metal's) is host memory: imported as the
     * host's, then placed. */
    if (device->backend->memory.caps & AM_MEMORY_HOST_VISIBLE) {
      if (array->sync_event &&
          (status = device->backend->memory.wait_event(err, array->sync_event)) != AM_OK)
        return refuse(array, status);
      return import(err, schema, &array->array, device, out);
    }
    /* The kernels load offsets as whole words. */
    const uintptr_t offset_bytes = am_type_is_large_binary(type) ? 8 : 4;
    if (type != AM_FIXED_SIZE_BINARY && (uintptr_t)array->array.buffers[1] % offset_bytes != 0)
      return refuse(array, am_fail(err, AM_EINVAL,
                                   "the device offsets buffer is not aligned to the %d bytes of "
                                   "a %s offset",
                                   (int)offset_bytes, am_type_name(type)));
    int32_t width = type == AM_FIXED_SIZE_BINARY ? am_string_format_width(schema->format) : 0;
    return am_string_import_device(err, device, type, width, array, out);
  }
  if (status == AM_OK && !data_aligned(&array->array, type))
    status = am_fail(err, AM_EINVAL,
                     "the device data buffer is not aligned to the %d bytes of a %s element "
                     "(host buffers are copied; device buffers must be aligned)",
                     am_type_bits(type) / 8, am_type_name(type));
  if (status == AM_OK && device->backend->device_type != where)
    status = am_fail(err, AM_EUNSUPPORTED, "device type %d cannot be imported onto %s", (int)where,
                     device->name);
  if (status != AM_OK) return refuse(array, status);
  /* The backend moves array->array in and checks that it lives on its device. */
  status = device->backend->memory.import_device(err, device, type, array, out);
  if (status == AM_OK && (status = am_take_timezone(err, *out, schema->format)) != AM_OK)
    *out = NULL; /* freed by am_take_timezone */
  return status;
}

AM_EXPORT int am_import_device(const struct ArrowSchema *schema, struct ArrowDeviceArray *array,
                               am_device *device, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(import_device(err, schema, array, device, out));
}

int am_import_array(am_err *err, const struct ArrowSchema *schema, struct ArrowArray *array,
                    am_device *device, am_array **out) {
  return import(err, schema, array, device, out);
}

int am_import_device_array(am_err *err, const struct ArrowSchema *schema,
                           struct ArrowDeviceArray *array, am_device *device, am_array **out) {
  return import_device(err, schema, array, device, out);
}

int am_check_field_schema(am_err *err, const struct ArrowSchema *schema) {
  am_type type = AM_TYPE_INVALID;
  return check_schema(err, schema, 0, &type);
}
