/* The Metal backend's table, compiled where Metal exists (Makefile): kernels
 * and the queue are the GPU runtime's; memory is Metal's own, host-visible
 * and able to wrap host memory. Where this file is built,
 * metal/unavailable.c is not. */
#include "core/types.h"
#include "metal.h"

static int probe(am_err *err) { return am_metal_probe(err); }

static int wait_stream(am_err *err, am_device *device, uintptr_t stream) {
  (void)stream;
  return am_fail(err, AM_EINVAL, "%s has no foreign streams to wait on", device->name);
}

static int resident(am_device *device, int on, const char **reason) {
  (void)device;
  (void)on;
  *reason =
      "the Metal backend has no resident worker: Apple GPUs give no CPU-to-GPU coherence inside "
      "a running dispatch (stores of the CPU took 0.4-1.4 s to reach a spinning kernel), so "
      "every call is a command buffer completed through an MTLSharedEvent";
  return 0;
}

const am_backend am_metal_backend = {
    .name = "metal",
    .device_type = ARROW_DEVICE_METAL,
    /* MSL has no double: float64 ops run on the CPU over the same memory.
     * float16's kernels are its casts to and from float32. */
    .kernel_types = AM_TYPE_BIT(AM_BOOL) | AM_TYPE_BIT(AM_INT8) | AM_TYPE_BIT(AM_INT16) |
                    AM_TYPE_BIT(AM_INT32) | AM_TYPE_BIT(AM_INT64) | AM_TYPE_BIT(AM_UINT8) |
                    AM_TYPE_BIT(AM_UINT16) | AM_TYPE_BIT(AM_UINT32) | AM_TYPE_BIT(AM_UINT64) |
                    AM_TYPE_BIT(AM_FLOAT32) | AM_TYPE_BIT(AM_FLOAT16),
    .probe = probe,
    .device_count = am_metal_device_count,
    .open_device = am_metal_open,
    .memory =
        {
            .caps = AM_MEMORY_HOST_VISIBLE | AM_MEMORY_IMPORTS_HOST,
            .upload = am_metal_upload,
            .download = am_metal_download,
            .import_device = am_metal_import_device,
            .export_device = am_metal_export_device,
            .wait_event = am_metal_wait_event,
            .count_nulls = am_gpu_count_nulls,
            .copy_peer = am_no_copy_peer, /* one GPU on Apple silicon */
        },
    .kernels = AM_GPU_KERNELS,
    .queue = AM_GPU_QUEUE(wait_stream, resident),
};
