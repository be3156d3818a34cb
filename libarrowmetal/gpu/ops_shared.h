/* The helpers of gpu/ops.c that the ops of other families use
 * (ops_nulls.c): argument blocks, result arrays and one op's launches under
 * the commit lock. Private to gpu/; see ops.c for each. */
#ifndef AM_GPU_OPS_SHARED_H
#define AM_GPU_OPS_SHARED_H

#include "gpu/submit.h"

/* A device address as the argument block holds it. */
uint64_t am_gpu_ops_address(const void *pointer);
/* Whether the array's validity must be read (it has nulls, or may have). */
int am_gpu_ops_has_nulls(const am_array *array);
/* Whether every bitmap bound in the block (data and validity of operands 0
 * and 1) starts on a whole 32-bit word: the kernels' a.pad. */
int am_gpu_ops_words_aligned(const am_gpu_args *args);
/* Operand `which` (0 or 1) of the argument block: data, validity, offset. */
void am_gpu_ops_bind(am_gpu_args *args, int which, const am_array *array);
/* A scalar operand's bits (am_gpu_args.scalar). */
uint64_t am_gpu_ops_scalar_bits(const am_scalar *scalar);
/* An op with no check, named by the call. */
am_gpu_op am_gpu_ops_plain(const am_err *err);
/* `count` launches of one op, then its completion (a status slot first when
 * `want_slot`). */
int am_gpu_ops_run(am_err *err, am_gpu_device *gpu, am_gpu_op *op, int want_slot,
                   const am_kernel_key *keys, am_gpu_args *args, int count);
/* A result array of the device (offset 0). */
int am_gpu_ops_result(am_err *err, am_device *device, am_type type, int64_t length,
                      int with_validity, am_array **out);
/* Enqueues zeroing `bytes` at `pointer` (a buffer just allocated). */
int am_gpu_ops_zero(am_err *err, am_gpu_device *gpu, const void *pointer, int64_t bytes);
/* A result of `length` null slots. */
int am_gpu_ops_all_null(am_err *err, am_device *device, am_type type, int64_t length,
                        am_array **out);
/* The positions of the set bits of `mask` (a device bool array without
 * nulls), int64 in order, by the filter kernels; pending in a batch. */
int am_gpu_positions(am_err *err, const am_array *mask, am_array **out);
/* *out = result on success; frees it otherwise. Returns status. */
int am_gpu_ops_finish(int status, am_array *result, am_array **out);

#endif
