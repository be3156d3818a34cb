/* What the libFuzzer targets share: a reader of the fuzzer's bytes,
 * Arrow structs whose release callbacks are counted (each must run exactly
 * once), honest primitive arrays (every buffer exactly as long as its
 * declared type, offset and length need, so that ASan reports any read past
 * what a producer promised), and checks of what the library hands back.
 *
 * A harness aborts (which libFuzzer reports as a crash) when the library
 * breaks a promise of include/arrowmetal.h: a release callback run twice or
 * never, an error status without a message, an exported array whose
 * null_count disagrees with its bitmap. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrowmetal.h"

/* ---- The fuzzer's bytes, read front to back; zeros once they run out. */
typedef struct fz {
  const uint8_t *p;
  size_t n;
} fz;

static inline void fz_bytes(fz *in, void *dst, size_t n) {
  size_t got = n < in->n ? n : in->n;
  if (got) memcpy(dst, in->p, got);
  if (got < n) memset((uint8_t *)dst + got, 0, n - got);
  in->p += got;
  in->n -= got;
}
static inline uint8_t fz_u8(fz *in) {
  uint8_t v;
  fz_bytes(in, &v, 1);
  return v;
}
static inline uint16_t fz_u16(fz *in) {
  uint16_t v;
  fz_bytes(in, &v, 2);
  return v;
}
static inline uint32_t fz_u32(fz *in) {
  uint32_t v;
  fz_bytes(in, &v, 4);
  return v;
}
static inline uint64_t fz_u64(fz *in) {
  uint64_t v;
  fz_bytes(in, &v, 8);
  return v;
}
/* A value in [lo, hi] (hi - lo < 2^32). */
static inline int64_t fz_range(fz *in, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)(hi - lo) + 1;
  uint64_t v = span <= 256 ? fz_u8(in) : span <= 65536 ? fz_u16(in) : fz_u32(in);
  return lo + (int64_t)(v % span);
}

#define FZ_CHECK(cond, ...)                                                            \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fprintf(stderr, "fuzz: check failed at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                    \
      fputc('\n', stderr);                                                             \
      abort();                                                                         \
    }                                                                                  \
  } while (0)

/* Every failed call must say why (the header's first convention). */
static inline int fz_status(int status, const char *call) {
  if (status != AM_OK) {
    const char *message = am_last_error();
    FZ_CHECK(message && *message, "%s returned %d with an empty am_last_error()", call, status);
  }
  return status;
}

/* ---- Release counting. Each struct made here gets a slot; its release
 * callback counts, and fz_releases_check() aborts unless every slot counted
 * exactly once. The slot is reached through private_data, never through the
 * struct's address: the library moves array structs into its own memory. */
enum { FZ_MAX_TRACKED = 4096 };
static int fz_release_count[FZ_MAX_TRACKED];
static const char *fz_release_what[FZ_MAX_TRACKED];
static int fz_tracked;

static inline int fz_track(const char *what) {
  FZ_CHECK(fz_tracked < FZ_MAX_TRACKED, "too many structs");
  fz_release_what[fz_tracked] = what;
  fz_release_count[fz_tracked] = 0;
  return fz_tracked++;
}
static inline void fz_count_release(int slot) {
  FZ_CHECK(slot >= 0 && slot < fz_tracked, "release of an unknown struct (slot %d)", slot);
  fz_release_count[slot]++;
  FZ_CHECK(fz_release_count[slot] == 1, "%s (slot %d) released %d times", fz_release_what[slot],
           slot, fz_release_count[slot]);
}
/* After the input: every struct released exactly once. */
static inline void fz_releases_check(void) {
  for (int i = 0; i < fz_tracked; i++)
    FZ_CHECK(fz_release_count[i] == 1, "%s (slot %d) released %d times", fz_release_what[i], i,
             fz_release_count[i]);
  fz_tracked = 0;
}

/* The harness's part of an ArrowArray: the memory its release frees. */
typedef struct fz_array_private {
  int slot;
  int n_buffers; /* entries of `buffers` (>= the declared n_buffers) */
  void **raw;    /* the allocation behind each buffer (a buffer may start 1 byte in) */
  const void **buffers;
  int n_children; /* entries of `children` */
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
} fz_array_private;

/* Releases children and dictionary (the parent owns them, as the C Data
 * Interface says), then frees every buffer, so that a read after the
 * release is a use-after-free that ASan reports. */
static void fz_array_release(struct ArrowArray *array) {
  FZ_CHECK(array->release == fz_array_release, "release called on a released array");
  fz_array_private *p = (fz_array_private *)array->private_data;
  fz_count_release(p->slot);
  for (int i = 0; i < p->n_children; i++) {
    struct ArrowArray *child = p->children[i];
    if (child->release) child->release(child);
    FZ_CHECK(!child->release, "a child's release left release set");
    free(child);
  }
  if (p->dictionary) {
    if (p->dictionary->release) p->dictionary->release(p->dictionary);
    free(p->dictionary);
  }
  for (int i = 0; i < p->n_buffers; i++) free(p->raw[i]);
  free(p->raw);
  free(p->buffers);
  free(p->children);
  free(p);
  array->release = NULL;
  array->private_data = NULL;
}

/* An array struct with `n_buffers` buffer slots (all NULL) and no children. */
static inline fz_array_private *fz_array_init(struct ArrowArray *array, int n_buffers,
                                              const char *what) {
  fz_array_private *p = calloc(1, sizeof *p);
  p->slot = fz_track(what);
  p->n_buffers = n_buffers;
  p->raw = calloc((size_t)n_buffers + 1, sizeof *p->raw);
  p->buffers = calloc((size_t)n_buffers + 1, sizeof *p->buffers);
  memset(array, 0, sizeof *array);
  array->n_buffers = n_buffers;
  array->buffers = p->buffers;
  array->release = fz_array_release;
  array->private_data = p;
  return p;
}

/* Buffer `i` of exactly `size` bytes from the input, starting `shift` (0 or
 * 1) bytes into its allocation so that it may be misaligned. size 0: NULL. */
static inline void *fz_buffer(fz *in, fz_array_private *p, int i, size_t size, int shift) {
  if (size == 0) return NULL;
  uint8_t *raw = malloc(size + (size_t)shift);
  fz_bytes(in, raw + shift, size);
  p->raw[i] = raw;
  p->buffers[i] = raw + shift;
  return raw + shift;
}

typedef struct fz_schema_private {
  int slot;
  int n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  char *format;
} fz_schema_private;

static void fz_schema_release(struct ArrowSchema *schema) {
  FZ_CHECK(schema->release == fz_schema_release, "release called on a released schema");
  fz_schema_private *p = (fz_schema_private *)schema->private_data;
  fz_count_release(p->slot);
  for (int i = 0; i < p->n_children; i++) {
    if (p->children[i]->release) p->children[i]->release(p->children[i]);
    free(p->children[i]);
  }
  if (p->dictionary) {
    if (p->dictionary->release) p->dictionary->release(p->dictionary);
    free(p->dictionary);
  }
  free(p->children);
  free(p->format);
  free(p);
  schema->release = NULL;
  schema->private_data = NULL;
}

static inline fz_schema_private *fz_schema_init(struct ArrowSchema *schema, const char *format,
                                                const char *what) {
  fz_schema_private *p = calloc(1, sizeof *p);
  p->slot = fz_track(what);
  p->format = strdup(format);
  memset(schema, 0, sizeof *schema);
  schema->format = p->format;
  schema->name = "";
  schema->flags = ARROW_FLAG_NULLABLE;
  schema->release = fz_schema_release;
  schema->private_data = p;
  return schema->private_data;
}

/* ---- Types. */
static const am_type fz_types[] = {AM_BOOL,   AM_INT8,    AM_INT16,   AM_INT32,
                                   AM_INT64,  AM_UINT8,   AM_UINT16,  AM_UINT32,
                                   AM_UINT64, AM_FLOAT32, AM_FLOAT64, AM_FLOAT16};
enum { FZ_TYPE_COUNT = sizeof fz_types / sizeof fz_types[0] };

static inline int fz_type_bits(am_type type) {
  switch (type) {
    case AM_BOOL:
      return 1;
    case AM_INT8:
    case AM_UINT8:
      return 8;
    case AM_INT16:
    case AM_UINT16:
    case AM_FLOAT16:
      return 16;
    case AM_INT32:
    case AM_UINT32:
    case AM_FLOAT32:
    case AM_DATE32:
    case AM_TIME32_S:
    case AM_TIME32_MS:
      return 32;
    case AM_DECIMAL128:
      return 128;
    case AM_DECIMAL256:
      return 256;
    default:
      return 64;
  }
}

/* Bytes of a buffer holding `slots` elements of `bits` bits. */
static inline size_t fz_buffer_bytes(int64_t slots, int bits) {
  return bits == 1 ? (size_t)((slots + 7) / 8) : (size_t)slots * (size_t)(bits / 8);
}

static inline int fz_bit(const void *bitmap, int64_t i) {
  return (((const uint8_t *)bitmap)[i >> 3] >> (i & 7)) & 1;
}

static inline int64_t fz_count_nulls(const void *bitmap, int64_t offset, int64_t length) {
  if (!bitmap) return 0;
  int64_t nulls = 0;
  for (int64_t i = 0; i < length; i++) nulls += !fz_bit(bitmap, offset + i);
  return nulls;
}

/* Fills `size` bytes: straight from the input, or (for long arrays that the
 * input could not fill) a short pattern from it repeated. */
static inline void fz_fill(fz *in, uint8_t *dst, size_t size, int repeat) {
  if (!repeat || size <= 16) {
    fz_bytes(in, dst, size);
    return;
  }
  uint8_t pattern[16];
  fz_bytes(in, pattern, sizeof pattern);
  for (size_t i = 0; i < size; i++) dst[i] = pattern[i % sizeof pattern];
}

/* An honest primitive array of `type`: offset + length slots in each buffer,
 * a bitmap (or none), null_count true or -1 (unknown). The shape comes from
 * the input: `max_length` bounds the length. */
static inline void fz_make_array(fz *in, am_type type, int64_t max_length,
                                 struct ArrowArray *array) {
  uint8_t shape = fz_u8(in);
  int64_t length = fz_range(in, 0, max_length);
  int64_t offset = (shape & 3) == 3 ? fz_range(in, 0, 70) : 0;
  int bitmap_mode = (shape >> 2) & 3; /* 0 none, 1 from input, 2 all valid, 3 all null */
  int unknown_count = (shape >> 4) & 1;
  int shift = (shape >> 5) & 1; /* a misaligned data buffer, copied at import */
  int repeat = (shape >> 6) & 1;
  fz_array_private *p = fz_array_init(array, 2, "an array");
  int bits = fz_type_bits(type);
  int64_t slots = offset + length;
  if (length == 0 && (shape >> 7)) slots = 0; /* an empty array may have NULL buffers */
  uint8_t *data = NULL;
  if (slots) {
    size_t size = fz_buffer_bytes(slots, bits);
    data = malloc(size + (size_t)shift);
    fz_fill(in, data + shift, size, repeat);
    p->raw[1] = data;
    p->buffers[1] = data + shift;
  }
  uint8_t *bitmap = NULL;
  if (slots && bitmap_mode) {
    size_t size = fz_buffer_bytes(slots, 1);
    bitmap = malloc(size);
    if (bitmap_mode == 1)
      fz_fill(in, bitmap, size, repeat);
    else
      memset(bitmap, bitmap_mode == 2 ? 0xff : 0, size);
    p->raw[0] = bitmap;
    p->buffers[0] = bitmap;
  }
  array->length = length;
  array->offset = slots ? offset : (shape & 3) == 3 ? offset : 0;
  array->null_count = unknown_count ? -1 : fz_count_nulls(bitmap, array->offset, length);
}

/* Imports an honest array of `type` onto the CPU; NULL when the library
 * refuses it (then with a message). */
static inline am_array *fz_import(fz *in, am_type type, int64_t max_length) {
  struct ArrowSchema schema;
  fz_schema_init(&schema, am_type_format(type), "a schema");
  struct ArrowArray array;
  fz_make_array(in, type, max_length, &array);
  am_array *out = NULL;
  int status = fz_status(am_import(&schema, &array, NULL, &out), "am_import");
  FZ_CHECK(!array.release, "am_import left the moved-in struct unreleased");
  schema.release(&schema);
  return status == AM_OK ? out : NULL;
}

/* Exports `array` and reads every byte its buffers promise (ASan checks the
 * sizes), checking that null_count agrees with the bitmap. Releases the
 * export. */
static inline void fz_check_export(const am_array *handle) {
  struct ArrowSchema schema;
  struct ArrowArray array;
  int status = fz_status(am_export(handle, &schema, &array), "am_export");
  if (status != AM_OK) return;
  am_type type = am_array_type(handle);
  FZ_CHECK(strcmp(schema.format, am_format(handle)) == 0 || schema.dictionary,
           "export format '%s', handle '%s'", schema.format, am_format(handle));
  FZ_CHECK(array.length == am_length(handle), "export length %lld, handle %lld",
           (long long)array.length, (long long)am_length(handle));
  /* strings and binary (a cast's results): offsets and bytes, three buffers;
   * views: validity, views, the data buffers and their sizes */
  const int text =
      type == AM_UTF8 || type == AM_LARGE_UTF8 || type == AM_BINARY || type == AM_LARGE_BINARY;
  const int views = type == AM_STRING_VIEW || type == AM_BINARY_VIEW;
  FZ_CHECK((views ? array.n_buffers >= 3 : array.n_buffers == (text ? 3 : 2)) && array.offset >= 0,
           "export has %lld buffers, offset %lld", (long long)array.n_buffers,
           (long long)array.offset);
  int64_t slots = array.offset + array.length;
  volatile uint8_t sink = 0;
  if (text && array.length > 0) {
    const int wide = type == AM_LARGE_UTF8 || type == AM_LARGE_BINARY;
    int64_t first = 0, last = 0;
    for (int64_t i = array.offset; i <= slots; i++) {
      int64_t at =
          wide ? ((const int64_t *)array.buffers[1])[i] : ((const int32_t *)array.buffers[1])[i];
      FZ_CHECK(i == array.offset || at >= last, "export offset %lld falls to %lld", (long long)i,
               (long long)at);
      if (i == array.offset) first = at;
      last = at;
    }
    for (int64_t i = first; i < last; i++) sink ^= ((const uint8_t *)array.buffers[2])[i];
  } else if (views && array.length > 0) {
    /* every valid slot's view within its data buffer, its bytes read */
    const int64_t count = array.n_buffers - 3;
    const int64_t *sizes = array.buffers[array.n_buffers - 1];
    for (int64_t i = array.offset; i < slots; i++) {
      if (array.buffers[0] && !fz_bit(array.buffers[0], i)) continue;
      const uint8_t *v = (const uint8_t *)array.buffers[1] + i * 16;
      int32_t n, buffer, at;
      memcpy(&n, v, 4);
      memcpy(&buffer, v + 8, 4);
      memcpy(&at, v + 12, 4);
      FZ_CHECK(n >= 0, "export view %lld: length %d", (long long)i, n);
      if (n <= 12) continue;
      FZ_CHECK(buffer >= 0 && buffer < count && at >= 0 && (int64_t)at + n <= sizes[buffer],
               "export view %lld: %d bytes at %d of buffer %d (of %lld)", (long long)i, n, at,
               buffer, (long long)count);
      if (buffer < 0 || buffer >= count || at < 0 || (int64_t)at + n > sizes[buffer]) continue;
      const uint8_t *bytes = (const uint8_t *)array.buffers[2 + buffer] + at;
      for (int32_t k = 0; k < n; k++) sink ^= bytes[k];
      FZ_CHECK(memcmp(bytes, v + 4, 4) == 0, "export view %lld: prefix differs", (long long)i);
    }
  } else if (array.length > 0) {
    FZ_CHECK(array.buffers[1], "export of %lld rows without data", (long long)array.length);
    size_t size = fz_buffer_bytes(slots, fz_type_bits(type));
    const uint8_t *data = array.buffers[1];
    for (size_t i = (size_t)array.offset * (size_t)fz_type_bits(type) / 8; i < size; i++)
      sink ^= data[i];
  }
  int64_t nulls = fz_count_nulls(array.buffers[0], array.offset, array.length);
  FZ_CHECK(array.null_count == nulls, "export null_count %lld, bitmap %lld",
           (long long)array.null_count, (long long)nulls);
  FZ_CHECK(am_null_count(handle) == nulls, "am_null_count %lld, bitmap %lld",
           (long long)am_null_count(handle), (long long)nulls);
  (void)sink;
  array.release(&array);
  FZ_CHECK(!array.release, "the exported array's release left release set");
  schema.release(&schema);
  FZ_CHECK(!schema.release, "the exported schema's release left release set");
}

#endif
