/* utf8_upper and utf8_lower of am_string_function, pyarrow's: each code
 * point of a valid slot is mapped as core/unicode_case.h maps it (pyarrow's
 * own tables) and written in its shortest form (core/utf8.h), so a value
 * can come out shorter (U+0131 'ı' upper is 'I') or longer (U+023A 'Ⱥ'
 * lower is U+2C65, two bytes to three). Bytes that are not UTF-8 in a
 * valid slot fail the call as pyarrow's ("Invalid UTF8 sequence in input");
 * null slots are not read and come out null and empty.
 *
 * Where no code point changes its byte count (map_in_place: nearly always)
 * the result keeps the input's layout and runs of values map as one stretch
 * of bytes. Otherwise one pass writes the result into as many bytes as the
 * input's values hold: values only shrink unless a mapping lengthens a code
 * point, and that is checked where it happens. When the values outgrow the input, a
 * second pass counts the exact bytes and the mapping is written again. A
 * run of 8 ASCII bytes is mapped at once (SWAR: no byte of it is above
 * 0x7F, so adding to one never carries into the next). */
#include "abi.h"
#include "core/string_array.h"
#include "core/unicode_case.h"
#include "core/utf8.h"
#include "string_calls.h"

#include <string.h>

enum { INVALID = -1, OUTGROWN = -2, RESIZED = -3 };

/* w's bytes (each below 0x80) in [lo, hi] with bit 5 flipped: the case of
 * eight ASCII letters. */
static inline uint64_t flip_range(uint64_t w, unsigned lo, unsigned hi) {
  const uint64_t ones = 0x0101010101010101ull;
  const uint64_t at_least_lo = w + ones * (0x80u - lo);
  const uint64_t above_hi = w + ones * (0x7Fu - hi);
  return w ^ ((at_least_lo & ~above_hi & (ones * 0x80u)) >> 2);
}

static inline uint32_t map_point(uint32_t c, int upper) {
  return upper ? am_unicode_upper(c) : am_unicode_lower(c);
}

/* Value s[0..n) mapped to out, which has room for n + spare bytes: the
 * bytes written, INVALID, or OUTGROWN when they would pass the room (out
 * NULL: only counts). `in_place` (map_in_place's runs of whole values): a
 * code point that changes its byte count is RESIZED, so that the result
 * keeps the input's layout. */
static int64_t map_value(const uint8_t *s, int64_t n, uint8_t *out, int64_t spare, int upper,
                         int in_place) {
  const unsigned lo = upper ? 'a' : 'A', hi = upper ? 'z' : 'Z';
  int64_t i = 0, o = 0;
  while (i < n) {
    if (n - i >= 8) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      if (!(w & 0x8080808080808080ull)) {
        if (out) {
          w = flip_range(w, lo, hi);
          memcpy(out + o, &w, 8);
        }
        i += 8, o += 8;
        continue;
      }
    }
    const uint8_t b = s[i];
    if (b < 0x80) {
      if (out) out[o] = (b >= lo && b <= hi) ? (uint8_t)(b ^ 0x20) : b;
      i++, o++;
      continue;
    }
    uint32_t c = 0;
    const int len = am_utf8_decode(s + i, s + n, &c);
    if (len == 0) return INVALID;
    const uint32_t m = map_point(c, upper);
    const int written = am_utf8_length(m);
    if (in_place && written != len) return RESIZED;
    spare -= written - len;
    if (spare < 0 && out) return OUTGROWN;
    if (out) am_utf8_encode(m, out + o);
    i += len, o += written;
  }
  return o;
}

/* Maps every valid slot of a into r's bytes (cap of them) and writes r's
 * offsets; INVALID, or OUTGROWN when the values pass cap. `exact`: cap is
 * count_all's, nothing to check. */
static int64_t map_all(const am_array *a, am_array *r, int64_t cap, int exact, int upper) {
  const int large = am_type_is_large_binary(a->type);
  uint8_t *bytes = (uint8_t *)r->bytes;
  int64_t at = 0, rest = am_string_offset(a, a->length) - am_string_offset(a, 0);
  for (int64_t i = 0; i < a->length; i++) {
    int64_t n = 0;
    const uint8_t *v = am_string_value(a, i, &n);
    rest -= n;
    if (am_string_is_valid(a, i) && n > 0) {
      /* room for this value and, after it, at least the values still to come */
      const int64_t spare = exact ? INT64_MAX / 2 : cap - at - rest - n;
      const int64_t got = map_value(v, n, bytes + at, spare, upper, 0);
      if (got < 0) return got;
      at += got;
    }
    if (large)
      ((int64_t *)r->data)[i + 1] = at;
    else
      ((int32_t *)r->data)[i + 1] = (int32_t)at;
  }
  return at;
}

/* The common case at the speed of the bytes: when no code point changes its
 * byte count, the result has the input's layout, so each run of valid slots
 * is mapped as one stretch of bytes (null slots' bytes are copied, not
 * read) and the offsets are the input's. A sequence could then run across
 * two values, which pyarrow, mapping value by value, refuses; it would make
 * the second value start with a continuation byte, so a valid value that
 * does sends the call to map_all. AM_OK, INVALID, or RESIZED (map_all then
 * writes the result whole). */
static int map_in_place(const am_array *a, am_array *r, int upper) {
  const int64_t n = a->length, first = am_string_offset(a, 0);
  uint8_t *bytes = (uint8_t *)r->bytes;
  for (int64_t i = 0; i < n;) {
    const int valid = am_string_is_valid(a, i);
    int64_t j = i + 1;
    while (j < n && am_string_is_valid(a, j) == valid) j++;
    const int64_t b = am_string_offset(a, i), e = am_string_offset(a, j);
    if (!valid) {
      if (e > b) memcpy(bytes + (b - first), a->bytes + b, (size_t)(e - b));
    } else {
      for (int64_t k = i; k < j; k++) {
        const int64_t at = am_string_offset(a, k);
        if (at < am_string_offset(a, k + 1) && (a->bytes[at] & 0xC0) == 0x80) return RESIZED;
      }
      const int64_t got =
          e > b ? map_value(a->bytes + b, e - b, bytes + (b - first), 0, upper, 1) : 0;
      if (got < 0) return (int)got;
    }
    i = j;
  }
  if (am_type_is_large_binary(a->type)) {
    const int64_t *from = (const int64_t *)a->data + a->offset;
    for (int64_t i = 0; i <= n; i++) ((int64_t *)r->data)[i] = from[i] - first;
  } else {
    const int32_t *from = (const int32_t *)a->data + a->offset;
    for (int64_t i = 0; i <= n; i++) ((int32_t *)r->data)[i] = (int32_t)(from[i] - first);
  }
  return AM_OK;
}

/* The exact bytes of the mapped values; INVALID when one is not UTF-8. */
static int64_t count_all(const am_array *a, int upper) {
  int64_t total = 0;
  for (int64_t i = 0; i < a->length; i++) {
    int64_t n = 0;
    const uint8_t *v = am_string_value(a, i, &n);
    if (!am_string_is_valid(a, i) || n == 0) continue;
    const int64_t got = map_value(v, n, NULL, 0, upper, 0);
    if (got < 0) return got;
    total += got;
  }
  return total;
}

int am_string_utf8_case(am_err *err, am_string_op op, const am_array *a, am_array **out) {
  const int upper = op == AM_UTF8_UPPER;
  int64_t cap = am_string_offset(a, a->length) - am_string_offset(a, 0);
  for (int exact = 0; exact < 2; exact++) {
    am_array *r = NULL;
    int status =
        am_string_alloc(err, a->device, a->type, 0, a->length, cap, a->validity != NULL, &r);
    if (status != AM_OK) return status;
    int64_t got = exact ? RESIZED : map_in_place(a, r, upper);
    if (got == RESIZED) got = map_all(a, r, cap, exact, upper);
    if (got >= 0) {
      if (!a->validity) atomic_store(&r->null_count, 0);
      am_string_copy_validity(a, r);
      *out = r;
      return AM_OK;
    }
    am_array_free(r);
    if (got == INVALID) break;
    cap = count_all(a, upper); /* OUTGROWN: the exact size, then again */
    if (cap < 0) break;
  }
  return am_fail(err, AM_EINVAL, "Invalid UTF8 sequence in input");
}
