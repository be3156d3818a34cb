/* Bitmaps (Arrow's LSB-first validity and boolean buffers), 64 bits at a time.
 *
 * Input bitmaps may be foreign memory that ends with the last byte holding a
 * needed bit, so loads never touch a byte outside the requested bits. Output
 * bitmaps are our own offset-0 buffers, written as whole 64-bit words (host
 * buffers have slack past the end) with the bits past the length zeroed. */
#ifndef AM_CPU_BITMAP_H
#define AM_CPU_BITMAP_H

#include <stdint.h>
#include <string.h>

#include "core/bits.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "bitmap words assume a little-endian host"
#endif

static inline int am_bit_get(const uint8_t *bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}

/* The low n bits set (n <= 64). */
static inline uint64_t am_bits_mask(int64_t n) {
  return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* Bits [pos, pos + 64). */
static inline uint64_t am_bits_word(const uint8_t *bits, int64_t pos) {
  const uint8_t *p = bits + (pos >> 3);
  unsigned shift = pos & 7;
  uint64_t word;
  memcpy(&word, p, 8);
  /* The ninth byte holds needed bits only when the start is not on a byte. */
  if (shift) word = (word >> shift) | ((uint64_t)p[8] << (64 - shift));
  return word;
}

/* Bits [pos, pos + n) for 0 < n < 64, zero above. */
static inline uint64_t am_bits_tail(const uint8_t *bits, int64_t pos, int64_t n) {
  const uint8_t *p = bits + (pos >> 3);
  unsigned shift = pos & 7;
  int64_t last = ((pos + n - 1) >> 3) - (pos >> 3);
  uint64_t word = 0;
  for (int64_t b = 0; b <= last && b < 8; b++) word |= (uint64_t)p[b] << (8 * b);
  word >>= shift;
  if (last == 8) word |= (uint64_t)p[8] << (64 - shift);
  return word & am_bits_mask(n);
}

/* Bits [pos, pos + min(n, 64)), for n > 0. */
static inline uint64_t am_bits_load(const uint8_t *bits, int64_t pos, int64_t n) {
  return n >= 64 ? am_bits_word(bits, pos) : am_bits_tail(bits, pos, n);
}

/* Sets bits [0, n) of an offset-0 output bitmap to `value`. */
static inline void am_bits_fill(uint64_t *dst, int64_t n, int value) {
  int64_t words = (n + 63) / 64;
  memset(dst, value ? 0xff : 0, (size_t)words * 8);
  if (n % 64) dst[words - 1] &= am_bits_mask(n % 64);
}

/* Validity of slots [pos, pos + min(n, 64)): all valid without a bitmap. */
static inline uint64_t am_bits_valid(const uint8_t *bits, int64_t pos, int64_t n) {
  return bits ? am_bits_load(bits, pos, n) : am_bits_mask(n);
}

/* Packs 64 bytes of 0 or 1 into a word, byte j to bit j. The multiply moves
 * the low bit of each of 8 bytes into the top byte; a compare loop that
 * writes bytes vectorizes, one that shifts bits into a word does not. */
static inline uint64_t am_pack64(const uint8_t bytes[64]) {
  uint64_t word = 0;
  for (int k = 0; k < 8; k++) {
    uint64_t eight;
    memcpy(&eight, bytes + 8 * k, 8);
    word |= ((eight * 0x0102040810204080ULL) >> 56) << (8 * k);
  }
  return word;
}

/* Writing to an offset-0 bitmap whose end is not yet known, bit by bit or
 * word by word (filter's compaction). The word at `pos` is always zero above
 * `pos`, so appends OR into it. */
typedef struct am_bit_writer {
  uint64_t *words;
  int64_t pos;
} am_bit_writer;

/* Appends the low n bits of `bits` (n <= 64, the bits above n zero). */
static inline void am_bits_append(am_bit_writer *writer, uint64_t bits, int n) {
  uint64_t *word = writer->words + (writer->pos >> 6);
  unsigned shift = writer->pos & 63;
  if (shift == 0) {
    word[0] = bits;
  } else {
    word[0] |= bits << shift;
    if (shift + n > 64) word[1] = bits >> (64 - shift);
  }
  writer->pos += n;
}

/* The range operations behind the kernels (bitmap.c). `a` and `b` are foreign
 * bitmaps read from bit positions `apos` / `bpos`; `dst` is an offset-0
 * output. Each returns the number of set bits it produced or counted. */
typedef enum am_bits_op {
  AM_BITS_COPY,   /* a */
  AM_BITS_NOT,    /* ~a */
  AM_BITS_AND,    /* a & b */
  AM_BITS_OR,     /* a | b */
  AM_BITS_XOR,    /* a ^ b */
  AM_BITS_XNOR,   /* ~(a ^ b) */
  AM_BITS_ANDNOT, /* a & ~b */
  AM_BITS_ORNOT   /* a | ~b */
} am_bits_op;

int64_t am_bits_count(const uint8_t *a, int64_t apos, int64_t n);
int64_t am_bits_count_and(const uint8_t *a, int64_t apos, const uint8_t *b, int64_t bpos,
                          int64_t n);
/* dst[0, n) = op(a[apos...], b[bpos...]) as an offset-0 bitmap; returns the
 * set bits of the result. `b` is only read by the binary ops (it may be NULL
 * for COPY and NOT); dst may be a when apos is 0. */
int64_t am_bits_combine(am_bits_op op, uint64_t *dst, const uint8_t *a, int64_t apos,
                        const uint8_t *b, int64_t bpos, int64_t n);
/* The same without the count, which makes it several times faster. */
void am_bits_apply(am_bits_op op, uint64_t *dst, const uint8_t *a, int64_t apos, const uint8_t *b,
                   int64_t bpos, int64_t n);

#endif
