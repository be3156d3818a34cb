/* am_aggregate, am_min_max, am_first_last, am_index: pyarrow's options
 * applied here wherever they do not depend on the values (the null count
 * decides min_count, skip_nulls and ddof's null results, and an input with
 * nothing valid needs no kernel), then the array's backend measures it
 * (core/aggregate.h says what is decided where). */
#include <math.h>
#include <string.h>

#include "abi.h"
#include "core/aggregate.h"
#include "core/ops.h"
#include "decimal_calls.h"
#include "route.h"
#include "string_calls.h"

static int known_op(am_aggregate_op op) { return (unsigned)op <= (unsigned)AM_AGG_MEAN; }

/* The op table's row: sum, min, max and mean keep theirs in the reduce
 * family. */
static const am_op_desc *desc_of(am_aggregate_op op) {
  switch (op) {
    case AM_AGG_SUM:
      return am_op_find(AM_FAMILY_REDUCE, 0);
    case AM_AGG_MIN:
      return am_op_find(AM_FAMILY_REDUCE, 1);
    case AM_AGG_MAX:
      return am_op_find(AM_FAMILY_REDUCE, 2);
    case AM_AGG_MEAN:
      return am_op_find(AM_FAMILY_REDUCE, 3);
    default:
      return am_op_find(AM_FAMILY_AGGREGATE, (int)op);
  }
}

static void defaults(am_aggregate_op op, am_aggregate_options *out) {
  out->skip_nulls = 1;
  out->min_count = op == AM_AGG_VARIANCE || op == AM_AGG_STDDEV ? 0 : 1;
  out->ddof = 0;
}

static int options_default(am_err *err, am_aggregate_op op, am_aggregate_options *out) {
  AM_REQUIRE(out, "out");
  if (!known_op(op)) return am_fail(err, AM_EINVAL, "unknown aggregate op %d", (int)op);
  defaults(op, out);
  return AM_OK;
}

AM_EXPORT int am_aggregate_options_default(am_aggregate_op op, am_aggregate_options *out) {
  AM_API_BEGIN;
  AM_API_RETURN(options_default(err, op, out));
}

static am_scalar null_scalar(am_type type) {
  am_scalar s;
  memset(&s, 0, sizeof s);
  s.type = type;
  s.is_null = 1;
  return s;
}

/* Whether the op accumulates in double whatever its input: a device without
 * float64 kernels (Metal) leaves it to the CPU over the same memory. */
static int needs_double(am_aggregate_op op, am_type type) {
  return op == AM_AGG_VARIANCE || op == AM_AGG_STDDEV ||
         (op == AM_AGG_PRODUCT && am_type_is_float(type));
}

/* The backend's aggregate kernel over `array` (routed, as every call). */
static int measure(am_err *err, const am_agg_spec *spec, const am_array *array, am_scalar *out,
                   am_scalar *out2) {
  uint64_t types = AM_TYPE_BIT(array->type);
  if (needs_double(spec->op, array->type)) types |= AM_TYPE_BIT(AM_FLOAT64);
  am_route route;
  int status = am_route_inputs(err, AM_ROUTE_REDUCE, types, &array, 1, &route);
  if (status != AM_OK) return status;
  status = route.use[0]->device->backend->kernels.aggregate(err, spec, route.use[0], out, out2);
  am_route_done(&route);
  return status;
}

/* Slot `at` of `array` as a one-slot view. */
static int one_slot(am_err *err, const am_array *array, int64_t at, am_array **out) {
  am_array *view = am_array_share(array);
  if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
  view->offset += at;
  view->length = 1;
  atomic_store(&view->null_count, atomic_load(&view->null_count) == 0 ? 0 : -1);
  *out = view;
  return AM_OK;
}

/* first / last with skip_nulls false: the first (last) slot, null or not,
 * is the first (last) valid slot of a view of that slot alone. */
static int edge_slot(am_err *err, am_agg_spec spec, const am_array *array, am_scalar *out) {
  if (array->length == 0) {
    *out = null_scalar(spec.result_type);
    return AM_OK;
  }
  am_array *view = NULL;
  int status = one_slot(err, array, spec.op == AM_AGG_FIRST ? 0 : array->length - 1, &view);
  if (status != AM_OK) return status;
  spec.skip_nulls = 1;
  status = am_count_nulls(err, view, &spec.nulls);
  if (status == AM_OK && spec.nulls == 1) {
    *out = null_scalar(spec.result_type);
  } else if (status == AM_OK) {
    status = measure(err, &spec, view, out, NULL);
  }
  am_array_free(view);
  return status;
}

/* sum, min, max and mean through the reduce kernels, once the options have
 * left something to reduce. */
static int reduce(am_err *err, am_aggregate_op op, const am_array *array, am_type type,
                  am_scalar *out) {
  am_reduce_op reduce_op = op == AM_AGG_SUM   ? AM_REDUCE_SUM
                           : op == AM_AGG_MIN ? AM_REDUCE_MIN
                           : op == AM_AGG_MAX ? AM_REDUCE_MAX
                                              : AM_REDUCE_MEAN;
  am_route route;
  int status = am_route_inputs(err, AM_ROUTE_REDUCE, AM_TYPE_BIT(array->type), &array, 1, &route);
  if (status != AM_OK) return status;
  status = route.use[0]->device->backend->kernels.reduce(err, reduce_op, route.use[0], type, out);
  am_route_done(&route);
  return status;
}

/* What sum, min, max and mean give over nothing valid (min_count 0). */
static am_scalar empty_reduce(am_aggregate_op op, am_type type) {
  am_scalar s = null_scalar(type);
  if (op == AM_AGG_SUM || op == AM_AGG_MEAN) {
    s.is_null = 0;
    s.f64 = op == AM_AGG_MEAN ? NAN : 0.0;
  }
  return s;
}

static int aggregate(am_err *err, am_aggregate_op op, const am_array *array,
                     const am_aggregate_options *options, am_scalar *out, am_scalar *out2) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (!known_op(op) || op == AM_AGG_INDEX)
    return am_fail(err, AM_EINVAL, "unknown aggregate op %d", (int)op);
  int two = am_agg_outputs(op) == 2;
  if (two) {
    AM_REQUIRE(out2, "the second output");
    if (out2 == out) return am_fail(err, AM_EINVAL, "the two outputs are the same scalar");
  }
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  const am_op_desc *desc = desc_of(op);
  if (!am_accepts(desc, array->type)) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  am_type type = am_result_type(desc, array->type);
  am_aggregate_options opts;
  if (options)
    opts = *options;
  else
    defaults(op, &opts);
  int64_t nulls = 0;
  if ((status = am_count_nulls(err, array, &nulls)) != AM_OK) return status;
  int64_t valid = array->length - nulls;
  am_scalar null_result = null_scalar(type);

  /* Results that the options decide without looking at the values. */
  int ordered = op == AM_AGG_FIRST || op == AM_AGG_LAST || op == AM_AGG_FIRST_LAST;
  int kleene = op == AM_AGG_ANY || op == AM_AGG_ALL;
  int moments = op == AM_AGG_VARIANCE || op == AM_AGG_STDDEV;
  if (valid < (int64_t)opts.min_count || (!opts.skip_nulls && nulls > 0 && !kleene && !ordered) ||
      (moments && valid <= (int64_t)opts.ddof)) {
    *out = null_result;
    if (two) *out2 = null_result;
    return AM_OK;
  }

  if (op >= AM_AGG_SUM) {
    if (valid == 0) {
      *out = empty_reduce(op, type);
      return AM_OK;
    }
    return reduce(err, op, array, type, out);
  }

  am_agg_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.op = op;
  spec.type = array->type;
  spec.result_type = type;
  spec.skip_nulls = opts.skip_nulls != 0;
  spec.ddof = opts.ddof;
  spec.nulls = nulls;

  if (ordered && !opts.skip_nulls) {
    if (op == AM_AGG_FIRST_LAST) {
      /* Into the caller's scalars, which a GPU batch writes at its end. */
      spec.op = AM_AGG_FIRST;
      if ((status = edge_slot(err, spec, array, out)) != AM_OK) return status;
      spec.op = AM_AGG_LAST;
      return edge_slot(err, spec, array, out2);
    }
    return edge_slot(err, spec, array, out);
  }
  if (valid == 0) {
    /* Nothing to measure: the empty statistics give the answer (product 1,
     * any false, all true, both under Kleene logic, variance with ddof < 0
     * zero, the rest null). */
    am_agg_stats empty;
    memset(&empty, 0, sizeof empty);
    empty.position = -1;
    spec.op = op == AM_AGG_FIRST_LAST ? AM_AGG_FIRST : op;
    am_agg_finish(&spec, &empty, out, two ? out2 : NULL);
    if (op == AM_AGG_FIRST_LAST) *out2 = *out;
    return AM_OK;
  }
  if (op == AM_AGG_FIRST_LAST) {
    /* Two kernels: on the CPU each stops at its end's first valid slot; a
     * GPU writes each output when its own kernel has finished. */
    spec.op = AM_AGG_FIRST;
    if ((status = measure(err, &spec, array, out, NULL)) != AM_OK) return status;
    spec.op = AM_AGG_LAST;
    return measure(err, &spec, array, out2, NULL);
  }
  return measure(err, &spec, array, out, two ? out2 : NULL);
}

AM_EXPORT int am_aggregate(am_aggregate_op op, const am_array *array,
                           const am_aggregate_options *options, am_scalar *out) {
  AM_API_BEGIN;
  if (op == AM_AGG_MIN_MAX || op == AM_AGG_FIRST_LAST)
    AM_API_RETURN(am_fail(err, AM_EINVAL, "op %d has two results: call %s", (int)op,
                          op == AM_AGG_MIN_MAX ? "am_min_max" : "am_first_last"));
  if (op == AM_AGG_INDEX)
    AM_API_RETURN(am_fail(err, AM_EINVAL, "index takes a value: call am_index"));
  if (array && out && am_type_is_decimal(array->type))
    AM_API_RETURN(am_decimal_aggregate(err, (int)op, array, options, out, NULL));
  if (array && out && am_type_is_binary(array->type) &&
      (op == AM_AGG_MIN || op == AM_AGG_MAX || op == AM_AGG_FIRST || op == AM_AGG_LAST))
    AM_API_RETURN(am_string_aggregate(err, (int)op, array, options, out, NULL));
  /* Of the aggregates, temporal types take those that pick a value; float16
   * none. */
  if (array && (am_type_is_temporal(array->type) || array->type == AM_FLOAT16) &&
      op != AM_AGG_MIN && op != AM_AGG_MAX && op != AM_AGG_FIRST && op != AM_AGG_LAST) {
    const am_op_desc *desc = am_op_find(AM_FAMILY_AGGREGATE, (int)op);
    AM_API_RETURN(am_temporal_no_kernel(err, desc ? desc->name : "aggregate", array));
  }
  /* pyarrow: none of durations or float16 */
  if (array && (am_type_is_duration(array->type) || array->type == AM_FLOAT16))
    AM_API_RETURN(am_temporal_no_kernel(
        err, op == AM_AGG_MIN || op == AM_AGG_MAX ? "min_max" : "first_last", array));
  am_storage_keep keep;
  int status = am_storage_begin_scalars(err, &array, &keep);
  if (status == AM_OK) status = aggregate(err, op, array, options, out, NULL);
  AM_API_RETURN(am_storage_end_scalars(status, &keep, out, NULL));
}

AM_EXPORT int am_min_max(const am_array *array, const am_aggregate_options *options, am_scalar *min,
                         am_scalar *max) {
  AM_API_BEGIN;
  if (array && min && max && am_type_is_binary(array->type))
    AM_API_RETURN(am_string_aggregate(err, AM_AGG_MIN_MAX, array, options, min, max));
  if (array && min && max && am_type_is_decimal(array->type))
    AM_API_RETURN(am_decimal_aggregate(err, AM_AGG_MIN_MAX, array, options, min, max));
  if (array && (am_type_is_duration(array->type) || array->type == AM_FLOAT16))
    AM_API_RETURN(am_temporal_no_kernel(err, "min_max", array));
  am_storage_keep keep;
  int status = am_storage_begin_scalars(err, &array, &keep);
  if (status == AM_OK) status = aggregate(err, AM_AGG_MIN_MAX, array, options, min, max);
  AM_API_RETURN(am_storage_end_scalars(status, &keep, min, max));
}

AM_EXPORT int am_first_last(const am_array *array, const am_aggregate_options *options,
                            am_scalar *first, am_scalar *last) {
  AM_API_BEGIN;
  if (array && first && last && am_type_is_decimal(array->type))
    AM_API_RETURN(am_decimal_aggregate(err, AM_AGG_FIRST_LAST, array, options, first, last));
  if (array && first && last && am_type_is_binary(array->type))
    AM_API_RETURN(am_string_aggregate(err, AM_AGG_FIRST_LAST, array, options, first, last));
  if (array && (am_type_is_duration(array->type) || array->type == AM_FLOAT16))
    AM_API_RETURN(am_temporal_no_kernel(err, "first_last", array));
  am_storage_keep keep;
  int status = am_storage_begin_scalars(err, &array, &keep);
  if (status == AM_OK) status = aggregate(err, AM_AGG_FIRST_LAST, array, options, first, last);
  AM_API_RETURN(am_storage_end_scalars(status, &keep, first, last));
}

/* `value` as a valid scalar of `type` (the kernels compare in that type), or
 * AM_EINVAL when an integer does not fit. */
static int index_value(am_err *err, const am_scalar *value, am_type type, am_scalar *out) {
  am_scalar v = *value;
  v.type = type;
  if (type == AM_BOOL) {
    v.i64 = value->i64 != 0;
  } else if (type == AM_FLOAT32) {
    v.f64 = (double)(float)value->f64;
  } else if (am_type_is_signed(type)) {
    int bits = am_type_bits(type);
    int64_t hi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
    if (value->i64 > hi || value->i64 < -hi - 1)
      return am_fail(err, AM_EINVAL, "value %lld does not fit %s", (long long)value->i64,
                     am_type_name(type));
  } else if (am_type_is_unsigned(type)) {
    int bits = am_type_bits(type);
    uint64_t hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    if (value->u64 > hi)
      return am_fail(err, AM_EINVAL, "value %llu does not fit %s", (unsigned long long)value->u64,
                     am_type_name(type));
  }
  *out = v;
  return AM_OK;
}

static int index_of(am_err *err, const am_array *array, const am_scalar *value, am_scalar *out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(value, "value");
  AM_REQUIRE(out, "out");
  const am_op_desc *desc = desc_of(AM_AGG_INDEX);
  if (array->type == AM_FLOAT16) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  if (!am_accepts(desc, array->type)) return am_no_kernel(err, desc, array->type, AM_TYPE_INVALID);
  /* A null of no type is a null of the array's (as am_compare_scalar's). */
  int type = value->is_null && !am_type_valid(value->type) ? (int)array->type : value->type;
  if (type != (int)array->type)
    return am_fail(err, AM_ETYPE, "Expected IndexOptions.value to be of type %s, but got %s",
                   am_type_name(array->type),
                   am_type_valid(type) ? am_type_name((am_type)type) : "an invalid type");
  am_agg_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.op = AM_AGG_INDEX;
  spec.type = array->type;
  spec.result_type = AM_INT64;
  spec.skip_nulls = 1;
  if (!value->is_null && (status = index_value(err, value, array->type, &spec.value)) != AM_OK)
    return status;
  if ((status = am_count_nulls(err, array, &spec.nulls)) != AM_OK) return status;
  if (value->is_null || spec.nulls == array->length) {
    /* A null is found nowhere, and nothing is found where all is null. */
    am_agg_stats none;
    memset(&none, 0, sizeof none);
    none.position = -1;
    am_agg_finish(&spec, &none, out, NULL);
    return AM_OK;
  }
  return measure(err, &spec, array, out, NULL);
}

AM_EXPORT int am_index(const am_array *array, const am_scalar *value, am_scalar *out) {
  AM_API_BEGIN;
  AM_API_RETURN(index_of(err, array, value, out));
}
