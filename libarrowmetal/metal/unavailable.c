/* The Metal backend's table where Metal cannot run. Every platform exports
 * the same symbols; here the backend only explains itself. */
#include "core/backend.h"
#include "core/error.h"

static int probe(void) {
#if defined(__APPLE__)
  return am_error(AM_EUNSUPPORTED,
                  "the Metal backend is not part of this build of libarrowmetal yet");
#else
  return am_error(AM_EUNSUPPORTED,
                  "the Metal backend needs macOS on Apple silicon; this library was built for "
                  "another platform");
#endif
}

static int no_devices(void) { return 0; }

const am_backend am_metal_backend = {
    .name = "metal",
    .device_type = ARROW_DEVICE_METAL,
    .probe = probe,
    .device_count = no_devices,
};
