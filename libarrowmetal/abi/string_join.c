/* binary_join_element_wise (pyarrow's, with JoinOptions): row i joins the
 * values' slots i with the separator between them. One pass sizes every
 * row (and decides its validity), a second writes the bytes into a string
 * array of the inputs' type, on the host (inputs on a GPU are copied). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "core/memstats.h"
#include "core/string_array.h"
#include "string_calls.h"
#include "string_device.h"

typedef struct join_call {
  const am_array *const *values;
  int64_t n_values;
  const am_array *separator; /* or the bytes below; neither: a null separator */
  const uint8_t *sep_bytes;
  int64_t sep_length;
  int null_handling;
  const uint8_t *replacement;
  int64_t replacement_length;
} join_call;

/* The separator of row i: its bytes, or NULL when it is null. */
static const uint8_t *separator_of(const join_call *c, int64_t i, int64_t *size) {
  if (c->separator) {
    if (!am_string_is_valid(c->separator, i)) return NULL;
    return am_string_value(c->separator, i, size);
  }
  *size = c->sep_length;
  return c->sep_bytes;
}

/* Row i's bytes: written to `dst` when given. -1 when the row is null. */
static int64_t join_row(const join_call *c, int64_t i, uint8_t *dst) {
  int64_t sep_size = 0, total = 0;
  const uint8_t *sep = separator_of(c, i, &sep_size);
  if (!sep) return -1;
  int first = 1;
  for (int64_t k = 0; k < c->n_values; k++) {
    const am_array *v = c->values[k];
    const uint8_t *bytes;
    int64_t size;
    if (am_string_is_valid(v, i)) {
      bytes = am_string_value(v, i, &size);
    } else if (c->null_handling == AM_JOIN_EMIT_NULL) {
      return -1;
    } else if (c->null_handling == AM_JOIN_SKIP) {
      continue;
    } else {
      bytes = c->replacement;
      size = c->replacement_length;
    }
    if (!first) {
      if (dst && sep_size) memcpy(dst + total, sep, (size_t)sep_size);
      total += sep_size;
    }
    if (dst && size) memcpy(dst + total, bytes, (size_t)size);
    total += size;
    first = 0;
  }
  return total;
}

/* The inputs of one string or binary type and one length, or pyarrow's
 * refusal. */
static int same_inputs(am_err *err, const join_call *c, am_type type, int64_t length) {
  int same = 1;
  for (int64_t k = 0; k < c->n_values; k++)
    same &= c->values[k]->type == type && c->values[k]->dictionary == NULL;
  if (c->separator) same &= c->separator->type == type && c->separator->dictionary == NULL;
  if (!same || !am_type_is_var_sized(type)) {
    char text[512];
    size_t at = 0;
    for (int64_t k = 0; k <= c->n_values && at < sizeof text; k++) {
      const am_array *a = k < c->n_values ? c->values[k] : c->separator;
      const char *name =
          a ? (a->dictionary ? "dictionary" : am_type_name(a->type)) : am_type_name(type);
      at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", k ? ", " : "", name);
    }
    return am_fail(err, AM_ETYPE,
                   "Function 'binary_join_element_wise' has no kernel matching input types (%s)",
                   text);
  }
  int lengths = !c->separator || c->separator->length == length;
  for (int64_t k = 0; k < c->n_values; k++) lengths &= c->values[k]->length == length;
  if (lengths) return AM_OK;
  return am_fail(err, AM_EINVAL, "Array arguments must all be the same length");
}

static int join_host(am_err *err, const join_call *c, am_type type, int64_t n, am_array **out);

static int join(am_err *err, const join_call *c, am_array **out) {
  AM_REQUIRE(out, "out");
  if (c->n_values < 0)
    return am_fail(err, AM_EINVAL, "n_values must be >= 0, not %lld", (long long)c->n_values);
  AM_REQUIRE(c->values || c->n_values == 0, "values");
  for (int64_t k = 0; k < c->n_values; k++) AM_REQUIRE(c->values[k], "values[k]");
  if (c->null_handling < AM_JOIN_EMIT_NULL || c->null_handling > AM_JOIN_REPLACE)
    return am_fail(err, AM_EINVAL, "null_handling must be AM_JOIN_EMIT_NULL, _SKIP or _REPLACE");
  if (c->n_values == 0 && !c->separator)
    return am_fail(err, AM_EINVAL,
                   "binary_join_element_wise needs an array: a value or the separator");
  const am_array *shape = c->n_values ? c->values[0] : c->separator;
  int status = same_inputs(err, c, shape->type, shape->length);
  if (status != AM_OK) return status;
  /* Inputs on a GPU: joined over host copies, the result moved back. */
  const am_array **in = malloc((size_t)(c->n_values + 1) * sizeof *in);
  if (!in) return am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t k = 0; k < c->n_values; k++) in[k] = c->values[k];
  in[c->n_values] = c->separator;
  am_string_hosted h;
  status = am_string_hosted_begin(err, in, c->n_values + 1, &h);
  join_call hosted = *c;
  hosted.values = in;
  hosted.separator = in[c->n_values];
  if (status == AM_OK) status = join_host(err, &hosted, shape->type, shape->length, out);
  status = am_string_hosted_end(err, status, &h, out);
  free(in);
  return status;
}

/* The rows of checked host inputs. */
static int join_host(am_err *err, const join_call *c, am_type type, int64_t n, am_array **out) {
  int status;
  int64_t *size = am_scratch_alloc((n ? n : 1) * 8);
  if (!size) return am_fail(err, AM_ENOMEM, "out of memory");
  int64_t total = 0, nulls = 0;
  for (int64_t i = 0; i < n; i++) {
    size[i] = join_row(c, i, NULL);
    if (size[i] < 0)
      nulls++;
    else
      total += size[i];
  }
  am_array *r = NULL;
  /* views' rows are written flat, then made views over those bytes */
  const am_type rt = am_type_is_view(type) ? am_view_flat_type(type, total) : type;
  status = am_string_alloc(err, am_host_device(), rt, 0, n, total, nulls > 0, &r);
  for (int64_t i = 0, at = 0; status == AM_OK && i < n; i++) {
    if (size[i] >= 0) {
      join_row(c, i, (uint8_t *)r->bytes + at);
      at += size[i];
    } else {
      ((uint8_t *)r->validity_buf->ptr)[i >> 3] &= (uint8_t)~(1u << (i & 7));
    }
    if (am_type_is_large_binary(rt))
      ((int64_t *)r->data)[i + 1] = at;
    else
      ((int32_t *)r->data)[i + 1] = (int32_t)at;
  }
  am_scratch_free(size);
  if (status != AM_OK) return status;
  atomic_store(&r->null_count, nulls);
  if (rt == type) {
    *out = r;
    return AM_OK;
  }
  status = am_view_from_flat(err, r, type, out);
  am_array_free(r);
  return status;
}

AM_EXPORT int am_binary_join_element_wise(const am_array *const *values, int64_t n_values,
                                          const am_array *separator, const char *separator_bytes,
                                          int64_t separator_length, int null_handling,
                                          const char *replacement, int64_t replacement_length,
                                          am_array **out) {
  AM_API_BEGIN;
  join_call c = {values,
                 n_values,
                 separator,
                 (const uint8_t *)separator_bytes,
                 separator_length,
                 null_handling,
                 (const uint8_t *)(replacement ? replacement : ""),
                 replacement ? replacement_length : 0};
  AM_API_RETURN(join(err, &c, out));
}
