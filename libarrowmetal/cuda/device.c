/* Opening a CUDA device: primary context, one stream, host-mapped memory for
 * the timeline and the status blocks, staging buffers, then the runtime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "nvrtc.h"

#define CHECK(call)                                                        \
  do {                                                                     \
    CUresult result_ = (call);                                             \
    if (result_ != CUDA_SUCCESS) return am_cuda_fail(err, result_, #call); \
  } while (0)

static int open_context(am_err *err, am_cuda_device *cuda, int ordinal) {
  const am_cuda_driver *cu = cuda->cu;
  CHECK(cu->cuDeviceGet(&cuda->device, ordinal));
  CHECK(cu->cuDevicePrimaryCtxRetain(&cuda->context, cuda->device));
  CHECK(cu->cuCtxPushCurrent(cuda->context));
  int major = 0, minor = 0;
  cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cuda->device);
  cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cuda->device);
  cu->cuDeviceGetAttribute(&cuda->gpu.multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                           cuda->device);
  cu->cuDeviceGetName(cuda->gpu_name, sizeof cuda->gpu_name, cuda->device);
  cuda->arch = major * 10 + minor;
  cu->cuDeviceGetAttribute(&cuda->exec_timeout, CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT,
                           cuda->device);
  snprintf(cuda->compiler_id, sizeof cuda->compiler_id, "sm_%d nvrtc %s %s", cuda->arch,
           am_nvrtc_version(), am_nvrtc_options());
  CHECK(cu->cuStreamCreate(&cuda->stream, CU_STREAM_NON_BLOCKING));
  /* Keep freed memory in the stream-ordered pool: giving it back to the OS
   * after every sync would make each allocation a driver call. */
  CUmemoryPool pool = NULL;
  if (cu->cuDeviceGetDefaultMemPool(&pool, cuda->device) == CUDA_SUCCESS) {
    uint64_t keep = UINT64_MAX;
    cu->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
  }
  size_t mapped_bytes = 64 + sizeof(am_gpu_status) * AM_GPU_STATUS_SLOTS;
  CHECK(cu->cuMemHostAlloc(&cuda->mapped, mapped_bytes,
                           CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
  /* Kept for the device's life: reserved memory of this device (host
   * memory, but the CUDA device keeps it), as are the staging buffers. */
  am_mem_reserve(&cuda->gpu.device->memory, (int64_t)mapped_bytes);
  memset(cuda->mapped, 0, mapped_bytes);
  CUdeviceptr mapped_device = 0;
  CHECK(cu->cuMemHostGetDevicePointer(&mapped_device, cuda->mapped, 0));
  cuda->reached = cuda->mapped;
  cuda->reached_device = mapped_device;
  cuda->gpu.status = (am_gpu_status *)((char *)cuda->mapped + 64);
  cuda->gpu.status_address = mapped_device + 64;
  for (int i = 0; i < 2; i++) {
    CHECK(cu->cuMemHostAlloc(&cuda->staging[i], AM_CUDA_STAGING_BYTES, CU_MEMHOSTALLOC_PORTABLE));
    am_mem_reserve(&cuda->gpu.device->memory, AM_CUDA_STAGING_BYTES);
    CHECK(cu->cuEventCreate(&cuda->staging_done[i], CU_EVENT_DISABLE_TIMING));
  }
  CUcontext popped;
  cu->cuCtxPopCurrent(&popped);
  return AM_OK;
}

int am_cuda_open(am_err *err, am_device *device) {
  am_cuda_device *cuda = calloc(1, sizeof *cuda);
  if (!cuda) return am_fail(err, AM_ENOMEM, "out of memory");
  cuda->gpu.device = device; /* open_context counts on its memory counters */
  int status = am_cuda_driver_load(err, &cuda->cu);
  if (status == AM_OK) status = open_context(err, cuda, device->ordinal);
  if (status != AM_OK) {
    /* A half-opened device keeps its small allocations: the process cannot
     * use this device, and freeing on a broken context is not safe. */
    CUcontext popped;
    if (cuda->cu && cuda->context) cuda->cu->cuCtxPopCurrent(&popped);
    return status;
  }
  pthread_mutex_init(&cuda->staging_lock, NULL);
  pthread_mutex_init(&cuda->resident_lock, NULL);
  /* Without a pool, downloads go to pageable memory (slower, not wrong). */
  am_cuda_pinned_pool_init(cuda);
  am_cuda_deferred_init(cuda); /* without memory: no graphs, launches at once */
  cuda->gpu.hooks = &am_cuda_hooks;
  cuda->gpu.device = device;
  cuda->gpu.dialect = AM_DIALECT_CUDA;
  snprintf(device->name, sizeof device->name, "cuda:%d", device->ordinal);
  device->impl = cuda;
  return am_gpu_init(err, &cuda->gpu);
}
