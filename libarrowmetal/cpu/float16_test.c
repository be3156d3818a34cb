/* The CPU's branch-free float16 casts (float16_fast.h) against the shared
 * conversion of core/float16.h (the GPU kernels' and pyarrow's rounding),
 * bit for bit, over every input: the 2^16 float16 widened, the 2^32 float32
 * narrowed. Prints the counts compared and "ok". */
#include <stdint.h>
#include <stdio.h>

#include "core/float16.h"
#include "float16_fast.h"

typedef int32_t am_i32;
typedef uint32_t am_u32;
typedef uint64_t am_u64;
#define DEVFN static inline
AM_FLOAT16_DEFS
#undef DEVFN

int main(void) {
  uint64_t bad = 0;
  for (uint32_t h = 0; h < 1u << 16; h++)
    if (f32_of_f16(h) != am_f16_to_f32bits(h)) {
      if (bad++ < 5) printf("widen %04x: %08x, not %08x\n", h, f32_of_f16(h), am_f16_to_f32bits(h));
    }
  /* blocks of 2^16, each compared at once: the loop vectorizes as the cast's does */
  for (uint64_t base = 0; base < (uint64_t)1 << 32; base += 1u << 16) {
    uint32_t differ = 0;
    for (uint32_t i = 0; i < 1u << 16; i++) {
      uint32_t f = (uint32_t)base + i;
      differ |= f16_of_f32(f) ^ am_f16_from_f32bits(f);
    }
    for (uint32_t i = 0; differ && i < 1u << 16; i++) {
      uint32_t f = (uint32_t)base + i;
      if (f16_of_f32(f) != am_f16_from_f32bits(f) && bad++ < 5)
        printf("narrow %08x: %04x, not %04x\n", f, f16_of_f32(f), am_f16_from_f32bits(f));
    }
  }
  printf("65536 float16 and 4294967296 float32 compared, %llu differ\n", (unsigned long long)bad);
  if (bad) return 1;
  printf("ok\n");
  return 0;
}
