/* The GPU kernels of null handling (kernels.h: AM_KERNEL_PREDICATE and the
 * kinds after it), written once for CUDA and MSL with the pieces of text of
 * kernel_source.c (kernel_source_emit.h), which hands their keys here.
 *
 * PREDICATE: where it reads values, the warp-by-warp element-wise loop with
 * a ballot per 32-slot output word; the tests look at the bits of the float
 * (the exponent all ones: an infinity, or NaN with a mantissa), so neither a
 * compiler's fast-math nor a GPU's flush of subnormals can change an answer.
 * Where it reads only the validity, AM_KS_BITMAP_WORDS 32-slot words a thread,
 * loaded whole where aligned, as LOGIC.
 *
 * COALESCE: the element-wise loop, values moved as bits (as COPY).
 *
 * IF_ELSE: where both sides are arrays, one launch (op 2: in0 the left, in1
 * the condition, in2 the right); with a scalar side, two launches over the
 * same output, one per side (op 0 the left, op 1 the right; the scalar in
 * the argument block's one scalar slot).
 *
 * FILL_BLOCKS, FILL_CARRY, FILL_GATHER: fill_null_forward / _backward as a
 * scan of the last valid position, in three launches shaped as FILTER's
 * (per-block results in the scratch partials, one block scanning them, then
 * every block again with its carry). */
#include <stdio.h>

#include "arrowmetal.h"
#include "core/types.h"
#include "gpu/kernel_source_emit.h"

int am_ks_nulls_kind(am_kernel_kind kind) {
  switch (kind) {
    AM_KS_NULLS_CASES
    return 1;
    default:
      return 0;
  }
}

/* ---- PREDICATE */

static const char *const predicate_names[] = {"is_null", "is_valid", "is_nan", "is_finite",
                                              "is_inf"};

static int predicate_of(const am_kernel_key *k) { return k->op & 0xff; }
static int nan_is_null(const am_kernel_key *k) { return (k->op >> 8) == AM_NAN_IS_NULL; }

/* Whether the kernel reads the values (else only the validity). */
static int predicate_reads_values(const am_kernel_key *k) {
  int p = predicate_of(k);
  return am_type_is_float(k->t0) && (p == AM_IS_NAN || p == AM_IS_FINITE || p == AM_IS_INF ||
                                     (p == AM_IS_NULL && nan_is_null(k)));
}

static int predicate_key_ok(const am_kernel_key *k) {
  int p = predicate_of(k), flags = k->op >> 8;
  if (p < AM_IS_NULL || p > AM_IS_INF || (flags != 0 && flags != AM_NAN_IS_NULL)) return 0;
  /* The flag belongs to is_null, and matters only where there are values. */
  return !flags || (p == AM_IS_NULL && am_type_is_float(k->t0));
}

/* The test of one value, of the float's bits: `b` is the magnitude's bits
 * (sign cleared), `inf` the infinity's. */
static const char *predicate_test(int p) {
  switch (p) {
    case AM_IS_NAN:
    case AM_IS_NULL: /* with AM_NAN_IS_NULL: NaN, or null (below) */
      return "(b > inf)";
    case AM_IS_FINITE:
      return "(b < inf)";
    case AM_IS_INF:
      return "(b == inf)";
  }
  return "false";
}

static void emit_predicate_values(am_sb *sb, am_dialect d, const am_kernel_key *k,
                                  const char *name) {
  int p = predicate_of(k);
  am_ks_operand(sb, 0, k->t0);
  if (k->t0 == AM_FLOAT32)
    am_sb_puts(sb,
               "typedef am_u32 TB;\n"
               "#define AM_MAGNITUDE(x) (F32_BITS(x) & 0x7fffffffu)\n"
               "#define AM_INF_BITS 0x7f800000u\n");
  else
    am_sb_puts(sb,
               "typedef am_u64 TB;\n"
               "#define AM_MAGNITUDE(x) (F64_BITS(x) & (AM_NONE >> 1))\n"
               "#define AM_INF_BITS ((am_u64)0x7ff00000u << 32)\n");
  am_sb_printf(sb,
               "DEVFN bool am_test(T0 x) {\n"
               "  const TB b = AM_MAGNITUDE(x);\n"
               "  const TB inf = AM_INF_BITS;\n"
               "  return %s;\n"
               "}\n",
               predicate_test(p));
  /* is_null is never null: every slot below n is a valid result. */
  am_sb_printf(sb, "#define AM_NEVER_NULL %d\n", p == AM_IS_NULL);
  am_ks_args(sb, am_ks_ptype(k->t0), "am_u8", "am_u32");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, "  const bool hv0 = a.valid0 != 0;\n");
  am_ks_warp_loop(sb, am_ks_unroll(k->t0, 1),
                  "    bool ok# = false;\n"
                  "    bool v# = false;\n"
                  "    T0 x# = 0;\n"
                  "    if (i# < n) {\n"
                  "      v# = !hv0 || am_bit(a.valid0, a.off0 + i#) != 0u;\n"
                  "      x# = AM_LOAD0(i#);\n"
                  "      ok# = AM_NEVER_NULL || v#;\n"
                  "    }\n",
                  NULL,
                  "      const am_u32 r# = (AM_NEVER_NULL ? !v# || am_test(x#) : am_test(x#)) ? 1u "
                  ": 0u;\n",
                  1);
}

static void emit_predicate_validity(am_sb *sb, am_dialect d, const am_kernel_key *k,
                                    const char *name) {
  /* The result word from the validity word v (bits past n clear). */
  static const char *const word[] = {
      [AM_IS_NULL] = "(~v & m)",
      [AM_IS_VALID] = "v",
      [AM_IS_NAN] = "0u",
      [AM_IS_FINITE] = "v", /* true where valid, and zero data where null */
      [AM_IS_INF] = "0u"};
  am_sb_printf(sb, "#define AM_WORD(v, m) %s\n", word[predicate_of(k)]);
  am_ks_args(sb, "am_u8", "am_u8", "am_u32");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, am_ks_word_loop);
  /* AM_KS_BITMAP_WORDS words a thread, loads first; whole 32-bit loads where
   * the host found the bitmap's words 4-byte aligned (a.pad), as LOGIC. */
  am_sb_printf(sb,
               "  for (am_i64 wb = (am_i64)am_bid * AM_BLOCK + am_tid; wb < nw; wb += %d * stride) "
               "{\n",
               AM_KS_BITMAP_WORDS);
  for (int j = 0; j < AM_KS_BITMAP_WORDS; j++)
    am_ks_k(sb,
            "    const am_i64 w# = wb + # * stride;\n"
            "    am_u32 v# = 0xffffffffu;\n"
            "    if (hv0 && w# < nw) v# = am_word32(a.valid0, a.off0, w#, last0, "
            "a.pad != 0 && w# + 1 < nw);\n",
            j);
  for (int j = 0; j < AM_KS_BITMAP_WORDS; j++)
    am_ks_k(sb,
            "    if (w# < nw) {\n"
            "      const am_u32 m# = am_tail_mask(n, w#);\n"
            "      v# &= m#;\n"
            "      a.out[w#] = AM_WORD(v#, m#);\n"
            "      if (a.out_valid != 0) a.out_valid[w#] = v#;\n"
            "    }\n",
            j);
  am_sb_puts(sb, "  }\n");
}

static void predicate_name(const am_kernel_key *k, char *name, size_t capacity) {
  const char *what = predicate_names[predicate_of(k)];
  if (predicate_reads_values(k))
    snprintf(name, capacity, "am_%s%s_%s", what, nan_is_null(k) ? "_nan" : "",
             am_type_label(k->t0));
  else if (predicate_of(k) == AM_IS_NULL || predicate_of(k) == AM_IS_VALID)
    snprintf(name, capacity, "am_%s", what);
  else /* the constant of integers */
    snprintf(name, capacity, "am_%s_integer", what);
}

/* ---- COALESCE */

/* Slot i of in0 where it is valid, else of in1 (or the scalar when in1 is
 * 0). Values move as the bits of their storage type, so every type runs in
 * every dialect (float64 in MSL too) and NaN payloads and -0.0 survive. */
static void emit_coalesce(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type t = k->t0;
  int bits = t == AM_BOOL;
  am_sb_printf(sb, "typedef %s TV;\n", bits ? "am_u32" : am_ks_store(t));
  if (bits)
    am_sb_puts(sb,
               "#define AM_GET0(i) am_bit(a.in0, a.off0 + (i))\n"
               "#define AM_GET1(i) am_bit(a.in1, a.off1 + (i))\n"
               "#define AM_SCALAR_BITS (a.scalar != 0u ? 1u : 0u)\n");
  else
    am_sb_printf(sb,
                 "#define AM_GET0(i) a.in0[a.off0 + (i)]\n"
                 "#define AM_GET1(i) a.in1[a.off1 + (i)]\n"
                 "#define AM_SCALAR_BITS %s\n",
                 t == AM_FLOAT32 ? "F32_BITS(AM_F64BITS_TO_F32(a.scalar))" : "((TV)a.scalar)");
  am_ks_args(sb, am_ks_store(t), am_ks_store(t), bits ? "am_u32" : am_ks_store(t));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  const bool hv1 = a.valid1 != 0;\n"
             "  const bool sc = a.in1 == 0;\n"
             "  const TV ys = AM_SCALAR_BITS;\n");
  am_ks_warp_loop(sb, am_ks_unroll(t, bits),
                  "    bool ok# = false;\n"
                  "    TV r# = 0;\n"
                  "    if (i# < n) {\n"
                  "      if (!hv0 || am_bit(a.valid0, a.off0 + i#) != 0u) {\n"
                  "        ok# = true;\n"
                  "        r# = AM_GET0(i#);\n"
                  "      } else if (sc) {\n"
                  "        ok# = true;\n"
                  "        r# = ys;\n"
                  "      } else if (!hv1 || am_bit(a.valid1, a.off1 + i#) != 0u) {\n"
                  "        ok# = true;\n"
                  "        r# = AM_GET1(i#);\n"
                  "      }\n"
                  "    }\n",
                  NULL, "", bits);
}

/* ---- IF_ELSE */

/* Values (or bits) of in0, or the scalar when in0 is 0, as TV: the same
 * storage-type text as COALESCE. */
static void emit_side_access(am_sb *sb, am_type t) {
  int bits = t == AM_BOOL;
  am_sb_printf(sb, "typedef %s TV;\n", bits ? "am_u32" : am_ks_store(t));
  if (bits)
    am_sb_puts(sb,
               "#define AM_GET0(i) am_bit(a.in0, a.off0 + (i))\n"
               "#define AM_SCALAR_BITS (a.scalar != 0u ? 1u : 0u)\n");
  else
    am_sb_printf(sb,
                 "#define AM_GET0(i) a.in0[a.off0 + (i)]\n"
                 "#define AM_SCALAR_BITS %s\n",
                 t == AM_FLOAT32 ? "F32_BITS(AM_F64BITS_TO_F32(a.scalar))" : "((TV)a.scalar)");
}

/* One side of if_else per launch: op 0 the left side (where the condition,
 * in1 with valid1, is true), writing every output word; op 1 the right side
 * (where it is false), merged into the words the first launch wrote (each
 * warp owns its words, and the launches run in order). Warps walk whole
 * 32-slot words as in emit_warp_loop, `u` words a pass, loads first. */
static void emit_if_else(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type t = k->t0;
  int bits = t == AM_BOOL, merge = k->op == 1, u = am_ks_unroll(t, bits);
  emit_side_access(sb, t);
  am_sb_printf(sb, "#define AM_WHEN %du\n", merge ? 0 : 1);
  am_ks_args(sb, am_ks_store(t), "am_u8", bits ? "am_u32" : am_ks_store(t));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_printf(sb,
               "  const bool hv0 = a.valid0 != 0;\n"
               "  const bool hv1 = a.valid1 != 0;\n"
               "  const bool sc = a.in0 == 0;\n"
               "  const bool snull = a.scalar_null != 0;\n"
               "  const TV ys = AM_SCALAR_BITS;\n"
               "  const am_i64 n = a.n;\n"
               "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
               "  for (am_i64 base = (am_i64)am_bid * AM_BLOCK + am_warp * 32u; base < n;\n"
               "       base += %d * stride) {\n",
               u);
  for (int j = 0; j < u; j++)
    am_ks_k(sb,
            "    const am_i64 i# = base + # * stride + am_lane;\n"
            "    bool mine# = false;\n"
            "    bool ok# = false;\n"
            "    TV r# = 0;\n"
            "    if (i# < n) {\n"
            "      const bool cv# = !hv1 || am_bit(a.valid1, a.off1 + i#) != 0u;\n"
            "      mine# = cv# && am_bit(a.in1, a.off1 + i#) == AM_WHEN;\n"
            "      if (mine# && sc) {\n"
            "        ok# = !snull;\n"
            "        r# = ys;\n"
            "      } else if (mine#) {\n"
            "        ok# = !hv0 || am_bit(a.valid0, a.off0 + i#) != 0u;\n"
            "        r# = AM_GET0(i#);\n"
            "      }\n"
            "    }\n",
            j);
  const char *assign = merge ? "|=" : "=";
  for (int j = 0; j < u; j++) {
    am_ks_k(sb, "    if (base + # * stride < n) {\n", j);
    if (bits) {
      am_ks_k(sb, "      const am_u32 rw# = BALLOT(ok# && r# != 0u);\n", j);
    } else {
      am_ks_k(sb,
              merge ? "      if (mine#) a.out[i#] = r#;\n" : "      if (i# < n) a.out[i#] = r#;\n",
              j);
    }
    am_ks_k(sb,
            "      const am_u32 vw# = BALLOT(ok#);\n"
            "      if (am_lane == 0u) {\n",
            j);
    char line[160];
    if (bits) {
      snprintf(line, sizeof line, "        a.out[(base + # * stride) >> 5] %s rw#;\n", assign);
      am_ks_k(sb, line, j);
    }
    snprintf(line, sizeof line,
             "        if (a.out_valid != 0) a.out_valid[(base + # * stride) >> 5] %s vw#;\n",
             assign);
    am_ks_k(sb, line, j);
    am_sb_puts(sb, "      }\n    }\n");
  }
  am_sb_puts(sb, "  }\n");
}

/* Both sides arrays, in one launch (op 2): the condition (in1, valid1)
 * picks each slot from in0 or in2 and only that side is read, every output
 * word written once. The two launches of ops 0 and 1 read the condition
 * twice and wrote the output twice: float64 at 10^8 rows took 1.05 ms,
 * where a copy of the bytes read and written takes 0.60. */
static void emit_if_else_both(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type t = k->t0;
  int bits = t == AM_BOOL, u = am_ks_unroll(t, bits);
  emit_side_access(sb, t);
  am_sb_puts(sb, bits ? "#define AM_GET2(i) am_bit(a.in2, a.off2 + (i))\n"
                      : "#define AM_GET2(i) a.in2[a.off2 + (i)]\n");
  am_ks_args(sb, am_ks_store(t), "am_u8", bits ? "am_u32" : am_ks_store(t));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_printf(sb,
               "  const bool hv0 = a.valid0 != 0;\n"
               "  const bool hv1 = a.valid1 != 0;\n"
               "  const bool hv2 = a.valid2 != 0;\n"
               "  const am_i64 n = a.n;\n"
               "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
               "  for (am_i64 base = (am_i64)am_bid * AM_BLOCK + am_warp * 32u; base < n;\n"
               "       base += %d * stride) {\n",
               u);
  for (int j = 0; j < u; j++)
    am_ks_k(sb,
            "    const am_i64 i# = base + # * stride + am_lane;\n"
            "    bool ok# = false;\n"
            "    TV r# = 0;\n"
            "    if (i# < n && (!hv1 || am_bit(a.valid1, a.off1 + i#) != 0u)) {\n"
            "      if (am_bit(a.in1, a.off1 + i#) != 0u) {\n"
            "        ok# = !hv0 || am_bit(a.valid0, a.off0 + i#) != 0u;\n"
            "        r# = AM_GET0(i#);\n"
            "      } else {\n"
            "        ok# = !hv2 || am_bit(a.valid2, a.off2 + i#) != 0u;\n"
            "        r# = AM_GET2(i#);\n"
            "      }\n"
            "    }\n",
            j);
  for (int j = 0; j < u; j++) {
    am_ks_k(sb, "    if (base + # * stride < n) {\n", j);
    if (bits)
      am_ks_k(sb,
              "      const am_u32 rw# = BALLOT(ok# && r# != 0u);\n"
              "      const am_u32 vw# = BALLOT(ok#);\n"
              "      if (am_lane == 0u) {\n"
              "        a.out[(base + # * stride) >> 5] = rw#;\n"
              "        if (a.out_valid != 0) a.out_valid[(base + # * stride) >> 5] = vw#;\n"
              "      }\n",
              j);
    else
      am_ks_k(
          sb,
          "      if (i# < n) a.out[i#] = r#;\n"
          "      const am_u32 vw# = BALLOT(ok#);\n"
          "      if (am_lane == 0u && a.out_valid != 0) a.out_valid[(base + # * stride) >> 5] = "
          "vw#;\n",
          j);
    am_sb_puts(sb, "    }\n");
  }
  am_sb_puts(sb, "  }\n");
}

/* ---- FILL_BLOCKS, FILL_CARRY, FILL_GATHER (fill_null_forward / _backward) */

/* The scan runs over positions j = 0 .. n - 1: slot j forward, slot n - 1 - j
 * backward, so both directions are "the last valid position at or before
 * j". Block b owns the positions [b * per, (b + 1) * per) in FILL_BLOCKS and
 * FILL_GATHER alike (as FILTER's blocks own their slots). */
static const char fill_range[] =
    "  const am_i64 n = a.n;\n"
    "  const am_i64 nb = (am_i64)am_nblocks;\n"
    "  const am_i64 per = ((n + nb - 1) / nb + AM_BLOCK - 1) / AM_BLOCK * AM_BLOCK;\n"
    "  const am_i64 start = (am_i64)am_bid * per;\n"
    "  const am_i64 end = start + per < n ? start + per : n;\n"
    "  const bool hv0 = a.valid0 != 0;\n";

static void emit_fill_head(am_sb *sb, const am_kernel_key *k) {
  am_sb_printf(sb,
               "#define AM_COUNTER_WORD %uu\n"
               "#define AM_MAX_BLOCKS %uu\n"
               "// The slot of scan position j.\n"
               "#define AM_SLOT(j) (%s)\n",
               (unsigned)(AM_GPU_SCRATCH_COUNTER / 4), (unsigned)AM_GPU_MAX_BLOCKS,
               k->op == AM_FILL_BACKWARD ? "n - 1 - (j)" : "(j)");
}

/* Per block: 1 + the last valid position it owns (0: none), as partial
 * word 2; and the block count after the finish counter (for FILL_CARRY). */
static void emit_fill_blocks(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  emit_fill_head(sb, k);
  am_ks_args(sb, "am_u8", "am_u8", "am_u8");
  am_sb_puts(sb,
             "DEVFN am_u64 am_warp_max_u64(am_u64 v) {\n"
             "  for (am_u32 d = 16u; d > 0u; d >>= 1) {\n"
             "    const am_u64 o = am_shfl_down_u64(v, d);\n"
             "    if (o > v) v = o;\n"
             "  }\n"
             "  return v;\n"
             "}\n");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, "  SMEM am_u64 am_sh[AM_BLOCK / 32u];\n");
  am_sb_puts(sb, fill_range);
  am_sb_puts(
      sb,
      "  am_u64 best = 0u;\n"
      "  // A thread's positions increase: its last valid one is its largest.\n"
      "  for (am_i64 j = start + (am_i64)am_tid; j < end; j += AM_BLOCK)\n"
      "    if (!hv0 || am_bit(a.valid0, a.off0 + AM_SLOT(j)) != 0u) best = (am_u64)(j + 1);\n"
      "  best = am_warp_max_u64(best);\n"
      "  if (am_lane == 0u) am_sh[am_warp] = best;\n"
      "  BARRIER();\n"
      "  best = am_lane < AM_BLOCK / 32u ? am_sh[am_lane] : (am_u64)0;\n"
      "  best = am_warp_max_u64(best);\n"
      "  if (am_tid == 0u) {\n"
      "    am_partial_store(a.scratch, 4u * am_bid + 2u, best);\n"
      "    if (am_bid == 0u) ATOMIC_STORE32(a.scratch + AM_COUNTER_WORD + 1u, am_nblocks);\n"
      "  }\n");
}

/* One block: each block's partial becomes the largest of those before it
 * (an exclusive max scan, in place): 1 + the last valid position before the
 * block. */
static void emit_fill_carry(am_sb *sb, am_dialect d, const char *name) {
  am_sb_printf(sb, "#define AM_COUNTER_WORD %uu\n#define AM_MAX_BLOCKS %uu\n",
               (unsigned)(AM_GPU_SCRATCH_COUNTER / 4), (unsigned)AM_GPU_MAX_BLOCKS);
  am_ks_args(sb, "am_u8", "am_u8", "am_u8");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  SMEM am_u64 am_sh[AM_BLOCK];\n"
             "  am_u32 nb = ATOMIC_LOAD32(a.scratch + AM_COUNTER_WORD + 1u);\n"
             "  if (nb > AM_MAX_BLOCKS) nb = AM_MAX_BLOCKS;\n"
             "  const am_u32 per = (nb + AM_BLOCK - 1u) / AM_BLOCK;\n"
             "  am_u64 own = 0u;\n"
             "  for (am_u32 k = 0; k < per; k++) {\n"
             "    const am_u32 b = am_tid * per + k;\n"
             "    if (b < nb) {\n"
             "      const am_u64 c = am_partial_load(a.scratch, 4u * b + 2u);\n"
             "      if (c > own) own = c;\n"
             "    }\n"
             "  }\n"
             "  am_sh[am_tid] = own;\n"
             "  BARRIER();\n"
             "  for (am_u32 d = 1u; d < AM_BLOCK; d <<= 1) {\n"
             "    const am_u64 o = am_tid >= d ? am_sh[am_tid - d] : (am_u64)0;\n"
             "    BARRIER();\n"
             "    if (o > am_sh[am_tid]) am_sh[am_tid] = o;\n"
             "    BARRIER();\n"
             "  }\n"
             "  am_u64 run = am_tid > 0u ? am_sh[am_tid - 1u] : (am_u64)0;\n"
             "  for (am_u32 k = 0; k < per; k++) {\n"
             "    const am_u32 b = am_tid * per + k;\n"
             "    if (b < nb) {\n"
             "      const am_u64 c = am_partial_load(a.scratch, 4u * b + 2u);\n"
             "      am_partial_store(a.scratch, 4u * b + 2u, run);\n"
             "      if (c > run) run = c;\n"
             "    }\n"
             "  }\n");
}

/* Per block, AM_BLOCK positions a pass (lane order is position order): each
 * position's source is the last valid position at or before it, found by a
 * max scan of (1 + position in the pass) over the warp (shuffles) and the
 * block (one word per warp), else the carry from the passes and blocks
 * before. Values are moved as bits; bit outputs (validity, bool values) are
 * ORed in with atomics, at most two words per warp, after reversing the
 * ballot backward (where lane order is descending slot order). */
static void emit_fill_gather(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type t = k->t0;
  int bits = t == AM_BOOL;
  emit_fill_head(sb, k);
  am_sb_printf(sb, "#define AM_BACKWARD %d\n", k->op == AM_FILL_BACKWARD);
  am_sb_printf(sb, "typedef %s TV;\n", bits ? "am_u32" : am_ks_store(t));
  if (bits)
    am_sb_puts(sb, "#define AM_GET(s) am_bit(a.in0, a.off0 + (s))\n");
  else
    am_sb_puts(sb, "#define AM_GET(s) a.in0[a.off0 + (s)]\n");
  am_ks_args(sb, am_ks_store(t), "am_u8", bits ? "am_u32" : am_ks_store(t));
  am_sb_puts(sb,
             "DEVFN am_u32 am_rev32(am_u32 x) {\n"
             "  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);\n"
             "  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);\n"
             "  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);\n"
             "  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);\n"
             "  return (x >> 16) | (x << 16);\n"
             "}\n"
             "// ORs a warp's ballot (lane order) into the bitmap of the slots of positions\n"
             "// j0 .. j0 + 31.\n"
             "DEVFN void am_or_ballot(GLOBAL am_u32 *words, am_i64 n, am_i64 j0, am_u32 w) {\n"
             "  if (w == 0u) return;\n"
             "  am_i64 p = j0;\n"
             "  if (AM_BACKWARD) {\n"
             "    w = am_rev32(w);\n"
             "    p = n - 1 - j0 - 31;\n"
             "    if (p < 0) {\n"
             "      w >>= (am_u32)(-p);\n"
             "      p = 0;\n"
             "    }\n"
             "  }\n"
             "  am_or_bits(words, (am_u64)p, w);\n"
             "}\n");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, "  SMEM am_u32 am_wm[AM_BLOCK / 32u];\n");
  am_sb_puts(sb, fill_range);
  am_sb_puts(sb,
             "  const bool wv = a.out_valid != 0;\n"
             "  // 1 + the last valid position before this block (FILL_CARRY's scan).\n"
             "  am_u64 carry = am_partial_load(a.scratch, 4u * am_bid + 2u);\n"
             "  for (am_i64 t = start; t < end; t += AM_BLOCK) {\n"
             "    const am_i64 j0 = t + (am_i64)am_warp * 32;\n"
             "    const am_i64 j = j0 + (am_i64)am_lane;\n"
             "    const bool in = j < end;\n"
             "    const bool v = in && (!hv0 || am_bit(a.valid0, a.off0 + AM_SLOT(j)) != 0u);\n"
             "    am_u32 p = v ? am_tid + 1u : 0u;\n"
             "    for (am_u32 dd = 1u; dd < 32u; dd <<= 1) {\n"
             "      const am_u32 o = SHFL_UP(p, dd);\n"
             "      if (am_lane >= dd && o > p) p = o;\n"
             "    }\n"
             "    if (am_lane == 31u) am_wm[am_warp] = p;\n"
             "    BARRIER();\n"
             "    am_u32 total = 0u;\n"
             "    for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) {\n"
             "      const am_u32 m = am_wm[w];\n"
             "      if (w < am_warp && m > p) p = m;\n"
             "      if (m > total) total = m;\n"
             "    }\n"
             "    BARRIER();\n"
             "    // The source position: this pass's, else the carry's.\n"
             "    const bool ok = in && (p > 0u || carry > 0u);\n"
             "    const am_i64 src = p > 0u ? t + (am_i64)p - 1 : (am_i64)carry - 1;\n"
             "    TV x = 0;\n"
             "    if (ok) x = AM_GET(AM_SLOT(src));\n");
  if (bits)
    am_sb_puts(sb,
               "    const am_u32 xw = BALLOT(ok && x != 0u);\n"
               "    if (am_lane == 0u) am_or_ballot(a.out, n, j0, xw);\n");
  else
    am_sb_puts(sb, "    if (in) a.out[AM_SLOT(j)] = x;\n");
  am_sb_puts(sb,
             "    const am_u32 vw = BALLOT(ok);\n"
             "    if (wv && am_lane == 0u) am_or_ballot(a.out_valid, n, j0, vw);\n"
             "    if (total > 0u) carry = (am_u64)t + (am_u64)total;\n"
             "  }\n");
}

/* ---- The hooks of kernel_source.c */

int am_ks_nulls_key_ok(const am_kernel_key *key) {
  switch (key->kind) {
    case AM_KERNEL_PREDICATE:
      return predicate_key_ok(key);
    case AM_KERNEL_COALESCE:
      return key->op == 0 && am_type_valid((int)key->t0);
    case AM_KERNEL_IF_ELSE:
      return key->op >= 0 && key->op <= 2 && am_type_valid((int)key->t0);
    case AM_KERNEL_FILL_BLOCKS:
      return key->op == AM_FILL_FORWARD || key->op == AM_FILL_BACKWARD;
    case AM_KERNEL_FILL_CARRY:
      return 1;
    case AM_KERNEL_FILL_GATHER:
      return (key->op == AM_FILL_FORWARD || key->op == AM_FILL_BACKWARD) &&
             am_type_valid((int)key->t0);
    default:
      return 0;
  }
}

int am_ks_nulls_missing_type(am_dialect dialect, const am_kernel_key *key) {
  switch (key->kind) {
    case AM_KERNEL_PREDICATE:
      return predicate_reads_values(key) && !am_dialect_has_type(dialect, key->t0);
    default:
      return 0;
  }
}

void am_ks_nulls_name(const am_kernel_key *key, char *name, size_t capacity) {
  switch (key->kind) {
    case AM_KERNEL_PREDICATE:
      predicate_name(key, name, capacity);
      break;
    case AM_KERNEL_COALESCE:
      snprintf(name, capacity, "am_coalesce_%s", am_type_label(key->t0));
      break;
    case AM_KERNEL_IF_ELSE:
      snprintf(name, capacity, "am_if_else_%s_%s",
               key->op == 2   ? "both"
               : key->op == 1 ? "false"
                              : "true",
               am_type_label(key->t0));
      break;
    case AM_KERNEL_FILL_BLOCKS:
      snprintf(name, capacity, "am_fill_%s_blocks", key->op ? "backward" : "forward");
      break;
    case AM_KERNEL_FILL_CARRY:
      snprintf(name, capacity, "am_fill_carry");
      break;
    case AM_KERNEL_FILL_GATHER:
      snprintf(name, capacity, "am_fill_%s_%s", key->op ? "backward" : "forward",
               am_type_label(key->t0));
      break;
    default:
      break;
  }
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t am_ks_nulls_blocks(const am_kernel_key *key, int64_t n, int multiprocessors) {
  switch (key->kind) {
    case AM_KERNEL_PREDICATE:
      /* One slot a thread per pass where values are read; else
       * AM_KS_BITMAP_WORDS words. */
      return predicate_reads_values(key)
                 ? cdiv(n, AM_GPU_BLOCK)
                 : cdiv(cdiv(n, 32), (int64_t)AM_GPU_BLOCK * AM_KS_BITMAP_WORDS);
    case AM_KERNEL_FILL_CARRY:
      return 1;
    case AM_KERNEL_FILL_BLOCKS:
    case AM_KERNEL_FILL_GATHER: {
      /* As FILTER: at least 8 positions a thread, a few blocks per
       * multiprocessor; the two kinds must agree (the block partition). */
      int64_t blocks = cdiv(n, (int64_t)AM_GPU_BLOCK * 8);
      int64_t most = 4 * (int64_t)(multiprocessors > 0 ? multiprocessors : 1);
      return blocks > most ? most : blocks;
    }
    default:
      return cdiv(n, AM_GPU_BLOCK);
  }
}

void am_ks_nulls_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name) {
  switch (key->kind) {
    case AM_KERNEL_PREDICATE:
      if (predicate_reads_values(key))
        emit_predicate_values(sb, dialect, key, name);
      else
        emit_predicate_validity(sb, dialect, key, name);
      break;
    case AM_KERNEL_COALESCE:
      emit_coalesce(sb, dialect, key, name);
      break;
    case AM_KERNEL_IF_ELSE:
      if (key->op == 2)
        emit_if_else_both(sb, dialect, key, name);
      else
        emit_if_else(sb, dialect, key, name);
      break;
    case AM_KERNEL_FILL_BLOCKS:
      emit_fill_blocks(sb, dialect, key, name);
      break;
    case AM_KERNEL_FILL_CARRY:
      emit_fill_carry(sb, dialect, name);
      break;
    case AM_KERNEL_FILL_GATHER:
      emit_fill_gather(sb, dialect, key, name);
      break;
    default:
      break;
  }
}
