/* am_config_check: every ARROWMETAL_* setting the library reads, checked
 * in one place, so that a mistyped value is an error naming the variable and
 * what it accepts instead of a silent default. The readers (runtime, pool,
 * disk cache, Metal) parse for themselves; this check is what makes a bad
 * value loud: the Python package calls it on import, a C program at start. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "route.h"

typedef enum { FLAG, COUNT, SIZE } setting_kind;

typedef struct setting {
  const char *name;
  setting_kind kind;
} setting;

/* FLAG: "0" or "1"; COUNT: an integer >= 1; SIZE: an integer >= 0. */
static const setting settings[] = {
    {"ARROWMETAL_LOW_LATENCY", FLAG},       {"ARROWMETAL_KERNEL_CACHE", FLAG},
    {"ARROWMETAL_METAL_PARAVIRTUAL", FLAG}, {"ARROWMETAL_THREADS", COUNT},
    {"ARROWMETAL_PARALLEL_MIN", COUNT},     {"ARROWMETAL_CACHE_MAX_BYTES", SIZE},
    {"ARROWMETAL_VECTOR_MATH", FLAG},       {"ARROWMETAL_BATCH_GRAPHS", FLAG},
};

static const char *const accepted[] = {
    [FLAG] = "0 or 1",
    [COUNT] = "an integer of at least 1",
    [SIZE] = "an integer of at least 0 (bytes)",
};

static int valid(setting_kind kind, const char *value) {
  if (kind == FLAG) return strcmp(value, "0") == 0 || strcmp(value, "1") == 0;
  char *end = NULL;
  errno = 0;
  long long n = strtoll(value, &end, 10);
  if (errno || end == value || *end) return 0;
  return kind == COUNT ? n >= 1 : n >= 0;
}

static int config_check(am_err *err) {
  for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
    const char *value = getenv(settings[i].name);
    if (value && !valid(settings[i].kind, value))
      return am_fail(err, AM_EINVAL, "%s='%.200s' is not valid: it takes %s", settings[i].name,
                     value, accepted[settings[i].kind]);
  }
  am_device *device = NULL;
  int status = am_default_device_for(err, &device);
  if (status != AM_OK) return status;
  return am_routes_check(err);
}

AM_EXPORT int am_config_check(void) {
  AM_API_BEGIN;
  AM_API_RETURN(config_check(err));
}
