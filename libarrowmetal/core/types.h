/* Element-type facts and pyarrow.compute's implicit type rules. */
#ifndef AM_CORE_TYPES_H
#define AM_CORE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrowmetal.h"
#include "error.h"

/* One past the largest am_type value described in types.c. Tables indexed
 * by type are this long; a type the library does not describe (a value
 * appended to the public enum before its row exists) is not valid. */
#define AM_TYPE_COUNT 37

/* The bit of type `t` in a set of types (a uint64_t: types go past 31); 0
 * for a value of 64 or more (AM_STRUCT = 64: no element type, so in no set,
 * and never a shift by 64 or more). */
#define AM_TYPE_BIT(t) ((unsigned)(t) < 64u ? (uint64_t)1 << (unsigned)(t) : (uint64_t)0)
/* Every type the library describes. */
uint64_t am_type_all(void);

/* Whether `t` is a type the library describes. */
bool am_type_valid(int t);
/* The type's am_type_kind; -1 when not valid. */
int am_type_kind_of(am_type t);
static inline bool am_type_is_signed(am_type t) { return am_type_kind_of(t) == AM_KIND_SIGNED; }
static inline bool am_type_is_unsigned(am_type t) { return am_type_kind_of(t) == AM_KIND_UNSIGNED; }
static inline bool am_type_is_integer(am_type t) {
  return am_type_is_signed(t) || am_type_is_unsigned(t);
}
static inline bool am_type_is_float(am_type t) { return am_type_kind_of(t) == AM_KIND_FLOAT; }
/* float16 (issue #13; core/float16.h): a kind of its own, so the functions
 * of floats refuse it; the calls that take it view it as its uint16
 * storage (am_type_storage) or convert its bits. */
static inline bool am_type_is_float16(am_type t) { return t == AM_FLOAT16; }
/* The IEEE float types, whose scalars carry their value in `f64`: float32,
 * float64 and float16. */
static inline bool am_type_is_ieee(am_type t) { return am_type_is_float(t) || t == AM_FLOAT16; }
/* A float16's value (its bits `h`) as a double, exactly, and a double
 * rounded to float16 bits as pyarrow rounds (core/float16.h). */
double am_float16_value(uint16_t h);
uint16_t am_float16_of(double v);
static inline bool am_type_is_numeric(am_type t) {
  return am_type_is_integer(t) || am_type_is_float(t);
}
static inline bool am_type_is_temporal(am_type t) { return am_type_kind_of(t) == AM_KIND_TEMPORAL; }
static inline bool am_type_is_timestamp(am_type t) {
  return t >= AM_TIMESTAMP_S && t <= AM_TIMESTAMP_NS;
}
static inline bool am_type_is_duration(am_type t) {
  return t >= AM_DURATION_S && t <= AM_DURATION_NS;
}
/* Strings and binary (AM_UTF8 ... AM_FIXED_SIZE_BINARY, AM_STRING_VIEW,
 * AM_BINARY_VIEW). */
static inline bool am_type_is_binary(am_type t) { return am_type_kind_of(t) == AM_KIND_BINARY; }
/* Text: utf8, large_utf8 and string_view. */
static inline bool am_type_is_utf8(am_type t) {
  return t == AM_UTF8 || t == AM_LARGE_UTF8 || t == AM_STRING_VIEW;
}
/* The variable-length ones with an offsets buffer. */
static inline bool am_type_is_var_binary(am_type t) { return t >= AM_UTF8 && t <= AM_LARGE_BINARY; }
/* string_view and binary_view: 16-byte views and variadic data buffers
 * (core/string_view.h). */
static inline bool am_type_is_view(am_type t) { return t == AM_STRING_VIEW || t == AM_BINARY_VIEW; }
/* Every variable-length one: offsets or views. */
static inline bool am_type_is_var_sized(am_type t) {
  return am_type_is_var_binary(t) || am_type_is_view(t);
}
/* 64-bit offsets. */
static inline bool am_type_is_large_binary(am_type t) {
  return t == AM_LARGE_UTF8 || t == AM_LARGE_BINARY;
}
/* decimal128 and decimal256 (core/decimal.h). */
static inline bool am_type_is_decimal(am_type t) { return am_type_kind_of(t) == AM_KIND_DECIMAL; }
/* The most digits of each decimal width (Arrow's). */
#define AM_DECIMAL128_DIGITS 38
#define AM_DECIMAL256_DIGITS 76
/* Bytes of a decimal value of type `t` (16 or 32); 0 for the other types. */
static inline int am_decimal_bytes(am_type t) {
  return t == AM_DECIMAL128 ? 16 : t == AM_DECIMAL256 ? 32 : 0;
}
/* The most digits of decimal type `t`'s values. */
static inline int am_decimal_max_digits(am_type t) {
  return t == AM_DECIMAL256 ? AM_DECIMAL256_DIGITS : AM_DECIMAL128_DIGITS;
}
/* The types only the host holds, which never wait on a device: strings,
 * binary and decimals. am_settle refuses them; the calls that take them
 * test for them before settling. */
static inline bool am_type_is_host_only(am_type t) {
  return am_type_is_binary(t) || am_type_is_decimal(t);
}
/* The integer type a temporal type is stored as (int32 or int64), whose
 * kernels it runs on, and float16's bits (uint16); `t` itself for the other
 * types. */
static inline am_type am_type_storage(am_type t) {
  return t == AM_FLOAT16                                           ? AM_UINT16
         : !am_type_is_temporal(t)                                 ? t
         : t == AM_DATE32 || t == AM_TIME32_S || t == AM_TIME32_MS ? AM_INT32
                                                                   : AM_INT64;
}
/* The unit of a timestamp, time, duration or date64 as a power of ten of
 * seconds' fractions (0: s, 3: ms, 6: us, 9: ns); -1 for date32 (days) and
 * the other types. */
int am_type_unit_digits(am_type t);
/* The timestamp, duration and time types of a unit (0, 3, 6, 9 digits). */
am_type am_timestamp_of_unit(int digits);
am_type am_duration_of_unit(int digits);
/* A copy of `text` that lives as long as the process, one per distinct text
 * (time zones and the formats that carry them); NULL when out of memory. */
const char *am_intern(const char *text);
/* The Arrow format of a `t` array with time zone `tz` (NULL: none): the
 * type's own, or "tsu:Europe/Paris", interned; NULL when out of memory. */
const char *am_format_with_timezone(am_type t, const char *tz);

/* Parses an Arrow decimal format ("d:10,2", "d:40,5,256"): the type, the
 * precision and the scale. AM_OK, or AM_ETYPE for a decimal width the
 * library does not take (32, 64) and AM_EINVAL for a malformed one, with
 * `why` naming the problem. Not a decimal format: AM_TYPE_INVALID, AM_OK. */
int am_decimal_parse_format(const char *format, am_type *type, int32_t *precision, int32_t *scale,
                            char *why, size_t why_size);
/* The Arrow format of a decimal of these parameters, interned (lives as long
 * as the process); NULL when out of memory. */
const char *am_decimal_format(am_type t, int32_t precision, int32_t scale);

/* Bits per element: 1 for AM_BOOL. */
int am_type_bits(am_type t);
/* The most slots an array made by the library may have: 2^52, so that byte
 * sizes of any type never overflow. */
#define AM_MAX_LENGTH ((int64_t)1 << 52)

/* Bytes needed for `length` elements starting at element 0; -1 when length
 * is negative or above AM_MAX_LENGTH. */
int64_t am_type_bytes(am_type t, int64_t length);
/* pyarrow's name ("int64", "double"), for messages; "invalid" when invalid. */
const char *am_type_name(am_type t);

/* One element of type `t` (its bytes at `element`) as text, for messages:
 * integers exactly, floats with enough digits to tell them apart. */
void am_value_text(am_type t, const void *element, char *text, size_t capacity);
/* ArrowMetal's name ("int64", "float64"), also numpy's. */
const char *am_type_label(am_type t);
/* Arrow format ("l") and numpy dtype name ("int64"); NULL when invalid. */
const char *am_type_format_of(am_type t);
const char *am_type_numpy_of(am_type t);
/* GPU kernels: the token kernels name the element type by ("am_i64"; a bool
 * is a 0/1 "am_u32"), and that type's spelling in CUDA C++ and in the Metal
 * Shading Language; NULL where the dialect has none (MSL: float64) or the
 * type has no spelling of its own (bool). */
const char *am_type_kernel(am_type t);
const char *am_type_cuda(am_type t);
const char *am_type_msl(am_type t);
/* Arrow format string -> type; AM_TYPE_INVALID if not a supported primitive. */
am_type am_type_from_format(const char *format);

/* The common numeric type pyarrow.compute casts both operands of an
 * element-wise numeric kernel to (Arrow's CommonNumeric): the wider float if
 * either is a float, else the wider integer, with mixed signedness widened to
 * a signed type that holds both (capped at int64). AM_TYPE_INVALID if either
 * is not numeric. */
am_type am_common_numeric(am_type a, am_type b);

/* Converts a scalar to `to` as a safe cast would. AM_EOVERFLOW if the value
 * does not fit. Null scalars stay null. */
int am_scalar_cast(am_err *err, const am_scalar *in, am_type to, am_scalar *out);

#endif
