/* The GPU kernels of sort_indices (kernels.h: AM_KERNEL_SORT_*), written
 * once for CUDA and MSL on kernel_source.c's pieces (kernel_source_emit.h).
 *
 * A stable LSD radix sort of (order key, row) pairs, eight bits a pass, as
 * cpu/sort.c sorts: per key column (the last first), SORT_KEYS gathers each
 * position's order key from its row (core/quantile.h's key in the type's
 * own width, -0.0 read as 0.0, inverted for descending; NaN and null rows
 * get key 0) and ORs the keys and their complements into two words, so the
 * host sees which bytes vary among the numbers and whether any row is NaN
 * or null. Each byte that varies is then one pass of three launches:
 *   SORT_COUNT:   block b counts the digits of its tile (a contiguous run of
 *                 positions) in shared memory -> counts[d * blocks + b];
 *   SORT_SCAN:    one block: the exclusive scan of those counts, digit-major
 *                 and block-minor, in place: each (digit, block)'s first
 *                 output position;
 *   SORT_SCATTER: each block walks its tile in order, AM_BLOCK positions at
 *                 a time; a position's place among the equal digits of its
 *                 warp comes from eight ballots (the lanes whose digit
 *                 matches, counted below the lane), the warps' counts per
 *                 digit are scanned in shared memory, and the block's
 *                 running position per digit advances after each round. So
 *                 equal digits keep their order: the pass is stable.
 * A last pass over the classes (numbers, NaN, null; or null, NaN, numbers
 * with nulls at the start) runs the same three kinds with the class as the
 * digit, read from the row, when the column has NaN or nulls.
 *
 * Every barrier is reached by every thread (tile bounds are uniform in a
 * block), shared memory is written before it is read, and the ballots run
 * with all 32 lanes (lanes past the tile vote with no digit). Counts and
 * positions are 32-bit: fewer than 2^32 - 1 rows (the host checks).
 *
 * Buffers (am_gpu_args): scratch = the sort's own u32 words (AM_SORT_HEAD
 * header words, then 256 counts a block); in0/valid0/off0 = the column
 * (SORT_KEYS and the class pass) or the keys being sorted (am_u64); in1 =
 * the rows (am_u64) in position order; out = the keys' next buffer;
 * out_valid = the rows' next buffer (am_u64 behind the u32 pointer). */
#include <stdio.h>

#include "arrowmetal.h"
#include "core/types.h"
#include "gpu/kernel_source_emit.h"

int am_ks_sort_kind(am_kernel_kind kind) {
  switch (kind) {
    AM_KS_SORT_CASES
    return 1;
    default:
      return 0;
  }
}

/* The pass of a COUNT or SCATTER key: a byte (0 to 7) or the class pass. */
static int is_class_pass(const am_kernel_key *k) { return k->op >= AM_SORT_CLASS_PASS; }

int am_ks_sort_key_ok(const am_kernel_key *k) {
  const int typed = am_type_valid((int)k->t0) && k->t0 <= AM_FLOAT64;
  switch (k->kind) {
    case AM_KERNEL_SORT_KEYS:
      return (k->op & ~3) == 0 && typed;
    case AM_KERNEL_SORT_SCAN:
      return k->op == 0 && k->t0 == AM_TYPE_INVALID;
    case AM_KERNEL_SORT_COUNT:
    case AM_KERNEL_SORT_SCATTER:
      if (k->op >= 0 && k->op < 8) return k->t0 == AM_TYPE_INVALID;
      return (k->op == AM_SORT_CLASS_PASS || k->op == AM_SORT_CLASS_PASS + 1) && typed;
    default:
      return 0;
  }
}

void am_ks_sort_name(const am_kernel_key *key, char *name, size_t capacity) {
  const char *label = am_type_valid((int)key->t0) ? am_type_label(key->t0) : "";
  const char *kind = key->kind == AM_KERNEL_SORT_COUNT ? "count" : "scatter";
  switch (key->kind) {
    case AM_KERNEL_SORT_KEYS:
      snprintf(name, capacity, "am_sort_keys_%s%s%s", label, key->op & 1 ? "_desc" : "",
               key->op & 2 ? "_first" : "");
      break;
    case AM_KERNEL_SORT_SCAN:
      snprintf(name, capacity, "am_sort_scan");
      break;
    default:
      if (is_class_pass(key))
        snprintf(name, capacity, "am_sort_%s_class_%s%s", kind, label,
                 key->op == AM_SORT_CLASS_PASS + 1 ? "_nulls_first" : "");
      else
        snprintf(name, capacity, "am_sort_%s_byte%d", kind, key->op);
      break;
  }
}

int64_t am_sort_blocks(int64_t n) {
  int64_t blocks = (n + AM_SORT_TILE - 1) / AM_SORT_TILE;
  if (blocks > AM_GPU_MAX_BLOCKS) blocks = AM_GPU_MAX_BLOCKS;
  return blocks < 1 ? 1 : blocks;
}

int64_t am_ks_sort_blocks(const am_kernel_key *key, int64_t n, int multiprocessors) {
  (void)multiprocessors;
  if (key->kind == AM_KERNEL_SORT_SCAN) return 1;
  if (key->kind == AM_KERNEL_SORT_KEYS) {
    const int64_t blocks = (n + AM_GPU_BLOCK * 4 - 1) / (AM_GPU_BLOCK * 4);
    return blocks < 1 ? 1 : blocks;
  }
  return am_sort_blocks(n); /* COUNT and SCATTER: one tile a block */
}

/* The tile of this block, [begin, end): as am_sort_blocks splits n. */
static void emit_tile(am_sb *sb) {
  am_sb_printf(sb,
               "  const am_i64 n = a.n;\n"
               "  am_i64 nb = (n + %d) / %d;\n"
               "  if (nb > %d) nb = %d;\n"
               "  if (nb < 1) nb = 1;\n"
               "  const am_i64 per = ((n + nb - 1) / nb + AM_BLOCK - 1) / AM_BLOCK * AM_BLOCK;\n"
               "  am_i64 begin = (am_i64)am_bid * per;\n"
               "  if (begin > n) begin = n;\n"
               "  const am_i64 end = begin + per < n ? begin + per : n;\n"
               "  GLOBAL am_u32 *counts = a.scratch + %du;\n",
               AM_SORT_TILE - 1, AM_SORT_TILE, AM_GPU_MAX_BLOCKS, AM_GPU_MAX_BLOCKS, AM_SORT_HEAD);
}

/* am_key(x): the order key of a value's bits x (TS), in the type's width
 * (before descending); am_nan(x): whether it is NaN. */
static void emit_key_fn(am_sb *sb, am_type t) {
  switch (t) {
    case AM_BOOL:
      am_sb_puts(sb,
                 "DEVFN am_u64 am_key(am_u32 x) { return (am_u64)x; }\n"
                 "DEVFN bool am_nan(am_u32 x) { (void)x; return false; }\n");
      return;
    case AM_INT8:
    case AM_INT16:
    case AM_INT32:
    case AM_INT64:
      am_sb_printf(
          sb, "DEVFN am_u64 am_key(TS x) { return (am_u64)(TS)(x ^ (TS)((am_u64)1 << %d)); }\n",
          am_type_bits(t) - 1);
      break;
    case AM_FLOAT32:
      am_sb_puts(sb,
                 "DEVFN am_u64 am_key(TS x) {\n"
                 "  const am_u32 u = x == 0x80000000u ? 0u : x; // -0.0 ties with 0.0\n"
                 "  return (am_u64)((u >> 31) != 0u ? ~u : (u | 0x80000000u));\n"
                 "}\n"
                 "DEVFN bool am_nan(TS x) { return (x & 0x7fffffffu) > 0x7f800000u; }\n");
      return;
    case AM_FLOAT64:
      am_sb_puts(sb,
                 "DEVFN am_u64 am_key(TS x) {\n"
                 "  const am_u64 u = x == ((am_u64)1 << 63) ? (am_u64)0 : x; // -0.0 as 0.0\n"
                 "  return (u >> 63) != 0u ? ~u : (u | ((am_u64)1 << 63));\n"
                 "}\n"
                 "DEVFN bool am_nan(TS x) {\n"
                 "  return (x & ~((am_u64)1 << 63)) > (am_u64)0x7ff0000000000000ull;\n"
                 "}\n");
      return;
    default: /* unsigned */
      am_sb_puts(sb, "DEVFN am_u64 am_key(TS x) { return (am_u64)x; }\n");
      break;
  }
  am_sb_puts(sb, "DEVFN bool am_nan(TS x) { (void)x; return false; }\n");
}

/* The column's value bits at row r as am_value(r) (bool: its bit). */
static void emit_column(am_sb *sb, am_type t) {
  am_sb_printf(sb, "typedef %s TS;\n", am_ks_store(t));
  emit_key_fn(sb, t);
  if (t == AM_BOOL)
    am_sb_puts(sb, "#define am_value(r) am_bit(a.in0, a.off0 + (r))\n");
  else
    am_sb_puts(sb, "#define am_value(r) a.in0[a.off0 + (r)]\n");
  am_sb_puts(sb, "#define am_is_null(r) (hv0 && am_bit(a.valid0, a.off0 + (r)) == 0u)\n");
}

static void emit_keys(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int descending = k->op & 1, first = (k->op >> 1) & 1;
  const int bits = k->t0 == AM_BOOL ? 8 : am_type_bits(k->t0);
  emit_column(sb, k->t0);
  am_ks_args(sb, am_ks_store(k->t0), "am_u64", "am_u64");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_printf(sb, "  const am_u64 mask = %s;\n",
               bits == 64   ? "~(am_u64)0"
               : bits == 32 ? "(am_u64)0xffffffffu"
               : bits == 16 ? "(am_u64)0xffffu"
                            : "(am_u64)0xffu");
  am_sb_puts(sb,
             "  const am_i64 n = a.n;\n"
             "  const bool hv0 = a.valid0 != 0;\n"
             "  am_u64 any = 0u, any_not = 0u; // OR of the numbers' keys, of their complements\n"
             "  am_u32 special = 0u;           // a NaN or null row was seen\n"
             "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < n;\n"
             "       i += (am_i64)am_nblocks * AM_BLOCK) {\n");
  if (first)
    am_sb_puts(sb,
               "    const am_i64 r = i;\n"
               "    ((GLOBAL am_u64 *)a.out_valid)[i] = (am_u64)i;\n");
  else
    am_sb_puts(sb, "    const am_i64 r = (am_i64)a.in1[i];\n");
  am_sb_printf(sb,
               "    am_u64 key = 0u;\n"
               "    if (am_is_null(r)) {\n"
               "      special = 1u;\n"
               "    } else {\n"
               "      const TS x = am_value(r);\n"
               "      if (am_nan(x)) {\n"
               "        special = 1u;\n"
               "      } else {\n"
               "        key = %s;\n"
               "        any |= key;\n"
               "        any_not |= ~key & mask;\n"
               "      }\n"
               "    }\n"
               "    a.out[i] = key;\n"
               "  }\n",
               descending ? "~am_key(x) & mask" : "am_key(x)");
  /* every lane reaches the shuffles: the loop above has ended for all */
  am_sb_printf(
      sb,
      "  const am_u32 w0 = am_warp_or((am_u32)any), w1 = am_warp_or((am_u32)(any >> 32));\n"
      "  const am_u32 w2 = am_warp_or((am_u32)any_not);\n"
      "  const am_u32 w3 = am_warp_or((am_u32)(any_not >> 32));\n"
      "  const am_u32 w4 = am_warp_or(special);\n"
      "  if (am_lane == 0u) {\n"
      "    if (w0 != 0u) ATOMIC_OR32(a.scratch + 0, w0);\n"
      "    if (w1 != 0u) ATOMIC_OR32(a.scratch + 1, w1);\n"
      "    if (w2 != 0u) ATOMIC_OR32(a.scratch + 2, w2);\n"
      "    if (w3 != 0u) ATOMIC_OR32(a.scratch + 3, w3);\n"
      "    if (w4 != 0u) ATOMIC_OR32(a.scratch + 4, w4);\n"
      "  }\n");
}

/* AM_DIGIT(i): the digit of position i in this pass. */
static void emit_digit(am_sb *sb, const am_kernel_key *k) {
  if (!is_class_pass(k)) {
    am_sb_printf(sb, "#define AM_DIGIT(i) ((am_u32)(a.in0[(i)] >> %du) & 255u)\n", 8 * k->op);
    return;
  }
  emit_column(sb, k->t0);
  /* numbers 0, NaN 1, null 2; reversed with nulls at the start */
  am_sb_printf(sb,
               "#define AM_CLASS(r) (am_is_null(r) ? 2u : am_nan(am_value(r)) ? 1u : 0u)\n"
               "#define AM_DIGIT(i) (%sAM_CLASS((am_i64)a.in1[(i)]))\n",
               k->op == AM_SORT_CLASS_PASS + 1 ? "2u - " : "");
}

static void emit_pass_args(am_sb *sb, const am_kernel_key *k) {
  am_ks_args(sb, is_class_pass(k) ? am_ks_store(k->t0) : "am_u64", "am_u64", "am_u64");
}

static void emit_count(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  emit_digit(sb, k);
  emit_pass_args(sb, k);
  if (d == AM_DIALECT_MSL)
    am_sb_puts(sb,
               "#define SMEM_ADD32(p, v) \\\n"
               "  atomic_fetch_add_explicit((threadgroup atomic_uint *)(p), (v), "
               "memory_order_relaxed)\n");
  else
    am_sb_puts(sb, "#define SMEM_ADD32(p, v) atomicAdd((p), (v))\n");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  SMEM am_u32 am_h[AM_BLOCK];\n"
             "  am_h[am_tid] = 0u;\n");
  emit_tile(sb);
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  (void)hv0;\n"
             "  BARRIER();\n"
             "  for (am_i64 i = begin + (am_i64)am_tid; i < end; i += AM_BLOCK)\n"
             "    SMEM_ADD32(&am_h[AM_DIGIT(i)], 1u);\n"
             "  BARRIER();\n"
             "  counts[(am_i64)am_tid * nb + (am_i64)am_bid] = am_h[am_tid];\n");
}

static void emit_scan(am_sb *sb, am_dialect d, const char *name) {
  am_ks_args(sb, "am_u64", "am_u64", "am_u64");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, "  SMEM am_u32 am_s[AM_BLOCK];\n");
  emit_tile(sb);
  am_sb_puts(sb,
             "  (void)begin;\n"
             "  (void)end;\n"
             "  // thread d owns digit d's counts, one per block, in block order\n"
             "  GLOBAL am_u32 *row = counts + (am_i64)am_tid * nb;\n"
             "  am_u32 sum = 0u;\n"
             "  for (am_i64 b = 0; b < nb; b++) sum += row[b];\n"
             "  am_s[am_tid] = sum;\n"
             "  BARRIER();\n"
             "  for (am_u32 s = 1u; s < AM_BLOCK; s <<= 1) {\n"
             "    const am_u32 o = am_tid >= s ? am_s[am_tid - s] : 0u;\n"
             "    BARRIER();\n"
             "    am_s[am_tid] += o;\n"
             "    BARRIER();\n"
             "  }\n"
             "  am_u32 run = am_s[am_tid] - sum; // the digits below d, every block\n"
             "  for (am_i64 b = 0; b < nb; b++) {\n"
             "    const am_u32 c = row[b];\n"
             "    row[b] = run;\n"
             "    run += c;\n"
             "  }\n");
}

static void emit_scatter(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  emit_digit(sb, k);
  emit_pass_args(sb, k);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  SMEM am_u32 am_run[AM_BLOCK];             // next place per digit\n"
             "  SMEM am_u32 am_wh[AM_BLOCK * (AM_BLOCK / 32u)]; // per warp, per digit\n");
  emit_tile(sb);
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  (void)hv0;\n"
             "  GLOBAL am_u64 *rows_out = (GLOBAL am_u64 *)a.out_valid;\n"
             "  am_run[am_tid] = counts[(am_i64)am_tid * nb + (am_i64)am_bid];\n"
             "  // begin and end are the block's: every thread runs every round\n"
             "  for (am_i64 base = begin; base < end; base += AM_BLOCK) {\n"
             "    for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) am_wh[w * AM_BLOCK + am_tid] = 0u;\n"
             "    BARRIER();\n"
             "    const am_i64 i = base + (am_i64)am_tid;\n"
             "    const bool ok = i < end;\n"
             "    const am_u32 dg = ok ? AM_DIGIT(i) : 0u;\n"
             "    // the lanes of this warp with this lane's digit\n"
             "    am_u32 peers = BALLOT(ok);\n"
             "    for (am_u32 bit = 0u; bit < 8u; bit++) {\n"
             "      const bool set = ((dg >> bit) & 1u) != 0u;\n"
             "      const am_u32 votes = BALLOT(set);\n"
             "      peers &= set ? votes : ~votes;\n"
             "    }\n"
             "    const am_u32 below = peers & ((1u << am_lane) - 1u);\n"
             "    if (ok && below == 0u) am_wh[am_warp * AM_BLOCK + dg] = POPC(peers);\n"
             "    BARRIER();\n"
             "    // thread d: each warp's first place among this round's digit d\n"
             "    am_u32 total = 0u;\n"
             "    for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) {\n"
             "      const am_u32 c = am_wh[w * AM_BLOCK + am_tid];\n"
             "      am_wh[w * AM_BLOCK + am_tid] = total;\n"
             "      total += c;\n"
             "    }\n"
             "    BARRIER();\n"
             "    if (ok) {\n"
             "      const am_u32 p = am_run[dg] + am_wh[am_warp * AM_BLOCK + dg] + POPC(below);\n"
             "      rows_out[p] = a.in1[i];\n");
  if (!is_class_pass(k)) am_sb_puts(sb, "      a.out[p] = a.in0[i];\n");
  am_sb_puts(sb,
             "    }\n"
             "    BARRIER();\n"
             "    am_run[am_tid] += total;\n"
             "  }\n");
}

void am_ks_sort_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name) {
  switch (key->kind) {
    case AM_KERNEL_SORT_KEYS:
      emit_keys(sb, dialect, key, name);
      break;
    case AM_KERNEL_SORT_COUNT:
      emit_count(sb, dialect, key, name);
      break;
    case AM_KERNEL_SORT_SCAN:
      emit_scan(sb, dialect, name);
      break;
    default:
      emit_scatter(sb, dialect, key, name);
      break;
  }
}
