/* Reading Arrow bitmaps 64 slots at a time, for the layers above core that
 * have no kernel library of their own (cpu/bitmap.h is the CPU backend's). */
#ifndef AM_CORE_BITS_H
#define AM_CORE_BITS_H

#include <stdint.h>
#include <string.h>

static inline int am_popcount64(uint64_t word) { return __builtin_popcountll(word); }

/* The low n bits set (n <= 64). */
static inline uint64_t am_low_bits(int64_t n) {
  return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* Bits [pos, pos + min(n, 64)) of a bitmap (n > 0), reading no byte past
 * the one that holds the last of them; all set for no bitmap. */
static inline uint64_t am_load_bits(const uint8_t *bits, int64_t pos, int64_t n) {
  if (n > 64) n = 64;
  if (!bits) return am_low_bits(n);
  const uint8_t *p = bits + (pos >> 3);
  const unsigned shift = (unsigned)(pos & 7);
  const int64_t last = (shift + n - 1) >> 3; /* p's last byte with a bit: 0 to 8 */
  uint64_t w = 0;
  if (last >= 7) {
    memcpy(&w, p, 8);
    w >>= shift;
    if (last == 8) w |= (uint64_t)p[8] << (64 - shift);
  } else {
    for (int64_t b = 0; b <= last; b++) w |= (uint64_t)p[b] << (8 * b);
    w >>= shift;
  }
  return w & am_low_bits(n);
}

#endif
