/* The GPU kernels of null handling (kernels.h: AM_KERNEL_PREDICATE and the
 * kinds after it), written once for CUDA and MSL with the pieces of text of
 * kernel_source.c (kernel_source_emit.h), which hands their keys here.
 *
 * PREDICATE: where it reads values, the warp-by-warp element-wise loop with
 * a ballot per 32-slot output word; the tests look at the bits of the float
 * (the exponent all ones: an infinity, or NaN with a mantissa), so neither a
 * compiler's fast-math nor a GPU's flush of subnormals can change an answer.
 * Where it reads only the validity, one thread per 32-slot word, as LOGIC.
 *
 * COALESCE: the element-wise loop, values moved as bits (as COPY).
 *
 * IF_ELSE: two launches over the same output, one per side (the kernels
 * have two value operands, and if_else three: the condition is in1). */
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
  am_sb_puts(
      sb,
      "  for (am_i64 w = (am_i64)am_bid * AM_BLOCK + am_tid; w < nw; w += stride) {\n"
      "    const am_u32 m = am_tail_mask(n, w);\n"
      "    const am_u32 v = (hv0 ? am_bits32(a.valid0, a.off0 + w * 32, last0) : 0xffffffffu) "
      "& m;\n"
      "    (void)m;\n"
      "    a.out[w] = AM_WORD(v, m);\n"
      "    if (a.out_valid != 0) a.out_valid[w] = v;\n"
      "  }\n");
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

/* ---- The hooks of kernel_source.c */

int am_ks_nulls_key_ok(const am_kernel_key *key) {
  switch (key->kind) {
    case AM_KERNEL_PREDICATE:
      return predicate_key_ok(key);
    case AM_KERNEL_COALESCE:
      return key->op == 0 && am_type_valid((int)key->t0);
    case AM_KERNEL_IF_ELSE:
      return (key->op == 0 || key->op == 1) && am_type_valid((int)key->t0);
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
      snprintf(name, capacity, "am_if_else_%s_%s", key->op ? "false" : "true",
               am_type_label(key->t0));
      break;
    default:
      break;
  }
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t am_ks_nulls_blocks(const am_kernel_key *key, int64_t n, int multiprocessors) {
  (void)multiprocessors;
  switch (key->kind) {
    case AM_KERNEL_PREDICATE:
      /* One slot a thread per pass where values are read; else a word. */
      return predicate_reads_values(key) ? cdiv(n, AM_GPU_BLOCK) : cdiv(cdiv(n, 32), AM_GPU_BLOCK);
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
      emit_if_else(sb, dialect, key, name);
      break;
    default:
      break;
  }
}
