/* The source of every GPU kernel (see kernels.h for what each computes),
 * written once and emitted in either dialect through dialect.c.
 *
 * A kernel's source is: the dialect preamble, the helpers every kernel
 * shares, a few per-key definitions (element typedefs T0/T1, load macros,
 * the operation), the argument block struct with typed pointers, per-kind
 * helpers and the kernel itself. The body text of each kind is the same for
 * both dialects and for every type; only the per-key definitions vary. The
 * text is assembled on demand from constant fragments, so the same key
 * always gives the same bytes.
 *
 * Launch and slot assignment:
 *  - Element-wise kinds that write a bitmap (every kind with an out_valid,
 *    and COMPARE, CAST to bool, TAKE of bool) walk the slots warp by warp:
 *    warp w of block b starts at slot (b * AM_BLOCK + 32 w), a multiple of 32,
 *    and strides by blocks * AM_BLOCK, so each warp owns whole 32-bit output
 *    words and writes each word with one ballot (lanes past n vote 0). The
 *    loop bound is uniform across the warp, so every ballot has all 32 lanes.
 *    Narrow types and bitmap results take 4 words a pass, loads first.
 *  - LOGIC, COUNT_NULLS, FILL of bool and FILTER_COUNT read and write whole
 *    words: one thread per 32-slot word, input bits gathered byte-wise.
 *  - REDUCE: a plain grid-stride loop (8 loads in flight per thread for
 *    types up to 32 bits, 4 for 64-bit ones), a fixed-shape warp/block tree,
 *    one partial per block, and the last block (atomic finish counter after
 *    a device fence) combines the partials: each thread merges a contiguous
 *    run of them in block order, then the same fixed tree. The result depends
 *    only on n and the block count, never on timing. The last block resets
 *    the counter to 0.
 *  - FILTER: block b owns the contiguous slots [b * per, (b + 1) * per) with
 *    per = ceil(ceil(n / blocks) / AM_BLOCK) * AM_BLOCK, in FILTER_COUNT and
 *    FILTER_SCATTER alike, so the exclusive scan of the block counts is each
 *    block's first output position. FILTER_COUNT also stores its block count
 *    in the scratch word after the finish counter; FILTER_SCAN reads it there.
 *    FILTER_SCATTER takes 4 x AM_BLOCK slots a pass (loads first), ranks them
 *    with ballots and one warp scan of the 32 warp counts, writes values
 *    contiguously, and ORs bits (AM_BOOL values, validity) into at most two
 *    output words per warp with 32-bit atomics after a shuffle OR-tree.
 *  - Errors: each thread keeps its first failing slot (its slots increase, so
 *    that is its minimum); after the loop the warp takes the minimum and one
 *    lane reports it (am_report_error), so a launch does at most one atomic
 *    per warp on the host-mapped status block.
 *
 * Measured on an H200 (test_cuda_kernels.py bench, 2^28 slots, TB/s of
 * bytes read and written): reduce sum int64 4.46, float32 4.24; arith add
 * int64 4.06, int32 4.08; compare lt int64 2.93; cast int64 -> int32 3.54;
 * fill int64 4.25; filter int64 (50%, three launches) 2.44.
 *
 * Key conventions (beyond kernels.h): fields a kind does not use are ignored;
 * LOGIC, FILTER_COUNT, FILTER_SCAN and COUNT_NULLS ignore t0 and t1 (their
 * names and sources do not depend on them; canonically AM_TYPE_INVALID). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/error.h"
#include "core/float16.h"
#include "core/ops.h"
#include "core/types.h"
#include "gpu/dialect.h"
#include "gpu/kernel_source_emit.h"
#include "gpu/kernel_source_shared.h"
#include "gpu/kernels.h"

/* ---- Types (the type table's facts, core/types.c, as kernel text) */

static int is_float(am_type t) { return am_type_is_float(t); }
static int is_signed(am_type t) { return am_type_is_signed(t); }
/* Suffix that makes a float literal of type t. */
static const char *fsuffix(am_type t) { return t == AM_FLOAT32 ? "f" : ""; }
/* The name in kernel names ("int64"). */
static const char *label(am_type t) { return am_type_label(t); }
/* The value type in kernels (bool: 0/1 in am_u32). */
static const char *ctype(am_type t) { return am_type_kernel(t); }
/* The same-width unsigned type, for bit-exact copies (bool: bitmap bytes). */
static const char *store(am_type t) {
  switch (am_type_bits(t)) {
    case 16:
      return "am_u16";
    case 32:
      return "am_u32";
    case 64:
      return "am_u64";
    default:
      return "am_u8";
  }
}
/* Pointer element type of a value operand (bool: bitmap bytes). */
static const char *ptype(am_type t) { return t == AM_BOOL ? "am_u8" : ctype(t); }

/* An integer type's range [imin, imax] as source expressions, and the float
 * range [flo, fhi) that converts to it without overflow (no suffix), by
 * width: index 0 bool, 1 8 bits, 2 16, 3 32, 4 64. */
static int width_index(am_type t) {
  int bits = am_type_bits(t);
  return bits == 1 ? 0 : bits == 8 ? 1 : bits == 16 ? 2 : bits == 32 ? 3 : 4;
}
static const char *imin(am_type t) {
  static const char *const lo[] = {"0", "(-127 - 1)", "(-32767 - 1)", "(-2147483647 - 1)",
                                   "(-(am_i64)(AM_NONE >> 1) - 1)"};
  return is_signed(t) ? lo[width_index(t)] : "0";
}
static const char *imax(am_type t) {
  static const char *const hi[] = {"1u", "127", "32767", "2147483647", "(am_i64)(AM_NONE >> 1)"};
  static const char *const uhi[] = {"1u", "255u", "65535u", "0xffffffffu", "AM_NONE"};
  return (is_signed(t) ? hi : uhi)[width_index(t)];
}
static const char *flo(am_type t) {
  static const char *const lo[] = {"0.0", "-128.0", "-32768.0", "-2147483648.0",
                                   "-9223372036854775808.0"};
  return is_signed(t) ? lo[width_index(t)] : "0.0";
}
static const char *fhi(am_type t) {
  static const char *const hi[] = {"2.0", "128.0", "32768.0", "2147483648.0",
                                   "9223372036854775808.0"};
  static const char *const uhi[] = {"2.0", "256.0", "65536.0", "4294967296.0",
                                    "18446744073709551616.0"};
  return (is_signed(t) ? hi : uhi)[width_index(t)];
}

/* ---- Keys */

static const char *const reduce_names[] = {"sum", "min", "max", "mean"};
static const char *const compare_names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
static const char *const compare_ops[] = {"==", "!=", "<", "<=", ">", ">="};
static const char *const arith_names[] = {"add", "sub", "mul", "div"};
static const char *const logic_names[] = {"and",       "or",  "not",     "and_kleene",
                                          "or_kleene", "xor", "and_not", "and_not_kleene"};

/* float16 is no kernel's element type but the casts' (its bits, am_u16,
 * converted by core/float16.h's functions): the other kinds take it as
 * uint16, which the ABI views it as. */
static int valid_type(am_type t) { return am_type_valid((int)t) && t != AM_FLOAT16; }
/* The casts of float16: from and to float32 and float64. */
static int float16_cast(am_type from, am_type to) {
  return (from == AM_FLOAT16 && (to == AM_FLOAT32 || to == AM_FLOAT64)) ||
         (to == AM_FLOAT16 && (from == AM_FLOAT32 || from == AM_FLOAT64));
}

/* Whether the key names a kernel (in any dialect). */
static int key_ok(const am_kernel_key *k) {
  switch (k->kind) {
    case AM_KERNEL_REDUCE:
      return k->op >= 0 && k->op <= 3 && valid_type(k->t0);
    case AM_KERNEL_COMPARE:
      return k->op >= 0 && k->op <= 5 && valid_type(k->t0);
    case AM_KERNEL_ARITH:
      return k->op >= 0 && k->op <= 3 && am_type_is_numeric(k->t0);
    case AM_KERNEL_CAST:
      /* (float16's never fail: only the unsafe form) */
      return ((k->op == 0 || k->op == 1) && valid_type(k->t0) && valid_type(k->t1)) ||
             (k->op == 0 && float16_cast(k->t0, k->t1));
    case AM_KERNEL_LOGIC:
      return k->op >= 0 && k->op <= AM_LOGIC_AND_NOT_KLEENE;
    case AM_KERNEL_FILTER_COUNT:
      return k->op == AM_NULL_DROP || k->op == AM_NULL_EMIT;
    case AM_KERNEL_FILTER_SCAN:
    case AM_KERNEL_COUNT_NULLS:
      return 1;
    case AM_KERNEL_FILTER_SCATTER:
      if (k->op == AM_FILTER_POSITIONS) return k->t0 == AM_INT64;
      return (k->op == AM_NULL_DROP || k->op == AM_NULL_EMIT) && valid_type(k->t0);
    case AM_KERNEL_FILL:
    case AM_KERNEL_COPY:
      return valid_type(k->t0);
    case AM_KERNEL_UNARY:
      return am_unary_computes(k->op, k->t0);
    case AM_KERNEL_BINARY:
      return am_binary_computes(k->op, k->t0);
    case AM_KERNEL_TAKE:
      return valid_type(k->t0) && (k->t1 == AM_INT32 || k->t1 == AM_INT64);
    case AM_KERNEL_AGGREGATE:
      return am_ks_aggregate_key_ok(k);
      AM_KS_NULLS_CASES /* null handling */
          return am_ks_nulls_key_ok(k);
      AM_KS_ROUND_CASES
      return am_ks_round_key_ok(k);
      AM_KS_TEMPORAL_CASES /* temporal field extraction */
          return am_ks_temporal_key_ok(k);
      AM_KS_STRINGS_CASES /* strings and binary */
          return am_ks_strings_key_ok(k);
      AM_KS_SELECT_CASES /* quantiles */
          return am_ks_select_key_ok(k);
      AM_KS_CUMULATIVE_CASES
      return am_ks_cumulative_key_ok(k);
      AM_KS_HASH_CASES /* hash-based functions */
          return am_ks_hash_key_ok(k);
      AM_KS_SORT_CASES /* sort_indices */
          return am_ks_sort_key_ok(k);
      AM_KS_GROUPBY_CASES /* group-by and joins */
          return am_ks_groupby_key_ok(k);
    case AM_KERNEL_RESIDENT_WORKER:
      return am_ks_resident_key_ok(k);
  }
  return 0;
}

/* Whether the key's operands or result include a type the dialect has no
 * spelling for (MSL: float64). Kinds that only move bits (COPY) and those
 * that read no values (LOGIC, counts) run for every type. */
static int uses_missing_type(am_dialect dialect, const am_kernel_key *k) {
  switch (k->kind) {
    case AM_KERNEL_CAST:
      return !am_dialect_has_type(dialect, k->t0) || !am_dialect_has_type(dialect, k->t1);
    case AM_KERNEL_REDUCE:
    case AM_KERNEL_COMPARE:
    case AM_KERNEL_ARITH:
    case AM_KERNEL_FILTER_SCATTER:
    case AM_KERNEL_TAKE:
    case AM_KERNEL_FILL:
    case AM_KERNEL_UNARY:
    case AM_KERNEL_BINARY:
      return !am_dialect_has_type(dialect, k->t0);
    case AM_KERNEL_AGGREGATE:
      return am_ks_aggregate_needs_missing_type(dialect, k);
      AM_KS_NULLS_CASES /* null handling */
          return am_ks_nulls_missing_type(dialect, k);
      AM_KS_ROUND_CASES
      return am_ks_round_missing_type(dialect, k);
      AM_KS_TEMPORAL_CASES
      return am_ks_temporal_missing_type(dialect, k);
      AM_KS_STRINGS_CASES
      return am_ks_strings_missing_type(dialect, k);
      AM_KS_CUMULATIVE_CASES
      return am_ks_cumulative_missing_type(dialect, k);
      AM_KS_HASH_CASES /* hash-based functions */
          return am_ks_hash_missing_type(dialect, k);
      AM_KS_GROUPBY_CASES /* group-by and joins */
          return am_ks_groupby_missing_type(dialect, k);
      AM_KS_SORT_CASES /* sort_indices */
          return am_ks_sort_missing_type(dialect, k);
    case AM_KERNEL_RESIDENT_WORKER:
      return am_ks_resident_missing_type(dialect, k);
    default:
      return 0;
  }
}

int am_kernel_supported(am_dialect dialect, const am_kernel_key *key) {
  if (!key || (dialect != AM_DIALECT_CUDA && dialect != AM_DIALECT_MSL) || !key_ok(key)) return 0;
  return !uses_missing_type(dialect, key);
}

void am_kernel_name(const am_kernel_key *key, char *name, size_t capacity) {
  if (!name || capacity == 0) return;
  name[0] = '\0';
  if (!key || !key_ok(key)) return;
  const char *t0 = am_type_valid(key->t0) ? label(key->t0) : "";
  const char *t1 = am_type_valid(key->t1) ? label(key->t1) : "";
  switch (key->kind) {
    case AM_KERNEL_REDUCE:
      snprintf(name, capacity, "am_reduce_%s_%s", reduce_names[key->op], t0);
      break;
    case AM_KERNEL_COMPARE:
      snprintf(name, capacity, "am_compare_%s_%s", compare_names[key->op], t0);
      break;
    case AM_KERNEL_ARITH:
      snprintf(name, capacity, "am_arith_%s_%s", arith_names[key->op], t0);
      break;
    case AM_KERNEL_CAST:
      snprintf(name, capacity, "am_cast_%s_to_%s_%s", t0, t1, key->op ? "safe" : "unsafe");
      break;
    case AM_KERNEL_LOGIC:
      snprintf(name, capacity, "am_logic_%s", logic_names[key->op]);
      break;
    case AM_KERNEL_FILTER_COUNT:
      snprintf(name, capacity, "am_filter_count%s", key->op ? "_emit_null" : "");
      break;
    case AM_KERNEL_FILTER_SCAN:
      snprintf(name, capacity, "am_filter_scan");
      break;
    case AM_KERNEL_FILTER_SCATTER:
      if (key->op == AM_FILTER_POSITIONS)
        snprintf(name, capacity, "am_filter_positions");
      else
        snprintf(name, capacity, "am_filter_scatter_%s%s", t0, key->op ? "_emit_null" : "");
      break;
    case AM_KERNEL_TAKE:
      snprintf(name, capacity, "am_take_%s_by_%s", t0, t1);
      break;
    case AM_KERNEL_FILL:
      snprintf(name, capacity, "am_fill_%s", t0);
      break;
    case AM_KERNEL_COUNT_NULLS:
      snprintf(name, capacity, "am_count_nulls");
      break;
    case AM_KERNEL_COPY:
      snprintf(name, capacity, "am_copy_%s", t0);
      break;
    case AM_KERNEL_UNARY:
      snprintf(name, capacity, "am_%s_%s", am_unary_op_name(key->op), t0);
      break;
    case AM_KERNEL_BINARY:
      snprintf(name, capacity, "am_%s_%s", am_binary_op_name(key->op), t0);
      break;
    case AM_KERNEL_AGGREGATE:
      am_ks_aggregate_name(key, name, capacity);
      break;
      AM_KS_NULLS_CASES /* null handling */
          am_ks_nulls_name(key, name, capacity);
      break;
      AM_KS_ROUND_CASES
      am_ks_round_name(key, name, capacity);
      break;
      AM_KS_TEMPORAL_CASES
      am_ks_temporal_name(key, name, capacity);
      break;
      AM_KS_STRINGS_CASES
      am_ks_strings_name(key, name, capacity);
      break;
      AM_KS_SELECT_CASES /* quantiles */
          am_ks_select_name(key, name, capacity);
      break;
      AM_KS_CUMULATIVE_CASES
      am_ks_cumulative_name(key, name, capacity);
      break;
      AM_KS_HASH_CASES /* hash-based functions */
          am_ks_hash_name(key, name, capacity);
      break;
      AM_KS_SORT_CASES /* sort_indices */
          am_ks_sort_name(key, name, capacity);
      break;
      AM_KS_GROUPBY_CASES /* group-by and joins */
          am_ks_groupby_name(key, name, capacity);
      break;
    case AM_KERNEL_RESIDENT_WORKER:
      am_ks_resident_name(key, name, capacity);
      break;
  }
}

/* ---- Blocks */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int unroll_for(am_type in, int bits_out, int arrays);
/* The words per pass of the binary kinds: unroll_for's, except float64
 * power, which is compute-bound (am_pow64: issue slots 77% busy, ncu) and
 * gains from independent calls to interleave. H200, 10^8 rows, ms, in one
 * run: 1 word 0.93-0.96, 2 words 0.82-0.83, 4 words 0.78-0.80, 8 words
 * 0.77-0.79 (torch.pow 0.84-0.89). With its constants in constant memory
 * (dialect_pow64.c), in one run: 4 words 0.73, 2 words 0.81; 4 words with
 * 3 or 2 blocks resident (80 / 83 registers, no spills) 0.76 / 0.93; 8
 * words with 2 resident 0.79. */
static int binary_unroll(const am_kernel_key *k) {
  /* atan2 too: 2 words 0.669 ms, 4 words 0.569, 8 words 0.653 (kernel only,
   * 10^8 rows; torch.atan2 0.564, the copy of its bytes 0.581). */
  if (k->t0 == AM_FLOAT64 && (k->op == AM_POWER || k->op == AM_POWER_CHECKED || k->op == AM_ATAN2))
    return 4;
  return unroll_for(k->t0, 0, 2);
}

/* The words per pass of the unary kinds: unroll_for's, except the float64
 * libm functions, which are compute-bound and gain from independent calls
 * to interleave, as float64 power does. H200, 10^8 rows, ms, one run each
 * (2 words, then 4): atan 0.694 / 0.535, asin 0.587 / 0.495, acos 0.554 /
 * 0.527, asin_checked 0.608 / 0.520, log1p 0.597 / 0.602, ln 0.464 / 0.464,
 * sin 0.464 / 0.444 (torch: atan 0.41, log1p 0.52, the copy floor 0.40).
 * The logarithms and the inverse sines take 8 (a few spilled registers
 * under the 64 that 4 resident blocks leave cost less than they gain);
 * kernel only, 4 words / 8 words: ln 0.421 / 0.402, asin 0.479 / 0.444,
 * acos 0.509 / 0.496, log1p (am_log1p64) 0.491 / 0.474; atan spills
 * heavily at 8 (0.838) and sin gains little (0.426 / 0.415). Of the
 * checked ones, library calls in one run each, 4 words / 8 words, with
 * libdevice's functions: asin_checked 0.520 / 0.537, acos_checked 0.581 /
 * 0.538; with am_acos64 acos_checked at 8 0.456; with am_asin64 and
 * am_log1p64, two runs each, asin_checked 0.536-0.540 / 0.496-0.512,
 * log1p_checked 0.550-0.557 / 0.506-0.522. */
static int unary_unroll(const am_kernel_key *k) {
  if (k->t0 != AM_FLOAT64) return unroll_for(k->t0, 0, 1);
  switch (k->op) {
    case AM_LN:
    case AM_LOG10:
    case AM_LOG2:
    case AM_LOG1P:
    case AM_ASIN:
    case AM_ACOS:
    case AM_LN_CHECKED:
    case AM_LOG10_CHECKED:
    case AM_LOG2_CHECKED:
    case AM_LOG1P_CHECKED:
    case AM_ASIN_CHECKED:
    case AM_ACOS_CHECKED:
      return 8;
    case AM_EXP:
    case AM_SIN:
    case AM_COS:
    case AM_TAN:
    case AM_ATAN:
      return 4;
    default:
      return unroll_for(k->t0, 0, 1);
  }
}

/* The words a thread takes per pass of emit_warp_loop, for the kinds of this
 * file that use it (as their emitters pass it); 0 for any other kind. */
static int warp_loop_unroll(const am_kernel_key *k) {
  switch (k->kind) {
    case AM_KERNEL_COMPARE:
      return unroll_for(k->t0, 1, 2);
    case AM_KERNEL_ARITH:
      return unroll_for(k->t0, 0, 2);
    case AM_KERNEL_BINARY:
      return binary_unroll(k);
    case AM_KERNEL_UNARY:
      return unary_unroll(k);
    case AM_KERNEL_CAST:
      return unroll_for(k->t0, k->t1 == AM_BOOL, 1);
    case AM_KERNEL_TAKE:
      return unroll_for(k->t0, k->t0 == AM_BOOL, 2);
    default:
      return 0;
  }
}

int am_kernel_blocks(const am_kernel_key *key, int64_t n, int multiprocessors) {
  if (!key || key->kind == AM_KERNEL_FILTER_SCAN || n <= 0) return 1;
  /* The element-wise loops launch one pass's worth of threads, uncapped (they
   * use no per-block scratch): a grid capped at AM_GPU_MAX_BLOCKS striding over
   * 10^8 slots ran in 1.3 waves of resident blocks, and its last wave left
   * SMs idle. H200, 10^8 float64, generated kernels, share of the copy floor,
   * capped -> one pass: sin 77% -> 87%, ln 80% -> 89%, exp 92% -> 96%,
   * sqrt 93% -> 99%, cast int32 -> int64 85% -> 95%. */
  const int unroll = warp_loop_unroll(key);
  if (unroll > 0) {
    int64_t blocks = cdiv(n, (int64_t)AM_GPU_BLOCK * unroll);
    return blocks > INT32_MAX ? INT32_MAX : (int)blocks;
  }
  int64_t mp = multiprocessors > 0 ? multiprocessors : 1;
  int64_t blocks;
  switch (key->kind) {
    case AM_KERNEL_REDUCE:
    case AM_KERNEL_AGGREGATE:
    case AM_KERNEL_FILTER_COUNT:
    case AM_KERNEL_FILTER_SCATTER:
    case AM_KERNEL_COUNT_NULLS:
      /* At least 8 slots a thread, a few blocks per multiprocessor. */
      blocks = cdiv(n, (int64_t)AM_GPU_BLOCK * 8);
      if (blocks > 4 * mp) blocks = 4 * mp;
      break;
    case AM_KERNEL_LOGIC:
      /* One thread per AM_KS_BITMAP_WORDS 32-slot words. */
      blocks = cdiv(cdiv(n, 32), (int64_t)AM_GPU_BLOCK * AM_KS_BITMAP_WORDS);
      break;
    case AM_KERNEL_FILL:
      blocks = key->t0 == AM_BOOL ? cdiv(cdiv(n, 32), AM_GPU_BLOCK) : cdiv(n, AM_GPU_BLOCK);
      break;
      AM_KS_NULLS_CASES /* null handling */
          blocks = am_ks_nulls_blocks(key, n, (int)mp);
      break;
      AM_KS_ROUND_CASES
      blocks = am_ks_round_blocks(key, n, (int)mp);
      break;
      AM_KS_TEMPORAL_CASES
      blocks = am_ks_temporal_blocks(key, n, (int)mp);
      break;
      AM_KS_STRINGS_CASES
      blocks = am_ks_strings_blocks(key, n, (int)mp);
      break;
      AM_KS_SELECT_CASES /* quantiles */
          blocks = am_ks_select_blocks(key, n, (int)mp);
      break;
      AM_KS_CUMULATIVE_CASES
      blocks = am_ks_cumulative_blocks(key, n, (int)mp);
      break;
      AM_KS_SORT_CASES /* sort_indices */
          blocks = am_ks_sort_blocks(key, n, (int)mp);
      break;
    default:
      /* One slot per thread per pass; warps own whole 32-slot words. */
      blocks = cdiv(n, AM_GPU_BLOCK);
      break;
  }
  /* sort_indices' blocks own fixed tiles (their counts live in its own
   * scratch): uncapped */
  if (blocks > AM_GPU_MAX_BLOCKS && !am_ks_sort_kind(key->kind)) blocks = AM_GPU_MAX_BLOCKS;
  return blocks < 1 ? 1 : (int)blocks;
}

/* ---- Text shared by every kernel */

static const char common_helpers[] =
    "#define AM_NONE (~(am_u64)0)\n"
    "// Bit i of an Arrow bitmap, read a byte at a time.\n"
    "DEVFN am_u32 am_bit(GLOBAL const am_u8 *bm, am_i64 i) {\n"
    "  return ((am_u32)bm[i >> 3] >> (am_u32)(i & 7)) & 1u;\n"
    "}\n"
    "// Bits [bit, bit + 32) of a bitmap, reading bytes only up to last_byte.\n"
    "DEVFN am_u32 am_bits32(GLOBAL const am_u8 *bm, am_i64 bit, am_i64 last_byte) {\n"
    "  const am_i64 b = bit >> 3;\n"
    "  am_u64 w = 0;\n"
    "  for (am_u32 k = 0; k < 5u; k++)\n"
    "    if (b + (am_i64)k <= last_byte) w |= (am_u64)bm[b + (am_i64)k] << (8u * k);\n"
    "  return (am_u32)(w >> (am_u32)(bit & 7));\n"
    "}\n"
    "// Word w (slots [32 w, 32 w + 32)) of a bitmap at bit offset off: loaded\n"
    "// whole where the host found its words 4-byte aligned and it is not the\n"
    "// last (whose bytes past last_byte may lie past the buffer), else by bytes.\n"
    "DEVFN am_u32 am_word32(GLOBAL const am_u8 *bm, am_i64 off, am_i64 w, am_i64 last_byte,\n"
    "                       bool whole) {\n"
    "  if (whole) return ((GLOBAL const am_u32 *)(bm + (off >> 3)))[w];\n"
    "  return am_bits32(bm, off + w * 32, last_byte);\n"
    "}\n"
    "// Mask of the bits of 32-slot word w that are below n.\n"
    "DEVFN am_u32 am_tail_mask(am_i64 n, am_i64 w) {\n"
    "  const am_i64 left = n - w * 32;\n"
    "  return left >= 32 ? 0xffffffffu : (1u << (am_u32)left) - 1u;\n"
    "}\n"
    "DEVFN am_u32 am_warp_or(am_u32 v) {\n"
    "  for (am_u32 m = 16u; m > 0u; m >>= 1) v |= SHFL_XOR(v, m);\n"
    "  return v;\n"
    "}\n"
    "// Sum over the warp, valid in lane 0.\n"
    "DEVFN am_u64 am_warp_sum_u64(am_u64 v) {\n"
    "  for (am_u32 d = 16u; d > 0u; d >>= 1) v += am_shfl_down_u64(v, d);\n"
    "  return v;\n"
    "}\n"
    "// Sum over the block, valid in lane 0 of every warp. All threads call it.\n"
    "DEVFN am_u64 am_block_sum_u64(am_u64 v, SPTR am_u64 *sh, am_u32 lane, am_u32 warp) {\n"
    "  v = am_warp_sum_u64(v);\n"
    "  if (lane == 0u) sh[warp] = v;\n"
    "  BARRIER();\n"
    "  v = lane < AM_BLOCK / 32u ? sh[lane] : (am_u64)0;\n"
    "  v = am_warp_sum_u64(v);\n"
    "  BARRIER();\n"
    "  return v;\n"
    "}\n"
    "// Reports the warp's smallest failing slot (err: this thread's first).\n"
    "// All 32 lanes call it.\n"
    "DEVFN void am_flush_error(GLOBAL am_u64 *st, am_u64 err, am_u32 lane) {\n"
    "  if (BALLOT(err != AM_NONE) == 0u) return;\n"
    "  for (am_u32 d = 16u; d > 0u; d >>= 1) {\n"
    "    const am_u64 o = am_shfl_down_u64(err, d);\n"
    "    if (o < err) err = o;\n"
    "  }\n"
    "  if (lane == 0u) am_report_error(st, err);\n"
    "}\n"
    "// ORs `bits` into a word bitmap at bit position p (two words at most).\n"
    "DEVFN void am_or_bits(GLOBAL am_u32 *words, am_u64 p, am_u32 bits) {\n"
    "  const am_u32 sh = (am_u32)p & 31u;\n"
    "  const am_u32 lo = bits << sh;\n"
    "  const am_u32 hi = sh != 0u ? bits >> (32u - sh) : 0u;\n"
    "  if (lo != 0u) ATOMIC_OR32(words + (p >> 5), lo);\n"
    "  if (hi != 0u) ATOMIC_OR32(words + (p >> 5) + 1u, hi);\n"
    "}\n";

/* Writes the argument block with typed pointers (layout of am_gpu_args). */
static void emit_args(am_sb *sb, const char *in0, const char *in1, const char *out) {
  am_sb_printf(sb,
               "struct Args {\n"
               "  GLOBAL const %s *in0;\n"
               "  GLOBAL const %s *in1;\n"
               "  GLOBAL const am_u8 *valid0;\n"
               "  GLOBAL const am_u8 *valid1;\n"
               "  GLOBAL %s *out;\n"
               "  GLOBAL am_u32 *out_valid;\n"
               "  GLOBAL am_u32 *scratch;\n"
               "  GLOBAL am_u64 *status;\n"
               "  am_i64 n;\n"
               "  am_i64 off0;\n"
               "  am_i64 off1;\n"
               "  am_i64 aux;\n"
               "  am_u64 scalar;\n"
               "  am_i32 scalar_null;\n"
               "  am_i32 pad;\n"
               "  GLOBAL const %s *in2;\n"
               "  GLOBAL const am_u8 *valid2;\n"
               "  am_i64 off2;\n"
               "};\n",
               in0, in1, out, in0);
}

/* typedef T<idx> and AM_LOAD<idx>(i) for operand `idx` of type t. */
static void emit_operand(am_sb *sb, int idx, am_type t) {
  am_sb_printf(sb, "typedef %s T%d;\n", ctype(t), idx);
  if (t == AM_BOOL)
    am_sb_printf(sb, "#define AM_LOAD%d(i) am_bit(a.in%d, a.off%d + (i))\n", idx, idx, idx);
  else
    am_sb_printf(sb, "#define AM_LOAD%d(i) a.in%d[a.off%d + (i)]\n", idx, idx, idx);
}

/* AM_SCALAR: the scalar operand (am_gpu_args.scalar) as a T0. */
static void emit_scalar(am_sb *sb, am_type t) {
  if (t == AM_BOOL)
    am_sb_puts(sb, "#define AM_SCALAR (a.scalar != 0u ? 1u : 0u)\n");
  else if (t == AM_FLOAT32)
    am_sb_puts(sb, "#define AM_SCALAR AM_F64BITS_TO_F32(a.scalar)\n");
  else if (t == AM_FLOAT64)
    am_sb_puts(sb, "#define AM_SCALAR BITS_F64(a.scalar)\n");
  else
    am_sb_printf(sb, "#define AM_SCALAR ((T0)a.scalar)\n");
}

/* Emits `tmpl` with every '#' replaced by the number k (in decimal): the
 * unrolled copies of a piece of kernel text. */
static void emit_k(am_sb *sb, const char *tmpl, int k) {
  char digit[12];
  snprintf(digit, sizeof digit, "%d", k);
  for (const char *p = tmpl; *p;) {
    const char *hash = strchr(p, '#');
    if (!hash) {
      am_sb_puts(sb, p);
      break;
    }
    am_sb_putn(sb, p, (size_t)(hash - p));
    am_sb_puts(sb, digit);
    p = hash + 1;
  }
}

/* Words per warp and pass of the element-wise loop: about 16 bytes of loads
 * in flight a thread, counting the `arrays` value arrays a slot reads, and
 * four words for narrow inputs and bitmap results. H200, 10^8 rows, share
 * of the device copy's bandwidth floor, medians of 3 runs interleaved with
 * the previous rule (1 word for every 32/64-bit kind; the runs varied by up
 * to 30%): unary float64 with 2 words, sqrt 59% -> 75%, ln 50% -> 58%, sin
 * 54% -> 62%; binary int64 with 2 words, multiply by a scalar 79% -> 73%,
 * add_checked 107% -> 99%, so a binary kind counts both its arrays (1 word
 * for 64 bits) though its kernel also serves a scalar operand. */
static int unroll_for(am_type in, int bits_out, int arrays) {
  if (bits_out || in == AM_BOOL || am_type_bits(in) <= 16) return 4;
  int unroll = 16 / (am_type_bits(in) / 8 * arrays);
  return unroll < 1 ? 1 : unroll > 4 ? 4 : unroll;
}

/* The warp-by-warp loop of the element-wise kinds. Warp w of block b starts
 * at slot b * AM_BLOCK + 32 w (a multiple of 32) and a pass handles `unroll`
 * words `stride` apart: first every word's loads (`load`, then `gather`),
 * then each word's `compute` and stores, so that a thread has several loads
 * in flight. (Computing every word before any store was no faster for the
 * transcendental functions and slower for add_checked: H200, 10^8 slots.)
 * In the templates, '#' is the word k; its slot is i# = base +
 * k * stride + lane. `load` defines ok# (the result is valid) and `compute`
 * (or `gather`) r# (the result). The stores are a ballot word per warp for a
 * bitmap result (lanes past n vote 0) or a value per slot, and the validity
 * word.
 *
 * With `lean_load` and `lean_compute` (templates for the same '#' words, with
 * every slot valid and in range, storing only values), passes that lie wholly
 * below n run first without validity or bounds when the kernel's hv0 is false
 * and there is no validity to write; the general loop then does the rest.
 * A checked kind passes `lean_fails`, its check of word '#' (nonzero: the
 * slot fails): the lean passes only OR the checks together, and a pass that
 * saw a failure in any lane leaves the lean loop, the whole warp together and
 * without advancing, so the general loop
 * runs it again and records the failure as it records any (the lean compute
 * templates then keep no error slot; errors are rare, and tracking the
 * first failing slot in every lean pass cost float64 log1p_checked and
 * asin_checked about 5% against their unchecked kinds, H200, 10^8 rows). The
 * general loop's bookkeeping cost an element-wise transcendental about 55
 * instructions a slot, more than the function itself: H200, 10^8 float64, ln
 * 141 instructions a slot against PyTorch's 85 for the same 30 FP64 ones, and
 * the kernel was issue-bound (Nsight Compute). */
static void emit_lean_warp_loop(am_sb *sb, int unroll, const char *load, const char *gather,
                                const char *compute, int bits_out, const char *lean_if,
                                const char *lean_load, const char *lean_compute,
                                const char *lean_fails) {
  am_sb_puts(sb,
             "  const am_i64 n = a.n;\n"
             "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
             "  am_i64 base = (am_i64)am_bid * AM_BLOCK + am_warp * 32u;\n");
  if (lean_load) {
    am_sb_printf(sb,
                 "  if (%s) {\n"
                 "    for (; base + %d * stride + 32 <= n; base += %d * stride) {\n",
                 lean_if, unroll - 1, unroll);
    if (lean_fails) am_sb_puts(sb, "      am_u32 lean_bad = 0u;\n");
    for (int k = 0; k < unroll; k++) emit_k(sb, lean_load, k);
    for (int k = 0; k < unroll; k++) {
      emit_k(sb, lean_compute, k);
      if (lean_fails) {
        am_sb_puts(sb, "      lean_bad |= (am_u32)(");
        emit_k(sb, lean_fails, k);
        am_sb_puts(sb, ");\n");
      }
    }
    /* The whole warp leaves: its lanes must meet the general loop's ballots
     * together. */
    if (lean_fails) am_sb_puts(sb, "      if (BALLOT(lean_bad != 0u) != 0u) break;\n");
    am_sb_puts(sb, "    }\n  }\n");
  }
  am_sb_printf(sb, "  for (; base < n; base += %d * stride) {\n", unroll);
  for (int k = 0; k < unroll; k++)
    emit_k(sb, "    const am_i64 i# = base + # * stride + am_lane;\n", k);
  for (int k = 0; k < unroll; k++) emit_k(sb, load, k);
  for (int k = 0; gather && k < unroll; k++) emit_k(sb, gather, k);
  for (int k = 0; k < unroll; k++) {
    emit_k(sb, "    if (base + # * stride < n) {\n", k);
    emit_k(sb, compute, k);
    if (bits_out)
      emit_k(sb,
             "      const am_u32 rw# = BALLOT(ok# && r# != 0);\n"
             "      const am_u32 vw# = BALLOT(ok#);\n"
             "      if (am_lane == 0u) {\n"
             "        a.out[(base + # * stride) >> 5] = rw#;\n"
             "        if (a.out_valid != 0) a.out_valid[(base + # * stride) >> 5] = vw#;\n"
             "      }\n",
             k);
    else
      emit_k(sb,
             "      if (i# < n) a.out[i#] = r#;\n"
             "      const am_u32 vw# = BALLOT(ok#);\n"
             "      if (am_lane == 0u && a.out_valid != 0) a.out_valid[(base + # * stride) >> 5] = "
             "vw#;\n",
             k);
    am_sb_puts(sb, "    }\n");
  }
  am_sb_puts(sb, "  }\n");
}

static void emit_warp_loop(am_sb *sb, int unroll, const char *load, const char *gather,
                           const char *compute, int bits_out) {
  emit_lean_warp_loop(sb, unroll, load, gather, compute, bits_out, NULL, NULL, NULL, NULL);
}

/* ---- REDUCE */

/* Per-class accumulator: four fields like a partial record. `s` and `c`
 * have the class's type AccS; AM_S2U / AM_U2S convert them to and from the
 * 64-bit words of partials and shuffles. */
static const char reduce_head[] =
    "struct Acc {\n"
    "  AccS s;\n"
    "  AccS c;\n"
    "  am_u64 cnt;\n"
    "  am_u64 nan;\n"
    "};\n"
    "DEVFN Acc am_acc_make(AccS s) {\n"
    "  Acc r;\n"
    "  r.s = s;\n"
    "  r.c = AM_ACC_C0;\n"
    "  r.cnt = 0u;\n"
    "  r.nan = 0u;\n"
    "  return r;\n"
    "}\n";

/* The rest, after the class's am_acc_add / am_acc_merge / am_acc_finish. */
static const char reduce_tail[] =
    "DEVFN Acc am_acc_shfl(Acc x, am_u32 d) {\n"
    "  Acc r;\n"
    "  r.s = AM_U2S(am_shfl_down_u64(AM_S2U(x.s), d));\n"
    "  r.c = AM_U2S(am_shfl_down_u64(AM_S2U(x.c), d));\n"
    "  r.cnt = am_shfl_down_u64(x.cnt, d);\n"
    "  r.nan = am_shfl_down_u64(x.nan, d);\n"
    "  return r;\n"
    "}\n"
    "DEVFN void am_acc_store(GLOBAL am_u32 *scr, am_u32 b, Acc x) {\n"
    "  am_partial_store(scr, 4u * b, AM_S2U(x.s));\n"
    "  am_partial_store(scr, 4u * b + 1u, AM_S2U(x.c));\n"
    "  am_partial_store(scr, 4u * b + 2u, x.cnt);\n"
    "  am_partial_store(scr, 4u * b + 3u, x.nan);\n"
    "}\n"
    "DEVFN Acc am_acc_load(GLOBAL am_u32 *scr, am_u32 b) {\n"
    "  Acc r;\n"
    "  r.s = AM_U2S(am_partial_load(scr, 4u * b));\n"
    "  r.c = AM_U2S(am_partial_load(scr, 4u * b + 1u));\n"
    "  r.cnt = am_partial_load(scr, 4u * b + 2u);\n"
    "  r.nan = am_partial_load(scr, 4u * b + 3u);\n"
    "  return r;\n"
    "}\n"
    "// Fixed-shape tree over the warp: lane L merges lane L + d (later slots).\n"
    "DEVFN Acc am_acc_warp(Acc x, am_u32 lane) {\n"
    "  for (am_u32 d = 16u; d > 0u; d >>= 1) {\n"
    "    const Acc o = am_acc_shfl(x, d);\n"
    "    if (lane + d < 32u) am_acc_merge(&x, o);\n"
    "  }\n"
    "  return x;\n"
    "}\n"
    "// Block result in lane 0 of every warp. All threads call it.\n"
    "DEVFN Acc am_acc_block(Acc x, SPTR Acc *sh, am_u32 lane, am_u32 warp) {\n"
    "  x = am_acc_warp(x, lane);\n"
    "  if (lane == 0u) {\n"
    "    sh[warp].s = x.s;\n"
    "    sh[warp].c = x.c;\n"
    "    sh[warp].cnt = x.cnt;\n"
    "    sh[warp].nan = x.nan;\n"
    "  }\n"
    "  BARRIER();\n"
    "  x = am_acc_make(AM_ACC_S0);\n"
    "  if (lane < AM_BLOCK / 32u) {\n"
    "    x.s = sh[lane].s;\n"
    "    x.c = sh[lane].c;\n"
    "    x.cnt = sh[lane].cnt;\n"
    "    x.nan = sh[lane].nan;\n"
    "  }\n"
    "  x = am_acc_warp(x, lane);\n"
    "  BARRIER();\n"
    "  return x;\n"
    "}\n";

/* The block's shared words (the resident worker keeps its own, one set
 * for every class), then the locals. */
static const char reduce_shared[] =
    "  SMEM Acc am_sh[AM_BLOCK / 32u];\n"
    "  SMEM am_u32 am_last;\n";
static const char reduce_locals[] =
    "  const am_i64 n = a.n;\n"
    "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
    "  const bool hv = a.valid0 != 0;\n"
    "  Acc acc = am_acc_make(AM_ACC_S0);\n"
    "  am_i64 i = (am_i64)am_bid * AM_BLOCK + am_tid;\n";

/* The block's result and the last block's combine. */
static const char reduce_combine[] =
    "  acc = am_acc_block(acc, am_sh, am_lane, am_warp);\n"
    "  // One block (small inputs): its partial is the result, so skip the\n"
    "  // scratch round trip, most of a small reduction's GPU time.\n"
    "  if (am_nblocks == 1u) {\n"
    "    if (am_tid == 0u) am_acc_finish(a.status, acc);\n"
    "    return;\n"
    "  }\n"
    "  if (am_tid == 0u) am_acc_store(a.scratch, am_bid, acc);\n"
    "  THREADFENCE();\n"
    "  BARRIER();\n"
    "  if (am_tid == 0u)\n"
    "    am_last = ATOMIC_ADD32(a.scratch + AM_COUNTER_WORD, 1u) == am_nblocks - 1u ? 1u : 0u;\n"
    "  BARRIER();\n"
    "  if (am_last == 0u) return;\n"
    "  // The last block: partials in block order, contiguous runs per thread.\n"
    "  THREADFENCE();\n"
    "  const am_u32 per = (am_nblocks + AM_BLOCK - 1u) / AM_BLOCK;\n"
    "  Acc r = am_acc_make(AM_ACC_S0);\n"
    "  for (am_u32 k = 0; k < per; k++) {\n"
    "    const am_u32 b = am_tid * per + k;\n"
    "    if (b < am_nblocks) am_acc_merge(&r, am_acc_load(a.scratch, b));\n"
    "  }\n"
    "  r = am_acc_block(r, am_sh, am_lane, am_warp);\n"
    "  if (am_tid == 0u) {\n"
    "    am_acc_finish(a.status, r);\n"
    "    ATOMIC_STORE32(a.scratch + AM_COUNTER_WORD, 0u);\n"
    "  }\n";

/* The per-class parts of REDUCE: AccS, conversions, identity, add, merge
 * and finish (status words: 1 count, 2 nan_count, 3 value, 4 value_hi). */
static void emit_reduce_class(am_sb *sb, am_dialect d, am_reduce_op op, am_type t) {
  const char *widen = is_signed(t) ? "(am_u64)(am_i64)" : "(am_u64)";
  if ((op == AM_REDUCE_SUM || op == AM_REDUCE_MEAN) && !is_float(t)) {
    int wide = op == AM_REDUCE_MEAN && t != AM_BOOL;
    am_sb_puts(sb,
               "typedef am_u64 AccS;\n"
               "#define AM_S2U(v) (v)\n"
               "#define AM_U2S(u) (u)\n"
               "#define AM_ACC_S0 ((am_u64)0)\n"
               "#define AM_ACC_C0 ((am_u64)0)\n");
    am_sb_puts(sb, reduce_head);
    if (wide) /* 128-bit sum: s = low word, c = high word (two's complement). */
      am_sb_printf(sb,
                   "DEVFN void am_acc_add(PRIV Acc *r, T0 x) {\n"
                   "  const am_u64 u = %s(x);\n"
                   "  const am_u64 lo = r->s + u;\n"
                   "  r->c += (lo < u ? (am_u64)1 : (am_u64)0) + (%s ? AM_NONE : (am_u64)0);\n"
                   "  r->s = lo;\n"
                   "  r->cnt += 1u;\n"
                   "}\n",
                   widen, is_signed(t) ? "x < 0" : "false");
    else
      am_sb_printf(sb,
                   "DEVFN void am_acc_add(PRIV Acc *r, T0 x) {\n"
                   "  r->s += %s(x);\n"
                   "  r->cnt += 1u;\n"
                   "}\n",
                   widen);
    if (wide)
      am_sb_puts(sb,
                 "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
                 "  const am_u64 lo = r->s + b.s;\n"
                 "  r->c += b.c + (lo < b.s ? (am_u64)1 : (am_u64)0);\n"
                 "  r->s = lo;\n"
                 "  r->cnt += b.cnt;\n"
                 "}\n");
    else
      am_sb_puts(sb,
                 "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
                 "  r->s += b.s;\n"
                 "  r->cnt += b.cnt;\n"
                 "}\n");
    am_sb_printf(sb,
                 "DEVFN void am_acc_finish(GLOBAL am_u64 *st, Acc x) {\n"
                 "  st[1] = x.cnt;\n"
                 "  st[2] = 0u;\n"
                 "  st[3] = x.s;\n"
                 "  st[4] = %s;\n"
                 "}\n",
                 wide ? "x.c" : "(am_u64)0");
    return;
  }
  if (op == AM_REDUCE_SUM || op == AM_REDUCE_MEAN) {
    if (am_dialect_has_double(d)) {
      /* Float sums in double. */
      am_sb_puts(sb,
                 "typedef am_f64 AccS;\n"
                 "#define AM_S2U(v) F64_BITS(v)\n"
                 "#define AM_U2S(u) BITS_F64(u)\n"
                 "#define AM_ACC_S0 0.0\n"
                 "#define AM_ACC_C0 0.0\n");
      am_sb_puts(sb, reduce_head);
      am_sb_puts(sb,
                 "DEVFN void am_acc_add(PRIV Acc *r, T0 x) {\n"
                 "  r->s += (am_f64)x;\n"
                 "  r->cnt += 1u;\n"
                 "}\n"
                 "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
                 "  r->s += b.s;\n"
                 "  r->cnt += b.cnt;\n"
                 "}\n"
                 "DEVFN void am_acc_finish(GLOBAL am_u64 *st, Acc x) {\n"
                 "  st[1] = x.cnt;\n"
                 "  st[2] = 0u;\n"
                 "  st[3] = F64_BITS(x.s);\n"
                 "  st[4] = 0u;\n"
                 "}\n");
    } else {
      /* No double: float with Neumaier compensation (s sum, c correction). */
      am_sb_puts(sb,
                 "typedef am_f32 AccS;\n"
                 "#define AM_S2U(v) ((am_u64)F32_BITS(v))\n"
                 "#define AM_U2S(u) BITS_F32((am_u32)(u))\n"
                 "#define AM_ACC_S0 0.0f\n"
                 "#define AM_ACC_C0 0.0f\n");
      am_sb_puts(sb, reduce_head);
      am_sb_puts(sb,
                 "DEVFN void am_kahan(PRIV Acc *r, am_f32 x) {\n"
                 "  const am_f32 t = r->s + x;\n"
                 "  const am_f32 abs_s = r->s < 0.0f ? -r->s : r->s;\n"
                 "  const am_f32 abs_x = x < 0.0f ? -x : x;\n"
                 "  if (abs_s >= abs_x) r->c += (r->s - t) + x;\n"
                 "  else r->c += (x - t) + r->s;\n"
                 "  r->s = t;\n"
                 "}\n"
                 "DEVFN void am_acc_add(PRIV Acc *r, T0 x) {\n"
                 "  am_kahan(r, x);\n"
                 "  r->cnt += 1u;\n"
                 "}\n"
                 "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
                 "  am_kahan(r, b.s);\n"
                 "  r->c += b.c;\n"
                 "  r->cnt += b.cnt;\n"
                 "}\n"
                 "DEVFN void am_acc_finish(GLOBAL am_u64 *st, Acc x) {\n"
                 "  // Once s is inf or NaN the correction means nothing.\n"
                 "  const am_f32 v = (x.s - x.s == 0.0f) ? x.s + x.c : x.s;\n"
                 "  st[1] = x.cnt;\n"
                 "  st[2] = 0u;\n"
                 "  st[3] = AM_F32_TO_F64BITS(v);\n"
                 "  st[4] = 0u;\n"
                 "}\n");
    }
    return;
  }
  /* MIN / MAX. */
  const char *cmp = op == AM_REDUCE_MIN ? "<" : ">";
  if (is_float(t)) {
    if (t == AM_FLOAT32)
      am_sb_printf(sb,
                   "typedef am_f32 AccS;\n"
                   "#define AM_S2U(v) ((am_u64)F32_BITS(v))\n"
                   "#define AM_U2S(u) BITS_F32((am_u32)(u))\n"
                   "#define AM_ACC_S0 BITS_F32(%s)\n"
                   "#define AM_ACC_C0 0.0f\n"
                   "#define AM_RESULT(v) AM_F32_TO_F64BITS(v)\n",
                   op == AM_REDUCE_MIN ? "0x7f800000u" : "0xff800000u");
    else
      am_sb_printf(sb,
                   "typedef am_f64 AccS;\n"
                   "#define AM_S2U(v) F64_BITS(v)\n"
                   "#define AM_U2S(u) BITS_F64(u)\n"
                   "#define AM_ACC_S0 BITS_F64((am_u64)%s << 32)\n"
                   "#define AM_ACC_C0 0.0\n"
                   "#define AM_RESULT(v) F64_BITS(v)\n",
                   op == AM_REDUCE_MIN ? "0x7ff00000u" : "0xfff00000u");
    am_sb_puts(sb, reduce_head);
    am_sb_printf(sb,
                 "DEVFN void am_acc_add(PRIV Acc *r, T0 x) {\n"
                 "  if (x != x) r->nan += 1u;\n"
                 "  else if (x %s r->s) r->s = x;\n"
                 "  r->cnt += 1u;\n"
                 "}\n"
                 "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
                 "  if (b.s %s r->s) r->s = b.s;\n"
                 "  r->cnt += b.cnt;\n"
                 "  r->nan += b.nan;\n"
                 "}\n"
                 "DEVFN void am_acc_finish(GLOBAL am_u64 *st, Acc x) {\n"
                 "  st[1] = x.cnt;\n"
                 "  st[2] = x.nan;\n"
                 "  st[3] = AM_RESULT(x.s);\n"
                 "  st[4] = 0u;\n"
                 "}\n",
                 cmp, cmp);
    return;
  }
  /* Integers and bool: the extreme as int64 (signed) or uint64. */
  const char *acct = is_signed(t) ? "am_i64" : "am_u64";
  am_sb_printf(sb,
               "typedef %s AccS;\n"
               "#define AM_S2U(v) ((am_u64)(v))\n"
               "#define AM_U2S(u) ((AccS)(u))\n"
               "#define AM_ACC_S0 ((AccS)%s)\n"
               "#define AM_ACC_C0 ((AccS)0)\n",
               acct, op == AM_REDUCE_MIN ? imax(t) : imin(t));
  am_sb_puts(sb, reduce_head);
  am_sb_printf(sb,
               "DEVFN void am_acc_add(PRIV Acc *r, T0 x) {\n"
               "  const AccS w = (AccS)x;\n"
               "  if (w %s r->s) r->s = w;\n"
               "  r->cnt += 1u;\n"
               "}\n"
               "DEVFN void am_acc_merge(PRIV Acc *r, Acc b) {\n"
               "  if (b.s %s r->s) r->s = b.s;\n"
               "  r->cnt += b.cnt;\n"
               "}\n"
               "DEVFN void am_acc_finish(GLOBAL am_u64 *st, Acc x) {\n"
               "  st[1] = x.cnt;\n"
               "  st[2] = 0u;\n"
               "  st[3] = (am_u64)x.s;\n"
               "  st[4] = 0u;\n"
               "}\n",
               cmp, cmp);
}

/* A thread's slots i, i + stride, ... taken in order with `unroll` loads in
 * flight (0: 8 of narrow types, 4 of 64-bit), then the slots left. Whatever
 * the unroll, a thread adds its slots in the same order. */
static void emit_reduce_loop(am_sb *sb, am_type t, int unroll) {
  int u = unroll > 0 ? unroll : am_type_bits(t) <= 32 ? 8 : 4;
  am_sb_printf(sb, "  for (; i + %d * stride < n; i += %d * stride) {\n", u - 1, u);
  for (int j = 0; j < u; j++) emit_k(sb, "    const T0 x# = AM_LOAD0(i + # * stride);\n", j);
  am_sb_puts(sb, "    if (hv) {\n      const am_i64 j = a.off0 + i;\n");
  for (int j = 0; j < u; j++)
    emit_k(sb, "      const am_u32 v# = am_bit(a.valid0, j + # * stride);\n", j);
  for (int j = 0; j < u; j++) emit_k(sb, "      if (v# != 0u) am_acc_add(&acc, x#);\n", j);
  am_sb_puts(sb, "    } else {\n");
  for (int j = 0; j < u; j++) emit_k(sb, "      am_acc_add(&acc, x#);\n", j);
  /* The rest, at most u - 1 slots a thread: every load issued before the
   * first add (a loop of them waited out each load in turn: a 1,000-row
   * int64 sum's last warp took three trips to memory after the unrolled
   * one), the adds in slot order as the loop made them. */
  am_sb_puts(sb, "    }\n  }\n  if (i < n) {\n");
  for (int j = 0; j < u - 1; j++) emit_k(sb, "    const bool got# = i + # * stride < n;\n", j);
  for (int j = 0; j < u - 1; j++)
    emit_k(sb, "    const T0 x# = got# ? AM_LOAD0(i + # * stride) : (T0)0;\n", j);
  for (int j = 0; j < u - 1; j++)
    emit_k(sb,
           "    if (got# && (!hv || am_bit(a.valid0, a.off0 + i + # * stride) != 0u)) "
           "am_acc_add(&acc, x#);\n",
           j);
  am_sb_puts(sb, "  }\n");
}

static void emit_reduce(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  emit_operand(sb, 0, k->t0);
  am_sb_printf(sb, "#define AM_COUNTER_WORD %uu\n", (unsigned)(AM_GPU_SCRATCH_COUNTER / 4));
  emit_args(sb, ptype(k->t0), "am_u8", "am_u8");
  emit_reduce_class(sb, d, (am_reduce_op)k->op, k->t0);
  am_sb_puts(sb, reduce_tail);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, reduce_shared);
  am_sb_puts(sb, reduce_locals);
  emit_reduce_loop(sb, k->t0, 0);
  am_sb_puts(sb, reduce_combine);
}

/* ---- COMPARE, ARITH */

static const char binary_body[] =
    "  const bool hv0 = a.valid0 != 0;\n"
    "  const bool hv1 = a.valid1 != 0;\n"
    "  const bool sc = a.in1 == 0;\n"
    "  const T0 ys = AM_SCALAR;\n"
    "  am_u64 err = AM_NONE;\n"
    "  (void)err;\n";

static const char binary_load[] =
    "    bool ok# = false;\n"
    "    T0 x# = 0, y# = 0;\n"
    "    if (i# < n) {\n"
    "      ok# = (!hv0 || am_bit(a.valid0, a.off0 + i#) != 0u) &&\n"
    "            (sc || !hv1 || am_bit(a.valid1, a.off1 + i#) != 0u);\n"
    "      x# = AM_LOAD0(i#);\n"
    "      y# = sc ? ys : AM_LOAD1(i#);\n"
    "    }\n";

static const char binary_compute[] =
    "      TR r# = 0;\n"
    "      if (ok#) r# = AM_APPLY(x#, y#);\n"
    "      if (ok# && AM_FAILS(x#, y#) && err == AM_NONE) err = (am_u64)i#;\n";

/* The same for passes whose slots are all valid and below n (the lean loop
 * of emit_lean_warp_loop; numbers out, no validity written). */
static const char binary_lean_if[] = "!hv0 && (sc || !hv1) && a.out_valid == 0";
static const char binary_lean_load[] =
    "      const am_i64 i# = base + # * stride + am_lane;\n"
    "      const T0 x# = AM_LOAD0(i#);\n"
    "      const T0 y# = sc ? ys : AM_LOAD1(i#);\n";
static const char binary_lean_compute[] =
    "      a.out[i#] = AM_APPLY(x#, y#);\n"
    "      if (AM_FAILS(x#, y#) && err == AM_NONE) err = (am_u64)i#;\n";

static void emit_compare(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  emit_operand(sb, 0, k->t0);
  emit_operand(sb, 1, k->t0);
  emit_scalar(sb, k->t0);
  am_sb_printf(sb,
               "typedef am_u32 TR;\n"
               "#define AM_APPLY(x, y) ((x) %s (y) ? 1u : 0u)\n"
               "#define AM_FAILS(x, y) false\n",
               compare_ops[k->op]);
  emit_args(sb, ptype(k->t0), ptype(k->t0), "am_u32");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, binary_body);
  emit_warp_loop(sb, unroll_for(k->t0, 1, 2), binary_load, NULL, binary_compute, 1);
}

static void emit_arith(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type t = k->t0;
  emit_operand(sb, 0, t);
  emit_operand(sb, 1, t);
  emit_scalar(sb, t);
  am_sb_puts(sb, "typedef T0 TR;\n");
  static const char *const sym[] = {"+", "-", "*", "/"};
  if (is_float(t)) {
    am_sb_printf(sb, "DEVFN T0 am_arith(T0 x, T0 y) { return x %s y; }\n", sym[k->op]);
    am_sb_puts(sb, "#define AM_FAILS(x, y) false\n");
  } else {
    /* Wrapping math in the unsigned type of at least 32 bits. */
    int bits = am_type_bits(t);
    const char *w = bits == 64 ? "am_u64" : "am_u32";
    if (k->op != AM_DIVIDE) {
      am_sb_printf(sb, "DEVFN T0 am_arith(T0 x, T0 y) { return (T0)((%s)x %s (%s)y); }\n", w,
                   sym[k->op], w);
      am_sb_puts(sb, "#define AM_FAILS(x, y) false\n");
    } else if (is_signed(t)) {
      /* Truncating division; MIN / -1 is 0 (as pyarrow.compute). */
      const char *s = bits == 64 ? "am_i64" : "am_i32";
      am_sb_printf(sb,
                   "DEVFN T0 am_arith(T0 x, T0 y) {\n"
                   "  if (y == 0) return 0;\n"
                   "  if (y == -1) return x == (T0)%s ? (T0)0 : (T0)(0 - (%s)x);\n"
                   "  return (T0)((%s)x / (%s)y);\n"
                   "}\n"
                   "#define AM_FAILS(x, y) ((y) == 0)\n",
                   imin(t), w, s, s);
    } else {
      am_sb_printf(
          sb,
          "DEVFN T0 am_arith(T0 x, T0 y) { return y == 0u ? (T0)0 : (T0)((%s)x / (%s)y); }\n"
          "#define AM_FAILS(x, y) ((y) == 0u)\n",
          w, w);
    }
  }
  am_sb_puts(sb, "#define AM_APPLY(x, y) am_arith(x, y)\n");
  emit_args(sb, ptype(t), ptype(t), ctype(t));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, binary_body);
  emit_lean_warp_loop(sb, unroll_for(t, 0, 2), binary_load, NULL, binary_compute, 0, binary_lean_if,
                      binary_lean_load, binary_lean_compute, NULL);
  am_sb_puts(sb, "  am_flush_error(a.status, err, am_lane);\n");
}

/* ---- UNARY: the op table's expressions, as kernel text */

/* The expression of op `op` for the kind of `t` (AM_UNARY_OPS's columns),
 * as the text the C preprocessor makes of it. */
static const char *unary_expression(int op, am_type t) {
  static const char *const text[][3] = {
#define TEXT(ID, NAME, KINDS, RULE, SIGNED, UNSIGNED, FLOAT, FS, FU, FF, CODE, MESSAGE) \
  [ID] = {#SIGNED, #UNSIGNED, #FLOAT},
      AM_UNARY_OPS(TEXT)
#undef TEXT
  };
  return text[op][is_signed(t) ? 0 : am_type_is_unsigned(t) ? 1 : 2];
}

static const char unary_load[] =
    "    bool ok# = false;\n"
    "    T0 x# = 0;\n"
    "    if (i# < n) {\n"
    "      ok# = !hv0 || am_bit(a.valid0, a.off0 + i#) != 0u;\n"
    "      x# = AM_LOAD0(i#);\n"
    "    }\n";

static const char unary_compute[] =
    "      TR r# = 0;\n"
    "      if (ok#) r# = am_unary(x#);\n"
    "      if (ok# && AM_FAILS(x#) && err == AM_NONE) err = (am_u64)i#;\n";

/* The same for a pass whose slots are all valid and below n. */
static const char unary_lean_load[] =
    "      const T0 x# = AM_LOAD0(base + # * stride + am_lane);\n";

static const char unary_lean_compute[] =
    "      a.out[base + # * stride + am_lane] = am_unary(x#);\n";

/* The check of op `op` for the kind of `t` (AM_UNARY_OPS's check columns). */
static const char *unary_check(int op, am_type t) {
  static const char *const text[][3] = {
#define TEXT(ID, NAME, KINDS, RULE, SIGNED, UNSIGNED, FLOAT, FS, FU, FF, CODE, MESSAGE) \
  [ID] = {#FS, #FU, #FF},
      AM_UNARY_OPS(TEXT)
#undef TEXT
  };
  return text[op][is_signed(t) ? 0 : am_type_is_unsigned(t) ? 1 : 2];
}

static void emit_unary(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type t = k->t0;
  emit_operand(sb, 0, t);
  /* The vocabulary of core/ops.h's expressions for this type. */
  am_sb_printf(sb,
               "typedef T0 TR;\n"
               "typedef T0 am_t;\n"
               "typedef %s am_u;\n"
               "#define AM_WRAP_NEG(x) ((am_t)((am_u)0 - (am_u)(x)))\n",
               is_float(t) ? ctype(t) : store(t));
  if (t == AM_FLOAT32)
    am_sb_puts(sb,
               "#define am_fabs(x) BITS_F32(F32_BITS(x) & 0x7fffffffu)\n"
               "#define am_fneg(x) BITS_F32(F32_BITS(x) ^ 0x80000000u)\n");
  else if (t == AM_FLOAT64)
    am_sb_puts(sb,
               "#define am_fabs(x) BITS_F64(F64_BITS(x) & (AM_NONE >> 1))\n"
               "#define am_fneg(x) BITS_F64(F64_BITS(x) ^ ~(AM_NONE >> 1))\n");
  if (is_float(t))
    am_dialect_math(sb, d, t);
  else
    am_sb_printf(sb, "#define am_lowest ((am_t)%s)\n",
                 is_signed(t) ? "((am_u)1 << (sizeof(am_t) * 8 - 1))" : "0");
  am_sb_printf(sb, "DEVFN T0 am_unary(T0 x) { return (T0)(%s); }\n", unary_expression(k->op, t));
  /* A checked op records its first refused slot (the status block's error
   * index); an unchecked one's check is the constant false. */
  am_sb_printf(sb, "#define AM_FAILS(x) (%s)\n", unary_check(k->op, t));
  emit_args(sb, ptype(t), "am_u8", ctype(t));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  am_u64 err = AM_NONE;\n"
             "  (void)err;\n");
  if (t == AM_BOOL)
    emit_warp_loop(sb, unary_unroll(k), unary_load, NULL, unary_compute, 0);
  else
    emit_lean_warp_loop(sb, unary_unroll(k), unary_load, NULL, unary_compute, 0,
                        "!hv0 && a.out_valid == 0", unary_lean_load, unary_lean_compute,
                        am_unary_check_of(k->op) ? "AM_FAILS(x#)" : NULL);
  if (am_unary_check_of(k->op)) am_sb_puts(sb, "  am_flush_error(a.status, err, am_lane);\n");
}

/* ---- BINARY: the op table's expressions of two operands, as kernel text */

/* The expression (column 0) or check (column 1) of binary op `op` for the
 * kind of `t` (AM_BINARY_OPS's columns). */
static const char *binary_text(int op, am_type t, int check) {
  static const char *const text[][2][3] = {
#define TEXT(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, C1, M1, C2, M2) \
  [ID] = {{#S, #U, #F}, {#FS, #FU, #FF}},
      AM_BINARY_OPS(TEXT)
#undef TEXT
  };
  return text[op][check][is_signed(t) ? 0 : am_type_is_unsigned(t) ? 1 : 2];
}

/* The integer vocabulary of AM_BINARY_OPS (core/ops.h) for am_t = T0. The
 * overflow tests compare against the bounds before computing, or divide the
 * wrapped product back, so no step overflows itself. */
static void emit_integer_vocabulary(am_sb *sb, am_type t) {
  int sig = is_signed(t);
  am_sb_printf(sb,
               "#define am_lowest ((am_t)%s)\n"
               "#define am_highest ((am_t)%s)\n"
               "#define am_precision %d\n"
               "#define AM_WRAP_ADD(x, y) ((am_t)((am_u)(x) + (am_u)(y)))\n"
               "#define AM_WRAP_SUB(x, y) ((am_t)((am_u)(x) - (am_u)(y)))\n"
               "#define AM_WRAP_MUL(x, y) ((am_t)(1u * (am_u)(x) * (am_u)(y)))\n"
               "#define AM_SHIFT_OK_S(y) ((y) >= 0 && (y) < am_precision)\n"
               "#define AM_SHIFT_OK_U(y) ((y) < am_precision)\n"
               "#define AM_SHL(x, y) ((am_t)((am_u)(x) << (y)))\n"
               "#define AM_SHR(x, y) ((am_t)((x) >> (y)))\n",
               imin(t), imax(t), am_type_bits(t) - sig);
  if (sig)
    am_sb_puts(sb,
               "DEVFN bool am_add_overflows(am_t x, am_t y) {\n"
               "  return y > 0 ? x > am_highest - y : x < am_lowest - y;\n"
               "}\n"
               "DEVFN bool am_sub_overflows(am_t x, am_t y) {\n"
               "  return y < 0 ? x > am_highest + y : x < am_lowest + y;\n"
               "}\n"
               "DEVFN bool am_mul_overflows(am_t x, am_t y) {\n"
               "  if (x == 0 || y == 0) return false;\n"
               "  if (x == (am_t)-1) return y == am_lowest;\n"
               "  if (y == (am_t)-1) return x == am_lowest;\n"
               "  return (am_t)(AM_WRAP_MUL(x, y) / y) != x;\n"
               "}\n");
  else
    am_sb_puts(
        sb,
        "DEVFN bool am_add_overflows(am_t x, am_t y) { return x > (am_t)(am_highest - y); }\n"
        "DEVFN bool am_sub_overflows(am_t x, am_t y) { return x < y; }\n"
        "DEVFN bool am_mul_overflows(am_t x, am_t y) {\n"
        "  return x != 0u && (am_t)(AM_WRAP_MUL(x, y) / x) != y;\n"
        "}\n");
  /* Powers by squaring; a negative exponent (refused) gives 0. */
  am_sb_printf(sb,
               "DEVFN am_t am_ipow(am_t x, am_t y) {\n"
               "%s"
               "  am_u r = 1u, b = (am_u)x, e = (am_u)y;\n"
               "  for (; e != 0u; e >>= 1) {\n"
               "    if ((e & 1u) != 0u) r = (am_u)(1u * r * b);\n"
               "    b = (am_u)(1u * b * b);\n"
               "  }\n"
               "  return (am_t)r;\n"
               "}\n"
               "DEVFN bool am_ipow_overflows(am_t x, am_t y) {\n"
               "%s"
               "  am_t r = 1, b = x;\n"
               "  for (am_u e = (am_u)y; e != 0u;) {\n"
               "    if ((e & 1u) != 0u) {\n"
               "      if (am_mul_overflows(r, b)) return true;\n"
               "      r = AM_WRAP_MUL(r, b);\n"
               "    }\n"
               "    e >>= 1;\n"
               "    if (e != 0u) {\n"
               "      if (am_mul_overflows(b, b)) return true;\n"
               "      b = AM_WRAP_MUL(b, b);\n"
               "    }\n"
               "  }\n"
               "  return false;\n"
               "}\n",
               sig ? "  if (y < 0) return 0;\n" : "", sig ? "  if (y < 0) return false;\n" : "");
}

/* A refused slot is reported as (n - 1 - slot) * 2 + (failure - 1): the
 * smallest report, which the status block keeps, is then the last refused
 * slot, as pyarrow reports (see cpu/binary.c), and says which failure it is.
 * A thread's slots increase, so its latest report is its last. */
static const char binop_compute[] =
    "      TR r# = 0;\n"
    "      if (ok#) r# = AM_APPLY(x#, y#);\n";
static const char binop_checked_compute[] =
    "      TR r# = 0;\n"
    "      if (ok#) r# = AM_APPLY(x#, y#);\n"
    "      const am_u32 k# = ok# ? (am_u32)(AM_FAILS(x#, y#)) : 0u;\n"
    "      if (k# != 0u) err = (am_u64)(n - 1 - i#) * 2u + (am_u64)(k# - 1u);\n";
static const char binop_lean_compute[] = "      a.out[i#] = AM_APPLY(x#, y#);\n";

static void emit_binary(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type t = k->t0;
  emit_operand(sb, 0, t);
  emit_operand(sb, 1, t);
  emit_scalar(sb, t);
  am_sb_printf(sb,
               "typedef T0 TR;\n"
               "typedef T0 am_t;\n"
               "typedef %s am_u;\n",
               is_float(t) ? ctype(t) : store(t));
  if (is_float(t))
    am_dialect_math(sb, d, t);
  else
    emit_integer_vocabulary(sb, t);
  if (d == AM_DIALECT_CUDA && t == AM_FLOAT64 && (k->op == AM_POWER || k->op == AM_POWER_CHECKED))
    am_dialect_pow64(sb);
  am_sb_printf(sb,
               "DEVFN T0 am_binary(T0 x, T0 y) { return (T0)(%s); }\n"
               "#define AM_APPLY(x, y) am_binary(x, y)\n"
               "#define AM_FAILS(x, y) (%s)\n",
               binary_text(k->op, t, 0), binary_text(k->op, t, 1));
  emit_args(sb, ptype(t), ptype(t), ctype(t));
  am_dialect_kernel_begin(sb, d, name);
  int checked = am_binary_check_of(k->op) != NULL;
  if (checked)
    am_sb_puts(sb, binary_body);
  else /* binary_body without the error slot, which nothing would read */
    am_sb_puts(sb,
               "  const bool hv0 = a.valid0 != 0;\n"
               "  const bool hv1 = a.valid1 != 0;\n"
               "  const bool sc = a.in1 == 0;\n"
               "  const T0 ys = AM_SCALAR;\n");
  emit_lean_warp_loop(sb, binary_unroll(k), binary_load, NULL,
                      checked ? binop_checked_compute : binop_compute, 0, binary_lean_if,
                      binary_lean_load, binop_lean_compute, checked ? "AM_FAILS(x#, y#)" : NULL);
  if (checked) am_sb_puts(sb, "  am_flush_error(a.status, err, am_lane);\n");
}

/* ---- CAST */

/* am_cast(v, fail): v (a T0) as a T1, setting *fail where a safe cast must
 * fail. Rules of am_scalar_cast (core/types.c) and the CPU backend. */
static void emit_cast_fn(am_sb *sb, am_type from, am_type to, int safe) {
  am_sb_puts(sb, "DEVFN T1 am_cast(T0 v, PRIV bool *fail) {\n  (void)fail;\n");
  if (from == to) {
    am_sb_puts(sb, "  return v;\n");
  } else if (from == AM_FLOAT16) {
    /* float16 bits (am_u16) widened exactly: core/float16.h */
    am_sb_puts(sb, to == AM_FLOAT32 ? "  return BITS_F32(am_f16_to_f32bits((am_u32)v));\n"
                                    : "  return BITS_F64(am_f16_to_f64bits((am_u32)v));\n");
  } else if (to == AM_FLOAT16) {
    /* rounded to float16 bits as pyarrow rounds: core/float16.h */
    am_sb_puts(sb, from == AM_FLOAT32 ? "  return (T1)am_f16_from_f32bits(F32_BITS(v));\n"
                                      : "  return (T1)am_f16_from_f64bits(F64_BITS(v));\n");
  } else if (to == AM_BOOL) {
    am_sb_printf(sb, "  return v != (T0)0 ? 1u : 0u;\n");
  } else if (from == AM_BOOL || (is_float(from) && is_float(to))) {
    am_sb_puts(sb, "  return (T1)v;\n");
  } else if (is_float(to)) {
    /* Integer to float: |v| beyond 2^24 / 2^53 does not fit exactly. */
    int mant = to == AM_FLOAT32 ? 24 : 53;
    int bits = am_type_bits(from);
    /* Largest magnitude of the source: 2^(bits-1) signed, 2^bits - 1 unsigned. */
    int can_exceed = is_signed(from) ? bits - 1 > mant : bits > mant;
    if (safe && can_exceed) {
      if (is_signed(from))
        am_sb_puts(
            sb,
            "  const am_u64 mag = v < 0 ? (am_u64)0 - (am_u64)(am_i64)v : (am_u64)(am_i64)v;\n");
      else
        am_sb_puts(sb, "  const am_u64 mag = (am_u64)v;\n");
      am_sb_printf(sb, "  if (mag > ((am_u64)1 << %d)) *fail = true;\n", mant);
    }
    am_sb_puts(sb, "  return (T1)v;\n");
  } else if (is_float(from)) {
    /* Float to integer. */
    const char *fs = fsuffix(from);
    if (safe) {
      am_sb_printf(sb,
                   "  if (!(v >= %s%s && v < %s%s)) {\n"
                   "    *fail = true;\n"
                   "    return 0;\n"
                   "  }\n",
                   flo(to), fs, fhi(to), fs);
      if (to == AM_UINT64)
        am_sb_puts(sb, "  const T1 r = (T1)v;\n");
      else
        am_sb_puts(sb, "  const T1 r = (T1)(am_i64)v;\n");
      am_sb_puts(sb, "  if ((T0)r != v) *fail = true;\n  return r;\n");
    } else {
      /* As the CPU backend: saturate into [lo, top] (top: the largest float
       * of the source's precision not above the target's maximum), NaN to
       * 0, then truncate. */
      int bits = am_type_bits(to), prec = from == AM_FLOAT32 ? 24 : 53;
      uint64_t hi = is_signed(to) ? ((uint64_t)1 << (bits - 1)) - 1
                    : bits == 64  ? UINT64_MAX
                                  : ((uint64_t)1 << bits) - 1;
      int width = 64 - __builtin_clzll(hi);
      uint64_t top = width > prec ? hi >> (width - prec) << (width - prec) : hi;
      long long lo = is_signed(to) ? -(long long)hi - 1 : 0;
      am_sb_printf(sb,
                   "  T0 c = v > %llu.0%s ? %llu.0%s : v;\n"
                   "  c = c < %lld.0%s ? %lld.0%s : c;\n"
                   "  return v == v ? (T1)c : (T1)0;\n",
                   (unsigned long long)top, fs, (unsigned long long)top, fs, lo, fs, lo, fs);
    }
  } else {
    /* Integer to integer: range check in 64 bits, then wrap. */
    int fb = am_type_bits(from), tb = am_type_bits(to);
    if (safe && is_signed(from)) {
      if (is_signed(to) && tb < fb)
        am_sb_printf(sb, "  if ((am_i64)v < (am_i64)%s || (am_i64)v > (am_i64)%s) *fail = true;\n",
                     imin(to), imax(to));
      else if (!is_signed(to) && tb < fb)
        am_sb_printf(sb, "  if (v < 0 || (am_i64)v > (am_i64)%s) *fail = true;\n", imax(to));
      else if (!is_signed(to))
        am_sb_puts(sb, "  if (v < 0) *fail = true;\n");
    } else if (safe && ((is_signed(to) && tb <= fb) || (!is_signed(to) && tb < fb))) {
      am_sb_printf(sb, "  if ((am_u64)v > (am_u64)%s) *fail = true;\n", imax(to));
    }
    am_sb_puts(sb, "  return (T1)v;\n");
  }
  am_sb_puts(sb, "}\n");
}

static void emit_cast(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  int bits_out = k->t1 == AM_BOOL;
  emit_operand(sb, 0, k->t0);
  am_sb_printf(sb, "typedef %s T1;\ntypedef T1 TR;\n", ctype(k->t1));
  if (k->t0 == AM_FLOAT16 || k->t1 == AM_FLOAT16) {
    am_sb_puts(sb, AM_FLOAT16_TEXT(AM_FLOAT16_DEFS));
    am_sb_puts(sb, "\n");
  }
  emit_cast_fn(sb, k->t0, k->t1, k->op != 0);
  emit_args(sb, ptype(k->t0), "am_u8", bits_out ? "am_u32" : ctype(k->t1));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  am_u64 err = AM_NONE;\n");
  emit_warp_loop(sb, unroll_for(k->t0, bits_out, 1),
                 "    bool ok# = false;\n"
                 "    T0 x# = 0;\n"
                 "    if (i# < n) {\n"
                 "      ok# = !hv0 || am_bit(a.valid0, a.off0 + i#) != 0u;\n"
                 "      x# = AM_LOAD0(i#);\n"
                 "    }\n",
                 NULL,
                 "      bool fail# = false;\n"
                 "      const TR c# = am_cast(x#, &fail#);\n"
                 "      const TR r# = ok# ? c# : (TR)0;\n"
                 "      if (ok# && fail# && err == AM_NONE) err = (am_u64)i#;\n",
                 bits_out);
  am_sb_puts(sb, "  am_flush_error(a.status, err, am_lane);\n");
}

/* ---- LOGIC, COUNT_NULLS (whole words) */

static const char word_loop[] =
    "  const am_i64 n = a.n;\n"
    "  const am_i64 nw = (n + 31) >> 5;\n"
    "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
    "  const am_i64 last0 = (a.off0 + n - 1) >> 3;\n"
    "  const bool hv0 = a.valid0 != 0;\n";

/* Each op's value and validity as expressions of the operands' value words
 * (x, y) and validity words (vx, vy), indexed by am_logic_op. The
 * propagating ops are valid where both operands are; a Kleene op also where
 * one valid operand decides the result (false for AND, true for OR; y's
 * complement for AND_NOT). Bits under a null are arbitrary, so each Kleene
 * term masks them with its own validity. */
static const struct {
  const char *value, *valid;
} logic_exprs[] = {
    [AM_LOGIC_AND] = {"((x) & (y))", "((vx) & (vy))"},
    [AM_LOGIC_OR] = {"((x) | (y))", "((vx) & (vy))"},
    [AM_LOGIC_NOT] = {"(~(x))", "(vx)"},
    [AM_LOGIC_AND_KLEENE] = {"((x) & (y))", "(((vx) & (vy)) | ((vx) & ~(x)) | ((vy) & ~(y)))"},
    [AM_LOGIC_OR_KLEENE] = {"(((x) & (vx)) | ((y) & (vy)))",
                            "(((vx) & (vy)) | ((vx) & (x)) | ((vy) & (y)))"},
    [AM_LOGIC_XOR] = {"((x) ^ (y))", "((vx) & (vy))"},
    [AM_LOGIC_AND_NOT] = {"((x) & ~(y))", "((vx) & (vy))"},
    [AM_LOGIC_AND_NOT_KLEENE] = {"((x) & ~(y))", "(((vx) & (vy)) | ((vx) & ~(x)) | ((vy) & (y)))"},
};

/* One operand may be a bool scalar (aux 1: the left, 2: the right): its
 * value (scalar) and validity (scalar_null) are the same word everywhere. */
static void emit_logic(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int binary = k->op != AM_LOGIC_NOT;
  am_sb_printf(sb,
               "#define AM_BINARY %d\n#define AM_LOGIC(x, vx, y, vy) %s\n"
               "#define AM_LOGIC_VALID(x, vx, y, vy) %s\n",
               binary, logic_exprs[k->op].value, logic_exprs[k->op].valid);
  emit_args(sb, "am_u8", "am_u8", "am_u32");
  /* Words 4q .. 4q + 3 of a bitmap as one 16-byte load (`has` false: all
   * valid). */
  am_sb_puts(sb,
             "DEVFN uint4 am_quad(GLOBAL const am_u8 *bm, am_i64 off, am_i64 q, bool has) {\n"
             "  if (has) return ((GLOBAL const uint4 *)(bm + (off >> 3)))[q];\n"
             "  uint4 r;\n"
             "  r.x = r.y = r.z = r.w = 0xffffffffu;\n"
             "  return r;\n"
             "}\n");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, word_loop);
  am_sb_puts(sb,
             "  const am_i64 last1 = (a.off1 + n - 1) >> 3;\n"
             "  const bool hv1 = AM_BINARY && a.valid1 != 0;\n"
             "  const bool s0 = a.aux == 1, s1 = a.aux == 2;\n"
             "  const am_u32 sx = a.scalar != 0u ? 0xffffffffu : 0u;\n"
             "  const am_u32 sv = a.scalar_null != 0 ? 0u : 0xffffffffu;\n"
             "  (void)last1;\n"
             "  (void)hv1;\n"
             "  (void)s1;\n"
             "  am_i64 first = 0;\n");
  /* Where the host found every bitmap 16-byte aligned (pad 2) and both
   * operands are arrays: the words before the last as quads, one 16-byte
   * load a bitmap; the loop below does the rest (the last 1 to 4 words). */
  am_sb_puts(sb,
             "  if (a.pad == 2 && !s0 && !s1) {\n"
             "    const am_i64 nq = nw > 1 ? (nw - 1) >> 2 : 0;\n"
             "    for (am_i64 q = (am_i64)am_bid * AM_BLOCK + am_tid; q < nq; q += stride) {\n"
             "      const uint4 x = am_quad(a.in0, a.off0, q, true);\n"
             "      const uint4 vx = am_quad(a.valid0, a.off0, q, hv0);\n");
  if (binary)
    am_sb_puts(sb,
               "      const uint4 y = am_quad(a.in1, a.off1, q, true);\n"
               "      const uint4 vy = am_quad(a.valid1, a.off1, q, hv1);\n");
  am_sb_puts(sb, "      uint4 r, v;\n");
  for (const char *c = "xyzw"; *c; c++) {
    char y_c[32];
    if (binary)
      snprintf(y_c, sizeof y_c, "y.%c, vy.%c", *c, *c);
    else
      snprintf(y_c, sizeof y_c, "0u, 0xffffffffu");
    am_sb_printf(sb,
                 "      v.%c = AM_LOGIC_VALID(x.%c, vx.%c, %s);\n"
                 "      r.%c = AM_LOGIC(x.%c, vx.%c, %s) & v.%c;\n",
                 *c, *c, *c, y_c, *c, *c, *c, y_c, *c);
  }
  am_sb_puts(sb,
             "      ((GLOBAL uint4 *)a.out)[q] = r;\n"
             "      if (a.out_valid != 0) ((GLOBAL uint4 *)a.out_valid)[q] = v;\n"
             "    }\n"
             "    first = nq * 4;\n"
             "  }\n");
  am_sb_printf(sb,
               "  for (am_i64 wb = first + (am_i64)am_bid * AM_BLOCK + am_tid; wb < nw; wb += %d * "
               "stride) {\n",
               AM_KS_BITMAP_WORDS);
  for (int j = 0; j < AM_KS_BITMAP_WORDS; j++) {
    emit_k(sb,
           "    const am_i64 w# = wb + # * stride;\n"
           "    am_u32 x# = 0u, vx# = 0u;\n",
           j);
    if (binary) emit_k(sb, "    am_u32 y# = 0u, vy# = 0u;\n", j);
    emit_k(sb,
           "    if (w# < nw) {\n"
           "      const bool whole = a.pad != 0 && w# + 1 < nw;\n"
           "      x# = s0 ? sx : am_word32(a.in0, a.off0, w#, last0, whole);\n"
           "      vx# = s0 ? sv : hv0 ? am_word32(a.valid0, a.off0, w#, last0, whole) : "
           "0xffffffffu;\n",
           j);
    if (binary)
      emit_k(sb,
             "      y# = s1 ? sx : am_word32(a.in1, a.off1, w#, last1, whole);\n"
             "      vy# = s1 ? sv : hv1 ? am_word32(a.valid1, a.off1, w#, last1, whole) : "
             "0xffffffffu;\n",
             j);
    am_sb_puts(sb, "    }\n");
  }
  /* NOT reads one operand: its y and vy are the constants. */
  const char *y = binary ? "y#, vy#" : "0u, 0xffffffffu";
  char store[512];
  snprintf(store, sizeof store,
           "    if (w# < nw) {\n"
           "      const am_u32 v# = AM_LOGIC_VALID(x#, vx#, %s) & am_tail_mask(n, w#);\n"
           "      a.out[w#] = AM_LOGIC(x#, vx#, %s) & v#;\n"
           "      if (a.out_valid != 0) a.out_valid[w#] = v#;\n"
           "    }\n",
           y, y);
  for (int j = 0; j < AM_KS_BITMAP_WORDS; j++) emit_k(sb, store, j);
  am_sb_puts(sb, "  }\n");
}

static void emit_count_nulls(am_sb *sb, am_dialect d, const char *name) {
  emit_args(sb, "am_u8", "am_u8", "am_u8");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, "  SMEM am_u64 am_sh[AM_BLOCK / 32u];\n");
  am_sb_puts(sb, word_loop);
  am_sb_puts(sb,
             "  if (!hv0) return;\n"
             "  am_u64 nulls = 0u;\n"
             "  for (am_i64 w = (am_i64)am_bid * AM_BLOCK + am_tid; w < nw; w += stride) {\n"
             "    const am_u32 m = am_tail_mask(n, w);\n"
             "    nulls += POPC(~am_bits32(a.valid0, a.off0 + w * 32, last0) & m);\n"
             "  }\n"
             "  nulls = am_block_sum_u64(nulls, am_sh, am_lane, am_warp);\n"
             "  if (am_tid == 0u && nulls != 0u) am_status_add_count(a.status, nulls);\n");
}

/* ---- FILTER */

/* The block's slot range, shared by FILTER_COUNT and FILTER_SCATTER. */
static const char filter_range[] =
    "  const am_i64 n = a.n;\n"
    "  const am_i64 nb = (am_i64)am_nblocks;\n"
    "  const am_i64 per = ((n + nb - 1) / nb + AM_BLOCK - 1) / AM_BLOCK * AM_BLOCK;\n"
    "  const am_i64 start = (am_i64)am_bid * per;\n"
    "  const am_i64 end = start + per < n ? start + per : n;\n"
    "  const bool hv1 = a.valid1 != 0;\n";

/* FILTER_COUNT and FILTER_SCATTER with op AM_NULL_EMIT (emit_null) also keep
 * the slots whose mask is null, as nulls. */
static void emit_filter_count(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_sb_printf(sb, "#define AM_COUNTER_WORD %uu\n", (unsigned)(AM_GPU_SCRATCH_COUNTER / 4));
  emit_args(sb, "am_u8", "am_u8", "am_u8");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, "  SMEM am_u64 am_sh[AM_BLOCK / 32u];\n");
  am_sb_puts(sb, filter_range);
  am_sb_puts(sb,
             "  const am_i64 last1 = (a.off1 + n - 1) >> 3;\n"
             "  am_u64 cnt = 0u;\n"
             "  // start is a multiple of 32: whole 32-slot words of the mask.\n"
             "  for (am_i64 s = start + (am_i64)am_tid * 32; s < end; s += AM_BLOCK * 32) {\n"
             "    am_u32 m = am_bits32(a.in1, a.off1 + s, last1);\n");
  am_sb_printf(sb, "    if (hv1) m %s am_bits32(a.valid1, a.off1 + s, last1);\n",
               k->op == AM_NULL_EMIT ? "|= ~" : "&=");
  am_sb_puts(sb,
             "    if (end - s < 32) m &= (1u << (am_u32)(end - s)) - 1u;\n"
             "    cnt += POPC(m);\n"
             "  }\n"
             "  cnt = am_block_sum_u64(cnt, am_sh, am_lane, am_warp);\n"
             "  if (am_tid == 0u) {\n"
             "    am_partial_store(a.scratch, 4u * am_bid + 2u, cnt);\n"
             "    // The block count, for FILTER_SCAN (the word after the counter).\n"
             "    if (am_bid == 0u) ATOMIC_STORE32(a.scratch + AM_COUNTER_WORD + 1u, am_nblocks);\n"
             "  }\n");
}

static void emit_filter_scan(am_sb *sb, am_dialect d, const char *name) {
  am_sb_printf(sb, "#define AM_COUNTER_WORD %uu\n#define AM_MAX_BLOCKS %uu\n",
               (unsigned)(AM_GPU_SCRATCH_COUNTER / 4), (unsigned)AM_GPU_MAX_BLOCKS);
  emit_args(sb, "am_u8", "am_u8", "am_u8");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  SMEM am_u64 am_sh[AM_BLOCK];\n"
             "  am_u32 nb = ATOMIC_LOAD32(a.scratch + AM_COUNTER_WORD + 1u);\n"
             "  if (nb > AM_MAX_BLOCKS) nb = AM_MAX_BLOCKS;\n"
             "  const am_u32 per = (nb + AM_BLOCK - 1u) / AM_BLOCK;\n"
             "  am_u64 own = 0u;\n"
             "  for (am_u32 k = 0; k < per; k++) {\n"
             "    const am_u32 b = am_tid * per + k;\n"
             "    if (b < nb) own += am_partial_load(a.scratch, 4u * b + 2u);\n"
             "  }\n"
             "  am_sh[am_tid] = own;\n"
             "  BARRIER();\n"
             "  for (am_u32 d = 1u; d < AM_BLOCK; d <<= 1) {\n"
             "    const am_u64 add = am_tid >= d ? am_sh[am_tid - d] : (am_u64)0;\n"
             "    BARRIER();\n"
             "    am_sh[am_tid] += add;\n"
             "    BARRIER();\n"
             "  }\n"
             "  am_u64 run = am_sh[am_tid] - own;\n"
             "  for (am_u32 k = 0; k < per; k++) {\n"
             "    const am_u32 b = am_tid * per + k;\n"
             "    if (b < nb) {\n"
             "      const am_u64 c = am_partial_load(a.scratch, 4u * b + 2u);\n"
             "      am_partial_store(a.scratch, 4u * b + 2u, run);\n"
             "      run += c;\n"
             "    }\n"
             "  }\n"
             "  if (am_tid == AM_BLOCK - 1u) a.status[1] = am_sh[AM_BLOCK - 1u];\n");
}

/* Sub-tiles of AM_BLOCK slots per pass of FILTER_SCATTER: one warp count
 * per sub-tile and warp, so that the counts fill one warp exactly. */
#define SUBTILES 4
_Static_assert(SUBTILES *(AM_GPU_BLOCK / 32) == 32, "filter counts must fill one warp");

static void emit_filter_scatter(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  int bits = k->t0 == AM_BOOL;
  emit_args(sb, store(k->t0), "am_u8", bits ? "am_u32" : store(k->t0));
  am_sb_printf(sb, "typedef %s TV;\n#define AM_SUB %du\n", bits ? "am_u32" : store(k->t0),
               SUBTILES);
  if (k->op == AM_FILTER_POSITIONS)
    am_sb_puts(sb, "#define AM_GET(i) ((TV)(i))\n");
  else if (bits)
    am_sb_puts(sb, "#define AM_GET(i) am_bit(a.in0, a.off0 + (i))\n");
  else
    am_sb_puts(sb, "#define AM_GET(i) a.in0[a.off0 + (i)]\n");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, "  SMEM am_u32 am_wc[2u * AM_SUB * (AM_BLOCK / 32u)];\n");
  am_sb_puts(sb, filter_range);
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  const bool wv = a.out_valid != 0;\n"
             "  // This block's first output position (FILTER_SCAN's exclusive scan).\n"
             "  am_u64 base = am_partial_load(a.scratch, 4u * am_bid + 2u);\n"
             "  am_u32 par = 0u;\n"
             "  // Passes of AM_SUB sub-tiles; sub-tile s holds slots t + s * AM_BLOCK + tid,\n"
             "  // in output order (sub-tile, then warp, then lane).\n"
             "  for (am_i64 t = start; t < end; t += AM_SUB * AM_BLOCK) {\n");
  static const char *const per_sub[] = {
      "    const am_i64 i# = t + # * AM_BLOCK + am_tid;\n"
      "    const bool keep# = i# < end && am_bit(a.in1, a.off1 + i#) != 0u &&\n"
      "                       (!hv1 || am_bit(a.valid1, a.off1 + i#) != 0u);\n",
      "    const TV v# = keep# ? AM_GET(i#) : (TV)0;\n"
      "    const bool g# = keep# && (!hv0 || am_bit(a.valid0, a.off0 + i#) != 0u);\n"
      "    const am_u32 kb# = BALLOT(keep#);\n",
  };
  /* emit_null: a null mask slot is kept, and its result slot is null. */
  static const char *const per_sub_emit[] = {
      "    const am_i64 i# = t + # * AM_BLOCK + am_tid;\n"
      "    const bool mv# = i# >= end || !hv1 || am_bit(a.valid1, a.off1 + i#) != 0u;\n"
      "    const bool keep# = i# < end && (!mv# || am_bit(a.in1, a.off1 + i#) != 0u);\n",
      "    const TV v# = keep# ? AM_GET(i#) : (TV)0;\n"
      "    const bool g# = keep# && mv# && (!hv0 || am_bit(a.valid0, a.off0 + i#) != 0u);\n"
      "    const am_u32 kb# = BALLOT(keep#);\n",
  };
  const char *const *subs = k->op == AM_NULL_EMIT ? per_sub_emit : per_sub;
  for (int p = 0; p < 2; p++)
    for (int j = 0; j < SUBTILES; j++) emit_k(sb, subs[p], j);
  am_sb_puts(sb,
             "    // Warp counts, in two alternating buffers: one barrier per pass.\n"
             "    if (am_lane == 0u) {\n");
  for (int j = 0; j < SUBTILES; j++)
    emit_k(sb, "      am_wc[(par * AM_SUB + #u) * (AM_BLOCK / 32u) + am_warp] = POPC(kb#);\n", j);
  am_sb_puts(sb,
             "    }\n"
             "    BARRIER();\n"
             "    // The AM_SUB * warps counts are one per lane: a warp scan gives each\n"
             "    // sub-tile's offset and the pass's total.\n"
             "    const am_u32 c = am_wc[par * AM_SUB * (AM_BLOCK / 32u) + am_lane];\n"
             "    am_u32 inc = c;\n"
             "    for (am_u32 d = 1u; d < 32u; d <<= 1) {\n"
             "      const am_u32 o = SHFL_UP(inc, d);\n"
             "      if (am_lane >= d) inc += o;\n"
             "    }\n"
             "    const am_u32 exc = inc - c;\n"
             "    const am_u32 run = SHFL_IDX(inc, 31u);\n");
  for (int j = 0; j < SUBTILES; j++)
    emit_k(sb, "    const am_u32 b# = SHFL_IDX(exc, #u * (AM_BLOCK / 32u) + am_warp);\n", j);
  for (int j = 0; j < SUBTILES; j++) {
    emit_k(sb,
           "    {\n"
           "      const am_u32 rank = POPC(kb# & ((1u << am_lane) - 1u));\n"
           "      const am_u64 p0 = base + b#;\n",
           j);
    if (bits)
      emit_k(sb,
             "      const am_u32 w = am_warp_or(v# != 0u ? 1u << rank : 0u);\n"
             "      if (am_lane == 0u) am_or_bits(a.out, p0, w);\n",
             j);
    else
      emit_k(sb, "      if (keep#) a.out[p0 + rank] = v#;\n", j);
    emit_k(sb,
           "      if (wv) {\n"
           "        const am_u32 o = am_warp_or(g# ? 1u << rank : 0u);\n"
           "        if (am_lane == 0u) am_or_bits(a.out_valid, p0, o);\n"
           "      }\n"
           "    }\n",
           j);
  }
  am_sb_puts(sb,
             "    base += run;\n"
             "    par ^= 1u;\n"
             "  }\n");
}

/* ---- TAKE, FILL */

static void emit_take(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  int bits = k->t0 == AM_BOOL;
  am_sb_printf(sb, "typedef %s TR;\n", bits ? "am_u32" : store(k->t0));
  if (bits)
    am_sb_puts(sb, "#define AM_GET(j) am_bit(a.in0, a.off0 + (j))\n");
  else
    am_sb_puts(sb, "#define AM_GET(j) a.in0[a.off0 + (j)]\n");
  emit_args(sb, store(k->t0), ctype(k->t1), bits ? "am_u32" : store(k->t0));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  const bool hv1 = a.valid1 != 0;\n"
             "  am_u64 err = AM_NONE;\n");
  emit_warp_loop(sb, unroll_for(k->t0, bits, 2),
                 "    bool ok# = false;\n"
                 "    am_i64 j# = 0;\n"
                 "    if (i# < n && (!hv1 || am_bit(a.valid1, a.off1 + i#) != 0u)) {\n"
                 "      j# = (am_i64)a.in1[a.off1 + i#];\n"
                 "      if (j# < 0 || j# >= a.aux) {\n"
                 "        if (err == AM_NONE) err = (am_u64)i#;\n"
                 "      } else {\n"
                 "        ok# = true;\n"
                 "      }\n"
                 "    }\n",
                 "    TR r# = 0;\n"
                 "    if (ok#) {\n"
                 "      const bool sv# = !hv0 || am_bit(a.valid0, a.off0 + j#) != 0u;\n"
                 "      const TR g# = AM_GET(j#);\n"
                 "      ok# = sv#;\n"
                 "      r# = sv# ? g# : (TR)0;\n"
                 "    }\n",
                 "", bits);
  am_sb_puts(sb, "  am_flush_error(a.status, err, am_lane);\n");
}

static void emit_fill(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_type t = k->t0;
  int bits = t == AM_BOOL;
  if (bits)
    am_sb_puts(sb, "#define AM_VALUE (a.scalar != 0u ? 0xffffffffu : 0u)\n");
  else if (t == AM_FLOAT32)
    am_sb_puts(sb, "#define AM_VALUE F32_BITS(AM_F64BITS_TO_F32(a.scalar))\n");
  else
    am_sb_printf(sb, "#define AM_VALUE ((%s)a.scalar)\n", store(t));
  emit_args(sb, "am_u8", "am_u8", bits ? "am_u32" : store(t));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  const am_i64 n = a.n;\n"
             "  const am_i64 nw = (n + 31) >> 5;\n"
             "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
             "  const am_i64 g = (am_i64)am_bid * AM_BLOCK + am_tid;\n");
  if (bits)
    am_sb_puts(sb,
               "  const am_u32 v = AM_VALUE;\n"
               "  for (am_i64 w = g; w < nw; w += stride) {\n"
               "    const am_u32 m = am_tail_mask(n, w);\n"
               "    a.out[w] = v & m;\n"
               "    if (a.out_valid != 0) a.out_valid[w] = m;\n"
               "  }\n");
  else
    am_sb_printf(
        sb,
        "  const %s v = AM_VALUE;\n"
        "  for (am_i64 i = g; i < n; i += stride) a.out[i] = v;\n"
        "  if (a.out_valid != 0)\n"
        "    for (am_i64 w = g; w < nw; w += stride) a.out_valid[w] = am_tail_mask(n, w);\n",
        store(t));
}

/* ---- COPY */

static void emit_copy(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  int bits = k->t0 == AM_BOOL;
  emit_args(sb, store(k->t0), "am_u8", bits ? "am_u32" : store(k->t0));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  const am_i64 n = a.n;\n"
             "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
             "  const bool hv = a.valid0 != 0;\n"
             "  // Warps take whole 32-slot groups, so each ballot is one aligned run of\n"
             "  // 32 output bits (at most two output words, ORed in).\n"
             "  for (am_i64 base = (am_i64)am_bid * AM_BLOCK + am_warp * 32u; base < n;\n"
             "       base += stride) {\n"
             "    const am_i64 i = base + am_lane;\n"
             "    const bool in = i < n;\n"
             "    const bool ok = in && (!hv || am_bit(a.valid0, a.off0 + i) != 0u);\n"
             "    const am_u64 p = (am_u64)(a.aux + base);\n");
  if (bits)
    am_sb_puts(sb,
               "    const am_u32 w = BALLOT(in && am_bit(a.in0, a.off0 + i) != 0u);\n"
               "    if (am_lane == 0u && w != 0u) am_or_bits(a.out, p, w);\n");
  else
    am_sb_puts(sb, "    if (in) a.out[a.aux + i] = a.in0[a.off0 + i];\n");
  am_sb_puts(
      sb,
      "    const am_u32 v = BALLOT(ok);\n"
      "    if (am_lane == 0u && a.out_valid != 0 && v != 0u) am_or_bits(a.out_valid, p, v);\n"
      "  }\n");
}

/* ---- Source */

int am_kernel_source(am_err *err, am_dialect dialect, const am_kernel_key *key, char **source) {
  if (!key || !source) return am_fail(err, AM_EINVAL, "am_kernel_source: NULL argument");
  if (dialect != AM_DIALECT_CUDA && dialect != AM_DIALECT_MSL)
    return am_fail(err, AM_EINVAL, "unknown GPU dialect %d", (int)dialect);
  if (!key_ok(key))
    return am_fail(err, AM_ETYPE, "no GPU kernel for kind %d op %d types %s, %s", (int)key->kind,
                   key->op, am_type_name(key->t0), am_type_name(key->t1));
  char name[64];
  am_kernel_name(key, name, sizeof name);
  if (!am_kernel_supported(dialect, key))
    return am_fail(err, AM_EUNSUPPORTED, "%s: a type it uses is not available in %s", name,
                   am_dialect_name(dialect));
  am_sb sb;
  am_sb_init(&sb);
  am_sb_printf(&sb, "// %s: ArrowMetal GPU kernel (libarrowmetal/gpu), generated.\n", name);
  am_dialect_preamble(&sb, dialect);
  am_sb_puts(&sb, common_helpers);
  switch (key->kind) {
    case AM_KERNEL_REDUCE:
      emit_reduce(&sb, dialect, key, name);
      break;
    case AM_KERNEL_COMPARE:
      emit_compare(&sb, dialect, key, name);
      break;
    case AM_KERNEL_ARITH:
      emit_arith(&sb, dialect, key, name);
      break;
    case AM_KERNEL_CAST:
      emit_cast(&sb, dialect, key, name);
      break;
    case AM_KERNEL_LOGIC:
      emit_logic(&sb, dialect, key, name);
      break;
    case AM_KERNEL_FILTER_COUNT:
      emit_filter_count(&sb, dialect, key, name);
      break;
    case AM_KERNEL_FILTER_SCAN:
      emit_filter_scan(&sb, dialect, name);
      break;
    case AM_KERNEL_FILTER_SCATTER:
      emit_filter_scatter(&sb, dialect, key, name);
      break;
    case AM_KERNEL_TAKE:
      emit_take(&sb, dialect, key, name);
      break;
    case AM_KERNEL_FILL:
      emit_fill(&sb, dialect, key, name);
      break;
    case AM_KERNEL_COUNT_NULLS:
      emit_count_nulls(&sb, dialect, name);
      break;
    case AM_KERNEL_COPY:
      emit_copy(&sb, dialect, key, name);
      break;
    case AM_KERNEL_UNARY:
      emit_unary(&sb, dialect, key, name);
      break;
    case AM_KERNEL_BINARY:
      emit_binary(&sb, dialect, key, name);
      break;
    case AM_KERNEL_AGGREGATE:
      am_ks_emit_aggregate(&sb, dialect, key, name);
      break;
      AM_KS_NULLS_CASES /* null handling */
          am_ks_nulls_emit(&sb, dialect, key, name);
      break;
      AM_KS_ROUND_CASES
      am_ks_round_emit(&sb, dialect, key, name);
      break;
      AM_KS_TEMPORAL_CASES
      am_ks_temporal_emit(&sb, dialect, key, name);
      break;
      AM_KS_STRINGS_CASES
      am_ks_strings_emit(&sb, dialect, key, name);
      break;
      AM_KS_SELECT_CASES /* quantiles */
          am_ks_select_emit(&sb, dialect, key, name);
      break;
      AM_KS_CUMULATIVE_CASES
      am_ks_cumulative_emit(&sb, dialect, key, name);
      break;
      AM_KS_HASH_CASES /* hash-based functions */
          am_ks_hash_emit(&sb, dialect, key, name);
      break;
      AM_KS_SORT_CASES /* sort_indices */
          am_ks_sort_emit(&sb, dialect, key, name);
      break;
      AM_KS_GROUPBY_CASES /* group-by and joins */
          am_ks_groupby_emit(&sb, dialect, key, name);
      break;
    case AM_KERNEL_RESIDENT_WORKER:
      am_ks_resident_emit(&sb, dialect, key, name);
      break;
  }
  am_sb_puts(&sb, "}\n");
  char *text = am_sb_finish(&sb);
  if (!text) return am_fail(err, AM_ENOMEM, "out of memory building the source of %s", name);
  *source = text;
  return AM_OK;
}

/* ---- Shared with kernel_source_aggregate.c (kernel_source_shared.h) */

const char *const am_ks_reduce_head = reduce_head;
const char *const am_ks_reduce_tail = reduce_tail;
const char *const am_ks_reduce_shared = reduce_shared;
const char *const am_ks_reduce_locals = reduce_locals;
const char *const am_ks_reduce_combine = reduce_combine;

void am_ks_emit_operand(am_sb *sb, int idx, am_type t) { emit_operand(sb, idx, t); }
void am_ks_emit_args(am_sb *sb, const char *in0, const char *in1, const char *out) {
  emit_args(sb, in0, in1, out);
}
void am_ks_emit_scalar(am_sb *sb, am_type t) { emit_scalar(sb, t); }
void am_ks_emit_reduce_loop(am_sb *sb, am_type t, int unroll) { emit_reduce_loop(sb, t, unroll); }

void am_ks_emit_namespace(am_sb *sb, const char *ns, const char *text) {
  am_sb_printf(sb, "namespace %s {\n", ns);
  am_sb_puts(sb, text);
  am_sb_puts(sb, "}\n");
  for (const char *p = text; (p = strstr(p, "#define ")) != NULL; p += 8) {
    if (p != text && p[-1] != '\n') continue;
    const char *macro = p + 8;
    am_sb_printf(sb, "#undef %.*s\n", (int)strcspn(macro, " (\n"), macro);
  }
}

void am_ks_emit_reduce_class(am_sb *sb, am_dialect d, am_reduce_op op, am_type t) {
  emit_reduce_class(sb, d, op, t);
}
void am_ks_emit_k(am_sb *sb, const char *tmpl, int k) { emit_k(sb, tmpl, k); }
const char *am_ks_imin(am_type t) { return imin(t); }
const char *am_ks_imax(am_type t) { return imax(t); }
const char *am_ks_ptype(am_type t) { return ptype(t); }
/* ---- The pieces of text the other kernel source files build with
 * (kernel_source_emit.h) */

const char *am_ks_ctype(am_type t) { return ctype(t); }
const char *am_ks_store(am_type t) { return store(t); }
void am_ks_args(am_sb *sb, const char *in0, const char *in1, const char *out) {
  emit_args(sb, in0, in1, out);
}
void am_ks_smem_add(am_sb *sb, am_dialect d) {
  if (d == AM_DIALECT_MSL)
    am_sb_puts(sb,
               "#define SMEM_ADD32(p, v) \\\n"
               "  atomic_fetch_add_explicit((threadgroup atomic_uint *)(p), (v), "
               "memory_order_relaxed)\n");
  else
    am_sb_puts(sb, "#define SMEM_ADD32(p, v) atomicAdd((p), (v))\n");
}
void am_ks_operand(am_sb *sb, int idx, am_type t) { emit_operand(sb, idx, t); }
void am_ks_scalar(am_sb *sb, am_type t) { emit_scalar(sb, t); }
void am_ks_k(am_sb *sb, const char *tmpl, int k) { emit_k(sb, tmpl, k); }
int am_ks_unroll(am_type in, int bits_out) { return unroll_for(in, bits_out, 2); }
void am_ks_warp_loop(am_sb *sb, int unroll, const char *load, const char *gather,
                     const char *compute, int bits_out) {
  emit_warp_loop(sb, unroll, load, gather, compute, bits_out);
}
void am_ks_lean_warp_loop(am_sb *sb, int unroll, const char *load, const char *compute,
                          const char *lean_if, const char *lean_load, const char *lean_compute) {
  emit_lean_warp_loop(sb, unroll, load, NULL, compute, 0, lean_if, lean_load, lean_compute, NULL);
}
const char *const am_ks_word_loop = word_loop;
void am_ks_integer_vocabulary(am_sb *sb, am_type t) { emit_integer_vocabulary(sb, t); } /* round */
