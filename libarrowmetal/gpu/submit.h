/* One op's life from launch to result, inside the GPU runtime (submit.c).
 *
 * An op takes the commit lock (am_gpu_op_begin), enqueues its launches and,
 * outside a batch, a timeline mark it then waits for; after the wait it runs
 * its check, which reads the op's status block. Inside a batch the check is
 * deferred to the thread's batch record and runs after the one wait at the
 * batch's end (or at am_wait for a committed batch). */
#ifndef AM_GPU_SUBMIT_H
#define AM_GPU_SUBMIT_H

#include "core/aggregate.h"
#include "core/ops.h"
#include "core/runtime.h"
#include "gpu/runtime.h"

typedef enum am_gpu_check {
  AM_GPU_CHECK_NONE,
  AM_GPU_CHECK_SCALAR,   /* convert a reduce status into the caller's am_scalar */
  AM_GPU_CHECK_ERROR,    /* report error_index as an error of this op */
  AM_GPU_CHECK_FILTER,   /* set the result's length */
  AM_GPU_CHECK_COUNT,    /* copy status->count to count_out */
  AM_GPU_CHECK_AGGREGATE /* am_gpu_finish_aggregate: agg's result(s) to scalar_out(2) */
} am_gpu_check;

typedef struct am_gpu_op {
  am_gpu_check check;
  int slot;              /* status slot, -1 if none */
  const char *call;      /* the am_* entry point, for deferred messages */
  am_reduce_op reduce;   /* CHECK_SCALAR */
  am_type type;          /* input type */
  am_type result_type;   /* CHECK_SCALAR: the scalar's type (the ABI's decision) */
  am_scalar *scalar_out; /* CHECK_SCALAR destination */
  int error_code;        /* CHECK_ERROR: AM_EZERODIV / AM_EINDEX / AM_EOVERFLOW / AM_EINVAL */
  const char *message;   /* CHECK_ERROR: what a checked unary op refused (static storage) */
  /* CHECK_ERROR of a checked binary op: its failures, and its name; the
   * kernel reports (bound - 1 - slot) * 2 + (failure - 1), bound being the
   * length. */
  const am_binary_check *failures;
  const char *op_name;
  am_buffer *culprit; /* CHECK_ERROR: the values the failing slot indexes (kept alive) */
  uint64_t culprit_address;
  am_type culprit_type;
  int64_t culprit_offset;
  int64_t bound;          /* CHECK_ERROR for take: source length; cast: target type */
  am_array *result;       /* CHECK_FILTER */
  int64_t *count_out;     /* CHECK_COUNT */
  int immediate;          /* wait even inside a batch (the caller needs the answer now) */
  am_agg_spec agg;        /* CHECK_AGGREGATE: what the ABI decided */
  am_scalar *scalar_out2; /* CHECK_AGGREGATE: the second result (min_max), or NULL */
  /* CHECK_SCALAR, CHECK_AGGREGATE of the ABI's call: the type the scalars
   * take once written (core/runtime.h), kept from when the op was made */
  am_scalar_tag tag;
} am_gpu_op;

/* A status slot, reset (error_index = UINT64_MAX, the rest 0). */
int am_gpu_status_acquire(am_err *err, am_gpu_device *gpu, int *slot);
void am_gpu_status_release(am_gpu_device *gpu, int slot);
static inline uint64_t am_gpu_status_address(const am_gpu_device *gpu, int slot) {
  return gpu->status_address + (uint64_t)slot * sizeof(am_gpu_status);
}

/* Begins an op: checks the sticky error, flushes this thread's batch on
 * another device, enters the context and takes the commit lock. */
int am_gpu_op_begin(am_err *err, am_gpu_device *gpu, int *token);
/* Enqueues one launch of `key` (with the commit lock held). */
int am_gpu_launch(am_err *err, am_gpu_device *gpu, const am_kernel_key *key, am_gpu_args *args);
/* Ends an op begun with am_gpu_op_begin: outside a batch marks, unlocks,
 * waits and runs the op's check; inside one, unlocks and defers the check to
 * the batch's end. `launch_status` is the status of the launches. */
int am_gpu_op_end(am_err *err, am_gpu_device *gpu, int token, int launch_status, am_gpu_op *op);

/* Runs an op's check once its work has finished (the resident worker
 * answered it): reads its status slot, then gives the slot back. */
int am_gpu_op_finish(am_err *err, am_gpu_device *gpu, am_gpu_op *op);

/* Runs `count` launches of one op under the commit lock and completes it
 * (gpu/ops.c's run, for ops written in other files); with `want_slot` the
 * op's status slot is taken first. */
int am_gpu_run_op(am_err *err, am_gpu_device *gpu, am_gpu_op *op, int want_slot,
                  const am_kernel_key *keys, am_gpu_args *args, int count);

/* The check of AM_GPU_CHECK_AGGREGATE (gpu/aggregate.c): reads the finished
 * op's status block into am_agg_stats and writes the result(s). */
void am_gpu_finish_aggregate(const am_gpu_op *op, const am_gpu_status *status);

/* Marks a filter result made inside a batch: its length is read from status
 * `slot` when someone first needs it (the slot then belongs to the array). */
int am_gpu_make_pending(am_err *err, am_gpu_device *gpu, int slot, am_array *array);

#endif
