/* The thread's last error message, written only by exported functions, and
 * the report of what they compiled. */
#include <stdio.h>

#include "abi.h"
#include "core/log.h"

static _Thread_local char last_error[sizeof(((am_err *)0)->message) + 64];

AM_EXPORT const char *am_last_error(void) { return last_error; }

int am_publish(const am_err *err, int status) {
  if (err->kernels_compiled)
    am_log_compile_burst(err->kernels_compiled, err->kernels_kept, err->compile_ns);
  if (status != AM_OK)
    snprintf(last_error, sizeof last_error, "%s: %s", err->origin ? err->origin : err->entry,
             err->message);
  return status;
}
