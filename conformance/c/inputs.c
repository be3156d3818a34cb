#include "inputs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cr_store_init(cr_store *store, const char *dir) {
  memset(store, 0, sizeof *store);
  snprintf(store->dir, sizeof store->dir, "%s", dir);
}

void cr_store_close(cr_store *store) {
  for (int i = 0; i < store->n; i++) cr_ipc_close(store->files[i].file);
  store->n = 0;
}

static cr_ipc_file *store_file(cr_store *store, const char *name, char *err, size_t err_size) {
  for (int i = 0; i < store->n; i++)
    if (strcmp(store->files[i].name, name) == 0) return store->files[i].file;
  if (store->n == CR_MAX_FILES || strlen(name) >= sizeof store->files[0].name) {
    snprintf(err, err_size, "too many IPC files, or a long name: %s", name);
    return NULL;
  }
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", store->dir, name);
  cr_ipc_file *file = cr_ipc_open(path, err, err_size);
  if (!file) return NULL;
  snprintf(store->files[store->n].name, sizeof store->files[0].name, "%s", name);
  store->files[store->n++].file = file;
  return file;
}

int cr_store_read(cr_store *store, const json *ref, struct ArrowSchema *schema,
                  struct ArrowArray *array, char *err, size_t err_size) {
  const char *name = json_string(ref, "file");
  int64_t batch = json_int(ref, "batch", -1);
  if (!name || batch < 0) {
    snprintf(err, err_size, "a reference without file and batch");
    return -1;
  }
  cr_ipc_file *file = store_file(store, name, err, err_size);
  return file ? cr_ipc_read(file, batch, schema, array, err, err_size) : -1;
}

int cr_hold(cr_store *store, const json *ref, const cr_type *type, cr_held *out, char *err,
            size_t err_size) {
  memset(out, 0, sizeof *out);
  if (!type) {
    snprintf(err, err_size, "an array of an unknown type");
    return -1;
  }
  if (cr_store_read(store, ref, &out->schema, &out->array, err, err_size)) return -1;
  if (!cr_type_of_format(out->schema.format) || cr_type_of_format(out->schema.format) != type) {
    snprintf(err, err_size, "IPC array of format %s, expected %s", out->schema.format, type->name);
    cr_held_release(out);
    return -1;
  }
  out->col.type = type;
  out->col.array = &out->array;
  return 0;
}

void cr_held_release(cr_held *held) {
  if (held->array.release) held->array.release(&held->array);
  if (held->schema.release) held->schema.release(&held->schema);
  held->col.array = NULL;
}

/* ---- release counting --------------------------------------------------------------- */

static void counting_release(struct ArrowArray *array) {
  cr_counter *counter = array->private_data;
  counter->count++;
  array->private_data = counter->private_data;
  array->release = counter->release;
  if (array->release) array->release(array);
  array->release = NULL;
}

void cr_count_releases(struct ArrowArray *array, cr_counter *counter) {
  counter->release = array->release;
  counter->private_data = array->private_data;
  counter->count = 0;
  array->release = counting_release;
  array->private_data = counter;
}

/* ---- scalars -------------------------------------------------------------------------- */

/* The value of float16 bits, exactly (a NaN's payload in the double's top mantissa bits,
 * where the library reads it back). */
static double float16_value(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  uint64_t m = h & 0x3ffu, sign = (uint64_t)(h >> 15) << 63, bits;
  if (e == 31) {
    bits = sign | (uint64_t)0x7ff << 52 | m << 42;
  } else {
    double v = e ? ldexp((double)(m | 0x400u), e - 25) : ldexp((double)m, -24);
    memcpy(&bits, &v, sizeof bits);
    bits |= sign;
  }
  double out;
  memcpy(&out, &bits, sizeof out);
  return out;
}

void cr_make_scalar(const cr_type *t, cr_value v, am_scalar *s) {
  s->type = (int32_t)t->type;
  s->is_null = v.null ? 1 : 0;
  s->i64 = -6148914691236517206;
  s->u64 = 0xA5A5A5A5A5A5A5A5u;
  s->f64 = NAN;
  if (t->kind == CR_DECIMAL) { /* i64: scale << 32 | precision (a null's too), u64: its bytes */
    s->i64 = (int64_t)(((uint64_t)(uint32_t)t->scale << 32) | (uint32_t)t->precision);
    if (!v.null) s->u64 = (uint64_t)(uintptr_t)v.bytes;
    return;
  }
  if (v.null) {
    if (t->kind == CR_FLOAT) s->f64 = 12345.0;
    return;
  }
  switch (t->kind) {
    case CR_UTF8:
    case CR_BINARY: /* u64: the address of its bytes, i64: their count */
      s->u64 = (uint64_t)(uintptr_t)v.bytes;
      s->i64 = v.len;
      break;
    case CR_BOOL:
    case CR_SIGNED:
      s->i64 = v.i;
      break;
    case CR_UNSIGNED:
      if (t->type == AM_FLOAT16) /* the case codes its bits; the scalar holds its value */
        s->f64 = float16_value((uint16_t)v.u);
      else
        s->u64 = v.u;
      break;
    case CR_FLOAT:
      s->f64 = v.f;
      break;
    case CR_DECIMAL: /* above */
      break;
  }
}

/* ---- arrays ----------------------------------------------------------------------------- */

int cr_read_input(const json *entry, const cr_type *t, cr_store *store, struct ArrowSchema *schema,
                  struct ArrowArray *array, char *err, size_t err_size) {
  const json *gen = json_get(entry, "gen");
  int rc = gen ? cr_generate(t, gen, store, schema, array, err, err_size)
               : cr_store_read(store, json_get(entry, "array"), schema, array, err, err_size);
  if (rc) return -1;
  int64_t offset = json_int(entry, "offset", 0), length = json_int(entry, "length", -1);
  if (offset < 0 || length < 0 || offset + length > array->length) {
    snprintf(err, err_size, "slice %lld+%lld of an array of %lld", (long long)offset,
             (long long)length, (long long)array->length);
    array->release(array);
    schema->release(schema);
    return -1;
  }
  /* The slice, zero-copy: the library gets ArrowArray.offset and the whole buffers. */
  array->offset += offset;
  array->length = length;
  cr_column col = {t, array};
  array->null_count = cr_null_count(&col);
  int has_bitmap = array->n_buffers > 0 && array->buffers[0] != NULL;
  if (json_bool(entry, "unknown_null_count", 0) && has_bitmap) array->null_count = -1;
  return 0;
}

int cr_read_dictionary(const json *indices, const json *dictionary, const cr_type *index_type,
                       int posing_width, int ordered, cr_store *store, struct ArrowSchema *schema,
                       struct ArrowArray *array, char *err, size_t err_size) {
  const cr_type *value_type = cr_type_named(json_string(dictionary, "type"));
  struct ArrowSchema is, ds;
  struct ArrowArray ia, da;
  if (!value_type) {
    snprintf(err, err_size, "a dictionary of unknown type %s", json_string(dictionary, "type"));
    return -1;
  }
  if (cr_read_input(indices, index_type, store, &is, &ia, err, err_size)) return -1;
  if (posing_width && cr_as_integers(&is, &ia, posing_width, err, err_size)) return -1;
  if (cr_read_input(dictionary, value_type, store, &ds, &da, err, err_size)) {
    ia.release(&ia);
    is.release(&is);
    return -1;
  }
  return cr_make_dictionary(&is, &ia, &ds, &da, ordered, schema, array, err, err_size);
}

static int build_array(cr_inputs *in, const json *entry, const cr_type *t, cr_store *store,
                       am_device *device, char *err, size_t err_size) {
  struct ArrowSchema schema;
  struct ArrowArray array;
  const json *dictionary = json_get(entry, "dictionary");
  int rc = dictionary ? cr_read_dictionary(entry, dictionary, t, 0, json_bool(entry, "ordered", 0),
                                           store, &schema, &array, err, err_size)
                      : cr_read_input(entry, t, store, &schema, &array, err, err_size);
  if (rc) return -1;
  cr_counter *counter = &in->counters[in->n_moved++];
  cr_count_releases(&array, counter);
  am_array *handle = NULL;
  /* A timestamp's zone ("tz") ends the format it is imported with; the library reads
   * the format during am_import only. */
  const char *tz = json_string(entry, "tz"), *format = schema.format;
  char zoned[320];
  if (tz && snprintf(zoned, sizeof zoned, "%s%s", t->format, tz) < (int)sizeof zoned)
    schema.format = zoned;
  rc = am_import(&schema, &array, device, &handle);
  schema.format = format;
  schema.release(&schema);
  if (array.release) {
    snprintf(err, err_size, "am_import did not mark the moved ArrowArray released");
    array.release(&array);
    return -1;
  }
  if (rc != AM_OK) {
    snprintf(err, err_size, "am_import returned %d: %s", rc, am_last_error());
    return -1;
  }
  in->arrays[in->n_arrays++] = handle;
  return 0;
}

int cr_inputs_build(cr_inputs *in, const json *inputs, cr_store *store, am_device *device,
                    char *err, size_t err_size) {
  memset(in, 0, sizeof *in);
  if (!inputs || inputs->kind != JSON_ARRAY || inputs->count > CR_MAX_INPUTS) {
    snprintf(err, err_size, "inputs: not a list of at most %d", CR_MAX_INPUTS);
    return -1;
  }
  for (size_t k = 0; k < inputs->count; k++) {
    const json *entry = inputs->items[k];
    const cr_type *t = cr_type_named(json_string(entry, "type"));
    if (!t) {
      snprintf(err, err_size, "input %zu: unknown type %s", k, json_string(entry, "type"));
      cr_inputs_release(in);
      return -1;
    }
    in->types[in->n] = t;
    const json *scalar = json_get(entry, "scalar");
    in->is_scalar[in->n++] = scalar != NULL;
    if (!scalar) {
      if (build_array(in, entry, t, store, device, err, err_size)) {
        cr_inputs_release(in);
        return -1;
      }
      continue;
    }
    cr_held *held = &in->scalar_arrays[in->n_scalars];
    if (cr_hold(store, scalar, t, held, err, err_size) || cr_length(&held->col) != 1) {
      if (held->col.array)
        snprintf(err, err_size, "input %zu: a scalar of %lld slots", k,
                 (long long)cr_length(&held->col));
      cr_held_release(held);
      cr_inputs_release(in);
      return -1;
    }
    am_scalar *s = &in->scalar_storage[in->n_scalars];
    cr_make_scalar(t, cr_get(&held->col, 0), s);
    in->scalars[in->n_scalars++] = s;
  }
  return 0;
}

void cr_inputs_release(cr_inputs *in) {
  for (int i = 0; i < in->n_arrays; i++) am_release(in->arrays[i]);
  for (int i = 0; i < in->n_scalars; i++) cr_held_release(&in->scalar_arrays[i]);
  in->n_arrays = 0;
  in->n_scalars = 0;
}

int cr_inputs_released_once(const cr_inputs *in, char *err, size_t err_size) {
  int ok = 1;
  size_t k = (size_t)snprintf(err, err_size, "input release callbacks ran");
  for (int i = 0; i < in->n_moved; i++) {
    ok &= in->counters[i].count == 1;
    if (k < err_size) k += (size_t)snprintf(err + k, err_size - k, " %d", in->counters[i].count);
  }
  if (k < err_size) snprintf(err + k, err_size - k, " times");
  return ok;
}
