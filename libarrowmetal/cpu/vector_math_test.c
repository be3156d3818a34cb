/* Measures the vector math layer (vector_math.c) against scalar libm, which
 * is what pyarrow computes with: every function and type the layer offers,
 * over special values (signed zeros, infinities, NaNs, subnormals, the edges
 * of each domain, exp's overflow and underflow thresholds, huge arguments of
 * sin, cos and tan) and random samples across magnitudes. Fails when
 * - a result that is a zero, an infinity or a NaN on either side is not the
 *   same bits as libm's, or a result's sign differs;
 * - a finite result is more than AM_VM_MAX_ULPS from libm's;
 * - a slot's result depends on the length or position of the run it is in
 *   (whole vectors, padded tails, blocks).
 * Prints one line per function and type: provider, values compared, the
 * largest difference in ULPs, and how many results differed at all.
 *
 *   vector_math_test          the checks; ends with "ok"
 *   vector_math_test bench    single-thread ns per element, vector vs libm */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/vector_math.h"

static int failures;

/* splitmix64: the same samples on every run. */
static uint64_t state = 0x853c49e6748fea9bULL;
static uint64_t next(void) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static double uniform(double lo, double hi) {
  return lo + (hi - lo) * ((double)(next() >> 11) / 9007199254740992.0);
}
/* A finite double of any magnitude: random sign, exponent and mantissa. */
static double any_double(void) {
  uint64_t b = next();
  double v;
  memcpy(&v, &b, 8);
  return isfinite(v) ? v : uniform(-1, 1);
}
static float any_float(void) {
  uint32_t b = (uint32_t)next();
  float v;
  memcpy(&v, &b, 4);
  return isfinite(v) ? v : (float)uniform(-1, 1);
}

typedef struct stats {
  int64_t compared, differ, max_ulps;
  double worst_x, worst_y;
} stats;

/* got against libm's want for argument(s) x (y); true when acceptable. */
static void judge64(stats *s, const char *name, double x, double y, double got, double want) {
  s->compared++;
  if (memcmp(&got, &want, 8) == 0) return;
  s->differ++;
  int special = isnan(got) || isnan(want) || isinf(got) || isinf(want) || got == 0 || want == 0;
  if (special || signbit(got) != signbit(want)) {
    if (failures++ < 20)
      printf("FAIL %s float64 (%.17g, %.17g): %.17g, libm %.17g\n", name, x, y, got, want);
    return;
  }
  int64_t u = am_vm_ulps64(got, want);
  if (u > s->max_ulps) s->max_ulps = u, s->worst_x = x, s->worst_y = y;
}
static void judge32(stats *s, const char *name, float x, float y, float got, float want) {
  s->compared++;
  if (memcmp(&got, &want, 4) == 0) return;
  s->differ++;
  int special = isnan(got) || isnan(want) || isinf(got) || isinf(want) || got == 0 || want == 0;
  if (special || signbit(got) != signbit(want)) {
    if (failures++ < 20)
      printf("FAIL %s float32 (%.9g, %.9g): %.9g, libm %.9g\n", name, (double)x, (double)y,
             (double)got, (double)want);
    return;
  }
  int64_t u = am_vm_ulps32(got, want);
  if (u > s->max_ulps) s->max_ulps = u, s->worst_x = x, s->worst_y = y;
}

static double libm64(am_vm_func f, double x, double y) {
  switch (f) {
    case AM_VM_SIN:
      return sin(x);
    case AM_VM_COS:
      return cos(x);
    case AM_VM_TAN:
      return tan(x);
    case AM_VM_ASIN:
      return asin(x);
    case AM_VM_ACOS:
      return acos(x);
    case AM_VM_ATAN:
      return atan(x);
    case AM_VM_EXP:
      return exp(x);
    case AM_VM_LOG:
      return log(x);
    case AM_VM_LOG10:
      return log10(x);
    case AM_VM_LOG2:
      return log2(x);
    case AM_VM_LOG1P:
      return log1p(x);
    case AM_VM_POW:
      return pow(x, y);
    case AM_VM_ATAN2:
      return atan2(x, y);
    default:
      return NAN;
  }
}
static float libm32(am_vm_func f, float x, float y) {
  switch (f) {
    case AM_VM_SIN:
      return sinf(x);
    case AM_VM_COS:
      return cosf(x);
    case AM_VM_TAN:
      return tanf(x);
    case AM_VM_ASIN:
      return asinf(x);
    case AM_VM_ACOS:
      return acosf(x);
    case AM_VM_ATAN:
      return atanf(x);
    case AM_VM_EXP:
      return expf(x);
    case AM_VM_LOG:
      return logf(x);
    case AM_VM_LOG10:
      return log10f(x);
    case AM_VM_LOG2:
      return log2f(x);
    case AM_VM_LOG1P:
      return log1pf(x);
    case AM_VM_POW:
      return powf(x, y);
    case AM_VM_ATAN2:
      return atan2f(x, y);
    default:
      return NAN;
  }
}
static int binary(am_vm_func f) { return f == AM_VM_POW || f == AM_VM_ATAN2; }

/* ---- the values: specials every function meets, then each function's
 * own edges and random samples */
static const double specials[] = {
    0.0,
    -0.0,
    INFINITY,
    -INFINITY,
    NAN,
    -NAN,
    4.9406564584124654e-324,
    -4.9406564584124654e-324,
    2.2250738585072009e-308,
    -2.2250738585072009e-308,
    1e-310,
    -1e-310,
    DBL_MIN,
    -DBL_MIN,
    DBL_MAX,
    -DBL_MAX,
    1.0,
    -1.0,
    0x1.fffffffffffffp-1,
    -0x1.fffffffffffffp-1,
    0x1.0000000000001p0,
    -0x1.0000000000001p0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    1e-300,
    1e300,
    -1e300,
    1e22,
    -1e22,
    0x1p1023,
    1e16,
    1e15,
    1e8,
    3.141592653589793,
    -3.141592653589793,
    1.5707963267948966,
    -1.5707963267948966,
    0.7853981633974483,
    4.71238898038469,
    6.283185307179586,
    /* exp: overflow and underflow thresholds, float64 and float32 */
    709.782712893384,
    709.7827128933841,
    709.78,
    709.79,
    710.0,
    -708.39641853226408,
    -708.4,
    -745.13321910194110842,
    -745.1332191019412,
    -745.2,
    -744.44,
    -740.0,
    -1000.0,
    88.72283935546875,
    88.7228394,
    88.73,
    -87.33654,
    -87.34,
    -103.972084,
    -103.97,
    -104.0,
    -150.0,
    89.0,
    /* log1p near -1; asin/acos edges */
    -0.9999999999999999,
    -0.99999,
    -1.0000000000000002,
    1.0000001,
    0.9999999,
};
#define SPECIALS ((int)(sizeof specials / sizeof specials[0]))

/* An argument for function f: which 0 from its natural domain, 1 near its
 * edges, 2 of any magnitude. */
static double draw(am_vm_func f, int which) {
  if (which == 2) return any_double();
  double u = uniform(0, 1), tiny = ldexp(1, -(int)uniform(1, 60));
  switch (f) {
    case AM_VM_SIN:
    case AM_VM_COS:
    case AM_VM_TAN:
      if (which == 0) return uniform(-10, 10);
      return u < 0.5 ? uniform(-1e6, 1e6) : ldexp(uniform(-1, 1), (int)uniform(0, 1024));
    case AM_VM_ASIN:
    case AM_VM_ACOS:
      if (which == 0) return uniform(-1, 1);
      return (u < 0.5 ? 1 : -1) * (1 - tiny);
    case AM_VM_ATAN:
      return which == 0 ? uniform(-10, 10) : ldexp(uniform(-1, 1), (int)uniform(-60, 60));
    case AM_VM_EXP:
      if (which == 0) return uniform(-20, 20);
      return u < 0.5 ? uniform(700, 709.8) : uniform(-746, -700);
    case AM_VM_LOG:
    case AM_VM_LOG10:
    case AM_VM_LOG2:
      if (which == 0) return uniform(0, 10);
      return u < 0.5 ? 1 + (u < 0.25 ? tiny : -tiny)
                     : ldexp(uniform(0.5, 1), (int)uniform(-1074, 1024));
    case AM_VM_LOG1P:
      if (which == 0) return uniform(-1, 10);
      return u < 0.5 ? -1 + tiny : (u < 0.75 ? tiny : -tiny);
    default:
      return 0;
  }
}
/* Arguments for pow and atan2. */
static void draw2(am_vm_func f, int which, double *x, double *y) {
  double u = uniform(0, 1);
  if (which == 2) {
    *x = any_double(), *y = any_double();
  } else if (f == AM_VM_ATAN2) {
    *x = which == 0 ? uniform(-10, 10) : ldexp(uniform(-1, 1), (int)uniform(-1074, 1024));
    *y = which == 0 ? uniform(-10, 10) : ldexp(uniform(-1, 1), (int)uniform(-1074, 1024));
  } else if (which == 0) {
    *x = uniform(0, 10), *y = uniform(-30, 30);
  } else if (u < 0.3) {
    *x = -uniform(0, 10), *y = floor(uniform(-40, 40)); /* negative bases, integer powers */
  } else if (u < 0.6) {
    *x = 1 + uniform(-1e-6, 1e-6), *y = uniform(-1e9, 1e9); /* near 1, huge powers */
  } else {
    *x = uniform(0, 2), *y = uniform(-1100, 1100); /* over- and underflow */
  }
}

#define SAMPLES 200000
#define TRIES (SPECIALS * SPECIALS + 3 * SAMPLES + (1 << 20)) /* bench uses 2^20 */

static double xs64[TRIES], ys64[TRIES], out64[TRIES];
static float xs32[TRIES], ys32[TRIES], out32[TRIES];

/* The arguments for f: specials (pairs of them for binary functions), then
 * samples; returns how many. */
static int arguments(am_vm_func f) {
  int n = 0;
  if (binary(f)) {
    for (int i = 0; i < SPECIALS; i++)
      for (int j = 0; j < SPECIALS; j++, n++) xs64[n] = specials[i], ys64[n] = specials[j];
    for (int k = 0; k < 3 * SAMPLES; k++, n++) draw2(f, k % 3, &xs64[n], &ys64[n]);
  } else {
    for (int i = 0; i < SPECIALS; i++, n++) xs64[n] = specials[i], ys64[n] = 0;
    for (int k = 0; k < 3 * SAMPLES; k++, n++) xs64[n] = draw(f, k % 3), ys64[n] = 0;
  }
  return n;
}

/* Float32 arguments: the float64 ones rounded, plus random float bits. */
static int arguments32(am_vm_func f, int n) {
  for (int i = 0; i < n; i++) {
    xs32[i] = (float)xs64[i];
    ys32[i] = (float)ys64[i];
    if (i % 3 == 2 && i >= SPECIALS * (binary(f) ? SPECIALS : 1)) {
      xs32[i] = any_float();
      if (binary(f)) ys32[i] = any_float();
    }
  }
  return n;
}

static void run(am_vm_func f, int f32, const void *x, const void *y, int scalar, void *o,
                int64_t n) {
  if (binary(f))
    am_vm_binary(f, f32)(x, y, scalar, o, n);
  else
    am_vm_unary(f, f32)(x, o, n);
}

/* Each slot's result does not depend on the run it is computed in: runs of
 * every length up to 70 at several starts equal the whole array's. */
static void check_runs(am_vm_func f, int f32, int n) {
  int width = f32 ? 4 : 8;
  const char *x = f32 ? (const char *)xs32 : (const char *)xs64;
  const char *y = f32 ? (const char *)ys32 : (const char *)ys64;
  const char *whole = f32 ? (const char *)out32 : (const char *)out64;
  char part[70 * 8];
  for (int start = 0; start < 200; start += 13)
    for (int len = 1; len <= 70 && start + len <= n; len++) {
      run(f, f32, x + start * width, y + start * width, 0, part, len);
      if (memcmp(part, whole + start * width, (size_t)len * width)) {
        if (failures++ < 20) printf("FAIL %s: run [%d, +%d) differs\n", am_vm_name(f), start, len);
        return;
      }
    }
  if (!binary(f)) return;
  /* A scalar second argument equals the same value spread over an array. */
  for (int k = 0; k < SPECIALS + 20; k += 7) {
    static double spread64[1000], got64[1000];
    static float spread32[1000], got32[1000];
    for (int i = 0; i < 1000; i++) spread64[i] = ys64[k], spread32[i] = ys32[k];
    if (f32) {
      run(f, 1, xs32, &ys32[k], 1, out32, 1000);
      run(f, 1, xs32, spread32, 0, got32, 1000);
      if (memcmp(out32, got32, sizeof got32) && failures++ < 20)
        printf("FAIL %s float32: a scalar y differs from an array of it\n", am_vm_name(f));
    } else {
      run(f, 0, xs64, &ys64[k], 1, out64, 1000);
      run(f, 0, xs64, spread64, 0, got64, 1000);
      if (memcmp(out64, got64, sizeof got64) && failures++ < 20)
        printf("FAIL %s float64: a scalar y differs from an array of it\n", am_vm_name(f));
    }
  }
}

static void measure(am_vm_func f, int f32) {
  const char *provider = am_vm_provider(f, f32);
  if (!provider) {
    printf("%-6s %s  scalar libm (no vector version)\n", am_vm_name(f),
           f32 ? "float32" : "float64");
    return;
  }
  int n = arguments(f);
  stats s = {0};
  if (f32) {
    arguments32(f, n);
    run(f, 1, xs32, ys32, 0, out32, n);
    for (int i = 0; i < n; i++)
      judge32(&s, am_vm_name(f), xs32[i], ys32[i], out32[i], libm32(f, xs32[i], ys32[i]));
  } else {
    run(f, 0, xs64, ys64, 0, out64, n);
    for (int i = 0; i < n; i++)
      judge64(&s, am_vm_name(f), xs64[i], ys64[i], out64[i], libm64(f, xs64[i], ys64[i]));
  }
  printf("%-6s %s  %-16s %7lld values  max %lld ulps (at %.17g, %.17g)  %lld differ\n",
         am_vm_name(f), f32 ? "float32" : "float64", provider, (long long)s.compared,
         (long long)s.max_ulps, s.worst_x, s.worst_y, (long long)s.differ);
  if (s.max_ulps > AM_VM_MAX_ULPS) {
    failures++;
    printf("FAIL %s: %lld ulps > AM_VM_MAX_ULPS\n", am_vm_name(f), (long long)s.max_ulps);
  }
  check_runs(f, f32, n);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Single-thread ns per element, vector and libm, on arguments from each
 * function's natural domain. */
static void bench(void) {
  enum { N = 1 << 20 };
  for (int f = AM_VM_SIN; f < AM_VM_COUNT; f++)
    for (int f32 = 0; f32 < 2; f32++) {
      if (!am_vm_provider(f, f32)) continue;
      for (int i = 0; i < N; i++) {
        if (binary(f))
          draw2(f, 0, &xs64[i], &ys64[i]);
        else
          xs64[i] = draw(f, 0);
        xs32[i] = (float)xs64[i], ys32[i] = (float)ys64[i];
      }
      double best_v = 1e9, best_s = 1e9;
      for (int rep = 0; rep < 5; rep++) {
        double t = now();
        run(f, f32, f32 ? (void *)xs32 : (void *)xs64, f32 ? (void *)ys32 : (void *)ys64, 0,
            f32 ? (void *)out32 : (void *)out64, N);
        t = now() - t;
        if (t < best_v) best_v = t;
        t = now();
        if (f32)
          for (int i = 0; i < N; i++) out32[i] = libm32(f, xs32[i], ys32[i]);
        else
          for (int i = 0; i < N; i++) out64[i] = libm64(f, xs64[i], ys64[i]);
        t = now() - t;
        if (t < best_s) best_s = t;
      }
      printf("%-6s %s  %-16s %6.2f ns  libm %6.2f ns  %5.2fx\n", am_vm_name(f),
             f32 ? "float32" : "float64", am_vm_provider(f, f32), best_v / N * 1e9,
             best_s / N * 1e9, best_s / best_v);
    }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "bench") == 0) {
    bench();
    return 0;
  }
  int offered = 0;
  for (int f = AM_VM_SIN; f < AM_VM_COUNT; f++)
    for (int f32 = 0; f32 < 2; f32++) {
      offered += am_vm_provider(f, f32) != NULL;
      measure(f, f32);
    }
  printf("%d of %d functions vectorized\n", offered, 2 * (AM_VM_COUNT - 1));
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
