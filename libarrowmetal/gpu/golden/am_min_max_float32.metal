// am_min_max_float32: ArrowMetal GPU kernel (libarrowmetal/gpu), generated.
// Dialect: Metal Shading Language 3.x (Apple silicon, SIMD width 32).
#include <metal_stdlib>
using namespace metal;
#if __METAL_VERSION__ >= 320
#pragma METAL fp math_mode(safe)
#endif
typedef char am_i8;
typedef short am_i16;
typedef int am_i32;
typedef long am_i64;
typedef uchar am_u8;
typedef ushort am_u16;
typedef uint am_u32;
typedef ulong am_u64;
typedef float am_f32;
#define GLOBAL device
#define SMEM threadgroup
#define SPTR threadgroup
#define PRIV thread
#define DEVFN static inline
#define BARRIER() threadgroup_barrier(mem_flags::mem_threadgroup)
// A device-scope fence; the fallback is a barrier, so every thread of the
// threadgroup executes THREADFENCE() in both forms.
#if __METAL_VERSION__ >= 320
#define THREADFENCE() \
  atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, thread_scope_device)
#else
#define THREADFENCE() threadgroup_barrier(mem_flags::mem_device)
#endif
#define BALLOT(p) ((am_u32)(am_u64)simd_ballot((bool)(p)))
#define SHFL_DOWN(v, d) simd_shuffle_down((v), (ushort)(d))
#define SHFL_XOR(v, m) simd_shuffle_xor((v), (ushort)(m))
#define SHFL_UP(v, d) simd_shuffle_up((v), (ushort)(d))
#define SHFL_IDX(v, l) simd_shuffle((v), (ushort)(l))
#define POPC(x) ((am_u32)popcount((am_u32)(x)))
#define ATOMIC_OR32(p, v) \
  atomic_fetch_or_explicit((device atomic_uint *)(p), (v), memory_order_relaxed)
#define ATOMIC_ADD32(p, v) \
  atomic_fetch_add_explicit((device atomic_uint *)(p), (v), memory_order_relaxed)
#define ATOMIC_LOAD32(p) atomic_load_explicit((device atomic_uint *)(p), memory_order_relaxed)
#define ATOMIC_STORE32(p, v) \
  atomic_store_explicit((device atomic_uint *)(p), (v), memory_order_relaxed)
#define F32_BITS(x) as_type<am_u32>((am_f32)(x))
#define BITS_F32(u) as_type<am_f32>((am_u32)(u))
DEVFN am_u64 am_soft_f32bits_to_f64bits(am_u32 f) {
  const am_u64 sg = (am_u64)(f >> 31) << 63;
  am_i32 e = (am_i32)((f >> 23) & 0xffu);
  am_u32 m = f & 0x7fffffu;
  if (e == 0xff)
    return sg | ((am_u64)0x7ffu << 52) | ((am_u64)(m != 0u ? m | 0x400000u : 0u) << 29);
  if (e == 0) {
    if (m == 0u) return sg;
    e = 1;
    while ((m & 0x800000u) == 0u) {
      m <<= 1;
      e -= 1;
    }
    m &= 0x7fffffu;
  }
  return sg | ((am_u64)(am_u32)(e + 896) << 52) | ((am_u64)m << 29);
}
DEVFN am_u32 am_soft_f64bits_to_f32bits(am_u64 d) {
  const am_u32 sg = (am_u32)(d >> 32) & 0x80000000u;
  const am_i32 e = (am_i32)((d >> 52) & 0x7ffu);
  am_u64 m = d & ((((am_u64)1) << 52) - 1u);
  if (e == 0x7ff) return sg | 0x7f800000u | (m != 0u ? 0x400000u | (am_u32)(m >> 29) : 0u);
  if (e == 0) return sg;
  const am_i32 fe = e - 896;
  if (fe >= 255) return sg | 0x7f800000u;
  m |= ((am_u64)1) << 52;
  const am_i32 shift = fe > 0 ? 29 : 30 - fe;
  if (shift > 53) return sg;
  am_u64 q = m >> shift;
  const am_u64 rem = m & ((((am_u64)1) << shift) - 1u);
  const am_u64 hlf = ((am_u64)1) << (shift - 1);
  if (rem > hlf || (rem == hlf && (q & 1u) != 0u)) q += 1u;
  return sg | (fe > 0 ? ((am_u32)fe << 23) + (am_u32)q - 0x800000u : (am_u32)q);
}
#define AM_F32_TO_F64BITS(x) am_soft_f32bits_to_f64bits(F32_BITS(x))
#define AM_F64BITS_TO_F32(u) BITS_F32(am_soft_f64bits_to_f32bits(u))
DEVFN am_u64 am_shfl_down_u64(am_u64 v, am_u32 d) {
  const am_u32 lo = simd_shuffle_down((am_u32)v, (ushort)d);
  const am_u32 hi = simd_shuffle_down((am_u32)(v >> 32), (ushort)d);
  return ((am_u64)hi << 32) | (am_u64)lo;
}
// error_index = min(error_index, slot) with 32-bit atomics (no portable
// 64-bit atomic min in Metal): the low word takes min(slot, 0xFFFFFFFE),
// the high word becomes 0. Exact below 0xFFFFFFFE; 0xFFFFFFFE means the
// first failing slot is there or later and the host scans for it.
DEVFN void am_report_error(GLOBAL am_u64 *st, am_u64 slot) {
  device atomic_uint *w = (device atomic_uint *)st;
  const am_u32 lo = slot < (am_u64)0xfffffffeu ? (am_u32)slot : 0xfffffffeu;
  atomic_fetch_min_explicit(w, lo, memory_order_relaxed);
  atomic_store_explicit(w + 1, 0u, memory_order_relaxed);
}
// count += v as two 32-bit atomic adds, the low word's carry going into
// the high word; exact once every block has finished.
DEVFN void am_status_add_count(GLOBAL am_u64 *st, am_u64 v) {
  device atomic_uint *w = (device atomic_uint *)(st + 1);
  const am_u32 lo = (am_u32)v;
  am_u32 hi = (am_u32)(v >> 32);
  const am_u32 old = atomic_fetch_add_explicit(w, lo, memory_order_relaxed);
  if (old + lo < old) hi += 1u;
  if (hi != 0u) atomic_fetch_add_explicit(w + 1, hi, memory_order_relaxed);
}
// Partials go through 32-bit atomics: plain device stores are not
// guaranteed visible to other threadgroups within one dispatch.
DEVFN void am_partial_store(GLOBAL am_u32 *scr, am_u32 i, am_u64 v) {
  device atomic_uint *w = (device atomic_uint *)scr + 2u * i;
  atomic_store_explicit(w, (am_u32)v, memory_order_relaxed);
  atomic_store_explicit(w + 1, (am_u32)(v >> 32), memory_order_relaxed);
}
DEVFN am_u64 am_partial_load(GLOBAL am_u32 *scr, am_u32 i) {
  device atomic_uint *w = (device atomic_uint *)scr + 2u * i;
  const am_u32 lo = atomic_load_explicit(w, memory_order_relaxed);
  const am_u32 hi = atomic_load_explicit(w + 1, memory_order_relaxed);
  return ((am_u64)hi << 32) | (am_u64)lo;
}
#define AM_BLOCK 256u
#define AM_NONE (~(am_u64)0)
// Bit i of an Arrow bitmap, read a byte at a time.
DEVFN am_u32 am_bit(GLOBAL const am_u8 *bm, am_i64 i) {
  return ((am_u32)bm[i >> 3] >> (am_u32)(i & 7)) & 1u;
}
// Bits [bit, bit + 32) of a bitmap, reading bytes only up to last_byte.
DEVFN am_u32 am_bits32(GLOBAL const am_u8 *bm, am_i64 bit, am_i64 last_byte) {
  const am_i64 b = bit >> 3;
  am_u64 w = 0;
  for (am_u32 k = 0; k < 5u; k++)
    if (b + (am_i64)k <= last_byte) w |= (am_u64)bm[b + (am_i64)k] << (8u * k);
  return (am_u32)(w >> (am_u32)(bit & 7));
}
// Word w (slots [32 w, 32 w + 32)) of a bitmap at bit offset off: loaded
// whole where the host found its words 4-byte aligned and it is not the
// last (whose bytes past last_byte may lie past the buffer), else by bytes.
DEVFN am_u32 am_word32(GLOBAL const am_u8 *bm, am_i64 off, am_i64 w, am_i64 last_byte,
                       bool whole) {
  if (whole) return ((GLOBAL const am_u32 *)(bm + (off >> 3)))[w];
  return am_bits32(bm, off + w * 32, last_byte);
}
// Mask of the bits of 32-slot word w that are below n.
DEVFN am_u32 am_tail_mask(am_i64 n, am_i64 w) {
  const am_i64 left = n - w * 32;
  return left >= 32 ? 0xffffffffu : (1u << (am_u32)left) - 1u;
}
DEVFN am_u32 am_warp_or(am_u32 v) {
  for (am_u32 m = 16u; m > 0u; m >>= 1) v |= SHFL_XOR(v, m);
  return v;
}
// Sum over the warp, valid in lane 0.
DEVFN am_u64 am_warp_sum_u64(am_u64 v) {
  for (am_u32 d = 16u; d > 0u; d >>= 1) v += am_shfl_down_u64(v, d);
  return v;
}
// Sum over the block, valid in lane 0 of every warp. All threads call it.
DEVFN am_u64 am_block_sum_u64(am_u64 v, SPTR am_u64 *sh, am_u32 lane, am_u32 warp) {
  v = am_warp_sum_u64(v);
  if (lane == 0u) sh[warp] = v;
  BARRIER();
  v = lane < AM_BLOCK / 32u ? sh[lane] : (am_u64)0;
  v = am_warp_sum_u64(v);
  BARRIER();
  return v;
}
// Reports the warp's smallest failing slot (err: this thread's first).
// All 32 lanes call it.
DEVFN void am_flush_error(GLOBAL am_u64 *st, am_u64 err, am_u32 lane) {
  if (BALLOT(err != AM_NONE) == 0u) return;
  for (am_u32 d = 16u; d > 0u; d >>= 1) {
    const am_u64 o = am_shfl_down_u64(err, d);
    if (o < err) err = o;
  }
  if (lane == 0u) am_report_error(st, err);
}
// ORs `bits` into a word bitmap at bit position p (two words at most).
DEVFN void am_or_bits(GLOBAL am_u32 *words, am_u64 p, am_u32 bits) {
  const am_u32 sh = (am_u32)p & 31u;
  const am_u32 lo = bits << sh;
  const am_u32 hi = sh != 0u ? bits >> (32u - sh) : 0u;
  if (lo != 0u) ATOMIC_OR32(words + (p >> 5), lo);
  if (hi != 0u) ATOMIC_OR32(words + (p >> 5) + 1u, hi);
}
typedef am_f32 T0;
#define AM_LOAD0(i) a.in0[a.off0 + (i)]
#define AM_COUNTER_WORD 8192u
struct Args {
  GLOBAL const am_f32 *in0;
  GLOBAL const am_u8 *in1;
  GLOBAL const am_u8 *valid0;
  GLOBAL const am_u8 *valid1;
  GLOBAL am_u8 *out;
  GLOBAL am_u32 *out_valid;
  GLOBAL am_u32 *scratch;
  GLOBAL am_u64 *status;
  am_i64 n;
  am_i64 off0;
  am_i64 off1;
  am_i64 aux;
  am_u64 scalar;
  am_i32 scalar_null;
  am_i32 pad;
  GLOBAL const am_f32 *in2;
  GLOBAL const am_u8 *valid2;
  am_i64 off2;
};
#define AM_RAW(x) ((am_u64)F32_BITS(x))
#define AM_WIDE(u) AM_F32_TO_F64BITS(BITS_F32((am_u32)(u)))
typedef am_f32 AccS;
#define AM_S2U(v) ((am_u64)F32_BITS(v))
#define AM_U2S(u) BITS_F32((am_u32)(u))
#define AM_ACC_S0 BITS_F32(0x7f800000u)
#define AM_ACC_C0 BITS_F32(0xff800000u)
struct Acc {
  AccS s;
  AccS c;
  am_u64 cnt;
  am_u64 nan;
};
DEVFN Acc am_acc_make(AccS s) {
  Acc r;
  r.s = s;
  r.c = AM_ACC_C0;
  r.cnt = 0u;
  r.nan = 0u;
  return r;
}
DEVFN void am_acc_add(PRIV Acc *r, T0 x) {
  if (x != x) {
    r->nan += 1u;
  } else {
    if (x < r->s) r->s = x;
    if (x > r->c) r->c = x;
  }
  r->cnt += 1u;
}
DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {
  if (b.s < r->s) r->s = b.s;
  if (b.c > r->c) r->c = b.c;
  r->cnt += b.cnt;
  r->nan += b.nan;
}
DEVFN void am_acc_finish(GLOBAL am_u64 *st, Acc x) {
  st[1] = x.cnt;
  st[2] = x.nan;
  st[3] = AM_WIDE(AM_S2U(x.s));
  st[4] = AM_WIDE(AM_S2U(x.c));
}
DEVFN Acc am_acc_shfl(Acc x, am_u32 d) {
  Acc r;
  r.s = AM_U2S(am_shfl_down_u64(AM_S2U(x.s), d));
  r.c = AM_U2S(am_shfl_down_u64(AM_S2U(x.c), d));
  r.cnt = am_shfl_down_u64(x.cnt, d);
  r.nan = am_shfl_down_u64(x.nan, d);
  return r;
}
DEVFN void am_acc_store(GLOBAL am_u32 *scr, am_u32 b, Acc x) {
  am_partial_store(scr, 4u * b, AM_S2U(x.s));
  am_partial_store(scr, 4u * b + 1u, AM_S2U(x.c));
  am_partial_store(scr, 4u * b + 2u, x.cnt);
  am_partial_store(scr, 4u * b + 3u, x.nan);
}
DEVFN Acc am_acc_load(GLOBAL am_u32 *scr, am_u32 b) {
  Acc r;
  r.s = AM_U2S(am_partial_load(scr, 4u * b));
  r.c = AM_U2S(am_partial_load(scr, 4u * b + 1u));
  r.cnt = am_partial_load(scr, 4u * b + 2u);
  r.nan = am_partial_load(scr, 4u * b + 3u);
  return r;
}
// Fixed-shape tree over the warp: lane L merges lane L + d (later slots).
DEVFN Acc am_acc_warp(Acc x, am_u32 lane) {
  for (am_u32 d = 16u; d > 0u; d >>= 1) {
    const Acc o = am_acc_shfl(x, d);
    if (lane + d < 32u) am_acc_merge(&x, o);
  }
  return x;
}
// Block result in lane 0 of every warp. All threads call it.
DEVFN Acc am_acc_block(Acc x, SPTR Acc *sh, am_u32 lane, am_u32 warp) {
  x = am_acc_warp(x, lane);
  if (lane == 0u) {
    sh[warp].s = x.s;
    sh[warp].c = x.c;
    sh[warp].cnt = x.cnt;
    sh[warp].nan = x.nan;
  }
  BARRIER();
  x = am_acc_make(AM_ACC_S0);
  if (lane < AM_BLOCK / 32u) {
    x.s = sh[lane].s;
    x.c = sh[lane].c;
    x.cnt = sh[lane].cnt;
    x.nan = sh[lane].nan;
  }
  x = am_acc_warp(x, lane);
  BARRIER();
  return x;
}
kernel void am_min_max_float32(constant Args &a [[buffer(0)]],
    uint am_bid [[threadgroup_position_in_grid]],
    uint am_nblocks [[threadgroups_per_grid]],
    uint am_lane [[thread_index_in_simdgroup]],
    uint am_warp [[simdgroup_index_in_threadgroup]]) {
  const am_u32 am_tid = am_warp * 32u + am_lane;
  (void)am_tid;
  (void)am_lane;
  (void)am_warp;
  (void)am_bid;
  (void)am_nblocks;
  SMEM Acc am_sh[AM_BLOCK / 32u];
  SMEM am_u32 am_last;
  const am_i64 n = a.n;
  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;
  const bool hv = a.valid0 != 0;
  Acc acc = am_acc_make(AM_ACC_S0);
  am_i64 i = (am_i64)am_bid * AM_BLOCK + am_tid;
  for (; i + 7 * stride < n; i += 8 * stride) {
    const T0 x0 = AM_LOAD0(i + 0 * stride);
    const T0 x1 = AM_LOAD0(i + 1 * stride);
    const T0 x2 = AM_LOAD0(i + 2 * stride);
    const T0 x3 = AM_LOAD0(i + 3 * stride);
    const T0 x4 = AM_LOAD0(i + 4 * stride);
    const T0 x5 = AM_LOAD0(i + 5 * stride);
    const T0 x6 = AM_LOAD0(i + 6 * stride);
    const T0 x7 = AM_LOAD0(i + 7 * stride);
    if (hv) {
      const am_i64 j = a.off0 + i;
      const am_u32 v0 = am_bit(a.valid0, j + 0 * stride);
      const am_u32 v1 = am_bit(a.valid0, j + 1 * stride);
      const am_u32 v2 = am_bit(a.valid0, j + 2 * stride);
      const am_u32 v3 = am_bit(a.valid0, j + 3 * stride);
      const am_u32 v4 = am_bit(a.valid0, j + 4 * stride);
      const am_u32 v5 = am_bit(a.valid0, j + 5 * stride);
      const am_u32 v6 = am_bit(a.valid0, j + 6 * stride);
      const am_u32 v7 = am_bit(a.valid0, j + 7 * stride);
      if (v0 != 0u) am_acc_add(&acc, x0);
      if (v1 != 0u) am_acc_add(&acc, x1);
      if (v2 != 0u) am_acc_add(&acc, x2);
      if (v3 != 0u) am_acc_add(&acc, x3);
      if (v4 != 0u) am_acc_add(&acc, x4);
      if (v5 != 0u) am_acc_add(&acc, x5);
      if (v6 != 0u) am_acc_add(&acc, x6);
      if (v7 != 0u) am_acc_add(&acc, x7);
    } else {
      am_acc_add(&acc, x0);
      am_acc_add(&acc, x1);
      am_acc_add(&acc, x2);
      am_acc_add(&acc, x3);
      am_acc_add(&acc, x4);
      am_acc_add(&acc, x5);
      am_acc_add(&acc, x6);
      am_acc_add(&acc, x7);
    }
  }
  if (i < n) {
    const bool got0 = i + 0 * stride < n;
    const bool got1 = i + 1 * stride < n;
    const bool got2 = i + 2 * stride < n;
    const bool got3 = i + 3 * stride < n;
    const bool got4 = i + 4 * stride < n;
    const bool got5 = i + 5 * stride < n;
    const bool got6 = i + 6 * stride < n;
    const T0 x0 = got0 ? AM_LOAD0(i + 0 * stride) : (T0)0;
    const T0 x1 = got1 ? AM_LOAD0(i + 1 * stride) : (T0)0;
    const T0 x2 = got2 ? AM_LOAD0(i + 2 * stride) : (T0)0;
    const T0 x3 = got3 ? AM_LOAD0(i + 3 * stride) : (T0)0;
    const T0 x4 = got4 ? AM_LOAD0(i + 4 * stride) : (T0)0;
    const T0 x5 = got5 ? AM_LOAD0(i + 5 * stride) : (T0)0;
    const T0 x6 = got6 ? AM_LOAD0(i + 6 * stride) : (T0)0;
    if (got0 && (!hv || am_bit(a.valid0, a.off0 + i + 0 * stride) != 0u)) am_acc_add(&acc, x0);
    if (got1 && (!hv || am_bit(a.valid0, a.off0 + i + 1 * stride) != 0u)) am_acc_add(&acc, x1);
    if (got2 && (!hv || am_bit(a.valid0, a.off0 + i + 2 * stride) != 0u)) am_acc_add(&acc, x2);
    if (got3 && (!hv || am_bit(a.valid0, a.off0 + i + 3 * stride) != 0u)) am_acc_add(&acc, x3);
    if (got4 && (!hv || am_bit(a.valid0, a.off0 + i + 4 * stride) != 0u)) am_acc_add(&acc, x4);
    if (got5 && (!hv || am_bit(a.valid0, a.off0 + i + 5 * stride) != 0u)) am_acc_add(&acc, x5);
    if (got6 && (!hv || am_bit(a.valid0, a.off0 + i + 6 * stride) != 0u)) am_acc_add(&acc, x6);
  }
  acc = am_acc_block(acc, am_sh, am_lane, am_warp);
  // One block (small inputs): its partial is the result, so skip the
  // scratch round trip, most of a small reduction's GPU time.
  if (am_nblocks == 1u) {
    if (am_tid == 0u) am_acc_finish(a.status, acc);
    return;
  }
  if (am_tid == 0u) am_acc_store(a.scratch, am_bid, acc);
  THREADFENCE();
  BARRIER();
  if (am_tid == 0u)
    am_last = ATOMIC_ADD32(a.scratch + AM_COUNTER_WORD, 1u) == am_nblocks - 1u ? 1u : 0u;
  BARRIER();
  if (am_last == 0u) return;
  // The last block: partials in block order, contiguous runs per thread.
  THREADFENCE();
  const am_u32 per = (am_nblocks + AM_BLOCK - 1u) / AM_BLOCK;
  Acc r = am_acc_make(AM_ACC_S0);
  for (am_u32 k = 0; k < per; k++) {
    const am_u32 b = am_tid * per + k;
    if (b < am_nblocks) am_acc_merge(&r, am_acc_load(a.scratch, b));
  }
  r = am_acc_block(r, am_sh, am_lane, am_warp);
  if (am_tid == 0u) {
    am_acc_finish(a.status, r);
    ATOMIC_STORE32(a.scratch + AM_COUNTER_WORD, 0u);
  }
}
