/* The CPU backend's vector math: the transcendental functions of the op
 * tables (sin ... log1p, pow, atan2) over whole blocks of float32 or float64
 * elements, from the platform's vector library where one is there and
 * passes a check, else none (the caller keeps its scalar libm loop).
 *
 * - Linux x86-64 with glibc: libmvec's AVX2+FMA or AVX-512 variants
 *   (_ZGVdN4v_sin, _ZGVeN16v_sinf, _ZGVdN4vv_pow, ...), found with dlopen and
 *   dlsym, so the library does not depend on libmvec at link time and an
 *   older glibc (before 2.35 libmvec has sin, cos, exp, log and pow only)
 *   loses only the functions it lacks.
 * - Apple: Accelerate's vForce (vvsin, vvsinf, vvpow, vvatan2, ...).
 * - Elsewhere, or with ARROWMETAL_VECTOR_MATH=0: none.
 *
 * pyarrow computes these with scalar libm and the conformance cases allow 4
 * units in the last place (ULPs), so results are kept close to libm's:
 * - Every lane whose argument or result is not a normal number (zero,
 *   subnormal, infinite, NaN) is recomputed with scalar libm, so every
 *   special value (exp's overflow to inf and underflow to 0, log(0), asin(2),
 *   sin(-0.0), subnormals a vector library may flush) is libm's, bit for bit.
 * - The rest differ from libm by at most AM_VM_MAX_ULPS (measured by
 *   vector_math_test.c over special values and random samples); each
 *   function is checked once more when it is loaded, on values of every
 *   magnitude, and left out when it disagrees with libm there. */
#ifndef AM_CPU_VECTOR_MATH_H
#define AM_CPU_VECTOR_MATH_H

#include <stdint.h>

/* The functions, unary ones first. AM_VM_NONE: an op the layer has none for. */
typedef enum {
  AM_VM_NONE,
  AM_VM_SIN,
  AM_VM_COS,
  AM_VM_TAN,
  AM_VM_ASIN,
  AM_VM_ACOS,
  AM_VM_ATAN,
  AM_VM_EXP,
  AM_VM_LOG,
  AM_VM_LOG10,
  AM_VM_LOG2,
  AM_VM_LOG1P,
  AM_VM_POW, /* the binary ones: pow(x, y), atan2(x, y) */
  AM_VM_ATAN2,
  AM_VM_COUNT
} am_vm_func;

/* The most ULPs a vector result may differ from libm's (for a normal
 * argument and a normal result; all others are libm's): the conformance
 * cases' tolerance. Measured on glibc 2.36 (vector_math_test.c): 1-3 for
 * every function but cos float64, which reaches 4 about once in 7 million
 * arguments near multiples of pi; the float32 functions that reached 4
 * (tan, log, atan2) go through float64 instead and stay within 1. */
#define AM_VM_MAX_ULPS 4

/* o[i] = f(x[i]) for i in [0, n), float (f32) or double; x and o do not
 * overlap. The signature of cpu/unary.c's loops. */
typedef void (*am_vm_unary_fn)(const void *x, void *o, int64_t n);
/* o[i] = f(x[i], y[i]), or f(x[i], y[0]) with `scalar`. The signature of
 * cpu/binary.c's loops. */
typedef void (*am_vm_binary_fn)(const void *x, const void *y, int scalar, void *o, int64_t n);

/* The vector version of unary function f for float32 (f32 = 1) or float64,
 * NULL where there is none (then the caller computes with scalar libm).
 * The first call loads the library and checks each function; thread-safe. */
am_vm_unary_fn am_vm_unary(am_vm_func f, int f32);
am_vm_binary_fn am_vm_binary(am_vm_func f, int f32);

/* Where f's vector version comes from ("libmvec AVX2", "vForce", ...), or
 * NULL when there is none: for tests and benchmark notes. */
const char *am_vm_provider(am_vm_func f, int f32);
/* libm's name of f ("sin", "log", "pow", ...). */
const char *am_vm_name(am_vm_func f);

/* How many float values (the ordered integers of their bits) lie between a
 * and b: the load-time check's distance, and the test's. */
int64_t am_vm_ulps64(double a, double b);
int64_t am_vm_ulps32(float a, float b);

#endif
