#include "string_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "string_array.h"

/* Why view `v` (of a slot of `array`) would be unsafe to read, as a
 * message; NULL when it is safe. `problem` is written for the messages. */
static const char *view_problem(const uint8_t *v, int64_t count, const void *const *data,
                                const int64_t *sizes, char *problem, size_t room) {
  int32_t n, buffer, at;
  memcpy(&n, v, 4);
  if (n < 0) {
    snprintf(problem, room, "its length %d is negative", (int)n);
    return problem;
  }
  if (n <= AM_VIEW_INLINE) return NULL;
  memcpy(&buffer, v + 8, 4);
  memcpy(&at, v + 12, 4);
  if (buffer < 0 || buffer >= count) {
    snprintf(problem, room,
             "its value of %d bytes names data buffer %d, but the array has %lld data buffers",
             (int)n, (int)buffer, (long long)count);
    return problem;
  }
  if (at < 0) {
    snprintf(problem, room, "its offset %d in data buffer %d is negative", (int)at, (int)buffer);
    return problem;
  }
  if ((int64_t)at + n > sizes[buffer]) {
    snprintf(problem, room, "its bytes [%d, %lld) are past the end of data buffer %d (%lld bytes)",
             (int)at, (long long)at + n, (int)buffer, (long long)sizes[buffer]);
    return problem;
  }
  if (memcmp(v + 4, (const uint8_t *)data[buffer] + at, 4) != 0) {
    snprintf(problem, room,
             "its prefix differs from the first 4 bytes of its value in data buffer %d",
             (int)buffer);
    return problem;
  }
  return NULL;
}

int am_view_check_import(am_err *err, am_type type, const struct ArrowArray *array,
                         int *unsafe_nulls) {
  const int64_t count = array->n_buffers - 3, length = array->length;
  const void *const *buffers = array->buffers;
  const int64_t *sizes = buffers[array->n_buffers - 1];
  const char *name = am_type_name(type);
  *unsafe_nulls = 0;
  if (count > 0 && !sizes)
    return am_fail(err, AM_EINVAL,
                   "%s variadic sizes buffer (buffer %lld, the last) is NULL with %lld data "
                   "buffers",
                   name, (long long)array->n_buffers - 1, (long long)count);
  for (int64_t k = 0; k < count; k++) {
    if (sizes[k] < 0)
      return am_fail(err, AM_EINVAL, "%s data buffer %lld has a negative size (%lld)", name,
                     (long long)k, (long long)sizes[k]);
    if (sizes[k] > 0 && !buffers[2 + k])
      return am_fail(err, AM_EINVAL, "%s data buffer %lld (buffer %lld) is NULL with %lld bytes",
                     name, (long long)k, (long long)k + 2, (long long)sizes[k]);
  }
  const uint8_t *views = buffers[1], *validity = buffers[0];
  if (!views) {
    if (length > 0)
      return am_fail(err, AM_EINVAL, "%s views buffer is NULL with length %lld", name,
                     (long long)length);
    return AM_OK;
  }
  const int nullable = validity && array->null_count != 0;
  const uint8_t *const *data = (const uint8_t *const *)(buffers + 2);
  char problem[160];
  for (int64_t i = 0; i < length; i++) {
    const int64_t at = array->offset + i;
    const uint8_t *v = views + at * AM_VIEW_BYTES;
    /* The sound views without a branch on which kind they are (half inline,
     * half not, at random, mispredicted half the time): the buffer index
     * clamped, its bytes read only when in range (the prefix itself else). */
    int32_t n, buffer, offset;
    uint32_t prefix, first;
    memcpy(&n, v, 4);
    memcpy(&buffer, v + 8, 4);
    memcpy(&offset, v + 12, 4);
    memcpy(&prefix, v + 4, 4);
    const int64_t b = (uint32_t)buffer < (uint64_t)count ? buffer : 0;
    const int in_range = (n > AM_VIEW_INLINE) & ((uint32_t)buffer < (uint64_t)count) &
                         (offset >= 0) & ((int64_t)offset + n <= (count ? sizes[b] : -1));
    const uint8_t *bytes = in_range ? data[b] + offset : (const uint8_t *)&prefix;
    memcpy(&first, bytes, 4);
    if (((uint32_t)n <= AM_VIEW_INLINE) | (in_range & (prefix == first))) continue;
    const char *why = view_problem(v, count, buffers + 2, sizes, problem, sizeof problem);
    if (!why) continue;
    if (nullable && !((validity[at >> 3] >> (at & 7)) & 1)) {
      *unsafe_nulls = 1; /* never read: the caller zeroes it in a copy */
      continue;
    }
    return am_fail(err, AM_EINVAL, "%s view of slot %lld: %s", name, (long long)i, why);
  }
  return AM_OK;
}

int am_view_alloc(am_err *err, am_device *device, am_type type, int64_t length, int with_validity,
                  am_array **out) {
  if (length < 0 || length > AM_MAX_LENGTH)
    return am_fail(err, AM_EINVAL, "length %lld is outside 0 to 2^52", (long long)length);
  const int64_t bytes = length * AM_VIEW_BYTES, bits = (length + 7) / 8 + 1;
  am_buffer *views = am_buffer_alloc_host(bytes > 0 ? bytes : AM_VIEW_BYTES);
  am_buffer *validity = with_validity ? am_buffer_alloc_host(bits) : NULL;
  if (!views || (with_validity && !validity)) {
    am_buffer_release(views);
    am_buffer_release(validity);
    return am_fail(err, AM_ENOMEM, "out of memory allocating %lld slots of %s", (long long)length,
                   am_type_name(type));
  }
  memset(views->ptr, 0, (size_t)(bytes > 0 ? bytes : AM_VIEW_BYTES));
  if (validity) memset(validity->ptr, 0xff, (size_t)bits);
  am_array *array = am_array_make(device, type, length, 0, with_validity ? -1 : 0, validity,
                                  validity ? validity->ptr : NULL, views, views->ptr);
  if (!array) return am_fail(err, AM_ENOMEM, "out of memory");
  *out = array;
  return AM_OK;
}

int am_view_scalar(am_err *err, am_device *device, am_type type, const uint8_t *bytes, int64_t size,
                   int is_null, am_array **out) {
  if (!is_null && size > INT32_MAX)
    return am_fail(err, AM_EOVERFLOW, "a value of %lld bytes does not fit a %s (2^31 - 1 at most)",
                   (long long)size, am_type_name(type));
  am_array *one = NULL;
  int status = am_view_alloc(err, device, type, 1, is_null, &one);
  if (status != AM_OK) return status;
  if (is_null) {
    ((uint8_t *)one->validity)[0] = 0;
    atomic_store(&one->null_count, 1);
    *out = one;
    return AM_OK;
  }
  if (size > AM_VIEW_INLINE) {
    am_buffer *copy = am_buffer_alloc_host(size);
    if (!copy || !(one->variadic = am_variadic_alloc(1))) {
      am_buffer_release(copy);
      am_array_free(one);
      return am_fail(err, AM_ENOMEM, "out of memory");
    }
    memcpy(copy->ptr, bytes, (size_t)size);
    one->variadic->data[0] = copy->ptr;
    one->variadic->sizes[0] = size;
    one->variadic->owners[0] = copy;
    bytes = copy->ptr;
  }
  am_view_write((uint8_t *)one->data, bytes, size, 0, 0);
  *out = one;
  return AM_OK;
}

static int pick_valid(const am_array *const *sources, am_string_pick p) {
  return p.source >= 0 && am_string_is_valid(sources[p.source], p.row);
}

/* The data buffers of a gather's result: one source's shared as they are,
 * or the buffers of every source that gives a value in source order, *base
 * (per source) the index of its first one there. */
static int gather_buffers(am_err *err, const am_array *const *sources, const am_string_pick *picks,
                          int64_t count, int64_t **base, am_variadic **out) {
  int64_t n_sources = 0, single = -1;
  int several = 0;
  for (int64_t j = 0; j < count; j++) {
    if (!pick_valid(sources, picks[j])) continue;
    if (picks[j].source >= n_sources) n_sources = picks[j].source + 1;
    if (single < 0) single = picks[j].source;
    several |= picks[j].source != single;
  }
  *base = NULL;
  if (!several) {
    *out = single >= 0 ? am_variadic_retain(sources[single]->variadic) : NULL;
    return AM_OK;
  }
  unsigned char *used = calloc((size_t)n_sources, 1);
  int64_t *first = calloc((size_t)n_sources, sizeof *first);
  if (!used || !first) {
    free(used);
    free(first);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  for (int64_t j = 0; j < count; j++)
    if (pick_valid(sources, picks[j])) used[picks[j].source] = 1;
  int64_t total = 0;
  for (int64_t k = 0; k < n_sources; k++) {
    first[k] = total;
    if (used[k] && sources[k]->variadic) total += sources[k]->variadic->count;
  }
  free(used);
  if (total > INT32_MAX) {
    free(first);
    return am_fail(err, AM_EOVERFLOW, "%lld data buffers do not fit a view's int32 index",
                   (long long)total);
  }
  am_variadic *v = am_variadic_alloc(total);
  if (!v) {
    free(first);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  for (int64_t k = 0; k < n_sources; k++) {
    const am_variadic *s = sources[k]->variadic;
    /* a source that gives no value has no buffers in the result: its range
     * is empty (the next source's first is the same index) */
    if (!s || first[k] == (k + 1 < n_sources ? first[k + 1] : total)) continue;
    for (int64_t b = 0; b < s->count; b++) {
      v->data[first[k] + b] = s->data[b];
      v->sizes[first[k] + b] = s->sizes[b];
      v->owners[first[k] + b] = am_buffer_retain(s->owners[b]);
    }
  }
  *base = first;
  *out = v;
  return AM_OK;
}

int am_view_gather(am_err *err, am_device *device, am_type type, const am_array *const *sources,
                   const am_string_pick *picks, int64_t count, am_array **out) {
  int64_t nulls = 0;
  for (int64_t j = 0; j < count; j++) nulls += !pick_valid(sources, picks[j]);
  am_array *r = NULL;
  int64_t *base = NULL;
  int status = am_view_alloc(err, device, type, count, nulls > 0, &r);
  if (status == AM_OK) status = gather_buffers(err, sources, picks, count, &base, &r->variadic);
  if (status != AM_OK) {
    am_array_free(r);
    return status;
  }
  uint8_t *views = (uint8_t *)r->data, *validity = (uint8_t *)r->validity;
  for (int64_t j = 0; j < count; j++) {
    const am_string_pick p = picks[j];
    uint8_t *view = views + j * AM_VIEW_BYTES;
    if (!pick_valid(sources, p)) {
      validity[j >> 3] &= (uint8_t)~(1u << (j & 7)); /* its view stays zero: empty */
      continue;
    }
    const am_array *s = sources[p.source];
    memcpy(view, (const uint8_t *)s->data + (s->offset + p.row) * AM_VIEW_BYTES, AM_VIEW_BYTES);
    int32_t n, buffer;
    memcpy(&n, view, 4);
    if (base && n > AM_VIEW_INLINE) {
      memcpy(&buffer, view + 8, 4);
      buffer += (int32_t)base[p.source];
      memcpy(view + 8, &buffer, 4);
    }
  }
  free(base);
  atomic_store(&r->null_count, nulls);
  if (nulls == 0 && r->validity_buf) {
    am_buffer_release(r->validity_buf);
    r->validity_buf = NULL;
    r->validity = NULL;
  }
  *out = r;
  return AM_OK;
}

int am_view_flatten(am_err *err, const am_array *a, am_type to, am_array **out) {
  int64_t total = 0, size;
  const uint8_t *views = (const uint8_t *)a->data + a->offset * AM_VIEW_BYTES;
  for (int64_t i = 0; i < a->length; i++) {
    int32_t n;
    memcpy(&n, views + i * AM_VIEW_BYTES, 4);
    if (!a->validity || am_string_is_valid(a, i)) total += n;
  }
  const am_type flat = to == AM_TYPE_INVALID ? am_view_flat_type(a->type, total) : to;
  am_array *r = NULL;
  int status = am_string_alloc(err, a->device, flat, 0, a->length, total, a->validity != NULL, &r);
  if (status != AM_OK) return status;
  uint8_t *bytes = (uint8_t *)r->bytes, *validity = (uint8_t *)r->validity;
  const int large = am_type_is_large_binary(flat);
  int64_t at = 0, nulls = 0;
  for (int64_t i = 0; i < a->length; i++) {
    if (am_string_is_valid(a, i)) {
      const uint8_t *v = am_view_value(a, i, &size);
      if (size) memcpy(bytes + at, v, (size_t)size);
      at += size;
    } else {
      validity[i >> 3] &= (uint8_t)~(1u << (i & 7));
      nulls++;
    }
    if (large)
      ((int64_t *)r->data)[i + 1] = at;
    else
      ((int32_t *)r->data)[i + 1] = (int32_t)at;
  }
  atomic_store(&r->null_count, nulls);
  *out = r;
  return AM_OK;
}

/* Where from_flat puts each out-of-line value: bytes that fit an int32
 * offset are one run, the whole data buffer (`v` then has room for one run
 * or is NULL when no value can be out of line); past that, runs of at most
 * INT32_MAX bytes, a new one where the next value would pass that. With
 * `v`, the runs' addresses, sizes and owners are written and each value's
 * (run, offset) to views; returns the number of runs. */
static int64_t flat_runs(const am_array *flat, am_variadic *v, uint8_t *views) {
  if (flat->bytes_size <= INT32_MAX) {
    const int64_t start = am_string_offset(flat, 0);
    for (int64_t i = 0; views && i < flat->length; i++) {
      const int64_t at = am_string_offset(flat, i), size = am_string_offset(flat, i + 1) - at;
      if (am_string_is_valid(flat, i))
        am_view_write(views + i * AM_VIEW_BYTES, flat->bytes + at, size, 0, (int32_t)(at - start));
    }
    if (v) {
      v->data[0] = flat->bytes + start;
      v->sizes[0] = am_string_offset(flat, flat->length) - start;
      v->owners[0] = am_buffer_retain(flat->bytes_buf);
    }
    return flat->bytes_size > AM_VIEW_INLINE;
  }
  int64_t runs = 0, base = 0;
  for (int64_t i = 0; i < flat->length; i++) {
    if (!am_string_is_valid(flat, i)) continue;
    int64_t size;
    const uint8_t *value = am_string_value(flat, i, &size);
    if (size <= AM_VIEW_INLINE) {
      if (views) am_view_write(views + i * AM_VIEW_BYTES, value, size, 0, 0);
      continue;
    }
    const int64_t start = value - flat->bytes;
    if (runs == 0 || start + size - base > INT32_MAX) {
      runs++;
      base = start;
      if (v) {
        v->data[runs - 1] = flat->bytes + base;
        v->owners[runs - 1] = am_buffer_retain(flat->bytes_buf);
      }
    }
    if (v && start + size - base > v->sizes[runs - 1]) v->sizes[runs - 1] = start + size - base;
    if (views)
      am_view_write(views + i * AM_VIEW_BYTES, value, size, (int32_t)(runs - 1),
                    (int32_t)(start - base));
  }
  return runs;
}

int am_view_from_flat(am_err *err, const am_array *flat, am_type type, am_array **out) {
  for (int64_t i = 0; flat->bytes_size > INT32_MAX && i < flat->length; i++) {
    int64_t size;
    (void)am_string_value(flat, i, &size);
    if (size > INT32_MAX && am_string_is_valid(flat, i))
      return am_fail(err, AM_EOVERFLOW,
                     "slot %lld's value of %lld bytes does not fit a %s (2^31 - 1 at most)",
                     (long long)i, (long long)size, am_type_name(type));
  }
  am_array *r = NULL;
  int status = am_view_alloc(err, flat->device, type, flat->length, 0, &r);
  if (status != AM_OK) return status;
  const int64_t runs = flat_runs(flat, NULL, NULL);
  if (runs && !(r->variadic = am_variadic_alloc(runs))) {
    am_array_free(r);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  flat_runs(flat, r->variadic, (uint8_t *)r->data);
  /* the validity: shared at offset 0, copied otherwise */
  if (flat->validity && flat->offset == 0) {
    r->validity_buf = am_buffer_retain(flat->validity_buf);
    r->validity = flat->validity;
    atomic_store(&r->null_count, atomic_load(&((am_array *)flat)->null_count));
  } else if (flat->validity) {
    am_buffer *bits = am_buffer_alloc_host((flat->length + 7) / 8 + 1);
    if (!bits) {
      am_array_free(r);
      return am_fail(err, AM_ENOMEM, "out of memory");
    }
    memset(bits->ptr, 0, (size_t)((flat->length + 7) / 8 + 1));
    int64_t nulls = 0;
    for (int64_t i = 0; i < flat->length; i++) {
      if (am_string_is_valid(flat, i))
        ((uint8_t *)bits->ptr)[i >> 3] |= (uint8_t)(1u << (i & 7));
      else
        nulls++;
    }
    r->validity_buf = bits;
    r->validity = bits->ptr;
    atomic_store(&r->null_count, nulls);
  }
  *out = r;
  return AM_OK;
}
