/* Casts between strings and float32/float64, on the host, as pyarrow's
 * (the text rules are core/float_text.h's):
 *
 * - string, large_string, binary and large_binary to float32 and float64:
 *   each valid value read as Arrow reads it; when some do not read, the
 *   call fails naming the last of them, as pyarrow's kernel (which keeps
 *   going and keeps the last error): AM_EINVAL "Failed to parse string:
 *   '1,5' as a scalar of type double", whatever the CastOptions.
 * - float32 and float64 to string and large_string: the shortest text that
 *   reads back as the same value, laid out as Arrow lays it out. */
#include <string.h>

#include "core/float_text.h"
#include "core/string_array.h"
#include "string_calls.h"

int am_string_to_float(am_err *err, const am_array *a, am_type to, am_array **out) {
  am_array *r = NULL;
  int status = am_array_alloc_host(err, a->device, to, a->length, a->validity != NULL, &r);
  if (status != AM_OK) return status;
  int64_t bad = -1;
  if (to == AM_FLOAT64) {
    double *v = (double *)r->data;
    for (int64_t i = 0; i < a->length; i++) {
      v[i] = 0;
      if (!am_string_is_valid(a, i)) continue;
      int64_t n;
      const uint8_t *s = am_string_value(a, i, &n);
      if (!am_parse_double(s, n, &v[i])) bad = i;
    }
  } else {
    float *v = (float *)r->data;
    for (int64_t i = 0; i < a->length; i++) {
      v[i] = 0;
      if (!am_string_is_valid(a, i)) continue;
      int64_t n;
      const uint8_t *s = am_string_value(a, i, &n);
      if (!am_parse_float(s, n, &v[i])) bad = i;
    }
  }
  if (bad >= 0) {
    am_array_free(r);
    int64_t n;
    const uint8_t *s = am_string_value(a, bad, &n);
    return am_fail(err, AM_EINVAL, "Failed to parse string: '%.*s' as a scalar of type %s", (int)n,
                   s, am_type_name(to));
  }
  if (!a->validity) atomic_store(&r->null_count, 0);
  am_string_copy_validity(a, r);
  *out = r;
  return AM_OK;
}

static int64_t double_text(const void *ctx, const am_array *a, int64_t i, char *text) {
  (void)ctx;
  return am_format_double(((const double *)a->data)[a->offset + i], text);
}

static int64_t float_text(const void *ctx, const am_array *a, int64_t i, char *text) {
  (void)ctx;
  return am_format_float(((const float *)a->data)[a->offset + i], text);
}

int am_float_to_string(am_err *err, const am_array *a, am_type to, am_array **out) {
  return am_string_from_slots(err, a, to, AM_FLOAT_TEXT_MAX,
                              a->type == AM_FLOAT64 ? double_text : float_text, NULL, NULL, out);
}
