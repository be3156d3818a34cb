/* The library's messages that are not errors (am_set_log_handler): sent to
 * the handler the embedder set, or, without one, NOTICE and above to stderr. */
#ifndef AM_CORE_LOG_H
#define AM_CORE_LOG_H

#include <stdint.h>

#include "arrowmetal.h"

/* Sends messages to `fn` from now on (NULL: the stderr default). */
void am_log_set_handler(am_log_handler fn, void *user);

/* Formats a message (printf style) and sends it at `level` (AM_LOG_*). */
void am_log(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Reports one call's GPU kernel compiles: an INFO line, and a NOTICE when
 * they took over a second (a user waiting on a first call should know why,
 * and that the next process will not wait again). */
void am_log_compile_burst(int kernels, int kept, int64_t nanoseconds);

#endif
