/* The resident worker's kernel (AM_KERNEL_RESIDENT_WORKER, CUDA only): one
 * block that polls the request ring of gpu/resident_ring.h and answers each
 * request in order.
 *
 * Its answers are the REDUCE and AGGREGATE kernels' own: each class's
 * accumulator (kernel_source.c's and kernel_source_aggregate.c's, in a
 * namespace of its own), loop and block tree, run by a block of the launched
 * kernel's size, which is what the launch is up to AM_GPU_BLOCK * 8 slots:
 * a resident sum is the launched one bit for bit, floats included. (A
 * first worker of one warp replayed the block's eight warps one after
 * another: 64 adds and nine shuffle trees in a row made a 1,000-row sum
 * slower than a launch.)
 *
 * The ring's words are read with ld.acquire.sys (a slot's ticket and its
 * request's words in one load of the warp) and written with
 * st.release.sys, the worker's leaving fenced with fence.sc.sys, and time
 * read from %globaltimer (PTX ISA, sm_70 and later). A CPU emulation of
 * CUDA (emu/cuda_emu.h) defines AM_HOST_EMULATION and its own spelling of
 * these four. Metal has no such worker (the seed RESIDENT.md): the key is
 * refused in MSL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/types.h"
#include "gpu/kernel_source_emit.h"
#include "gpu/kernel_source_shared.h"
#include "gpu/resident_ring.h"

int am_ks_resident_key_ok(const am_kernel_key *key) {
  return key->op == 0 && key->t0 == AM_TYPE_INVALID && key->t1 == AM_TYPE_INVALID;
}

int am_ks_resident_missing_type(am_dialect dialect, const am_kernel_key *key) {
  (void)key;
  return dialect != AM_DIALECT_CUDA;
}

void am_ks_resident_name(const am_kernel_key *key, char *name, size_t capacity) {
  (void)key;
  snprintf(name, capacity, "am_resident_worker");
}

static const char system_scope[] =
    "#ifndef AM_HOST_EMULATION\n"
    "DEVFN am_u64 am_res_load(GLOBAL am_u64 *w) {\n"
    "  am_u64 v;\n"
    "  asm volatile(\"ld.acquire.sys.global.u64 %0, [%1];\" : \"=l\"(v) : \"l\"(w) : \"memory\");\n"
    "  return v;\n"
    "}\n"
    "DEVFN void am_res_store(GLOBAL am_u64 *w, am_u64 v) {\n"
    "  asm volatile(\"st.release.sys.global.u64 [%0], %1;\" : : \"l\"(w), \"l\"(v) : \"memory\");\n"
    "}\n"
    "DEVFN void am_res_fence() { asm volatile(\"fence.sc.sys;\" : : : \"memory\"); }\n"
    "DEVFN am_u64 am_res_now() {\n"
    "  am_u64 t;\n"
    "  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
    "  return t;\n"
    "}\n"
    "#endif\n";

/* One class's answer to a request, as the launched kernel of one block
 * computes it: the worker is one block of AM_BLOCK threads, and each plays
 * the launched block's thread of its index through the kernel's own loop
 * (am_ks_emit_reduce_loop / am_ks_emit_aggregate_loop) and its block tree
 * (am_acc_block), so a resident sum is the launched one bit for bit, floats
 * included. The block's shared partials are the worker's one set
 * (am_res_partials), not a set per class. */
static const char serve_head[] =
    "__device__ __noinline__ void am_serve(const am_res_request r) {\n"
    "  static_assert(sizeof(Acc) <= sizeof am_res_partials / (AM_BLOCK / 32u), \"Acc\");\n"
    "  Args a;\n"
    "  a.in0 = (GLOBAL const T0P *)r.in0;\n"
    "  a.valid0 = (GLOBAL const am_u8 *)r.valid0;\n"
    "  a.off0 = r.off0;\n"
    "  a.n = r.n;\n"
    "  a.status = (GLOBAL am_u64 *)r.status;\n"
    "  a.scalar = r.value;\n"
    "  const am_u32 am_tid = threadIdx.x;\n"
    "  const am_u32 am_lane = am_tid & 31u;\n"
    "  const am_u32 am_warp = am_tid >> 5;\n"
    "  const am_u32 am_bid = 0u;\n"
    "  const am_u32 am_nblocks = 1u;\n"
    "  (void)am_bid;\n"
    "  (void)am_nblocks;\n"
    "  SPTR Acc *am_sh = (SPTR Acc *)am_res_partials;\n";
static const char serve_tail[] =
    "  acc = am_acc_block(acc, am_sh, am_lane, am_warp);\n"
    "  if (am_tid == 0u) am_acc_finish(a.status, acc);\n"
    "}\n";

static const char *const reduce_labels[] = {"sum", "min", "max", "mean"};

/* The aggregates with kernels of their own, as kernels.h lists them. */
static const int aggregate_ops[] = {AM_AGG_PRODUCT, AM_AGG_MIN_MAX, AM_AGG_VARIANCE,
                                    AM_AGG_FIRST,   AM_AGG_LAST,    AM_AGG_INDEX};
enum { AGGREGATE_OPS = sizeof aggregate_ops / sizeof aggregate_ops[0] };

/* The namespace of one kernel's class: REDUCE or an aggregate. Its text is
 * built apart first, so that every macro it defines is undefined after it,
 * whatever the class defines. */
static void emit_class(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *ns) {
  am_sb text;
  am_sb_init(&text);
  am_sb_printf(&text, "typedef %s T0P;\n", am_ks_ptype(k->t0));
  if (k->kind == AM_KERNEL_REDUCE) {
    am_ks_emit_operand(&text, 0, k->t0);
    am_ks_emit_args(&text, am_ks_ptype(k->t0), "am_u8", "am_u8");
    am_ks_emit_reduce_class(&text, d, (am_reduce_op)k->op, k->t0);
    am_sb_puts(&text, am_ks_reduce_tail);
  } else {
    am_ks_emit_aggregate_class(&text, d, k);
  }
  /* Values and validity bits through L2 (ld.global.cg): a kernel that
   * wrote the memory since the worker last read it has reached L2, but an
   * L1 line kept from an earlier request would be stale. */
  am_sb_puts(&text, "#undef AM_LOAD0\n");
  if (k->t0 == AM_BOOL)
    am_sb_puts(&text, "#define AM_LOAD0(i) am_res_bit(a.in0, a.off0 + (i))\n");
  else
    am_sb_puts(&text, "#define AM_LOAD0(i) __ldcg(a.in0 + a.off0 + (i))\n");
  am_sb_puts(&text, "#define am_bit am_res_bit\n");
  am_sb_puts(&text, serve_head);
  am_sb_puts(&text, am_ks_reduce_locals);
  /* Eight loads in flight for every type: a request's up to AM_GPU_BLOCK * 8
   * slots are then one round of loads a thread (the launched kernel takes
   * 64-bit values four at a time; its adds come in the same order). */
  if (k->kind == AM_KERNEL_REDUCE)
    am_ks_emit_reduce_loop(&text, k->t0, 8);
  else
    am_ks_emit_aggregate_loop(&text, k, 8);
  am_sb_puts(&text, serve_tail);
  char *body = am_sb_finish(&text);
  if (!body) { /* out of memory: the whole source fails */
    sb->failed = 1;
    return;
  }
  am_ks_emit_namespace(sb, ns, body);
  free(body);
}

/* A request's words (am_resident_request's, kind and op split). */
static const char request_struct[] =
    "struct am_res_request {\n"
    "  am_u32 kind, op, type;\n"
    "  am_u64 in0, valid0, status, value;\n"
    "  am_i64 off0, n;\n"
    "};\n"
    "// The request's words, the block tree's per-warp partials (every\n"
    "// class's Acc fits four words), and warp 0's word to the block.\n"
    "SMEM am_u64 am_res_words[AM_RES_SLOT];\n"
    "SMEM am_u64 am_res_partials[AM_BLOCK / 32u * 4u];\n"
    "SMEM am_u32 am_res_go;\n"
    "// Bit i of a bitmap, read from L2 (ld.global.cg), as the worker reads values.\n"
    "DEVFN am_u32 am_res_bit(GLOBAL const am_u8 *bm, am_i64 i) {\n"
    "  return ((am_u32)__ldcg(bm + (i >> 3)) >> (am_u32)(i & 7)) & 1u;\n"
    "}\n";

/* The class's namespace: am_sum_int8, ..., am_product_int8 (the aggregate
 * kernel's own name), ... */
static void class_name(const am_kernel_key *k, char *ns, size_t capacity) {
  if (k->kind == AM_KERNEL_REDUCE)
    snprintf(ns, capacity, "am_%s_%s", reduce_labels[k->op], am_type_label(k->t0));
  else
    am_ks_aggregate_name(k, ns, capacity);
}

/* Every class the worker answers. */
static void each_class(void (*fn)(const am_kernel_key *k, void *ctx), void *ctx) {
  for (int t = AM_BOOL; t <= AM_FLOAT64; t++) {
    for (int op = 0; op < 4; op++) {
      am_kernel_key k = {AM_KERNEL_REDUCE, op, (am_type)t, AM_TYPE_INVALID};
      fn(&k, ctx);
    }
    for (int i = 0; i < AGGREGATE_OPS; i++) {
      am_kernel_key k = {AM_KERNEL_AGGREGATE, aggregate_ops[i], (am_type)t, AM_TYPE_INVALID};
      if (am_ks_aggregate_key_ok(&k)) fn(&k, ctx);
    }
  }
}

typedef struct emit_ctx {
  am_sb *sb;
  am_dialect d;
} emit_ctx;

static void emit_one(const am_kernel_key *k, void *ctx) {
  emit_ctx *c = ctx;
  char ns[64];
  class_name(k, ns, sizeof ns);
  emit_class(c->sb, c->d, k, ns);
}

/* A case of the worker's switch: kind * 4096 + op * 16 + type. */
static void emit_case(const am_kernel_key *k, void *ctx) {
  char ns[64];
  class_name(k, ns, sizeof ns);
  int kind = k->kind == AM_KERNEL_REDUCE ? AM_RESIDENT_REDUCE : AM_RESIDENT_AGGREGATE;
  am_sb_printf(ctx, "    case %du: %s::am_serve(r); break;\n",
               kind * 4096 + k->op * 16 + (int)k->t0, ns);
}

void am_ks_resident_emit(am_sb *sb, am_dialect d, const am_kernel_key *key, const char *name) {
  (void)key;
  am_sb_printf(sb,
               "#define AM_RES_SERVED %d\n#define AM_RES_STATE %d\n#define AM_RES_BUSY %d\n"
               "#define AM_RES_STOP %d\n"
               "#define AM_RES_SLOTS %d\n#define AM_RES_SLOT %du\n#define AM_RES_NSLOTS %du\n"
               "#define AM_RES_BODY %du\n#define AM_RES_FIELD_BITS %d\n"
               "#define AM_RES_TAG(k) ((((k) + 1u) & 0x7fffu) | 0x8000u) // AM_RESIDENT_TAG\n",
               AM_RESIDENT_W_SERVED, AM_RESIDENT_W_STATE, AM_RESIDENT_W_BUSY, AM_RESIDENT_W_STOP,
               AM_RESIDENT_W_SLOTS, AM_RESIDENT_W_SLOT, AM_RESIDENT_SLOTS, AM_RESIDENT_BODY,
               AM_RESIDENT_FIELD_BITS);
  am_sb_puts(sb, request_struct);
  emit_ctx ctx = {sb, d};
  each_class(emit_one, &ctx);
  am_ks_emit_args(sb, "am_u64", "am_u8", "am_u8");
  am_sb_puts(sb, system_scope);
  /* A request's fields, from the block's copy of its words (am_resident_slot:
   * word 1 kind | op << 8 | type << 16, `value` in words 7 and 8). */
  am_sb_puts(sb,
             "#define AM_RES_FIELD(w) ((w) & ((1ull << AM_RES_FIELD_BITS) - 1u))\n"
             "DEVFN am_res_request am_res_request_of(SPTR const am_u64 *w) {\n"
             "  am_res_request r;\n"
             "  r.kind = (am_u32)(w[1] & 0xffu);\n"
             "  r.op = (am_u32)((w[1] >> 8) & 0xffu);\n"
             "  r.type = (am_u32)((w[1] >> 16) & 0xffu);\n"
             "  r.in0 = AM_RES_FIELD(w[2]);\n"
             "  r.valid0 = AM_RES_FIELD(w[3]);\n"
             "  r.off0 = (am_i64)AM_RES_FIELD(w[4]);\n"
             "  r.n = (am_i64)AM_RES_FIELD(w[5]);\n"
             "  r.status = AM_RES_FIELD(w[6]);\n"
             "  r.value = (w[7] & 0xffffffffull) | (w[8] & 0xffffffffull) << 32;\n"
             "  return r;\n"
             "}\n");
  /* No default: the host sends only the classes below
   * (am_ks_resident_answers). */
  am_sb_printf(sb,
               "DEVFN void am_res_serve(const am_res_request r) {\n"
               "  if (r.kind == %du) {\n"
               "    if (threadIdx.x == 0u) ((GLOBAL am_u64 *)r.status)[3] = r.value ^ 0x%llxull;\n"
               "    return;\n"
               "  }\n"
               "  switch (r.kind * 4096u + r.op * 16u + r.type) {\n",
               AM_RESIDENT_ECHO, (unsigned long long)AM_RESIDENT_ECHO_MIX);
  each_class(emit_case, sb);
  am_sb_puts(sb, "  }\n}\n");
  /* The loop. Warp 0 polls, its lane 0 reading the ring's words and making
   * every decision (leave, serve), handed round the warp by a shuffle so it
   * never diverges around its shuffles; the other warps wait at the block's
   * barrier meanwhile, taking no issue slots. `stop` is read every 32nd
   * idle pass: each read of host memory is a trip across the bus that a
   * new ticket would wait behind. A worker leaves after idle_ns without
   * requests, or after a.aux ns in all, busy or not: a context-wide
   * synchronize elsewhere in the process (another library's, a lazy module
   * load) waits for it. */
  am_sb_printf(
      sb,
      "extern \"C\" __global__ void __launch_bounds__(AM_BLOCK, 1) %s(const Args a) {\n"
      "  const am_u32 tid = threadIdx.x, lane = tid & 31u;\n"
      "  GLOBAL am_u64 *ring = (GLOBAL am_u64 *)a.in0;\n"
      "  const am_u64 idle_ns = (am_u64)a.n, life_ns = (am_u64)a.aux;\n"
      "  am_u64 next = 0u, busy = 0u, seen = 0u;\n"
      "  if (tid == 0u) {\n"
      "    next = am_res_load(ring + AM_RES_SERVED);\n"
      "    busy = am_res_load(ring + AM_RES_BUSY);\n"
      "    am_res_store(ring + AM_RES_STATE, %du);\n"
      "  }\n"
      "  if (tid < 32u) next = SHFL_IDX(next, 0);\n"
      "  const am_u64 born = am_res_now();\n"
      "  am_u64 last = born;\n"
      "  am_u32 polls = 0u, leaving = 0u;\n"
      "  for (;;) {\n"
      "    if (tid < 32u) {\n"
      "      GLOBAL am_u64 *q = ring + AM_RES_SLOTS + (next %% AM_RES_NSLOTS) * AM_RES_SLOT;\n"
      "      am_u32 go = 0u; // 1: serve; 2: start leaving; 3: out\n"
      "      while (go != 1u && go != 3u) {\n"
      "        go = 0u;\n"
      "        // The ticket (lane 0) and the request's words (lanes 1 to\n"
      "        // AM_RES_BODY) in one load, one trip across the bus; the words\n"
      "        // count once each carries this request's tag (am_resident_slot).\n"
      "        am_u64 w = 0u;\n"
      "        if (lane <= AM_RES_BODY) w = am_res_load(q + lane);\n"
      "        const bool ticket = SHFL_IDX(w, 0) == next + 1u;\n"
      "        const bool stale =\n"
      "            lane != 0u && lane <= AM_RES_BODY && (w >> AM_RES_FIELD_BITS) != "
      "AM_RES_TAG(next);\n"
      "        const bool whole = BALLOT(stale) == 0u;\n"
      "        if (lane == 0u) {\n"
      "          if (ticket) {\n"
      "            if (whole) { // else words read before they came: again\n"
      "              go = 1u;\n"
      "              seen = am_res_now();\n"
      "            }\n"
      "          } else if (leaving != 0u) {\n"
      "            go = 3u;\n"
      "          } else {\n"
      "            const am_u64 now = am_res_now();\n"
      "            const bool stop =\n"
      "                (++polls & 31u) == 0u && am_res_load(ring + AM_RES_STOP) != 0u;\n"
      "            if (stop || now - last > idle_ns || now - born > life_ns) {\n"
      "              // Leaving: every request seen after the fence is served, then out.\n"
      "              am_res_store(ring + AM_RES_STATE, %du);\n"
      "              am_res_fence();\n"
      "              go = 2u;\n"
      "            }\n"
      "          }\n"
      "        }\n"
      "        go = SHFL_IDX(go, 0);\n"
      "        if (go == 2u) leaving = 1u;\n"
      "        if (go == 1u && lane <= AM_RES_BODY) am_res_words[lane] = w;\n"
      "      }\n"
      "      if (lane == 0u) am_res_go = go;\n"
      "    }\n"
      "    BARRIER();\n"
      "    if (am_res_go == 3u) break;\n"
      "    am_res_serve(am_res_request_of(am_res_words));\n"
      "    BARRIER(); // every thread's part done, the words free for the next\n"
      "    next += 1u;\n"
      "    if (tid == 0u) {\n"
      "      last = am_res_now();\n"
      "      busy += last - seen; // before `served`: its release publishes it\n"
      "      ((volatile GLOBAL am_u64 *)ring)[AM_RES_BUSY] = busy;\n"
      "      am_res_store(ring + AM_RES_SERVED, next);\n"
      "    }\n"
      "  }\n"
      "  if (tid == 0u) am_res_store(ring + AM_RES_STATE, %du);\n",
      name, AM_RESIDENT_RUNNING, AM_RESIDENT_EXITING, AM_RESIDENT_EXITED);
}

int am_ks_resident_answers(const am_kernel_key *key) {
  if (key->t0 < AM_BOOL || key->t0 > AM_FLOAT64 || key->t1 != AM_TYPE_INVALID) return 0;
  if (key->kind == AM_KERNEL_REDUCE) return key->op >= 0 && key->op < 4;
  if (key->kind != AM_KERNEL_AGGREGATE || !am_ks_aggregate_key_ok(key)) return 0;
  for (int i = 0; i < AGGREGATE_OPS; i++)
    if (aggregate_ops[i] == key->op) return 1;
  return 0;
}
