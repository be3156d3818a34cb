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

#include <stdint.h>

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
  /* GPU kernels compiled during the call (not found in memory or on disk),
   * how many of them were kept for the next process, and the time it took:
   * the exported function reports the burst when it returns (core/log.h). */
  int kernels_compiled;
  int kernels_kept;
  int64_t compile_ns;
} am_err;

/* An error object for work whose failure is reported by another means
 * (internal work, tests): entry "arrowmetal". */
void am_err_init(am_err *err, const char *entry);

/* Folds a sub-task's error object into `err`: the kernels it compiled
 * always, its message (and origin) when `take_message` (the first failure
 * among several sub-tasks). */
void am_err_merge(am_err *err, const am_err *sub, int take_message);

/* Writes the message (printf style) into `err` and returns `code`: a failing
 * path reads `return am_fail(err, AM_EINVAL, "...", ...)`. */
int am_fail(am_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
