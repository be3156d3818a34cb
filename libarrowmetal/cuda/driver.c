#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
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
