#include "array.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "error.h"
#include "types.h"

am_array *am_array_make(am_device *device, am_type type, int64_t length, int64_t offset,
                        int64_t null_count, am_buffer *validity_buf, const uint8_t *validity,
                        am_buffer *data_buf, const void *data) {
  am_array *array = malloc(sizeof *array);
  if (!array) {
    am_buffer_release(validity_buf);
    am_buffer_release(data_buf);
    return NULL;
  }
  array->device = device;
  array->type = type;
  array->length = length;
  array->offset = offset;
  atomic_init(&array->null_count, null_count);
  array->validity = validity;
  array->data = data;
  array->validity_buf = validity_buf;
  array->data_buf = data_buf;
  atomic_init(&array->pending, NULL);
  array->dictionary = NULL;
  array->dictionary_ordered = 0;
  array->fields = NULL;
  array->timezone = NULL;
  array->bytes = NULL;
  array->bytes_buf = NULL;
  array->bytes_size = 0;
  array->byte_width = 0;
  array->precision = 0;
  array->scale = 0;
  array->variadic = NULL;
  return array;
}

am_variadic *am_variadic_alloc(int64_t count) {
  if (count < 0 || count > ((int64_t)1 << 40)) return NULL;
  size_t n = (size_t)count;
  /* one block: the header, then the addresses, sizes and owners */
  am_variadic *v =
      calloc(1, sizeof *v + n * (sizeof *v->data + sizeof *v->sizes + sizeof *v->owners));
  if (!v) return NULL;
  atomic_init(&v->refs, 1);
  v->count = count;
  v->data = (const uint8_t **)(v + 1);
  v->sizes = (int64_t *)(v->data + n);
  v->owners = (am_buffer **)(v->sizes + n);
  return v;
}

void am_variadic_release(am_variadic *variadic) {
  if (!variadic || atomic_fetch_sub_explicit(&variadic->refs, 1, memory_order_acq_rel) != 1) return;
  for (int64_t k = 0; k < variadic->count; k++) am_buffer_release(variadic->owners[k]);
  free(variadic);
}

am_array *am_array_share(const am_array *array) {
  am_array *shared = am_array_make(array->device, array->type, array->length, array->offset,
                                   atomic_load_explicit(&array->null_count, memory_order_relaxed),
                                   am_buffer_retain(array->validity_buf), array->validity,
                                   am_buffer_retain(array->data_buf), array->data);
  if (shared) {
    shared->timezone = array->timezone;
    shared->bytes = array->bytes;
    shared->bytes_buf = am_buffer_retain(array->bytes_buf);
    shared->bytes_size = array->bytes_size;
    shared->byte_width = array->byte_width;
    shared->precision = array->precision;
    shared->scale = array->scale;
    shared->dictionary_ordered = array->dictionary_ordered;
    shared->variadic = am_variadic_retain(array->variadic);
  }
  if (shared && array->dictionary && !(shared->dictionary = am_array_share(array->dictionary))) {
    am_array_free(shared);
    return NULL;
  }
  if (shared && array->fields && !(shared->fields = am_struct_fields_share(array->fields))) {
    am_array_free(shared);
    return NULL;
  }
  return shared;
}

int am_array_alloc_host(am_err *err, am_device *device, am_type type, int64_t length,
                        int with_validity, am_array **out) {
  if (length < 0 || length > AM_MAX_LENGTH)
    return am_fail(err, AM_EINVAL, "length %lld is outside 0 to 2^52", (long long)length);
  am_buffer *data = am_buffer_alloc_host(am_type_bytes(type, length));
  am_buffer *validity = with_validity ? am_buffer_alloc_host((length + 7) / 8) : NULL;
  if (!data || (with_validity && !validity)) {
    am_buffer_release(data);
    am_buffer_release(validity);
    return am_fail(err, AM_ENOMEM, "out of memory allocating %lld slots of %s", (long long)length,
                   am_type_name(type));
  }
  am_array *array = am_array_make(device, type, length, 0, with_validity ? -1 : 0, validity,
                                  validity ? validity->ptr : NULL, data, data->ptr);
  if (!array) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = array;
  return AM_OK;
}

void am_array_free(am_array *array) {
  if (!array) return;
  struct am_pending *pending = am_array_pending(array);
  if (pending) pending->destroy(pending);
  am_buffer_release(array->validity_buf);
  am_buffer_release(array->data_buf);
  am_buffer_release(array->bytes_buf);
  am_variadic_release(array->variadic);
  am_array_free(array->dictionary);
  am_struct_fields_free(array->fields);
  free(array);
}

typedef struct export_state {
  am_buffer *validity;
  am_buffer *data;
  am_buffer *bytes;             /* a string array's data buffer (buffers[2]) */
  am_variadic *variadic;        /* a view array's data buffers (buffers[2 ...]) */
  struct ArrowArray dictionary; /* released with the array when it is set */
  const void *buffers[];        /* 2, 3, or a view array's 3 + its variadic buffers */
} export_state;

static void release_export(struct ArrowArray *array) {
  export_state *state = array->private_data;
  am_buffer_release(state->validity);
  am_buffer_release(state->data);
  am_buffer_release(state->bytes);
  am_variadic_release(state->variadic);
  if (state->dictionary.release) state->dictionary.release(&state->dictionary);
  free(state);
  array->release = NULL;
}

int am_array_export_attach_dictionary(am_err *err, struct ArrowArray *out,
                                      struct ArrowArray *dictionary) {
  if (out->release != release_export) {
    dictionary->release(dictionary);
    dictionary->release = NULL;
    return am_fail(err, AM_EINVAL, "not an export of this library's");
  }
  export_state *state = out->private_data;
  state->dictionary = *dictionary;
  dictionary->release = NULL;
  out->dictionary = &state->dictionary;
  return AM_OK;
}

int am_array_export(am_err *err, const am_array *array, int64_t null_count,
                    struct ArrowArray *out) {
  /* A view array's buffers: validity, views, each variadic buffer, then
   * their sizes (int64), as the C Data Interface lays them out. */
  const int views = am_type_is_view(array->type);
  const int64_t variadic = views && array->variadic ? array->variadic->count : 0;
  const int strings = am_type_is_var_binary(array->type);
  const int64_t n_buffers = views ? 3 + variadic : strings ? 3 : 2;
  export_state *state = malloc(sizeof *state + (size_t)n_buffers * sizeof state->buffers[0]);
  if (!state) return am_fail(err, AM_ENOMEM, "out of memory");
  int has_validity = array->validity && null_count != 0;
  state->validity = has_validity ? am_buffer_retain(array->validity_buf) : NULL;
  state->data = am_buffer_retain(array->data_buf);
  state->buffers[0] = has_validity ? array->validity : NULL;
  state->buffers[1] = array->data;
  /* A string array's third buffer, its bytes; a view array's data buffers
   * and sizes (never NULL: an empty one points at a valid empty block). */
  static const _Alignas(64) uint64_t no_bytes[1];
  state->bytes = strings ? am_buffer_retain(array->bytes_buf) : NULL;
  if (strings) state->buffers[2] = array->bytes ? (const void *)array->bytes : no_bytes;
  state->variadic = views ? am_variadic_retain(array->variadic) : NULL;
  for (int64_t k = 0; k < variadic; k++)
    state->buffers[2 + k] =
        array->variadic->data[k] ? (const void *)array->variadic->data[k] : no_bytes;
  if (views)
    state->buffers[2 + variadic] = variadic ? (const void *)array->variadic->sizes : no_bytes;
  state->dictionary.release = NULL;
  memset(out, 0, sizeof *out);
  out->length = array->length;
  out->null_count = has_validity ? null_count : 0;
  /* An empty view array goes at offset 0: pyarrow 26's import sizes the views
   * buffer of an empty array as 0 bytes and then refuses any offset past it
   * (its own export of an empty slice does not import back either). */
  out->offset = views && array->length == 0 ? 0 : array->offset;
  out->n_buffers = n_buffers;
  out->buffers = state->buffers;
  out->release = release_export;
  out->private_data = state;
  return AM_OK;
}

/* The keeper owns the moved ArrowArray, which lives in the same allocation
 * (one malloc per import instead of two); its release callback runs when the
 * last buffer reference goes, exactly once. */
typedef struct moved_keeper {
  am_buffer keeper; /* first: the allocation is freed through it */
  struct ArrowArray moved;
} moved_keeper;

static void release_moved(am_buffer *keeper) {
  struct ArrowArray *moved = keeper->context;
  if (moved->release) moved->release(moved);
  free(keeper);
}

int am_array_adopt(am_err *err, am_device *device, am_type type, struct ArrowArray *array,
                   am_array **out) {
  moved_keeper *block = malloc(sizeof *block);
  if (!block) {
    array->release(array);
    array->release = NULL;
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  struct ArrowArray *moved = &block->moved;
  *moved = *array;
  array->release = NULL;
  am_buffer *keeper = &block->keeper;
  atomic_init(&keeper->refs, 1);
  keeper->ptr = NULL;
  keeper->size = 0;
  keeper->context = moved;
  keeper->free_fn = release_moved;
  int64_t null_count = moved->null_count;
  const uint8_t *validity = moved->buffers[0];
  /* An empty array reads no slot, but kernels still form `data + offset`:
   * with a NULL data buffer (which the spec allows for a buffer of 0 bytes:
   * at length 0, or a fixed_size_binary of width 0) that would be
   * arithmetic on a null pointer. Such an array gets, in host memory, a
   * valid empty data block (a GPU never runs a kernel over 0 slots), and an
   * empty one offset 0. */
  int64_t offset = moved->offset;
  const void *data = moved->buffers[1];
  static const _Alignas(64) uint64_t empty[8];
  if (moved->length == 0) offset = 0;
  if (!data && (moved->length == 0 || type == AM_FIXED_SIZE_BINARY) &&
      (device->backend->memory.caps & AM_MEMORY_HOST))
    data = empty;
  if (!validity) null_count = 0;
  /* With no nulls the bitmap is irrelevant (the spec lets producers leave it
   * stale), so kernels never look at it. */
  if (null_count == 0) validity = NULL;
  am_array *adopted =
      am_array_make(device, type, moved->length, offset, null_count,
                    validity ? am_buffer_retain(keeper) : NULL, validity, keeper, data);
  if (!adopted) return am_fail(err, AM_ENOMEM, "out of memory");
  if (am_type_is_var_binary(type) && moved->n_buffers > 2) {
    /* A string array's bytes: the same keeper (the caller sets bytes_size
     * from its check of the offsets). A NULL one (the spec allows it when the
     * values are all empty) is the empty block, so that `bytes + offset`
     * is never arithmetic on a null pointer. */
    adopted->bytes = moved->buffers[2] ? moved->buffers[2] : (const uint8_t *)empty;
    adopted->bytes_buf = am_buffer_retain(keeper);
  }
  if (am_type_is_view(type) && moved->n_buffers > 3) {
    /* A view array's data buffers (checked by the caller: n_buffers - 3 of
     * them, their sizes the last buffer), each kept by the same keeper. */
    const int64_t count = moved->n_buffers - 3;
    const int64_t *sizes = moved->buffers[moved->n_buffers - 1];
    if (!(adopted->variadic = am_variadic_alloc(count))) {
      am_array_free(adopted);
      return am_fail(err, AM_ENOMEM, "out of memory");
    }
    for (int64_t k = 0; k < count; k++) {
      adopted->variadic->data[k] = moved->buffers[2 + k];
      adopted->variadic->sizes[k] = sizes[k];
      adopted->variadic->owners[k] = am_buffer_retain(keeper);
    }
  }
  *out = adopted;
  return AM_OK;
}
