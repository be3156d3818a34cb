/* The backends compiled into the library: the one place in abi/ that names
 * a concrete backend. Everything else reaches a backend through a device or
 * through the lookups below. */
#include <string.h>

#include "abi.h"
#include "cpu/cpu.h"

extern const am_backend am_cpu_backend;
extern const am_backend am_cuda_backend;
extern const am_backend am_metal_backend;

/* In am_backend_name() order. */
static const am_backend *const backends[] = {&am_cpu_backend, &am_cuda_backend, &am_metal_backend};
enum { BACKEND_COUNT = sizeof backends / sizeof backends[0] };

int am_registry_count(void) { return BACKEND_COUNT; }

const am_backend *am_registry_backend(int index) {
  return index >= 0 && index < BACKEND_COUNT ? backends[index] : NULL;
}

const am_backend *am_registry_find(const char *name, size_t length) {
  for (int i = 0; i < BACKEND_COUNT; i++)
    if (strlen(backends[i]->name) == length && strncmp(backends[i]->name, name, length) == 0)
      return backends[i];
  return NULL;
}

const am_backend *am_registry_for_device_type(int32_t device_type) {
  for (int i = 0; i < BACKEND_COUNT; i++)
    if (backends[i]->device_type == device_type ||
        (backends[i]->host_device_type != 0 && backends[i]->host_device_type == device_type))
      return backends[i];
  return NULL;
}

am_device *am_host_device(void) { return am_cpu_device(); }
