/* placeholder while the CPU side is tested */
#include "ops_shared.h"
int am_gpu_cumulative(am_err *err, am_cumulative_op op, const am_array *array,
                      const am_scalar *start, int skip_nulls, am_array **out) {
  (void)op; (void)array; (void)start; (void)skip_nulls; (void)out;
  return am_fail(err, AM_EUNSUPPORTED, "not yet");
}
