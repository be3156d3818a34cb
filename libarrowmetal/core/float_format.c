/* Shortest round-trip text of floats, as Arrow C++ writes them
 * (float_text.h).
 *
 * The digits are Schubfach's (R. Giulietti, "The Schubfach way to render
 * doubles", 2020; the layout of A. Bolz's C++ rendering): a value c * 2^q
 * has a rounding interval, the reals that read back as it (its ends
 * included when c is even, as round-half-even reads); the shortest decimal
 * in it, the nearest to the value when several are as short, ties to even,
 * is what double-conversion's ToShortest writes too. With k chosen so the
 * interval spans one to ten units of 10^k, 4 * c * 2^q / 10^k and the ends'
 * values are computed to 64 bits, rounded to odd, from a 128-bit power of
 * ten (float_pow10.c): exact enough to compare against the candidates
 * (multiples of 10^(k+1), then the two multiples of 10^k around the value).
 * A float32 runs through the same steps with its own c, q and interval. */
#include <stdint.h>
#include <string.h>

#include "float_text.h"

/* floor(x / 2^n), whatever x's sign (>> of a negative is the compiler's) */
static inline int32_t floor_shift(int32_t x, int n) { return x >= 0 ? x >> n : ~(~x >> n); }

/* floor(log2(10^e)), floor(log10(2^e)) and floor(log10(3/4 * 2^e)) over the
 * exponents of doubles, by Bolz's fixed-point constants */
static inline int32_t floor_log2_pow10(int32_t e) { return floor_shift(e * 1741647, 19); }
static inline int32_t floor_log10_pow2(int32_t e) { return floor_shift(e * 1262611, 22); }
static inline int32_t floor_log10_three_quarters_pow2(int32_t e) {
  return floor_shift(e * 1262611 - 524031, 22);
}

/* floor(g * cp / 2^128), its lowest bit set when the dropped part is not
 * (all but) zero: rounding to odd keeps the comparisons below exact. */
static inline uint64_t round_to_odd(const uint64_t g[2], uint64_t cp) {
  const unsigned __int128 x = (unsigned __int128)cp * g[1];
  const unsigned __int128 y = (unsigned __int128)cp * g[0] + (uint64_t)(x >> 64);
  const uint64_t y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
  return y1 | (y0 > 1);
}

/* The shortest decimal digits * 10^exponent in the rounding interval of
 * c * 2^q (c > 0); `lower_closer` when the value's lower neighbour is half
 * as far as its upper one (c a power of two above the smallest normal). */
static void shortest(uint64_t c, int32_t q, int lower_closer, uint64_t *digits, int *exponent) {
  const int even = (c & 1) == 0;
  const uint64_t cbl = 4 * c - 2 + (uint64_t)lower_closer, cb = 4 * c, cbr = 4 * c + 2;
  const int32_t k = lower_closer ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
  const int32_t h = q + floor_log2_pow10(-k) + 1;
  const uint64_t *g = am_float_pow10[-k - AM_FLOAT_POW10_LOW];
  const uint64_t vbl = round_to_odd(g, cbl << h), vb = round_to_odd(g, cb << h),
                 vbr = round_to_odd(g, cbr << h);
  const uint64_t lower = vbl + !even, upper = vbr - !even;
  const uint64_t s = vb / 4;
  if (s >= 10) { /* one digit fewer: at most one multiple of 10^(k+1) fits */
    const uint64_t sp = s / 10;
    const int up_inside = lower <= 40 * sp, wp_inside = 40 * sp + 40 <= upper;
    if (up_inside != wp_inside) {
      *digits = sp + (uint64_t)wp_inside;
      *exponent = k + 1;
      return;
    }
  }
  const int u_inside = lower <= 4 * s, w_inside = 4 * s + 4 <= upper;
  if (u_inside != w_inside) {
    *digits = s + (uint64_t)w_inside;
    *exponent = k;
    return;
  }
  const uint64_t mid = 4 * s + 2; /* both fit: the nearer, ties to even */
  *digits = s + (uint64_t)(vb > mid || (vb == mid && (s & 1) != 0));
  *exponent = k;
}

/* digits * 10^exponent (digits > 0) laid out as double-conversion's
 * ToShortest with Arrow's settings: decimal for exponents -6 to 9 of the
 * leading digit, else exponential with a signed exponent. */
static int layout(uint64_t digits, int exponent, int negative, char *text) {
  while (digits % 10 == 0) {
    digits /= 10;
    exponent++;
  }
  static const uint64_t powers[20] = {1u,
                                      10u,
                                      100u,
                                      1000u,
                                      10000u,
                                      100000u,
                                      1000000u,
                                      10000000u,
                                      100000000u,
                                      1000000000u,
                                      10000000000u,
                                      100000000000u,
                                      1000000000000u,
                                      10000000000000u,
                                      100000000000000u,
                                      1000000000000000u,
                                      10000000000000000u,
                                      100000000000000000u,
                                      1000000000000000000u,
                                      10000000000000000000u};
  static const char pairs[201] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  int n = 1;
  while (n < 20 && digits >= powers[n]) n++;
  char d[20];
  int i = n;
  uint64_t x = digits;
  for (; x >= 100; x /= 100, i -= 2) memcpy(d + i - 2, pairs + 2 * (x % 100), 2);
  if (x >= 10)
    memcpy(d + i - 2, pairs + 2 * x, 2);
  else
    d[i - 1] = (char)('0' + x);
  char *p = text;
  if (negative) *p++ = '-';
  const int point = n + exponent; /* digits before the decimal point */
  if (point - 1 >= -6 && point - 1 < 10) {
    if (point <= 0) {
      *p++ = '0';
      *p++ = '.';
      for (int i = 0; i < -point; i++) *p++ = '0';
      memcpy(p, d, (size_t)n);
      p += n;
    } else if (point >= n) {
      memcpy(p, d, (size_t)n);
      p += n;
      for (int i = n; i < point; i++) *p++ = '0';
    } else {
      memcpy(p, d, (size_t)point);
      p += point;
      *p++ = '.';
      memcpy(p, d + point, (size_t)(n - point));
      p += n - point;
    }
    return (int)(p - text);
  }
  *p++ = d[0];
  if (n > 1) {
    *p++ = '.';
    memcpy(p, d + 1, (size_t)(n - 1));
    p += n - 1;
  }
  *p++ = 'e';
  int e = point - 1;
  *p++ = e < 0 ? '-' : '+';
  if (e < 0) e = -e;
  char ed[4];
  int en = 0;
  do ed[en++] = (char)('0' + e % 10);
  while ((e /= 10) != 0);
  while (en) *p++ = ed[--en];
  return (int)(p - text);
}

/* nan, inf, -inf, 0 and -0 (c: the stored exponent and fraction, 0 for a
 * zero) */
static int special(int negative, int is_nan, uint64_t c, char *text) {
  const char *word = is_nan ? "nan" : c == 0 ? (negative ? "-0" : "0") : negative ? "-inf" : "inf";
  const size_t n = strlen(word);
  memcpy(text, word, n);
  return (int)n;
}

/* A float of `fraction_bits` stored fraction bits and exponent bias `bias`
 * from its fields. */
static int format_fields(int negative, uint64_t fraction, int32_t biased, int fraction_bits,
                         int32_t bias, char *text) {
  uint64_t c;
  int32_t q;
  if (biased != 0) {
    c = fraction | (uint64_t)1 << fraction_bits;
    q = biased - bias - fraction_bits;
    /* an integer below 2^(fraction_bits + 1): its own digits are shortest */
    if (q <= 0 && -q <= fraction_bits && (c & (((uint64_t)1 << -q) - 1)) == 0)
      return layout(c >> -q, 0, negative, text);
  } else {
    c = fraction;
    q = 1 - bias - fraction_bits;
  }
  uint64_t digits;
  int exponent;
  shortest(c, q, fraction == 0 && biased > 1, &digits, &exponent);
  return layout(digits, exponent, negative, text);
}

int am_format_double(double v, char *text) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  const int negative = (int)(bits >> 63);
  const int32_t biased = (int32_t)(bits >> 52 & 0x7ff);
  const uint64_t fraction = bits & (((uint64_t)1 << 52) - 1);
  if (biased == 0x7ff || (biased == 0 && fraction == 0))
    return special(negative, biased == 0x7ff && fraction != 0, fraction | (uint64_t)biased, text);
  return format_fields(negative, fraction, biased, 52, 1023, text);
}

int am_format_float(float v, char *text) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  const int negative = (int)(bits >> 31);
  const int32_t biased = (int32_t)(bits >> 23 & 0xff);
  const uint64_t fraction = bits & ((1u << 23) - 1);
  if (biased == 0xff || (biased == 0 && fraction == 0))
    return special(negative, biased == 0xff && fraction != 0, fraction | (uint64_t)biased, text);
  return format_fields(negative, fraction, biased, 23, 127, text);
}
