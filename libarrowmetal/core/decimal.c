#include "decimal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 am_u128;

am_i256 am_i256_load(const void *p, int bytes) {
  am_i256 v = {{0, 0, 0, 0}};
  memcpy(v.w, p, (size_t)bytes);
  return am_i256_wrap(v, bytes);
}

void am_i256_store(am_i256 v, void *p, int bytes) { memcpy(p, v.w, (size_t)bytes); }

am_i256 am_i256_wrap(am_i256 v, int bytes) {
  if (bytes == 16) v.w[2] = v.w[3] = (int64_t)v.w[1] < 0 ? ~(uint64_t)0 : 0;
  return v;
}

am_i256 am_i256_from_i64(int64_t v) {
  uint64_t fill = v < 0 ? ~(uint64_t)0 : 0;
  am_i256 r = {{(uint64_t)v, fill, fill, fill}};
  return r;
}

am_i256 am_i256_from_u64(uint64_t v) {
  am_i256 r = {{v, 0, 0, 0}};
  return r;
}

am_i256 am_i256_add(am_i256 a, am_i256 b) {
  am_i256 r;
  uint64_t carry = 0;
  for (int i = 0; i < 4; i++) {
    am_u128 s = (am_u128)a.w[i] + b.w[i] + carry;
    r.w[i] = (uint64_t)s;
    carry = (uint64_t)(s >> 64);
  }
  return r;
}

am_i256 am_i256_neg(am_i256 a) {
  for (int i = 0; i < 4; i++) a.w[i] = ~a.w[i];
  return am_i256_add(a, am_i256_from_u64(1));
}

am_i256 am_i256_sub(am_i256 a, am_i256 b) { return am_i256_add(a, am_i256_neg(b)); }

static int cmp_unsigned(am_i256 a, am_i256 b) {
  for (int i = 3; i >= 0; i--)
    if (a.w[i] != b.w[i]) return a.w[i] < b.w[i] ? -1 : 1;
  return 0;
}

int am_i256_cmp(am_i256 a, am_i256 b) {
  bool na = am_i256_negative(a), nb = am_i256_negative(b);
  if (na != nb) return na ? -1 : 1;
  return cmp_unsigned(a, b); /* same sign: two's complement orders as unsigned */
}

am_i256 am_i256_mul(am_i256 a, am_i256 b) {
  am_i256 r = {{0, 0, 0, 0}};
  for (int i = 0; i < 4; i++) {
    uint64_t carry = 0;
    for (int j = 0; i + j < 4; j++) {
      am_u128 p = (am_u128)a.w[i] * b.w[j] + r.w[i + j] + carry;
      r.w[i + j] = (uint64_t)p;
      carry = (uint64_t)(p >> 64);
    }
  }
  return r;
}

static am_i256 magnitude(am_i256 v) { return am_i256_negative(v) ? am_i256_neg(v) : v; }

/* Unsigned a / d for a one-limb divisor; *rem the remainder. */
static am_i256 div_small(am_i256 a, uint64_t d, uint64_t *rem) {
  am_i256 q;
  am_u128 r = 0;
  for (int i = 3; i >= 0; i--) {
    am_u128 cur = (r << 64) | a.w[i];
    q.w[i] = (uint64_t)(cur / d);
    r = cur % d;
  }
  *rem = (uint64_t)r;
  return q;
}

static am_i256 shl1(am_i256 v) {
  for (int i = 3; i > 0; i--) v.w[i] = v.w[i] << 1 | v.w[i - 1] >> 63;
  v.w[0] <<= 1;
  return v;
}

/* Unsigned a / b (b above one limb: the schoolbook bit by bit, rare). */
static am_i256 div_wide(am_i256 a, am_i256 b, am_i256 *rem) {
  am_i256 q = {{0, 0, 0, 0}}, r = {{0, 0, 0, 0}};
  for (int bit = 255; bit >= 0; bit--) {
    r = shl1(r);
    r.w[0] |= (a.w[bit / 64] >> (bit % 64)) & 1;
    if (cmp_unsigned(r, b) >= 0) {
      r = am_i256_sub(r, b);
      q.w[bit / 64] |= (uint64_t)1 << (bit % 64);
    }
  }
  *rem = r;
  return q;
}

am_i256 am_i256_div(am_i256 a, am_i256 b, am_i256 *remainder) {
  bool na = am_i256_negative(a), nb = am_i256_negative(b);
  am_i256 ua = magnitude(a), ub = magnitude(b), q, r;
  if (!(ub.w[1] | ub.w[2] | ub.w[3])) {
    uint64_t small;
    q = div_small(ua, ub.w[0], &small);
    r = am_i256_from_u64(small);
  } else {
    q = div_wide(ua, ub, &r);
  }
  if (remainder) *remainder = na ? am_i256_neg(r) : r;
  return na != nb ? am_i256_neg(q) : q;
}

/* The significant 32-bit digits of magnitude m, most significant first,
 * after `lead` zero digits; returns their count. */
static int digits32(am_i256 m, uint32_t *out, int lead) {
  int n = 8;
  while (n > 0 && !((m.w[(n - 1) / 2] >> (32 * ((n - 1) % 2))) & 0xffffffffu)) n--;
  for (int i = 0; i < lead; i++) out[i] = 0;
  for (int i = 0; i < n; i++)
    out[lead + i] = (uint32_t)(m.w[(n - 1 - i) / 2] >> (32 * ((n - 1 - i) % 2)));
  return n;
}

static am_i256 from_digits32(const uint32_t *d, int n) {
  am_i256 v = {{0, 0, 0, 0}};
  for (int i = 0; i < n; i++) {
    int k = n - 1 - i; /* the digit's place; a remainder's ninth is 0 */
    if (k < 8) v.w[k / 2] |= (uint64_t)d[i] << (32 * (k % 2));
  }
  return v;
}

/* d[0..n) shifted left by `bits` (< 32), the top bits dropped. */
static void shift_digits_left(uint32_t *d, int n, int bits) {
  if (!bits) return;
  for (int i = 0; i < n; i++) d[i] = d[i] << bits | (i + 1 < n ? d[i + 1] >> (32 - bits) : 0);
}

static void shift_digits_right(uint32_t *d, int n, int bits) {
  if (!bits) return;
  for (int i = n - 1; i >= 0; i--) d[i] = d[i] >> bits | (i > 0 ? d[i - 1] << (32 - bits) : 0);
}

/* Unsigned u / v, both as 32-bit digits (u with a zero digit in front);
 * q gets ulen - vlen digits, u the remainder. */
static void long_divide(uint32_t *u, int ulen, uint32_t *v, int vlen, uint32_t *q) {
  int norm = __builtin_clz(v[0]);
  shift_digits_left(v, vlen, norm);
  shift_digits_left(u, ulen, norm);
  for (int j = 0; j < ulen - vlen; j++) {
    uint64_t top = (uint64_t)u[j] << 32 | u[j + 1];
    uint32_t guess = u[j] == v[0] ? 0xffffffffu : (uint32_t)(top / v[0]);
    uint32_t rest = (uint32_t)(top - (uint64_t)guess * v[0]); /* Arrow's flaw: 32 bits */
    while ((uint64_t)v[1] * guess > ((uint64_t)rest << 32) + u[j + 2]) {
      guess--;
      rest += v[0];
      if (rest < v[0]) break; /* past 32 bits: the guess is right */
    }
    uint64_t carry = 0; /* u[j..j+vlen] -= guess * v */
    for (int i = vlen - 1; i >= 0; i--) {
      carry += (uint64_t)guess * v[i];
      uint32_t before = u[j + i + 1];
      u[j + i + 1] -= (uint32_t)carry;
      carry = (carry >> 32) + (u[j + i + 1] > before);
    }
    uint32_t before = u[j];
    u[j] -= (uint32_t)carry;
    if (u[j] > before) { /* one too many: add v back */
      guess--;
      uint64_t sum = 0;
      for (int i = vlen - 1; i >= 0; i--) {
        sum = (uint64_t)v[i] + u[j + i + 1] + (sum >> 32);
        u[j + i + 1] = (uint32_t)sum;
      }
      u[j] += (uint32_t)(sum >> 32);
    }
    q[j] = guess;
  }
  shift_digits_right(u, ulen, norm);
}

am_i256 am_i256_div_as_arrow256(am_i256 a, am_i256 b, am_i256 *remainder) {
  uint32_t u[9], v[8], q[8];
  int ulen = digits32(magnitude(a), u, 1) + 1, vlen = digits32(magnitude(b), v, 0);
  if (vlen < 2 || ulen <= vlen) return am_i256_div(a, b, remainder); /* exact, as Arrow's */
  long_divide(u, ulen, v, vlen, q);
  am_i256 quotient = from_digits32(q, ulen - vlen), rest = from_digits32(u, ulen);
  bool na = am_i256_negative(a), nb = am_i256_negative(b);
  if (remainder) *remainder = na ? am_i256_neg(rest) : rest;
  return na != nb ? am_i256_neg(quotient) : quotient;
}

am_i256 am_i256_pow10(int k) {
  am_i256 r = am_i256_from_u64(1);
  for (; k >= 19; k -= 19) r = am_i256_mul(r, am_i256_from_u64(10000000000000000000ull));
  uint64_t rest = 1;
  while (k-- > 0) rest *= 10;
  return am_i256_mul(r, am_i256_from_u64(rest));
}

bool am_i256_fits(am_i256 v, int digits) {
  if (digits > AM_DECIMAL256_DIGITS) return true; /* 10^77 > 2^255 */
  return cmp_unsigned(magnitude(v), am_i256_pow10(digits)) < 0;
}

am_i256 am_i256_scale_down(am_i256 v, int k, bool *inexact) {
  bool negative = am_i256_negative(v);
  am_i256 m = magnitude(v);
  bool dropped = false;
  while (k > 0 && !am_i256_zero(m)) { /* past 77 digits all is dropped: k may be huge */
    int step = k < 19 ? k : 19;
    uint64_t d = 1, rem;
    for (int i = 0; i < step; i++) d *= 10;
    m = div_small(m, d, &rem);
    dropped |= rem != 0;
    k -= step;
  }
  if (inexact) *inexact = dropped;
  return negative ? am_i256_neg(m) : m;
}

am_i256 am_i256_scale_down_round(am_i256 v, int k) {
  if (k <= 0) return v;
  am_i256 d = am_i256_pow10(k), rem;
  am_i256 q = am_i256_div(magnitude(v), d, &rem);
  if (cmp_unsigned(shl1(rem), d) >= 0) q = am_i256_add(q, am_i256_from_u64(1));
  return am_i256_negative(v) ? am_i256_neg(q) : q;
}

/* 10^k as doubles, k = -76 .. 76: each literal is the double nearest it. */
static const double powers_of_ten[] = {
    1e-76, 1e-75, 1e-74, 1e-73, 1e-72, 1e-71, 1e-70, 1e-69, 1e-68, 1e-67, 1e-66, 1e-65, 1e-64,
    1e-63, 1e-62, 1e-61, 1e-60, 1e-59, 1e-58, 1e-57, 1e-56, 1e-55, 1e-54, 1e-53, 1e-52, 1e-51,
    1e-50, 1e-49, 1e-48, 1e-47, 1e-46, 1e-45, 1e-44, 1e-43, 1e-42, 1e-41, 1e-40, 1e-39, 1e-38,
    1e-37, 1e-36, 1e-35, 1e-34, 1e-33, 1e-32, 1e-31, 1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25,
    1e-24, 1e-23, 1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12,
    1e-11, 1e-10, 1e-9,  1e-8,  1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,
    1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,  1e13,  1e14,
    1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22,  1e23,  1e24,  1e25,  1e26,  1e27,
    1e28,  1e29,  1e30,  1e31,  1e32,  1e33,  1e34,  1e35,  1e36,  1e37,  1e38,  1e39,  1e40,
    1e41,  1e42,  1e43,  1e44,  1e45,  1e46,  1e47,  1e48,  1e49,  1e50,  1e51,  1e52,  1e53,
    1e54,  1e55,  1e56,  1e57,  1e58,  1e59,  1e60,  1e61,  1e62,  1e63,  1e64,  1e65,  1e66,
    1e67,  1e68,  1e69,  1e70,  1e71,  1e72,  1e73,  1e74,  1e75,  1e76};

double am_decimal_power_of_ten(int k) {
  return k < -76 ? 0.0 : k > 76 ? 1e77 : powers_of_ten[k + 76];
}

void am_decimal_text(am_i256 v, int scale, char *text, size_t capacity) {
  char digits[80];
  int n = 0;
  am_i256 m = magnitude(v);
  do {
    uint64_t rem;
    m = div_small(m, 10, &rem);
    digits[n++] = (char)('0' + rem);
  } while (!am_i256_zero(m) && n < (int)sizeof digits);
  char out[240];
  size_t o = 0;
  if (am_i256_negative(v)) out[o++] = '-';
  if (scale <= 0) {
    for (int i = n - 1; i >= 0; i--) out[o++] = digits[i];
    for (int64_t i = 0; i < -(int64_t)scale && o < sizeof out - 1; i++) out[o++] = '0';
  } else {
    int whole = n - scale;
    if (whole <= 0) out[o++] = '0';
    for (int i = n - 1; i >= scale; i--) out[o++] = digits[i];
    out[o++] = '.';
    for (int i = scale - 1; i >= 0 && o < sizeof out - 1; i--) out[o++] = i < n ? digits[i] : '0';
  }
  out[o] = '\0';
  snprintf(text, capacity, "%s", out);
}
