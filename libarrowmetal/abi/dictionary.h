/* Dictionary arrays at the ABI (core/array.h: an am_array whose `dictionary`
 * is set; its own type and buffers are the indices'). They live on the host:
 * GPUs refuse them (am_dictionary_not_on). The entry points that take them
 * test for them first (as they do for strings) and come here; am_settle
 * refuses them everywhere else. pyarrow's semantics: take, filter, slice and
 * drop_null keep the dictionary and work on the indices; compare, is_in and
 * index_in compute once per dictionary value and read that at each row's
 * index; unique and value_counts group the indices and keep the dictionary;
 * is_null, is_valid and count see a null index and an index of a null
 * dictionary value as null. */
#ifndef AM_ABI_DICTIONARY_H
#define AM_ABI_DICTIONARY_H

#include "abi.h"

/* AM_EUNSUPPORTED: "dictionary arrays are not yet on <device>". */
int am_dictionary_not_on(am_err *err, const am_device *device);

/* AM_ETYPE for a call with no kernel for dictionary arrays, in pyarrow's
 * words: "function 'sum' has no kernel matching input types
 * (dictionary<values=string, indices=int8, ordered=0>)". */
int am_dictionary_no_kernel(am_err *err, const char *function, const am_array *array);

/* pyarrow's name of a dictionary array's type, into buf. */
void am_dictionary_type_name(const am_array *array, char *buf, size_t size);

/* import.c's work for one array's struct (any supported format); `indices`:
 * the struct is a dictionary array's, imported as its indices. */
int am_import_host(am_err *err, const struct ArrowSchema *schema, struct ArrowArray *array,
                   int indices, am_array **host_out);
/* dictionary_import.c: a dictionary array (schema->dictionary set): the
 * indices and the dictionary zero-copy, the indices checked against the
 * dictionary's length. `array` is moved in as by am_import. */
int am_import_dictionary(am_err *err, const struct ArrowSchema *schema, struct ArrowArray *array,
                         am_array **out);

/* A handle over the indices of dictionary array `array` (no dictionary). */
int am_dictionary_indices(am_err *err, const am_array *array, am_array **out);
/* Gives `indices` (a result of the indices' type, moved in) the dictionary
 * and ordered flag of `like`; *out is the dictionary array. */
int am_dictionary_attach(am_err *err, am_array *indices, const am_array *like, am_array **out);

/* The calls' dictionary work (arguments checked for NULL by the callers). */
int am_dictionary_decode_array(am_err *err, const am_array *array, am_array **out);
int am_dictionary_take(am_err *err, const am_array *array, const am_array *indices, am_array **out);
int am_dictionary_filter(am_err *err, const am_array *array, const am_array *mask, int nulls,
                         am_array **out);
int am_dictionary_drop_null(am_err *err, const am_array *array, am_array **out);
/* is_null / is_valid (op: am_predicate; flags: AM_NAN_IS_NULL). */
int am_dictionary_is(am_err *err, int op, int flags, const am_array *array, am_array **out);
/* compare: exactly one of right / scalar; either side may be the dictionary
 * array (a scalar goes on the right). */
int am_dictionary_compare(am_err *err, int op, const am_array *left, const am_array *right,
                          const am_scalar *scalar, am_array **out);
int am_dictionary_set_lookup(am_err *err, const am_array *values, const am_array *value_set,
                             int skip_nulls, int as_bool, am_array **out);
int am_dictionary_unique(am_err *err, const am_array *array, am_array **out);
int am_dictionary_value_counts(am_err *err, const am_array *array, am_array **values,
                               am_array **counts);
/* count's null rows: null indices and indices of null dictionary values. */
int am_dictionary_logical_nulls(am_err *err, const am_array *array, int64_t *out);
/* cast to the dictionary's value type (decode) or, through it, further. */
int am_dictionary_cast(am_err *err, const am_array *array, am_type to, int flags, am_array **out);

/* dictionary_unify.c: pyarrow's unify_dictionaries: one dictionary of every
 * array's values (the first array's, then each new value in order) and
 * each array's indices rewritten into it (outs[i], of the same index type).
 * AM_EINVAL where a dictionary holds a null or the unified dictionary does
 * not fit the index type, AM_ETYPE for arrays of different types. */
int am_dictionary_unify(am_err *err, const am_array *const *arrays, int64_t count, am_array **outs);
/* concat of dictionary arrays: their indices after a unification, unless
 * every dictionary is the first's (then they are kept, as pyarrow). */
int am_dictionary_concat(am_err *err, const am_array *const *arrays, int64_t count,
                         am_device *device, am_array **out);

#endif
