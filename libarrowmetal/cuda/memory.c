/* Device memory: stream-ordered buffers, uploads through pinned staging,
 * downloads (large ones into pinned blocks), and zero-copy exchange through
 * the C Device Data Interface. */
#include <stdlib.h>
#include <string.h>

#include "core/types.h"
#include "cuda.h"

/* Copies host bytes to the device. Large copies go through two pinned
 * buffers in turn, so the CPU's copy into one overlaps the DMA out of the
 * other and the transfer runs at pinned speed rather than pageable speed. */
static int copy_to_device(am_err *err, am_cuda_device *cuda, CUdeviceptr destination,
                          const void *source, size_t bytes) {
  const am_cuda_driver *cu = cuda->cu;
  int status = am_cuda_submit(err, cuda); /* the stream's order is the calls' */
  if (status != AM_OK) return status;
  if (bytes <= (1 << 20)) {
    CUresult result = cu->cuMemcpyHtoDAsync(destination, source, bytes, cuda->stream);
    return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, "cuMemcpyHtoDAsync");
  }
  pthread_mutex_lock(&cuda->staging_lock);
  int used[2] = {0, 0};
  for (size_t done = 0, turn = 0; done < bytes && status == AM_OK; turn ^= 1) {
    size_t chunk = bytes - done < AM_CUDA_STAGING_BYTES ? bytes - done : AM_CUDA_STAGING_BYTES;
    if (used[turn])
      status = am_cuda_wait_event(err, cuda, cuda->staging_done[turn], "pinned upload");
    if (status != AM_OK) break;
    memcpy(cuda->staging[turn], (const char *)source + done, chunk);
    CUresult result =
        cu->cuMemcpyHtoDAsync(destination + done, cuda->staging[turn], chunk, cuda->stream);
    if (result == CUDA_SUCCESS) result = cu->cuEventRecord(cuda->staging_done[turn], cuda->stream);
    if (result != CUDA_SUCCESS) status = am_cuda_fail(err, result, "pinned upload");
    used[turn] = 1;
    done += chunk;
  }
  for (int i = 0; i < 2 && status == AM_OK; i++)
    if (used[i]) status = am_cuda_wait_event(err, cuda, cuda->staging_done[i], "pinned upload");
  pthread_mutex_unlock(&cuda->staging_lock);
  return status;
}

/* Host and device copies keep the slot offset modulo 8, so that data and
 * validity bitmaps move as whole bytes and share one offset. */
int am_cuda_upload(am_err *err, am_device *device, const am_array *host, am_array **out) {
  am_cuda_device *cuda = am_cuda_of(device);
  int status = am_gpu_check_broken(err, &cuda->gpu);
  if (status != AM_OK) return status;
  int64_t base = host->offset & ~(int64_t)7;
  int64_t span = host->offset - base + host->length;
  int has_validity = host->validity != NULL && atomic_load(&host->null_count) != 0;
  int pushed = am_cuda_enter(cuda);
  am_array *array = NULL;
  status = am_gpu_alloc_array(err, &cuda->gpu, host->type, span, has_validity, &array);
  if (status == AM_OK && span > 0) {
    const char *data = host->data;
    size_t skip =
        host->type == AM_BOOL ? (size_t)(base / 8) : (size_t)am_type_bytes(host->type, base);
    status = copy_to_device(err, cuda, (CUdeviceptr)(uintptr_t)array->data, data + skip,
                            (size_t)am_type_bytes(host->type, span));
    if (status == AM_OK && has_validity)
      status = copy_to_device(err, cuda, (CUdeviceptr)(uintptr_t)array->validity,
                              host->validity + base / 8, (size_t)((span + 7) / 8));
    /* From pinned memory a copy is truly asynchronous: the caller releases
     * the source as soon as this returns, so the copy must be done. */
    if (status == AM_OK) status = am_cuda_wait_stream(err, cuda, "cuStreamSynchronize");
  }
  am_cuda_leave(cuda, pushed);
  if (status != AM_OK) {
    am_array_free(array);
    return status;
  }
  array->offset = host->offset - base;
  array->length = host->length;
  atomic_store(&array->null_count, has_validity ? atomic_load(&host->null_count) : 0);
  *out = array;
  return AM_OK;
}

/* Data of at least this many bytes comes home into a pinned block
 * (pinned_pool.c); below it a pageable copy costs about the same. */
#define PINNED_DOWNLOAD_BYTES ((int64_t)1 << 20)

/* The host array a download lands in: its data in a pinned block when the
 * data is large and one can be had (*pinned = 1), else as
 * am_array_alloc_host makes it. The small validity bitmap is pageable. */
static int alloc_download(am_err *err, am_cuda_device *cuda, am_device *host_device, am_type type,
                          int64_t span, int has_validity, am_array **out, int *pinned) {
  int64_t bytes = am_type_bytes(type, span);
  am_buffer *data = bytes >= PINNED_DOWNLOAD_BYTES ? am_cuda_pinned_alloc(cuda, bytes) : NULL;
  if (!data) return am_array_alloc_host(err, host_device, type, span, has_validity, out);
  am_buffer *validity = has_validity ? am_buffer_alloc_host((span + 7) / 8) : NULL;
  am_array *array = NULL;
  if (has_validity && !validity)
    am_buffer_release(data);
  else /* takes both buffers, and releases them when it fails */
    array = am_array_make(host_device, type, span, 0, has_validity ? -1 : 0, validity,
                          validity ? validity->ptr : NULL, data, data->ptr);
  if (!array) {
    return am_fail(err, AM_ENOMEM, "out of memory allocating %lld slots of %s", (long long)span,
                   am_type_name(type));
  }
  *out = array;
  *pinned = 1;
  return AM_OK;
}

int am_cuda_download(am_err *err, const am_array *array, am_device *host_device,
                     am_array **host_out) {
  am_cuda_device *cuda = am_cuda_of(array->device);
  int status = am_gpu_check_broken(err, &cuda->gpu);
  if (status != AM_OK) return status;
  int64_t base = array->offset & ~(int64_t)7;
  int64_t span = array->offset - base + array->length;
  int has_validity = array->validity != NULL;
  am_array *host = NULL;
  int pinned = 0;
  status = alloc_download(err, cuda, host_device, array->type, span, has_validity, &host, &pinned);
  if (status != AM_OK) return status;
  int pushed = am_cuda_enter(cuda);
  const am_cuda_driver *cu = cuda->cu;
  /* a copy into pageable memory (the data, or the validity bitmap) blocks
   * in the driver: settle first */
  if (span > 0) status = am_cuda_submit(err, cuda); /* a batch's held-back launches */
  if (span > 0 && status == AM_OK && (!pinned || has_validity))
    status = am_cuda_settle_before_copy(err, cuda, "download");
  if (span > 0 && status == AM_OK) {
    size_t skip =
        array->type == AM_BOOL ? (size_t)(base / 8) : (size_t)am_type_bytes(array->type, base);
    /* Into pageable memory the copy returns only once it is complete; into
     * pinned memory the stream wait below makes it so. Either is ordered
     * after the stream's earlier kernels. */
    CUresult result =
        cu->cuMemcpyDtoHAsync((void *)host->data, (CUdeviceptr)(uintptr_t)array->data + skip,
                              (size_t)am_type_bytes(array->type, span), cuda->stream);
    if (result == CUDA_SUCCESS && has_validity)
      result = cu->cuMemcpyDtoHAsync((void *)host->validity,
                                     (CUdeviceptr)(uintptr_t)array->validity + base / 8,
                                     (size_t)((span + 7) / 8), cuda->stream);
    status = result == CUDA_SUCCESS ? am_cuda_wait_stream(err, cuda, "download")
                                    : am_cuda_fail(err, result, "download");
  }
  am_cuda_leave(cuda, pushed);
  if (status != AM_OK) {
    am_array_free(host);
    return status;
  }
  host->offset = array->offset - base;
  host->length = array->length;
  /* An unknown count (-1) stays unknown: the host backend counts it when
   * someone asks. */
  int64_t nulls = atomic_load(&array->null_count);
  atomic_store(&host->null_count, has_validity ? nulls : 0);
  if (!has_validity) host->validity = NULL;
  *host_out = host;
  return AM_OK;
}

/* ---- C Device Data Interface */

/* A zero-copy import: the producer's struct and the device whose stream may
 * still hold work that reads its buffers. */
typedef struct imported_array {
  struct ArrowArray array;
  am_cuda_device *cuda;
} imported_array;

static void release_imported(am_buffer *keeper) {
  imported_array *imported = keeper->context;
  /* Our buffers are freed in stream order; the producer's memory is not
   * ours to order, so its release waits until queued kernels are done. */
  am_err ignored;
  am_err_init(&ignored, "am_release");
  am_gpu_synchronize(&ignored, &imported->cuda->gpu);
  if (imported->array.release) imported->array.release(&imported->array);
  free(imported);
  am_buffer_free_shell(keeper);
}

int am_cuda_import_device(am_err *err, am_device *device, am_type type,
                          struct ArrowDeviceArray *array, am_array **out) {
  am_cuda_device *cuda = am_cuda_of(device);
  imported_array *imported = malloc(sizeof *imported);
  struct ArrowArray *moved = imported ? &imported->array : NULL;
  if (!moved) {
    array->array.release(&array->array);
    array->array.release = NULL;
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  *moved = array->array;
  imported->cuda = cuda;
  array->array.release = NULL;
  int status = AM_OK;
  if (array->device_type != ARROW_DEVICE_CUDA)
    status = am_fail(err, AM_EINVAL, "device type %d is not CUDA memory", (int)array->device_type);
  else if (array->device_id != device->ordinal)
    status = am_fail(err, AM_EINVAL, "the array lives on CUDA device %lld, not %s",
                     (long long)array->device_id, device->name);
  int pushed = am_cuda_enter(cuda);
  /* Every data buffer (a string array's bytes too, buffers[2]) must be
   * device memory: a kernel reading host memory would fault the context. */
  for (int64_t b = 1; status == AM_OK && moved->length > 0 && b < moved->n_buffers; b++) {
    if (b > 1 && !moved->buffers[b]) continue; /* no bytes: every value empty */
    unsigned int memory_type = 0;
    CUresult result = cuda->cu->cuPointerGetAttribute(
        &memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)moved->buffers[b]);
    if (result != CUDA_SUCCESS ||
        (memory_type != CU_MEMORYTYPE_DEVICE && memory_type != CU_MEMORYTYPE_UNIFIED))
      status = am_fail(err, AM_EINVAL, "%s is not CUDA device memory",
                       b == 1 ? "the data buffer" : "the string data buffer");
  }
  /* The producer's work must finish before ours reads the buffers. */
  if (status == AM_OK && array->sync_event) status = am_cuda_submit(err, cuda);
  if (status == AM_OK && array->sync_event) {
    CUresult result = cuda->cu->cuStreamWaitEvent(cuda->stream, *(CUevent *)array->sync_event, 0);
    if (result != CUDA_SUCCESS) status = am_cuda_fail(err, result, "cuStreamWaitEvent");
  }
  am_cuda_leave(cuda, pushed);
  am_buffer *keeper = status == AM_OK ? am_buffer_wrap(NULL, 0, imported, release_imported) : NULL;
  if (!keeper) {
    if (moved->release) moved->release(moved);
    free(imported);
    return status != AM_OK ? status : am_fail(err, AM_ENOMEM, "out of memory");
  }
  const uint8_t *validity = moved->null_count == 0 ? NULL : moved->buffers[0];
  int64_t null_count = validity ? moved->null_count : 0;
  am_array *result = am_array_make(device, type, moved->length, moved->offset, null_count,
                                   validity ? am_buffer_retain(keeper) : NULL, validity, keeper,
                                   moved->buffers[1]);
  if (!result) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = result;
  return AM_OK;
}

typedef struct device_export {
  am_cuda_device *cuda;
  am_buffer *validity;
  am_buffer *data;
  am_buffer *bytes; /* a string array's data bytes (buffers[2]) */
  const void *buffers[3];
  CUevent event;
} device_export;

static void release_device_export(struct ArrowArray *array) {
  device_export *state = array->private_data;
  am_cuda_device *cuda = state->cuda;
  int pushed = am_cuda_enter(cuda);
  cuda->cu->cuEventDestroy(state->event);
  am_cuda_leave(cuda, pushed);
  am_buffer_release(state->validity);
  am_buffer_release(state->data);
  am_buffer_release(state->bytes);
  free(state);
  array->release = NULL;
}

int am_cuda_export_device(am_err *err, const am_array *array, struct ArrowDeviceArray *out) {
  am_cuda_device *cuda = am_cuda_of(array->device);
  device_export *state = calloc(1, sizeof *state);
  if (!state) return am_fail(err, AM_ENOMEM, "out of memory");
  int pushed = am_cuda_enter(cuda);
  /* The event follows the array's kernels, a batch's held-back ones too. */
  int status = am_cuda_submit(err, cuda);
  CUresult result = CUDA_SUCCESS;
  if (status == AM_OK) result = cuda->cu->cuEventCreate(&state->event, CU_EVENT_DISABLE_TIMING);
  if (status == AM_OK && result == CUDA_SUCCESS)
    result = cuda->cu->cuEventRecord(state->event, cuda->stream);
  am_cuda_leave(cuda, pushed);
  if (status != AM_OK || result != CUDA_SUCCESS) {
    if (state->event) cuda->cu->cuEventDestroy(state->event);
    free(state);
    return status != AM_OK ? status : am_cuda_fail(err, result, "cuEventRecord");
  }
  int64_t null_count = atomic_load(&array->null_count);
  int has_validity = array->validity && null_count != 0;
  state->cuda = cuda;
  state->validity = has_validity ? am_buffer_retain(array->validity_buf) : NULL;
  state->data = am_buffer_retain(array->data_buf);
  state->buffers[0] = has_validity ? array->validity : NULL;
  state->buffers[1] = array->data;
  const int strings = am_type_is_var_binary(array->type);
  if (strings) {
    state->bytes = am_buffer_retain(array->bytes_buf);
    state->buffers[2] = array->bytes;
  }
  memset(out, 0, sizeof *out);
  out->array.length = array->length;
  out->array.null_count = has_validity ? null_count : 0;
  out->array.offset = array->offset;
  out->array.n_buffers = strings ? 3 : 2;
  out->array.buffers = state->buffers;
  out->array.release = release_device_export;
  out->array.private_data = state;
  out->device_type = ARROW_DEVICE_CUDA;
  out->device_id = array->device->ordinal;
  out->sync_event = &state->event;
  return AM_OK;
}

/* The event belongs to whichever context the producer used; the driver
 * needs some context current, so the primary context of device 0 stands in
 * when the calling thread has none. */
int am_cuda_wait_sync_event(am_err *err, void *sync_event) {
  const am_cuda_driver *cu = NULL;
  int status = am_cuda_driver_load(err, &cu);
  if (status != AM_OK) return status;
  CUcontext current = NULL, primary = NULL;
  cu->cuCtxGetCurrent(&current);
  if (!current) {
    CUdevice device = 0;
    CUresult result = cu->cuDeviceGet(&device, 0);
    if (result == CUDA_SUCCESS) result = cu->cuDevicePrimaryCtxRetain(&primary, device);
    if (result == CUDA_SUCCESS) result = cu->cuCtxPushCurrent(primary);
    if (result != CUDA_SUCCESS) return am_cuda_fail(err, result, "cuCtxPushCurrent");
  }
  status = am_cuda_wait_foreign_event(err, cu, *(CUevent *)sync_event, "cuEventSynchronize");
  if (primary) {
    CUcontext popped;
    cu->cuCtxPopCurrent(&popped);
  }
  return status;
}
