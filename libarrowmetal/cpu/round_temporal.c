/* The CPU's floor/ceil/round_temporal: core/round_temporal.c's loop, split
 * over the pool's threads, into a result of the input's type that shares the
 * input's validity bitmap (the result keeps the input's offset, so the
 * bitmap is shared as it is). A timestamp in a time zone other than UTC
 * rounds in local time (core/round_temporal_zoned.c); a row that meets a
 * local time the clocks skipped or repeated fails the call, the last such
 * row naming it, as pyarrow's. */
#include <stddef.h>
#include <stdlib.h>

#include "core/round_temporal.h"
#include "core/round_temporal_zoned.h"
#include "core/types.h"
#include "cpu/cpu.h"
#include "cpu/pool.h"

typedef struct round_job {
  int op, unit, flags, parts;
  int64_t multiple;
  const am_array *array;
  char *out;                /* the result's slot 0 */
  const am_tz *tz;          /* NULL: the values as they are (UTC) */
  int64_t *refused, *local; /* per part: the last refused slot (-1: none), its local time */
} round_job;

/* Slots [begin, end) of part `part`: each value alone decides its result. */
static void round_part(void *ctx, int part) {
  const round_job *job = ctx;
  const am_array *a = job->array;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  if (job->tz) {
    const int64_t r = am_round_temporal_zoned(
        job->tz, job->op, a->type, (const int64_t *)a->data + a->offset + begin, a->validity,
        a->offset + begin, end - begin, job->unit, job->multiple, job->flags,
        (int64_t *)job->out + begin, &job->local[part]);
    job->refused[part] = r < 0 ? -1 : begin + r;
  } else if (end > begin)
    am_round_temporal_values(job->op, a->type, a->data, a->offset + begin, end - begin, job->unit,
                             job->multiple, job->flags,
                             job->out + begin * am_type_bytes(a->type, 1));
}

int am_cpu_round_temporal(am_err *err, int op, const am_array *array, int unit, int64_t multiple,
                          int flags, am_array **out) {
  const am_tz *tz = NULL;
  int status = array->timezone ? am_tz_find(err, array->timezone, &tz) : AM_OK;
  if (status != AM_OK) return status;
  if (tz && am_tz_is_utc(tz)) tz = NULL;
  int64_t start = array->validity ? array->offset : 0;
  am_array *result = NULL;
  status = am_array_alloc_host(err, array->device, array->type, start + array->length, 0, &result);
  if (status != AM_OK) return status;
  const int parts = am_pool_parts(array->length);
  int64_t *found = tz ? malloc(2 * (size_t)parts * sizeof *found) : NULL;
  if (tz && !found) {
    am_array_free(result);
    return am_fail(err, AM_ENOMEM, "out of memory for %d parts", parts);
  }
  round_job job = {op,
                   unit,
                   flags,
                   parts,
                   multiple,
                   array,
                   (char *)result->data + am_type_bytes(array->type, start),
                   tz,
                   found,
                   found ? found + parts : NULL};
  if (array->length > 0) am_pool_run(parts, round_part, &job);
  /* pyarrow's error is its last failing row's: the last part's that has one */
  int64_t refused = -1, local = 0;
  for (int part = 0; tz && array->length > 0 && part < parts; part++)
    if (job.refused[part] >= 0) refused = job.refused[part], local = job.local[part];
  free(found);
  if (refused >= 0) {
    am_array_free(result);
    return am_round_temporal_refuse(err, tz, array->type, local);
  }
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
