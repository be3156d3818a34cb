/* The resident worker's request ring, host side: posting, waiting, the
 * worker's leaving and coming back (resident_ring.h says how). */
#include "gpu/resident_ring.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

_Static_assert(sizeof(am_resident_slot) == AM_RESIDENT_W_SLOT * 8, "slot size");
_Static_assert(offsetof(am_resident_ring, served) == AM_RESIDENT_W_SERVED * 8, "served");
_Static_assert(offsetof(am_resident_ring, state) == AM_RESIDENT_W_STATE * 8, "state");
_Static_assert(offsetof(am_resident_ring, busy) == AM_RESIDENT_W_BUSY * 8, "busy");
_Static_assert(offsetof(am_resident_ring, stop) == AM_RESIDENT_W_STOP * 8, "stop");
_Static_assert(offsetof(am_resident_ring, slot) == AM_RESIDENT_W_SLOTS * 8, "slots");

/* CLOCK_MONOTONIC in nanoseconds (core/timeline.h's am_now_ns, which
 * would bring the runtime's settings along into the ring's tests). */
static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* A full fence whose order the GPU sees too: x86's mfence; on Arm a data
 * synchronization barrier over the whole system (Linux orders memory shared
 * with devices with outer-shareable barriers; dmb ish covers the cores
 * only). */
static void system_fence(void) {
#if defined(__aarch64__)
  __asm__ __volatile__("dsb sy" ::: "memory");
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static uint64_t load(const uint64_t *word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }
static void store(uint64_t *word, uint64_t value) {
  __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

static void set_reason(am_resident *resident, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(resident->reason, sizeof resident->reason, format, args);
  va_end(args);
}

void am_resident_init(am_resident *resident, am_resident_ring *ring, uint64_t ring_address,
                      const am_resident_backend *backend, void *context, int64_t idle_ns) {
  memset(resident, 0, sizeof *resident);
  memset(ring, 0, sizeof *ring);
  resident->ring = ring;
  resident->ring_address = ring_address;
  resident->backend = backend;
  resident->context = context;
  resident->idle_ns = idle_ns;
  resident->life_ns = AM_RESIDENT_LIFETIME_NS;
  pthread_mutex_init(&resident->lock, NULL);
  set_reason(resident, "no resident worker was asked for: am_resident_mode(1) starts one");
}

int am_resident_running(const am_resident *resident) {
  return load(&resident->ring->state) == AM_RESIDENT_RUNNING;
}

int am_resident_wanted(const am_resident *resident) {
  return __atomic_load_n(&resident->wanted, __ATOMIC_RELAXED);
}

void am_resident_reason(am_resident *resident, char *text, size_t capacity) {
  pthread_mutex_lock(&resident->lock);
  uint64_t state = load(&resident->ring->state);
  uint64_t served = load(&resident->ring->served);
  if (state == AM_RESIDENT_RUNNING)
    snprintf(text, capacity, "%s; %llu requests answered, %.2f us of the worker's time each",
             resident->reason, (unsigned long long)served,
             served ? (double)load(&resident->ring->busy) / (double)served / 1000.0 : 0.0);
  else if (resident->wanted)
    snprintf(text, capacity,
             "the resident worker %s (after %lld ms without requests, or %lld ms in all)%s",
             state == AM_RESIDENT_EXITING ? "is leaving" : "left",
             (long long)(resident->idle_ns / 1000000), (long long)(resident->life_ns / 1000000),
             state == AM_RESIDENT_STARTING ? "; it is being launched again"
                                           : "; the next small call launches it again");
  else
    snprintf(text, capacity, "%s", resident->reason);
  pthread_mutex_unlock(&resident->lock);
}

/* Polls `word` until it reaches `at_least`. Spins first (an answer takes a
 * few microseconds), then yields the core; asks the backend every 100 us
 * whether the worker's launch failed (AM_EDEVICE); gives up at `deadline`
 * (0: never) with `late`: AM_EDEVICE for a worker that took a request and
 * does not answer, AM_EUNSUPPORTED for one that never started. */
static int wait_until(am_err *err, am_resident *resident, const uint64_t *word, uint64_t at_least,
                      int64_t deadline, const char *what, int late) {
  int64_t start = now_ns(), next_check = start + 100000;
  for (unsigned polls = 1;; polls++) {
    if (load(word) >= at_least) return AM_OK;
    if (polls % 256 != 0) continue;
    int64_t now = now_ns();
    if (now >= next_check) {
      char message[160] = "";
      if (resident->backend->failed &&
          resident->backend->failed(resident->context, message, sizeof message))
        return am_fail(err, AM_EDEVICE, "the resident worker failed while it was to %s: %s", what,
                       message);
      next_check = now + 100000;
    }
    if (deadline && now >= deadline)
      return am_fail(err, late, "the resident worker did not %s within %lld ms", what,
                     (long long)((now - start) / 1000000));
    if (now - start > 200000) sched_yield();
  }
}

int am_resident_encode(const am_resident_request *request, uint64_t k,
                       uint64_t body[AM_RESIDENT_BODY]) {
  const uint64_t limit = (uint64_t)1 << AM_RESIDENT_FIELD_BITS;
  const uint64_t fields[AM_RESIDENT_BODY] = {
      request->kind | (uint64_t)request->op << 8 | (uint64_t)request->type << 16,
      request->in0,
      request->valid0,
      (uint64_t)request->off0,
      (uint64_t)request->n,
      request->status,
      request->value & 0xffffffffu,
      request->value >> 32};
  if (request->kind > 0xff || request->op > 0xff || request->type > 0xff) return 0;
  const uint64_t tag = AM_RESIDENT_TAG(k) << AM_RESIDENT_FIELD_BITS;
  for (int i = 0; i < AM_RESIDENT_BODY; i++) {
    if (fields[i] >= limit) return 0;
    body[i] = fields[i] | tag;
  }
  return 1;
}

/* With the lock held and no worker running: launches one. A launch that
 * fails ends the wish for a worker (every call would fail the same way). */
static int launch(am_err *err, am_resident *resident) {
  store(&resident->ring->stop, 0);
  store(&resident->ring->state, AM_RESIDENT_STARTING);
  int status = resident->backend->launch(err, resident->context, resident->ring_address,
                                         resident->idle_ns, resident->life_ns);
  if (status != AM_OK) {
    store(&resident->ring->state, AM_RESIDENT_EXITED);
    __atomic_store_n(&resident->wanted, 0, __ATOMIC_RELAXED);
    set_reason(resident, "the resident worker could not be launched: %s", err->message);
  }
  return status;
}

static int wait_word(am_err *err, am_resident *resident, const uint64_t *word, uint64_t at_least,
                     int64_t deadline, const char *what) {
  return wait_until(err, resident, word, at_least, deadline, what, AM_EDEVICE);
}

static int64_t deadline_after(int64_t ms) { return ms > 0 ? now_ns() + ms * 1000000 : 0; }

void am_resident_wake(am_resident *resident) {
  pthread_mutex_lock(&resident->lock);
  if (resident->wanted && load(&resident->ring->state) == AM_RESIDENT_EXITED) {
    am_err ignored;
    am_err_init(&ignored, "am_resident_wake");
    launch(&ignored, resident);
  }
  pthread_mutex_unlock(&resident->lock);
}

int am_resident_call(am_err *err, am_resident *resident, const am_resident_request *request,
                     int64_t timeout_ms, int *served) {
  am_resident_ring *ring = resident->ring;
  int64_t deadline = deadline_after(timeout_ms);
  *served = 0;
  pthread_mutex_lock(&resident->lock);
  uint64_t state = load(&ring->state);
  if (state != AM_RESIDENT_RUNNING) {
    pthread_mutex_unlock(&resident->lock);
    am_resident_wake(resident); /* back for the calls after this one */
    return AM_OK;
  }
  uint64_t k = resident->posted;
  uint64_t body[AM_RESIDENT_BODY];
  if (!am_resident_encode(request, k, body)) { /* the caller launches */
    pthread_mutex_unlock(&resident->lock);
    return AM_OK;
  }
  int status = AM_OK;
  if (k >= AM_RESIDENT_SLOTS) /* the slot's last request must have been answered */
    status = wait_word(err, resident, &ring->served, k - AM_RESIDENT_SLOTS + 1, deadline,
                       "free a ring slot");
  if (status != AM_OK) {
    pthread_mutex_unlock(&resident->lock);
    return status;
  }
  /* The request's words, then its ticket: the worker may be reading them
   * (it waits for this request), so each word is stored whole. */
  am_resident_slot *slot = &ring->slot[k % AM_RESIDENT_SLOTS];
  for (int i = 0; i < AM_RESIDENT_BODY; i++)
    __atomic_store_n(&slot->body[i], body[i], __ATOMIC_RELAXED);
  store(&slot->ticket, k + 1);
  resident->posted = k + 1;
  /* The store-buffering pattern with the worker's leaving: see the header. */
  system_fence();
  state = __atomic_load_n(&ring->state, __ATOMIC_SEQ_CST);
  if (state == AM_RESIDENT_RUNNING) {
    pthread_mutex_unlock(&resident->lock);
    status = wait_word(err, resident, &ring->served, k + 1, deadline, "answer a request");
    *served = status == AM_OK;
    return status;
  }
  /* Leaving: it may or may not have seen this request. */
  status = wait_word(err, resident, &ring->state, AM_RESIDENT_EXITED, deadline, "leave");
  if (status == AM_OK) {
    if (load(&ring->served) >= k + 1) {
      *served = 1;
    } else { /* not taken: take it back, and bring the worker back */
      store(&slot->ticket, 0);
      /* The next request has this one's number and tag: none of these
       * words may pass for one of its words. */
      for (int i = 0; i < AM_RESIDENT_BODY; i++) store(&slot->body[i], 0);
      resident->posted = k;
      if (resident->wanted) {
        am_err ignored;
        am_err_init(&ignored, err->entry);
        launch(&ignored, resident);
      }
    }
  }
  pthread_mutex_unlock(&resident->lock);
  return status;
}

/* The probe: an ECHO, which only a worker that read the request answers. */
static int probe(am_err *err, am_resident *resident, int64_t probe_ms) {
  am_resident_ring *ring = resident->ring;
  uint64_t value = (uint64_t)now_ns() * 2654435761u;
  memset(ring->probe, 0, sizeof ring->probe);
  am_resident_request request;
  memset(&request, 0, sizeof request);
  request.kind = AM_RESIDENT_ECHO;
  request.value = value;
  request.status = resident->ring_address + offsetof(am_resident_ring, probe);
  if (request.status >> AM_RESIDENT_FIELD_BITS)
    return am_fail(err, AM_EUNSUPPORTED,
                   "the ring's device address 0x%llx does not fit the worker's %d-bit request "
                   "words",
                   (unsigned long long)request.status, AM_RESIDENT_FIELD_BITS);
  int served = 0;
  int64_t start = now_ns();
  /* A worker whose idle time passed before the probe came leaves; the
   * call that finds it gone launches it again, so try a few times. */
  for (int attempt = 0; attempt < 4 && !served; attempt++) {
    if (attempt > 0) {
      int status = wait_until(err, resident, &ring->state, AM_RESIDENT_RUNNING,
                              deadline_after(probe_ms), "start", AM_EUNSUPPORTED);
      if (status != AM_OK) return status;
    }
    int status = am_resident_call(err, resident, &request, probe_ms, &served);
    if (status != AM_OK) return status;
  }
  if (!served)
    return am_fail(err, AM_EUNSUPPORTED, "the resident worker left before it answered its probe");
  uint64_t answer = load(&ring->probe[3]);
  uint64_t expected = value ^ AM_RESIDENT_ECHO_MIX;
  if (answer != expected)
    return am_fail(err, AM_EUNSUPPORTED,
                   "the resident worker answered its probe wrongly (0x%llx, expected 0x%llx)",
                   (unsigned long long)answer, (unsigned long long)expected);
  pthread_mutex_lock(&resident->lock);
  set_reason(resident, "a resident worker is running (its probe answered in %.1f us)",
             (double)(now_ns() - start) / 1000.0);
  pthread_mutex_unlock(&resident->lock);
  return AM_OK;
}

/* Gives up a start: tells whatever was launched to leave. */
static int refuse_start(am_err *err, am_resident *resident, int status) {
  pthread_mutex_lock(&resident->lock);
  __atomic_store_n(&resident->wanted, 0, __ATOMIC_RELAXED);
  store(&resident->ring->stop, 1);
  set_reason(resident, "%s", err->message);
  pthread_mutex_unlock(&resident->lock);
  return status == AM_EDEVICE ? status : AM_EUNSUPPORTED;
}

int am_resident_start(am_err *err, am_resident *resident, int64_t probe_ms) {
  am_resident_ring *ring = resident->ring;
  pthread_mutex_lock(&resident->lock);
  __atomic_store_n(&resident->wanted, 1, __ATOMIC_RELAXED);
  uint64_t state = load(&ring->state);
  int status = AM_OK;
  if (state == AM_RESIDENT_STOPPED || state == AM_RESIDENT_EXITED) status = launch(err, resident);
  pthread_mutex_unlock(&resident->lock);
  if (status != AM_OK) return status == AM_EDEVICE ? status : AM_EUNSUPPORTED;
  /* Started (or leaving: then it comes back on the probe's call). */
  status = wait_until(err, resident, &ring->state, AM_RESIDENT_RUNNING, deadline_after(probe_ms),
                      "start", AM_EUNSUPPORTED);
  if (status == AM_OK && load(&ring->state) != AM_RESIDENT_RUNNING)
    status = wait_word(err, resident, &ring->state, AM_RESIDENT_EXITED, deadline_after(probe_ms),
                       "leave");
  if (status == AM_OK && load(&ring->state) == AM_RESIDENT_EXITED) {
    pthread_mutex_lock(&resident->lock);
    if (load(&ring->state) == AM_RESIDENT_EXITED) status = launch(err, resident);
    pthread_mutex_unlock(&resident->lock);
    if (status == AM_OK)
      status = wait_until(err, resident, &ring->state, AM_RESIDENT_RUNNING,
                          deadline_after(probe_ms), "start", AM_EUNSUPPORTED);
  }
  if (status == AM_OK) status = probe(err, resident, probe_ms);
  return status == AM_OK ? AM_OK : refuse_start(err, resident, status);
}

int am_resident_stop(am_err *err, am_resident *resident, int64_t wait_ms) {
  am_resident_ring *ring = resident->ring;
  pthread_mutex_lock(&resident->lock);
  __atomic_store_n(&resident->wanted, 0, __ATOMIC_RELAXED);
  uint64_t state = load(&ring->state);
  int live = state != AM_RESIDENT_STOPPED && state != AM_RESIDENT_EXITED;
  if (live) store(&ring->stop, 1);
  set_reason(resident, "the resident worker was stopped (am_resident_mode(0))");
  /* Held while waiting: no call posts behind the stop. */
  int status = live ? wait_word(err, resident, &ring->state, AM_RESIDENT_EXITED,
                                deadline_after(wait_ms), "leave when told to stop")
                    : AM_OK;
  /* Still queued behind other work, not started: no fault. It sees the
   * stop when it starts and leaves at once. */
  if (status != AM_OK && load(&ring->state) == AM_RESIDENT_STARTING) status = AM_OK;
  pthread_mutex_unlock(&resident->lock);
  return status;
}
