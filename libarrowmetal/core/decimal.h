/* Decimal values (decimal128, decimal256): a signed integer of 16 or 32
 * bytes, little-endian two's complement, scaled by 10^-scale, with at most
 * `precision` decimal digits. The arithmetic here is on 256-bit integers of
 * four 64-bit limbs (a decimal128 sign-extended), so one set of routines
 * serves both widths; the hot loops of decimal128 use __int128 instead. */
#ifndef AM_CORE_DECIMAL_H
#define AM_CORE_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrowmetal.h"
#include "types.h"

/* A signed 256-bit integer, limb 0 the least significant. */
typedef struct am_i256 {
  uint64_t w[4];
} am_i256;

/* The value of `bytes` (16 or 32) little-endian two's complement bytes. */
am_i256 am_i256_load(const void *p, int bytes);
/* The low `bytes` (16 or 32) bytes of v. */
void am_i256_store(am_i256 v, void *p, int bytes);
/* v modulo 2^(8 bytes), sign-extended: what a decimal of `bytes` (16 or
 * 32) keeps of it. */
am_i256 am_i256_wrap(am_i256 v, int bytes);
am_i256 am_i256_from_i64(int64_t v);
am_i256 am_i256_from_u64(uint64_t v);

static inline bool am_i256_negative(am_i256 v) { return (int64_t)v.w[3] < 0; }
static inline bool am_i256_zero(am_i256 v) { return !(v.w[0] | v.w[1] | v.w[2] | v.w[3]); }
am_i256 am_i256_add(am_i256 a, am_i256 b);
am_i256 am_i256_sub(am_i256 a, am_i256 b);
am_i256 am_i256_neg(am_i256 a);
/* -1, 0, 1 as a is below, equal to or above b (signed). */
int am_i256_cmp(am_i256 a, am_i256 b);
/* a * b, modulo 2^256. */
am_i256 am_i256_mul(am_i256 a, am_i256 b);
/* a / b truncated toward zero and its remainder (the sign of a); b != 0. */
am_i256 am_i256_div(am_i256 a, am_i256 b, am_i256 *remainder);

/* a / b as Arrow C++ divides decimal256 values (pyarrow's rescales and
 * conversions of them): Knuth's long division on 32-bit digits, with its
 * flaw kept -- when the running remainder's top digit equals the divisor's,
 * the trial digit's remainder is kept in 32 bits and the correction can take
 * the digit one too low, so the quotient may be one unit short of the
 * truncated one and the remainder one divisor too big ((10^60 - 1) / 10^14
 * is one of them). b != 0; signs as am_i256_div. */
am_i256 am_i256_div_as_arrow256(am_i256 a, am_i256 b, am_i256 *remainder);

/* 10^k for 0 <= k <= 76. */
am_i256 am_i256_pow10(int k);
/* Whether |v| < 10^digits (digits >= 0). */
bool am_i256_fits(am_i256 v, int digits);
/* v / 10^k truncated toward zero (k >= 0); *inexact set when digits were
 * dropped. */
am_i256 am_i256_scale_down(am_i256 v, int k, bool *inexact);
/* v / 10^k rounded half away from zero (pyarrow's mean). */
am_i256 am_i256_scale_down_round(am_i256 v, int k);

/* 10^k as the double nearest it (k = -76 .. 76). */
double am_decimal_power_of_ten(int k);

/* v * 10^-scale as text ("-12.340", "1.2E+3" never: always positional,
 * "0.05"; a negative scale appends zeros), NUL-terminated; at most 80 + |scale|
 * bytes are needed, capacity is honoured. */
void am_decimal_text(am_i256 v, int scale, char *text, size_t capacity);

/* A decimal scalar's parameters travel in its i64 (arrowmetal.h): the
 * precision in the low 32 bits, the scale (signed) in the high 32. */
static inline int64_t am_decimal_pack(int32_t precision, int32_t scale) {
  return (int64_t)(((uint64_t)(uint32_t)scale << 32) | (uint32_t)precision);
}
static inline int32_t am_decimal_unpack_precision(int64_t packed) {
  return (int32_t)(uint32_t)((uint64_t)packed & 0xffffffffu);
}
static inline int32_t am_decimal_unpack_scale(int64_t packed) {
  return (int32_t)(uint32_t)((uint64_t)packed >> 32);
}

#endif
