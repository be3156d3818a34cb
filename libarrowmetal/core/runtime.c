#include "runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_llong spin_microseconds = AM_DEFAULT_SPIN_MICROSECONDS;
static atomic_int low_latency = 1;
static pthread_once_t environment_once = PTHREAD_ONCE_INIT;
static _Thread_local int batch_depth;

static void read_environment(void) {
  const char *value = getenv("ARROWMETAL_LOW_LATENCY");
  if (value && strcmp(value, "0") == 0) atomic_store(&low_latency, 0);
}

int64_t am_runtime_spin_microseconds(void) {
  return atomic_load_explicit(&spin_microseconds, memory_order_relaxed);
}

/* Clamped, so that the wait's budget in nanoseconds (us * 1000) cannot
 * overflow. */
void am_runtime_set_spin_microseconds(int64_t us) {
  atomic_store(&spin_microseconds, us > AM_SPIN_MICROSECONDS_MAX ? AM_SPIN_MICROSECONDS_MAX : us);
}

int am_runtime_low_latency(void) {
  pthread_once(&environment_once, read_environment);
  return atomic_load_explicit(&low_latency, memory_order_relaxed);
}

void am_runtime_set_low_latency(int on) {
  pthread_once(&environment_once, read_environment);
  atomic_store(&low_latency, on ? 1 : 0);
}

int am_runtime_batch_depth(void) { return batch_depth; }

void am_runtime_batch_enter(void) { batch_depth++; }

int am_runtime_batch_leave(void) {
  if (batch_depth > 0) batch_depth--;
  return batch_depth;
}
