/* Thread-local error state behind am_last_error(). */
#ifndef AM_CORE_ERROR_H
#define AM_CORE_ERROR_H

#include "arrowmetal.h"

/* Name of the am_* entry point running on this thread. Every ABI function
 * sets it first (AM_ENTER), so code below the ABI -- backends, kernels -- can
 * report errors that name the function the caller actually called. */
extern _Thread_local const char *am_current_call;
#define AM_ENTER() (am_current_call = __func__)

/* A thread's error state, kept across internal work whose own failure is not
 * the caller's (a routing target that cannot open): the caller's call name
 * and message come back untouched. */
typedef struct am_error_state {
  const char *call;
  char message[512];
} am_error_state;
void am_error_save(am_error_state *state);
void am_error_restore(const am_error_state *state);

/* Records "<current call>: <message>" as this thread's last error and returns
 * `code`: a failing path reads `return am_error(AM_EINVAL, "...", ...)`. */
int am_error(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
