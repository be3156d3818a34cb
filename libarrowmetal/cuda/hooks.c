/* The GPU runtime's hooks on CUDA: the primary context, stream-ordered
 * memory, NVRTC and module loading, launches, and the timeline as a word of
 * host-mapped memory that the stream writes (cuStreamWriteValue64). */
#include <stdlib.h>

#include "cuda.h"
#include "nvrtc.h"

int am_cuda_enter(am_cuda_device *cuda) {
  CUcontext current = NULL;
  cuda->cu->cuCtxGetCurrent(&current);
  if (current == cuda->context) return 0;
  cuda->cu->cuCtxPushCurrent(cuda->context);
  return 1;
}

void am_cuda_leave(am_cuda_device *cuda, int pushed) {
  if (pushed) {
    CUcontext popped;
    cuda->cu->cuCtxPopCurrent(&popped);
  }
}

static int enter(am_gpu_device *gpu) { return am_cuda_enter(am_cuda_of_gpu(gpu)); }

static void leave(am_gpu_device *gpu, int token) { am_cuda_leave(am_cuda_of_gpu(gpu), token); }

/* Sizes are rounded up to whole 64-byte lines so that kernels writing 32-bit
 * bitmap words never leave the allocation. The device's memory counters
 * (core/memstats.h) count the rounded size: added here on allocation,
 * subtracted when the free goes on the stream (batch_graph.c), from the
 * buffer's own size. */
static size_t rounded_bytes(int64_t bytes) {
  return ((size_t)(bytes > 0 ? bytes : 0) + 127) & ~(size_t)63;
}

/* Frees in stream order: work already enqueued (or held back in a batch)
 * that reads the buffer still runs before the memory is reused. */
static void free_device_buffer(am_buffer *buffer) {
  am_cuda_device *cuda = buffer->context;
  int pushed = am_cuda_enter(cuda);
  am_cuda_free_after_launches(cuda, (CUdeviceptr)(uintptr_t)buffer->ptr,
                              (int64_t)rounded_bytes(buffer->size));
  am_cuda_leave(cuda, pushed);
  am_buffer_free_shell(buffer);
}

static int alloc(am_err *err, am_gpu_device *gpu, int64_t bytes, am_buffer **out) {
  am_cuda_device *cuda = am_cuda_of_gpu(gpu);
  size_t rounded = rounded_bytes(bytes);
  CUdeviceptr pointer = 0;
  CUresult result = cuda->cu->cuMemAllocAsync(&pointer, rounded, cuda->stream);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    int status = am_cuda_alloc_retry(err, cuda, rounded, &pointer);
    if (status != AM_OK) return status;
  } else if (result != CUDA_SUCCESS) {
    return am_cuda_fail(err, result, "cuMemAllocAsync");
  }
  am_buffer *buffer = am_buffer_wrap((void *)(uintptr_t)pointer, bytes, cuda, free_device_buffer);
  if (!buffer) {
    cuda->cu->cuMemFreeAsync(pointer, cuda->stream);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  am_mem_alloc(&cuda->gpu.device->memory, (int64_t)rounded);
  *out = buffer;
  return AM_OK;
}

static int zero(am_err *err, am_gpu_device *gpu, uint64_t address, int64_t bytes) {
  am_cuda_device *cuda = am_cuda_of_gpu(gpu);
  /* Ahead of held-back launches: none of them can use a buffer just
   * allocated (the runtime's promise), nor can it be memory whose free waits
   * for them. */
  CUresult result = cuda->cu->cuMemsetD8Async(address, 0, (size_t)bytes, cuda->stream);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, "cuMemsetD8Async");
}

static int read_back(am_err *err, am_gpu_device *gpu, void *host, uint64_t address, int64_t bytes) {
  am_cuda_device *cuda = am_cuda_of_gpu(gpu);
  int status = am_cuda_submit(err, cuda);
  if (status == AM_OK) status = am_cuda_settle_before_copy(err, cuda, "cuMemcpyDtoHAsync");
  if (status != AM_OK) return status;
  CUresult result = cuda->cu->cuMemcpyDtoHAsync(host, address, (size_t)bytes, cuda->stream);
  if (result != CUDA_SUCCESS) return am_cuda_fail(err, result, "cuMemcpyDtoHAsync");
  return am_cuda_wait_stream(err, cuda, "cuMemcpyDtoHAsync");
}

static const char *compiler_id(am_gpu_device *gpu) { return am_cuda_of_gpu(gpu)->compiler_id; }

static int compile(am_err *err, am_gpu_device *gpu, const char *source, const char *name,
                   void **image, size_t *size) {
  return am_nvrtc_compile(err, source, name, am_cuda_of_gpu(gpu)->arch, image, size);
}

/* Modules are never unloaded: a kernel lives as long as the device. */
static int load(am_err *err, am_gpu_device *gpu, const void *image, size_t size, const char *name,
                void **kernel) {
  (void)size;
  am_cuda_device *cuda = am_cuda_of_gpu(gpu);
  CUmodule module = NULL;
  CUfunction function = NULL;
  CUresult result = cuda->cu->cuModuleLoadData(&module, image);
  if (result == CUDA_SUCCESS) result = cuda->cu->cuModuleGetFunction(&function, module, name);
  if (result != CUDA_SUCCESS) return am_cuda_fail(err, result, "cuModuleLoadData");
  *kernel = function;
  return AM_OK;
}

static int launch(am_err *err, am_gpu_device *gpu, void *kernel, int blocks,
                  const am_gpu_args *args) {
  am_cuda_device *cuda = am_cuda_of_gpu(gpu);
  int status = am_cuda_submit(err, cuda);
  if (status != AM_OK) return status;
  if (am_cuda_fault_due()) return am_cuda_launch_fault(err, cuda);
  return am_cuda_launch_now(err, cuda, kernel, blocks, args);
}

/* Inside a batch: held back, to go out with the batch's other launches. */
static int launch_deferred(am_err *err, am_gpu_device *gpu, const am_kernel_key *key, void *kernel,
                           int blocks, const am_gpu_args *args) {
  am_cuda_device *cuda = am_cuda_of_gpu(gpu);
  if (am_cuda_fault_due()) {
    int status = am_cuda_submit(err, cuda);
    return status == AM_OK ? am_cuda_launch_fault(err, cuda) : status;
  }
  return am_cuda_defer_launch(err, cuda, key, kernel, blocks, args);
}

static int mark(am_err *err, am_gpu_device *gpu, uint64_t value) {
  am_cuda_device *cuda = am_cuda_of_gpu(gpu);
  int status = am_cuda_submit(err, cuda);
  if (status != AM_OK) return status;
  CUresult result = cuda->cu->cuStreamWriteValue64(cuda->stream, cuda->reached_device, value,
                                                   CU_STREAM_WRITE_VALUE_DEFAULT);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, "cuStreamWriteValue64");
}

/* Whether the stream has run everything enqueued on it, asked of the
 * driver without enqueuing anything. An error (the stream's sticky fault)
 * answers no: the caller's wait then reports it. So do launches held back
 * in a batch: the caller's mark sends them. Unless `ask`, a stream seen idle
 * when no work had been enqueued since is idle still, without asking again
 * (cuStreamQuery costs 1.5 us on an H100, as much as the resident worker's
 * sum itself): the count is read before the query, and every enqueue is
 * counted once its call returns, so one the query may not have covered
 * changes the count. A sync asks: a fault elsewhere in the context (another
 * library's kernel, the resident worker) moves no count. */
static int idle(am_gpu_device *gpu, int ask) {
  am_cuda_device *cuda = am_cuda_of_gpu(gpu);
  if (am_cuda_deferred_pending(cuda)) return 0;
  uint64_t enqueued = am_cuda_work_enqueued();
  if (!ask && enqueued == cuda->idle_at) return 1;
  if (cuda->cu->cuStreamQuery(cuda->stream) != CUDA_SUCCESS) return 0;
  cuda->idle_at = enqueued;
  return 1;
}

/* The stream's write is the release; this acquire orders the caller's reads
 * of results after it. */
static uint64_t reached(void *gpu) {
  return __atomic_load_n(am_cuda_of_gpu(gpu)->reached, __ATOMIC_ACQUIRE);
}

/* An event recorded now follows every value already issued, so
 * synchronizing on it blocks in the driver until `value` is reached (or
 * later work too, which only lengthens the wait). Under the watchdog the
 * event is polled until `deadline` instead. The timeline marks the device
 * broken when this fails. */
static int block(am_err *err, am_gpu_device *gpu, uint64_t value, int64_t deadline) {
  am_cuda_device *cuda = am_cuda_of_gpu(gpu);
  if (reached(gpu) >= value) return AM_OK;
  CUevent event = NULL;
  CUresult result =
      cuda->cu->cuEventCreate(&event, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING);
  if (result == CUDA_SUCCESS) result = cuda->cu->cuEventRecord(event, cuda->stream);
  if (result == CUDA_SUCCESS && !deadline) result = cuda->cu->cuEventSynchronize(event);
  int status = result != CUDA_SUCCESS ? am_cuda_fail(err, result, "cuEventSynchronize")
               : deadline ? am_cuda_poll_event(err, cuda->cu, event, deadline, "cuEventSynchronize")
                          : AM_OK;
  if (event) cuda->cu->cuEventDestroy(event);
  return status;
}

const am_gpu_hooks am_cuda_hooks = {
    .enter = enter,
    .leave = leave,
    .alloc = alloc,
    .zero = zero,
    .read = read_back,
    .compiler_id = compiler_id,
    .compile = compile,
    .load = load,
    .launch = launch,
    .launch_deferred = launch_deferred,
    .mark = mark,
    .idle = idle,
    .reached = reached,
    .block = block,
};
