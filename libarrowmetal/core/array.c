#include "array.h"

#include <stdlib.h>

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
  return array;
}

am_array *am_array_share(const am_array *array) {
  return am_array_make(array->device, array->type, array->length, array->offset,
                       atomic_load_explicit(&array->null_count, memory_order_relaxed),
                       am_buffer_retain(array->validity_buf), array->validity,
                       am_buffer_retain(array->data_buf), array->data);
}

int am_array_alloc_host(am_device *device, am_type type, int64_t length, int with_validity,
                        am_array **out) {
  if (length < 0 || length > AM_MAX_LENGTH)
    return am_error(AM_EINVAL, "length %lld is outside 0 to 2^52", (long long)length);
  am_buffer *data = am_buffer_alloc_host(am_type_bytes(type, length));
  am_buffer *validity = with_validity ? am_buffer_alloc_host((length + 7) / 8) : NULL;
  if (!data || (with_validity && !validity)) {
    am_buffer_release(data);
    am_buffer_release(validity);
    return am_error(AM_ENOMEM, "out of memory allocating %lld slots of %s", (long long)length,
                    am_type_name(type));
  }
  am_array *array = am_array_make(device, type, length, 0, with_validity ? -1 : 0, validity,
                                  validity ? validity->ptr : NULL, data, data->ptr);
  if (!array) return am_error(AM_ENOMEM, "out of memory");
  *out = array;
  return AM_OK;
}

void am_array_free(am_array *array) {
  if (!array) return;
  struct am_pending *pending = am_array_pending(array);
  if (pending) pending->destroy(pending);
  am_buffer_release(array->validity_buf);
  am_buffer_release(array->data_buf);
  free(array);
}
