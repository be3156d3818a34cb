/* Reference-counted memory shared between array handles and exports.
 *
 * A buffer is one allocation on one device, or a keeper of memory someone
 * else owns (an imported ArrowArray). Slices, exports and results that reuse
 * an input's validity bitmap take a reference instead of copying. */
#ifndef AM_CORE_BUFFER_H
#define AM_CORE_BUFFER_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct am_buffer am_buffer;
typedef void (*am_buffer_free_fn)(am_buffer *buffer);

struct am_buffer {
  atomic_long refs;
  void *ptr;     /* start of the memory (device address on a GPU) */
  int64_t size;  /* bytes; 0 for keepers of foreign memory */
  void *context; /* free_fn's state: a moved ArrowArray, a device, ... */
  am_buffer_free_fn free_fn;
};

/* Larger requests are refused (as out of memory) before any size arithmetic
 * can overflow. */
#define AM_MAX_HOST_BYTES ((int64_t)1 << 56)

/* A host allocation of `size` bytes aligned to 64, refs = 1; NULL when out of
 * memory or `size` is negative or above AM_MAX_HOST_BYTES. The contents are
 * uninitialised. */
am_buffer *am_buffer_alloc_host(int64_t size);

/* A buffer whose memory belongs to someone else: free_fn(buffer) runs once
 * when the last reference goes, and must free `buffer` itself with
 * am_buffer_free_shell(). */
am_buffer *am_buffer_wrap(void *ptr, int64_t size, void *context, am_buffer_free_fn free_fn);
void am_buffer_free_shell(am_buffer *buffer);

static inline am_buffer *am_buffer_retain(am_buffer *buffer) {
  if (buffer) atomic_fetch_add_explicit(&buffer->refs, 1, memory_order_relaxed);
  return buffer;
}

void am_buffer_release(am_buffer *buffer);

#endif
