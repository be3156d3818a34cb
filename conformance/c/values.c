#include "values.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const cr_type TYPES[] = {
    {"bool", AM_BOOL, "b", CR_BOOL, 0},
    {"int8", AM_INT8, "c", CR_SIGNED, 1},
    {"int16", AM_INT16, "s", CR_SIGNED, 2},
    {"int32", AM_INT32, "i", CR_SIGNED, 4},
    {"int64", AM_INT64, "l", CR_SIGNED, 8},
    {"uint8", AM_UINT8, "C", CR_UNSIGNED, 1},
    {"uint16", AM_UINT16, "S", CR_UNSIGNED, 2},
    {"uint32", AM_UINT32, "I", CR_UNSIGNED, 4},
    {"uint64", AM_UINT64, "L", CR_UNSIGNED, 8},
    {"float32", AM_FLOAT32, "f", CR_FLOAT, 4},
    {"float64", AM_FLOAT64, "g", CR_FLOAT, 8},
    {"timestamp[s]", AM_TIMESTAMP_S, "tss:", CR_SIGNED, 8},
    {"timestamp[ms]", AM_TIMESTAMP_MS, "tsm:", CR_SIGNED, 8},
    {"timestamp[us]", AM_TIMESTAMP_US, "tsu:", CR_SIGNED, 8},
    {"timestamp[ns]", AM_TIMESTAMP_NS, "tsn:", CR_SIGNED, 8},
    {"date32[day]", AM_DATE32, "tdD", CR_SIGNED, 4},
    {"date64[ms]", AM_DATE64, "tdm", CR_SIGNED, 8},
    {"time32[s]", AM_TIME32_S, "tts", CR_SIGNED, 4},
    {"time32[ms]", AM_TIME32_MS, "ttm", CR_SIGNED, 4},
    {"time64[us]", AM_TIME64_US, "ttu", CR_SIGNED, 8},
    {"time64[ns]", AM_TIME64_NS, "ttn", CR_SIGNED, 8},
    {"duration[s]", AM_DURATION_S, "tDs", CR_SIGNED, 8},
    {"duration[ms]", AM_DURATION_MS, "tDm", CR_SIGNED, 8},
    {"duration[us]", AM_DURATION_US, "tDu", CR_SIGNED, 8},
    {"duration[ns]", AM_DURATION_NS, "tDn", CR_SIGNED, 8},
    {"string", AM_UTF8, "u", CR_UTF8, 4},
    {"large_string", AM_LARGE_UTF8, "U", CR_UTF8, 8},
    {"binary", AM_BINARY, "z", CR_BINARY, 4},
    {"large_binary", AM_LARGE_BINARY, "Z", CR_BINARY, 8},
    {"fixed_size_binary[3]", AM_FIXED_SIZE_BINARY, "w:3", CR_BINARY, 3},
};
#define N_TYPES (sizeof TYPES / sizeof TYPES[0])

const cr_type *cr_type_named(const char *name) {
  for (size_t i = 0; name && i < N_TYPES; i++)
    if (strcmp(TYPES[i].name, name) == 0) return &TYPES[i];
  return NULL;
}

const cr_type *cr_type_of_am(int type) {
  for (size_t i = 0; i < N_TYPES; i++)
    if ((int)TYPES[i].type == type) return &TYPES[i];
  return NULL;
}

const cr_type *cr_type_of_format(const char *format) {
  for (size_t i = 0; format && i < N_TYPES; i++)
    if (strcmp(TYPES[i].format, format) == 0) return &TYPES[i];
  return NULL;
}

static int fixed_width(const cr_type *t) { return t->type == AM_FIXED_SIZE_BINARY; }

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
    case CR_UTF8:
    case CR_BINARY:
      if (fixed_width(t)) {
        v.bytes = data + k * t->width;
        v.len = t->width;
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
