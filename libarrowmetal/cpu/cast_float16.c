/* The CPU's float16 casts, in cast.c's kernel shape: float16 <-> float64
 * by core/float16.h's steps on the bits (the GPU kernels'), float16 <->
 * float32 by float16_fast.h's branch-free ones (the same results, in loops
 * that vectorize). They never fail: every float16 widens exactly, and every
 * float rounds to a float16 or an infinity. */
#include <string.h>

#include "core/float16.h"
#include "cpu.h"
#include "float16_fast.h"

typedef int32_t am_i32;
typedef uint32_t am_u32;
typedef uint64_t am_u64;
#define DEVFN static inline __attribute__((unused)) /* the float32 pair: float16_fast.h's */
AM_FLOAT16_DEFS
#undef DEVFN

#define DEFINE_CONVERT(NAME, FROM, TO, EXPR)                                          \
  AM_CPU_CLONES static int64_t NAME(const void *src, void *dst, const uint8_t *valid, \
                                    int64_t vpos, int64_t n, int safe) {              \
    (void)valid, (void)vpos, (void)safe;                                              \
    const FROM *x = src;                                                              \
    TO *o = dst;                                                                      \
    for (int64_t i = 0; i < n; i++) o[i] = EXPR;                                      \
    return -1;                                                                        \
  }
DEFINE_CONVERT(f16_to_f32, uint16_t, float, bits_f32(f32_of_f16(x[i])))
DEFINE_CONVERT(f16_to_f64, uint16_t, double, bits_f64(am_f16_to_f64bits(x[i])))
DEFINE_CONVERT(f32_to_f16, float, uint16_t, (uint16_t)f16_of_f32(f32_bits(x[i])))
DEFINE_CONVERT(f64_to_f16, double, uint16_t, (uint16_t)am_f16_from_f64bits(f64_bits(x[i])))
#undef DEFINE_CONVERT

am_cpu_cast_fn am_cpu_float16_cast(am_type from, am_type to) {
  if (from == AM_FLOAT16)
    return to == AM_FLOAT32 ? f16_to_f32 : to == AM_FLOAT64 ? f16_to_f64 : NULL;
  if (to == AM_FLOAT16)
    return from == AM_FLOAT32 ? f32_to_f16 : from == AM_FLOAT64 ? f64_to_f16 : NULL;
  return NULL;
}
