/* Errors inside the library: an error object passed down every call.
 *
 * Every exported am_* function declares one am_err (AM_API_BEGIN, abi/abi.h)
 * and passes it to everything it calls; a failing path fills it with
 * am_fail() and returns the status. Only the exported function copies the
 * message into the thread's am_last_error() (am_publish, abi/), and only
 * when it returns a failure. So nothing below the ABI reads or writes
 * thread-local error state, internal work whose failure is not the caller's
 * simply uses an error object of its own, and a getter that must leave the
 * message alone never publishes. Modelled on nanoarrow's ArrowError. */
#ifndef AM_CORE_ERROR_H
#define AM_CORE_ERROR_H

#include "arrowmetal.h"

typedef struct am_err {
  /* The am_* entry point the caller called (set by AM_API_BEGIN). GPU work
   * deferred to a batch keeps it, so a failure reported at the batch's end
   * still names the call that made the work. */
  const char *entry;
  /* The entry point the message is about, when it is not `entry` (a
   * deferred failure reported by am_batch_end names the call that failed);
   * NULL otherwise. */
  const char *origin;
  char message[480];
} am_err;

/* An error object for work whose failure is reported by another means
 * (internal work, tests): entry "arrowmetal". */
void am_err_init(am_err *err, const char *entry);

/* Writes the message (printf style) into `err` and returns `code`: a failing
 * path reads `return am_fail(err, AM_EINVAL, "...", ...)`. */
int am_fail(am_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
