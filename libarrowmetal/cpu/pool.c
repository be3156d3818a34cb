#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

enum { MAX_THREADS = 64, SPINS = 4000 };

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static struct {
  pthread_mutex_t run_lock; /* held by the caller of the current fork-join */
  pthread_mutex_t lock;     /* with wake: where idle workers sleep */
  pthread_cond_t wake;
  atomic_uint generation; /* bumped once per job */
  atomic_int remaining;   /* workers still on the current job */
  atomic_int sleepers;
  void (*fn)(void *ctx, int part);
  void *ctx;
  int parts;
  int threads; /* the calling thread included */
  int started; /* workers running */
  unsigned first_generation;
  int64_t min_slots;
} pool = {.run_lock = PTHREAD_MUTEX_INITIALIZER,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void *worker(void *arg) {
  int self = (int)(intptr_t)arg;
  /* The generation before the first job: workers start under run_lock,
   * before the job that started them is published. */
  unsigned seen = pool.first_generation;
  for (;;) {
    unsigned now;
    int spins = 0;
    while ((now = atomic_load_explicit(&pool.generation, memory_order_acquire)) == seen &&
           spins++ < SPINS)
      cpu_relax();
    if (now == seen) {
      pthread_mutex_lock(&pool.lock);
      atomic_fetch_add(&pool.sleepers, 1);
      while ((now = atomic_load(&pool.generation)) == seen)
        pthread_cond_wait(&pool.wake, &pool.lock);
      atomic_fetch_sub(&pool.sleepers, 1);
      pthread_mutex_unlock(&pool.lock);
    }
    seen = now;
    if (self < pool.parts) pool.fn(pool.ctx, self);
    atomic_fetch_sub_explicit(&pool.remaining, 1, memory_order_release);
  }
  return NULL;
}

/* A forked child has none of the parent's workers: it starts its own. */
static void after_fork_child(void) {
  pthread_mutex_init(&pool.run_lock, NULL);
  pthread_mutex_init(&pool.lock, NULL);
  pthread_cond_init(&pool.wake, NULL);
  atomic_store(&pool.sleepers, 0);
  atomic_store(&pool.remaining, 0);
  pool.started = 0;
}

static void pool_init(void) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) cpus = CPU_COUNT(&set);
#endif
  if (cpus < 1) cpus = 1;
  const char *cap = getenv("ARROWMETAL_THREADS");
  if (cap && *cap) {
    long c = strtol(cap, NULL, 10);
    if (c >= 1 && c < cpus) cpus = c;
  }
  pool.threads = cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
  pool.min_slots = 131072;
  const char *min = getenv("ARROWMETAL_PARALLEL_MIN");
  if (min && *min) {
    long long m = strtoll(min, NULL, 10);
    if (m >= 1) pool.min_slots = m;
  }
  pthread_atfork(NULL, NULL, after_fork_child);
}

int am_pool_parts(int64_t n) {
  pthread_once(&pool_once, pool_init);
  return n >= pool.min_slots && pool.threads > 1 ? pool.threads : 1;
}

/* Under run_lock. */
static void start_workers(void) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int started = 1;
  pool.first_generation = atomic_load(&pool.generation);
  for (int w = 1; w < pool.threads; w++) {
    pthread_t thread;
    if (pthread_create(&thread, &attr, worker, (void *)(intptr_t)w) != 0) break;
    started++;
  }
  pthread_attr_destroy(&attr);
  pool.started = started;
}

void am_pool_run(int parts, void (*fn)(void *ctx, int part), void *ctx) {
  if (parts > 1 && pthread_mutex_trylock(&pool.run_lock) == 0) {
    if (!pool.started) start_workers();
    int workers = pool.started - 1;
    if (workers > 0) {
      pool.fn = fn;
      pool.ctx = ctx;
      pool.parts = parts;
      atomic_store_explicit(&pool.remaining, workers, memory_order_relaxed);
      atomic_fetch_add(&pool.generation, 1);
      if (atomic_load(&pool.sleepers) > 0) {
        pthread_mutex_lock(&pool.lock);
        pthread_cond_broadcast(&pool.wake);
        pthread_mutex_unlock(&pool.lock);
      }
      fn(ctx, 0);
      /* Parts the started workers do not cover run here. */
      for (int p = pool.started; p < parts; p++) fn(ctx, p);
      for (int spins = 0; atomic_load_explicit(&pool.remaining, memory_order_acquire) > 0;)
        if (++spins < SPINS)
          cpu_relax();
        else
          sched_yield();
      pthread_mutex_unlock(&pool.run_lock);
      return;
    }
    pthread_mutex_unlock(&pool.run_lock);
  }
  for (int p = 0; p < parts; p++) fn(ctx, p);
}

void am_stream_copy(void *dst, const void *src, int64_t bytes) {
#if defined(__x86_64__)
  __m128i *d = dst;
  const __m128i *s = src;
  for (int64_t i = 0; i < bytes / 16; i += 4) {
    __m128i a = _mm_load_si128(s + i), b = _mm_load_si128(s + i + 1);
    __m128i c = _mm_load_si128(s + i + 2), e = _mm_load_si128(s + i + 3);
    _mm_stream_si128(d + i, a);
    _mm_stream_si128(d + i + 1, b);
    _mm_stream_si128(d + i + 2, c);
    _mm_stream_si128(d + i + 3, e);
  }
#else
  memcpy(dst, src, (size_t)bytes);
#endif
}

void am_stream_fence(void) {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}
