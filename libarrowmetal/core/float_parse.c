/* Reading floats as Arrow C++ does (fast_float's grammar; float_text.h).
 *
 * The text is checked here, character by character; its value is then
 * exact by one of three roads: a mantissa and power of ten both exactly
 * representable make one correctly rounded multiply or divide (Clinger's
 * fast path: short texts); up to 19 digits, Eisel and Lemire's 128-bit
 * product (the texts of shortest formatting); and the rest (more digits,
 * subnormals, a rounding the product leaves unsure) go to the C library's
 * strtod / strtof (correctly rounded in glibc and Apple's libc) as digits
 * and an exponent only -- no decimal point, so the locale's does not
 * matter. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "float_text.h"

static int lower_is(const uint8_t *s, const char *word, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if ((s[i] | 0x20) != (uint8_t)word[i]) return 0;
  return 1;
}

static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

/* The texts of infinities and NaNs after the sign: 1 when s[0, n) is one,
 * *nan telling which. */
static int special(const uint8_t *s, int64_t n, int *nan) {
  if (n >= 3 && lower_is(s, "nan", 3)) {
    *nan = 1;
    if (n == 3) return 1;
    if (s[3] != '(' || s[n - 1] != ')') return 0;
    for (int64_t i = 4; i < n - 1; i++) {
      const uint8_t c = s[i];
      if (!(is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return 0;
    }
    return 1;
  }
  *nan = 0;
  return (n == 3 && lower_is(s, "inf", 3)) || (n == 8 && lower_is(s, "infinity", 8));
}

/* A number's text split into what its value needs: the value is the
 * integer of its significant digits times 10^exponent. */
typedef struct {
  const uint8_t *digits; /* the first significant digit; '.' may follow */
  int64_t count;         /* significant digits (the leading zeros dropped) */
  uint64_t mantissa;     /* their integer when count <= 19 */
  int64_t exponent;      /* within +-2^40: far past every float's range */
} number_text;

static int64_t clamp(int64_t x) {
  const int64_t limit = (int64_t)1 << 40;
  return x > limit ? limit : x < -limit ? -limit : x;
}

/* Eight ASCII digits at p as their value, and whether eight bytes are all
 * digits, a word at a time (little-endian, as every target of the library). */
static int eight_digits_at(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return !(((v + 0x4646464646464646u) | (v - 0x3030303030303030u)) & 0x8080808080808080u);
}

static uint64_t eight_digits(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  v -= 0x3030303030303030u;
  v = v * 10 + (v >> 8);
  return ((v & 0x000000FF000000FFu) * 0x000F424000000064u +
          ((v >> 16) & 0x000000FF000000FFu) * 0x0000271000000001u) >>
         32;
}

/* m followed by the digits p[0, n) */
static uint64_t append_digits(uint64_t m, const uint8_t *p, int64_t n) {
  for (; n >= 8; p += 8, n -= 8) m = m * 100000000 + eight_digits(p);
  for (; n > 0; p++, n--) m = m * 10 + (uint64_t)(*p - '0');
  return m;
}

/* the end of the run of digits from i */
static int64_t digits_end(const uint8_t *s, int64_t n, int64_t i) {
  while (i + 8 <= n && eight_digits_at(s + i)) i += 8;
  while (i < n && is_digit(s[i])) i++;
  return i;
}

/* s[0, n) as digits, '.', digits, exponent; 0 when it is not that. */
static int scan_number(const uint8_t *s, int64_t n, number_text *t) {
  const int64_t int_end = digits_end(s, n, 0);
  int64_t i = int_end, frac_start = int_end, frac_end = int_end;
  if (i < n && s[i] == '.') {
    frac_start = i + 1;
    i = frac_end = digits_end(s, n, frac_start);
  }
  if (int_end == 0 && frac_end == frac_start) return 0; /* no digit */
  int64_t e = 0;
  if (i < n && (s[i] | 0x20) == 'e') {
    int64_t j = i + 1;
    const int negative = j < n && s[j] == '-';
    if (j < n && (s[j] == '-' || s[j] == '+')) j++;
    if (j == n || !is_digit(s[j])) return 0; /* an 'e' must have digits */
    for (; j < n && is_digit(s[j]); j++) e = clamp(e * 10 + (s[j] - '0'));
    if (negative) e = -e;
    i = j;
  }
  if (i != n) return 0;
  t->exponent = clamp(e - (frac_end - frac_start));
  /* the significant digits: leading zeros dropped, across the point when
   * the integer part is all zeros */
  int64_t first = 0;
  while (first < int_end && s[first] == '0') first++;
  int64_t int_digits = int_end - first;
  if (int_digits == 0) {
    first = frac_start;
    while (first < frac_end && s[first] == '0') first++;
  }
  t->digits = s + first;
  t->count = int_digits + frac_end - (int_digits ? frac_start : first);
  t->mantissa = 0;
  if (t->count <= 19)
    t->mantissa = append_digits(append_digits(0, s + first, int_digits),
                                s + (int_digits ? frac_start : first),
                                frac_end - (int_digits ? frac_start : first));
  return 1;
}

/* Digits kept for strtod / strtof: a double's rounding is decided against
 * a midpoint of at most 767 significant digits, so digits past the first
 * KEEP matter only by being zero or not (one sticky digit stands for them). */
#define KEEP 780

/* The significant digits and exponent as "DDDDe-X" for strtod / strtof
 * (text: KEEP + 32 bytes). */
static void plain_text(const number_text *t, char *text) {
  char *p = text;
  const uint8_t *d = t->digits;
  const int64_t kept = t->count <= KEEP + 1 ? t->count : KEEP;
  int64_t taken = 0;
  for (; taken < kept; d++)
    if (*d != '.') *p++ = (char)*d, taken++;
  int64_t e = t->exponent;
  if (kept < t->count) {
    char sticky = '0';
    for (; taken < t->count; d++)
      if (*d != '.') sticky = *d != '0' ? '1' : sticky, taken++;
    *p++ = sticky;
    e = clamp(e + (t->count - kept - 1));
  }
  *p++ = 'e';
  if (e < 0) *p++ = '-', e = -e;
  char r[24];
  int k = 0;
  do r[k++] = (char)('0' + e % 10);
  while ((e /= 10) != 0);
  while (k) *p++ = r[--k];
  *p = '\0';
}

static const double exact10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const float exact10f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                   1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

/* Eisel and Lemire's conversion ("Number parsing at a gigabyte per second",
 * 2021, with its fallbacks): w * 10^q (w != 0, exact, q within the table)
 * as the bits of a float of `fraction_bits` stored fraction bits and
 * exponent bias `bias`, from w times the power's 128-bit truncation (the
 * table's g(q) - 1). 0 where the truncation leaves the rounding unsure, or
 * the result is subnormal or infinite: strtod / strtof decide those. */
static int eisel_lemire(uint64_t w, int64_t q, int fraction_bits, int bias, uint64_t *bits) {
  const uint64_t *g = am_float_pow10[q - AM_FLOAT_POW10_LOW];
  const uint64_t t_high = g[1] ? g[0] : g[0] - 1, t_low = g[1] - 1;
  const int lz = __builtin_clzll(w);
  w <<= lz;
  const uint64_t mask = UINT64_MAX >> (fraction_bits + 3); /* the bits below the result's */
  unsigned __int128 p = (unsigned __int128)w * t_high;
  uint64_t upper = (uint64_t)(p >> 64), lower = (uint64_t)p;
  if ((upper & mask) == mask && lower + w < lower) { /* the low half may carry in */
    const unsigned __int128 p2 = (unsigned __int128)w * t_low;
    const uint64_t low = (uint64_t)p2, middle = lower + (uint64_t)(p2 >> 64);
    if (middle < lower) upper++;
    if (middle + 1 == 0 && (upper & mask) == mask && low + w < low) return 0;
    lower = middle;
  }
  const int upper_bit = (int)(upper >> 63);
  uint64_t m = upper >> (upper_bit + 64 - fraction_bits - 3);
  int shift = lz + (1 ^ upper_bit);
  if (lower == 0 && (upper & mask) == 0 && (m & 3) == 1) return 0; /* maybe a tie */
  m += m & 1;
  m >>= 1;
  if (m >= (uint64_t)2 << fraction_bits) {
    m = (uint64_t)1 << fraction_bits;
    shift--;
  }
  m &= ~((uint64_t)1 << fraction_bits);
  /* floor(q * log2(10)) + 63, then the bias */
  const int64_t exponent = ((217706 * q) >> 16) + bias + 1 + 63 - shift;
  if (exponent < 1 || exponent > 2 * bias) return 0;
  *bits = m | (uint64_t)exponent << fraction_bits;
  return 1;
}

/* Reads a double (single 0) or a float (single 1). */
static int parse(const uint8_t *s, int64_t n, int single, double *d, float *f) {
  int negative = 0, nan = 0;
  if (n > 0 && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s++, n--;
  }
  if (n > 0 && (s[0] | 0x20) != 'n' && (s[0] | 0x20) != 'i') {
    number_text t;
    if (!scan_number(s, n, &t)) return 0;
    if (t.count == 0) { /* a zero, its sign kept */
      *d = negative ? -0.0 : 0.0;
      *f = negative ? -0.0f : 0.0f;
      return 1;
    }
    if (!single && t.count <= 15 && t.exponent >= -22 && t.exponent <= 22) {
      const double m = (double)t.mantissa; /* exact: below 10^15 < 2^53 */
      const double v = t.exponent < 0 ? m / exact10[-t.exponent] : m * exact10[t.exponent];
      *d = negative ? -v : v;
      return 1;
    }
    if (single && t.count <= 7 && t.exponent >= -10 && t.exponent <= 10) {
      const float m = (float)t.mantissa; /* exact: below 10^7 < 2^24 */
      const float v = t.exponent < 0 ? m / exact10f[-t.exponent] : m * exact10f[t.exponent];
      *f = negative ? -v : v;
      return 1;
    }
    uint64_t bits;
    if (t.count <= 19 && t.exponent >= AM_FLOAT_POW10_LOW && t.exponent <= 308 &&
        eisel_lemire(t.mantissa, t.exponent, single ? 23 : 52, single ? 127 : 1023, &bits)) {
      if (single) {
        const uint32_t b = (uint32_t)bits | (uint32_t)negative << 31;
        memcpy(f, &b, 4);
      } else {
        bits |= (uint64_t)negative << 63;
        memcpy(d, &bits, 8);
      }
      return 1;
    }
    char text[KEEP + 32];
    plain_text(&t, text);
    if (single) {
      const float v = strtof(text, NULL);
      *f = negative ? -v : v;
    } else {
      const double v = strtod(text, NULL);
      *d = negative ? -v : v;
    }
    return 1;
  }
  if (!special(s, n, &nan)) return 0;
  const double v = nan ? (double)NAN : (double)INFINITY;
  *d = negative ? -v : v;
  *f = (float)*d;
  return 1;
}

int am_parse_double(const uint8_t *s, int64_t n, double *out) {
  float unused;
  return parse(s, n, 0, out, &unused);
}

int am_parse_float(const uint8_t *s, int64_t n, float *out) {
  double unused;
  return parse(s, n, 1, &unused, out);
}
