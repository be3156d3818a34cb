/* The CPU's temporal field extractions: core/temporal.c's loop, split over
 * the pool's threads, into an int64 result that shares the input's validity bitmap (the result
 * keeps the input's offset, so the bitmap is shared as it is). A timestamp
 * with a time zone other than UTC is read in local time first, a block at a
 * time (core/timezone.h), except for second ... nanosecond, which pyarrow
 * takes from the value itself. */
#include <stddef.h>

#include "core/temporal.h"
#include "core/timezone.h"
#include "cpu/cpu.h"
#include "cpu/pool.h"

typedef struct field_job {
  am_temporal_field_op op;
  const am_array *array;
  int week_start, count_from_zero, parts;
  const am_tz *tz; /* NULL: the values as they are */
  int64_t per_second;
  int64_t *out;
} field_job;

enum { BLOCK = 512 };

/* Slots [begin, end) of part `part`: the field is a function of the slot
 * alone, so the parts are independent. */
static void field_part(void *ctx, int part) {
  const field_job *job = ctx;
  const am_array *a = job->array;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  if (!job->tz) {
    if (end > begin)
      am_temporal_field_values(job->op, a->type, a->data, a->offset + begin, end - begin,
                               job->week_start, job->count_from_zero, job->out + begin);
    return;
  }
  const int64_t *values = (const int64_t *)a->data + a->offset;
  int64_t local[BLOCK];
  for (int64_t i = begin; i < end; i += BLOCK) {
    int64_t n = end - i < BLOCK ? end - i : BLOCK;
    am_tz_localize(job->tz, job->per_second, values + i, n, local);
    am_temporal_field_values(job->op, a->type, local, 0, n, job->week_start, job->count_from_zero,
                             job->out + i);
  }
}

int am_cpu_temporal_field(am_err *err, am_temporal_field_op op, const am_array *array,
                          int week_start, int count_from_zero, am_array **out) {
  const am_tz *tz = NULL;
  int status = array->timezone ? am_tz_find(err, array->timezone, &tz) : AM_OK;
  if (status != AM_OK) return status;
  if (tz && (am_tz_is_utc(tz) || (op >= AM_FIELD_SECOND && op <= AM_FIELD_NANOSECOND))) tz = NULL;
  int64_t per_day, to_ns;
  am_temporal_split(array->type, &per_day, &to_ns);
  int64_t start = array->validity ? array->offset : 0;
  am_array *result = NULL;
  status = am_array_alloc_host(err, array->device, AM_INT64, start + array->length, 0, &result);
  if (status != AM_OK) return status;
  field_job job = {op,
                   array,
                   week_start,
                   count_from_zero,
                   am_pool_parts(array->length),
                   tz,
                   1000000000 / to_ns,
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
