/* Unicode case mapping as pyarrow's utf8_upper and utf8_lower map code
 * points: one code point to one (utf8proc's simple mappings), every code
 * point without a mapping to itself. The tables (unicode_case_table.c) are
 * generated from pyarrow by gen_unicode_case.py: a block index per 256 code
 * points up to the last block with a mapping, and a delta per code point in
 * each block (block 0: all zero, shared by the blocks with none). */
#ifndef AM_CORE_UNICODE_CASE_H
#define AM_CORE_UNICODE_CASE_H

#include <stdint.h>

/* Blocks of 256 code points the index covers (U+0000-U+1E9FF). */
#define AM_UPPER_BLOCKS 490
#define AM_LOWER_BLOCKS 490

extern const uint8_t am_upper_block[AM_UPPER_BLOCKS];
extern const int32_t am_upper_delta[][256];
extern const uint8_t am_lower_block[AM_LOWER_BLOCKS];
extern const int32_t am_lower_delta[][256];

/* c's image (any 32-bit value: those past the tables map to themselves). */
static inline uint32_t am_unicode_upper(uint32_t c) {
  return (c >> 8) < AM_UPPER_BLOCKS ? c + (uint32_t)am_upper_delta[am_upper_block[c >> 8]][c & 255]
                                    : c;
}

static inline uint32_t am_unicode_lower(uint32_t c) {
  return (c >> 8) < AM_LOWER_BLOCKS ? c + (uint32_t)am_lower_delta[am_lower_block[c >> 8]][c & 255]
                                    : c;
}

#endif
