/* float16 (issue #13) in the ABI: the calls pyarrow computes over it.
 *
 * am_settle refuses a float16 array, so every call that does not test for
 * one refuses it (AM_ETYPE, in pyarrow's words wherever the call checks its
 * op row first: "function 'sum' has no kernel matching input types
 * (halffloat)"). The calls that take it:
 *
 *   - those that only move, select or group values by their bits (filter,
 *     take, concat, drop_null, fill_null, coalesce, if_else,
 *     fill_null_forward/backward, is_null, is_valid, count, unique,
 *     value_counts, dictionary_encode, count_distinct) run on a view of the
 *     array as its uint16 storage (am_bits_begin, am_float16_values), as
 *     temporal types run on theirs, on every backend, and give their value
 *     results the float16 type back;
 *   - the casts (float16_cast.c): float16 <-> float32 / float64 are kernels
 *     of every backend (core/float16.h's bit conversions), the integers go
 *     through float32 or float64 as pyarrow's casts do;
 *   - is_nan, is_finite, is_inf, is_null with nan_is_null, negate,
 *     negate_checked and sign (float16_calls.c): the float32 kernels over
 *     the widened values (exact), or the uint16 ones over the bits. */
#ifndef AM_ABI_FLOAT16_H
#define AM_ABI_FLOAT16_H

#include "abi.h"

/* am_storage_begin (abi.h) for the calls that only move, select or group
 * values: a temporal array, and a float16 one, become views of their
 * storage integers; am_storage_end ends both. */
int am_bits_begin(am_err *err, const am_array **array, am_storage_keep *keep);

/* A float16 scalar (its value in f64) as a uint16 scalar of its bits; other
 * scalars are copied as they are. */
void am_float16_scalar_bits(const am_scalar *in, am_scalar *out);

/* The values of fill_null, coalesce and if_else (`function`; if_else's
 * cond type in `cond`, else AM_TYPE_INVALID) when one is float16: every
 * array and typed scalar must be float16 (pyarrow has no kernel for a mix:
 * AM_ETYPE in its words), and `v` then holds them at their storage type, as
 * am_storage_values does for temporal values. Not active when none is. */
int am_float16_values(am_err *err, const char *function, am_type cond,
                      const am_array *const *arrays, const am_scalar *const *scalars, int64_t count,
                      am_storage_values_t *v);

/* am_storage_list (abi.h) for concat: float16 arrays among `arrays` become
 * views of their storage (the others are shared as they are). */
int am_float16_list(am_err *err, const am_array *const *arrays, int64_t count,
                    am_storage_list_t *list);

/* Whether any of `count` arrays (NULLs skipped) or scalars is float16. */
int am_any_float16(const am_array *const *arrays, const am_scalar *const *scalars, int64_t count);

/* am_cast where `array` or `to` is float16 (pyarrow's pairs, its words for
 * the others). */
int am_float16_cast(am_err *err, const am_array *array, am_type to, int flags, am_array **out);

/* am_is over a float16 array (every predicate). */
int am_float16_is(am_err *err, am_predicate op, int flags, const am_array *array, am_array **out);

/* am_unary over a float16 array: negate, negate_checked, sign; AM_ETYPE in
 * pyarrow's words for the others. */
int am_float16_unary(am_err *err, am_unary_op op, const am_array *array, am_array **out);

/* The uint16 keys count_distinct counts for a float16 array, as pyarrow 26
 * counts them (float16_calls.c); nulls stay null. */
int am_float16_distinct_keys(am_err *err, const am_array *array, am_array **keys);

#endif
