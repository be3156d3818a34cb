/* float16 (IEEE 754 binary16, Arrow format "e"), written once for every
 * backend: its conversions to and from float32 and float64, on bit
 * patterns.
 *
 * pyarrow converts float16 in software (arrow/util/float16.cc, read, not
 * copied): a float or double rounds to the nearest float16, ties to even,
 * once (a double never goes through float), past the largest finite value
 * (65504) to an infinity, below half the smallest subnormal (2^-25) to a
 * zero of its sign; a NaN keeps its sign and the top ten bits of its
 * payload, and one whose top bits are all zero becomes payload 1, so that
 * it stays a NaN; nothing is quieted. Widening is exact, NaN payloads
 * shifted up, not quieted. Hardware conversions (x86's F16C, CUDA's
 * __float2half, Metal's half) may quiet signaling NaNs or make them
 * canonical, so every backend converts with the integer steps below.
 *
 * The functions are macro text in the C subset that C, CUDA C++ and the
 * Metal Shading Language share (AM_FLOAT16_DEFS): the CPU compiles them as
 * C (DEVFN = static inline; cpu/cast_float16.c, and core/types.c for host
 * code: am_float16_value, am_float16_of) and
 * the kernel source emits them with AM_FLOAT16_TEXT
 * (gpu/kernel_source.c's float16 casts). They take and return bits as
 * am_u32 (a float16 in the low 16 bits, or a float32) and am_u64 (a
 * float64): the callers reinterpret floats (memcpy on the CPU, F32_BITS /
 * BITS_F64 in kernels). */
#ifndef AM_CORE_FLOAT16_H
#define AM_CORE_FLOAT16_H

#define AM_FLOAT16_STR(...) #__VA_ARGS__
#define AM_FLOAT16_TEXT(...) AM_FLOAT16_STR(__VA_ARGS__)

/* am_f16_to_f32bits, am_f16_to_f64bits: float16 bits h widened exactly.
 * am_f16_from_f32bits, am_f16_from_f64bits: a float's bits rounded to
 * float16 as pyarrow rounds (above). A subnormal float16 is normalized by
 * shifting its significand up to the implicit bit; a subnormal result keeps
 * the bits the shift leaves, rounded on the ones it drops. */
/* clang-format off */
#define AM_FLOAT16_DEFS                                                                  \
  DEVFN am_u32 am_f16_to_f32bits(am_u32 h) {                                             \
    const am_u32 sg = (h & 0x8000u) << 16;                                             \
    am_i32 e = (am_i32)((h >> 10) & 0x1fu);                                              \
    am_u32 m = h & 0x3ffu;                                                               \
    if (e == 31) return sg | 0x7f800000u | (m << 13);                                  \
    if (e == 0) {                                                                        \
      if (m == 0u) return sg;                                                          \
      e = 1;                                                                             \
      while ((m & 0x400u) == 0u) {                                                       \
        m <<= 1;                                                                         \
        e -= 1;                                                                          \
      }                                                                                  \
      m &= 0x3ffu;                                                                       \
    }                                                                                    \
    return sg | ((am_u32)(e + 112) << 23) | (m << 13);                                 \
  }                                                                                      \
  DEVFN am_u64 am_f16_to_f64bits(am_u32 h) {                                             \
    const am_u64 sg = (am_u64)(h & 0x8000u) << 48;                                     \
    am_i32 e = (am_i32)((h >> 10) & 0x1fu);                                              \
    am_u32 m = h & 0x3ffu;                                                               \
    if (e == 31) return sg | ((am_u64)0x7ffu << 52) | ((am_u64)m << 42);               \
    if (e == 0) {                                                                        \
      if (m == 0u) return sg;                                                          \
      e = 1;                                                                             \
      while ((m & 0x400u) == 0u) {                                                       \
        m <<= 1;                                                                         \
        e -= 1;                                                                          \
      }                                                                                  \
      m &= 0x3ffu;                                                                       \
    }                                                                                    \
    return sg | ((am_u64)(am_u32)(e + 1008) << 52) | ((am_u64)m << 42);                \
  }                                                                                      \
  DEVFN am_u32 am_f16_from_f32bits(am_u32 f) {                                           \
    const am_u32 sg = (f >> 16) & 0x8000u;                                             \
    const am_i32 e = (am_i32)((f >> 23) & 0xffu);                                        \
    const am_u32 m = f & 0x7fffffu;                                                      \
    if (e == 255) {                                                                      \
      if (m == 0u) return sg | 0x7c00u;                                                \
      return sg | 0x7c00u | ((m >> 13) != 0u ? (m >> 13) : 1u);                        \
    }                                                                                    \
    const am_i32 he = e - 112;                                                           \
    if (he >= 31) return sg | 0x7c00u;                                                 \
    if (he >= 1) {                                                                       \
      am_u32 q = ((am_u32)he << 10) | (m >> 13);                                         \
      const am_u32 rem = m & 0x1fffu;                                                    \
      if (rem > 0x1000u || (rem == 0x1000u && (q & 1u) != 0u)) q += 1u;                  \
      return sg | q;                                                                   \
    }                                                                                    \
    const am_i32 shift = 14 - he;                                                        \
    if (shift > 24) return sg;                                               \
    const am_u32 full = m | 0x800000u;                                                   \
    am_u32 q = full >> shift;                                                            \
    const am_u32 rem = full & ((1u << shift) - 1u);                                      \
    const am_u32 mid = 1u << (shift - 1);                                               \
    if (rem > mid || (rem == mid && (q & 1u) != 0u)) q += 1u;                          \
    return sg | q;                                                                     \
  }                                                                                      \
  DEVFN am_u32 am_f16_from_f64bits(am_u64 d) {                                           \
    const am_u32 sg = (am_u32)(d >> 48) & 0x8000u;                                     \
    const am_i32 e = (am_i32)((d >> 52) & 0x7ffu);                                       \
    const am_u64 m = d & ((((am_u64)1) << 52) - 1u);                                     \
    if (e == 2047) {                                                                     \
      if (m == 0u) return sg | 0x7c00u;                                                \
      return sg | 0x7c00u | ((m >> 42) != 0u ? (am_u32)(m >> 42) : 1u);                \
    }                                                                                    \
    const am_i32 he = e - 1008;                                                          \
    if (he >= 31) return sg | 0x7c00u;                                                 \
    if (he >= 1) {                                                                       \
      am_u32 q = ((am_u32)he << 10) | (am_u32)(m >> 42);                                 \
      const am_u64 rem = m & ((((am_u64)1) << 42) - 1u);                                 \
      const am_u64 mid = ((am_u64)1) << 41;                                             \
      if (rem > mid || (rem == mid && (q & 1u) != 0u)) q += 1u;                        \
      return sg | q;                                                                   \
    }                                                                                    \
    const am_i32 shift = 43 - he;                                                        \
    if (shift > 53) return sg;                                               \
    const am_u64 full = m | (((am_u64)1) << 52);                                         \
    am_u32 q = (am_u32)(full >> shift);                                                  \
    const am_u64 rem = full & ((((am_u64)1) << shift) - 1u);                             \
    const am_u64 mid = ((am_u64)1) << (shift - 1);                                      \
    if (rem > mid || (rem == mid && (q & 1u) != 0u)) q += 1u;                          \
    return sg | q;                                                                     \
  }
/* clang-format on */

#endif
