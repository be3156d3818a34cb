/* float16 <-> float32 without branches, for the CPU's cast loops
 * (cast_float16.c), so that they vectorize: core/float16.h's conversion
 * branches per value (9 ns a value on x86-64). float16_test.c checks both
 * against core/float16.h's over every input (test_float16_cast.py). */
#ifndef AM_CPU_FLOAT16_FAST_H
#define AM_CPU_FLOAT16_FAST_H

#include <stdint.h>
#include <string.h>

/* A float's bits and back, as the compiler reads a memcpy: one move. */
static inline uint32_t f32_bits(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}
static inline uint64_t f64_bits(double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}
static inline float bits_f32(uint32_t u) {
  float v;
  memcpy(&v, &u, sizeof v);
  return v;
}
static inline double bits_f64(uint64_t u) {
  double v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* am_f16_from_f32bits without branches: every case computed, one chosen. A normal result rounds by
 * adding 0xfff plus the kept mantissa's low bit before the shift (a carry into the exponent is
 * correct, up to an infinity from 65520 on); a subnormal one by the
 * float addition of 0.5 (2^-1, whose ulp is float16's smallest subnormal:
 * the hardware's round to nearest even, the default rounding mode), then
 * subtracting its bits; flush-to-zero and denormals-are-zero change nothing
 * (no operand or result of the addition is subnormal, but a float32
 * subnormal input, which rounds to zero either way). The same result as
 * core/float16.h's for all 2^32 inputs (float16_test.c). */
static inline uint32_t f16_of_f32(uint32_t f) {
  const uint32_t sign = (f >> 16) & 0x8000u, a = f & 0x7fffffffu;
  const uint32_t normal = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13; /* rebias: -112 << 23 */
  const uint32_t sub = f32_bits(bits_f32(a) + 0.5f) - 0x3f000000u;
  const uint32_t payload = (a >> 13) & 0x3ffu;
  const uint32_t nan = 0x7c00u | (payload ? payload : 1u);
  uint32_t r = a < 0x38800000u ? sub : normal;
  r = a >= 0x47800000u ? 0x7c00u : r;
  r = a > 0x7f800000u ? nan : r;
  return sign | r;
}

/* am_f16_to_f32bits without branches, likewise: the exponent rebiased by
 * 112 (by 224 for an infinity or NaN, whose payload shifts up as it is); a
 * subnormal's significand, placed as the mantissa of 2^-14 + m * 2^-24,
 * minus 2^-14 by a float subtraction (exact, of normal floats: a float16
 * subnormal is a normal float32). The same result as core/float16.h's for
 * all 2^16 inputs (float16_test.c). */
static inline uint32_t f32_of_f16(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, body = (h & 0x7fffu) << 13;
  const uint32_t exp = body & 0x0f800000u;
  const uint32_t normal = body + 0x38000000u;
  const uint32_t special = body + 0x70000000u;
  const uint32_t sub = f32_bits(bits_f32(body + 0x38800000u) - bits_f32(0x38800000u));
  uint32_t r = exp == 0x0f800000u ? special : normal;
  r = exp == 0 ? sub : r;
  return sign | r;
}

#endif
