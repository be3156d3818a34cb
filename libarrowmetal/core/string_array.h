/* Strings and binary in the array model: reading slots, checking imported
 * offsets, and building results on the host.
 *
 * A utf8/binary array (AM_UTF8 ... AM_LARGE_BINARY) is two am_buffers, as
 * Arrow lays them out: `data` holds offsets (int32, or int64 for the large
 * types), slot i spanning bytes [offsets[offset + i], offsets[offset + i +
 * 1]) of `bytes`, the data buffer. A fixed_size_binary is `data` alone,
 * `byte_width` bytes a slot. Both buffers are the array's device's memory
 * (the host's for now), so the GPU can hold the same two later.
 *
 * Every result is built by one primitive, am_string_gather: each output
 * slot is a row of one of several sources, or null. filter, take, concat,
 * drop_null, fill_null, if_else and coalesce only say which.
 *
 * string_view and binary_view (core/string_view.h) are read through
 * am_string_value and gathered by am_string_gather as well; am_string_offset
 * and the offsets are the flat types' alone. */
#ifndef AM_CORE_STRING_ARRAY_H
#define AM_CORE_STRING_ARRAY_H

#include <stdint.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "string_view.h"
#include "types.h"

/* The start of slot i's bytes (0 <= i <= length: slot `length`'s start is
 * the end of the last). */
static inline int64_t am_string_offset(const am_array *a, int64_t i) {
  return am_type_is_large_binary(a->type) ? ((const int64_t *)a->data)[a->offset + i]
                                          : (int64_t)((const int32_t *)a->data)[a->offset + i];
}

/* Slot i's bytes and their count (whatever the slot's validity). */
static inline const uint8_t *am_string_value(const am_array *a, int64_t i, int64_t *size) {
  if (am_type_is_view(a->type)) return am_view_value(a, i, size);
  if (a->type == AM_FIXED_SIZE_BINARY) {
    *size = a->byte_width;
    return (const uint8_t *)a->data + (a->offset + i) * (int64_t)a->byte_width;
  }
  int64_t start = am_string_offset(a, i);
  *size = am_string_offset(a, i + 1) - start;
  return a->bytes + start;
}

static inline int am_string_is_valid(const am_array *a, int64_t i) {
  if (!a->validity) return 1;
  int64_t bit = a->offset + i;
  return (a->validity[bit >> 3] >> (bit & 7)) & 1;
}

/* Bytes of room a result keeps past its last value for am_string_copy_value
 * (ask am_string_alloc for that many more). */
#define AM_STRING_COPY_ROOM 16

/* Copies source a's bytes [start, start + size) to dst. A value of at most
 * AM_STRING_COPY_ROOM bytes is moved as that many (two 8-byte moves, no
 * call) when a has them readable from start: values of filter and take are
 * mostly that short. dst needs AM_STRING_COPY_ROOM bytes past size. */
static inline void am_string_copy_value(uint8_t *dst, const am_array *a, int64_t start,
                                        int64_t size) {
  if (size <= AM_STRING_COPY_ROOM && start + AM_STRING_COPY_ROOM <= a->bytes_size)
    memcpy(dst, a->bytes + start, AM_STRING_COPY_ROOM);
  else if (size)
    memcpy(dst, a->bytes + start, (size_t)size);
}

/* Checks an imported string array's buffers: the offsets from the array's
 * offset to offset + length start at 0 or more and never decrease, and a
 * data buffer is there when they span bytes. Sets *bytes_size to the last
 * offset (the bytes known to be readable). AM_EINVAL with the first bad
 * offset otherwise. A fixed_size_binary needs its data buffer when it has
 * slots and a width. */
int am_string_check_import(am_err *err, am_type type, int32_t byte_width, const void *offsets,
                           const void *bytes, int64_t offset, int64_t length, int64_t *bytes_size);

/* The width of a fixed_size_binary format "w:N" (N >= 0); -1 when malformed. */
int32_t am_string_format_width(const char *format);
/* The Arrow format of a string array ("u"; "w:16" interned); NULL when out
 * of memory. */
const char *am_string_format(am_type type, int32_t byte_width);

/* A host string result of `length` slots: offsets (zeroed first) and `bytes`
 * data bytes (at least one allocated) and, when with_validity, a bitmap set
 * to all valid; null_count -1. AM_EOVERFLOW when `bytes` passes a 32-bit
 * type's offsets (pyarrow: "offset overflow"). Not for view types
 * (am_view_alloc): AM_ETYPE. */
int am_string_alloc(am_err *err, am_device *device, am_type type, int32_t byte_width,
                    int64_t length, int64_t bytes, int with_validity, am_array **out);

/* One output slot of a gather: row `row` of source `source`, or null when
 * source < 0. */
typedef struct am_string_pick {
  int64_t source;
  int64_t row;
} am_string_pick;

/* A host array of `count` slots of the sources' type (every source is a
 * host string array of type `type`, of byte width `byte_width` when fixed):
 * slot j is picks[j]'s row (null when that row is null or the pick is).
 * View sources: am_view_gather (their data buffers shared). */
int am_string_gather(am_err *err, am_device *device, am_type type, int32_t byte_width,
                     const am_array *const *sources, const am_string_pick *picks, int64_t count,
                     am_array **out);

#endif
