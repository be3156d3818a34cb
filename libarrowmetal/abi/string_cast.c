/* Casts between strings and integers or bools, on the host, as pyarrow's:
 *
 * - string, large_string, binary and large_binary to the integer types and
 *   bool, parsing each valid value as arrow's value parser does: decimal
 *   digits with a '-' for the signed types (no '+', no spaces, any leading
 *   zeros), or "0x"/"0X" and at most two hex digits a byte of the type, the
 *   bits of the type (0x80 as int8 is -128); bool takes "true" and "false"
 *   in any case, "1" and "0". A value that does not parse, or does not fit,
 *   fails the call whatever the CastOptions (AM_EINVAL, pyarrow's message,
 *   naming the last such value as pyarrow's kernel does).
 * - the integer types and bool to string, large_string and string_view, in
 *   decimal and "true"/"false". Casts to binary are pyarrow's refusals
 *   (AM_ETYPE).
 * - between view types and the other string types (string_view_calls.c).
 *
 * am_string_cast also routes the other pairs: floats (string_float.c) and
 * temporal types (string_temporal.c). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "core/string_array.h"
#include "string_calls.h"
#include "string_device.h"

static int hex_digit(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* v[0, n) as an integer of `bytes` bytes: *bits its two's complement bits.
 * 0 when it does not parse or fit. */
static int parse_integer(const uint8_t *v, int64_t n, int is_signed, int bytes, uint64_t *bits) {
  const uint64_t top = bytes == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * bytes)) - 1;
  if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    if (n - 2 > 2 * bytes) return 0;
    uint64_t x = 0;
    for (int64_t i = 2; i < n; i++) {
      const int d = hex_digit(v[i]);
      if (d < 0) return 0;
      x = x << 4 | (uint64_t)d;
    }
    *bits = x;
    return 1;
  }
  const int negative = is_signed && n > 0 && v[0] == '-';
  int64_t i = negative;
  if (i == n) return 0;
  /* the magnitude's limit: the type's highest, or for a negative its lowest */
  const uint64_t limit = !is_signed ? top : (top >> 1) + (uint64_t)negative;
  uint64_t x = 0;
  for (; i < n; i++) {
    if (v[i] < '0' || v[i] > '9') return 0;
    const uint64_t d = v[i] - '0';
    if (x > (limit - d) / 10) return 0;
    x = x * 10 + d;
  }
  *bits = (negative ? (uint64_t)0 - x : x) & top;
  return 1;
}

static int parse_bool(const uint8_t *v, int64_t n, int *value) {
  if (n == 1 && (v[0] == '1' || v[0] == '0')) {
    *value = v[0] == '1';
    return 1;
  }
  static const char *const words[2] = {"false", "true"};
  for (int w = 0; w < 2; w++) {
    const int64_t len = (int64_t)strlen(words[w]);
    int same = n == len;
    for (int64_t i = 0; same && i < n; i++) same = (v[i] | 0x20) == words[w][i];
    if (same) {
      *value = w;
      return 1;
    }
  }
  return 0;
}

static int parse_failure(am_err *err, const uint8_t *v, int64_t n, am_type to) {
  if (to == AM_BOOL) return am_fail(err, AM_EINVAL, "Failed to parse value: %.*s", (int)n, v);
  return am_fail(err, AM_EINVAL, "Failed to parse string: '%.*s' as a scalar of type %s", (int)n, v,
                 am_type_name(to));
}

static int parse_strings(am_err *err, const am_array *a, am_type to, am_array **out) {
  am_array *r = NULL;
  int status = am_array_alloc_host(err, a->device, to, a->length, a->validity != NULL, &r);
  if (status != AM_OK) return status;
  const int bytes = to == AM_BOOL ? 0 : am_type_bits(to) / 8;
  if (to == AM_BOOL) memset((void *)r->data, 0, (size_t)am_type_bytes(AM_BOOL, a->length));
  int64_t bad = -1;
  for (int64_t i = 0; i < a->length; i++) {
    uint64_t bits = 0;
    if (am_string_is_valid(a, i)) {
      int64_t n;
      const uint8_t *v = am_string_value(a, i, &n);
      int value = 0, ok = to == AM_BOOL ? parse_bool(v, n, &value)
                                        : parse_integer(v, n, am_type_is_signed(to), bytes, &bits);
      if (!ok) bad = i;
      bits |= (uint64_t)value;
    }
    if (to == AM_BOOL) {
      if (bits) ((uint8_t *)r->data)[i >> 3] |= (uint8_t)(1u << (i & 7));
    } else {
      memcpy((char *)r->data + i * bytes, &bits, (size_t)bytes); /* little-endian */
    }
  }
  if (bad >= 0) {
    am_array_free(r);
    int64_t n;
    const uint8_t *v = am_string_value(a, bad, &n);
    return parse_failure(err, v, n, to);
  }
  if (!a->validity) atomic_store(&r->null_count, 0);
  am_string_copy_validity(a, r);
  *out = r;
  return AM_OK;
}

/* The text of slot i of an integer or bool array into text (24 bytes). */
static int64_t format_slot(const void *ctx, const am_array *a, int64_t i, char *text) {
  (void)ctx;
  const int64_t j = a->offset + i;
  const uint8_t *data = a->data;
  char buffer[24];
  int n;
  if (a->type == AM_BOOL) {
    const int set = (data[j >> 3] >> (j & 7)) & 1;
    memcpy(text, set ? "true" : "false", 5);
    return set ? 4 : 5;
  }
  const void *p = data + j * (am_type_bits(a->type) / 8);
  switch (a->type) {
    case AM_INT8:
      n = snprintf(buffer, 24, "%d", *(const int8_t *)p);
      break;
    case AM_INT16:
      n = snprintf(buffer, 24, "%d", *(const int16_t *)p);
      break;
    case AM_INT32:
      n = snprintf(buffer, 24, "%" PRId32, *(const int32_t *)p);
      break;
    case AM_INT64:
      n = snprintf(buffer, 24, "%" PRId64, *(const int64_t *)p);
      break;
    case AM_UINT8:
      n = snprintf(buffer, 24, "%u", *(const uint8_t *)p);
      break;
    case AM_UINT16:
      n = snprintf(buffer, 24, "%u", *(const uint16_t *)p);
      break;
    case AM_UINT32:
      n = snprintf(buffer, 24, "%" PRIu32, *(const uint32_t *)p);
      break;
    default:
      n = snprintf(buffer, 24, "%" PRIu64, *(const uint64_t *)p);
  }
  memcpy(text, buffer, (size_t)n);
  return n;
}

static int cast_host(am_err *err, const am_array *a, am_type to, am_array **out) {
  const int from_string = am_type_is_binary(a->type) && a->type != AM_FIXED_SIZE_BINARY;
  const int to_string = to == AM_UTF8 || to == AM_LARGE_UTF8;
  if (from_string && (to == AM_BOOL || am_type_is_integer(to)))
    return parse_strings(err, a, to, out);
  if (from_string && am_type_is_float(to)) return am_string_to_float(err, a, to, out);
  const int from_number = a->type == AM_BOOL || am_type_is_integer(a->type);
  if (from_number && to_string)
    return am_string_from_slots(err, a, to, 24, format_slot, NULL, NULL, out);
  if (am_type_is_float(a->type) && to_string) return am_float_to_string(err, a, to, out);
  if (from_string && am_type_is_temporal(to)) return am_string_to_temporal(err, a, to, NULL, out);
  if (am_type_is_temporal(a->type) && to_string) return am_temporal_to_string(err, a, to, out);
  if (to == AM_STRING_VIEW && !am_type_is_binary(a->type)) {
    /* the text as a string array, then views over its bytes */
    am_array *text = NULL;
    int status = cast_host(err, a, AM_UTF8, &text);
    if (status == AM_OK) status = am_view_from_flat(err, text, to, out);
    am_array_free(text);
    return status;
  }
  if (am_type_is_binary(a->type) && (am_type_is_view(a->type) || am_type_is_view(to)))
    return am_view_cast(err, a, to, out);
  return am_fail(err, AM_ETYPE, "Unsupported cast from %s to %s", am_type_name(a->type),
                 am_type_name(to));
}

/* am_cast_timestamp of a string array: on a GPU array's host copy too. */
int am_string_cast_timestamp(am_err *err, const am_array *a, am_type to, const char *timezone,
                             am_array **out) {
  const am_array *in[1] = {a};
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK) status = am_string_to_temporal(err, in[0], to, timezone, out);
  return am_string_hosted_end(err, status, &h, out);
}

/* On host copies of an input that lives on a GPU, the result moved back. */
int am_string_cast(am_err *err, const am_array *a, am_type to, am_array **out) {
  const am_array *in[1] = {a};
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK) status = cast_host(err, in[0], to, out);
  return am_string_hosted_end(err, status, &h, out);
}
