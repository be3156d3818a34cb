/* A string or binary row's bytes as a hash key (cpu/hash_bytes.c's grouping,
 * cpu/hash_bytes_lookup.c's is_in / index_in): the 64-bit hash of a run of
 * bytes, their exact comparison, and a loop over a string array's rows in a
 * form for each layout. */
#ifndef AM_CPU_BYTES_KEY_H
#define AM_CPU_BYTES_KEY_H

#include <stdint.h>
#include <string.h>

#include "core/string_array.h"

static inline uint64_t am_load64(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

/* Bytes p[0, n) for n <= 7 as one word that tells any two such runs of one
 * length apart: two 4-byte loads that overlap (4 to 7 bytes), or the first,
 * middle and last byte (1 to 3). No byte past p + n is read. */
static inline uint64_t am_short_word(const uint8_t *p, int64_t n) {
  if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + n - 4, 4);
    return lo | (uint64_t)hi << 32;
  }
  return n ? p[0] | (uint64_t)p[n >> 1] << 8 | (uint64_t)p[n - 1] << 16 : 0;
}

/* A run's key word, which a table of runs keeps: for a run of at most 7
 * bytes the run itself, exactly (its bytes in the low 56 bits, its length in
 * the top byte: two runs have one word only if they are equal, so a table
 * compares no bytes for them); for a longer one its 8-byte words folded by
 * multiply-xorshift (the last, partial, one read as the 8 bytes that end
 * the run; the length mixed in first), the top bit set so that it never
 * equals a short run's word. */
#define AM_LONG_RUN_BIT ((uint64_t)1 << 63)

static inline uint64_t am_bytes_key(const uint8_t *p, int64_t n) {
  if (n < 8) {
    uint64_t w;
    if (n >= 4) {
      uint32_t lo, hi;
      memcpy(&lo, p, 4);
      memcpy(&hi, p + n - 4, 4);
      w = lo | (uint64_t)hi << (8 * (n - 4)); /* the overlap ORs equal bytes */
    } else {
      w = n ? p[0] | (uint64_t)p[n >> 1] << 8 | (uint64_t)p[n - 1] << 16 : 0;
    }
    return w | (uint64_t)n << 56;
  }
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    h = (h ^ am_load64(p + i)) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  if (i < n) h = (h ^ am_load64(p + n - 8)) * 0xc4ceb9fe1a85ec53ULL;
  return h | AM_LONG_RUN_BIT;
}

/* Whether key word k is the run itself (at most 7 bytes). */
static inline int am_key_is_exact(uint64_t k) { return !(k & AM_LONG_RUN_BIT); }

/* A key word's 64-bit hash: a multiply, then every bit reaches the low bits
 * (the product's high half folded down, mixed by a second multiply), which
 * index a table as they are. One multiply alone left them a function of the
 * input's low bits: "key-1" to "key-999" shared their low 11 bits, every
 * value one chain in a table of 2,048 slots. */
static inline uint64_t am_key_hash(uint64_t k) {
  uint64_t h = k * 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ULL;
  return h ^ (h >> 32);
}

/* A run's 64-bit hash. */
static inline uint64_t am_bytes_hash(const uint8_t *p, int64_t n) {
  return am_key_hash(am_bytes_key(p, n));
}

/* Whether p[0, n) and q[0, n) are the same bytes (up to 32 bytes without a
 * call: words that overlap where n is not a multiple of 8). */
static inline int am_same_run(const uint8_t *p, const uint8_t *q, int64_t n) {
  if (n < 8) return am_short_word(p, n) == am_short_word(q, n);
  uint64_t diff = (am_load64(p) ^ am_load64(q)) | (am_load64(p + n - 8) ^ am_load64(q + n - 8));
  if (n <= 16) return diff == 0;
  if (n <= 32)
    return (diff | (am_load64(p + 8) ^ am_load64(q + 8)) |
            (am_load64(p + n - 16) ^ am_load64(q + n - 16))) == 0;
  return diff == 0 && memcmp(p + 8, q + 8, (size_t)(n - 16)) == 0;
}

/* Rows [begin, end) of a string array, each as `body` sees p (its bytes) and
 * n (their count), in a loop of its own for each layout: the offsets' width
 * or the fixed width read once, not per row (16 and 32 bytes, a decimal's
 * key view, as constants: the hash and the comparison unrolled); views slot
 * by slot. The body is the variadic argument, so that its commas need no
 * parentheses. */
#define AM_FOR_EACH_VALUE(a, begin, end, i, p, n, ...)                         \
  do {                                                                         \
    if (am_type_is_view((a)->type)) {                                          \
      for (int64_t i = (begin); i < (end); i++) {                              \
        int64_t n;                                                             \
        const uint8_t *p = am_view_value((a), i, &n);                          \
        __VA_ARGS__;                                                           \
      }                                                                        \
    } else if ((a)->type == AM_FIXED_SIZE_BINARY) {                            \
      const int64_t width_ = (a)->byte_width;                                  \
      const uint8_t *base = (const uint8_t *)(a)->data + (a)->offset * width_; \
      if (width_ == 16) {                                                      \
        for (int64_t i = (begin); i < (end); i++) {                            \
          const int64_t n = 16;                                                \
          const uint8_t *p = base + i * 16;                                    \
          __VA_ARGS__;                                                         \
        }                                                                      \
      } else if (width_ == 32) {                                               \
        for (int64_t i = (begin); i < (end); i++) {                            \
          const int64_t n = 32;                                                \
          const uint8_t *p = base + i * 32;                                    \
          __VA_ARGS__;                                                         \
        }                                                                      \
      } else {                                                                 \
        for (int64_t i = (begin); i < (end); i++) {                            \
          const int64_t n = width_;                                            \
          const uint8_t *p = base + i * width_;                                \
          __VA_ARGS__;                                                         \
        }                                                                      \
      }                                                                        \
    } else if (am_type_is_large_binary((a)->type)) {                           \
      const int64_t *off = (const int64_t *)(a)->data + (a)->offset;           \
      for (int64_t i = (begin); i < (end); i++) {                              \
        const uint8_t *p = (a)->bytes + off[i];                                \
        const int64_t n = off[i + 1] - off[i];                                 \
        __VA_ARGS__;                                                           \
      }                                                                        \
    } else {                                                                   \
      const int32_t *off = (const int32_t *)(a)->data + (a)->offset;           \
      for (int64_t i = (begin); i < (end); i++) {                              \
        const uint8_t *p = (a)->bytes + off[i];                                \
        const int64_t n = (int64_t)off[i + 1] - off[i];                        \
        __VA_ARGS__;                                                           \
      }                                                                        \
    }                                                                          \
  } while (0)

#endif
