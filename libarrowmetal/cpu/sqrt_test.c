/* am_fast_sqrt_f64 against sqrt(), bit for bit: special values, every
 * exponent, exact squares, the doubles next to squares (where a root is
 * nearest a midpoint), powers of two and their neighbours, and random bits.
 * Prints the count compared and "ok", or "no fast sqrt here" and "ok". */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqrt.h"

enum { N = 4099 }; /* not a multiple of 8: the masked tail runs each batch */

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}
static double from_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}
static uint64_t to_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* One double of kind k: the squares and near-squares over the whole
 * exponent range, not just where the fast path runs. */
static double sample(int k) {
  uint64_t u = next();
  int scale = (int)(next() % 2100) - 1075;
  switch (k) {
    case 0:
      return from_bits(u); /* any bits: NaNs, infinities, negatives, subnormals */
    case 1: {
      double s = ldexp(1.0 + (double)(u >> 38) * 0x1p-26, scale / 2);
      return s * s; /* exact squares (26-bit roots) */
    }
    case 2: {
      double s = ldexp(1.0 + (double)(u >> 12) * 0x1p-52, scale / 2);
      return from_bits(to_bits(s * s) + (next() % 9) - 4);
    }
    case 3:
      return from_bits(to_bits(ldexp(1.0, scale)) + (next() % 7) - 3); /* powers of two */
    default:
      return ldexp(1.0 + (double)(u >> 11) * 0x1p-53, scale);
  }
}

static double x[N], got[N];

int main(void) {
  am_vm_unary_fn fast = am_fast_sqrt_f64();
  if (!fast) {
    printf("no fast sqrt here\nok\n");
    return 0;
  }
  static const double special[] = {0.0,
                                   -0.0,
                                   1.0,
                                   -1.0,
                                   4.0,
                                   2.0,
                                   0x1p-1074,
                                   0x1p-1022,
                                   0x1p-900,
                                   0x1p1000,
                                   0x1p1023,
                                   DBL_MAX,
                                   INFINITY,
                                   -INFINITY,
                                   NAN,
                                   -NAN,
                                   0x1.fffffffffffffp-1,
                                   0x1.0000000000001p0};
  long long compared = 0, wrong = 0;
  for (int round = 0; round < 1000; round++) {
    for (int i = 0; i < N; i++) x[i] = sample(i % 5);
    if (round == 0) memcpy(x, special, sizeof special);
    int n = round == 1 ? 7 : N; /* a call shorter than a vector */
    fast(x, got, n);
    for (int i = 0; i < n; i++) {
      double want = sqrt(x[i]);
      compared++;
      int same = isnan(want) ? isnan(got[i]) : to_bits(want) == to_bits(got[i]);
      if (!same && wrong++ < 10) printf("sqrt(%a): %a, want %a\n", x[i], got[i], want);
    }
  }
  printf("%lld compared, %lld wrong\n", compared, wrong);
  if (wrong) return 1;
  printf("ok\n");
  return 0;
}
