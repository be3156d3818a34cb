/* The backends compiled into the library: the one place in abi/ that names
 * a concrete backend. Everything else reaches a backend through a device or
 * through the lookups below. */
#include <stdatomic.h>
#include <string.h>

#include "abi.h"
#include "cpu/cpu.h"

extern const am_backend am_cpu_backend;
extern const am_backend am_cuda_backend;
extern const am_backend am_metal_backend;

/* In am_backend_name() order. */
static const am_backend *const backends[] = {&am_cpu_backend, &am_cuda_backend, &am_metal_backend};
enum { BACKEND_COUNT = sizeof backends / sizeof backends[0] };
_Static_assert(BACKEND_COUNT <= 8, "am_registry_probe keeps 8 checked flags");

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

/* Each backend's table is checked once, the first time its probe succeeds:
 * a backend that cannot run here is never asked for slots it need not
 * have (metal/unavailable.c). */
int am_registry_probe(am_err *err, const am_backend *backend) {
  static _Atomic(const am_backend *) checked[8];
  int status = backend->probe(err);
  if (status != AM_OK) return status;
  int index = 0;
  while (index < BACKEND_COUNT && backends[index] != backend) index++;
  if (index == BACKEND_COUNT || atomic_load_explicit(&checked[index], memory_order_acquire))
    return AM_OK;
  status = am_backend_check(err, backend);
  if (status == AM_OK) atomic_store_explicit(&checked[index], backend, memory_order_release);
  return status;
}
