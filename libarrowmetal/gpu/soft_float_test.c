/* Checks the integer-only float conversions that the Metal kernels use in
 * place of double (dialect.c, am_dialect_soft_float_source) against the C
 * compiler's own float <-> double conversions (IEEE, round to nearest even).
 * test_kernel_source.py writes the helpers to am_soft_float.inc first. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int32_t am_i32;
typedef uint32_t am_u32;
typedef uint64_t am_u64;
#define DEVFN static inline
#include "am_soft_float.inc"

static uint64_t state = 0x9e3779b97f4a7c15u;
static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static int failures;

static void widen(uint32_t f) {
  float x;
  memcpy(&x, &f, 4);
  double d = x;
  uint64_t want;
  memcpy(&want, &d, 8);
  uint64_t got = am_soft_f32bits_to_f64bits(f);
  if (got != want && failures++ < 10)
    printf("widen %08x: got %016llx want %016llx\n", f, (unsigned long long)got,
           (unsigned long long)want);
}

static void narrow(uint64_t b) {
  double d;
  memcpy(&d, &b, 8);
  float x = (float)d;
  uint32_t want;
  memcpy(&want, &x, 4);
  uint32_t got = am_soft_f64bits_to_f32bits(b);
  if (got != want && failures++ < 10)
    printf("narrow %016llx: got %08x want %08x\n", (unsigned long long)b, got, want);
}

int main(void) {
  /* Every float with a stride, and the neighbourhood of each exponent. */
  for (uint64_t f = 0; f <= 0xffffffffu; f += 251) widen((uint32_t)f);
  for (uint32_t e = 0; e < 256; e++)
    for (uint32_t m = 0; m < 64; m++) {
      widen(e << 23 | m);
      widen(e << 23 | (0x7fffffu - m));
      widen(0x80000000u | e << 23 | m);
    }
  /* Doubles: random bits, doubles near float's range, and exact ties. */
  for (int i = 0; i < 4000000; i++) {
    uint64_t r = next();
    narrow(r);
    uint64_t e = 1023 - 160 + (r >> 56) % 300; /* exponents around float's */
    narrow((r & 0x800fffffffffffffu) | e << 52);
    uint64_t tie = (r & 0x800fffffe0000000u) | 0x10000000u; /* half a float ulp */
    narrow((tie & 0x800fffffffffffffu) | e << 52);
  }
  for (uint64_t e = 0; e < 2048; e++) {
    const uint64_t ms[] = {0,
                           1,
                           0x10000000u,
                           0x10000001u,
                           0xfffffffffffffu,
                           0x8000000000000u,
                           0xfffffe0000000u,
                           0xffffff0000000u,
                           0x7ffff0000000u};
    for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
      narrow(e << 52 | ms[j]);
      narrow(0x8000000000000000u | e << 52 | ms[j]);
    }
  }
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
