/* pyarrow's unification of dictionaries (ChunkedArray.unify_dictionaries,
 * and concat_arrays of dictionary arrays whose dictionaries differ): one
 * dictionary of every distinct value, the first array's in their order and
 * then each new value as it first occurs, and every array's indices
 * rewritten into it. Values are told apart by their bytes
 * (core/slot_table.h), so any value type unifies, strings included. */
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "core/dictionary_array.h"
#include "core/slot_table.h"
#include "core/string_array.h"
#include "dictionary.h"

/* Dictionary arrays of one type: the indices', the values' and the ordered
 * flag (pyarrow's types differ by it). */
static int check_arrays(am_err *err, const am_array *const *arrays, int64_t count) {
  AM_REQUIRE(arrays, "arrays");
  if (count < 1)
    return am_fail(err, AM_EINVAL, "count %lld: at least one array is needed", (long long)count);
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays[i], *first = arrays[0];
    if (!a) return am_fail(err, AM_EINVAL, "arrays[%lld] is NULL", (long long)i);
    if (!a->dictionary)
      return am_fail(err, AM_ETYPE, "arrays[%lld] is not a dictionary array", (long long)i);
    if (a->type != first->type || a->dictionary->type != first->dictionary->type ||
        a->dictionary->byte_width != first->dictionary->byte_width ||
        a->dictionary->timezone != first->dictionary->timezone ||
        a->dictionary_ordered != first->dictionary_ordered) {
      char one[128], other[128];
      am_dictionary_type_name(a, one, sizeof one);
      am_dictionary_type_name(first, other, sizeof other);
      return am_fail(err, AM_ETYPE, "arrays[%lld] is %s, arrays[0] is %s", (long long)i, one,
                     other);
    }
  }
  return AM_OK;
}

/* The largest index the type holds. */
static int64_t index_limit(am_type type) {
  int bits = am_type_bits(type);
  if (bits >= 64) return INT64_MAX;
  return am_type_is_unsigned(type) ? ((int64_t)1 << bits) - 1 : ((int64_t)1 << (bits - 1)) - 1;
}

/* The unified dictionary and, per array, the id of each of its
 * dictionary's values in it (maps[i], malloc'ed). */
static int unify_values(am_err *err, const am_array *const *arrays, int64_t count, int64_t **maps,
                        am_array **unified) {
  int64_t total = 0;
  for (int64_t i = 0; i < count; i++) {
    int64_t nulls = 0;
    int status = am_count_nulls(err, arrays[i]->dictionary, &nulls);
    if (status != AM_OK) return status;
    if (nulls) return am_fail(err, AM_EINVAL, "Cannot yet unify dictionaries with nulls");
    total += arrays[i]->dictionary->length;
  }
  am_slot_table table;
  int status = am_slot_table_init(err, &table, total);
  if (status != AM_OK) return status;
  /* firsts: each new value's row in the dictionaries laid end to end */
  int64_t *firsts = malloc((size_t)(total + 1) * 8);
  if (!firsts) status = am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0, base = 0; status == AM_OK && i < count; i++) {
    const am_array *dict = arrays[i]->dictionary;
    if (!(maps[i] = malloc((size_t)(dict->length + 1) * 8))) {
      status = am_fail(err, AM_ENOMEM, "out of memory");
      break;
    }
    for (int64_t j = 0; status == AM_OK && j < dict->length; j++) {
      int64_t before = table.count;
      status = am_slot_table_add(err, &table, dict, j, &maps[i][j]);
      if (table.count > before) firsts[before] = base + j;
    }
    base += dict->length;
  }
  if (status == AM_OK && table.count - 1 > index_limit(arrays[0]->type))
    status = am_fail(err, AM_EINVAL,
                     "These dictionaries cannot be combined.  The unified dictionary requires a "
                     "larger index type.");
  am_array **dicts = status == AM_OK ? malloc((size_t)count * sizeof *dicts) : NULL;
  if (status == AM_OK && !dicts) status = am_fail(err, AM_ENOMEM, "out of memory");
  am_array *joined = NULL, *rows = NULL;
  for (int64_t i = 0; status == AM_OK && i < count; i++) dicts[i] = arrays[i]->dictionary;
  if (status == AM_OK)
    status = am_call_concat(err, (const am_array *const *)dicts, count, NULL, &joined);
  if (status == AM_OK)
    status = am_array_alloc_host(err, am_host_device(), AM_INT64, table.count, 0, &rows);
  if (status == AM_OK) {
    memcpy((void *)rows->data, firsts, (size_t)table.count * 8);
    status = am_call_take(err, joined, rows, unified);
  }
  am_array_free(rows);
  am_array_free(joined);
  free(dicts);
  free(firsts);
  am_slot_table_free(&table);
  return status;
}

int am_dictionary_unify(am_err *err, const am_array *const *arrays, int64_t count,
                        am_array **outs) {
  int status = check_arrays(err, arrays, count);
  if (status != AM_OK) return status;
  AM_REQUIRE(outs, "outs");
  int64_t **maps = calloc((size_t)count, sizeof *maps);
  if (!maps) return am_fail(err, AM_ENOMEM, "out of memory");
  am_array *unified = NULL;
  status = unify_values(err, arrays, count, maps, &unified);
  int64_t made = 0;
  for (; status == AM_OK && made < count; made++) {
    am_array *view = NULL, *moved = NULL;
    status = am_dictionary_indices(err, arrays[made], &view);
    if (status == AM_OK) status = am_dictionary_transpose(err, view, maps[made], &moved);
    am_array_free(view);
    if (status != AM_OK) break;
    if (!(moved->dictionary = am_array_share(unified))) {
      am_array_free(moved);
      status = am_fail(err, AM_ENOMEM, "out of memory");
      break;
    }
    moved->dictionary_ordered = arrays[0]->dictionary_ordered;
    outs[made] = moved;
  }
  if (status != AM_OK)
    for (int64_t i = 0; i < made; i++) am_array_free(outs[i]), outs[i] = NULL;
  for (int64_t i = 0; i < count; i++) free(maps[i]);
  free(maps);
  am_array_free(unified);
  return status;
}

/* Whether two dictionaries hold the same values (nulls at the same slots). */
static int same_values(const am_array *a, const am_array *b) {
  if (a == b) return 1;
  if (a->length != b->length) return 0;
  for (int64_t i = 0; i < a->length; i++) {
    int valid = am_string_is_valid(a, i);
    if (valid != am_string_is_valid(b, i)) return 0;
    int64_t n = 0, m = 0;
    const uint8_t *p = am_slot_value(a, i, &n), *q = am_slot_value(b, i, &m);
    if (valid && (n != m || memcmp(p, q, (size_t)n) != 0)) return 0;
  }
  return 1;
}

/* Concatenates the indices of arrays sharing one dictionary, `like`'s. */
static int concat_indices(am_err *err, const am_array *const *arrays, int64_t count,
                          const am_array *like, am_array **out) {
  am_array **views = calloc((size_t)count, sizeof *views);
  if (!views) return am_fail(err, AM_ENOMEM, "out of memory");
  int status = AM_OK;
  for (int64_t i = 0; status == AM_OK && i < count; i++)
    status = am_dictionary_indices(err, arrays[i], &views[i]);
  am_array *joined = NULL;
  if (status == AM_OK)
    status = am_call_concat(err, (const am_array *const *)views, count, NULL, &joined);
  if (status == AM_OK) status = am_dictionary_attach(err, joined, like, out);
  for (int64_t i = 0; i < count; i++) am_array_free(views[i]);
  free(views);
  return status;
}

int am_dictionary_concat(am_err *err, const am_array *const *arrays, int64_t count,
                         am_device *device, am_array **out) {
  int status = check_arrays(err, arrays, count);
  if (status != AM_OK) return status;
  if (device && device != arrays[0]->device) return am_dictionary_not_on(err, device);
  int same = 1;
  for (int64_t i = 1; same && i < count; i++)
    same = same_values(arrays[0]->dictionary, arrays[i]->dictionary);
  if (same) return concat_indices(err, arrays, count, arrays[0], out);
  am_array **unified = calloc((size_t)count, sizeof *unified);
  if (!unified) return am_fail(err, AM_ENOMEM, "out of memory");
  status = am_dictionary_unify(err, arrays, count, unified);
  if (status == AM_OK)
    status = concat_indices(err, (const am_array *const *)unified, count, unified[0], out);
  for (int64_t i = 0; i < count; i++) am_array_free(unified[i]);
  free(unified);
  return status;
}

AM_EXPORT int am_unify_dictionaries(const am_array *const *arrays, int64_t count, am_array **outs) {
  AM_API_BEGIN;
  AM_API_RETURN(am_dictionary_unify(err, arrays, count, outs));
}
