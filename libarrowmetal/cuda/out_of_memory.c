/* Running out of device memory. The stream-ordered pool keeps freed memory
 * (device.c sets no release threshold), so a failed allocation first lets
 * the frees queued on the stream complete and hands the pool's unused memory
 * back, then tries once more. Only when that fails too is it AM_ENOMEM, and
 * the message gives the sizes a caller needs to act on it. The device is not
 * broken by this: the next call that fits works. */
#include "cuda.h"

int am_cuda_alloc_retry(am_err *err, am_cuda_device *cuda, size_t bytes, CUdeviceptr *pointer) {
  const am_cuda_driver *cu = cuda->cu;
  int status = am_cuda_wait_stream(err, cuda, "cuStreamSynchronize");
  if (status != AM_OK) return status;
  CUmemoryPool pool = NULL;
  if (cu->cuDeviceGetDefaultMemPool(&pool, cuda->device) == CUDA_SUCCESS)
    cu->cuMemPoolTrimTo(pool, 0);
  CUresult result = cu->cuMemAllocAsync(pointer, bytes, cuda->stream);
  if (result == CUDA_SUCCESS) return AM_OK;
  if (result != CUDA_ERROR_OUT_OF_MEMORY) return am_cuda_fail(err, result, "cuMemAllocAsync");
  size_t free_bytes = 0, total_bytes = 0;
  cu->cuMemGetInfo(&free_bytes, &total_bytes);
  return am_fail(err, AM_ENOMEM,
                 "out of device memory on %s: %zu bytes asked, %zu bytes free of %zu "
                 "(cuMemAllocAsync: CUDA error %d)",
                 cuda->gpu_name, bytes, free_bytes, total_bytes, result);
}
