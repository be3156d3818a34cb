/* The hash-based functions over strings and binary (issue #13): is_in,
 * index_in, unique, value_counts, count_distinct and dictionary_encode with
 * pyarrow's semantics, on the host. abi/hash.c branches here for a string
 * or binary input, as it does for decimals and dictionaries.
 *
 * The CPU backend does the hashing, through the backend table: hash_group
 * groups the rows by their bytes (cpu/hash_bytes.c: a 64-bit hash of each
 * row grouped on the numbers' parallel table, then every row checked
 * against its group's first row, exactly), and hash_lookup probes a table
 * of the value set's bytes with every row, over the worker pool. The
 * results are made from the grouping with the string calls (am_string_take),
 * so they are string arrays of the input's type. Inputs on a GPU run on
 * host copies, and the results go back to the input's device
 * (string_device.h). pyarrow's mode has no kernel for strings; neither has
 * abi/hash.c's. */
#include <stdio.h>
#include <string.h>

#include "core/hash.h"
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

/* Moves *a (a host result) to `home` when that is not NULL; frees *a and
 * sets it NULL on failure. */
static int to_home(am_err *err, am_device *home, am_array **a) {
  if (!home || !*a) return AM_OK;
  am_array *moved = NULL;
  int status = am_move(err, *a, home, &moved);
  am_array_free(*a);
  *a = moved;
  return status;
}

/* The grouping of a host string array's rows (core/hash.h). */
static int group(am_err *err, const am_array *a, int flags, am_hash_groups *g) {
  memset(g, 0, sizeof *g);
  g->null_group = -1;
  return host_kernels()->hash_group(err, a, flags, g);
}

/* ---- is_in, index_in */

/* pyarrow casts a value set of another string type to the values' type, or
 * else the values to the set's; where either cast succeeds the lookup is
 * one of bytes, so the pairs where both fail are the errors:
 * fixed_size_binary values and a non-empty set of another width (pyarrow's
 * cast error), string values and a fixed_size_binary set, and
 * fixed_size_binary values and a string set holding a valid value of
 * another length (a type error). The set is on the host. */
static int lookup_pair(am_err *err, const am_array *values, const am_array *set) {
  const int fixed = values->type == AM_FIXED_SIZE_BINARY;
  if (fixed && set->type == AM_FIXED_SIZE_BINARY) {
    if (values->byte_width == set->byte_width || set->length == 0) return AM_OK;
    return am_fail(err, AM_EINVAL,
                   "Failed casting from fixed_size_binary[%d] to fixed_size_binary[%d]: widths "
                   "must match",
                   (int)values->byte_width, (int)set->byte_width);
  }
  if (set->type == AM_FIXED_SIZE_BINARY && am_type_is_utf8(values->type))
    return mismatch(err, values, set);
  if (fixed && am_type_is_utf8(set->type))
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
  /* The values' device is the result's; the set only comes to the host. */
  const am_array *in[1] = {values};
  am_array *set_copy = NULL;
  const am_array *set = value_set;
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK && !(set->device->backend->memory.caps & AM_MEMORY_HOST) &&
      (status = am_to_host(err, value_set, &set_copy)) == AM_OK)
    set = set_copy;
  if (status == AM_OK) status = lookup_pair(err, in[0], set);
  if (status == AM_OK)
    status = host_kernels()->hash_lookup(err, in[0], set, skip_nulls, as_bool, out);
  am_array_free(set_copy);
  return am_string_hosted_end(err, status, &h, out);
}

/* ---- unique, value_counts, count_distinct, dictionary_encode */

int am_string_unique(am_err *err, const am_array *array, am_array **out) {
  const am_array *in[1] = {array};
  am_string_hosted h;
  am_hash_groups g = {.null_group = -1};
  int status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK && (status = group(err, in[0], 0, &g)) == AM_OK)
    status = am_string_take(err, in[0], g.first, out);
  am_hash_groups_free(&g);
  return am_string_hosted_end(err, status, &h, out);
}

int am_string_value_counts(am_err *err, const am_array *array, am_array **values,
                           am_array **counts) {
  const am_array *in[1] = {array};
  am_string_hosted h;
  am_hash_groups g = {.null_group = -1};
  am_array *made = NULL, *made_counts = NULL;
  int status = am_string_hosted_begin(err, in, 1, &h);
  am_device *home = h.home;
  if (status == AM_OK && (status = group(err, in[0], AM_HASH_COUNTS, &g)) == AM_OK &&
      (status = am_string_take(err, in[0], g.first, &made)) == AM_OK) {
    made_counts = g.counts;
    g.counts = NULL;
  }
  am_hash_groups_free(&g);
  status = am_string_hosted_end(err, status, &h, &made);
  if (status == AM_OK) status = to_home(err, home, &made_counts);
  if (status == AM_OK) {
    *values = made;
    *counts = made_counts;
  } else {
    am_array_free(made);
    am_array_free(made_counts);
  }
  return status;
}

int am_string_count_distinct(am_err *err, const am_array *array, am_count_mode mode,
                             am_scalar *out) {
  if ((unsigned)mode > AM_COUNT_ALL)
    return am_fail(err, AM_EINVAL, "unknown count mode %d (0: only_valid, 1: only_null, 2: all)",
                   (int)mode);
  const am_array *in[1] = {array};
  am_string_hosted h;
  am_hash_groups g = {.null_group = -1};
  int status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK && (status = group(err, in[0], 0, &g)) == AM_OK) {
    const int64_t nulls = g.null_group >= 0;
    memset(out, 0, sizeof *out);
    out->type = AM_INT64;
    out->i64 = mode == AM_COUNT_VALID ? g.groups - nulls : mode == AM_COUNT_NULL ? nulls : g.groups;
  }
  am_hash_groups_free(&g);
  return am_string_hosted_end(err, status, &h, NULL);
}

int am_string_dictionary_encode(am_err *err, const am_array *array, am_null_encoding encoding,
                                am_array **out) {
  const am_array *in[1] = {array};
  am_string_hosted h;
  am_hash_groups g = {.null_group = -1};
  am_array *dictionary = NULL, *indices = NULL;
  const int flags = AM_HASH_IDS | (encoding == AM_NULL_ENCODING_MASK ? AM_HASH_MASK_NULLS : 0);
  int status = am_string_hosted_begin(err, in, 1, &h);
  am_device *home = h.home;
  if (status == AM_OK && (status = group(err, in[0], flags, &g)) == AM_OK &&
      (status = am_string_take(err, in[0], g.first, &dictionary)) == AM_OK) {
    indices = g.ids;
    g.ids = NULL;
  }
  am_hash_groups_free(&g);
  status = am_string_hosted_end(err, status, &h, &dictionary);
  if (status == AM_OK) status = to_home(err, home, &indices);
  if (status == AM_OK) {
    /* The indices own the dictionary from here. */
    indices->dictionary = dictionary;
    *out = indices;
  } else {
    am_array_free(dictionary);
    am_array_free(indices);
  }
  return status;
}
