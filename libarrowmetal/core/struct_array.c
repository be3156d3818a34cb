/* Struct handles (record batches): a handle with named child handles and no
 * buffers of its own. The import, export and accessors are abi/'s
 * (struct_import.c, struct_export.c, tables.c); this is only the record. */
#include <stdlib.h>
#include <string.h>

#include "array.h"

am_struct_fields *am_struct_fields_alloc(int64_t count) {
  am_struct_fields *fields = calloc(1, sizeof *fields);
  if (!fields) return NULL;
  fields->count = count;
  /* calloc(0) may give NULL: one slot more keeps NULL meaning "no memory". */
  fields->children = calloc((size_t)count + 1, sizeof *fields->children);
  fields->names = calloc((size_t)count + 1, sizeof *fields->names);
  fields->nullable = calloc((size_t)count + 1, sizeof *fields->nullable);
  if (!fields->children || !fields->names || !fields->nullable) {
    am_struct_fields_free(fields);
    return NULL;
  }
  return fields;
}

void am_struct_fields_free(am_struct_fields *fields) {
  if (!fields) return;
  for (int64_t i = 0; fields->children && i < fields->count; i++)
    am_array_free(fields->children[i]);
  for (int64_t i = 0; fields->names && i < fields->count; i++) free(fields->names[i]);
  free(fields->children);
  free(fields->names);
  free(fields->nullable);
  free(fields);
}

am_struct_fields *am_struct_fields_share(const am_struct_fields *fields) {
  am_struct_fields *copy = am_struct_fields_alloc(fields->count);
  if (!copy) return NULL;
  for (int64_t i = 0; i < fields->count; i++) {
    copy->children[i] = am_array_share(fields->children[i]);
    copy->names[i] = strdup(fields->names[i] ? fields->names[i] : "");
    copy->nullable[i] = fields->nullable[i];
    if (!copy->children[i] || !copy->names[i]) {
      am_struct_fields_free(copy);
      return NULL;
    }
  }
  return copy;
}

am_array *am_struct_array_make(am_device *device, int64_t length, am_struct_fields *fields) {
  am_array *array = am_array_make(device, AM_STRUCT, length, 0, 0, NULL, NULL, NULL, NULL);
  if (!array) {
    am_struct_fields_free(fields);
    return NULL;
  }
  array->fields = fields;
  return array;
}
