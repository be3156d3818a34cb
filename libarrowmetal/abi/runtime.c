/* Process-wide runtime controls and the version. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "core/runtime.h"

static atomic_llong spin_microseconds = AM_DEFAULT_SPIN_MICROSECONDS;
static atomic_int low_latency = 1;
static pthread_once_t environment_once = PTHREAD_ONCE_INIT;

static void read_environment(void) {
  const char *value = getenv("ARROWMETAL_LOW_LATENCY");
  if (value && strcmp(value, "0") == 0) atomic_store(&low_latency, 0);
}

int64_t am_runtime_spin_microseconds(void) {
  return atomic_load_explicit(&spin_microseconds, memory_order_relaxed);
}

int am_runtime_low_latency(void) {
  pthread_once(&environment_once, read_environment);
  return atomic_load_explicit(&low_latency, memory_order_relaxed);
}

AM_EXPORT const char *am_version(void) { return "0.1.0"; }

AM_EXPORT int64_t am_spin_microseconds(int64_t us) {
  if (us >= 0) atomic_store(&spin_microseconds, us);
  return atomic_load(&spin_microseconds);
}

AM_EXPORT int am_low_latency_wait(int on) {
  pthread_once(&environment_once, read_environment);
  if (on >= 0) atomic_store(&low_latency, on ? 1 : 0);
  return atomic_load(&low_latency);
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
