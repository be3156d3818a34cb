/* The GPU runtime's hooks on Metal: shared-memory buffers found by GPU
 * address, kernels compiled from MSL source (the system shader cache keeps
 * what it compiled, so there is no disk cache of ours), one command buffer
 * and compute encoder per submission, and the timeline as an
 * MTLSharedEvent: a submission's command buffer encodes the signal of its
 * value after its work. */
#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metal.h"

static am_metal_device *metal_of(void *gpu) { return (am_metal_device *)gpu; }

/* ---- The registry of live buffers, sorted by GPU address */

/* The first entry whose address is above `address`. */
static int64_t upper_bound(const am_metal_device *metal, uint64_t address) {
  int64_t lo = 0, hi = metal->buffer_count;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (metal->buffers[mid].address <= address)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int am_metal_register(am_err *err, am_metal_device *metal, void *buffer, uint64_t address,
                      uint64_t length) {
  pthread_mutex_lock(&metal->buffers_lock);
  if (metal->buffer_count == metal->buffer_capacity) {
    int64_t capacity = metal->buffer_capacity ? 2 * metal->buffer_capacity : 256;
    am_metal_buffer_entry *grown = realloc(metal->buffers, (size_t)capacity * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&metal->buffers_lock);
      return am_fail(err, AM_ENOMEM, "out of memory registering a Metal buffer");
    }
    metal->buffers = grown;
    metal->buffer_capacity = capacity;
  }
  int64_t at = upper_bound(metal, address);
  memmove(&metal->buffers[at + 1], &metal->buffers[at],
          (size_t)(metal->buffer_count - at) * sizeof *metal->buffers);
  metal->buffers[at] = (am_metal_buffer_entry){address, length, buffer};
  metal->buffer_count++;
  pthread_mutex_unlock(&metal->buffers_lock);
  return AM_OK;
}

void am_metal_unregister(am_metal_device *metal, uint64_t address) {
  pthread_mutex_lock(&metal->buffers_lock);
  int64_t at = upper_bound(metal, address) - 1;
  if (at >= 0 && metal->buffers[at].address == address) {
    memmove(&metal->buffers[at], &metal->buffers[at + 1],
            (size_t)(metal->buffer_count - at - 1) * sizeof *metal->buffers);
    metal->buffer_count--;
  }
  pthread_mutex_unlock(&metal->buffers_lock);
}

void *am_metal_find(am_metal_device *metal, uint64_t address, uint64_t *offset) {
  void *found = NULL;
  pthread_mutex_lock(&metal->buffers_lock);
  int64_t at = upper_bound(metal, address) - 1;
  if (at >= 0 && address - metal->buffers[at].address < metal->buffers[at].length) {
    found = metal->buffers[at].buffer;
    *offset = address - metal->buffers[at].address;
  }
  pthread_mutex_unlock(&metal->buffers_lock);
  return found;
}

/* An am_buffer over one MTLBuffer: ptr is its GPU address. */
typedef struct metal_buffer {
  am_buffer base; /* first: freed through it */
  am_metal_device *metal;
  void *buffer; /* id<MTLBuffer>, retained */
  int reusable; /* allocated by the backend: goes back to the pool */
} metal_buffer;

/* The device's memory counters (core/memstats.h): a buffer the backend
 * allocates (reusable) is in use at its MTLBuffer's length from alloc until
 * free_metal_buffer; then reserved while it waits in the graveyard and in the
 * pool, until it is released. Buffers wrapping host memory count on the
 * host, where that memory was allocated. */
static am_mem_counters *memory_of(am_metal_device *metal) { return &metal->gpu.device->memory; }

static int64_t length_of(void *buffer) { return (int64_t)((__bridge id<MTLBuffer>)buffer).length; }

/* Work already queued may still read or write the buffer (it is reached
 * through an address; whether useResource: keeps it alive is not
 * documented): it goes to the graveyard until the next submission has
 * completed. */
static void free_metal_buffer(am_buffer *buffer) {
  metal_buffer *held = (metal_buffer *)buffer;
  am_metal_device *metal = held->metal;
  am_metal_unregister(metal, (uint64_t)(uintptr_t)buffer->ptr);
  int64_t length = held->reusable ? length_of(held->buffer) : 0;
  if (held->reusable) am_mem_free(memory_of(metal), length);
  pthread_mutex_lock(&metal->graveyard_lock);
  if (metal->graveyard_count == metal->graveyard_capacity) {
    int64_t capacity = metal->graveyard_capacity ? 2 * metal->graveyard_capacity : 64;
    am_metal_dead_buffer *grown = realloc(metal->graveyard, (size_t)capacity * sizeof *grown);
    if (grown) {
      metal->graveyard = grown;
      metal->graveyard_capacity = capacity;
    }
  }
  if (metal->graveyard_count < metal->graveyard_capacity) {
    metal->graveyard[metal->graveyard_count++] =
        (am_metal_dead_buffer){held->buffer, held->reusable};
    held->buffer = NULL;
    if (length) am_mem_reserve(memory_of(metal), length);
  }
  pthread_mutex_unlock(&metal->graveyard_lock);
  if (held->buffer) CFRelease(held->buffer); /* no memory to defer it: at once */
  free(held);
}

/* Takes over a retained buffer no work uses any more: pooled, the oldest
 * pooled ones released to stay under the caps. */
static void pool_put(am_metal_device *metal, void *buffer) {
  uint64_t length = ((__bridge id<MTLBuffer>)buffer).length;
  void *evicted[AM_METAL_POOL_BUFFERS + 1];
  int evictions = 0;
  pthread_mutex_lock(&metal->pool_lock);
  if (length > AM_METAL_POOL_BYTES) {
    evicted[evictions++] = buffer;
  } else {
    while (metal->pool_count == AM_METAL_POOL_BUFFERS ||
           metal->pool_bytes + length > AM_METAL_POOL_BYTES) {
      void *oldest = metal->pool[0];
      metal->pool_bytes -= ((__bridge id<MTLBuffer>)oldest).length;
      am_mem_reserve(memory_of(metal), -length_of(oldest));
      memmove(&metal->pool[0], &metal->pool[1], (size_t)--metal->pool_count * sizeof(void *));
      evicted[evictions++] = oldest;
    }
    metal->pool[metal->pool_count++] = buffer;
    metal->pool_bytes += length;
    am_mem_reserve(memory_of(metal), (int64_t)length);
  }
  pthread_mutex_unlock(&metal->pool_lock);
  for (int i = 0; i < evictions; i++) CFRelease(evicted[i]);
}

/* The smallest pooled buffer of at least `length` bytes and at most twice
 * that (retained, out of the pool), or NULL. */
static void *pool_take(am_metal_device *metal, uint64_t length) {
  void *found = NULL;
  pthread_mutex_lock(&metal->pool_lock);
  int best = -1;
  uint64_t best_length = 0;
  for (int i = 0; i < metal->pool_count; i++) {
    uint64_t have = ((__bridge id<MTLBuffer>)metal->pool[i]).length;
    if (have >= length && have <= 2 * length && (best < 0 || have < best_length)) {
      best = i;
      best_length = have;
    }
  }
  if (best >= 0) {
    found = metal->pool[best];
    metal->pool_bytes -= best_length;
    am_mem_reserve(memory_of(metal), -(int64_t)best_length);
    memmove(&metal->pool[best], &metal->pool[best + 1],
            (size_t)(--metal->pool_count - best) * sizeof(void *));
  }
  pthread_mutex_unlock(&metal->pool_lock);
  return found;
}

int am_metal_owns(const am_buffer *buffer) {
  return buffer && buffer->free_fn == free_metal_buffer;
}

int am_metal_wrap_buffer(am_err *err, am_metal_device *metal, void *retained_buffer, int64_t bytes,
                         am_buffer **out) {
  id<MTLBuffer> buffer = (__bridge id<MTLBuffer>)retained_buffer;
  uint64_t address = 0;
  if (@available(macOS 13.0, *)) address = buffer.gpuAddress;
  metal_buffer *held = malloc(sizeof *held);
  int status = held ? am_metal_register(err, metal, retained_buffer, address, buffer.length)
                    : am_fail(err, AM_ENOMEM, "out of memory");
  if (status != AM_OK) {
    free(held);
    CFRelease(retained_buffer);
    return status;
  }
  atomic_init(&held->base.refs, 1);
  held->base.ptr = (void *)(uintptr_t)address;
  held->base.size = bytes;
  held->base.context = NULL;
  held->base.free_fn = free_metal_buffer;
  held->metal = metal;
  held->buffer = retained_buffer;
  held->reusable = 0;
  *out = &held->base;
  return AM_OK;
}

void *am_metal_contents(am_metal_device *metal, uint64_t address) {
  uint64_t offset = 0;
  void *buffer = am_metal_find(metal, address, &offset);
  return buffer ? (char *)((__bridge id<MTLBuffer>)buffer).contents + offset : NULL;
}

/* ---- Contexts: none; every hook body has its own autorelease pool */

static int enter(am_gpu_device *gpu) {
  (void)gpu;
  return 0;
}

static void leave(am_gpu_device *gpu, int token) {
  (void)gpu;
  (void)token;
}

/* ---- Memory: shared storage, rounded up to whole 64-byte lines (kernels
 * write 32-bit bitmap words past a short tail) */

static int alloc(am_err *err, am_gpu_device *gpu, int64_t bytes, am_buffer **out) {
  @autoreleasepool {
    @try {
      am_metal_device *metal = metal_of(gpu);
      id<MTLDevice> device = (__bridge id<MTLDevice>)metal->device;
      NSUInteger rounded = ((NSUInteger)(bytes > 0 ? bytes : 0) + 127) & ~(NSUInteger)63;
      void *retained = pool_take(metal, rounded);
      if (!retained) {
        id<MTLBuffer> buffer = [device newBufferWithLength:rounded
                                                   options:MTLResourceStorageModeShared];
        if (!buffer)
          return am_fail(err, AM_ENOMEM, "Metal cannot allocate %lld bytes", (long long)bytes);
        retained = (void *)CFBridgingRetain(buffer);
      }
      int64_t length = length_of(retained); /* a pooled one may be larger */
      int status = am_metal_wrap_buffer(err, metal, retained, bytes, out);
      if (status == AM_OK) {
        ((metal_buffer *)*out)->reusable = 1;
        am_mem_alloc(memory_of(metal), length);
      }
      return status;
    } @catch (NSException *exception) {
      return am_fail(err, AM_EDEVICE, "Metal raised %s allocating: %s", exception.name.UTF8String,
                     exception.reason.UTF8String);
    }
  }
}

/* The runtime zeroes only buffers it has just allocated, which no queued
 * work uses: shared memory is cleared by the CPU at once. */
static int zero(am_err *err, am_gpu_device *gpu, uint64_t address, int64_t bytes) {
  void *contents = am_metal_contents(metal_of(gpu), address);
  if (!contents)
    return am_fail(err, AM_EINVAL, "no Metal buffer holds address 0x%llx",
                   (unsigned long long)address);
  memset(contents, 0, (size_t)bytes);
  return AM_OK;
}

static int read_back(am_err *err, am_gpu_device *gpu, void *host, uint64_t address, int64_t bytes) {
  int status = am_gpu_synchronize(err, gpu);
  if (status != AM_OK) return status;
  void *contents = am_metal_contents(metal_of(gpu), address);
  if (!contents)
    return am_fail(err, AM_EINVAL, "no Metal buffer holds address 0x%llx",
                   (unsigned long long)address);
  memcpy(host, contents, (size_t)bytes);
  return AM_OK;
}

/* ---- Kernels */

static const char *compiler_id(am_gpu_device *gpu) { return metal_of(gpu)->compiler_id; }

/* `image` is the kernel's MSL source (no compile hook: Metal's system shader
 * cache makes a warm compile about a millisecond). Pipelines are never
 * released: a kernel lives as long as the device. */
static int load(am_err *err, am_gpu_device *gpu, const void *image, size_t size, const char *name,
                void **kernel) {
  @autoreleasepool {
    @try {
      id<MTLDevice> device = (__bridge id<MTLDevice>)metal_of(gpu)->device;
      MTLCompileOptions *options = [MTLCompileOptions new];
      options.fastMathEnabled = NO; /* IEEE semantics, as the CPU and CUDA kernels */
      if (@available(macOS 14.0, *))
        options.languageVersion = MTLLanguageVersion3_1;
      else
        options.languageVersion = MTLLanguageVersion3_0;
      NSString *source = [[NSString alloc] initWithBytes:image
                                                  length:size > 0 ? size - 1 : 0
                                                encoding:NSUTF8StringEncoding];
      NSError *error = nil;
      id<MTLLibrary> library = [device newLibraryWithSource:source options:options error:&error];
      if (!library)
        return am_fail(err, AM_EDEVICE, "Metal could not compile %s: %s", name,
                       error.localizedDescription.UTF8String);
      id<MTLFunction> function = [library newFunctionWithName:@(name)];
      if (!function) return am_fail(err, AM_EDEVICE, "the MSL of %s has no kernel %s", name, name);
      MTLComputePipelineDescriptor *descriptor = [MTLComputePipelineDescriptor new];
      descriptor.computeFunction = function;
      am_metal_archive_attach((__bridge void *)descriptor, (__bridge void *)device);
      id<MTLComputePipelineState> pipeline =
          [device newComputePipelineStateWithDescriptor:descriptor
                                                options:MTLPipelineOptionNone
                                             reflection:nil
                                                  error:&error];
      if (!pipeline)
        return am_fail(err, AM_EDEVICE, "Metal could not make the pipeline of %s: %s", name,
                       error.localizedDescription.UTF8String);
      am_metal_archive_harvest((__bridge void *)descriptor, (__bridge void *)device);
      if (pipeline.maxTotalThreadsPerThreadgroup < AM_GPU_BLOCK)
        return am_fail(err, AM_EDEVICE, "%s runs at most %lu threads a threadgroup, not %d", name,
                       (unsigned long)pipeline.maxTotalThreadsPerThreadgroup, AM_GPU_BLOCK);
      /* Ballots and thread numbering assume SIMD groups of 32 lanes. */
      if (pipeline.threadExecutionWidth != 32)
        return am_fail(err, AM_EDEVICE, "%s runs SIMD groups of %lu lanes, not 32", name,
                       (unsigned long)pipeline.threadExecutionWidth);
      *kernel = (void *)CFBridgingRetain(pipeline);
      return AM_OK;
    } @catch (NSException *exception) {
      return am_fail(err, AM_EDEVICE, "Metal raised %s compiling %s: %s", exception.name.UTF8String,
                     name, exception.reason.UTF8String);
    }
  }
}

/* The encoder of the submission being built (the commit lock is held). */
static id<MTLComputeCommandEncoder> current_encoder(am_metal_device *metal) {
  if (!metal->command_buffer) {
    id<MTLCommandQueue> queue = (__bridge id<MTLCommandQueue>)metal->queue;
    id<MTLCommandBuffer> command_buffer = [queue commandBuffer];
    if (!command_buffer) return nil;
    metal->command_buffer = (void *)CFBridgingRetain(command_buffer);
  }
  if (!metal->encoder) {
    id<MTLCommandBuffer> command_buffer = (__bridge id<MTLCommandBuffer>)metal->command_buffer;
    /* Serial dispatch: each kernel sees what the one before it wrote (a
     * filter's count, scan and scatter; a batch's chained ops). */
    id<MTLComputeCommandEncoder> encoder =
        [command_buffer computeCommandEncoderWithDispatchType:MTLDispatchTypeSerial];
    if (!encoder) return nil;
    metal->encoder = (void *)CFBridgingRetain(encoder);
  }
  return (__bridge id<MTLComputeCommandEncoder>)metal->encoder;
}

/* Makes the buffer holding `address` resident for the next dispatch. */
static void use(id<MTLComputeCommandEncoder> encoder, am_metal_device *metal, uint64_t address,
                MTLResourceUsage usage) {
  if (!address) return;
  uint64_t offset = 0;
  void *buffer = am_metal_find(metal, address, &offset);
  if (buffer) [encoder useResource:(__bridge id<MTLBuffer>)buffer usage:usage];
}

static int launch(am_err *err, am_gpu_device *gpu, void *kernel, int blocks,
                  const am_gpu_args *args) {
  @autoreleasepool {
    @try {
      am_metal_device *metal = metal_of(gpu);
      id<MTLComputeCommandEncoder> encoder = current_encoder(metal);
      if (!encoder) return am_fail(err, AM_EDEVICE, "Metal gave no command buffer or encoder");
      [encoder setComputePipelineState:(__bridge id<MTLComputePipelineState>)kernel];
      [encoder setBytes:args length:sizeof *args atIndex:0];
      const MTLResourceUsage both = MTLResourceUsageRead | MTLResourceUsageWrite;
      use(encoder, metal, args->in0, MTLResourceUsageRead);
      use(encoder, metal, args->in1, MTLResourceUsageRead);
      use(encoder, metal, args->valid0, MTLResourceUsageRead);
      use(encoder, metal, args->valid1, MTLResourceUsageRead);
      use(encoder, metal, args->in2, MTLResourceUsageRead);
      use(encoder, metal, args->valid2, MTLResourceUsageRead);
      use(encoder, metal, args->out, both);
      use(encoder, metal, args->out_valid, both);
      use(encoder, metal, args->scratch, both);
      use(encoder, metal, args->status, both);
      [encoder dispatchThreadgroups:MTLSizeMake((NSUInteger)blocks, 1, 1)
              threadsPerThreadgroup:MTLSizeMake(AM_GPU_BLOCK, 1, 1)];
      return AM_OK;
    } @catch (NSException *exception) {
      return am_fail(err, AM_EDEVICE, "Metal raised %s encoding a launch: %s",
                     exception.name.UTF8String, exception.reason.UTF8String);
    }
  }
}

/* ---- The timeline */

/* Acquire: the status blocks and results the GPU wrote before it signaled
 * are read after this. */
static uint64_t reached(void *gpu) {
  uint64_t value = ((__bridge id<MTLSharedEvent>)metal_of(gpu)->event).signaledValue;
  atomic_thread_fence(memory_order_acquire);
  return value;
}

/* The graveyard, taken for the submission being committed (malloc'd; NULL
 * when empty). */
static am_metal_dead_buffer *take_graveyard(am_metal_device *metal, int64_t *count) {
  pthread_mutex_lock(&metal->graveyard_lock);
  am_metal_dead_buffer *dead = NULL;
  *count = metal->graveyard_count;
  if (*count) {
    dead = metal->graveyard;
    metal->graveyard = NULL;
    metal->graveyard_count = metal->graveyard_capacity = 0;
  }
  pthread_mutex_unlock(&metal->graveyard_lock);
  return dead;
}

/* Once the submission they were given back before has completed: the
 * backend's own buffers to the pool, the others released. */
static void bury(am_metal_device *metal, am_metal_dead_buffer *dead, int64_t count) {
  for (int64_t i = 0; i < count; i++) {
    if (dead[i].reusable) {
      /* Out of the graveyard; pool_put reserves it again if it keeps it. */
      am_mem_reserve(memory_of(metal), -length_of(dead[i].buffer));
      pool_put(metal, dead[i].buffer);
    } else {
      CFRelease(dead[i].buffer);
    }
  }
  free(dead);
}

/* Ends the submission being built: a wait for the value before it (so that
 * signals, and completions, come in value order whatever the command
 * buffers hold: reached >= v then means every submission up to v finished),
 * the signal of `value` after its work, and a handler that turns a failed
 * command buffer into the device's sticky error and then raises the
 * timeline itself (the failed work skips its signal, and the next command
 * buffer waits for it), so that waiters wake and see the error. The same
 * handler releases the buffers given back before this submission. */
static int mark(am_err *err, am_gpu_device *gpu, uint64_t value) {
  @autoreleasepool {
    @try {
      am_metal_device *metal = metal_of(gpu);
      id<MTLSharedEvent> event = (__bridge id<MTLSharedEvent>)metal->event;
      if (metal->encoder) {
        [(__bridge id<MTLComputeCommandEncoder>)metal->encoder endEncoding];
        CFRelease(metal->encoder);
        metal->encoder = NULL;
      }
      id<MTLCommandBuffer> command_buffer =
          metal->command_buffer ? (__bridge_transfer id<MTLCommandBuffer>)metal->command_buffer
                                : [(__bridge id<MTLCommandQueue>)metal->queue commandBuffer];
      metal->command_buffer = NULL;
      if (!command_buffer) return am_fail(err, AM_EDEVICE, "Metal gave no command buffer");
      if (value > 1) [command_buffer encodeWaitForEvent:event value:value - 1];
      [command_buffer encodeSignalEvent:event value:value];
      int64_t dead_count = 0;
      am_metal_dead_buffer *dead = take_graveyard(metal, &dead_count);
      [command_buffer addCompletedHandler:^(id<MTLCommandBuffer> done) {
        bury(metal, dead, dead_count);
        if (done.status != MTLCommandBufferStatusError) return;
        NSString *why = done.error.localizedDescription ?: @"unknown error";
        char message[400];
        snprintf(message, sizeof message, "a Metal command buffer failed: %s", why.UTF8String);
        am_gpu_mark_broken(&metal->gpu, message);
        if (event.signaledValue < value) event.signaledValue = value;
      }];
      [command_buffer commit];
      return AM_OK;
    } @catch (NSException *exception) {
      return am_fail(err, AM_EDEVICE, "Metal raised %s committing a submission: %s",
                     exception.name.UTF8String, exception.reason.UTF8String);
    }
  }
}

/* Nothing encoded since the last commit, and the event at the last value
 * issued: every submission has finished. Under the commit lock, which
 * guards the submission being built. */
static int idle(am_gpu_device *gpu, int ask) {
  (void)ask; /* the answer reads the event's value: no trip to the driver to save */
  am_metal_device *metal = metal_of(gpu);
  return !metal->command_buffer && !metal->encoder && reached(gpu) >= gpu->timeline.issued;
}

/* Sleeps until `value` is reached: the listener's notification wakes the
 * condition variable; the wait also times out now and then to look again,
 * and gives up once the watchdog's `deadline` (0 = never) has passed. */
static int block(am_err *err, am_gpu_device *gpu, uint64_t value, int64_t deadline) {
  @autoreleasepool {
    am_metal_device *metal = metal_of(gpu);
    id<MTLSharedEvent> event = (__bridge id<MTLSharedEvent>)metal->event;
    if (event.signaledValue >= value) return AM_OK;
    [event notifyListener:(__bridge MTLSharedEventListener *)metal->listener
                  atValue:value
                    block:^(id<MTLSharedEvent> signaled, uint64_t at) {
                      (void)signaled;
                      (void)at;
                      pthread_mutex_lock(&metal->wake_lock);
                      pthread_cond_broadcast(&metal->wake);
                      pthread_mutex_unlock(&metal->wake_lock);
                    }];
    pthread_mutex_lock(&metal->wake_lock);
    while (event.signaledValue < value) {
      if (am_wait_expired(deadline)) {
        pthread_mutex_unlock(&metal->wake_lock);
        return am_wait_timeout_fail(err, "a Metal command buffer");
      }
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += 50 * 1000 * 1000;
      if (until.tv_nsec >= 1000000000) {
        until.tv_sec += 1;
        until.tv_nsec -= 1000000000;
      }
      pthread_cond_timedwait(&metal->wake, &metal->wake_lock, &until);
    }
    pthread_mutex_unlock(&metal->wake_lock);
    return AM_OK;
  }
}

const am_gpu_hooks am_metal_hooks = {
    .enter = enter,
    .leave = leave,
    .alloc = alloc,
    .zero = zero,
    .read = read_back,
    .compiler_id = compiler_id,
    .compile = NULL,
    .load = load,
    .launch = launch,
    .mark = mark,
    .idle = idle,
    .reached = reached,
    .block = block,
};
