/* Folding patterns, and matching values against a folded pattern as
 * pyarrow's ignore_case matches them (see unicode_fold.h). */
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

void am_fold_pattern_init(am_fold_pattern *fp, const uint8_t *p, int64_t m, int utf8) {
  memset(fp, 0, sizeof *fp);
  fp->p = p, fp->m = m, fp->utf8 = utf8;
  for (int64_t j = 0; j < m; j++) fp->characters += !utf8 || (p[j] & 0xC0) != 0x80;
  if (m == 0) return;
  if (!utf8) { /* the bytes of the first byte's class */
    for (int b = 0; b < 256; b++) fp->first[b] = am_fold_latin1[b] == p[0];
  } else {
    uint32_t f = 0;
    am_re2_rune(p, p + m, &f); /* p is folded runes: f is its first, which folds to itself */
    uint8_t e[4];
    am_utf8_encode(f, e);
    fp->first[e[0]] = 1;
    /* the others that fold to f: in the blocks with folds */
    for (uint32_t b = 0; b < AM_FOLD_BLOCKS; b++) {
      if (!am_fold_block[b]) continue;
      for (uint32_t c = b << 8; c < ((b + 1) << 8); c++) {
        if (c != f && am_unicode_fold(c) == f) {
          am_utf8_encode(c, e);
          fp->first[e[0]] = 1;
        }
      }
    }
  }
  for (int b = 0; b < 256; b++)
    if (fp->first[b]) fp->firsts++, fp->only = (uint8_t)b;
}

int64_t am_fold_match_at(const am_fold_pattern *fp, const uint8_t *s, int64_t n, int64_t i) {
  for (int64_t j = 0; j < fp->m;) {
    if (i >= n) return -1;
    const int len = am_fold_char_length(fp->p[j], fp->utf8);
    const int taken = am_fold_char_at(s, n, i, fp->p + j, len, fp->utf8);
    if (!taken) return -1;
    i += taken, j += len;
  }
  return i;
}

int64_t am_fold_find(const am_fold_pattern *fp, const uint8_t *s, int64_t n, int64_t from,
                     int64_t *end) {
  for (int64_t i = from; i < n; i++) {
    if (fp->firsts == 1) { /* one byte begins a match: the C library's scan */
      const uint8_t *hit = memchr(s + i, fp->only, (size_t)(n - i));
      if (!hit) return -1;
      i = hit - s;
    } else {
      while (i < n && !fp->first[s[i]]) i++;
      if (i == n) return -1;
    }
    const int64_t e = am_fold_match_at(fp, s, n, i);
    if (e >= 0) {
      *end = e;
      return i;
    }
  }
  return -1;
}

/* The start of the character of s that ends at e: a byte, or in UTF-8 the
 * one rune that can end there (its lead the nearest byte back that does not
 * continue one); -1 where no rune ends there. */
static int64_t character_before(const uint8_t *s, int64_t e, int utf8) {
  int64_t k = e - 1;
  if (!utf8 || s[k] < 0x80) return k;
  while (k > 0 && k > e - 4 && (s[k] & 0xC0) == 0x80) k--;
  uint32_t c;
  return am_re2_rune(s + k, s + e, &c) == e - k ? k : -1;
}

int am_fold_ends_with(const am_fold_pattern *fp, const uint8_t *s, int64_t n) {
  /* a match is a character of s for each of the pattern's, so it begins that
   * many characters back */
  int64_t i = n;
  for (int64_t k = 0; k < fp->characters; k++) {
    if (i == 0 || (i = character_before(s, i, fp->utf8)) < 0) return 0;
  }
  return am_fold_match_at(fp, s, n, i) == n;
}
