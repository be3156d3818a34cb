/* Process-wide runtime controls and the version. */
#include <stdatomic.h>

#include "abi.h"
#include "core/runtime.h"

AM_EXPORT const char *am_version(void) { return "0.1.0"; }

AM_EXPORT int64_t am_spin_microseconds(int64_t us) {
  if (us >= 0) am_runtime_set_spin_microseconds(us);
  return am_runtime_spin_microseconds();
}

AM_EXPORT int am_low_latency_wait(int on) {
  if (on >= 0) am_runtime_set_low_latency(on);
  return am_runtime_low_latency();
}

static _Atomic(const char *) resident_reason = "no resident worker has been requested";

static const char *no_worker(const am_device *device) {
  (void)device;
  return "the cpu backend has no resident worker: it runs every call on the calling thread, so "
         "there is no device round trip to hide";
}

AM_EXPORT int am_resident_mode(int on) {
  am_device *device = am_default_device();
  if (!device->backend->resident) {
    atomic_store(&resident_reason, no_worker(device));
    return 0;
  }
  const char *reason = NULL;
  int running = device->backend->resident(device, on, &reason);
  atomic_store(&resident_reason, running ? "a resident worker is running" : reason);
  return running;
}

AM_EXPORT const char *am_resident_status(void) {
  am_device *device = am_default_device();
  if (!device->backend->resident) return no_worker(device);
  return atomic_load(&resident_reason);
}
