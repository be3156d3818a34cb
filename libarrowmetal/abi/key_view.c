/* Decimal and dictionary keys as views the kernels take (key_view.h). */
#include "key_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "core/bits.h"
#include "core/dictionary_array.h"
#include "core/string_array.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "float16.h"

/* dst (a bitmap at bit 0) = `a`'s validity bits from its offset. */
static void copy_validity(uint8_t *dst, const am_array *a) {
  for (int64_t i = 0; i < a->length; i += 64) {
    const uint64_t w = am_load_bits(a->validity, a->offset + i, a->length - i);
    const int64_t left = (a->length - i + 7) / 8;
    memcpy(dst + i / 8, &w, (size_t)(left < 8 ? left : 8)); /* little-endian, as Arrow's hosts */
  }
}

/* Gives host result r (allocated with a validity bitmap when `a` has one,
 * of a's length) a's validity and null count. */
static void take_validity(am_array *r, const am_array *a) {
  if (!a->validity) return;
  copy_validity((uint8_t *)r->validity, a);
  atomic_store(&r->null_count, atomic_load(&((am_array *)a)->null_count));
}

int am_decimal_order_bytes(am_err *err, const am_array *array, am_array **out) {
  const int w = am_decimal_bytes(array->type);
  const int64_t n = array->length;
  am_array *r = NULL;
  int status = am_string_alloc(err, am_host_device(), AM_FIXED_SIZE_BINARY, w, n, 0,
                               array->validity != NULL, &r);
  if (status != AM_OK) return status;
  const uint8_t *src = (const uint8_t *)array->data + array->offset * (int64_t)w;
  uint8_t *dst = (uint8_t *)r->data;
  for (int64_t i = 0; i < n; i++, src += w, dst += w) {
    for (int b = 0; b < w; b++) dst[b] = src[w - 1 - b];
    dst[0] ^= 0x80;
  }
  if (!array->validity) atomic_store(&r->null_count, 0);
  take_validity(r, array);
  *out = r;
  return AM_OK;
}

int am_decimal_from_order_bytes(am_err *err, const am_array *bytes, am_type type, int32_t precision,
                                int32_t scale, am_array **out) {
  const int w = am_decimal_bytes(type);
  const int64_t n = bytes->length;
  am_array *r = NULL;
  int status = am_array_alloc_host(err, am_host_device(), type, n, bytes->validity != NULL, &r);
  if (status != AM_OK) return status;
  r->precision = precision;
  r->scale = scale;
  const uint8_t *src = (const uint8_t *)bytes->data + bytes->offset * (int64_t)w;
  uint8_t *dst = (uint8_t *)r->data;
  for (int64_t i = 0; i < n; i++, src += w, dst += w) {
    for (int b = 0; b < w; b++) dst[b] = src[w - 1 - b];
    dst[w - 1] ^= 0x80;
  }
  if (!bytes->validity) atomic_store(&r->null_count, 0);
  take_validity(r, bytes);
  *out = r;
  return AM_OK;
}

/* Whether slots x and y of host array `a` (both valid) hold one value in
 * pyarrow's order: bytes for strings, binary and decimals; NaN equals NaN
 * and -0.0 equals 0.0 for floats; the storage bits otherwise. */
static int same_value(const am_array *a, int64_t x, int64_t y) {
  if (am_type_is_binary(a->type)) {
    int64_t nx, ny;
    const uint8_t *px = am_string_value(a, x, &nx), *py = am_string_value(a, y, &ny);
    return nx == ny && (nx == 0 || memcmp(px, py, (size_t)nx) == 0);
  }
  const int64_t i = a->offset + x, j = a->offset + y;
  if (a->type == AM_BOOL) {
    const uint8_t *bits = a->data;
    return ((bits[i >> 3] >> (i & 7)) & 1) == ((bits[j >> 3] >> (j & 7)) & 1);
  }
  if (a->type == AM_FLOAT32) {
    const float p = ((const float *)a->data)[i], q = ((const float *)a->data)[j];
    return p == q || (isnan(p) && isnan(q));
  }
  if (a->type == AM_FLOAT64) {
    const double p = ((const double *)a->data)[i], q = ((const double *)a->data)[j];
    return p == q || (isnan(p) && isnan(q));
  }
  const int w = am_type_is_decimal(a->type) ? am_decimal_bytes(a->type)
                                            : am_type_bits(am_type_storage(a->type)) / 8;
  const uint8_t *d = a->data;
  return memcmp(d + i * w, d + j * w, (size_t)w) == 0;
}

/* ranks[row] = the dense rank of each valid row, from `order` (the rows
 * sorted ascending, nulls at the end). */
static void write_ranks(const am_array *values, const uint64_t *order, am_array *r) {
  int64_t rank = -1;
  for (int64_t p = 0; p < values->length; p++) {
    const int64_t row = (int64_t)order[p];
    if (!am_string_is_valid(values, row)) break; /* the nulls, last */
    if (rank < 0 || !same_value(values, (int64_t)order[p - 1], row)) rank++;
    if (r->type == AM_INT32)
      ((int32_t *)r->data)[row] = (int32_t)rank;
    else
      ((int64_t *)r->data)[row] = rank;
  }
}

int am_value_ranks(am_err *err, const am_array *values, am_type type, am_array **out) {
  const int ascending = 0, at_end = AM_NULLS_AT_END;
  if (type == AM_INT32 && values->length > INT32_MAX)
    return am_fail(err, AM_EUNSUPPORTED, "%lld values are more than int32 ranks hold",
                   (long long)values->length);
  am_array *sorted = NULL, *order = NULL, *host = NULL, *r = NULL;
  int status = am_call_sort_indices(err, &values, 1, &ascending, &at_end, &sorted);
  if (status == AM_OK) status = am_to_host(err, sorted, &order);
  if (status == AM_OK) status = am_to_host(err, values, &host);
  if (status == AM_OK)
    status =
        am_array_alloc_host(err, am_host_device(), type, host->length, host->validity != NULL, &r);
  if (status == AM_OK) {
    memset((void *)r->data, 0, (size_t)am_type_bytes(type, host->length));
    if (!host->validity) atomic_store(&r->null_count, 0);
    take_validity(r, host);
    write_ranks(host, (const uint64_t *)order->data + order->offset, r);
    *out = r;
    r = NULL;
  }
  am_array_free(r);
  am_array_free(host);
  am_array_free(order);
  am_array_free(sorted);
  return status;
}

/* A dictionary array's sort key: its values' ranks at each row's index. */
static int dictionary_ranks(am_err *err, const am_array *array, am_array **out) {
  am_array *map = NULL, *indices = NULL;
  int status = am_value_ranks(err, array->dictionary, AM_INT32, &map);
  if (status == AM_OK) status = am_dictionary_indices(err, array, &indices);
  if (status == AM_OK) status = am_dictionary_gather(err, indices, map, 1, 0, out);
  am_array_free(indices);
  am_array_free(map);
  return status;
}

void am_key_list_free(am_key_list *list) {
  if (!list->views) return; /* `arrays` is the caller's */
  for (int64_t i = 0; i < list->count; i++) am_array_free(list->views[i]);
  free(list->views);
  free((void *)list->arrays);
  list->views = NULL;
  list->arrays = NULL;
}

/* Replaces each key `pick` says needs a view by `make`'s view of it. */
typedef int (*view_maker)(am_err *err, const am_array *key, am_array **view);

static int replace_keys(am_err *err, const am_array *const *keys, int64_t count,
                        int (*pick)(const am_array *key), view_maker make, am_key_list *list) {
  list->arrays = keys;
  list->views = NULL;
  list->count = count;
  int any = 0;
  for (int64_t i = 0; keys && i < count; i++) any |= keys[i] && pick(keys[i]);
  if (!any) return AM_OK;
  const am_array **arrays = calloc((size_t)count, sizeof *arrays);
  list->views = calloc((size_t)count, sizeof *list->views);
  if (!arrays || !list->views) {
    free(arrays);
    free(list->views);
    list->views = NULL;
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  list->arrays = arrays;
  for (int64_t i = 0; i < count; i++) {
    int status = keys[i] && pick(keys[i]) ? make(err, keys[i], &list->views[i]) : AM_OK;
    if (status != AM_OK) {
      am_key_list_free(list);
      return status;
    }
    arrays[i] = list->views[i] ? list->views[i] : keys[i];
  }
  return AM_OK;
}

static int decimal_or_dictionary(const am_array *key) {
  return key->dictionary || am_type_is_decimal(key->type);
}

static int sort_view(am_err *err, const am_array *key, am_array **view) {
  return key->dictionary ? dictionary_ranks(err, key, view)
                         : am_decimal_order_bytes(err, key, view);
}

int am_sort_key_list(am_err *err, const am_array *const *keys, int64_t count, am_key_list *list) {
  for (int64_t i = 0; keys && count > 1 && i < count; i++)
    if (keys[i] && keys[i]->dictionary) { /* pyarrow 26 sorts a dictionary array alone */
      char name[160];
      am_dictionary_type_name(keys[i], name, sizeof name);
      return am_fail(err, AM_ETYPE, "Unsupported type for RecordBatch sorting: %s", name);
    }
  return replace_keys(err, keys, count, decimal_or_dictionary, sort_view, list);
}

static int decimal_ranks(am_err *err, const am_array *key, am_array **view) {
  return am_value_ranks(err, key, AM_INT64, view);
}

static int is_decimal(const am_array *key) { return am_type_is_decimal(key->type); }

int am_rank_key_list(am_err *err, const am_array *const *keys, int64_t count, const char *function,
                     am_key_list *list) {
  for (int64_t i = 0; keys && i < count; i++)
    if (keys[i] && keys[i]->dictionary) { /* pyarrow 26 has none of these for dictionaries */
      char name[160];
      am_dictionary_type_name(keys[i], name, sizeof name);
      if (strcmp(function, "partition_nth_indices") == 0)
        return am_fail(err, AM_ETYPE, "Function '%s' has no kernel matching input types (%s)",
                       function, name);
      return am_fail(err, AM_ETYPE, "%s", name);
    }
  return replace_keys(err, keys, count, is_decimal, decimal_ranks, list);
}

/* pyarrow's name of a join key's type. */
static void key_type_text(const am_array *a, char *text, size_t size) {
  if (a->dictionary)
    am_dictionary_type_name(a, text, size);
  else if (am_type_is_decimal(a->type))
    am_decimal_type_text(a, text, size);
  else
    am_temporal_type_text(a->timezone, a->type, text, size);
}

/* A join key's values as the join's kernels take them: a dictionary
 * array's decoded, a decimal's bytes. */
static int join_view(am_err *err, const am_array *key, am_array **view) {
  am_array *decoded = NULL;
  int status = AM_OK;
  if (key->dictionary) {
    if ((status = am_dictionary_decode_array(err, key, &decoded)) != AM_OK) return status;
    key = decoded;
  }
  if (am_type_is_decimal(key->type)) {
    status = am_decimal_bytes_view(err, key, view);
    am_array_free(decoded);
    return status;
  }
  *view = decoded;
  return AM_OK;
}

/* A join pair with a dictionary key on one side or both, as int32 value ids
 * instead of values decoded: the values (a dictionary's, or a plain key's
 * rows) looked up in the dictionary D of the left key, or of the right where
 * the left has none (index_in, nulls skipped, on storage views: temporal
 * values as integers, float16 as bits, the join's own equality of the
 * values), so that a value's id is the position of its first occurrence in
 * D; a dictionary key's ids are then read at each row's index. A row whose
 * index or value is null, or whose value D lacks, has a null id: it matches
 * no row, as its decoded value would not (a value D lacks matches no row of
 * the side D belongs to). The ids are small integers (the join's dense
 * table), and no string is copied per row (an inner join of 1M rows to a
 * dictionary of 1,000 strings on one thread: 30.5 ms with the values
 * decoded, 15.3 so). */
static int dictionary_pair_views(am_err *err, const am_array *left, const am_array *right,
                                 am_array **left_view, am_array **right_view) {
  const am_array *const keys[2] = {left, right};
  const am_array *const sources[2] = {left->dictionary ? left->dictionary : left,
                                      right->dictionary ? right->dictionary : right};
  am_storage_list_t storage, bits;
  int status = am_storage_list(err, sources, 2, &storage);
  if (status != AM_OK) return status;
  if ((status = am_float16_list(err, storage.arrays, 2, &bits)) != AM_OK) {
    am_storage_list_free(&storage);
    return status;
  }
  const am_array *const *values = bits.arrays;
  const am_array *set = values[left->dictionary ? 0 : 1];
  am_array **views[2] = {left_view, right_view};
  for (int side = 0; status == AM_OK && side < 2; side++) {
    am_array *ids = NULL, *indices = NULL;
    status = am_call_set_lookup(err, values[side], set, 1, 0, &ids);
    if (status == AM_OK && !keys[side]->dictionary) {
      *views[side] = ids; /* a plain key's rows looked up themselves */
      continue;
    }
    if (status == AM_OK) status = am_dictionary_indices(err, keys[side], &indices);
    if (status == AM_OK) status = am_dictionary_gather(err, indices, ids, 1, 0, views[side]);
    am_array_free(indices);
    am_array_free(ids);
  }
  if (status != AM_OK) {
    am_array_free(*left_view);
    *left_view = NULL;
  }
  am_storage_list_free(&bits);
  am_storage_list_free(&storage);
  return status;
}

/* The list of `count` keys to fill with views (NULL slots: the key itself). */
static int key_list_begin(am_err *err, const am_array *const *keys, int64_t count,
                          am_key_list *list) {
  const am_array **arrays = calloc((size_t)count, sizeof *arrays);
  list->views = calloc((size_t)count, sizeof *list->views);
  list->arrays = arrays;
  list->count = count;
  if (!arrays || !list->views) {
    free(arrays);
    free(list->views);
    *list = (am_key_list){keys, NULL, count};
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  for (int64_t i = 0; i < count; i++) arrays[i] = keys[i];
  return AM_OK;
}

int am_join_key_lists(am_err *err, const am_array *const *left, const am_array *const *right,
                      int64_t n_keys, am_key_list *left_list, am_key_list *right_list) {
  *left_list = (am_key_list){left, NULL, n_keys};
  *right_list = (am_key_list){right, NULL, n_keys};
  if (!left || !right || n_keys < 1) return AM_OK;
  int any = 0;
  for (int64_t k = 0; k < n_keys; k++) {
    const am_array *l = left[k], *r = right[k];
    if (!l || !r || !(decimal_or_dictionary(l) || decimal_or_dictionary(r))) continue;
    const am_array *lv = l->dictionary ? l->dictionary : l, *rv = r->dictionary ? r->dictionary : r;
    if (lv->type != rv->type || lv->byte_width != rv->byte_width ||
        lv->precision != rv->precision || lv->scale != rv->scale) {
      char lt[160], rt[160];
      key_type_text(l, lt, sizeof lt);
      key_type_text(r, rt, sizeof rt);
      return am_fail(err, AM_ETYPE,
                     "Incompatible data types for corresponding join field keys: %s and %s", lt,
                     rt);
    }
    any = 1;
  }
  if (!any) return AM_OK;
  int status = key_list_begin(err, left, n_keys, left_list);
  if (status == AM_OK && (status = key_list_begin(err, right, n_keys, right_list)) != AM_OK)
    am_key_list_free(left_list);
  for (int64_t k = 0; status == AM_OK && k < n_keys; k++) {
    const am_array *l = left[k], *r = right[k];
    am_array **lv = &left_list->views[k], **rv = &right_list->views[k];
    if (!l || !r) continue;
    if (l->dictionary || r->dictionary) {
      status = dictionary_pair_views(err, l, r, lv, rv);
    } else {
      if (decimal_or_dictionary(l)) status = join_view(err, l, lv);
      if (status == AM_OK && decimal_or_dictionary(r)) status = join_view(err, r, rv);
    }
    if (*lv) ((const am_array **)left_list->arrays)[k] = *lv;
    if (*rv) ((const am_array **)right_list->arrays)[k] = *rv;
  }
  if (status != AM_OK) {
    am_key_list_free(left_list);
    am_key_list_free(right_list);
  }
  return status;
}
