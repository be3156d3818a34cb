/* Case folding as pyarrow's matching functions fold under
 * MatchSubstringOptions(ignore_case=True), and UTF-8 as the RE2 they run on
 * reads it.
 *
 * pyarrow matches with ignore_case through RE2 in case-insensitive mode:
 * UTF-8 for string types, Latin-1 for binary ones. RE2 compares a value's
 * code point with a pattern's by their orbits (the code points Unicode's
 * simple case folding ties together: k, K and U+212A; ß and U+1E9E; never
 * ß and "ss"), so each code point folds here to its orbit's smallest
 * member: two code points match exactly when their folds are equal, and a
 * fold's UTF-8 form is never longer than the code point's. In Latin-1 RE2
 * folds the ASCII letters alone (am_fold_latin1). The tables
 * (unicode_fold_table.c) are generated from pyarrow by gen_unicode_fold.py:
 * a block index per 256 code points up to the last block with a fold, and a
 * delta per code point in each block (block 0: all zero). */
#ifndef AM_CORE_UNICODE_FOLD_H
#define AM_CORE_UNICODE_FOLD_H

#include <stdint.h>

/* Blocks of 256 code points the index covers (U+0000-U+1E9FF). */
#define AM_FOLD_BLOCKS 490

extern const uint8_t am_fold_latin1[256];
extern const uint8_t am_fold_block[AM_FOLD_BLOCKS];
extern const int32_t am_fold_delta[][256];

/* c's fold (any 32-bit value: those past the table fold to themselves). */
static inline uint32_t am_unicode_fold(uint32_t c) {
  return (c >> 8) < AM_FOLD_BLOCKS ? c + (uint32_t)am_fold_delta[am_fold_block[c >> 8]][c & 255]
                                   : c;
}

/* The rune RE2 reads at s (before end): its byte count, 0 where RE2 sees no
 * rune (a pattern there is "invalid UTF-8"; a value's byte there matches no
 * literal). A rune is a lead byte and its continuation bytes in the
 * shortest form, at most U+10FFFF; surrogates are runes. */
static inline int am_re2_rune(const uint8_t *s, const uint8_t *end, uint32_t *cp) {
  const uint8_t c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  const int len = c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
  if (len == 0 || end - s < len) return 0;
  uint32_t v = c & (0x7Fu >> len);
  for (int k = 1; k < len; k++) {
    if ((s[k] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (s[k] & 0x3Fu);
  }
  if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF))) return 0;
  *cp = v;
  return len;
}

/* The bytes RE2's '.' (any character, as a LIKE pattern's '_' and '%' are
 * compiled) takes at s: RE2 compiles it loosely, a byte below 0x80 or a
 * lead byte C2-DF, E0-EF or F0-F4 with its 1, 2 or 3 continuation bytes (so
 * E0 80 80 and F4 90 80 80 too); 0 where it takes none. */
static inline int am_re2_any(const uint8_t *s, const uint8_t *end) {
  const uint8_t c = s[0];
  if (c < 0x80) return 1;
  const int len = c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
  if (len == 0 || end - s < len) return 0;
  for (int k = 1; k < len; k++)
    if ((s[k] & 0xC0) != 0x80) return 0;
  return len;
}

/* Whether '.'s take all of s[0, n): an anchored LIKE expression can match
 * nothing else. */
int am_re2_any_covers(const uint8_t *s, int64_t n);

/* How many bytes of s[i, n) the folded character p[0, len) (a rune in
 * UTF-8, else a byte) matches: the value's character there folds to it; 0
 * where it does not (a byte that is no rune matches no rune). */
static inline int am_fold_char_at(const uint8_t *s, int64_t n, int64_t i, const uint8_t *p, int len,
                                  int utf8) {
  if (!utf8 || s[i] < 0x80) return am_fold_latin1[s[i]] == p[0];
  uint32_t c, want = len == 1 ? p[0] : p[0] & (0x7Fu >> len);
  const int taken = am_re2_rune(s + i, s + n, &c);
  for (int k = 1; k < len; k++) want = want << 6 | (p[k] & 0x3Fu);
  return taken && am_unicode_fold(c) == want ? taken : 0;
}

/* The bytes of the character that begins with byte b of a folded pattern. */
static inline int am_fold_char_length(uint8_t b, int utf8) {
  return !utf8 || b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

/* A pattern's literal text folded into out (m bytes at most), *out_length
 * set: 0, with nothing written past the runes read, where the text is not
 * runes (RE2: "invalid UTF-8"), 1 otherwise. */
int am_fold_utf8_pattern(const uint8_t *p, int64_t m, uint8_t *out, int64_t *out_length);

/* Bytes folded as RE2's Latin-1 mode folds them (binary types). */
void am_fold_latin1_bytes(const uint8_t *s, int64_t n, uint8_t *out);

/* A folded pattern, to match values as they are (folding each rune as it
 * is compared, so that bytes far from a match are only scanned): its bytes,
 * its characters (runes in UTF-8, else bytes), and the bytes that can begin
 * a match (the first byte of every character that folds to its first). */
typedef struct am_fold_pattern {
  const uint8_t *p;
  int64_t m, characters;
  int utf8;
  int firsts;         /* how many bytes `first` holds */
  uint8_t only;       /* the one byte, where firsts is 1 */
  uint8_t first[256]; /* nonzero: a byte that can begin a match */
} am_fold_pattern;

/* fp over the folded pattern p[0, m) (borrowed), of a UTF-8 (utf8) or
 * binary type. */
void am_fold_pattern_init(am_fold_pattern *fp, const uint8_t *p, int64_t m, int utf8);

/* Where a match of fp in s[0, n) that begins at byte i ends; -1 where none
 * begins there. */
int64_t am_fold_match_at(const am_fold_pattern *fp, const uint8_t *s, int64_t n, int64_t i);

/* The first match of fp (m > 0) in s[0, n) that begins at `from` or after,
 * as RE2 searches (at every byte): its first byte, *end its end; -1 where
 * there is none. */
int64_t am_fold_find(const am_fold_pattern *fp, const uint8_t *s, int64_t n, int64_t from,
                     int64_t *end);

/* Whether s[0, n) ends with a match of fp. */
int am_fold_ends_with(const am_fold_pattern *fp, const uint8_t *s, int64_t n);

#endif
