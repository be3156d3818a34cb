/* Strings and binary at the ABI (core/string_array.h holds the array
 * model): the calls that take them test for them before settling (which
 * refuses them everywhere else) and come here. The work here is the host's;
 * inputs on a GPU go to its kernels or to host copies first
 * (string_device.h). */
#ifndef AM_ABI_STRING_CALLS_H
#define AM_ABI_STRING_CALLS_H

#include "abi.h"
#include "core/temporal_text.h"
#include "core/timezone.h"

/* Replaces *host (a host string array whose offsets are misaligned) by an
 * aligned copy; frees it on failure too. */
int am_string_realign(am_err *err, am_array **host);

/* Whether any of the values (arrays[i] or scalars[i]; either list may be
 * NULL) is a string or binary one. */
int am_any_binary(const am_array *const *arrays, const am_scalar *const *scalars, int64_t count);

/* The validity of `in` copied to `out` (a fresh host array of its length),
 * and its null count (string_functions.c). */
void am_string_copy_validity(const am_array *in, am_array *out);

/* am_string_function's trimming ops (string_trim.c) of a host string array,
 * with characters p[0..m) for those that take them. */
int am_string_trim(am_err *err, am_string_op op, const am_array *a, const uint8_t *p, int64_t m,
                   am_array **out);

/* am_string_function's utf8_upper / utf8_lower (string_case.c) of a host
 * string array. */
int am_string_utf8_case(am_err *err, am_string_op op, const am_array *a, am_array **out);

/* filter of a host var-binary or view array by a host bool mask of its
 * length (string_filter.c); emit: a null mask slot is a null output slot. */
int am_string_filter_mask(am_err *err, const am_array *values, const am_array *mask, int emit,
                          am_array **out);

/* The entry points' string work (arguments already checked for NULL). */
int am_string_filter(am_err *err, const am_array *values, const am_array *mask,
                     int null_selection_emit, am_array **out);
int am_string_take(am_err *err, const am_array *values, const am_array *indices, am_array **out);
int am_string_concat(am_err *err, const am_array *const *arrays, int64_t count, am_device *device,
                     am_array **out);
int am_string_drop_null(am_err *err, const am_array *values, am_array **out);
/* is_null (valid = 0) / is_valid (valid = 1): a bool array. */
int am_string_validity(am_err *err, const am_array *values, int valid, am_array **out);

/* A one-slot host array of `scalar` (a string scalar: u64 its bytes'
 * address, i64 their count; or a null) of `type`; AM_ETYPE for another type. */
int am_string_scalar_array(am_err *err, const am_scalar *scalar, am_type type, int32_t byte_width,
                           am_array **out);
/* coalesce (and fill_null, its two-value case): value k is arrays[k] or
 * scalars[k]; every value of one string type. */
int am_string_coalesce(am_err *err, const char *function, const am_array *const *arrays,
                       const am_scalar *const *scalars, int64_t count, am_array **out);
/* if_else: sides[0] / scalars[0] where cond is true, [1] where false. */
int am_string_if_else(am_err *err, const am_array *cond, const am_array *const *sides,
                      const am_scalar *const *scalars, am_array **out);

/* am_full of a string scalar; `length` within 0 to 2^52 (am_full checks it).
 * A fixed_size_binary result has `width` bytes a slot: a valid scalar's i64
 * (am_full), any width for a null one (am_decimal_full's: the decimal's). */
int am_string_full(am_err *err, const am_scalar *value, int32_t width, int64_t length,
                   am_array **out);

/* compare of string arrays (right) or with a string scalar: bytewise. */
int am_string_compare(am_err *err, int op, const am_array *left, const am_array *right,
                      const am_scalar *scalar, am_array **out);
/* min, max, min_max, first, last, first_last (am_aggregate_op) of a string
 * array (b: the second result); the scalars point at copies of the bytes in
 * the thread's storage, valid until its next such call. */
int am_string_aggregate(am_err *err, int op, const am_array *array,
                        const am_aggregate_options *options, am_scalar *a, am_scalar *b);

/* is_in (as_bool) / index_in where the values or the value set are string
 * or binary (string_hash.c), with pyarrow's semantics; abi/hash.c's entry
 * points come here first. A value set of another string type is looked up
 * by its bytes where pyarrow casts it (AM_ETYPE / AM_EINVAL in pyarrow's
 * words where its casts fail). */
int am_string_set_lookup(am_err *err, const am_array *values, const am_array *value_set,
                         int skip_nulls, int as_bool, am_array **out);

/* am_cast between strings and integers or bools (string_cast.c): a host
 * array a whose type or `to` is a string or binary type. AM_ETYPE for the
 * pairs it does not convert. */
int am_string_cast(am_err *err, const am_array *a, am_type to, am_array **out);

/* pyarrow's fast paths of match_like (string_functions.c): the op a LIKE
 * pattern p[0, m) runs as over a string (utf8) or binary type, with *at and
 * *len the part of p it looks for; AM_MATCH_LIKE (and *at, *len untouched)
 * where none applies. */
am_string_op am_string_like_shortcut(const uint8_t *p, int64_t m, int utf8, int64_t *at,
                                     int64_t *len);

/* Whether pyarrow's regular expression of the LIKE pattern p[0, m) over a
 * string type compiles (its literal text is UTF-8 as RE2 reads it); 0 also
 * where memory for the check runs out. */
int am_string_like_valid(const uint8_t *p, int64_t m);

/* AM_EUNSUPPORTED: view arrays live on the host only (string_view_calls.c). */
int am_view_not_on(am_err *err, am_type type, const am_device *device);

/* A view array (string_view, binary_view) given to a call whose kernels
 * read offsets (the functions with string results: case, trims, slices,
 * joins): am_view_begin replaces *array, when it is a view array, by a flat
 * copy of its values (core/string_view.h's am_view_flatten), kept in *keep;
 * am_view_end frees that copy and, when the call succeeded and its result
 * is a flat string array, gives it the view type back (am_view_from_flat:
 * new views over the result's bytes, shared). Returns `status`, or the
 * conversion's failure. Other arrays pass as they are. */
typedef struct am_view_keep {
  am_array *flat; /* NULL when the array was not a view array */
} am_view_keep;
int am_view_begin(am_err *err, const am_array **array, am_view_keep *keep);
int am_view_end(am_err *err, int status, am_view_keep *keep, am_array **out);

/* am_cast of a host string array to another string type where a view type
 * is on either side (string_view_calls.c): views to offsets a copy (as
 * pyarrow's), offsets to views new views over the same bytes, string_view
 * to binary_view the same views. AM_ETYPE for the pairs that need a UTF-8
 * check (binary_view to a string type) and those with fixed_size_binary
 * (pyarrow runs them from Python). */
int am_view_cast(am_err *err, const am_array *a, am_type to, am_array **out);

/* The text of slot i of host array a, written to `text` (room for the
 * bound the caller gives); returns its length. */
typedef int64_t (*am_slot_text_fn)(const void *ctx, const am_array *a, int64_t i, char *text);

/* A utf8 / large_utf8 (`to`) array of a's length (string_format.c): each
 * valid slot's text as `write` makes it, at most `most` bytes; null where a
 * is. A slot `write` has no text for (it returns -1, where pyarrow's
 * formatter fails) fails the call: AM_EINVAL with `no_text`. */
int am_string_from_slots(am_err *err, const am_array *a, am_type to, int64_t most,
                         am_slot_text_fn write, const void *ctx, const char *no_text,
                         am_array **out);

/* am_cast between strings and floats (string_float.c): strings (utf8,
 * large_utf8, binary, large_binary) to float32 / float64, and floats to
 * utf8 / large_utf8, on the host. */
int am_string_to_float(am_err *err, const am_array *a, am_type to, am_array **out);
int am_float_to_string(am_err *err, const am_array *a, am_type to, am_array **out);

/* am_cast between strings and temporal types (string_temporal.c), on the
 * host: utf8 / large_utf8 to a timestamp (`timezone` the target's, NULL or
 * "" for none), date32 or date64; a temporal array to utf8 / large_utf8. */
int am_string_to_temporal(am_err *err, const am_array *a, am_type to, const char *timezone,
                          am_array **out);
/* am_string_to_temporal for am_cast_timestamp (string_cast.c): a GPU
 * array's host copy, the result moved back. */
int am_string_cast_timestamp(am_err *err, const am_array *a, am_type to, const char *timezone,
                             am_array **out);
int am_temporal_to_string(am_err *err, const am_array *a, am_type to, am_array **out);

/* The zone a timestamp's values are written in (string_temporal.c, for the
 * casts to strings and strftime): `timezone` found in the tz database (NULL:
 * no zone, written as UTC); AM_EINVAL in pyarrow's words for an unknown
 * one. A fixed offset's abbreviation (%Z) is its offset, "+0100", as
 * pyarrow writes it. */
typedef struct am_text_zone {
  const am_tz *tz;
  char fixed[16];
} am_text_zone;
int am_text_zone_open(am_err *err, const char *timezone, am_text_zone *z);
/* The offset and abbreviation of value v (per_second ticks a second). */
void am_text_zone_at(const am_text_zone *z, int64_t v, int64_t per_second, am_strftime_zone *out);

/* Whether a three-way comparison `c` (<0, 0, >0) satisfies `op`
 * (string_calls.c; the decimal compare uses it too). */
int am_compare_holds(am_compare_op op, int c);

#endif
