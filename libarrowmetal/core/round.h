/* round and round_to_multiple: pyarrow's rounding, written once for every
 * backend.
 *
 * The two element functions below are macros whose expansion is a function
 * definition in the C subset that C, CUDA C++ and the Metal Shading Language
 * share. The CPU expands them as C (cpu/round.c); the kernel source makes
 * them text with AM_ROUND_TEXT (gpu/kernel_source_round.c), so both compute
 * with the same operations in the same order: the float's own precision
 * (float32 never goes through double, which Metal lacks), and pyarrow's
 * steps (arrow/compute/kernels/scalar_round.cc, read, not copied):
 *
 *   floats:   NaN and the infinities pass through. r = x * p (x / p for
 *             ndigits < 0), p = 10^|ndigits|; round_to_multiple is the
 *             ndigits < 0 form with p = the multiple (pyarrow's
 *             RoundToMultiple). r already whole: x. Else r is
 *             rounded (a HALF_ mode off the tie, .5, rounds half away from
 *             zero; at the tie, or in the directed modes, by the mode), and
 *             scaled back (r / p for ndigits > 0, else r * p); a result that
 *             is not finite fails (1) and the value is kept.
 *   integers: (ndigits < 0 only; else the value as it is) fl = x / m * m
 *             (towards zero), m = 10^-ndigits or round_to_multiple's
 *             multiple (pyarrow's integer round is its round_to_multiple
 *             of 10^-ndigits); a HALF_ mode off the tie rounds to the
 *             nearer multiple, as std::round (twice the remainder is
 *             compared with m in 64 bits; pyarrow doubles it in the type,
 *             which wraps for the largest int32, uint32 and int64
 *             multiples: arrowmetal.h's divergence); ties and the directed
 *             modes go by the mode. A multiple outside the type fails: 1
 *             up, 2 down (the tie-breaking and directed modes' message:
 *             "multiple of"), 3 up, 4 down (the nearest multiple's:
 *             "multiples of"), each keeping the value.
 *
 * The vocabulary each place defines: DEVFN (a function), PRIV (a pointer
 * to the caller's variable), am_u32, am_u64; for floats am_floor, am_ceil,
 * am_trunc, am_round (half away from zero), am_isfinite, am_signbit and
 * am_fmul (a product never fused into a later addition: CUDA and Metal
 * contract a * b - c into one fma by default, which would change r - floor(r));
 * for integers AM_NEG(x) (x < 0; 0 for unsigned types, where C warns of a
 * comparison always false). The round mode `mode` is am_round_mode's value;
 * a kernel passes a constant, so its branches fold away. */
#ifndef AM_CORE_ROUND_H
#define AM_CORE_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "arrowmetal.h"
#include "error.h"

/* The macros' text, for the kernel source. */
#define AM_ROUND_STR(...) #__VA_ARGS__
#define AM_ROUND_TEXT(...) AM_ROUND_STR(__VA_ARGS__)

/* clang-format off */
#define AM_ROUND_FLOAT_DEF(am_t, NAME)                                              \
  DEVFN am_t NAME(am_t x, am_t p, int up, int down, int mode, PRIV am_u32 *fail) { \
    if (!am_isfinite(x)) return x;                                                  \
    am_t r = up ? am_fmul(x, p) : x / p;                                            \
    const am_t f = r - am_floor(r);                                                 \
    if (f == (am_t)0) return x;                                                     \
    if (mode >= 4 && f != (am_t)0.5f) {                                              \
      r = am_round(r);                                                              \
    } else if (mode == 0 || mode == 4) {                                            \
      r = am_floor(r);                                                              \
    } else if (mode == 1 || mode == 5) {                                            \
      r = am_ceil(r);                                                               \
    } else if (mode == 2 || mode == 6) {                                            \
      r = am_trunc(r);                                                              \
    } else if (mode == 3 || mode == 7) {                                            \
      r = am_signbit(r) ? am_floor(r) : am_ceil(r);                                 \
    } else if (mode == 8) {                                                         \
      r = am_round(r * (am_t)0.5f) * (am_t)2;                                        \
    } else {                                                                        \
      r = am_floor(r * (am_t)0.5f) + am_ceil(r * (am_t)0.5f);                         \
    }                                                                               \
    r = down ? r / p : am_fmul(r, p);                                               \
    if (!am_isfinite(r)) {                                                          \
      *fail = 1u;                                                                   \
      return x;                                                                     \
    }                                                                               \
    return r;                                                                       \
  }

#define AM_ROUND_INT_DEF(am_t, NAME)                                                \
  DEVFN am_t NAME(am_t x, am_t m, am_t lo, am_t hi, int mode, PRIV am_u32 *fail) {  \
    const am_t fl = (am_t)(x / m * m);                                              \
    const am_t rem = x > fl ? (am_t)(x - fl) : (am_t)(fl - x);                      \
    if (rem == 0) return x;                                                         \
    const int neg = AM_NEG(x) ? 1 : 0;                                              \
    const am_u64 twice = (am_u64)rem * 2u;                                          \
    if (mode >= 4 && twice != (am_u64)m) {                                          \
      if (twice < (am_u64)m) return fl;                                             \
      if (!neg) {                                                                   \
        if (hi - m < fl) { *fail = 3u; return x; }                                  \
        return (am_t)(fl + m);                                                      \
      }                                                                             \
      if (lo + m > fl) { *fail = 4u; return x; }                                    \
      return (am_t)(fl - m);                                                        \
    }                                                                               \
    if (mode == 2 || mode == 6) return fl;                                          \
    if (mode == 8 && (fl / m) % 2 == 0) return fl;                                  \
    if (mode == 9 && (fl / m) % 2 != 0) return fl;                                  \
    const int away_up = !neg && mode != 0 && mode != 4;                             \
    const int away_down = neg && mode != 1 && mode != 5;                            \
    if (away_up) {                                                                  \
      if (hi - m < fl) { *fail = 1u; return x; }                                    \
      return (am_t)(fl + m);                                                        \
    }                                                                               \
    if (away_down) {                                                                \
      if (lo + m > fl) { *fail = 2u; return x; }                                    \
      return (am_t)(fl - m);                                                        \
    }                                                                               \
    return fl;                                                                      \
  }
/* clang-format on */

/* What a backend's round takes: where the scale comes from (am_round's
 * ndigits, am_round_to_multiple's multiple) is settled by then, and the
 * element functions above are the same for both. */
typedef struct am_round_spec {
  am_round_mode mode; /* valid */
  /* Floats: 1: r = x * p, scaled back by / p (ndigits > 0); 0: p is 1, to
   * whole numbers; -1: r = x / p, scaled back by * p (ndigits < 0, or a
   * multiple p). Its sign is what AM_ROUND_FLOAT_DEF's up and down say. */
  int scale;
  double p;   /* floats: 10^|ndigits| or the multiple (float32's exact value for float32) */
  uint64_t m; /* integers: the multiple, within the type and above 1 */
} am_round_spec;

/* round's spec for `ndigits` over type `t`: floats p = 10^|ndigits|;
 * integers (ndigits < 0: the ABI keeps the others as they are) m =
 * 10^-ndigits, AM_EINVAL as am_round_multiple. */
int am_round_spec_digits(am_err *err, am_type t, int64_t ndigits, am_round_mode mode,
                         am_round_spec *out);

/* round_to_multiple's spec for `multiple`, a valid scalar of type `t` above 0
 * (the ABI has cast it): floats p = the multiple, integers m = it. */
void am_round_spec_multiple(am_type t, const am_scalar *multiple, am_round_mode mode,
                            am_round_spec *out);

/* pyarrow's 10^k for floats (k >= 0), as a double: 10^k for k <= 10, the
 * float literals 1e11F .. 1e15F (pyarrow's table), then times 10 per digit
 * (an infinity past the double's range). */
double am_round_pow10(int64_t k);

/* The multiple an integer of type `t` rounds to for `ndigits` < 0, or
 * AM_EINVAL in pyarrow's words when -ndigits exceeds the type's decimal
 * digits ("Rounding to -3 digits is out of range for type int8"). */
int am_round_multiple(am_err *err, am_type t, int64_t ndigits, uint64_t *multiple);

/* The message of failure `code` (AM_ROUND_FLOAT_DEF's and AM_ROUND_INT_DEF's
 * numbers) of value text `value` and multiple text `multiple`: pyarrow's. */
int am_round_fail(am_err *err, int code, const char *value, const char *multiple);

/* The name of a round mode ("half_to_even"), NULL when out of range. */
const char *am_round_mode_name(int mode);

#endif
