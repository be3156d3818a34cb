/* A CPU emulation of the CUDA that the kernel source emits, for checking the
 * kernels' logic where there is no GPU (gpu/test_nulls_kernels.py).
 *
 * A generated CUDA kernel is compiled as C++ after this header, and then
 * AM_EMU_ENTRY(name). Every GPU thread of a block is an OS thread; blocks
 * run one after another. __syncthreads() is a barrier of the block's
 * threads; the warp operations (ballot, shuffles) a write of each lane's
 * value, a barrier of the warp's 32 threads, the reads, and a second
 * barrier: so every lane must reach them together, as on the GPU. Atomics
 * are the host's. What this cannot show: anything about the GPU's memory
 * model (every write here is visible at the next barrier) or its speed. */
#ifndef AM_GPU_CUDA_EMU_H
#define AM_GPU_CUDA_EMU_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <functional>
#include <thread>
#include <vector>

struct am_emu_dim3 {
  unsigned x, y, z;
};

static thread_local am_emu_dim3 threadIdx;
static thread_local am_emu_dim3 blockIdx;
static am_emu_dim3 gridDim;
static am_emu_dim3 blockDim;

struct am_emu_warp {
  pthread_barrier_t barrier;
  uint64_t slot[32];
};

struct am_emu_block {
  pthread_barrier_t barrier;
  am_emu_warp warps[32];
};

static am_emu_block *am_emu_current;

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(a, b)
#define __shared__ static

static inline void __syncthreads() { pthread_barrier_wait(&am_emu_current->barrier); }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
/* A barrier of the caller's warp (every lane must reach it, as the kernels
 * call it). */
static inline void __syncwarp(unsigned mask = 0xffffffffu) {
  (void)mask;
  pthread_barrier_wait(&am_emu_current->warps[threadIdx.x >> 5].barrier);
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
  pthread_barrier_wait(&w->barrier);
  uint64_t got = src >= 0 && src < 32 ? w->slot[src] : bits;
  pthread_barrier_wait(&w->barrier);
  T r;
  memcpy(&r, &got, sizeof r);
  return r;
}

static inline unsigned __ballot_sync(unsigned mask, int p) {
  (void)mask;
  unsigned tid = threadIdx.x;
  am_emu_warp *w = &am_emu_current->warps[tid >> 5];
  w->slot[tid & 31u] = p != 0;
  pthread_barrier_wait(&w->barrier);
  unsigned r = 0;
  for (int l = 0; l < 32; l++) r |= (unsigned)w->slot[l] << l;
  pthread_barrier_wait(&w->barrier);
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
  pthread_barrier_wait(&w->barrier);
  unsigned r = 0;
  for (int l = 0; l < 32; l++) r |= (unsigned)(w->slot[l] == v) << l;
  pthread_barrier_wait(&w->barrier);
  return r;
}

static inline unsigned __popc(unsigned x) { return (unsigned)__builtin_popcount(x); }
static inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
static inline unsigned atomicOr(unsigned *p, unsigned v) {
  return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned atomicAdd(unsigned *p, unsigned v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v) {
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
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (v > old &&
         !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
static inline unsigned atomicCAS(unsigned *p, unsigned expected, unsigned v) {
  __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long expected,
                                           unsigned long long v) {
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

/* Runs `kernel` over `blocks` blocks of `threads` threads, one block at a
 * time. */
static inline void am_emu_grid(int blocks, int threads, const std::function<void()> &kernel) {
  static am_emu_block block;
  am_emu_current = &block;
  gridDim = {(unsigned)blocks, 1, 1};
  blockDim = {(unsigned)threads, 1, 1};
  pthread_barrier_init(&block.barrier, NULL, (unsigned)threads);
  for (int w = 0; w < threads / 32; w++) pthread_barrier_init(&block.warps[w].barrier, NULL, 32);
  for (int b = 0; b < blocks; b++) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
      pool.emplace_back([&, b, t] {
        blockIdx = {(unsigned)b, 0, 0};
        threadIdx = {(unsigned)t, 0, 0};
        kernel();
      });
    for (auto &thread : pool) thread.join();
  }
  for (int w = 0; w < threads / 32; w++) pthread_barrier_destroy(&block.warps[w].barrier);
  pthread_barrier_destroy(&block.barrier);
}

/* The entry point of the shared object: the kernel over `blocks` blocks, its
 * argument block (am_gpu_args' layout) at `args`. */
#define AM_EMU_ENTRY(name)                                   \
  extern "C" void am_emu_run(int blocks, const void *args) { \
    Args a;                                                  \
    memcpy(&a, args, sizeof a);                              \
    am_emu_grid(blocks, AM_BLOCK, [&] { name(a); });         \
  }

/* The device math the round kernels use: C's functions, and
 * the products CUDA never contracts as plain products (the emulation is
 * compiled without FMA, so nothing contracts them here). */
#include <cmath>
using std::isfinite;
using std::signbit;
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline double __dmul_rn(double a, double b) { return a * b; }

#endif
