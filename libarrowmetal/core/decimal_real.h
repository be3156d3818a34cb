/* Decimals to and from float32 / float64 the way Arrow C++ converts them
 * (pyarrow's cast), digit for digit: its results are not always the nearest
 * ones, and a drop-in must give the same. Described in decimal_real.c. */
#ifndef AM_CORE_DECIMAL_REAL_H
#define AM_CORE_DECIMAL_REAL_H

#include <stdbool.h>

#include "decimal.h"

typedef enum am_decimal_real_status {
  AM_DECIMAL_REAL_OK = 0,
  AM_DECIMAL_REAL_NOT_FINITE = 1, /* NaN or an infinity */
  AM_DECIMAL_REAL_OVERFLOW = 2    /* more digits than `precision` */
} am_decimal_real_status;

/* `real` (a float32 value when `single`, exact in a double) as the unscaled
 * value of a decimal of `bytes` (16 or 32) bytes, `precision` digits and
 * `scale`: am_decimal_real_status. */
int am_decimal_from_real(double real, bool single, int bytes, int precision, int scale,
                         am_i256 *out);

/* Decimal v of `bytes` (16 or 32) at `scale` as a float64 / float32. */
double am_decimal_to_double(am_i256 v, int bytes, int scale);
float am_decimal_to_float(am_i256 v, int bytes, int scale);

#endif
