/* Page-locked host buffers for large downloads, kept for reuse.
 *
 * Why: a copy into pageable memory goes through the driver's own staging
 * and, on the H200's host, moved about 8 GB/s; 1M groups of value_counts
 * (two 8 MB columns) spent twice as long coming home as being counted. Into
 * page-locked memory the DMA writes the destination directly, at the link's
 * speed. Pinning is slow (cuMemHostAlloc of 8 MB costs more than the copy),
 * so a freed block goes back to a small cache for the next download of a
 * similar size, as PyTorch's caching host allocator keeps its pinned blocks.
 * The primary context is retained for the process's life (device.c), so a
 * block outlives nothing it depends on.
 *
 * Counting (core/memstats.h): a block in a live array is host memory in use
 * (am_host_memory, with the bytes pinned); a cached one is reserved. The
 * cache takes the smallest block that is at least the size asked and at most
 * twice it; it holds at most CACHED_BLOCKS blocks and CACHED_BYTES in all and
 * frees the oldest beyond that. Thread-safe: a result's last reference may go
 * on any thread. */
#include <stdlib.h>

#include "core/memstats.h"
#include "cuda.h"

#define BLOCK_ROUND ((size_t)2 << 20)
#define CACHED_BLOCKS 16
#define CACHED_BYTES ((size_t)256 << 20)

typedef struct cached_block {
  void *ptr;
  size_t bytes;
  uint64_t stamp; /* when it was freed: the oldest goes first */
} cached_block;

struct am_cuda_pinned_pool {
  pthread_mutex_t lock;
  cached_block blocks[CACHED_BLOCKS];
  int count;
  size_t total;
  uint64_t clock;
};

/* The free callback's state: the pool and the block's real size. */
typedef struct pinned_block {
  am_cuda_device *cuda;
  size_t bytes;
} pinned_block;

int am_cuda_pinned_pool_init(am_cuda_device *cuda) {
  am_cuda_pinned_pool *pool = calloc(1, sizeof *pool);
  if (!pool) return 0;
  pthread_mutex_init(&pool->lock, NULL);
  cuda->pinned = pool;
  return 1;
}

static void free_host_block(am_cuda_device *cuda, void *ptr) {
  int pushed = am_cuda_enter(cuda);
  cuda->cu->cuMemFreeHost(ptr);
  am_cuda_leave(cuda, pushed);
}

static void *take_cached(am_cuda_pinned_pool *pool, size_t *bytes) {
  void *ptr = NULL;
  pthread_mutex_lock(&pool->lock);
  int best = -1;
  for (int i = 0; i < pool->count; i++)
    if (pool->blocks[i].bytes >= *bytes && pool->blocks[i].bytes <= 2 * *bytes &&
        (best < 0 || pool->blocks[i].bytes < pool->blocks[best].bytes))
      best = i;
  if (best >= 0) {
    ptr = pool->blocks[best].ptr;
    *bytes = pool->blocks[best].bytes;
    pool->total -= *bytes;
    am_mem_reserve(&am_host_memory, -(int64_t)*bytes);
    pool->blocks[best] = pool->blocks[--pool->count];
  }
  pthread_mutex_unlock(&pool->lock);
  return ptr;
}

static void give_back(am_buffer *buffer) {
  pinned_block *block = buffer->context;
  am_cuda_device *cuda = block->cuda;
  am_cuda_pinned_pool *pool = cuda->pinned;
  void *ptr = buffer->ptr;
  size_t bytes = block->bytes;
  free(block);
  am_buffer_free_shell(buffer);
  am_mem_free(&am_host_memory, (int64_t)bytes);
  void *evicted[CACHED_BLOCKS + 1];
  int n_evicted = 0;
  if (bytes > CACHED_BYTES) {
    evicted[n_evicted++] = ptr;
  } else {
    pthread_mutex_lock(&pool->lock);
    while (pool->count == CACHED_BLOCKS || pool->total + bytes > CACHED_BYTES) {
      int oldest = 0;
      for (int i = 1; i < pool->count; i++)
        if (pool->blocks[i].stamp < pool->blocks[oldest].stamp) oldest = i;
      evicted[n_evicted++] = pool->blocks[oldest].ptr;
      pool->total -= pool->blocks[oldest].bytes;
      am_mem_reserve(&am_host_memory, -(int64_t)pool->blocks[oldest].bytes);
      pool->blocks[oldest] = pool->blocks[--pool->count];
    }
    pool->blocks[pool->count++] = (cached_block){ptr, bytes, ++pool->clock};
    pool->total += bytes;
    am_mem_reserve(&am_host_memory, (int64_t)bytes);
    pthread_mutex_unlock(&pool->lock);
  }
  for (int i = 0; i < n_evicted; i++) free_host_block(cuda, evicted[i]);
}

am_buffer *am_cuda_pinned_alloc(am_cuda_device *cuda, int64_t size) {
  if (!cuda->pinned || size <= 0) return NULL;
  size_t bytes = ((size_t)size + BLOCK_ROUND - 1) & ~(BLOCK_ROUND - 1);
  pinned_block *block = malloc(sizeof *block);
  if (!block) return NULL;
  void *ptr = take_cached(cuda->pinned, &bytes);
  if (!ptr) {
    int pushed = am_cuda_enter(cuda);
    CUresult result = cuda->cu->cuMemHostAlloc(&ptr, bytes, CU_MEMHOSTALLOC_PORTABLE);
    am_cuda_leave(cuda, pushed);
    if (result != CUDA_SUCCESS) ptr = NULL;
  }
  am_buffer *buffer = ptr ? am_buffer_wrap(ptr, size, block, give_back) : NULL;
  if (!buffer) {
    if (ptr) free_host_block(cuda, ptr);
    free(block);
    return NULL;
  }
  *block = (pinned_block){cuda, bytes};
  am_mem_alloc(&am_host_memory, (int64_t)bytes);
  return buffer;
}
