/* take and concat of host string and binary arrays inside the CPU's own
 * kernels (group-by's keys and picked values, join's key columns): the
 * rows become am_string_gather's picks (core/string_array.h), so the
 * string layout is built in one place. am_cpu_take and am_cpu_concat send
 * string arrays here. */
#include <stdlib.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/string_array.h"
#include "cpu.h"

int am_cpu_string_take(am_err *err, const am_array *array, const am_array *indices,
                       am_array **out) {
  const int64_t n = indices->length;
  const int wide = indices->type == AM_INT64, nullable = am_cpu_has_nulls(indices);
  am_string_pick *picks = malloc((size_t)(n ? n : 1) * sizeof *picks);
  if (!picks) return am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    const int64_t j = indices->offset + i;
    if (nullable && !am_bit_get(indices->validity, j)) {
      picks[i] = (am_string_pick){-1, 0};
      continue;
    }
    const int64_t k =
        wide ? ((const int64_t *)indices->data)[j] : ((const int32_t *)indices->data)[j];
    if (k < 0 || k >= array->length) {
      free(picks);
      return am_fail(err, AM_EINDEX, "index %lld out of bounds for length %lld", (long long)k,
                     (long long)array->length);
    }
    picks[i] = (am_string_pick){0, k};
  }
  int status =
      am_string_gather(err, am_cpu_device(), array->type, array->byte_width, &array, picks, n, out);
  free(picks);
  return status;
}

int am_cpu_string_concat(am_err *err, const am_array *const *arrays, int64_t count,
                         am_array **out) {
  int64_t total = 0;
  for (int64_t i = 0; i < count; i++) total += arrays[i]->length;
  am_string_pick *picks = malloc((size_t)(total ? total : 1) * sizeof *picks);
  if (!picks) return am_fail(err, AM_ENOMEM, "out of memory");
  int64_t at = 0;
  for (int64_t i = 0; i < count; i++)
    for (int64_t r = 0; r < arrays[i]->length; r++) picks[at++] = (am_string_pick){i, r};
  int status = am_string_gather(err, am_cpu_device(), arrays[0]->type, arrays[0]->byte_width,
                                arrays, picks, total, out);
  free(picks);
  return status;
}
