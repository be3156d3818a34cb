#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "core/error.h"

static am_cuda_driver driver;
static int load_status = -1;
static char load_reason[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* Versioned names first: the unversioned symbols are the legacy ABI kept
 * for old binaries. */
static void *symbol(void *library, const char *const *names) {
  for (; *names; names++) {
    void *found = dlsym(library, *names);
    if (found) return found;
  }
  return NULL;
}

#define RESOLVE(member, ...)                                                              \
  do {                                                                                    \
    static const char *const names[] = {__VA_ARGS__, NULL};                               \
    *(void **)&driver.member = symbol(library, names);                                    \
    if (!driver.member) {                                                                 \
      snprintf(load_reason, sizeof load_reason, "libcuda.so.1 lacks %s (driver too old)", \
               names[0]);                                                                 \
      return;                                                                             \
    }                                                                                     \
  } while (0)

/* For entry points the backend can do without (driver.h says which): NULL
 * when the driver lacks them. */
#define RESOLVE_OPTIONAL(member, ...)                       \
  do {                                                      \
    static const char *const names[] = {__VA_ARGS__, NULL}; \
    *(void **)&driver.member = symbol(library, names);      \
  } while (0)

/* Work enqueued on any stream that writes memory or makes a stream wait
 * (launches, graph launches, copies, fills, value writes, event waits),
 * counted as each such call returns; am_cuda_work_enqueued reads it. Not
 * counted: stream-ordered allocations and frees, which only hand out and
 * take back addresses, and event records, which write nothing. The table's
 * entries for those calls are these wrappers, so no caller can enqueue
 * work the count misses. */
static _Atomic uint64_t enqueued;
static am_cuda_driver real;

uint64_t am_cuda_work_enqueued(void) { return atomic_load(&enqueued); }

static CUresult counted(CUresult result) {
  atomic_fetch_add(&enqueued, 1);
  return result;
}

static CUresult wait_event(CUstream stream, CUevent event, unsigned int flags) {
  return counted(real.cuStreamWaitEvent(stream, event, flags));
}

static CUresult write_value(CUstream stream, CUdeviceptr address, uint64_t value,
                            unsigned int flags) {
  return counted(real.cuStreamWriteValue64(stream, address, value, flags));
}

static CUresult copy_to_device(CUdeviceptr destination, const void *source, size_t bytes,
                               CUstream stream) {
  return counted(real.cuMemcpyHtoDAsync(destination, source, bytes, stream));
}

static CUresult copy_to_host(void *destination, CUdeviceptr source, size_t bytes, CUstream stream) {
  return counted(real.cuMemcpyDtoHAsync(destination, source, bytes, stream));
}

static CUresult copy_on_device(CUdeviceptr destination, CUdeviceptr source, size_t bytes,
                               CUstream stream) {
  return counted(real.cuMemcpyDtoDAsync(destination, source, bytes, stream));
}

static CUresult fill(CUdeviceptr destination, unsigned char value, size_t count, CUstream stream) {
  return counted(real.cuMemsetD8Async(destination, value, count, stream));
}

static CUresult launch(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                       unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                       unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                       void **parameters, void **extra) {
  return counted(real.cuLaunchKernel(function, grid_x, grid_y, grid_z, block_x, block_y, block_z,
                                     shared_bytes, stream, parameters, extra));
}

static CUresult launch_graph(CUgraphExec exec, CUstream stream) {
  return counted(real.cuGraphLaunch(exec, stream));
}

static CUresult copy_peer(CUdeviceptr destination, CUcontext destination_context,
                          CUdeviceptr source, CUcontext source_context, size_t bytes,
                          CUstream stream) {
  return counted(real.cuMemcpyPeerAsync(destination, destination_context, source, source_context,
                                        bytes, stream));
}

static void count_enqueues(void) {
  real = driver;
  driver.cuStreamWaitEvent = wait_event;
  driver.cuStreamWriteValue64 = write_value;
  driver.cuMemcpyHtoDAsync = copy_to_device;
  driver.cuMemcpyDtoHAsync = copy_to_host;
  driver.cuMemcpyDtoDAsync = copy_on_device;
  driver.cuMemsetD8Async = fill;
  driver.cuLaunchKernel = launch;
  if (real.cuGraphLaunch) driver.cuGraphLaunch = launch_graph;
  if (real.cuMemcpyPeerAsync) driver.cuMemcpyPeerAsync = copy_peer;
}

static void load(void) {
  load_status = AM_EUNSUPPORTED;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(load_reason, sizeof load_reason, "no NVIDIA driver: cannot load libcuda.so.1 (%s)",
             dlerror());
    return;
  }
  RESOLVE(cuInit, "cuInit");
  RESOLVE(cuDriverGetVersion, "cuDriverGetVersion");
  RESOLVE(cuGetErrorString, "cuGetErrorString");
  RESOLVE(cuDeviceGetCount, "cuDeviceGetCount");
  RESOLVE(cuDeviceGet, "cuDeviceGet");
  RESOLVE(cuDeviceGetName, "cuDeviceGetName");
  RESOLVE(cuDeviceGetAttribute, "cuDeviceGetAttribute");
  RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  RESOLVE(cuCtxGetCurrent, "cuCtxGetCurrent");
  RESOLVE(cuCtxPushCurrent, "cuCtxPushCurrent_v2", "cuCtxPushCurrent");
  RESOLVE(cuCtxPopCurrent, "cuCtxPopCurrent_v2", "cuCtxPopCurrent");
  RESOLVE(cuStreamCreate, "cuStreamCreate");
  RESOLVE(cuStreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy");
  RESOLVE(cuStreamSynchronize, "cuStreamSynchronize");
  RESOLVE(cuStreamQuery, "cuStreamQuery");
  RESOLVE(cuStreamWaitEvent, "cuStreamWaitEvent");
  RESOLVE(cuStreamWriteValue64, "cuStreamWriteValue64_v2", "cuStreamWriteValue64");
  RESOLVE(cuEventCreate, "cuEventCreate");
  RESOLVE(cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy");
  RESOLVE(cuEventRecord, "cuEventRecord");
  RESOLVE(cuEventSynchronize, "cuEventSynchronize");
  RESOLVE(cuEventQuery, "cuEventQuery");
  RESOLVE(cuMemAlloc, "cuMemAlloc_v2");
  RESOLVE(cuMemFree, "cuMemFree_v2");
  RESOLVE(cuMemAllocAsync, "cuMemAllocAsync");
  RESOLVE(cuMemFreeAsync, "cuMemFreeAsync");
  RESOLVE(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool");
  RESOLVE(cuMemPoolSetAttribute, "cuMemPoolSetAttribute");
  RESOLVE(cuMemPoolTrimTo, "cuMemPoolTrimTo");
  RESOLVE(cuMemGetInfo, "cuMemGetInfo_v2");
  RESOLVE(cuMemHostAlloc, "cuMemHostAlloc");
  RESOLVE(cuMemFreeHost, "cuMemFreeHost");
  RESOLVE(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2");
  RESOLVE(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  RESOLVE(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  RESOLVE(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  RESOLVE(cuMemsetD8Async, "cuMemsetD8Async");
  RESOLVE(cuPointerGetAttribute, "cuPointerGetAttribute");
  RESOLVE(cuModuleLoadData, "cuModuleLoadData");
  RESOLVE(cuModuleGetFunction, "cuModuleGetFunction");
  RESOLVE(cuLaunchKernel, "cuLaunchKernel");
  RESOLVE_OPTIONAL(cuGraphCreate, "cuGraphCreate");
  RESOLVE_OPTIONAL(cuGraphDestroy, "cuGraphDestroy");
  RESOLVE_OPTIONAL(cuGraphAddKernelNode, "cuGraphAddKernelNode_v2", "cuGraphAddKernelNode");
  RESOLVE_OPTIONAL(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
  RESOLVE_OPTIONAL(cuGraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2",
                   "cuGraphExecKernelNodeSetParams");
  RESOLVE_OPTIONAL(cuGraphLaunch, "cuGraphLaunch");
  RESOLVE_OPTIONAL(cuGraphExecDestroy, "cuGraphExecDestroy");
  RESOLVE_OPTIONAL(cuMemcpyPeerAsync, "cuMemcpyPeerAsync");
  CUresult result = driver.cuInit(0);
  if (result != CUDA_SUCCESS) {
    const char *text = "unknown error";
    driver.cuGetErrorString(result, &text);
    snprintf(load_reason, sizeof load_reason, "cuInit failed: %s (error %d)", text, result);
    return;
  }
  int count = 0;
  if (driver.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    snprintf(load_reason, sizeof load_reason, "the NVIDIA driver reports no CUDA device");
    return;
  }
  driver.cuDriverGetVersion(&driver.version);
  count_enqueues();
  load_status = 0;
}

int am_cuda_driver_load(am_err *err, const am_cuda_driver **out) {
  pthread_once(&load_once, load);
  if (load_status != 0) return am_fail(err, AM_EUNSUPPORTED, "%s", load_reason);
  *out = &driver;
  return AM_OK;
}

int am_cuda_fail(am_err *err, CUresult result, const char *call) {
  const char *text = "unknown error";
  if (driver.cuGetErrorString) driver.cuGetErrorString(result, &text);
  return am_fail(err, result == CUDA_ERROR_OUT_OF_MEMORY ? AM_ENOMEM : AM_EDEVICE,
                 "%s failed: %s (CUDA error %d)", call, text, result);
}
