/* Float64 unary functions of the CUDA dialect written here rather than
 * taken from libdevice, whose versions left the kernels FP64-bound on the
 * H200 (its FP64 units do 64 fused multiply-adds a clock a multiprocessor,
 * about 67 an element at the copy floor of 10^8 rows). Each is checked
 * under the CPU emulation of CUDA (gpu/test_unary64.py) and on the GPU by
 * the conformance cases (within their 4 ulps). */
#include <string.h>

#include "gpu/dialect.h"

/* log1p for doubles in CUDA, from log: with u = 1 + x rounded and c = x -
 * (u - 1) the part of x that rounding lost (exact: Sterbenz), log1p(x) =
 * log(u) + log(1 + c/u) = log(u) + c/u to well under an ulp, since |c/u| <=
 * 2^-53. c/u needs only a good reciprocal of u, not a correctly rounded
 * division: float's reciprocal and one Newton step (relative error 2^-46,
 * on a term below 2^-53 of the result's magnitude where it matters). log is
 * libdevice's (1 ulp), so the sum is within 2 ulps; numpy's emulation of
 * these steps with glibc's log stayed within 1 ulp of log1p over 24M values
 * of every range. Cheaper than libdevice's log1p, whose two divisions left
 * it FP64-bound on the H200: 10^8 rows, kernel only, 0.547 -> 0.471 ms at 8
 * words a pass (the copy floor 0.392). x = +-0 is itself (the sign of
 * zero); an infinite or NaN log (x = -1, x = inf, x < -1) is the answer. */
static const char cuda_log1p64[] =
    "DEVFN am_f64 am_log1p64(am_f64 x) {\n"
    "  const am_f64 u = 1.0 + x;\n"
    "  const am_f64 l = log(u);\n"
    "  const am_f64 c = x - (u - 1.0);\n"
    "  am_f64 r = (am_f64)__frcp_rn((am_f32)u);\n"
    "  r = fma(r, fma(-u, r, 1.0), r);\n"
    "  if (x == 0.0) return x;\n"
    "  if (!(fabs(l) <= 1.7976931348623157e308)) return l;\n"
    "  return fma(c, r, l);\n"
    "}\n";

/* P(z) of am_acos64 and am_asin64: asin(t) = t + t z P(z), z = t^2, for
 * |t| <= 0.5; P of degree 12 interpolating (asin(t) - t) / t^3 at Chebyshev
 * nodes of z in [0, 1/4] (gpu/fit_asin.py, mpmath at 60 digits: relative
 * error of P with these doubles 2^-52.9, and its term is at most 4.5% of
 * asin(t)). */
static const char cuda_asin_poly64[] =
    "DEVFN am_f64 am_asin_poly64(am_f64 z) {\n"
    "  am_f64 p = 0x1.d72b2bc8155f8p-6;\n"
    "  p = fma(p, z, -0x1.e6aaa8a0a04ccp-7);\n"
    "  p = fma(p, z, 0x1.1d189408314eep-6);\n"
    "  p = fma(p, z, 0x1.65a9c4dfcf8b2p-8);\n"
    "  p = fma(p, z, 0x1.52420b04b37bep-7);\n"
    "  p = fma(p, z, 0x1.782651caa6547p-7);\n"
    "  p = fma(p, z, 0x1.c9cf07674736ap-7);\n"
    "  p = fma(p, z, 0x1.1c4d35cf95421p-6);\n"
    "  p = fma(p, z, 0x1.6e8bb1c8209a2p-6);\n"
    "  p = fma(p, z, 0x1.f1c71c1db0623p-6);\n"
    "  p = fma(p, z, 0x1.6db6db6e31f13p-5);\n"
    "  p = fma(p, z, 0x1.3333333332ecap-4);\n"
    "  p = fma(p, z, 0x1.5555555555556p-3);\n"
    "  return p;\n"
    "}\n";

/* acos for doubles in CUDA, from am_asin_poly64: acos(x) = pi/2 - asin(x)
 * for |x| <= 0.5 (a result of at least pi/3: no cancellation), 2 asin(sqrt((1 - x) / 2))
 * for x > 0.5 and pi - 2 asin(sqrt((1 + x) / 2)) for x < -0.5 ((1 - |x|)/2
 * is exact there, Sterbenz), pi/2 carried as two doubles. Within 1 ulp of
 * glibc's acos under the CPU emulation, which does the GPU's arithmetic
 * bit for bit: every product-sum an explicit fma, the other products
 * __dmul_rn (never contracted), sqrt IEEE's on both. One sqrt and 13 fused
 * multiply-adds instead of libdevice's acos: 10^8 rows, the library call,
 * 0.504 -> 0.439 ms (78% -> 89% of the copy floor) at 8 words a pass
 * (0.508 at 4). |x| > 1 gives a NaN (sqrt of a negative), a NaN its NaN;
 * acos(1) is +0, acos(-1) pi. */
static const char cuda_acos64[] =
    "DEVFN am_f64 am_acos64(am_f64 x) {\n"
    "  const am_f64 pio2_hi = 0x1.921fb54442d18p+0, pio2_lo = 0x1.1a62633145c07p-54;\n"
    "  const am_f64 ax = fabs(x);\n"
    "  const bool big = ax > 0.5;\n"
    "  const am_f64 z = big ? fma(-0.5, ax, 0.5) : x * x;\n"
    "  const am_f64 t = big ? sqrt(z) : x;\n"
    "  const am_f64 p = am_asin_poly64(z);\n"
    "  const am_f64 r = __dmul_rn(__dmul_rn(t, z), p);\n"
    "  if (!big) return pio2_hi - (x - (pio2_lo - r));\n"
    "  if (x > 0.0) return 2.0 * (t + r);\n"
    "  return 2.0 * (pio2_hi - (t - (pio2_lo - r)));\n"
    "}\n";

/* asin for doubles in CUDA, from am_acos64's polynomial: asin(x) = x + x z
 * P(z) for |x| <= 0.5, and for |x| > 0.5 pi/2 - 2 asin(t), t = sqrt(z), z =
 * (1 - |x|) / 2, with the sign of x. Near |x| = 0.5 that subtraction
 * cancels a bit (pi/2 - pi/3), so the sqrt's rounding is put back: c =
 * (z - t^2) / (2 t), its fma residual over a float reciprocal (c is below
 * 2^-53 of t), and h = pi/2_hi - 2 t is carried with its rounding error
 * e (Fast2Sum: |pi/2| > 2 t), which matters where h is past 1 and the
 * result below (|x| near 0.84: 2 ulps without it). Within 1 ulp of glibc's
 * asin under the CPU emulation. The one polynomial comes before the two
 * ways part: with a branch around each (the first version), a warp of both
 * kinds of x ran it twice, and asin at 10^8 rows took 0.585 ms on the H200
 * against acos's 0.439 and libdevice's asin's 0.458. */
static const char cuda_asin64[] =
    "DEVFN am_f64 am_asin64(am_f64 x) {\n"
    "  const am_f64 pio2_hi = 0x1.921fb54442d18p+0, pio2_lo = 0x1.1a62633145c07p-54;\n"
    "  const am_f64 ax = fabs(x);\n"
    "  const bool big = ax > 0.5;\n"
    "  const am_f64 z = big ? fma(-0.5, ax, 0.5) : x * x;\n"
    "  const am_f64 p = am_asin_poly64(z);\n"
    "  if (!big) return fma(__dmul_rn(x, z), p, x);\n"
    "  const am_f64 t = sqrt(z);\n"
    "  const am_f64 r = __dmul_rn(__dmul_rn(t, z), p);\n"
    "  const am_f64 c = t > 0.0 ? fma(-t, t, z) * (0.5 * (am_f64)__frcp_rn((am_f32)t)) : 0.0;\n"
    "  const am_f64 h = pio2_hi - 2.0 * t;\n"
    "  const am_f64 e = (pio2_hi - h) - 2.0 * t;\n"
    "  const am_f64 a = h + (e - (2.0 * (c + r) - pio2_lo));\n"
    "  return x < 0.0 ? -a : a;\n"
    "}\n";

void am_dialect_unary64(am_sb *sb) {
  am_sb_puts(sb, cuda_log1p64);
  am_sb_puts(sb, cuda_asin_poly64);
  am_sb_puts(sb, cuda_acos64);
  am_sb_puts(sb, cuda_asin64);
}

int am_dialect_unary64_has(const char *fn) {
  return strcmp(fn, "log1p") == 0 || strcmp(fn, "acos") == 0 || strcmp(fn, "asin") == 0;
}
