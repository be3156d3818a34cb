/* The ops that go through the resident worker when one runs
 * (resident_ops.c). Private to gpu/. */
#ifndef AM_GPU_RESIDENT_OPS_H
#define AM_GPU_RESIDENT_OPS_H

#include "gpu/submit.h"

/* How long a caller waits for the worker's answer before the device is
 * broken, unless am_wait_timeout_ms sets less: an answer takes microseconds,
 * and the worker has its multiprocessor to itself. */
#define AM_RESIDENT_TIMEOUT_MS 2000
int64_t am_resident_timeout_ms(void);

/* The REDUCE or AGGREGATE `key` over `args` (in0, valid0, off0, n, scalar)
 * through the worker, with `op`'s check run on its answer: *taken = 1 when
 * it went there (the result is in op's destinations), 0 when the caller
 * launches as always (op untouched). A worker that fails marks the device
 * broken. */
int am_gpu_resident_run(am_err *err, am_gpu_device *gpu, am_gpu_op *op, const am_kernel_key *key,
                        const am_gpu_args *args, int *taken);

#endif
