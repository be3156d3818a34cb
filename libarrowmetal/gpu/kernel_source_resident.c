/* The resident worker's kernel (AM_KERNEL_RESIDENT_WORKER, CUDA only): one
 * warp that polls the request ring of gpu/resident_ring.h and answers each
 * request in order.
 *
 * Its reductions are the REDUCE kernels' own classes (kernel_source.c's
 * accumulators, each in a namespace of its own), run in the order the
 * launched kernel runs them when it is one block, which it is up to
 * AM_GPU_BLOCK * 8 slots: lane L plays the block's threads L, L + 32, ...,
 * each striding by AM_GPU_BLOCK, then each of those eight warps' fixed
 * shuffle tree, then the tree over the eight results. So a resident sum is
 * the launched one bit for bit, floats included.
 *
 * The ring's words are read with ld.acquire.sys and written with
 * st.release.sys, the worker's leaving fenced with fence.sc.sys, and time
 * read from %globaltimer (PTX ISA, sm_70 and later). A CPU emulation of
 * CUDA (emu/cuda_emu.h) defines AM_HOST_EMULATION and its own spelling of
 * these four. Metal has no such worker (the seed RESIDENT.md): the key is
 * refused in MSL. */
#include <stdio.h>

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

/* The reduction of one (op, type) class over request `q` (ring words). */
static const char serve_reduce[] =
    "__device__ __noinline__ void am_serve(GLOBAL am_u64 *q, am_u32 lane) {\n"
    "  Args a;\n"
    "  a.in0 = (GLOBAL const T0P *)q[3];\n"
    "  a.valid0 = (GLOBAL const am_u8 *)q[4];\n"
    "  a.off0 = (am_i64)q[5];\n"
    "  a.n = (am_i64)q[6];\n"
    "  a.status = (GLOBAL am_u64 *)q[7];\n"
    "  const am_i64 n = a.n;\n"
    "  const bool hv = a.valid0 != 0;\n"
    "  // Virtual thread w * 32 + lane of the launched kernel's one block.\n"
    "  Acc acc[AM_BLOCK / 32u];\n"
    "#pragma unroll 1\n"
    "  for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) {\n"
    "    acc[w] = am_acc_make(AM_ACC_S0);\n"
    "    for (am_i64 i = (am_i64)(w * 32u + lane); i < n; i += AM_BLOCK)\n"
    "      if (!hv || am_bit(a.valid0, a.off0 + i) != 0u) am_acc_add(&acc[w], AM_LOAD0(i));\n"
    "    acc[w] = am_acc_warp(acc[w], lane);\n"
    "  }\n"
    "  // am_acc_block's second tree: lane w takes warp w's result.\n"
    "  Acc x = am_acc_make(AM_ACC_S0);\n"
    "  for (am_u32 w = 0u; w < AM_BLOCK / 32u; w++) {\n"
    "    Acc o;\n"
    "    o.s = AM_U2S(SHFL_IDX(AM_S2U(acc[w].s), 0));\n"
    "    o.c = AM_U2S(SHFL_IDX(AM_S2U(acc[w].c), 0));\n"
    "    o.cnt = SHFL_IDX(acc[w].cnt, 0);\n"
    "    o.nan = SHFL_IDX(acc[w].nan, 0);\n"
    "    if (lane == w) x = o;\n"
    "  }\n"
    "  x = am_acc_warp(x, lane);\n"
    "  if (lane == 0u) am_acc_finish(a.status, x);\n"
    "}\n";

static const char *const reduce_labels[] = {"sum", "min", "max", "mean"};

static void emit_class(am_sb *sb, am_dialect d, int op, am_type t) {
  am_sb_printf(sb, "namespace am_%s_%s {\n", reduce_labels[op], am_type_label(t));
  am_ks_emit_operand(sb, 0, t);
  am_sb_printf(sb, "typedef %s T0P;\n", am_ks_ptype(t));
  am_ks_emit_args(sb, am_ks_ptype(t), "am_u8", "am_u8");
  am_ks_emit_reduce_class(sb, d, (am_reduce_op)op, t);
  am_sb_puts(sb, am_ks_reduce_tail);
  am_sb_puts(sb, serve_reduce);
  am_sb_puts(sb,
             "}\n"
             "#undef AM_LOAD0\n#undef AM_S2U\n#undef AM_U2S\n#undef AM_ACC_S0\n"
             "#undef AM_ACC_C0\n#undef AM_RESULT\n");
}

void am_ks_resident_emit(am_sb *sb, am_dialect d, const am_kernel_key *key, const char *name) {
  (void)key;
  for (int op = 0; op < 4; op++)
    for (int t = AM_BOOL; t <= AM_FLOAT64; t++) emit_class(sb, d, op, (am_type)t);
  am_ks_emit_args(sb, "am_u64", "am_u8", "am_u8");
  am_sb_puts(sb, system_scope);
  am_sb_printf(sb,
               "#define AM_RES_SERVED %d\n#define AM_RES_STATE %d\n#define AM_RES_STOP %d\n"
               "#define AM_RES_SLOTS %d\n#define AM_RES_SLOT %d\n#define AM_RES_NSLOTS %du\n",
               AM_RESIDENT_W_SERVED, AM_RESIDENT_W_STATE, AM_RESIDENT_W_STOP, AM_RESIDENT_W_SLOTS,
               AM_RESIDENT_W_SLOT, AM_RESIDENT_SLOTS);
  /* One request: word 1 holds kind (low half) and op, word 2 the type. */
  am_sb_printf(sb,
               "DEVFN void am_res_serve(GLOBAL am_u64 *q, am_u32 lane) {\n"
               "  const am_u32 kind = (am_u32)q[1], op = (am_u32)(q[1] >> 32);\n"
               "  const am_u32 type = (am_u32)q[2];\n"
               "  if (kind == %du) {\n"
               "    if (lane == 0u) ((GLOBAL am_u64 *)q[7])[3] = q[8] ^ 0x%llxull;\n"
               "    return;\n"
               "  }\n"
               "  if (kind != %du) return;\n"
               "  switch (op * 16u + type) {\n",
               AM_RESIDENT_ECHO, (unsigned long long)AM_RESIDENT_ECHO_MIX, AM_RESIDENT_REDUCE);
  for (int op = 0; op < 4; op++)
    for (int t = AM_BOOL; t <= AM_FLOAT64; t++)
      am_sb_printf(sb, "    case %du: am_%s_%s::am_serve(q, lane); break;\n", op * 16 + t,
                   reduce_labels[op], am_type_label((am_type)t));
  am_sb_puts(sb, "  }\n}\n");
  am_sb_printf(
      sb,
      "extern \"C\" __global__ void __launch_bounds__(32, 1) %s(const Args a) {\n"
      "  if (threadIdx.x >= 32u) return;\n"
      "  const am_u32 lane = threadIdx.x;\n"
      "  GLOBAL am_u64 *ring = (GLOBAL am_u64 *)a.in0;\n"
      "  const am_u64 idle_ns = (am_u64)a.n;\n"
      "  am_u64 next = 0u;\n"
      "  if (lane == 0u) {\n"
      "    next = am_res_load(ring + AM_RES_SERVED);\n"
      "    am_res_store(ring + AM_RES_STATE, %du);\n"
      "  }\n"
      "  next = SHFL_IDX(next, 0);\n"
      "  am_u64 last = am_res_now();\n"
      "  bool leaving = false;\n"
      "  for (;;) {\n"
      "    GLOBAL am_u64 *q = ring + AM_RES_SLOTS + (next %% AM_RES_NSLOTS) * AM_RES_SLOT;\n"
      "    am_u64 ticket = 0u;\n"
      "    if (lane == 0u) ticket = am_res_load(q);\n"
      "    ticket = SHFL_IDX(ticket, 0);\n"
      "    if (ticket == next + 1u) {\n"
      "      __syncwarp(); // the other lanes read the request after lane 0's acquire\n"
      "      am_res_serve(q, lane);\n"
      "      __syncwarp();\n"
      "      next += 1u;\n"
      "      if (lane == 0u) am_res_store(ring + AM_RES_SERVED, next);\n"
      "      last = am_res_now();\n"
      "      continue;\n"
      "    }\n"
      "    // Leaving: every request seen after the fence is served, then out.\n"
      "    if (leaving) break;\n"
      "    am_u64 stop = 0u;\n"
      "    if (lane == 0u) stop = am_res_load(ring + AM_RES_STOP);\n"
      "    stop = SHFL_IDX(stop, 0);\n"
      "    if (stop != 0u || am_res_now() - last > idle_ns) {\n"
      "      if (lane == 0u) {\n"
      "        am_res_store(ring + AM_RES_STATE, %du);\n"
      "        am_res_fence();\n"
      "      }\n"
      "      __syncwarp();\n"
      "      leaving = true;\n"
      "    }\n"
      "  }\n"
      "  if (lane == 0u) am_res_store(ring + AM_RES_STATE, %du);\n",
      name, AM_RESIDENT_RUNNING, AM_RESIDENT_EXITING, AM_RESIDENT_EXITED);
}
