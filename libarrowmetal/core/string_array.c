#include "string_array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t am_string_format_width(const char *format) {
  if (!format || format[0] != 'w' || format[1] != ':' || !format[2]) return -1;
  int64_t width = 0;
  for (const char *c = format + 2; *c; c++) {
    if (*c < '0' || *c > '9') return -1;
    width = width * 10 + (*c - '0');
    if (width > INT32_MAX) return -1;
  }
  return (int32_t)width;
}

const char *am_string_format(am_type type, int32_t byte_width) {
  if (type != AM_FIXED_SIZE_BINARY) return am_type_format_of(type);
  char text[32];
  snprintf(text, sizeof text, "w:%d", (int)byte_width);
  return am_intern(text);
}

int am_string_check_import(am_err *err, am_type type, int32_t byte_width, const void *offsets,
                           const void *bytes, int64_t offset, int64_t length, int64_t *bytes_size) {
  if (type == AM_FIXED_SIZE_BINARY) {
    if (!offsets && length > 0 && byte_width > 0)
      return am_fail(err, AM_EINVAL, "fixed_size_binary data buffer is NULL with length %lld",
                     (long long)length);
    *bytes_size = 0;
    return AM_OK;
  }
  if (!offsets) {
    /* Only an empty array may omit its offsets (am_array_adopt gives it a
     * zeroed block). */
    if (length > 0)
      return am_fail(err, AM_EINVAL, "%s offsets buffer is NULL with length %lld",
                     am_type_name(type), (long long)length);
    *bytes_size = 0;
    return AM_OK;
  }
  int large = am_type_is_large_binary(type);
  int64_t previous = 0;
  for (int64_t i = 0; i <= length; i++) {
    int64_t at = offset + i;
    int64_t value = large ? ((const int64_t *)offsets)[at] : ((const int32_t *)offsets)[at];
    if (i == 0 && value < 0)
      return am_fail(err, AM_EINVAL, "%s offset %lld (slot %lld) is negative", am_type_name(type),
                     (long long)value, (long long)at);
    if (i > 0 && value < previous)
      return am_fail(err, AM_EINVAL,
                     "%s offsets decrease at slot %lld (%lld after %lld): offsets must be "
                     "monotonic",
                     am_type_name(type), (long long)at, (long long)value, (long long)previous);
    previous = value;
  }
  int64_t first = large ? ((const int64_t *)offsets)[offset] : ((const int32_t *)offsets)[offset];
  if (!bytes && previous > first)
    return am_fail(err, AM_EINVAL, "%s data buffer is NULL but the offsets span %lld bytes",
                   am_type_name(type), (long long)(previous - first));
  *bytes_size = previous;
  return AM_OK;
}

int am_string_alloc(am_err *err, am_device *device, am_type type, int32_t byte_width,
                    int64_t length, int64_t bytes, int with_validity, am_array **out) {
  if (length < 0 || length > AM_MAX_LENGTH)
    return am_fail(err, AM_EINVAL, "length %lld is outside 0 to 2^52", (long long)length);
  if (am_type_is_view(type))
    return am_fail(err, AM_ETYPE, "%s arrays are made by am_view_alloc", am_type_name(type));
  int fixed = type == AM_FIXED_SIZE_BINARY;
  if (!fixed && !am_type_is_large_binary(type) && bytes > INT32_MAX)
    return am_fail(err, AM_EOVERFLOW,
                   "offset overflow: %lld bytes do not fit the 32-bit offsets of %s (use %s)",
                   (long long)bytes, am_type_name(type),
                   type == AM_UTF8 ? "large_string" : "large_binary");
  if (bytes < 0 || bytes > AM_MAX_HOST_BYTES)
    return am_fail(err, AM_ENOMEM, "out of memory allocating %lld string bytes", (long long)bytes);
  int64_t offsets_size =
      fixed ? length * (int64_t)byte_width : (length + 1) * (am_type_is_large_binary(type) ? 8 : 4);
  am_buffer *data = am_buffer_alloc_host(offsets_size > 0 ? offsets_size : 1);
  am_buffer *chars = fixed ? NULL : am_buffer_alloc_host(bytes > 0 ? bytes : 1);
  am_buffer *validity = with_validity ? am_buffer_alloc_host((length + 7) / 8 + 1) : NULL;
  if (!data || (!fixed && !chars) || (with_validity && !validity)) {
    am_buffer_release(data);
    am_buffer_release(chars);
    am_buffer_release(validity);
    return am_fail(err, AM_ENOMEM, "out of memory allocating %lld slots of %s", (long long)length,
                   am_type_name(type));
  }
  if (!fixed) memset(data->ptr, 0, (size_t)offsets_size);
  if (validity) memset(validity->ptr, 0xff, (size_t)((length + 7) / 8 + 1));
  am_array *array = am_array_make(device, type, length, 0, with_validity ? -1 : 0, validity,
                                  validity ? validity->ptr : NULL, data, data->ptr);
  if (!array) {
    am_buffer_release(chars);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  array->byte_width = fixed ? byte_width : 0;
  array->bytes_buf = chars;
  array->bytes = chars ? chars->ptr : NULL;
  array->bytes_size = fixed ? 0 : bytes;
  *out = array;
  return AM_OK;
}

static int pick_valid(const am_array *const *sources, am_string_pick p) {
  return p.source >= 0 && am_string_is_valid(sources[p.source], p.row);
}

/* The var-binary gather, for offsets of type OFF: the total size of the
 * picked values (and the nulls), then the copy. */
#define GATHER_VAR(NAME, OFF)                                                                  \
  static int64_t NAME##_total(const am_array *const *sources, const am_string_pick *picks,     \
                              int64_t count, int64_t *nulls) {                                 \
    int64_t total = 0, none = 0;                                                               \
    for (int64_t j = 0; j < count; j++) {                                                      \
      const am_string_pick p = picks[j];                                                       \
      if (!pick_valid(sources, p)) {                                                           \
        none++;                                                                                \
        continue;                                                                              \
      }                                                                                        \
      const OFF *o = (const OFF *)sources[p.source]->data + sources[p.source]->offset + p.row; \
      total += (int64_t)(o[1] - o[0]);                                                         \
    }                                                                                          \
    *nulls = none;                                                                             \
    return total;                                                                              \
  }                                                                                            \
  static void NAME##_copy(const am_array *const *sources, const am_string_pick *picks,         \
                          int64_t count, am_array *r) {                                        \
    uint8_t *dst = (uint8_t *)r->bytes, *validity = (uint8_t *)r->validity;                    \
    OFF *out = (OFF *)r->data;                                                                 \
    int64_t at = 0;                                                                            \
    for (int64_t j = 0; j < count; j++) {                                                      \
      const am_string_pick p = picks[j];                                                       \
      if (!pick_valid(sources, p)) {                                                           \
        validity[j >> 3] &= (uint8_t)~(1u << (j & 7));                                         \
        out[j + 1] = (OFF)at;                                                                  \
        continue;                                                                              \
      }                                                                                        \
      const am_array *s = sources[p.source];                                                   \
      const OFF *o = (const OFF *)s->data + s->offset + p.row;                                 \
      const int64_t start = (int64_t)o[0], size = (int64_t)(o[1] - o[0]);                      \
      am_string_copy_value(dst + at, s, start, size);                                          \
      at += size;                                                                              \
      out[j + 1] = (OFF)at;                                                                    \
    }                                                                                          \
  }
GATHER_VAR(gather32, int32_t)
GATHER_VAR(gather64, int64_t)

int am_string_gather(am_err *err, am_device *device, am_type type, int32_t byte_width,
                     const am_array *const *sources, const am_string_pick *picks, int64_t count,
                     am_array **out) {
  if (am_type_is_view(type)) return am_view_gather(err, device, type, sources, picks, count, out);
  int64_t total = 0, nulls = 0;
  const int fixed = type == AM_FIXED_SIZE_BINARY, large = am_type_is_large_binary(type);
  if (fixed) {
    for (int64_t j = 0; j < count; j++) nulls += !pick_valid(sources, picks[j]);
  } else {
    total = large ? gather64_total(sources, picks, count, &nulls)
                  : gather32_total(sources, picks, count, &nulls);
  }
  am_array *result = NULL;
  /* AM_STRING_COPY_ROOM bytes of room past the last value (bytes_size stays total) */
  int status = am_string_alloc(err, device, type, byte_width, count,
                               fixed ? 0 : total + AM_STRING_COPY_ROOM, nulls > 0, &result);
  if (status != AM_OK) return status;
  if (!fixed) {
    result->bytes_size = total;
    if (large)
      gather64_copy(sources, picks, count, result);
    else
      gather32_copy(sources, picks, count, result);
  } else {
    uint8_t *validity = (uint8_t *)result->validity;
    for (int64_t j = 0; j < count; j++) {
      uint8_t *slot = (uint8_t *)result->data + j * (int64_t)byte_width;
      if (pick_valid(sources, picks[j])) {
        int64_t size = 0;
        memcpy(slot, am_string_value(sources[picks[j].source], picks[j].row, &size),
               (size_t)byte_width);
      } else {
        validity[j >> 3] &= (uint8_t)~(1u << (j & 7));
        if (byte_width) memset(slot, 0, (size_t)byte_width);
      }
    }
  }
  atomic_store(&result->null_count, nulls);
  if (nulls == 0 && result->validity_buf) {
    am_buffer_release(result->validity_buf);
    result->validity_buf = NULL;
    result->validity = NULL;
  }
  *out = result;
  return AM_OK;
}
