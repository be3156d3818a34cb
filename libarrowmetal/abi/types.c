/* The exported facts about element types (core/types.c holds the table). */
#include <string.h>

#include "abi.h"

AM_EXPORT const char *am_type_format(am_type type) { return am_type_format_of(type); }

AM_EXPORT int am_type_count(void) { return AM_TYPE_COUNT; }

static int type_info(am_err *err, am_type type, am_type_info *out) {
  AM_REQUIRE(out, "out");
  if (!am_type_valid((int)type))
    return am_fail(err, AM_ETYPE, "%d is not an element type", (int)type);
  memset(out, 0, sizeof *out);
  out->name = am_type_label(type);
  out->arrow_name = am_type_name(type);
  out->format = am_type_format_of(type);
  out->numpy = am_type_numpy_of(type);
  out->bit_width = am_type_bits(type);
  out->kind = am_type_kind_of(type);
  return AM_OK;
}

AM_EXPORT int am_type_info_get(am_type type, am_type_info *out) {
  AM_API_BEGIN;
  AM_API_RETURN(type_info(err, type, out));
}
