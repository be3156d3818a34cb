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
 *   SORT_COUNT:   block b counts the digits of its tile (AM_SORT_TILE
 *                 positions) in shared memory -> counts[d * blocks + b],
 *                 and adds them to the pass's 256 digit totals (atomics);
 *   SORT_SCAN:    block b takes digits b, b + blocks, ...: a digit's first
 *                 place is the totals of the digits below it (a block scan
 *                 of the 256 totals) plus the counts of the blocks before,
 *                 a coalesced block scan along the digit's row, in place;
 *   SORT_SCATTER: each block walks its tile in sub-tiles of AM_BLOCK *
 *                 AM_SORT_KPT positions; warp w reads its own contiguous
 *                 256 of them 32 at a time (coalesced) and ranks each
 *                 among the equal digits seen so far in its warp: the
 *                 warp's running count of the digit (shared memory) plus
 *                 the lanes below with the digit (a match on CUDA,
 *                 eight ballots on Metal). Thread d then scans digit d's counts over the
 *                 warps, a block scan over the digits gives each digit's
 *                 first place in the sub-tile, and each key and row is put
 *                 at its place in shared memory: the sub-tile sorted by
 *                 digit, stably. It is written out in that order, a digit's
 *                 run to consecutive places from the block's next place for
 *                 the digit, so neighbouring threads write neighbouring
 *                 words. Order is kept: warp by warp, round by round, lane
 *                 by lane is position order, so the pass is stable.
 * A last pass over the classes (numbers, NaN, null; or null, NaN, numbers
 * with nulls at the start) runs the same three kinds with the class as the
 * digit, read from the row, when the column has NaN or nulls. Rows are u32
 * throughout; the host widens the final permutation with SORT_SCAN's WIDEN.
 *
 * On CUDA a byte pass is one launch instead (SORT_ONESWEEP, the scheme of
 * Adinets and Merrill's "Onesweep", 2022): SORT_KEYS also counts every
 * byte's digits, so each pass's digit totals are known before it starts,
 * and a block then ranks one sub-tile as SCATTER does, publishes its digit
 * counts and finds the counts of the blocks before it by a decoupled
 * look-back over their published words (a count, or the sum of every block
 * up to it), so no COUNT reads the keys and no SCAN runs between. Tiles go
 * to blocks in the order blocks start (a ticket), so a block only ever
 * waits for blocks that are running. Metal promises no such progress
 * between threadgroups, so it keeps the three launches.
 *
 * Every barrier is reached by every thread (tile and sub-tile bounds, the
 * digit loop of SCAN are uniform in a block; lanes past the tile run every
 * round and vote with no digit), shared memory is written before a barrier
 * and read after it, and the ballots and shuffles run with all 32 lanes.
 * Within a warp, the running counts are read by every lane, then a
 * __syncwarp (MSL: simdgroup_barrier on threadgroup memory), then bumped by
 * the first lane of each digit, then a second __syncwarp before the next
 * round reads them: ordered under the GPU's memory model, no reliance on
 * lockstep. In the three-launch passes blocks never wait on each other:
 * the launches are ordered on the device. Counts and positions are
 * 32-bit: fewer than 2^32 - 1 rows (the host checks); ONESWEEP's status
 * words hold a count in 30 bits, so it takes fewer than 2^30.
 *
 * Buffers (am_gpu_args): scratch = the sort's own u32 words (AM_SORT_HEAD
 * header words: 5 flags, then the digit totals of passes 0-8 from
 * AM_SORT_TOTALS, then ONESWEEP's tickets; then 256 counts a block, or
 * ONESWEEP's status words: two parities of 256 a tile); in0/valid0/off0 = the column
 * (SORT_KEYS and the class pass) or the keys being sorted (am_u64); in1 =
 * the rows (am_u32) in position order; out = the keys' next buffer;
 * out_valid = the rows' next buffer (am_u32). */
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

/* ONESWEEP's blocks wait on other blocks: CUDA only (the file's comment). */
int am_ks_sort_missing_type(am_dialect dialect, const am_kernel_key *key) {
  return dialect == AM_DIALECT_MSL && key->kind == AM_KERNEL_SORT_ONESWEEP;
}

/* The pass of a COUNT or SCATTER key: a byte (0 to 7) or the class pass
 * (ONESWEEP's are bytes: its op bit 3 is the final pass). */
static int is_class_pass(const am_kernel_key *k) {
  return k->kind != AM_KERNEL_SORT_ONESWEEP && k->op >= AM_SORT_CLASS_PASS;
}

int am_ks_sort_key_ok(const am_kernel_key *k) {
  const int typed = am_type_valid((int)k->t0) && k->t0 <= AM_FLOAT64;
  switch (k->kind) {
    case AM_KERNEL_SORT_KEYS:
      return (k->op & ~15) == 0 && typed;
    case AM_KERNEL_SORT_ONESWEEP:
      return k->op >= 0 && k->op < 32 && k->t0 == AM_TYPE_INVALID;
    case AM_KERNEL_SORT_SCAN:
      return k->op >= 0 && k->op <= AM_SORT_WIDEN && k->t0 == AM_TYPE_INVALID;
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
      snprintf(name, capacity, "am_sort_keys_%s%s%s%s%s", label, key->op & 1 ? "_desc" : "",
               key->op & 2 ? "_first" : "", key->op & 4 ? "_hist" : "",
               key->op & 8 ? "_norows" : "");
      break;
    case AM_KERNEL_SORT_ONESWEEP:
      snprintf(name, capacity, "am_sort_onesweep_byte%d%s%s", key->op & 7,
               key->op & 8 ? "_final" : "", key->op & 16 ? "_identity" : "");
      break;
    case AM_KERNEL_SORT_SCAN:
      if (key->op == AM_SORT_WIDEN)
        snprintf(name, capacity, "am_sort_widen");
      else
        snprintf(name, capacity, "am_sort_scan%d", key->op);
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
  const int64_t blocks = (n + AM_SORT_TILE - 1) / AM_SORT_TILE;
  return blocks < 1 ? 1 : blocks;
}

/* ONESWEEP's tile is one sub-tile: each block writes every digit's run of
 * its tile at once. */
int64_t am_sort_tiles(int64_t n) {
  const int64_t sub = (int64_t)AM_GPU_BLOCK * AM_SORT_ONESWEEP_KPT;
  const int64_t tiles = (n + sub - 1) / sub;
  return tiles < 1 ? 1 : tiles;
}

int64_t am_ks_sort_blocks(const am_kernel_key *key, int64_t n, int multiprocessors) {
  if (key->kind == AM_KERNEL_SORT_KEYS) {
    /* Each warp ORs its five words into the same five places: a block per
     * 1,024 rows put 2M atomics on them for 50M rows, which took 1.6 ms of
     * the sort on the H200 (ncu; the keys' 0.98 GB moves in about 0.25).
     * Eight blocks a multiprocessor stride over the rows instead. */
    const int64_t cap = 8 * (int64_t)(multiprocessors > 0 ? multiprocessors : 1);
    const int64_t blocks = (n + AM_GPU_BLOCK * 4 - 1) / (AM_GPU_BLOCK * 4);
    return blocks < 1 ? 1 : blocks > cap ? cap : blocks;
  }
  if (key->kind == AM_KERNEL_SORT_SCAN && key->op != AM_SORT_WIDEN) {
    /* a digit a block where each has 8 or more blocks' counts to scan */
    const int64_t blocks = (am_sort_blocks(n) + 7) / 8;
    return blocks > 256 ? 256 : blocks;
  }
  if (key->kind == AM_KERNEL_SORT_SCAN) { /* WIDEN */
    const int64_t blocks = (n + AM_GPU_BLOCK * 4 - 1) / (AM_GPU_BLOCK * 4);
    return blocks < 1 ? 1 : blocks;
  }
  if (key->kind == AM_KERNEL_SORT_ONESWEEP) return am_sort_tiles(n);
  return am_sort_blocks(n); /* COUNT and SCATTER: one tile a block */
}

/* The tile of this block, [begin, end), and the blocks nb: as
 * am_sort_blocks splits n; the counts of every block, and this pass's
 * digit totals (`pass`: 0-7 a byte, 8 the class pass; none below 0). */
static void emit_tile(am_sb *sb, int pass) {
  am_sb_printf(sb,
               "  const am_i64 n = a.n;\n"
               "  am_i64 nb = (n + %d) / %d;\n"
               "  if (nb < 1) nb = 1;\n"
               "  const am_i64 begin = (am_i64)am_bid * %d;\n"
               "  const am_i64 end = begin + %d < n ? begin + %d : n;\n"
               "  GLOBAL am_u32 *counts = a.scratch + %du;\n",
               AM_SORT_TILE - 1, AM_SORT_TILE, AM_SORT_TILE, AM_SORT_TILE, AM_SORT_TILE,
               AM_SORT_HEAD);
  if (pass >= 0)
    am_sb_printf(sb, "  GLOBAL am_u32 *totals = a.scratch + %du;\n", AM_SORT_TOTALS + 256 * pass);
}

/* The exclusive scan of `v` over the block in `ex` and the block's sum in
 * `all` (when given), through SMEM am_ws[AM_BLOCK / 32]. Every thread calls it (it has
 * barriers; the shuffles run with all lanes). */
static void emit_block_scan(am_sb *sb, const char *v, const char *ex, const char *all) {
  am_sb_printf(sb,
               "  {\n"
               "    am_u32 am_inc = %s;\n"
               "    for (am_u32 am_s = 1u; am_s < 32u; am_s <<= 1) {\n"
               "      const am_u32 am_o = SHFL_UP(am_inc, am_s);\n"
               "      if (am_lane >= am_s) am_inc += am_o;\n"
               "    }\n"
               "    if (am_lane == 31u) am_ws[am_warp] = am_inc;\n"
               "    BARRIER();\n"
               "    am_u32 am_below = 0u%s;\n"
               "    for (am_u32 am_w = 0u; am_w < AM_BLOCK / 32u; am_w++) {\n"
               "      const am_u32 am_c = am_ws[am_w];\n"
               "      if (am_w < am_warp) am_below += am_c;\n"
               "%s"
               "    }\n"
               "    %s = am_below + am_inc - %s;\n",
               v, all ? ", am_sum = 0u" : "", all ? "      am_sum += am_c;\n" : "", ex, v);
  if (all) am_sb_printf(sb, "    %s = am_sum;\n", all);
  am_sb_puts(sb,
             "    BARRIER(); // am_ws is free again\n"
             "  }\n");
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

/* With histograms (op bit 2), the block also counts the digits of every
 * byte of every key it writes (NaN and null rows' 0 too: they take part in
 * the byte passes) in shared memory, 256 words a byte, and adds them to the
 * passes' digit totals at the end: ONESWEEP's digit bases, without a count
 * pass a byte. */
static void emit_keys(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int descending = k->op & 1, first = (k->op >> 1) & 1, hist = (k->op >> 2) & 1;
  const int rows_out = first && !((k->op >> 3) & 1);
  const int bits = k->t0 == AM_BOOL ? 8 : am_type_bits(k->t0);
  emit_column(sb, k->t0);
  am_ks_args(sb, am_ks_store(k->t0), "am_u32", "am_u64");
  if (hist) am_ks_smem_add(sb, d);
  am_dialect_kernel_begin(sb, d, name);
  if (hist)
    am_sb_printf(sb,
                 "#define AM_KEY_BYTES %du\n"
                 "  SMEM am_u32 am_h[AM_KEY_BYTES * 256u];\n"
                 "  for (am_u32 j = am_tid; j < AM_KEY_BYTES * 256u; j += AM_BLOCK) am_h[j] = 0u;\n"
                 "  BARRIER();\n",
                 bits / 8);
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
    am_sb_puts(sb, rows_out ? "    const am_i64 r = i;\n    a.out_valid[i] = (am_u32)i;\n"
                            : "    const am_i64 r = i;\n");
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
               "%s"
               "  }\n",
               descending ? "~am_key(x) & mask" : "am_key(x)",
               hist
                   ? "    for (am_u32 b = 0u; b < AM_KEY_BYTES; b++)\n"
                     "      SMEM_ADD32(&am_h[b * 256u + ((am_u32)(key >> (8u * b)) & 255u)], 1u);\n"
                   : "");
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
  if (hist)
    am_sb_printf(sb,
                 "  BARRIER();\n"
                 "  for (am_u32 j = am_tid; j < AM_KEY_BYTES * 256u; j += AM_BLOCK) {\n"
                 "    const am_u32 c = am_h[j];\n"
                 "    if (c != 0u) ATOMIC_ADD32(a.scratch + %du + j, c);\n"
                 "  }\n",
                 AM_SORT_TOTALS);
}

/* The pass's digit: AM_KEY_DIGIT(key) of a key (a byte pass), or
 * AM_ROW_DIGIT(row) of a row (the class pass: the row's class read from
 * the column); AM_DIGIT(i) of position i. */
static void emit_digit(am_sb *sb, const am_kernel_key *k) {
  if (!is_class_pass(k)) {
    am_sb_printf(sb,
                 "#define AM_KEY_DIGIT(key) ((am_u32)((key) >> %du) & 255u)\n"
                 "#define AM_DIGIT(i) AM_KEY_DIGIT(a.in0[(i)])\n",
                 8 * (k->op & 7));
    return;
  }
  emit_column(sb, k->t0);
  /* numbers 0, NaN 1, null 2; reversed with nulls at the start */
  am_sb_printf(sb,
               "#define AM_CLASS(r) (am_is_null(r) ? 2u : am_nan(am_value(r)) ? 1u : 0u)\n"
               "#define AM_ROW_DIGIT(row) (%sAM_CLASS((am_i64)(row)))\n"
               "#define AM_DIGIT(i) AM_ROW_DIGIT(a.in1[(i)])\n",
               k->op == AM_SORT_CLASS_PASS + 1 ? "2u - " : "");
}

static int pass_of(const am_kernel_key *k) { return is_class_pass(k) ? 8 : k->op; }

static void emit_pass_args(am_sb *sb, const am_kernel_key *k) {
  am_ks_args(sb, is_class_pass(k) ? am_ks_store(k->t0) : "am_u64", "am_u32", "am_u64");
}

/* COUNT: block b's digit counts of its tile -> counts[d * nb + b], and
 * added to the pass's digit totals (for SCAN's bases). */
static void emit_count(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  emit_digit(sb, k);
  emit_pass_args(sb, k);
  am_ks_smem_add(sb, d);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  SMEM am_u32 am_h[AM_BLOCK];\n"
             "  am_h[am_tid] = 0u;\n");
  emit_tile(sb, pass_of(k));
  am_sb_puts(sb,
             "  const bool hv0 = a.valid0 != 0;\n"
             "  (void)hv0;\n"
             "  BARRIER();\n"
             "  for (am_i64 i = begin + (am_i64)am_tid; i < end; i += AM_BLOCK)\n"
             "    SMEM_ADD32(&am_h[AM_DIGIT(i)], 1u);\n"
             "  BARRIER();\n"
             "  const am_u32 c = am_h[am_tid];\n"
             "  counts[(am_i64)am_tid * nb + (am_i64)am_bid] = c;\n"
             "  if (c != 0u) ATOMIC_ADD32(totals + am_tid, c);\n");
}

/* SCAN (op = the pass): digit d's counts, one per block in block order,
 * become first places: the digits below d (their totals, scanned once per
 * block) plus the counts of the blocks before. Block b takes digits b,
 * b + nblocks, ... (am_ks_sort_blocks: fewer blocks for few counts). */
static void emit_scan(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u64", "am_u32", "am_u64");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  SMEM am_u32 am_ws[AM_BLOCK / 32u];\n"
             "  SMEM am_u32 am_base[256];\n");
  emit_tile(sb, k->op);
  am_sb_puts(sb,
             "  (void)begin;\n"
             "  (void)end;\n"
             "  const am_u32 mine = totals[am_tid];\n"
             "  am_u32 below = 0u;\n");
  emit_block_scan(sb, "mine", "below", NULL);
  am_sb_puts(sb,
             "  am_base[am_tid] = below;\n"
             "  BARRIER();\n"
             "  // the digit and nb are uniform in the block: every thread runs every round\n"
             "  for (am_u32 dg = am_bid; dg < 256u; dg += am_nblocks) {\n"
             "    GLOBAL am_u32 *row = counts + (am_i64)dg * nb;\n"
             "    am_u32 run = am_base[dg];\n"
             "    for (am_i64 b0 = 0; b0 < nb; b0 += AM_BLOCK) {\n"
             "      const am_i64 b = b0 + (am_i64)am_tid;\n"
             "      const am_u32 c = b < nb ? row[b] : 0u;\n"
             "      am_u32 before = 0u, sum = 0u;\n");
  emit_block_scan(sb, "c", "before", "sum");
  am_sb_puts(sb,
             "      if (b < nb) row[b] = run + before;\n"
             "      run += sum;\n"
             "    }\n"
             "  }\n");
}

/* WIDEN: the u32 rows in1 as the u64 result out. */
static void emit_widen(am_sb *sb, am_dialect d, const char *name) {
  am_ks_args(sb, "am_u64", "am_u32", "am_u64");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < a.n;\n"
             "       i += (am_i64)am_nblocks * AM_BLOCK)\n"
             "    a.out[i] = (am_u64)a.in1[i];\n");
}

/* SCATTER: the block walks its tile AM_SUB positions at a time. Warp w owns
 * positions [w * 32 * AM_KPT, (w + 1) * 32 * AM_KPT) of the sub-tile, read
 * 32 at a time (coalesced), in order; a position's rank among the equal
 * digits of its warp so far is its warp's running count of the digit
 * (am_wc, 16-bit in shared memory: the scatter's shared memory stays under
 * Metal's 32 KB) plus the lanes below it with its digit (CUDA's
 * __match_any_sync; on Metal ballots, one per digit bit). Every key and row
 * of the sub-tile is loaded before the first rank: a load after a
 * __syncwarp cannot be moved above it, so loads between the ranks were
 * eight round trips to memory in a row (ncu: warps stalled on L1TEX 57% of
 * the time). H200, 50M int64 / float64, ms: 12.0 / 11.7 before; the loads
 * first and match 12.0 / 11.3; with 3 blocks resident (80 registers, no
 * spills; 4 capped it at 64 and spilled) 11.0 / 10.5. Then thread d turns the warps' counts of
 * digit d into their first places among the sub-tile's digit d, and a block
 * scan over the digits gives each digit's first place in the sub-tile:
 * each key and row goes to its place in shared memory, so the sub-tile
 * stands sorted by digit (stably), and is written out in that order: each
 * digit's run to consecutive places from the block's next place for the
 * digit (am_run), so neighbouring threads write neighbouring words. */

/* The shared memory of SCATTER and ONESWEEP. */
static void emit_subtile_smem(am_sb *sb, int byte) {
  if (byte)
    am_sb_puts(sb, "  SMEM am_u64 am_sk[AM_SUB]; // the sub-tile's keys in digit order\n");
  else
    am_sb_puts(sb, "  SMEM am_u32 am_sd[AM_SUB]; // the sub-tile's digits in digit order\n");
  am_sb_puts(sb,
             "  SMEM am_u32 am_sr[AM_SUB];                  // its rows in digit order\n"
             "  SMEM am_u16 am_wc[(AM_BLOCK / 32u) * 256u]; // per warp, per digit (<= AM_SUB)\n"
             "  SMEM am_u32 am_run[256];                    // next place per digit\n"
             "  SMEM am_u32 am_loc[256];                    // first place in the sub-tile\n"
             "  SMEM am_u32 am_ws[AM_BLOCK / 32u];\n");
}

/* The sub-tile from `sub` (to `end`, of the block's positions from
 * `begin`) ranked and put in digit order in shared memory: leaves cnt (the
 * sub-tile's count of digit am_tid), size (its positions) and am_loc. The
 * warps' counts am_wc are zero before and hold each warp's first places
 * after. `after_count` (or NULL): code run as soon as cnt is known. `full`:
 * the sub-tile is known to be whole (AM_SUB positions below end), so every
 * position's test is the constant true and the compiler drops them.
 * `identity`: the rows are the positions (the sort's first pass), not read. */
static void emit_subtile_rank(am_sb *sb, am_dialect d, int byte, int kpt, const char *after_count,
                              int full, int identity) {
  am_sb_puts(sb,
             "    // offsets in the tile (32-bit: fewer registers than positions)\n"
             "    const am_u32 seg = (am_u32)(sub - begin) + am_warp * 32u * AM_KPT + am_lane;\n"
             "    const am_u32 lim = (am_u32)(end - begin);\n"
             "    (void)lim;\n");
  if (!identity) am_sb_puts(sb, "    GLOBAL const am_u32 *rows_in = a.in1 + begin;\n");
  for (int j = 0; j < kpt; j++) {
    am_ks_k(sb,
            full ? "    const am_u32 o# = seg + #u * 32u;\n"
                   "    const bool ok# = true;\n"
                 : "    const am_u32 o# = seg + #u * 32u;\n"
                   "    const bool ok# = o# < lim;\n",
            j);
    am_ks_k(sb,
            identity ? "    const am_u32 row# = (am_u32)begin + o#;\n"
                     : "    const am_u32 row# = ok# ? rows_in[o#] : 0u;\n",
            j);
    if (byte)
      am_ks_k(sb,
              "    const am_u64 k# = ok# ? a.in0[begin + (am_i64)o#] : (am_u64)0;\n"
              "    const am_u32 d# = ok# ? AM_KEY_DIGIT(k#) : 0u;\n",
              j);
    else
      am_ks_k(sb, "    const am_u32 d# = ok# ? AM_ROW_DIGIT(row#) : 0u;\n", j);
  }
  for (int j = 0; j < kpt; j++) {
    /* the lanes with this lane's digit: one match instruction on CUDA
     * (lanes past the tile match only each other, as 256); Metal has no
     * match, so one ballot a digit bit */
    if (d == AM_DIALECT_CUDA) {
      am_ks_k(sb, "    const am_u32 m# = __match_any_sync(0xffffffffu, ok# ? d# : 256u);\n", j);
    } else {
      am_ks_k(sb, "    am_u32 m# = BALLOT(ok#);\n", j);
      am_sb_printf(sb, "    for (am_u32 bit = 0u; bit < %du; bit++) {\n", byte ? 8 : 2);
      am_ks_k(sb,
              "      const bool set = ((d# >> bit) & 1u) != 0u;\n"
              "      const am_u32 votes = BALLOT(set);\n"
              "      m# &= set ? votes : ~votes;\n"
              "    }\n",
              j);
    }
    am_ks_k(
        sb,
        "    const am_u32 r# = (ok# ? (am_u32)wc[d#] : 0u) + POPC(m# & lanes_below);\n"
        "    SYNCWARP(); // every lane has read its count before the first peer adds\n"
        "    if (ok# && (m# & lanes_below) == 0u) wc[d#] = (am_u16)((am_u32)wc[d#] + POPC(m#));\n"
        "    SYNCWARP();\n",
        j);
  }
  am_sb_puts(sb,
             "    BARRIER();\n"
             "    // thread d: each warp's first place among the sub-tile's digit d\n"
             "    am_u32 cnt = 0u;\n"
             "    for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) {\n"
             "      const am_u32 c = (am_u32)am_wc[w * 256u + am_tid];\n"
             "      am_wc[w * 256u + am_tid] = (am_u16)cnt;\n"
             "      cnt += c;\n"
             "    }\n");
  if (after_count) am_sb_puts(sb, after_count);
  am_sb_puts(sb, full ? "    am_u32 first = 0u;\n" : "    am_u32 first = 0u, size = 0u;\n");
  emit_block_scan(sb, "cnt", "first", full ? NULL : "size");
  am_sb_puts(sb,
             "    am_loc[am_tid] = first;\n"
             "    BARRIER();\n");
  for (int j = 0; j < kpt; j++) {
    am_ks_k(sb,
            "    if (ok#) {\n"
            "      const am_u32 q = am_loc[d#] + (am_u32)wc[d#] + r#;\n",
            j);
    am_ks_k(sb, "      am_sr[q] = row#;\n", j);
    am_ks_k(sb, byte ? "      am_sk[q] = k#;\n    }\n" : "      am_sd[q] = d#;\n    }\n", j);
  }
}

/* The sub-tile, in digit order in shared memory, to its places: digit d's
 * run from am_run[d]; `final`: only the rows, as u64 in out; `full`: the
 * sub-tile is whole (a loop of constant trips). */
static void emit_subtile_write(am_sb *sb, int byte, int final, int full) {
  am_sb_printf(sb,
               "    BARRIER();\n"
               "    for (am_u32 q = am_tid; q < %s; q += AM_BLOCK) {\n",
               full ? "AM_SUB" : "size");
  if (byte)
    am_sb_puts(sb,
               "      const am_u64 key = am_sk[q];\n"
               "      const am_u32 dg = AM_KEY_DIGIT(key);\n"
               "      const am_u32 p = am_run[dg] + (q - am_loc[dg]);\n");
  else
    am_sb_puts(sb,
               "      const am_u32 dg = am_sd[q];\n"
               "      const am_u32 p = am_run[dg] + (q - am_loc[dg]);\n");
  if (final)
    am_sb_puts(sb, "      a.out[p] = (am_u64)am_sr[q];\n");
  else
    am_sb_printf(sb, "%s      a.out_valid[p] = am_sr[q];\n", byte ? "      a.out[p] = key;\n" : "");
  am_sb_puts(sb, "    }\n");
}

/* AM_KPT: keys a thread of a sub-tile (a kernel's registers hold them). */
static void emit_subtile_prelude(am_sb *sb, am_dialect d, int kpt) {
  if (d == AM_DIALECT_MSL)
    am_sb_puts(sb, "#define SYNCWARP() simdgroup_barrier(mem_flags::mem_threadgroup)\n");
  else
    am_sb_puts(sb, "#define SYNCWARP() __syncwarp()\n");
  am_sb_printf(sb, "#define AM_KPT %du\n#define AM_SUB (AM_BLOCK * AM_KPT)\n", kpt);
}

static void emit_scatter(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int byte = !is_class_pass(k);
  emit_digit(sb, k);
  emit_pass_args(sb, k);
  emit_subtile_prelude(sb, d, AM_SORT_KPT);
  am_dialect_kernel_begin_resident(sb, d, name, 3);
  emit_subtile_smem(sb, byte);
  emit_tile(sb, -1);
  am_sb_puts(
      sb,
      "  const bool hv0 = a.valid0 != 0;\n"
      "  (void)hv0;\n"
      "  am_run[am_tid] = counts[(am_i64)am_tid * nb + (am_i64)am_bid];\n"
      "  for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) am_wc[w * 256u + am_tid] = (am_u16)0;\n"
      "  const am_u32 lanes_below = (1u << am_lane) - 1u;\n"
      "  SPTR am_u16 *wc = am_wc + am_warp * 256u;\n"
      "  BARRIER();\n"
      "  // begin and end are the block's: every thread runs every round\n"
      "  for (am_i64 sub = begin; sub < end; sub += AM_SUB) {\n");
  emit_subtile_rank(sb, d, byte, AM_SORT_KPT, NULL, 0, 0);
  emit_subtile_write(sb, byte, 0, 0);
  am_sb_puts(
      sb,
      "    BARRIER();\n"
      "    am_run[am_tid] += cnt;\n"
      "    for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) am_wc[w * 256u + am_tid] = (am_u16)0;\n"
      "    BARRIER();\n"
      "  }\n");
}

#define LOOKBACK_WORDS 4

/* ONESWEEP's work on its tile (`full`: a whole one): rank, publish, look
 * back, write. */
static void emit_onesweep_tile(am_sb *sb, am_dialect d, const am_kernel_key *k, int full) {
  emit_subtile_rank(sb, d, 1, AM_SORT_ONESWEEP_KPT,
                    "    // the tile's count out as soon as it is known\n"
                    "    ATOMIC_STORE32(status + (am_i64)tile * 256 + am_tid,\n"
                    "                   (tile == 0u ? AM_PREFIX : AM_AGGREGATE) | cnt);\n",
                    full, (k->op >> 4) & 1);
  am_sb_puts(sb,
             "    // the look-back: the tiles before, back to an inclusive prefix\n"
             "    am_u32 before = 0u;\n"
             "    if (tile != 0u) {\n"
             "      bool done = false;\n"
             "      for (am_i64 j = (am_i64)tile - 1; !done;) {\n");
  /* LOOKBACK_WORDS words read at once (their latencies overlap), then taken
   * in order up to the first not yet published (a 0) or an inclusive
   * prefix. Tile 0's word is a prefix, so none below it is ever taken: those
   * read as 0. H200, 50M int64 rows, sort_indices: 1 word 6.29-6.34 ms, 4
   * words 6.18-6.25. */
  for (int w = 0; w < LOOKBACK_WORDS; w++)
    am_sb_printf(sb,
                 "        const am_u32 w%d = j >= %d ? ATOMIC_LOAD32(status + (j - %d) * 256 + "
                 "am_tid) : 0u;\n",
                 w, w, w);
  am_sb_puts(sb, "        am_u32 used = 0u;\n");
  for (int w = 0; w < LOOKBACK_WORDS; w++)
    am_sb_printf(sb,
                 "        if (!done && used == %du && (w%d >> 30) != 0u) {\n"
                 "          before += w%d & AM_COUNT_BITS;\n"
                 "          done = (w%d >> 30) == 2u;\n"
                 "          used = %du;\n"
                 "        }\n",
                 w, w, w, w, w + 1);
  am_sb_puts(
      sb,
      "        j -= (am_i64)used;\n"
      "      }\n"
      "      ATOMIC_STORE32(status + (am_i64)tile * 256 + am_tid, AM_PREFIX | (before + cnt));\n"
      "    }\n"
      "    am_run[am_tid] = base + before;\n");
  emit_subtile_write(sb, 1, (k->op >> 3) & 1, full);
}

/* ONESWEEP: one sub-tile a block, a byte pass in one launch (the file's
 * comment). The block's tile is its ticket: the tickets go out in the order
 * blocks start, so the blocks a look-back waits for are running. Thread d
 * owns digit d: before the sub-tile is ranked, the digit's base among all
 * positions (a block scan of the pass's totals); once the sub-tile's count
 * cnt is known, it publishes cnt as tile t's aggregate (flag 1 in the word's
 * top two bits; tile 0 publishes it as its inclusive prefix, flag 2), then
 * walks back over the tiles before, adding aggregates until it meets an
 * inclusive prefix, and publishes its own prefix: the places before the
 * tile's run of digit d are the base plus that sum. A word reads 0 until its
 * tile publishes (the host zeroes parity 0 of a column; each pass zeroes
 * its tile's words of the other parity for the pass after it). Each word is
 * written whole once or twice, and holds all its reader needs: relaxed loads
 * and stores, no fence. The sort's last pass (op bit 3) writes no keys,
 * only the rows, widened to u64, in out: the result, without a WIDEN.
 *
 * Every tile but the last is whole, and runs a copy of the tile's code
 * whose positions are all in bounds (no tests, no predicated loads): the
 * pass is issue-bound, and on the H200 50M int64 rows sorted in 5.73-5.88
 * ms instead of 6.07-6.50 (torch.sort 5.10-5.20 in the same run); the
 * first pass taking the positions as its rows, instead of the gather
 * writing them and the pass reading them, 5.62-5.71. */
static void emit_onesweep(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int byte = k->op & 7;
  emit_digit(sb, k);
  emit_pass_args(sb, k);
  emit_subtile_prelude(sb, d, AM_SORT_ONESWEEP_KPT);
  am_sb_puts(sb,
             "#define AM_AGGREGATE (1u << 30)\n"
             "#define AM_PREFIX (2u << 30)\n"
             "#define AM_COUNT_BITS ((1u << 30) - 1u)\n");
  am_dialect_kernel_begin_resident(sb, d, name, 3);
  emit_subtile_smem(sb, 1);
  am_sb_printf(
      sb,
      "  SMEM am_u32 am_ticket;\n"
      "  if (am_tid == 0u) am_ticket = ATOMIC_ADD32(a.scratch + %du, 1u);\n"
      "  const am_i64 n = a.n;\n"
      "  const am_i64 tiles = (n + AM_SUB - 1) / AM_SUB;\n"
      "  GLOBAL am_u32 *status = a.scratch + %du + (am_i64)a.aux * tiles * 256;\n"
      "  GLOBAL am_u32 *status_next = a.scratch + %du + (am_i64)(1 - a.aux) * tiles * 256;\n"
      "  // the digit's first place among all positions\n"
      "  const am_u32 total = a.scratch[%du + am_tid];\n"
      "  am_u32 base = 0u;\n",
      AM_SORT_TICKETS + byte, AM_SORT_HEAD, AM_SORT_HEAD, AM_SORT_TOTALS + 256 * byte);
  emit_block_scan(sb, "total", "base", NULL); /* its barriers publish am_ticket */
  am_sb_puts(
      sb,
      "  const am_u32 tile = am_ticket;\n"
      "  const am_i64 begin = (am_i64)tile * AM_SUB;\n"
      "  const am_i64 end = begin + AM_SUB < n ? begin + AM_SUB : n;\n"
      "  const am_i64 sub = begin;\n"
      "  status_next[(am_i64)tile * 256 + am_tid] = 0u;\n"
      "  for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) am_wc[w * 256u + am_tid] = (am_u16)0;\n"
      "  const am_u32 lanes_below = (1u << am_lane) - 1u;\n"
      "  SPTR am_u16 *wc = am_wc + am_warp * 256u;\n"
      "  BARRIER();\n"
      "  // every tile but the last is whole: its positions need no bounds\n"
      "  if (end - begin == AM_SUB) {\n");
  emit_onesweep_tile(sb, d, k, 1);
  am_sb_puts(sb, "  } else {\n");
  emit_onesweep_tile(sb, d, k, 0);
  am_sb_puts(sb, "  }\n");
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
      if (key->op == AM_SORT_WIDEN)
        emit_widen(sb, dialect, name);
      else
        emit_scan(sb, dialect, key, name);
      break;
    case AM_KERNEL_SORT_ONESWEEP:
      emit_onesweep(sb, dialect, key, name);
      break;
    default:
      emit_scatter(sb, dialect, key, name);
      break;
  }
}
