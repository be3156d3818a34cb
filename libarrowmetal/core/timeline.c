#include "timeline.h"

#include <time.h>

#include "runtime.h"

void am_timeline_init(am_timeline *timeline, uint64_t (*reached)(void *context),
                      int (*block)(am_err *err, void *context, uint64_t value, int64_t deadline),
                      void *context) {
  pthread_mutex_init(&timeline->commit_lock, NULL);
  timeline->issued = 0;
  timeline->reached = reached;
  timeline->block = block;
  timeline->context = context;
}

void am_timeline_destroy(am_timeline *timeline) { pthread_mutex_destroy(&timeline->commit_lock); }

void am_timeline_lock(am_timeline *timeline) { pthread_mutex_lock(&timeline->commit_lock); }

uint64_t am_timeline_take(am_timeline *timeline) { return ++timeline->issued; }

void am_timeline_unlock(am_timeline *timeline) { pthread_mutex_unlock(&timeline->commit_lock); }

int am_timeline_reached(const am_timeline *timeline, uint64_t value) {
  return timeline->reached(timeline->context) >= value;
}

int64_t am_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t am_wait_deadline(void) {
  int64_t ms = am_runtime_wait_timeout_ms();
  return ms > 0 ? am_now_ns() + ms * 1000000 : 0;
}

int am_wait_expired(int64_t deadline) { return deadline != 0 && am_now_ns() >= deadline; }

int am_wait_timeout_fail(am_err *err, const char *what) {
  return am_fail(err, AM_EDEVICE,
                 "%s did not complete within %lld ms (the wait watchdog: am_wait_timeout_ms, "
                 "ARROWMETAL_WAIT_TIMEOUT_MS); the device is left broken, since its work may "
                 "still be running",
                 what, (long long)am_runtime_wait_timeout_ms());
}

void am_wait_pause(long *interval_ns) {
  struct timespec pause = {0, *interval_ns};
  nanosleep(&pause, NULL);
  if (*interval_ns < 500000) *interval_ns *= 2;
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static int sleep_until(am_err *err, const am_timeline *timeline, uint64_t value, int64_t deadline) {
  long interval_ns = 2000;
  while (!am_timeline_reached(timeline, value)) {
    if (am_wait_expired(deadline)) return am_wait_timeout_fail(err, "a device submission");
    am_wait_pause(&interval_ns);
  }
  return AM_OK;
}

int am_timeline_wait(am_err *err, am_timeline *timeline, uint64_t value) {
  if (am_timeline_reached(timeline, value)) return AM_OK;
  int64_t deadline = am_wait_deadline();
  if (am_runtime_low_latency()) {
    int64_t budget_ns = am_runtime_spin_microseconds() * 1000;
    if (budget_ns > 0) {
      int64_t spin_until = am_now_ns() + budget_ns;
      /* Reading the clock costs more than a poll, so look at it only once
       * every 64 polls. */
      for (unsigned polls = 1;; polls++) {
        if (am_timeline_reached(timeline, value)) return AM_OK;
        cpu_relax();
        if ((polls & 63) == 0 && am_now_ns() >= spin_until) break;
      }
    }
  }
  if (timeline->block) return timeline->block(err, timeline->context, value, deadline);
  return sleep_until(err, timeline, value, deadline);
}
