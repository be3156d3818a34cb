/* Metal memory is the CPU's memory (Apple silicon's unified memory, shared
 * storage): a page-aligned host buffer becomes a Metal buffer without a copy
 * (newBufferWithBytesNoCopy, whose deallocator drops the host buffer's
 * reference, so an imported Arrow struct is released exactly once, when the
 * last user of its memory goes); anything else is copied once into a new
 * shared buffer. A Metal array goes to the CPU as a view of the same memory
 * once the work writing it has finished. */
#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/types.h"
#include "metal.h"

/* `bytes` of host memory at `host` as a Metal buffer: wrapped when the
 * address is page-aligned (`owner` is referenced until the Metal buffer
 * dies), else copied. */
static int from_host(am_err *err, am_metal_device *metal, const void *host, int64_t bytes,
                     am_buffer *owner, am_buffer **out) {
  @autoreleasepool {
    id<MTLDevice> device = (__bridge id<MTLDevice>)metal->device;
    uintptr_t page = (uintptr_t)getpagesize();
    if (bytes > 0 && owner && !am_metal_owns(owner) && (uintptr_t)host % page == 0) {
      /* The whole last page is mapped, so the rounded length reads nothing
       * that is not there. */
      NSUInteger length = ((NSUInteger)bytes + page - 1) / page * page;
      am_buffer_retain(owner);
      id<MTLBuffer> wrapped =
          [device newBufferWithBytesNoCopy:(void *)host
                                    length:length
                                   options:MTLResourceStorageModeShared
                               deallocator:^(void *pointer, NSUInteger wrapped_length) {
                                 (void)pointer;
                                 (void)wrapped_length;
                                 am_buffer_release(owner);
                               }];
      if (wrapped)
        return am_metal_wrap_buffer(err, metal, (void *)CFBridgingRetain(wrapped), bytes, out);
      am_buffer_release(owner); /* refused (not where Metal can map it): copied instead */
    }
    int status = metal->gpu.hooks->alloc(err, &metal->gpu, bytes, out);
    if (status != AM_OK) return status;
    if (bytes > 0)
      memcpy(am_metal_contents(metal, (uint64_t)(uintptr_t)(*out)->ptr), host, (size_t)bytes);
    return AM_OK;
  }
}

/* Data and validity keep the slot offset modulo 8, so that bitmaps move as
 * whole bytes and share one offset (as on CUDA). */
int am_metal_upload(am_err *err, am_device *device, const am_array *host, am_array **out) {
  am_metal_device *metal = am_metal_of(device);
  int status = am_gpu_check_broken(err, &metal->gpu);
  if (status != AM_OK) return status;
  int64_t base = host->offset & ~(int64_t)7;
  int64_t span = host->offset - base + host->length;
  int has_validity = host->validity != NULL && atomic_load(&((am_array *)host)->null_count) != 0;
  int64_t skip = host->type == AM_BOOL ? base / 8 : am_type_bytes(host->type, base);
  am_buffer *data = NULL, *validity = NULL;
  status = from_host(err, metal, (const char *)host->data + skip, am_type_bytes(host->type, span),
                     host->data_buf, &data);
  if (status == AM_OK && has_validity)
    status = from_host(err, metal, host->validity + base / 8, (span + 7) / 8, host->validity_buf,
                       &validity);
  if (status != AM_OK) {
    am_buffer_release(data);
    return status;
  }
  am_array *array = am_array_make(device, host->type, host->length, host->offset - base,
                                  has_validity ? atomic_load(&((am_array *)host)->null_count) : 0,
                                  validity, validity ? validity->ptr : NULL, data, data->ptr);
  if (!array) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = array;
  return AM_OK;
}

/* A view of the same memory, once every submission so far has finished. */
int am_metal_download(am_err *err, const am_array *array, am_device *host_device,
                      am_array **host_out) {
  am_metal_device *metal = am_metal_of(array->device);
  int status = am_gpu_sync(err, array->device);
  if (status != AM_OK) return status;
  void *data = am_metal_contents(metal, (uint64_t)(uintptr_t)array->data);
  void *validity =
      array->validity ? am_metal_contents(metal, (uint64_t)(uintptr_t)array->validity) : NULL;
  if (!data || (array->validity && !validity))
    return am_fail(err, AM_EINVAL, "the array's memory is not a live Metal buffer of %s",
                   array->device->name);
  am_array *host = am_array_make(host_device, array->type, array->length, array->offset,
                                 atomic_load(&((am_array *)array)->null_count),
                                 validity ? am_buffer_retain(array->validity_buf) : NULL, validity,
                                 am_buffer_retain(array->data_buf), data);
  if (!host) return am_fail(err, AM_ENOMEM, "out of memory");
  /* A whole string array (export_device's): its data bytes are mapped too. */
  host->byte_width = array->byte_width;
  if (array->bytes) {
    host->bytes = am_metal_contents(metal, (uint64_t)(uintptr_t)array->bytes);
    host->bytes_buf = am_buffer_retain(array->bytes_buf);
    host->bytes_size = array->bytes_size;
  }
  *host_out = host;
  return AM_OK;
}

/* The C Device Data Interface says a Metal sync event is an `MTLEvent*`
 * but not which value to wait for, and an MTLEvent cannot be waited on by
 * the CPU at all; nanoarrow, the other implementation, refuses every
 * non-NULL one. So do we, rather than guess. */
int am_metal_wait_event(am_err *err, void *sync_event) {
  (void)sync_event;
  return am_fail(err, AM_EUNSUPPORTED,
                 "a Metal sync event cannot be waited on: the interface names no value to wait "
                 "for (export the array after its producing work has finished, with no event)");
}

/* Metal arrays of another producer are host memory too (their buffers are
 * CPU addresses of shared memory, as nanoarrow makes them): taken over as
 * such (their struct moved in) and made Metal buffers without a copy where
 * they are page-aligned. The device id is not checked: every Metal device's
 * shared memory is this process's memory. */
int am_metal_import_device(am_err *err, am_device *device, am_type type,
                           struct ArrowDeviceArray *array, am_array **out) {
  int status = array->sync_event ? am_metal_wait_event(err, array->sync_event) : AM_OK;
  if (status != AM_OK) {
    array->array.release(&array->array);
    array->array.release = NULL;
    return status;
  }
  am_array *host = NULL;
  status = am_array_adopt(err, NULL, type, &array->array, &host);
  if (status != AM_OK) return status;
  status = am_metal_upload(err, device, host, out); /* an unknown null count is counted there */
  am_array_free(host);
  return status;
}

/* The consumer reads the same memory: exported once every submission so far
 * has finished, so no sync event is needed (NULL, as the interface allows). */
int am_metal_export_device(am_err *err, const am_array *array, struct ArrowDeviceArray *out) {
  int64_t nulls = atomic_load(&((am_array *)array)->null_count);
  int status = nulls < 0 ? am_gpu_count_nulls(err, array, &nulls) : AM_OK;
  am_array *view = NULL;
  if (status == AM_OK) status = am_metal_download(err, array, array->device, &view);
  if (status != AM_OK) return status;
  memset(out, 0, sizeof *out);
  status = am_array_export(err, view, nulls, &out->array);
  am_array_free(view);
  out->device_type = ARROW_DEVICE_METAL;
  /* The Metal device's registry id, as nanoarrow gives it. */
  out->device_id = (int64_t)((__bridge id<MTLDevice>)am_metal_of(array->device)->device).registryID;
  return status;
}
