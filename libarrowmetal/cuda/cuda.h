/* State shared by the CUDA backend's files. */
#ifndef AM_CUDA_CUDA_H
#define AM_CUDA_CUDA_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/backend.h"
#include "core/runtime.h"
#include "core/timeline.h"
#include "core/types.h"
#include "driver.h"
#include "gpu/kernels.h"

enum {
  AM_CUDA_STATUS_SLOTS = 4096, /* status blocks in host-mapped memory */
  AM_CUDA_STAGING_BYTES = 8 << 20,
  AM_CUDA_KERNEL_SLOTS = 12 * 8 * AM_TYPE_COUNT * AM_TYPE_COUNT
};

typedef struct am_cuda_device {
  const am_cuda_driver *cu;
  CUdevice device;
  CUcontext context;
  CUstream stream;
  int arch; /* compute capability as 90 */
  int multiprocessors;
  char gpu_name[96];

  CUdeviceptr scratch; /* AM_GPU_SCRATCH_BYTES; used by one launch sequence at a time */

  /* Host-mapped memory the device writes: the timeline counter, then the
   * status blocks. */
  void *mapped;
  volatile uint64_t *completed;
  CUdeviceptr completed_device;
  am_gpu_status *status;
  CUdeviceptr status_device;
  pthread_mutex_t status_lock;
  int free_status[AM_CUDA_STATUS_SLOTS];
  int free_count;

  am_timeline timeline;

  /* Two pinned buffers that large uploads stream through. */
  pthread_mutex_t staging_lock;
  void *staging[2];
  CUevent staging_done[2];

  /* Compiled kernels by key; written once under compile_lock. */
  pthread_mutex_t compile_lock;
  _Atomic(CUfunction) kernels[AM_CUDA_KERNEL_SLOTS];

  /* A failure the device cannot recover from (ggml's sticky error): every
   * later call fails with it instead of running on a broken context. */
  atomic_int broken;
  char broken_message[256];
} am_cuda_device;

static inline am_cuda_device *am_cuda_of(const am_device *device) { return device->impl; }

/* Pushes the device's primary context unless it is already current; returns
 * whether a pop is owed. */
int am_cuda_enter(am_cuda_device *cuda);
void am_cuda_leave(am_cuda_device *cuda, int pushed);

/* device.c */
int am_cuda_open(am_device *device);
int am_cuda_check_broken(am_cuda_device *cuda);
int am_cuda_status_acquire(am_cuda_device *cuda, int *slot);
void am_cuda_status_release(am_cuda_device *cuda, int slot);

/* memory.c: device buffers and arrays. */
int am_cuda_alloc(am_device *device, int64_t bytes, am_buffer **out);
int am_cuda_alloc_array(am_device *device, am_type type, int64_t length, int with_validity,
                        am_array **out);
int am_cuda_upload(am_device *device, const am_array *host, am_array **out);
int am_cuda_download(const am_array *array, am_device *host_device, am_array **host_out);
int am_cuda_import_device(am_device *device, am_type type, struct ArrowDeviceArray *array,
                          am_array **out);
int am_cuda_export_device(const am_array *array, struct ArrowDeviceArray *out);
int am_cuda_wait_event(void *sync_event);

/* kernel_cache.c */
int am_cuda_kernel(am_cuda_device *cuda, const am_kernel_key *key, CUfunction *out);
int am_cuda_launch(am_cuda_device *cuda, const am_kernel_key *key, am_gpu_args *args);

/* submit.c: one op's life from launch to result. An op takes the commit lock,
 * enqueues its launches and, outside a batch, a completion value it waits
 * for; inside a batch the thread's deferred checks run at the batch's end. */
typedef enum am_cuda_check {
  AM_CUDA_CHECK_NONE,
  AM_CUDA_CHECK_SCALAR, /* convert a reduce status into the caller's am_scalar */
  AM_CUDA_CHECK_ERROR,  /* report error_index as an error of this op */
  AM_CUDA_CHECK_FILTER, /* set the result's length */
  AM_CUDA_CHECK_COUNT   /* copy status->count to count_out */
} am_cuda_check;

typedef struct am_cuda_op {
  am_cuda_check check;
  int slot;              /* status slot, -1 if none */
  const char *call;      /* am_* entry point, for messages */
  am_reduce_op reduce;   /* CHECK_SCALAR */
  am_type type;          /* input type */
  am_scalar *scalar_out; /* CHECK_SCALAR destination */
  int error_code;        /* CHECK_ERROR: AM_EZERODIV / AM_EINDEX / AM_EOVERFLOW */
  am_buffer *culprit;    /* CHECK_ERROR: the values the failing slot indexes (kept alive) */
  CUdeviceptr culprit_data;
  am_type culprit_type;
  int64_t culprit_offset;
  int64_t bound;      /* CHECK_ERROR for take: source length; cast: target type */
  am_array *result;   /* CHECK_FILTER */
  int64_t *count_out; /* CHECK_COUNT */
  int immediate;      /* wait even inside a batch (the caller needs the answer now) */
} am_cuda_op;

/* Begins an op: checks the sticky error, enters the context, takes the
 * commit lock. */
int am_cuda_op_begin(am_cuda_device *cuda, int *pushed);
/* Ends an op begun with am_cuda_op_begin: outside a batch commits, unlocks,
 * waits and runs the op's check; inside one, unlocks and defers the check to
 * the batch's end. `launch_status` is the status of the launches. */
int am_cuda_op_end(am_cuda_device *cuda, int pushed, int launch_status, am_cuda_op *op);

int am_cuda_batch_flush(am_device *device, int wait, uint64_t *ticket);
int am_cuda_wait_ticket(am_device *device, uint64_t ticket);
int am_cuda_resolve(const am_array *array);
/* Marks a filter result made inside a batch: its length is read from status
 * `slot` when someone first needs it. */
int am_cuda_make_pending(am_cuda_device *cuda, int slot, am_array *array);
int am_cuda_sync(am_cuda_device *cuda);

/* ops.c: the kernel entries of the backend table. */
int am_cuda_count_nulls(const am_array *array, int64_t *out);
int am_cuda_reduce(am_reduce_op op, const am_array *array, am_scalar *out);
int am_cuda_compare(am_compare_op op, const am_array *left, const am_array *right,
                    const am_scalar *scalar, am_array **out);
int am_cuda_arith(am_arith_op op, const am_array *left, const am_array *right,
                  const am_scalar *scalar, am_array **out);
int am_cuda_cast(const am_array *array, am_type to, int safe, am_array **out);
int am_cuda_logic(am_logic_op op, const am_array *left, const am_array *right, am_array **out);
int am_cuda_filter(const am_array *array, const am_array *mask, am_array **out);
int am_cuda_take(const am_array *array, const am_array *indices, am_array **out);
int am_cuda_fill(am_device *device, const am_scalar *value, int64_t length, am_array **out);

#endif
