/* Finding and opening Metal devices: one command queue per device, one
 * MTLSharedEvent as its timeline, a listener that wakes blocked waiters, and
 * shared memory for the status blocks; then the GPU runtime. */
#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metal.h"

/* Whether the kernels can run on `device`: an Apple GPU (family Apple7, M1
 * and later: 32-lane SIMD groups, which the kernels' ballots and thread
 * numbering assume -- AMD and Intel GPUs of the Metal 3 family run 64 or
 * 8-16 lanes), unified memory (the backend hands memory to the CPU without
 * copies), and Metal 3 (GPU addresses in argument blocks). */
static BOOL suitable(id<MTLDevice> device) {
  if (@available(macOS 13.0, *))
    return [device supportsFamily:MTLGPUFamilyApple7] &&
           [device supportsFamily:MTLGPUFamilyMetal3] && device.hasUnifiedMemory;
  return NO;
}

/* The suitable Metal devices, in MTLCopyAllDevices order; "metal:N" is the
 * N-th. */
static NSArray<id<MTLDevice>> *all_devices(void) {
  NSMutableArray<id<MTLDevice>> *usable = [NSMutableArray array];
  for (id<MTLDevice> device in MTLCopyAllDevices())
    if (suitable(device)) [usable addObject:device];
  return usable;
}

int am_metal_probe(am_err *err) {
  @autoreleasepool {
    NSArray<id<MTLDevice>> *every = MTLCopyAllDevices();
    if (every.count == 0)
      return am_fail(err, AM_EUNSUPPORTED,
                     "no Metal device: MTLCopyAllDevices found none (a virtual machine without "
                     "GPU access, or no GPU)");
    /* A virtual machine's "Apple Paravirtual device" (hosted CI runners)
     * fails pipeline creation at random: not used unless asked for. */
    BOOL paravirtual = YES;
    for (id<MTLDevice> device in every)
      if ([device.name rangeOfString:@"Paravirtual"].location == NSNotFound) paravirtual = NO;
    const char *allow = getenv("ARROWMETAL_METAL_PARAVIRTUAL");
    if (paravirtual && !(allow && strcmp(allow, "1") == 0))
      return am_fail(err, AM_EUNSUPPORTED,
                     "the only Metal device is '%s', a virtual machine's, which fails pipeline "
                     "creation at random; ARROWMETAL_METAL_PARAVIRTUAL=1 uses it anyway",
                     every[0].name.UTF8String);
    if (all_devices().count == 0)
      return am_fail(err, AM_EUNSUPPORTED,
                     "no Metal device the kernels can run on: they need an Apple GPU (M1 or "
                     "later: 32-lane SIMD groups, unified memory, Metal 3) and '%s' is not one",
                     every[0].name.UTF8String);
    return AM_OK;
  }
}

int am_metal_device_count(void) {
  @autoreleasepool {
    return (int)all_devices().count;
  }
}

/* Pinned language version and IEEE float semantics (fast math off) are
 * part of what the compiled kernels are; they go into the compiler id. */
static void describe(am_metal_device *metal, id<MTLDevice> device) {
  snprintf(metal->name, sizeof metal->name, "%s", device.name.UTF8String);
  snprintf(metal->compiler_id, sizeof metal->compiler_id, "msl fastmath=0 %s",
           device.name.UTF8String);
}

static int open_device(am_err *err, am_metal_device *metal, id<MTLDevice> device) {
  id<MTLCommandQueue> queue = [device newCommandQueue];
  id<MTLSharedEvent> event = [device newSharedEvent];
  dispatch_queue_t notify = dispatch_queue_create("arrowmetal.timeline", DISPATCH_QUEUE_SERIAL);
  MTLSharedEventListener *listener = [[MTLSharedEventListener alloc] initWithDispatchQueue:notify];
  NSUInteger status_bytes = sizeof(am_gpu_status) * AM_GPU_STATUS_SLOTS;
  id<MTLBuffer> status = [device newBufferWithLength:status_bytes
                                             options:MTLResourceStorageModeShared];
  if (!queue || !event || !listener || !status)
    return am_fail(err, AM_EDEVICE, "cannot create the command queue, event or status buffer of %s",
                   device.name.UTF8String);
  event.signaledValue = 0;
  metal->device = (void *)CFBridgingRetain(device);
  metal->queue = (void *)CFBridgingRetain(queue);
  metal->event = (void *)CFBridgingRetain(event);
  metal->listener = (void *)CFBridgingRetain(listener);
  metal->status = (void *)CFBridgingRetain(status);
  metal->gpu.status = (am_gpu_status *)status.contents;
  if (@available(macOS 13.0, *)) {
    metal->gpu.status_address = status.gpuAddress;
  }
  /* The status blocks are written by kernels through their address: keep
   * them registered (resident in every launch) for the device's life. */
  return am_metal_register(err, metal, (__bridge void *)status, metal->gpu.status_address,
                           status_bytes);
}

int am_metal_open(am_err *err, am_device *device) {
  @autoreleasepool {
    @try {
      NSArray<id<MTLDevice>> *devices = all_devices();
      if (device->ordinal < 0 || (NSUInteger)device->ordinal >= devices.count)
        return am_fail(err, AM_EINVAL, "there is no Metal device %d", device->ordinal);
      id<MTLDevice> mtl = devices[(NSUInteger)device->ordinal];
      am_metal_device *metal = calloc(1, sizeof *metal);
      if (!metal) return am_fail(err, AM_ENOMEM, "out of memory");
      pthread_mutex_init(&metal->wake_lock, NULL);
      pthread_cond_init(&metal->wake, NULL);
      pthread_mutex_init(&metal->buffers_lock, NULL);
      pthread_mutex_init(&metal->graveyard_lock, NULL);
      pthread_mutex_init(&metal->pool_lock, NULL);
      describe(metal, mtl);
      int status = open_device(err, metal, mtl);
      if (status != AM_OK) return status; /* a half-opened device keeps its memory */
      metal->gpu.hooks = &am_metal_hooks;
      metal->gpu.device = device;
      /* The status blocks live as long as the device: reserved memory. */
      am_mem_reserve(&device->memory, (int64_t)(sizeof(am_gpu_status) * AM_GPU_STATUS_SLOTS));
      metal->gpu.dialect = AM_DIALECT_MSL;
      /* The runtime sizes grids by multiprocessors; Metal does not say how
       * many cores a GPU has, and 4 blocks per core of a large Apple GPU (40
       * cores) is what the block counts are tuned for. */
      metal->gpu.multiprocessors = 40;
      snprintf(device->name, sizeof device->name, "metal:%d", device->ordinal);
      device->impl = metal;
      return am_gpu_init(err, &metal->gpu);
    } @catch (NSException *exception) {
      return am_fail(err, AM_EDEVICE, "Metal raised %s: %s", exception.name.UTF8String,
                     exception.reason.UTF8String);
    }
  }
}
