#include "buffer.h"

#include <stdlib.h>

enum { AM_HOST_ALIGNMENT = 64 };

static void free_host(am_buffer *buffer) {
  free(buffer->ptr);
  free(buffer);
}

am_buffer *am_buffer_alloc_host(int64_t size) {
  am_buffer *buffer = malloc(sizeof *buffer);
  if (!buffer) return NULL;
  /* Round up so the allocation is never zero bytes and whole 64-bit bitmap
   * words can always be read past a short tail. */
  size_t bytes = ((size_t)(size > 0 ? size : 0) + 2 * AM_HOST_ALIGNMENT - 1) &
                 ~(size_t)(AM_HOST_ALIGNMENT - 1);
  void *ptr = NULL;
  if (posix_memalign(&ptr, AM_HOST_ALIGNMENT, bytes) != 0) {
    free(buffer);
    return NULL;
  }
  atomic_init(&buffer->refs, 1);
  buffer->ptr = ptr;
  buffer->size = size;
  buffer->context = NULL;
  buffer->free_fn = free_host;
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
