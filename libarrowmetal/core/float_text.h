/* Floats as text, as Arrow C++ writes and reads them in casts between
 * strings and float32/float64.
 *
 * Writing (float_format.c): the shortest decimal that reads back as the
 * same value (of the value's own width: a float32 gets float32's shortest),
 * the nearest of those, ties to an even last digit -- double-conversion's
 * ToShortest / ToShortestSingle, computed here by Schubfach. Laid out as
 * Arrow's formatter asks: plain decimal for decimal exponents -6 to 9
 * ("0.000001", "123456789", "1.5"), otherwise one digit, '.', the others
 * and an exponent with its sign and no padding ("1e-7", "1e+10",
 * "1.2345678901234568e+17"); "-0", "inf", "-inf", and "nan" whatever the
 * NaN's sign.
 *
 * Reading (float_parse.c): fast_float's grammar as Arrow calls it: an
 * optional '+' or '-', then digits with at most one '.' (at least one
 * digit: "1.", ".5") and an optional exponent ('e' or 'E', a sign, digits),
 * or "inf" / "infinity" / "nan" / "nan(chars)" in any case; nothing else,
 * no spaces. Correctly rounded to the target width (a float32 directly, not
 * through a double); overflow gives an infinity, underflow a zero. */
#ifndef AM_CORE_FLOAT_TEXT_H
#define AM_CORE_FLOAT_TEXT_H

#include <stdint.h>

/* The longest text am_format_double / am_format_float write
 * ("-0.0000012345678901234567"), with room to spare. */
#define AM_FLOAT_TEXT_MAX 32

/* v as Arrow writes it into text (AM_FLOAT_TEXT_MAX bytes, not
 * terminated); returns the length. */
int am_format_double(double v, char *text);
int am_format_float(float v, char *text);

/* s[0, n) read as Arrow reads a double / float; 0 when it is not one. */
int am_parse_double(const uint8_t *s, int64_t n, double *out);
int am_parse_float(const uint8_t *s, int64_t n, float *out);

/* float_pow10.c: the powers of ten g(j) = floor(10^j * 2^(127 - e)) + 1
 * (e = floor(log2(10^j))), j from LOW to HIGH, as {high, low} 64-bit halves
 * (gen_float_pow10.py): Schubfach's (writing) and, less one, the truncated
 * powers of Eisel-Lemire's reading. */
#define AM_FLOAT_POW10_LOW (-342)
#define AM_FLOAT_POW10_HIGH 324
extern const uint64_t am_float_pow10[AM_FLOAT_POW10_HIGH - AM_FLOAT_POW10_LOW + 1][2];

#endif
