/* pow(x, y) for float64 kernels in the CUDA dialect (Metal has no double).
 *
 * Why not CUDA's pow: it is accurate but costs about 150 FP64 instructions a
 * call, so power over float64 ran at 55% of the copy bandwidth on the H200
 * (compute-bound, as CuPy's, which calls the same pow). This one takes about
 * 80 and no tables, for arguments where pow is exp(y * log(x)) with a normal
 * result: x positive, normal and finite, y finite, |y log x| <= 707. Every
 * other argument (zeros, subnormals, negative bases, infinities, NaN, results
 * that overflow or leave the normal range) goes to CUDA's pow, so C99's
 * special cases (F.9.4.4) stay CUDA's.
 *
 * The kernel is issue-bound, not FP64-bound (ncu: issue slots 77% busy, 81
 * of 217 instructions a slot FP64), so the bit work is on 32-bit words (the
 * high word holds the sign, the exponent and enough of the mantissa for the
 * reduction; the scale 2^kf is a high word), 1/u is the hardware's
 * approximation and two Newton steps (s_lo below takes the exact residual,
 * so 1/u need not be correctly rounded), the kernel takes four words a
 * thread (kernel_source.c's binary_unroll), and the constants are in
 * constant memory (below). 10^8 rows on the H200: 0.94 -> 0.775 -> 0.73 ms,
 * 81% of the copy floor.
 *
 * log x, in double-double: x = 2^k z with z in [sqrt(1/2), sqrt(2)) taken
 * from the high word's bits; f = z - 1 is exact (Sterbenz), s = f / (2 + f) is carried as
 * s + s_lo (the residual of the division, with 2 + f's rounding error), and
 * log z = 2 atanh(s) = 2s + 2s^3/3 + 2s^5 P(s^2). The first two terms are
 * double-double, the tail P (2/5 ... 2/23, |s| <= 0.1716: the next term is
 * below 2^-65 of the sum) is plain double; k ln2 uses ln2's top 42 bits, so
 * k * LN2_HI is exact for every k. The relative error of log x is then about
 * 2^-64, which |y log x| <= 707 turns into at most ~2^-54 in the result.
 *
 * exp(e + e_lo): e = kf ln2 + r with kf = rint(e / ln2), r = e - kf LN2_HI
 * exact (|r| <= ln2 / 2), the rest (e_lo - kf LN2_LO) carried as a relative
 * correction; exp(r) = 1 + r + r^2 Q(r) with Taylor's 1/2! ... 1/14! (the
 * next term is below 2^-63), and the result scaled by 2^kf from the bits.
 *
 * Measured against glibc's pow and exact values (gpu/test_pow64.py, on the
 * CPU emulation of CUDA): about 0.5 ulp from the exact value where |y log x|
 * is small and up to about 0.8 ulp where it nears 707; at most 2 ulps from
 * glibc, and exact powers such as 2^10, 3^2 or 10^15 come out exact. CUDA's
 * pow is documented at 2 ulps; the conformance cases allow 4. */
#include "gpu/dialect.h"

/* CUDA's pow, for the arguments the fast path leaves, is called rather than
 * inlined: inlined twice into an unrolled loop it took the registers of the
 * whole kernel, and the threads in flight with them. */
static const char pow64_text[] =
    "__device__ __noinline__ am_f64 am_pow64_c(am_f64 x, am_f64 y) { return pow(x, y); }\n"
    /* 1/u to about 20 bits (MUFU.RCP64H); the CPU emulation's stands in off
     * the GPU */
    "#ifdef __CUDA_ARCH__\n"
    "DEVFN am_f64 am_rcp64_approx(am_f64 u) {\n"
    "  am_f64 r;\n"
    "  asm(\"rcp.approx.ftz.f64 %0, %1;\" : \"=d\"(r) : \"d\"(u));\n"
    "  return r;\n"
    "}\n"
    "#else\n"
    "#define am_rcp64_approx(u) am_emu_rcp64_approx(u)\n"
    "#endif\n"
    /* The constants live in constant memory, where DFMA reads them as
     * operands: as 64-bit immediates each took two UMOVs, rematerialized for
     * each of the four words (43 of 146 instructions a word in the SASS;
     * 128 now, 79 of them FP64). */
    /* 2/3 as a double-double, ln2's top 42 bits and the rest, 1/ln2 */
    "__constant__ am_f64 am_pow64_k[5] = {0x1.5555555555555p-1, 0x1.5555555555555p-55,\n"
    "    0x1.62e42fefa38p-1, 0x1.ef35793c7673p-45, 0x1.71547652b82fep+0};\n"
    /* 2/23, 2/21, ..., 2/5: the tail of 2 atanh(s) */
    "__constant__ am_f64 am_pow64_atanh[10] = {0x1.642c8590b2164p-4, 0x1.8618618618618p-4,\n"
    "    0x1.af286bca1af28p-4, 0x1.e1e1e1e1e1e1ep-4, 0x1.1111111111111p-3, 0x1.3b13b13b13b14p-3,\n"
    "    0x1.745d1745d1746p-3, 0x1.c71c71c71c71cp-3, 0x1.2492492492492p-2, 0x1.999999999999ap-2};\n"
    /* 1/14!, 1/13!, ..., 1/2! */
    "__constant__ am_f64 am_pow64_exp[13] = {0x1.93974a8c07c9dp-37, 0x1.6124613a86d09p-33,\n"
    "    0x1.1eed8eff8d898p-29, 0x1.ae64567f544e4p-26, 0x1.27e4fb7789f5cp-22, "
    "0x1.71de3a556c734p-19,\n"
    "    0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-13, 0x1.6c16c16c16c17p-10, "
    "0x1.1111111111111p-7,\n"
    "    0x1.5555555555555p-5, 0x1.5555555555555p-3, 0.5};\n"
    "DEVFN am_f64 am_pow64(am_f64 x, am_f64 y) {\n"
    /* the high words hold the sign and the exponent: x positive, normal and
     * finite, y finite */
    "  const am_u32 hx = (am_u32)__double2hiint(x);\n"
    "  if (hx - 0x00100000u >= 0x7fe00000u ||\n"
    "      ((am_u32)__double2hiint(y) & 0x7fffffffu) >= 0x7ff00000u)\n"
    "    return am_pow64_c(x, y);\n"
    /* x = 2^k z, z in [sqrt(1/2), sqrt(2)) (to the high word's bits) */
    "  const int k = (int)(hx - 0x3fe6a09eu) >> 20;\n"
    "  const am_f64 z = __hiloint2double((int)(hx - ((am_u32)k << 20)), __double2loint(x));\n"
    "  const am_f64 f = z - 1.0;\n"
    "  const am_f64 u = 2.0 + f;\n"
    "  const am_f64 u_lo = (2.0 - u) + f;\n"
    /* two Newton steps: 1/u to the last bits, which s_lo corrects anyway */
    "  am_f64 ru = am_rcp64_approx(u);\n"
    "  ru = fma(ru, fma(-u, ru, 1.0), ru);\n"
    "  ru = fma(ru, fma(-u, ru, 1.0), ru);\n"
    "  const am_f64 s = f * ru;\n"
    "  const am_f64 s_lo = (fma(-s, u, f) - s * u_lo) * ru;\n"
    "  const am_f64 s2 = s * s;\n"
    "  const am_f64 s2_lo = fma(s, s, -s2) + 2.0 * s * s_lo;\n"
    "  const am_f64 s3 = s2 * s;\n"
    "  const am_f64 s3_lo = fma(s2, s, -s3) + (s2_lo * s + s2 * s_lo);\n"
    /* 2/3 as a double-double */
    "  const am_f64 c3 = am_pow64_k[0], c3_lo = am_pow64_k[1];\n"
    "  const am_f64 t3 = s3 * c3;\n"
    "  const am_f64 t3_lo = fma(s3, c3, -t3) + (s3 * c3_lo + s3_lo * c3);\n"
    /* 2/23, 2/21, ..., 2/5 */
    "  am_f64 p = am_pow64_atanh[0];\n"
    "#pragma unroll\n"
    "  for (int i = 1; i < 10; i++) p = fma(p, s2, am_pow64_atanh[i]);\n"
    "  const am_f64 tail = s3 * s2 * p;\n"
    "  const am_f64 v = t3 + tail;\n"
    "  const am_f64 v_lo = (t3 - v) + tail;\n"
    "  const am_f64 s_2 = 2.0 * s;\n"
    "  const am_f64 b = s_2 + v;\n"
    "  const am_f64 b_lo = (s_2 - b) + v;\n"
    /* ln2's top 42 bits and the rest */
    "  const am_f64 ln2_hi = am_pow64_k[2], ln2_lo = am_pow64_k[3];\n"
    "  const am_f64 kd = (am_f64)k;\n"
    "  const am_f64 a = kd * ln2_hi;\n"
    "  const am_f64 l = a + b;\n"
    "  const am_f64 l_lo =\n"
    "      ((a - l) + b) + (b_lo + (v_lo + (t3_lo + fma(kd, ln2_lo, 2.0 * s_lo))));\n"
    "  const am_f64 e = y * l;\n"
    "  const am_f64 e_lo = fma(y, l, -e) + y * l_lo;\n"
    "  if (!(fabs(e) <= 707.0)) return am_pow64_c(x, y);\n"
    /* kf = rint(e / ln2) by adding 1.5 * 2^52 */
    "  const am_f64 shift = 0x1.8p52;\n"
    "  const am_f64 kt = fma(e, am_pow64_k[4], shift);\n"
    /* kf in the low word (shift's is 0), two's complement */
    "  const int ke = __double2loint(kt);\n"
    "  const am_f64 kf = kt - shift;\n"
    "  const am_f64 r = fma(-kf, ln2_hi, e);\n"
    "  const am_f64 corr = fma(-kf, ln2_lo, e_lo);\n"
    /* 1/14!, 1/13!, ..., 1/2! */
    "  am_f64 q = am_pow64_exp[0];\n"
    "#pragma unroll\n"
    "  for (int i = 1; i < 13; i++) q = fma(q, r, am_pow64_exp[i]);\n"
    "  q = r * r * q;\n"
    "  const am_f64 w = 1.0 + r;\n"
    "  const am_f64 w_lo = (1.0 - w) + r;\n"
    "  const am_f64 m_lo = w_lo + q;\n"
    "  const am_f64 m = w + fma(corr, w + m_lo, m_lo);\n"
    "  return m * __hiloint2double((ke + 1023) << 20, 0);\n"
    "}\n";

void am_dialect_pow64(am_sb *sb) {
  am_sb_puts(sb, pow64_text);
  am_sb_puts(sb, "#undef am_pow\n#define am_pow(x, y) am_pow64(x, y)\n");
}
