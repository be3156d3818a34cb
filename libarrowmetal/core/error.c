#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void am_err_init(am_err *err, const char *entry) {
  err->entry = entry;
  err->origin = NULL;
  err->message[0] = '\0';
  err->kernels_compiled = 0;
  err->kernels_kept = 0;
  err->compile_ns = 0;
}

void am_err_merge(am_err *err, const am_err *sub, int take_message) {
  err->kernels_compiled += sub->kernels_compiled;
  err->kernels_kept += sub->kernels_kept;
  err->compile_ns += sub->compile_ns;
  if (take_message) {
    err->origin = sub->origin;
    memcpy(err->message, sub->message, sizeof err->message);
  }
}

int am_fail(am_err *err, int code, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, args);
  va_end(args);
  return code;
}
