/* is_in and index_in over strings and binary (issue #13), with pyarrow's
 * semantics, on the host: abi/hash.c branches here when the values or the
 * value set are string or binary, as it does for decimals and dictionaries.
 * (unique, value_counts, count_distinct and dictionary_encode of strings are
 * hash.c's own path: its grouping is the CPU backend's over their bytes,
 * from a host copy where the array lives on a GPU. pyarrow's mode has no
 * kernel for strings; neither has the library's.)
 *
 * The CPU backend does the lookup, through the backend table: hash_lookup
 * builds a table of the value set's bytes and probes it with every row over
 * the worker pool (cpu/hash_bytes.c). This file settles which pairs of
 * string types meet, as pyarrow's casts decide; a lookup is then one of
 * bytes. Values on a GPU run on a host copy, and the result goes back to
 * their device (string_device.h); a set on a GPU is copied to the host. */
#include <stdio.h>
#include <string.h>

#include "core/string_array.h"
#include "dictionary.h"
#include "route.h"
#include "string_calls.h"
#include "string_device.h"

static const am_kernel_ops *host_kernels(void) { return &am_host_device()->backend->kernels; }

/* pyarrow's name of an array's type ("fixed_size_binary[3]", a dictionary's
 * "dictionary<values=string, ...>"), in buf when it is made. */
static const char *type_text(const am_array *a, char *buf, size_t size) {
  if (a->dictionary) {
    am_dictionary_type_name(a, buf, size);
    return buf;
  }
  if (a->type != AM_FIXED_SIZE_BINARY) return am_type_name(a->type);
  snprintf(buf, size, "fixed_size_binary[%d]", (int)a->byte_width);
  return buf;
}

static int mismatch(am_err *err, const am_array *values, const am_array *set) {
  char a[160], b[160];
  return am_fail(err, AM_ETYPE, "Array type doesn't match type of values set: %s vs %s",
                 type_text(values, a, sizeof a), type_text(set, b, sizeof b));
}

/* ---- is_in, index_in */

/* pyarrow casts a value set of another string type to the values' type, or
 * else the values to the set's; where either cast succeeds the lookup is
 * one of bytes, so the pairs where both fail are the errors:
 * fixed_size_binary values and a non-empty set of another width (pyarrow's
 * cast error), string values and a fixed_size_binary or view set, and
 * fixed_size_binary values and a string set holding a valid value of
 * another length (a type error). View values have no kernel in pyarrow.
 * Divergence: pyarrow 26 casts a view set for fixed_size_binary values
 * without checking the widths, and then matches wrongly (every row its
 * first value); here such a set is looked up by its bytes. The set is on
 * the host. */
static int lookup_pair(am_err *err, const am_array *values, const am_array *set, int as_bool) {
  if (am_type_is_view(values->type))
    return am_fail(err, AM_ETYPE, "Function '%s' has no kernel matching input types (%s)",
                   as_bool ? "is_in" : "index_in", am_type_name(values->type));
  const int fixed = values->type == AM_FIXED_SIZE_BINARY;
  if (fixed && set->type == AM_FIXED_SIZE_BINARY) {
    if (values->byte_width == set->byte_width || set->length == 0) return AM_OK;
    return am_fail(err, AM_EINVAL,
                   "Failed casting from fixed_size_binary[%d] to fixed_size_binary[%d]: widths "
                   "must match",
                   (int)values->byte_width, (int)set->byte_width);
  }
  if (am_type_is_utf8(values->type) &&
      (set->type == AM_FIXED_SIZE_BINARY || am_type_is_view(set->type)))
    return mismatch(err, values, set);
  if (fixed && (set->type == AM_UTF8 || set->type == AM_LARGE_UTF8))
    for (int64_t i = 0; i < set->length; i++) {
      int64_t n;
      am_string_value(set, i, &n);
      if (n != values->byte_width && am_string_is_valid(set, i)) return mismatch(err, values, set);
    }
  return AM_OK;
}

int am_string_set_lookup(am_err *err, const am_array *values, const am_array *value_set,
                         int skip_nulls, int as_bool, am_array **out) {
  if (value_set->dictionary || !am_type_is_binary(values->type) ||
      !am_type_is_binary(value_set->type))
    return mismatch(err, values, value_set);
  /* Values and a set of one var-binary type on one GPU: its kernels (a
   * set whose values clash, or a device without them, declines). */
  const am_backend *backend = values->device->backend;
  if (!(backend->memory.caps & AM_MEMORY_HOST) && value_set->device == values->device &&
      value_set->type == values->type && am_type_is_var_binary(values->type)) {
    am_err attempt;
    am_err_init(&attempt, err->entry);
    int status =
        backend->kernels.hash_lookup(&attempt, values, value_set, skip_nulls, as_bool, out);
    am_err_merge(err, &attempt, status != AM_EUNSUPPORTED);
    if (status != AM_EUNSUPPORTED) return status;
  }
  /* The values' device is the result's; the set only comes to the host. */
  const am_array *in[1] = {values};
  am_array *set_copy = NULL;
  const am_array *set = value_set;
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK && !(set->device->backend->memory.caps & AM_MEMORY_HOST) &&
      (status = am_to_host(err, value_set, &set_copy)) == AM_OK)
    set = set_copy;
  if (status == AM_OK) status = lookup_pair(err, in[0], set, as_bool);
  if (status == AM_OK)
    status = host_kernels()->hash_lookup(err, in[0], set, skip_nulls, as_bool, out);
  am_array_free(set_copy);
  return am_string_hosted_end(err, status, &h, out);
}
