/* Opening a CUDA device: primary context, one stream, host-mapped status
 * memory, the completion timeline, scratch and staging buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cuda.h"
#include "nvrtc.h"

int am_cuda_enter(am_cuda_device *cuda) {
  CUcontext current = NULL;
  cuda->cu->cuCtxGetCurrent(&current);
  if (current == cuda->context) return 0;
  cuda->cu->cuCtxPushCurrent(cuda->context);
  return 1;
}

void am_cuda_leave(am_cuda_device *cuda, int pushed) {
  if (pushed) {
    CUcontext popped;
    cuda->cu->cuCtxPopCurrent(&popped);
  }
}

int am_cuda_check_broken(am_cuda_device *cuda) {
  if (!atomic_load_explicit(&cuda->broken, memory_order_acquire)) return AM_OK;
  return am_error(AM_EDEVICE, "the device is unusable after an earlier failure: %s",
                  cuda->broken_message);
}

int am_cuda_status_acquire(am_cuda_device *cuda, int *slot) {
  pthread_mutex_lock(&cuda->status_lock);
  if (cuda->free_count == 0) {
    pthread_mutex_unlock(&cuda->status_lock);
    return am_error(AM_ENOMEM, "more than %d device operations in flight", AM_CUDA_STATUS_SLOTS);
  }
  *slot = cuda->free_status[--cuda->free_count];
  pthread_mutex_unlock(&cuda->status_lock);
  am_gpu_status *status = &cuda->status[*slot];
  memset(status, 0, sizeof *status);
  status->error_index = UINT64_MAX;
  return AM_OK;
}

void am_cuda_status_release(am_cuda_device *cuda, int slot) {
  if (slot < 0) return;
  pthread_mutex_lock(&cuda->status_lock);
  cuda->free_status[cuda->free_count++] = slot;
  pthread_mutex_unlock(&cuda->status_lock);
}

/* The timeline's blocking wait: an event recorded now follows every value
 * already issued, so synchronizing on it blocks in the driver until `value`
 * is reached (or later work too, which only lengthens the wait). */
static int block_on_event(void *context, uint64_t value) {
  am_cuda_device *cuda = context;
  if (am_timeline_reached(&cuda->timeline, value)) return AM_OK;
  int pushed = am_cuda_enter(cuda);
  CUevent event = NULL;
  CUresult result =
      cuda->cu->cuEventCreate(&event, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING);
  if (result == CUDA_SUCCESS) result = cuda->cu->cuEventRecord(event, cuda->stream);
  if (result == CUDA_SUCCESS) result = cuda->cu->cuEventSynchronize(event);
  if (event) cuda->cu->cuEventDestroy(event);
  am_cuda_leave(cuda, pushed);
  if (result != CUDA_SUCCESS) return am_cuda_fail(result, "cuEventSynchronize");
  return AM_OK;
}

#define CHECK(call)                                                   \
  do {                                                                \
    CUresult result_ = (call);                                        \
    if (result_ != CUDA_SUCCESS) return am_cuda_fail(result_, #call); \
  } while (0)

static int open_context(am_cuda_device *cuda, int ordinal) {
  const am_cuda_driver *cu = cuda->cu;
  CHECK(cu->cuDeviceGet(&cuda->device, ordinal));
  CHECK(cu->cuDevicePrimaryCtxRetain(&cuda->context, cuda->device));
  CHECK(cu->cuCtxPushCurrent(cuda->context));
  int major = 0, minor = 0;
  cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cuda->device);
  cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cuda->device);
  cu->cuDeviceGetAttribute(&cuda->multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                           cuda->device);
  cu->cuDeviceGetName(cuda->gpu_name, sizeof cuda->gpu_name, cuda->device);
  cuda->arch = major * 10 + minor;
  CHECK(cu->cuStreamCreate(&cuda->stream, CU_STREAM_NON_BLOCKING));
  /* Keep freed memory in the stream-ordered pool: giving it back to the OS
   * after every sync would make each allocation a driver call. */
  CUmemoryPool pool = NULL;
  if (cu->cuDeviceGetDefaultMemPool(&pool, cuda->device) == CUDA_SUCCESS) {
    uint64_t keep = UINT64_MAX;
    cu->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
  }
  size_t mapped_bytes = 64 + sizeof(am_gpu_status) * AM_CUDA_STATUS_SLOTS;
  CHECK(cu->cuMemHostAlloc(&cuda->mapped, mapped_bytes,
                           CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
  memset(cuda->mapped, 0, mapped_bytes);
  CUdeviceptr mapped_device = 0;
  CHECK(cu->cuMemHostGetDevicePointer(&mapped_device, cuda->mapped, 0));
  cuda->completed = cuda->mapped;
  cuda->completed_device = mapped_device;
  cuda->status = (am_gpu_status *)((char *)cuda->mapped + 64);
  cuda->status_device = mapped_device + 64;
  CHECK(cu->cuMemAlloc(&cuda->scratch, AM_GPU_SCRATCH_BYTES));
  CHECK(cu->cuMemsetD8Async(cuda->scratch, 0, AM_GPU_SCRATCH_BYTES, cuda->stream));
  for (int i = 0; i < 2; i++) {
    CHECK(cu->cuMemHostAlloc(&cuda->staging[i], AM_CUDA_STAGING_BYTES, CU_MEMHOSTALLOC_PORTABLE));
    CHECK(cu->cuEventCreate(&cuda->staging_done[i], CU_EVENT_DISABLE_TIMING));
  }
  CHECK(cu->cuStreamSynchronize(cuda->stream));
  CUcontext popped;
  cu->cuCtxPopCurrent(&popped);
  return AM_OK;
}

int am_cuda_open(am_device *device) {
  am_cuda_device *cuda = calloc(1, sizeof *cuda);
  if (!cuda) return am_error(AM_ENOMEM, "out of memory");
  int status = am_cuda_driver_load(&cuda->cu);
  if (status == AM_OK) status = open_context(cuda, device->ordinal);
  if (status != AM_OK) {
    /* A half-opened device keeps its small allocations: the process cannot
     * use this device, and freeing on a broken context is not safe. */
    CUcontext popped;
    if (cuda->cu && cuda->context) cuda->cu->cuCtxPopCurrent(&popped);
    return status;
  }
  pthread_mutex_init(&cuda->status_lock, NULL);
  pthread_mutex_init(&cuda->staging_lock, NULL);
  pthread_mutex_init(&cuda->compile_lock, NULL);
  for (int i = 0; i < AM_CUDA_STATUS_SLOTS; i++)
    cuda->free_status[i] = AM_CUDA_STATUS_SLOTS - 1 - i;
  cuda->free_count = AM_CUDA_STATUS_SLOTS;
  am_timeline_init(&cuda->timeline, cuda->completed, block_on_event, cuda);
  snprintf(device->name, sizeof device->name, "cuda:%d", device->ordinal);
  device->impl = cuda;
  return AM_OK;
}
