/* The CPU's floor/ceil/round_temporal: core/round_temporal.c's loop, split
 * over the pool's threads, into a result of the input's type that shares the
 * input's validity bitmap (the result keeps the input's offset, so the
 * bitmap is shared as it is). */
#include <stddef.h>

#include "core/round_temporal.h"
#include "core/types.h"
#include "cpu/cpu.h"
#include "cpu/pool.h"

typedef struct round_job {
  int op, unit, flags, parts;
  int64_t multiple;
  const am_array *array;
  char *out; /* the result's slot 0 */
} round_job;

/* Slots [begin, end) of part `part`: each value alone decides its result. */
static void round_part(void *ctx, int part) {
  const round_job *job = ctx;
  const am_array *a = job->array;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  if (end > begin)
    am_round_temporal_values(job->op, a->type, a->data, a->offset + begin, end - begin, job->unit,
                             job->multiple, job->flags,
                             job->out + begin * am_type_bytes(a->type, 1));
}

int am_cpu_round_temporal(am_err *err, int op, const am_array *array, int unit, int64_t multiple,
                          int flags, am_array **out) {
  int64_t start = array->validity ? array->offset : 0;
  am_array *result = NULL;
  int status =
      am_array_alloc_host(err, array->device, array->type, start + array->length, 0, &result);
  if (status != AM_OK) return status;
  round_job job = {op,
                   unit,
                   flags,
                   am_pool_parts(array->length),
                   multiple,
                   array,
                   (char *)result->data + am_type_bytes(array->type, start)};
  if (array->length > 0) am_pool_run(job.parts, round_part, &job);
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
