/* Counters of the memory the library allocates, one set per device (issue
 * #15, "Memory"): what am_memory_info reports.
 *
 * Every allocation of array data, of device storage for scalars and of
 * scratch sized by the data is counted where it is made and uncounted where
 * it is freed, with the same byte count (what was asked of the allocator or
 * driver after the library's own rounding). Memory the library keeps on
 * purpose for reuse or for the device's life (the host block cache, a GPU
 * device's scratch area, status blocks, pinned staging, Metal's buffer pool)
 * is `reserved`, not in use, so that "in use" returns to its baseline once
 * every result is released. Fixed-size bookkeeping (array handles, tickets,
 * batch records, the kernel table) is not counted.
 *
 * Host memory has one set of counters for the process (am_host_memory, the
 * CPU device's): a GPU backend's downloads are host buffers and count there.
 * Lock-free: relaxed atomics, one add per allocation and one per free, and a
 * compare-and-swap only while the peak moves. */
#ifndef AM_CORE_MEMSTATS_H
#define AM_CORE_MEMSTATS_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct am_mem_counters {
  atomic_llong in_use;   /* bytes of live counted allocations */
  atomic_llong peak;     /* the largest in_use since the start or the last reset */
  atomic_llong reserved; /* bytes kept on purpose (pools, caches, staging) */
  atomic_llong live;     /* counted allocations not yet freed */
  atomic_llong total;    /* counted allocations ever made */
} am_mem_counters;

/* The host's counters: every host allocation of array data and scratch. */
extern am_mem_counters am_host_memory;

/* `bytes` more in use (one more allocation); the peak follows. */
void am_mem_alloc(am_mem_counters *counters, int64_t bytes);
/* `bytes` fewer in use (one allocation freed). */
void am_mem_free(am_mem_counters *counters, int64_t bytes);
/* Reserved memory grows (bytes > 0) or shrinks (bytes < 0). */
void am_mem_reserve(am_mem_counters *counters, int64_t bytes);
/* The peak becomes the bytes in use now. */
void am_mem_reset_peak(am_mem_counters *counters);

/* Counted host scratch (kernel work areas sized by the data): malloc /
 * realloc / free that count on am_host_memory. A 16-byte header holds the
 * size, so the result is aligned as malloc's for every element type the
 * kernels use. am_scratch_free(NULL) does nothing; am_scratch_realloc keeps
 * the old block on failure, as realloc. */
void *am_scratch_alloc(int64_t bytes);
void *am_scratch_realloc(void *ptr, int64_t bytes);
void am_scratch_free(void *ptr);

#endif
