/* UTF-8 as pyarrow's string kernels read and write it (arrow/util/utf8.h's
 * lenient decoder): a lead byte and its continuation bytes, with no check
 * for overlong forms, surrogates or code points past U+10FFFF (lead bytes
 * up to 0xF7); what a kernel writes is the shortest form of each code point
 * (so an overlong NUL, C0 80, comes out as 00). */
#ifndef AM_CORE_UTF8_H
#define AM_CORE_UTF8_H

#include <stdint.h>

/* The code point at s (before end): its byte count, 0 when the bytes are not
 * a lead byte and its continuation bytes. */
static inline int am_utf8_decode(const uint8_t *s, const uint8_t *end, uint32_t *cp) {
  const uint8_t c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  const int len = c < 0xC0 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 0;
  if (len == 0 || end - s < len) return 0;
  uint32_t v = c & (0x7Fu >> len);
  for (int k = 1; k < len; k++) {
    if ((s[k] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (s[k] & 0x3Fu);
  }
  *cp = v;
  return len;
}

/* The code point that ends just before e (after begin), read backward as
 * pyarrow's reverse decoder reads it: its byte count, 0 when the bytes
 * before e are not one (a continuation byte whose lead is not there, within
 * begin). */
static inline int am_utf8_decode_back(const uint8_t *begin, const uint8_t *e, uint32_t *cp) {
  static const uint8_t lead_mask[5] = {0, 0, 0xE0, 0xF0, 0xF8};
  static const uint8_t lead_bits[5] = {0, 0, 0xC0, 0xE0, 0xF0};
  const uint8_t *s = e - 1;
  if (*s < 0x80) {
    *cp = *s;
    return 1;
  }
  if ((*s & 0xC0) != 0x80) return 0;
  uint32_t v = *s & 0x3Fu;
  int shift = 6;
  for (int len = 2; len <= 4; len++) {
    if (--s < begin) return 0;
    const uint8_t c = *s;
    if ((c & lead_mask[len]) == lead_bits[len]) {
      *cp = v | (uint32_t)(c & (uint8_t)~lead_mask[len]) << shift;
      return len;
    }
    if ((c & 0xC0) != 0x80) return 0;
    v |= (uint32_t)(c & 0x3Fu) << shift;
    shift += 6;
  }
  return 0;
}

/* pyarrow's ASCII whitespace (the ascii_ trims and ascii_split_whitespace):
 * the bytes \t \n \v \f \r and space. */
static inline int am_ascii_is_space(uint32_t c) { return c == ' ' || (c >= 9 && c <= 13); }

/* pyarrow's Unicode whitespace (the utf8_ trims and utf8_split_whitespace):
 * the code points of general category Zs or Unicode bidi class WS, B or S
 * (utf8proc's): U+0009-000D, U+001C-0020, U+0085, U+00A0, U+1680,
 * U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000. */
static inline int am_utf8_is_space(uint32_t c) {
  if (c < 0x80) return am_ascii_is_space(c) || (c >= 0x1C && c <= 0x1F);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* The bytes of code point c (below 2^21) in its shortest form. */
static inline int am_utf8_length(uint32_t c) {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/* Writes c (below 2^21) at out in its shortest form; returns the bytes. */
static inline int am_utf8_encode(uint32_t c, uint8_t *out) {
  if (c < 0x80) {
    out[0] = (uint8_t)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (uint8_t)(0xC0 | (c >> 6));
    out[1] = (uint8_t)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (uint8_t)(0xE0 | (c >> 12));
    out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    out[2] = (uint8_t)(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = (uint8_t)(0xF0 | (c >> 18));
  out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
  out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
  out[3] = (uint8_t)(0x80 | (c & 0x3F));
  return 4;
}

#endif
