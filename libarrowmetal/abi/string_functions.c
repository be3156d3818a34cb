/* am_string_function: pyarrow's string functions of one array on the host
 * (lengths, matching, ASCII case; trimming is string_trim.c's, Unicode case
 * string_case.c's), over the
 * array model of core/string_array.h. Every result keeps the input's nulls. */
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "core/like_fold.h"
#include "core/ops.h"
#include "core/string_array.h"
#include "core/unicode_fold.h"
#include "core/utf8.h"
#include "string_calls.h"
#include "string_device.h"

/* Which string types an op takes, as pyarrow. */
static int takes(am_string_op op, am_type t) {
  switch (op) {
    case AM_BINARY_LENGTH:
    case AM_FIND_SUBSTRING:
    case AM_COUNT_SUBSTRING:
      return am_type_is_binary(t);
    case AM_STARTS_WITH:
    case AM_ENDS_WITH:
    case AM_MATCH_SUBSTRING:
    case AM_MATCH_LIKE:
      return am_type_is_var_sized(t);
    default: /* utf8_length, case, trimming */
      return am_type_is_utf8(t);
  }
}

static int is_trim(am_string_op op) {
  return op >= AM_ASCII_TRIM_WHITESPACE && op <= AM_UTF8_RTRIM;
}

/* The ops whose pattern is pyarrow's TrimOptions characters (no flags). */
static int takes_characters(am_string_op op) { return op >= AM_ASCII_TRIM && op <= AM_UTF8_RTRIM; }

static int has_pattern(am_string_op op) {
  return (op >= AM_STARTS_WITH && op <= AM_COUNT_SUBSTRING) || op == AM_MATCH_LIKE ||
         takes_characters(op);
}

/* The validity of `in` copied to `out` (a fresh host array of its length),
 * a byte at a time (bit by bit it cost as much as ascii_upper itself): a
 * byte-aligned offset is a copy, another one each byte from the two it
 * straddles, never reading past the byte that holds the last slot's bit. */
void am_string_copy_validity(const am_array *in, am_array *out) {
  if (!in->validity) return;
  uint8_t *bits = (uint8_t *)out->validity;
  const int64_t n = in->length, nbytes = (n + 7) / 8;
  const uint8_t *src = in->validity + in->offset / 8;
  const int shift = (int)(in->offset % 8);
  if (shift == 0) {
    memcpy(bits, src, (size_t)nbytes);
  } else {
    const int64_t last = (in->offset % 8 + n - 1) / 8; /* src's last byte with a slot */
    for (int64_t k = 0; k < nbytes; k++) {
      unsigned byte = (unsigned)src[k] >> shift;
      if (k + 1 <= last) byte |= (unsigned)src[k + 1] << (8 - shift);
      bits[k] = (uint8_t)byte;
    }
  }
  atomic_store(&out->null_count, atomic_load(&((am_array *)in)->null_count));
}

/* The first occurrence of `p` in `s` at or after byte 0; -1 when none. */
static int64_t find(const uint8_t *s, int64_t n, const uint8_t *p, int64_t m) {
  if (m == 0) return 0;
  if (m > n) return -1;
  const uint8_t *end = s + (n - m) + 1;
  for (const uint8_t *at = s; at < end;) {
    const uint8_t *hit = memchr(at, p[0], (size_t)(end - at));
    if (!hit) return -1;
    if (memcmp(hit, p, (size_t)m) == 0) return hit - s;
    at = hit + 1;
  }
  return -1;
}

/* The byte after the character at s[i]: the next byte, past any UTF-8
 * continuation bytes when `utf8`. */
static inline int64_t next_char(const uint8_t *s, int64_t n, int64_t i, int utf8) {
  i++;
  while (utf8 && i < n && (s[i] & 0xC0) == 0x80) i++;
  return i;
}

/* Whether v matches the LIKE pattern p (am_string_op's AM_MATCH_LIKE: '%',
 * '_', backslash escapes; pyarrow turns it into an anchored regular
 * expression). One pass that, on a mismatch, backs up to just after the last
 * '%' and lets that '%' take one more character: linear for patterns with
 * at most one '%', O(n m) at worst, never exponential. In a string (utf8) a
 * character is what RE2's '.' takes (am_re2_any), one byte and its
 * continuation bytes where those cover v (the caller checks that v is
 * covered: a match elsewhere counts for nothing). Under ignore_case the
 * pattern is compiled instead (core/like_fold.h). */
static int like(const uint8_t *v, int64_t n, const uint8_t *p, int64_t m, int utf8) {
  int64_t i = 0, j = 0, star_j = -1, star_i = 0;
  while (i < n) {
    if (j < m && p[j] == '%') {
      star_j = ++j;
      star_i = i;
      continue;
    }
    if (j < m && p[j] == '_') {
      i = next_char(v, n, i, utf8);
      j++;
      continue;
    }
    if (j < m) {
      int64_t lit = j;
      if (p[j] == '\\') lit = j + 1; /* an escaped character: itself */
      if (lit < m && p[lit] == v[i]) {
        i++;
        j = lit + 1;
        continue;
      }
      if (lit == m) j = m; /* a trailing backslash is dropped */
    }
    if (star_j < 0) return 0;
    star_i = next_char(v, n, star_i, utf8);
    i = star_i;
    j = star_j;
  }
  /* The value is spent: what is left of the pattern must match nothing. */
  while (j < m && (p[j] == '%' || (p[j] == '\\' && j + 1 == m))) j++;
  return j == m;
}

/* pyarrow's fast paths of match_like, which it takes before its regular
 * expression and where a backslash is a plain byte, not an escape: a
 * pattern %+X%+ is match_substring of X, X%+ starts_with and %+Y ends_with,
 * X and Y without '%' or '_', X not ending in a backslash (RE2 full matches,
 * in that order, whose [^%_] takes in a string what '.' takes: a pattern
 * with a byte outside those runs the regular expression). The op to run
 * instead, with *at and *len the part of p it looks for; AM_MATCH_LIKE
 * where none applies. */
am_string_op am_string_like_shortcut(const uint8_t *p, int64_t m, int utf8, int64_t *at,
                                     int64_t *len) {
  int64_t lead = 0, trail = 0;
  while (lead < m && p[lead] == '%') lead++;
  while (trail < m - lead && p[m - 1 - trail] == '%') trail++;
  if (m == 0) return AM_MATCH_LIKE; /* the empty value alone */
  if (utf8 && !am_re2_any_covers(p, m)) return AM_MATCH_LIKE;
  if (lead == m) { /* only '%': two or more are %+%+, one is X%+ with X empty */
    *at = 0, *len = 0;
    return m >= 2 ? AM_MATCH_SUBSTRING : AM_STARTS_WITH;
  }
  const int64_t from = lead, to = m - trail; /* the part between the runs */
  for (int64_t k = from; k < to; k++)
    if (p[k] == '%' || p[k] == '_') return AM_MATCH_LIKE;
  const int ends_in_backslash = to > from && p[to - 1] == '\\';
  *at = from, *len = to - from;
  if (lead && trail && !ends_in_backslash) return AM_MATCH_SUBSTRING;
  if (!lead && trail && !ends_in_backslash) return AM_STARTS_WITH;
  if (lead && !trail) return AM_ENDS_WITH;
  return AM_MATCH_LIKE;
}

/* Writes literal text t[0, n) of a LIKE pattern as like() reads a literal
 * at o: each character (a rune in a string, else a byte) folded when `fold`,
 * '%', '_' and backslash escaped. The end of what it wrote; NULL where a
 * string's text is not runes. */
static uint8_t *like_literal(const uint8_t *t, int64_t n, int utf8, int fold, uint8_t *o) {
  const uint8_t *end = t + n;
  while (t < end) {
    uint32_t c = *t;
    int len = 1;
    if (utf8 && c >= 0x80 && !(len = am_re2_rune(t, end, &c))) return NULL;
    if (fold) c = utf8 ? am_unicode_fold(c) : am_fold_latin1[c];
    if (c == '%' || c == '_' || c == '\\') *o++ = '\\';
    if (utf8)
      o += am_utf8_encode(c, o);
    else
      *o++ = (uint8_t)c;
    t += len;
  }
  return o;
}

/* A LIKE pattern as pyarrow's regular expression reads it (each byte a
 * literal but for '%' and '_', a backslash making the next byte one and a
 * trailing backslash dropped, then RE2), written back in like()'s syntax
 * into out (2m bytes at most, `scratch` m): *out_length set, 1; or 0 where
 * a string's literal text between its wildcards is not runes (RE2:
 * "invalid UTF-8"). Each character folded when `fold` (ignore_case). */
static int like_pattern(const uint8_t *p, int64_t m, int utf8, int fold, uint8_t *scratch,
                        uint8_t *out, int64_t *out_length) {
  uint8_t *o = out;
  int64_t run = 0; /* literal bytes since the last wildcard */
  for (int64_t j = 0; j < m; j++) {
    if (p[j] == '%' || p[j] == '_') {
      if (!(o = like_literal(scratch, run, utf8, fold, o))) return 0;
      run = 0;
      *o++ = p[j];
      continue;
    }
    if (p[j] == '\\' && ++j == m) break; /* a trailing backslash: dropped */
    scratch[run++] = p[j];
  }
  if (!(o = like_literal(scratch, run, utf8, fold, o))) return 0;
  *out_length = o - out;
  return 1;
}

int am_string_like_valid(const uint8_t *p, int64_t m) {
  uint8_t *buffer = malloc((size_t)(3 * m + 1));
  int64_t length;
  const int valid = buffer && like_pattern(p, m, 1, 0, buffer + 2 * m, buffer, &length);
  free(buffer);
  return valid;
}

static int64_t value_of(am_string_op op, const uint8_t *v, int64_t n, const uint8_t *p, int64_t m) {
  switch (op) {
    case AM_UTF8_LENGTH: {
      int64_t count = 0;
      for (int64_t i = 0; i < n; i++) count += (v[i] & 0xC0) != 0x80;
      return count;
    }
    case AM_BINARY_LENGTH:
      return n;
    case AM_STARTS_WITH:
      return m <= n && (m == 0 || memcmp(v, p, (size_t)m) == 0);
    case AM_ENDS_WITH:
      return m <= n && (m == 0 || memcmp(v + n - m, p, (size_t)m) == 0);
    case AM_MATCH_SUBSTRING:
      return find(v, n, p, m) >= 0;
    case AM_FIND_SUBSTRING:
      return find(v, n, p, m);
    default: { /* count_substring: non-overlapping; an empty pattern matches n + 1 times */
      if (m == 0) return n + 1;
      int64_t count = 0, at = 0, hit;
      while ((hit = find(v + at, n - at, p, m)) >= 0) count++, at += hit + m;
      return count;
    }
  }
}

/* The pattern as the matchers read it (into *folded, which the caller
 * frees), under pyarrow's rules: with ignore_case every op but a LIKE runs
 * an RE2 literal, folded here; match_like runs its fast paths (never with
 * ignore_case) or its regular expression, here like()'s pattern. pyarrow
 * compiles the expression for any array of at least one slot, so a string
 * pattern that is not runes fails there, in RE2's words. */
static int matcher_pattern(am_err *err, am_string_op *op, const am_array *a, const uint8_t **p,
                           int64_t *m, int fold, uint8_t **folded) {
  const int utf8 = am_type_is_utf8(a->type);
  *folded = NULL;
  if (*op == AM_MATCH_LIKE && !fold) {
    int64_t at, len;
    am_string_op shortcut = am_string_like_shortcut(*p, *m, utf8, &at, &len);
    if (shortcut != AM_MATCH_LIKE) {
      *op = shortcut, *p += at, *m = len;
      return AM_OK;
    }
  }
  if (*op != AM_MATCH_LIKE && !fold) return AM_OK;
  uint8_t *buffer = malloc((size_t)(3 * *m + 1)); /* like: 2m, and m of scratch */
  if (!buffer) return am_fail(err, AM_ENOMEM, "out of memory");
  int64_t length = *m;
  int valid = 1;
  if (*op == AM_MATCH_LIKE)
    valid = like_pattern(*p, *m, utf8, fold, buffer + 2 * *m, buffer, &length);
  else if (utf8)
    valid = am_fold_utf8_pattern(*p, *m, buffer, &length);
  else
    am_fold_latin1_bytes(*p, *m, buffer);
  if (!valid && a->length > 0) {
    free(buffer);
    return am_fail(err, AM_EINVAL, "Invalid regular expression: invalid UTF-8");
  }
  *folded = buffer, *p = buffer, *m = length;
  return AM_OK;
}

/* A matching op's value under ignore_case but LIKE's, fp over the folded
 * pattern: the value's runes are folded as they are compared, so its bytes
 * are only scanned away from where a match can begin (RE2 tries every byte),
 * and find_substring's index is a byte of the value as it is. */
static int64_t folded_value_of(am_string_op op, const am_fold_pattern *fp, const uint8_t *s,
                               int64_t n) {
  int64_t end;
  if (fp->m == 0) /* RE2 steps a byte past each empty match: n + 1 of them */
    return op == AM_FIND_SUBSTRING ? 0 : op == AM_COUNT_SUBSTRING ? n + 1 : 1;
  switch (op) {
    case AM_STARTS_WITH:
      return am_fold_match_at(fp, s, n, 0) >= 0;
    case AM_ENDS_WITH:
      return am_fold_ends_with(fp, s, n);
    case AM_MATCH_SUBSTRING:
      return am_fold_find(fp, s, n, 0, &end) >= 0;
    case AM_FIND_SUBSTRING:
      return am_fold_find(fp, s, n, 0, &end);
    default: { /* count_substring: non-overlapping */
      int64_t count = 0;
      for (int64_t at = 0; am_fold_find(fp, s, n, at, &end) >= 0; at = end) count++;
      return count;
    }
  }
}

static int numeric_result(am_err *err, am_string_op op, const am_array *a, const uint8_t *p,
                          int64_t m, int fold, am_array **out) {
  const int utf8 = am_type_is_utf8(a->type);
  uint8_t *pattern = NULL;
  int status = matcher_pattern(err, &op, a, &p, &m, fold, &pattern);
  if (status != AM_OK) return status;
  am_fold_pattern fp;
  if (fold && op != AM_MATCH_LIKE) am_fold_pattern_init(&fp, p, m, utf8);
  am_like_fold lf = {0};
  if (fold && op == AM_MATCH_LIKE) status = am_like_fold_compile(err, &lf, p, m, utf8);
  int boolean =
      op == AM_STARTS_WITH || op == AM_ENDS_WITH || op == AM_MATCH_SUBSTRING || op == AM_MATCH_LIKE;
  am_type rt = boolean ? AM_BOOL : am_type_is_large_binary(a->type) ? AM_INT64 : AM_INT32;
  am_array *r = NULL;
  if (status == AM_OK)
    status = am_array_alloc_host(err, a->device, rt, a->length, a->validity != NULL, &r);
  if (status != AM_OK) {
    am_like_fold_free(&lf);
    free(pattern);
    return status;
  }
  if (boolean) memset((void *)r->data, 0, (size_t)am_type_bytes(AM_BOOL, a->length));
  const int views = am_type_is_view(a->type); /* a flat type's values lie in `bytes` */
  for (int64_t i = 0; i < a->length; i++) {
    int64_t n = 0, v = 0;
    if (am_string_is_valid(a, i)) {
      const uint8_t *s = am_string_value(a, i, &n);
      if (fold && op != AM_MATCH_LIKE)
        v = folded_value_of(op, &fp, s, n);
      else if (op == AM_MATCH_LIKE) /* RE2's '.' takes no byte it does not cover */
        v = (fold ? am_like_fold_match(&lf, s, n, views ? n : a->bytes + a->bytes_size - s)
                  : like(s, n, p, m, utf8)) &&
            (!utf8 || am_re2_any_covers(s, n));
      else
        v = value_of(op, s, n, p, m);
    }
    if (boolean) {
      if (v) ((uint8_t *)r->data)[i >> 3] |= (uint8_t)(1u << (i & 7));
    } else if (rt == AM_INT64) {
      ((int64_t *)r->data)[i] = v;
    } else {
      ((int32_t *)r->data)[i] = (int32_t)v;
    }
  }
  am_like_fold_free(&lf);
  free(pattern);
  if (!a->validity) atomic_store(&r->null_count, 0);
  am_string_copy_validity(a, r);
  *out = r;
  return AM_OK;
}

/* b with bit 5 flipped where it is a letter of [lo, lo + 26): branch-free,
 * so the loops below vectorize. */
static inline uint8_t flip_letter(uint8_t b, uint8_t lo) {
  return (uint8_t)(b ^ ((uint8_t)(b - lo) < 26 ? 0x20 : 0));
}

static void ascii_map(const uint8_t *src, uint8_t *dst, int64_t n, uint8_t lo) {
  for (int64_t k = 0; k < n; k++) dst[k] = flip_letter(src[k], lo);
}

/* ascii_upper / ascii_lower: the bytes mapped, the lengths unchanged. An
 * array whose values start at byte 0 keeps its offsets and validity: the
 * result shares those buffers (as pyarrow's does) and only the bytes are
 * new; a slice deeper into its data gets offsets from 0 and its own bitmap. */
static int ascii_case(am_err *err, am_string_op op, const am_array *a, am_array **out) {
  int64_t first = am_string_offset(a, 0), last = am_string_offset(a, a->length);
  const uint8_t lo = op == AM_ASCII_UPPER ? 'a' : 'A';
  if (first == 0) {
    am_buffer *bytes = am_buffer_alloc_host(last > 0 ? last : 1);
    am_array *r = bytes ? am_array_share(a) : NULL;
    if (!r) {
      am_buffer_release(bytes);
      return am_fail(err, AM_ENOMEM, "out of memory allocating %lld string bytes", (long long)last);
    }
    am_buffer_release(r->bytes_buf);
    r->bytes_buf = bytes;
    r->bytes = bytes->ptr;
    r->bytes_size = last;
    ascii_map(a->bytes, (uint8_t *)bytes->ptr, last, lo);
    *out = r;
    return AM_OK;
  }
  am_array *r = NULL;
  int status =
      am_string_alloc(err, a->device, a->type, 0, a->length, last - first, a->validity != NULL, &r);
  if (status != AM_OK) return status;
  ascii_map(a->bytes + first, (uint8_t *)r->bytes, last - first, lo);
  /* the offsets from the first: a loop for each width */
  if (am_type_is_large_binary(a->type)) {
    const int64_t *from = (const int64_t *)a->data + a->offset;
    for (int64_t i = 0; i <= a->length; i++) ((int64_t *)r->data)[i] = from[i] - first;
  } else {
    const int32_t *from = (const int32_t *)a->data + a->offset;
    for (int64_t i = 0; i <= a->length; i++) ((int32_t *)r->data)[i] = (int32_t)(from[i] - first);
  }
  if (!a->validity) atomic_store(&r->null_count, 0);
  am_string_copy_validity(a, r);
  *out = r;
  return AM_OK;
}

/* Whether ascii case maps a view array's data buffers whole: they hold little
 * besides its values (at most twice the bytes of its out-of-line values, and
 * a page), as an import or a gather of one array gives them. A slice or a
 * filter of a few rows of large buffers goes the flat way, which copies only
 * its values. */
static int maps_buffers_whole(const am_array *a) {
  int64_t held = 0, used = 0;
  for (int64_t k = 0; a->variadic && k < a->variadic->count; k++) held += a->variadic->sizes[k];
  for (int64_t i = 0; i < a->length && held > 4096; i++) {
    int64_t size;
    (void)am_string_value(a, i, &size);
    if (size > AM_VIEW_INLINE) used += size;
  }
  return held <= 4096 || held <= 2 * used;
}

/* ascii_upper / ascii_lower of a view array: the views copied with their
 * inline bytes and prefixes mapped, each data buffer mapped into a new one
 * of its size; lengths, buffer indices and offsets stay as they are. */
static int ascii_case_views(am_err *err, am_string_op op, const am_array *a, am_array **out) {
  const uint8_t lo = op == AM_ASCII_UPPER ? 'a' : 'A';
  const int64_t count = a->variadic ? a->variadic->count : 0;
  am_array *r = NULL;
  int status = am_view_alloc(err, a->device, a->type, a->length, a->validity != NULL, &r);
  if (status == AM_OK && count && !(r->variadic = am_variadic_alloc(count)))
    status = am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t k = 0; status == AM_OK && k < count; k++) {
    const int64_t size = a->variadic->sizes[k];
    am_buffer *mapped = am_buffer_alloc_host(size > 0 ? size : 1);
    if (!mapped) {
      status =
          am_fail(err, AM_ENOMEM, "out of memory allocating %lld string bytes", (long long)size);
      break;
    }
    if (size) ascii_map(a->variadic->data[k], (uint8_t *)mapped->ptr, size, lo);
    r->variadic->data[k] = mapped->ptr;
    r->variadic->sizes[k] = size;
    r->variadic->owners[k] = mapped;
  }
  if (status != AM_OK) {
    am_array_free(r);
    return status;
  }
  uint8_t *views = (uint8_t *)r->data;
  memcpy(views, (const uint8_t *)a->data + a->offset * AM_VIEW_BYTES,
         (size_t)(a->length * AM_VIEW_BYTES));
  for (int64_t i = 0; i < a->length; i++) {
    uint8_t *view = views + i * AM_VIEW_BYTES;
    int32_t n;
    memcpy(&n, view, 4);
    /* the 12 inline bytes (padding is zeros, which map to themselves), or the prefix */
    if (n <= AM_VIEW_INLINE)
      ascii_map(view + 4, view + 4, AM_VIEW_INLINE, lo);
    else
      ascii_map(view + 4, view + 4, 4, lo);
  }
  if (!a->validity) atomic_store(&r->null_count, 0);
  am_string_copy_validity(a, r);
  *out = r;
  return AM_OK;
}

/* The work of a checked call over a host array. */
static int on_host(am_err *err, am_string_op op, const am_array *array, const uint8_t *p,
                   int64_t pattern_length, int flags, am_array **out) {
  const int fold = (flags & AM_STRING_IGNORE_CASE) != 0;
  if ((op == AM_ASCII_UPPER || op == AM_ASCII_LOWER) && am_type_is_view(array->type) &&
      maps_buffers_whole(array))
    return ascii_case_views(err, op, array, out);
  if (op == AM_ASCII_UPPER || op == AM_ASCII_LOWER || is_trim(op) || op == AM_UTF8_UPPER ||
      op == AM_UTF8_LOWER) {
    /* string results: their kernels read offsets (a view array's values
     * are copied flat first, the result made views again) */
    am_view_keep keep;
    int status = am_view_begin(err, &array, &keep);
    if (status == AM_OK) {
      if (op == AM_ASCII_UPPER || op == AM_ASCII_LOWER)
        status = ascii_case(err, op, array, out);
      else if (is_trim(op))
        status = am_string_trim(err, op, array, p, pattern_length, out);
      else
        status = am_string_utf8_case(err, op, array, out);
    }
    return am_view_end(err, status, &keep, out);
  }
  return numeric_result(err, op, array, p, pattern_length, fold, out);
}

static int string_function(am_err *err, am_string_op op, const am_array *array, const char *pattern,
                           int64_t pattern_length, int flags, am_array **out) {
  const am_op_desc *desc = am_op_find(AM_FAMILY_STRING, (int)op);
  if (!desc) return am_fail(err, AM_EINVAL, "unknown string op %d", (int)op);
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (flags & ~AM_STRING_IGNORE_CASE)
    return am_fail(err, AM_EINVAL, "unknown flag bits 0x%x (am_string_flag: 0x1)",
                   (unsigned)(flags & ~AM_STRING_IGNORE_CASE));
  if (!has_pattern(op) && (pattern || pattern_length || flags))
    return am_fail(err, AM_EINVAL, "%s takes no pattern and no flags", desc->name);
  if (takes_characters(op) && flags)
    return am_fail(err, AM_EINVAL, "%s takes no flags", desc->name);
  if (has_pattern(op) && (pattern_length < 0 || (pattern_length > 0 && !pattern)))
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
  /* An empty pattern may come as NULL: the matchers' pointer arithmetic
   * (p + 0) needs an object (ops_fuzz). */
  const uint8_t *p = pattern ? (const uint8_t *)pattern : (const uint8_t *)"";
  int status = am_string_gpu_function(err, op, array, p, pattern_length, flags, out);
  if (status != AM_EUNSUPPORTED) return status;
  const am_array *in[1] = {array};
  am_string_hosted h;
  status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK) status = on_host(err, op, in[0], p, pattern_length, flags, out);
  return am_string_hosted_end(err, status, &h, out);
}

AM_EXPORT int am_string_function(am_string_op op, const am_array *array, const char *pattern,
                                 int64_t pattern_length, int flags, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(string_function(err, op, array, pattern, pattern_length, flags, out));
}
