/* split_pattern, ascii_split_whitespace and utf8_split_whitespace
 * (pyarrow's, with SplitPatternOptions / SplitOptions): each valid row's
 * value cut at its separators into a list of pieces, returned as pyarrow's
 * ListArray in two arrays (am_string_split in the header): the items, of
 * the input's type, and int32 list offsets carrying the input's validity.
 *
 * One pass over the rows finds each value's separators (from its start, or
 * from its end under reverse: those are kept on a small stack and the
 * pieces written in order) and appends the pieces. The items' bytes are
 * sized once by the input's (a piece's bytes are its value's); their
 * offsets grow as pieces come, reserved a row ahead for the most pieces
 * the row can give, and regrown toward the count the rows so far project.
 * The separators are found as pyarrow 26's finders find them
 * (arrow/compute/kernels/scalar_string_ascii.cc, _utf8.cc), including how
 * its UTF-8 whitespace scan ends a run at a value's end.
 *
 * On the host: an input on a GPU is copied here and both results moved
 * back; view arrays are copied flat first (am_view_begin / _end), their
 * items made views again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "core/memstats.h"
#include "core/string_array.h"
#include "core/utf8.h"
#include "route.h"
#include "string_calls.h"
#include "string_device.h"

typedef struct split_call {
  am_split_op op;
  const uint8_t *pattern;
  int64_t m;          /* the pattern's bytes (split_pattern) */
  int64_t max_splits; /* negative: no limit */
  int reverse;
} split_call;

/* pyarrow's kernels per op: split_pattern every flat string and binary
 * type, the whitespace ones the string types (views as their flat types). */
static int takes(am_split_op op, am_type t) {
  return op == AM_SPLIT_PATTERN ? am_type_is_var_sized(t) : am_type_is_utf8(t);
}

/* ---- finding a separator -------------------------------------------------------------- */

/* The first occurrence of p[0, m) in v[from, n): its start in *at. */
static int find_pattern(const uint8_t *v, int64_t from, int64_t n, const uint8_t *p, int64_t m,
                        int64_t *at) {
  if (n - from < m) return 0;
  const uint8_t *s = v + from, *last = v + (n - m); /* the last possible start */
  while (s <= last) {
    const uint8_t *hit = memchr(s, p[0], (size_t)(last - s + 1));
    if (!hit) return 0;
    if (m == 1 || memcmp(hit + 1, p + 1, (size_t)(m - 1)) == 0) {
      *at = hit - v;
      return 1;
    }
    s = hit + 1;
  }
  return 0;
}

/* The last occurrence of p[0, m) within v[0, to): its start in *at. */
static int find_pattern_back(const uint8_t *v, int64_t to, const uint8_t *p, int64_t m,
                             int64_t *at) {
  for (int64_t s = to - m; s >= 0; s--) {
    if (v[s] == p[0] && memcmp(v + s + 1, p + 1, (size_t)(m - 1)) == 0) {
      *at = s;
      return 1;
    }
  }
  return 0;
}

/* The first run of ASCII whitespace in v[from, n): [*sb, *se). */
static int find_ascii_space(const uint8_t *v, int64_t from, int64_t n, int64_t *sb, int64_t *se) {
  for (int64_t i = from; i < n; i++) {
    if (!am_ascii_is_space(v[i])) continue;
    *sb = i;
    while (++i < n && am_ascii_is_space(v[i])) {
    }
    *se = i;
    return 1;
  }
  return 0;
}

/* The last run of ASCII whitespace in v[0, to): [*sb, *se). */
static int find_ascii_space_back(const uint8_t *v, int64_t to, int64_t *sb, int64_t *se) {
  for (int64_t i = to - 1; i >= 0; i--) {
    if (!am_ascii_is_space(v[i])) continue;
    *se = i + 1;
    while (--i >= 0 && am_ascii_is_space(v[i])) {
    }
    *sb = i + 1;
    return 1;
  }
  return 0;
}

/* The first run of Unicode whitespace in v[from, n), as pyarrow's scan
 * finds it: code points decoded one by one, none found once one is not
 * UTF-8; a run goes on through a space only when that space ends before the
 * value does (so a run that reaches the end leaves its last code point
 * out: pyarrow reads past the value there). */
static int find_utf8_space(const uint8_t *v, int64_t from, int64_t n, int64_t *sb, int64_t *se) {
  uint32_t c = 0;
  for (int64_t i = from; i < n;) {
    const int64_t start = i;
    int len = am_utf8_decode(v + i, v + n, &c);
    if (len == 0) return 0;
    i += len;
    if (!am_utf8_is_space(c)) continue;
    *sb = start;
    *se = i;
    while (i < n) {
      if ((len = am_utf8_decode(v + i, v + n, &c)) == 0) return 0;
      i += len;
      if (!am_utf8_is_space(c) || i >= n) break;
      *se = i;
    }
    return 1;
  }
  return 0;
}

/* The last run of Unicode whitespace in v[0, to), backward the same way: a
 * run that reaches the value's start leaves its first code point out. */
static int find_utf8_space_back(const uint8_t *v, int64_t to, int64_t *sb, int64_t *se) {
  uint32_t c = 0;
  for (int64_t i = to; i > 0;) {
    const int64_t end = i;
    int len = am_utf8_decode_back(v, v + i, &c);
    if (len == 0) return 0;
    i -= len;
    if (!am_utf8_is_space(c)) continue;
    *se = end;
    *sb = i;
    while (i > 0) {
      if ((len = am_utf8_decode_back(v, v + i, &c)) == 0) return 0;
      i -= len;
      if (!am_utf8_is_space(c) || i <= 0) break;
      *sb = i;
    }
    return 1;
  }
  return 0;
}

/* The next separator of v[from, n) (forward) or the last of v[0, n)
 * (reverse): [*sb, *se). */
static inline int find_next(const split_call *c, const uint8_t *v, int64_t from, int64_t n,
                            int64_t *sb, int64_t *se) {
  switch (c->op) {
    case AM_SPLIT_PATTERN:
      if (!find_pattern(v, from, n, c->pattern, c->m, sb)) return 0;
      *se = *sb + c->m;
      return 1;
    case AM_ASCII_SPLIT_WHITESPACE:
      return find_ascii_space(v, from, n, sb, se);
    default:
      return find_utf8_space(v, from, n, sb, se);
  }
}

static inline int find_last(const split_call *c, const uint8_t *v, int64_t to, int64_t *sb,
                            int64_t *se) {
  switch (c->op) {
    case AM_SPLIT_PATTERN:
      if (!find_pattern_back(v, to, c->pattern, c->m, sb)) return 0;
      *se = *sb + c->m;
      return 1;
    case AM_ASCII_SPLIT_WHITESPACE:
      return find_ascii_space_back(v, to, sb, se);
    default:
      return find_utf8_space_back(v, to, sb, se);
  }
}

/* ---- the items ------------------------------------------------------------------------ */

typedef struct items_builder {
  uint8_t *bytes; /* the items' bytes: `at` written, room for 16 past the input's */
  int64_t at;
  const uint8_t *src_end; /* the input's readable bytes end here (16-byte copies) */
  am_buffer *bytes_buf;
  am_buffer *offsets_buf; /* count + 1 offsets written, room for cap + 1 */
  int64_t count, cap;
  int large;      /* int64 offsets */
  int64_t *stack; /* reverse: a row's separators, (start, end) pairs */
  int64_t stack_cap;
} items_builder;

/* Appends v[0, size) as the next piece. Short pieces move as 16 bytes
 * (two 8-byte moves, no call) where the input has them readable. */
static inline void emit(items_builder *b, const uint8_t *v, int64_t size) {
  if (size > 0) {
    uint8_t *dst = b->bytes + b->at;
    if (size <= AM_STRING_COPY_ROOM && b->src_end - v >= AM_STRING_COPY_ROOM)
      memcpy(dst, v, AM_STRING_COPY_ROOM);
    else
      memcpy(dst, v, (size_t)size);
    b->at += size;
  }
  b->count++;
  if (b->large)
    ((int64_t *)b->offsets_buf->ptr)[b->count] = b->at;
  else
    ((int32_t *)b->offsets_buf->ptr)[b->count] = (int32_t)b->at;
}

/* Room for `need` more pieces (and, under reverse, `need` separators) before
 * row `row` of `rows`: the offsets grow to twice their room, or to what the
 * pieces per row so far project for every row, whichever is more. */
static int reserve(am_err *err, items_builder *b, int64_t need, int reverse, int64_t row,
                   int64_t rows) {
  if (b->count + need > b->cap) {
    const int64_t width = b->large ? 8 : 4;
    int64_t cap = b->cap * 2;
    const int64_t projected =
        b->count + need +
        (int64_t)((double)b->count / (double)(row + 1) * (double)(rows - row) * 1.125);
    if (cap < projected) cap = projected;
    am_buffer *grown = am_buffer_alloc_host((cap + 1) * width);
    if (!grown)
      return am_fail(err, AM_ENOMEM, "out of memory growing the offsets of %lld pieces",
                     (long long)cap);
    memcpy(grown->ptr, b->offsets_buf->ptr, (size_t)((b->count + 1) * width));
    am_buffer_release(b->offsets_buf);
    b->offsets_buf = grown;
    b->cap = cap;
  }
  if (reverse && 2 * need > b->stack_cap) {
    int64_t cap = 2 * need > 2 * b->stack_cap ? 2 * need : 2 * b->stack_cap;
    int64_t *grown = am_scratch_realloc(b->stack, cap * 8);
    if (!grown) return am_fail(err, AM_ENOMEM, "out of memory");
    b->stack = grown;
    b->stack_cap = cap;
  }
  return AM_OK;
}

/* The most pieces a value of n bytes gives (a separator takes at least m
 * bytes, a whitespace one at least one). */
static inline int64_t most_pieces(const split_call *c, int64_t n) {
  int64_t most = (c->op == AM_SPLIT_PATTERN ? n / c->m : n) + 1;
  return c->max_splits >= 0 && c->max_splits < most ? c->max_splits + 1 : most;
}

/* Appends the pieces of value v[0, n), in order. */
static void split_value(const split_call *c, items_builder *b, const uint8_t *v, int64_t n) {
  int64_t left = c->max_splits, sb = 0, se = 0;
  if (!c->reverse) {
    int64_t i = 0;
    while (left != 0 && find_next(c, v, i, n, &sb, &se)) {
      emit(b, v + i, sb - i);
      i = se;
      left--;
    }
    emit(b, v + i, n - i);
    return;
  }
  int64_t end = n, found = 0;
  while (left != 0 && find_last(c, v, end, &sb, &se)) {
    b->stack[2 * found] = se;
    b->stack[2 * found + 1] = end;
    found++;
    end = sb;
    left--;
  }
  emit(b, v, end);
  while (found-- > 0)
    emit(b, v + b->stack[2 * found], b->stack[2 * found + 1] - b->stack[2 * found]);
}

/* ---- the call ------------------------------------------------------------------------- */

/* The list offsets: a fresh int32 array of n + 1 slots, with a's validity
 * on its first n and slot n valid. */
static int list_offsets(am_err *err, const am_array *a, am_array **out) {
  const int64_t n = a->length;
  am_array *r = NULL;
  int status = am_array_alloc_host(err, am_host_device(), AM_INT32, n + 1, a->validity != NULL, &r);
  if (status != AM_OK) return status;
  if (a->validity) {
    am_string_copy_validity(a, r);
    ((uint8_t *)r->validity)[n >> 3] |= (uint8_t)(1u << (n & 7));
  } else {
    atomic_store(&r->null_count, 0);
  }
  ((int32_t *)r->data)[0] = 0;
  *out = r;
  return AM_OK;
}

/* The split of a checked host array of offsets (not views). */
static int split_host(am_err *err, const split_call *c, const am_array *a, am_array **items,
                      am_array **offsets) {
  const int64_t n = a->length;
  if (n > 0 && c->op == AM_SPLIT_PATTERN && c->m == 0)
    return am_fail(err, AM_EINVAL, "Empty separator");
  items_builder b = {0};
  b.large = am_type_is_large_binary(a->type);
  const int64_t span = n ? am_string_offset(a, n) - am_string_offset(a, 0) : 0;
  b.src_end = a->bytes + a->bytes_size;
  b.cap = (n < 1024 ? n : 1024) + 16;
  b.bytes_buf = am_buffer_alloc_host(span + AM_STRING_COPY_ROOM);
  b.offsets_buf = am_buffer_alloc_host((b.cap + 1) * (b.large ? 8 : 4));
  am_array *lists = NULL, *r = NULL;
  int status = AM_OK;
  if (!b.bytes_buf || !b.offsets_buf)
    status =
        am_fail(err, AM_ENOMEM, "out of memory allocating %lld bytes of pieces", (long long)span);
  if (status == AM_OK) status = list_offsets(err, a, &lists);
  if (status != AM_OK) goto done;
  b.bytes = (uint8_t *)b.bytes_buf->ptr;
  if (b.large)
    ((int64_t *)b.offsets_buf->ptr)[0] = 0;
  else
    ((int32_t *)b.offsets_buf->ptr)[0] = 0;
  int32_t *list = (int32_t *)lists->data;
  for (int64_t i = 0; i < n; i++) {
    if (am_string_is_valid(a, i)) {
      int64_t size = 0;
      const uint8_t *v = am_string_value(a, i, &size);
      const int64_t need = most_pieces(c, size);
      if (b.count + need > b.cap || (c->reverse && 2 * need > b.stack_cap)) {
        if ((status = reserve(err, &b, need, c->reverse, i, n)) != AM_OK) goto done;
      }
      split_value(c, &b, v, size);
      if (b.count > INT32_MAX) {
        status = am_fail(err, AM_EOVERFLOW, "List offset does not fit into 32 bit");
        goto done;
      }
    }
    list[i + 1] = (int32_t)b.count;
  }
  r = am_array_make(am_host_device(), a->type, b.count, 0, 0, NULL, NULL, b.offsets_buf,
                    b.offsets_buf->ptr);
  b.offsets_buf = NULL; /* the array's now (am_array_make takes it, on failure too) */
  if (!r) {
    status = am_fail(err, AM_ENOMEM, "out of memory");
    goto done;
  }
  r->bytes_buf = b.bytes_buf;
  r->bytes = b.bytes;
  r->bytes_size = b.at;
  b.bytes_buf = NULL;
  *items = r;
  *offsets = lists;
  lists = NULL;
done:
  am_buffer_release(b.bytes_buf);
  am_buffer_release(b.offsets_buf);
  am_scratch_free(b.stack);
  am_array_free(lists);
  return status;
}

static int string_split(am_err *err, am_split_op op, const am_array *array, const char *pattern,
                        int64_t pattern_length, int64_t max_splits, int reverse, am_array **items,
                        am_array **offsets) {
  const am_op_desc *desc = am_op_find(AM_FAMILY_STRING_SPLIT, (int)op);
  if (!desc) return am_fail(err, AM_EINVAL, "unknown split op %d", (int)op);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(items, "items");
  AM_REQUIRE(offsets, "offsets");
  if (op != AM_SPLIT_PATTERN && (pattern || pattern_length))
    return am_fail(err, AM_EINVAL, "%s takes no pattern", desc->name);
  if (pattern_length < 0 || (pattern_length > 0 && !pattern))
    return am_fail(err, AM_EINVAL, "pattern of %lld bytes at %p", (long long)pattern_length,
                   (const void *)pattern);
  if (array->type == AM_STRUCT || !takes(op, array->type)) {
    if (array->type != AM_STRUCT && !am_type_is_binary(array->type)) {
      int status = am_settle(err, array); /* a pending GPU result: its type is final */
      if (status != AM_OK) return status;
    }
    return am_fail(err, AM_ETYPE, "Function '%s' has no kernel matching input types (%s)",
                   desc->name, array->type == AM_STRUCT ? "struct" : am_type_name(array->type));
  }
  /* an empty pattern may come as NULL: no pointer arithmetic on it below */
  const uint8_t *p = pattern ? (const uint8_t *)pattern : (const uint8_t *)"";
  const split_call c = {op, p, pattern_length, max_splits, reverse != 0};
  const am_array *in[1] = {array};
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, 1, &h);
  am_device *home = h.home;
  am_array *pieces = NULL, *lists = NULL;
  am_view_keep keep = {NULL};
  if (status == AM_OK) status = am_view_begin(err, &in[0], &keep);
  if (status == AM_OK) status = split_host(err, &c, in[0], &pieces, &lists);
  status = am_view_end(err, status, &keep, &pieces);
  status = am_string_hosted_end(err, status, &h, &pieces);
  if (status == AM_OK && home) {
    am_array *moved = NULL;
    status = am_move(err, lists, home, &moved);
    am_array_free(lists);
    lists = moved;
  }
  if (status != AM_OK) {
    am_array_free(pieces);
    am_array_free(lists);
    return status;
  }
  *items = pieces;
  *offsets = lists;
  return AM_OK;
}

AM_EXPORT int am_string_split(am_split_op op, const am_array *array, const char *pattern,
                              int64_t pattern_length, int64_t max_splits, int reverse,
                              am_array **items, am_array **offsets) {
  AM_API_BEGIN;
  AM_API_RETURN(
      string_split(err, op, array, pattern, pattern_length, max_splits, reverse, items, offsets));
}
