/* The completion timeline of a GPU device's queue.
 *
 * Each submission to a device takes the next 64-bit value under the commit
 * lock, and the device raises the value it has reached to that value once the
 * submission's work has finished. Because values are taken and submitted
 * under one lock, the device finishes them in value order, so reached >= v
 * really means "submission v and every earlier one finished" -- without the
 * lock a second thread could submit a higher value first and release a waiter
 * whose own work had not run.
 *
 * How the reached value is read and how a waiter blocks are the backend's:
 * a word in host-mapped memory written by the stream on CUDA, an
 * MTLSharedEvent's signaledValue on Metal. A waiter polls `reached` for
 * am_runtime_spin_microseconds(), then blocks: with the backend's `block`
 * when it has one, otherwise by sleeping between polls with a growing
 * interval. With the low-latency wait off it blocks at once. */
#ifndef AM_CORE_TIMELINE_H
#define AM_CORE_TIMELINE_H

#include <pthread.h>
#include <stdint.h>

#include "error.h"

/* ---- The wait watchdog (am_wait_timeout_ms)
 * A deadline is a CLOCK_MONOTONIC time in nanoseconds, 0 = none. */
int64_t am_now_ns(void);
/* The deadline of a wait starting now, under the watchdog in force. */
int64_t am_wait_deadline(void);
/* Nonzero once `deadline` (not 0) has passed. */
int am_wait_expired(int64_t deadline);
/* AM_EDEVICE: `what` did not complete within the watchdog's limit. */
int am_wait_timeout_fail(am_err *err, const char *what);
/* Sleeps *interval_ns, then doubles it up to half a millisecond: the poll
 * of a waiter that does not spin. */
void am_wait_pause(long *interval_ns);

typedef struct am_timeline {
  pthread_mutex_t commit_lock;
  uint64_t issued; /* last value taken; under commit_lock */
  /* The value the device has reached, read with acquire ordering (the
   * caller then reads results the device wrote before it). */
  uint64_t (*reached)(void *context);
  /* Blocks until `value` is reached, or gives up once `deadline` (0 =
   * never) has passed with am_wait_timeout_fail; NULL = sleep between
   * polls. Returns an am_status, with `err` filled on failure. */
  int (*block)(am_err *err, void *context, uint64_t value, int64_t deadline);
  void *context;
} am_timeline;

void am_timeline_init(am_timeline *timeline, uint64_t (*reached)(void *context),
                      int (*block)(am_err *err, void *context, uint64_t value, int64_t deadline),
                      void *context);
void am_timeline_destroy(am_timeline *timeline);

/* Takes the commit lock. Work enqueued while holding it is not interleaved
 * with other threads' work (multi-launch ops share per-device scratch). */
void am_timeline_lock(am_timeline *timeline);
/* With the lock held: the value the caller's submission must make the device
 * reach after its work. */
uint64_t am_timeline_take(am_timeline *timeline);
void am_timeline_unlock(am_timeline *timeline);

/* Nonzero once the device has finished submission `value`. */
int am_timeline_reached(const am_timeline *timeline, uint64_t value);

/* Returns once submission `value` finished (AM_OK), the backend's blocking
 * wait failed (its status), or the watchdog's limit passed (AM_EDEVICE). */
int am_timeline_wait(am_err *err, am_timeline *timeline, uint64_t value);

#endif
