/* The CPU's temporal field extractions: core/temporal.c's loop, split over
 * the pool's threads, into an int64 result that shares the input's validity bitmap (the result
 * keeps the input's offset, so the bitmap is shared as it is). */
#include <stddef.h>

#include "core/temporal.h"
#include "cpu/cpu.h"
#include "cpu/pool.h"

typedef struct field_job {
  am_temporal_field_op op;
  const am_array *array;
  int week_start, count_from_zero, parts;
  int64_t *out;
} field_job;

/* Slots [begin, end) of part `part`: the field is a function of the slot
 * alone, so the parts are independent. */
static void field_part(void *ctx, int part) {
  const field_job *job = ctx;
  const am_array *a = job->array;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  if (end > begin)
    am_temporal_field_values(job->op, a->type, a->data, a->offset + begin, end - begin,
                             job->week_start, job->count_from_zero, job->out + begin);
}

int am_cpu_temporal_field(am_err *err, am_temporal_field_op op, const am_array *array,
                          int week_start, int count_from_zero, am_array **out) {
  int64_t start = array->validity ? array->offset : 0;
  am_array *result = NULL;
  int status = am_array_alloc_host(err, array->device, AM_INT64, start + array->length, 0, &result);
  if (status != AM_OK) return status;
  field_job job = {op,
                   array,
                   week_start,
                   count_from_zero,
                   am_pool_parts(array->length),
                   (int64_t *)result->data + start};
  if (array->length > 0) am_pool_run(job.parts, field_part, &job);
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
