/* filter and take.
 *
 * Moving values does not depend on their type, only on their width, so the
 * kernels exist per width (and, for take, per index type); booleans and
 * validity bitmaps move bit by bit. */
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"

#define WIDTHS(X) X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t)

/* ---- filter */

/* Where a filter keeps slots: mask bit set and (with `valid`) mask valid. */
typedef struct keep_mask {
  const uint8_t *bits, *valid;
  int64_t pos;
} keep_mask;

/* Kept slots among [i, i + 64) of n. */
static inline uint64_t keep_word(const keep_mask *mask, int64_t i, int64_t n) {
  uint64_t keep = am_bits_load(mask->bits, mask->pos + i, n - i);
  return mask->valid ? keep & am_bits_load(mask->valid, mask->pos + i, n - i) : keep;
}

/* Below this many kept slots in a word, visiting the set bits beats the
 * branch-free pass over all 64. */
#define SPARSE 16

/* The dense pass stores every slot and advances only past kept ones, so it
 * may store one slot past the result's end: host buffers have slack there. */
#define DEFINE_FILTER(W, TW)                                                              \
  AM_CPU_CLONES static void filter_##W(const void *src, const keep_mask *mask, int64_t n, \
                                       void *dst) {                                       \
    const TW *x = src;                                                                    \
    TW *o = dst;                                                                          \
    int64_t pos = 0;                                                                      \
    for (int64_t i = 0; i < n; i += 64) {                                                 \
      uint64_t keep = keep_word(mask, i, n);                                              \
      if (keep == ~(uint64_t)0) {                                                         \
        memcpy(o + pos, x + i, 64 * W);                                                   \
        pos += 64;                                                                        \
      } else if (am_popcount64(keep) < SPARSE) {                                          \
        for (; keep; keep &= keep - 1) o[pos++] = x[i + __builtin_ctzll(keep)];           \
      } else {                                                                            \
        int64_t m = n - i < 64 ? n - i : 64;                                              \
        for (int64_t j = 0; j < m; j++) {                                                 \
          o[pos] = x[i + j];                                                              \
          pos += (keep >> j) & 1;                                                         \
        }                                                                                 \
      }                                                                                   \
    }                                                                                     \
  }
WIDTHS(DEFINE_FILTER)

/* Compacts bits [spos, spos + n) of `src` to the kept slots into `dst` (from
 * bit 0); returns the number of set bits written. */
AM_CPU_CLONES static int64_t filter_bits(const uint8_t *src, int64_t spos, const keep_mask *mask,
                                         int64_t n, uint64_t *dst) {
  am_bit_writer writer = {dst, 0};
  int64_t ones = 0;
  for (int64_t i = 0; i < n; i += 64) {
    uint64_t keep = keep_word(mask, i, n);
    if (!keep) continue;
    uint64_t bits = am_bits_load(src, spos + i, n - i), packed = bits;
    int count = 64;
    if (keep != ~(uint64_t)0) {
      packed = 0;
      count = 0;
      for (; keep; keep &= keep - 1) packed |= ((bits >> __builtin_ctzll(keep)) & 1) << count++;
    }
    ones += am_popcount64(packed);
    am_bits_append(&writer, packed, count);
  }
  return ones;
}

int am_cpu_filter(const am_array *array, const am_array *mask, am_array **out) {
  int64_t n = array->length;
  keep_mask keep = {mask->data, am_cpu_has_nulls(mask) ? mask->validity : NULL, mask->offset};
  int64_t kept = keep.valid ? am_bits_count_and(keep.bits, keep.pos, keep.valid, keep.pos, n)
                            : am_bits_count(keep.bits, keep.pos, n);
  am_array *result = NULL;
  int status = am_array_alloc_host(am_cpu_device(), array->type, kept, 0, &result);
  if (status != AM_OK) return status;
  if (am_cpu_has_nulls(array)) {
    am_buffer *validity = am_buffer_alloc_host((kept + 7) / 8);
    if (!validity) {
      am_array_free(result);
      return am_error(AM_ENOMEM, "out of memory allocating a bitmap of %lld slots",
                      (long long)kept);
    }
    int64_t valid = filter_bits(array->validity, array->offset, &keep, n, validity->ptr);
    am_cpu_set_validity(result, validity, valid);
  }
  void *o = result->data_buf->ptr;
  int width = am_type_bits(array->type);
  if (width == 1) {
    filter_bits(array->data, array->offset, &keep, n, o);
  } else {
    const void *x = (const char *)array->data + array->offset * (width / 8);
    switch (width / 8) {
#define CASE(W, TW)             \
  case W:                       \
    filter_##W(x, &keep, n, o); \
    break;
      WIDTHS(CASE)
#undef CASE
    }
  }
  *out = result;
  return AM_OK;
}

/* ---- take */

/* Indices are checked as unsigned, which turns negative ones into huge ones.
 * Every slot gathers, an out-of-bounds (so null, or failing) one from 0, and
 * the kernel says whether any index was out of bounds at all. Random gathers
 * wait on memory: prefetching the slot PREFETCH indices ahead keeps several
 * misses in flight. */
#define PREFETCH 32
#define DEFINE_TAKE(W, TW, I, NI)                                                             \
  AM_CPU_CLONES static int take_##W##_##NI(const void *src, uint64_t length, const void *idx, \
                                           int64_t n, void *dst) {                            \
    const TW *x = src;                                                                        \
    const I *index = idx;                                                                     \
    TW *o = dst;                                                                              \
    int bad = 0;                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                         \
      if (i + PREFETCH < n) {                                                                 \
        uint64_t ahead = (uint64_t)(int64_t)index[i + PREFETCH];                              \
        __builtin_prefetch(x + (ahead < length ? ahead : 0));                                 \
      }                                                                                       \
      uint64_t k = (uint64_t)(int64_t)index[i];                                               \
      bad |= k >= length;                                                                     \
      o[i] = x[k < length ? k : 0];                                                           \
    }                                                                                         \
    return bad;                                                                               \
  }
#define DEFINE_TAKES(W, TW) DEFINE_TAKE(W, TW, int32_t, i32) DEFINE_TAKE(W, TW, int64_t, i64)
WIDTHS(DEFINE_TAKES)

/* Gathers bits of `src` (from bit spos) at the indices into `dst` like
 * take_W_NI; returns the number of set bits and sets *bad as take_W_NI does. */
#define DEFINE_TAKE_BITS(I, NI)                                                                  \
  AM_CPU_CLONES static int64_t take_bits_##NI(const uint8_t *src, int64_t spos, uint64_t length, \
                                              const void *idx, int64_t n, uint64_t *dst,         \
                                              int *bad) {                                        \
    const I *index = idx;                                                                        \
    int64_t ones = 0;                                                                            \
    int outside = 0;                                                                             \
    for (int64_t i = 0; i < n; i += 64) {                                                        \
      int64_t m = n - i < 64 ? n - i : 64;                                                       \
      uint64_t word = 0;                                                                         \
      for (int64_t j = 0; j < m; j++) {                                                          \
        uint64_t k = (uint64_t)(int64_t)index[i + j];                                            \
        outside |= k >= length;                                                                  \
        word |= (uint64_t)am_bit_get(src, spos + (int64_t)(k < length ? k : 0)) << j;            \
      }                                                                                          \
      dst[i >> 6] = word;                                                                        \
      ones += am_popcount64(word);                                                               \
    }                                                                                            \
    *bad = outside;                                                                              \
    return ones;                                                                                 \
  }
DEFINE_TAKE_BITS(int32_t, i32)
DEFINE_TAKE_BITS(int64_t, i64)

static int64_t index_at(const am_array *indices, int64_t i) {
  int64_t slot = indices->offset + i;
  return indices->type == AM_INT32 ? ((const int32_t *)indices->data)[slot]
                                   : ((const int64_t *)indices->data)[slot];
}

/* Fails with the first valid index out of [0, length), if there is one. */
static int check_bounds(const am_array *indices, uint64_t length) {
  const uint8_t *valid = am_cpu_has_nulls(indices) ? indices->validity : NULL;
  for (int64_t i = 0; i < indices->length; i++) {
    int64_t k = index_at(indices, i);
    if ((uint64_t)k >= length && (!valid || am_bit_get(valid, indices->offset + i)))
      return am_error(AM_EINDEX, "index %lld out of bounds for length %lld", (long long)k,
                      (long long)length);
  }
  return AM_OK;
}

int am_cpu_take(const am_array *array, const am_array *indices, am_array **out) {
  if (indices->type != AM_INT32 && indices->type != AM_INT64)
    return am_error(AM_ETYPE, "indices must be int32 or int64, not %s",
                    am_type_name(indices->type));
  int64_t n = indices->length;
  uint64_t length = (uint64_t)array->length;
  int wide = indices->type == AM_INT64;
  const void *idx = (const char *)indices->data + indices->offset * (wide ? 8 : 4);
  int status;
  /* Nothing to gather from: every index must be null. */
  if (length == 0) {
    if ((status = check_bounds(indices, length)) != AM_OK) return status;
    return am_cpu_null_result(am_cpu_device(), array->type, n, out);
  }
  am_array *result = NULL;
  if ((status = am_cpu_result(array->type, n, indices, NULL, &result)) != AM_OK) return status;
  void *o = result->data_buf->ptr;
  int width = am_type_bits(array->type), bad = 0;
  if (width == 1) {
    (wide ? take_bits_i64 : take_bits_i32)(array->data, array->offset, length, idx, n, o, &bad);
  } else {
    const void *x = (const char *)array->data + array->offset * (width / 8);
    switch (width / 8) {
#define CASE(W, TW)                                                       \
  case W:                                                                 \
    bad = (wide ? take_##W##_i64 : take_##W##_i32)(x, length, idx, n, o); \
    break;
      WIDTHS(CASE)
#undef CASE
    }
  }
  /* An out-of-bounds index under a null slot is no error. */
  if (bad && (status = check_bounds(indices, length)) != AM_OK) {
    am_array_free(result);
    return status;
  }
  if (am_cpu_has_nulls(array)) {
    am_buffer *validity = am_buffer_alloc_host((n + 7) / 8);
    if (!validity) {
      am_array_free(result);
      return am_error(AM_ENOMEM, "out of memory allocating a bitmap of %lld slots", (long long)n);
    }
    int64_t valid = (wide ? take_bits_i64 : take_bits_i32)(array->validity, array->offset, length,
                                                           idx, n, validity->ptr, &bad);
    /* Null indices: AND with the index validity the result started with. */
    if (result->validity)
      valid = am_bits_combine(AM_BITS_AND, validity->ptr, validity->ptr, 0, result->validity, 0, n);
    am_buffer_release(result->validity_buf);
    am_cpu_set_validity(result, validity, valid);
  }
  *out = result;
  return AM_OK;
}
