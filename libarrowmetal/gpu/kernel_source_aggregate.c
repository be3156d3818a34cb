/* The source of the AM_KERNEL_AGGREGATE kernels (kernels.h): product,
 * min_max, variance, first, last and index, written once for CUDA and MSL
 * on kernel_source.c's reduction skeleton (kernel_source_shared.h). Each
 * kernel is a class of accumulator -- what one thread keeps, how two merge,
 * what the last block writes to the status words -- and a loop over the
 * thread's slots:
 *
 *  - product, min_max, variance: REDUCE's unrolled grid-stride loop
 *    (several loads in flight per thread); am_acc_add(acc, x).
 *  - first, last, index: one slot a pass, am_acc_add_at(acc, item, slot).
 *    A thread's slots increase, so its first hit is its smallest slot and
 *    its last its largest; merges keep the smaller (larger) slot, so the
 *    answer does not depend on the merge order.
 *
 * Variance keeps (mean, M2, count) per thread by Welford's update and merges
 * them with Chan et al.'s formula along REDUCE's fixed trees: deterministic,
 * and stable where the mean is large against the spread. It and the product
 * of floats accumulate in double, so MSL has neither (Metal runs them on
 * the CPU over the same memory: the ABI routes ops needing float64 kernels
 * there). */
#include <stdio.h>

#include "core/types.h"
#include "gpu/kernel_source_shared.h"

static int positional(int op) {
  return op == AM_AGG_FIRST || op == AM_AGG_LAST || op == AM_AGG_INDEX;
}

int am_ks_aggregate_key_ok(const am_kernel_key *k) {
  switch (k->op) {
    case AM_AGG_PRODUCT:
    case AM_AGG_VARIANCE:
      return am_type_is_numeric(k->t0);
    case AM_AGG_MIN_MAX:
    case AM_AGG_FIRST:
    case AM_AGG_LAST:
    case AM_AGG_INDEX:
      return am_type_valid((int)k->t0);
    default: /* stddev measures as variance; the rest have no kernel here */
      return 0;
  }
}

static int needs_double(const am_kernel_key *k) {
  return k->op == AM_AGG_VARIANCE || (k->op == AM_AGG_PRODUCT && am_type_is_float(k->t0));
}

int am_ks_aggregate_needs_missing_type(am_dialect dialect, const am_kernel_key *k) {
  return !am_dialect_has_type(dialect, k->t0) ||
         (needs_double(k) && !am_dialect_has_double(dialect));
}

void am_ks_aggregate_name(const am_kernel_key *k, char *name, size_t capacity) {
  static const char *const names[] = {[AM_AGG_PRODUCT] = "product",   [AM_AGG_MIN_MAX] = "min_max",
                                      [AM_AGG_VARIANCE] = "variance", [AM_AGG_FIRST] = "first",
                                      [AM_AGG_LAST] = "last",         [AM_AGG_INDEX] = "index"};
  snprintf(name, capacity, "am_%s_%s", names[k->op], am_type_label(k->t0));
}

/* AM_RAW(x): a value in 64 bits, cheaply (integers widened, floats their
 * own bits); AM_WIDE(u): that as the status words hold values of the type
 * (REDUCE's MIN/MAX representation: float32 as the bits of the equal
 * double, which MSL computes in software, so it is done once, at the end). */
static void emit_bits(am_sb *sb, am_type t) {
  if (t == AM_FLOAT32)
    am_sb_puts(sb,
               "#define AM_RAW(x) ((am_u64)F32_BITS(x))\n"
               "#define AM_WIDE(u) AM_F32_TO_F64BITS(BITS_F32((am_u32)(u)))\n");
  else if (t == AM_FLOAT64)
    am_sb_puts(sb, "#define AM_RAW(x) F64_BITS(x)\n#define AM_WIDE(u) (u)\n");
  else if (am_type_is_signed(t))
    am_sb_puts(sb, "#define AM_RAW(x) ((am_u64)(am_i64)(x))\n#define AM_WIDE(u) (u)\n");
  else
    am_sb_puts(sb, "#define AM_RAW(x) ((am_u64)(x))\n#define AM_WIDE(u) (u)\n");
}

/* The accumulator's type and identities (AccS, its 64-bit conversions, the
 * initial s and c), then reduce_head. */
static void emit_acc_type(am_sb *sb, const char *accs, const char *s2u, const char *u2s,
                          const char *s0, const char *c0) {
  am_sb_printf(sb,
               "typedef %s AccS;\n"
               "#define AM_S2U(v) %s\n"
               "#define AM_U2S(u) %s\n"
               "#define AM_ACC_S0 %s\n"
               "#define AM_ACC_C0 %s\n",
               accs, s2u, u2s, s0, c0);
  am_sb_puts(sb, am_ks_reduce_head);
}

/* am_acc_finish: count, nan_count, then `value` and `value_hi` as given. */
static void emit_finish(am_sb *sb, const char *value, const char *value_hi) {
  am_sb_printf(sb,
               "DEVFN void am_acc_finish(GLOBAL am_u64 *st, Acc x) {\n"
               "  st[1] = x.cnt;\n"
               "  st[2] = x.nan;\n"
               "  st[3] = %s;\n"
               "  st[4] = %s;\n"
               "}\n",
               value, value_hi);
}

/* product: s = the product (c unused); integers wrap in 64 bits. */
static void emit_product(am_sb *sb, am_type t) {
  if (am_type_is_float(t))
    emit_acc_type(sb, "am_f64", "F64_BITS(v)", "BITS_F64(u)", "1.0", "0.0");
  else
    emit_acc_type(sb, "am_u64", "(v)", "(u)", "((am_u64)1)", "((am_u64)0)");
  am_sb_printf(sb,
               "DEVFN void am_acc_add(PRIV Acc *r, T0 x) {\n"
               "  r->s *= %s;\n"
               "  r->cnt += 1u;\n"
               "}\n"
               "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
               "  r->s *= b.s;\n"
               "  r->cnt += b.cnt;\n"
               "}\n",
               am_type_is_float(t) ? "(am_f64)x" : "AM_RAW(x)");
  emit_finish(sb, "AM_S2U(x.s)", "(am_u64)0");
}

/* min_max: s = min, c = max, skipping NaN (counted in nan). */
static void emit_min_max(am_sb *sb, am_type t) {
  if (t == AM_FLOAT32)
    emit_acc_type(sb, "am_f32", "((am_u64)F32_BITS(v))", "BITS_F32((am_u32)(u))",
                  "BITS_F32(0x7f800000u)", "BITS_F32(0xff800000u)");
  else if (t == AM_FLOAT64)
    emit_acc_type(sb, "am_f64", "F64_BITS(v)", "BITS_F64(u)", "BITS_F64((am_u64)0x7ff00000u << 32)",
                  "BITS_F64((am_u64)0xfff00000u << 32)");
  if (am_type_is_float(t)) {
    am_sb_puts(sb,
               "DEVFN void am_acc_add(PRIV Acc *r, T0 x) {\n"
               "  if (x != x) {\n"
               "    r->nan += 1u;\n"
               "  } else {\n"
               "    if (x < r->s) r->s = x;\n"
               "    if (x > r->c) r->c = x;\n"
               "  }\n"
               "  r->cnt += 1u;\n"
               "}\n");
  } else {
    char s0[64], c0[64];
    const char *accs = am_type_is_signed(t) ? "am_i64" : "am_u64";
    snprintf(s0, sizeof s0, "((AccS)%s)", am_ks_imax(t));
    snprintf(c0, sizeof c0, "((AccS)%s)", am_ks_imin(t));
    emit_acc_type(sb, accs, "((am_u64)(v))", "((AccS)(u))", s0, c0);
    am_sb_puts(sb,
               "DEVFN void am_acc_add(PRIV Acc *r, T0 x) {\n"
               "  const AccS w = (AccS)x;\n"
               "  if (w < r->s) r->s = w;\n"
               "  if (w > r->c) r->c = w;\n"
               "  r->cnt += 1u;\n"
               "}\n");
  }
  am_sb_puts(sb,
             "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
             "  if (b.s < r->s) r->s = b.s;\n"
             "  if (b.c > r->c) r->c = b.c;\n"
             "  r->cnt += b.cnt;\n"
             "  r->nan += b.nan;\n"
             "}\n");
  if (am_type_is_float(t))
    emit_finish(sb, "AM_WIDE(AM_S2U(x.s))", "AM_WIDE(AM_S2U(x.c))");
  else
    emit_finish(sb, "(am_u64)x.s", "(am_u64)x.c");
}

/* variance: s = the mean less the shift, c = M2, cnt = count, and the
 * `nan` word holds the shift's bits: the first value the thread saw, so
 * that means stay small numbers (data at 1e9 + small keeps its digits).
 * Welford per slot; Chan et al. per merge, the two shifts' difference (of
 * two data values) added to the difference of the means (a side with no
 * slots leaves the other as it is). */
static void emit_variance(am_sb *sb) {
  emit_acc_type(sb, "am_f64", "F64_BITS(v)", "BITS_F64(u)", "0.0", "0.0");
  am_sb_puts(sb,
             "DEVFN void am_acc_add(PRIV Acc *r, T0 x) {\n"
             "  const am_f64 x0 = (am_f64)x;\n"
             "  if (r->cnt == 0u) r->nan = F64_BITS(x0);\n"
             "  const am_f64 v = x0 - BITS_F64(r->nan);\n"
             "  r->cnt += 1u;\n"
             "  const am_f64 d = v - r->s;\n"
             "  r->s += d / (am_f64)r->cnt;\n"
             "  r->c += d * (v - r->s);\n"
             "}\n"
             "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
             "  if (b.cnt == 0u) return;\n"
             "  if (r->cnt == 0u) {\n"
             "    r->s = b.s;\n"
             "    r->c = b.c;\n"
             "    r->cnt = b.cnt;\n"
             "    r->nan = b.nan;\n"
             "    return;\n"
             "  }\n"
             "  const am_u64 total = r->cnt + b.cnt;\n"
             "  const am_f64 d = (BITS_F64(b.nan) - BITS_F64(r->nan)) + (b.s - r->s);\n"
             "  const am_f64 share = (am_f64)b.cnt / (am_f64)total;\n"
             "  r->s += d * share;\n"
             "  r->c += b.c + d * d * (am_f64)r->cnt * share;\n"
             "  r->cnt = total;\n"
             "}\n");
  am_sb_puts(sb,
             "DEVFN void am_acc_finish(GLOBAL am_u64 *st, Acc x) {\n"
             "  st[1] = x.cnt;\n"
             "  st[2] = 0u;\n"
             "  st[3] = F64_BITS(x.s + BITS_F64(x.nan));\n"
             "  st[4] = F64_BITS(x.c);\n"
             "}\n");
}

/* first / last: s = the value's bits, c = its slot (meaningful once cnt is
 * not 0). index: c = the first slot whose item (a hit) is true, AM_NONE for
 * none. */
static void emit_positional(am_sb *sb, int op) {
  if (op == AM_AGG_INDEX) {
    emit_acc_type(sb, "am_u64", "(v)", "(u)", "((am_u64)0)", "AM_NONE");
    am_sb_puts(sb,
               "DEVFN void am_acc_add_at(PRIV Acc *r, bool hit, am_u64 i) {\n"
               "  if (hit && i < r->c) r->c = i;\n"
               "  r->cnt += 1u;\n"
               "}\n"
               "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
               "  if (b.c < r->c) r->c = b.c;\n"
               "  r->cnt += b.cnt;\n"
               "}\n");
  } else {
    const char *later = op == AM_AGG_FIRST ? "<" : ">";
    emit_acc_type(sb, "am_u64", "(v)", "(u)", "((am_u64)0)", "((am_u64)0)");
    am_sb_printf(sb,
                 "DEVFN void am_acc_add_at(PRIV Acc *r, T0 x, am_u64 i) {\n"
                 "  if (%s) {\n"
                 "    r->s = AM_RAW(x);\n"
                 "    r->c = i;\n"
                 "  }\n"
                 "  r->cnt += 1u;\n"
                 "}\n"
                 "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
                 "  if (b.cnt != 0u && (r->cnt == 0u || b.c %s r->c)) {\n"
                 "    r->s = b.s;\n"
                 "    r->c = b.c;\n"
                 "  }\n"
                 "  r->cnt += b.cnt;\n"
                 "}\n",
                 op == AM_AGG_FIRST ? "r->cnt == 0u" : "true", later);
  }
  emit_finish(sb, op == AM_AGG_INDEX ? "(am_u64)0" : "AM_WIDE(x.s)", "x.c");
}

int am_ks_aggregate_positional(int op) { return positional(op); }

void am_ks_emit_aggregate_class(am_sb *sb, am_dialect d, const am_kernel_key *k) {
  (void)d;
  am_ks_emit_operand(sb, 0, k->t0);
  am_sb_printf(sb, "#define AM_COUNTER_WORD %uu\n", (unsigned)(AM_GPU_SCRATCH_COUNTER / 4));
  am_ks_emit_args(sb, am_ks_ptype(k->t0), "am_u8", "am_u8");
  emit_bits(sb, k->t0);
  switch (k->op) {
    case AM_AGG_PRODUCT:
      emit_product(sb, k->t0);
      break;
    case AM_AGG_MIN_MAX:
      emit_min_max(sb, k->t0);
      break;
    case AM_AGG_VARIANCE:
      emit_variance(sb);
      break;
    default:
      emit_positional(sb, k->op);
      break;
  }
  am_sb_puts(sb, am_ks_reduce_tail);
  if (k->op == AM_AGG_INDEX) {
    am_ks_emit_scalar(sb, k->t0);
    am_sb_puts(sb, "#define AM_ITEM(i) (AM_LOAD0(i) == am_want)\n");
  } else if (positional(k->op)) {
    am_sb_puts(sb, "#define AM_ITEM(i) AM_LOAD0(i)\n");
  }
}

void am_ks_emit_aggregate_loop(am_sb *sb, const am_kernel_key *k, int unroll) {
  if (positional(k->op)) {
    if (k->op == AM_AGG_INDEX) am_sb_puts(sb, "  const T0 am_want = AM_SCALAR;\n");
    am_sb_puts(sb,
               "  for (; i < n; i += stride)\n"
               "    if (!hv || am_bit(a.valid0, a.off0 + i) != 0u)\n"
               "      am_acc_add_at(&acc, AM_ITEM(i), (am_u64)i);\n");
  } else {
    am_ks_emit_reduce_loop(sb, k->t0, unroll);
  }
}

void am_ks_emit_aggregate(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_emit_aggregate_class(sb, d, k);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, am_ks_reduce_shared);
  am_sb_puts(sb, am_ks_reduce_locals);
  am_ks_emit_aggregate_loop(sb, k, 0);
  am_sb_puts(sb, am_ks_reduce_combine);
}
