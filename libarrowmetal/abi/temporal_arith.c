/* Compare, add and subtract of temporal arrays (pyarrow's kernels of the
 * same names): both sides are brought to the finer of their units as int64
 * (a checked multiply, as pyarrow's unit cast checks), the storage kernel
 * runs, and the result is typed as pyarrow types it: compare gives bool,
 * timestamp - timestamp a duration, timestamp +- duration a timestamp (the
 * time zone kept), duration +- duration a duration, date - date and
 * time - time a duration (date32 in seconds, as pyarrow). A date meeting a
 * timestamp or a duration is a timestamp without a zone (date32 in
 * seconds), as pyarrow's dispatch makes it: date +- duration a timestamp,
 * date - timestamp a duration. time +- duration is time_arith.c's, multiply
 * and divide duration_arith.c's. Other pairs fail in pyarrow's words. */
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "core/ops.h"
#include "route.h"

static int digits_of_tick(int64_t tick) {
  return tick == 1000000000 ? 0 : tick == 1000000 ? 3 : tick == 1000 ? 6 : 9;
}

static const char *type_text(const am_array *a, am_type t, char *text, size_t n) {
  return am_temporal_type_text(a ? a->timezone : NULL, t, text, n);
}

/* The type pyarrow's dispatch puts in place of temporal type `t` before it
 * looks for an add or subtract kernel a second time: the unit `digits`; a
 * date a timestamp without a zone, a time time32 or time64 by the unit. */
static am_type common_type(am_type t, int digits) {
  switch (am_temporal_family(t)) {
    case AM_TEMPORAL_TIMESTAMP:
    case AM_TEMPORAL_DATE:
      return am_timestamp_of_unit(digits);
    case AM_TEMPORAL_TIME:
      return am_time_of_unit(digits);
    case AM_TEMPORAL_DURATION:
      return am_duration_of_unit(digits);
    default:
      return t;
  }
}

/* AM_ETYPE in pyarrow's words for a pair it has no kernel for: the types
 * as given (digits < 0), or, as its second look names them, each temporal
 * one replaced by common_type in unit `digits`. */
int am_temporal_no_kernel_pair(am_err *err, const char *function, const am_array *left, am_type lt,
                               const am_array *right, am_type rt, int digits) {
  char a[128], b[128];
  const char *ltz = left && am_type_is_timestamp(lt) ? left->timezone : NULL;
  const char *rtz = right && am_type_is_timestamp(rt) ? right->timezone : NULL;
  if (digits >= 0) lt = common_type(lt, digits), rt = common_type(rt, digits);
  return am_fail(err, AM_ETYPE, "function '%s' has no kernel matching input types (%s, %s)",
                 function, am_temporal_type_text(ltz, lt, a, sizeof a),
                 am_temporal_type_text(rtz, rt, b, sizeof b));
}

static int no_kernel(am_err *err, const char *function, const am_array *left, am_type lt,
                     const am_array *right, am_type rt) {
  return am_temporal_no_kernel_pair(err, function, left, lt, right, rt, -1);
}

/* `array` (temporal) as int64 in units of `tick` ns (a new handle). */
int am_temporal_scaled(am_err *err, const am_array *array, int64_t tick, am_array **out) {
  am_type storage = am_type_storage(array->type);
  am_array *view = am_array_share(array);
  if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
  am_retype(view, storage, NULL);
  const am_kernel_ops *k = &array->device->backend->kernels;
  int status = AM_OK;
  if (storage != AM_INT64) {
    am_array *wide = NULL;
    status = k->cast(err, view, AM_INT64, 1, &wide);
    am_array_free(view);
    view = wide;
  }
  int64_t factor = am_temporal_tick_ns(array->type) / tick;
  if (status == AM_OK && factor != 1) {
    am_scalar f = {.type = AM_INT64, .i64 = factor};
    am_array *multiplied = NULL;
    am_err quiet;
    am_err_init(&quiet, err->entry);
    int now = am_wait_now_begin(); /* an overflow is turned into an error of our own */
    status = k->binary(&quiet, AM_MULTIPLY_CHECKED, view, NULL, &f, &multiplied);
    am_wait_now_end(now);
    if (status == AM_EOVERFLOW)
      status = am_fail(err, AM_EINVAL,
                       "Casting from %s to a finer unit would result in out of "
                       "bounds values",
                       am_type_name(array->type));
    else if (status != AM_OK)
      status = am_fail(err, status, "%s", quiet.message);
    am_array_free(view);
    view = multiplied;
  }
  if (status != AM_OK) {
    am_array_free(view);
    return status;
  }
  *out = view;
  return AM_OK;
}

/* A scalar of temporal type `t` as int64 in units of `tick` ns. */
int am_temporal_scaled_scalar(am_err *err, const am_scalar *s, am_type t, int64_t tick,
                              am_scalar *out) {
  *out = *s;
  out->type = AM_INT64;
  int64_t factor = am_temporal_tick_ns(t) / tick;
  if (!s->is_null && __builtin_mul_overflow(s->i64, factor, &out->i64))
    return am_fail(err, AM_EINVAL,
                   "Casting from %s to a finer unit would result in out of bounds values",
                   am_type_name(t));
  return AM_OK;
}

static int compare_kernel(am_err *err, int op, const am_array *left, const am_array *right,
                          const am_scalar *scalar, am_array **out) {
  return left->device->backend->kernels.compare(err, (am_compare_op)op, left, right, scalar, out);
}

static int arith_kernel(am_err *err, int op, const am_array *left, const am_array *right,
                        const am_scalar *scalar, am_array **out) {
  return left->device->backend->kernels.arith(err, (am_arith_op)op, left, right, scalar, out);
}

static int binary_kernel(am_err *err, int op, const am_array *left, const am_array *right,
                         const am_scalar *scalar, am_array **out) {
  return left->device->backend->kernels.binary(err, (am_binary_op)op, left, right, scalar, out);
}

int am_temporal_elementwise(am_err *err, int family_id, int op, const am_array *left,
                            const am_array *right, const am_scalar *scalar, am_array **out) {
  AM_REQUIRE(left, "left");
  AM_REQUIRE(out, "out");
  if (!scalar) AM_REQUIRE(right, "right");
  int status = am_settle(err, left);
  if (status == AM_OK && right) status = am_settle(err, right);
  if (status != AM_OK) return status;
  if (right && left->length != right->length)
    return am_fail(err, AM_EINVAL, "arrays have different lengths (%lld and %lld)",
                   (long long)left->length, (long long)right->length);
  am_type lt = left->type;
  am_type rt = right ? right->type : (am_type)scalar->type;
  if (!right && scalar->is_null && !am_type_valid(rt)) rt = lt;
  /* A scalar carries no time zone: a timestamp one is taken as the array's. */
  const char *ltz = left->timezone;
  const char *rtz = right ? right->timezone : am_type_is_timestamp(rt) ? ltz : NULL;
  int fl = am_temporal_family(lt), fr = am_temporal_family(rt);
  const am_op_desc *desc = am_op_find(family_id, op);
  const char *name = desc ? desc->name : "?";
  int subtract = 0, checked = 0;
  if ((family_id == AM_FAMILY_ARITH && (op == AM_MULTIPLY || op == AM_DIVIDE)) ||
      (family_id == AM_FAMILY_BINARY && (op == AM_MULTIPLY_CHECKED || op == AM_DIVIDE_CHECKED)))
    return am_duration_arith(err, family_id, op, left, right, scalar, lt, rt, out);
  if (family_id == AM_FAMILY_ARITH) {
    if (op != AM_ADD && op != AM_SUBTRACT) return no_kernel(err, name, left, lt, right, rt);
    subtract = op == AM_SUBTRACT;
  } else if (family_id == AM_FAMILY_BINARY) {
    if (op != AM_ADD_CHECKED && op != AM_SUBTRACT_CHECKED)
      return no_kernel(err, name, left, lt, right, rt);
    subtract = op == AM_SUBTRACT_CHECKED;
    checked = 1;
  }
  if (fl == AM_TEMPORAL_NONE || fr == AM_TEMPORAL_NONE)
    return no_kernel(err, name, left, lt, right, rt);
  /* the finer unit of the two (both temporal: each has a unit) */
  int64_t tick = am_temporal_tick_ns(lt) < am_temporal_tick_ns(rt) ? am_temporal_tick_ns(lt)
                                                                   : am_temporal_tick_ns(rt);
  am_type result = AM_BOOL;
  const char *result_tz = NULL;
  if (family_id == AM_FAMILY_COMPARE) {
    if (fl != fr) return no_kernel(err, name, left, lt, right, rt);
    /* pyarrow casts units only within one time zone (or none on both sides) */
    if (fl == AM_TEMPORAL_TIMESTAMP && lt != rt &&
        ((!ltz) != (!rtz) || (ltz && rtz && strcmp(ltz, rtz) != 0)))
      return no_kernel(err, name, left, lt, right, rt);
    if (fl == AM_TEMPORAL_TIMESTAMP && (!ltz) != (!rtz)) {
      char a[128], b[128];
      return am_fail(err, AM_EINVAL,
                     "Cannot compare timestamp with timezone to timestamp without timezone, got: "
                     "%s and %s",
                     type_text(left, lt, a, sizeof a), type_text(right, rt, b, sizeof b));
    }
  } else {
    /* pyarrow's add and subtract: a date is a timestamp without a zone in
     * the finer unit of the two (date32 counting as seconds), then the
     * kernels of equal units */
    int64_t lt_tick = lt == AM_DATE32 ? 1000000000 : am_temporal_tick_ns(lt);
    int64_t rt_tick = rt == AM_DATE32 ? 1000000000 : am_temporal_tick_ns(rt);
    tick = lt_tick < rt_tick ? lt_tick : rt_tick;
    int fa = fl == AM_TEMPORAL_DATE ? AM_TEMPORAL_TIMESTAMP : fl;
    int fb = fr == AM_TEMPORAL_DATE ? AM_TEMPORAL_TIMESTAMP : fr;
    int digits = digits_of_tick(tick);
    if (fa == AM_TEMPORAL_TIMESTAMP && fb == AM_TEMPORAL_TIMESTAMP && subtract) {
      if ((!ltz) != (!rtz))
        return am_fail(err, AM_EINVAL,
                       "Subtraction of zoned and non-zoned times is ambiguous. (%s).",
                       ltz ? ltz : rtz);
      result = am_duration_of_unit(digits);
    } else if (fa == AM_TEMPORAL_TIMESTAMP && fb == AM_TEMPORAL_DURATION) {
      result = am_timestamp_of_unit(digits);
      result_tz = fl == AM_TEMPORAL_TIMESTAMP ? ltz : NULL;
    } else if (fa == AM_TEMPORAL_DURATION && fb == AM_TEMPORAL_TIMESTAMP && !subtract) {
      result = am_timestamp_of_unit(digits);
      result_tz = fr == AM_TEMPORAL_TIMESTAMP ? rtz : NULL;
    } else if (fa == AM_TEMPORAL_DURATION && fb == AM_TEMPORAL_DURATION) {
      result = am_duration_of_unit(digits);
    } else if (fa == AM_TEMPORAL_TIME && fb == AM_TEMPORAL_TIME && subtract) {
      result = am_duration_of_unit(digits);
    } else if ((fa == AM_TEMPORAL_TIME && fb == AM_TEMPORAL_DURATION) ||
               (fa == AM_TEMPORAL_DURATION && fb == AM_TEMPORAL_TIME && !subtract)) {
      return am_time_duration(err, subtract, checked, left, right, scalar, rt,
                              am_time_of_unit(digits), out);
    } else {
      return am_temporal_no_kernel_pair(err, name, left, lt, right, rt, digits);
    }
  }
  am_array *l = NULL, *r = NULL, *made = NULL;
  am_scalar s;
  am_elementwise_kernel kernel = family_id == AM_FAMILY_COMPARE ? compare_kernel
                                 : family_id == AM_FAMILY_ARITH ? arith_kernel
                                                                : binary_kernel;
  /* Same type and a comparison: the storage type as it is (date32 stays
   * int32); otherwise int64 in the common unit. */
  if (family_id == AM_FAMILY_COMPARE && lt == rt) tick = am_temporal_tick_ns(lt);
  if ((status = am_temporal_scaled(err, left, tick, &l)) == AM_OK) {
    if (right)
      status = am_temporal_scaled(err, right, tick, &r);
    else
      status = am_temporal_scaled_scalar(err, scalar, rt, tick, &s);
  }
  if (status == AM_OK) {
    const am_op_desc *int_desc = am_op_find(family_id, op);
    status =
        r ? am_elementwise_arrays(
                err, int_desc, family_id == AM_FAMILY_COMPARE ? AM_ROUTE_COMPARE : AM_ROUTE_ARITH,
                kernel, op, l, r, &made)
          : am_elementwise_scalar(
                err, int_desc, family_id == AM_FAMILY_COMPARE ? AM_ROUTE_COMPARE : AM_ROUTE_ARITH,
                kernel, op, l, &s, &made);
  }
  am_array_free(l);
  am_array_free(r);
  if (status != AM_OK) return status;
  if (result != AM_BOOL) am_retype(made, result, result_tz);
  *out = made;
  return AM_OK;
}
