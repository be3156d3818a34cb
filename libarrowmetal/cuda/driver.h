/* The CUDA driver API, loaded at run time from libcuda.so.1.
 *
 * libarrowmetal never links against CUDA: one library serves every machine,
 * and a machine without a driver simply reports the backend unavailable.
 * These declarations follow the driver API's documented ABI (cuda.h); only
 * the calls the backend makes are resolved. */
#ifndef AM_CUDA_DRIVER_H
#define AM_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;

/* A kernel node's parameters (CUDA_KERNEL_NODE_PARAMS_v2). The first
 * entries are the v1 struct: a driver with only the v1 calls reads those. */
typedef struct am_cuda_kernel_node {
  CUfunction func;
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  void **kernelParams;
  void **extra;
  void *kern; /* CUkernel: NULL, func is used */
  CUcontext ctx;
} am_cuda_kernel_node;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_READY = 600,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91,
  CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
  CU_STREAM_NON_BLOCKING = 1,
  CU_EVENT_DEFAULT = 0,
  CU_EVENT_BLOCKING_SYNC = 1,
  CU_EVENT_DISABLE_TIMING = 2,
  CU_MEMHOSTALLOC_PORTABLE = 1,
  CU_MEMHOSTALLOC_DEVICEMAP = 2,
  CU_STREAM_WRITE_VALUE_DEFAULT = 0,
  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_UNIFIED = 4
};

typedef struct am_cuda_driver {
  int version;
  CUresult (*cuInit)(unsigned int flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuCtxGetCurrent)(CUcontext *context);
  CUresult (*cuCtxPushCurrent)(CUcontext context);
  CUresult (*cuCtxPopCurrent)(CUcontext *context);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned int flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamQuery)(CUstream stream);
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned int flags);
  CUresult (*cuStreamWriteValue64)(CUstream stream, CUdeviceptr address, uint64_t value,
                                   unsigned int flags);
  CUresult (*cuEventCreate)(CUevent *event, unsigned int flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventQuery)(CUevent event);
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemAllocAsync)(CUdeviceptr *pointer, size_t bytes, CUstream stream);
  CUresult (*cuMemFreeAsync)(CUdeviceptr pointer, CUstream stream);
  CUresult (*cuDeviceGetDefaultMemPool)(CUmemoryPool *pool, CUdevice device);
  CUresult (*cuMemPoolSetAttribute)(CUmemoryPool pool, int attribute, void *value);
  CUresult (*cuMemPoolTrimTo)(CUmemoryPool pool, size_t keep_bytes);
  CUresult (*cuMemGetInfo)(size_t *free_bytes, size_t *total_bytes);
  CUresult (*cuMemHostAlloc)(void **pointer, size_t bytes, unsigned int flags);
  CUresult (*cuMemFreeHost)(void *pointer);
  CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr *device_pointer, void *host,
                                        unsigned int flags);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr destination, const void *source, size_t bytes,
                                CUstream stream);
  CUresult (*cuMemcpyDtoHAsync)(void *destination, CUdeviceptr source, size_t bytes,
                                CUstream stream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr destination, CUdeviceptr source, size_t bytes,
                                CUstream stream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr destination, unsigned char value, size_t count,
                              CUstream stream);
  CUresult (*cuPointerGetAttribute)(void *data, int attribute, CUdeviceptr pointer);
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module, const char *name);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                             unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                             unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                             void **parameters, void **extra);
  /* Optional (NULL before CUDA 11.4): batches then launch one by one. */
  CUresult (*cuGraphCreate)(CUgraph *graph, unsigned int flags);
  CUresult (*cuGraphDestroy)(CUgraph graph);
  CUresult (*cuGraphAddKernelNode)(CUgraphNode *node, CUgraph graph,
                                   const CUgraphNode *dependencies, size_t count,
                                   const am_cuda_kernel_node *params);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph,
                                          unsigned long long flags);
  CUresult (*cuGraphExecKernelNodeSetParams)(CUgraphExec exec, CUgraphNode node,
                                             const am_cuda_kernel_node *params);
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
  /* Optional: without it arrays move between GPUs through the host. */
  CUresult (*cuMemcpyPeerAsync)(CUdeviceptr destination, CUcontext destination_context,
                                CUdeviceptr source, CUcontext source_context, size_t bytes,
                                CUstream stream);
} am_cuda_driver;

/* Loads the driver once per process. AM_OK, or AM_EUNSUPPORTED with the
 * reason (no libcuda.so.1, a missing entry point, cuInit failing, no device). */
int am_cuda_driver_load(am_err *err, const am_cuda_driver **out);

/* How many calls through the table have enqueued work that writes memory or
 * makes a stream wait, on any stream of any device, counted as each returns
 * (driver.c says which calls): unchanged since a stream was seen idle, it
 * is idle still (cuda/hooks.c's idle). Any thread. */
uint64_t am_cuda_work_enqueued(void);

/* Turns a driver error into an AM_EDEVICE (or AM_ENOMEM) failure naming the
 * driver call. */
int am_cuda_fail(am_err *err, CUresult result, const char *call);

#endif
