#include "error.h"

#include <stdarg.h>
#include <stdio.h>

void am_err_init(am_err *err, const char *entry) {
  err->entry = entry;
  err->origin = NULL;
  err->message[0] = '\0';
}

int am_fail(am_err *err, int code, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, args);
  va_end(args);
  return code;
}
