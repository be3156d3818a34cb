/* The trimming ops of am_string_function (ascii_/utf8_ [l|r]trim and their
 * _whitespace forms), pyarrow's: the bytes (ascii_) or code points (utf8_)
 * of a set are dropped from a value's start, end or both. One pass finds
 * each valid slot's kept range, a second copies the ranges into a new array
 * of the input's type; null slots stay null and empty.
 *
 * UTF-8 is decoded as pyarrow decodes it while it trims: a lead byte and
 * its continuation bytes, forward from the start and backward from the end,
 * with no check for overlong forms or surrogates; only the bytes a scan
 * reaches are decoded, so bytes that are not UTF-8 past the first kept code
 * point are copied as they are, and those a scan meets fail the call. */
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "core/memstats.h"
#include "core/string_array.h"
#include "core/utf8.h"
#include "string_calls.h"

/* What a trim drops: a byte table (ascii_, and the ASCII code points of
 * utf8_), and for utf8_ the other code points, sorted, or pyarrow's
 * whitespace. */
typedef struct trim_set {
  int utf8, whitespace;
  uint8_t byte[256];
  uint32_t *points; /* sorted, distinct; NULL when none */
  int64_t count;
} trim_set;

static int in_set(const trim_set *t, uint32_t c) {
  if (c < 0x80) return t->byte[c];
  if (t->whitespace) return am_utf8_is_space(c);
  int64_t lo = 0, hi = t->count;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (t->points[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < t->count && t->points[lo] == c;
}

static int by_point(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static int invalid_utf8(am_err *err) {
  return am_fail(err, AM_EINVAL, "Invalid UTF8 sequence in input");
}

/* The set of `op` (characters p[0..m) for the ops that take them). */
static int make_set(am_err *err, am_string_op op, const uint8_t *p, int64_t m, trim_set *t) {
  memset(t, 0, sizeof *t);
  t->utf8 = (op >= AM_UTF8_TRIM_WHITESPACE && op <= AM_UTF8_RTRIM_WHITESPACE) ||
            (op >= AM_UTF8_TRIM && op <= AM_UTF8_RTRIM);
  t->whitespace = op <= AM_UTF8_RTRIM_WHITESPACE;
  if (t->whitespace) {
    for (uint32_t c = 0; c < 0x80; c++)
      t->byte[c] = (uint8_t)(t->utf8 ? am_utf8_is_space(c) : am_ascii_is_space(c));
    return AM_OK;
  }
  if (!t->utf8) {
    for (int64_t k = 0; k < m; k++) t->byte[p[k]] = 1;
    return AM_OK;
  }
  if (m > 0 && !(t->points = malloc((size_t)m * sizeof *t->points)))
    return am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t k = 0; k < m;) {
    uint32_t c = 0;
    const int len = am_utf8_decode(p + k, p + m, &c);
    if (len == 0) {
      free(t->points);
      return invalid_utf8(err);
    }
    if (c < 0x80)
      t->byte[c] = 1;
    else
      t->points[t->count++] = c;
    k += len;
  }
  if (t->count > 1) qsort(t->points, (size_t)t->count, sizeof *t->points, by_point);
  return AM_OK;
}

/* The kept range [*b, *e) of value v[0..n). */
static int trim_range(am_err *err, const trim_set *t, int left, int right, const uint8_t *v,
                      int64_t n, int64_t *b_out, int64_t *e_out) {
  int64_t b = 0, e = n;
  uint32_t c = 0;
  while (left && b < e) {
    const int len = t->utf8 ? am_utf8_decode(v + b, v + e, &c) : (c = v[b], 1);
    if (len == 0) return invalid_utf8(err);
    if (t->utf8 ? !in_set(t, c) : !t->byte[c]) break;
    b += len;
  }
  while (right && e > b) {
    const int len = t->utf8 ? am_utf8_decode_back(v + b, v + e, &c) : (c = v[e - 1], 1);
    if (len == 0) return invalid_utf8(err);
    if (t->utf8 ? !in_set(t, c) : !t->byte[c]) break;
    e -= len;
  }
  *b_out = b;
  *e_out = e;
  return AM_OK;
}

int am_string_trim(am_err *err, am_string_op op, const am_array *a, const uint8_t *p, int64_t m,
                   am_array **out) {
  trim_set t;
  int status = make_set(err, op, p, m, &t);
  if (status != AM_OK) return status;
  const int kind = (op - AM_ASCII_TRIM_WHITESPACE) % 3; /* 0 both, 1 left, 2 right */
  const int left = kind != 2, right = kind != 1;
  const int64_t n = a->length;
  /* each slot's kept range: its first byte (from the data's start) and size */
  int64_t *start = am_scratch_alloc((n ? n : 1) * 16);
  int64_t *size = start + n;
  am_array *r = NULL;
  int64_t total = 0;
  if (!start) {
    status = am_fail(err, AM_ENOMEM, "out of memory");
    goto done;
  }
  for (int64_t i = 0; i < n && status == AM_OK; i++) {
    int64_t bytes = 0, b = 0, e = 0;
    const uint8_t *v = am_string_value(a, i, &bytes);
    if (am_string_is_valid(a, i)) status = trim_range(err, &t, left, right, v, bytes, &b, &e);
    start[i] = bytes ? (v - a->bytes) + b : 0;
    size[i] = e - b;
    total += e - b;
  }
  if (status == AM_OK)
    status = am_string_alloc(err, a->device, a->type, 0, n, total, a->validity != NULL, &r);
  if (status != AM_OK) goto done;
  uint8_t *bytes = (uint8_t *)r->bytes;
  int64_t at = 0;
  if (am_type_is_large_binary(a->type)) {
    int64_t *offsets = (int64_t *)r->data;
    for (int64_t i = 0; i < n; i++) {
      if (size[i]) memcpy(bytes + at, a->bytes + start[i], (size_t)size[i]);
      offsets[i + 1] = at += size[i];
    }
  } else {
    int32_t *offsets = (int32_t *)r->data;
    for (int64_t i = 0; i < n; i++) {
      if (size[i]) memcpy(bytes + at, a->bytes + start[i], (size_t)size[i]);
      offsets[i + 1] = (int32_t)(at += size[i]);
    }
  }
  if (!a->validity) atomic_store(&r->null_count, 0);
  am_string_copy_validity(a, r);
  *out = r;
done:
  am_scratch_free(start);
  free(t.points);
  return status;
}
