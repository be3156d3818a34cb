/* Process-wide runtime controls, the log handler and the version. */
#include "core/runtime.h"
#include "abi.h"
#include "core/log.h"

AM_EXPORT const char *am_version(void) { return ARROWMETAL_VERSION_STRING; }

AM_EXPORT int am_set_log_handler(am_log_handler handler, void *user) {
  am_log_set_handler(handler, user);
  return AM_OK;
}

AM_EXPORT int64_t am_spin_microseconds(int64_t us) {
  if (us >= 0) am_runtime_set_spin_microseconds(us);
  return am_runtime_spin_microseconds();
}

AM_EXPORT int am_low_latency_wait(int on) {
  if (on >= 0) am_runtime_set_low_latency(on);
  return am_runtime_low_latency();
}

AM_EXPORT int64_t am_wait_timeout_ms(int64_t ms) {
  if (ms >= 0) am_runtime_set_wait_timeout_ms(ms);
  return am_runtime_wait_timeout_ms();
}

AM_EXPORT int am_resident_mode(int on) {
  am_device *device = am_default_device();
  const char *reason = NULL;
  return device->backend->queue.resident(device, on, &reason);
}

AM_EXPORT const char *am_resident_status(void) {
  am_device *device = am_default_device();
  const char *reason = NULL;
  int running = device->backend->queue.resident(device, -1, &reason);
  return reason ? reason : running ? "a resident worker is running" : "no resident worker";
}
