/* The Metal backend's table where Metal cannot run. Every platform exports
 * the same symbols; here the backend only explains itself. Its probe never
 * succeeds, so no device opens and the rest of the table is never read (nor
 * checked: see am_registry_probe). */
#include "core/backend.h"

static int probe(am_err *err) {
#if defined(__APPLE__)
  return am_fail(err, AM_EUNSUPPORTED,
                 "the Metal backend is not part of this build of libarrowmetal yet");
#else
  return am_fail(err, AM_EUNSUPPORTED,
                 "the Metal backend needs macOS on Apple silicon; this library was built for "
                 "another platform");
#endif
}

static int no_devices(void) { return 0; }

static int open_device(am_err *err, am_device *device) {
  (void)device;
  return probe(err);
}

const am_backend am_metal_backend = {
    .name = "metal",
    .device_type = ARROW_DEVICE_METAL,
    .probe = probe,
    .device_count = no_devices,
    .open_device = open_device,
};
