/* float16 conversions for host code: core/float16.h's macro text compiled
 * as C. */
#include "float16.h"

#include <string.h>

typedef int32_t am_i32;
typedef uint32_t am_u32;
typedef uint64_t am_u64;
#define DEVFN static inline
AM_FLOAT16_DEFS
#undef DEVFN

uint32_t am_float16_to_f32bits(uint32_t h) { return am_f16_to_f32bits(h); }
uint64_t am_float16_to_f64bits(uint32_t h) { return am_f16_to_f64bits(h); }
uint32_t am_float16_from_f32bits(uint32_t f) { return am_f16_from_f32bits(f); }
uint32_t am_float16_from_f64bits(uint64_t d) { return am_f16_from_f64bits(d); }

double am_float16_value(uint16_t h) {
  uint64_t bits = am_f16_to_f64bits(h);
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

uint16_t am_float16_of(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return (uint16_t)am_f16_from_f64bits(bits);
}
