/* Concatenation of host arrays of one type into a new offset-0 array. */
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"

/* Appends bits [pos, pos + n) of `bits` (all ones when `bits` is NULL). */
static void append_bits(am_bit_writer *writer, const uint8_t *bits, int64_t pos, int64_t n) {
  for (int64_t done = 0; done < n; done += 64) {
    int64_t chunk = n - done < 64 ? n - done : 64;
    am_bits_append(writer, bits ? am_bits_load(bits, pos + done, chunk) : am_bits_mask(chunk),
                   (int)chunk);
  }
}

int am_cpu_concat(am_err *err, const am_array *const *arrays, int64_t count, am_array **out) {
  if (am_type_is_binary(arrays[0]->type)) return am_cpu_string_concat(err, arrays, count, out);
  am_type type = arrays[0]->type;
  int64_t total = 0, nulls = 0;
  for (int64_t i = 0; i < count; i++) {
    int64_t counted = am_cpu_nulls(arrays[i]);
    total += arrays[i]->length;
    nulls += counted;
  }
  am_array *result = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), type, total, nulls > 0, &result);
  if (status != AM_OK) return status;
  am_bit_writer data = {(uint64_t *)result->data, 0};
  am_bit_writer validity = {(uint64_t *)result->validity, 0};
  char *next = (char *)result->data;
  int width = am_type_bits(type) / 8;
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays[i];
    if (a->length == 0) continue;
    if (type == AM_BOOL) {
      append_bits(&data, a->data, a->offset, a->length);
    } else {
      memcpy(next, (const char *)a->data + a->offset * width, (size_t)(a->length * width));
      next += a->length * width;
    }
    if (nulls > 0) {
      int has = a->validity && atomic_load(&a->null_count) != 0;
      append_bits(&validity, has ? a->validity : NULL, a->offset, a->length);
    }
  }
  atomic_store(&result->null_count, nulls);
  *out = result;
  return AM_OK;
}
