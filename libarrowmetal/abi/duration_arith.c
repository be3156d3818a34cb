/* Multiply and divide with durations, as pyarrow 26 has them: duration x
 * integer and integer x duration give a duration of its unit, duration /
 * integer a duration, duration / duration float64, and the _checked
 * variants the same types. As pyarrow's dispatch does, the integer is cast
 * to int64 first (a uint64 past int64 fails: "Integer value ... not in
 * range") and the duration is read as its int64 storage; then the int64
 * kernels of multiply / divide run on the array's device: unchecked
 * products wrap and MIN / -1 is 0, the checked variants fail on overflow,
 * a zero divisor fails in both (a null slot's never). duration / duration
 * brings both to the finer unit (pyarrow's checked cast) and divides them
 * as float64, as pyarrow's FloatingDivide: a zero divisor gives an
 * infinity or NaN, which divide_checked refuses. integer / duration and
 * duration x duration have no kernel; every other pair is refused in
 * pyarrow's words, its temporal types named as its second look names them
 * (a date a timestamp, both sides in the finer unit). */
#include "abi.h"
#include "core/ops.h"
#include "route.h"

/* The unit pyarrow's dispatch gives a temporal type: date32 counts as
 * seconds. */
static int digits_of(am_type t) { return t == AM_DATE32 ? 0 : am_type_unit_digits(t); }

/* `array`, a duration or an integer, as int64 (a new handle): a view of a
 * duration's storage, an integer cast as pyarrow casts it (checked). */
static int as_int64(am_err *err, const am_array *array, am_array **out) {
  if (am_type_is_duration(array->type) || array->type == AM_INT64) {
    am_array *view = am_array_share(array);
    if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
    am_retype(view, AM_INT64, NULL);
    *out = view;
    return AM_OK;
  }
  return array->device->backend->kernels.cast(err, array, AM_INT64, 1, out);
}

static int arith_kernel(am_err *err, int op, const am_array *left, const am_array *right,
                        const am_scalar *scalar, am_array **out) {
  return left->device->backend->kernels.arith(err, (am_arith_op)op, left, right, scalar, out);
}

static int binary_kernel(am_err *err, int op, const am_array *left, const am_array *right,
                         const am_scalar *scalar, am_array **out) {
  return left->device->backend->kernels.binary(err, (am_binary_op)op, left, right, scalar, out);
}

/* The op on operands of one numeric type: arrays, or an array and `s`. */
static int run(am_err *err, int family, int op, const am_array *l, const am_array *r,
               const am_scalar *s, am_array **out) {
  const am_op_desc *desc = am_op_find(family, op);
  am_elementwise_kernel kernel = family == AM_FAMILY_ARITH ? arith_kernel : binary_kernel;
  return r ? am_elementwise_arrays(err, desc, AM_ROUTE_ARITH, kernel, op, l, r, out)
           : am_elementwise_scalar(err, desc, AM_ROUTE_ARITH, kernel, op, l, s, out);
}

/* duration x integer, integer x duration, duration / integer: int64 on
 * both sides, typed `result` (the duration's type). */
static int by_integer(am_err *err, int family, int op, const am_array *left, const am_array *right,
                      const am_scalar *scalar, am_type result, am_array **out) {
  am_array *l = NULL, *r = NULL, *made = NULL;
  am_scalar s = {0};
  int status = as_int64(err, left, &l);
  if (status == AM_OK && right) {
    status = as_int64(err, right, &r);
  } else if (status == AM_OK) {
    s = *scalar;
    if (am_type_is_duration((am_type)scalar->type))
      s.type = AM_INT64;
    else
      status = am_scalar_cast(err, scalar, AM_INT64, &s);
  }
  if (status == AM_OK) status = run(err, family, op, l, r, &s, &made);
  am_array_free(l);
  am_array_free(r);
  if (status != AM_OK) return status;
  am_retype(made, result, NULL);
  *out = made;
  return AM_OK;
}

/* `array` (int64) as float64, unchecked: pyarrow's static_cast. */
static int as_double(am_err *err, am_array **array) {
  am_array *d = NULL;
  int status = (*array)->device->backend->kernels.cast(err, *array, AM_FLOAT64, 0, &d);
  am_array_free(*array);
  *array = d;
  return status;
}

/* duration / duration: float64. */
static int ratio(am_err *err, int family, int op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, am_type lt, am_type rt, am_array **out) {
  int64_t tick = am_temporal_tick_ns(lt) < am_temporal_tick_ns(rt) ? am_temporal_tick_ns(lt)
                                                                   : am_temporal_tick_ns(rt);
  am_array *l = NULL, *r = NULL;
  am_scalar s = {0};
  int status = am_temporal_scaled(err, left, tick, &l);
  if (status == AM_OK)
    status = right ? am_temporal_scaled(err, right, tick, &r)
                   : am_temporal_scaled_scalar(err, scalar, rt, tick, &s);
  if (status == AM_OK) status = as_double(err, &l);
  if (status == AM_OK && r) status = as_double(err, &r);
  s.f64 = (double)s.i64;
  s.type = AM_FLOAT64;
  if (status == AM_OK) status = run(err, family, op, l, r, &s, out);
  am_array_free(l);
  am_array_free(r);
  return status;
}

int am_duration_arith(am_err *err, int family, int op, const am_array *left, const am_array *right,
                      const am_scalar *scalar, am_type lt, am_type rt, am_array **out) {
  const am_op_desc *desc = am_op_find(family, op);
  const char *name = desc ? desc->name : "?";
  const int divide = op == (family == AM_FAMILY_ARITH ? AM_DIVIDE : AM_DIVIDE_CHECKED);
  const int ld = am_type_is_duration(lt), rd = am_type_is_duration(rt);
  if (ld && rd && divide) return ratio(err, family, op, left, right, scalar, lt, rt, out);
  if (ld && am_type_is_integer(rt))
    return by_integer(err, family, op, left, right, scalar, lt, out);
  if (rd && am_type_is_integer(lt)) {
    if (!divide) return by_integer(err, family, op, left, right, scalar, rt, out);
    /* pyarrow casts the integer to int64 before it finds no kernel */
    return am_temporal_no_kernel_pair(err, name, left, AM_INT64, right, rt, -1);
  }
  int dl = am_type_is_temporal(lt) ? digits_of(lt) : -1;
  int dr = am_type_is_temporal(rt) ? digits_of(rt) : -1;
  return am_temporal_no_kernel_pair(err, name, left, lt, right, rt, dl > dr ? dl : dr);
}
