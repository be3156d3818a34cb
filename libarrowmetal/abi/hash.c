/* The hash-based functions (am_is_in, am_index_in, am_unique,
 * am_value_counts, am_count_distinct, am_dictionary_encode, am_mode): the
 * backend groups the rows by value (core/hash.h) and everything else is
 * made here from that grouping with the backend's take, so that every
 * backend shares one answer to pyarrow's orders and null rules. Dictionary
 * and decimal inputs branch first to dictionary.c and decimal_hash.c, and
 * is_in / index_in of strings to string_hash.c.
 *
 * A backend without hash kernels answers AM_EUNSUPPORTED; the call then
 * runs on the host and its results go back to the input's device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "calls.h"
#include "core/hash.h"
#include "core/ops.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "float16.h"
#include "route.h"
#include "string_calls.h"

/* Where a grouping ran: the device (the input's, or the host), and the
 * input as it is there. */
typedef struct place {
  am_device *home; /* the input's device, where results belong */
  const am_array *use;
  am_array *moved; /* the host copy, when the grouping ran there */
} place;

static void place_done(place *p) { am_array_free(p->moved); }

/* Groups `array` where its backend can, else on the host. */
static int group(am_err *err, const am_array *array, int flags, am_hash_groups *groups, place *p) {
  memset(p, 0, sizeof *p);
  memset(groups, 0, sizeof *groups);
  groups->null_group = -1;
  p->home = array->device;
  p->use = array;
  /* strings group by their bytes (cpu/hash_bytes.c, gpu/ops_strings.c); a
   * GPU declines those it has no kernels for (fixed_size_binary, views, a
   * hash clash), which are grouped from a host copy */
  am_err attempt;
  am_err_init(&attempt, err->entry);
  int status = array->device->backend->kernels.hash_group(&attempt, array, flags, groups);
  am_err_merge(err, &attempt, status != AM_EUNSUPPORTED);
  if (status != AM_EUNSUPPORTED || (array->device->backend->memory.caps & AM_MEMORY_HOST))
    return status;
  if ((status = am_to_host(err, array, &p->moved)) != AM_OK) return status;
  p->use = p->moved;
  return p->moved->device->backend->kernels.hash_group(err, p->moved, flags, groups);
}

/* Moves a result made where the grouping ran to the input's device. */
static int deliver(am_err *err, const place *p, am_array *result, am_array **out) {
  if (result->device == p->home) {
    *out = result;
    return AM_OK;
  }
  am_array *moved = NULL;
  int status = am_move(err, result, p->home, &moved);
  am_array_free(result);
  if (status == AM_OK) *out = moved;
  return status;
}

static int take(am_err *err, const am_array *values, const am_array *indices, am_array **out) {
  if (am_type_is_binary(values->type)) return am_string_take(err, values, indices, out);
  return values->device->backend->kernels.take(err, values, indices, out);
}

/* The calls made of a grouping alone, which group strings and binary
 * (views included) by their bytes on the host (cpu/hash_bytes.c). */
static int groups_bytes(const char *name) {
  return strcmp(name, "unique") == 0 || strcmp(name, "value_counts") == 0 ||
         strcmp(name, "count_distinct") == 0 || strcmp(name, "dictionary_encode") == 0;
}

static int check_input(am_err *err, const am_array *array, const char *name) {
  AM_REQUIRE(array, "array");
  if (am_type_is_binary(array->type) && groups_bytes(name)) return AM_OK;
  if (array->type == AM_FLOAT16) /* is_in, index_in, mode: pyarrow has none */
    return am_fail(err, AM_ETYPE, "function '%s' has no kernel matching input types (halffloat)",
                   name);
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  const am_op_desc *desc = NULL;
  for (int i = 0; i < am_op_count; i++)
    if (strcmp(am_ops[i].name, name) == 0) desc = &am_ops[i];
  if (!desc || !am_accepts(desc, array->type))
    return am_fail(err, AM_ETYPE, "function '%s' has no kernel matching input types (%s)", name,
                   am_type_name(array->type));
  return AM_OK;
}

/* ---- is_in, index_in */
static int set_lookup(am_err *err, const am_array *values, const am_array *value_set,
                      int skip_nulls, int as_bool, am_array **out) {
  const char *name = as_bool ? "is_in" : "index_in";
  int status = check_input(err, values, name);
  if (status != AM_OK) return status;
  AM_REQUIRE(value_set, "value_set");
  AM_REQUIRE(out, "out");
  if ((status = am_settle(err, value_set)) != AM_OK) return status;
  if (value_set->type != values->type)
    return am_fail(err, AM_ETYPE, "Array type doesn't match type of values set: %s vs %s",
                   am_type_name(values->type), am_type_name(value_set->type));
  /* The value set meets the values on their device. */
  am_array *set = NULL, *host_values = NULL, *host_set = NULL, *result = NULL;
  if ((status = am_move(err, value_set, values->device, &set)) != AM_OK) return status;
  const am_backend *backend = values->device->backend;
  status = backend->kernels.hash_lookup(err, values, set, skip_nulls != 0, as_bool, &result);
  if (status == AM_EUNSUPPORTED && !(backend->memory.caps & AM_MEMORY_HOST)) {
    if ((status = am_to_host(err, values, &host_values)) == AM_OK &&
        (status = am_to_host(err, set, &host_set)) == AM_OK)
      status = host_values->device->backend->kernels.hash_lookup(err, host_values, host_set,
                                                                 skip_nulls != 0, as_bool, &result);
  }
  if (status == AM_OK) {
    place p = {.home = values->device};
    status = deliver(err, &p, result, out);
  }
  am_array_free(set);
  am_array_free(host_values);
  am_array_free(host_set);
  return status;
}

/* A temporal value set goes only with values of its type (pyarrow casts
 * others, which runs in pyarrow). */
static int temporal_pair(am_err *err, const am_array *values, const am_array *value_set) {
  if (values && value_set && values->type != value_set->type &&
      (am_type_is_temporal(values->type) || am_type_is_temporal(value_set->type)))
    return am_fail(err, AM_ETYPE, "Array type didn't match type of values set: %s vs %s",
                   am_type_name(values->type), am_type_name(value_set->type));
  return AM_OK;
}

int am_call_set_lookup(am_err *err, const am_array *values, const am_array *value_set,
                       int skip_nulls, int as_bool, am_array **out) {
  if (values && value_set && out && values->dictionary)
    return am_dictionary_set_lookup(err, values, value_set, skip_nulls, as_bool, out);
  if (values && value_set && out && am_type_is_decimal(values->type))
    return am_decimal_set_lookup(err, values, value_set, skip_nulls, as_bool, out);
  if (values && value_set && out &&
      (am_type_is_binary(values->type) || am_type_is_binary(value_set->type)))
    return am_string_set_lookup(err, values, value_set, skip_nulls, as_bool, out);
  /* both empty until begun: a temporal pair refused first begins neither */
  am_storage_keep keep = {NULL, NULL}, keep_set = {NULL, NULL};
  int status = temporal_pair(err, values, value_set);
  if (status == AM_OK) status = am_storage_begin(err, &values, &keep);
  if (status == AM_OK && (status = am_storage_begin(err, &value_set, &keep_set)) == AM_OK)
    status = set_lookup(err, values, value_set, skip_nulls, as_bool, out);
  am_storage_end(status, &keep_set, NULL);
  return am_storage_end(status, &keep, NULL);
}

AM_EXPORT int am_is_in(const am_array *values, const am_array *value_set, int skip_nulls,
                       am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_set_lookup(err, values, value_set, skip_nulls, 1, out));
}

AM_EXPORT int am_index_in(const am_array *values, const am_array *value_set, int skip_nulls,
                          am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_set_lookup(err, values, value_set, skip_nulls, 0, out));
}

/* ---- unique, value_counts, dictionary_encode */

/* The values of the groups (their first rows), where the grouping ran. */
static int group_values(am_err *err, const place *p, const am_hash_groups *groups, am_array **out) {
  return take(err, p->use, groups->first, out);
}

static int unique(am_err *err, const am_array *array, am_array **out) {
  int status = check_input(err, array, "unique");
  if (status != AM_OK) return status;
  AM_REQUIRE(out, "out");
  am_hash_groups groups;
  place p;
  am_array *values = NULL;
  if ((status = group(err, array, 0, &groups, &p)) == AM_OK &&
      (status = group_values(err, &p, &groups, &values)) == AM_OK)
    status = deliver(err, &p, values, out);
  am_hash_groups_free(&groups);
  place_done(&p);
  return status;
}

int am_call_unique(am_err *err, const am_array *array, am_array **out) {
  if (array && out && array->dictionary) return am_dictionary_unique(err, array, out);
  if (array && out && am_type_is_decimal(array->type)) return am_decimal_unique(err, array, out);
  am_storage_keep keep;
  int status = am_bits_begin(err, &array, &keep);
  if (status == AM_OK) status = unique(err, array, out);
  return am_storage_end(status, &keep, out);
}

AM_EXPORT int am_unique(const am_array *array, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_unique(err, array, out));
}

static int value_counts(am_err *err, const am_array *array, am_array **values_out,
                        am_array **counts_out) {
  int status = check_input(err, array, "value_counts");
  if (status != AM_OK) return status;
  AM_REQUIRE(values_out, "values");
  AM_REQUIRE(counts_out, "counts");
  am_hash_groups groups;
  place p;
  am_array *made = NULL, *values = NULL, *counts = NULL;
  if ((status = group(err, array, AM_HASH_COUNTS, &groups, &p)) == AM_OK &&
      (status = group_values(err, &p, &groups, &made)) == AM_OK &&
      (status = deliver(err, &p, made, &values)) == AM_OK) {
    status = deliver(err, &p, groups.counts, &counts);
    groups.counts = NULL;
    if (status == AM_OK) {
      *values_out = values;
      *counts_out = counts;
      values = NULL;
    }
  }
  am_array_free(values);
  am_hash_groups_free(&groups);
  place_done(&p);
  return status;
}

int am_call_value_counts(am_err *err, const am_array *array, am_array **values, am_array **counts) {
  if (array && values && counts && array->dictionary)
    return am_dictionary_value_counts(err, array, values, counts);
  if (array && values && counts && am_type_is_decimal(array->type))
    return am_decimal_value_counts(err, array, values, counts);
  am_storage_keep keep;
  int status = am_bits_begin(err, &array, &keep);
  if (status == AM_OK) status = value_counts(err, array, values, counts);
  return am_storage_end(status, &keep, values);
}

AM_EXPORT int am_value_counts(const am_array *array, am_array **values, am_array **counts) {
  AM_API_BEGIN;
  AM_API_RETURN(am_call_value_counts(err, array, values, counts));
}

static int dictionary_encode(am_err *err, const am_array *array, am_null_encoding encoding,
                             am_array **out) {
  if (encoding != AM_NULL_ENCODING_MASK && encoding != AM_NULL_ENCODING_ENCODE)
    return am_fail(err, AM_EINVAL, "unknown null_encoding %d (0: mask, 1: encode)", (int)encoding);
  if (array && out && array->dictionary) {
    /* pyarrow returns a dictionary array as it is, under either encoding */
    *out = am_array_share(array);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  int status = check_input(err, array, "dictionary_encode");
  if (status != AM_OK) return status;
  AM_REQUIRE(out, "out");
  int flags = AM_HASH_IDS | (encoding == AM_NULL_ENCODING_MASK ? AM_HASH_MASK_NULLS : 0);
  am_hash_groups groups;
  place p;
  am_array *made = NULL, *dictionary = NULL, *indices = NULL;
  if ((status = group(err, array, flags, &groups, &p)) == AM_OK &&
      (status = group_values(err, &p, &groups, &made)) == AM_OK &&
      (status = deliver(err, &p, made, &dictionary)) == AM_OK) {
    status = deliver(err, &p, groups.ids, &indices);
    groups.ids = NULL;
    if (status == AM_OK) {
      /* The indices own the dictionary from here. */
      indices->dictionary = dictionary;
      dictionary = NULL;
      *out = indices;
    }
  }
  am_array_free(dictionary);
  am_hash_groups_free(&groups);
  place_done(&p);
  return status;
}

AM_EXPORT int am_dictionary_encode(const am_array *array, am_null_encoding null_encoding,
                                   am_array **out) {
  AM_API_BEGIN;
  if (!array || array->type != AM_FLOAT16 || array->dictionary)
    AM_API_RETURN(dictionary_encode(err, array, null_encoding, out));
  /* float16 groups by its bits; the dictionary takes its type back */
  am_storage_keep keep;
  int status = am_bits_begin(err, &array, &keep);
  if (status == AM_OK && (status = dictionary_encode(err, array, null_encoding, out)) == AM_OK)
    am_retype((*out)->dictionary, AM_FLOAT16, NULL);
  AM_API_RETURN(am_storage_end(status, &keep, NULL));
}

static int dictionary_of(am_err *err, const am_array *array, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (!array->dictionary) return am_fail(err, AM_EINVAL, "the array has no dictionary");
  *out = am_array_share(array->dictionary);
  return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
}

AM_EXPORT int am_dictionary(const am_array *array, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(dictionary_of(err, array, out));
}

/* ---- count_distinct */
static int count_distinct(am_err *err, const am_array *array, am_count_mode mode, am_scalar *out) {
  int status = check_input(err, array, "count_distinct");
  if (status != AM_OK) return status;
  if ((unsigned)mode > AM_COUNT_ALL)
    return am_fail(err, AM_EINVAL, "unknown count mode %d (0: only_valid, 1: only_null, 2: all)",
                   (int)mode);
  AM_REQUIRE(out, "out");
  am_hash_groups groups;
  place p;
  if ((status = group(err, array, 0, &groups, &p)) == AM_OK) {
    int64_t nulls = groups.null_group >= 0;
    memset(out, 0, sizeof *out);
    out->type = AM_INT64;
    out->i64 = mode == AM_COUNT_VALID  ? groups.groups - nulls
               : mode == AM_COUNT_NULL ? nulls
                                       : groups.groups;
  }
  am_hash_groups_free(&groups);
  place_done(&p);
  return status;
}

AM_EXPORT int am_count_distinct(const am_array *array, am_count_mode mode, am_scalar *out) {
  AM_API_BEGIN;
  if (array && out && am_type_is_decimal(array->type))
    AM_API_RETURN(am_decimal_count_distinct(err, array, mode, out));
  if (array && out && array->type == AM_FLOAT16 && !array->dictionary) {
    am_array *keys = NULL; /* pyarrow's keys (float16_calls.c) */
    int status = am_float16_distinct_keys(err, array, &keys);
    if (status == AM_OK) status = count_distinct(err, keys, mode, out);
    am_array_free(keys);
    AM_API_RETURN(status);
  }
  am_storage_keep keep;
  int status = am_storage_begin(err, &array, &keep);
  if (status == AM_OK) status = count_distinct(err, array, mode, out);
  AM_API_RETURN(am_storage_end(status, &keep, NULL));
}

/* ---- mode: the rows grouped where they are (on a GPU by its own table),
 * then the groups' values and counts ordered on the host (the groups are few
 * next to the rows, and a GPU's would be downloaded to be read). */
typedef struct mode_key {
  int64_t count;
  int64_t group;
  double f;   /* floats */
  int64_t i;  /* signed integers, booleans */
  uint64_t u; /* unsigned integers */
  int nan;
  int kind; /* am_type_kind of the values */
} mode_key;

/* Values ascending (NaN after every number); 0 for equal values. */
static int value_cmp(const mode_key *a, const mode_key *b) {
  if (a->kind == AM_KIND_FLOAT) {
    if (a->nan != b->nan) return a->nan ? 1 : -1;
    if (!a->nan && a->f != b->f) return a->f < b->f ? -1 : 1;
  } else if (a->kind == AM_KIND_UNSIGNED) {
    if (a->u != b->u) return a->u < b->u ? -1 : 1;
  } else if (a->i != b->i) {
    return a->i < b->i ? -1 : 1;
  }
  return 0;
}

/* By value, equal values (0.0 and -0.0, NaNs of any bits) in the order of
 * their first occurrences: brings together the groups mode counts as one. */
static int by_value(const void *pa, const void *pb) {
  const mode_key *a = pa, *b = pb;
  int c = value_cmp(a, b);
  return c ? c : (a->group < b->group ? -1 : a->group > b->group);
}

/* pyarrow's order of modes: count descending, then value ascending. */
static int mode_cmp(const void *pa, const void *pb) {
  const mode_key *a = pa, *b = pb;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  int c = value_cmp(a, b);
  return c ? c : (a->group < b->group ? -1 : a->group > b->group);
}

static void read_key(const am_array *values, int64_t row, mode_key *k) {
  int64_t j = values->offset + row;
  const void *d = values->data;
  switch (values->type) {
    case AM_BOOL:
      k->i = (((const uint8_t *)d)[j >> 3] >> (j & 7)) & 1;
      break;
    case AM_INT8:
      k->i = ((const int8_t *)d)[j];
      break;
    case AM_INT16:
      k->i = ((const int16_t *)d)[j];
      break;
    case AM_INT32:
      k->i = ((const int32_t *)d)[j];
      break;
    case AM_INT64:
      k->i = ((const int64_t *)d)[j];
      break;
    case AM_UINT8:
      k->u = ((const uint8_t *)d)[j];
      break;
    case AM_UINT16:
      k->u = ((const uint16_t *)d)[j];
      break;
    case AM_UINT32:
      k->u = ((const uint32_t *)d)[j];
      break;
    case AM_UINT64:
      k->u = ((const uint64_t *)d)[j];
      break;
    case AM_FLOAT32:
      k->f = ((const float *)d)[j];
      k->nan = isnan(k->f);
      break;
    default:
      k->f = ((const double *)d)[j];
      k->nan = isnan(k->f);
      break;
  }
}

/* Ascending integers from `values` into a new host int64 array. */
static int int64_host(am_err *err, const int64_t *values, int64_t n, am_array **out) {
  int status = am_array_alloc_host(err, am_host_device(), AM_INT64, n, 0, out);
  if (status == AM_OK && n) memcpy((void *)(*out)->data, values, (size_t)n * 8);
  return status;
}

/* The values grouped for mode on a GPU: floats with -0.0 as 0.0 and every
 * NaN as one (x + 0.0, then NaN where x is NaN), so that the groups are
 * mode's; other types as they are. */
static int mode_keys(am_err *err, const am_array *array, am_array **out) {
  const am_kernel_ops *k = &array->device->backend->kernels;
  if (!am_type_is_float(array->type)) {
    *out = am_array_share(array);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  const am_scalar zero = {.type = array->type, .f64 = 0.0};
  const am_scalar nan = {.type = array->type, .f64 = NAN};
  am_array *plus = NULL, *is_nan = NULL;
  int status = k->arith(err, AM_ADD, array, NULL, &zero, &plus);
  if (status == AM_OK) status = k->predicate(err, AM_IS_NAN, 0, array, &is_nan);
  if (status == AM_OK) status = k->if_else(err, is_nan, NULL, &nan, plus, NULL, out);
  am_array_free(plus);
  am_array_free(is_nan);
  return status;
}

/* mode where the array's device groups and sorts (a GPU): its groups are
 * ordered there (count descending, then value ascending, NaN last, the null
 * group's null value after every other of its count) and only the first n,
 * one more when there is a null group, come to the host: their values taken
 * from the array at the groups' first rows (a zero's bits as it first
 * occurs), into *host; the modes are rows *rows_out of it with counts
 * *counts (scratch, *chosen of each), the null group left out. *done is 0
 * when the device cannot (the host path runs). */
static int mode_on_device(am_err *err, const am_array *array, int64_t n, am_array **host,
                          int64_t **rows_out, int64_t **counts, int64_t *chosen, int *done) {
  const am_kernel_ops *k = &array->device->backend->kernels;
  am_hash_groups groups = {.null_group = -1};
  am_array *keyed = NULL, *group_vals = NULL, *order = NULL, *head = NULL, *rows = NULL;
  am_array *values = NULL, *top_counts = NULL, *host_order = NULL, *host_counts = NULL;
  *done = 0;
  /* a refusal (AM_EUNSUPPORTED) leaves the work to the host, its message
   * unseen */
  am_err tried;
  am_err_init(&tried, err->entry);
  int status = mode_keys(&tried, array, &keyed);
  if (status == AM_OK) status = k->hash_group(&tried, keyed, AM_HASH_COUNTS, &groups);
  if (status == AM_OK) status = take(&tried, keyed, groups.first, &group_vals);
  if (status == AM_OK) {
    const am_array *sort_keys[2] = {groups.counts, group_vals};
    const int descending[2] = {1, 0}, nulls_first[2] = {0, 0};
    status = k->sort_indices(&tried, sort_keys, 2, descending, nulls_first, &order);
  }
  am_err_merge(err, &tried, status != AM_OK && status != AM_EUNSUPPORTED);
  if (status == AM_EUNSUPPORTED) status = AM_OK;
  if (status != AM_OK || !order) goto done;
  *done = 1;
  const int64_t wanted = n + (groups.null_group >= 0);
  if (!(head = am_array_share(order))) goto nomem;
  head->type = AM_INT64; /* group ids: the same bits */
  if (head->length > wanted) head->length = wanted;
  if ((status = take(err, groups.first, head, &rows)) != AM_OK ||
      (status = take(err, array, rows, &values)) != AM_OK ||
      (status = take(err, groups.counts, head, &top_counts)) != AM_OK ||
      (status = am_to_host(err, values, host)) != AM_OK ||
      (status = am_to_host(err, head, &host_order)) != AM_OK ||
      (status = am_to_host(err, top_counts, &host_counts)) != AM_OK)
    goto done;
  const int64_t m = head->length;
  const int64_t *group = (const int64_t *)host_order->data + host_order->offset;
  const int64_t *count = (const int64_t *)host_counts->data + host_counts->offset;
  if (!(*rows_out = am_scratch_alloc((m ? m : 1) * 8)) ||
      !(*counts = am_scratch_alloc((m ? m : 1) * 8)))
    goto nomem;
  int64_t kept = 0;
  for (int64_t i = 0; i < m && kept < n; i++) {
    if (group[i] == groups.null_group) continue;
    (*rows_out)[kept] = i;
    (*counts)[kept++] = count[i];
  }
  *chosen = kept;
  goto done;
nomem:
  status = am_fail(err, AM_ENOMEM, "out of memory");
done:
  am_hash_groups_free(&groups);
  am_array_free(keyed);
  am_array_free(group_vals);
  am_array_free(order);
  am_array_free(head);
  am_array_free(rows);
  am_array_free(values);
  am_array_free(top_counts);
  am_array_free(host_order);
  am_array_free(host_counts);
  return status;
}

static int mode(am_err *err, const am_array *array, int64_t n, int skip_nulls, int64_t min_count,
                am_array **modes_out, am_array **counts_out) {
  int status = check_input(err, array, "mode");
  if (status != AM_OK) return status;
  AM_REQUIRE(modes_out, "modes");
  AM_REQUIRE(counts_out, "counts");
  if (n <= 0) return am_fail(err, AM_EINVAL, "ModeOptions::n must be strictly positive");
  if (min_count < 0)
    return am_fail(err, AM_EINVAL, "min_count must be >= 0, not %lld", (long long)min_count);
  int64_t nulls = 0;
  if ((status = am_count_nulls(err, array, &nulls)) != AM_OK) return status;
  am_hash_groups groups = {.null_group = -1};
  place p = {.home = array->device};
  mode_key *keys = NULL;
  int64_t *rows = NULL, *counts = NULL, chosen = 0;
  /* host: the groups' values (row i: group i) on the host. */
  am_array *host = NULL, *host_counts = NULL, *group_vals = NULL;
  am_array *indices = NULL, *modes = NULL, *count_array = NULL;
  int empty = (!skip_nulls && nulls > 0) || array->length - nulls < min_count;
  if (empty) {
    status = am_array_alloc_host(err, am_host_device(), array->type, 0, 0, &host);
    if (status != AM_OK) goto done;
  } else {
    int done_there = 0;
    if (!(array->device->backend->memory.caps & AM_MEMORY_HOST) &&
        ((status = mode_on_device(err, array, n, &host, &rows, &counts, &chosen, &done_there)) !=
             AM_OK ||
         done_there))
      goto ordered;
    /* Grouped where the array is (a GPU's own table where it has one):
     * only the groups' values and counts come to the host. */
    if ((status = group(err, array, AM_HASH_COUNTS, &groups, &p)) != AM_OK ||
        (status = group_values(err, &p, &groups, &group_vals)) != AM_OK ||
        (status = am_to_host(err, group_vals, &host)) != AM_OK ||
        (status = am_to_host(err, groups.counts, &host_counts)) != AM_OK)
      goto done;
    int64_t g = groups.groups;
    keys = am_scratch_alloc((g ? g : 1) * (int64_t)sizeof *keys); /* counted scratch */
    if (!keys) goto nomem;
    const int64_t *count = (const int64_t *)host_counts->data + host_counts->offset;
    for (int64_t i = 0; i < g; i++) {
      if (i == groups.null_group) continue;
      mode_key *k = &keys[chosen++];
      memset(k, 0, sizeof *k);
      k->count = count[i];
      k->group = i;
      k->kind = am_type_kind_of(host->type);
      read_key(host, i, k);
    }
    /* Unlike the other hash functions, pyarrow's mode compares floats by
     * value: 0.0 and -0.0 are one mode (shown as the first occurrence's
     * bits), and every NaN is one (shown as the canonical NaN). */
    if (am_type_is_float(host->type) && chosen > 1) {
      qsort(keys, (size_t)chosen, sizeof *keys, by_value);
      int64_t kept = 0;
      for (int64_t i = 0; i < chosen; i++) {
        if (kept && value_cmp(&keys[kept - 1], &keys[i]) == 0)
          keys[kept - 1].count += keys[i].count;
        else
          keys[kept++] = keys[i];
      }
      chosen = kept;
    }
    qsort(keys, (size_t)chosen, sizeof *keys, mode_cmp);
    if (chosen > n) chosen = n;
    rows = am_scratch_alloc((chosen ? chosen : 1) * 8);
    counts = am_scratch_alloc((chosen ? chosen : 1) * 8);
    if (!rows || !counts) goto nomem;
    for (int64_t i = 0; i < chosen; i++) {
      rows[i] = keys[i].group;
      counts[i] = keys[i].count;
    }
  }
ordered:
  if (status != AM_OK) goto done;
  if ((status = int64_host(err, rows, chosen, &indices)) != AM_OK ||
      (status = int64_host(err, counts, chosen, &count_array)) != AM_OK ||
      (status = take(err, host, indices, &modes)) != AM_OK)
    goto done;
  /* every NaN mode shown as the canonical NaN */
  for (int64_t i = 0; i < chosen && host->type == AM_FLOAT32; i++) {
    float *v = (float *)modes->data + modes->offset + i;
    if (isnan(*v)) memcpy(v, &(uint32_t){0x7fc00000u}, 4);
  }
  for (int64_t i = 0; i < chosen && host->type == AM_FLOAT64; i++) {
    double *v = (double *)modes->data + modes->offset + i;
    if (isnan(*v)) memcpy(v, &(uint64_t){0x7ff8000000000000ull}, 8);
  }
  if ((status = am_place(err, modes, array->device, &modes)) != AM_OK) {
    modes = NULL;
    goto done;
  }
  if ((status = am_place(err, count_array, array->device, &count_array)) != AM_OK) {
    count_array = NULL;
    goto done;
  }
  *modes_out = modes;
  *counts_out = count_array;
  modes = count_array = NULL;
  goto done;
nomem:
  status = am_fail(err, AM_ENOMEM, "out of memory");
done:
  am_scratch_free(keys);
  am_scratch_free(rows);
  am_scratch_free(counts);
  am_array_free(indices);
  am_array_free(modes);
  am_array_free(count_array);
  am_hash_groups_free(&groups);
  place_done(&p);
  am_array_free(group_vals);
  am_array_free(host_counts);
  am_array_free(host);
  return status;
}

AM_EXPORT int am_mode(const am_array *array, int64_t n, int skip_nulls, int64_t min_count,
                      am_array **modes, am_array **counts) {
  AM_API_BEGIN;
  AM_API_RETURN(mode(err, array, n, skip_nulls, min_count, modes, counts));
}
