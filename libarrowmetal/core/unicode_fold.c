/* Folding values and patterns as pyarrow's ignore_case matches them (see
 * unicode_fold.h). */
#include "unicode_fold.h"

#include <string.h>

#include "utf8.h"

int am_re2_any_covers(const uint8_t *s, int64_t n) {
  const uint8_t *end = s + n;
  while (s < end) {
    const int len = am_re2_any(s, end);
    if (!len) return 0;
    s += len;
  }
  return 1;
}

/* Eight bytes that are all below 0x80. */
static inline int ascii8(const uint8_t *s) {
  uint64_t w;
  memcpy(&w, s, 8);
  return (w & 0x8080808080808080ull) == 0;
}

int64_t am_fold_utf8(const uint8_t *s, int64_t n, uint8_t *out) {
  const uint8_t *end = s + n;
  uint8_t *o = out;
  while (s < end) {
    if (end - s >= 8 && ascii8(s)) { /* the common case: ASCII, a word at a time */
      for (int k = 0; k < 8; k++) o[k] = am_fold_latin1[s[k]];
      s += 8, o += 8;
      continue;
    }
    if (*s < 0x80) {
      *o++ = am_fold_latin1[*s++];
      continue;
    }
    uint32_t c;
    const int len = am_re2_rune(s, end, &c);
    if (!len) { /* no rune: kept, matching nothing */
      *o++ = *s++;
      continue;
    }
    const uint32_t f = am_unicode_fold(c);
    if (f == c) {
      memcpy(o, s, (size_t)len);
      o += len;
    } else {
      o += am_utf8_encode(f, o);
    }
    s += len;
  }
  return o - out;
}

int64_t am_fold_utf8_origin(const uint8_t *s, int64_t n, int64_t at) {
  const uint8_t *end = s + n;
  int64_t i = 0, folded = 0;
  while (folded < at && i < n) {
    uint32_t c;
    const int len = s[i] < 0x80 ? 1 : am_re2_rune(s + i, end, &c);
    if (len <= 1) {
      i++, folded++;
      continue;
    }
    i += len;
    folded += am_utf8_length(am_unicode_fold(c));
  }
  return i;
}

int am_fold_utf8_pattern(const uint8_t *p, int64_t m, uint8_t *out, int64_t *out_length) {
  const uint8_t *end = p + m;
  uint8_t *o = out;
  *out_length = 0;
  while (p < end) {
    uint32_t c;
    const int len = am_re2_rune(p, end, &c);
    if (!len) return 0;
    o += am_utf8_encode(am_unicode_fold(c), o);
    p += len;
  }
  *out_length = o - out;
  return 1;
}

void am_fold_latin1_bytes(const uint8_t *s, int64_t n, uint8_t *out) {
  for (int64_t k = 0; k < n; k++) out[k] = am_fold_latin1[s[k]];
}
