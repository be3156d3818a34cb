/* The resident worker's kernel (AM_KERNEL_RESIDENT_WORKER, CUDA only): one
 * warp that polls the request ring of gpu/resident_ring.h and answers each
 * request in order.
 *
 * Its answers are the REDUCE and AGGREGATE kernels' own classes
 * (kernel_source.c's and kernel_source_aggregate.c's accumulators, each in a
 * namespace of its own), run in the order the launched kernel runs them when
 * it is one block, which it is up to AM_GPU_BLOCK * 8 slots: lane L plays
 * the block's threads L, L + 32, ..., each striding by AM_GPU_BLOCK, then
 * each of those eight warps' fixed shuffle tree, then the tree over the
 * eight results. So a resident sum is the launched one bit for bit, floats
 * included.
 *
 * The ring's words are read with ld.acquire.sys and written with
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

/* One class's answer to a request (its words, as am_res_request holds them).
 * The launched block's thread t takes slots t, t + 256, ... (at most 8 up to
 * 2,048 slots); lane L plays threads w * 32 + L. Every value and validity
 * bit the lane needs is loaded first (64 loads in flight: one after
 * another, a 1,000-row sum took 19.5 us on an H100, 14.4 with them in
 * flight), then taken in the kernel's order. AM_SERVE_ADD(acc, x, i) takes value x of slot i as the
 * class's kernel does (am_acc_add, or am_acc_add_at for the positional
 * aggregates); AM_SERVE_FIRST is what that kernel declares before its loop
 * (index's value). */
static const char serve[] =
    "__device__ __noinline__ void am_serve(const am_res_request r, am_u32 lane) {\n"
    "  Args a;\n"
    "  a.in0 = (GLOBAL const T0P *)r.in0;\n"
    "  a.valid0 = (GLOBAL const am_u8 *)r.valid0;\n"
    "  a.off0 = r.off0;\n"
    "  a.n = r.n;\n"
    "  a.status = (GLOBAL am_u64 *)r.status;\n"
    "  a.scalar = r.value;\n"
    "  const am_i64 n = a.n;\n"
    "  const bool hv = a.valid0 != 0;\n"
    "  AM_SERVE_FIRST\n"
    "  // Slots past n load slot n - 1 instead and are left out: no branch\n"
    "  // between the loads, so they all go out before the first comes back.\n"
    "  T0 x[AM_BLOCK / 32u][8];\n"
    "  bool in[AM_BLOCK / 32u][8];\n"
    "  if (n > 0 && hv) {\n"
    "#pragma unroll\n"
    "    for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++)\n"
    "#pragma unroll\n"
    "      for (am_u32 k = 0u; k < 8u; k++) {\n"
    "        const am_i64 i = (am_i64)(w * 32u + lane + k * AM_BLOCK);\n"
    "        const am_i64 c = i < n ? i : n - 1;\n"
    "        x[w][k] = AM_RES_LOAD(c);\n"
    "        in[w][k] = (i < n) & (am_res_bit(a.valid0, a.off0 + c) != 0u);\n"
    "      }\n"
    "  } else if (n > 0) {\n"
    "#pragma unroll\n"
    "    for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++)\n"
    "#pragma unroll\n"
    "      for (am_u32 k = 0u; k < 8u; k++) {\n"
    "        const am_i64 i = (am_i64)(w * 32u + lane + k * AM_BLOCK);\n"
    "        x[w][k] = AM_RES_LOAD(i < n ? i : n - 1);\n"
    "        in[w][k] = i < n;\n"
    "      }\n"
    "  } else {\n"
    "#pragma unroll\n"
    "    for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++)\n"
    "#pragma unroll\n"
    "      for (am_u32 k = 0u; k < 8u; k++) in[w][k] = false;\n"
    "  }\n"
    "  // Taken in order from there (a loop, not unrolled: 108 classes of\n"
    "  // unrolled adds took NVRTC 26 s).\n"
    "  Acc acc[AM_BLOCK / 32u];\n"
    "#pragma unroll 1\n"
    "  for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) {\n"
    "    acc[w] = am_acc_make(AM_ACC_S0);\n"
    "#pragma unroll 1\n"
    "    for (am_u32 k = 0u; k < 8u; k++)\n"
    "      if (in[w][k]) AM_SERVE_ADD(acc[w], x[w][k], (am_i64)(w * 32u + lane + k * AM_BLOCK));\n"
    "    acc[w] = am_acc_warp(acc[w], lane);\n"
    "  }\n"
    "  // am_acc_block's second tree: lane w takes warp w's result.\n"
    "  Acc y = am_acc_make(AM_ACC_S0);\n"
    "#pragma unroll 1\n"
    "  for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) {\n"
    "    Acc o;\n"
    "    o.s = AM_U2S(SHFL_IDX(AM_S2U(acc[w].s), 0));\n"
    "    o.c = AM_U2S(SHFL_IDX(AM_S2U(acc[w].c), 0));\n"
    "    o.cnt = SHFL_IDX(acc[w].cnt, 0);\n"
    "    o.nan = SHFL_IDX(acc[w].nan, 0);\n"
    "    if (lane == w) y = o;\n"
    "  }\n"
    "  y = am_acc_warp(y, lane);\n"
    "  if (lane == 0u) am_acc_finish(a.status, y);\n"
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
  /* AM_RES_LOAD(c): slot c's value, as AM_LOAD0 but with ld.global.cg
   * (__ldcg): a global load, which the compiler may issue ahead of the
   * stores of earlier values (a generic load might alias them), from L2,
   * which a kernel that wrote the memory since the worker last read it has
   * reached (an L1 line kept from an earlier request would be stale). */
  if (k->t0 == AM_BOOL)
    am_sb_puts(&text, "#define AM_RES_LOAD(c) am_res_bit(a.in0, a.off0 + (c))\n");
  else
    am_sb_puts(&text, "#define AM_RES_LOAD(c) __ldcg(a.in0 + a.off0 + (c))\n");
  int aggregate = k->kind == AM_KERNEL_AGGREGATE;
  const char *add = "am_acc_add(&(acc), (x))";
  if (aggregate && k->op == AM_AGG_INDEX)
    add = "am_acc_add_at(&(acc), (x) == am_want, (am_u64)(i))";
  else if (aggregate && am_ks_aggregate_positional(k->op))
    add = "am_acc_add_at(&(acc), (x), (am_u64)(i))";
  am_sb_printf(&text, "#define AM_SERVE_ADD(acc, x, i) %s\n#define AM_SERVE_FIRST %s\n", add,
               aggregate && k->op == AM_AGG_INDEX ? "const T0 am_want = AM_SCALAR;" : "");
  am_sb_puts(&text, serve);
  char *body = am_sb_finish(&text);
  if (!body) { /* out of memory: the whole source fails */
    sb->failed = 1;
    return;
  }
  am_sb_printf(sb, "namespace %s {\n", ns);
  am_sb_puts(sb, body);
  am_sb_puts(sb, "}\n");
  for (const char *p = body; (p = strstr(p, "#define ")) != NULL;) {
    p += 8;
    am_sb_printf(sb, "#undef %.*s\n", (int)strcspn(p, " (\n"), p);
  }
  free(body);
}

/* A request's words (am_resident_request's, kind and op split). */
static const char request_struct[] =
    "struct am_res_request {\n"
    "  am_u32 kind, op, type;\n"
    "  am_u64 in0, valid0, status, value;\n"
    "  am_i64 off0, n;\n"
    "};\n"
    "// Bit i of a bitmap, read from L2 (ld.global.cg) as AM_RES_LOAD reads values.\n"
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
  am_sb_printf(ctx, "    case %du: %s::am_serve(r, lane); break;\n",
               kind * 4096 + k->op * 16 + (int)k->t0, ns);
}

void am_ks_resident_emit(am_sb *sb, am_dialect d, const am_kernel_key *key, const char *name) {
  (void)key;
  am_sb_printf(sb,
               "#define AM_RES_SERVED %d\n#define AM_RES_STATE %d\n#define AM_RES_BUSY %d\n"
               "#define AM_RES_STOP %d\n"
               "#define AM_RES_SLOTS %d\n#define AM_RES_SLOT %du\n#define AM_RES_NSLOTS %du\n",
               AM_RESIDENT_W_SERVED, AM_RESIDENT_W_STATE, AM_RESIDENT_W_BUSY, AM_RESIDENT_W_STOP,
               AM_RESIDENT_W_SLOTS, AM_RESIDENT_W_SLOT, AM_RESIDENT_SLOTS);
  am_sb_puts(sb, request_struct);
  emit_ctx ctx = {sb, d};
  each_class(emit_one, &ctx);
  am_ks_emit_args(sb, "am_u64", "am_u8", "am_u8");
  am_sb_puts(sb, system_scope);
  /* A request's words, read from the slot by one coalesced load (lane j
   * takes word j) and handed round the warp: word 1 holds kind (low half)
   * and op, word 2 the type. */
  am_sb_puts(sb,
             "DEVFN am_res_request am_res_read(GLOBAL am_u64 *q, am_u32 lane) {\n"
             "  // volatile: from host memory each time (the slot comes round again\n"
             "  // every AM_RES_NSLOTS requests; no cached copy of its last lap).\n"
             "  const am_u64 w = lane < AM_RES_SLOT ? ((volatile GLOBAL am_u64 *)q)[lane] : 0u;\n"
             "  am_res_request r;\n"
             "  const am_u64 w1 = SHFL_IDX(w, 1);\n"
             "  r.kind = (am_u32)w1;\n"
             "  r.op = (am_u32)(w1 >> 32);\n"
             "  r.type = (am_u32)SHFL_IDX(w, 2);\n"
             "  r.in0 = SHFL_IDX(w, 3);\n"
             "  r.valid0 = SHFL_IDX(w, 4);\n"
             "  r.off0 = (am_i64)SHFL_IDX(w, 5);\n"
             "  r.n = (am_i64)SHFL_IDX(w, 6);\n"
             "  r.status = SHFL_IDX(w, 7);\n"
             "  r.value = SHFL_IDX(w, 8);\n"
             "  return r;\n"
             "}\n");
  /* No default: the host sends only the classes below
   * (am_ks_resident_answers). */
  am_sb_printf(sb,
               "DEVFN void am_res_serve(const am_res_request r, am_u32 lane) {\n"
               "  if (r.kind == %du) {\n"
               "    if (lane == 0u) ((GLOBAL am_u64 *)r.status)[3] = r.value ^ 0x%llxull;\n"
               "    return;\n"
               "  }\n"
               "  switch (r.kind * 4096u + r.op * 16u + r.type) {\n",
               AM_RESIDENT_ECHO, (unsigned long long)AM_RESIDENT_ECHO_MIX);
  each_class(emit_case, sb);
  am_sb_puts(sb, "  }\n}\n");
  /* The loop. Lane 0 reads the ring's words and makes every decision
   * (leave, serve), handed to the warp by a shuffle, so the warp never
   * diverges around its barriers. `stop` is read every 32nd idle pass: each
   * read of host memory is a trip across the bus that a new ticket would
   * wait behind. A worker leaves after idle_ns without requests, or after
   * a.aux ns in all, busy or not: a context-wide synchronize elsewhere in
   * the process (another library's, a lazy module load) waits for it. */
  am_sb_printf(
      sb,
      "extern \"C\" __global__ void __launch_bounds__(32, 1) %s(const Args a) {\n"
      "  if (threadIdx.x >= 32u) return;\n"
      "  const am_u32 lane = threadIdx.x;\n"
      "  GLOBAL am_u64 *ring = (GLOBAL am_u64 *)a.in0;\n"
      "  const am_u64 idle_ns = (am_u64)a.n, life_ns = (am_u64)a.aux;\n"
      "  am_u64 next = 0u, busy = 0u, seen = 0u;\n"
      "  if (lane == 0u) {\n"
      "    next = am_res_load(ring + AM_RES_SERVED);\n"
      "    busy = am_res_load(ring + AM_RES_BUSY);\n"
      "    am_res_store(ring + AM_RES_STATE, %du);\n"
      "  }\n"
      "  next = SHFL_IDX(next, 0);\n"
      "  const am_u64 born = am_res_now();\n"
      "  am_u64 last = born;\n"
      "  am_u32 polls = 0u, leaving = 0u;\n"
      "  for (;;) {\n"
      "    GLOBAL am_u64 *q = ring + AM_RES_SLOTS + (next %% AM_RES_NSLOTS) * AM_RES_SLOT;\n"
      "    am_u32 go = 0u; // 1: serve; 2: start leaving; 3: out\n"
      "    if (lane == 0u) {\n"
      "      if (am_res_load(q) == next + 1u) {\n"
      "        go = 1u;\n"
      "        seen = am_res_now();\n"
      "      } else if (leaving != 0u) {\n"
      "        go = 3u;\n"
      "      } else {\n"
      "        const am_u64 now = am_res_now();\n"
      "        const bool stop = (++polls & 31u) == 0u && am_res_load(ring + AM_RES_STOP) != 0u;\n"
      "        if (stop || now - last > idle_ns || now - born > life_ns) {\n"
      "          // Leaving: every request seen after the fence is served, then out.\n"
      "          am_res_store(ring + AM_RES_STATE, %du);\n"
      "          am_res_fence();\n"
      "          go = 2u;\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "    go = SHFL_IDX(go, 0);\n"
      "    if (go == 3u) break;\n"
      "    if (go == 2u) leaving = 1u;\n"
      "    if (go != 1u) continue;\n"
      "    __syncwarp(); // the other lanes read the request after lane 0's acquire\n"
      "    am_res_serve(am_res_read(q, lane), lane);\n"
      "    __syncwarp();\n"
      "    next += 1u;\n"
      "    if (lane == 0u) {\n"
      "      last = am_res_now();\n"
      "      busy += last - seen; // before `served`: its release publishes it\n"
      "      ((volatile GLOBAL am_u64 *)ring)[AM_RES_BUSY] = busy;\n"
      "      am_res_store(ring + AM_RES_SERVED, next);\n"
      "    }\n"
      "  }\n"
      "  if (lane == 0u) am_res_store(ring + AM_RES_STATE, %du);\n",
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
