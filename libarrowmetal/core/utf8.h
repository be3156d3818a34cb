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
