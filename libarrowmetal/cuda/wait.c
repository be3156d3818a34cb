/* Every place the CUDA backend blocks in the driver, bounded by the wait
 * watchdog (am_wait_timeout_ms). With the watchdog off a wait is the
 * driver's own synchronize; with it on, the event or stream is polled until
 * it completes, fails or the limit passes, so a kernel that never ends gives
 * AM_EDEVICE instead of a hang. A failed or expired wait on the device's own
 * stream marks the device broken (its work may still be running); a wait on
 * a producer's stream or event does not, since that work is not ours. */
#include "core/runtime.h"
#include "core/timeline.h"
#include "cuda.h"

int am_cuda_poll_event(am_err *err, const am_cuda_driver *cu, CUevent event, int64_t deadline,
                       const char *what) {
  long interval_ns = 2000;
  for (;;) {
    CUresult result = cu->cuEventQuery(event);
    if (result == CUDA_SUCCESS) return AM_OK;
    if (result != CUDA_ERROR_NOT_READY) return am_cuda_fail(err, result, what);
    if (am_wait_expired(deadline)) return am_wait_timeout_fail(err, what);
    am_wait_pause(&interval_ns);
  }
}

int am_cuda_wait_foreign_event(am_err *err, const am_cuda_driver *cu, CUevent event,
                               const char *what) {
  int64_t deadline = am_wait_deadline();
  if (deadline) return am_cuda_poll_event(err, cu, event, deadline, what);
  CUresult result = cu->cuEventSynchronize(event);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, what);
}

int am_cuda_wait_foreign_stream(am_err *err, const am_cuda_driver *cu, CUstream stream,
                                const char *what) {
  int64_t deadline = am_wait_deadline();
  if (!deadline) {
    CUresult result = cu->cuStreamSynchronize(stream);
    return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, what);
  }
  /* An event recorded now completes once everything queued before it has. */
  CUevent event = NULL;
  CUresult result = cu->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING);
  if (result == CUDA_SUCCESS) result = cu->cuEventRecord(event, stream);
  int status = result == CUDA_SUCCESS ? am_cuda_poll_event(err, cu, event, deadline, what)
                                      : am_cuda_fail(err, result, what);
  if (event) cu->cuEventDestroy(event);
  return status;
}

static int own(am_err *err, am_cuda_device *cuda, int status) {
  if (status != AM_OK) am_gpu_mark_broken(&cuda->gpu, err->message);
  return status;
}

int am_cuda_wait_event(am_err *err, am_cuda_device *cuda, CUevent event, const char *what) {
  return own(err, cuda, am_cuda_wait_foreign_event(err, cuda->cu, event, what));
}

int am_cuda_wait_stream(am_err *err, am_cuda_device *cuda, const char *what) {
  int status = am_cuda_submit(err, cuda); /* a batch's held-back launches first */
  if (status != AM_OK) return status;
  return own(err, cuda, am_cuda_wait_foreign_stream(err, cuda->cu, cuda->stream, what));
}

int am_cuda_settle_before_copy(am_err *err, am_cuda_device *cuda, const char *what) {
  return am_runtime_wait_timeout_ms() > 0 ? am_cuda_wait_stream(err, cuda, what) : AM_OK;
}
