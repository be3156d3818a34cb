/* A CPU emulation of the CUDA that the kernel source emits, for checking the
 * kernels' logic where there is no GPU (gpu/test_nulls_kernels.py).
 *
 * A generated CUDA kernel is compiled as C++ after this header, and then
 * AM_EMU_ENTRY(name). Every GPU thread of a block is a fiber (ucontext) of
 * one OS thread; blocks run one after another. A fiber runs until it waits
 * at a barrier or does an atomic, then the next runnable one takes over, in
 * thread order: so threads interleave at every atomic, as racing GPU
 * threads may. __syncthreads() is a barrier of the block's threads; the
 * warp operations (ballot, shuffles) a write of each lane's value, a
 * barrier of the warp's 32 threads, the reads, and a second barrier: so
 * every lane must reach them together, as on the GPU. A barrier that can
 * never complete (a thread exited or waits elsewhere) aborts with a
 * message instead of hanging. What this cannot show: anything about the
 * GPU's memory model (every write here is visible at once) or its speed.
 * (Fibers, not OS threads: 256 OS threads meeting at each barrier on a
 * 2-core machine spent most of the sort tests' time in the kernel.) */
#ifndef AM_GPU_CUDA_EMU_H
#define AM_GPU_CUDA_EMU_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

struct am_emu_dim3 {
  unsigned x, y, z;
};

static am_emu_dim3 threadIdx;
static am_emu_dim3 blockIdx;
static am_emu_dim3 gridDim;
static am_emu_dim3 blockDim;

/* A barrier: waiters sleep until `generation` moves past the one they saw. */
struct am_emu_barrier {
  unsigned arrived, generation, count;
};

struct am_emu_warp {
  am_emu_barrier barrier;
  uint64_t slot[32];
};

struct am_emu_fiber {
  ucontext_t context; /* its start only */
  void *resume[5];    /* __builtin_setjmp's buffer: where it goes on */
  char *stack;
  int started, done;
  const am_emu_barrier *waits_on; /* NULL: runnable */
  unsigned waits_for;             /* the generation it waits to pass */
};

enum { AM_EMU_MAX_THREADS = 1024, AM_EMU_STACK = 256 * 1024 };

struct am_emu_block {
  am_emu_barrier barrier;
  am_emu_warp warps[32];
  am_emu_fiber fibers[AM_EMU_MAX_THREADS];
  void *scheduler[5]; /* __builtin_setjmp's buffer of the scheduler */
  int running;
  void (*kernel)(const void *); /* calls *kernel_object (am_emu_grid's F) */
  const void *kernel_object;
};

static am_emu_block am_emu_block_state;
static am_emu_block *const am_emu_current = &am_emu_block_state;

/* Back to the scheduler; the fiber goes on when it is next picked.
 * Switches are __builtin_setjmp / __builtin_longjmp (registers and stack
 * pointer, no signal mask: swapcontext's system call per switch cost more
 * than the kernels); ucontext only starts a fiber on its own stack. */
__attribute__((noinline)) static void am_emu_jump(void **to) { __builtin_longjmp(to, 1); }

__attribute__((noinline)) static void am_emu_yield() {
  am_emu_block *b = am_emu_current;
  if (__builtin_setjmp(b->fibers[b->running].resume) == 0) am_emu_jump(b->scheduler);
}

static inline void am_emu_wait(am_emu_barrier *barrier) {
  if (++barrier->arrived == barrier->count) {
    barrier->arrived = 0;
    barrier->generation++;
    am_emu_yield();
    return;
  }
  am_emu_fiber *f = &am_emu_current->fibers[am_emu_current->running];
  f->waits_on = barrier;
  f->waits_for = barrier->generation;
  am_emu_yield();
}

#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(a, b)
#define __grid_constant__
#define __shared__ static
#define __constant__ static

static inline void __syncthreads() { am_emu_wait(&am_emu_current->barrier); }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
/* A barrier of the caller's warp (every lane must reach it, as the kernels
 * call it). */
static inline void __syncwarp(unsigned mask = 0xffffffffu) {
  (void)mask;
  am_emu_wait(&am_emu_current->warps[threadIdx.x >> 5].barrier);
}

/* Lane `src` of the caller's warp's values of `v` (the caller's own where
 * src is outside the warp, which the kernels never use). */
template <class T>
static inline T am_emu_exchange(T v, int src) {
  unsigned tid = threadIdx.x, lane = tid & 31u;
  am_emu_warp *w = &am_emu_current->warps[tid >> 5];
  uint64_t bits = 0;
  memcpy(&bits, &v, sizeof v);
  w->slot[lane] = bits;
  am_emu_wait(&w->barrier);
  uint64_t got = src >= 0 && src < 32 ? w->slot[src] : bits;
  am_emu_wait(&w->barrier);
  T r;
  memcpy(&r, &got, sizeof r);
  return r;
}

static inline unsigned __ballot_sync(unsigned mask, int p) {
  (void)mask;
  unsigned tid = threadIdx.x;
  am_emu_warp *w = &am_emu_current->warps[tid >> 5];
  w->slot[tid & 31u] = p != 0;
  am_emu_wait(&w->barrier);
  unsigned r = 0;
  for (int l = 0; l < 32; l++) r |= (unsigned)w->slot[l] << l;
  am_emu_wait(&w->barrier);
  return r;
}

template <class T>
static inline T __shfl_down_sync(unsigned mask, T v, unsigned d) {
  (void)mask;
  return am_emu_exchange(v, (int)(threadIdx.x & 31u) + (int)d);
}
template <class T>
static inline T __shfl_up_sync(unsigned mask, T v, unsigned d) {
  (void)mask;
  return am_emu_exchange(v, (int)(threadIdx.x & 31u) - (int)d);
}
template <class T>
static inline T __shfl_xor_sync(unsigned mask, T v, unsigned m) {
  (void)mask;
  return am_emu_exchange(v, (int)((threadIdx.x & 31u) ^ m));
}
template <class T>
static inline T __shfl_sync(unsigned mask, T v, unsigned l) {
  (void)mask;
  return am_emu_exchange(v, (int)l);
}

static inline unsigned __match_any_sync(unsigned mask, unsigned long long v) {
  (void)mask;
  unsigned tid = threadIdx.x;
  am_emu_warp *w = &am_emu_current->warps[tid >> 5];
  w->slot[tid & 31u] = v;
  am_emu_wait(&w->barrier);
  unsigned r = 0;
  for (int l = 0; l < 32; l++) r |= (unsigned)(w->slot[l] == v) << l;
  am_emu_wait(&w->barrier);
  return r;
}

static inline unsigned __popc(unsigned x) { return (unsigned)__builtin_popcount(x); }
static inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
static inline unsigned atomicOr(unsigned *p, unsigned v) {
  am_emu_yield();
  return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned atomicAdd(unsigned *p, unsigned v) {
  am_emu_yield();
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  am_emu_yield();
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v) {
  am_emu_yield();
  unsigned long long old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (v < old &&
         !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
/* The high 64 bits of a 64 x 64-bit product (cumulative_prod_checked). */
static inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
static inline unsigned atomicMax(unsigned *p, unsigned v) {
  am_emu_yield();
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (v > old &&
         !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
static inline unsigned atomicCAS(unsigned *p, unsigned expected, unsigned v) {
  am_emu_yield();
  __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long expected,
                                           unsigned long long v) {
  am_emu_yield();
  __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
static inline unsigned __float_as_uint(float x) {
  unsigned u;
  memcpy(&u, &x, sizeof u);
  return u;
}
static inline float __uint_as_float(unsigned u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}
static inline long long __double_as_longlong(double x) {
  long long u;
  memcpy(&u, &x, sizeof u);
  return u;
}
static inline double __longlong_as_double(long long u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}
static inline int __double2hiint(double x) {
  return (int)((unsigned long long)__double_as_longlong(x) >> 32);
}
static inline int __double2loint(double x) { return (int)(unsigned)__double_as_longlong(x); }
static inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double((long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo));
}
/* rcp.approx.ftz.f64 (PTX), which has no C spelling: 1 / x with the low 32
 * bits cleared, about 20 good bits, no better than the GPU's, so that the
 * Newton steps after it are tested. */
static inline double am_emu_rcp64_approx(double x) {
  return __hiloint2double(__double2hiint(1.0 / x), 0);
}

/* The resident worker's system-scope loads, stores, fence and clock
 * (kernel_source_resident.c's PTX) as the host's: the worker runs on a
 * thread of its own beside the host's threads, so these are real atomics,
 * and a load is a point where the warp's other fibers run. */
#define AM_HOST_EMULATION 1
static inline unsigned long long am_res_load(unsigned long long *w) {
  am_emu_yield();
  return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}
static inline void am_res_store(unsigned long long *w, unsigned long long v) {
  __atomic_store_n(w, v, __ATOMIC_RELEASE);
}
static inline void am_res_fence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
/* ld.global.cg: a load (no caches to skip here). */
template <class T>
static inline T __ldcg(const T *p) {
  return *p;
}
static inline unsigned long long am_res_now() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static void am_emu_fiber_main() {
  am_emu_block *b = am_emu_current;
  b->kernel(b->kernel_object);
  b->fibers[b->running].done = 1;
  am_emu_jump(b->scheduler);
}

/* Runs fiber t until it yields, waits or returns. */
__attribute__((noinline)) static void am_emu_resume(am_emu_block *b, int t) {
  am_emu_fiber *f = &b->fibers[t];
  b->running = t;
  threadIdx = {(unsigned)t, 0, 0};
  if (__builtin_setjmp(b->scheduler) != 0) return;
  if (f->started) am_emu_jump(f->resume);
  f->started = 1;
  ucontext_t from;
  swapcontext(&from, &f->context); /* never resumed: the fiber comes back by longjmp */
}

/* Runs the block's fibers until every one has returned. */
static inline void am_emu_schedule(int threads) {
  am_emu_block *b = am_emu_current;
  for (int live = threads; live > 0;) {
    int ran = 0;
    live = 0;
    for (int t = 0; t < threads; t++) {
      am_emu_fiber *f = &b->fibers[t];
      if (f->done) continue;
      live++;
      if (f->waits_on && f->waits_on->generation == f->waits_for) continue;
      f->waits_on = NULL;
      am_emu_resume(b, t);
      ran = 1;
    }
    if (live && !ran) {
      fprintf(stderr, "cuda_emu: block %u: %d threads wait at a barrier that cannot complete\n",
              blockIdx.x, live);
      abort();
    }
  }
}

/* Runs `kernel` over `blocks` blocks of `threads` threads, one block at a
 * time. */
template <class F>
static inline void am_emu_grid(int blocks, int threads, const F &kernel) {
  am_emu_block *b = am_emu_current;
  if (threads > AM_EMU_MAX_THREADS || threads % 32) abort();
  gridDim = {(unsigned)blocks, 1, 1};
  blockDim = {(unsigned)threads, 1, 1};
  b->kernel = [](const void *k) { (*(const F *)k)(); };
  b->kernel_object = &kernel;
  b->barrier = {0, 0, (unsigned)threads};
  for (int w = 0; w < threads / 32; w++) b->warps[w].barrier = {0, 0, 32};
  for (int x = 0; x < blocks; x++) {
    blockIdx = {(unsigned)x, 0, 0};
    for (int t = 0; t < threads; t++) {
      am_emu_fiber *f = &b->fibers[t];
      if (!f->stack && !(f->stack = (char *)malloc(AM_EMU_STACK))) abort();
      f->started = f->done = 0;
      f->waits_on = NULL;
      getcontext(&f->context);
      f->context.uc_stack.ss_sp = f->stack;
      f->context.uc_stack.ss_size = AM_EMU_STACK;
      f->context.uc_link = NULL;
      makecontext(&f->context, am_emu_fiber_main, 0);
    }
    am_emu_schedule(threads);
  }
}

/* The entry point of the shared object: the kernel over `blocks` blocks, its
 * argument block (am_gpu_args' layout) at `args`. */
#define AM_EMU_ENTRY(name)                                   \
  extern "C" void am_emu_run(int blocks, const void *args) { \
    Args a;                                                  \
    memcpy(&a, args, sizeof a);                              \
    am_emu_grid(blocks, AM_BLOCK, [&] { name(a); });         \
  }

/* The device math the kernels call: the C library's functions, each with
 * the float overload CUDA has calling C's float function (as <cmath>'s
 * does). Declared here, not by <cmath>: <cmath> and <functional> were 90%
 * of each kernel's 0.4 s compile, and the emulated tests compile hundreds.
 * A kernel calling a function missing here fails to compile, so the list
 * grows with the kernels. */
#define AM_EMU_MATH1(fn)                  \
  extern "C" double fn(double) noexcept;  \
  extern "C" float fn##f(float) noexcept; \
  static inline float fn(float x) { return fn##f(x); }
#define AM_EMU_MATH2(fn)                         \
  extern "C" double fn(double, double) noexcept; \
  extern "C" float fn##f(float, float) noexcept; \
  static inline float fn(float x, float y) { return fn##f(x, y); }
AM_EMU_MATH1(sin)
AM_EMU_MATH1(cos)
AM_EMU_MATH1(tan)
AM_EMU_MATH1(asin)
AM_EMU_MATH1(acos)
AM_EMU_MATH1(atan)
AM_EMU_MATH1(exp)
AM_EMU_MATH1(log)
AM_EMU_MATH1(log2)
AM_EMU_MATH1(log10)
AM_EMU_MATH1(log1p)
AM_EMU_MATH1(sqrt)
AM_EMU_MATH1(fabs)
AM_EMU_MATH1(floor)
AM_EMU_MATH1(ceil)
AM_EMU_MATH1(trunc)
AM_EMU_MATH1(round)
AM_EMU_MATH1(rint)
AM_EMU_MATH2(pow)
AM_EMU_MATH2(atan2)
extern "C" double fma(double, double, double) noexcept;
extern "C" float fmaf(float, float, float) noexcept;
static inline float fma(float x, float y, float z) { return fmaf(x, y, z); }
template <class T>
static inline bool isfinite(T x) {
  return __builtin_isfinite(x);
}
template <class T>
static inline bool signbit(T x) {
  return __builtin_signbit(x);
}
/* The products CUDA never contracts as plain products (the emulation is
 * compiled without FMA, so nothing contracts them here). */
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
/* The float reciprocal rounded to nearest (CUDA's __frcp_rn): IEEE's 1 / x. */
static inline float __frcp_rn(float x) { return 1.0f / x; }

#endif
