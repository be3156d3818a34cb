/* CPUID and XGETBV themselves, not __builtin_cpu_supports: that answered 0
 * for everything in a library built by zig's clang (the wheel's compiler). */
#include "isa.h"

#include <stdatomic.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

static int ask(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  int fma = (c >> 12) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
  if (!osxsave || !avx) return 0;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  (void)hi;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  int avx2 = (lo & 0x6) == 0x6 && fma && ((b >> 5) & 1);
  int avx512 = avx2 && (lo & 0xe6) == 0xe6 && ((b >> 16) & 1) && ((b >> 17) & 1);
  return avx2 | avx512 << 1;
}
#else
static int ask(void) { return 0; }
#endif

void am_cpu_isa(int *avx2, int *avx512) {
  /* bit 2: known; racing first calls both ask and store the same answer */
  static _Atomic int known;
  int f = atomic_load_explicit(&known, memory_order_relaxed);
  if (!f) {
    f = ask() | 4;
    atomic_store_explicit(&known, f, memory_order_relaxed);
  }
  *avx2 = f & 1;
  *avx512 = (f >> 1) & 1;
}
