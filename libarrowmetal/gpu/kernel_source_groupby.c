/* The GPU kernels of group-by and hash joins (kernels.h: AM_KERNEL_GROUP_*,
 * AM_KERNEL_JOIN_*), written on kernel_source.c's pieces
 * (kernel_source_emit.h).
 *
 * Grouping itself is the hash-based functions' table (kernel_source_hash.c):
 * one key column is grouped by HASH_BUILD ... HASH_IDS; several are grouped
 * column by column, GROUP_PACK pairing the running id with the next
 * column's id into one 64-bit key that is grouped again (so equality holds
 * on every column, nulls a value of their own), as cpu/groupby.c does on
 * the CPU. GROUP_DENSE replaces HASH_BUILD for one small-range integer key:
 * the slot is the key minus the minimum, no probing.
 *
 * Aggregates are one pass (two for min / max and variance) over the rows by
 * group id, into AM_GROUP_STATE_WORDS u64 words of state per group, by
 * 64-bit atomics (so: CUDA only; Metal has no 64-bit atomics nor double,
 * and am_kernel_supported says no there), then one GROUP_FINISH per result
 * over the groups. Counts are added once per warp and group (match_any),
 * as HASH_BUILD does: few groups put every row on the same words.
 *
 * Joins: JOIN_MARK counts each row's output rows, JOIN_WRITE writes them at
 * the offsets a scan made (two passes, so no buffer can overflow). */
#include <stdio.h>

#include "arrowmetal.h"
#include "core/types.h"
#include "gpu/kernel_source_emit.h"

int am_ks_groupby_kind(am_kernel_kind kind) {
  switch (kind) {
    AM_KS_GROUPBY_CASES
    return 1;
    default:
      return 0;
  }
}

/* ---- Shared text */

/* 64-bit atomics: add, max (CAS loop off the device), double add, and
 * CAS-loop products. */
static const char atomics[] =
    "typedef unsigned long long am_ull;\n"
    "DEVFN void am_g_add(GLOBAL am_u64 *p, am_u64 v) { atomicAdd((am_ull *)p, (am_ull)v); }\n"
    "DEVFN void am_g_max(GLOBAL am_u64 *p, am_u64 v) {\n"
    "#ifdef __CUDA_ARCH__\n"
    "  atomicMax((am_ull *)p, (am_ull)v);\n"
    "#else\n"
    "  am_ull old = *(volatile am_ull *)p;\n"
    "  while (old < v) {\n"
    "    const am_ull got = atomicCAS((am_ull *)p, old, (am_ull)v);\n"
    "    if (got == old) break;\n"
    "    old = got;\n"
    "  }\n"
    "#endif\n"
    "}\n"
    "DEVFN void am_g_fadd(GLOBAL am_u64 *p, am_f64 x) {\n"
    "#ifdef __CUDA_ARCH__\n"
    "  atomicAdd((double *)p, x);\n"
    "#else\n"
    "  am_ull old = *(volatile am_ull *)p;\n"
    "  for (;;) {\n"
    "    const am_ull next = (am_ull)F64_BITS(BITS_F64(old) + x);\n"
    "    const am_ull got = atomicCAS((am_ull *)p, old, next);\n"
    "    if (got == old) break;\n"
    "    old = got;\n"
    "  }\n"
    "#endif\n"
    "}\n"
    "DEVFN void am_g_fmul(GLOBAL am_u64 *p, am_f64 x) {\n"
    "  am_ull old = *(volatile am_ull *)p;\n"
    "  for (;;) {\n"
    "    const am_ull next = (am_ull)F64_BITS(BITS_F64(old) * x);\n"
    "    const am_ull got = atomicCAS((am_ull *)p, old, next);\n"
    "    if (got == old) break;\n"
    "    old = got;\n"
    "  }\n"
    "}\n"
    "DEVFN void am_g_imul(GLOBAL am_u64 *p, am_u64 x) {\n"
    "  am_ull old = *(volatile am_ull *)p;\n"
    "  for (;;) {\n"
    "    const am_ull got = atomicCAS((am_ull *)p, old, (am_ull)(old * x));\n"
    "    if (got == old) break;\n"
    "    old = got;\n"
    "  }\n"
    "}\n";

static const char rows_head[] =
    "  const am_i64 n = a.n;\n"
    "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n";

/* Warps walk whole 32-row words (every lane reaches the ballots). */
static const char warp_loop[] =
    "  for (am_i64 base = (am_i64)am_bid * AM_BLOCK + (am_i64)am_warp * 32; base < n;\n"
    "       base += stride) {\n"
    "    const am_i64 i = base + (am_i64)am_lane;\n"
    "    const bool live = i < n;\n";

/* AM_VAL(i): row i's value as the accumulator sees it (integers widened to
 * 64 bits, signed by sign extension; floats as double), and AM_OKEY(v) its
 * order key (-0.0 as 0.0, so the two tie) and AM_ISNAN(v). */
static void emit_value(am_sb *sb, am_type t) {
  if (!am_type_valid((int)t)) {
    am_sb_puts(sb, "#define AM_FLOAT 0\n");
    return;
  }
  am_ks_operand(sb, 0, t);
  int is_float = am_type_is_float(t);
  int is_signed = am_type_kind_of(t) == AM_KIND_SIGNED;
  am_sb_printf(sb, "#define AM_FLOAT %d\n", is_float);
  if (is_float) {
    am_sb_puts(sb,
               "typedef am_f64 VT;\n"
               "#define AM_VAL(i) ((am_f64)AM_LOAD0(i))\n"
               "#define AM_ISNAN(v) ((v) != (v))\n"
               "#define AM_DBL(v) (v)\n"
               "DEVFN am_u64 am_okey(am_f64 v) {\n"
               "  const am_u64 b = F64_BITS(v == 0.0 ? 0.0 : v);\n"
               "  return (b >> 63) != 0u ? ~b : b | ((am_u64)1 << 63);\n"
               "}\n");
  } else {
    am_sb_printf(sb,
                 "typedef am_u64 VT;\n"
                 "#define AM_VAL(i) ((am_u64)(%s)AM_LOAD0(i))\n"
                 "#define AM_ISNAN(v) false\n"
                 "#define AM_DBL(v) ((am_f64)(%s)(v))\n"
                 "DEVFN am_u64 am_okey(am_u64 v) { return v%s; }\n",
                 is_signed ? "am_i64" : "am_u64", is_signed ? "am_i64" : "am_u64",
                 is_signed ? " ^ ((am_u64)1 << 63)" : "");
  }
}

/* ---- GROUP_PACK: out (u64)[i] = in0[i] << 32 | in1[i] (int32 ids). */
static void emit_pack(am_sb *sb, am_dialect d, const char *name) {
  am_ks_args(sb, "am_i32", "am_i32", "am_u64");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb,
             "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < n; i += stride)\n"
             "    a.out[i] = (am_u64)(am_u32)a.in0[i] << 32 | (am_u64)(am_u32)a.in1[i];\n");
}

/* ---- GROUP_DENSE: HASH_BUILD's job for one integer key of a small range:
 * the slot is key - scalar (the minimum, as the key's 64-bit form), nulls
 * slot cap + 1; the table holds no keys (first words from word 0). */
static void emit_dense(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, am_ks_ptype(k->t0), "am_u8", "am_u32");
  am_ks_operand(sb, 0, k->t0);
  am_sb_printf(sb, "#define AM_SIGNED %d\n", am_type_kind_of(k->t0) == AM_KIND_SIGNED);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(
      sb,
      "  const am_u64 cap = (am_u64)a.aux;\n"
      "  GLOBAL am_u32 *tab = a.out;\n"
      "  const bool hv0 = a.valid0 != 0;\n"
      "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < n; i += stride) {\n"
      "    am_u64 s = cap + 1u;\n"
      "    if (!hv0 || am_bit(a.valid0, a.off0 + i) != 0u) {\n"
      "      const am_u64 v = AM_SIGNED ? (am_u64)(am_i64)AM_LOAD0(i) : (am_u64)AM_LOAD0(i);\n"
      "      s = v - a.scalar;\n"
      "    }\n"
      "    GLOBAL am_u32 *first = tab + s;\n"
      "    if (*first < ~(am_u32)i) atomicMax(first, ~(am_u32)i);\n"
      "  }\n");
}

/* ---- GROUP_ACCUM */
static void emit_accum(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int cls = k->op & 15, any_row = (k->op >> 4) & 1;
  am_ks_args(sb, am_type_valid((int)k->t0) ? am_ks_ptype(k->t0) : "am_u8", "am_i32", "am_u64");
  emit_value(sb, k->t0);
  am_sb_puts(sb, atomics);
  am_sb_printf(sb, "#define AM_CLASS %d\n#define AM_ANY_ROW %d\n", cls, any_row);
  am_sb_printf(sb,
               "#define ACC_INIT %d\n#define ACC_COUNT %d\n#define ACC_SUM %d\n"
               "#define ACC_PRODUCT %d\n#define ACC_MINMAX %d\n#define ACC_PICK %d\n"
               "#define ACC_FIRST %d\n#define ACC_ANY %d\n#define ACC_ALL %d\n"
               "#define ACC_DSUM %d\n#define ACC_M2 %d\n#define AM_W %d\n",
               AM_ACC_INIT, AM_ACC_COUNT, AM_ACC_SUM, AM_ACC_PRODUCT, AM_ACC_MINMAX, AM_ACC_PICK,
               AM_ACC_FIRST, AM_ACC_ANY, AM_ACC_ALL, AM_ACC_DSUM, AM_ACC_M2, AM_GROUP_STATE_WORDS);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb, "  GLOBAL am_u64 *st = a.out;\n");
  if (cls == AM_ACC_INIT) {
    am_sb_puts(sb,
               "  for (am_i64 g = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; g < n; g += stride)\n"
               "    st[g * AM_W + 2] = a.scalar;\n");
    return;
  }
  am_sb_puts(sb, "  const bool hv0 = a.valid0 != 0;\n");
  am_sb_puts(sb, warp_loop);
  am_sb_puts(sb,
             "    am_i64 g = 0;\n"
             "    bool valid = false;\n"
             "    if (live) {\n"
             "      g = (am_i64)a.in1[i];\n"
             "      valid = !hv0 || am_bit(a.valid0, a.off0 + i) != 0u;\n"
             "    }\n"
             "    GLOBAL am_u64 *w = st + g * AM_W;\n"
             "    (void)w;\n"
             "#if AM_CLASS != ACC_PICK && AM_CLASS != ACC_M2\n"
             "    // Counts: once per warp and (group, validity).\n"
             "    const am_u64 tag = live ? (am_u64)g * 2u + (valid ? 1u : 0u) : ~(am_u64)0;\n"
             "    const am_u32 peers = __match_any_sync(0xffffffffu, tag);\n"
             "    if (live && (am_u32)(__ffs(peers) - 1) == am_lane)\n"
             "      am_g_add(w + (valid ? 0 : 1), (am_u64)POPC(peers));\n"
             "#endif\n");
  if (cls == AM_ACC_FIRST)
    am_sb_puts(sb,
               "    if (live && (valid || AM_ANY_ROW)) {\n"
               "      if (w[4] < ~(am_u64)i) am_g_max(w + 4, ~(am_u64)i);\n"
               "      if (w[5] < (am_u64)i + 1u) am_g_max(w + 5, (am_u64)i + 1u);\n"
               "    }\n");
  else if (cls != AM_ACC_COUNT)
    am_sb_puts(
        sb,
        "#if AM_FLOAT || AM_CLASS != ACC_COUNT\n"
        "    if (live && valid) {\n"
        "      const VT v = AM_VAL(i);\n"
        "#if AM_CLASS == ACC_SUM\n"
        "#if AM_FLOAT\n"
        "      am_g_fadd(w + 2, v);\n"
        "#else\n"
        "      am_g_add(w + 2, v);\n"
        "#endif\n"
        "#elif AM_CLASS == ACC_PRODUCT\n"
        "#if AM_FLOAT\n"
        "      am_g_fmul(w + 2, v);\n"
        "#else\n"
        "      am_g_imul(w + 2, v);\n"
        "#endif\n"
        "#elif AM_CLASS == ACC_DSUM\n"
        "      am_g_fadd(w + 2, AM_DBL(v));\n"
        "#elif AM_CLASS == ACC_ANY || AM_CLASS == ACC_ALL\n"
        "      if ((v != (VT)0) == (AM_CLASS == ACC_ANY) && w[2] == 0u) am_g_max(w + 2, 1u);\n"
        "#elif AM_CLASS == ACC_MINMAX\n"
        "      // w2: ~(smallest key), w3: largest key, w7: NaN rows.\n"
        "      if (AM_ISNAN(v)) {\n"
        "        am_g_add(w + 7, 1u);\n"
        "      } else {\n"
        "        const am_u64 key = am_okey(v);\n"
        "        if (w[2] < ~key) am_g_max(w + 2, ~key);\n"
        "        if (w[3] < key) am_g_max(w + 3, key);\n"
        "      }\n"
        "#elif AM_CLASS == ACC_PICK\n"
        "      // The first row of the smallest (w4) and largest (w5) key, and\n"
        "      // of NaN (w6), each as ~row.\n"
        "      if (AM_ISNAN(v)) {\n"
        "        if (w[6] < ~(am_u64)i) am_g_max(w + 6, ~(am_u64)i);\n"
        "      } else {\n"
        "        const am_u64 key = am_okey(v);\n"
        "        if (key == ~w[2] && w[4] < ~(am_u64)i) am_g_max(w + 4, ~(am_u64)i);\n"
        "        if (key == w[3] && w[5] < ~(am_u64)i) am_g_max(w + 5, ~(am_u64)i);\n"
        "      }\n"
        "#elif AM_CLASS == ACC_M2\n"
        "      const am_f64 mean = BITS_F64(w[2]) / (am_f64)w[0];\n"
        "      const am_f64 dv = AM_DBL(v) - mean;\n"
        "      am_g_fadd(w + 3, dv * dv);\n"
        "#endif\n"
        "    }\n"
        "#endif\n");
  am_sb_puts(sb, "  }\n");
}

/* ---- GROUP_FINISH: per group g < n, the result of one aggregate from its
 * state (in0), pyarrow's null rules with min_count = scalar and ddof = aux. */
static void emit_finish(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int gop = k->op & 31, skip = (k->op >> 5) & 1, mode = (k->op >> 6) & 3,
            upper = (k->op >> 8) & 1;
  am_ks_args(sb, "am_u64", "am_u8", "am_u32");
  am_sb_puts(sb, atomics);
  am_type t = k->t0;
  int is_float = am_type_valid((int)t) && am_type_is_float(t);
  int is_signed = am_type_valid((int)t) && am_type_kind_of(t) == AM_KIND_SIGNED;
  am_sb_printf(sb,
               "#define AM_GOP %d\n#define AM_SKIP %d\n#define AM_MODE %d\n#define AM_UPPER %d\n"
               "#define AM_FLOAT %d\n#define AM_SIGNED %d\n#define AM_W %d\n",
               gop, skip, mode, upper, is_float, is_signed, AM_GROUP_STATE_WORDS);
  am_sb_printf(sb,
               "#define G_COUNT %d\n#define G_SUM %d\n#define G_PRODUCT %d\n#define G_MEAN %d\n"
               "#define G_MIN %d\n#define G_MAX %d\n#define G_MIN_MAX %d\n#define G_FIRST %d\n"
               "#define G_LAST %d\n#define G_ANY %d\n#define G_ALL %d\n#define G_VARIANCE %d\n"
               "#define G_STDDEV %d\n#define G_COUNT_ALL %d\n",
               AM_GROUP_COUNT, AM_GROUP_SUM, AM_GROUP_PRODUCT, AM_GROUP_MEAN, AM_GROUP_MIN,
               AM_GROUP_MAX, AM_GROUP_MIN_MAX, AM_GROUP_FIRST, AM_GROUP_LAST, AM_GROUP_ANY,
               AM_GROUP_ALL, AM_GROUP_VARIANCE, AM_GROUP_STDDEV, AM_GROUP_COUNT_ALL);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  if (gop != AM_GROUP_ANY && gop != AM_GROUP_ALL)
    am_sb_puts(sb, "  GLOBAL am_u64 *o64 = (GLOBAL am_u64 *)a.out;\n");
  am_sb_puts(sb,
             "  const am_u64 min_count = a.scalar;\n"
             "  const am_i64 ddof = a.aux;\n"
             "  (void)ddof;\n");
  am_sb_puts(sb, warp_loop);
  am_sb_puts(
      sb,
      "    bool ok = false;\n"
      "#if AM_GOP == G_ANY || AM_GOP == G_ALL\n"
      "    bool bit = false;\n"
      "#endif\n"
      "    if (live) {\n"
      "      GLOBAL const am_u64 *w = a.in0 + i * AM_W;\n"
      "      const am_u64 valid = w[0], nulls = w[1];\n"
      "      const bool by_options = valid < min_count || (!AM_SKIP && nulls > 0u);\n"
      "      (void)by_options;\n"
      "#if AM_GOP == G_COUNT || AM_GOP == G_COUNT_ALL\n"
      "      o64[i] = AM_GOP == G_COUNT_ALL || AM_MODE == 2 ? valid + nulls\n"
      "               : AM_MODE == 1                      ? nulls\n"
      "                                                   : valid;\n"
      "      ok = true;\n"
      "#elif AM_GOP == G_SUM || AM_GOP == G_PRODUCT\n"
      "      ok = !by_options;\n"
      "      o64[i] = ok ? w[2] : 0u;\n"
      "#elif AM_GOP == G_MEAN\n"
      "      ok = !by_options;\n"
      "      const am_f64 s = AM_FLOAT ? BITS_F64(w[2]) : AM_SIGNED ? (am_f64)(am_i64)w[2]\n"
      "                                                             : (am_f64)w[2];\n"
      "      o64[i] = ok ? F64_BITS(s / (am_f64)valid) : 0u;\n"
      "#elif AM_GOP == G_VARIANCE || AM_GOP == G_STDDEV\n"
      "      ok = !by_options && (am_i64)valid > ddof;\n"
      "      const am_f64 var = ok ? BITS_F64(w[3]) / (am_f64)((am_i64)valid - ddof) : 0.0;\n"
      "      o64[i] = ok ? F64_BITS(AM_GOP == G_STDDEV ? sqrt(var) : var) : 0u;\n"
      "#elif AM_GOP == G_ANY || AM_GOP == G_ALL\n"
      "      // Kleene without skip_nulls: a hit decides, else a null makes null.\n"
      "      const bool hit = w[2] != 0u;\n"
      "      ok = !(valid < min_count || (!AM_SKIP && nulls > 0u && !hit));\n"
      "      bit = ok && (AM_GOP == G_ANY ? hit : !hit);\n"
      "#else\n"
      "      // A row (int64) for the host's take.\n"
      "      am_u64 row;\n"
      "#if AM_GOP == G_FIRST\n"
      "      row = ~w[4];\n"
      "      ok = w[4] != 0u && valid >= min_count;\n"
      "#elif AM_GOP == G_LAST\n"
      "      row = w[5] - 1u;\n"
      "      ok = w[5] != 0u && valid >= min_count;\n"
      "#else\n"
      "      const bool hi = AM_GOP == G_MAX || (AM_GOP == G_MIN_MAX && AM_UPPER);\n"
      "      const am_u64 pick = w[4] != 0u ? (hi ? w[5] : w[4]) : w[6];\n"
      "      row = ~pick;\n"
      "      // min, max and min_max ignore min_count, as pyarrow's hash_min_max\n"
      "      ok = pick != 0u && !(!AM_SKIP && nulls > 0u);\n"
      "#endif\n"
      "      o64[i] = ok ? row : 0u;\n"
      "#endif\n"
      "    }\n"
      "    const am_u32 vw = BALLOT(ok);\n"
      "#if AM_GOP == G_ANY || AM_GOP == G_ALL\n"
      "    const am_u32 bw = BALLOT(bit);\n"
      "    if (am_lane == 0u) a.out[base >> 5] = bw;\n"
      "#endif\n"
      "    if (am_lane == 0u && a.out_valid != 0) a.out_valid[base >> 5] = vw;\n"
      "  }\n");
}

/* ---- JOIN_MARK / JOIN_WRITE (the argument use is kernels.h's). Groups
 * have two u32 flag words (in0): [2g] a left row has the key, [2g + 1] the
 * key tuple holds a null (such a group has only such rows: it never
 * matches). */

static void emit_join_defs(am_sb *sb) {
  am_sb_printf(sb,
               "#define J_INNER %d\n#define J_LEFT_OUTER %d\n#define J_RIGHT_OUTER %d\n"
               "#define J_FULL_OUTER %d\n#define J_LEFT_SEMI %d\n#define J_LEFT_ANTI %d\n"
               "#define J_RIGHT_SEMI %d\n#define J_RIGHT_ANTI %d\n",
               AM_JOIN_INNER, AM_JOIN_LEFT_OUTER, AM_JOIN_RIGHT_OUTER, AM_JOIN_FULL_OUTER,
               AM_JOIN_LEFT_SEMI, AM_JOIN_LEFT_ANTI, AM_JOIN_RIGHT_SEMI, AM_JOIN_RIGHT_ANTI);
}

static void emit_join_mark(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u32", "am_i32", "am_i64");
  am_sb_puts(sb, atomics);
  am_sb_printf(sb, "#define AM_OP %d\n", k->op);
  emit_join_defs(sb);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb,
             "  GLOBAL am_u32 *flags = (GLOBAL am_u32 *)a.in0;\n"
             "#if AM_OP < 16\n"
             "  GLOBAL const am_i64 *rcount = (GLOBAL const am_i64 *)a.valid1;\n"
             "#endif\n"
             "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < n; i += stride) {\n"
             "    const am_i64 g = (am_i64)a.in1[i];\n"
             "#if AM_OP == 16\n"
             "    if (i >= a.aux)\n"
             "      am_g_add((GLOBAL am_u64 *)a.out + g, 1u);\n"
             "    else if (flags[2 * g] == 0u)\n"
             "      flags[2 * g] = 1u;\n"
             "#elif AM_OP == 17\n"
             "    if (am_bit(a.valid0, a.off0 + i) == 0u && flags[2 * g + 1] == 0u) flags[2 * g + "
             "1] = 1u;\n"
             "#else\n"
             "    const int type = AM_OP & 7;\n"
             "    const bool right = (AM_OP >> 3) != 0;\n"
             "    const am_u64 m = flags[2 * g + 1] != 0u ? 0u\n"
             "                     : right              ? (am_u64)flags[2 * g]\n"
             "                                          : (am_u64)rcount[g];\n"
             "    am_i64 c;\n"
             "    if (right)\n"
             "      c = (type == J_RIGHT_SEMI) ? (m != 0u) : (m == 0u);\n"
             "    else if (type == J_LEFT_SEMI)\n"
             "      c = m != 0u;\n"
             "    else if (type == J_LEFT_ANTI)\n"
             "      c = m == 0u;\n"
             "    else if (type == J_LEFT_OUTER || type == J_FULL_OUTER)\n"
             "      c = m != 0u ? (am_i64)m : 1;\n"
             "    else\n"
             "      c = (am_i64)m;\n"
             "    a.out[i] = c;\n"
             "#endif\n"
             "  }\n");
}

static void emit_join_write(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u32", "am_i32", "am_i64");
  am_sb_printf(sb, "#define AM_RIGHT %d\n#define AM_PAIRS %d\n", (k->op >> 3) & 1,
               (k->op >> 4) & 1);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(
      sb,
      "  GLOBAL const am_i64 *scan = (GLOBAL const am_i64 *)a.valid1;\n"
      "  GLOBAL am_i64 *other = (GLOBAL am_i64 *)a.valid0;\n"
      "  GLOBAL am_u32 *other_valid = (GLOBAL am_u32 *)a.off1;\n"
      "  GLOBAL const am_i64 *sorted = (GLOBAL const am_i64 *)a.scalar;\n"
      "  GLOBAL const am_i64 *gend = (GLOBAL const am_i64 *)a.off0;\n"
      "  (void)sorted, (void)gend, (void)other, (void)other_valid;\n"
      "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < n; i += stride) {\n"
      "    const am_i64 end = scan[i];\n"
      "    const am_i64 begin = i == 0 ? 0 : scan[i - 1];\n"
      "    if (end == begin) continue;\n"
      "    const am_i64 g = (am_i64)a.in1[i];\n"
      "    am_i64 from = 0, m = 0;\n"
      "    if (AM_PAIRS && !AM_RIGHT && a.in0[2 * g + 1] == 0u) {\n"
      "      from = g == 0 ? 0 : gend[g - 1];\n"
      "      m = gend[g] - from;\n"
      "    }\n"
      "    for (am_i64 b = begin; b < end; b++) {\n"
      "      const am_i64 at = a.aux + b;\n"
      "      a.out[at] = i;\n"
      "      if (a.out_valid != 0) atomicOr(a.out_valid + (at >> 5), 1u << (am_u32)(at & 31));\n"
      "      if (m != 0) {\n"
      "        other[at] = sorted[from + (b - begin)];\n"
      "        atomicOr(other_valid + (at >> 5), 1u << (am_u32)(at & 31));\n"
      "      }\n"
      "    }\n"
      "  }\n");
}

/* ---- The hooks of kernel_source.c */

int am_ks_groupby_key_ok(const am_kernel_key *key) {
  const int cls = key->op & 15;
  switch (key->kind) {
    case AM_KERNEL_GROUP_PACK:
      return key->op == 0;
    case AM_KERNEL_GROUP_DENSE:
      return key->op == 0 && am_type_valid((int)key->t0) &&
             (am_type_kind_of(key->t0) == AM_KIND_SIGNED ||
              am_type_kind_of(key->t0) == AM_KIND_UNSIGNED);
    case AM_KERNEL_GROUP_ACCUM:
      if (key->op < 0 || key->op > 31 || cls > AM_ACC_M2) return 0;
      if (cls == AM_ACC_INIT || (cls == AM_ACC_COUNT && key->t0 == AM_TYPE_INVALID)) return 1;
      return am_type_valid((int)key->t0);
    case AM_KERNEL_GROUP_FINISH:
      return key->op >= 0 && key->op < 512 && (key->op & 31) <= AM_GROUP_COUNT_ALL;
    case AM_KERNEL_JOIN_MARK:
      return (key->op >= 0 && key->op <= AM_JOIN_RIGHT_ANTI) ||
             (key->op >= 8 && key->op <= 8 + AM_JOIN_RIGHT_ANTI) || key->op == 16 || key->op == 17;
    case AM_KERNEL_JOIN_WRITE:
      return key->op == 0 || key->op == 8 || key->op == 16 || key->op == 24;
    default:
      return 0;
  }
}

/* Metal: no 64-bit atomics, no double: CUDA only (ops_groupby.c and
 * ops_join.c then answer AM_EUNSUPPORTED and the host runs them). */
int am_ks_groupby_missing_type(am_dialect dialect, const am_kernel_key *key) {
  (void)key;
  return dialect == AM_DIALECT_MSL;
}

static const char *type_part(am_type t) { return am_type_valid((int)t) ? am_type_label(t) : "any"; }

void am_ks_groupby_name(const am_kernel_key *key, char *name, size_t capacity) {
  switch (key->kind) {
    case AM_KERNEL_GROUP_PACK:
      snprintf(name, capacity, "am_group_pack");
      break;
    case AM_KERNEL_GROUP_DENSE:
      snprintf(name, capacity, "am_group_dense_%s", am_type_label(key->t0));
      break;
    case AM_KERNEL_GROUP_ACCUM:
      snprintf(name, capacity, "am_group_accum%d_%s", key->op, type_part(key->t0));
      break;
    case AM_KERNEL_GROUP_FINISH:
      snprintf(name, capacity, "am_group_finish%d_%s", key->op, type_part(key->t0));
      break;
    case AM_KERNEL_JOIN_MARK:
      snprintf(name, capacity, "am_join_mark%d", key->op);
      break;
    case AM_KERNEL_JOIN_WRITE:
      snprintf(name, capacity, "am_join_write%d", key->op);
      break;
    default:
      break;
  }
}

void am_ks_groupby_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name) {
  switch (key->kind) {
    case AM_KERNEL_GROUP_PACK:
      emit_pack(sb, dialect, name);
      break;
    case AM_KERNEL_GROUP_DENSE:
      emit_dense(sb, dialect, key, name);
      break;
    case AM_KERNEL_GROUP_ACCUM:
      emit_accum(sb, dialect, key, name);
      break;
    case AM_KERNEL_GROUP_FINISH:
      emit_finish(sb, dialect, key, name);
      break;
    case AM_KERNEL_JOIN_MARK:
      emit_join_mark(sb, dialect, key, name);
      break;
    case AM_KERNEL_JOIN_WRITE:
      emit_join_write(sb, dialect, key, name);
      break;
    default:
      break;
  }
}
