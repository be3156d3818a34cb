/* The dialect layer: what CUDA C++ and the Metal Shading Language spell
 * differently (see dialect.h for the tokens), plus the string builder the
 * kernel source is written into.
 *
 * What was compiled where:
 *  - CUDA: every generated kernel is compiled by NVRTC (13.x, options
 *    --gpu-architecture=compute_90 -default-device --std=c++17, no include
 *    path) on build machines without a GPU by gpu/test_nvrtc_compile.py, and
 *    on an H200, where gpu/test_cuda_kernels.py also runs every kernel
 *    against numpy (sliced inputs, nulls, edge values, several block counts).
 *  - MSL: no Metal compiler exists where this was written. The Metal text is
 *    generated, checked for determinism and compared against golden files
 *    (the .metal files in gpu/golden, gpu/test_kernel_source.py), and written against the
 *    Metal Shading Language specification (3.x) only; the integer-only float
 *    helpers it uses instead of double are compiled as C and checked against
 *    the host's conversions. It has never been compiled by Apple's compiler.
 *
 * Metal notes the host must honour:
 *  - Compile with fast math off (MTLCompileOptions.mathMode = safe, or
 *    fastMathEnabled = NO before macOS 15): the float kernels rely on IEEE
 *    NaN comparisons and on compensated summation. From MSL 3.2 on the source
 *    says so itself (#pragma METAL fp math_mode(safe)).
 *  - Pointer members of the argument block are device addresses (gpuAddress);
 *    every buffer they reach must be made resident (useResource).
 *  - Dispatch whole threadgroups of AM_GPU_BLOCK threads: every kernel uses
 *    SIMD-group ballots and shuffles that need all 32 lanes present.
 *  - error_index: Metal has no portable 64-bit atomic min, so a kernel that
 *    finds a failing slot does atomic_fetch_min on the low 32-bit word of
 *    error_index with min(slot, 0xFFFFFFFE) and stores 0 into the high word.
 *    The result after completion is exact for a first failing slot below
 *    0xFFFFFFFE; the value 0xFFFFFFFE means "the first failing slot is at or
 *    after 0xFFFFFFFE" and the host finds it by scanning the input from there
 *    (the memory is shared with the CPU). UINT64_MAX still means no error.
 *  - status->count += (COUNT_NULLS) is two 32-bit atomic adds with the carry
 *    of the low word added to the high word; exact once the launch is done. */
#include "gpu/dialect.h"

#include "core/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- String builder */

void am_sb_init(am_sb *sb) { memset(sb, 0, sizeof *sb); }

static int sb_reserve(am_sb *sb, size_t extra) {
  if (sb->failed) return 0;
  if (sb->len + extra + 1 <= sb->cap) return 1;
  size_t cap = sb->cap ? sb->cap : 4096;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *data = realloc(sb->data, cap);
  if (!data) {
    sb->failed = 1;
    return 0;
  }
  sb->data = data;
  sb->cap = cap;
  return 1;
}

void am_sb_putn(am_sb *sb, const char *text, size_t n) {
  if (!sb_reserve(sb, n)) return;
  memcpy(sb->data + sb->len, text, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void am_sb_puts(am_sb *sb, const char *text) { am_sb_putn(sb, text, strlen(text)); }

void am_sb_printf(am_sb *sb, const char *fmt, ...) {
  if (sb->failed) return;
  va_list args;
  va_start(args, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, args);
  va_end(args);
  if (n < 0) {
    sb->failed = 1;
    return;
  }
  if ((size_t)n < sizeof small) {
    am_sb_puts(sb, small);
    return;
  }
  if (!sb_reserve(sb, (size_t)n)) return;
  va_start(args, fmt);
  vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, args);
  va_end(args);
  sb->len += (size_t)n;
}

char *am_sb_finish(am_sb *sb) {
  char *out = NULL;
  if (!sb->failed && sb_reserve(sb, 0)) {
    sb->data[sb->len] = '\0';
    out = sb->data;
    sb->data = NULL;
  }
  am_sb_free(sb);
  return out;
}

void am_sb_free(am_sb *sb) {
  free(sb->data);
  am_sb_init(sb);
}

/* ---- Dialects */

const char *am_dialect_name(am_dialect dialect) {
  return dialect == AM_DIALECT_MSL ? "msl" : "cuda";
}

int am_dialect_has_double(am_dialect dialect) { return am_dialect_has_type(dialect, AM_FLOAT64); }

/* Exact float -> double widening and round-to-nearest-even double -> float
 * narrowing on bit patterns, for a dialect without double. */
static const char soft_float[] =
    "DEVFN am_u64 am_soft_f32bits_to_f64bits(am_u32 f) {\n"
    "  const am_u64 sg = (am_u64)(f >> 31) << 63;\n"
    "  am_i32 e = (am_i32)((f >> 23) & 0xffu);\n"
    "  am_u32 m = f & 0x7fffffu;\n"
    "  if (e == 0xff)\n"
    "    return sg | ((am_u64)0x7ffu << 52) | ((am_u64)(m != 0u ? m | 0x400000u : 0u) << 29);\n"
    "  if (e == 0) {\n"
    "    if (m == 0u) return sg;\n"
    "    e = 1;\n"
    "    while ((m & 0x800000u) == 0u) {\n"
    "      m <<= 1;\n"
    "      e -= 1;\n"
    "    }\n"
    "    m &= 0x7fffffu;\n"
    "  }\n"
    "  return sg | ((am_u64)(am_u32)(e + 896) << 52) | ((am_u64)m << 29);\n"
    "}\n"
    "DEVFN am_u32 am_soft_f64bits_to_f32bits(am_u64 d) {\n"
    "  const am_u32 sg = (am_u32)(d >> 32) & 0x80000000u;\n"
    "  const am_i32 e = (am_i32)((d >> 52) & 0x7ffu);\n"
    "  am_u64 m = d & ((((am_u64)1) << 52) - 1u);\n"
    "  if (e == 0x7ff) return sg | 0x7f800000u | (m != 0u ? 0x400000u | (am_u32)(m >> 29) : 0u);\n"
    "  if (e == 0) return sg;\n"
    "  const am_i32 fe = e - 896;\n"
    "  if (fe >= 255) return sg | 0x7f800000u;\n"
    "  m |= ((am_u64)1) << 52;\n"
    "  const am_i32 shift = fe > 0 ? 29 : 30 - fe;\n"
    "  if (shift > 53) return sg;\n"
    "  am_u64 q = m >> shift;\n"
    "  const am_u64 rem = m & ((((am_u64)1) << shift) - 1u);\n"
    "  const am_u64 hlf = ((am_u64)1) << (shift - 1);\n"
    "  if (rem > hlf || (rem == hlf && (q & 1u) != 0u)) q += 1u;\n"
    "  return sg | (fe > 0 ? ((am_u32)fe << 23) + (am_u32)q - 0x800000u : (am_u32)q);\n"
    "}\n";

const char *am_dialect_soft_float_source(void) { return soft_float; }

static const char cuda_head[] = "// Dialect: CUDA C++ for NVRTC (no headers).\n";

static const char cuda_preamble[] =
    "#define GLOBAL\n"
    "#define SMEM __shared__\n"
    "#define SPTR\n"
    "#define PRIV\n"
    "#define DEVFN __device__ __forceinline__\n"
    "#define BARRIER() __syncthreads()\n"
    "#define THREADFENCE() __threadfence()\n"
    "#define BALLOT(p) __ballot_sync(0xffffffffu, (p))\n"
    "#define SHFL_DOWN(v, d) __shfl_down_sync(0xffffffffu, (v), (d))\n"
    "#define SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))\n"
    "#define SHFL_UP(v, d) __shfl_up_sync(0xffffffffu, (v), (d))\n"
    "#define SHFL_IDX(v, l) __shfl_sync(0xffffffffu, (v), (l))\n"
    "#define POPC(x) ((am_u32)__popc(x))\n"
    "#define ATOMIC_OR32(p, v) atomicOr((p), (v))\n"
    "#define ATOMIC_ADD32(p, v) atomicAdd((p), (v))\n"
    "#define ATOMIC_LOAD32(p) (*(volatile am_u32 *)(p))\n"
    "#define ATOMIC_STORE32(p, v) (*(volatile am_u32 *)(p) = (v))\n"
    "#define F32_BITS(x) __float_as_uint(x)\n"
    "#define BITS_F32(u) __uint_as_float((am_u32)(u))\n"
    "#define F64_BITS(x) ((am_u64)__double_as_longlong(x))\n"
    "#define BITS_F64(u) __longlong_as_double((long long)(u))\n"
    "#define AM_F32_TO_F64BITS(x) F64_BITS((am_f64)(x))\n"
    "#define AM_F64BITS_TO_F32(u) ((am_f32)BITS_F64(u))\n"
    "DEVFN am_u64 am_shfl_down_u64(am_u64 v, am_u32 d) {\n"
    "  return __shfl_down_sync(0xffffffffu, v, d);\n"
    "}\n"
    "// error_index = min(error_index, slot): one 64-bit atomic.\n"
    "DEVFN void am_report_error(GLOBAL am_u64 *st, am_u64 slot) { atomicMin(st, slot); }\n"
    "DEVFN void am_status_add_count(GLOBAL am_u64 *st, am_u64 v) { atomicAdd(st + 1, v); }\n"
    "// Partials are written before a __threadfence() and read with volatile\n"
    "// loads (not through a possibly stale L1 line) by the last block.\n"
    "DEVFN void am_partial_store(GLOBAL am_u32 *scr, am_u32 i, am_u64 v) {\n"
    "  ((volatile am_u64 *)scr)[i] = v;\n"
    "}\n"
    "DEVFN am_u64 am_partial_load(GLOBAL am_u32 *scr, am_u32 i) {\n"
    "  return ((volatile am_u64 *)scr)[i];\n"
    "}\n";

static const char msl_head[] =
    "// Dialect: Metal Shading Language 3.x (Apple silicon, SIMD width 32).\n"
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "#if __METAL_VERSION__ >= 320\n"
    "#pragma METAL fp math_mode(safe)\n"
    "#endif\n";

static const char msl_preamble_head[] =
    "#define GLOBAL device\n"
    "#define SMEM threadgroup\n"
    "#define SPTR threadgroup\n"
    "#define PRIV thread\n"
    "#define DEVFN static inline\n"
    "#define BARRIER() threadgroup_barrier(mem_flags::mem_threadgroup)\n"
    "// A device-scope fence; the fallback is a barrier, so every thread of the\n"
    "// threadgroup executes THREADFENCE() in both forms.\n"
    "#if __METAL_VERSION__ >= 320\n"
    "#define THREADFENCE() \\\n"
    "  atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, thread_scope_device)\n"
    "#else\n"
    "#define THREADFENCE() threadgroup_barrier(mem_flags::mem_device)\n"
    "#endif\n"
    "#define BALLOT(p) ((am_u32)(am_u64)simd_ballot((bool)(p)))\n"
    "#define SHFL_DOWN(v, d) simd_shuffle_down((v), (ushort)(d))\n"
    "#define SHFL_XOR(v, m) simd_shuffle_xor((v), (ushort)(m))\n"
    "#define SHFL_UP(v, d) simd_shuffle_up((v), (ushort)(d))\n"
    "#define SHFL_IDX(v, l) simd_shuffle((v), (ushort)(l))\n"
    "#define POPC(x) ((am_u32)popcount((am_u32)(x)))\n"
    "#define ATOMIC_OR32(p, v) \\\n"
    "  atomic_fetch_or_explicit((device atomic_uint *)(p), (v), memory_order_relaxed)\n"
    "#define ATOMIC_ADD32(p, v) \\\n"
    "  atomic_fetch_add_explicit((device atomic_uint *)(p), (v), memory_order_relaxed)\n"
    "#define ATOMIC_LOAD32(p) atomic_load_explicit((device atomic_uint *)(p), "
    "memory_order_relaxed)\n"
    "#define ATOMIC_STORE32(p, v) \\\n"
    "  atomic_store_explicit((device atomic_uint *)(p), (v), memory_order_relaxed)\n"
    "#define F32_BITS(x) as_type<am_u32>((am_f32)(x))\n"
    "#define BITS_F32(u) as_type<am_f32>((am_u32)(u))\n";

static const char msl_preamble_tail[] =
    "#define AM_F32_TO_F64BITS(x) am_soft_f32bits_to_f64bits(F32_BITS(x))\n"
    "#define AM_F64BITS_TO_F32(u) BITS_F32(am_soft_f64bits_to_f32bits(u))\n"
    "DEVFN am_u64 am_shfl_down_u64(am_u64 v, am_u32 d) {\n"
    "  const am_u32 lo = simd_shuffle_down((am_u32)v, (ushort)d);\n"
    "  const am_u32 hi = simd_shuffle_down((am_u32)(v >> 32), (ushort)d);\n"
    "  return ((am_u64)hi << 32) | (am_u64)lo;\n"
    "}\n"
    "// error_index = min(error_index, slot) with 32-bit atomics (no portable\n"
    "// 64-bit atomic min in Metal): the low word takes min(slot, 0xFFFFFFFE),\n"
    "// the high word becomes 0. Exact below 0xFFFFFFFE; 0xFFFFFFFE means the\n"
    "// first failing slot is there or later and the host scans for it.\n"
    "DEVFN void am_report_error(GLOBAL am_u64 *st, am_u64 slot) {\n"
    "  device atomic_uint *w = (device atomic_uint *)st;\n"
    "  const am_u32 lo = slot < (am_u64)0xfffffffeu ? (am_u32)slot : 0xfffffffeu;\n"
    "  atomic_fetch_min_explicit(w, lo, memory_order_relaxed);\n"
    "  atomic_store_explicit(w + 1, 0u, memory_order_relaxed);\n"
    "}\n"
    "// count += v as two 32-bit atomic adds, the low word's carry going into\n"
    "// the high word; exact once every block has finished.\n"
    "DEVFN void am_status_add_count(GLOBAL am_u64 *st, am_u64 v) {\n"
    "  device atomic_uint *w = (device atomic_uint *)(st + 1);\n"
    "  const am_u32 lo = (am_u32)v;\n"
    "  am_u32 hi = (am_u32)(v >> 32);\n"
    "  const am_u32 old = atomic_fetch_add_explicit(w, lo, memory_order_relaxed);\n"
    "  if (old + lo < old) hi += 1u;\n"
    "  if (hi != 0u) atomic_fetch_add_explicit(w + 1, hi, memory_order_relaxed);\n"
    "}\n"
    "// Partials go through 32-bit atomics: plain device stores are not\n"
    "// guaranteed visible to other threadgroups within one dispatch.\n"
    "DEVFN void am_partial_store(GLOBAL am_u32 *scr, am_u32 i, am_u64 v) {\n"
    "  device atomic_uint *w = (device atomic_uint *)scr + 2u * i;\n"
    "  atomic_store_explicit(w, (am_u32)v, memory_order_relaxed);\n"
    "  atomic_store_explicit(w + 1, (am_u32)(v >> 32), memory_order_relaxed);\n"
    "}\n"
    "DEVFN am_u64 am_partial_load(GLOBAL am_u32 *scr, am_u32 i) {\n"
    "  device atomic_uint *w = (device atomic_uint *)scr + 2u * i;\n"
    "  const am_u32 lo = atomic_load_explicit(w, memory_order_relaxed);\n"
    "  const am_u32 hi = atomic_load_explicit(w + 1, memory_order_relaxed);\n"
    "  return ((am_u64)hi << 32) | (am_u64)lo;\n"
    "}\n";

/* The element types' spelling in the dialect, from the type table. */
static const char *spelling(am_dialect dialect, am_type t) {
  return dialect == AM_DIALECT_MSL ? am_type_msl(t) : am_type_cuda(t);
}

/* A bool is a 0/1 am_u32 and a float16 its bits (am_u16) in every dialect. */
int am_dialect_has_type(am_dialect dialect, am_type t) {
  return t == AM_BOOL || t == AM_FLOAT16 || spelling(dialect, t) != NULL;
}

/* typedef <spelling> <kernel token>; for every element type the dialect has. */
static void type_names(am_sb *sb, am_dialect dialect) {
  for (int t = 1; t < AM_TYPE_COUNT; t++)
    if (am_type_valid(t) && spelling(dialect, (am_type)t))
      am_sb_printf(sb, "typedef %s %s;\n", spelling(dialect, (am_type)t),
                   am_type_kernel((am_type)t));
}

void am_dialect_preamble(am_sb *sb, am_dialect dialect) {
  am_sb_puts(sb, dialect == AM_DIALECT_MSL ? msl_head : cuda_head);
  type_names(sb, dialect);
  if (dialect == AM_DIALECT_MSL) {
    am_sb_puts(sb, msl_preamble_head);
    am_sb_puts(sb, soft_float);
    am_sb_puts(sb, msl_preamble_tail);
  } else {
    am_sb_puts(sb, cuda_preamble);
  }
  am_sb_printf(sb, "#define AM_BLOCK %du\n", AM_GPU_BLOCK);
}

void am_dialect_kernel_begin(am_sb *sb, am_dialect dialect, const char *name) {
  am_dialect_kernel_begin_resident(sb, dialect, name, 4);
}

void am_dialect_kernel_begin_resident(am_sb *sb, am_dialect dialect, const char *name,
                                      int blocks_per_sm) {
  if (dialect == AM_DIALECT_MSL) {
    am_sb_printf(sb,
                 "kernel void %s(constant Args &a [[buffer(0)]],\n"
                 "    uint am_bid [[threadgroup_position_in_grid]],\n"
                 "    uint am_nblocks [[threadgroups_per_grid]],\n"
                 "    uint am_lane [[thread_index_in_simdgroup]],\n"
                 "    uint am_warp [[simdgroup_index_in_threadgroup]]) {\n"
                 "  const am_u32 am_tid = am_warp * 32u + am_lane;\n",
                 name);
  } else {
    am_sb_printf(sb,
                 "extern \"C\" __global__ void __launch_bounds__(AM_BLOCK, %d) %s(const Args a) {\n"
                 "  const am_u32 am_tid = threadIdx.x;\n"
                 "  const am_u32 am_lane = am_tid & 31u;\n"
                 "  const am_u32 am_warp = am_tid >> 5;\n"
                 "  const am_u32 am_bid = blockIdx.x;\n"
                 "  const am_u32 am_nblocks = gridDim.x;\n",
                 blocks_per_sm, name);
  }
  am_sb_puts(sb,
             "  (void)am_tid;\n  (void)am_lane;\n  (void)am_warp;\n  (void)am_bid;\n"
             "  (void)am_nblocks;\n");
}

char *am_dialect_kernel_as_function(const char *source, const char *name) {
  static const char prefix[] = "extern \"C\" __global__ void __launch_bounds__(AM_BLOCK, ";
  const char *entry = strstr(source, prefix);
  if (!entry) return NULL;
  int blocks_per_sm = atoi(entry + sizeof prefix - 1);
  /* The entry exactly as am_dialect_kernel_begin_resident wrote it. */
  am_sb begin;
  am_sb_init(&begin);
  am_dialect_kernel_begin_resident(&begin, AM_DIALECT_CUDA, name, blocks_per_sm);
  char *expected = am_sb_finish(&begin);
  if (!expected || strncmp(entry, expected, strlen(expected)) != 0) {
    free(expected);
    return NULL;
  }
  am_sb out;
  am_sb_init(&out);
  am_sb_putn(&out, source, (size_t)(entry - source));
  am_sb_printf(&out,
               "__device__ __noinline__ void %s(const Args a, const am_u32 am_bid,\n"
               "    const am_u32 am_nblocks) {\n"
               "  const am_u32 am_tid = threadIdx.x;\n"
               "  const am_u32 am_lane = am_tid & 31u;\n"
               "  const am_u32 am_warp = am_tid >> 5;\n"
               "  (void)am_tid;\n  (void)am_lane;\n  (void)am_warp;\n  (void)am_bid;\n"
               "  (void)am_nblocks;\n",
               name);
  am_sb_puts(&out, entry + strlen(expected));
  free(expected);
  return am_sb_finish(&out);
}

/* The names of core/ops.h's math vocabulary and of C's functions behind them. */
static const char *const math_names[][2] = {
    {"am_sqrt", "sqrt"},   {"am_exp", "exp"},     {"am_log", "log"},     {"am_log10", "log10"},
    {"am_log2", "log2"},   {"am_log1p", "log1p"}, {"am_floor", "floor"}, {"am_ceil", "ceil"},
    {"am_trunc", "trunc"}, {"am_sin", "sin"},     {"am_cos", "cos"},     {"am_tan", "tan"},
    {"am_asin", "asin"},   {"am_acos", "acos"},   {"am_atan", "atan"},
};

/* log1p(x) from log, for MSL: with u = 1 + x rounded, log(u) * x / (u - 1)
 * cancels the rounding of u (Goldberg, "What every computer scientist should
 * know about floating-point arithmetic", Theorem 4); u == 1 means x is below
 * half an ulp of 1, where log1p(x) is x; an infinite u is its own log. */
static const char msl_log1p[] =
    "DEVFN float am_msl_log1p(float x) {\n"
    "  float u = 1.0f + x;\n"
    "  if (u == 1.0f) return x;\n"
    "  if (u == INFINITY) return u;\n"
    "  return metal::precise::log(u) * (x / (u - 1.0f));\n"
    "}\n";

/* pow for MSL, whose pow leaves a negative base undefined: C's pow (C99
 * F.9.4.4) from pow of |x|, with the sign of an odd integer power, NaN for a
 * negative base to a non-integer power, and C's special cases for 1, 0 and
 * infinities. */
static const char msl_pow[] =
    "DEVFN float am_msl_pow(float x, float y) {\n"
    "  if (y == 0.0f || x == 1.0f) return 1.0f;\n"
    "  if (metal::isnan(x) || metal::isnan(y)) return x + y;\n"
    "  const bool y_int = metal::floor(y) == y;\n"
    "  const bool y_odd = y_int && metal::fabs(y) < 16777216.0f &&\n"
    "                     metal::fmod(metal::fabs(y), 2.0f) == 1.0f;\n"
    "  if (x == -1.0f && metal::isinf(y)) return 1.0f;\n"
    "  if (x < 0.0f && !y_int) return NAN;\n"
    "  const float m = metal::precise::pow(metal::fabs(x), y);\n"
    "  return (metal::signbit(x) && y_odd) ? -m : m;\n"
    "}\n";

void am_dialect_math(am_sb *sb, am_dialect dialect, am_type t) {
  int count = (int)(sizeof math_names / sizeof math_names[0]);
  if (dialect == AM_DIALECT_MSL) {
    am_sb_puts(sb, msl_log1p);
    am_sb_puts(sb, msl_pow);
    am_sb_puts(sb,
               "#define am_pow(x, y) am_msl_pow(x, y)\n"
               "#define am_atan2(x, y) metal::precise::atan2(x, y)\n");
  } else {
    const char *f = t == AM_FLOAT32 ? "f" : "";
    if (t == AM_FLOAT64) am_dialect_unary64(sb);
    am_sb_printf(sb,
                 "#define am_pow(x, y) pow%s(x, y)\n"
                 "#define am_atan2(x, y) atan2%s(x, y)\n",
                 f, f);
  }
  for (int i = 0; i < count; i++) {
    const char *vocab = math_names[i][0], *fn = math_names[i][1];
    if (dialect == AM_DIALECT_CUDA && t == AM_FLOAT64 && am_dialect_unary64_has(fn))
      am_sb_printf(sb, "#define %s(x) am_%s64(x)\n", vocab, fn);
    else if (dialect == AM_DIALECT_CUDA)
      am_sb_printf(sb, "#define %s(x) %s%s(x)\n", vocab, fn, t == AM_FLOAT32 ? "f" : "");
    else if (strcmp(fn, "log1p") == 0)
      am_sb_printf(sb, "#define %s(x) am_msl_log1p(x)\n", vocab);
    else
      am_sb_printf(sb, "#define %s(x) metal::precise::%s(x)\n", vocab, fn);
  }
}
