/* The decimal calls that move slots without reading values: take and
 * filter on the CPU's kernels (which move 16- and 32-byte slots as they
 * move any width), the rest on the string calls' fixed_size_binary paths
 * over a view of the same buffers, the result typed back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal_calls.h"
#include "string_calls.h"

int am_decimal_not_on(am_err *err, const am_device *device) {
  return am_fail(err, AM_EUNSUPPORTED, "decimals are not yet on %s (they stay on the CPU for now)",
                 device->name);
}

void am_decimal_take_format(am_array *array, const char *format) {
  am_type type;
  char why[8];
  am_decimal_parse_format(format, &type, &array->precision, &array->scale, why, sizeof why);
}

void am_decimal_params_text(am_type type, int32_t precision, int32_t scale, char *text,
                            size_t capacity) {
  snprintf(text, capacity, "%s(%d, %d)", am_type_name(type), (int)precision, (int)scale);
}

void am_decimal_type_text(const am_array *array, char *text, size_t capacity) {
  am_decimal_params_text(array->type, array->precision, array->scale, text, capacity);
}

void am_decimal_retype(am_array *array, am_type type, int32_t precision, int32_t scale) {
  array->type = type;
  array->byte_width = 0;
  array->precision = precision;
  array->scale = scale;
}

int am_decimal_bytes_view(am_err *err, const am_array *array, am_array **out) {
  am_array *view = am_array_share(array);
  if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
  view->type = AM_FIXED_SIZE_BINARY;
  view->byte_width = am_decimal_bytes(array->type);
  *out = view;
  return AM_OK;
}

static int does_not_fit(am_err *err, int32_t precision) {
  return am_fail(err, AM_EINVAL, "Decimal value does not fit in precision %d", (int)precision);
}

int am_decimal_scalar_value(am_err *err, const am_scalar *s, int32_t precision, int32_t scale,
                            am_i256 *out) {
  am_type t = (am_type)s->type;
  am_i256 v;
  int32_t from = 0;
  if (am_type_is_decimal(t)) {
    if (!s->u64)
      return am_fail(err, AM_EINVAL, "a %s scalar needs its bytes (u64)", am_type_name(t));
    v = am_i256_load((const void *)(uintptr_t)s->u64, am_decimal_bytes(t));
    from = am_decimal_unpack_scale(s->i64);
  } else if (am_type_is_signed(t) || t == AM_BOOL) {
    v = am_i256_from_i64(s->i64);
  } else if (am_type_is_unsigned(t)) {
    v = am_i256_from_u64(s->u64);
  } else {
    return am_fail(err, AM_ETYPE, "a %s scalar does not go with decimal values", am_type_name(t));
  }
  if (am_i256_zero(v)) {
    /* Zero at any scale: the scales below may be any two int32 values. */
  } else if (scale >= from) {
    /* Fits after scaling up exactly when it has `scale - from` digits fewer
     * than the precision, which also keeps the product within 256 bits. */
    int64_t up = (int64_t)scale - from;
    if (up >= precision || !am_i256_fits(v, precision - (int)up))
      return does_not_fit(err, precision);
    v = am_i256_mul(v, am_i256_pow10((int)up));
  } else {
    bool inexact = false;
    int64_t down = (int64_t)from - scale;
    v = am_i256_scale_down(v, down > INT32_MAX ? INT32_MAX : (int)down, &inexact);
    if (inexact) return am_fail(err, AM_EINVAL, "Rescaling Decimal value would cause data loss");
  }
  if (!am_i256_fits(v, precision)) return does_not_fit(err, precision);
  *out = v;
  return AM_OK;
}

/* A host array of integer indices as int32 or int64 ones the CPU's take
 * reads (other widths widened). */
static int host_indices(am_err *err, const am_array *indices, am_array **out) {
  am_array *host = NULL;
  int status = am_settle(err, indices);
  if (status == AM_OK) status = am_to_host(err, indices, &host);
  if (status != AM_OK) return status;
  if (!am_type_is_integer(host->type)) {
    status = am_fail(err, AM_ETYPE, "indices must be integers, not %s", am_type_name(host->type));
  } else if (host->type != AM_INT32 && host->type != AM_INT64) {
    am_array *wide = NULL;
    status = host->device->backend->kernels.cast(err, host, AM_INT64, 1, &wide);
    if (status == AM_EOVERFLOW)
      status = am_fail(err, AM_EINDEX, "an index past INT64_MAX is out of bounds");
    am_array_free(host);
    host = wide;
  }
  if (status != AM_OK) {
    am_array_free(host);
    return status;
  }
  *out = host;
  return AM_OK;
}

int am_decimal_take(am_err *err, const am_array *values, const am_array *indices, am_array **out) {
  am_array *ix = NULL;
  int status = host_indices(err, indices, &ix);
  if (status != AM_OK) return status;
  status = values->device->backend->kernels.take(err, values, ix, out);
  if (status == AM_OK) am_decimal_retype(*out, values->type, values->precision, values->scale);
  am_array_free(ix);
  return status;
}

int am_decimal_filter(am_err *err, const am_array *values, const am_array *mask, int nulls,
                      am_array **out) {
  if (nulls != AM_NULL_DROP && nulls != AM_NULL_EMIT)
    return am_fail(err, AM_EINVAL, "null selection %d is not AM_NULL_DROP (0) or AM_NULL_EMIT (1)",
                   nulls);
  am_array *m = NULL;
  int status = am_settle(err, mask);
  if (status == AM_OK) status = am_to_host(err, mask, &m);
  if (status != AM_OK) return status;
  if (m->type != AM_BOOL)
    status = am_fail(err, AM_ETYPE, "filter mask must be bool, not %s", am_type_name(m->type));
  else if (m->length != values->length)
    status = am_fail(err, AM_EINVAL, "mask length %lld differs from array length %lld",
                     (long long)m->length, (long long)values->length);
  if (status == AM_OK)
    status = values->device->backend->kernels.filter(err, values, m, (am_null_selection)nulls, out);
  if (status == AM_OK) am_decimal_retype(*out, values->type, values->precision, values->scale);
  am_array_free(m);
  return status;
}

/* Whether two decimal arrays are of one type, precision and scale. */
static int same_decimal(const am_array *a, const am_array *b) {
  return a->type == b->type && a->precision == b->precision && a->scale == b->scale;
}

/* AM_ETYPE naming two decimal types that differ, in pyarrow's words. */
static int differ(am_err *err, const char *what, const am_array *a, const am_array *b) {
  char ta[48], tb[48];
  am_decimal_type_text(a, ta, sizeof ta);
  if (am_type_is_decimal(b->type))
    am_decimal_type_text(b, tb, sizeof tb);
  else
    snprintf(tb, sizeof tb, "%s", am_type_name(b->type));
  return am_fail(err, AM_ETYPE, "%s must be identically typed, but %s and %s were encountered.",
                 what, ta, tb);
}

int am_decimal_concat(am_err *err, const am_array *const *arrays, int64_t count, am_device *device,
                      am_array **out) {
  if (device && device != am_host_device()) return am_decimal_not_on(err, device);
  for (int64_t i = 0; i < count; i++) {
    if (!arrays[i]) return am_fail(err, AM_EINVAL, "arrays[%lld] is NULL", (long long)i);
    if (!same_decimal(arrays[i], arrays[0]))
      return differ(err, "arrays to be concatenated", arrays[0], arrays[i]);
  }
  const am_array *first = arrays[0];
  int status = am_host_device()->backend->kernels.concat(err, arrays, count, out);
  if (status == AM_OK) am_decimal_retype(*out, first->type, first->precision, first->scale);
  return status;
}

int am_decimal_drop_null(am_err *err, const am_array *values, am_array **out) {
  am_array *view = NULL;
  int status = am_decimal_bytes_view(err, values, &view);
  if (status == AM_OK) status = am_string_drop_null(err, view, out);
  if (status == AM_OK) am_decimal_retype(*out, values->type, values->precision, values->scale);
  am_array_free(view);
  return status;
}

int am_decimal_is(am_err *err, am_predicate op, const am_array *values, am_array **out) {
  /* Every predicate of a decimal reads its validity alone (a decimal is never
   * NaN nor infinite, as an integer): the backend's predicate over an integer
   * view that carries the validity. The result is bool: nothing to type back. */
  am_array *view = am_array_make(values->device, AM_UINT8, values->length, values->offset,
                                 atomic_load(&((am_array *)values)->null_count),
                                 am_buffer_retain(values->validity_buf), values->validity,
                                 am_buffer_retain(values->data_buf), values->data);
  if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
  int status = values->device->backend->kernels.predicate(err, op, 0, view, out);
  am_array_free(view);
  return status;
}

int am_any_decimal(const am_array *const *arrays, const am_scalar *const *scalars, int64_t count) {
  for (int64_t i = 0; i < count; i++)
    if ((arrays && arrays[i] && am_type_is_decimal(arrays[i]->type)) ||
        (scalars && scalars[i] && am_type_is_decimal((am_type)scalars[i]->type)))
      return 1;
  return 0;
}

/* The fixed_size_binary stand-ins of one call's values: views of the
 * arrays, and scalars pointing at converted value bytes. */
typedef struct stand_ins {
  am_array **views;
  am_scalar *scalars;
  am_i256 *values;
  const am_array **arrays;
  const am_scalar **scalar_ptrs;
  int64_t count;
} stand_ins;

static void stand_ins_free(stand_ins *s) {
  for (int64_t i = 0; s->views && i < s->count; i++) am_array_free(s->views[i]);
  free(s->views);
  free(s->scalars);
  free(s->values);
  free(s->arrays);
  free(s->scalar_ptrs);
}

static int stand_ins_make(am_err *err, const char *function, const am_array *first,
                          const am_array *const *arrays, const am_scalar *const *scalars,
                          int64_t count, stand_ins *s) {
  memset(s, 0, sizeof *s);
  s->count = count;
  size_t n = (size_t)(count > 0 ? count : 1);
  s->views = calloc(n, sizeof *s->views);
  s->scalars = calloc(n, sizeof *s->scalars);
  s->values = calloc(n, sizeof *s->values);
  s->arrays = calloc(n, sizeof *s->arrays);
  s->scalar_ptrs = calloc(n, sizeof *s->scalar_ptrs);
  if (!s->views || !s->scalars || !s->values || !s->arrays || !s->scalar_ptrs)
    return am_fail(err, AM_ENOMEM, "out of memory");
  int width = am_decimal_bytes(first->type);
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays ? arrays[i] : NULL;
    const am_scalar *c = scalars ? scalars[i] : NULL;
    int status = AM_OK;
    if (a && !same_decimal(a, first)) {
      char what[64];
      snprintf(what, sizeof what, "%s's values", function);
      return differ(err, what, first, a);
    }
    if (a && (status = am_decimal_bytes_view(err, a, &s->views[i])) == AM_OK) {
      s->arrays[i] = s->views[i];
    } else if (c) {
      am_scalar *t = &s->scalars[i];
      t->type = AM_FIXED_SIZE_BINARY;
      t->is_null = c->is_null;
      t->i64 = width;
      if (!c->is_null && (status = am_decimal_scalar_value(err, c, first->precision, first->scale,
                                                           &s->values[i])) == AM_OK)
        t->u64 = (uint64_t)(uintptr_t)s->values[i].w; /* little-endian limbs: the bytes */
      s->scalar_ptrs[i] = t;
    }
    if (status != AM_OK) return status;
  }
  return AM_OK;
}

int am_decimal_choose(am_err *err, const char *function, const am_array *cond,
                      const am_array *const *arrays, const am_scalar *const *scalars, int64_t count,
                      am_array **out) {
  const am_array *first = NULL;
  for (int64_t i = 0; i < count && !first; i++)
    if (arrays && arrays[i]) first = arrays[i];
  if (!first)
    return am_fail(err, AM_EUNSUPPORTED, "%s of decimal scalars only: give one value as an array",
                   function);
  if (!am_type_is_decimal(first->type)) {
    for (int64_t i = 0; i < count; i++)
      if (arrays && arrays[i] && am_type_is_decimal(arrays[i]->type))
        return differ(err, function, arrays[i], first);
    return am_fail(err, AM_ETYPE, "%s: a decimal scalar does not go with %s values", function,
                   am_type_name(first->type));
  }
  stand_ins s;
  int status = stand_ins_make(err, function, first, arrays, scalars, count, &s);
  if (status == AM_OK) {
    status = cond ? am_string_if_else(err, cond, s.arrays, s.scalar_ptrs, out)
                  : am_string_coalesce(err, function, s.arrays, s.scalar_ptrs, count, out);
    if (status == AM_OK) am_decimal_retype(*out, first->type, first->precision, first->scale);
  }
  stand_ins_free(&s);
  return status;
}

int am_decimal_full(am_err *err, const am_scalar *value, int64_t length, am_device *device,
                    am_array **out) {
  if (device && device != am_host_device()) return am_decimal_not_on(err, device);
  am_type type = (am_type)value->type;
  int32_t precision = am_decimal_unpack_precision(value->i64);
  int32_t scale = am_decimal_unpack_scale(value->i64);
  if (precision < 1 || precision > am_decimal_max_digits(type))
    return am_fail(err, AM_EINVAL, "a %s scalar's precision must be 1 to %d, not %d",
                   am_type_name(type), am_decimal_max_digits(type), (int)precision);
  am_i256 v = am_i256_from_u64(0);
  int status = value->is_null ? AM_OK : am_decimal_scalar_value(err, value, precision, scale, &v);
  if (status != AM_OK) return status;
  am_scalar bytes = {.type = AM_FIXED_SIZE_BINARY,
                     .is_null = value->is_null,
                     .i64 = am_decimal_bytes(type),
                     .u64 = (uint64_t)(uintptr_t)v.w};
  /* the width given even for a null: a decimal's slots are its bytes */
  status = am_string_full(err, &bytes, (int32_t)bytes.i64, length, out);
  if (status == AM_OK) am_decimal_retype(*out, type, precision, scale);
  return status;
}
