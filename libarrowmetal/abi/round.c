/* round, round_to_multiple and pairwise_diff / pairwise_diff_checked: argument,
 * type and option checks in pyarrow's words, then the backend where the
 * route says. */
#include "core/round.h"
#include "abi.h"
#include "core/ops.h"
#include "core/types.h"
#include "route.h"

/* The backend's kernel over one routed input. */
typedef int (*one_input)(am_err *err, const am_array *array, const void *ctx, am_array **out);

static int routed(am_err *err, const am_array *array, one_input run, const void *ctx,
                  am_array **out) {
  am_route route;
  int status = am_route_inputs(err, AM_ROUTE_UNARY, AM_TYPE_BIT(array->type), &array, 1, &route);
  if (status != AM_OK) return status;
  am_array *result = NULL;
  status = run(err, route.use[0], ctx, &result);
  status = am_route_finish(err, &route, status, result, out);
  am_route_done(&route);
  return status;
}

static int run_round(am_err *err, const am_array *array, const void *ctx, am_array **out) {
  return array->device->backend->kernels.round(err, array, ctx, out);
}

/* The checks round and round_to_multiple share: the mode, the pointers, a
 * numeric array. */
static int round_inputs(am_err *err, const am_array *array, am_round_mode mode, int op,
                        am_array **out) {
  if ((unsigned)mode > AM_ROUND_HALF_TO_ODD)
    return am_fail(err, AM_EINVAL, "unknown round mode %d (am_round_mode: 0 to 9)", (int)mode);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  const am_op_desc *desc = am_op_find(AM_FAMILY_ROUND, op);
  if (array->type == AM_FLOAT16) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  if (!am_accepts(desc, array->type)) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  return AM_OK;
}

static int same_values(am_err *err, const am_array *array, am_array **out) {
  *out = am_array_share(array);
  return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
}

static int round_array(am_err *err, const am_array *array, int64_t ndigits, am_round_mode mode,
                       am_array **out) {
  int status = round_inputs(err, array, mode, 0, out);
  if (status != AM_OK) return status;
  /* Integers have no fractional digits: only a negative ndigits changes
   * them, and one past the type's digits is refused whatever the values. */
  if (am_type_is_integer(array->type) && ndigits >= 0) return same_values(err, array, out);
  am_round_spec spec;
  if ((status = am_round_spec_digits(err, array->type, ndigits, mode, &spec)) != AM_OK)
    return status;
  return routed(err, array, run_round, &spec, out);
}

AM_EXPORT int am_round(const am_array *array, int64_t ndigits, am_round_mode mode, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(round_array(err, array, ndigits, mode, out));
}

/* pyarrow's IsPositive: a number above 0 (NaN is not); a scalar of any other
 * type (bool, temporal, string, unknown) is not positive. */
static int positive(const am_scalar *s) {
  am_type t = (am_type)s->type;
  if (am_type_is_float(t)) return s->f64 > 0.0;
  if (am_type_is_signed(t)) return s->i64 > 0;
  return am_type_is_unsigned(t) && s->u64 > 0;
}

/* pyarrow's checks of the multiple, in its order (the kernel's
 * RoundToMultipleOptions Init): valid, positive, then cast safely to the
 * array's type. */
static int round_to_multiple(am_err *err, const am_array *array, const am_scalar *multiple,
                             am_round_mode mode, am_array **out) {
  AM_REQUIRE(multiple, "multiple");
  int status = round_inputs(err, array, mode, 1, out);
  if (status != AM_OK) return status;
  if (multiple->is_null)
    return am_fail(err, AM_EINVAL, "Rounding multiple must be non-null and valid");
  if (!positive(multiple)) return am_fail(err, AM_EINVAL, "Rounding multiple must be positive");
  am_scalar cast;
  if ((status = am_scalar_cast(err, multiple, array->type, &cast)) != AM_OK) return status;
  am_round_spec spec;
  am_round_spec_multiple(array->type, &cast, mode, &spec);
  /* Every integer is a multiple of 1. */
  if (am_type_is_integer(array->type) && spec.m == 1) return same_values(err, array, out);
  return routed(err, array, run_round, &spec, out);
}

AM_EXPORT int am_round_to_multiple(const am_array *array, const am_scalar *multiple,
                                   am_round_mode mode, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(round_to_multiple(err, array, multiple, mode, out));
}

typedef struct pairwise_args {
  am_pairwise_op op;
  int64_t period;
} pairwise_args;

static int run_pairwise(am_err *err, const am_array *array, const void *ctx, am_array **out) {
  const pairwise_args *a = ctx;
  return array->device->backend->kernels.pairwise_diff(err, a->op, array, a->period, out);
}

static int pairwise_diff(am_err *err, am_pairwise_op op, const am_array *array, int64_t period,
                         am_array **out) {
  if (op != AM_PAIRWISE_DIFF && op != AM_PAIRWISE_DIFF_CHECKED)
    return am_fail(err, AM_EINVAL,
                   "unknown op %d (AM_PAIRWISE_DIFF (0) or AM_PAIRWISE_DIFF_CHECKED (1))", (int)op);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  const am_op_desc *desc = am_op_find(AM_FAMILY_PAIRWISE_DIFF, (int)op);
  if (array->type == AM_FLOAT16) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  if (!am_accepts(desc, array->type)) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  /* A period of the length or more leaves no pair: every slot is null, as
   * with the length itself (which keeps i - period from overflowing). */
  int64_t n = array->length;
  if (period > n) period = n;
  if (period < -n) period = -n;
  pairwise_args a = {op, period};
  return routed(err, array, run_pairwise, &a, out);
}

AM_EXPORT int am_pairwise_diff(am_pairwise_op op, const am_array *array, int64_t period,
                               am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(pairwise_diff(err, op, array, period, out));
}
