/* libFuzzer target: the import path (am_import, am_import_device) over an
 * ArrowSchema and ArrowArray decoded from the input.
 *
 * Everything am_import validates (include/arrowmetal.h: length, offset and
 * null_count ranges, n_buffers, n_children, dictionary, format, NULL
 * buffers, released structs) is fuzzed freely. What it must trust -- that a
 * buffer is as long as the declared type, offset and length say, and that
 * an in-range null_count is true -- is never a lie here: for a format the
 * library knows, the buffers are exactly that long (ASan reports a byte
 * more), and null_count is the bitmap's count, -1 or out of range. A lie
 * there would fuzz the harness, not the library.
 *
 * Checks: every struct released exactly once (and the moved-in one marked
 * released at once), an error always with a message, and an accepted array
 * exported back with the same values, bitmap and null count.
 *
 * View arrays ("vu", "vz") are built honest in their buffers' sizes (each
 * variadic data buffer as long as its declared size, the views buffer
 * (offset + length) * 16 bytes), with views of the input's choosing: inline,
 * inside a buffer, near misses or raw bytes. The harness judges every valid
 * slot's view itself, as the header says the import does, and checks the
 * library's answer against it: sound views accepted and read back with the
 * same bytes, any unsound one refused (AM_EINVAL). */
#include "fuzz_common.h"

/* Formats: the library's eleven, Arrow types it does not take, and a few
 * near misses. Beyond this table the input writes the string itself. */
static const char *const formats[] = {
    "b",   "c",    "s",  "i", "l",  "C",   "S",      "I",   "L",  "f",   "g",
    "e",   "n",    "u",  "U", "z",  "Z",   "d:10,2", "w:4", "+l", "+s",  "+m",
    "tdD", "tsu:", "ll", "",  "b ", "g\n", "+w:2",   "vu",  "vz", "+vl", "i\x01",
};
enum { FORMAT_COUNT = sizeof formats / sizeof formats[0] };

/* The library's type of a format, as am_import reads it: a strict match of
 * any element type's format (numeric and temporal), a timestamp's with any
 * time zone after its colon. */
static am_type primitive_of(const char *format) {
  if (!format) return AM_TYPE_INVALID;
  for (int t = 1; t < 64; t++) {
    const char *f = am_type_format((am_type)t);
    if (!f || !*f) continue;
    size_t n = strlen(f);
    if (strcmp(format, f) == 0 || (f[n - 1] == ':' && strncmp(format, f, n) == 0))
      return (am_type)t;
  }
  return AM_TYPE_INVALID;
}

/* The type make_array builds honestly for a format: a primitive's, or
 * AM_STRUCT for "+s" (its children then follow its schema's children, so
 * that a struct the library accepts is read only where the producer's
 * buffers reach). */
static am_type honest_type(const char *format) {
  return format && strcmp(format, "+s") == 0 ? AM_STRUCT : primitive_of(format);
}

/* A schema with `depth` levels of children / dictionary at most. */
static void make_schema(fz *in, struct ArrowSchema *schema, int depth, char *format_out,
                        size_t format_size) {
  uint8_t choice = fz_u8(in);
  char format[16];
  if (choice < 224) {
    snprintf(format, sizeof format, "%s", formats[choice % FORMAT_COUNT]);
  } else {
    size_t n = (size_t)(choice % 9);
    fz_bytes(in, format, n);
    format[n] = '\0';
  }
  /* The harness builds fixed-width layouts and view arrays only, and a
   * string or binary array's buffers are read as far as its offsets say:
   * such formats are made unknown here (their imports' checks are tested in
   * python/tests/test_strings.py). So are decimals ("d:" and anything
   * after): their width and validity come from parameters the harness does
   * not model (python/tests/test_decimal.py tests their imports). */
  am_type t = primitive_of(format);
  if ((t >= AM_UTF8 && t <= AM_FIXED_SIZE_BINARY) || (format[0] == 'd' && format[1] == ':'))
    format[0] = '?';
  if (format_out) snprintf(format_out, format_size, "%s", format);
  fz_schema_private *p = fz_schema_init(schema, format, "a schema");
  uint8_t shape = fz_u8(in);
  if (shape & 1) schema->flags = (int64_t)fz_u8(in) - 8;
  if (shape & 2) schema->name = NULL;
  if (depth > 0 && (shape & 12)) {
    int n = (shape >> 2) & 3; /* 1 .. 3 children */
    p->children = calloc((size_t)n, sizeof *p->children);
    p->n_children = n;
    for (int i = 0; i < n; i++) {
      p->children[i] = malloc(sizeof(struct ArrowSchema));
      make_schema(in, p->children[i], depth - 1, NULL, 0);
    }
    schema->n_children = n;
    schema->children = p->children;
  } else if (shape & 16) {
    schema->n_children = -(int64_t)fz_range(in, 1, 3); /* negative: no children array */
  }
  if (depth > 0 && (shape & 32)) {
    p->dictionary = malloc(sizeof(struct ArrowSchema));
    make_schema(in, p->dictionary, depth - 1, NULL, 0);
    schema->dictionary = p->dictionary;
  }
}

/* What the array is expected to read back as: valid[i] and the element
 * bytes of each row (bits for bool); a view array's values are sizes[i]
 * bytes from values + starts[i], and `sound` says whether the library must
 * take it (every valid slot's view and every data buffer's size sound). */
typedef struct expect {
  am_type type;
  int64_t length;
  uint8_t *valid;
  uint8_t *values;
  int64_t *starts, *sizes;
  int sound;
} expect;

static int is_view(am_type t) { return t == AM_STRING_VIEW || t == AM_BINARY_VIEW; }

/* Whether a view is sound against `count` data buffers of `sizes` bytes
 * (include/arrowmetal.h: a length >= 0; past 12 bytes a buffer that exists,
 * an offset and the length within it, the prefix of the bytes there). */
static int view_sound(const uint8_t *v, int count, const uint8_t *const *data,
                      const int64_t *sizes) {
  int32_t n, buffer, at;
  memcpy(&n, v, 4);
  memcpy(&buffer, v + 8, 4);
  memcpy(&at, v + 12, 4);
  if (n < 0) return 0;
  if (n <= 12) return 1;
  return buffer >= 0 && buffer < count && at >= 0 && (int64_t)at + n <= sizes[buffer] &&
         memcmp(v + 4, data[buffer] + at, 4) == 0;
}

/* A view array for `type`: see the top of this file. */
static void make_view_array(fz *in, struct ArrowArray *array, am_type type, expect *want) {
  uint8_t shape = fz_u8(in);
  const int64_t length = fz_range(in, 0, 40), offset = (shape & 1) ? fz_range(in, 0, 8) : 0;
  const int count = (int)fz_range(in, 0, 3);
  fz_array_private *p = fz_array_init(array, 3 + count, "a view array");
  array->length = length;
  array->offset = offset;
  int64_t *sizes = malloc(sizeof(int64_t) * (size_t)(count + 1));
  const uint8_t *data[3] = {NULL, NULL, NULL};
  int sound = 1;
  for (int k = 0; k < count; k++) {
    size_t size = (size_t)fz_range(in, 0, 64);
    data[k] = fz_buffer(in, p, 2 + k, size, 0);
    /* a negative size at times (refused); never more than the buffer has */
    sizes[k] = (shape & 2) && k == count - 1 ? -1 - (int64_t)(fz_u8(in) % 3) : (int64_t)size;
    sound &= sizes[k] >= 0;
  }
  p->raw[2 + count] = sizes;
  p->buffers[2 + count] = count ? sizes : NULL;
  const int64_t slots = offset + length;
  const int shift = (shape >> 2) & 1; /* a views buffer one byte off its alignment */
  uint8_t *raw = slots ? malloc((size_t)slots * 16 + (size_t)shift) : NULL;
  uint8_t *views = raw ? raw + shift : NULL;
  p->raw[1] = raw;
  p->buffers[1] = views;
  for (int64_t i = 0; i < slots; i++) {
    uint8_t *v = views + i * 16;
    uint8_t kind = fz_u8(in);
    int k = count ? (int)(fz_u8(in) % count) : 0;
    int32_t n = 0, at = 0, buffer = k;
    memset(v, 0, 16);
    if ((kind & 3) == 0 || !count || sizes[k] <= 12) { /* inline */
      n = (int32_t)fz_range(in, 0, 12);
      memcpy(v, &n, 4);
      fz_bytes(in, v + 4, (size_t)n);
      if (kind & 4) v[0] = (uint8_t)(v[0] | (fz_u8(in) & 0x80)), v[3] = 0x80; /* negative */
      continue;
    }
    if ((kind & 3) == 1) { /* inside buffer k */
      n = (int32_t)fz_range(in, 13, sizes[k]);
      at = (int32_t)fz_range(in, 0, sizes[k] - n);
      memcpy(v + 4, data[k] + at, 4);
    } else if ((kind & 3) == 2) { /* a near miss: past the end, a bad buffer or prefix */
      n = (int32_t)fz_range(in, 13, 80);
      at = (int32_t)fz_range(in, -2, 64);
      buffer = (int32_t)fz_range(in, -1, count);
      if (buffer >= 0 && buffer < count && at >= 0 && (int64_t)at + 4 <= sizes[buffer])
        memcpy(v + 4, data[buffer] + at, 4);
      if (kind & 8) v[4] ^= 1;
    } else { /* raw bytes */
      fz_bytes(in, v, 16);
      continue;
    }
    memcpy(v, &n, 4);
    memcpy(v + 8, &buffer, 4);
    memcpy(v + 12, &at, 4);
  }
  int bitmap_mode = (shape >> 3) & 3; /* 0 none, 1 from the input, 2 all valid, 3 all null */
  uint8_t *bitmap = NULL;
  if (slots && bitmap_mode) {
    size_t size = fz_buffer_bytes(slots, 1);
    bitmap = fz_buffer(in, p, 0, size, 0);
    if (bitmap_mode > 1) memset(bitmap, bitmap_mode == 2 ? 0xff : 0, size);
  }
  const int64_t nulls = fz_count_nulls(bitmap, offset, length);
  array->null_count = (shape & 32) ? -1 : nulls;
  /* the valid slots' values, and whether the library must take them */
  want->type = type;
  want->length = length;
  want->valid = malloc((size_t)length + 1);
  want->starts = malloc(sizeof(int64_t) * (size_t)(length + 1));
  want->sizes = malloc(sizeof(int64_t) * (size_t)(length + 1));
  want->values = malloc((size_t)length * 80 + 1);
  int64_t used = 0;
  for (int64_t i = 0; i < length; i++) {
    const uint8_t *v = views + (offset + i) * 16;
    want->valid[i] = !bitmap || !nulls || fz_bit(bitmap, offset + i);
    want->starts[i] = used;
    want->sizes[i] = 0;
    if (!want->valid[i]) continue;
    if (!view_sound(v, count, data, sizes)) {
      sound = 0;
      continue;
    }
    int32_t n, buffer, at;
    memcpy(&n, v, 4);
    memcpy(&buffer, v + 8, 4);
    memcpy(&at, v + 12, 4);
    memcpy(want->values + used, n <= 12 ? v + 4 : data[buffer] + at, (size_t)n);
    want->sizes[i] = n;
    used += n;
  }
  want->sound = sound;
}

/* A view array reads back as it went in: every valid slot's bytes. */
static void check_views(am_array *handle, const expect *want) {
  fz_check_export(handle);
  struct ArrowArray array;
  if (fz_status(am_export(handle, NULL, &array), "am_export") != AM_OK) return;
  FZ_CHECK(array.length == want->length, "view export length %lld", (long long)array.length);
  const int64_t *sizes = array.buffers[array.n_buffers - 1];
  for (int64_t i = 0; i < want->length; i++) {
    const int64_t at = array.offset + i;
    int valid = array.buffers[0] ? fz_bit(array.buffers[0], at) : 1;
    FZ_CHECK(valid == want->valid[i], "view row %lld: valid %d, want %d", (long long)i, valid,
             want->valid[i]);
    if (!valid) continue;
    const uint8_t *v = (const uint8_t *)array.buffers[1] + at * 16;
    int32_t n, buffer, offset;
    memcpy(&n, v, 4);
    memcpy(&buffer, v + 8, 4);
    memcpy(&offset, v + 12, 4);
    FZ_CHECK(n == want->sizes[i], "view row %lld: %d bytes, want %lld", (long long)i, n,
             (long long)want->sizes[i]);
    const uint8_t *bytes = n <= 12 ? v + 4 : (const uint8_t *)array.buffers[2 + buffer] + offset;
    FZ_CHECK(n <= 12 || (int64_t)offset + n <= sizes[buffer], "view row %lld past its buffer",
             (long long)i);
    FZ_CHECK(memcmp(bytes, want->values + want->starts[i], (size_t)n) == 0,
             "view row %lld: bytes differ", (long long)i);
  }
  array.release(&array);
}

static int element_bit(const uint8_t *data, int64_t i) { return (data[i >> 3] >> (i & 7)) & 1; }

/* An array for `type` (AM_TYPE_INVALID: a format the library refuses, with
 * buffers of any size), with `depth` levels of children / dictionary. */
static void make_array(fz *in, struct ArrowArray *array, am_type type, int depth, expect *want,
                       const struct ArrowSchema *schema) {
  if (is_view(type)) {
    expect ignored = {0};
    make_view_array(in, array, type, want ? want : &ignored);
    if (!want) free(ignored.valid), free(ignored.values), free(ignored.starts), free(ignored.sizes);
    return;
  }
  uint8_t shape = fz_u8(in);
  uint8_t more = fz_u8(in);
  int64_t length, offset;
  int honest = type != AM_TYPE_INVALID;
  int is_struct = type == AM_STRUCT;
  switch (shape & 3) {
    case 0: /* in range */
    case 1:
      length = fz_range(in, 0, (shape & 1) ? 600 : 40);
      offset = (more & 1) ? fz_range(in, 0, 70) : 0;
      break;
    case 2: /* negative or beyond 2^52 slots, which am_import refuses */
      length = (more & 1) ? -(int64_t)fz_range(in, 1, 1000) : ((int64_t)1 << 52) + fz_u8(in);
      offset = (more & 2) ? -(int64_t)fz_range(in, 1, 1000)
                          : (int64_t)(fz_u64(in) & (((uint64_t)1 << 62) - 1)) | ((int64_t)1 << 53);
      if (more & 4) length = fz_range(in, 0, 8);
      break;
    default: /* an empty array at any offset, buffers NULL */
      length = 0;
      offset = (int64_t)(fz_u64(in) & (((uint64_t)1 << 51) - 1));
      break;
  }
  int in_range = length >= 0 && offset >= 0 && length <= 600 && offset <= 70;
  /* n_buffers: 2 (a struct: 1), or something else with exactly that many entries. */
  int n_buffers = is_struct ? 1 : 2;
  if (more & 8) n_buffers = (int)fz_range(in, -1, 4);
  int entries = n_buffers > 0 ? n_buffers : 0;
  fz_array_private *p = fz_array_init(array, entries, "an array");
  array->n_buffers = n_buffers;
  if (entries == 0 || (more & 16 && fz_u8(in) < 64)) array->buffers = NULL;
  array->length = length;
  array->offset = offset;
  int bits = honest && !is_struct ? fz_type_bits(type) : 8;
  int shift = (more >> 5) & 1;
  int bitmap_mode = (more >> 6) & 3; /* 0 none, 1 from the input, 2 all valid, 3 all null */
  int64_t slots = in_range && (shape & 3) != 3 ? offset + length : 0;
  if (!honest && entries) { /* sizes of the input's choosing: never read */
    for (int i = 0; i < entries; i++)
      if (fz_u8(in) & 1) fz_buffer(in, p, i, (size_t)fz_range(in, 0, 64), shift);
  } else if (entries >= 2 && slots > 0) {
    if (!(shape & 4)) fz_buffer(in, p, 1, fz_buffer_bytes(slots, bits), shift);
    if (bitmap_mode) {
      size_t size = fz_buffer_bytes(slots, 1);
      uint8_t *bitmap = fz_buffer(in, p, 0, size, 0);
      if (bitmap_mode > 1) memset(bitmap, bitmap_mode == 2 ? 0xff : 0, size);
    }
  } else if (entries >= 1 && slots > 0 && bitmap_mode) {
    fz_buffer(in, p, 0, fz_buffer_bytes(slots, 1), 0);
  }
  /* null_count: the bitmap's, unknown (-1), or out of range. */
  const void *bitmap = entries >= 1 ? p->buffers[0] : NULL;
  int64_t nulls = honest && slots > 0 ? fz_count_nulls(bitmap, offset, length) : 0;
  switch ((shape >> 3) & 3) {
    case 0:
    case 1:
      array->null_count = nulls;
      break;
    case 2:
      array->null_count = -1;
      break;
    default:
      array->null_count = (shape & 32) ? length + fz_range(in, 1, 9) : -fz_range(in, 2, 9);
  }
  /* Children and a dictionary: real structs, which the release frees. */
  if (is_struct && depth > 0 && (shape & 64) && schema && schema->n_children > 0) {
    /* A struct's children: one per schema child, each honest for its format. */
    int n = (int)schema->n_children;
    p->children = calloc((size_t)n, sizeof *p->children);
    p->n_children = n;
    for (int i = 0; i < n; i++) {
      p->children[i] = malloc(sizeof(struct ArrowArray));
      const struct ArrowSchema *child = schema->children[i];
      make_array(in, p->children[i], honest_type(child->format), depth - 1, NULL, child);
    }
    array->n_children = n;
    array->children = p->children;
  } else if (depth > 0 && (shape & 64)) {
    int n = (int)fz_range(in, 1, 2);
    p->children = calloc((size_t)n, sizeof *p->children);
    p->n_children = n;
    for (int i = 0; i < n; i++) {
      p->children[i] = malloc(sizeof(struct ArrowArray));
      make_array(in, p->children[i], (fz_u8(in) & 1) ? AM_INT32 : AM_TYPE_INVALID, depth - 1, NULL,
                 NULL);
    }
    array->n_children = n;
    array->children = p->children;
  } else if (shape & 128) {
    array->n_children = -(int64_t)fz_range(in, 1, 3);
  }
  if (depth > 0 && (more & 128) && (shape & 32)) {
    /* honest for the schema's dictionary (a view dictionary's buffers are
     * views; int64 when the schema has none, which the import refuses) */
    const struct ArrowSchema *values = schema ? schema->dictionary : NULL;
    p->dictionary = malloc(sizeof(struct ArrowArray));
    make_array(in, p->dictionary, values ? honest_type(values->format) : AM_INT64, depth - 1, NULL,
               values);
    array->dictionary = p->dictionary;
  }
  if (want && honest && !is_struct && slots > 0 && entries >= 2 && array->buffers &&
      p->buffers[1]) {
    want->type = type;
    want->length = length;
    want->valid = malloc((size_t)length + 1);
    want->values = malloc((size_t)length * (size_t)(bits == 1 ? 1 : bits / 8) + 1);
    const uint8_t *data = p->buffers[1];
    for (int64_t i = 0; i < length; i++) {
      want->valid[i] = bitmap ? (uint8_t)fz_bit(bitmap, offset + i) : 1;
      if (bits == 1)
        want->values[i] = (uint8_t)element_bit(data, offset + i);
      else
        memcpy(want->values + i * (bits / 8), data + (offset + i) * (bits / 8), (size_t)bits / 8);
    }
  }
}

/* The imported array reads back as it went in. */
static void check_round_trip(am_array *handle, const expect *want) {
  fz_check_export(handle);
  if (!want->valid) {
    FZ_CHECK(am_length(handle) == 0 || want->type == AM_TYPE_INVALID, "no expectation");
    return;
  }
  FZ_CHECK(am_array_type(handle) == want->type, "type %d, want %d", am_array_type(handle),
           want->type);
  FZ_CHECK(am_length(handle) == want->length, "length %lld, want %lld",
           (long long)am_length(handle), (long long)want->length);
  struct ArrowArray array;
  if (fz_status(am_export(handle, NULL, &array), "am_export") != AM_OK) return;
  int bits = fz_type_bits(want->type);
  const uint8_t *data = array.buffers[1];
  for (int64_t i = 0; i < want->length; i++) {
    int64_t at = array.offset + i;
    int valid = array.buffers[0] ? fz_bit(array.buffers[0], at) : 1;
    FZ_CHECK(valid == want->valid[i], "row %lld: valid %d, want %d", (long long)i, valid,
             want->valid[i]);
    if (!valid) continue;
    if (bits == 1)
      FZ_CHECK(element_bit(data, at) == want->values[i], "row %lld: bool differs", (long long)i);
    else
      FZ_CHECK(memcmp(data + at * (bits / 8), want->values + i * (bits / 8), (size_t)bits / 8) == 0,
               "row %lld: value differs", (long long)i);
  }
  array.release(&array);
}

/* An accepted struct exports as "+s" with one child per field, each child
 * checked as a primitive import is. */
static void check_struct(am_array *handle) {
  struct ArrowSchema schema;
  struct ArrowArray array;
  if (fz_status(am_export(handle, &schema, &array), "am_export") != AM_OK) return;
  FZ_CHECK(strcmp(schema.format, "+s") == 0, "struct export format '%s'", schema.format);
  FZ_CHECK(array.n_children == am_struct_num_fields(handle) && array.n_buffers == 1,
           "struct export: %lld children, %lld buffers", (long long)array.n_children,
           (long long)array.n_buffers);
  FZ_CHECK(array.length == am_length(handle), "struct export length %lld", (long long)array.length);
  array.release(&array);
  schema.release(&schema);
  for (int64_t i = 0; i < am_struct_num_fields(handle); i++) {
    am_array *child = NULL;
    if (fz_status(am_struct_field(handle, i, &child), "am_struct_field") != AM_OK) continue;
    FZ_CHECK(am_length(child) == am_length(handle), "field %lld: length %lld", (long long)i,
             (long long)am_length(child));
    if (am_array_type(child) == AM_STRUCT)
      check_struct(child);
    else
      fz_check_export(child);
    am_release(child);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz in = {data, size};
  uint8_t mode = fz_u8(&in);
  struct ArrowSchema schema;
  char format[16];
  make_schema(&in, &schema, mode & 1, format, sizeof format);
  /* Honest buffers wherever the format is one the library reads. */
  am_type type = honest_type(format);
  struct ArrowDeviceArray device_array;
  memset(&device_array, 0, sizeof device_array);
  struct ArrowArray *array = &device_array.array;
  expect want = {0};
  make_array(&in, array, type, (mode >> 2) & 1, &want, &schema);
  /* Whether the library must take it: nothing the header names as refused. */
  int acceptable = type != AM_TYPE_INVALID && type != AM_STRUCT && schema.n_children == 0 &&
                   !schema.dictionary && array->length >= 0 && array->offset >= 0 &&
                   array->offset <= ((int64_t)1 << 52) - array->length && array->null_count >= -1 &&
                   array->null_count <= array->length && array->n_buffers == 2 &&
                   array->n_children == 0 && !array->dictionary && array->buffers &&
                   (array->buffers[1] || array->length == 0) &&
                   (array->buffers[0] || array->null_count <= 0);
  int schema_released = (mode & 0x18) == 0x18; /* already-released structs */
  int array_released = (mode & 0x60) == 0x60;
  void (*schema_release)(struct ArrowSchema *) = schema.release;
  void (*array_release)(struct ArrowArray *) = array->release;
  if (schema_released) schema.release = NULL;
  if (array_released) array->release = NULL;
  am_array *out = NULL;
  int status;
  if (mode & 0x80) {
    static const ArrowDeviceType where[] = {ARROW_DEVICE_CPU, ARROW_DEVICE_CUDA_HOST,
                                            ARROW_DEVICE_CUDA, ARROW_DEVICE_METAL, 99};
    uint8_t d = fz_u8(&in);
    device_array.device_type = where[d % 5];
    if (d % 5 > 1) acceptable = 0;
    device_array.device_id = (d & 8) ? -1 : 0;
    /* The CPU never waits on an event; a METAL one is refused unread. */
    if (device_array.device_type == ARROW_DEVICE_METAL && (d & 16)) device_array.sync_event = &in;
    am_device *cpu = NULL;
    if (d & 32) FZ_CHECK(am_device_open("cpu", &cpu) == AM_OK, "cpu: %s", am_last_error());
    status = fz_status(am_import_device(&schema, &device_array, cpu, &out), "am_import_device");
  } else {
    status = fz_status(am_import(&schema, array, NULL, &out), "am_import");
  }
  if (array_released) {
    FZ_CHECK(status == AM_EINVAL, "a released array was imported (%d)", status);
    array->release = array_release; /* the harness still owns it */
    array->release(array);
  }
  FZ_CHECK(!array->release, "the moved-in array is not marked released");
  if (schema_released) {
    FZ_CHECK(status != AM_OK, "a released schema was imported");
    schema.release = schema_release;
  }
  if (status == AM_OK && am_array_type(out) == AM_STRUCT) {
    check_struct(out);
    am_release(out);
  } else if (status == AM_OK && is_view(type)) {
    FZ_CHECK(want.sound, "an unsound view array was imported");
    check_views(out, &want);
    am_array *part = NULL;
    int64_t at = fz_range(&in, 0, 20), count = fz_range(&in, 0, 20);
    if (fz_status(am_slice(out, at, count, &part), "am_slice") == AM_OK) {
      fz_check_export(part);
      am_release(part);
    }
    am_release(out);
  } else if (status == AM_OK) {
    check_round_trip(out, &want);
    am_array *part = NULL;
    int64_t at = fz_range(&in, -2, 70), count = fz_range(&in, -2, 70);
    if (fz_status(am_slice(out, at, count, &part), "am_slice") == AM_OK) {
      fz_check_export(part);
      am_release(part);
    }
    am_scalar sum;
    if (want.type != AM_TYPE_INVALID) fz_status(am_sum(out, &sum), "am_sum");
    am_release(out);
  } else {
    FZ_CHECK(!acceptable || array_released || schema_released, "a valid array refused (%d): %s",
             status, am_last_error());
    /* a view array of sound views and nothing else the header refuses */
    FZ_CHECK(!(is_view(type) && want.sound && !(mode & 0x80) && !array_released &&
               !schema_released && schema.n_children == 0 && !schema.dictionary),
             "a sound view array refused (%d): %s", status, am_last_error());
  }
  schema.release(&schema);
  free(want.valid);
  free(want.values);
  free(want.starts);
  free(want.sizes);
  fz_releases_check();
  return 0;
}
