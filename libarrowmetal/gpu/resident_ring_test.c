/* The resident ring's host side (resident_ring.c) against its worker kernel
 * run on the CPU (kernel_source_resident.c's CUDA compiled with
 * emu/cuda_emu.h; a launch is a thread of its own), for
 * test_resident_ring.py. Built as a shared library: the Python test hands
 * it the emulated worker's entry point and calls the rt_* functions.
 *
 * A "device" lock runs one emulated kernel at a time (the emulation's
 * block state is one per process), as the worker's own CUDA stream runs its
 * launches one after another. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/backend.h"
#include "gpu/kernels.h"
#include "gpu/resident_ring.h"

typedef void (*worker_fn)(const void *args);

/* How launches behave: a worker, none at all (a launch that never runs),
 * or a stand-in that says it runs but never answers. */
enum { LAUNCH_WORKER = 0, LAUNCH_NOTHING = 1, LAUNCH_MUTE = 2 };

static struct {
  worker_fn worker;
  am_resident resident;
  am_resident_ring ring;
  int launch_mode;
  int fault; /* the backend's `failed` says so */
  int launches;
  pthread_mutex_t device;
} rt = {.device = PTHREAD_MUTEX_INITIALIZER};

static void *run_worker(void *arg) {
  am_gpu_args *args = arg;
  pthread_mutex_lock(&rt.device);
  rt.worker(args);
  pthread_mutex_unlock(&rt.device);
  free(args);
  return NULL;
}

static int launch(am_err *err, void *context, uint64_t ring, int64_t idle_ns, int64_t life_ns) {
  (void)context;
  __atomic_add_fetch(&rt.launches, 1, __ATOMIC_RELAXED);
  if (rt.launch_mode == LAUNCH_NOTHING) return AM_OK;
  if (rt.launch_mode == LAUNCH_MUTE) {
    __atomic_store_n(&rt.ring.state, AM_RESIDENT_RUNNING, __ATOMIC_RELEASE);
    return AM_OK;
  }
  am_gpu_args *args = calloc(1, sizeof *args);
  if (!args) return am_fail(err, AM_ENOMEM, "out of memory");
  args->in0 = ring;
  args->n = idle_ns;
  args->aux = life_ns;
  pthread_t thread;
  if (pthread_create(&thread, NULL, run_worker, args) != 0) {
    free(args);
    return am_fail(err, AM_EDEVICE, "no thread for the worker");
  }
  pthread_detach(thread);
  return AM_OK;
}

static int failed(void *context, char *message, size_t capacity) {
  (void)context;
  if (!__atomic_load_n(&rt.fault, __ATOMIC_ACQUIRE)) return 0;
  strncpy(message, "an illegal address (emulated)", capacity - 1);
  message[capacity - 1] = '\0';
  return 1;
}

static const am_resident_backend backend = {launch, failed};

static char last_message[512];

static int report(const am_err *err, int status) {
  memcpy(last_message, err->message,
         sizeof last_message < sizeof err->message ? sizeof last_message : sizeof err->message);
  last_message[sizeof last_message - 1] = '\0';
  return status;
}

const char *rt_message(void) { return last_message; }
int rt_launches(void) { return __atomic_load_n(&rt.launches, __ATOMIC_RELAXED); }
uint64_t rt_state(void) { return __atomic_load_n(&rt.ring.state, __ATOMIC_ACQUIRE); }
int rt_running(void) { return am_resident_running(&rt.resident); }
void rt_set_fault(int on) { __atomic_store_n(&rt.fault, on, __ATOMIC_RELEASE); }
/* The idle time and lifetime of the workers launched from now on. */
void rt_set_idle(int64_t idle_ns, int64_t life_ns) {
  pthread_mutex_lock(&rt.resident.lock);
  rt.resident.idle_ns = idle_ns;
  rt.resident.life_ns = life_ns;
  pthread_mutex_unlock(&rt.resident.lock);
}

const char *rt_reason(void) {
  am_resident_reason(&rt.resident, last_message, sizeof last_message);
  return last_message;
}

/* A fresh ring; no worker may still run (the caller stopped the last). */
void rt_open(worker_fn worker, int64_t idle_ns, int launch_mode) {
  pthread_mutex_lock(&rt.device); /* the last worker's thread is out */
  pthread_mutex_unlock(&rt.device);
  rt.worker = worker;
  rt.launch_mode = launch_mode;
  rt.fault = 0;
  rt.launches = 0;
  am_resident_init(&rt.resident, &rt.ring, (uint64_t)(uintptr_t)&rt.ring, &backend, NULL, idle_ns);
}

int rt_start(int64_t probe_ms) {
  am_err err;
  am_err_init(&err, "rt_start");
  return report(&err, am_resident_start(&err, &rt.resident, probe_ms));
}

int rt_stop(int64_t wait_ms) {
  am_err err;
  am_err_init(&err, "rt_stop");
  return report(&err, am_resident_stop(&err, &rt.resident, wait_ms));
}

/* One request of `kind` (REDUCE or AGGREGATE) through the ring into
 * `status` (an am_gpu_status); `scalar`: INDEX's value bits. */
int rt_call(int kind, int op, int type, const void *in0, const void *valid0, int64_t off0,
            int64_t n, uint64_t scalar, am_gpu_status *status, int64_t timeout_ms, int *served) {
  am_resident_request request;
  memset(&request, 0, sizeof request);
  request.kind = (uint32_t)kind;
  request.value = scalar;
  request.op = (uint32_t)op;
  request.type = (uint32_t)type;
  request.in0 = (uint64_t)(uintptr_t)in0;
  request.valid0 = (uint64_t)(uintptr_t)valid0;
  request.off0 = off0;
  request.n = n;
  memset(status, 0, sizeof *status);
  status->error_index = UINT64_MAX;
  request.status = (uint64_t)(uintptr_t)status;
  am_err err;
  am_err_init(&err, "rt_call");
  return report(&err, am_resident_call(&err, &rt.resident, &request, timeout_ms, served));
}

/* A sum of `n` int64 values at `in0` posted in the order the host never
 * uses: the ticket first, the request's words `delay_us` later, over the
 * words of the slot's request one lap earlier. A worker that took the
 * ticket with those words would answer the earlier request's sum. Waits up
 * to `timeout_ms` for the answer; 0 when it came. */
int rt_call_torn(const int64_t *in0, int64_t n, am_gpu_status *status, int delay_us,
                 int64_t timeout_ms) {
  am_resident_request request;
  memset(&request, 0, sizeof request);
  request.kind = AM_RESIDENT_REDUCE;
  request.op = AM_REDUCE_SUM;
  request.type = AM_INT64;
  request.in0 = (uint64_t)(uintptr_t)in0;
  request.n = n;
  memset(status, 0, sizeof *status);
  status->error_index = UINT64_MAX;
  request.status = (uint64_t)(uintptr_t)status;
  pthread_mutex_lock(&rt.resident.lock);
  uint64_t k = rt.resident.posted;
  uint64_t body[AM_RESIDENT_BODY];
  if (!am_resident_encode(&request, k, body)) {
    pthread_mutex_unlock(&rt.resident.lock);
    return -1;
  }
  am_resident_slot *slot = &rt.ring.slot[k % AM_RESIDENT_SLOTS];
  __atomic_store_n(&slot->ticket, k + 1, __ATOMIC_RELEASE);
  usleep((useconds_t)delay_us);
  for (int i = 0; i < AM_RESIDENT_BODY; i++)
    __atomic_store_n(&slot->body[i], body[i], __ATOMIC_RELEASE);
  rt.resident.posted = k + 1;
  pthread_mutex_unlock(&rt.resident.lock);
  for (int64_t waited_us = 0; waited_us < timeout_ms * 1000; waited_us += 100) {
    if (__atomic_load_n(&rt.ring.served, __ATOMIC_ACQUIRE) >= k + 1) return 0;
    usleep(100);
  }
  return -2;
}

/* ---- Many threads at once: every answer checked, none taken early */

typedef struct stress_thread {
  int index, calls, pause_us;
  int64_t timeout_ms;
  int64_t *values; /* this thread's own data (reused between calls) */
  int served, unserved, wrong, failures;
  pthread_t thread;
} stress_thread;

static uint64_t next_random(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static void *stress(void *arg) {
  stress_thread *t = arg;
  uint64_t seed = 0x2545f4914f6cdd1dull * (uint64_t)(t->index + 1);
  for (int call = 0; call < t->calls; call++) {
    if (t->pause_us > 0) usleep((useconds_t)(next_random(&seed) % (uint64_t)t->pause_us));
    /* New data every call, so that an answer from an earlier call or
     * another thread's request is wrong. */
    int64_t n = (int64_t)(next_random(&seed) % 2049);
    for (int64_t i = 0; i < n; i++)
      t->values[i] = (int64_t)(next_random(&seed) % 2000001) - 1000000;
    int op = (int)(next_random(&seed) % 3); /* sum, min, max */
    int64_t expected = op == AM_REDUCE_SUM ? 0 : t->values[0];
    for (int64_t i = 0; i < n; i++) {
      int64_t v = t->values[i];
      if (op == AM_REDUCE_SUM) expected += v;
      if (op == AM_REDUCE_MIN && v < expected) expected = v;
      if (op == AM_REDUCE_MAX && v > expected) expected = v;
    }
    am_gpu_status status;
    int served = 0;
    int rc = rt_call(AM_RESIDENT_REDUCE, op, AM_INT64, t->values, NULL, 0, n, 0, &status,
                     t->timeout_ms, &served);
    if (rc != AM_OK) {
      t->failures++;
      continue;
    }
    if (!served) {
      t->unserved++;
      continue;
    }
    t->served++;
    if (status.count != (uint64_t)n || (n > 0 && (int64_t)status.value != expected) ||
        status.error_index != UINT64_MAX)
      t->wrong++;
  }
  return NULL;
}

/* `threads` threads of `calls` calls, each after a pause of up to
 * `pause_us`; counts into out[4]: served, unserved (no worker took it),
 * wrong answers, failed calls. */
void rt_stress(int threads, int calls, int64_t timeout_ms, int pause_us, int64_t *out) {
  stress_thread *all = calloc((size_t)threads, sizeof *all);
  for (int i = 0; i < threads; i++) {
    all[i].index = i;
    all[i].calls = calls;
    all[i].timeout_ms = timeout_ms;
    all[i].pause_us = pause_us;
    all[i].values = calloc(2049, sizeof(int64_t));
    pthread_create(&all[i].thread, NULL, stress, &all[i]);
  }
  memset(out, 0, 4 * sizeof *out);
  for (int i = 0; i < threads; i++) {
    pthread_join(all[i].thread, NULL);
    out[0] += all[i].served;
    out[1] += all[i].unserved;
    out[2] += all[i].wrong;
    out[3] += all[i].failures;
    free(all[i].values);
  }
  free(all);
}
