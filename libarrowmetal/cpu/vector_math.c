/* Vector math for the CPU backend (see vector_math.h): a provider computes a
 * block of up to BLOCK elements, then the lanes with a special argument or
 * result are recomputed with scalar libm. */
#include "vector_math.h"

#include "isa.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__)
#define AM_VM_LIBMVEC 1
#include <dlfcn.h>
#include <immintrin.h>
#elif defined(__APPLE__)
#define AM_VM_VFORCE 1
#if __has_include(<Accelerate/Accelerate.h>)
#include <Accelerate/Accelerate.h>
#else
/* vForce's declarations (vecLib's vForce.h), for SDKs without Accelerate's
 * headers; the library links -framework Accelerate. */
void vvsin(double *, const double *, const int *);
void vvsinf(float *, const float *, const int *);
void vvcos(double *, const double *, const int *);
void vvcosf(float *, const float *, const int *);
void vvtan(double *, const double *, const int *);
void vvtanf(float *, const float *, const int *);
void vvasin(double *, const double *, const int *);
void vvasinf(float *, const float *, const int *);
void vvacos(double *, const double *, const int *);
void vvacosf(float *, const float *, const int *);
void vvatan(double *, const double *, const int *);
void vvatanf(float *, const float *, const int *);
void vvexp(double *, const double *, const int *);
void vvexpf(float *, const float *, const int *);
void vvlog(double *, const double *, const int *);
void vvlogf(float *, const float *, const int *);
void vvlog10(double *, const double *, const int *);
void vvlog10f(float *, const float *, const int *);
void vvlog2(double *, const double *, const int *);
void vvlog2f(float *, const float *, const int *);
void vvlog1p(double *, const double *, const int *);
void vvlog1pf(float *, const float *, const int *);
void vvpow(double *, const double *, const double *, const int *);
void vvpowf(float *, const float *, const float *, const int *);
void vvatan2(double *, const double *, const double *, const int *);
void vvatan2f(float *, const float *, const float *, const int *);
#endif
#endif

/* Elements per block: 4 KiB of float64 output, which stays in L1 between
 * the vector call and the check of its lanes. */
#define BLOCK 512

typedef void (*generic_fn)(void);

/* A provider's block: o[0..m) from x[0..m) (and y, or y[0] with `scalar`),
 * m <= BLOCK. `impl` is the provider's function for it. Returns 0 only when
 * no argument and no result of the block is special (see special64): a
 * provider that can tell cheaply, in the vector registers, saves the
 * block's second look (fix1_64 ...). */
typedef int (*block1_fn)(generic_fn impl, const void *x, void *o, int64_t m);
typedef int (*block2_fn)(generic_fn impl, const void *x, const void *y, int scalar, void *o,
                         int64_t m);

typedef struct slot {
  generic_fn impl; /* NULL: no vector version */
  block1_fn run1;
  block2_fn run2;
  const char *provider;
  int promote; /* float32 widened to float64 here, around run1/run2 */
  int widened; /* float32 through the float64 version (see promoted) */
} slot;

/* The provider's blocks that widen float32 to float64 in registers, around
 * the float64 function (impl), and flag float32's special lanes; NULL: the
 * drivers widen through a buffer (slot.promote). */
static block1_fn widen1;
static block2_fn widen2;

static slot slots[AM_VM_COUNT][2]; /* [f][f32] */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *const names[AM_VM_COUNT] = {
    [AM_VM_SIN] = "sin",     [AM_VM_COS] = "cos",   [AM_VM_TAN] = "tan",     [AM_VM_ASIN] = "asin",
    [AM_VM_ACOS] = "acos",   [AM_VM_ATAN] = "atan", [AM_VM_EXP] = "exp",     [AM_VM_LOG] = "log",
    [AM_VM_LOG10] = "log10", [AM_VM_LOG2] = "log2", [AM_VM_LOG1P] = "log1p", [AM_VM_POW] = "pow",
    [AM_VM_ATAN2] = "atan2",
};

const char *am_vm_name(am_vm_func f) {
  return (unsigned)f < AM_VM_COUNT && names[f] ? names[f] : "none";
}

static int is_binary(am_vm_func f) { return f == AM_VM_POW || f == AM_VM_ATAN2; }

/* The float32 functions computed through the float64 version (arguments
 * widened, results rounded: within an ULP of libm's), because libmvec's
 * float32 versions measured 4 ULPs from libm somewhere (vector_math_test.c:
 * tanf at large arguments, logf near 1 (often), atan2f), the cases' whole
 * tolerance; through float64 they stay within 1 for about twice the time,
 * still a few times faster than scalar libm. */
static const unsigned char promoted[AM_VM_COUNT] = {
    [AM_VM_TAN] = 1,
    [AM_VM_LOG] = 1,
    [AM_VM_ATAN2] = 1,
};

/* ---- scalar libm: the reference, and what special lanes get */
static double (*const scalar64[AM_VM_COUNT])(double) = {
    [AM_VM_SIN] = sin,     [AM_VM_COS] = cos,   [AM_VM_TAN] = tan,     [AM_VM_ASIN] = asin,
    [AM_VM_ACOS] = acos,   [AM_VM_ATAN] = atan, [AM_VM_EXP] = exp,     [AM_VM_LOG] = log,
    [AM_VM_LOG10] = log10, [AM_VM_LOG2] = log2, [AM_VM_LOG1P] = log1p,
};
static float (*const scalar32[AM_VM_COUNT])(float) = {
    [AM_VM_SIN] = sinf,     [AM_VM_COS] = cosf,   [AM_VM_TAN] = tanf,     [AM_VM_ASIN] = asinf,
    [AM_VM_ACOS] = acosf,   [AM_VM_ATAN] = atanf, [AM_VM_EXP] = expf,     [AM_VM_LOG] = logf,
    [AM_VM_LOG10] = log10f, [AM_VM_LOG2] = log2f, [AM_VM_LOG1P] = log1pf,
};
static double (*const scalar64_2[AM_VM_COUNT])(double, double) = {[AM_VM_POW] = pow,
                                                                  [AM_VM_ATAN2] = atan2};
static float (*const scalar32_2[AM_VM_COUNT])(float, float) = {[AM_VM_POW] = powf,
                                                               [AM_VM_ATAN2] = atan2f};

/* ---- special lanes: zero, subnormal, infinite or NaN: an exponent field
 * of all zeros or all ones. 1 for those, 0 for the rest, in integer adds,
 * shifts and masks of the element's width, so that the OR over a block
 * (once per block; the lanes are looked at only where it is set) vectorizes
 * even for baseline x86-64. The libmvec blocks find them in their own
 * vectors first (MVEC_BLOCKS' scan) and call fix1_64 ... only for a block
 * that has one; vForce's blocks and the widened float32 ones always do. */
static inline uint64_t special64(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  uint64_t e = ((b << 1 >> 53) + 1) & 0x7fe; /* 0 for exponents 0 and 0x7ff */
  return (e - 1) >> 63;
}
static inline uint32_t special32(float v) {
  uint32_t b;
  memcpy(&b, &v, sizeof b);
  uint32_t e = ((b << 1 >> 24) + 1) & 0xfe; /* 0 for exponents 0 and 0xff */
  return (e - 1) >> 31;
}

static void fix1_64(am_vm_func f, const double *x, double *o, int64_t m) {
  uint64_t any = 0;
  for (int64_t j = 0; j < m; j++) any |= special64(x[j]) | special64(o[j]);
  if (!any) return;
  for (int64_t j = 0; j < m; j++)
    if (special64(x[j]) | special64(o[j])) o[j] = scalar64[f](x[j]);
}
static void fix1_32(am_vm_func f, const float *x, float *o, int64_t m) {
  uint32_t any = 0;
  for (int64_t j = 0; j < m; j++) any |= special32(x[j]) | special32(o[j]);
  if (!any) return;
  for (int64_t j = 0; j < m; j++)
    if (special32(x[j]) | special32(o[j])) o[j] = scalar32[f](x[j]);
}
static void fix2_64(am_vm_func f, const double *x, const double *y, int scalar, double *o,
                    int64_t m) {
  uint64_t any = 0;
  if (scalar) {
    if (special64(y[0])) any = 1;
    for (int64_t j = 0; j < m; j++) any |= special64(x[j]) | special64(o[j]);
  } else {
    for (int64_t j = 0; j < m; j++) any |= special64(x[j]) | special64(y[j]) | special64(o[j]);
  }
  if (!any) return;
  for (int64_t j = 0; j < m; j++) {
    double yj = y[scalar ? 0 : j];
    if (special64(x[j]) | special64(yj) | special64(o[j])) o[j] = scalar64_2[f](x[j], yj);
  }
}
static void fix2_32(am_vm_func f, const float *x, const float *y, int scalar, float *o, int64_t m) {
  uint32_t any = 0;
  if (scalar) {
    if (special32(y[0])) any = 1;
    for (int64_t j = 0; j < m; j++) any |= special32(x[j]) | special32(o[j]);
  } else {
    for (int64_t j = 0; j < m; j++) any |= special32(x[j]) | special32(y[j]) | special32(o[j]);
  }
  if (!any) return;
  for (int64_t j = 0; j < m; j++) {
    float yj = y[scalar ? 0 : j];
    if (special32(x[j]) | special32(yj) | special32(o[j])) o[j] = scalar32_2[f](x[j], yj);
  }
}

/* ---- the drivers: blocks through the provider, then the special lanes */
static void unary64(am_vm_func f, const double *x, double *o, int64_t n) {
  const slot *s = &slots[f][0];
  for (int64_t i = 0; i < n; i += BLOCK) {
    int64_t m = n - i < BLOCK ? n - i : BLOCK;
    if (s->run1(s->impl, x + i, o + i, m)) fix1_64(f, x + i, o + i, m);
  }
}
static void unary32(am_vm_func f, const float *x, float *o, int64_t n) {
  const slot *s = &slots[f][1];
  for (int64_t i = 0; i < n; i += BLOCK) {
    int64_t m = n - i < BLOCK ? n - i : BLOCK;
    if (s->promote) {
      double wide[BLOCK], out[BLOCK];
      for (int64_t j = 0; j < m; j++) wide[j] = x[i + j];
      slots[f][0].run1(slots[f][0].impl, wide, out, m);
      for (int64_t j = 0; j < m; j++) o[i + j] = (float)out[j];
      fix1_32(f, x + i, o + i, m); /* float32's specials, not float64's */
    } else if (s->run1(s->impl, x + i, o + i, m)) {
      fix1_32(f, x + i, o + i, m);
    }
  }
}
static void binary64(am_vm_func f, const double *x, const double *y, int scalar, double *o,
                     int64_t n) {
  const slot *s = &slots[f][0];
  for (int64_t i = 0; i < n; i += BLOCK) {
    int64_t m = n - i < BLOCK ? n - i : BLOCK;
    const double *yi = scalar ? y : y + i;
    if (s->run2(s->impl, x + i, yi, scalar, o + i, m)) fix2_64(f, x + i, yi, scalar, o + i, m);
  }
}
static void binary32(am_vm_func f, const float *x, const float *y, int scalar, float *o,
                     int64_t n) {
  const slot *s = &slots[f][1];
  for (int64_t i = 0; i < n; i += BLOCK) {
    int64_t m = n - i < BLOCK ? n - i : BLOCK;
    const float *yi = scalar ? y : y + i;
    if (s->promote) {
      double a[BLOCK], b[BLOCK], out[BLOCK];
      for (int64_t j = 0; j < m; j++) a[j] = x[i + j];
      for (int64_t j = 0; j < (scalar ? 1 : m); j++) b[j] = yi[j];
      slots[f][0].run2(slots[f][0].impl, a, b, scalar, out, m);
      for (int64_t j = 0; j < m; j++) o[i + j] = (float)out[j];
      fix2_32(f, x + i, yi, scalar, o + i, m);
    } else if (s->run2(s->impl, x + i, yi, scalar, o + i, m)) {
      fix2_32(f, x + i, yi, scalar, o + i, m);
    }
  }
}

/* One entry point per function and type (the loop signatures carry no
 * context). */
#define ENTRY1(F, NAME)                                                              \
  static void NAME##_f64(const void *x, void *o, int64_t n) { unary64(F, x, o, n); } \
  static void NAME##_f32(const void *x, void *o, int64_t n) { unary32(F, x, o, n); }
#define ENTRY2(F, NAME)                                                                  \
  static void NAME##_f64(const void *x, const void *y, int scalar, void *o, int64_t n) { \
    binary64(F, x, y, scalar, o, n);                                                     \
  }                                                                                      \
  static void NAME##_f32(const void *x, const void *y, int scalar, void *o, int64_t n) { \
    binary32(F, x, y, scalar, o, n);                                                     \
  }
ENTRY1(AM_VM_SIN, vm_sin)
ENTRY1(AM_VM_COS, vm_cos)
ENTRY1(AM_VM_TAN, vm_tan)
ENTRY1(AM_VM_ASIN, vm_asin)
ENTRY1(AM_VM_ACOS, vm_acos)
ENTRY1(AM_VM_ATAN, vm_atan)
ENTRY1(AM_VM_EXP, vm_exp)
ENTRY1(AM_VM_LOG, vm_log)
ENTRY1(AM_VM_LOG10, vm_log10)
ENTRY1(AM_VM_LOG2, vm_log2)
ENTRY1(AM_VM_LOG1P, vm_log1p)
ENTRY2(AM_VM_POW, vm_pow)
ENTRY2(AM_VM_ATAN2, vm_atan2)
#undef ENTRY1
#undef ENTRY2

static const am_vm_unary_fn entries1[AM_VM_COUNT][2] = {
    [AM_VM_SIN] = {vm_sin_f64, vm_sin_f32},       [AM_VM_COS] = {vm_cos_f64, vm_cos_f32},
    [AM_VM_TAN] = {vm_tan_f64, vm_tan_f32},       [AM_VM_ASIN] = {vm_asin_f64, vm_asin_f32},
    [AM_VM_ACOS] = {vm_acos_f64, vm_acos_f32},    [AM_VM_ATAN] = {vm_atan_f64, vm_atan_f32},
    [AM_VM_EXP] = {vm_exp_f64, vm_exp_f32},       [AM_VM_LOG] = {vm_log_f64, vm_log_f32},
    [AM_VM_LOG10] = {vm_log10_f64, vm_log10_f32}, [AM_VM_LOG2] = {vm_log2_f64, vm_log2_f32},
    [AM_VM_LOG1P] = {vm_log1p_f64, vm_log1p_f32},
};
static const am_vm_binary_fn entries2[AM_VM_COUNT][2] = {
    [AM_VM_POW] = {vm_pow_f64, vm_pow_f32},
    [AM_VM_ATAN2] = {vm_atan2_f64, vm_atan2_f32},
};

/* ---- libmvec (x86-64 glibc) */
#ifdef AM_VM_LIBMVEC
/* The calls themselves, in assembly. libmvec's functions take and return
 * their vectors in ymm0/ymm1 (AVX2) or zmm0/zmm1 (AVX-512). GCC passes a
 * __m256d argument there from a function with target("avx2"), but clang
 * (14 here; the wheel is built by zig's clang) decides by the file's own
 * target flags and passed them on the stack: pow and atan2 then computed
 * from stale registers (the load check caught them), and the unary ones
 * were right only because the argument happened to be left in zmm0. These
 * loops take plain pointers, so any compiler calls them the same way:
 *   loop1(x, o, nvec, fn):            o[k] = fn(x[k]) for k < nvec vectors
 *   loop2(x, y, o, nvec, fn, ystep):  o[k] = fn(x[k], y[k * ystep bytes])
 * They keep their pointers in callee-saved registers (fn may clobber the
 * rest), keep the stack 16-byte aligned at the call, and leave with
 * vzeroupper. Hidden: not exported from the library. */
#define AM_VM_ENTER(NAME) \
  ".text\n.p2align 4\n.globl " NAME "\n.hidden " NAME "\n.type " NAME ", @function\n" NAME ":\n"
#define AM_VM_LOOP1(NAME, REG, BYTES)                                           \
  AM_VM_ENTER(NAME)                                                             \
  "push %rbx\npush %r12\npush %r13\npush %r14\nsub $8, %rsp\n"                  \
  "mov %rdi, %rbx\nmov %rsi, %r12\nmov %rdx, %r13\nmov %rcx, %r14\n"            \
  "test %r13, %r13\njle 2f\n"                                                   \
  "1:\nvmovups (%rbx), %" REG "0\ncall *%r14\nvmovups %" REG                    \
  "0, (%r12)\n"                                                                 \
  "add $" BYTES ", %rbx\nadd $" BYTES                                           \
  ", %r12\ndec %r13\njnz 1b\n"                                                  \
  "2:\nadd $8, %rsp\npop %r14\npop %r13\npop %r12\npop %rbx\nvzeroupper\nret\n" \
  ".size " NAME ", .-" NAME "\n"
#define AM_VM_LOOP2(NAME, REG, BYTES)                                                              \
  AM_VM_ENTER(NAME)                                                                                \
  "push %rbx\npush %rbp\npush %r12\npush %r13\npush %r14\npush %r15\nsub $8, %rsp\n"               \
  "mov %rdi, %rbx\nmov %rsi, %r12\nmov %rdx, %r13\nmov %rcx, %r14\nmov %r8, %r15\nmov %r9, %rbp\n" \
  "test %r14, %r14\njle 2f\n"                                                                      \
  "1:\nvmovups (%rbx), %" REG "0\nvmovups (%r12), %" REG                                           \
  "1\ncall *%r15\n"                                                                                \
  "vmovups %" REG                                                                                  \
  "0, (%r13)\n"                                                                                    \
  "add $" BYTES ", %rbx\nadd %rbp, %r12\nadd $" BYTES                                              \
  ", %r13\ndec %r14\njnz 1b\n"                                                                     \
  "2:\nadd $8, %rsp\npop %r15\npop %r14\npop %r13\npop %r12\npop %rbp\npop %rbx\n"                 \
  "vzeroupper\nret\n.size " NAME ", .-" NAME "\n"
__asm__(AM_VM_LOOP1("am_vm_loop1_ymm", "ymm", "32") AM_VM_LOOP1("am_vm_loop1_zmm", "zmm", "64")
            AM_VM_LOOP2("am_vm_loop2_ymm", "ymm", "32")
                AM_VM_LOOP2("am_vm_loop2_zmm", "zmm", "64") ".text\n");
void am_vm_loop1_ymm(const void *x, void *o, int64_t nvec, generic_fn fn);
void am_vm_loop1_zmm(const void *x, void *o, int64_t nvec, generic_fn fn);
void am_vm_loop2_ymm(const void *x, const void *y, void *o, int64_t nvec, generic_fn fn,
                     int64_t ystep);
void am_vm_loop2_zmm(const void *x, const void *y, void *o, int64_t nvec, generic_fn fn,
                     int64_t ystep);

/* Special lanes of one vector at p (see special64) as a bit mask:
 * AVX-512's fpclass (NaN, zeros, infinities, denormals: 0xbf), AVX2's range
 * compare of |v| (a NaN fails it). */
__attribute__((target("avx2,fma"))) static inline int special_avx2_pd(const double *p) {
  __m256d a = _mm256_andnot_pd(_mm256_set1_pd(-0.0), _mm256_loadu_pd(p));
  __m256d ok = _mm256_and_pd(_mm256_cmp_pd(a, _mm256_set1_pd(DBL_MIN), _CMP_GE_OQ),
                             _mm256_cmp_pd(a, _mm256_set1_pd(DBL_MAX), _CMP_LE_OQ));
  return _mm256_movemask_pd(ok) ^ 0xf;
}
__attribute__((target("avx2,fma"))) static inline int special_avx2_ps(const float *p) {
  __m256 a = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_loadu_ps(p));
  __m256 ok = _mm256_and_ps(_mm256_cmp_ps(a, _mm256_set1_ps(FLT_MIN), _CMP_GE_OQ),
                            _mm256_cmp_ps(a, _mm256_set1_ps(FLT_MAX), _CMP_LE_OQ));
  return _mm256_movemask_ps(ok) ^ 0xff;
}
__attribute__((target("avx512f,avx512dq"))) static inline int special_avx512_pd(const double *p) {
  return _mm512_fpclass_pd_mask(_mm512_loadu_pd(p), 0xbf);
}
__attribute__((target("avx512f,avx512dq"))) static inline int special_avx512_ps(const float *p) {
  return _mm512_fpclass_ps_mask(_mm512_loadu_ps(p), 0xbf);
}

/* The block functions of one vector width and type: whole vectors through
 * the loop, then the tail padded with its first element (so the pad lanes
 * compute an ordinary value, and are special only where that element is)
 * as one more vector; then one pass over the block (in L1) for special
 * lanes, a vector at a time. A scalar y is spread over one vector and read
 * with step 0. */
#define MVEC_BLOCKS(NAME, TARGET, T, LANES, LOOP1, LOOP2, SPECIAL, VSPECIAL)                     \
  __attribute__((target(TARGET))) static int NAME##_scan(const T *x, const T *y, int ys,         \
                                                         const T *o, int64_t m) {                \
    int any = y && !ys ? (int)SPECIAL(y[0]) : 0;                                                 \
    int64_t j = 0;                                                                               \
    for (; j + LANES <= m; j += LANES) {                                                         \
      any |= VSPECIAL(x + j) | VSPECIAL(o + j);                                                  \
      if (y && ys) any |= VSPECIAL(y + j);                                                       \
    }                                                                                            \
    for (; j < m; j++)                                                                           \
      any |= (int)(SPECIAL(x[j]) | SPECIAL(o[j]) | (y && ys ? SPECIAL(y[j]) : 0));               \
    return any != 0;                                                                             \
  }                                                                                              \
  __attribute__((target(TARGET))) static int NAME##_1(generic_fn impl, const void *xv, void *ov, \
                                                      int64_t m) {                               \
    const T *x = xv;                                                                             \
    T *o = ov;                                                                                   \
    int64_t whole = m / LANES, i = whole * LANES;                                                \
    LOOP1(x, o, whole, impl);                                                                    \
    if (i < m) {                                                                                 \
      T in[LANES], out[LANES];                                                                   \
      for (int j = 0; j < LANES; j++) in[j] = x[i + (i + j < m ? j : 0)];                        \
      LOOP1(in, out, 1, impl);                                                                   \
      for (int j = 0; i + j < m; j++) o[i + j] = out[j];                                         \
    }                                                                                            \
    return NAME##_scan(x, NULL, 0, o, m);                                                        \
  }                                                                                              \
  __attribute__((target(TARGET))) static int NAME##_2(                                           \
      generic_fn impl, const void *xv, const void *yv, int scalar, void *ov, int64_t m) {        \
    const T *x = xv, *y = yv;                                                                    \
    T *o = ov, spread[LANES];                                                                    \
    int64_t whole = m / LANES, i = whole * LANES;                                                \
    for (int j = 0; j < LANES; j++) spread[j] = y[0];                                            \
    LOOP2(x, scalar ? spread : y, o, whole, impl, scalar ? 0 : (int64_t)sizeof(T) * LANES);      \
    if (i < m) {                                                                                 \
      T a[LANES], b[LANES], out[LANES];                                                          \
      for (int j = 0; j < LANES; j++) {                                                          \
        int64_t k = i + (i + j < m ? j : 0);                                                     \
        a[j] = x[k];                                                                             \
        b[j] = y[scalar ? 0 : k];                                                                \
      }                                                                                          \
      LOOP2(a, b, out, 1, impl, 0);                                                              \
      for (int j = 0; i + j < m; j++) o[i + j] = out[j];                                         \
    }                                                                                            \
    return NAME##_scan(x, y, !scalar, o, m);                                                     \
  }
MVEC_BLOCKS(avx2_f64, "avx2,fma", double, 4, am_vm_loop1_ymm, am_vm_loop2_ymm, special64,
            special_avx2_pd)
MVEC_BLOCKS(avx2_f32, "avx2,fma", float, 8, am_vm_loop1_ymm, am_vm_loop2_ymm, special32,
            special_avx2_ps)
MVEC_BLOCKS(avx512_f64, "avx512f,avx512dq", double, 8, am_vm_loop1_zmm, am_vm_loop2_zmm, special64,
            special_avx512_pd)
MVEC_BLOCKS(avx512_f32, "avx512f,avx512dq", float, 16, am_vm_loop1_zmm, am_vm_loop2_zmm, special32,
            special_avx512_ps)

/* float32 through the float64 function: the block widened into a buffer
 * (in L1), through the float64 loop, rounded back; the special lanes are
 * float32's (a float64 result may round to a float32 infinity, zero or
 * subnormal), found by the float32 scan. */
#define MVEC_WIDEN(NAME, TARGET, WIDE, SCAN)                                                     \
  __attribute__((target(TARGET))) static int NAME##_1(generic_fn impl, const void *xv, void *ov, \
                                                      int64_t m) {                               \
    const float *x = xv;                                                                         \
    float *o = ov;                                                                               \
    double a[BLOCK], r[BLOCK];                                                                   \
    for (int64_t j = 0; j < m; j++) a[j] = x[j];                                                 \
    WIDE##_1(impl, a, r, m);                                                                     \
    for (int64_t j = 0; j < m; j++) o[j] = (float)r[j];                                          \
    return SCAN(x, NULL, 0, o, m);                                                               \
  }                                                                                              \
  __attribute__((target(TARGET))) static int NAME##_2(                                           \
      generic_fn impl, const void *xv, const void *yv, int scalar, void *ov, int64_t m) {        \
    const float *x = xv, *y = yv;                                                                \
    float *o = ov;                                                                               \
    double a[BLOCK], b[BLOCK], r[BLOCK];                                                         \
    for (int64_t j = 0; j < m; j++) a[j] = x[j];                                                 \
    for (int64_t j = 0; j < (scalar ? 1 : m); j++) b[j] = y[j];                                  \
    WIDE##_2(impl, a, b, scalar, r, m);                                                          \
    for (int64_t j = 0; j < m; j++) o[j] = (float)r[j];                                          \
    return SCAN(x, y, !scalar, o, m);                                                            \
  }
/* GCC 12 takes the buffers handed to the float64 block (a const pointer)
 * for reads of uninitialized memory; the block reads only the m written. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
MVEC_WIDEN(avx2_widen, "avx2,fma", avx2_f64, avx2_f32_scan)
MVEC_WIDEN(avx512_widen, "avx512f,avx512dq", avx512_f64, avx512_f32_scan)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* AVX-512 (zmm, 'e' in the vector ABI's names) where the CPU has it: a
 * quarter faster than AVX2 (ymm, 'd') per element on the development
 * machine's Xeon; same accuracy. -DAM_VM_NO_AVX512 builds the AVX2 path
 * alone, which is how vector_math_test checks it on an AVX-512 machine. */
static void load_libmvec(int avx512) {
  int avx2, has512;
  am_cpu_isa(&avx2, &has512);
  avx512 = avx512 && has512;
  if (!avx2 && !avx512) return;
  /* RTLD_LOCAL: its symbols stay out of the global namespace; never
   * closed: its functions are used for the life of the process. */
  void *lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  widen1 = avx512 ? avx512_widen_1 : avx2_widen_1;
  widen2 = avx512 ? avx512_widen_2 : avx2_widen_2;
#ifdef AM_VM_BUFFER_WIDEN /* the drivers' way, as on vForce: for the test */
  widen1 = NULL;
  widen2 = NULL;
#endif
  for (int f = AM_VM_SIN; f < AM_VM_COUNT; f++) {
    for (int f32 = 0; f32 < 2; f32++) {
      /* _ZGV<isa>N<lanes><v per argument>_<name>[f]: the AVX-512 one, else
       * the AVX2 one. */
      for (int wide = avx512; wide >= 0; wide--) {
        if (!wide && !avx2) break;
        char symbol[64];
        snprintf(symbol, sizeof symbol, "_ZGV%cN%d%s_%s%s", wide ? 'e' : 'd',
                 (wide ? 8 : 4) * (f32 ? 2 : 1), is_binary(f) ? "vv" : "v", names[f],
                 f32 ? "f" : "");
        void *impl = dlsym(lib, symbol);
        if (!impl) continue;
        slot *s = &slots[f][f32];
        memcpy(&s->impl, &impl, sizeof impl); /* a data pointer to a function pointer */
        if (wide) {
          s->run1 = f32 ? avx512_f32_1 : avx512_f64_1;
          s->run2 = f32 ? avx512_f32_2 : avx512_f64_2;
          s->provider = "libmvec AVX-512";
        } else {
          s->run1 = f32 ? avx2_f32_1 : avx2_f64_1;
          s->run2 = f32 ? avx2_f32_2 : avx2_f64_2;
          s->provider = "libmvec AVX2";
        }
        break;
      }
    }
  }
}
#endif

/* ---- vForce (Apple's Accelerate) */
#ifdef AM_VM_VFORCE
typedef void (*vf1_64)(double *, const double *, const int *);
typedef void (*vf1_32)(float *, const float *, const int *);
typedef void (*vf2_64)(double *, const double *, const double *, const int *);
typedef void (*vf2_32)(float *, const float *, const float *, const int *);

static int vf_f64_1(generic_fn impl, const void *x, void *o, int64_t m) {
  int k = (int)m;
  ((vf1_64)impl)(o, x, &k);
  return 1; /* the driver looks at every block */
}
static int vf_f32_1(generic_fn impl, const void *x, void *o, int64_t m) {
  int k = (int)m;
  ((vf1_32)impl)(o, x, &k);
  return 1;
}
/* vvpow(z, y, x) is z = x^y (exponents first) and vvatan2(z, y, x) is
 * atan2(y, x): both are called (o, a, b) where pow's a is the exponent, so
 * pow's entry swaps its arguments before it gets here (pow_*_2). A scalar
 * argument is spread over a block first. */
static int vf_f64_2(generic_fn impl, const void *x, const void *y, int scalar, void *o, int64_t m) {
  double spread[BLOCK];
  if (scalar) {
    for (int64_t j = 0; j < m; j++) spread[j] = *(const double *)y;
    y = spread;
  }
  int k = (int)m;
  ((vf2_64)impl)(o, x, y, &k);
  return 1;
}
static int vf_f32_2(generic_fn impl, const void *x, const void *y, int scalar, void *o, int64_t m) {
  float spread[BLOCK];
  if (scalar) {
    for (int64_t j = 0; j < m; j++) spread[j] = *(const float *)y;
    y = spread;
  }
  int k = (int)m;
  ((vf2_32)impl)(o, x, y, &k);
  return 1;
}
static int vf_pow_f64_2(generic_fn impl, const void *x, const void *y, int scalar, void *o,
                        int64_t m) {
  double spread[BLOCK];
  if (scalar) {
    for (int64_t j = 0; j < m; j++) spread[j] = *(const double *)y;
    y = spread;
  }
  int k = (int)m;
  ((vf2_64)impl)(o, y, x, &k); /* vvpow(z, exponents, bases) */
  return 1;
}
static int vf_pow_f32_2(generic_fn impl, const void *x, const void *y, int scalar, void *o,
                        int64_t m) {
  float spread[BLOCK];
  if (scalar) {
    for (int64_t j = 0; j < m; j++) spread[j] = *(const float *)y;
    y = spread;
  }
  int k = (int)m;
  ((vf2_32)impl)(o, y, x, &k); /* vvpowf(z, exponents, bases) */
  return 1;
}

static void load_vforce(void) {
  static const struct {
    am_vm_func f;
    generic_fn f64, f32;
  } table[] = {
      {AM_VM_SIN, (generic_fn)vvsin, (generic_fn)vvsinf},
      {AM_VM_COS, (generic_fn)vvcos, (generic_fn)vvcosf},
      {AM_VM_TAN, (generic_fn)vvtan, (generic_fn)vvtanf},
      {AM_VM_ASIN, (generic_fn)vvasin, (generic_fn)vvasinf},
      {AM_VM_ACOS, (generic_fn)vvacos, (generic_fn)vvacosf},
      {AM_VM_ATAN, (generic_fn)vvatan, (generic_fn)vvatanf},
      {AM_VM_EXP, (generic_fn)vvexp, (generic_fn)vvexpf},
      {AM_VM_LOG, (generic_fn)vvlog, (generic_fn)vvlogf},
      {AM_VM_LOG10, (generic_fn)vvlog10, (generic_fn)vvlog10f},
      {AM_VM_LOG2, (generic_fn)vvlog2, (generic_fn)vvlog2f},
      {AM_VM_LOG1P, (generic_fn)vvlog1p, (generic_fn)vvlog1pf},
      {AM_VM_POW, (generic_fn)vvpow, (generic_fn)vvpowf},
      {AM_VM_ATAN2, (generic_fn)vvatan2, (generic_fn)vvatan2f},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    am_vm_func f = table[i].f;
    for (int f32 = 0; f32 < 2; f32++) {
      slot *s = &slots[f][f32];
      s->impl = f32 ? table[i].f32 : table[i].f64;
      s->run1 = f32 ? vf_f32_1 : vf_f64_1;
      if (f == AM_VM_POW)
        s->run2 = f32 ? vf_pow_f32_2 : vf_pow_f64_2;
      else
        s->run2 = f32 ? vf_f32_2 : vf_f64_2;
      s->provider = "vForce";
    }
  }
}
#endif

/* ---- the check at load: each vector function against libm on values of
 * every magnitude (and a few grids for pow and atan2); one that differs by
 * more than AM_VM_MAX_ULPS anywhere, or fails to reproduce a special value
 * through the driver, is dropped. This catches a library whose functions are
 * worse than the ones vector_math_test.c measured (another glibc, another
 * macOS), at the cost of a few microseconds once. */
static const double probes[] = {
    0.0,    -0.0,  1e-310, -1e-310, 1e-300, -1e-300, 1e-20,  -1e-20,   1e-8,      -1e-8, 0.001,
    -0.001, 0.1,   -0.1,   0.25,    -0.25,  0.5,     -0.5,   0.7,      -0.7,      0.99,  -0.99,
    1.0,    -1.0,  1.5,    -1.5,    2.0,    -2.0,    3.0,    -3.0,     3.14159,   10.0,  -10.0,
    50.0,   -50.0, 85.0,   -85.0,   100.0,  -100.0,  700.0,  -700.0,   1e4,       -1e4,  1e6,
    1e10,   -1e10, 1e22,   1e100,   -1e100, 1e300,   -1e300, INFINITY, -INFINITY, NAN,
};
#define PROBES ((int)(sizeof probes / sizeof probes[0]))

int64_t am_vm_ulps64(double a, double b) {
  int64_t ia, ib;
  memcpy(&ia, &a, 8);
  memcpy(&ib, &b, 8);
  if (ia < 0) ia = INT64_MIN - ia;
  if (ib < 0) ib = INT64_MIN - ib;
  return ia > ib ? ia - ib : ib - ia;
}
int64_t am_vm_ulps32(float a, float b) {
  int32_t ia, ib;
  memcpy(&ia, &a, 4);
  memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return ia > ib ? (int64_t)ia - ib : (int64_t)ib - ia;
}
static int agrees64(double got, double want) {
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
  if (!isfinite(want) || want == 0 || !isfinite(got) || got == 0)
    return memcmp(&got, &want, 8) == 0;
  return am_vm_ulps64(got, want) <= AM_VM_MAX_ULPS;
}
static int agrees32(float got, float want) {
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
  if (!isfinite(want) || want == 0 || !isfinite(got) || got == 0)
    return memcmp(&got, &want, 4) == 0;
  return am_vm_ulps32(got, want) <= AM_VM_MAX_ULPS;
}

static int passes(am_vm_func f, int f32) {
  /* Unary: each probe; binary: each pair. On the heap: ~100 KiB. */
  int n = is_binary(f) ? PROBES * PROBES : PROBES;
  double *x = malloc(sizeof(double) * 3 * (size_t)n);
  float *xs = malloc(sizeof(float) * 3 * (size_t)n);
  if (!x || !xs) {
    free(x);
    free(xs);
    return 0;
  }
  double *y = x + n, *o = y + n;
  float *ys = xs + n, *os = ys + n;
  for (int i = 0; i < n; i++) {
    x[i] = is_binary(f) ? probes[i / PROBES] : probes[i];
    y[i] = is_binary(f) ? probes[i % PROBES] : 0.0;
    xs[i] = (float)x[i];
    ys[i] = (float)y[i];
  }
  int ok = 1;
  if (f32) {
    if (is_binary(f))
      entries2[f][1](xs, ys, 0, os, n);
    else
      entries1[f][1](xs, os, n);
    for (int i = 0; i < n && ok; i++)
      ok = agrees32(os[i], is_binary(f) ? scalar32_2[f](xs[i], ys[i]) : scalar32[f](xs[i]));
  } else {
    if (is_binary(f))
      entries2[f][0](x, y, 0, o, n);
    else
      entries1[f][0](x, o, n);
    for (int i = 0; i < n && ok; i++)
      ok = agrees64(o[i], is_binary(f) ? scalar64_2[f](x[i], y[i]) : scalar64[f](x[i]));
  }
  free(x);
  free(xs);
  return ok;
}

static void load(void) {
  /* ARROWMETAL_VECTOR_MATH=0: scalar libm everywhere (A/B runs, and a way
   * out should a vector library misbehave). */
  const char *setting = getenv("ARROWMETAL_VECTOR_MATH");
  if (setting && strcmp(setting, "0") == 0) return;
#if defined(AM_VM_LIBMVEC)
#ifdef AM_VM_NO_AVX512
  load_libmvec(0);
#else
  load_libmvec(1);
#endif
#elif defined(AM_VM_VFORCE)
  load_vforce();
#endif
  for (int f = AM_VM_SIN; f < AM_VM_COUNT; f++) {
    slot *wide = &slots[f][0], *narrow = &slots[f][1];
    if (!wide->impl || !passes(f, 0)) wide->impl = NULL;
    if (promoted[f]) {
      /* The float64 function's, when it passed, through the provider's
       * widening blocks, else widened by the drivers. */
      narrow->impl = wide->impl;
      narrow->widened = 1;
      narrow->provider = wide->provider;
      narrow->run1 = widen1;
      narrow->run2 = widen2;
      narrow->promote = !widen1;
    }
    if (narrow->impl && !passes(f, 1)) narrow->impl = NULL;
  }
}

am_vm_unary_fn am_vm_unary(am_vm_func f, int f32) {
  if ((unsigned)f >= AM_VM_COUNT || f == AM_VM_NONE || is_binary(f)) return NULL;
  pthread_once(&once, load);
  return slots[f][f32 != 0].impl ? entries1[f][f32 != 0] : NULL;
}

am_vm_binary_fn am_vm_binary(am_vm_func f, int f32) {
  if ((unsigned)f >= AM_VM_COUNT || !is_binary(f)) return NULL;
  pthread_once(&once, load);
  return slots[f][f32 != 0].impl ? entries2[f][f32 != 0] : NULL;
}

const char *am_vm_provider(am_vm_func f, int f32) {
  if ((unsigned)f >= AM_VM_COUNT || f == AM_VM_NONE) return NULL;
  pthread_once(&once, load);
  const slot *s = &slots[f][f32 != 0];
  if (!s->impl) return NULL;
  if (!s->widened) return s->provider;
  /* The float64 function's provider, widened. */
  const char *wide = slots[f][0].provider;
  return strcmp(wide, "libmvec AVX2") == 0      ? "libmvec AVX2 f64"
         : strcmp(wide, "libmvec AVX-512") == 0 ? "libmvec AVX-512 f64"
                                                : "vForce f64";
}
