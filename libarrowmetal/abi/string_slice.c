/* utf8_slice_codeunits: each valid value's code points [start, stop) by
 * step, with Python's rules for negative and out-of-range indices (pyarrow's
 * SliceOptions; stop AM_SLICE_NO_STOP is Python's None). One pass finds each
 * value's code points and the bytes its slice keeps, a second copies them
 * into a new array of the input's type.
 *
 * A step of 1 keeps one byte range, found by counting lead bytes; any other
 * step takes code points one by one. Each valid value is checked whole to be
 * UTF-8 as far as slicing needs it: every lead byte followed by as many
 * continuation bytes as it announces, and no continuation byte without one. */
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "core/memstats.h"
#include "core/string_array.h"
#include "string_calls.h"
#include "string_device.h"

/* The bytes of the code point that starts with lead byte b: 0 for a byte
 * that cannot start one. */
static int sequence_length(uint8_t b) {
  if (b < 0x80) return 1;
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 0;
}

/* The code points of v[0, n), or -1 when its bytes are not a sequence of
 * whole ones. */
static int64_t code_points(const uint8_t *v, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; count++) {
    const int len = sequence_length(v[i]);
    if (!len || i + len > n) return -1;
    for (int k = 1; k < len; k++)
      if ((v[i + k] & 0xC0) != 0x80) return -1;
    i += len;
  }
  return count;
}

/* The byte where code point `index` (0 <= index <= count) of a checked
 * value starts. */
static int64_t byte_of(const uint8_t *v, int64_t n, int64_t index) {
  int64_t i = 0;
  for (; i < n && index > 0; index--) i += sequence_length(v[i]);
  return i;
}

/* Python's slice.indices: *first and the count of code points taken, of a
 * value of `count` code points. */
static void slice_indices(int64_t count, int64_t start, int64_t stop, int64_t step, int64_t *first,
                          int64_t *taken) {
  const int64_t lowest = step < 0 ? -1 : 0, highest = step < 0 ? count - 1 : count;
  if (start < 0) {
    start += count;
    if (start < 0) start = lowest;
  } else if (start > highest) {
    start = highest;
  }
  if (stop == AM_SLICE_NO_STOP) {
    stop = step < 0 ? -1 : count;
  } else if (stop < 0) {
    stop += count;
    if (stop < 0) stop = lowest;
  } else if (stop > highest) {
    stop = highest;
  }
  *first = start;
  /* ceil(distance / |step|) without forming distance + |step| or -step
   * (a step of INT64_MIN or near INT64_MAX would overflow them) */
  const int64_t distance = step > 0 ? stop - start : start - stop;
  const uint64_t magnitude = step > 0 ? (uint64_t)step : 0 - (uint64_t)step;
  *taken = distance > 0 ? (int64_t)(((uint64_t)distance - 1) / magnitude + 1) : 0;
}

/* Copies the taken code points of a checked value to dst (NULL: only
 * counts), returning their bytes. */
static int64_t slice_value(const uint8_t *v, int64_t n, int64_t count, int64_t start, int64_t stop,
                           int64_t step, uint8_t *dst) {
  int64_t first, taken;
  slice_indices(count, start, stop, step, &first, &taken);
  if (taken == 0) return 0;
  if (step == 1) {
    const int64_t b = byte_of(v, n, first), e = byte_of(v + b, n - b, taken) + b;
    if (dst) memcpy(dst, v + b, (size_t)(e - b));
    return e - b;
  }
  /* the code points' starts, then the taken ones in order */
  int64_t *at = malloc((size_t)(count + 1) * sizeof *at);
  if (!at) return -1;
  for (int64_t i = 0, k = 0; k <= count; k++) {
    at[k] = i;
    if (i < n) i += sequence_length(v[i]);
  }
  int64_t bytes = 0;
  /* k moves on only while another code point follows: past the last one a
   * step near INT64_MAX would overflow it */
  for (int64_t t = 0, k = first; t < taken; k += ++t < taken ? step : 0) {
    const int64_t len = at[k + 1] - at[k];
    if (dst) memcpy(dst + bytes, v + at[k], (size_t)len);
    bytes += len;
  }
  free(at);
  return bytes;
}

static int slice_host(am_err *err, const am_array *a, int64_t start, int64_t stop, int64_t step,
                      am_array **out);

static int utf8_slice_codeunits(am_err *err, const am_array *a, int64_t start, int64_t stop,
                                int64_t step, am_array **out) {
  AM_REQUIRE(a, "array");
  AM_REQUIRE(out, "out");
  if (!am_type_is_utf8(a->type)) {
    if (a->type != AM_STRUCT && !am_type_is_binary(a->type)) {
      int status = am_settle(err, a); /* a pending GPU result: its type is final */
      if (status != AM_OK) return status;
    }
    return am_fail(err, AM_ETYPE,
                   "Function 'utf8_slice_codeunits' has no kernel matching input types (%s)",
                   a->type == AM_STRUCT ? "struct" : am_type_name(a->type));
  }
  /* pyarrow refuses a step of 0 once there is a slot, null or not */
  if (step == 0 && a->length > 0) return am_fail(err, AM_EINVAL, "Slice step cannot be zero");
  const am_array *in[1] = {a};
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK) status = slice_host(err, in[0], start, stop, step, out);
  return am_string_hosted_end(err, status, &h, out);
}

/* The slices of a host array's values. */
static int slice_host(am_err *err, const am_array *a, int64_t start, int64_t stop, int64_t step,
                      am_array **out) {
  const int64_t n = a->length;
  /* each valid slot's code points, then its result's bytes */
  int64_t *count = am_scratch_alloc((n ? n : 1) * 16), *size = count + n;
  if (!count) return am_fail(err, AM_ENOMEM, "out of memory");
  int status = AM_OK;
  int64_t total = 0;
  for (int64_t i = 0; i < n && status == AM_OK; i++) {
    size[i] = 0;
    if (!am_string_is_valid(a, i)) continue;
    int64_t bytes;
    const uint8_t *v = am_string_value(a, i, &bytes);
    count[i] = code_points(v, bytes);
    if (count[i] < 0) {
      status = am_fail(err, AM_EINVAL, "Invalid UTF8 sequence in input");
      break;
    }
    size[i] = slice_value(v, bytes, count[i], start, stop, step, NULL);
    if (size[i] < 0) status = am_fail(err, AM_ENOMEM, "out of memory");
    total += size[i];
  }
  am_array *r = NULL;
  /* a view array's result is written flat, then made views over its bytes */
  const am_type rt = am_type_is_view(a->type) ? am_view_flat_type(a->type, total) : a->type;
  if (status == AM_OK)
    status = am_string_alloc(err, a->device, rt, 0, n, total, a->validity != NULL, &r);
  for (int64_t i = 0, at = 0; status == AM_OK && i < n; i++) {
    if (size[i]) {
      int64_t bytes;
      const uint8_t *v = am_string_value(a, i, &bytes);
      if (slice_value(v, bytes, count[i], start, stop, step, (uint8_t *)r->bytes + at) < 0)
        status = am_fail(err, AM_ENOMEM, "out of memory");
    }
    at += size[i];
    if (am_type_is_large_binary(rt))
      ((int64_t *)r->data)[i + 1] = at;
    else
      ((int32_t *)r->data)[i + 1] = (int32_t)at;
  }
  am_scratch_free(count);
  if (status != AM_OK) {
    am_array_free(r);
    return status;
  }
  if (!a->validity) atomic_store(&r->null_count, 0);
  am_string_copy_validity(a, r);
  if (rt == a->type) {
    *out = r;
    return AM_OK;
  }
  status = am_view_from_flat(err, r, a->type, out);
  am_array_free(r);
  return status;
}

AM_EXPORT int am_utf8_slice_codeunits(const am_array *array, int64_t start, int64_t stop,
                                      int64_t step, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(utf8_slice_codeunits(err, array, start, stop, step, out));
}
