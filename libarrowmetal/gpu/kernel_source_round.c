/* The GPU kernels of round and pairwise_diff (kernels.h:
 * AM_KERNEL_ROUND, AM_KERNEL_PAIRWISE_DIFF), written once for CUDA and MSL
 * on the pieces of text of kernel_source.c (kernel_source_emit.h).
 *
 * ROUND: the element-wise loop over core/round.h's element function, whose
 * text is the one the CPU compiles (AM_ROUND_TEXT), so both compute with the
 * same operations in the float's own precision (float32 never goes through
 * double: Metal has none; float64 runs on CUDA only, and Metal's float64
 * calls run on the CPU over the same memory).
 *
 * PAIRWISE_DIFF: the element-wise loop reading slot i and slot i - period
 * of the one input, with subtract_checked's expression and check from
 * AM_BINARY_OPS (core/ops.h) as text, as BINARY takes them. */
#include <stdio.h>

#include "arrowmetal.h"
#include "core/ops.h"
#include "core/round.h"
#include "core/types.h"
#include "gpu/kernel_source_emit.h"

int am_ks_round_key_ok(const am_kernel_key *k) {
  if (!am_type_is_numeric(k->t0)) return 0;
  if (k->kind == AM_KERNEL_ROUND) return k->op >= AM_ROUND_DOWN && k->op <= AM_ROUND_HALF_TO_ODD;
  return k->op == AM_PAIRWISE_DIFF || k->op == AM_PAIRWISE_DIFF_CHECKED;
}

int am_ks_round_missing_type(am_dialect dialect, const am_kernel_key *k) {
  return !am_dialect_has_type(dialect, k->t0);
}

void am_ks_round_name(const am_kernel_key *k, char *name, size_t capacity) {
  if (k->kind == AM_KERNEL_ROUND)
    snprintf(name, capacity, "am_round_%s_%s", am_round_mode_name(k->op), am_type_label(k->t0));
  else
    snprintf(name, capacity, "am_pairwise_diff%s_%s",
             k->op == AM_PAIRWISE_DIFF_CHECKED ? "_checked" : "", am_type_label(k->t0));
}

int64_t am_ks_round_blocks(const am_kernel_key *key, int64_t n, int multiprocessors) {
  (void)key;
  (void)multiprocessors;
  /* One slot per thread per pass, as the other element-wise kinds. */
  return (n + AM_GPU_BLOCK - 1) / AM_GPU_BLOCK;
}

/* core/round.h's float vocabulary. The scaling product must stay a product:
 * CUDA fuses a * b - c into an fma unless told (__fmul_rn), and Metal's fma
 * with a zero addend is the product rounded once, whatever it contracts. */
static void emit_float_vocabulary(am_sb *sb, am_dialect d, am_type t) {
  if (d == AM_DIALECT_MSL) {
    am_sb_puts(sb,
               "#define am_floor(x) metal::floor(x)\n"
               "#define am_ceil(x) metal::ceil(x)\n"
               "#define am_trunc(x) metal::trunc(x)\n"
               "#define am_round(x) metal::round(x)\n"
               "#define am_isfinite(x) metal::isfinite(x)\n"
               "#define am_signbit(x) metal::signbit(x)\n"
               "#define am_rint(x) metal::rint(x)\n"
               "#define am_fmul(a, b) metal::fma(a, b, 0.0f)\n");
    return;
  }
  const char *f = t == AM_FLOAT32 ? "f" : "";
  am_sb_printf(sb,
               "#define am_floor(x) floor%s(x)\n"
               "#define am_ceil(x) ceil%s(x)\n"
               "#define am_trunc(x) trunc%s(x)\n"
               "#define am_round(x) round%s(x)\n"
               "#define am_rint(x) rint%s(x)\n"
               "#define am_isfinite(x) isfinite(x)\n"
               "#define am_signbit(x) signbit(x)\n"
               "#define am_fmul(a, b) %s(a, b)\n",
               f, f, f, f, f, t == AM_FLOAT32 ? "__fmul_rn" : "__dmul_rn");
}

/* To whole numbers (ndigits 0) the modes DOWN, UP, TOWARDS_ZERO and
 * HALF_TO_EVEN (pyarrow's default) are one function of the float, whose
 * result is am_round_value's for every input (cpu/round.c's WHOLE_LOOP):
 * the general path's scaling and tie tests held float64 round at 58% of the
 * copy floor (H200, 10^8 rows). NULL for the other modes. */
static const char *whole_function(int mode) {
  switch (mode) {
    case AM_ROUND_DOWN:
      return "am_floor";
    case AM_ROUND_UP:
      return "am_ceil";
    case AM_ROUND_TOWARDS_ZERO:
      return "am_trunc";
    case AM_ROUND_HALF_TO_EVEN:
      return "am_rint";
    default:
      return NULL;
  }
}

static const char load_one[] =
    "    bool ok# = false;\n"
    "    T0 x# = 0;\n"
    "    if (i# < n) {\n"
    "      ok# = !hv0 || am_bit(a.valid0, a.off0 + i#) != 0u;\n"
    "      x# = AM_LOAD0(i#);\n"
    "    }\n";

/* A refused slot is reported as (n - 1 - slot) * 2 + (failure - 1), as
 * BINARY's: the smallest report, which the status block keeps, is the last
 * refused slot (pyarrow's), and says whether it went up (0) or down (1). */
static const char round_compute[] =
    "      TR r# = 0;\n"
    "      if (ok#) {\n"
    "        am_u32 f# = 0u;\n"
    "        r# = AM_ROUND_ONE(x#, &f#);\n"
    "        if (f# != 0u) err = (am_u64)(n - 1 - i#) * 2u + (am_u64)((f# - 1u) & 1u);\n"
    "      }\n";

/* The same for a pass whose slots are all valid and below n (float ROUND:
 * the general loop's bookkeeping, and one word a pass, held float64 round
 * to 0.59 ms at 10^8 rows, against the copy's 0.40). */

/* Words a pass of float ROUND's lean loop. H200, 10^8 float64 rows, two
 * runs each, 2 words / 4 words: ndigits 0 0.451-0.455 / 0.429-0.433 ms,
 * ndigits 2 0.524-0.527 / 0.468-0.490 (the copy 0.39-0.40). Dividing by
 * 10^ndigits through its reciprocal and one correction (Markstein) instead
 * of the division changed neither. */
#define ROUND_FLOAT_WORDS 4
static const char round_lean_load[] =
    "      const T0 x# = AM_LOAD0(base + # * stride + am_lane);\n";

static const char round_lean_compute[] =
    "      {\n"
    "        const am_i64 i# = base + # * stride + am_lane;\n"
    "        am_u32 f# = 0u;\n"
    "        a.out[i#] = AM_ROUND_ONE(x#, &f#);\n"
    "        if (f# != 0u) err = (am_u64)(n - 1 - i#) * 2u + (am_u64)((f# - 1u) & 1u);\n"
    "      }\n";

static void emit_round(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type t = k->t0;
  am_ks_operand(sb, 0, t);
  am_sb_printf(sb,
               "typedef T0 TR;\n"
               "typedef T0 am_t;\n"
               "typedef %s am_u;\n"
               "#define AM_MODE %d\n",
               am_type_is_float(t) ? am_ks_ctype(t) : am_ks_store(t), k->op);
  if (am_type_is_float(t)) {
    emit_float_vocabulary(sb, d, t);
    am_sb_puts(sb, AM_ROUND_TEXT(AM_ROUND_FLOAT_DEF(am_t, am_round_value)));
    const char *whole = whole_function(k->op);
    if (whole)
      am_sb_printf(sb,
                   "\n#define AM_ROUND_ONE(x, f) (whole ? %s(x) : am_round_value(x, p, up, down, "
                   "AM_MODE, f))\n",
                   whole);
    else
      am_sb_puts(sb, "\n#define AM_ROUND_ONE(x, f) am_round_value(x, p, up, down, AM_MODE, f)\n");
  } else {
    am_ks_integer_vocabulary(sb, t);
    am_sb_printf(sb, "#define AM_NEG(x) %s\n", am_type_is_signed(t) ? "((x) < 0)" : "false");
    am_sb_puts(sb, AM_ROUND_TEXT(AM_ROUND_INT_DEF(am_t, am_round_value)));
    am_sb_puts(sb,
               "\n#define AM_ROUND_ONE(x, f) am_round_value(x, m, am_lowest, am_highest, AM_MODE, "
               "f)\n");
  }
  am_ks_args(sb, am_ks_ptype(t), "am_u8", am_ks_ctype(t));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  am_u64 err = AM_NONE;\n");
  if (t == AM_FLOAT32)
    am_sb_puts(sb, "  const T0 p = AM_F64BITS_TO_F32(a.scalar);\n");
  else if (t == AM_FLOAT64)
    am_sb_puts(sb, "  const T0 p = BITS_F64(a.scalar);\n");
  else
    am_sb_puts(sb, "  const T0 m = (T0)a.scalar;\n");
  if (am_type_is_float(t))
    am_sb_puts(sb,
               "  const int up = a.aux >= 0 ? 1 : 0;\n"
               "  const int down = a.aux > 0 ? 1 : 0;\n");
  if (am_type_is_float(t) && whole_function(k->op))
    am_sb_puts(sb, "  const bool whole = a.aux == 0;\n");
  if (am_type_is_float(t))
    am_ks_lean_warp_loop(sb, ROUND_FLOAT_WORDS, load_one, round_compute, "!hv0 && a.out_valid == 0",
                         round_lean_load, round_lean_compute);
  else
    am_ks_warp_loop(sb, am_ks_unroll(t, 0), load_one, NULL, round_compute, 0);
  am_sb_puts(sb, "  am_flush_error(a.status, err, am_lane);\n");
}

/* subtract_checked's expression (0) or check (1) for the kind of `t`. */
static const char *subtract_text(am_type t, int check) {
  static const char *const text[][2][3] = {
#define TEXT(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, C1, M1, C2, M2) \
  [ID] = {{#S, #U, #F}, {#FS, #FU, #FF}},
      AM_BINARY_OPS(TEXT)
#undef TEXT
  };
  int kind = am_type_is_signed(t) ? 0 : am_type_is_unsigned(t) ? 1 : 2;
  return text[AM_SUBTRACT_CHECKED][check][kind];
}

static const char load_pair[] =
    "    bool ok# = false;\n"
    "    T0 x# = 0;\n"
    "    T0 y# = 0;\n"
    "    if (i# < n) {\n"
    "      const am_i64 j# = i# - period;\n"
    "      if (j# >= 0 && j# < n) {\n"
    "        ok# = !hv0 || (am_bit(a.valid0, a.off0 + i#) != 0u &&\n"
    "                       am_bit(a.valid0, a.off0 + j#) != 0u);\n"
    "        x# = AM_LOAD0(i#);\n"
    "        y# = AM_LOAD0(j#);\n"
    "      }\n"
    "    }\n";

static const char pair_compute[] =
    "      TR r# = 0;\n"
    "      if (ok#) r# = am_sub(x#, y#);\n";
static const char pair_checked_compute[] =
    "      TR r# = 0;\n"
    "      if (ok#) r# = am_sub(x#, y#);\n"
    "      if (ok# && AM_FAILS(x#, y#)) err = (am_u64)(n - 1 - i#) * 2u;\n";

static void emit_pairwise(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type t = k->t0;
  int checked = k->op == AM_PAIRWISE_DIFF_CHECKED;
  am_ks_operand(sb, 0, t);
  am_sb_printf(sb,
               "typedef T0 TR;\n"
               "typedef T0 am_t;\n"
               "typedef %s am_u;\n",
               am_type_is_float(t) ? am_ks_ctype(t) : am_ks_store(t));
  if (!am_type_is_float(t)) am_ks_integer_vocabulary(sb, t);
  am_sb_printf(sb, "DEVFN T0 am_sub(T0 x, T0 y) { return (T0)(%s); }\n", subtract_text(t, 0));
  if (checked) am_sb_printf(sb, "#define AM_FAILS(x, y) (%s)\n", subtract_text(t, 1));
  am_ks_args(sb, am_ks_ptype(t), "am_u8", am_ks_ctype(t));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  const am_i64 period = a.aux;\n");
  if (checked) am_sb_puts(sb, "  am_u64 err = AM_NONE;\n");
  am_ks_warp_loop(sb, am_ks_unroll(t, 0), load_pair, NULL,
                  checked ? pair_checked_compute : pair_compute, 0);
  if (checked) am_sb_puts(sb, "  am_flush_error(a.status, err, am_lane);\n");
}

void am_ks_round_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name) {
  if (key->kind == AM_KERNEL_ROUND)
    emit_round(sb, dialect, key, name);
  else
    emit_pairwise(sb, dialect, key, name);
}
