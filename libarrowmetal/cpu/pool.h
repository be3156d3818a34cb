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

/* The number of parts for a kernel over n bits of bitmaps (logic,
 * is_null): a bit is far less work than a slot of a wide type, so two
 * threads pay only from 786,432 bits at the default threshold. Measured
 * from Python on a 2-core VM since the caller keeps part 0 (am_pool_run),
 * medians us, two threads against one: xor of two 10^6-bit arrays 3.5-3.7
 * against 3.8-4.1, 2 * 10^6 bits 5.1-5.3 against 5.8-6.5; at 600,000 bits
 * and below, no gain (xor 2.5-2.9 against 2.4-2.7, is_null the same). (The
 * caller used to race the workers for part 0; then one call in ten of xor
 * over 10^6 bits took 12 us instead of 3, and two threads paid only from
 * 2^21 bits.) Kleene ops over nulls do several times a plain op's work a
 * bit and split by am_pool_parts(bits). */
static inline int am_pool_bit_parts(int64_t bits) { return am_pool_parts(bits / 6); }

/* Runs fn(ctx, part) for each part in [0, parts) and returns when every one
 * has finished. Part 0 is the caller's; the others are claimed, by the
 * workers and by the caller once its own is done: a worker that is late
 * (asleep, or on a core another process holds) leaves its part to the
 * others instead of holding up the join. */
void am_pool_run(int parts, void (*fn)(void *ctx, int part), void *ctx);

/* Slots [*begin, *end) of part `part` of n: boundaries are multiples of 64,
 * so parts write whole words of an offset-0 bitmap. */
static inline void am_pool_range(int64_t n, int parts, int part, int64_t *begin, int64_t *end) {
  int64_t words = (n + 63) / 64;
  int64_t b = words * part / parts * 64, e = words * (part + 1) / parts * 64;
  *begin = b < n ? b : n;
  *end = e < n ? e : n;
}

/* Runs fn(ctx, begin, end) over ranges that together cover [0, n) once, for a
 * kernel writing `width` (1, 2, 4 or 8) bytes a slot: on the calling thread
 * alone below the parallel threshold, else in chunks spread over the pool.
 * Chunks are whole multiples of 64 slots, so they start on 64 bytes of output
 * and on bitmap words, and hold at least AM_SWEEP_CHUNK bytes of output and a
 * 64th of a part.
 *
 * - Each part takes the chunks of its am_pool_range first. Up to
 *   AM_SWEEP_TURN_MAX bytes of output, each sweep runs them in the order
 *   opposite to the previous one's: when a kernel returns, the lines its
 *   threads touched last are still in their cores' L2, and the next kernel
 *   commonly touches the same addresses (it reads that output, or the same
 *   inputs, or writes a recycled output buffer: core/buffer.c); sweeping back
 *   it meets them first instead of fetching them again. Part p runs on the
 *   same thread every time, so each core meets its own lines.
 * - A part that runs out takes the chunks other parts have not reached, so a
 *   thread slowed down (colder caches, a busy core) does not hold up the
 *   join.
 *
 * At a million int64 slots the two took add from about 285 us to 235 us on
 * two cores. Neither can change a result: chunks are independent. */
void am_pool_sweep(int64_t n, int64_t width, void (*fn)(void *ctx, int64_t begin, int64_t end),
                   void *ctx);
#define AM_SWEEP_CHUNK ((int64_t)64 << 10)
/* Turning back pays while a part's share is a few times its core's L2: on
 * two cores with 2 MiB of L2 each, int64 add gained 15% at 8 MiB of output,
 * 9% at 16 MiB and nothing at 32 MiB. Past that, where data comes from
 * memory, running chunks in descending order costs the prefetchers: 4% at
 * 60 MiB, 8% at 400 MiB. */
#define AM_SWEEP_TURN_MAX ((int64_t)16 << 20)

/* Outputs at least this large are written with non-temporal stores: computed
 * a block at a time into a buffer in L1, then streamed out, which saves
 * reading each output line from memory before writing it (a third of an
 * element-wise kernel's traffic) and leaves the caches alone. Smaller outputs
 * stay in the caches, where the next kernel finds them. */
#define AM_STREAM_MIN ((int64_t)64 << 20)
#define AM_STREAM_BLOCK 8192 /* bytes of output computed per block */

/* Copies `bytes` (a multiple of 64) from src to dst (64-byte aligned) with
 * non-temporal stores, or plainly where there are none. */
void am_stream_copy(void *dst, const void *src, int64_t bytes);
/* Orders the streamed stores before a part reports that it is done. */
void am_stream_fence(void);

#endif
