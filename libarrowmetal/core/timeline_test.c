/* Unit test of the completion timeline: many threads submit work to a
 * simulated device that finishes submissions in commit order after random
 * delays, slow ones interleaved with fast ones. A waiter must never be
 * released before its own submission's work is done. Runs the spin path, the
 * sleep path and a backend blocking wait. Then the watchdog: with the device
 * stalled, a wait under a limit fails with AM_EDEVICE once the limit has
 * passed, and not before. Exit status 0 = pass. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timeline.h"

enum { THREADS = 8, PER_THREAD = 400, CAPACITY = THREADS * PER_THREAD + 1 };

/* The runtime controls the timeline reads, set by each scenario. */
static int64_t spin_us;
static int low_latency;
static int64_t timeout_ms;
int64_t am_runtime_spin_microseconds(void) { return spin_us; }
int am_runtime_low_latency(void) { return low_latency; }
int64_t am_runtime_wait_timeout_ms(void) { return timeout_ms; }

static am_timeline timeline;
static volatile uint64_t completed;
static atomic_int work_done[CAPACITY];
static atomic_int queue_delay_us[CAPACITY]; /* -1 until submitted */
static atomic_int failures;
static atomic_int stop_device;

static void sleep_us(int us) {
  struct timespec pause = {0, (long)us * 1000};
  nanosleep(&pause, NULL);
}

/* Finishes submissions strictly in value order, like one device stream. */
static void *device_thread(void *unused) {
  (void)unused;
  for (uint64_t next = 1; next < CAPACITY;) {
    int delay = atomic_load(&queue_delay_us[next]);
    if (delay < 0) {
      if (atomic_load(&stop_device)) break;
      continue;
    }
    if (delay) sleep_us(delay);
    atomic_store(&work_done[next], 1);
    __atomic_store_n(&completed, next, __ATOMIC_RELEASE);
    next++;
  }
  return NULL;
}

static uint64_t read_completed(void *context) {
  (void)context;
  return __atomic_load_n(&completed, __ATOMIC_ACQUIRE);
}

static int block_calls;
static int block_until(am_err *err, void *context, uint64_t value, int64_t deadline) {
  (void)context;
  __atomic_add_fetch(&block_calls, 1, __ATOMIC_RELAXED);
  while (!am_timeline_reached(&timeline, value)) {
    if (am_wait_expired(deadline)) return am_wait_timeout_fail(err, "the test's submission");
    sleep_us(5);
  }
  return 0;
}

static void *submitter(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  for (int i = 0; i < PER_THREAD; i++) {
    int slow = rand_r(&seed) % 8 == 0;
    am_timeline_lock(&timeline);
    uint64_t value = am_timeline_take(&timeline);
    atomic_store(&queue_delay_us[value], slow ? 200 + rand_r(&seed) % 300 : 0);
    am_timeline_unlock(&timeline);
    am_err err;
    am_err_init(&err, "timeline_test");
    if (am_timeline_wait(&err, &timeline, value) != 0 || !atomic_load(&work_done[value]))
      atomic_fetch_add(&failures, 1);
  }
  return NULL;
}

static int scenario(const char *name, int64_t spin, int low, int use_block) {
  spin_us = spin;
  low_latency = low;
  completed = 0;
  block_calls = 0;
  for (int i = 0; i < CAPACITY; i++) {
    atomic_store(&work_done[i], 0);
    atomic_store(&queue_delay_us[i], -1);
  }
  atomic_store(&failures, 0);
  atomic_store(&stop_device, 0);
  am_timeline_init(&timeline, read_completed, use_block ? block_until : NULL, NULL);
  pthread_t device, threads[THREADS];
  pthread_create(&device, NULL, device_thread, NULL);
  for (int t = 0; t < THREADS; t++)
    pthread_create(&threads[t], NULL, submitter, (void *)(uintptr_t)(t + 1));
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  atomic_store(&stop_device, 1);
  pthread_join(device, NULL);
  am_timeline_destroy(&timeline);
  int failed = atomic_load(&failures);
  printf("%-28s %d submissions, %d released early, %d blocking waits\n", name, THREADS * PER_THREAD,
         failed, block_calls);
  if (use_block && low == 0 && block_calls == 0) return 1;
  return failed != 0;
}

/* A device that never reaches value 1: the wait must fail with AM_EDEVICE
 * after the limit (50 ms), not before, and name the watchdog. */
static int watchdog(const char *name, int64_t spin, int use_block) {
  spin_us = spin;
  low_latency = 1;
  timeout_ms = 50;
  completed = 0;
  am_timeline_init(&timeline, read_completed, use_block ? block_until : NULL, NULL);
  am_timeline_lock(&timeline);
  uint64_t value = am_timeline_take(&timeline);
  am_timeline_unlock(&timeline);
  am_err err;
  am_err_init(&err, "timeline_test");
  int64_t start = am_now_ns();
  int status = am_timeline_wait(&err, &timeline, value);
  double waited_ms = (double)(am_now_ns() - start) / 1e6;
  am_timeline_destroy(&timeline);
  timeout_ms = 0;
  int ok = status == AM_EDEVICE && waited_ms >= 50 && waited_ms < 5000 &&
           strstr(err.message, "within 50 ms") != NULL;
  printf("%-28s status %d after %.1f ms: %s\n", name, status, waited_ms, err.message);
  return !ok;
}

int main(void) {
  int failed = 0;
  failed |= scenario("spin 200 us, then sleep", 200, 1, 0);
  failed |= scenario("spin 0 (sleep at once)", 0, 1, 0);
  failed |= scenario("low latency off, block", 200, 0, 1);
  failed |= scenario("spin 50 us, then block", 50, 1, 1);
  failed |= watchdog("watchdog, sleep path", 200, 0);
  failed |= watchdog("watchdog, blocking wait", 0, 1);
  puts(failed ? "FAIL" : "ok");
  return failed;
}
