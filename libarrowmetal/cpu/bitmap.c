#include "bitmap.h"

#include "cpu.h"

AM_CPU_CLONES int64_t am_bits_count(const uint8_t *a, int64_t apos, int64_t n) {
  int64_t count = 0, i = 0;
  for (; i + 64 <= n; i += 64) count += am_popcount64(am_bits_word(a, apos + i));
  if (i < n) count += am_popcount64(am_bits_tail(a, apos + i, n - i));
  return count;
}

AM_CPU_CLONES int64_t am_bits_count_and(const uint8_t *a, int64_t apos, const uint8_t *b,
                                        int64_t bpos, int64_t n) {
  int64_t count = 0, i = 0;
  for (; i + 64 <= n; i += 64)
    count += am_popcount64(am_bits_word(a, apos + i) & am_bits_word(b, bpos + i));
  if (i < n)
    count += am_popcount64(am_bits_tail(a, apos + i, n - i) & am_bits_tail(b, bpos + i, n - i));
  return count;
}

/* Operand words for COMBINE_LOOP; `full` is a constant in each of its two
 * bodies, so the choice folds away. */
#define A (full ? am_bits_word(a, apos + i) : am_bits_tail(a, apos + i, n - i))
#define B (full ? am_bits_word(b, bpos + i) : am_bits_tail(b, bpos + i, n - i))

/* One loop per op so that the op is not decided per word. The tail word is
 * masked: bits past n stay zero whatever the op. */
#define COMBINE_LOOP(EXPR)                       \
  do {                                           \
    for (; i + 64 <= n; i += 64) {               \
      const int full = 1;                        \
      uint64_t r = (EXPR);                       \
      dst[i >> 6] = r;                           \
      count += am_popcount64(r);                 \
    }                                            \
    if (i < n) {                                 \
      const int full = 0;                        \
      uint64_t r = (EXPR) & am_bits_mask(n - i); \
      dst[i >> 6] = r;                           \
      count += am_popcount64(r);                 \
    }                                            \
  } while (0)

AM_CPU_CLONES int64_t am_bits_combine(am_bits_op op, uint64_t *dst, const uint8_t *a, int64_t apos,
                                      const uint8_t *b, int64_t bpos, int64_t n) {
  int64_t count = 0, i = 0;
  switch (op) {
    case AM_BITS_COPY:
      COMBINE_LOOP(A);
      break;
    case AM_BITS_NOT:
      COMBINE_LOOP(~A);
      break;
    case AM_BITS_AND:
      COMBINE_LOOP(A & B);
      break;
    case AM_BITS_OR:
      COMBINE_LOOP(A | B);
      break;
    case AM_BITS_XOR:
      COMBINE_LOOP(A ^ B);
      break;
    case AM_BITS_XNOR:
      COMBINE_LOOP(~(A ^ B));
      break;
    case AM_BITS_ANDNOT:
      COMBINE_LOOP(A & ~B);
      break;
    case AM_BITS_ORNOT:
      COMBINE_LOOP(A | ~B);
      break;
  }
  return count;
}
