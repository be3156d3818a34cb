/* The case types (README.md, "Types and values") and the slots of an Arrow C Data
 * Interface array read as values: the comparisons the Python runner makes
 * (casefmt.same_value, the tolerances) and the canonical text that hashed results
 * are digests of. */
#ifndef CONFORMANCE_VALUES_H
#define CONFORMANCE_VALUES_H

#include <arrowmetal.h>
#include <stdint.h>

#include "sha256.h"

typedef enum {
  CR_BOOL,
  CR_SIGNED, /* the signed integers and the temporal types (their storage integers) */
  CR_UNSIGNED,
  CR_FLOAT,
  CR_UTF8,   /* string, large_string: text */
  CR_BINARY, /* binary, large_binary, fixed_size_binary: bytes, written as hex */
  CR_DECIMAL /* decimal128, decimal256: little-endian two's complement, written at the scale */
} cr_kind;

typedef struct {
  const char *name;   /* the case type's name ("int32", "timestamp[s]", "string") */
  am_type type;       /* its am_type */
  const char *format; /* its Arrow format */
  cr_kind kind;
  int width;            /* bytes a slot (bool: 0), the offsets' width for (large_)string/binary, the
                           fixed width for fixed_size_binary, 16 or 32 for decimals, 16 (a view)
                           for string_view / binary_view */
  int precision, scale; /* decimals' */
} cr_type;

/* The type of a case type name ("decimal128(5, 2)" too), an am_type (not a decimal's:
 * its precision and scale are the array's or the scalar's), or an Arrow format (a
 * timestamp's with or without its time zone, which cases carry beside the type as
 * "tz"); NULL if none. A decimal type is made on first use, one per width, precision and scale,
 * so that one type is one pointer. */
const cr_type *cr_type_named(const char *name);
const cr_type *cr_type_of_am(int type);
const cr_type *cr_type_of_format(const char *format);
/* The decimal type of `bits` (128, 256), precision and scale; NULL if none. */
const cr_type *cr_type_decimal(int bits, int precision, int scale);
/* The type of an array handle (a decimal's with its precision and scale). */
const cr_type *cr_type_of_array(const am_array *array);

/* A decoded slot. */
typedef struct {
  int null;
  int64_t i;            /* bool (0, 1), signed, temporal */
  uint64_t u;           /* unsigned */
  double f;             /* floats (a float32 as its exact double) */
  const uint8_t *bytes; /* strings, binary and decimals: len bytes */
  int64_t len;
} cr_value;

/* An array's slots (the struct is borrowed, the offset applied). */
typedef struct {
  const cr_type *type;
  const struct ArrowArray *array;
} cr_column;

int64_t cr_length(const cr_column *col);
int cr_is_null(const cr_column *col, int64_t i);
cr_value cr_get(const cr_column *col, int64_t i);
int64_t cr_null_count(const cr_column *col);

/* casefmt.same_value: exact (NaN equals NaN, the sign of zero counts unless
 * zero_sign is 0), or floats within `ulps` units in the last place. */
int cr_same(const cr_type *t, cr_value a, cr_value b, int zero_sign, int64_t ulps);
/* |got - want| <= abs + rel * |want| for finite floats; else cr_same. */
int cr_within(const cr_type *t, cr_value got, cr_value want, double abs, double rel);
/* A total order of values of one type (null first, then by value, NaN last; -0.0
 * before 0.0; strings by bytes): for sorting rows before comparing them. */
int cr_order(const cr_type *t, cr_value a, cr_value b);

/* The value in the JSON codec (a decimal string, "nan", text, hex), for messages. */
void cr_show(const cr_type *t, cr_value v, char *out, size_t size);

/* The hex SHA-256 of the canonical encoding of every slot of a column: a JSON array
 * of tokens "null", true/false, "\"-5\"", "\"3ff0000000000000\"", a JSON string. */
void cr_digest(const cr_column *col, char out[65]);

#endif
