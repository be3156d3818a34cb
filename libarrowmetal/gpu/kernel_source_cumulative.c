/* The GPU kernels of the cumulative functions (kernels.h: AM_KERNEL_CUM_*), written once for CUDA
 * and MSL on the pieces of kernel_source.c (kernel_source_emit.h).
 *
 * A device-wide scan in three launches with the same arguments, so the
 * hand-off between blocks is ordered by the launches themselves (no
 * block waits on another inside a launch):
 *   CUM_BLOCKS: every block reduces its slots, in position order (passes of
 *               AM_TILE slots: each thread folds AM_ITEMS consecutive slots,
 *               then an in-order warp and block scan of the threads'
 *               states), to a total in the scratch partials; without
 *               skip_nulls also its first null slot.
 *   CUM_CARRY:  one thread folds the start value and the totals, block by
 *               block, into each block's carry (its running value on
 *               entry), and finds the first null of the whole array.
 *   CUM_SCAN:   every block rescans its slots from its carry (each thread
 *               from the states before its own), writing results, the
 *               validity a whole word at a time and, for the checked ops,
 *               the first slot whose running value leaves the type.
 *
 * Every op is a state (St: a value and a second word) with an associative
 * combine, so the scan is exact for integers. The checked ops keep their
 * state exact: a sum as 128 bits (two words), a product as a magnitude that
 * saturates ("big") and a sign; a running value out of range is reported at
 * the first slot where it is, which is where a left-to-right scan fails.
 * Min and max pass over NaN and break ties toward the later value, as
 * pyarrow's fmin / fmax do, which is associative too. Float sums, products
 * and means round in the scan's order, not pyarrow's. */
#include <stdio.h>

#include "arrowmetal.h"
#include "core/types.h"
#include "gpu/kernel_source_emit.h"

static const char *const op_names[] = {"sum", "sum_checked", "prod", "prod_checked",
                                       "min", "max",         "mean"};

static int cum_op(const am_kernel_key *k) { return k->op & 7; }
static int cum_skip(const am_kernel_key *k) { return (k->op >> 3) & 1; }

int am_ks_cumulative_kind(am_kernel_kind kind) {
  switch (kind) {
    AM_KS_CUMULATIVE_CASES
    return 1;
    default:
      return 0;
  }
}

int am_ks_cumulative_key_ok(const am_kernel_key *k) {
  return (k->op & ~15) == 0 && cum_op(k) <= AM_CUMULATIVE_MEAN && am_type_is_numeric(k->t0);
}

/* MSL has no double: float64 values and every mean (a float64 result). */
int am_ks_cumulative_missing_type(am_dialect dialect, const am_kernel_key *k) {
  return !am_dialect_has_type(dialect, k->t0) ||
         (cum_op(k) == AM_CUMULATIVE_MEAN && !am_dialect_has_double(dialect));
}

void am_ks_cumulative_name(const am_kernel_key *key, char *name, size_t capacity) {
  static const char *const part[] = {"blocks", "carry", "scan"};
  snprintf(name, capacity, "am_cumulative_%s%s_%s_%s", op_names[cum_op(key)],
           cum_skip(key) ? "_skip" : "", am_type_label(key->t0),
           part[key->kind - AM_KERNEL_CUM_BLOCKS]);
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t am_ks_cumulative_blocks(const am_kernel_key *key, int64_t n, int multiprocessors) {
  if (key->kind == AM_KERNEL_CUM_CARRY) return 1;
  /* As FILTER's: at least 8 slots a thread, a few blocks per multiprocessor;
   * BLOCKS and SCAN must agree (the block partition). */
  int64_t blocks = cdiv(n, (int64_t)AM_GPU_BLOCK * 8);
  int64_t most = 4 * (int64_t)(multiprocessors > 0 ? multiprocessors : 1);
  return blocks > most ? most : blocks;
}

/* ---- the op's state, as kernel text */

/* Integer limits as kernel literals. */
static void emit_limits(am_sb *sb, am_type t) {
  int bits = am_type_bits(t);
  if (am_type_is_signed(t)) {
    unsigned long long hi = bits == 64 ? 0x7fffffffffffffffull : (1ull << (bits - 1)) - 1;
    am_sb_printf(sb,
                 "#define AM_HI ((am_u64)%lluull)\n"
                 "#define AM_LO_I ((am_i64)(-(am_i64)%llull - 1))\n"
                 "#define AM_NEG_LIMIT ((am_u64)%lluull + 1u)\n",
                 hi, hi, hi);
  } else {
    unsigned long long hi = bits == 64 ? ~0ull : (1ull << bits) - 1;
    am_sb_printf(sb, "#define AM_HI ((am_u64)%lluull)\n#define AM_NEG_LIMIT ((am_u64)0u)\n", hi);
  }
}

/* St, am_st, am_ident, am_make, am_comb, am_start, am_bad, am_out and the
 * bit casts of St's value (AM_A_BITS / AM_BITS_A) for the key's op. */
static void emit_state(am_sb *sb, am_dialect d, const am_kernel_key *k) {
  am_type t = k->t0;
  int op = cum_op(k), flt = am_type_is_float(t), sgn = am_type_is_signed(t);
  int f64 = t == AM_FLOAT64;
  const char *tv = am_ks_ctype(t);
  am_sb_printf(sb, "typedef %s TV;\n", tv);
  if (!flt) emit_limits(sb, t);
  const char *ta = op == AM_CUMULATIVE_MEAN                             ? "am_f64"
                   : flt                                                ? tv
                   : op == AM_CUMULATIVE_MIN || op == AM_CUMULATIVE_MAX ? tv
                                                                        : "am_u64";
  am_sb_printf(sb, "typedef %s TA;\n", ta);
  am_sb_printf(sb, "typedef %s TO;\n", op == AM_CUMULATIVE_MEAN ? "am_f64" : tv);
  if (op == AM_CUMULATIVE_MEAN || f64)
    am_sb_puts(sb, "#define AM_A_BITS(x) F64_BITS(x)\n#define AM_BITS_A(u) BITS_F64(u)\n");
  else if (flt)
    am_sb_puts(sb,
               "#define AM_A_BITS(x) ((am_u64)F32_BITS(x))\n"
               "#define AM_BITS_A(u) BITS_F32((am_u32)(u))\n");
  else
    am_sb_puts(sb, "#define AM_A_BITS(x) ((am_u64)(x))\n#define AM_BITS_A(u) ((TA)(u))\n");
  /* NaN by the bits: fast-math cannot fold the test away. */
  if (f64)
    am_sb_puts(
        sb, "#define AM_ISNAN(x) ((F64_BITS(x) & ~((am_u64)1 << 63)) > 0x7ff0000000000000ull)\n");
  else if (flt)
    am_sb_puts(sb, "#define AM_ISNAN(x) ((F32_BITS(x) & 0x7fffffffu) > 0x7f800000u)\n");
  am_sb_printf(sb, "#define AM_MULHI64(x, y) %s\n",
               d == AM_DIALECT_MSL ? "mulhi((am_u64)(x), (am_u64)(y))"
                                   : "__umul64hi((am_u64)(x), (am_u64)(y))");
  am_sb_puts(sb,
             "struct St {\n"
             "  TA a;\n"
             "  am_u64 b;\n"
             "};\n"
             "DEVFN St am_st(TA x, am_u64 y) {\n"
             "  St s;\n"
             "  s.a = x;\n"
             "  s.b = y;\n"
             "  return s;\n"
             "}\n");
  /* The start value from the scalar's 64-bit form (double bits for floats). */
  const char *from_bits = f64 ? "BITS_F64(u)" : flt ? "AM_F64BITS_TO_F32(u)" : "(TV)(u)";
  am_sb_printf(sb, "#define AM_START_VALUE(u) (%s)\n", from_bits);
  switch (op) {
    case AM_CUMULATIVE_SUM:
    case AM_CUMULATIVE_PROD: {
      int sum = op == AM_CUMULATIVE_SUM;
      if (flt)
        am_sb_printf(
            sb,
            "DEVFN St am_ident() { return am_st(%s, 0u); }\n"
            "DEVFN St am_make(TV x) { return am_st(x, 0u); }\n"
            "DEVFN St am_comb(St p, St q) { return am_st(p.a %s q.a, 0u); }\n",
            sum ? (f64 ? "BITS_F64(0x8000000000000000ull)" : "BITS_F32(0x80000000u)") : "(TA)1",
            sum ? "+" : "*");
      else /* wrapping: in 64 bits, the low bits are the type's */
        am_sb_printf(sb,
                     "DEVFN St am_ident() { return am_st(%s, 0u); }\n"
                     "DEVFN St am_make(TV x) { return am_st((am_u64)(%s)x, 0u); }\n"
                     "DEVFN St am_comb(St p, St q) { return am_st(p.a %s q.a, 0u); }\n",
                     sum ? "(am_u64)0u" : "(am_u64)1u", sgn ? "am_i64" : "am_u64", sum ? "+" : "*");
      am_sb_puts(sb,
                 "DEVFN St am_start(am_u64 u) { return am_make(AM_START_VALUE(u)); }\n"
                 "DEVFN bool am_bad(St s) {\n  (void)s;\n  return false;\n}\n"
                 "DEVFN TO am_out(St s) { return (TO)s.a; }\n");
      break;
    }
    case AM_CUMULATIVE_SUM_CHECKED:
      if (flt) { /* floats cannot overflow: a plain sum */
        am_sb_printf(sb, "DEVFN St am_ident() { return am_st(%s, 0u); }\n",
                     f64 ? "BITS_F64(0x8000000000000000ull)" : "BITS_F32(0x80000000u)");
        am_sb_puts(sb,
                   "DEVFN St am_make(TV x) { return am_st(x, 0u); }\n"
                   "DEVFN St am_comb(St p, St q) { return am_st(p.a + q.a, 0u); }\n"
                   "DEVFN bool am_bad(St s) {\n  (void)s;\n  return false;\n}\n");
      } else { /* exact: 128 bits, a = low word, b = high word */
        am_sb_printf(sb,
                     "DEVFN St am_ident() { return am_st((am_u64)0u, 0u); }\n"
                     "DEVFN St am_make(TV x) {\n"
                     "  return am_st((am_u64)(%s)x, %s);\n"
                     "}\n"
                     "DEVFN St am_comb(St p, St q) {\n"
                     "  const am_u64 lo = p.a + q.a;\n"
                     "  return am_st(lo, p.b + q.b + (lo < p.a ? 1u : 0u));\n"
                     "}\n",
                     sgn ? "am_i64" : "am_u64",
                     sgn ? "((am_i64)x < 0 ? ~(am_u64)0 : (am_u64)0)" : "(am_u64)0");
        if (sgn)
          am_sb_puts(sb,
                     "DEVFN bool am_bad(St s) {\n"
                     "  return !((s.b == 0u && s.a <= AM_HI) ||\n"
                     "           (s.b == ~(am_u64)0 && (am_i64)s.a < 0 && (am_i64)s.a >= "
                     "AM_LO_I));\n"
                     "}\n");
        else
          am_sb_puts(sb, "DEVFN bool am_bad(St s) { return !(s.b == 0u && s.a <= AM_HI); }\n");
      }
      am_sb_puts(sb,
                 "DEVFN St am_start(am_u64 u) { return am_make(AM_START_VALUE(u)); }\n"
                 "DEVFN TO am_out(St s) { return (TO)s.a; }\n");
      break;
    case AM_CUMULATIVE_PROD_CHECKED:
      if (flt) {
        am_sb_puts(sb,
                   "DEVFN St am_ident() { return am_st((TA)1, 0u); }\n"
                   "DEVFN St am_make(TV x) { return am_st(x, 0u); }\n"
                   "DEVFN St am_comb(St p, St q) { return am_st(p.a * q.a, 0u); }\n"
                   "DEVFN bool am_bad(St s) {\n  (void)s;\n  return false;\n}\n"
                   "DEVFN TO am_out(St s) { return (TO)s.a; }\n");
      } else { /* a = magnitude, b = 1 (negative) | 2 (big: past 64 bits) */
        am_sb_printf(sb,
                     "DEVFN St am_ident() { return am_st((am_u64)1u, 0u); }\n"
                     "DEVFN St am_make(TV x) {\n"
                     "  return %s;\n"
                     "}\n",
                     sgn ? "(am_i64)x < 0 ? am_st((am_u64)0u - (am_u64)(am_i64)x, 1u) : "
                           "am_st((am_u64)(am_i64)x, 0u)"
                         : "am_st((am_u64)x, 0u)");
        am_sb_puts(sb,
                   "DEVFN St am_comb(St p, St q) {\n"
                   "  if ((p.a == 0u && (p.b & 2u) == 0u) || (q.a == 0u && (q.b & 2u) == 0u))\n"
                   "    return am_st((am_u64)0u, 0u);\n"
                   "  const am_u64 neg = (p.b ^ q.b) & 1u;\n"
                   "  if (((p.b | q.b) & 2u) != 0u || AM_MULHI64(p.a, q.a) != 0u)\n"
                   "    return am_st((am_u64)1u, neg | 2u);\n"
                   "  return am_st(p.a * q.a, neg);\n"
                   "}\n"
                   "DEVFN bool am_bad(St s) {\n"
                   "  return (s.b & 2u) != 0u || ((s.b & 1u) != 0u ? s.a > AM_NEG_LIMIT : s.a > "
                   "AM_HI);\n"
                   "}\n"
                   "DEVFN TO am_out(St s) { return (s.b & 1u) != 0u ? (TO)((am_u64)0u - s.a) : "
                   "(TO)s.a; }\n");
      }
      am_sb_puts(sb, "DEVFN St am_start(am_u64 u) { return am_make(AM_START_VALUE(u)); }\n");
      break;
    case AM_CUMULATIVE_MIN:
    case AM_CUMULATIVE_MAX: {
      const char *cmp = op == AM_CUMULATIVE_MIN ? "<" : ">";
      if (flt) /* NaN is passed over (the identity); ties go to the later value */
        am_sb_printf(sb,
                     "DEVFN St am_ident() { return am_st(AM_BITS_A(%s), 0u); }\n"
                     "DEVFN St am_comb(St p, St q) {\n"
                     "  if (AM_ISNAN(q.a)) return p;\n"
                     "  if (AM_ISNAN(p.a)) return q;\n"
                     "  return p.a %s q.a ? p : q;\n"
                     "}\n",
                     f64 ? "0x7ff8000000000000ull" : "0x7fc00000u", cmp);
      else
        am_sb_printf(sb,
                     "DEVFN St am_ident() { return am_st((TA)%s, 0u); }\n"
                     "DEVFN St am_comb(St p, St q) { return p.a %s q.a ? p : q; }\n",
                     op == AM_CUMULATIVE_MIN ? "AM_HI" : (sgn ? "AM_LO_I" : "0u"), cmp);
      am_sb_puts(sb,
                 "DEVFN St am_make(TV x) { return am_st(x, 0u); }\n"
                 "DEVFN St am_start(am_u64 u) { return am_make(AM_START_VALUE(u)); }\n"
                 "DEVFN bool am_bad(St s) {\n  (void)s;\n  return false;\n}\n"
                 "DEVFN TO am_out(St s) { return (TO)s.a; }\n");
      break;
    }
    default: /* MEAN: a = the float64 sum, b = the count; the start is not used */
      am_sb_puts(sb,
                 "DEVFN St am_ident() { return am_st(-0.0, 0u); }\n"
                 "DEVFN St am_make(TV x) { return am_st((am_f64)x, 1u); }\n"
                 "DEVFN St am_comb(St p, St q) { return am_st(p.a + q.a, p.b + q.b); }\n"
                 "DEVFN St am_start(am_u64 u) {\n  (void)u;\n  return am_st(0.0, 0u);\n}\n"
                 "DEVFN bool am_bad(St s) {\n  (void)s;\n  return false;\n}\n"
                 "DEVFN TO am_out(St s) { return s.b != 0u ? s.a / (am_f64)s.b : 0.0; }\n");
      break;
  }
  am_sb_printf(sb, "#define AM_CHECKED %d\n#define AM_SKIP %d\n",
               !flt && (op == AM_CUMULATIVE_SUM_CHECKED || op == AM_CUMULATIVE_PROD_CHECKED),
               cum_skip(k));
  am_sb_printf(sb,
               "#define AM_COUNTER_WORD %uu\n"
               "#define AM_MAX_BLOCKS %uu\n",
               (unsigned)(AM_GPU_SCRATCH_COUNTER / 4), (unsigned)AM_GPU_MAX_BLOCKS);
  am_ks_args(sb, tv, "am_u8", op == AM_CUMULATIVE_MEAN ? "am_f64" : tv);
  /* A lane's state moves by shuffles of 32 bits: only the words the op uses
   * (a 32-bit value: one; the second word only for the exact checked
   * integer states and the mean's count). */
  int minmax = op == AM_CUMULATIVE_MIN || op == AM_CUMULATIVE_MAX;
  int a32 = (flt && !f64 && op != AM_CUMULATIVE_MEAN) || (!flt && minmax && am_type_bits(t) <= 32);
  int uses_b = op == AM_CUMULATIVE_MEAN ||
               (!flt && (op == AM_CUMULATIVE_SUM_CHECKED || op == AM_CUMULATIVE_PROD_CHECKED));
  am_sb_puts(sb,
             "DEVFN am_u64 am_shfl_up_u64(am_u64 v, am_u32 d) {\n"
             "  const am_u32 lo = SHFL_UP((am_u32)v, d);\n"
             "  const am_u32 hi = SHFL_UP((am_u32)(v >> 32), d);\n"
             "  return ((am_u64)hi << 32) | (am_u64)lo;\n"
             "}\n"
             "DEVFN St am_shfl_up_st(St s, am_u32 d) {\n");
  am_sb_printf(
      sb, "  const TA x = AM_BITS_A(%s);\n",
      a32 ? "(am_u64)SHFL_UP((am_u32)AM_A_BITS(s.a), d)" : "am_shfl_up_u64(AM_A_BITS(s.a), d)");
  am_sb_printf(sb, "  return am_st(x, %s);\n}\n", uses_b ? "am_shfl_up_u64(s.b, d)" : "0u");
  /* Consecutive slots a thread: 16 bytes of 64-bit values, 32 of narrower. */
  am_sb_printf(sb, "#define AM_ITEMS %du\n#define AM_TILE (AM_BLOCK * AM_ITEMS)\n",
               am_type_bits(t) == 64 ? 4 : 8);
}

/* Block b owns the slots [b * per, (b + 1) * per), per a multiple of
 * AM_TILE, in BLOCKS and SCAN alike; in a pass over AM_TILE slots thread
 * j owns AM_ITEMS consecutive ones from base (t + j * AM_ITEMS). */
static const char cum_range[] =
    "  const am_i64 n = a.n;\n"
    "  const am_i64 nb = (am_i64)am_nblocks;\n"
    "  const am_i64 per = ((n + nb - 1) / nb + AM_TILE - 1) / AM_TILE * AM_TILE;\n"
    "  const am_i64 start = (am_i64)am_bid * per;\n"
    "  const am_i64 end = start + per < n ? start + per : n;\n"
    "  const bool hv0 = a.valid0 != 0;\n";

/* One pass: x (this thread's slots' state) becomes the combine of the
 * pass's states up to its own, in position order (warp by shuffles, then
 * the warps before it), ex the same before its own; `total` the whole
 * pass's. */
static const char cum_pass_scan[] =
    "    for (am_u32 d = 1u; d < 32u; d <<= 1) {\n"
    "      const St o = am_shfl_up_st(x, d);\n"
    "      if (am_lane >= d) x = am_comb(o, x);\n"
    "    }\n"
    "    St ex = am_shfl_up_st(x, 1u);\n"
    "    if (am_lane == 0u) ex = am_ident();\n"
    "    if (am_lane == 31u) am_sh[am_warp] = x;\n"
    "    BARRIER();\n"
    "    St pre = am_ident();\n"
    "    St total = am_ident();\n"
    "    for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) {\n"
    "      const St m = am_sh[w];\n"
    "      if (w < am_warp) pre = am_comb(pre, m);\n"
    "      total = am_comb(total, m);\n"
    "    }\n"
    "    BARRIER();\n"
    "    x = am_comb(pre, x);\n"
    "    ex = am_comb(pre, ex);\n";

static void emit_blocks(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  emit_state(sb, d, k);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, "  SMEM St am_sh[AM_BLOCK / 32u];\n  SMEM am_u64 am_nf[AM_BLOCK / 32u];\n");
  am_sb_puts(sb, cum_range);
  am_sb_puts(sb,
             "  St tot = am_ident();\n"
             "  am_u64 fnull = ~(am_u64)0;\n"
             "  for (am_i64 t = start; t < end; t += AM_TILE) {\n"
             "    const am_i64 base = t + (am_i64)am_tid * (am_i64)AM_ITEMS;\n"
             "    St x = am_ident();\n"
             "    for (am_u32 k = 0u; k < AM_ITEMS; k++) {\n"
             "      const am_i64 i = base + (am_i64)k;\n"
             "      const bool in = i < end;\n"
             "      const bool v = in && (!hv0 || am_bit(a.valid0, a.off0 + i) != 0u);\n"
             "      if (in && !v && (am_u64)i < fnull) fnull = (am_u64)i;\n"
             "      if (v) x = am_comb(x, am_make(a.in0[a.off0 + i]));\n"
             "    }\n");
  am_sb_puts(sb, cum_pass_scan);
  am_sb_puts(sb,
             "    tot = am_comb(tot, total);\n"
             "  }\n"
             "  // The block's first null: the least of its threads'.\n"
             "  for (am_u32 dd = 16u; dd > 0u; dd >>= 1) {\n"
             "    const am_u64 o = am_shfl_down_u64(fnull, dd);\n"
             "    if (o < fnull) fnull = o;\n"
             "  }\n"
             "  if (am_lane == 0u) am_nf[am_warp] = fnull;\n"
             "  BARRIER();\n"
             "  if (am_tid == 0u) {\n"
             "    for (am_u32 w = 1u; w < AM_BLOCK / 32u; w++)\n"
             "      if (am_nf[w] < fnull) fnull = am_nf[w];\n"
             "    am_partial_store(a.scratch, 4u * am_bid, AM_A_BITS(tot.a));\n"
             "    am_partial_store(a.scratch, 4u * am_bid + 1u, tot.b);\n"
             "    am_partial_store(a.scratch, 4u * am_bid + 2u, fnull == ~(am_u64)0 ? (am_u64)0 : "
             "fnull + 1u);\n"
             "    if (am_bid == 0u) ATOMIC_STORE32(a.scratch + AM_COUNTER_WORD + 1u, am_nblocks);\n"
             "  }\n");
}

/* One thread, block by block, in order: each block's carry (the start and
 * the totals before it), and the first null of the array (the first
 * block's that has one) as every block's stop; n with skip_nulls. */
static void emit_carry(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  emit_state(sb, d, k);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(
      sb,
      "  if (am_tid != 0u) return;\n"
      "  am_u32 nb = ATOMIC_LOAD32(a.scratch + AM_COUNTER_WORD + 1u);\n"
      "  if (nb > AM_MAX_BLOCKS) nb = AM_MAX_BLOCKS;\n"
      "  St c = am_start(a.scalar);\n"
      "  am_u64 stop = (am_u64)a.n;\n"
      "  for (am_u32 b = 0u; b < nb; b++) {\n"
      "    const St t = am_st(AM_BITS_A(am_partial_load(a.scratch, 4u * b)),\n"
      "                       am_partial_load(a.scratch, 4u * b + 1u));\n"
      "    const am_u64 f = am_partial_load(a.scratch, 4u * b + 2u);\n"
      "    am_partial_store(a.scratch, 4u * b, AM_A_BITS(c.a));\n"
      "    am_partial_store(a.scratch, 4u * b + 1u, c.b);\n"
      "    c = am_comb(c, t);\n"
      "    if (!AM_SKIP && f != 0u && stop == (am_u64)a.n) stop = f - 1u;\n"
      "  }\n"
      "  for (am_u32 b = 0u; b < nb; b++) am_partial_store(a.scratch, 4u * b + 2u, stop);\n");
}

/* Every block again, from its carry: results, validity (ORed in; the host
 * zeroes it), and for the checked ops the first slot out of range. */
static void emit_scan(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  emit_state(sb, d, k);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, "  SMEM St am_sh[AM_BLOCK / 32u];\n");
  am_sb_puts(sb, cum_range);
  am_sb_puts(sb,
             "  St carry = am_st(AM_BITS_A(am_partial_load(a.scratch, 4u * am_bid)),\n"
             "                   am_partial_load(a.scratch, 4u * am_bid + 1u));\n"
             "  const am_i64 stop = (am_i64)am_partial_load(a.scratch, 4u * am_bid + 2u);\n"
             "  const bool wv = a.out_valid != 0;\n"
             "  const am_i64 last_byte = (a.off0 + n - 1) >> 3;\n"
             "  am_u64 err = AM_NONE;\n"
             "  for (am_i64 t = start; t < end; t += AM_TILE) {\n"
             "    const am_i64 base = t + (am_i64)am_tid * (am_i64)AM_ITEMS;\n"
             "    TV xv[AM_ITEMS];\n"
             "    bool us[AM_ITEMS];\n"
             "    St x = am_ident();\n"
             "    for (am_u32 k = 0u; k < AM_ITEMS; k++) {\n"
             "      const am_i64 i = base + (am_i64)k;\n"
             "      const bool v = i < end && (!hv0 || am_bit(a.valid0, a.off0 + i) != 0u);\n"
             "      us[k] = v && i < stop;\n"
             "      xv[k] = us[k] ? a.in0[a.off0 + i] : (TV)0;\n"
             "      if (us[k]) x = am_comb(x, am_make(xv[k]));\n"
             "    }\n");
  am_sb_puts(sb, cum_pass_scan);
  am_sb_puts(
      sb,
      "    St r = am_comb(carry, ex);\n"
      "    for (am_u32 k = 0u; k < AM_ITEMS; k++) {\n"
      "      const am_i64 i = base + (am_i64)k;\n"
      "      if (us[k]) r = am_comb(r, am_make(xv[k]));\n"
      "      if (i < end) a.out[i] = i < stop ? am_out(r) : (TO)0;\n"
      "      if (AM_CHECKED && us[k] && err == AM_NONE && am_bad(r)) err = (am_u64)i;\n"
      "    }\n"
      "    // Validity, a whole word a lane (the block owns its words): the\n"
      "    // input's bits with skip_nulls, else every slot before the stop.\n"
      "    const am_i64 p = t + (am_i64)am_warp * 32 * (am_i64)AM_ITEMS + 32 * (am_i64)am_lane;\n"
      "    if (wv && am_lane < AM_ITEMS && p < end) {\n"
      "      const am_i64 lim = AM_SKIP || stop > end ? end : stop;\n"
      "      am_u32 bits = p < lim ? am_tail_mask(lim, p >> 5) : 0u;\n"
      "      if (AM_SKIP && hv0) bits &= am_bits32(a.valid0, a.off0 + p, last_byte);\n"
      "      ATOMIC_OR32(a.out_valid + (p >> 5), bits);\n"
      "    }\n"
      "    carry = am_comb(carry, total);\n"
      "  }\n"
      "  if (AM_CHECKED) am_flush_error(a.status, err, am_lane);\n");
}

void am_ks_cumulative_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key,
                           const char *name) {
  switch (key->kind) {
    case AM_KERNEL_CUM_BLOCKS:
      emit_blocks(sb, dialect, key, name);
      break;
    case AM_KERNEL_CUM_CARRY:
      emit_carry(sb, dialect, key, name);
      break;
    case AM_KERNEL_CUM_SCAN:
      emit_scan(sb, dialect, key, name);
      break;
    default:
      break;
  }
}
