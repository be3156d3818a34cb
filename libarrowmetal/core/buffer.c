#include "buffer.h"

#include "memstats.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Under AddressSanitizer a cached block is poisoned until it is taken again,
 * so a use after free of a cached buffer is still caught. */
#if defined(__SANITIZE_ADDRESS__)
#define AM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AM_ASAN 1
#endif
#endif
#ifdef AM_ASAN
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

#if defined(__linux__)
#include <sys/mman.h>
#define AM_HAVE_MMAP 1
#else
#define AM_HAVE_MMAP 0
#endif

enum { AM_HOST_ALIGNMENT = 64 };

/* A freed host buffer of at least 64 KiB is kept in a small cache for the
 * next allocation of its size, instead of going back at once:
 *   - Large buffers (>= 2 MiB) are mapped, 2 MiB aligned with MADV_HUGEPAGE,
 *     in whole 2 MiB blocks: a fresh mapping costs a page fault per page on
 *     first touch, which for an element-wise kernel over a large array costs
 *     more than the kernel itself. An allocation takes the smallest cached
 *     block that is at least its size and at most twice it; at most 32
 *     blocks and 512 MiB are kept, the oldest unmapped first.
 *   - Smaller ones come from malloc and are reused only at their exact size
 *     (what their counters say stays what was asked for), at most 16 and 32
 *     MiB, the oldest given back to malloc first. Given back at once, a
 *     result of 125 KiB (xor of two 10^6-bit arrays) left more than 128 KiB
 *     free at the top of malloc's heap, which malloc returned to the system,
 *     and the next call faulted the pages in again: 4.9 us on average
 *     against a median of 3.5, clear_page a tenth of the profile. (Mapping
 *     these too cost more where sizes vary: every miss is fresh, zeroed
 *     pages, where malloc reuses its heap.)
 * The two caches are apart so that churning small results never evicts a
 * large block. Cached blocks count as am_host_memory's reserved bytes, live
 * ones as in use (core/memstats.h). */
#define CACHED_BLOCK ((size_t)64 << 10)
#define LARGE_BLOCK ((size_t)2 << 20)
#define MAX_ENTRIES 32

typedef struct cached_block {
  void *ptr;
  size_t bytes;
  uint64_t stamp; /* when it was freed: the oldest goes first */
} cached_block;

typedef struct block_cache {
  int max_entries;
  size_t max_bytes;
  size_t max_fit; /* a block serves a request of at least bytes / max_fit */
  void (*release)(void *ptr, size_t bytes);
  cached_block entry[MAX_ENTRIES];
  int count;
  size_t total;
} block_cache;

static void release_heap(void *ptr, size_t bytes) {
  (void)bytes;
  free(ptr);
}

static block_cache small_cache = {
    .max_entries = 16, .max_bytes = (size_t)32 << 20, .max_fit = 1, .release = release_heap};

#if AM_HAVE_MMAP
static void release_mapping(void *ptr, size_t bytes) { munmap(ptr, bytes); }

static block_cache large_cache = {
    .max_entries = 32, .max_bytes = (size_t)512 << 20, .max_fit = 2, .release = release_mapping};

static void *map_large(size_t bytes) {
  size_t span = bytes + LARGE_BLOCK;
  char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  char *start = (char *)(((uintptr_t)raw + LARGE_BLOCK - 1) & ~(uintptr_t)(LARGE_BLOCK - 1));
  if (start > raw) munmap(raw, (size_t)(start - raw));
  size_t tail = (size_t)(raw + span - (start + bytes));
  if (tail) munmap(start + bytes, tail);
#ifdef MADV_HUGEPAGE
  madvise(start, bytes, MADV_HUGEPAGE);
#endif
  return start;
}
#endif

/* One lock for both caches (and the clock). */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t cache_clock;

/* A fork while another thread holds the cache's lock would leave it held
 * for good in the child (Python's multiprocessing forks by default on
 * Linux): the lock is held across fork(), so both sides start unlocked. */
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void lock_cache(void) { pthread_mutex_lock(&cache_lock); }
static void unlock_cache(void) { pthread_mutex_unlock(&cache_lock); }
static void watch_fork(void) { pthread_atfork(lock_cache, unlock_cache, unlock_cache); }

/* A cached block for `*bytes` from `c` (see block_cache.max_fit); *bytes
 * becomes the block's real size, which is what must be cached or released
 * later. NULL when none fits. */
static void *take_cached(block_cache *c, size_t *bytes) {
  void *ptr = NULL;
  size_t wanted = *bytes;
  pthread_once(&fork_once, watch_fork);
  pthread_mutex_lock(&cache_lock);
  int best = -1;
  for (int i = 0; i < c->count; i++)
    if (c->entry[i].bytes >= wanted && c->entry[i].bytes <= c->max_fit * wanted &&
        (best < 0 || c->entry[i].bytes < c->entry[best].bytes))
      best = i;
  if (best >= 0) {
    ptr = c->entry[best].ptr;
    *bytes = c->entry[best].bytes;
    ASAN_UNPOISON_MEMORY_REGION(ptr, *bytes);
    c->total -= c->entry[best].bytes;
    am_mem_reserve(&am_host_memory, -(int64_t)c->entry[best].bytes);
    c->entry[best] = c->entry[--c->count];
  }
  pthread_mutex_unlock(&cache_lock);
  return ptr;
}

/* Keeps a freed block in `c`, giving back the oldest ones as needed. */
static void keep_cached(block_cache *c, void *ptr, size_t bytes) {
  cached_block gone[MAX_ENTRIES + 1];
  int count = 0;
  if (bytes > c->max_bytes) {
    gone[count++] = (cached_block){ptr, bytes, 0};
  } else {
    pthread_mutex_lock(&cache_lock);
    while (c->count == c->max_entries || c->total + bytes > c->max_bytes) {
      int oldest = 0;
      for (int i = 1; i < c->count; i++)
        if (c->entry[i].stamp < c->entry[oldest].stamp) oldest = i;
      gone[count++] = c->entry[oldest];
      c->total -= c->entry[oldest].bytes;
      am_mem_reserve(&am_host_memory, -(int64_t)c->entry[oldest].bytes);
      c->entry[oldest] = c->entry[--c->count];
    }
    ASAN_POISON_MEMORY_REGION(ptr, bytes);
    c->entry[c->count++] = (cached_block){ptr, bytes, ++cache_clock};
    c->total += bytes;
    am_mem_reserve(&am_host_memory, (int64_t)bytes);
    pthread_mutex_unlock(&cache_lock);
  }
  for (int i = 0; i < count; i++) {
    ASAN_UNPOISON_MEMORY_REGION(gone[i].ptr, gone[i].bytes); /* was cached, or is the new one */
    c->release(gone[i].ptr, gone[i].bytes);
  }
}

/* context: the bytes allocated, as counted. */
static void free_host(am_buffer *buffer) {
  am_mem_free(&am_host_memory, (int64_t)(size_t)buffer->context);
  free(buffer->ptr);
  free(buffer);
}

/* A freed buffer whose block goes to cache `c` (context: its bytes). */
static void free_into(am_buffer *buffer, block_cache *c) {
  size_t bytes = (size_t)buffer->context;
  am_mem_free(&am_host_memory, (int64_t)bytes);
  keep_cached(c, buffer->ptr, bytes);
  free(buffer);
}

static void free_cached_small(am_buffer *buffer) { free_into(buffer, &small_cache); }

#if AM_HAVE_MMAP
static void free_cached_large(am_buffer *buffer) { free_into(buffer, &large_cache); }
#endif

am_buffer *am_buffer_alloc_host(int64_t size) {
  am_buffer *buffer = malloc(sizeof *buffer);
  if (!buffer) return NULL;
  /* Round up so the allocation is never zero bytes and whole 64-bit bitmap
   * words can always be read past a short tail. */
  if (size < 0 || size > AM_MAX_HOST_BYTES) {
    free(buffer);
    return NULL;
  }
  size_t bytes = ((size_t)size + 2 * AM_HOST_ALIGNMENT - 1) & ~(size_t)(AM_HOST_ALIGNMENT - 1);
  void *ptr = NULL;
  am_buffer_free_fn free_fn = free_host;
#if AM_HAVE_MMAP
  if (bytes >= LARGE_BLOCK) {
    bytes = (bytes + LARGE_BLOCK - 1) & ~(LARGE_BLOCK - 1);
    ptr = take_cached(&large_cache, &bytes); /* may be larger: it goes back whole */
    if (!ptr) ptr = map_large(bytes);
    if (!ptr) {
      free(buffer);
      return NULL;
    }
    free_fn = free_cached_large;
  }
#endif
  if (!ptr && bytes >= CACHED_BLOCK) {
    ptr = take_cached(&small_cache, &bytes);
    free_fn = free_cached_small;
  }
  if (!ptr && posix_memalign(&ptr, AM_HOST_ALIGNMENT, bytes) != 0) {
    free(buffer);
    return NULL;
  }
  am_mem_alloc(&am_host_memory, (int64_t)bytes);
  atomic_init(&buffer->refs, 1);
  buffer->ptr = ptr;
  buffer->size = size;
  buffer->context = (void *)bytes;
  buffer->free_fn = free_fn;
  return buffer;
}

am_buffer *am_buffer_wrap(void *ptr, int64_t size, void *context, am_buffer_free_fn free_fn) {
  am_buffer *buffer = malloc(sizeof *buffer);
  if (!buffer) return NULL;
  atomic_init(&buffer->refs, 1);
  buffer->ptr = ptr;
  buffer->size = size;
  buffer->context = context;
  buffer->free_fn = free_fn;
  return buffer;
}

void am_buffer_free_shell(am_buffer *buffer) { free(buffer); }

void am_buffer_release(am_buffer *buffer) {
  if (!buffer) return;
  if (atomic_fetch_sub_explicit(&buffer->refs, 1, memory_order_acq_rel) == 1)
    buffer->free_fn(buffer);
}
