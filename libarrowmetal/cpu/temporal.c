/* The CPU's temporal field extractions: core/temporal.c's loop into an
 * int64 result that shares the input's validity bitmap (the result keeps
 * the input's offset, so the bitmap is shared as it is). */
#include <stddef.h>

#include "core/temporal.h"
#include "cpu/cpu.h"

int am_cpu_temporal_field(am_err *err, am_temporal_field_op op, const am_array *array,
                          int week_start, int count_from_zero, am_array **out) {
  int64_t start = array->validity ? array->offset : 0;
  am_array *result = NULL;
  int status = am_array_alloc_host(err, array->device, AM_INT64, start + array->length, 0, &result);
  if (status != AM_OK) return status;
  if (array->length > 0)
    am_temporal_field_values(op, array->type, array->data, array->offset, array->length, week_start,
                             count_from_zero, (int64_t *)result->data + start);
  result->offset = start;
  result->length = array->length;
  if (array->validity) {
    am_buffer *keeper = array->validity_buf ? array->validity_buf : array->data_buf;
    result->validity_buf = am_buffer_retain(keeper);
    result->validity = array->validity;
    atomic_store(&result->null_count, atomic_load(&array->null_count));
  }
  *out = result;
  return AM_OK;
}
