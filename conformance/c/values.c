#include "values.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const cr_type TYPES[] = {
    {"bool", AM_BOOL, "b", CR_BOOL, 0, 0, 0},
    {"int8", AM_INT8, "c", CR_SIGNED, 1, 0, 0},
    {"int16", AM_INT16, "s", CR_SIGNED, 2, 0, 0},
    {"int32", AM_INT32, "i", CR_SIGNED, 4, 0, 0},
    {"int64", AM_INT64, "l", CR_SIGNED, 8, 0, 0},
    {"uint8", AM_UINT8, "C", CR_UNSIGNED, 1, 0, 0},
    {"uint16", AM_UINT16, "S", CR_UNSIGNED, 2, 0, 0},
    {"uint32", AM_UINT32, "I", CR_UNSIGNED, 4, 0, 0},
    {"uint64", AM_UINT64, "L", CR_UNSIGNED, 8, 0, 0},
    {"float32", AM_FLOAT32, "f", CR_FLOAT, 4, 0, 0},
    {"float64", AM_FLOAT64, "g", CR_FLOAT, 8, 0, 0},
    /* float16: its bits, coded and compared as the uint16 storage integer (casefmt) */
    {"float16", AM_FLOAT16, "e", CR_UNSIGNED, 2, 0, 0},
    {"timestamp[s]", AM_TIMESTAMP_S, "tss:", CR_SIGNED, 8, 0, 0},
    {"timestamp[ms]", AM_TIMESTAMP_MS, "tsm:", CR_SIGNED, 8, 0, 0},
    {"timestamp[us]", AM_TIMESTAMP_US, "tsu:", CR_SIGNED, 8, 0, 0},
    {"timestamp[ns]", AM_TIMESTAMP_NS, "tsn:", CR_SIGNED, 8, 0, 0},
    {"date32[day]", AM_DATE32, "tdD", CR_SIGNED, 4, 0, 0},
    {"date64[ms]", AM_DATE64, "tdm", CR_SIGNED, 8, 0, 0},
    {"time32[s]", AM_TIME32_S, "tts", CR_SIGNED, 4, 0, 0},
    {"time32[ms]", AM_TIME32_MS, "ttm", CR_SIGNED, 4, 0, 0},
    {"time64[us]", AM_TIME64_US, "ttu", CR_SIGNED, 8, 0, 0},
    {"time64[ns]", AM_TIME64_NS, "ttn", CR_SIGNED, 8, 0, 0},
    {"duration[s]", AM_DURATION_S, "tDs", CR_SIGNED, 8, 0, 0},
    {"duration[ms]", AM_DURATION_MS, "tDm", CR_SIGNED, 8, 0, 0},
    {"duration[us]", AM_DURATION_US, "tDu", CR_SIGNED, 8, 0, 0},
    {"duration[ns]", AM_DURATION_NS, "tDn", CR_SIGNED, 8, 0, 0},
    {"string", AM_UTF8, "u", CR_UTF8, 4, 0, 0},
    {"large_string", AM_LARGE_UTF8, "U", CR_UTF8, 8, 0, 0},
    {"binary", AM_BINARY, "z", CR_BINARY, 4, 0, 0},
    {"large_binary", AM_LARGE_BINARY, "Z", CR_BINARY, 8, 0, 0},
    {"fixed_size_binary[3]", AM_FIXED_SIZE_BINARY, "w:3", CR_BINARY, 3, 0, 0},
    {"string_view", AM_STRING_VIEW, "vu", CR_UTF8, 16, 0, 0},
    {"binary_view", AM_BINARY_VIEW, "vz", CR_BINARY, 16, 0, 0},
};
#define N_TYPES (sizeof TYPES / sizeof TYPES[0])

/* The decimal types met so far, each with its name and format. */
#define MAX_DECIMALS 256
static struct {
  cr_type type;
  char name[32], format[24];
} decimals[MAX_DECIMALS];
static int n_decimals;

const cr_type *cr_type_decimal(int bits, int precision, int scale) {
  int max_precision = bits == 128 ? 38 : 76;
  if ((bits != 128 && bits != 256) || precision < 1 || precision > max_precision) return NULL;
  for (int i = 0; i < n_decimals; i++) {
    const cr_type *t = &decimals[i].type;
    if (t->width * 8 == bits && t->precision == precision && t->scale == scale) return t;
  }
  if (n_decimals == MAX_DECIMALS) return NULL;
  cr_type *t = &decimals[n_decimals].type;
  char *name = decimals[n_decimals].name, *format = decimals[n_decimals].format;
  n_decimals++;
  snprintf(name, sizeof decimals[0].name, "decimal%d(%d, %d)", bits, precision, scale);
  snprintf(format, sizeof decimals[0].format, bits == 128 ? "d:%d,%d" : "d:%d,%d,256", precision,
           scale);
  *t = (cr_type){
      name, bits == 128 ? AM_DECIMAL128 : AM_DECIMAL256, format, CR_DECIMAL, bits / 8, precision,
      scale};
  return t;
}

const cr_type *cr_type_named(const char *name) {
  for (size_t i = 0; name && i < N_TYPES; i++)
    if (strcmp(TYPES[i].name, name) == 0) return &TYPES[i];
  int bits, precision, scale, end = 0;
  if (name && sscanf(name, "decimal%d(%d, %d)%n", &bits, &precision, &scale, &end) == 3 &&
      name[end] == '\0') {
    const cr_type *t = cr_type_decimal(bits, precision, scale);
    return t && strcmp(t->name, name) == 0 ? t : NULL; /* the canonical spelling only */
  }
  return NULL;
}

const cr_type *cr_type_of_array(const am_array *array) {
  int type = am_array_type(array);
  if (type == AM_DECIMAL128 || type == AM_DECIMAL256)
    return cr_type_decimal(type == AM_DECIMAL128 ? 128 : 256, am_array_decimal_precision(array),
                           am_array_decimal_scale(array));
  return cr_type_of_am(type);
}

const cr_type *cr_type_of_am(int type) {
  for (size_t i = 0; i < N_TYPES; i++)
    if ((int)TYPES[i].type == type) return &TYPES[i];
  return NULL;
}

const cr_type *cr_type_of_format(const char *format) {
  for (size_t i = 0; format && i < N_TYPES; i++)
    if (strcmp(TYPES[i].format, format) == 0) return &TYPES[i];
  /* a timestamp with a time zone ("tsu:Asia/Kolkata"): the zone travels beside its type */
  for (size_t i = 0; format && strncmp(format, "ts", 2) == 0 && i < N_TYPES; i++)
    if (strncmp(TYPES[i].format, "ts", 2) == 0 && strncmp(TYPES[i].format, format, 4) == 0)
      return &TYPES[i];
  int precision, scale, bits = 128, end = 0;
  if (format && sscanf(format, "d:%d,%d%n", &precision, &scale, &end) == 2) {
    int more = 0;
    if (format[end] == ',' && sscanf(format + end, ",%d%n", &bits, &more) != 1) return NULL;
    end += more;
    const cr_type *t = format[end] == '\0' ? cr_type_decimal(bits, precision, scale) : NULL;
    return t && strcmp(t->format, format) == 0 ? t : NULL;
  }
  return NULL;
}

static int fixed_width(const cr_type *t) { return t->type == AM_FIXED_SIZE_BINARY; }
static int views(const cr_type *t) {
  return t->type == AM_STRING_VIEW || t->type == AM_BINARY_VIEW;
}

int64_t cr_length(const cr_column *col) { return col->array->length; }

int cr_is_null(const cr_column *col, int64_t i) {
  const uint8_t *valid = col->array->n_buffers > 0 ? col->array->buffers[0] : NULL;
  if (!valid) return 0;
  int64_t k = col->array->offset + i;
  return !((valid[k >> 3] >> (k & 7)) & 1);
}

int64_t cr_null_count(const cr_column *col) {
  int64_t n = 0;
  for (int64_t i = 0; i < col->array->length; i++) n += cr_is_null(col, i);
  return n;
}

cr_value cr_get(const cr_column *col, int64_t i) {
  cr_value v = {0};
  const cr_type *t = col->type;
  const struct ArrowArray *a = col->array;
  int64_t k = a->offset + i;
  if (cr_is_null(col, i)) {
    v.null = 1;
    return v;
  }
  const uint8_t *data = a->buffers[1];
  switch (t->kind) {
    case CR_BOOL:
      v.i = (data[k >> 3] >> (k & 7)) & 1;
      break;
    case CR_SIGNED:
      switch (t->width) {
        case 1:
          v.i = ((const int8_t *)data)[k];
          break;
        case 2:
          v.i = ((const int16_t *)data)[k];
          break;
        case 4:
          v.i = ((const int32_t *)data)[k];
          break;
        default:
          v.i = ((const int64_t *)data)[k];
          break;
      }
      break;
    case CR_UNSIGNED:
      switch (t->width) {
        case 1:
          v.u = ((const uint8_t *)data)[k];
          break;
        case 2:
          v.u = ((const uint16_t *)data)[k];
          break;
        case 4:
          v.u = ((const uint32_t *)data)[k];
          break;
        default:
          v.u = ((const uint64_t *)data)[k];
          break;
      }
      break;
    case CR_FLOAT:
      v.f = t->width == 4 ? (double)((const float *)data)[k] : ((const double *)data)[k];
      break;
    case CR_DECIMAL:
      v.bytes = data + k * t->width;
      v.len = t->width;
      break;
    case CR_UTF8:
    case CR_BINARY:
      if (fixed_width(t)) {
        v.bytes = data + k * t->width;
        v.len = t->width;
      } else if (views(t)) { /* its length, then the bytes inline or in a data buffer */
        const uint8_t *view = data + k * 16;
        int32_t len, buffer, at;
        memcpy(&len, view, 4);
        memcpy(&buffer, view + 8, 4);
        memcpy(&at, view + 12, 4);
        v.bytes = len <= 12 ? view + 4 : (const uint8_t *)a->buffers[2 + buffer] + at;
        v.len = len;
      } else if (t->width == 4) {
        const int32_t *off = (const int32_t *)data;
        v.bytes = (const uint8_t *)a->buffers[2] + off[k];
        v.len = off[k + 1] - off[k];
      } else {
        const int64_t *off = (const int64_t *)data;
        v.bytes = (const uint8_t *)a->buffers[2] + off[k];
        v.len = off[k + 1] - off[k];
      }
      break;
  }
  return v;
}

static int64_t float_bits(const cr_type *t, double x) {
  if (t->width == 4) {
    float f = (float)x;
    int32_t b;
    memcpy(&b, &f, 4);
    return b;
  }
  int64_t b;
  memcpy(&b, &x, 8);
  return b;
}

int cr_same(const cr_type *t, cr_value a, cr_value b, int zero_sign, int64_t ulps) {
  if (a.null || b.null) return a.null && b.null;
  switch (t->kind) {
    case CR_BOOL:
    case CR_SIGNED:
      return a.i == b.i;
    case CR_UNSIGNED:
      return a.u == b.u;
    case CR_UTF8:
    case CR_BINARY:
    case CR_DECIMAL:
      return a.len == b.len && (a.len == 0 || memcmp(a.bytes, b.bytes, a.len) == 0);
    case CR_FLOAT:
      break;
  }
  if (isnan(a.f) || isnan(b.f)) return isnan(a.f) && isnan(b.f);
  if (a.f == 0.0 && b.f == 0.0 && zero_sign) return signbit(a.f) == signbit(b.f);
  if (ulps && a.f != b.f && isfinite(a.f) && isfinite(b.f) && a.f != 0.0 && b.f != 0.0) {
    int64_t ia = float_bits(t, a.f), ib = float_bits(t, b.f);
    if ((ia < 0) != (ib < 0)) return 0;
    int64_t d = ia > ib ? ia - ib : ib - ia;
    return d <= ulps;
  }
  return a.f == b.f;
}

int cr_within(const cr_type *t, cr_value got, cr_value want, double abs_tol, double rel) {
  if (t->kind != CR_FLOAT || got.null || want.null || !isfinite(got.f) || !isfinite(want.f))
    return cr_same(t, got, want, 1, 0);
  return fabs(got.f - want.f) <= abs_tol + rel * fabs(want.f);
}

int cr_order(const cr_type *t, cr_value a, cr_value b) {
  if (a.null || b.null) return b.null - a.null;
  switch (t->kind) {
    case CR_BOOL:
    case CR_SIGNED:
      return (a.i > b.i) - (a.i < b.i);
    case CR_UNSIGNED:
      return (a.u > b.u) - (a.u < b.u);
    case CR_UTF8:
    case CR_BINARY: {
      int64_t n = a.len < b.len ? a.len : b.len;
      int c = n ? memcmp(a.bytes, b.bytes, n) : 0;
      return c ? c : (a.len > b.len) - (a.len < b.len);
    }
    case CR_DECIMAL: /* the top byte signed, then the lower ones unsigned */
      for (int64_t i = a.len - 1; i >= 0; i--) {
        int x = i == a.len - 1 ? (int8_t)a.bytes[i] : a.bytes[i];
        int y = i == a.len - 1 ? (int8_t)b.bytes[i] : b.bytes[i];
        if (x != y) return (x > y) - (x < y);
      }
      return 0;
    case CR_FLOAT:
      break;
  }
  if (isnan(a.f) || isnan(b.f)) return isnan(a.f) - isnan(b.f);
  if (a.f != b.f) return (a.f > b.f) - (a.f < b.f);
  return signbit(b.f) - signbit(a.f);
}

static void hex_bytes(const uint8_t *p, int64_t n, char *out, size_t size) {
  size_t k = 0;
  for (int64_t i = 0; i < n && k + 3 < size; i++) k += snprintf(out + k, size - k, "%02x", p[i]);
  out[k] = '\0';
}

/* casefmt.decimal_text: the unscaled integer (len bytes, little-endian two's
 * complement) in decimal digits, the point `scale` digits from the right (zeros
 * padded before it; none at scale 0, one at the end below 0, as Python's slicing gives). */
static void decimal_text(const uint8_t *bytes, int64_t len, int scale, char *out, size_t size) {
  uint32_t limbs[8] = {0};
  int n = (int)(len / 4), negative = len > 0 && (bytes[len - 1] & 0x80);
  for (int i = 0; i < n; i++) memcpy(&limbs[i], bytes + 4 * i, 4); /* little-endian host */
  if (negative) {                                                  /* the magnitude: -x = ~x + 1 */
    uint64_t carry = 1;
    for (int i = 0; i < n; i++) {
      carry += (uint32_t)~limbs[i];
      limbs[i] = (uint32_t)carry;
      carry >>= 32;
    }
  }
  char digits[96];
  int k = 0, zero;
  do { /* the magnitude divided by 10, the remainder a digit, lowest first */
    uint64_t rest = 0;
    zero = 1;
    for (int i = n - 1; i >= 0; i--) {
      uint64_t cur = (rest << 32) | limbs[i];
      limbs[i] = (uint32_t)(cur / 10);
      rest = cur % 10;
      zero &= limbs[i] == 0;
    }
    digits[k++] = (char)('0' + rest);
  } while (!zero && k < (int)sizeof digits);
  while (scale > 0 && k < scale + 1 && k < (int)sizeof digits) digits[k++] = '0';
  size_t w = 0;
  if (negative && w + 1 < size) out[w++] = '-';
  for (int i = k - 1; i >= 0 && w + 2 < size; i--) {
    out[w++] = digits[i];
    if (i == scale && scale > 0) out[w++] = '.';
  }
  if (scale < 0 && w + 1 < size) out[w++] = '.'; /* decimal_text's point after every digit */
  out[w] = '\0';
}

void cr_show(const cr_type *t, cr_value v, char *out, size_t size) {
  if (v.null) {
    snprintf(out, size, "null");
    return;
  }
  switch (t->kind) {
    case CR_BOOL:
      snprintf(out, size, "%s", v.i ? "true" : "false");
      break;
    case CR_SIGNED:
      snprintf(out, size, "%" PRId64, v.i);
      break;
    case CR_UNSIGNED:
      snprintf(out, size, "%" PRIu64, v.u);
      break;
    case CR_FLOAT:
      snprintf(out, size, "%.17g", v.f);
      break;
    case CR_UTF8:
      snprintf(out, size, "'%.*s'", (int)(v.len > 60 ? 60 : v.len), (const char *)v.bytes);
      break;
    case CR_BINARY:
      hex_bytes(v.bytes, v.len > 30 ? 30 : v.len, out, size);
      break;
    case CR_DECIMAL:
      decimal_text(v.bytes, v.len, t->scale, out, size);
      break;
  }
}

/* The canonical text is written into a buffer that goes to the SHA-256 in large
 * pieces: a long result has millions of tokens. */
typedef struct {
  sha256_ctx *ctx;
  char buf[1 << 16];
  size_t n;
} token_sink;

static void sink_flush(token_sink *s) {
  sha256_update(s->ctx, s->buf, s->n);
  s->n = 0;
}

/* Room for `n` more bytes. */
static char *sink_room(token_sink *s, size_t n) {
  if (s->n + n > sizeof s->buf) sink_flush(s);
  return s->buf + s->n;
}

static void sink_put(token_sink *s, const char *text, size_t n) {
  memcpy(sink_room(s, n), text, n);
  s->n += n;
}

static void sink_decimal(token_sink *s, uint64_t magnitude, int negative) {
  char digits[24];
  int k = 24;
  do digits[--k] = (char)('0' + magnitude % 10);
  while ((magnitude /= 10) != 0);
  if (negative) digits[--k] = '-';
  sink_put(s, "\"", 1);
  sink_put(s, digits + k, (size_t)(24 - k));
  sink_put(s, "\"", 1);
}

static void sink_hex(token_sink *s, uint64_t bits, int digits) {
  char *out = sink_room(s, (size_t)digits + 2);
  out[0] = '"';
  for (int k = 0; k < digits; k++)
    out[1 + k] = "0123456789abcdef"[(bits >> (4 * (digits - 1 - k))) & 15];
  out[digits + 1] = '"';
  s->n += (size_t)digits + 2;
}

/* json.dumps(text, ensure_ascii=True): the escapes Python writes, \uXXXX (lowercase,
 * surrogate pairs above the BMP) for every character outside ASCII. */
static void sink_json_text(token_sink *s, const uint8_t *p, int64_t n) {
  char buf[16];
  sink_put(s, "\"", 1);
  for (int64_t i = 0; i < n;) {
    uint8_t c = p[i];
    if (c < 0x80) {
      const char *esc = NULL;
      switch (c) {
        case '"':
          esc = "\\\"";
          break;
        case '\\':
          esc = "\\\\";
          break;
        case '\n':
          esc = "\\n";
          break;
        case '\r':
          esc = "\\r";
          break;
        case '\t':
          esc = "\\t";
          break;
        case '\b':
          esc = "\\b";
          break;
        case '\f':
          esc = "\\f";
          break;
        default:
          break;
      }
      if (esc) {
        sink_put(s, esc, 2);
      } else if (c < 0x20) {
        snprintf(buf, sizeof buf, "\\u%04x", c);
        sink_put(s, buf, 6);
      } else {
        sink_put(s, (const char *)&c, 1);
      }
      i++;
      continue;
    }
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    uint32_t cp = c & (0x3Fu >> extra);
    for (int k = 1; k <= extra && i + k < n; k++) cp = (cp << 6) | (p[i + k] & 0x3Fu);
    i += 1 + extra;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
      sink_put(s, buf, 12);
    } else {
      snprintf(buf, sizeof buf, "\\u%04x", cp);
      sink_put(s, buf, 6);
    }
  }
  sink_put(s, "\"", 1);
}

static void sink_value(token_sink *s, const cr_type *t, cr_value v) {
  if (v.null) {
    sink_put(s, "null", 4);
    return;
  }
  switch (t->kind) {
    case CR_BOOL:
      v.i ? sink_put(s, "true", 4) : sink_put(s, "false", 5);
      break;
    case CR_SIGNED:
      sink_decimal(s, v.i < 0 ? 0 - (uint64_t)v.i : (uint64_t)v.i, v.i < 0);
      break;
    case CR_UNSIGNED:
      sink_decimal(s, v.u, 0);
      break;
    case CR_FLOAT:
      if (isnan(v.f))
        sink_put(s, "\"nan\"", 5);
      else if (t->width == 4)
        sink_hex(s, (uint32_t)float_bits(t, v.f), 8);
      else
        sink_hex(s, (uint64_t)float_bits(t, v.f), 16);
      break;
    case CR_UTF8:
      sink_json_text(s, v.bytes, v.len);
      break;
    case CR_BINARY:
      sink_put(s, "\"", 1);
      for (int64_t i = 0; i < v.len; i++) {
        char *out = sink_room(s, 2);
        out[0] = "0123456789abcdef"[v.bytes[i] >> 4];
        out[1] = "0123456789abcdef"[v.bytes[i] & 15];
        s->n += 2;
      }
      sink_put(s, "\"", 1);
      break;
    case CR_DECIMAL: {
      char text[96];
      decimal_text(v.bytes, v.len, t->scale, text, sizeof text);
      sink_put(s, "\"", 1);
      sink_put(s, text, strlen(text));
      sink_put(s, "\"", 1);
      break;
    }
  }
}

void cr_digest(const cr_column *col, char out[65]) {
  static _Thread_local token_sink sink;
  sha256_ctx ctx;
  sha256_init(&ctx);
  sink.ctx = &ctx;
  sink.n = 0;
  sink_put(&sink, "[", 1);
  for (int64_t i = 0; i < cr_length(col); i++) {
    if (i) sink_put(&sink, ",", 1);
    sink_value(&sink, col->type, cr_get(col, i));
  }
  sink_put(&sink, "]", 1);
  sink_flush(&sink);
  sha256_hex(&ctx, out);
}
