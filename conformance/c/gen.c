/* The README's splitmix64 generator ("Generated inputs: splitmix64"), in C: the
 * inputs too long to travel as IPC are drawn here, slot for slot as
 * casefmt.gen_values and casefmt.materialize draw them. Build with
 * -ffp-contract=off: the float draw is a multiply and an add, each rounded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"

#define GAMMA 0x9E3779B97F4A7C15ull

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* output(j) = mix(seed + (j + 1) * GAMMA) */
static uint64_t output(uint64_t seed, uint64_t j) { return mix(seed + (j + 1) * GAMMA); }

typedef struct {
  int64_t total;
  cr_value *values; /* every slot's value (null set for a null slot) */
  struct ArrowArray array;
  void *buffers[3];
} generated;

/* A decimal string or number of the spec as a 128-bit integer. */
static int spec_int(const json *spec, const char *key, __int128 *out) {
  const json *v = json_get(spec, key);
  int64_t i;
  uint64_t u;
  if (json_to_i64(v, &i)) {
    *out = i;
    return 1;
  }
  if (json_to_u64(v, &u)) {
    *out = u;
    return 1;
  }
  return 0;
}

/* A "uniform" spec's parameters, read once for all slots. */
typedef struct {
  int ranged, integral;
  __int128 lo, hi; /* integers and integral floats */
  double flo, fhi; /* floats: lo and hi (defaults -1000, 1000) */
  int64_t true_permille;
} uniform_spec;

static uniform_spec read_uniform(const json *spec) {
  uniform_spec u = {0};
  u.ranged = spec_int(spec, "lo", &u.lo) && spec_int(spec, "hi", &u.hi);
  u.integral = json_bool(spec, "integral", 0);
  u.flo = json_number(spec, "lo", -1000.0);
  u.fhi = json_number(spec, "hi", 1000.0);
  u.true_permille = json_int(spec, "true_permille", 500);
  return u;
}

static cr_value draw_uniform(const cr_type *t, const uniform_spec *s, uint64_t u, int *bad) {
  cr_value v = {0};
  switch (t->kind) {
    case CR_BOOL:
      v.i = (int64_t)(u % 1000) < s->true_permille;
      break;
    case CR_SIGNED:
    case CR_UNSIGNED: {
      uint64_t bits = u;
      if (s->ranged) {
        __int128 span = s->hi - s->lo + 1;
        uint64_t r = span < ((__int128)1 << 64) ? u % (uint64_t)span : u;
        bits = (uint64_t)s->lo + r;
      }
      int shift = 64 - 8 * t->width;
      if (t->kind == CR_SIGNED)
        v.i = (int64_t)(bits << shift) >> shift; /* the low bits, two's complement */
      else
        v.u = (bits << shift) >> shift;
      break;
    }
    case CR_FLOAT:
      if (s->integral) {
        if (!s->ranged) {
          *bad = 1;
          break;
        }
        int64_t r = (int64_t)(u % (uint64_t)(s->hi - s->lo + 1)) + (int64_t)s->lo;
        v.f = t->width == 4 ? (double)(float)r : (double)r;
      } else {
        double f = (double)(u >> 11) * 0x1p-53;
        double x = s->flo + f * (s->fhi - s->flo);
        v.f = t->width == 4 ? (double)(float)x : x;
      }
      break;
    default:
      *bad = 1;
      break; /* strings are drawn with kind "choice" */
  }
  return v;
}

static int is_zero(const cr_type *t, cr_value v) {
  return t->kind == CR_FLOAT ? v.f == 0.0 : t->kind == CR_UNSIGNED ? v.u == 0 : v.i == 0;
}

static cr_value one(const cr_type *t) {
  cr_value v = {0};
  v.i = 1;
  v.u = 1;
  v.f = 1.0;
  (void)t;
  return v;
}

static void release_generated(struct ArrowArray *array) {
  generated *g = array->private_data;
  for (int i = 0; i < 3; i++) free(g->buffers[i]);
  free(g);
  array->release = NULL;
}

static void release_schema(struct ArrowSchema *schema) { schema->release = NULL; }

/* The buffers of the slots' values: null_fill (or zero) under nulls, the bitmap
 * only when some slot is null. */
static int write_buffers(const cr_type *t, generated *g, cr_value fill) {
  int64_t n = g->total, nulls = 0;
  for (int64_t i = 0; i < n; i++) nulls += g->values[i].null;
  size_t bitmap_bytes = (size_t)(n + 7) / 8 + 1;
  if (nulls) {
    uint8_t *valid = calloc(bitmap_bytes, 1);
    if (!valid) return -1;
    for (int64_t i = 0; i < n; i++)
      if (!g->values[i].null) valid[i >> 3] |= (uint8_t)(1u << (i & 7));
    g->buffers[0] = valid;
  }
  int varlen = (t->kind == CR_UTF8 || t->kind == CR_BINARY) && t->type != AM_FIXED_SIZE_BINARY;
  if (varlen) {
    int64_t bytes = 0;
    for (int64_t i = 0; i < n; i++) bytes += g->values[i].null ? 0 : g->values[i].len;
    uint8_t *offsets = malloc((size_t)(n + 1) * (size_t)t->width);
    uint8_t *data = malloc((size_t)bytes + 1);
    g->buffers[1] = offsets;
    g->buffers[2] = data;
    if (!offsets || !data) return -1;
    int64_t at = 0;
    for (int64_t i = 0; i <= n; i++) {
      if (t->width == 4)
        ((int32_t *)offsets)[i] = (int32_t)at;
      else
        ((int64_t *)offsets)[i] = at;
      if (i < n && !g->values[i].null) {
        if (g->values[i].len) memcpy(data + at, g->values[i].bytes, (size_t)g->values[i].len);
        at += g->values[i].len;
      }
    }
    return 0;
  }
  size_t width = t->kind == CR_BOOL ? 0 : (size_t)t->width;
  uint8_t *data = calloc(width ? (size_t)n * width + 1 : bitmap_bytes, 1);
  g->buffers[1] = data;
  if (!data) return -1;
  for (int64_t i = 0; i < n; i++) {
    cr_value v = g->values[i].null ? fill : g->values[i];
    if (t->kind == CR_BOOL) {
      if (v.i) data[i >> 3] |= (uint8_t)(1u << (i & 7));
    } else if (t->kind == CR_FLOAT) {
      float f = (float)v.f;
      memcpy(data + i * width, width == 4 ? (const void *)&f : (const void *)&v.f, width);
    } else if (t->kind == CR_BINARY) { /* fixed_size_binary: zeros under nulls */
      if (!g->values[i].null) memcpy(data + i * width, v.bytes, width);
    } else {
      uint64_t bits = t->kind == CR_SIGNED ? (uint64_t)v.i : v.u;
      memcpy(data + i * width, &bits, width); /* little-endian: the low bytes */
    }
  }
  return 0;
}

/* Slots replaced by a column of values (pad, overrides). */
static int held_values(cr_store *store, const json *ref, const cr_type *t, cr_held *held, char *err,
                       size_t err_size) {
  return ref ? cr_hold(store, ref, t, held, err, err_size) : 0;
}

int cr_generate(const cr_type *t, const json *spec, cr_store *store, struct ArrowSchema *schema,
                struct ArrowArray *array, char *err, size_t err_size) {
  if (t->kind == CR_DECIMAL || t->type == AM_STRING_VIEW || t->type == AM_BINARY_VIEW) {
    /* decimal_cases.py and view_cases.py write their values; README.md specifies no draw */
    snprintf(err, err_size, "a generated %s input (decimals and views are not drawn here)",
             t->name);
    return -1;
  }
  int64_t offset = json_int(spec, "offset", 0), length = json_int(spec, "length", -1);
  uint64_t seed;
  const char *kind = json_string(spec, "kind");
  if (offset < 0 || length < 0 || !json_to_u64(json_get(spec, "seed"), &seed) ||
      (kind && strcmp(kind, "uniform") != 0 && strcmp(kind, "choice") != 0)) {
    snprintf(err, err_size, "a generator spec without offset, length or seed, or kind %s",
             kind ? kind : "?");
    return -1;
  }
  int choice = kind && strcmp(kind, "choice") == 0;
  cr_held choices = {0}, pad = {0}, over = {0}, fill = {0};
  generated *g = calloc(1, sizeof *g);
  int rc = -1;
  if (!g) goto done;
  g->total = offset + length;
  g->values = malloc((size_t)(g->total ? g->total : 1) * sizeof(cr_value));
  if (!g->values) goto done;
  const json *overrides = json_get(spec, "overrides");
  if (held_values(store, json_get(spec, "choices"), t, &choices, err, err_size) ||
      held_values(store, json_get(spec, "pad"), t, &pad, err, err_size) ||
      held_values(store, overrides ? json_get(overrides, "values") : NULL, t, &over, err,
                  err_size) ||
      held_values(store, json_get(spec, "null_fill"), t, &fill, err, err_size))
    goto done;
  if (choice && (!choices.col.array || cr_length(&choices.col) == 0)) {
    snprintf(err, err_size, "kind choice without choices");
    goto done;
  }
  int64_t permille = json_int(spec, "null_permille", 0);
  int exclude_zero = json_bool(spec, "exclude_zero", 0), bad = 0;
  uniform_spec uniform = read_uniform(spec);
  for (int64_t i = 0; i < g->total; i++) {
    uint64_t u = output(seed, 2 * (uint64_t)i), w = output(seed, 2 * (uint64_t)i + 1);
    cr_value v = choice ? cr_get(&choices.col, (int64_t)(u % (uint64_t)cr_length(&choices.col)))
                        : draw_uniform(t, &uniform, u, &bad);
    if (exclude_zero && !choice && is_zero(t, v)) v = one(t); /* uniform draws only */
    v.null = (int64_t)(w % 1000) < permille;
    g->values[i] = v;
  }
  if (bad) {
    snprintf(err, err_size, "a generator spec this runner cannot draw for %s", t->name);
    goto done;
  }
  if (pad.col.array) {
    if (cr_length(&pad.col) != offset) {
      snprintf(err, err_size, "pad of %lld values, offset %lld", (long long)cr_length(&pad.col),
               (long long)offset);
      goto done;
    }
    for (int64_t i = 0; i < offset; i++) g->values[i] = cr_get(&pad.col, i);
  }
  if (overrides) {
    const json *at = json_get(overrides, "at");
    if (!at || at->kind != JSON_ARRAY || !over.col.array ||
        (int64_t)at->count != cr_length(&over.col)) {
      snprintf(err, err_size, "overrides without matching at and values");
      goto done;
    }
    for (size_t j = 0; j < at->count; j++) {
      int64_t slot;
      if (!json_to_i64(at->items[j], &slot) || slot < 0 || slot >= length) {
        snprintf(err, err_size, "an override outside the input");
        goto done;
      }
      g->values[offset + slot] = cr_get(&over.col, (int64_t)j);
    }
  }
  cr_value zero = {0};
  if (write_buffers(t, g, fill.col.array ? cr_get(&fill.col, 0) : zero)) {
    snprintf(err, err_size, "out of memory drawing %lld slots", (long long)g->total);
    goto done;
  }
  free(g->values);
  g->values = NULL;
  int n_buffers =
      t->kind == CR_UTF8 || (t->kind == CR_BINARY && t->type != AM_FIXED_SIZE_BINARY) ? 3 : 2;
  memset(array, 0, sizeof *array);
  array->length = g->total;
  array->n_buffers = n_buffers;
  array->buffers = (const void **)g->buffers;
  array->release = release_generated;
  array->private_data = g;
  memset(schema, 0, sizeof *schema);
  schema->format = t->format;
  schema->name = "";
  schema->flags = ARROW_FLAG_NULLABLE;
  schema->release = release_schema;
  g = NULL;
  rc = 0;
done:
  if (g) {
    free(g->values);
    for (int i = 0; i < 3; i++) free(g->buffers[i]);
    free(g);
  }
  cr_held_release(&choices);
  cr_held_release(&pad);
  cr_held_release(&over);
  cr_held_release(&fill);
  if (rc && !err[0]) snprintf(err, err_size, "out of memory");
  return rc;
}
