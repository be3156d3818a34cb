/* The completion timeline shared by the GPU backends.
 *
 * Each submission to a device takes the next 64-bit value under the commit
 * lock, and the device raises `completed` to that value (a write in stream
 * order into mapped host memory) once the submission's work has finished.
 * Because values are taken and submitted under one lock, the device finishes
 * them in value order, so completed >= v really means "submission v and every
 * earlier one finished" -- without the lock a second thread could submit a
 * higher value first and release a waiter whose own work had not run.
 *
 * A waiter spins on `completed` for am_spin_microseconds(), then blocks: with
 * the backend's blocking wait when it has one, otherwise by sleeping between
 * polls with a growing interval. With am_low_latency_wait(0) it blocks at
 * once. */
#ifndef AM_CORE_TIMELINE_H
#define AM_CORE_TIMELINE_H

#include <pthread.h>
#include <stdint.h>

typedef struct am_timeline {
  pthread_mutex_t commit_lock;
  uint64_t issued;              /* last value taken; under commit_lock */
  volatile uint64_t *completed; /* raised by the device */
  /* Blocks until `value` is reached; NULL = sleep between polls. Returns an
   * am_status. */
  int (*block)(void *context, uint64_t value);
  void *context;
} am_timeline;

void am_timeline_init(am_timeline *timeline, volatile uint64_t *completed,
                      int (*block)(void *context, uint64_t value), void *context);
void am_timeline_destroy(am_timeline *timeline);

/* Takes the commit lock. Work enqueued while holding it is not interleaved
 * with other threads' work (multi-launch ops share per-device scratch). */
void am_timeline_lock(am_timeline *timeline);
/* With the lock held: the value the caller's submission must make the device
 * write after its work. */
uint64_t am_timeline_take(am_timeline *timeline);
void am_timeline_unlock(am_timeline *timeline);

/* Lock + take, and unlock: the commit of a whole submission. */
uint64_t am_timeline_commit_begin(am_timeline *timeline);
void am_timeline_commit_end(am_timeline *timeline);

/* Nonzero once the device has finished submission `value`. */
int am_timeline_reached(const am_timeline *timeline, uint64_t value);

/* Returns once submission `value` finished (AM_OK) or the backend's blocking
 * wait failed (its status). */
int am_timeline_wait(am_timeline *timeline, uint64_t value);

#endif
