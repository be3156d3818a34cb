/* The GPU kernels of the hash-based functions (kernels.h: AM_KERNEL_HASH_*),
 * written once for CUDA and MSL with the pieces of kernel_source_emit.h.
 *
 * The table is open addressing with linear probing in device memory, of u32
 * words the host zeroes: the empty key is 0, so the key 0 has a slot of its
 * own past the probed ones (slot cap), and nulls another (slot cap + 1). A
 * row inserts its key by an atomic compare-and-swap of the empty key (the
 * slot is its key's once the swap succeeds or finds the same key), then
 * takes the slot's first row by an atomic max of ~row (so 0 means none and
 * the smallest row wins) and adds one to the slot's count. Keys are the
 * values' bits, as the CPU's (cpu/hash.c): 0.0 and -0.0 are two keys, NaNs
 * differ by payload.
 *
 * Everything else is plain element-wise work over the rows' slots (u32, one
 * per row): which rows are their slot's first (a bitmap the host compacts
 * with the filter kernels, which keeps pyarrow's first-occurrence order),
 * the groups' ids, and the probes of is_in / index_in.
 *
 * Metal has 32-bit atomics only: keys of 64-bit types are CUDA only there
 * (am_kernel_supported says no, and the host groups on the CPU). */
#include <stdio.h>

#include "arrowmetal.h"
#include "core/types.h"
#include "gpu/kernel_source_emit.h"

int am_ks_hash_kind(am_kernel_kind kind) {
  switch (kind) {
    AM_KS_HASH_CASES
    return 1;
    default:
      return 0;
  }
}

static int wide(am_type t) { return am_type_bits(t) == 64; }

/* KT (the key word), AM_KEY(i) (row i's bits), am_mix (a finalizer that
 * spreads every key bit over the low bits the table index uses) and am_cas
 * (compare-and-swap returning the old word; MSL's weak exchange retried
 * while it fails spuriously). */
static void emit_key(am_sb *sb, am_dialect d, am_type t) {
  int w = wide(t);
  am_sb_printf(sb, "typedef %s KT;\n", w ? "am_u64" : "am_u32");
  if (t == AM_BOOL)
    am_sb_puts(sb, "#define AM_KEY(i) am_bit(a.in0, a.off0 + (i))\n");
  else
    am_sb_puts(sb, "#define AM_KEY(i) ((KT)a.in0[a.off0 + (i)])\n");
  if (w)
    am_sb_puts(sb,
               "DEVFN KT am_mix(KT k) {\n"
               "  k ^= k >> 33;\n"
               "  k *= (KT)0xff51afd7ed558ccdull;\n"
               "  k ^= k >> 33;\n"
               "  k *= (KT)0xc4ceb9fe1a85ec53ull;\n"
               "  k ^= k >> 33;\n"
               "  return k;\n"
               "}\n");
  else
    am_sb_puts(sb,
               "DEVFN KT am_mix(KT k) {\n"
               "  k ^= k >> 16;\n"
               "  k *= 0x85ebca6bu;\n"
               "  k ^= k >> 13;\n"
               "  k *= 0xc2b2ae35u;\n"
               "  k ^= k >> 16;\n"
               "  return k;\n"
               "}\n");
  if (d == AM_DIALECT_CUDA) {
    if (w)
      am_sb_puts(sb,
                 "DEVFN KT am_cas(GLOBAL KT *p, KT e, KT v) {\n"
                 "  return (KT)atomicCAS((unsigned long long *)p, (unsigned long long)e,\n"
                 "                       (unsigned long long)v);\n"
                 "}\n");
    else
      am_sb_puts(sb, "DEVFN KT am_cas(GLOBAL KT *p, KT e, KT v) { return atomicCAS(p, e, v); }\n");
  } else {
    am_sb_puts(sb,
               "DEVFN KT am_cas(GLOBAL KT *p, KT e, KT v) {\n"
               "  KT x = e;\n"
               "  while (!atomic_compare_exchange_weak_explicit((device atomic_uint *)p, &x, v,\n"
               "                                                memory_order_relaxed,\n"
               "                                                memory_order_relaxed) &&\n"
               "         x == e) {\n"
               "  }\n"
               "  return x;\n"
               "}\n");
  }
}

/* am_max32: an atomic max of a u32 word. */
static void emit_max32(am_sb *sb, am_dialect d) {
  if (d == AM_DIALECT_CUDA)
    am_sb_puts(sb, "DEVFN void am_max32(GLOBAL am_u32 *p, am_u32 v) { atomicMax(p, v); }\n");
  else
    am_sb_puts(sb,
               "DEVFN void am_max32(GLOBAL am_u32 *p, am_u32 v) {\n"
               "  atomic_fetch_max_explicit((device atomic_uint *)p, v, memory_order_relaxed);\n"
               "}\n");
}

/* The head of the per-row loops: n, cap (the probed slots), the stride. */
static const char rows_head[] =
    "  const am_i64 n = a.n;\n"
    "  const am_u64 cap = (am_u64)a.aux;\n"
    "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
    "  (void)cap;\n";

/* Warps walk whole 32-row words (every lane reaches the ballot). */
static const char warp_loop[] =
    "  for (am_i64 base = (am_i64)am_bid * AM_BLOCK + (am_i64)am_warp * 32; base < n;\n"
    "       base += stride) {\n"
    "    const am_i64 i = base + (am_i64)am_lane;\n";

/* ---- HASH_BUILD
 * A row reads its probe's key before it swaps (a slot's key never changes
 * once set, so a key seen is final; only an empty slot takes the swap), and
 * takes the slot's first row only when the word shows none as early. On
 * CUDA the lanes of a warp with the same slot add their count once, through
 * the lowest of them (whose row is also their first): few distinct keys put
 * every row on the same few words. Op 1 counts; op 0 (unique,
 * dictionary_encode, count_distinct, a value set) leaves the counts alone:
 * with many distinct keys those adds are most of the build.
 *
 * The table may be smaller than the rows need (ops_hash.c first tries one
 * that stays in the L2 cache): the swaps that take an empty slot count
 * themselves in the word after the table, and once more than half the slots
 * are taken the rows stop inserting and report it through the status count;
 * the host then builds again with room for every row. */
static void emit_build(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, am_ks_store(k->t0), "am_u8", "am_u32");
  emit_key(sb, d, k->t0);
  emit_max32(sb, d);
  am_sb_printf(sb, "#define AM_MATCH %d\n#define AM_COUNTS %d\n", d == AM_DIALECT_CUDA, k->op);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb,
             "  const am_u64 mask = cap - 1u;\n"
             "  GLOBAL am_u32 *tab = a.out;\n"
             "  GLOBAL KT *keys = (GLOBAL KT *)a.out;\n"
             "  GLOBAL am_u32 *taken = tab + a.scalar + 2u * (cap + 2u);\n"
             "  const am_u32 room = (am_u32)(cap / 2u);\n"
             "  const bool hv0 = a.valid0 != 0;\n"
             "  bool full = false;\n");
  am_sb_puts(sb, warp_loop);
  am_sb_puts(sb,
             "    const bool live = i < n;\n"
             "    am_u64 s = cap + 1u;\n"
             "    if (live && !full && (!hv0 || am_bit(a.valid0, a.off0 + i) != 0u)) {\n"
             "      const KT key = AM_KEY(i);\n"
             "      s = cap;\n"
             "      if (key != (KT)0) {\n"
             "        s = (am_u64)am_mix(key) & mask;\n"
             "        // Under half the slots are taken, so an empty one ends a probe --\n"
             "        // unless rows racing past the check filled the table: a probe\n"
             "        // that has seen every slot taken reports it full.\n"
             "        am_u64 probes = 0u;\n"
             "        for (;;) {\n"
             "          KT old = keys[s];\n"
             "          if (old == (KT)0) {\n"
             "            if (ATOMIC_LOAD32(taken) >= room) {\n"
             "              full = true;\n"
             "              break;\n"
             "            }\n"
             "            old = am_cas(keys + s, (KT)0, key);\n"
             "            if (old == (KT)0) {\n"
             "              if (ATOMIC_ADD32(taken, 1u) >= room) full = true;\n"
             "              break;\n"
             "            }\n"
             "          }\n"
             "          if (old == key) break;\n"
             "          if (++probes > mask) {\n"
             "            full = true;\n"
             "            break;\n"
             "          }\n"
             "          s = (s + 1u) & mask;\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "#if AM_MATCH\n"
             "    // Lanes past the end share a slot number no row has.\n"
             "    const am_u32 peers = __match_any_sync(0xffffffffu, live ? s : cap + 2u);\n"
             "    const bool lead = live && (am_u32)(__ffs(peers) - 1) == am_lane;\n"
             "    const am_u32 add = POPC(peers);\n"
             "#else\n"
             "    const bool lead = live;\n"
             "    const am_u32 add = 1u;\n"
             "#endif\n"
             "    if (lead) {\n"
             "      GLOBAL am_u32 *first = tab + a.scalar + s;\n"
             "      if (*first < ~(am_u32)i) am_max32(first, ~(am_u32)i);\n"
             "      if (AM_COUNTS) ATOMIC_ADD32(tab + a.scalar + cap + 2u + s, add);\n"
             "    }\n"
             "    if (live && a.out_valid != 0) a.out_valid[i] = (am_u32)s;\n"
             "  }\n"
             "  if (BALLOT(full) != 0u && am_lane == 0u) am_status_add_count(a.status, 1u);\n");
}

/* ---- HASH_FIRSTS */
static void emit_firsts(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u32", "am_u32", "am_u32");
  am_sb_printf(sb, "#define AM_MASK_NULLS %d\n", k->op);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb, warp_loop);
  am_sb_puts(sb,
             "    bool f = false;\n"
             "    if (i < n) {\n"
             "      const am_u64 s = (am_u64)a.in1[i];\n"
             "      f = ~a.in0[a.scalar + s] == (am_u32)i && !(AM_MASK_NULLS && s == cap + 1u);\n"
             "    }\n"
             "    const am_u32 w = BALLOT(f);\n"
             "    if (am_lane == 0u) a.out[base >> 5] = w;\n"
             "  }\n");
}

/* ---- HASH_ROWS */
static void emit_rows(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u32", "am_u32", "am_i64");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_printf(sb,
               "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < n; i += stride)\n"
               "    a.out[i] = %s;\n",
               k->op ? "(am_i64)a.in0[a.scalar + cap + 2u +\n"
                       "                      (am_u64)a.in1[((GLOBAL const am_i64 *)a.valid1)[i]]]"
                     : "i");
}

/* ---- HASH_GROUPS */
static void emit_groups(am_sb *sb, am_dialect d, const char *name) {
  am_ks_args(sb, "am_u32", "am_i64", "am_u32");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb,
             "  for (am_i64 g = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; g < n; g += stride) {\n"
             "    const am_u64 s = (am_u64)a.in0[a.in1[g]];\n"
             "    a.out[s] = (am_u32)g + 1u;\n"
             "    if (s == cap + 1u) am_status_add_count(a.status, (am_u64)g + 1u);\n"
             "  }\n");
}

/* ---- HASH_IDS */
static void emit_ids(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u32", "am_u32", "am_i32");
  am_sb_printf(sb, "#define AM_MASK_NULLS %d\n", k->op);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb, warp_loop);
  am_sb_puts(sb,
             "    bool ok = false;\n"
             "    if (i < n) {\n"
             "      const am_u64 s = (am_u64)a.in1[i];\n"
             "      ok = !(AM_MASK_NULLS && s == cap + 1u);\n"
             "      a.out[i] = ok ? (am_i32)a.in0[s] - 1 : 0;\n"
             "    }\n"
             "    const am_u32 w = BALLOT(ok);\n"
             "    if (am_lane == 0u && a.out_valid != 0) a.out_valid[base >> 5] = w;\n"
             "  }\n");
}

/* ---- HASH_PROBE */
static void emit_probe(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  int as_bool = k->op & 1, skip_nulls = (k->op >> 1) & 1;
  am_ks_args(sb, am_ks_store(k->t0), "am_u32", as_bool ? "am_u32" : "am_i32");
  emit_key(sb, d, k->t0);
  am_sb_printf(sb, "#define AM_AS_BOOL %d\n#define AM_SKIP_NULLS %d\n", as_bool, skip_nulls);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb,
             "  const am_u64 mask = cap - 1u;\n"
             "  GLOBAL const am_u32 *tab = a.in1;\n"
             "  GLOBAL const KT *keys = (GLOBAL const KT *)a.in1;\n"
             "  const bool hv0 = a.valid0 != 0;\n");
  am_sb_puts(sb, warp_loop);
  am_sb_puts(sb,
             "    bool ok = false;\n"
             "    if (i < n) {\n"
             "      am_u64 s = cap + 1u;\n"
             "      bool look = !AM_SKIP_NULLS;\n"
             "      if (!hv0 || am_bit(a.valid0, a.off0 + i) != 0u) {\n"
             "        const KT key = AM_KEY(i);\n"
             "        s = cap;\n"
             "        look = true;\n"
             "        if (key != (KT)0) {\n"
             "          s = (am_u64)am_mix(key) & mask;\n"
             "          for (;;) {\n"
             "            const KT got = keys[s];\n"
             "            if (got == key) break;\n"
             "            if (got == (KT)0) {\n"
             "              look = false;\n"
             "              break;\n"
             "            }\n"
             "            s = (s + 1u) & mask;\n"
             "          }\n"
             "        }\n"
             "      }\n"
             "      // The slot's ~(first row); 0: no row of the set has the key.\n"
             "      const am_u32 f = look ? tab[a.scalar + s] : 0u;\n"
             "      ok = f != 0u;\n"
             "#if !AM_AS_BOOL\n"
             "      a.out[i] = ok ? (am_i32)~f : 0;\n"
             "#endif\n"
             "    }\n"
             "    const am_u32 w = BALLOT(ok);\n"
             "    if (am_lane == 0u) {\n"
             "#if AM_AS_BOOL\n"
             "      a.out[base >> 5] = w;\n"
             "#else\n"
             "      a.out_valid[base >> 5] = w;\n"
             "#endif\n"
             "    }\n"
             "  }\n");
}

/* ---- The hooks of kernel_source.c */

int am_ks_hash_key_ok(const am_kernel_key *key) {
  switch (key->kind) {
    case AM_KERNEL_HASH_BUILD:
      return (key->op == 0 || key->op == 1) && am_type_valid((int)key->t0);
    case AM_KERNEL_HASH_FIRSTS:
    case AM_KERNEL_HASH_ROWS:
    case AM_KERNEL_HASH_IDS:
      return key->op == 0 || key->op == 1;
    case AM_KERNEL_HASH_GROUPS:
      return key->op == 0;
    case AM_KERNEL_HASH_PROBE:
      return key->op >= 0 && key->op <= 3 && am_type_valid((int)key->t0);
    default:
      return 0;
  }
}

/* Metal: no 64-bit atomic compare-and-swap on every GPU, so no 64-bit keys. */
int am_ks_hash_missing_type(am_dialect dialect, const am_kernel_key *key) {
  return dialect == AM_DIALECT_MSL &&
         (key->kind == AM_KERNEL_HASH_BUILD || key->kind == AM_KERNEL_HASH_PROBE) && wide(key->t0);
}

void am_ks_hash_name(const am_kernel_key *key, char *name, size_t capacity) {
  const char *masked = key->op ? "_masked" : "";
  switch (key->kind) {
    case AM_KERNEL_HASH_BUILD:
      snprintf(name, capacity, "am_hash_build%s_%s", key->op ? "_counted" : "",
               am_type_label(key->t0));
      break;
    case AM_KERNEL_HASH_FIRSTS:
      snprintf(name, capacity, "am_hash_firsts%s", masked);
      break;
    case AM_KERNEL_HASH_ROWS:
      snprintf(name, capacity, "am_hash_%s", key->op ? "group_counts" : "rows");
      break;
    case AM_KERNEL_HASH_GROUPS:
      snprintf(name, capacity, "am_hash_groups");
      break;
    case AM_KERNEL_HASH_IDS:
      snprintf(name, capacity, "am_hash_ids%s", masked);
      break;
    case AM_KERNEL_HASH_PROBE:
      snprintf(name, capacity, "am_%s_%s%s", key->op & 1 ? "is_in" : "index_in",
               am_type_label(key->t0), key->op & 2 ? "_skip_nulls" : "");
      break;
    default:
      break;
  }
}

void am_ks_hash_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name) {
  switch (key->kind) {
    case AM_KERNEL_HASH_BUILD:
      emit_build(sb, dialect, key, name);
      break;
    case AM_KERNEL_HASH_FIRSTS:
      emit_firsts(sb, dialect, key, name);
      break;
    case AM_KERNEL_HASH_ROWS:
      emit_rows(sb, dialect, key, name);
      break;
    case AM_KERNEL_HASH_GROUPS:
      emit_groups(sb, dialect, name);
      break;
    case AM_KERNEL_HASH_IDS:
      emit_ids(sb, dialect, key, name);
      break;
    case AM_KERNEL_HASH_PROBE:
      emit_probe(sb, dialect, key, name);
      break;
    default:
      break;
  }
}
