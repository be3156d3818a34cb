/* State shared by the CUDA backend's files. The backend is the GPU runtime's
 * hooks (hooks.c) over the driver API and NVRTC, loaded at run time, plus
 * what only CUDA memory needs: pinned uploads, downloads and the C Device
 * Data Interface (memory.c), and copies between GPUs (peer_copy.c). */
#ifndef AM_CUDA_CUDA_H
#define AM_CUDA_CUDA_H

#include <pthread.h>

#include "core/backend.h"
#include "driver.h"
#include "gpu/batch_interpreter.h"
#include "gpu/runtime.h"

enum { AM_CUDA_STAGING_BYTES = 8 << 20 };

typedef struct am_cuda_pinned_pool am_cuda_pinned_pool;
typedef struct am_cuda_deferred am_cuda_deferred;
typedef struct am_cuda_resident am_cuda_resident;

typedef struct am_cuda_device {
  am_gpu_device gpu; /* first: device->impl points at both */
  const am_cuda_driver *cu;
  CUdevice device;
  CUcontext context;
  CUstream stream;
  int arch;         /* compute capability as 90 */
  int exec_timeout; /* the device has a kernel run-time limit (a display GPU) */
  char gpu_name[96];
  char compiler_id[96]; /* sm_90, NVRTC version and options: the kernel cache key */

  /* Host-mapped memory the device writes: the timeline's reached value,
   * then the status blocks (given to the runtime). */
  void *mapped;
  volatile uint64_t *reached;
  CUdeviceptr reached_device;

  /* Two pinned buffers that large uploads stream through. */
  pthread_mutex_t staging_lock;
  void *staging[2];
  CUevent staging_done[2];

  /* Page-locked blocks that large downloads land in (pinned_pool.c). */
  am_cuda_pinned_pool *pinned;

  /* The stream was seen idle when am_cuda_work_enqueued() was idle_at
   * (hooks.c's idle; under the commit lock). 0 at first: with nothing
   * enqueued yet in the process, every stream is idle. */
  uint64_t idle_at;

  /* A batch's launches held back to go out as one graph (batch_graph.c). */
  am_cuda_deferred *deferred;

  /* The resident worker (resident.c): made on the first
   * am_resident_mode(1), under resident_lock, kept for the device's life. */
  pthread_mutex_t resident_lock;
  am_cuda_resident *resident;
} am_cuda_device;

static inline am_cuda_device *am_cuda_of(const am_device *device) { return device->impl; }
static inline am_cuda_device *am_cuda_of_gpu(am_gpu_device *gpu) { return (am_cuda_device *)gpu; }

/* hooks.c */
extern const am_gpu_hooks am_cuda_hooks;
/* Pushes the device's primary context unless it is already current; returns
 * whether a pop is owed. */
int am_cuda_enter(am_cuda_device *cuda);
void am_cuda_leave(am_cuda_device *cuda, int pushed);

/* device.c */
int am_cuda_open(am_err *err, am_device *device);

/* memory.c: the backend's memory entries. */
int am_cuda_upload(am_err *err, am_device *device, const am_array *host, am_array **out);
int am_cuda_download(am_err *err, const am_array *array, am_device *host_device,
                     am_array **host_out);
int am_cuda_import_device(am_err *err, am_device *device, am_type type,
                          struct ArrowDeviceArray *array, am_array **out);
int am_cuda_export_device(am_err *err, const am_array *array, struct ArrowDeviceArray *out);
int am_cuda_wait_sync_event(am_err *err, void *sync_event);

/* peer_copy.c: the backend's copy_peer (core/backend.h). */
int am_cuda_copy_peer(am_err *err, const am_array *array, am_device *to, am_array **out);

/* pinned_pool.c: a page-locked host buffer of `size` bytes, from the
 * device's cache of freed blocks or a new cuMemHostAlloc; it returns to the
 * cache when its last reference goes. NULL when none can be had (the caller
 * downloads into pageable memory instead). Thread-safe. */
int am_cuda_pinned_pool_init(am_cuda_device *cuda);
am_buffer *am_cuda_pinned_alloc(am_cuda_device *cuda, int64_t size);

/* batch_graph.c: inside a batch, launches are held back and go out
 * together as one CUDA graph, whose instance for that shape (number of
 * launches and which wait for which) is kept and replayed with the new
 * parameters (one cuGraphLaunch instead of a cuLaunchKernel each). Everything else that enqueues on
 * the device's stream or waits for it calls am_cuda_submit first, so the stream's order is the
 * order of the calls. ARROWMETAL_BATCH_GRAPHS=0 launches at once instead.
 *
 * am_cuda_deferred_init: at device open (no memory: graphs off). */
void am_cuda_deferred_init(am_cuda_device *cuda);
/* Enqueues one launch of `kernel` now (`blocks` blocks of AM_GPU_BLOCK
 * threads, `args` its one argument), whatever is held back. */
int am_cuda_launch_now(am_err *err, am_cuda_device *cuda, void *kernel, int blocks,
                       const am_gpu_args *args);
/* Holds back one launch of `kernel` (`blocks` blocks, `args` copied), the
 * compiled kernel of `key`. */
int am_cuda_defer_launch(am_err *err, am_cuda_device *cuda, const am_kernel_key *key, void *kernel,
                         int blocks, const am_gpu_args *args);
/* Enqueues the held-back launches, then the frees that waited for them.
 * Thread-safe; the context need not be current. */
int am_cuda_submit(am_err *err, am_cuda_device *cuda);
/* Whether launches are held back (a relaxed read: for idle's answer). */
int am_cuda_deferred_pending(am_cuda_device *cuda);
/* Frees `pointer` in stream order, after the held-back launches (which may
 * read it) once they go out, and then takes `bytes` off the device's memory
 * in use. */
void am_cuda_free_after_launches(am_cuda_device *cuda, CUdeviceptr pointer, int64_t bytes);

/* batch_interpreter.c: a batch whose launches are one block each and wait
 * for none of the others goes out as one launch of the interpreter of its
 * kernels (gpu/batch_interpreter.h), unless ARROWMETAL_BATCH_INTERPRETER=0.
 * The interpreters of a device (NULL: off, or no memory), used under the
 * held launches' lock. */
typedef struct am_cuda_interpreters am_cuda_interpreters;
am_cuda_interpreters *am_cuda_interpreters_new(void);
/* Launches `count` ops, op i the one-block launch of keys[i] with
 * params->op[i].args, as one launch of the interpreter of their keys
 * (filling params->op[i].kernel): AM_OK, or AM_EUNSUPPORTED with nothing
 * sent when no interpreter runs them (fewer than 6 launches, or not yet:
 * the 16th batch of a set compiles it) or its launch failed. With the context current. */
int am_cuda_interpret(am_cuda_device *cuda, am_cuda_interpreters *all, const am_kernel_key *keys,
                      am_batch_params *params, int count);

/* resident.c: the backend's queue.resident entry (core/backend.h). */
int am_cuda_resident_mode(am_device *device, int on, const char **reason);

/* fault.c: ARROWMETAL_TEST_FAULT, a fault on purpose for the tests. Whether
 * this launch is the one to replace, and the launch of the faulting kernel
 * in its place. */
int am_cuda_fault_due(void);
int am_cuda_launch_fault(am_err *err, am_cuda_device *cuda);

/* out_of_memory.c: after cuMemAllocAsync ran out of memory, frees what the
 * stream-ordered pool keeps and tries once more; AM_ENOMEM with the sizes
 * (asked, free, total) when it still fails. */
int am_cuda_alloc_retry(am_err *err, am_cuda_device *cuda, size_t bytes, CUdeviceptr *pointer);

/* wait.c: blocking waits, bounded by the wait watchdog. The device's own
 * stream and events mark the device broken when the wait fails or expires;
 * a producer's (foreign) stream or event does not. */
int am_cuda_wait_stream(am_err *err, am_cuda_device *cuda, const char *what);
int am_cuda_wait_event(am_err *err, am_cuda_device *cuda, CUevent event, const char *what);
int am_cuda_wait_foreign_stream(am_err *err, const am_cuda_driver *cu, CUstream stream,
                                const char *what);
int am_cuda_wait_foreign_event(am_err *err, const am_cuda_driver *cu, CUevent event,
                               const char *what);
/* Polls `event` until it completes (AM_OK), fails, or `deadline` (not 0)
 * passes (am_wait_timeout_fail); marks nothing broken. */
int am_cuda_poll_event(am_err *err, const am_cuda_driver *cu, CUevent event, int64_t deadline,
                       const char *what);
/* A copy into pageable host memory blocks in the driver until the stream's
 * earlier work is done, beyond any watchdog: with the watchdog on, this
 * first waits (bounded) for that work. AM_OK at once when it is off. */
int am_cuda_settle_before_copy(am_err *err, am_cuda_device *cuda, const char *what);

#endif
