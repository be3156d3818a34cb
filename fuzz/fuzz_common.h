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

/* ---- Honest arrays of the other types: strings, binary, views,
 * fixed_size_binary, decimals, temporal types (timestamps with a zone). */

/* Words the parsers, matchers and case functions care about. */
static const char *const fz_words[] = {"",
                                       "a",
                                       "A,b",
                                       "ab,",
                                       "hello world",
                                       "\xc3\x9f",
                                       "\xe1\xba\x9e",
                                       "K",
                                       "\xe2\x84\xaa",
                                       "\xc4\xb0",
                                       "  x\t",
                                       "\xe2\x80\xa8 ",
                                       "1",
                                       "-0",
                                       "1e3",
                                       "+1.5E-7",
                                       ".5",
                                       "nan",
                                       "INF",
                                       "-infinity",
                                       "0x7f",
                                       "true",
                                       "FALSE",
                                       "2020-01-01",
                                       "2021-03-14 02:30:00",
                                       "1970-01-01T00:00:00.123",
                                       "2020-01-01T12:00:00Z",
                                       "2015-11-01 01:30:00+01:00",
                                       "1/2/69 3:04 PM",
                                       "Jan  5 1999",
                                       "%_\\",
                                       "a\xff\x80\x62",
                                       "\xed\xa0\x80",
                                       "\xf4\x90\x80\x80",
                                       "0123456789abcdefghij"};
enum { FZ_WORD_COUNT = sizeof fz_words / sizeof fz_words[0] };

/* A value's bytes into `dst` (room for 48): raw from the input, drawn from
 * a small alphabet, or a word (perhaps cut short). Returns the count. */
static inline size_t fz_value(fz *in, int mode, uint8_t *dst) {
  static const char alphabet[] = "aAkKbB,. -:%_\\09eEnNiT\xc3\x9f\xe2\x80\xa8\xff";
  if (mode == 2) {
    const char *w = fz_words[fz_u8(in) % FZ_WORD_COUNT];
    size_t n = strlen(w);
    uint8_t cut = fz_u8(in);
    if (cut >= 224 && n) n = cut % n;
    memcpy(dst, w, n);
    return n;
  }
  uint8_t size = fz_u8(in);
  size_t n = size < 192 ? size % 13u : size % 49u; /* mostly inline in a view */
  for (size_t i = 0; i < n; i++) {
    uint8_t b = fz_u8(in);
    dst[i] = mode == 0 ? b : (uint8_t)alphabet[b % (sizeof alphabet - 1)];
  }
  return n;
}

/* A string or binary array (utf8, large_utf8, binary, large_binary, their
 * views) of `slots` values of the input's choosing: offsets or views and
 * data buffers exactly as long as they say. Bitmap, offset and null_count
 * as fz_make_array's. */
static inline void fz_make_string_array(fz *in, am_type type, int64_t max_length,
                                        struct ArrowArray *array) {
  uint8_t shape = fz_u8(in);
  int64_t length = fz_range(in, 0, max_length);
  int64_t offset = (shape & 3) == 3 ? fz_range(in, 0, 9) : 0;
  int bitmap_mode = (shape >> 2) & 3;
  int mode = ((shape >> 4) & 3) % 3;
  int64_t slots = offset + length;
  const int views = type == AM_STRING_VIEW || type == AM_BINARY_VIEW;
  const int wide = type == AM_LARGE_UTF8 || type == AM_LARGE_BINARY;
  uint8_t *bytes = malloc((size_t)slots * 48 + 1);
  int64_t *ends = malloc(sizeof(int64_t) * (size_t)(slots + 1));
  int64_t used = 0;
  ends[0] = 0;
  for (int64_t i = 0; i < slots; i++) {
    used += (int64_t)fz_value(in, mode, bytes + used);
    ends[i + 1] = used;
  }
  const int count = views ? (int)(fz_u8(in) % 3) : 0; /* variadic buffers */
  fz_array_private *p = fz_array_init(array, views ? 3 + count : 3, "a string array");
  if (!views) {
    const int64_t start = (shape & 64) ? fz_range(in, 0, 5) : 0; /* first offset past 0 */
    const size_t width = wide ? 8 : 4;
    uint8_t *offsets = malloc((size_t)(slots + 1) * width);
    for (int64_t i = 0; i <= slots; i++) {
      int64_t at = start + ends[i];
      int32_t narrow = (int32_t)at;
      memcpy(offsets + (size_t)i * width, wide ? (const void *)&at : (const void *)&narrow, width);
    }
    p->raw[1] = offsets;
    p->buffers[1] = offsets;
    if (start + used > 0) {
      uint8_t *data = malloc((size_t)(start + used));
      memset(data, '#', (size_t)start);
      memcpy(data + start, bytes, (size_t)used);
      p->raw[2] = data;
      p->buffers[2] = data;
    }
  } else {
    /* long values go to one of `count` buffers (inline if there is none),
     * after a gap of the input's choosing */
    uint8_t *data[2] = {NULL, NULL};
    int64_t *sizes = calloc(3, sizeof(int64_t));
    for (int k = 0; k < count; k++) data[k] = malloc((size_t)used * 2 + 1);
    uint8_t *v = slots ? calloc((size_t)slots, 16) : NULL;
    for (int64_t i = 0; i < slots; i++) {
      int32_t n = (int32_t)(ends[i + 1] - ends[i]);
      const uint8_t *value = bytes + ends[i];
      uint8_t *view = v + i * 16;
      memcpy(view, &n, 4);
      if (n <= 12 || !count) {
        if (n > 12) n = 12, memcpy(view, &n, 4); /* no buffer: cut to what fits inline */
        memcpy(view + 4, value, (size_t)n);
        continue;
      }
      int32_t k = (int32_t)(fz_u8(in) % count);
      sizes[k] += fz_u8(in) % 3; /* a gap */
      int32_t at = (int32_t)sizes[k];
      memcpy(data[k] + at, value, (size_t)n);
      sizes[k] += n;
      memcpy(view + 4, value, 4);
      memcpy(view + 8, &k, 4);
      memcpy(view + 12, &at, 4);
    }
    p->raw[1] = v;
    p->buffers[1] = v;
    for (int k = 0; k < count; k++) {
      p->raw[2 + k] = data[k];
      p->buffers[2 + k] = data[k];
    }
    p->raw[2 + count] = sizes;
    p->buffers[2 + count] = sizes;
  }
  uint8_t *bitmap = NULL;
  if (slots && bitmap_mode) {
    size_t size = fz_buffer_bytes(slots, 1);
    bitmap = malloc(size);
    if (bitmap_mode == 1)
      fz_bytes(in, bitmap, size);
    else
      memset(bitmap, bitmap_mode == 2 ? 0xff : 0, size);
    p->raw[0] = bitmap;
    p->buffers[0] = bitmap;
  }
  free(bytes);
  free(ends);
  array->length = length;
  array->offset = offset;
  array->null_count = (shape & 128) ? -1 : fz_count_nulls(bitmap, offset, length);
}

/* Zones: IANA ones with gaps, overlaps, negative and 30-minute DST, fixed
 * offsets, UTC's spellings, and names that are no zone. */
static const char *const fz_zones[] = {"",
                                       "UTC",
                                       "Etc/UTC",
                                       "+00:00",
                                       "America/New_York",
                                       "Europe/Dublin",
                                       "Australia/Lord_Howe",
                                       "Asia/Kolkata",
                                       "Pacific/Apia",
                                       "America/Sao_Paulo",
                                       "+05:30",
                                       "-0930",
                                       "+24:00",
                                       "Nowhere/Bogus",
                                       "../zoneinfo/UTC",
                                       "utc"};
enum { FZ_ZONE_COUNT = sizeof fz_zones / sizeof fz_zones[0] };

/* A zone of the input's choosing; NULL at times. */
static inline const char *fz_zone(fz *in) {
  uint8_t z = fz_u8(in);
  return z == 255 ? NULL : fz_zones[z % FZ_ZONE_COUNT];
}

/* The types fz_import_any makes: every one am_import takes but structs. */
static const am_type fz_all_types[] = {
    AM_BOOL,         AM_INT8,         AM_INT16,        AM_INT32,       AM_INT64,
    AM_UINT8,        AM_UINT16,       AM_UINT32,       AM_UINT64,      AM_FLOAT32,
    AM_FLOAT64,      AM_FLOAT16,      AM_DECIMAL128,   AM_DECIMAL256,  AM_TIMESTAMP_S,
    AM_TIMESTAMP_MS, AM_TIMESTAMP_US, AM_TIMESTAMP_NS, AM_DATE32,      AM_DATE64,
    AM_TIME32_S,     AM_TIME32_MS,    AM_TIME64_US,    AM_TIME64_NS,   AM_DURATION_S,
    AM_DURATION_MS,  AM_DURATION_US,  AM_DURATION_NS,  AM_UTF8,        AM_LARGE_UTF8,
    AM_BINARY,       AM_LARGE_BINARY, AM_STRING_VIEW,  AM_BINARY_VIEW, AM_FIXED_SIZE_BINARY};
enum { FZ_ALL_TYPE_COUNT = sizeof fz_all_types / sizeof fz_all_types[0] };

/* Instants near the clocks' changes (2021-03-14 07:00 and 2021-11-07 06:00
 * UTC in New York, 2021-04-04 Lord Howe, 2011-12-29 Apia) and the epoch,
 * in seconds. */
static const int64_t fz_instants[] = {1615705200, 1636264800, 1617463800,
                                      1325239200, 0,          -2208988800};

static inline int64_t fz_units_per_second(am_type type) {
  switch (type) {
    case AM_TIMESTAMP_MS:
    case AM_DATE64:
    case AM_TIME32_MS:
    case AM_DURATION_MS:
      return 1000;
    case AM_TIMESTAMP_US:
    case AM_TIME64_US:
    case AM_DURATION_US:
      return 1000000;
    case AM_TIMESTAMP_NS:
    case AM_TIME64_NS:
    case AM_DURATION_NS:
      return 1000000000;
    default:
      return 1;
  }
}

/* Imports an honest array of any type onto the CPU (`type` AM_TYPE_INVALID:
 * of the input's choosing); NULL when the library refuses it (then with a
 * message). Timestamps take a zone, decimals a precision and scale, and
 * temporal values are at times near the clocks' changes. */
static inline am_array *fz_import(fz *in, am_type type, int64_t max_length) {
  if (type == AM_TYPE_INVALID) type = fz_all_types[fz_u8(in) % FZ_ALL_TYPE_COUNT];
  char format[64];
  snprintf(format, sizeof format, "%s", am_type_format(type));
  uint8_t how = 0;
  int width = 0;
  if (type >= AM_TIMESTAMP_S && type <= AM_TIMESTAMP_NS) {
    const char *zone = fz_zone(in);
    snprintf(format, sizeof format, "%s%s", am_type_format(type), zone ? zone : "");
  } else if (type == AM_DECIMAL128 || type == AM_DECIMAL256) {
    const int wide = type == AM_DECIMAL256;
    int precision = (int)fz_range(in, 1, wide ? 76 : 38);
    int scale = (int)fz_range(in, -3, precision);
    snprintf(format, sizeof format, "d:%d,%d%s", precision, scale, wide ? ",256" : "");
  } else if (type == AM_FIXED_SIZE_BINARY) {
    width = (int)fz_range(in, 0, 9);
    snprintf(format, sizeof format, "w:%d", width);
  }
  struct ArrowSchema schema;
  fz_schema_init(&schema, format, "a schema");
  struct ArrowArray array;
  if ((type >= AM_UTF8 && type <= AM_LARGE_BINARY) || type == AM_STRING_VIEW ||
      type == AM_BINARY_VIEW) {
    fz_make_string_array(in, type, max_length, &array);
  } else {
    /* fixed_size_binary: as many bytes a slot as its width (0: none) */
    fz_make_array(in, type == AM_FIXED_SIZE_BINARY ? AM_UINT8 : type, max_length, &array);
    if (type == AM_FIXED_SIZE_BINARY) {
      fz_array_private *p = array.private_data;
      const int64_t slots = array.offset + array.length;
      free(p->raw[1]);
      p->raw[1] = NULL;
      p->buffers[1] = NULL;
      if (slots && width) {
        p->raw[1] = malloc((size_t)slots * (size_t)width);
        fz_fill(in, p->raw[1], (size_t)slots * (size_t)width, 1);
        p->buffers[1] = p->raw[1];
      }
    }
    if (type >= AM_DECIMAL128 && type <= AM_DURATION_NS) how = fz_u8(in); /* see below */
  }
  /* decimals: small values at times, sign-extended; temporal values near
   * an instant of fz_instants, in steps of the input's choosing */
  fz_array_private *p = array.private_data;
  uint8_t *data = (uint8_t *)p->buffers[1];
  const int64_t slots = array.offset + array.length;
  if (data && (how & 3) == 1 && (type == AM_DECIMAL128 || type == AM_DECIMAL256)) {
    const size_t size = type == AM_DECIMAL128 ? 16 : 32;
    for (int64_t i = 0; i < slots; i++) {
      int64_t v = (int64_t)(int16_t)fz_u16(in);
      memset(data + (size_t)i * size, v < 0 ? 0xff : 0, size);
      memcpy(data + (size_t)i * size, &v, 8);
    }
  } else if (data && (how & 3) == 1 && type >= AM_TIMESTAMP_S && type <= AM_DURATION_NS) {
    static const int64_t steps[] = {1, 60, 900, 1800, 3600, 86400};
    const int64_t per = fz_units_per_second(type);
    const int64_t base = fz_instants[(how >> 2) % 6] * per, step = steps[(how >> 5) % 6] * per;
    const int narrow = fz_type_bits(type) == 32;
    for (int64_t i = 0; i < slots; i++) {
      int64_t v = base + ((int64_t)(int8_t)fz_u8(in)) * step + (int64_t)(fz_u8(in) % 3) - 1;
      if (type == AM_DATE32) v = v / 86400;
      if (narrow) {
        int32_t w = (int32_t)v;
        memcpy(data + (size_t)i * 4, &w, 4);
      } else {
        memcpy(data + (size_t)i * 8, &v, 8);
      }
    }
  }
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
    /* fixed_size_binary: its width a slot (0: no bytes) */
    const int bits =
        type == AM_FIXED_SIZE_BINARY ? 8 * am_array_byte_width(handle) : fz_type_bits(type);
    size_t size = bits ? fz_buffer_bytes(slots, bits) : 0;
    FZ_CHECK(array.buffers[1] || !size, "export of %lld rows without data",
             (long long)array.length);
    const uint8_t *data = array.buffers[1];
    for (size_t i = (size_t)array.offset * (size_t)bits / 8; i < size; i++) sink ^= data[i];
  }
  int64_t nulls = fz_count_nulls(array.buffers[0], array.offset, array.length);
  FZ_CHECK(array.null_count == nulls, "export null_count %lld, bitmap %lld",
           (long long)array.null_count, (long long)nulls);
  FZ_CHECK(am_null_count(handle) == nulls, "am_null_count %lld, bitmap %lld",
           (long long)am_null_count(handle), (long long)nulls);
  (void)sink;
  if (array.dictionary) { /* a dictionary array's values, checked as any array */
    am_array *values = NULL;
    FZ_CHECK(am_dictionary(handle, &values) == AM_OK, "am_dictionary: %s", am_last_error());
    FZ_CHECK(am_length(values) == array.dictionary->length, "dictionary of %lld, export %lld",
             (long long)am_length(values), (long long)array.dictionary->length);
    fz_check_export(values);
    am_release(values);
  }
  array.release(&array);
  FZ_CHECK(!array.release, "the exported array's release left release set");
  schema.release(&schema);
  FZ_CHECK(!schema.release, "the exported schema's release left release set");
}

#endif
