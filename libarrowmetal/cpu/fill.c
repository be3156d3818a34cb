/* Arrays of one repeated value (am_full). */
#include <math.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"

#define DEFINE_FILL(E, T, U, N, F, LO, HI)                             \
  static void fill_##N(void *dst, const am_scalar *value, int64_t n) { \
    T *o = dst;                                                        \
    const T v = (T)value->F;                                           \
    for (int64_t i = 0; i < n; i++) o[i] = v;                          \
  }
AM_CPU_NUMERIC_TYPES(DEFINE_FILL)

int am_cpu_fill(am_err *err, am_device *device, const am_scalar *value, int64_t length,
                am_array **out) {
  am_type type = (am_type)value->type;
  if (!am_type_valid(type)) return am_fail(err, AM_ETYPE, "invalid scalar type %d", value->type);
  if (value->is_null) return am_cpu_null_result(err, device, type, length, out);
  am_array *result = NULL;
  int status = am_array_alloc_host(err, device, type, length, 0, &result);
  if (status != AM_OK) return status;
  void *o = result->data_buf->ptr;
  switch (type) {
    case AM_BOOL:
      am_bits_fill(o, length, value->i64 != 0);
      break;
#define CASE(E, T, U, N, F, LO, HI) \
  case E:                           \
    fill_##N(o, value, length);     \
    break;
      AM_CPU_NUMERIC_TYPES(CASE)
#undef CASE
    default:
      break;
  }
  *out = result;
  return AM_OK;
}
