/* The calls that take strings and binary (abi/string_calls.h): each says
 * which row of which input every output slot is, and am_string_gather
 * (core/string_array.c) builds the result on the host; inputs on a GPU run
 * there where it has the kernels, else over host copies (string_device.h). */
#include "string_calls.h"

#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "core/string_array.h"
#include "route.h"
#include "string_device.h"

int am_any_binary(const am_array *const *arrays, const am_scalar *const *scalars, int64_t count) {
  for (int64_t i = 0; i < count; i++)
    if ((arrays && arrays[i] && am_type_is_binary(arrays[i]->type)) ||
        (scalars && scalars[i] && am_type_is_binary((am_type)scalars[i]->type)))
      return 1;
  return 0;
}

/* picks[i] = row i of source 0 (a copy of `array`'s slots). */
static am_string_pick *identity_picks(int64_t count) {
  am_string_pick *picks = malloc((size_t)(count > 0 ? count : 1) * sizeof *picks);
  for (int64_t i = 0; picks && i < count; i++) picks[i] = (am_string_pick){0, i};
  return picks;
}

static int gather_one(am_err *err, const am_array *source, am_string_pick *picks, int64_t count,
                      am_array **out) {
  if (!picks) return am_fail(err, AM_ENOMEM, "out of memory");
  int status = am_string_gather(err, source->device, source->type, source->byte_width, &source,
                                picks, count, out);
  free(picks);
  return status;
}

int am_string_realign(am_err *err, am_array **host) {
  am_array *copy = NULL;
  int status = gather_one(err, *host, identity_picks((*host)->length), (*host)->length, &copy);
  am_array_free(*host);
  *host = status == AM_OK ? copy : NULL;
  return status;
}

/* A host view of a non-string input (a mask, indices, a condition):
 * settled, then shared or downloaded. */
static int host_input(am_err *err, const am_array *array, am_array **out) {
  int status = am_settle(err, array);
  return status == AM_OK ? am_to_host(err, array, out) : status;
}

static int bit_at(const uint8_t *bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

/* Slot i of a host bool array: 1, 0, or -1 when null. */
static int bool_at(const am_array *a, int64_t i) {
  if (a->validity && !bit_at(a->validity, a->offset + i)) return -1;
  return bit_at(a->data, a->offset + i);
}

static int filter_host(am_err *err, const am_array *values, const am_array *mask,
                       int null_selection_emit, am_array **out) {
  if (null_selection_emit != AM_NULL_DROP && null_selection_emit != AM_NULL_EMIT)
    return am_fail(err, AM_EINVAL, "null selection %d is not AM_NULL_DROP (0) or AM_NULL_EMIT (1)",
                   null_selection_emit);
  am_array *m = NULL;
  int status = host_input(err, mask, &m);
  if (status != AM_OK) return status;
  if (m->type != AM_BOOL) {
    status = am_fail(err, AM_ETYPE, "filter mask must be bool, not %s", am_type_name(m->type));
  } else if (m->length != values->length) {
    status = am_fail(err, AM_EINVAL, "mask length %lld differs from array length %lld",
                     (long long)m->length, (long long)values->length);
  }
  if (status == AM_OK && am_type_is_var_sized(values->type)) {
    status = am_string_filter_mask(err, values, m, null_selection_emit == AM_NULL_EMIT, out);
    am_array_free(m);
    return status;
  }
  am_string_pick *picks = NULL;
  int64_t count = 0;
  if (status == AM_OK && !(picks = malloc((size_t)(m->length + 1) * sizeof *picks)))
    status = am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; status == AM_OK && i < m->length; i++) {
    int keep = bool_at(m, i);
    if (keep == 1)
      picks[count++] = (am_string_pick){0, i};
    else if (keep < 0 && null_selection_emit == AM_NULL_EMIT)
      picks[count++] = (am_string_pick){-1, 0};
  }
  am_array_free(m);
  if (status != AM_OK) {
    free(picks);
    return status;
  }
  return gather_one(err, values, picks, count, out);
}

/* Index i of a host integer array, and whether it is valid. */
static int64_t index_at(const am_array *a, int64_t i, int *valid, uint64_t *unsigned_value) {
  *valid = !a->validity || bit_at(a->validity, a->offset + i);
  int64_t at = a->offset + i;
  *unsigned_value = 0;
  switch (a->type) {
    case AM_INT8:
      return ((const int8_t *)a->data)[at];
    case AM_INT16:
      return ((const int16_t *)a->data)[at];
    case AM_INT32:
      return ((const int32_t *)a->data)[at];
    case AM_INT64:
      return ((const int64_t *)a->data)[at];
    case AM_UINT8:
      return ((const uint8_t *)a->data)[at];
    case AM_UINT16:
      return ((const uint16_t *)a->data)[at];
    case AM_UINT32:
      return ((const uint32_t *)a->data)[at];
    default:
      *unsigned_value = ((const uint64_t *)a->data)[at];
      return -1;
  }
}

static int take_host(am_err *err, const am_array *values, const am_array *indices, am_array **out) {
  am_array *ix = NULL;
  int status = host_input(err, indices, &ix);
  if (status != AM_OK) return status;
  if (!am_type_is_integer(ix->type)) {
    status = am_fail(err, AM_ETYPE, "indices must be integers, not %s", am_type_name(ix->type));
    am_array_free(ix);
    return status;
  }
  am_string_pick *picks = malloc((size_t)(ix->length + 1) * sizeof *picks);
  if (!picks) status = am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; status == AM_OK && i < ix->length; i++) {
    int valid;
    uint64_t big;
    int64_t k = index_at(ix, i, &valid, &big);
    if (!valid) {
      picks[i] = (am_string_pick){-1, 0};
      continue;
    }
    if (ix->type == AM_UINT64) {
      if (big >= (uint64_t)values->length) {
        status = am_fail(err, AM_EINDEX, "index %llu out of bounds for length %lld",
                         (unsigned long long)big, (long long)values->length);
        break;
      }
      k = (int64_t)big;
    }
    if (k < 0 || k >= values->length) {
      status = am_fail(err, AM_EINDEX, "index %lld out of bounds for length %lld", (long long)k,
                       (long long)values->length);
      break;
    }
    picks[i] = (am_string_pick){0, k};
  }
  int64_t count = ix->length;
  am_array_free(ix);
  if (status != AM_OK) {
    free(picks);
    return status;
  }
  return gather_one(err, values, picks, count, out);
}

static int concat_host(am_err *err, const am_array *const *arrays, int64_t count, am_array **out) {
  if (count < 1)
    return am_fail(err, AM_EINVAL, "count %lld: at least one array is needed", (long long)count);
  int64_t total = 0;
  for (int64_t i = 0; i < count; i++) {
    if (!arrays[i]) return am_fail(err, AM_EINVAL, "arrays[%lld] is NULL", (long long)i);
    if (arrays[i]->type != arrays[0]->type || arrays[i]->byte_width != arrays[0]->byte_width)
      return am_fail(err, AM_ETYPE, "arrays[%lld] is %s, arrays[0] is %s", (long long)i,
                     am_string_format(arrays[i]->type, arrays[i]->byte_width),
                     am_string_format(arrays[0]->type, arrays[0]->byte_width));
    if (arrays[i]->length > AM_MAX_LENGTH - total)
      return am_fail(err, AM_EINVAL, "the total length is beyond 2^52 slots");
    total += arrays[i]->length;
  }
  am_string_pick *picks = malloc((size_t)(total + 1) * sizeof *picks);
  if (!picks) return am_fail(err, AM_ENOMEM, "out of memory");
  int64_t at = 0;
  for (int64_t i = 0; i < count; i++)
    for (int64_t r = 0; r < arrays[i]->length; r++) picks[at++] = (am_string_pick){i, r};
  int status = am_string_gather(err, arrays[0]->device, arrays[0]->type, arrays[0]->byte_width,
                                arrays, picks, total, out);
  free(picks);
  return status;
}

static int drop_null_host(am_err *err, const am_array *values, am_array **out) {
  if (!values->validity) {
    *out = am_array_share(values);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  am_string_pick *picks = malloc((size_t)(values->length + 1) * sizeof *picks);
  if (!picks) return am_fail(err, AM_ENOMEM, "out of memory");
  int64_t count = 0;
  for (int64_t i = 0; i < values->length; i++)
    if (am_string_is_valid(values, i)) picks[count++] = (am_string_pick){0, i};
  return gather_one(err, values, picks, count, out);
}

static int validity_host(am_err *err, const am_array *values, int valid, am_array **out) {
  am_array *result = NULL;
  int status = am_array_alloc_host(err, values->device, AM_BOOL, values->length, 0, &result);
  if (status != AM_OK) return status;
  uint8_t *bits = (uint8_t *)result->data;
  memset(bits, 0, (size_t)am_type_bytes(AM_BOOL, values->length));
  for (int64_t i = 0; i < values->length; i++)
    if (am_string_is_valid(values, i) == valid) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
  *out = result;
  return AM_OK;
}

int am_string_scalar_array(am_err *err, const am_scalar *scalar, am_type type, int32_t byte_width,
                           am_array **out) {
  const am_scalar *s = scalar;
  /* Any string or binary scalar goes with variable-length values (its bytes
   * are taken as they are, as pyarrow casts the scalar); a fixed-size one
   * needs the values' width. */
  int fits = type == AM_FIXED_SIZE_BINARY
                 ? am_type_is_binary((am_type)s->type) && s->i64 == (int64_t)byte_width
                 : am_type_is_var_sized((am_type)s->type);
  if (!s->is_null && !fits)
    return am_fail(err, AM_ETYPE, "a %s scalar does not go with %s values",
                   am_type_name((am_type)s->type), am_string_format(type, byte_width));
  if (!s->is_null && (s->i64 < 0 || (s->i64 > 0 && !s->u64)))
    return am_fail(err, AM_EINVAL, "a %s scalar needs its bytes (u64) and their count (i64 >= 0)",
                   am_type_name(type));
  am_array *one = NULL;
  int64_t size = s->is_null ? 0 : s->i64;
  if (am_type_is_view(type))
    return am_view_scalar(err, am_host_device(), type, (const uint8_t *)(uintptr_t)s->u64, size,
                          s->is_null, out);
  int status = am_string_alloc(err, am_host_device(), type, byte_width, 1,
                               type == AM_FIXED_SIZE_BINARY ? 0 : size, s->is_null, &one);
  if (status != AM_OK) return status;
  if (s->is_null) {
    ((uint8_t *)one->validity)[0] = 0;
    atomic_store(&one->null_count, 1);
  } else if (type == AM_FIXED_SIZE_BINARY) {
    if (size) memcpy((void *)one->data, (const void *)(uintptr_t)s->u64, (size_t)size);
  } else {
    if (size) memcpy((void *)one->bytes, (const void *)(uintptr_t)s->u64, (size_t)size);
    if (am_type_is_large_binary(type))
      ((int64_t *)one->data)[1] = size;
    else
      ((int32_t *)one->data)[1] = (int32_t)size;
  }
  *out = one;
  return AM_OK;
}

/* The values of fill_null, coalesce and if_else as sources of a gather:
 * arrays as they are, scalars as one-slot arrays (row 0 for every slot).
 * `length` comes from the first array. */
typedef struct string_sources {
  int64_t count, length;
  const am_array **arrays;
  am_array **owned;
  unsigned char *broadcast;
  am_type type;
  int32_t width;
} string_sources;

static void sources_free(string_sources *s) {
  for (int64_t i = 0; s->owned && i < s->count; i++) am_array_free(s->owned[i]);
  free(s->owned);
  free(s->arrays);
  free(s->broadcast);
}

static int sources_make(am_err *err, const char *function, const am_array *const *arrays,
                        const am_scalar *const *scalars, int64_t count, string_sources *s) {
  memset(s, 0, sizeof *s);
  s->count = count;
  s->length = -1;
  s->arrays = calloc((size_t)count, sizeof *s->arrays);
  s->owned = calloc((size_t)count, sizeof *s->owned);
  s->broadcast = calloc((size_t)count, 1);
  if (!s->arrays || !s->owned || !s->broadcast) return am_fail(err, AM_ENOMEM, "out of memory");
  const am_array *first = NULL;
  for (int64_t i = 0; i < count && !first; i++)
    if (arrays && arrays[i]) first = arrays[i];
  if (!first) return am_fail(err, AM_EINVAL, "%s needs at least one array", function);
  s->type = first->type;
  s->width = first->byte_width;
  s->length = first->length;
  /* Here because a value is a string or binary one: any other type of the
   * first array has no kernel with it (ops_fuzz: a string scalar with
   * int8 values was gathered as strings, reading offsets the values lack). */
  if (!am_type_is_binary(s->type))
    return am_fail(err, AM_ETYPE,
                   "Function '%s' has no kernel matching input types: %s values with a string "
                   "or binary value",
                   function, am_type_name(s->type));
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays ? arrays[i] : NULL;
    const am_scalar *c = scalars ? scalars[i] : NULL;
    if ((a != NULL) == (c != NULL))
      return am_fail(err, AM_EINVAL, "value %lld: exactly one of the array and the scalar is given",
                     (long long)i);
    if (a) {
      if (a->type != s->type || a->byte_width != s->width)
        return am_fail(err, AM_ETYPE,
                       "%s: value %lld is %s, value 0 is %s (no implicit cast "
                       "between string types here)",
                       function, (long long)i, am_string_format(a->type, a->byte_width),
                       am_string_format(s->type, s->width));
      if (a->length != s->length)
        return am_fail(err, AM_EINVAL, "value %lld has length %lld, expected %lld", (long long)i,
                       (long long)a->length, (long long)s->length);
      s->arrays[i] = a;
      continue;
    }
    int status = am_string_scalar_array(err, c, s->type, s->width, &s->owned[i]);
    if (status != AM_OK) return status;
    s->arrays[i] = s->owned[i];
    s->broadcast[i] = 1;
  }
  return AM_OK;
}

static am_string_pick source_row(const string_sources *s, int64_t k, int64_t row) {
  return (am_string_pick){k, s->broadcast[k] ? 0 : row};
}

static int gather_sources(am_err *err, const string_sources *s, am_string_pick *picks,
                          am_array **out) {
  int status = am_string_gather(err, am_host_device(), s->type, s->width,
                                (const am_array *const *)s->arrays, picks, s->length, out);
  free(picks);
  return status;
}

static int coalesce_host(am_err *err, const char *function, const am_array *const *arrays,
                         const am_scalar *const *scalars, int64_t count, am_array **out) {
  if (count < 1)
    return am_fail(err, AM_EINVAL, "count %lld: at least one value is needed", (long long)count);
  string_sources s;
  int status = sources_make(err, function, arrays, scalars, count, &s);
  am_string_pick *picks = NULL;
  if (status == AM_OK && !(picks = malloc((size_t)(s.length + 1) * sizeof *picks)))
    status = am_fail(err, AM_ENOMEM, "out of memory");
  if (status == AM_OK) {
    for (int64_t r = 0; r < s.length; r++) {
      picks[r] = (am_string_pick){-1, 0};
      for (int64_t k = 0; k < count; k++) {
        am_string_pick p = source_row(&s, k, r);
        if (am_string_is_valid(s.arrays[k], p.row)) {
          picks[r] = p;
          break;
        }
      }
    }
    status = gather_sources(err, &s, picks, out);
  }
  sources_free(&s);
  return status;
}

static int if_else_host(am_err *err, const am_array *cond, const am_array *const *sides,
                        const am_scalar *const *scalars, am_array **out) {
  am_array *c = NULL;
  int status = host_input(err, cond, &c);
  if (status != AM_OK) return status;
  if (c->type != AM_BOOL) {
    status = am_fail(err, AM_ETYPE,
                     "function 'if_else' has no kernel matching input types "
                     "(%s, %s, %s)",
                     am_type_name(c->type), sides[0] ? am_type_name(sides[0]->type) : "scalar",
                     sides[1] ? am_type_name(sides[1]->type) : "scalar");
    am_array_free(c);
    return status;
  }
  string_sources s;
  status = sources_make(err, "if_else", sides, scalars, 2, &s);
  if (status == AM_OK && c->length != s.length && (sides[0] || sides[1]))
    status = am_fail(err, AM_EINVAL, "cond has length %lld, the values %lld", (long long)c->length,
                     (long long)s.length);
  s.length = c->length;
  am_string_pick *picks = NULL;
  if (status == AM_OK && !(picks = malloc((size_t)(c->length + 1) * sizeof *picks)))
    status = am_fail(err, AM_ENOMEM, "out of memory");
  if (status == AM_OK) {
    for (int64_t r = 0; r < c->length; r++) {
      int b = bool_at(c, r);
      picks[r] = b < 0 ? (am_string_pick){-1, 0} : source_row(&s, b ? 0 : 1, r);
    }
    status = gather_sources(err, &s, picks, out);
  }
  am_array_free(c);
  sources_free(&s);
  return status;
}

int am_string_full(am_err *err, const am_scalar *value, int32_t width, int64_t length,
                   am_array **out) {
  am_array *one = NULL;
  int status = am_string_scalar_array(err, value, (am_type)value->type, width, &one);
  if (status != AM_OK) return status;
  am_string_pick *picks = malloc((size_t)(length + 1) * sizeof *picks);
  if (!picks) status = am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; status == AM_OK && i < length; i++) picks[i] = (am_string_pick){0, 0};
  if (status == AM_OK)
    status = gather_one(err, one, picks, length, out);
  else
    free(picks);
  am_array_free(one);
  return status;
}

/* Bytewise order, a shorter prefix first (pyarrow's order of strings and
 * binary). */
static int compare_bytes(const uint8_t *a, int64_t na, const uint8_t *b, int64_t nb) {
  int64_t n = na < nb ? na : nb;
  int c = n > 0 ? memcmp(a, b, (size_t)n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return na < nb ? -1 : na > nb;
}

int am_compare_holds(am_compare_op op, int c) {
  switch (op) {
    case AM_EQ:
      return c == 0;
    case AM_NE:
      return c != 0;
    case AM_LT:
      return c < 0;
    case AM_LE:
      return c <= 0;
    case AM_GT:
      return c > 0;
    default:
      return c >= 0;
  }
}

/* The equality bits of 64 slots from `first` (n of them): slot k's length
 * first (most differ from the scalar's), then its bytes. */
#define EQUAL_WORD(OFFSET_T)                                                       \
  do {                                                                             \
    const OFFSET_T *o = (const OFFSET_T *)a->data + a->offset + first;             \
    for (int64_t k = 0; k < n; k++) {                                              \
      const int64_t start = (int64_t)o[k], size = (int64_t)o[k + 1] - start;       \
      if (size == nb && (nb == 0 || memcmp(a->bytes + start, b, (size_t)nb) == 0)) \
        eq |= (uint64_t)1 << k;                                                    \
    }                                                                              \
  } while (0)

/* (Not) equal to a valid scalar's bytes b[0, nb): the result's value and
 * validity words (whole words, offset 0), a word of 64 slots at a time, the
 * validity read as words and each slot's offsets read directly (a slot at a
 * time through am_string_value and am_string_is_valid ran at 0.2-0.9x
 * pyarrow). Returns the nulls. */
static int64_t equal_scalar(const am_array *a, const uint8_t *b, int64_t nb, int want,
                            uint64_t *bits, uint64_t *valid) {
  int64_t nulls = 0;
  for (int64_t first = 0; first < a->length; first += 64) {
    const int64_t n = a->length - first < 64 ? a->length - first : 64;
    const uint64_t v = am_load_bits(a->validity, a->offset + first, n);
    uint64_t eq = 0;
    if (am_type_is_view(a->type)) { /* a view's length first: no data read for most */
      const uint8_t *view = (const uint8_t *)a->data + (a->offset + first) * AM_VIEW_BYTES;
      for (int64_t k = 0; k < n; k++, view += AM_VIEW_BYTES) {
        int32_t length;
        memcpy(&length, view, 4);
        if (length != nb) continue;
        int64_t size;
        const uint8_t *x = am_view_value(a, first + k, &size);
        if (nb == 0 || memcmp(x, b, (size_t)nb) == 0) eq |= (uint64_t)1 << k;
      }
    } else if (a->type == AM_FIXED_SIZE_BINARY) {
      for (int64_t k = 0; k < n; k++) {
        int64_t size;
        const uint8_t *x = am_string_value(a, first + k, &size);
        if (size == nb && (nb == 0 || memcmp(x, b, (size_t)nb) == 0)) eq |= (uint64_t)1 << k;
      }
    } else if (am_type_is_large_binary(a->type)) {
      EQUAL_WORD(int64_t);
    } else {
      EQUAL_WORD(int32_t);
    }
    if (!want) eq = ~eq & am_low_bits(n);
    bits[first >> 6] = eq & v;
    valid[first >> 6] = v;
    nulls += n - am_popcount64(v);
  }
  return nulls;
}

static int compare_host(am_err *err, int op, const am_array *left, const am_array *right,
                        const am_scalar *scalar, am_array **out) {
  if (op < AM_EQ || op > AM_GE) return am_fail(err, AM_EINVAL, "unknown compare op %d", op);
  static const char *names[] = {"equal",      "not_equal", "less",
                                "less_equal", "greater",   "greater_equal"};
  am_array *other = NULL;
  int status = AM_OK;
  if (right) {
    if (!am_type_is_binary(right->type) || !am_type_is_binary(left->type) ||
        right->type != left->type || right->byte_width != left->byte_width)
      return am_fail(err, AM_ETYPE, "function '%s' has no kernel matching input types (%s, %s)",
                     names[op], am_type_name(left->type), am_type_name(right->type));
    if (right->length != left->length)
      return am_fail(err, AM_EINVAL, "arrays of lengths %lld and %lld", (long long)left->length,
                     (long long)right->length);
  } else {
    if (!am_type_is_binary(left->type) ||
        (!scalar->is_null && !am_type_is_binary((am_type)scalar->type)))
      return am_fail(err, AM_ETYPE, "function '%s' has no kernel matching input types (%s, %s)",
                     names[op], am_type_name(left->type), am_type_name((am_type)scalar->type));
    /* A null scalar of any type: every slot null, as pyarrow. */
    am_scalar s = *scalar;
    if (!s.is_null) s.type = left->type;
    if (s.is_null || left->type != AM_FIXED_SIZE_BINARY || s.i64 == left->byte_width)
      status = am_string_scalar_array(err, &s, left->type, left->byte_width, &other);
    else
      status = am_fail(err, AM_ETYPE,
                       "function '%s' has no kernel matching input types (%s, "
                       "fixed_size_binary[%lld])",
                       names[op], am_string_format(left->type, left->byte_width), (long long)s.i64);
    if (status != AM_OK) return status;
  }
  am_array *result = NULL;
  int64_t n = left->length;
  status = am_array_alloc_host(err, left->device, AM_BOOL, n, 1, &result);
  if (status == AM_OK) {
    uint8_t *bits = (uint8_t *)result->data, *valid = (uint8_t *)result->validity;
    int64_t bytes = am_type_bytes(AM_BOOL, n);
    memset(bits, 0, (size_t)bytes);
    memset(valid, 0, (size_t)bytes);
    int64_t nulls = 0;
    const int scalar_equality =
        !right && (op == AM_EQ || op == AM_NE) && am_string_is_valid(other, 0);
    if (scalar_equality) {
      int64_t nb;
      const uint8_t *b = am_string_value(other, 0, &nb);
      nulls = equal_scalar(left, b, nb, op == AM_EQ, (uint64_t *)bits, (uint64_t *)valid);
    }
    for (int64_t i = 0; !scalar_equality && i < n; i++) {
      int64_t j = right ? i : 0;
      const am_array *r = right ? right : other;
      if (!am_string_is_valid(left, i) || !am_string_is_valid(r, j)) {
        nulls++;
        continue;
      }
      int64_t na, nb;
      const uint8_t *a = am_string_value(left, i, &na), *b = am_string_value(r, j, &nb);
      valid[i >> 3] |= (uint8_t)(1u << (i & 7));
      if (am_compare_holds((am_compare_op)op, compare_bytes(a, na, b, nb)))
        bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    atomic_store(&result->null_count, nulls);
    *out = result;
  }
  am_array_free(other);
  return status;
}

static int aggregate_host(am_err *err, int op, const am_array *array,
                          const am_aggregate_options *options, am_scalar *a, am_scalar *b) {
  am_aggregate_options o = {1, 1, 0};
  if (options) o = *options;
  int64_t valid = 0, first = -1, last = -1, lo = -1, hi = -1;
  for (int64_t i = 0; i < array->length; i++) {
    if (!am_string_is_valid(array, i)) continue;
    valid++;
    if (first < 0) first = i;
    last = i;
    int64_t n, m = 0;
    const uint8_t *v = am_string_value(array, i, &n), *w;
    /* (the other value's size is read after the call that writes it) */
    if (lo < 0 || ((w = am_string_value(array, lo, &m)), compare_bytes(v, n, w, m) < 0)) lo = i;
    if (hi < 0 || ((w = am_string_value(array, hi, &m)), compare_bytes(v, n, w, m) > 0)) hi = i;
  }
  int nulls = valid < array->length;
  int none = valid < (int64_t)o.min_count || (!o.skip_nulls && nulls);
  int64_t rows[2];
  switch (op) {
    case AM_AGG_MIN:
      rows[0] = lo, rows[1] = -2;
      break;
    case AM_AGG_MAX:
      rows[0] = hi, rows[1] = -2;
      break;
    case AM_AGG_MIN_MAX:
      rows[0] = lo, rows[1] = hi;
      break;
    case AM_AGG_FIRST:
    case AM_AGG_LAST:
    case AM_AGG_FIRST_LAST: {
      /* Without skip_nulls, first/last are the first and last slots, null or
       * not (min_count still counts the valid ones). */
      int64_t f = o.skip_nulls ? first : array->length ? 0 : -1;
      int64_t l = o.skip_nulls ? last : array->length - 1;
      if (!o.skip_nulls) none = valid < (int64_t)o.min_count;
      rows[0] = op == AM_AGG_LAST ? l : f;
      rows[1] = op == AM_AGG_FIRST_LAST ? l : -2;
      break;
    }
    default:
      return am_fail(err, AM_ETYPE, "no kernel for %s arrays in this aggregate",
                     am_type_name(array->type));
  }
  /* A result's bytes are copied into the calling thread's own storage (one
   * block per output), so the scalar outlives the array it came from: the
   * bytes stay valid until this thread's next call that writes a string
   * scalar. */
  static _Thread_local uint8_t *kept[2];
  static _Thread_local int64_t kept_size[2];
  am_scalar *outs[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    if (rows[k] == -2 || !outs[k]) continue;
    am_scalar s;
    memset(&s, 0, sizeof s);
    s.type = array->type;
    s.i64 = array->byte_width; /* a fixed_size_binary's width, null or not */
    if (none || rows[k] < 0 || !am_string_is_valid(array, rows[k])) {
      s.is_null = 1;
    } else {
      int64_t n;
      const uint8_t *v = am_string_value(array, rows[k], &n);
      if (n > kept_size[k]) {
        uint8_t *grown = realloc(kept[k], (size_t)n);
        if (!grown) return am_fail(err, AM_ENOMEM, "out of memory");
        kept[k] = grown;
        kept_size[k] = n;
      }
      if (n) memcpy(kept[k], v, (size_t)n);
      s.u64 = (uint64_t)(uintptr_t)kept[k];
      s.i64 = n;
    }
    *outs[k] = s;
  }
  return AM_OK;
}

/* ---- The calls: on a GPU's kernels where it has them (string_gpu.c), else
 * on host copies of whatever lives on a GPU, the result moved back there
 * (string_device.h). */

int am_string_filter(am_err *err, const am_array *values, const am_array *mask,
                     int null_selection_emit, am_array **out) {
  int status = am_string_gpu_filter(err, values, mask, null_selection_emit == AM_NULL_EMIT, out);
  if (status != AM_EUNSUPPORTED) return status;
  const am_array *in[2] = {values, mask};
  am_string_hosted h;
  status = am_string_hosted_begin(err, in, 2, &h);
  if (status == AM_OK) status = filter_host(err, in[0], in[1], null_selection_emit, out);
  return am_string_hosted_end(err, status, &h, out);
}

int am_string_take(am_err *err, const am_array *values, const am_array *indices, am_array **out) {
  int status = am_string_gpu_take(err, values, indices, out);
  if (status != AM_EUNSUPPORTED) return status;
  const am_array *in[2] = {values, indices};
  am_string_hosted h;
  status = am_string_hosted_begin(err, in, 2, &h);
  if (status == AM_OK) status = take_host(err, in[0], in[1], out);
  return am_string_hosted_end(err, status, &h, out);
}

/* The result goes to `device`, or arrays[0]'s when that is NULL. */
int am_string_concat(am_err *err, const am_array *const *arrays, int64_t count, am_device *device,
                     am_array **out) {
  if (count < 1)
    return am_fail(err, AM_EINVAL, "count %lld: at least one array is needed", (long long)count);
  const am_array **in = malloc((size_t)count * sizeof *in);
  if (!in) return am_fail(err, AM_ENOMEM, "out of memory");
  memcpy(in, arrays, (size_t)count * sizeof *in);
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, count, &h);
  if (status == AM_OK) status = concat_host(err, in, count, out);
  status = am_string_hosted_end(err, status, &h, NULL);
  free(in);
  am_device *home = device ? device : arrays[0]->device;
  if (status != AM_OK || home == (*out)->device) return status;
  am_array *moved = NULL;
  status = am_move(err, *out, home, &moved);
  am_array_free(*out);
  *out = status == AM_OK ? moved : NULL;
  return status;
}

int am_string_drop_null(am_err *err, const am_array *values, am_array **out) {
  const am_array *in[1] = {values};
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK) status = drop_null_host(err, in[0], out);
  return am_string_hosted_end(err, status, &h, out);
}

int am_string_validity(am_err *err, const am_array *values, int valid, am_array **out) {
  if (!(values->device->backend->memory.caps & AM_MEMORY_HOST)) {
    /* Only the validity is read: the device's predicate over a view that
     * carries it (any element type takes is_null / is_valid). */
    am_array *view = am_array_make(values->device, AM_UINT8, values->length, values->offset,
                                   atomic_load(&((am_array *)values)->null_count),
                                   am_buffer_retain(values->validity_buf), values->validity,
                                   am_buffer_retain(values->data_buf), values->data);
    if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
    int status = values->device->backend->kernels.predicate(err, valid ? AM_IS_VALID : AM_IS_NULL,
                                                            0, view, out);
    am_array_free(view);
    return status;
  }
  return validity_host(err, values, valid, out);
}

int am_string_coalesce(am_err *err, const char *function, const am_array *const *arrays,
                       const am_scalar *const *scalars, int64_t count, am_array **out) {
  if (count < 1 || !arrays) return coalesce_host(err, function, arrays, scalars, count, out);
  const am_array **in = malloc((size_t)count * sizeof *in);
  if (!in) return am_fail(err, AM_ENOMEM, "out of memory");
  memcpy(in, arrays, (size_t)count * sizeof *in);
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, count, &h);
  if (status == AM_OK) status = coalesce_host(err, function, in, scalars, count, out);
  status = am_string_hosted_end(err, status, &h, out);
  free(in);
  return status;
}

int am_string_if_else(am_err *err, const am_array *cond, const am_array *const *sides,
                      const am_scalar *const *scalars, am_array **out) {
  const am_array *in[3] = {cond, sides[0], sides[1]};
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, 3, &h);
  if (status == AM_OK) status = if_else_host(err, in[0], in + 1, scalars, out);
  return am_string_hosted_end(err, status, &h, out);
}

int am_string_compare(am_err *err, int op, const am_array *left, const am_array *right,
                      const am_scalar *scalar, am_array **out) {
  int status = am_string_gpu_compare(err, op, left, right, scalar, out);
  if (status != AM_EUNSUPPORTED) return status;
  const am_array *in[2] = {left, right};
  am_string_hosted h;
  status = am_string_hosted_begin(err, in, 2, &h);
  if (status == AM_OK) status = compare_host(err, op, in[0], in[1], scalar, out);
  return am_string_hosted_end(err, status, &h, out);
}

int am_string_aggregate(am_err *err, int op, const am_array *array,
                        const am_aggregate_options *options, am_scalar *a, am_scalar *b) {
  const am_array *in[1] = {array};
  am_string_hosted h;
  int status = am_string_hosted_begin(err, in, 1, &h);
  if (status == AM_OK) status = aggregate_host(err, op, in[0], options, a, b);
  return am_string_hosted_end(err, status, &h, NULL);
}
