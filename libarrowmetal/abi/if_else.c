/* if_else (am_if_else): pyarrow's type rules for the two sides, then the
 * backend where the route puts cond and the array sides. */
#include <stdio.h>

#include "abi.h"
#include "core/ops.h"
#include "decimal_calls.h"
#include "float16.h"
#include "nulls.h"
#include "route.h"
#include "string_calls.h"

/* The type of a side: its array's, its scalar's, or AM_TYPE_INVALID for a
 * null scalar of no type. */
static am_type side_type(const am_array *array, const am_scalar *scalar) {
  return array                         ? array->type
         : am_type_valid(scalar->type) ? (am_type)scalar->type
                                       : AM_TYPE_INVALID;
}

static const char *type_text(am_type t) { return am_type_valid((int)t) ? am_type_name(t) : "null"; }

static int no_kernel(am_err *err, am_type cond, am_type left, am_type right) {
  return am_fail(err, AM_ETYPE,
                 "function 'if_else' has no kernel matching input types (%s, %s, %s)",
                 type_text(cond), type_text(left), type_text(right));
}

/* Checks one side: an array of cond's length, or a scalar of a valid type
 * (or a null one of none). */
static int check_side(am_err *err, const char *name, const am_array *cond, const am_array *array,
                      const am_scalar *scalar) {
  if (!array == !scalar)
    return am_fail(err, AM_EINVAL, "give %s as an array or a scalar, %s", name,
                   array ? "not both" : "neither is given");
  if (scalar) {
    if (!scalar->is_null && !am_type_valid(scalar->type))
      return am_fail(err, AM_ETYPE, "invalid scalar type %d", scalar->type);
    return AM_OK;
  }
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  if (array->length != cond->length)
    return am_fail(err, AM_EINVAL, "arrays have different lengths (%lld and %lld)",
                   (long long)cond->length, (long long)array->length);
  return AM_OK;
}

/* A side in the common type: an array converted (or shared), or a scalar. */
static int convert_side(am_err *err, const am_array *array, const am_scalar *scalar, am_type to,
                        am_array **own, am_scalar *converted) {
  if (scalar) {
    am_scalar s = *scalar;
    if (!am_type_valid(s.type)) s.type = to; /* a null of no type takes the other side's */
    return am_scalar_cast(err, &s, to, converted);
  }
  return array->type == to ? AM_OK : am_nulls_cast(err, array, to, own);
}

static int if_else(am_err *err, const am_array *cond, const am_array *left,
                   const am_scalar *left_scalar, const am_array *right,
                   const am_scalar *right_scalar, am_array **out) {
  AM_REQUIRE(cond, "cond");
  AM_REQUIRE(out, "out");
  int status = am_settle(err, cond);
  if (status != AM_OK) return status;
  if ((status = check_side(err, "left", cond, left, left_scalar)) != AM_OK ||
      (status = check_side(err, "right", cond, right, right_scalar)) != AM_OK)
    return status;
  /* The sides' common type, as pyarrow's if_else casts them before it
   * looks at the condition's type. */
  am_type lt = side_type(left, left_scalar), rt = side_type(right, right_scalar);
  am_type common = lt == AM_TYPE_INVALID ? rt : rt == AM_TYPE_INVALID ? lt : AM_TYPE_INVALID;
  if (lt != AM_TYPE_INVALID && rt != AM_TYPE_INVALID) {
    if ((lt == AM_BOOL) != (rt == AM_BOOL)) return no_kernel(err, cond->type, lt, rt);
    common = lt == rt ? lt : am_common_numeric(lt, rt);
  }
  if (common == AM_TYPE_INVALID) return no_kernel(err, cond->type, lt, rt);
  if (cond->type != AM_BOOL) return no_kernel(err, cond->type, common, common);
  am_array *left_own = NULL, *right_own = NULL;
  am_scalar ls, rs;
  if ((status = convert_side(err, left, left_scalar, common, &left_own, &ls)) == AM_OK &&
      (status = convert_side(err, right, right_scalar, common, &right_own, &rs)) == AM_OK) {
    const am_array *l = left_own ? left_own : left, *r = right_own ? right_own : right;
    /* The array inputs, cond first; the kernels move values as bits. */
    const am_array *inputs[AM_ROUTE_MAX_INPUTS] = {cond};
    int count = 1, at_left = 0, at_right = 0;
    if (l) inputs[at_left = count++] = l;
    if (r) inputs[at_right = count++] = r;
    am_route route;
    status = am_route_inputs(err, AM_ROUTE_NULLS, AM_TYPE_BIT(AM_BOOL), inputs, count, &route);
    if (status == AM_OK) {
      am_array *result = NULL;
      status = route.use[0]->device->backend->kernels.if_else(
          err, route.use[0], l ? route.use[at_left] : NULL, l ? NULL : &ls,
          r ? route.use[at_right] : NULL, r ? NULL : &rs, &result);
      status = am_route_finish(err, &route, status, result, out);
      am_route_done(&route);
    }
  }
  am_array_free(left_own);
  am_array_free(right_own);
  return status;
}

AM_EXPORT int am_if_else(const am_array *cond, const am_array *left, const am_scalar *left_scalar,
                         const am_array *right, const am_scalar *right_scalar, am_array **out) {
  AM_API_BEGIN;
  const am_array *arrays[2] = {left, right};
  const am_scalar *scalars[2] = {left_scalar, right_scalar};
  if (cond && out && am_any_binary(arrays, scalars, 2)) {
    if (!left && !right)
      AM_API_RETURN(am_fail(err, AM_EUNSUPPORTED,
                            "if_else of two string scalars: give one side as an array"));
    AM_API_RETURN(am_string_if_else(err, cond, arrays, scalars, out));
  }
  if (cond && out && am_any_decimal(arrays, scalars, 2))
    AM_API_RETURN(am_decimal_choose(err, "if_else", cond, arrays, scalars, 2, out));
  am_storage_values_t v;
  int status = cond && am_any_float16(arrays, scalars, 2)
                   ? am_float16_values(err, "if_else", cond->type, arrays, scalars, 2, &v)
                   : am_storage_values(err, arrays, scalars, 2, &v);
  if (status != AM_OK) AM_API_RETURN(status);
  if (!v.active) AM_API_RETURN(if_else(err, cond, left, left_scalar, right, right_scalar, out));
  status = if_else(err, cond, v.arrays[0], v.scalar_ptrs[0], v.arrays[1], v.scalar_ptrs[1], out);
  if (status == AM_OK) am_retype(*out, v.type, v.tz);
  am_storage_values_free(&v);
  AM_API_RETURN(status);
}
