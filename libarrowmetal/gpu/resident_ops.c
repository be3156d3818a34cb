/* Small synchronous reductions and aggregates through the resident worker
 * (resident_ring.h) instead of a launch and a completion wait.
 *
 * A call goes to the worker only when its answer is the launch's bit for
 * bit and it cannot see unfinished work:
 *   - a REDUCE or AGGREGATE whose launch would be one block (up to
 *     AM_GPU_BLOCK * 8 slots): the worker runs that block's order
 *     (kernel_source_resident.c);
 *   - outside a batch (a batch's launches go out together at its end);
 *   - with the device's queue idle: everything enqueued before the call,
 *     which may have written its input (a batch committed without a wait,
 *     another thread's op, an upload), has finished. Work enqueued after the
 *     check cannot write the input: results go to new buffers.
 * Otherwise, or when no worker takes the request, the op launches as
 * always. */
#include "gpu/resident_ops.h"

#include "core/runtime.h"
#include "gpu/kernel_source_emit.h"

int am_gpu_resident_run(am_err *err, am_gpu_device *gpu, am_gpu_op *op, const am_kernel_key *key,
                        const am_gpu_args *args, int *taken) {
  *taken = 0;
  am_resident *resident = atomic_load_explicit(&gpu->resident, memory_order_acquire);
  if (!resident || !am_ks_resident_answers(key) || am_runtime_batch_depth() > 0 ||
      !am_resident_wanted(resident) || am_kernel_blocks(key, args->n, gpu->multiprocessors) != 1 ||
      !gpu->hooks->idle)
    return AM_OK;
  /* Wanted but gone (it left when idle or at its lifetime): launched again
   * for the calls after this one, which launches as always. */
  if (!am_resident_running(resident)) {
    am_resident_wake(resident);
    return AM_OK;
  }
  int token = 0;
  int status = am_gpu_op_begin(err, gpu, &token);
  if (status != AM_OK) return status;
  int idle = gpu->hooks->idle(gpu, 0);
  am_timeline_unlock(&gpu->timeline);
  gpu->hooks->leave(gpu, token);
  if (!idle) return AM_OK;

  status = am_gpu_status_acquire(err, gpu, &op->slot);
  if (status != AM_OK) return status;
  am_resident_request request = {0};
  request.kind = key->kind == AM_KERNEL_REDUCE ? AM_RESIDENT_REDUCE : AM_RESIDENT_AGGREGATE;
  request.op = (uint32_t)key->op;
  request.type = (uint32_t)key->t0;
  request.in0 = args->in0;
  request.valid0 = args->valid0;
  request.off0 = args->off0;
  request.n = args->n;
  request.status = am_gpu_status_address(gpu, op->slot);
  request.value = args->scalar;
  int served = 0;
  status = am_resident_call(err, resident, &request, am_resident_timeout_ms(), &served);
  if (status != AM_OK) {
    /* The worker faulted or stopped answering: the device cannot be
     * trusted, and the slot may still be written (it is not given back). */
    am_gpu_mark_broken(gpu, err->message);
    op->slot = -1;
    return status;
  }
  if (!served) { /* no worker took it: the caller launches */
    am_gpu_status_release(gpu, op->slot);
    op->slot = -1;
    return AM_OK;
  }
  *taken = 1;
  return am_gpu_op_finish(err, gpu, op);
}

int64_t am_resident_timeout_ms(void) {
  int64_t ms = am_runtime_wait_timeout_ms();
  return ms > 0 && ms < AM_RESIDENT_TIMEOUT_MS ? ms : AM_RESIDENT_TIMEOUT_MS;
}
