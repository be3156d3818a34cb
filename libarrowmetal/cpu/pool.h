/* The CPU backend's worker pool: fork-join over a few parts of one kernel.
 *
 * Kernels over at least am_pool_min() slots (ARROWMETAL_PARALLEL_MIN, default
 * 131072) split their slots into am_pool_parts() ranges, which run on
 * nproc - 1 persistent workers and the calling thread (ARROWMETAL_THREADS
 * caps the total; 1 turns the pool off). Workers start on the first parallel
 * call, spin briefly after each job and then sleep. One fork-join runs at a
 * time: a caller that finds the pool busy (another thread's kernel) runs
 * every part itself, so results never depend on who ran a part. */
#ifndef AM_CPU_POOL_H
#define AM_CPU_POOL_H

#include <stdint.h>

/* The number of parts to split n slots into: 1 when n is below the threshold
 * or the pool is off. */
int am_pool_parts(int64_t n);

/* Runs fn(ctx, part) for each part in [0, parts) and returns when every one
 * has finished. */
void am_pool_run(int parts, void (*fn)(void *ctx, int part), void *ctx);

/* Slots [*begin, *end) of part `part` of n: boundaries are multiples of 64,
 * so parts write whole words of an offset-0 bitmap. */
static inline void am_pool_range(int64_t n, int parts, int part, int64_t *begin, int64_t *end) {
  int64_t words = (n + 63) / 64;
  int64_t b = words * part / parts * 64, e = words * (part + 1) / parts * 64;
  *begin = b < n ? b : n;
  *end = e < n ? e : n;
}

/* Outputs at least this large are written with non-temporal stores: computed
 * a block at a time into a buffer in L1, then streamed out, which saves
 * reading each output line from memory before writing it (a third of an
 * element-wise kernel's traffic) and leaves the caches alone. Smaller outputs
 * stay in the caches, where the next kernel finds them. */
#define AM_STREAM_MIN ((int64_t)64 << 20)
#define AM_STREAM_BLOCK 8192 /* bytes computed per block */

/* Copies `bytes` (a multiple of 64) from src to dst (64-byte aligned) with
 * non-temporal stores, or plainly where there are none. */
void am_stream_copy(void *dst, const void *src, int64_t bytes);
/* Orders the streamed stores before a part reports that it is done. */
void am_stream_fence(void);

#endif
