#include "types.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "float16.h"

/* float16's conversions (core/float16.h); the host code here uses the
 * float64 pair alone. */
typedef int32_t am_i32;
typedef uint32_t am_u32;
typedef uint64_t am_u64;
#define DEVFN static inline __attribute__((unused))
AM_FLOAT16_DEFS
#undef DEVFN

static const struct {
  const char *format;
  const char *name;       /* ArrowMetal's and numpy's name */
  const char *arrow_name; /* pyarrow's name, as its messages spell it */
  const char *numpy;
  int bits;
  am_type_kind kind;
  /* GPU kernels: the token a kernel names the element type by, and that
   * type's spelling in CUDA C++ and in the Metal Shading Language (NULL
   * where the dialect has none: MSL has no double). A bool is a bit in
   * memory and a 0/1 am_u32 in a kernel, so it has no spelling of its own. */
  const char *kernel;
  const char *cuda;
  const char *msl;
} type_info[] = {
    [AM_BOOL] = {"b", "bool", "bool", "bool", 1, AM_KIND_BOOL, "am_u32", NULL, NULL},
    [AM_INT8] = {"c", "int8", "int8", "int8", 8, AM_KIND_SIGNED, "am_i8", "signed char", "char"},
    [AM_INT16] = {"s", "int16", "int16", "int16", 16, AM_KIND_SIGNED, "am_i16", "short", "short"},
    [AM_INT32] = {"i", "int32", "int32", "int32", 32, AM_KIND_SIGNED, "am_i32", "int", "int"},
    [AM_INT64] = {"l", "int64", "int64", "int64", 64, AM_KIND_SIGNED, "am_i64", "long long",
                  "long"},
    [AM_UINT8] = {"C", "uint8", "uint8", "uint8", 8, AM_KIND_UNSIGNED, "am_u8", "unsigned char",
                  "uchar"},
    [AM_UINT16] = {"S", "uint16", "uint16", "uint16", 16, AM_KIND_UNSIGNED, "am_u16",
                   "unsigned short", "ushort"},
    [AM_UINT32] = {"I", "uint32", "uint32", "uint32", 32, AM_KIND_UNSIGNED, "am_u32",
                   "unsigned int", "uint"},
    [AM_UINT64] = {"L", "uint64", "uint64", "uint64", 64, AM_KIND_UNSIGNED, "am_u64",
                   "unsigned long long", "ulong"},
    [AM_FLOAT32] = {"f", "float32", "float", "float32", 32, AM_KIND_FLOAT, "am_f32", "float",
                    "float"},
    [AM_FLOAT64] = {"g", "float64", "double", "float64", 64, AM_KIND_FLOAT, "am_f64", "double",
                    NULL},
    /* float16 (core/float16.h): kernels see its bits, an am_u16 (the uint16
     * storage whose kernels move, select and group it), so it has no spelling
     * of its own; its few float kernels (casts) convert those bits. */
    [AM_FLOAT16] = {"e", "float16", "halffloat", "float16", 16, AM_KIND_FLOAT16, "am_u16", NULL,
                    NULL},
    /* Decimals (core/decimal.h): integers of 16 or 32 bytes; the format's
     * precision and scale are parameters of the array ("d:10,2"), so the row's
     * format is their common prefix. No kernel spelling: GPUs do not hold them. */
    [AM_DECIMAL128] = {"d:", "decimal128", "decimal128", "", 128, AM_KIND_DECIMAL, NULL, NULL,
                       NULL},
    [AM_DECIMAL256] = {"d:", "decimal256", "decimal256", "", 256, AM_KIND_DECIMAL, NULL, NULL,
                       NULL},
/* Temporal types: integers of a unit. Their kernels are their storage
 * type's (am_type_storage), so they have no kernel spelling of their own. */
#define TEMPORAL(E, FORMAT, NAME, NUMPY, BITS)                                                \
  [E] = {FORMAT, NAME, NAME, NUMPY, BITS, AM_KIND_TEMPORAL, BITS == 32 ? "am_i32" : "am_i64", \
         NULL,   NULL}
    TEMPORAL(AM_TIMESTAMP_S, "tss:", "timestamp[s]", "datetime64[s]", 64),
    TEMPORAL(AM_TIMESTAMP_MS, "tsm:", "timestamp[ms]", "datetime64[ms]", 64),
    TEMPORAL(AM_TIMESTAMP_US, "tsu:", "timestamp[us]", "datetime64[us]", 64),
    TEMPORAL(AM_TIMESTAMP_NS, "tsn:", "timestamp[ns]", "datetime64[ns]", 64),
    TEMPORAL(AM_DATE32, "tdD", "date32[day]", "", 32),
    TEMPORAL(AM_DATE64, "tdm", "date64[ms]", "", 64),
    TEMPORAL(AM_TIME32_S, "tts", "time32[s]", "", 32),
    TEMPORAL(AM_TIME32_MS, "ttm", "time32[ms]", "", 32),
    TEMPORAL(AM_TIME64_US, "ttu", "time64[us]", "", 64),
    TEMPORAL(AM_TIME64_NS, "ttn", "time64[ns]", "", 64),
    TEMPORAL(AM_DURATION_S, "tDs", "duration[s]", "timedelta64[s]", 64),
    TEMPORAL(AM_DURATION_MS, "tDm", "duration[ms]", "timedelta64[ms]", 64),
    TEMPORAL(AM_DURATION_US, "tDu", "duration[us]", "timedelta64[us]", 64),
    TEMPORAL(AM_DURATION_NS, "tDn", "duration[ns]", "timedelta64[ns]", 64),
#undef TEMPORAL
/* Strings and binary (core/string_array.h): `bits` is the offsets' width
 * (fixed_size_binary: bytes, its width a parameter of the array). No
 * kernel spelling: GPUs do not hold them yet. */
#define STRING(E, FORMAT, NAME, BITS) \
  [E] = {FORMAT, NAME, NAME, "", BITS, AM_KIND_BINARY, NULL, NULL, NULL}
    STRING(AM_UTF8, "u", "string", 32),
    STRING(AM_LARGE_UTF8, "U", "large_string", 64),
    STRING(AM_BINARY, "z", "binary", 32),
    STRING(AM_LARGE_BINARY, "Z", "large_binary", 64),
    STRING(AM_FIXED_SIZE_BINARY, "w:", "fixed_size_binary", 8),
    /* views: `bits` is a view's (16 bytes) */
    STRING(AM_STRING_VIEW, "vu", "string_view", 128),
    STRING(AM_BINARY_VIEW, "vz", "binary_view", 128),
#undef STRING
};

_Static_assert(AM_TYPE_COUNT <= 64, "sets of types are 64-bit masks");
_Static_assert(sizeof type_info / sizeof type_info[0] == AM_TYPE_COUNT,
               "AM_TYPE_COUNT is one past the last row of type_info");

bool am_type_valid(int t) { return t > 0 && t < AM_TYPE_COUNT && type_info[t].name != NULL; }

uint64_t am_type_all(void) {
  uint64_t all = 0;
  for (int t = 1; t < AM_TYPE_COUNT; t++)
    if (am_type_valid(t)) all |= AM_TYPE_BIT(t);
  return all;
}

int am_type_kind_of(am_type t) { return am_type_valid((int)t) ? (int)type_info[t].kind : -1; }

int am_type_bits(am_type t) { return am_type_valid(t) ? type_info[t].bits : 0; }

int64_t am_type_bytes(am_type t, int64_t length) {
  if (length < 0 || length > AM_MAX_LENGTH) return -1;
  return t == AM_BOOL ? length / 8 + (length % 8 != 0) : length * (am_type_bits(t) / 8);
}

const char *am_type_name(am_type t) {
  return am_type_valid(t) ? type_info[t].arrow_name : "invalid";
}

const char *am_type_label(am_type t) { return am_type_valid(t) ? type_info[t].name : "invalid"; }

const char *am_type_format_of(am_type t) { return am_type_valid(t) ? type_info[t].format : NULL; }

const char *am_type_numpy_of(am_type t) { return am_type_valid(t) ? type_info[t].numpy : NULL; }

const char *am_type_kernel(am_type t) { return am_type_valid(t) ? type_info[t].kernel : NULL; }

const char *am_type_cuda(am_type t) { return am_type_valid(t) ? type_info[t].cuda : NULL; }

const char *am_type_msl(am_type t) { return am_type_valid(t) ? type_info[t].msl : NULL; }

am_type am_type_from_format(const char *format) {
  if (!format) return AM_TYPE_INVALID;
  if (format[0] == 'd' && format[1] == ':') {
    /* Decimals: the width is the format's third part ("d:P,S,256"). */
    am_type t;
    int32_t precision, scale;
    char why[8];
    return am_decimal_parse_format(format, &t, &precision, &scale, why, sizeof why) == AM_OK
               ? t
               : AM_TYPE_INVALID;
  }
  /* A timestamp's format carries its time zone after the colon, a
   * fixed_size_binary's its width ("w:16", checked by the import). */
  size_t n = format[0] == 't' && format[1] == 's' && format[2] && format[3] == ':' ? 4
             : format[0] == 'w' && format[1] == ':'                                ? 2
                                                                                   : SIZE_MAX;
  for (int t = 1; t < AM_TYPE_COUNT; t++)
    if (am_type_valid(t) && (n == SIZE_MAX ? strcmp(type_info[t].format, format) == 0
                                           : strncmp(type_info[t].format, format, n) == 0))
      return (am_type)t;
  return AM_TYPE_INVALID;
}

static am_type signed_of_bits(int bits) {
  return bits <= 8 ? AM_INT8 : bits <= 16 ? AM_INT16 : bits <= 32 ? AM_INT32 : AM_INT64;
}

am_type am_common_numeric(am_type a, am_type b) {
  if (!am_type_is_numeric(a) || !am_type_is_numeric(b)) return AM_TYPE_INVALID;
  if (a == b) return a;
  if (a == AM_FLOAT64 || b == AM_FLOAT64) return AM_FLOAT64;
  if (a == AM_FLOAT32 || b == AM_FLOAT32) return AM_FLOAT32;
  int signed_bits = 0, unsigned_bits = 0;
  am_type pair[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    int bits = am_type_bits(pair[i]);
    if (am_type_is_signed(pair[i])) {
      if (bits > signed_bits) signed_bits = bits;
    } else if (bits > unsigned_bits) {
      unsigned_bits = bits;
    }
  }
  if (signed_bits == 0) return a > b ? a : b; /* both unsigned: enum order is width order */
  if (unsigned_bits == 0) return a > b ? a : b;
  /* Mixed signedness: a signed type wide enough for the unsigned one. */
  if (signed_bits > unsigned_bits) return signed_of_bits(signed_bits);
  return signed_of_bits(unsigned_bits * 2 > 64 ? 64 : unsigned_bits * 2);
}

static int out_of_range_int(am_err *err, const char *value, int64_t lo, uint64_t hi) {
  return am_fail(err, AM_EOVERFLOW, "Integer value %s not in range: %lld to %llu", value,
                 (long long)lo, (unsigned long long)hi);
}

/* Range [lo, hi] of an integer type, as signed low and unsigned high bound. */
static void int_range(am_type t, int64_t *lo, uint64_t *hi) {
  int bits = am_type_bits(t);
  if (am_type_is_signed(t)) {
    *hi = bits == 64 ? (uint64_t)INT64_MAX : ((uint64_t)1 << (bits - 1)) - 1;
    *lo = -(int64_t)*hi - 1;
  } else {
    *lo = 0;
    *hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  }
}

int am_scalar_cast(am_err *err, const am_scalar *in, am_type to, am_scalar *out) {
  am_scalar r;
  memset(&r, 0, sizeof r);
  r.type = to;
  r.is_null = in->is_null;
  am_type from = (am_type)in->type;
  /* A string scalar holds an address, not a number: no number comes of it. */
  if (!in->is_null && from != to && (am_type_is_binary(from) || am_type_is_binary(to)))
    return am_fail(err, AM_ETYPE, "Unsupported cast from %s to %s", am_type_name(from),
                   am_type_name(to));
  if (in->is_null || from == to) {
    if (!in->is_null) r = *in;
    *out = r;
    return AM_OK;
  }
  char text[64];
  if (am_type_is_ieee(from)) {
    double v = in->f64;
    if (to == AM_BOOL) {
      r.i64 = v != 0.0;
    } else if (am_type_is_ieee(to)) {
      r.f64 = to == AM_FLOAT32   ? (double)(float)v
              : to == AM_FLOAT16 ? am_float16_value(am_float16_of(v))
                                 : v;
    } else {
      int64_t lo;
      uint64_t hi;
      int_range(to, &lo, &hi);
      /* pyarrow's words for a value out of range too. */
      if (isnan(v) || isinf(v) || v != trunc(v) || v < (double)lo ||
          v >= ldexp(1.0, am_type_bits(to) - am_type_is_signed(to)))
        return am_fail(err, AM_EOVERFLOW, "Float value %f was truncated converting to %s", v,
                       am_type_name(to));
      if (am_type_is_signed(to))
        r.i64 = (int64_t)v;
      else
        r.u64 = (uint64_t)v;
    }
    *out = r;
    return AM_OK;
  }
  /* Integer or bool source: represent as sign + magnitude to compare ranges. */
  int negative = am_type_is_signed(from) && in->i64 < 0;
  uint64_t magnitude = am_type_is_unsigned(from) ? in->u64
                       : negative                ? (uint64_t)0 - (uint64_t)in->i64
                                                 : (uint64_t)in->i64;
  if (am_type_is_unsigned(from))
    snprintf(text, sizeof text, "%llu", (unsigned long long)in->u64);
  else
    snprintf(text, sizeof text, "%lld", (long long)in->i64);
  /* The range a refusal names is the target's clipped to the source's, as
   * pyarrow's ("0 to 127" for a uint64 300 to int8). */
  int64_t from_lo = INT64_MIN;
  uint64_t from_hi;
  if (am_type_is_integer(from)) int_range(from, &from_lo, &from_hi);
  if (to == AM_BOOL) {
    r.i64 = magnitude != 0;
  } else if (am_type_is_ieee(to)) {
    /* float16 as pyarrow casts to it: through float32 from integers of up
     * to 32 bits, through float64 from wider ones */
    int exact = to == AM_FLOAT32 || (to == AM_FLOAT16 && am_type_bits(from) <= 32) ? 24 : 53;
    uint64_t limit = (uint64_t)1 << exact;
    if (magnitude > limit)
      return out_of_range_int(err, text, from_lo > -(int64_t)limit ? from_lo : -(int64_t)limit,
                              limit);
    r.f64 = negative ? -(double)magnitude : (double)magnitude;
    if (to == AM_FLOAT16) r.f64 = am_float16_value(am_float16_of(r.f64));
  } else {
    int64_t lo;
    uint64_t hi;
    int_range(to, &lo, &hi);
    if (negative ? magnitude > (uint64_t)0 - (uint64_t)lo : magnitude > hi)
      return out_of_range_int(err, text, from_lo > lo ? from_lo : lo, hi);
    if (am_type_is_signed(to))
      r.i64 = negative ? (int64_t)((uint64_t)0 - magnitude) : (int64_t)magnitude;
    else
      r.u64 = magnitude;
  }
  *out = r;
  return AM_OK;
}

void am_value_text(am_type t, const void *element, char *text, size_t capacity) {
  switch (t) {
    case AM_BOOL:
      snprintf(text, capacity, "%s", *(const uint8_t *)element ? "true" : "false");
      return;
#define SIGNED_TEXT(E, T)                           \
  case E: {                                         \
    T v;                                            \
    memcpy(&v, element, sizeof v);                  \
    snprintf(text, capacity, "%lld", (long long)v); \
    return;                                         \
  }
#define UNSIGNED_TEXT(E, T)                                  \
  case E: {                                                  \
    T v;                                                     \
    memcpy(&v, element, sizeof v);                           \
    snprintf(text, capacity, "%llu", (unsigned long long)v); \
    return;                                                  \
  }
      SIGNED_TEXT(AM_INT8, int8_t)
      SIGNED_TEXT(AM_INT16, int16_t)
      SIGNED_TEXT(AM_INT32, int32_t)
      SIGNED_TEXT(AM_INT64, int64_t)
      UNSIGNED_TEXT(AM_UINT8, uint8_t)
      UNSIGNED_TEXT(AM_UINT16, uint16_t)
      UNSIGNED_TEXT(AM_UINT32, uint32_t)
      UNSIGNED_TEXT(AM_UINT64, uint64_t)
#undef SIGNED_TEXT
#undef UNSIGNED_TEXT
    case AM_FLOAT32: {
      float v;
      memcpy(&v, element, sizeof v);
      snprintf(text, capacity, "%.9g", (double)v);
      return;
    }
    case AM_FLOAT64: {
      double v;
      memcpy(&v, element, sizeof v);
      snprintf(text, capacity, "%.17g", v);
      return;
    }
    case AM_FLOAT16: {
      uint16_t v;
      memcpy(&v, element, sizeof v);
      snprintf(text, capacity, "%.5g", am_float16_value(v));
      return;
    }
    default:
      snprintf(text, capacity, "?");
  }
}

int am_type_unit_digits(am_type t) {
  switch (t) {
    case AM_TIMESTAMP_S:
    case AM_TIME32_S:
    case AM_DURATION_S:
      return 0;
    case AM_TIMESTAMP_MS:
    case AM_DATE64:
    case AM_TIME32_MS:
    case AM_DURATION_MS:
      return 3;
    case AM_TIMESTAMP_US:
    case AM_TIME64_US:
    case AM_DURATION_US:
      return 6;
    case AM_TIMESTAMP_NS:
    case AM_TIME64_NS:
    case AM_DURATION_NS:
      return 9;
    default:
      return -1;
  }
}

am_type am_timestamp_of_unit(int digits) {
  return digits < 0 || digits > 9 || digits % 3 ? AM_TYPE_INVALID
                                                : (am_type)(AM_TIMESTAMP_S + digits / 3);
}

am_type am_duration_of_unit(int digits) {
  return digits < 0 || digits > 9 || digits % 3 ? AM_TYPE_INVALID
                                                : (am_type)(AM_DURATION_S + digits / 3);
}

/* The interned texts: a list that only grows (time zones are few), guarded
 * by a spin lock since lookups are rare (import, export). */
typedef struct interned {
  struct interned *next;
  char text[];
} interned;
static interned *_Atomic intern_head;
static atomic_flag intern_lock = ATOMIC_FLAG_INIT;

const char *am_intern(const char *text) {
  for (interned *i = atomic_load(&intern_head); i; i = i->next)
    if (strcmp(i->text, text) == 0) return i->text;
  while (atomic_flag_test_and_set_explicit(&intern_lock, memory_order_acquire)) {
  }
  const char *found = NULL;
  for (interned *i = atomic_load(&intern_head); i && !found; i = i->next)
    if (strcmp(i->text, text) == 0) found = i->text;
  if (!found) {
    size_t n = strlen(text) + 1;
    interned *i = malloc(sizeof *i + n);
    if (i) {
      memcpy(i->text, text, n);
      i->next = atomic_load(&intern_head);
      atomic_store(&intern_head, i);
      found = i->text;
    }
  }
  atomic_flag_clear_explicit(&intern_lock, memory_order_release);
  return found;
}

const char *am_format_with_timezone(am_type t, const char *tz) {
  if (!am_type_is_timestamp(t) || !tz || !*tz) return am_type_format_of(t);
  char text[320];
  snprintf(text, sizeof text, "%s%.300s", am_type_format_of(t), tz);
  return am_intern(text);
}

/* A decimal integer from text at *p (an optional '-', then digits),
 * advancing *p; false when there are no digits or too many. */
static bool parse_int(const char **p, long *out) {
  char *end;
  const char *s = *p;
  if (!(*s == '-' || (*s >= '0' && *s <= '9'))) return false;
  long v = strtol(s, &end, 10);
  if (end == s || end - s > 6) return false;
  *p = end;
  *out = v;
  return true;
}

int am_decimal_parse_format(const char *format, am_type *type, int32_t *precision, int32_t *scale,
                            char *why, size_t why_size) {
  *type = AM_TYPE_INVALID;
  if (!format || format[0] != 'd' || format[1] != ':') return AM_OK;
  const char *p = format + 2;
  long prec, sc, bits = 128;
  if (!parse_int(&p, &prec) || *p++ != ',' || !parse_int(&p, &sc) ||
      (*p == ',' && (++p, !parse_int(&p, &bits))) || *p != '\0') {
    snprintf(why, why_size, "malformed decimal format '%s' (expected 'd:P,S' or 'd:P,S,BITS')",
             format);
    return AM_EINVAL;
  }
  if (bits == 32 || bits == 64) {
    snprintf(why, why_size,
             "decimal%ld ('%s') is not supported: decimal128 ('d:P,S') and decimal256 "
             "('d:P,S,256') are",
             bits, format);
    return AM_ETYPE;
  }
  if (bits != 128 && bits != 256) {
    snprintf(why, why_size, "decimal format '%s' has bit width %ld (128 or 256 expected)", format,
             bits);
    return AM_EINVAL;
  }
  am_type t = bits == 128 ? AM_DECIMAL128 : AM_DECIMAL256;
  if (prec < 1 || prec > am_decimal_max_digits(t) || sc < -AM_DECIMAL256_DIGITS ||
      sc > AM_DECIMAL256_DIGITS) {
    snprintf(why, why_size, "decimal format '%s': precision must be 1 to %d and scale -76 to 76",
             format, am_decimal_max_digits(t));
    return AM_EINVAL;
  }
  *type = t;
  *precision = (int32_t)prec;
  *scale = (int32_t)sc;
  return AM_OK;
}

const char *am_decimal_format(am_type t, int32_t precision, int32_t scale) {
  char text[40];
  snprintf(text, sizeof text, "d:%d,%d%s", (int)precision, (int)scale,
           t == AM_DECIMAL256 ? ",256" : "");
  return am_intern(text);
}

double am_float16_value(uint16_t h) {
  uint64_t bits = am_f16_to_f64bits(h);
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

uint16_t am_float16_of(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return (uint16_t)am_f16_from_f64bits(bits);
}
