/* Opening the runtime's part of a device, the sticky error, status slots and
 * device arrays. */
#include <stdio.h>
#include <string.h>

#include "core/types.h"
#include "gpu/submit.h"

/* The timeline reads the backend's reached value (its hook, called
 * directly) and blocks through its hook inside the device's context. */
static int timeline_block(am_err *err, void *context, uint64_t value, int64_t deadline) {
  am_gpu_device *gpu = context;
  int token = gpu->hooks->enter(gpu);
  int status = gpu->hooks->block(err, gpu, value, deadline);
  gpu->hooks->leave(gpu, token);
  return status;
}

int am_gpu_init(am_err *err, am_gpu_device *gpu) {
  pthread_mutex_init(&gpu->status_lock, NULL);
  pthread_mutex_init(&gpu->compile_lock, NULL);
  for (int i = 0; i < AM_GPU_STATUS_SLOTS; i++) gpu->free_status[i] = AM_GPU_STATUS_SLOTS - 1 - i;
  gpu->free_count = AM_GPU_STATUS_SLOTS;
  memset(gpu->status, 0, sizeof(am_gpu_status) * AM_GPU_STATUS_SLOTS);
  atomic_init(&gpu->kernels, NULL);
  atomic_init(&gpu->broken, 0);
  am_timeline_init(&gpu->timeline, gpu->hooks->reached, timeline_block, gpu);
  /* The scratch area starts zeroed: reductions leave their finish counter
   * at zero after every launch, so it is cleared only once. */
  int token = gpu->hooks->enter(gpu);
  am_mem_counters *memory = &gpu->device->memory;
  int64_t before = atomic_load(&memory->in_use);
  int64_t scratch_bytes = (int64_t)AM_GPU_SCRATCH_BYTES * AM_GPU_SCRATCH_AREAS;
  int status = gpu->hooks->alloc(err, gpu, scratch_bytes, &gpu->scratch);
  if (status == AM_OK) {
    /* It lives as long as the device: reserved, not in use (the hook
     * counted it at its rounded size, which only the difference knows;
     * nothing else allocates on a device that is still opening). */
    int64_t kept = atomic_load(&memory->in_use) - before;
    am_mem_free(memory, kept);
    am_mem_reserve(memory, kept);
    am_mem_reset_peak(memory);
  }
  if (status == AM_OK)
    status = gpu->hooks->zero(err, gpu, (uint64_t)(uintptr_t)gpu->scratch->ptr, scratch_bytes);
  gpu->hooks->leave(gpu, token);
  if (status == AM_OK) status = am_gpu_synchronize(err, gpu);
  return status;
}

int am_gpu_check_broken(am_err *err, am_gpu_device *gpu) {
  if (!atomic_load_explicit(&gpu->broken, memory_order_acquire)) return AM_OK;
  return am_fail(err, AM_EDEVICE, "the device is unusable after an earlier failure: %s",
                 gpu->broken_message);
}

int am_gpu_status_acquire(am_err *err, am_gpu_device *gpu, int *slot) {
  pthread_mutex_lock(&gpu->status_lock);
  if (gpu->free_count == 0) {
    pthread_mutex_unlock(&gpu->status_lock);
    return am_fail(err, AM_ENOMEM, "more than %d device operations in flight", AM_GPU_STATUS_SLOTS);
  }
  *slot = gpu->free_status[--gpu->free_count];
  pthread_mutex_unlock(&gpu->status_lock);
  am_gpu_status *status = &gpu->status[*slot];
  memset(status, 0, sizeof *status);
  status->error_index = UINT64_MAX;
  return AM_OK;
}

void am_gpu_status_release(am_gpu_device *gpu, int slot) {
  if (slot < 0) return;
  pthread_mutex_lock(&gpu->status_lock);
  gpu->free_status[gpu->free_count++] = slot;
  pthread_mutex_unlock(&gpu->status_lock);
}

int am_gpu_alloc_array(am_err *err, am_gpu_device *gpu, am_type type, int64_t length,
                       int with_validity, am_array **out) {
  if (length < 0 || length > AM_MAX_LENGTH)
    return am_fail(err, AM_EINVAL, "length %lld is outside 0 to 2^52", (long long)length);
  am_buffer *data = NULL, *validity = NULL;
  int status = gpu->hooks->alloc(err, gpu, am_type_bytes(type, length), &data);
  if (status == AM_OK && with_validity)
    status = gpu->hooks->alloc(err, gpu, (length + 7) / 8, &validity);
  if (status != AM_OK) {
    am_buffer_release(data);
    return status;
  }
  am_array *array = am_array_make(gpu->device, type, length, 0, with_validity ? -1 : 0, validity,
                                  validity ? validity->ptr : NULL, data, data->ptr);
  if (!array) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = array;
  return AM_OK;
}
