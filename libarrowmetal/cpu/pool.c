#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

enum { MAX_THREADS = 64, SPINS = 4000 };

/* How long the workers spin for the next job before they sleep. Waking a
 * sleeping worker costs tens of microseconds (more under a hypervisor), and
 * Python between two kernels commonly takes longer than a few thousand
 * pauses: am.add of two pyarrow arrays of a million rows spends about 45 us
 * outside the kernel (its caches are cold after it), and with a 45 us spin
 * its worker slept and joined each kernel some 15 us late. The budget is
 * shared: every worker spins for IDLE_SPIN_BUDGET_NS / workers, between the
 * two bounds, so that many cores do not each burn 200 us after every kernel
 * (their share of a kernel is short, and so is a late join). */
#define IDLE_SPIN_BUDGET_NS 400000
#define IDLE_SPIN_MIN_NS 20000
#define IDLE_SPIN_MAX_NS 200000

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* One fork-join: its parts, and how many of them have finished. It lives on
 * its caller's stack; a thread that claimed one of its parts may read it
 * until it counts that part done (the caller returns only once every part
 * is). */
typedef struct job {
  void (*fn)(void *ctx, int part);
  void *ctx;
  atomic_int done;
} job;

/* The claim word: the job's generation (bits 40-63), its part count (32-39)
 * and the next part to claim (0-31). Whoever claims a part (a worker or the
 * caller itself) runs it, so a worker that starts late (asleep, or on a core
 * another process holds) only finds nothing left to take: the join waits
 * for the parts, never for a particular thread. With a fixed part per
 * worker, and_not of 10^6 bits took 0.23 ms instead of 0.012 while the
 * other core ran a busy process (the join waited for the worker to be
 * scheduled). */
#define CLAIM_GENERATION(w) ((w) >> 40)
#define CLAIM_PARTS(w) ((int)(((w) >> 32) & 0xffu))
#define CLAIM_NEXT(w) ((int)((w) & 0xffffffffu))

static struct {
  pthread_mutex_t run_lock; /* held by the caller of the current fork-join */
  pthread_mutex_t lock;     /* with wake: where idle workers sleep */
  pthread_cond_t wake;
  _Atomic uint64_t claim;
  atomic_int sleepers;
  job *current; /* written before claim publishes it, read by those who claim a part */
  int threads;  /* the calling thread included */
  int started;  /* workers running */
  int64_t min_slots;
  int64_t idle_spin_ns; /* per worker */
} pool = {.run_lock = PTHREAD_MUTEX_INITIALIZER,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Claims and runs parts of the published job until none is left; returns the
 * claim word last seen (its generation: the job this thread is done with). */
static uint64_t run_parts(void) {
  uint64_t w = atomic_load_explicit(&pool.claim, memory_order_acquire);
  while (CLAIM_NEXT(w) < CLAIM_PARTS(w)) {
    if (!atomic_compare_exchange_weak_explicit(&pool.claim, &w, w + 1, memory_order_acq_rel,
                                               memory_order_acquire))
      continue; /* w reloaded */
    job *j = pool.current;
    j->fn(j->ctx, CLAIM_NEXT(w));
    atomic_fetch_add_explicit(&j->done, 1, memory_order_release);
    w = atomic_load_explicit(&pool.claim, memory_order_acquire);
  }
  return w;
}

static void *worker(void *arg) {
  (void)arg;
  /* Workers start under run_lock, before the job that started them is
   * published: the generation now is the one before it. */
  uint64_t seen = CLAIM_GENERATION(atomic_load(&pool.claim));
  for (;;) {
    uint64_t now;
    int64_t until = now_ns() + pool.idle_spin_ns;
    for (int spins = 1;
         (now = CLAIM_GENERATION(atomic_load_explicit(&pool.claim, memory_order_acquire))) == seen;
         spins++) {
      if (spins % 64 == 0 && now_ns() >= until) break;
      cpu_relax();
    }
    if (now == seen) {
      pthread_mutex_lock(&pool.lock);
      atomic_fetch_add(&pool.sleepers, 1);
      while (CLAIM_GENERATION(atomic_load(&pool.claim)) == seen)
        pthread_cond_wait(&pool.wake, &pool.lock);
      atomic_fetch_sub(&pool.sleepers, 1);
      pthread_mutex_unlock(&pool.lock);
    }
    seen = CLAIM_GENERATION(run_parts());
  }
  return NULL;
}

/* A forked child has none of the parent's workers: it starts its own. */
static void after_fork_child(void) {
  pthread_mutex_init(&pool.run_lock, NULL);
  pthread_mutex_init(&pool.lock, NULL);
  pthread_cond_init(&pool.wake, NULL);
  atomic_store(&pool.sleepers, 0);
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
  int64_t spin = IDLE_SPIN_BUDGET_NS / (pool.threads > 1 ? pool.threads - 1 : 1);
  pool.idle_spin_ns = spin < IDLE_SPIN_MIN_NS   ? IDLE_SPIN_MIN_NS
                      : spin > IDLE_SPIN_MAX_NS ? IDLE_SPIN_MAX_NS
                                                : spin;
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
  for (int w = 1; w < pool.threads; w++) {
    pthread_t thread;
    if (pthread_create(&thread, &attr, worker, NULL) != 0) break;
    started++;
  }
  pthread_attr_destroy(&attr);
  pool.started = started;
}

void am_pool_run(int parts, void (*fn)(void *ctx, int part), void *ctx) {
  if (parts > 1 && parts <= MAX_THREADS && pthread_mutex_trylock(&pool.run_lock) == 0) {
    if (!pool.started) start_workers();
    if (pool.started > 1) {
      job j = {.fn = fn, .ctx = ctx};
      atomic_init(&j.done, 0);
      pool.current = &j;
      uint64_t generation = CLAIM_GENERATION(atomic_load(&pool.claim)) + 1;
      atomic_store_explicit(&pool.claim, (generation << 40) | ((uint64_t)parts << 32) | 1,
                            memory_order_release);
      if (atomic_load(&pool.sleepers) > 0) {
        pthread_mutex_lock(&pool.lock);
        pthread_cond_broadcast(&pool.wake);
        pthread_mutex_unlock(&pool.lock);
      }
      /* Part 0 is the caller's, claimed in the word above: each part then
       * runs on the same thread call after call where the workers are
       * awake (with two threads always), so its lines are in that core's
       * caches (am_pool_sweep); else a spinning worker sometimes took part
       * 0 first, and both halves crossed cores. */
      fn(ctx, 0);
      atomic_fetch_add_explicit(&j.done, 1, memory_order_release);
      run_parts();
      for (int spins = 0; atomic_load_explicit(&j.done, memory_order_acquire) < parts;)
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

/* Counts sweeps: its low bit is the next one's direction. Threads racing on
 * it only pick a worse order, never a wrong result. */
static atomic_uint sweeps;

typedef struct sweep_job {
  void (*fn)(void *ctx, int64_t begin, int64_t end);
  void *ctx;
  int64_t n, chunk;
  int parts, down;
  /* Chunks of each part's range taken so far, one per cache line: a part
   * bumps its own counter once a chunk, others only once they have run out. */
  struct {
    _Alignas(64) atomic_llong taken;
  } next[MAX_THREADS];
} sweep_job;

static void sweep_part(void *ctx, int part) {
  sweep_job *job = ctx;
  for (int k = 0; k < job->parts; k++) {
    int owner = (part + k) % job->parts;
    int64_t begin, end;
    am_pool_range(job->n, job->parts, owner, &begin, &end);
    int64_t chunks = (end - begin + job->chunk - 1) / job->chunk;
    for (;;) {
      int64_t c = atomic_fetch_add_explicit(&job->next[owner].taken, 1, memory_order_relaxed);
      if (c >= chunks) break;
      int64_t at = begin + (job->down ? chunks - 1 - c : c) * job->chunk;
      job->fn(job->ctx, at, end - at < job->chunk ? end : at + job->chunk);
    }
  }
}

void am_pool_sweep(int64_t n, int64_t width, void (*fn)(void *ctx, int64_t begin, int64_t end),
                   void *ctx) {
  int parts = am_pool_parts(n);
  if (parts == 1) {
    if (n > 0) fn(ctx, 0, n);
    return;
  }
  /* A 64th of a part at least: taking over needs no finer grain, and from
   * memory (int64 add of 50M slots) 64 KiB chunks ran 6% slower than chunks
   * of megabytes. */
  int64_t chunk = AM_SWEEP_CHUNK / width, share = (n / parts / 64 + 63) / 64 * 64;
  sweep_job job = {
      .fn = fn, .ctx = ctx, .n = n, .chunk = chunk > share ? chunk : share, .parts = parts};
  if (n * width <= AM_SWEEP_TURN_MAX)
    job.down = (int)(atomic_fetch_add_explicit(&sweeps, 1, memory_order_relaxed) & 1);
  for (int p = 0; p < parts; p++) atomic_init(&job.next[p].taken, 0);
  am_pool_run(parts, sweep_part, &job);
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
