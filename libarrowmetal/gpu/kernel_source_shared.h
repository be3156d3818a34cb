/* What kernel_source.c lends the kernel sources of other files (private to
 * gpu/): the text of the reduction skeleton and the emit helpers, so that a
 * family of kernels written in its own file builds on the same pieces, and
 * the hooks that file gives back to kernel_source.c's key, name and source
 * functions. */
#ifndef AM_GPU_KERNEL_SOURCE_SHARED_H
#define AM_GPU_KERNEL_SOURCE_SHARED_H

#include <stddef.h>

#include "core/backend.h"
#include "gpu/dialect.h"
#include "gpu/kernels.h"

/* The reduction skeleton (kernel_source.c, "REDUCE"): a class defines AccS,
 * AM_S2U, AM_U2S, AM_ACC_S0 and AM_ACC_C0, then reduce_head gives struct Acc
 * {s, c, cnt, nan} and am_acc_make; the class writes am_acc_add,
 * am_acc_merge and am_acc_finish; reduce_tail gives the shuffles, partial
 * records and the fixed warp and block trees. In the kernel, reduce_shared
 * declares the block's shared am_sh and am_last, reduce_locals n, stride,
 * hv, acc and the first slot i; the caller's loop accumulates;
 * reduce_combine makes the block's result and has the last block combine
 * the partials in block order and call am_acc_finish. */
extern const char *const am_ks_reduce_head;
extern const char *const am_ks_reduce_tail;
extern const char *const am_ks_reduce_shared;
extern const char *const am_ks_reduce_locals;
extern const char *const am_ks_reduce_combine;
/* REDUCE's loop over a thread's slots (`unroll` loads in flight, 0: the
 * kernel's own number for the type; then the rest), for the values' type t.
 * A thread adds its slots in the same order whatever the unroll. */
void am_ks_emit_reduce_loop(am_sb *sb, am_type t, int unroll);
/* `text` (a kernel's source, or part of one) in namespace `ns`, then an
 * #undef of every macro it defines at the start of a line: several such
 * texts then make one program (the resident worker, the batch interpreter). */
void am_ks_emit_namespace(am_sb *sb, const char *ns, const char *text);

/* A REDUCE class: AccS and its macros, reduce_head, am_acc_add,
 * am_acc_merge and am_acc_finish of `op` over `t` (the resident worker runs
 * the REDUCE kernels' own). */
void am_ks_emit_reduce_class(am_sb *sb, am_dialect d, am_reduce_op op, am_type t);
/* typedef T<idx> and AM_LOAD<idx>(i) for operand idx of type t. */
void am_ks_emit_operand(am_sb *sb, int idx, am_type t);
/* The argument block with typed pointers (the layout of am_gpu_args). */
void am_ks_emit_args(am_sb *sb, const char *in0, const char *in1, const char *out);
/* AM_SCALAR: the scalar argument as a T0. */
void am_ks_emit_scalar(am_sb *sb, am_type t);
/* `tmpl` with each '#' replaced by the digit k. */
void am_ks_emit_k(am_sb *sb, const char *tmpl, int k);
/* An integer type's smallest and largest value as source text. */
const char *am_ks_imin(am_type t);
const char *am_ks_imax(am_type t);
/* The pointer element type of a value operand (bool: bitmap bytes). */
const char *am_ks_ptype(am_type t);

/* ---- AM_KERNEL_AGGREGATE (kernel_source_aggregate.c) */

/* Whether the key names an aggregate kernel (in some dialect). */
int am_ks_aggregate_key_ok(const am_kernel_key *key);
/* Whether it needs a type the dialect lacks (double: MSL). */
int am_ks_aggregate_needs_missing_type(am_dialect dialect, const am_kernel_key *key);
void am_ks_aggregate_name(const am_kernel_key *key, char *name, size_t capacity);
/* Whether the op's kernel keeps positions (first, last, index: their
 * class has am_acc_add_at(acc, item, slot) instead of am_acc_add). */
int am_ks_aggregate_positional(int op);
/* Everything before the kernel: the operand, argument block, accumulator
 * class, the reduction skeleton's tail and AM_ITEM (the resident worker
 * runs it in a namespace of its own). */
void am_ks_emit_aggregate_class(am_sb *sb, am_dialect dialect, const am_kernel_key *key);
/* The aggregate kernel's loop over a thread's slots (after reduce_locals);
 * `unroll` as am_ks_emit_reduce_loop's, for the aggregates that use it. */
void am_ks_emit_aggregate_loop(am_sb *sb, const am_kernel_key *key, int unroll);
/* The kernel after the common preamble and helpers; the caller closes it. */
void am_ks_emit_aggregate(am_sb *sb, am_dialect dialect, const am_kernel_key *key,
                          const char *name);

#endif
