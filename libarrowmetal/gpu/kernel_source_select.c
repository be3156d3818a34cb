/* The GPU kernels of quantile (kernels.h: AM_KERNEL_SELECT_HIST and
 * AM_KERNEL_SELECT_PICK), written once for CUDA and MSL on
 * kernel_source.c's pieces of text (kernel_source_emit.h).
 *
 * A radix select over the values' order keys (core/quantile.h's: integers
 * with the sign bit flipped, floats with every bit flipped when negative
 * and the sign bit otherwise), eight bits a pass from the top: HIST counts,
 * among the valid non-NaN slots whose key agrees with the rank's prefix
 * above the pass's digit, how many have each digit (a histogram per block
 * in shared memory, added to the rank's histogram in device memory); PICK
 * (one block) scans that histogram, finds the digit whose bucket holds the
 * rank, appends it to the prefix and takes the counts below it off the
 * rank, then clears the histogram for the next pass. After eight passes the
 * prefix is the key of the rank: nothing but the 256 counts of a pass is
 * touched between passes, and the choice is made on the device. Keys are
 * handled as bits alone, so float64 runs in MSL too (no double arithmetic).
 *
 * State (out, am_u32 words): the counts of pass 0 (shared by every rank) at
 * [0, 256); rank r's record at 256 + 260 r: prefix (2 words, low first), the
 * rank still to find within the prefix (2 words), its histogram (256). */
#include <stdio.h>

#include "arrowmetal.h"
#include "core/types.h"
#include "gpu/kernel_source_emit.h"

int am_ks_select_kind(am_kernel_kind kind) {
  switch (kind) {
    AM_KS_SELECT_CASES
    return 1;
    default:
      return 0;
  }
}

static int pass_of(const am_kernel_key *k) { return k->op; }

/* The key of one element's bits (x, of the same-width unsigned type), and
 * whether it is NaN (floats only). */
static void emit_key(am_sb *sb, am_type t) {
  switch (t) {
    case AM_INT8:
    case AM_INT16:
    case AM_INT32:
    case AM_INT64:
      am_sb_printf(sb,
                   "DEVFN am_u64 am_key(TS x) {\n"
                   "  return (am_u64)(am_i64)(%s)x ^ ((am_u64)1 << 63);\n"
                   "}\n"
                   "DEVFN bool am_nan(TS x) { (void)x; return false; }\n",
                   am_ks_ctype(t));
      break;
    case AM_FLOAT32:
      am_sb_puts(sb,
                 "DEVFN am_u64 am_key(TS x) {\n"
                 "  return (am_u64)((x >> 31) != 0u ? ~x : (x | 0x80000000u));\n"
                 "}\n"
                 "DEVFN bool am_nan(TS x) { return (x & 0x7fffffffu) > 0x7f800000u; }\n");
      break;
    case AM_FLOAT64:
      am_sb_puts(sb,
                 "DEVFN am_u64 am_key(TS x) {\n"
                 "  return (x >> 63) != 0u ? ~x : (x | ((am_u64)1 << 63));\n"
                 "}\n"
                 "DEVFN bool am_nan(TS x) {\n"
                 "  return (x & ~((am_u64)1 << 63)) > (am_u64)0x7ff0000000000000ull;\n"
                 "}\n");
      break;
    default: /* unsigned */
      am_sb_puts(sb,
                 "DEVFN am_u64 am_key(TS x) { return (am_u64)x; }\n"
                 "DEVFN bool am_nan(TS x) { (void)x; return false; }\n");
      break;
  }
}

static void emit_hist(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int pass = pass_of(k);
  am_sb_printf(sb, "#define AM_SHIFT %du\n", 56 - 8 * pass);
  am_sb_printf(sb, "typedef %s TS;\n", am_ks_store(k->t0));
  emit_key(sb, k->t0);
  am_ks_smem_add(sb, d);
  am_ks_args(sb, am_ks_store(k->t0), "am_u8", "am_u32");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  SMEM am_u32 am_h[AM_BLOCK];\n"
             "  am_h[am_tid] = 0u;\n"
             "  BARRIER();\n"
             "  const am_i64 n = a.n;\n"
             "  const bool hv0 = a.valid0 != 0;\n");
  if (pass == 0)
    am_sb_puts(sb, "  GLOBAL am_u32 *counts = a.out;\n");
  else
    am_sb_printf(sb,
                 "  GLOBAL am_u32 *st = a.out + 256u + (am_u32)a.aux * 260u;\n"
                 "  GLOBAL am_u32 *counts = st + 4u;\n"
                 "  // the digits chosen so far: the key's bits above this pass's\n"
                 "  const am_u64 prefix = (((am_u64)st[1] << 32) | (am_u64)st[0]) >> %du;\n",
                 64 - 8 * pass);
  am_sb_puts(sb,
             "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < n;\n"
             "       i += (am_i64)am_nblocks * AM_BLOCK) {\n"
             "    if (hv0 && am_bit(a.valid0, a.off0 + i) == 0u) continue;\n"
             "    const TS x = a.in0[a.off0 + i];\n"
             "    if (am_nan(x)) continue;\n"
             "    const am_u64 key = am_key(x);\n");
  if (pass > 0) am_sb_printf(sb, "    if ((key >> %du) != prefix) continue;\n", 64 - 8 * pass);
  am_sb_puts(sb,
             "    SMEM_ADD32(&am_h[(am_u32)(key >> AM_SHIFT) & 255u], 1u);\n"
             "  }\n"
             "  BARRIER();\n"
             "  const am_u32 c = am_h[am_tid];\n"
             "  if (c != 0u) ATOMIC_ADD32(counts + am_tid, c);\n");
}

static void emit_pick(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int pass = pass_of(k);
  am_sb_printf(sb, "#define AM_SHIFT %du\n#define AM_PASS %d\n", 56 - 8 * pass, pass);
  am_ks_args(sb, "am_u8", "am_u8", "am_u32");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(
      sb,
      "  SMEM am_u32 am_s[AM_BLOCK];\n"
      "  GLOBAL am_u32 *st = a.out + 256u + (am_u32)a.aux * 260u;\n"
      "  GLOBAL am_u32 *counts = AM_PASS == 0 ? a.out : st + 4u;\n"
      "  const am_u32 c = counts[am_tid];\n"
      "  am_s[am_tid] = c;\n"
      "  BARRIER();\n"
      "  for (am_u32 d = 1u; d < AM_BLOCK; d <<= 1) {\n"
      "    const am_u32 o = am_tid >= d ? am_s[am_tid - d] : 0u;\n"
      "    BARRIER();\n"
      "    am_s[am_tid] += o;\n"
      "    BARRIER();\n"
      "  }\n"
      "  const am_u64 incl = (am_u64)am_s[am_tid], before = incl - (am_u64)c;\n"
      "  const am_u64 k = AM_PASS == 0 ? a.scalar : (((am_u64)st[3] << 32) | (am_u64)st[2]);\n"
      "  const am_u64 prefix = AM_PASS == 0 ? (am_u64)0 : (((am_u64)st[1] << 32) | "
      "(am_u64)st[0]);\n"
      "  BARRIER();\n"
      "  // the one digit whose bucket holds rank k\n"
      "  if (c != 0u && k >= before && k < incl) {\n"
      "    const am_u64 p = prefix | ((am_u64)am_tid << AM_SHIFT);\n"
      "    const am_u64 left = k - before;\n"
      "    st[0] = (am_u32)p;\n"
      "    st[1] = (am_u32)(p >> 32);\n"
      "    st[2] = (am_u32)left;\n"
      "    st[3] = (am_u32)(left >> 32);\n"
      "  }\n"
      "  if (AM_PASS > 0) counts[am_tid] = 0u; // ready for the next pass\n");
}

/* ---- The hooks of kernel_source.c */

int am_ks_select_key_ok(const am_kernel_key *key) {
  if (key->op < 0 || key->op > 7) return 0;
  if (key->kind == AM_KERNEL_SELECT_PICK) return 1;
  return key->kind == AM_KERNEL_SELECT_HIST && am_type_is_numeric(key->t0);
}

void am_ks_select_name(const am_kernel_key *key, char *name, size_t capacity) {
  if (key->kind == AM_KERNEL_SELECT_HIST)
    snprintf(name, capacity, "am_select_hist%d_%s", key->op, am_type_label(key->t0));
  else
    snprintf(name, capacity, "am_select_pick%d", key->op);
}

int64_t am_ks_select_blocks(const am_kernel_key *key, int64_t n, int multiprocessors) {
  if (key->kind == AM_KERNEL_SELECT_PICK) return 1;
  /* at least 16 slots a thread: the per-block histogram's adds to device
   * memory (256 a block) stay few against the slots */
  int64_t blocks = (n + (int64_t)AM_GPU_BLOCK * 16 - 1) / ((int64_t)AM_GPU_BLOCK * 16);
  int64_t most = 8 * (int64_t)(multiprocessors > 0 ? multiprocessors : 1);
  return blocks > most ? most : blocks;
}

void am_ks_select_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name) {
  if (key->kind == AM_KERNEL_SELECT_HIST)
    emit_hist(sb, dialect, key, name);
  else
    emit_pick(sb, dialect, key, name);
}
