#include "runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static atomic_llong spin_microseconds = AM_DEFAULT_SPIN_MICROSECONDS;
static atomic_int low_latency = 1;
static atomic_llong wait_timeout_ms;
static pthread_once_t environment_once = PTHREAD_ONCE_INIT;
static _Thread_local int batch_depth;
static _Thread_local am_scalar_tag scalar_tag; /* zero: type AM_TYPE_INVALID, none */
static _Thread_local int wait_now;

static int64_t clamp_timeout(int64_t ms) {
  return ms > AM_WAIT_TIMEOUT_MS_MAX ? AM_WAIT_TIMEOUT_MS_MAX : ms;
}

/* ARROWMETAL_WAIT_TIMEOUT_MS: decimal milliseconds. Anything else leaves the
 * watchdog off, and says so: a misspelt setting must not pass unnoticed. */
static void read_wait_timeout(void) {
  const char *value = getenv("ARROWMETAL_WAIT_TIMEOUT_MS");
  if (!value || !*value) return;
  char *end = NULL;
  long long ms = strtoll(value, &end, 10);
  if (*end != '\0' || ms < 0) {
    am_log(AM_LOG_WARNING,
           "ARROWMETAL_WAIT_TIMEOUT_MS=%s is not a number of milliseconds; the wait watchdog "
           "stays off",
           value);
    return;
  }
  atomic_store(&wait_timeout_ms, clamp_timeout(ms));
}

static void read_environment(void) {
  const char *value = getenv("ARROWMETAL_LOW_LATENCY");
  if (value && strcmp(value, "0") == 0) atomic_store(&low_latency, 0);
  read_wait_timeout();
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

int64_t am_runtime_wait_timeout_ms(void) {
  pthread_once(&environment_once, read_environment);
  return atomic_load_explicit(&wait_timeout_ms, memory_order_relaxed);
}

void am_runtime_set_wait_timeout_ms(int64_t ms) {
  pthread_once(&environment_once, read_environment);
  atomic_store(&wait_timeout_ms, clamp_timeout(ms));
}

int am_runtime_batch_depth(void) { return batch_depth; }

void am_runtime_batch_enter(void) { batch_depth++; }

int am_runtime_batch_leave(void) {
  if (batch_depth > 0) batch_depth--;
  return batch_depth;
}

am_scalar_tag am_runtime_scalar_tag(void) { return scalar_tag; }

void am_runtime_set_scalar_tag(am_scalar_tag tag) { scalar_tag = tag; }

int am_runtime_wait_now(void) { return wait_now; }

void am_runtime_set_wait_now(int now) { wait_now = now; }
