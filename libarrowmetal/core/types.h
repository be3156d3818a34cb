/* Element-type facts and pyarrow.compute's implicit type rules. */
#ifndef AM_CORE_TYPES_H
#define AM_CORE_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "arrowmetal.h"

#define AM_TYPE_COUNT 12 /* am_type values 0..11 */

static inline bool am_type_valid(int t) { return t >= AM_BOOL && t <= AM_FLOAT64; }
static inline bool am_type_is_signed(am_type t) { return t >= AM_INT8 && t <= AM_INT64; }
static inline bool am_type_is_unsigned(am_type t) { return t >= AM_UINT8 && t <= AM_UINT64; }
static inline bool am_type_is_integer(am_type t) { return t >= AM_INT8 && t <= AM_UINT64; }
static inline bool am_type_is_float(am_type t) { return t == AM_FLOAT32 || t == AM_FLOAT64; }
static inline bool am_type_is_numeric(am_type t) { return t >= AM_INT8 && t <= AM_FLOAT64; }

/* Bits per element: 1 for AM_BOOL. */
int am_type_bits(am_type t);
/* The most slots an array made by the library may have: 2^52, so that byte
 * sizes of any type never overflow. */
#define AM_MAX_LENGTH ((int64_t)1 << 52)

/* Bytes needed for `length` elements starting at element 0; -1 when length
 * is negative or above AM_MAX_LENGTH. */
int64_t am_type_bytes(am_type t, int64_t length);
/* "int64", "bool", ... for messages. */
const char *am_type_name(am_type t);
/* Arrow format string -> type; AM_TYPE_INVALID if not a supported primitive. */
am_type am_type_from_format(const char *format);

/* The common numeric type pyarrow.compute casts both operands of an
 * element-wise numeric kernel to (Arrow's CommonNumeric): the wider float if
 * either is a float, else the wider integer, with mixed signedness widened to
 * a signed type that holds both (capped at int64). AM_TYPE_INVALID if either
 * is not numeric. */
am_type am_common_numeric(am_type a, am_type b);

/* Converts a scalar to `to` as a safe cast would. AM_EOVERFLOW (message set)
 * if the value does not fit. Null scalars stay null. */
int am_scalar_cast(const am_scalar *in, am_type to, am_scalar *out);

#endif
