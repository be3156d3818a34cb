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

/* Operand words for COMBINE_LOOP; `full` is a constant in each of its
 * bodies, so the choice folds away. */
#define A (full ? am_bits_word(a, apos + i) : am_bits_tail(a, apos + i, n - i))
#define B (full ? am_bits_word(b, bpos + i) : am_bits_tail(b, bpos + i, n - i))
/* Operand bytes for the byte loop: both operands start on a byte. */
#define A8 a8[k]
#define B8 b8[k]

/* One loop per op so that the op is not decided per word; OP(x, y) is the
 * op on words or on bytes. Without a count, operands that start on a byte
 * (offset 0, the common case) go through a byte loop, which vectorizes (the
 * word loop's shift by a run-time amount and its popcount do not: there is
 * no vector popcount below AVX-512 VPOPCNTDQ). The tail word is masked: bits
 * past n stay zero whatever the op. */
#define COMBINE_LOOP(OP)                                                     \
  do {                                                                       \
    int64_t i = 0;                                                           \
    if (!counting && ((apos | (b ? bpos : 0)) & 7) == 0) {                   \
      const uint8_t *a8 = a + (apos >> 3), *b8 = b ? b + (bpos >> 3) : NULL; \
      uint8_t *d8 = (uint8_t *)dst;                                          \
      (void)b8;                                                              \
      for (int64_t k = 0; k < n / 64 * 8; k++) d8[k] = (uint8_t)OP(A8, B8);  \
      i = n / 64 * 64;                                                       \
    }                                                                        \
    for (; i + 64 <= n; i += 64) {                                           \
      const int full = 1;                                                    \
      uint64_t r = OP(A, B);                                                 \
      dst[i >> 6] = r;                                                       \
      if (counting) count += am_popcount64(r);                               \
    }                                                                        \
    if (i < n) {                                                             \
      const int full = 0;                                                    \
      uint64_t r = OP(A, B) & am_bits_mask(n - i);                           \
      dst[i >> 6] = r;                                                       \
      if (counting) count += am_popcount64(r);                               \
    }                                                                        \
  } while (0)

#define OP_COPY(x, y) (x)
#define OP_NOT(x, y) (~(x))
#define OP_AND(x, y) ((x) & (y))
#define OP_OR(x, y) ((x) | (y))
#define OP_XOR(x, y) ((x) ^ (y))
#define OP_XNOR(x, y) (~((x) ^ (y)))
#define OP_ANDNOT(x, y) ((x) & ~(y))
#define OP_ORNOT(x, y) ((x) | ~(y))

/* `counting` is a constant in each caller. */
static inline __attribute__((always_inline)) int64_t combine(am_bits_op op, uint64_t *dst,
                                                             const uint8_t *a, int64_t apos,
                                                             const uint8_t *b, int64_t bpos,
                                                             int64_t n, const int counting) {
  int64_t count = 0;
  switch (op) {
    case AM_BITS_COPY:
      COMBINE_LOOP(OP_COPY);
      break;
    case AM_BITS_NOT:
      COMBINE_LOOP(OP_NOT);
      break;
    case AM_BITS_AND:
      COMBINE_LOOP(OP_AND);
      break;
    case AM_BITS_OR:
      COMBINE_LOOP(OP_OR);
      break;
    case AM_BITS_XOR:
      COMBINE_LOOP(OP_XOR);
      break;
    case AM_BITS_XNOR:
      COMBINE_LOOP(OP_XNOR);
      break;
    case AM_BITS_ANDNOT:
      COMBINE_LOOP(OP_ANDNOT);
      break;
    case AM_BITS_ORNOT:
      COMBINE_LOOP(OP_ORNOT);
      break;
  }
  return count;
}

AM_CPU_CLONES int64_t am_bits_combine(am_bits_op op, uint64_t *dst, const uint8_t *a, int64_t apos,
                                      const uint8_t *b, int64_t bpos, int64_t n) {
  return combine(op, dst, a, apos, b, bpos, n, 1);
}

AM_CPU_CLONES void am_bits_apply(am_bits_op op, uint64_t *dst, const uint8_t *a, int64_t apos,
                                 const uint8_t *b, int64_t bpos, int64_t n) {
  combine(op, dst, a, apos, b, bpos, n, 0);
}
