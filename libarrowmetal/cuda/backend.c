/* The CUDA backend's table. The driver and NVRTC are loaded on first use;
 * where either is missing the backend reports why and stays out of the way.
 * Kernels and the queue are the GPU runtime's; memory is CUDA's own. */
#include "cuda.h"
#include "nvrtc.h"

static int probe(am_err *err) {
  const am_cuda_driver *driver = NULL;
  int status = am_cuda_driver_load(err, &driver);
  if (status != AM_OK) return status;
  return am_nvrtc_load(err);
}

static int device_count(void) {
  am_err ignored;
  am_err_init(&ignored, "cuda");
  const am_cuda_driver *driver = NULL;
  int count = 0;
  if (am_cuda_driver_load(&ignored, &driver) == AM_OK) driver->cuDeviceGetCount(&count);
  return count;
}

/* The foreign stream belongs to this device's context (the CUDA Array
 * Interface names a stream of the producer's device). */
static int wait_stream(am_err *err, am_device *device, uintptr_t stream) {
  am_cuda_device *cuda = am_cuda_of(device);
  int status = am_gpu_check_broken(err, &cuda->gpu);
  if (status != AM_OK) return status;
  int pushed = am_cuda_enter(cuda);
  status = am_cuda_wait_foreign_stream(err, cuda->cu, (CUstream)stream, "cuStreamSynchronize");
  am_cuda_leave(cuda, pushed);
  return status;
}

const am_backend am_cuda_backend = {
    .name = "cuda",
    .device_type = ARROW_DEVICE_CUDA,
    .host_device_type = ARROW_DEVICE_CUDA_HOST,
    .probe = probe,
    .device_count = device_count,
    .open_device = am_cuda_open,
    .memory =
        {
            .caps = 0,
            .upload = am_cuda_upload,
            .download = am_cuda_download,
            .copy_peer = am_cuda_copy_peer,
            .import_device = am_cuda_import_device,
            .export_device = am_cuda_export_device,
            .wait_event = am_cuda_wait_sync_event,
            .count_nulls = am_gpu_count_nulls,
        },
    .kernels = AM_GPU_KERNELS,
    .queue = AM_GPU_QUEUE(wait_stream, am_cuda_resident_mode),
};
