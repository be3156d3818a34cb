/* The CUDA backend's resident worker (gpu/resident_ring.h): the ring in
 * host-mapped memory, the worker kernel (AM_KERNEL_RESIDENT_WORKER) launched
 * on a stream of its own, and am_resident_mode's answers.
 *
 * Set up on the first am_resident_mode(1) and kept for the device's life:
 * the ring (under 9 KB of pinned memory), the stream, the compiled kernel.
 * While a worker runs it holds one block's place on a multiprocessor (256
 * threads, the launched kernels' block); it leaves
 * after ARROWMETAL_RESIDENT_IDLE_MS (default 50) without requests, and the
 * next small call launches it again; it also leaves after 100 ms in all,
 * busy or not, since a context-wide synchronize (another library's
 * cudaDeviceSynchronize, a lazy module load) waits for it to leave. No
 * worker on a GPU with a kernel run-time limit (a display's), which would
 * end it and break the context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "gpu/resident_ops.h"

enum { PROBE_MS = 2000, STOP_MS = 2000, IDLE_MS_DEFAULT = 50 };

struct am_cuda_resident {
  am_resident ring_state;
  am_resident_ring *ring;
  CUstream stream;
  CUfunction worker;
};

static int64_t idle_ns(void) {
  const char *value = getenv("ARROWMETAL_RESIDENT_IDLE_MS");
  char *end = NULL;
  long long ms = value && *value ? strtoll(value, &end, 10) : IDLE_MS_DEFAULT;
  if (!value || !*value || *end != '\0' || ms < 0) ms = IDLE_MS_DEFAULT;
  return (int64_t)ms * 1000000;
}

static int launch(am_err *err, void *context, uint64_t ring, int64_t idle, int64_t life) {
  am_cuda_device *cuda = context;
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  args.in0 = ring;
  args.n = idle;
  args.aux = life;
  void *params[] = {&args};
  int pushed = am_cuda_enter(cuda);
  CUresult result = cuda->cu->cuLaunchKernel(cuda->resident->worker, 1, 1, 1, AM_GPU_BLOCK, 1, 1, 0,
                                             cuda->resident->stream, params, NULL);
  am_cuda_leave(cuda, pushed);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, "cuLaunchKernel (resident)");
}

/* A fault in the worker ends its launch with an error on its stream. */
static int failed(void *context, char *message, size_t capacity) {
  am_cuda_device *cuda = context;
  if (atomic_load(&cuda->gpu.broken)) {
    snprintf(message, capacity, "the device is broken: %s", cuda->gpu.broken_message);
    return 1;
  }
  int pushed = am_cuda_enter(cuda);
  CUresult result = cuda->cu->cuStreamQuery(cuda->resident->stream);
  am_cuda_leave(cuda, pushed);
  if (result == CUDA_SUCCESS || result == CUDA_ERROR_NOT_READY) return 0;
  const char *text = NULL;
  cuda->cu->cuGetErrorString(result, &text);
  snprintf(message, capacity, "cuStreamQuery: %s (CUDA error %d)", text ? text : "unknown",
           (int)result);
  return 1;
}

static const am_resident_backend backend = {launch, failed};

/* The ring, its stream and the compiled worker, once per device. */
static int set_up(am_err *err, am_cuda_device *cuda) {
  am_cuda_resident *resident = calloc(1, sizeof *resident);
  if (!resident) return am_fail(err, AM_ENOMEM, "out of memory");
  const am_cuda_driver *cu = cuda->cu;
  int pushed = am_cuda_enter(cuda);
  void *ring = NULL;
  CUdeviceptr ring_device = 0;
  CUresult result = cu->cuMemHostAlloc(&ring, sizeof(am_resident_ring),
                                       CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
  const char *call = "cuMemHostAlloc";
  if (result == CUDA_SUCCESS) {
    call = "cuMemHostGetDevicePointer";
    result = cu->cuMemHostGetDevicePointer(&ring_device, ring, 0);
  }
  if (result == CUDA_SUCCESS) {
    call = "cuStreamCreate";
    result = cu->cuStreamCreate(&resident->stream, CU_STREAM_NON_BLOCKING);
  }
  int status = result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, call);
  am_kernel_key key = {AM_KERNEL_RESIDENT_WORKER, 0, AM_TYPE_INVALID, AM_TYPE_INVALID};
  void *worker = NULL;
  if (status == AM_OK) status = am_gpu_kernel(err, &cuda->gpu, &key, &worker);
  am_cuda_leave(cuda, pushed);
  if (status != AM_OK) {
    /* Kept by a device that may try again: nothing half-made stays. */
    if (resident->stream) cu->cuStreamDestroy(resident->stream);
    if (ring) cu->cuMemFreeHost(ring);
    free(resident);
    return status;
  }
  am_mem_reserve(&cuda->gpu.device->memory, (int64_t)sizeof(am_resident_ring));
  resident->ring = ring;
  resident->worker = worker;
  cuda->resident = resident;
  am_resident_init(&resident->ring_state, ring, ring_device, &backend, cuda, idle_ns());
  atomic_store_explicit(&cuda->gpu.resident, &resident->ring_state, memory_order_release);
  return AM_OK;
}

/* The reason handed out: a copy per thread (am_resident_status's text
 * stays valid on the caller's thread until its next call). */
static _Thread_local char reason_text[sizeof(((am_resident *)0)->reason)];

static int answer(am_cuda_device *cuda, const char *why, const char **reason) {
  if (why) {
    snprintf(reason_text, sizeof reason_text, "%s", why);
  } else {
    am_resident_reason(&cuda->resident->ring_state, reason_text, sizeof reason_text);
  }
  *reason = reason_text;
  return why ? 0 : am_resident_running(&cuda->resident->ring_state);
}

int am_cuda_resident_mode(am_device *device, int on, const char **reason) {
  am_cuda_device *cuda = am_cuda_of(device);
  pthread_mutex_lock(&cuda->resident_lock);
  am_err err;
  am_err_init(&err, "am_resident_mode");
  const char *why = NULL;
  char text[sizeof reason_text];
  if (atomic_load(&cuda->gpu.broken)) {
    snprintf(text, sizeof text, "no resident worker: the device is broken (%s)",
             cuda->gpu.broken_message);
    why = text;
  } else if (!cuda->resident && on <= 0) {
    why = "no resident worker was asked for: am_resident_mode(1) starts one";
  } else if (cuda->exec_timeout) {
    snprintf(text, sizeof text,
             "no resident worker on %s: it has a kernel run-time limit (a display GPU), which "
             "would end the worker and break the context",
             cuda->gpu_name);
    why = text;
  } else if (cuda->arch < 70) {
    snprintf(text, sizeof text,
             "the resident worker needs system-scope acquire and release loads (compute "
             "capability 7.0 or later); %s is %d.%d",
             cuda->gpu_name, cuda->arch / 10, cuda->arch % 10);
    why = text;
  } else if (!cuda->resident && set_up(&err, cuda) != AM_OK) {
    snprintf(text, sizeof text, "the resident worker could not be set up: %s", err.message);
    why = text;
  } else if (on > 0) {
    int status = am_resident_start(&err, &cuda->resident->ring_state, PROBE_MS);
    if (status == AM_EDEVICE) am_gpu_mark_broken(&cuda->gpu, err.message);
  } else if (on == 0) {
    /* A worker that took requests and does not leave is a fault. */
    if (am_resident_stop(&err, &cuda->resident->ring_state, STOP_MS) != AM_OK)
      am_gpu_mark_broken(&cuda->gpu, err.message);
  }
  int running = answer(cuda, why, reason);
  pthread_mutex_unlock(&cuda->resident_lock);
  return running;
}
