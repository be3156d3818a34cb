/* filter of a host string or binary array by a host bool mask, without the
 * list of picks the other selections build for am_string_gather: the
 * mask is read 64 slots a word, twice (the result's size, then the copy),
 * and each kept slot's bytes are copied as gather copies them
 * (am_string_copy_value).
 * Why: the picks of 1M slots were 16 MB written and read back, most of
 * filter's time (0.59-0.71x pyarrow). Views copy the kept views the same
 * way. Fixed-size binary keeps the gather. */
#include <string.h>

#include "core/bits.h"
#include "core/string_array.h"
#include "string_calls.h"

/* Slots [i, i + n) of the mask: the kept ones (valid and true) and, with
 * emit, the null ones (an output null each). */
static inline void mask_word(const am_array *m, int64_t i, int64_t n, int emit, uint64_t *keep,
                             uint64_t *null) {
  const uint64_t valid = am_load_bits(m->validity, m->offset + i, n);
  *keep = am_load_bits(m->data, m->offset + i, n) & valid;
  *null = emit ? ~valid & am_low_bits(n) : 0;
}

#define FILTER_VAR(NAME, OFF)                                                                    \
  static int NAME(am_err *err, const am_array *v, const am_array *m, int emit, am_array **out) { \
    const int64_t n = v->length;                                                                 \
    const OFF *o = (const OFF *)v->data + v->offset;                                             \
    int64_t count = 0, total = 0, nulls = 0;                                                     \
    for (int64_t i = 0; i < n; i += 64) {                                                        \
      uint64_t keep, null;                                                                       \
      mask_word(m, i, n - i, emit, &keep, &null);                                                \
      count += __builtin_popcountll(keep) + __builtin_popcountll(null);                          \
      nulls += __builtin_popcountll(null);                                                       \
      const uint64_t valid = keep & am_load_bits(v->validity, v->offset + i, n - i);             \
      nulls += __builtin_popcountll(keep & ~valid);                                              \
      for (uint64_t w = valid; w; w &= w - 1) {                                                  \
        const int64_t r = i + __builtin_ctzll(w);                                                \
        total += (int64_t)(o[r + 1] - o[r]);                                                     \
      }                                                                                          \
    }                                                                                            \
    am_array *res = NULL;                                                                        \
    /* room past the last value for am_string_copy_value */                                      \
    int status = am_string_alloc(err, v->device, v->type, 0, count, total + AM_STRING_COPY_ROOM, \
                                 nulls > 0, &res);                                               \
    if (status != AM_OK) return status;                                                          \
    res->bytes_size = total;                                                                     \
    uint8_t *dst = (uint8_t *)res->bytes, *validity = (uint8_t *)res->validity;                  \
    OFF *out_offsets = (OFF *)res->data;                                                         \
    int64_t at = 0, j = 0;                                                                       \
    for (int64_t i = 0; i < n; i += 64) {                                                        \
      uint64_t keep, null;                                                                       \
      mask_word(m, i, n - i, emit, &keep, &null);                                                \
      const uint64_t valid = keep & am_load_bits(v->validity, v->offset + i, n - i);             \
      for (uint64_t w = keep | null; w; w &= w - 1, j++) {                                       \
        const int b = __builtin_ctzll(w);                                                        \
        if ((valid >> b) & 1) {                                                                  \
          const int64_t r = i + b, start = (int64_t)o[r], size = (int64_t)(o[r + 1] - o[r]);     \
          am_string_copy_value(dst + at, v, start, size);                                        \
          at += size;                                                                            \
        } else {                                                                                 \
          validity[j >> 3] &= (uint8_t)~(1u << (j & 7));                                         \
        }                                                                                        \
        out_offsets[j + 1] = (OFF)at;                                                            \
      }                                                                                          \
    }                                                                                            \
    atomic_store(&res->null_count, nulls);                                                       \
    if (nulls == 0 && res->validity_buf) {                                                       \
      am_buffer_release(res->validity_buf);                                                      \
      res->validity_buf = NULL;                                                                  \
      res->validity = NULL;                                                                      \
    }                                                                                            \
    *out = res;                                                                                  \
    return AM_OK;                                                                                \
  }
FILTER_VAR(filter32, int32_t)
FILTER_VAR(filter64, int64_t)

/* A view array's filter: the kept views copied 64 slots a word, the data
 * buffers shared (one source: no index changes). */
static int filter_views(am_err *err, const am_array *v, const am_array *m, int emit,
                        am_array **out) {
  const int64_t n = v->length;
  int64_t count = 0, nulls = 0;
  for (int64_t i = 0; i < n; i += 64) {
    uint64_t keep, null;
    mask_word(m, i, n - i, emit, &keep, &null);
    const uint64_t valid = keep & am_load_bits(v->validity, v->offset + i, n - i);
    count += __builtin_popcountll(keep) + __builtin_popcountll(null);
    nulls += __builtin_popcountll(null) + __builtin_popcountll(keep & ~valid);
  }
  am_array *res = NULL;
  int status = am_view_alloc(err, v->device, v->type, count, nulls > 0, &res);
  if (status != AM_OK) return status;
  res->variadic = am_variadic_retain(v->variadic);
  const uint8_t *from = (const uint8_t *)v->data + v->offset * AM_VIEW_BYTES;
  uint8_t *to = (uint8_t *)res->data, *validity = (uint8_t *)res->validity;
  int64_t j = 0;
  for (int64_t i = 0; i < n; i += 64) {
    uint64_t keep, null;
    mask_word(m, i, n - i, emit, &keep, &null);
    const uint64_t valid = keep & am_load_bits(v->validity, v->offset + i, n - i);
    for (uint64_t w = keep | null; w; w &= w - 1, j++) {
      const int b = __builtin_ctzll(w);
      if ((valid >> b) & 1) /* a null's view stays zero: the empty value */
        memcpy(to + j * AM_VIEW_BYTES, from + (i + b) * AM_VIEW_BYTES, AM_VIEW_BYTES);
      else
        validity[j >> 3] &= (uint8_t)~(1u << (j & 7));
    }
  }
  atomic_store(&res->null_count, nulls);
  if (nulls == 0 && res->validity_buf) {
    am_buffer_release(res->validity_buf);
    res->validity_buf = NULL;
    res->validity = NULL;
  }
  *out = res;
  return AM_OK;
}

int am_string_filter_mask(am_err *err, const am_array *values, const am_array *mask, int emit,
                          am_array **out) {
  if (am_type_is_view(values->type)) return filter_views(err, values, mask, emit, out);
  return am_type_is_large_binary(values->type) ? filter64(err, values, mask, emit, out)
                                               : filter32(err, values, mask, emit, out);
}
