/* The float16 calls that read values (float16.h): the predicates of
 * floats, negate, sign, and count_distinct's keys. Each is made of kernels
 * every backend has, on the array's device: the float32 kernels over the
 * values widened to float32 (exact, so a NaN, an infinity, a zero's sign
 * and every finite value are what they were), or the uint16 kernels over
 * the bits. */
#include "calls.h"
#include "core/ops.h"
#include "float16.h"
#include "route.h"

/* The values widened to float32 (one kernel). */
static int widen(am_err *err, const am_array *array, am_array **out) {
  return am_float16_cast(err, array, AM_FLOAT32, 0, out);
}

/* A float16 array as its uint16 storage (a new handle on the same
 * buffers). */
static int bits_of(am_err *err, const am_array *array, am_array **out) {
  int status = am_settle_data(err, array);
  if (status != AM_OK) return status;
  if (!(*out = am_array_share(array))) return am_fail(err, AM_ENOMEM, "out of memory");
  am_retype(*out, AM_UINT16, NULL);
  return AM_OK;
}

int am_float16_is(am_err *err, am_predicate op, int flags, const am_array *array, am_array **out) {
  am_array *values = NULL;
  /* is_null and is_valid read the validity alone, except is_null with
   * nan_is_null (any flag: am_is checks them), which reads NaN as float32
   * does, as is_nan, is_finite and is_inf do. */
  int reads_values =
      (op == AM_IS_NULL && flags) || op == AM_IS_NAN || op == AM_IS_FINITE || op == AM_IS_INF;
  int status = reads_values ? widen(err, array, &values) : bits_of(err, array, &values);
  if (status == AM_OK) status = am_call_is(err, op, flags, values, out);
  am_array_free(values);
  return status;
}

static int binary_kernel(am_err *err, int op, const am_array *left, const am_array *right,
                         const am_scalar *scalar, am_array **out) {
  return left->device->backend->kernels.binary(err, (am_binary_op)op, left, right, scalar, out);
}

/* negate (and negate_checked, which no float overflows): the sign bit
 * flipped, NaN's too, as pyarrow's negate of a float (one xor of the bits). */
static int negate(am_err *err, const am_array *array, am_array **out) {
  am_array *bits = NULL;
  int status = bits_of(err, array, &bits);
  if (status != AM_OK) return status;
  const am_scalar sign_bit = {.type = AM_UINT16, .u64 = 0x8000u};
  status = am_elementwise_scalar(err, am_op_find(AM_FAMILY_BINARY, AM_BIT_WISE_XOR), AM_ROUTE_UNARY,
                                 binary_kernel, AM_BIT_WISE_XOR, bits, &sign_bit, out);
  am_array_free(bits);
  if (status == AM_OK) am_retype(*out, AM_FLOAT16, NULL);
  return status;
}

/* sign: float32's sign (1.0, -1.0, 0.0 for either zero, NaN as it is) of
 * the widened values, rounded back (exact: each is a float16). */
static int sign(am_err *err, const am_array *array, am_array **out) {
  am_array *wide = NULL, *signs = NULL;
  int status = widen(err, array, &wide);
  if (status != AM_OK) return status;
  am_route route;
  const am_array *input = wide;
  if ((status = am_route_inputs(err, AM_ROUTE_UNARY, AM_TYPE_BIT(AM_FLOAT32), &input, 1, &route)) ==
      AM_OK) {
    am_array *result = NULL;
    status = route.use[0]->device->backend->kernels.unary(err, AM_SIGN, route.use[0], &result);
    status = am_route_finish(err, &route, status, result, &signs);
    am_route_done(&route);
  }
  am_array_free(wide);
  if (status == AM_OK) status = am_float16_cast(err, signs, AM_FLOAT16, 0, out);
  am_array_free(signs);
  return status;
}

int am_float16_unary(am_err *err, am_unary_op op, const am_array *array, am_array **out) {
  if (op == AM_NEGATE || op == AM_NEGATE_CHECKED) return negate(err, array, out);
  if (op == AM_SIGN) return sign(err, array, out);
  return am_no_kernel(err, am_op_find(AM_FAMILY_UNARY, (int)op), array->type, AM_TYPE_INVALID);
}

/* pyarrow 26's count_distinct of halffloat (arrow/compute/kernels/
 * aggregate_basic.cc, read, not copied, with its measured answers) keys its
 * hash table with each value's storage integer converted to a float16 as a
 * number: 0x3c00 (1.0) is the key 15360.0, which 0x3bfc ... 0x3c04 round
 * to as well, so it counts them once; storage integers past 65519 all
 * become infinity. unique, value_counts and dictionary_encode tell every
 * bit pattern apart. The library counts the same keys: the uint16 storage
 * cast to float16 (through float32, exact for every uint16), as bits. */
int am_float16_distinct_keys(am_err *err, const am_array *array, am_array **keys) {
  am_array *bits = NULL;
  int status = bits_of(err, array, &bits);
  if (status != AM_OK) return status;
  status = am_float16_cast(err, bits, AM_FLOAT16, 0, keys);
  am_array_free(bits);
  if (status == AM_OK) am_retype(*keys, AM_UINT16, NULL);
  return status;
}
