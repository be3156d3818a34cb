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

/* The entry points' decimal work (decimal_select.c). */
int am_decimal_take(am_err *err, const am_array *values, const am_array *indices, am_array **out);
int am_decimal_filter(am_err *err, const am_array *values, const am_array *mask, int nulls,
                      am_array **out);
int am_decimal_concat(am_err *err, const am_array *const *arrays, int64_t count, am_device *device,
                      am_array **out);
int am_decimal_drop_null(am_err *err, const am_array *values, am_array **out);
/* is_null (valid = 0) / is_valid (valid = 1). */
int am_decimal_validity(am_err *err, const am_array *values, int valid, am_array **out);
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
