/* What every backend's quantile shares: the order keys
 * that rank values as unsigned integers, and pyarrow's rule from a q to the
 * ranks it reads and the value it gives.
 *
 * Keys: a value's key is an unsigned integer whose order is the values'
 * order, so that one selection (the CPU's quickselect, a GPU's radix
 * histograms) serves every type. Signed integers flip their sign bit;
 * floats flip every bit when negative and the sign bit otherwise (-0.0 then
 * ranks just below 0.0, and NaN, which the kernels drop first, would rank
 * past the infinities). */
#ifndef AM_CORE_QUANTILE_H
#define AM_CORE_QUANTILE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "arrowmetal.h"

/* The key of `bits`, an element of `type` (its low bytes). */
static inline uint64_t am_quantile_key(am_type type, uint64_t bits) {
  switch (type) {
    case AM_INT8:
      return (uint64_t)(int64_t)(int8_t)bits ^ ((uint64_t)1 << 63);
    case AM_INT16:
      return (uint64_t)(int64_t)(int16_t)bits ^ ((uint64_t)1 << 63);
    case AM_INT32:
      return (uint64_t)(int64_t)(int32_t)bits ^ ((uint64_t)1 << 63);
    case AM_INT64:
      return bits ^ ((uint64_t)1 << 63);
    case AM_FLOAT32: {
      uint32_t u = (uint32_t)bits;
      return (u >> 31) ? (uint32_t)~u : (u | 0x80000000u);
    }
    case AM_FLOAT64:
      return (bits >> 63) ? ~bits : (bits | ((uint64_t)1 << 63));
    default:
      return bits; /* unsigned integers */
  }
}

/* The element bits (zero-extended) whose key is `key`. */
static inline uint64_t am_quantile_unkey(am_type type, uint64_t key) {
  switch (type) {
    case AM_INT8:
      return (uint8_t)(key ^ ((uint64_t)1 << 63));
    case AM_INT16:
      return (uint16_t)(key ^ ((uint64_t)1 << 63));
    case AM_INT32:
      return (uint32_t)(key ^ ((uint64_t)1 << 63));
    case AM_INT64:
      return key ^ ((uint64_t)1 << 63);
    case AM_FLOAT32: {
      uint32_t u = (uint32_t)key;
      return (u >> 31) ? (u & 0x7fffffffu) : (uint32_t)~u;
    }
    case AM_FLOAT64:
      return (key >> 63) ? (key & ~((uint64_t)1 << 63)) : ~key;
    default:
      return key;
  }
}

/* An element (bits of `type`) as a double, as pyarrow converts it. */
static inline double am_quantile_as_double(am_type type, uint64_t bits) {
  switch (type) {
    case AM_INT8:
      return (double)(int8_t)bits;
    case AM_INT16:
      return (double)(int16_t)bits;
    case AM_INT32:
      return (double)(int32_t)bits;
    case AM_INT64:
      return (double)(int64_t)bits;
    case AM_FLOAT32: {
      float f;
      uint32_t u = (uint32_t)bits;
      memcpy(&f, &u, sizeof f);
      return (double)f;
    }
    case AM_FLOAT64: {
      double d;
      memcpy(&d, &bits, sizeof d);
      return d;
    }
    default:
      return (double)bits;
  }
}

/* The result type of quantile with `interpolation` over `type`. */
static inline am_type am_quantile_out_type(am_type type, am_quantile_interpolation interpolation) {
  return interpolation == AM_QUANTILE_LINEAR || interpolation == AM_QUANTILE_MIDPOINT ? AM_FLOAT64
                                                                                      : type;
}

/* The ranks (0-based, over m >= 1 ranked values) that quantile q reads, as
 * pyarrow finds them: index (m - 1) q, its floor `lo` and the fraction
 * past it; `hi` is lo + 1 where the fraction is not 0 (linear, midpoint) or
 * the data point (lower, higher, nearest: lo == hi, nearest rounding a
 * fraction of exactly 0.5 to the even rank). q is in [0, 1], not NaN. */
static inline void am_quantile_ranks(int64_t m, double q, am_quantile_interpolation interpolation,
                                     int64_t *lo, int64_t *hi, double *fraction) {
  const double index = (double)(m - 1) * q;
  uint64_t floor_index = (uint64_t)index;
  const double f = index - (double)floor_index;
  *fraction = f;
  if (interpolation == AM_QUANTILE_LINEAR || interpolation == AM_QUANTILE_MIDPOINT) {
    *lo = (int64_t)floor_index;
    *hi = f == 0 ? *lo : *lo + 1;
    return;
  }
  int up = interpolation == AM_QUANTILE_HIGHER;
  if (interpolation == AM_QUANTILE_NEAREST) up = f > 0.5 || (f == 0.5 && (floor_index & 1));
  if (up && f != 0) floor_index++;
  *lo = *hi = (int64_t)floor_index;
}

/* The result slot (bits of the result type) from the values at the ranks
 * am_quantile_ranks gave (`lo_bits`, `hi_bits`: elements of `type`). */
static inline uint64_t am_quantile_value(am_type type, am_quantile_interpolation interpolation,
                                         double fraction, uint64_t lo_bits, uint64_t hi_bits) {
  if (interpolation != AM_QUANTILE_LINEAR && interpolation != AM_QUANTILE_MIDPOINT) return lo_bits;
  const double lo = am_quantile_as_double(type, lo_bits);
  double r = lo;
  if (fraction != 0) {
    const double hi = am_quantile_as_double(type, hi_bits);
    /* pyarrow's forms: a weighted sum (exact at the ends), halves added */
    r = interpolation == AM_QUANTILE_LINEAR ? fraction * hi + (1 - fraction) * lo : lo / 2 + hi / 2;
  }
  uint64_t out;
  memcpy(&out, &r, sizeof out);
  return out;
}

/* The bits of a float64 NaN (quantile of a NaN q with linear interpolation). */
static inline uint64_t am_quantile_nan_bits(void) {
  double nan = NAN;
  uint64_t out;
  memcpy(&out, &nan, sizeof out);
  return out;
}

#endif
