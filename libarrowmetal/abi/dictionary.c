/* The calls on dictionary arrays (abi/dictionary.h says which and how):
 * the ordinary calls (abi/calls.h) on the indices or on the dictionary,
 * and core/dictionary_array.h's loops to read a per-value result at each
 * row's index. */
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"
#include "core/dictionary_array.h"
#include "core/string_array.h"
#include "dictionary.h"

int am_dictionary_not_on(am_err *err, const am_device *device) {
  return am_fail(err, AM_EUNSUPPORTED,
                 "dictionary arrays are not yet on %s (they stay on the CPU for now)",
                 device->name);
}

void am_dictionary_type_name(const am_array *array, char *buf, size_t size) {
  snprintf(buf, size, "dictionary<values=%s, indices=%s, ordered=%d>",
           am_type_name(array->dictionary->type), am_type_name(array->type),
           array->dictionary_ordered);
}

int am_dictionary_refused(am_err *err, const am_array *array) {
  char name[128];
  am_dictionary_type_name(array, name, sizeof name);
  return am_fail(err, AM_ETYPE,
                 "no kernel for %s arrays in this function (dictionary arrays take the calls "
                 "listed under \"Dictionary arrays\" in arrowmetal.h)",
                 name);
}

int am_dictionary_indices(am_err *err, const am_array *array, am_array **out) {
  am_array *view = am_array_make(array->device, array->type, array->length, array->offset,
                                 atomic_load(&((am_array *)array)->null_count),
                                 am_buffer_retain(array->validity_buf), array->validity,
                                 am_buffer_retain(array->data_buf), array->data);
  if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = view;
  return AM_OK;
}

int am_dictionary_attach(am_err *err, am_array *indices, const am_array *like, am_array **out) {
  if (!(indices->dictionary = am_array_share(like->dictionary))) {
    am_array_free(indices);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  indices->dictionary_ordered = like->dictionary_ordered;
  *out = indices;
  return AM_OK;
}

/* Another input of a call on a dictionary array, on the host with it (a
 * GPU input is downloaded: the indices never leave the host). */
static int beside(am_err *err, const am_array *other, am_array **out) {
  return am_to_host(err, other, out);
}

/* A call of the indices (view) that makes indices, whose result keeps the
 * dictionary of `array`. */
typedef int (*indices_call)(am_err *err, const am_array *view, const am_array *other, int arg,
                            am_array **out);

static int on_indices(am_err *err, indices_call call, const am_array *array, const am_array *other,
                      int arg, am_array **out) {
  am_array *view = NULL, *moved = NULL, *result = NULL;
  int status = am_dictionary_indices(err, array, &view);
  if (status == AM_OK && other) status = beside(err, other, &moved);
  if (status == AM_OK) status = call(err, view, moved, arg, &result);
  if (status == AM_OK) status = am_dictionary_attach(err, result, array, out);
  am_array_free(view);
  am_array_free(moved);
  return status;
}

static int take_call(am_err *err, const am_array *view, const am_array *indices, int arg,
                     am_array **out) {
  (void)arg;
  return am_call_take(err, view, indices, out);
}

static int filter_call(am_err *err, const am_array *view, const am_array *mask, int nulls,
                       am_array **out) {
  return am_call_filter(err, view, mask, (am_null_selection)nulls, out);
}

static int drop_null_call(am_err *err, const am_array *view, const am_array *none, int arg,
                          am_array **out) {
  (void)none, (void)arg;
  return am_call_drop_null(err, view, out);
}

static int unique_call(am_err *err, const am_array *view, const am_array *none, int arg,
                       am_array **out) {
  (void)none, (void)arg;
  return am_call_unique(err, view, out);
}

int am_dictionary_take(am_err *err, const am_array *array, const am_array *indices,
                       am_array **out) {
  return on_indices(err, take_call, array, indices, 0, out);
}

int am_dictionary_filter(am_err *err, const am_array *array, const am_array *mask, int nulls,
                         am_array **out) {
  return on_indices(err, filter_call, array, mask, nulls, out);
}

/* pyarrow's drop_null of an array whose every index is null (one at least)
 * is an empty array of the type, whose dictionary is empty too. */
int am_dictionary_drop_null(am_err *err, const am_array *array, am_array **out) {
  int64_t nulls = 0;
  int status = am_count_nulls(err, array, &nulls);
  if (status == AM_OK) status = on_indices(err, drop_null_call, array, NULL, 0, out);
  if (status != AM_OK || nulls == 0 || nulls < array->length) return status;
  am_array *empty = am_array_share((*out)->dictionary);
  if (!empty) {
    am_array_free(*out);
    *out = NULL;
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  empty->length = 0;
  atomic_store(&empty->null_count, 0);
  am_array_free((*out)->dictionary);
  (*out)->dictionary = empty;
  return AM_OK;
}

int am_dictionary_unique(am_err *err, const am_array *array, am_array **out) {
  return on_indices(err, unique_call, array, NULL, 0, out);
}

int am_dictionary_value_counts(am_err *err, const am_array *array, am_array **values,
                               am_array **counts) {
  am_array *view = NULL, *made = NULL, *made_counts = NULL;
  int status = am_dictionary_indices(err, array, &view);
  if (status == AM_OK) status = am_call_value_counts(err, view, &made, &made_counts);
  am_array_free(view);
  if (status == AM_OK && (status = am_dictionary_attach(err, made, array, values)) == AM_OK)
    *counts = made_counts;
  else
    am_array_free(made_counts);
  return status;
}

int am_dictionary_decode_array(am_err *err, const am_array *array, am_array **out) {
  am_array *view = NULL;
  int status = am_dictionary_indices(err, array, &view);
  if (status == AM_OK) status = am_call_take(err, array->dictionary, view, out);
  am_array_free(view);
  return status;
}

/* `map` (a result of one slot a dictionary value, moved in) read at every
 * row's index; a null index gives `fill` (null when fill_is_null). */
static int through(am_err *err, const am_array *array, am_array *map, int fill_is_null,
                   int64_t fill, am_array **out) {
  am_array *view = NULL;
  int status = am_dictionary_indices(err, array, &view);
  if (status == AM_OK) status = am_dictionary_gather(err, view, map, fill_is_null, fill, out);
  am_array_free(view);
  am_array_free(map);
  return status;
}

int am_dictionary_is(am_err *err, int op, int flags, const am_array *array, am_array **out) {
  if (op != AM_IS_NULL && op != AM_IS_VALID) return am_dictionary_refused(err, array);
  am_array *map = NULL;
  int status = am_call_is(err, (am_predicate)op, flags, array->dictionary, &map);
  return status == AM_OK ? through(err, array, map, 0, op == AM_IS_NULL, out) : status;
}

int am_dictionary_logical_nulls(am_err *err, const am_array *array, int64_t *out) {
  int64_t nulls = 0;
  int status = am_count_nulls(err, array->dictionary, &nulls);
  if (status != AM_OK || nulls == 0)
    return status == AM_OK ? am_count_nulls(err, array, out) : status;
  am_array *valid = NULL;
  if ((status = am_dictionary_is(err, AM_IS_VALID, 0, array, &valid)) != AM_OK) return status;
  *out = array->length - am_bool_count_true(valid);
  am_array_free(valid);
  return AM_OK;
}

int am_dictionary_compare(am_err *err, int op, const am_array *left, const am_array *right,
                          const am_scalar *scalar, am_array **out) {
  if (scalar) {
    /* once a dictionary value, then a read a row */
    am_array *map = NULL;
    int status = am_call_compare(err, (am_compare_op)op, left->dictionary, NULL, scalar, &map);
    return status == AM_OK ? through(err, left, map, 1, 0, out) : status;
  }
  /* Two arrays: pyarrow compares the decoded values. */
  am_array *l = NULL, *r = NULL;
  int status = left->dictionary ? am_dictionary_decode_array(err, left, &l) : AM_OK;
  if (status == AM_OK && right->dictionary) status = am_dictionary_decode_array(err, right, &r);
  if (status == AM_OK)
    status = am_call_compare(err, (am_compare_op)op, l ? l : left, r ? r : right, NULL, out);
  am_array_free(l);
  am_array_free(r);
  return status;
}

/* The first null slot of `a`, or -1. */
static int64_t first_null(const am_array *a) {
  for (int64_t i = 0; a->validity && i < a->length; i++)
    if (!am_string_is_valid(a, i)) return i;
  return -1;
}

int am_dictionary_set_lookup(am_err *err, const am_array *values, const am_array *value_set,
                             int skip_nulls, int as_bool, am_array **out) {
  const am_array *dict = values->dictionary;
  am_array *set = NULL, *map = NULL;
  int status = beside(err, value_set, &set);
  if (status != AM_OK) return status;
  /* once a dictionary value (strings: string_hash.c's, sets of another
   * string type as pyarrow casts them) */
  status = am_call_set_lookup(err, dict, set, skip_nulls, as_bool, &map);
  /* A null index is a null value: the set's first null matches it unless
   * skip_nulls (then is_in false, index_in null). */
  const int64_t null_at = status == AM_OK && !skip_nulls ? first_null(set) : -1;
  am_array_free(set);
  if (status != AM_OK) return status;
  if (as_bool) return through(err, values, map, 0, null_at >= 0, out);
  return through(err, values, map, null_at < 0, null_at, out);
}

int am_dictionary_cast(am_err *err, const am_array *array, am_type to, int flags, am_array **out) {
  am_array *decoded = NULL;
  int status = am_dictionary_decode_array(err, array, &decoded);
  if (status != AM_OK || to == decoded->type) {
    if (status == AM_OK) *out = decoded;
    return status;
  }
  status = am_call_cast(err, decoded, to, flags, out);
  am_array_free(decoded);
  return status;
}

/* ---- entry points of their own */

static int decode(am_err *err, const am_array *array, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (!array->dictionary) {
    /* pyarrow gives any other array back as it is */
    *out = am_array_share(array);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  return am_dictionary_decode_array(err, array, out);
}

AM_EXPORT int am_dictionary_decode(const am_array *array, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(decode(err, array, out));
}

AM_EXPORT int am_array_is_dictionary(const am_array *array) {
  return array && array->dictionary ? 1 : 0;
}
