/* Decimals to and from binary floating point, the way Arrow C++ does it, so
 * that a cast gives pyarrow's digits (not always the nearest ones).
 *
 * Real -> decimal, for a positive finite value r and scale s >= 0:
 *  - r above 10^(precision - s) (that power as the real type holds it) is
 *    an overflow, before any arithmetic;
 *  - r is exactly mant * 2^k, mant an integer of the type's mantissa bits
 *    (53 or 24). For k >= 0 the result is mant * 10^s * 2^k. For k < 0 it
 *    is mant * 10^s / 2^-k with the division rounded half to even; when
 *    10^s would overflow the width beside mant (s beyond the width's digits
 *    less the type's: 38 or 76 less 16 or 8), mant is multiplied by that
 *    many tens first, then by steps of max(1, width digits - precision)
 *    tens, each step preceded by a rounded right shift just big enough to
 *    make room. Those intermediate roundings are why pyarrow's last digit
 *    can differ from the correctly rounded one: 1/3 to decimal128(38, 37)
 *    ends ...9930, where the nearest value ends ...9929;
 *  - a result beyond the precision (rounding can push it there) is an
 *    overflow.
 * A negative scale goes through a double instead: nearbyint(r * 10^s), an
 * overflow at or beyond 10^precision.
 *
 * Decimal -> real: the magnitude as a sum of its 64-bit limbs, each
 * converted and scaled by 2^(64 i), then multiplied by 10^-scale (powers of
 * ten from a table of the real type; float32's is 0 below 1e-45 and
 * infinite above 1e38); with a fraction and a magnitude beyond the type's
 * exact integers, the whole part and the fraction are converted apart and
 * added. float32 is computed in float32 throughout. */
#include "decimal_real.h"

#include <math.h>

/* 10^k for k = -45 .. 38, each literal the float nearest it. */
static const float float_powers_of_ten[] = {
    1e-45f, 1e-44f, 1e-43f, 1e-42f, 1e-41f, 1e-40f, 1e-39f, 1e-38f, 1e-37f, 1e-36f, 1e-35f, 1e-34f,
    1e-33f, 1e-32f, 1e-31f, 1e-30f, 1e-29f, 1e-28f, 1e-27f, 1e-26f, 1e-25f, 1e-24f, 1e-23f, 1e-22f,
    1e-21f, 1e-20f, 1e-19f, 1e-18f, 1e-17f, 1e-16f, 1e-15f, 1e-14f, 1e-13f, 1e-12f, 1e-11f, 1e-10f,
    1e-9f,  1e-8f,  1e-7f,  1e-6f,  1e-5f,  1e-4f,  1e-3f,  1e-2f,  1e-1f,  1e0f,   1e1f,   1e2f,
    1e3f,   1e4f,   1e5f,   1e6f,   1e7f,   1e8f,   1e9f,   1e10f,  1e11f,  1e12f,  1e13f,  1e14f,
    1e15f,  1e16f,  1e17f,  1e18f,  1e19f,  1e20f,  1e21f,  1e22f,  1e23f,  1e24f,  1e25f,  1e26f,
    1e27f,  1e28f,  1e29f,  1e30f,  1e31f,  1e32f,  1e33f,  1e34f,  1e35f,  1e36f,  1e37f,  1e38f};

/* Arrow's table covers -76 .. 76 and computes the rest with pow(). */
/* k in 64 bits: callers negate scales, which may be INT32_MIN. */
static float float_power_of_ten(int64_t k) {
  if (k < -76 || k > 76) return powf(10.0f, (float)k);
  if (k < -45) return 0.0f;
  if (k > 38) return INFINITY;
  return float_powers_of_ten[k + 45];
}

static double double_power_of_ten(int64_t k) {
  if (k < -76 || k > 76) return pow(10.0, (double)k);
  return am_decimal_power_of_ten((int)k);
}

static int bit_length(am_i256 v) {
  for (int i = 3; i >= 0; i--)
    if (v.w[i]) return 64 * i + 64 - __builtin_clzll(v.w[i]);
  return 0;
}

/* ceil(log2(10^k)): 10^k (k >= 1) is no power of two, so its bit length. */
static int ceil_log2_pow10(int k) { return k ? bit_length(am_i256_pow10(k)) : 0; }

static am_i256 shift_left(am_i256 v, int bits) {
  for (; bits >= 64; bits -= 64) v = (am_i256){{0, v.w[0], v.w[1], v.w[2]}};
  if (!bits) return v;
  for (int i = 3; i > 0; i--) v.w[i] = v.w[i] << bits | v.w[i - 1] >> (64 - bits);
  v.w[0] <<= bits;
  return v;
}

/* Non-negative v / 2^bits rounded half to even. */
static am_i256 rounded_shift_right(am_i256 v, int bits) {
  if (bits <= 0) return v;
  if (bits >= 256) return am_i256_from_u64(0);
  am_i256 q = v;
  int limbs = bits / 64, rest = bits % 64;
  for (int i = 0; i < 4; i++) q.w[i] = i + limbs < 4 ? v.w[i + limbs] : 0;
  if (rest)
    for (int i = 0; i < 4; i++) q.w[i] = q.w[i] >> rest | (i < 3 ? q.w[i + 1] << (64 - rest) : 0);
  /* the bits shifted out against half of 2^bits */
  am_i256 dropped = am_i256_sub(v, shift_left(q, bits));
  am_i256 half = shift_left(am_i256_from_u64(1), bits - 1);
  int c = am_i256_cmp(dropped, half);
  if (c > 0 || (c == 0 && (q.w[0] & 1))) q = am_i256_add(q, am_i256_from_u64(1));
  return q;
}

static am_i256 times_pow10(am_i256 v, int k, int bytes) {
  return am_i256_wrap(am_i256_mul(v, am_i256_pow10(k)), bytes);
}

/* An integer-valued double in [0, 2^255) as an integer, exactly. */
static am_i256 integral_double(double x) {
  if (x < 1.0) return am_i256_from_u64(0);
  int e;
  uint64_t mant = (uint64_t)ldexp(frexp(x, &e), 53);
  am_i256 m = am_i256_from_u64(mant);
  return e >= 53 ? shift_left(m, e - 53) : am_i256_from_u64(mant >> (53 - e));
}

static int from_negative_scale(double real, int bytes, int precision, int scale, am_i256 *out) {
  double x = nearbyint(real * double_power_of_ten(scale));
  if (x >= double_power_of_ten(precision)) return AM_DECIMAL_REAL_OVERFLOW;
  *out = am_i256_wrap(integral_double(x), bytes);
  return AM_DECIMAL_REAL_OK;
}

static int from_positive(double real, bool single, int bytes, int precision, int scale,
                         am_i256 *out) {
  if (scale < 0) return from_negative_scale(real, bytes, precision, scale, out);
  double limit = single ? (double)float_power_of_ten((int64_t)precision - scale)
                        : double_power_of_ten((int64_t)precision - scale);
  if (real > limit) return AM_DECIMAL_REAL_OVERFLOW;
  const int mantissa_bits = single ? 24 : 53, mantissa_digits = single ? 8 : 16;
  const int width_digits = am_decimal_max_digits(bytes == 16 ? AM_DECIMAL128 : AM_DECIMAL256);
  int e;
  /* a float32's mantissa is the same whether frexp sees it as a double */
  am_i256 x = am_i256_from_u64((uint64_t)ldexp(frexp(real, &e), mantissa_bits));
  int k = e - mantissa_bits;
  if (k >= 0) {
    x = am_i256_wrap(shift_left(times_pow10(x, scale, bytes), k), bytes);
  } else {
    int shift = -k, tens = scale, room = width_digits - mantissa_digits;
    if (tens <= room) {
      x = rounded_shift_right(times_pow10(x, tens, bytes), shift);
    } else {
      x = times_pow10(x, room, bytes);
      tens -= room;
      int step = width_digits - precision > 1 ? width_digits - precision : 1;
      int total_tens = 0, total_shift = 0;
      while (tens > 0 && shift > 0) {
        int t = tens < step ? tens : step;
        total_tens += t;
        int bits = ceil_log2_pow10(total_tens) - total_shift;
        if (bits > shift) bits = shift;
        total_shift += bits;
        x = times_pow10(rounded_shift_right(x, bits), t, bytes);
        shift -= bits;
        tens -= t;
      }
      if (tens > 0) x = times_pow10(x, tens, bytes);
      x = rounded_shift_right(x, shift);
    }
  }
  if (!am_i256_fits(x, precision)) return AM_DECIMAL_REAL_OVERFLOW;
  *out = x;
  return AM_DECIMAL_REAL_OK;
}

int am_decimal_from_real(double real, bool single, int bytes, int precision, int scale,
                         am_i256 *out) {
  if (!isfinite(real)) return AM_DECIMAL_REAL_NOT_FINITE;
  *out = am_i256_from_u64(0);
  if (real == 0.0) return AM_DECIMAL_REAL_OK;
  int status = from_positive(fabs(real), single, bytes, precision, scale, out);
  if (status == AM_DECIMAL_REAL_OK && real < 0) *out = am_i256_neg(*out);
  return status;
}

/* The magnitude m's limbs summed from the top, times 10^-scale. */
static double limbs_double(am_i256 m, int scale) {
  double x = (double)m.w[3] * 0x1p192 + (double)m.w[2] * 0x1p128;
  x += (double)m.w[1] * 0x1p64;
  x += (double)m.w[0];
  /* zero at any scale: 0 * inf (a scale near INT32_MIN) would be NaN */
  return x == 0 ? 0 : x * double_power_of_ten(-(int64_t)scale);
}

/* The same in float32, whose 2^128 and 2^192 are infinite. */
static float limbs_float(am_i256 m, int scale) {
  float x = (m.w[3] | m.w[2]) ? INFINITY : 0.0f;
  x += (float)m.w[1] * 0x1p64f;
  x += (float)m.w[0];
  return x == 0 ? 0 : x * float_power_of_ten(-(int64_t)scale);
}

/* Whether |v| is converted whole: no fraction, or few enough bits that the
 * real type holds it exactly (Arrow's test: below 2^M for decimal256, at
 * most 2^M - 1 for decimal128). */
static bool converted_whole(am_i256 m, int bytes, int scale, int mantissa_bits) {
  uint64_t exact = ((uint64_t)1 << mantissa_bits) - 1;
  bool small = !(m.w[1] | m.w[2] | m.w[3]) && (bytes == 16 ? m.w[0] <= exact : m.w[0] < exact);
  return scale <= 0 || small;
}

static void split(am_i256 m, int bytes, int scale, am_i256 *whole, am_i256 *fraction) {
  am_i256 ten = am_i256_pow10(scale);
  *whole = bytes == 32 ? am_i256_div_as_arrow256(m, ten, fraction) : am_i256_div(m, ten, fraction);
}

double am_decimal_to_double(am_i256 v, int bytes, int scale) {
  am_i256 m = am_i256_negative(v) ? am_i256_neg(v) : v, whole, fraction;
  double x;
  if (converted_whole(m, bytes, scale, 53)) {
    x = limbs_double(m, scale);
  } else {
    split(m, bytes, scale, &whole, &fraction);
    x = limbs_double(whole, 0) + limbs_double(fraction, scale);
  }
  return am_i256_negative(v) ? -x : x;
}

float am_decimal_to_float(am_i256 v, int bytes, int scale) {
  am_i256 m = am_i256_negative(v) ? am_i256_neg(v) : v, whole, fraction;
  float x;
  if (converted_whole(m, bytes, scale, 24)) {
    x = limbs_float(m, scale);
  } else {
    split(m, bytes, scale, &whole, &fraction);
    x = limbs_float(whole, 0) + limbs_float(fraction, scale);
  }
  return am_i256_negative(v) ? -x : x;
}
