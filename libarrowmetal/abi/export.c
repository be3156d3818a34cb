/* am_export / am_export_device: standard structs that share our buffers. */
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "core/decimal.h"
#include "core/string_array.h"
#include "string_device.h"
#include "tables.h"

/* A dictionary array's schema owns its dictionary's (one allocation). */
static void release_schema(struct ArrowSchema *schema) {
  if (schema->dictionary) {
    schema->dictionary->release(schema->dictionary);
    free(schema->dictionary);
  }
  schema->release = NULL;
}

static int fill_schema(am_err *err, const am_array *array, struct ArrowSchema *schema) {
  struct ArrowSchema *dictionary = NULL;
  if (array->dictionary) {
    if (!(dictionary = malloc(sizeof *dictionary))) return am_fail(err, AM_ENOMEM, "out of memory");
    int status = fill_schema(err, array->dictionary, dictionary);
    if (status != AM_OK) {
      free(dictionary);
      return status;
    }
  }
  memset(schema, 0, sizeof *schema);
  schema->format = am_type_is_binary(array->type) ? am_string_format(array->type, array->byte_width)
                   : am_type_is_decimal(array->type)
                       ? am_decimal_format(array->type, array->precision, array->scale)
                       : am_format_with_timezone(array->type, array->timezone);
  if (!schema->format) {
    if (dictionary) release_schema(dictionary), free(dictionary);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  schema->name = "";
  schema->flags = ARROW_FLAG_NULLABLE |
                  (dictionary && array->dictionary_ordered ? ARROW_FLAG_DICTIONARY_ORDERED : 0);
  schema->dictionary = dictionary;
  schema->release = release_schema;
  return AM_OK;
}

int am_to_host(am_err *err, const am_array *array, am_array **out) {
  if (array->device->backend->memory.caps & AM_MEMORY_HOST) {
    *out = am_array_share(array);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  if (am_type_is_binary(array->type)) return am_string_to_host(err, array, am_host_device(), out);
  int status = array->device->backend->memory.download(err, array, am_host_device(), out);
  if (status == AM_OK) (*out)->timezone = array->timezone;
  return status;
}

/* A final host array as a standard ArrowArray, its null count counted. */
static int export_host(am_err *err, const am_array *host, struct ArrowArray *out) {
  int64_t null_count = 0;
  int status = am_count_nulls(err, host, &null_count);
  return status == AM_OK ? am_array_export(err, host, null_count, out) : status;
}

static int export_array(am_err *err, const am_array *array, struct ArrowSchema *schema_out,
                        struct ArrowArray *array_out) {
  AM_REQUIRE(array, "array");
  if (array->type == AM_STRUCT) {
    int status = array_out ? am_export_struct(err, array, array_out) : AM_OK;
    if (status == AM_OK && schema_out &&
        (status = am_struct_schema(err, array, schema_out)) != AM_OK)
      if (array_out) array_out->release(array_out);
    return status;
  }
  int status =
      am_type_is_host_only(array->type) || array->dictionary ? AM_OK : am_settle_data(err, array);
  if (status != AM_OK) return status;
  /* A dictionary array's dictionary first: a failure leaves nothing out. */
  struct ArrowArray dictionary;
  dictionary.release = NULL;
  if (array_out && array->dictionary &&
      (status = export_array(err, array->dictionary, NULL, &dictionary)) != AM_OK)
    return status;
  if (array_out && (array->device->backend->memory.caps & AM_MEMORY_HOST)) {
    status = export_host(err, array, array_out);
  } else if (array_out) {
    am_array *host = NULL;
    status = am_to_host(err, array, &host);
    if (status == AM_OK) status = export_host(err, host, array_out);
    am_array_free(host);
  }
  if (status != AM_OK) {
    if (dictionary.release) dictionary.release(&dictionary);
    return status;
  }
  if (dictionary.release &&
      (status = am_array_export_attach_dictionary(err, array_out, &dictionary)) != AM_OK) {
    array_out->release(array_out);
    return status;
  }
  if (schema_out && (status = fill_schema(err, array, schema_out)) != AM_OK) {
    if (array_out) array_out->release(array_out);
    return status;
  }
  return AM_OK;
}

AM_EXPORT int am_export(const am_array *array, struct ArrowSchema *schema_out,
                        struct ArrowArray *array_out) {
  AM_API_BEGIN;
  AM_API_RETURN(export_array(err, array, schema_out, array_out));
}

static int export_device(am_err *err, const am_array *array, struct ArrowSchema *schema_out,
                         struct ArrowDeviceArray *array_out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(array_out, "array_out");
  if (array->type == AM_STRUCT) {
    int status = am_export_struct_device(err, array, array_out);
    if (status == AM_OK && schema_out &&
        (status = am_struct_schema(err, array, schema_out)) != AM_OK)
      array_out->array.release(&array_out->array);
    return status;
  }
  if (array->dictionary)
    return am_fail(err, AM_EUNSUPPORTED,
                   "a dictionary array (a host array) exports through am_export only");
  int status = am_type_is_host_only(array->type) ? AM_OK : am_settle_data(err, array);
  if (status != AM_OK) return status;
  status = array->device->backend->memory.export_device(err, array, array_out);
  if (status == AM_OK && schema_out && (status = fill_schema(err, array, schema_out)) != AM_OK)
    array_out->array.release(&array_out->array);
  return status;
}

AM_EXPORT int am_export_device(const am_array *array, struct ArrowSchema *schema_out,
                               struct ArrowDeviceArray *array_out) {
  AM_API_BEGIN;
  AM_API_RETURN(export_device(err, array, schema_out, array_out));
}

int am_export_array(am_err *err, const am_array *array, struct ArrowSchema *schema_out,
                    struct ArrowArray *array_out) {
  return export_array(err, array, schema_out, array_out);
}

int am_export_device_array(am_err *err, const am_array *array, struct ArrowDeviceArray *out) {
  return export_device(err, array, NULL, out);
}

int am_export_schema(am_err *err, const am_array *array, struct ArrowSchema *schema_out) {
  return array->type == AM_STRUCT ? am_struct_schema(err, array, schema_out)
                                  : fill_schema(err, array, schema_out);
}
