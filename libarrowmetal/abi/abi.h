/* Shared by the ABI layer's files: argument checks and the device registry. */
#ifndef AM_ABI_ABI_H
#define AM_ABI_ABI_H

#include <stddef.h>

#include "core/array.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/export.h"
#include "core/runtime.h"
#include "core/types.h"

/* Fails with AM_EINVAL naming `what` when `pointer` is NULL. */
#define AM_REQUIRE(pointer, what)                                   \
  do {                                                              \
    if (!(pointer)) return am_error(AM_EINVAL, "%s is NULL", what); \
  } while (0)

/* Makes a pending GPU result's length and null count final (a no-op for
 * arrays that are already final). */
static inline int am_settle(const am_array *array) {
  return am_array_pending(array) ? array->device->backend->resolve(array) : AM_OK;
}

/* registry.c: the backends compiled in. */
int am_registry_count(void);
const am_backend *am_registry_backend(int index); /* NULL when out of range */
const am_backend *am_registry_find(const char *name, size_t length);
/* The backend whose memory or sync events an ArrowDeviceType names (for
 * CUDA: ARROW_DEVICE_CUDA and ARROW_DEVICE_CUDA_HOST); NULL if none. */
const am_backend *am_registry_for_device_type(int32_t device_type);
/* The CPU device: host memory, where imports land first. */
am_device *am_host_device(void);

/* Checks that the inputs of one call share a device. */
int am_same_device(const am_array *left, const am_array *right);

/* am_device_open without entering the ABI (the caller's call name stays). */
int am_open_device(const char *spec, am_device **out);

/* Devices opened so far, for the batch calls that visit each of them. */
int am_opened_devices(am_device **devices, int capacity);

/* Imports a validated host array onto `device` (a no-op share on the CPU);
 * frees `host` in every case. */
int am_place(am_array *host, am_device *device, am_array **out);

#endif
