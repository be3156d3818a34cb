/* Struct arrays, record batches and streams (issue #12, "Tables"): what
 * import.c, export.c and tables.c share. */
#ifndef AM_ABI_TABLES_H
#define AM_ABI_TABLES_H

#include "abi.h"

/* Whether `schema` is a struct's ("+s"); false for NULL. */
int am_is_struct_schema(const struct ArrowSchema *schema);

/* Checks a struct schema and, recursively, every field's: a field of an
 * unsupported type is AM_ETYPE naming its path ("field 'a.b': ..."). */
int am_check_struct_schema(am_err *err, const struct ArrowSchema *schema);

/* Imports a "+s" array (struct_import.c). `array` is moved in (released
 * exactly once, on failure too); `meta` is the device array it came in
 * (device type, id, sync event) when it holds device memory, NULL for host
 * memory; `device` NULL means the default device. */
int am_import_struct(am_err *err, const struct ArrowSchema *schema, struct ArrowArray *array,
                     const struct ArrowDeviceArray *meta, am_device *device, am_array **out);

/* import.c's work of am_import / am_import_device (any supported format,
 * struct included), for the children of a struct. */
int am_import_array(am_err *err, const struct ArrowSchema *schema, struct ArrowArray *array,
                    am_device *device, am_array **out);
int am_import_device_array(am_err *err, const struct ArrowSchema *schema,
                           struct ArrowDeviceArray *array, am_device *device, am_array **out);
/* import.c's check of an ArrowArray's length, offset and null_count, the
 * same for a primitive array and a struct. */
int am_check_array_extent(am_err *err, const struct ArrowArray *a);
/* import.c's check of a primitive field's schema (format, children,
 * dictionary). */
int am_check_field_schema(am_err *err, const struct ArrowSchema *schema);

/* export.c's work of am_export / am_export_device, for the children of a
 * struct (struct_export.c) and the stream export (tables.c). */
int am_export_array(am_err *err, const am_array *array, struct ArrowSchema *schema_out,
                    struct ArrowArray *array_out);
int am_export_device_array(am_err *err, const am_array *array, struct ArrowDeviceArray *out);
/* The schema of a handle (struct handles: "+s" with named children). */
int am_export_schema(am_err *err, const am_array *array, struct ArrowSchema *schema_out);

/* struct_export.c: a struct handle as a "+s" ArrowArray (children by
 * am_export_array) or ArrowDeviceArray (children by the backends' device
 * export); the schema by am_struct_schema. */
int am_export_struct(am_err *err, const am_array *array, struct ArrowArray *out);
int am_export_struct_device(am_err *err, const am_array *array, struct ArrowDeviceArray *out);
int am_struct_schema(am_err *err, const am_array *array, struct ArrowSchema *out);

/* Gives struct handle `array` (on the host) the null rows of `validity`
 * from bit `offset` (copied), and every field, at every depth, those nulls
 * as its own (struct_nulls.c). */
int am_struct_take_nulls(am_err *err, am_array *array, const uint8_t *validity, int64_t offset);
/* A struct handle's null rows (0 without a validity of its own). */
int64_t am_struct_null_count(const am_array *array);

/* An empty struct handle of `schema`'s fields on the host (zero rows), for
 * the schema of a table with no batches. */
int am_struct_empty(am_err *err, const struct ArrowSchema *schema, am_array **out);

/* The table object (tables.c; its streams in stream_import.c and
 * stream_export.c). */
struct am_table {
  am_array *like; /* a struct handle of the schema (rows irrelevant) */
  int64_t n_batches;
  am_array **batches; /* owned struct handles */
};
/* A table of `like`'s schema over `batches` (n of them): both moved in,
 * freed on failure too. */
int am_table_over(am_err *err, am_array *like, am_array **batches, int64_t n, am_table **out);

#endif
