#include "error.h"
#include "export.h"

#include <stdarg.h>
#include <stdio.h>

enum { AM_ERROR_CAPACITY = 512 };

_Thread_local const char *am_current_call = "arrowmetal";
static _Thread_local char last_error[AM_ERROR_CAPACITY];

AM_EXPORT const char *am_last_error(void) { return last_error; }

int am_error(int code, const char *fmt, ...) {
  int used = snprintf(last_error, sizeof last_error, "%s: ", am_current_call);
  if (used < 0 || used >= (int)sizeof last_error) used = 0;
  va_list args;
  va_start(args, fmt);
  vsnprintf(last_error + used, sizeof last_error - (size_t)used, fmt, args);
  va_end(args);
  return code;
}
