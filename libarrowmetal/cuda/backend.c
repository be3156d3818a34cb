/* The CUDA backend's table. The driver and NVRTC are loaded on first use;
 * where either is missing the backend reports why and stays out of the way. */
#include "core/error.h"
#include "cuda.h"
#include "nvrtc.h"

static int probe(void) {
  const am_cuda_driver *driver = NULL;
  int status = am_cuda_driver_load(&driver);
  if (status != AM_OK) return status;
  return am_nvrtc_load();
}

static int device_count(void) {
  const am_cuda_driver *driver = NULL;
  int count = 0;
  if (am_cuda_driver_load(&driver) == AM_OK) driver->cuDeviceGetCount(&count);
  return count;
}

static int resident(am_device *device, int on, const char **reason) {
  (void)device;
  (void)on;
  *reason =
      "the CUDA backend has no resident worker in this version: every call is one stream "
      "submission completed through a host-mapped timeline (see README, Latency)";
  return 0;
}

static int device_sync(am_device *device) { return am_cuda_sync(am_cuda_of(device)); }

/* The foreign stream belongs to this device's context (the CUDA Array
 * Interface names a stream of the producer's device). */
static int wait_stream(am_device *device, uintptr_t stream) {
  am_cuda_device *cuda = am_cuda_of(device);
  int status = am_cuda_check_broken(cuda);
  if (status != AM_OK) return status;
  int pushed = am_cuda_enter(cuda);
  CUresult result = cuda->cu->cuStreamSynchronize((CUstream)stream);
  am_cuda_leave(cuda, pushed);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(result, "cuStreamSynchronize");
}

const am_backend am_cuda_backend = {
    .name = "cuda",
    .device_type = ARROW_DEVICE_CUDA,
    .host_device_type = ARROW_DEVICE_CUDA_HOST,
    .sync = device_sync,
    .wait_stream = wait_stream,
    .probe = probe,
    .device_count = device_count,
    .open_device = am_cuda_open,
    .upload = am_cuda_upload,
    .download = am_cuda_download,
    .import_device = am_cuda_import_device,
    .export_device = am_cuda_export_device,
    .wait_event = am_cuda_wait_event,
    .count_nulls = am_cuda_count_nulls,
    .resolve = am_cuda_resolve,
    .reduce = am_cuda_reduce,
    .compare = am_cuda_compare,
    .arith = am_cuda_arith,
    .cast = am_cuda_cast,
    .logic = am_cuda_logic,
    .filter = am_cuda_filter,
    .take = am_cuda_take,
    .fill = am_cuda_fill,
    .batch_flush = am_cuda_batch_flush,
    .wait = am_cuda_wait_ticket,
    .resident = resident,
};
