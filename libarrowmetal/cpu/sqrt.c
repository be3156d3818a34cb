/* float64 sqrt from the reciprocal square root estimate, checked lane by lane.
 *
 * VSQRTPD is a divider-bound instruction: about 0.8 ns a double on two
 * Sapphire Rapids cores, which made sqrt compute-bound (1M doubles in 0.43 ms,
 * where a copy of them takes 0.3). This loop takes 0.46 ns a double in L2 with
 * FMAs, and keeps every bit of the hardware's result:
 *
 * 1. y = VRSQRT14PD(x) (relative error below 2^-14) and a cubic step of
 *    Newton's series for x * y * (1 - e)^(-1/2), e = 1 - x y^2, give g within
 *    a few units in the last place (ulps) of sqrt(x); one correction
 *    s = g + (x - g^2) / (2 sqrt x), the residual by FMA and 1 / (2 sqrt x)
 *    as y / 2, makes s the correctly rounded root in all but about one lane
 *    in 10^5 (7 in 10^6 over uniform [0.5, 2): roots that near a midpoint).
 * 2. Each lane is then proved or recomputed. With lo and hi the gaps from s
 *    to the doubles below and above it (unequal only where s is a power of
 *    two), s is sqrt(x) rounded to nearest iff
 *      (s - lo/2)^2 < x < (s + hi/2)^2   (no double is the square of a midpoint)
 *    iff -s*lo < r <= s*hi, where r = x - s^2. For x in [2^-900, 2^1000) r is
 *    a multiple of (s's ulp)^2 and the bounds are two such multiples that are
 *    exact doubles, and r from the FMA is exact wherever it lies near them,
 *    so the test is exact. A lane that fails it, or whose x is outside that
 *    range (0, subnormal, huge, negative, infinite, NaN), takes VSQRTPD.
 *
 * sqrt_test.c compares it with sqrt() over all these cases and random bits. */
#include "sqrt.h"

#include <stddef.h>
#include <stdint.h>

#include "isa.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
/* Bytes ahead the loop asks for its input: with 25-odd instructions a vector
 * the hardware prefetchers fell behind, and 50M doubles (streamed out) took
 * 42 ms against 21 with 2 KiB of prefetch (22 with 1 KiB, 25 with 512 B). */
#define PREFETCH_AHEAD 2048

AVX512 static inline __m512d sqrt8(__m512d x) {
  const __m512d one = _mm512_set1_pd(1.0), half = _mm512_set1_pd(0.5);
  const __m512d y = _mm512_rsqrt14_pd(x);
  const __m512d t = _mm512_mul_pd(x, y);
  const __m512d e = _mm512_fnmadd_pd(t, y, one);
  /* (1 - e)^(-1/2) = 1 + e/2 + 3e^2/8 + 5e^3/16 + ...: t (1 + e p) */
  __m512d p = _mm512_fmadd_pd(e, _mm512_set1_pd(5.0 / 16), _mm512_set1_pd(3.0 / 8));
  p = _mm512_fmadd_pd(e, p, half);
  const __m512d g = _mm512_fmadd_pd(_mm512_mul_pd(t, e), p, t);
  const __m512d d = _mm512_fnmadd_pd(g, g, x);
  __m512d s = _mm512_fmadd_pd(d, _mm512_mul_pd(y, half), g);
  /* the proof of step 2 */
  const __m512d r = _mm512_fnmadd_pd(s, s, x);
  const __m512i bits = _mm512_castpd_si512(s), unit = _mm512_set1_epi64(1);
  const __m512d below = _mm512_castsi512_pd(_mm512_sub_epi64(bits, unit));
  const __m512d above = _mm512_castsi512_pd(_mm512_add_epi64(bits, unit));
  const __m512d neg_lo = _mm512_mul_pd(s, _mm512_sub_pd(below, s));
  const __m512d hi = _mm512_mul_pd(s, _mm512_sub_pd(above, s));
  /* x's bits less 2^-900's, unsigned, below the span of [2^-900, 2^1000) */
  const __m512i from = _mm512_sub_epi64(_mm512_castpd_si512(x), _mm512_set1_epi64(123LL << 52));
  __mmask8 ok = _mm512_cmplt_epu64_mask(from, _mm512_set1_epi64(1900LL << 52));
  ok = _mm512_mask_cmp_pd_mask(ok, r, neg_lo, _CMP_GT_OQ);
  ok = _mm512_mask_cmp_pd_mask(ok, r, hi, _CMP_LE_OQ);
  if (ok != 0xff) s = _mm512_mask_sqrt_pd(s, (__mmask8)~ok, x);
  return s;
}

AVX512 static void sqrt_f64_avx512(const void *in, void *out, int64_t n) {
  const double *x = in;
  double *o = out;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm_prefetch((const char *)(x + i) + PREFETCH_AHEAD, _MM_HINT_T0);
    _mm512_storeu_pd(o + i, sqrt8(_mm512_loadu_pd(x + i)));
  }
  if (i < n) {
    const __mmask8 m = (__mmask8)((1u << (n - i)) - 1);
    _mm512_mask_storeu_pd(o + i, m, sqrt8(_mm512_mask_loadu_pd(_mm512_set1_pd(1.0), m, x + i)));
  }
}

am_vm_unary_fn am_fast_sqrt_f64(void) {
  int avx2, avx512;
  am_cpu_isa(&avx2, &avx512);
  return avx512 ? sqrt_f64_avx512 : NULL;
}

#else

am_vm_unary_fn am_fast_sqrt_f64(void) { return NULL; }

#endif
