/* Decimals at the ABI (core/decimal.h holds the value arithmetic): the calls
 * that take decimal128 / decimal256 arrays test for them before settling
 * (which refuses them everywhere else) and come here. Every decimal array
 * is a host array: GPUs refuse them (am_decimal_not_on). */
#ifndef AM_ABI_DECIMAL_CALLS_H
#define AM_ABI_DECIMAL_CALLS_H

#include "abi.h"
#include "core/decimal.h"

/* AM_EUNSUPPORTED: "decimals are not yet on <device>". */
int am_decimal_not_on(am_err *err, const am_device *device);

/* Gives a host decimal array its precision and scale from its Arrow format
 * (checked by the import). */
void am_decimal_take_format(am_array *array, const char *format);

/* pyarrow's name of the array's type: "decimal128(10, 2)". */
void am_decimal_type_text(const am_array *array, char *text, size_t capacity);
/* The same of a type and parameters. */
void am_decimal_params_text(am_type type, int32_t precision, int32_t scale, char *text,
                            size_t capacity);

/* Types `array` as decimal `type` of these parameters (a result made over a
 * fixed_size_binary view, or by a kernel that knows only the type). */
void am_decimal_retype(am_array *array, am_type type, int32_t precision, int32_t scale);
/* A fixed_size_binary view of decimal `array` (same buffers, its width in
 * bytes a slot), for the string calls that only move slots. */
int am_decimal_bytes_view(am_err *err, const am_array *array, am_array **out);

/* A decimal (or integer) scalar as the value bytes (`width` of them) of a
 * decimal of `scale` with at most `precision` digits: AM_EINVAL in pyarrow's
 * words when rescaling would lose digits or the value does not fit; AM_ETYPE
 * for a scalar of another type. */
int am_decimal_scalar_value(am_err *err, const am_scalar *scalar, int32_t precision, int32_t scale,
                            am_i256 *out);

/* A decimal's type and parameters. */
typedef struct am_decimal_param {
  am_type type;
  int32_t precision, scale;
} am_decimal_param;

/* The parameters of a decimal operand: `array`'s, or `scalar`'s (an integer
 * scalar is the decimal of its type's digits, scale 0, as pyarrow casts
 * it). AM_ETYPE for another type; AM_EUNSUPPORTED for a negative scale
 * (pyarrow's "Decimals with negative scales not supported"). */
int am_decimal_operand(am_err *err, const am_array *array, const am_scalar *scalar,
                       am_decimal_param *out);
/* The digits of an integer type's widest value (int8 3 ... uint64 20), the
 * precision pyarrow gives it as a decimal of scale 0. */
int am_decimal_integer_digits(am_type integer);
/* A decimal type of `precision` digits: AM_EINVAL in pyarrow's words when
 * the width does not hold them ("Decimal precision out of range [1, 38]"),
 * and when the scale is past int32. Both in 64 bits: callers sum a scalar's
 * scale, which may be any int32, with others. */
int am_decimal_make_param(am_err *err, am_type type, int64_t precision, int64_t scale,
                          am_decimal_param *out);
/* decimal256 when either is, else decimal128. */
am_type am_decimal_wider(am_type a, am_type b);
/* A zeroed host bool array of `length` (with a zeroed validity bitmap). */
int am_decimal_bool_result(am_err *err, int64_t length, int with_validity, am_array **out);
void am_decimal_set_bit(const uint8_t *bits, int64_t i);

/* Slot i of host decimal array `a`: its value and whether it is valid. */
static inline am_i256 am_decimal_at(const am_array *a, int64_t i) {
  int w = am_decimal_bytes(a->type);
  return am_i256_load((const uint8_t *)a->data + (a->offset + i) * w, w);
}
static inline int am_decimal_valid(const am_array *a, int64_t i) {
  int64_t j = a->offset + i;
  return !a->validity || ((a->validity[j >> 3] >> (j & 7)) & 1);
}

/* compare (am_compare_op) of decimal arrays, or with a scalar (decimal or
 * integer), at their common scale (decimal_compare.c). */
int am_decimal_compare(am_err *err, int op, const am_array *left, const am_array *right,
                       const am_scalar *scalar, am_array **out);
/* add, subtract, multiply, divide (am_arith_op; the checked variants are
 * the same) of decimals, or with a decimal or integer scalar
 * (decimal_arith.c). */
int am_decimal_arith(am_err *err, int op, const am_array *left, const am_array *right,
                     const am_scalar *scalar, am_array **out);
/* Whether a call of these inputs is decimal work. */
static inline int am_decimal_inputs(const am_array *left, const am_array *right,
                                    const am_scalar *scalar) {
  return (left && am_type_is_decimal(left->type)) || (right && am_type_is_decimal(right->type)) ||
         (!right && scalar && am_type_is_decimal((am_type)scalar->type));
}
/* am_cast / am_cast_decimal with a decimal on either side (decimal_cast.c):
 * decimal -> decimal, integer or float; integer or float -> decimal (`to`'s
 * precision and scale read only for a decimal target). Other pairs are
 * AM_ETYPE in pyarrow's words ("Unsupported cast from ..."). */
int am_decimal_cast(am_err *err, const am_array *array, am_decimal_param to, int flags,
                    am_array **out);
/* am_aggregate_op SUM, MEAN, MIN, MAX, MIN_MAX (b: the max) of a decimal
 * array; the others AM_ETYPE in pyarrow's words. */
int am_decimal_aggregate(am_err *err, int op, const am_array *array,
                         const am_aggregate_options *options, am_scalar *a, am_scalar *b);

/* The hash-based functions (decimal_hash.c): unique, value_counts and
 * count_distinct in pyarrow's first-occurrence order; is_in (as_bool) and
 * index_in against a decimal value set of any parameters. */
int am_decimal_unique(am_err *err, const am_array *values, am_array **out);
int am_decimal_value_counts(am_err *err, const am_array *values, am_array **values_out,
                            am_array **counts_out);
int am_decimal_count_distinct(am_err *err, const am_array *values, am_count_mode mode,
                              am_scalar *out);
int am_decimal_set_lookup(am_err *err, const am_array *values, const am_array *value_set,
                          int skip_nulls, int as_bool, am_array **out);

/* The entry points' decimal work (decimal_select.c). */
int am_decimal_take(am_err *err, const am_array *values, const am_array *indices, am_array **out);
int am_decimal_filter(am_err *err, const am_array *values, const am_array *mask, int nulls,
                      am_array **out);
int am_decimal_concat(am_err *err, const am_array *const *arrays, int64_t count, am_device *device,
                      am_array **out);
int am_decimal_drop_null(am_err *err, const am_array *values, am_array **out);
/* is_null, is_valid, is_nan, is_inf, is_finite (`op`) of decimal values: as
 * pyarrow's, a decimal is never NaN nor infinite. */
int am_decimal_is(am_err *err, am_predicate op, const am_array *values, am_array **out);
/* coalesce and fill_null (`function` names it) over values k = arrays[k] or
 * scalars[k]; with `cond`, if_else of values 0 (true) and 1 (false). The
 * arrays must share one decimal type, precision and scale; scalars are
 * converted to it. */
int am_decimal_choose(am_err *err, const char *function, const am_array *cond,
                      const am_array *const *arrays, const am_scalar *const *scalars, int64_t count,
                      am_array **out);
/* am_full of a decimal scalar. */
int am_decimal_full(am_err *err, const am_scalar *value, int64_t length, am_device *device,
                    am_array **out);
/* Whether a call of these values is decimal work. */
int am_any_decimal(const am_array *const *arrays, const am_scalar *const *scalars, int64_t count);

#endif
