/* round and round_to_multiple: what every backend's rounding shares on the
 * host: pyarrow's powers of ten, the integer multiple and its range check,
 * the specs a backend rounds by, and the failure messages. */
#include "round.h"

#include <math.h>
#include <string.h>

#include "types.h"

double am_round_pow10(int64_t k) {
  /* pyarrow keeps its table as float literals even for double, so 1e11 ..
   * 1e15 are the floats nearest them: its float64 results depend on that. */
  static const float table[] = {1e0F, 1e1F, 1e2F,  1e3F,  1e4F,  1e5F,  1e6F,  1e7F,
                                1e8F, 1e9F, 1e10F, 1e11F, 1e12F, 1e13F, 1e14F, 1e15F};
  const uint64_t size = sizeof table / sizeof table[0];
  /* |k| in unsigned arithmetic: -INT64_MIN does not fit an int64_t. */
  uint64_t magnitude = k < 0 ? 0 - (uint64_t)k : (uint64_t)k;
  double p = table[magnitude < size ? magnitude : size - 1];
  for (uint64_t extra = magnitude < size ? 0 : magnitude - (size - 1); extra > 0 && !isinf(p);
       extra--)
    p *= 10.0;
  return p;
}

/* std::numeric_limits<T>::digits10 of the integer types, which pyarrow
 * checks -ndigits against; but 18 for uint64, whose 19 (10^19) pyarrow 26
 * accepts and then dies on (SIGFPE, a division by a multiple of 0): the
 * library refuses it as out of range instead. */
static int digits10(am_type t) {
  int bits = am_type_bits(t);
  switch (bits) {
    case 8:
      return 2;
    case 16:
      return 4;
    case 32:
      return 9;
    default:
      return 18;
  }
}

int am_round_multiple(am_err *err, am_type t, int64_t ndigits, uint64_t *multiple) {
  int digits = digits10(t);
  if (ndigits >= 0 || ndigits < -(int64_t)digits)
    return am_fail(err, AM_EINVAL, "Rounding to %lld digits is out of range for type %s",
                   (long long)ndigits, am_type_name(t));
  uint64_t m = 1;
  for (int64_t i = 0; i < -ndigits; i++) m *= 10u;
  *multiple = m;
  return AM_OK;
}

int am_round_spec_digits(am_err *err, am_type t, int64_t ndigits, am_round_mode mode,
                         am_round_spec *out) {
  memset(out, 0, sizeof *out);
  out->mode = mode;
  out->scale = ndigits > 0 ? 1 : ndigits < 0 ? -1 : 0;
  if (am_type_is_float(t)) {
    out->p = am_round_pow10(ndigits);
    return AM_OK;
  }
  return am_round_multiple(err, t, ndigits, &out->m);
}

void am_round_spec_multiple(am_type t, const am_scalar *multiple, am_round_mode mode,
                            am_round_spec *out) {
  memset(out, 0, sizeof *out);
  out->mode = mode;
  if (am_type_is_float(t)) {
    out->p = multiple->f64;
    /* x / 1 and r * 1 are x * 1 and r * 1: a multiple of 1 (pyarrow's
     * default) takes round's path to whole numbers, whose loops are faster. */
    out->scale = out->p == 1.0 ? 0 : -1;
    return;
  }
  out->scale = -1;
  out->m = am_type_is_signed(t) ? (uint64_t)multiple->i64 : multiple->u64;
}

int am_round_fail(am_err *err, int code, const char *value, const char *multiple) {
  if (code == 1 || code == 3)
    return am_fail(err, AM_EINVAL, "Rounding %s up to multiple%s of %s would overflow", value,
                   code == 3 ? "s" : "", multiple);
  if (code == 2 || code == 4)
    return am_fail(err, AM_EINVAL, "Rounding %s down to multiple%s of %s would overflow", value,
                   code == 4 ? "s" : "", multiple);
  return am_fail(err, AM_EINVAL, "overflow occurred during rounding");
}

const char *am_round_mode_name(int mode) {
  static const char *const names[] = {
      "down",         "up",         "towards_zero",      "towards_infinity",
      "half_down",    "half_up",    "half_towards_zero", "half_towards_infinity",
      "half_to_even", "half_to_odd"};
  return mode >= 0 && mode <= AM_ROUND_HALF_TO_ODD ? names[mode] : NULL;
}
