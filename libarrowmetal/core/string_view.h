/* string_view and binary_view in the array model: reading a slot's view,
 * checking imported views, and building view results on the host.
 *
 * A view array (AM_STRING_VIEW, AM_BINARY_VIEW) is Arrow's layout: `data`
 * holds a 16-byte view a slot (from element `offset`), and `variadic` its
 * data buffers. A view is its value's length (int32), then either the value
 * itself (a length of at most 12: inline, zero-padded) or the value's first
 * four bytes, the index of the data buffer that holds it and its offset
 * there (int32 each). Views are read with memcpy, so the views buffer needs
 * no alignment beyond the int32 the import asks for.
 *
 * Results that only move slots (take, filter, concat, the null functions)
 * copy views and share the inputs' data buffers, as Arrow C++ does; the
 * functions whose kernels read offsets run on a flat copy (am_view_flatten)
 * and give their string result views over its bytes (am_view_from_flat:
 * the bytes are shared, not copied). */
#ifndef AM_CORE_STRING_VIEW_H
#define AM_CORE_STRING_VIEW_H

#include <stdint.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "types.h"

#define AM_VIEW_BYTES 16  /* one view */
#define AM_VIEW_INLINE 12 /* the longest value held in its view */

/* Slot i's bytes and their count (its view must be valid: every view of an
 * imported array is, null slots' included, see am_view_check_import). */
static inline const uint8_t *am_view_value(const am_array *a, int64_t i, int64_t *size) {
  const uint8_t *v = (const uint8_t *)a->data + (a->offset + i) * AM_VIEW_BYTES;
  int32_t n, buffer, at;
  memcpy(&n, v, 4);
  *size = n;
  if (n <= AM_VIEW_INLINE) return v + 4;
  memcpy(&buffer, v + 8, 4);
  memcpy(&at, v + 12, 4);
  return a->variadic->data[buffer] + at;
}

/* Writes the view of a value of `size` bytes (at most INT32_MAX) at
 * `bytes`: inline, or in data buffer `buffer` at `at`. */
static inline void am_view_write(uint8_t *view, const uint8_t *bytes, int64_t size, int32_t buffer,
                                 int32_t at) {
  const int32_t n = (int32_t)size;
  memset(view, 0, AM_VIEW_BYTES);
  memcpy(view, &n, 4);
  if (n <= AM_VIEW_INLINE) {
    if (n) memcpy(view + 4, bytes, (size_t)n);
    return;
  }
  memcpy(view + 4, bytes, 4);
  memcpy(view + 8, &buffer, 4);
  memcpy(view + 12, &at, 4);
}

/* The view type of a flat (offsets) type, and the flat type a view array
 * of `bytes` data bytes is copied to (the large one past 2^31 - 1 bytes). */
static inline am_type am_view_type_of(am_type flat) {
  return am_type_is_utf8(flat) ? AM_STRING_VIEW : AM_BINARY_VIEW;
}
static inline am_type am_view_flat_type(am_type view, int64_t bytes) {
  const int large = bytes > INT32_MAX;
  return view == AM_STRING_VIEW ? (large ? AM_LARGE_UTF8 : AM_UTF8)
                                : (large ? AM_LARGE_BINARY : AM_BINARY);
}

/* Checks an imported view array's buffers (n_buffers at least 3, checked
 * by the caller): the variadic sizes buffer (the last) and each data buffer
 * present where it has bytes, every size >= 0, and the view of every valid
 * slot from the array's offset to offset + length: a length >= 0; a length
 * over 12 names a data buffer that exists, an offset >= 0 with the value
 * within that buffer's size, and a prefix equal to the value's first four
 * bytes. AM_EINVAL naming the slot and the problem otherwise. Null slots'
 * views are checked too, without failing: *unsafe_nulls is set when one
 * would fail (the caller then copies the views, zeroing those). */
int am_view_check_import(am_err *err, am_type type, const struct ArrowArray *array,
                         int *unsafe_nulls);

/* A host view array of `length` slots, its views zeroed (every slot the
 * empty value), with no data buffers and, when with_validity, a bitmap set
 * to all valid; null_count -1. */
int am_view_alloc(am_err *err, am_device *device, am_type type, int64_t length, int with_validity,
                  am_array **out);

/* A one-slot host view array of the `size` bytes at `bytes` (copied), or a
 * null slot. */
int am_view_scalar(am_err *err, am_device *device, am_type type, const uint8_t *bytes, int64_t size,
                   int is_null, am_array **out);

/* am_string_gather of view sources (core/string_array.h): the picked views
 * copied, the sources' data buffers shared (their indices renumbered when
 * several sources give values). */
struct am_string_pick;
int am_view_gather(am_err *err, am_device *device, am_type type, const am_array *const *sources,
                   const struct am_string_pick *picks, int64_t count, am_array **out);

/* A host array of flat (offsets) type `to` holding a copy of the view
 * array's values, offset 0, its nulls kept; `to` AM_TYPE_INVALID:
 * am_view_flat_type's. AM_EOVERFLOW when the bytes pass a 32-bit `to`'s
 * offsets. */
int am_view_flatten(am_err *err, const am_array *views, am_type to, am_array **out);

/* A view array of type `type` over a host flat (offsets) array's values:
 * new views, the flat array's data bytes shared as the data buffers (runs
 * of at most 2^31 - 1 bytes, a value never split) and its validity shared
 * (copied when its offset is not 0). AM_EOVERFLOW for a value past 2^31 - 1
 * bytes (a view's length is an int32). */
int am_view_from_flat(am_err *err, const am_array *flat, am_type type, am_array **out);

#endif
