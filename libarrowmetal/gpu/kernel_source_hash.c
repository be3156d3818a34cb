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
 * No pass writes anything per row but the ids: the groups' first rows are
 * marked in a bitmap from the table's slots (HASH_FIRSTS) and compacted by
 * the filter kernels, which keeps pyarrow's first-occurrence order; each
 * group then finds its slot again from its first row's key (HASH_GROUP_SLOTS,
 * which leaves ~group in the slot's first-row word), and a row's id is its
 * key's slot's word (HASH_IDS). The same kernels serve GROUP_DENSE's table
 * (kernel_source_groupby.c) with the slot computed as key - minimum.
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

/* KT (the key word), AM_KEY(i) (row i's key), am_mix (a finalizer that
 * spreads every key bit over the low bits the table index uses), am_cas
 * (compare-and-swap returning the old word; MSL's weak exchange retried
 * while it fails spuriously) and am_find (the slot of a key already in the
 * table; AM_NONE when it is not). Dense (GROUP_DENSE's table): the key is
 * the value's 64-bit form, its slot the key minus `lo`, and in0 holds
 * values rather than bits. */
static void emit_key(am_sb *sb, am_dialect d, am_type t, int dense) {
  int w = wide(t);
  if (dense) {
    am_ks_operand(sb, 0, t);
    am_sb_printf(sb,
                 "typedef am_u64 KT;\n"
                 "#define AM_KEY(i) ((KT)(%s)AM_LOAD0(i))\n"
                 "DEVFN am_u64 am_find(GLOBAL const KT *keys, am_u64 cap, am_u64 lo, KT key) {\n"
                 "  (void)keys, (void)cap;\n"
                 "  return key - lo;\n"
                 "}\n",
                 am_type_kind_of(t) == AM_KIND_SIGNED ? "am_i64" : "am_u64");
    return;
  }
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
  am_sb_puts(sb,
             "DEVFN am_u64 am_find(GLOBAL const KT *keys, am_u64 cap, am_u64 lo, KT key) {\n"
             "  (void)lo;\n"
             "  if (key == (KT)0) return cap;\n"
             "  const am_u64 mask = cap - 1u;\n"
             "  am_u64 s = (am_u64)am_mix(key) & mask;\n"
             "  for (am_u64 probes = 0u; probes <= mask; probes++) {\n"
             "    const KT got = keys[s];\n"
             "    if (got == key) return s;\n"
             "    if (got == (KT)0) return AM_NONE;\n"
             "    s = (s + 1u) & mask;\n"
             "  }\n"
             "  return AM_NONE;\n"
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
 * every row on the same few words. Op bit 0 counts; without it (unique,
 * dictionary_encode, count_distinct, a value set) the counts stay 0: with
 * many distinct keys those adds are most of the build.
 *
 * Op bit 1 (bounded): the table may hold fewer keys than the rows (ops_hash.c
 * first tries one that stays in the L2 cache). A warp adds its lanes' new
 * keys to the word after the table in one atomic add, whose old value says
 * when more than half the slots are taken: the warp then stops inserting
 * and reports it through the status count (the host builds again with room
 * for every row). Every warp learns it at its next insert, so the table
 * holds at most cap / 2 + the grid's threads keys (ops_hash.c keeps that
 * under cap) and probes stay short. One add per warp, not per key: a single
 * word taking a million atomics was a third of the build (H200, 50M rows,
 * 1M distinct keys: 2.19 ms against 1.58 ms). Unbounded tables have room
 * for every row and count nothing. */
static void emit_build(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, am_ks_store(k->t0), "am_u8", "am_u32");
  emit_key(sb, d, k->t0, 0);
  emit_max32(sb, d);
  am_sb_printf(sb, "#define AM_MATCH %d\n#define AM_COUNTS %d\n#define AM_BOUNDED %d\n",
               d == AM_DIALECT_CUDA, k->op & 1, (k->op >> 1) & 1);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb,
             "  const am_u64 mask = cap - 1u;\n"
             "  GLOBAL am_u32 *tab = a.out;\n"
             "  GLOBAL KT *keys = (GLOBAL KT *)a.out;\n"
             "#if AM_BOUNDED\n"
             "  GLOBAL am_u32 *taken = tab + a.scalar + 2u * (cap + 2u);\n"
             "  const am_u32 room = (am_u32)(cap / 2u);\n"
             "#define AM_INSERTED() inserted = true\n"
             "#else\n"
             "#define AM_INSERTED()\n"
             "#endif\n"
             "  const bool hv0 = a.valid0 != 0;\n"
             "  bool full = false;\n");
  am_sb_puts(sb, warp_loop);
  am_sb_puts(sb,
             "    const bool live = i < n;\n"
             "    am_u64 s = cap + 1u;\n"
             "#if AM_BOUNDED\n"
             "    bool inserted = false;\n"
             "#endif\n"
             "    if (live && !full && (!hv0 || am_bit(a.valid0, a.off0 + i) != 0u)) {\n"
             "      const KT key = AM_KEY(i);\n"
             "      s = cap;\n"
             "      if (key != (KT)0) {\n"
             "        s = (am_u64)am_mix(key) & mask;\n"
             "        // A probe that has seen every slot taken reports the table full.\n"
             "        am_u64 probes = 0;\n"
             "        for (;;) {\n"
             "          KT old = keys[s];\n"
             "          if (old == (KT)0) {\n"
             "            old = am_cas(keys + s, (KT)0, key);\n"
             "            if (old == (KT)0) {\n"
             "              AM_INSERTED();\n"
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
             "#if AM_BOUNDED\n"
             "    const am_u32 took = BALLOT(inserted);\n"
             "    if (took != 0u) {\n"
             "      am_u32 before = 0u;\n"
             "      if (am_lane == 0u) before = ATOMIC_ADD32(taken, POPC(took));\n"
             "      if (SHFL_IDX(before, 0u) + POPC(took) > room) full = true;\n"
             "    }\n"
             "#endif\n"
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
             "  }\n"
             "  if (BALLOT(full) != 0u && am_lane == 0u) am_status_add_count(a.status, 1u);\n");
}

/* ---- HASH_FIRSTS: per slot, its first row's bit (no two slots share a
 * row; atomic OR because they share words). */
static void emit_firsts(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u32", "am_u8", "am_u32");
  am_sb_printf(sb, "#define AM_MASK_NULLS %d\n", k->op);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb,
             "  for (am_i64 s = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; s < n; s += stride) {\n"
             "    const am_u32 f = a.in0[a.scalar + (am_u64)s];\n"
             "    if (f == 0u || (AM_MASK_NULLS && (am_u64)s == cap + 1u)) continue;\n"
             "    const am_u32 row = ~f;\n"
             "    ATOMIC_OR32(a.out + (row >> 5), 1u << (row & 31u));\n"
             "  }\n");
}

/* The table's first-row word and slot of a row's key: dense tables keep no
 * keys and start their first rows at word 0, `lo` in a.scalar. */
static const char slot_of_row[] =
    "  const am_u64 fw = AM_DENSE ? 0u : a.scalar;\n"
    "  const am_u64 lo = AM_DENSE ? a.scalar : 0u;\n"
    "  const bool hv0 = a.valid0 != 0;\n"
    "  (void)lo;\n"
    "#define AM_SLOT(r) \\\n"
    "  (!hv0 || am_bit(a.valid0, a.off0 + (r)) != 0u ? am_find(keys, cap, lo, AM_KEY(r)) \\\n"
    "                                                : cap + 1u)\n";

/* ---- HASH_GROUP_SLOTS */
static void emit_group_slots(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  int dense = k->op & 1;
  am_ks_args(sb, dense ? am_ks_ptype(k->t0) : am_ks_store(k->t0), "am_i64", "am_i64");
  emit_key(sb, d, k->t0, dense);
  am_sb_printf(sb, "#define AM_DENSE %d\n", dense);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb,
             "  GLOBAL am_u32 *tab = a.out_valid;\n"
             "  GLOBAL const KT *keys = (GLOBAL const KT *)a.out_valid;\n");
  am_sb_puts(sb, slot_of_row);
  am_sb_puts(sb,
             "  for (am_i64 g = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; g < n; g += stride) {\n"
             "    const am_u64 s = AM_SLOT(a.in1[g]);\n"
             "    if (a.out != 0) a.out[g] = (am_i64)tab[fw + cap + 2u + s];\n"
             "    tab[fw + s] = ~(am_u32)g;\n"
             "    if (s == cap + 1u) am_status_add_count(a.status, (am_u64)g + 1u);\n"
             "  }\n");
}

/* ---- HASH_IDS */
static void emit_ids(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  int dense = (k->op >> 1) & 1;
  am_ks_args(sb, dense ? am_ks_ptype(k->t0) : am_ks_store(k->t0), "am_u32", "am_i32");
  emit_key(sb, d, k->t0, dense);
  am_sb_printf(sb, "#define AM_MASK_NULLS %d\n#define AM_DENSE %d\n", k->op & 1, dense);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb,
             "  GLOBAL const am_u32 *tab = a.in1;\n"
             "  GLOBAL const KT *keys = (GLOBAL const KT *)a.in1;\n");
  am_sb_puts(sb, slot_of_row);
  am_sb_puts(sb, warp_loop);
  am_sb_puts(sb,
             "    bool ok = false;\n"
             "    if (i < n) {\n"
             "      const am_u64 s = AM_SLOT(i);\n"
             "      ok = !(AM_MASK_NULLS && s == cap + 1u);\n"
             "      a.out[i] = ok ? (am_i32)~tab[fw + s] : 0;\n"
             "    }\n"
             "    const am_u32 w = BALLOT(ok);\n"
             "    if (am_lane == 0u && a.out_valid != 0) a.out_valid[base >> 5] = w;\n"
             "  }\n");
}

/* ---- HASH_PROBE */
static void emit_probe(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  int as_bool = k->op & 1, skip_nulls = (k->op >> 1) & 1;
  am_ks_args(sb, am_ks_store(k->t0), "am_u32", as_bool ? "am_u32" : "am_i32");
  emit_key(sb, d, k->t0, 0);
  am_sb_printf(sb, "#define AM_AS_BOOL %d\n#define AM_SKIP_NULLS %d\n", as_bool, skip_nulls);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb, rows_head);
  am_sb_puts(sb,
             "  GLOBAL const am_u32 *tab = a.in1;\n"
             "  GLOBAL const KT *keys = (GLOBAL const KT *)a.in1;\n"
             "  const bool hv0 = a.valid0 != 0;\n");
  am_sb_puts(sb, warp_loop);
  am_sb_puts(sb,
             "    bool ok = false;\n"
             "    if (i < n) {\n"
             "      const bool valid = !hv0 || am_bit(a.valid0, a.off0 + i) != 0u;\n"
             "      am_u64 s = AM_NONE;\n"
             "      if (valid) s = am_find(keys, cap, 0u, AM_KEY(i));\n"
             "      else if (!AM_SKIP_NULLS) s = cap + 1u;\n"
             "      // The slot's ~(first row); 0: no row of the set has the key.\n"
             "      const am_u32 f = s != AM_NONE ? tab[a.scalar + s] : 0u;\n"
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

/* GROUP_DENSE's tables are for integer keys. */
static int dense_key(am_type t) {
  int kind = am_type_kind_of(t);
  return kind == AM_KIND_SIGNED || kind == AM_KIND_UNSIGNED;
}

int am_ks_hash_key_ok(const am_kernel_key *key) {
  switch (key->kind) {
    case AM_KERNEL_HASH_BUILD:
    case AM_KERNEL_HASH_PROBE:
      return key->op >= 0 && key->op <= 3 && am_type_valid((int)key->t0);
    case AM_KERNEL_HASH_FIRSTS:
      return key->op == 0 || key->op == 1;
    case AM_KERNEL_HASH_GROUP_SLOTS:
      return (key->op == 0 && am_type_valid((int)key->t0)) || (key->op == 1 && dense_key(key->t0));
    case AM_KERNEL_HASH_IDS:
      return key->op >= 0 && key->op <= 3 && am_type_valid((int)key->t0) &&
             (key->op < 2 || dense_key(key->t0));
    default:
      return 0;
  }
}

/* Metal: no 64-bit atomic compare-and-swap on every GPU, so no 64-bit keys
 * in a hashed table (FIRSTS reads no keys). */
int am_ks_hash_missing_type(am_dialect dialect, const am_kernel_key *key) {
  return dialect == AM_DIALECT_MSL && key->kind != AM_KERNEL_HASH_FIRSTS && wide(key->t0);
}

void am_ks_hash_name(const am_kernel_key *key, char *name, size_t capacity) {
  const char *t0 = am_type_valid((int)key->t0) ? am_type_label(key->t0) : "";
  switch (key->kind) {
    case AM_KERNEL_HASH_BUILD:
      snprintf(name, capacity, "am_hash_build%s%s_%s", key->op & 1 ? "_counted" : "",
               key->op & 2 ? "_bounded" : "", t0);
      break;
    case AM_KERNEL_HASH_FIRSTS:
      snprintf(name, capacity, "am_hash_firsts%s", key->op ? "_masked" : "");
      break;
    case AM_KERNEL_HASH_GROUP_SLOTS:
      snprintf(name, capacity, "am_hash_group_slots%s_%s", key->op ? "_dense" : "", t0);
      break;
    case AM_KERNEL_HASH_IDS:
      snprintf(name, capacity, "am_hash_ids%s%s_%s", key->op & 1 ? "_masked" : "",
               key->op & 2 ? "_dense" : "", t0);
      break;
    case AM_KERNEL_HASH_PROBE:
      snprintf(name, capacity, "am_%s_%s%s", key->op & 1 ? "is_in" : "index_in", t0,
               key->op & 2 ? "_skip_nulls" : "");
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
    case AM_KERNEL_HASH_GROUP_SLOTS:
      emit_group_slots(sb, dialect, key, name);
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
