/* Arrays moving between two CUDA devices of one process, device to device
 * (cuMemcpyPeerAsync) instead of down to the host and up again.
 *
 * The driver copies between any two contexts, directly over NVLink or PCIe
 * where it can, else staged through host memory on its own, and needs no
 * access granted to the stream-ordered pools the arrays live in. (Granting
 * it, cuMemPoolSetAccess, is left out: CUDA.jl dropped its grants after
 * peer copies into a pool that had granted access wrote nothing and
 * reported no error, JuliaGPU/CUDA.jl#3112.) A copy the driver refuses is
 * AM_EUNSUPPORTED: the caller then goes through the host (route.c), which
 * is slower and always works.
 *
 * Ordering: the source's queued work (a batch's held-back launches
 * included) finishes before the copy reads; the copy is ordered after the
 * new array's allocation on the destination's stream, and complete before
 * this returns, since the source's memory is freed in the source stream's
 * order, which knows nothing of the destination's. */
#include "core/types.h"
#include "cuda.h"

/* The source's work that writes the array finishes first. */
static int settle_source(am_err *err, am_cuda_device *from) {
  int pushed = am_cuda_enter(from);
  int status = am_cuda_submit(err, from);
  if (status == AM_OK) status = am_cuda_wait_stream(err, from, "peer copy (source)");
  am_cuda_leave(from, pushed);
  return status;
}

/* Bytes from `source` on `from` to `destination` on `to`, on `to`'s stream;
 * AM_EUNSUPPORTED when the driver refuses (the host route remains). */
static int copy_bytes(am_err *err, am_cuda_device *from, am_cuda_device *to,
                      CUdeviceptr destination, CUdeviceptr source, size_t bytes) {
  CUresult result =
      to->cu->cuMemcpyPeerAsync(destination, to->context, source, from->context, bytes, to->stream);
  if (result == CUDA_SUCCESS) return AM_OK;
  const char *text = "unknown error";
  to->cu->cuGetErrorString(result, &text);
  return am_fail(err, AM_EUNSUPPORTED, "cuMemcpyPeerAsync failed: %s (CUDA error %d)", text,
                 (int)result);
}

int am_cuda_copy_peer(am_err *err, const am_array *array, am_device *to_device, am_array **out) {
  am_cuda_device *from = am_cuda_of(array->device), *to = am_cuda_of(to_device);
  if (!from->cu->cuMemcpyPeerAsync)
    return am_fail(err, AM_EUNSUPPORTED, "this CUDA driver has no cuMemcpyPeerAsync");
  int status = am_gpu_check_broken(err, &from->gpu);
  if (status == AM_OK) status = am_gpu_check_broken(err, &to->gpu);
  if (status == AM_OK) status = settle_source(err, from);
  if (status != AM_OK) return status;
  /* The slot offset modulo 8 is kept, as uploads keep it: the data and the
   * bitmap move as whole bytes from the same first byte. */
  int64_t base = array->offset & ~(int64_t)7;
  int64_t span = array->offset - base + array->length;
  int has_validity = array->validity != NULL;
  int pushed = am_cuda_enter(to);
  am_array *copy = NULL;
  status = am_gpu_alloc_array(err, &to->gpu, array->type, span, has_validity, &copy);
  if (status == AM_OK && span > 0) status = am_cuda_submit(err, to);
  if (status == AM_OK && span > 0) {
    size_t skip =
        array->type == AM_BOOL ? (size_t)(base / 8) : (size_t)am_type_bytes(array->type, base);
    status = copy_bytes(err, from, to, (CUdeviceptr)(uintptr_t)copy->data,
                        (CUdeviceptr)(uintptr_t)array->data + skip,
                        (size_t)am_type_bytes(array->type, span));
    if (status == AM_OK && has_validity)
      status =
          copy_bytes(err, from, to, (CUdeviceptr)(uintptr_t)copy->validity,
                     (CUdeviceptr)(uintptr_t)array->validity + base / 8, (size_t)((span + 7) / 8));
    /* A refused copy may have left an earlier one queued: wait either way
     * before the new array goes (a failed wait is the device's failure). */
    int waited = am_cuda_wait_stream(err, to, "peer copy");
    if (waited != AM_OK) status = waited;
  }
  am_cuda_leave(to, pushed);
  if (status != AM_OK) {
    am_array_free(copy);
    return status;
  }
  copy->offset = array->offset - base;
  copy->length = array->length;
  copy->timezone = array->timezone;
  atomic_store(&copy->null_count, has_validity ? atomic_load(&array->null_count) : 0);
  *out = copy;
  return AM_OK;
}
