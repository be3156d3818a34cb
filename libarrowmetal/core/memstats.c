#include "memstats.h"

#include <stdlib.h>
#include <string.h>

#include "buffer.h"

am_mem_counters am_host_memory;

/* in_use moves by `bytes`, the allocation counts by `allocations`. */
static void count(am_mem_counters *counters, int64_t bytes, int allocations) {
  long long now = atomic_fetch_add_explicit(&counters->in_use, bytes, memory_order_relaxed) + bytes;
  if (allocations) {
    atomic_fetch_add_explicit(&counters->live, allocations, memory_order_relaxed);
    atomic_fetch_add_explicit(&counters->total, allocations, memory_order_relaxed);
  }
  /* Every value in_use takes is the result of one fetch_add, and that one
   * caller raises the peak to it: the peak is the exact maximum. */
  long long peak = atomic_load_explicit(&counters->peak, memory_order_relaxed);
  while (now > peak &&
         !atomic_compare_exchange_weak_explicit(&counters->peak, &peak, now, memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
}

void am_mem_alloc(am_mem_counters *counters, int64_t bytes) { count(counters, bytes, 1); }

void am_mem_free(am_mem_counters *counters, int64_t bytes) {
  atomic_fetch_sub_explicit(&counters->in_use, bytes, memory_order_relaxed);
  atomic_fetch_sub_explicit(&counters->live, 1, memory_order_relaxed);
}

void am_mem_reserve(am_mem_counters *counters, int64_t bytes) {
  atomic_fetch_add_explicit(&counters->reserved, bytes, memory_order_relaxed);
}

void am_mem_reset_peak(am_mem_counters *counters) {
  atomic_store_explicit(&counters->peak,
                        atomic_load_explicit(&counters->in_use, memory_order_relaxed),
                        memory_order_relaxed);
}

/* The header: the size asked for, then the host buffer holding the block
 * (NULL for malloc'd ones). Large blocks come from am_buffer_alloc_host,
 * whose cache keeps freed ones mapped: malloc maps each block above its
 * threshold (32 MB at most) afresh, and a join or group-by over 10M rows
 * then spent a quarter of its time in the kernel's page faults. */
enum { HEADER = 16 };
#define LARGE_SCRATCH ((int64_t)4 << 20)

static void *scratch_large(int64_t bytes) {
  am_buffer *buffer = am_buffer_alloc_host(bytes + HEADER); /* counted by buffer.c */
  if (!buffer) return NULL;
  char *block = buffer->ptr;
  *(int64_t *)block = bytes;
  *(am_buffer **)(block + 8) = buffer;
  return block + HEADER;
}

void *am_scratch_alloc(int64_t bytes) {
  if (bytes < 0 || (uint64_t)bytes > SIZE_MAX - HEADER) return NULL;
  if (bytes >= LARGE_SCRATCH) return scratch_large(bytes);
  char *block = malloc((size_t)bytes + HEADER);
  if (!block) return NULL;
  *(int64_t *)block = bytes;
  *(am_buffer **)(block + 8) = NULL;
  am_mem_alloc(&am_host_memory, bytes);
  return block + HEADER;
}

void *am_scratch_realloc(void *ptr, int64_t bytes) {
  if (!ptr) return am_scratch_alloc(bytes);
  if (bytes < 0 || (uint64_t)bytes > SIZE_MAX - HEADER) return NULL;
  char *block = (char *)ptr - HEADER;
  int64_t old = *(int64_t *)block;
  if (*(am_buffer **)(block + 8) || bytes >= LARGE_SCRATCH) {
    /* to or from a host buffer: a new block and a copy */
    char *moved = am_scratch_alloc(bytes);
    if (!moved) return NULL;
    memcpy(moved, ptr, (size_t)(old < bytes ? old : bytes));
    am_scratch_free(ptr);
    return moved;
  }
  char *grown = realloc(block, (size_t)bytes + HEADER);
  if (!grown) return NULL;
  *(int64_t *)grown = bytes;
  /* One allocation that changed size: in_use moves by the difference, the
   * allocation counts do not. */
  count(&am_host_memory, bytes - old, 0);
  return grown + HEADER;
}

void am_scratch_free(void *ptr) {
  if (!ptr) return;
  char *block = (char *)ptr - HEADER;
  am_buffer *buffer = *(am_buffer **)(block + 8);
  if (buffer) {
    am_buffer_release(buffer);
    return;
  }
  am_mem_free(&am_host_memory, *(int64_t *)block);
  free(block);
}
