/* State shared by the Metal backend's files. The backend is the GPU runtime's
 * hooks (hooks.m) over Metal, plus what only Metal memory needs: zero-copy
 * wrapping of host memory and the C Device Data Interface (memory.m).
 *
 * Objective-C stays in the .m files: this header is C, and the Metal objects
 * a device holds are kept as retained Core Foundation references (void *,
 * made with CFBridgingRetain), so that the struct is plain C memory that the
 * runtime and the ABI can handle like any other device's state. No
 * Objective-C object or exception crosses a hook or an entry point: each
 * body runs in its own @autoreleasepool, with @try where Foundation throws. */
#ifndef AM_METAL_METAL_H
#define AM_METAL_METAL_H

#include <pthread.h>
#include <stdint.h>

#include "core/backend.h"
#include "gpu/runtime.h"

/* A live Metal buffer: the kernels reach buffers through GPU addresses in
 * their argument block, so every buffer a launch may touch must be made
 * resident (useResource:usage:); the registry finds a buffer by address. */
typedef struct am_metal_buffer_entry {
  uint64_t address; /* gpuAddress */
  uint64_t length;
  void *buffer; /* id<MTLBuffer>, not retained by the registry */
} am_metal_buffer_entry;

/* A buffer given back: retained until its submission's work is done. */
typedef struct am_metal_dead_buffer {
  void *buffer; /* id<MTLBuffer>, retained */
  int reusable; /* allocated by the backend (not wrapping someone's memory) */
} am_metal_dead_buffer;

/* The pool keeps at most this many buffers and bytes. */
#define AM_METAL_POOL_BUFFERS 64
#define AM_METAL_POOL_BYTES ((uint64_t)512 << 20)

typedef struct am_metal_device {
  am_gpu_device gpu; /* first: device->impl points at both */
  void *device;      /* id<MTLDevice> */
  void *queue;       /* id<MTLCommandQueue> */
  void *event;       /* id<MTLSharedEvent>: the timeline */
  void *listener;    /* MTLSharedEventListener: wakes blocked waiters */
  void *status;      /* id<MTLBuffer>: the status blocks (shared memory) */
  char name[128];
  char compiler_id[160];

  /* The command buffer and compute encoder of the submission being built,
   * under the timeline's commit lock (every launch and mark holds it). */
  void *command_buffer; /* id<MTLCommandBuffer> */
  void *encoder;        /* id<MTLComputeCommandEncoder> */

  /* Blocked waiters sleep here until the listener raises `woken`. */
  pthread_mutex_t wake_lock;
  pthread_cond_t wake;

  pthread_mutex_t buffers_lock;
  am_metal_buffer_entry *buffers; /* sorted by address */
  int64_t buffer_count, buffer_capacity;

  /* Buffers given back while queued work may still use them: when the
   * command buffer of the next submission completes (every command buffer
   * waits for the one before it, so all earlier work is done), the ones the
   * backend allocated go to the pool and the others are released. */
  pthread_mutex_t graveyard_lock;
  am_metal_dead_buffer *graveyard;
  int64_t graveyard_count, graveyard_capacity;

  /* Page-aligned shared buffers no work uses any more, for the next
   * allocations of a similar size (a new MTLBuffer costs a kernel call and
   * page faults on first touch). */
  pthread_mutex_t pool_lock;
  void *pool[AM_METAL_POOL_BUFFERS]; /* retained id<MTLBuffer>s, oldest first */
  int pool_count;
  uint64_t pool_bytes;
} am_metal_device;

static inline am_metal_device *am_metal_of(const am_device *device) { return device->impl; }

/* device.m */
int am_metal_probe(am_err *err);
int am_metal_device_count(void);
int am_metal_open(am_err *err, am_device *device);

/* hooks.m */
extern const am_gpu_hooks am_metal_hooks;
/* The registry of live buffers (see am_metal_buffer_entry). */
int am_metal_register(am_err *err, am_metal_device *metal, void *buffer, uint64_t address,
                      uint64_t length);
void am_metal_unregister(am_metal_device *metal, uint64_t address);
/* The buffer holding device address `address`, and the offset of `address`
 * in it; NULL when no live buffer holds it. */
void *am_metal_find(am_metal_device *metal, uint64_t address, uint64_t *offset);
/* The CPU address of device address `address` (shared memory), or NULL when
 * no live buffer holds it. */
void *am_metal_contents(am_metal_device *metal, uint64_t address);
/* An am_buffer over a retained id<MTLBuffer> (ptr: its gpuAddress); the
 * buffer is unregistered and released with the last reference. */
int am_metal_wrap_buffer(am_err *err, am_metal_device *metal, void *retained_buffer, int64_t bytes,
                         am_buffer **out);

/* Whether `buffer` is one of the Metal backend's (memory that already backs
 * an MTLBuffer, which is not wrapped a second time). */
int am_metal_owns(const am_buffer *buffer);

/* archive.m: opt-in binary archives (ARROWMETAL_METAL_ARCHIVE). `descriptor`
 * is an MTLComputePipelineDescriptor, `device` an id<MTLDevice> (both
 * borrowed): attach gives the descriptor the process's archive before the
 * pipeline is made, harvest adds the made pipeline to it. No-ops when off. */
void am_metal_archive_attach(void *descriptor, void *device);
void am_metal_archive_harvest(void *descriptor, void *device);

/* memory.m: the backend's memory entries. */
int am_metal_upload(am_err *err, am_device *device, const am_array *host, am_array **out);
int am_metal_download(am_err *err, const am_array *array, am_device *host_device,
                      am_array **host_out);
int am_metal_import_device(am_err *err, am_device *device, am_type type,
                           struct ArrowDeviceArray *array, am_array **out);
int am_metal_export_device(am_err *err, const am_array *array, struct ArrowDeviceArray *out);
int am_metal_wait_event(am_err *err, void *sync_event);

#endif
