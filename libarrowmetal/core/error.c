#include "error.h"
#include "export.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { AM_ERROR_CAPACITY = sizeof(((am_error_state *)0)->message) };

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

void am_error_save(am_error_state *state) {
  state->call = am_current_call;
  memcpy(state->message, last_error, sizeof state->message);
}

void am_error_restore(const am_error_state *state) {
  am_current_call = state->call;
  memcpy(last_error, state->message, sizeof last_error);
}
