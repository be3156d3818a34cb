/* The array handle behind the public am_array. */
#ifndef AM_CORE_ARRAY_H
#define AM_CORE_ARRAY_H

#include <stdatomic.h>
#include <stdint.h>

#include "arrowmetal.h"
#include "buffer.h"
#include "error.h"

/* A GPU result whose length or null count is not known until its
 * submission finishes (a filter inside a batch). The backend embeds this in
 * its own record; the handle calls destroy when it is freed unresolved. */
typedef struct am_pending {
  void (*destroy)(struct am_pending *pending);
} am_pending;

/* The variadic data buffers of a string_view / binary_view array
 * (core/string_view.h): `count` addresses with their sizes in bytes (the C
 * Data Interface's last buffer, int64) and an owner reference each (owners
 * may repeat: an import's are all its keeper). Counted: handles that share
 * the buffers (shares, slices, the results of take and filter) share one. */
typedef struct am_variadic {
  atomic_long refs;
  int64_t count;
  const uint8_t **data;
  int64_t *sizes;
  am_buffer **owners;
} am_variadic;

/* Room for `count` buffers (addresses NULL, sizes 0, no owners), refs 1;
 * NULL when out of memory. */
am_variadic *am_variadic_alloc(int64_t count);
static inline am_variadic *am_variadic_retain(am_variadic *variadic) {
  if (variadic) atomic_fetch_add_explicit(&variadic->refs, 1, memory_order_relaxed);
  return variadic;
}
/* Drops a reference; the last releases the owners. NULL is allowed. */
void am_variadic_release(am_variadic *variadic);

struct am_array {
  am_device *device;
  am_type type;
  int64_t length;
  int64_t offset;          /* slot 0 is element `offset` of data (bit `offset` of a
                              bitmap) and bit `offset` of validity */
  atomic_llong null_count; /* -1 until counted */
  const uint8_t *validity; /* NULL: every slot valid */
  const void *data;        /* host or device address, per `device` */
  am_buffer *validity_buf; /* owners; either may be NULL, both may be one keeper */
  am_buffer *data_buf;
  /* Non-NULL while a GPU result's length is not known. Resolution writes the
   * length, then clears this with a release store; readers load it with
   * acquire (am_array_pending), so a NULL they see comes with the length. */
  _Atomic(struct am_pending *) pending;
  /* A dictionary-encoded array (dictionary_encode's result): `type` and the
   * buffers are the indices', and this is the dictionary, owned by the
   * handle (freed with it, shared by am_array_share). NULL otherwise; other
   * kernels read the indices alone. */
  am_array *dictionary;
  /* Arrow's ARROW_FLAG_DICTIONARY_ORDERED of a dictionary array (kept
   * through import, the calls that keep the dictionary, and export). */
  int dictionary_ordered;
  /* A struct array (type AM_STRUCT, core/struct_array.c): its fields, owned
   * by the handle. Its own buffers are NULL and its offset 0 (the struct's
   * offset is in its children). NULL for every other type. */
  struct am_struct_fields *fields;
  /* A timestamp's time zone (interned by am_intern: never freed), NULL when
   * it has none; carried by shares, moves and the temporal functions. */
  const char *timezone;
  /* Strings and binary (core/string_array.h). A utf8/binary array's `data`
   * and `data_buf` are its offsets (int32, int64 for the large types:
   * offset + length + 1 of them from `data`), and these its bytes: the
   * data buffer, `bytes_size` bytes from `bytes` known to be readable
   * (the last offset). A fixed_size_binary's `data` is its bytes,
   * `byte_width` a slot. Both buffers are am_buffers on the array's
   * device, so a GPU can hold the same two later. NULL / 0 for every
   * other type. */
  const uint8_t *bytes;
  am_buffer *bytes_buf;
  int64_t bytes_size;
  int32_t byte_width;
  /* A decimal's precision and scale (core/decimal.h): parameters of the
   * array, carried by shares and the decimal calls. 0 for other types. */
  int32_t precision, scale;
  /* A string_view / binary_view array (core/string_view.h): `data` and
   * `data_buf` are its 16-byte views, and this its variadic data buffers
   * (NULL: none). NULL for every other type. */
  am_variadic *variadic;
};

/* The fields of a struct handle: `count` child handles of the struct's
 * length and device, with their names (owned copies) and nullability. */
typedef struct am_struct_fields {
  int64_t count;
  am_array **children;
  char **names;
  unsigned char *nullable;
} am_struct_fields;

/* A struct handle over `fields` (moved in, freed on failure) of `length`
 * rows on `device`. NULL when out of memory. */
am_array *am_struct_array_make(am_device *device, int64_t length, am_struct_fields *fields);
/* Room for `count` fields (every child NULL, every name NULL); NULL when out
 * of memory. */
am_struct_fields *am_struct_fields_alloc(int64_t count);
/* New references to every child, copies of the names; NULL when out of
 * memory. */
am_struct_fields *am_struct_fields_share(const am_struct_fields *fields);
/* Frees the fields, their children and names. NULL is allowed. */
void am_struct_fields_free(am_struct_fields *fields);

/* Takes over the references `validity_buf` and `data_buf` (on failure too).
 * Returns NULL when out of memory. */
am_array *am_array_make(am_device *device, am_type type, int64_t length, int64_t offset,
                        int64_t null_count, am_buffer *validity_buf, const uint8_t *validity,
                        am_buffer *data_buf, const void *data);

/* A new handle over the same buffers (new references). NULL when out of
 * memory. */
am_array *am_array_share(const am_array *array);

/* Allocates a host array of `length` slots with offset 0, a data buffer and,
 * when with_validity, a validity bitmap (uninitialised; null_count -1). */
int am_array_alloc_host(am_err *err, am_device *device, am_type type, int64_t length,
                        int with_validity, am_array **out);

/* A host array over the buffers of `array` (validated, of host-addressable
 * memory), which is moved in: its release callback runs exactly once, when
 * the last reference to the buffers goes -- at once when this fails.
 * `device` is the array's device (the CPU's). A null_count of -1 stays -1
 * (the caller counts it). */
int am_array_adopt(am_err *err, am_device *device, am_type type, struct ArrowArray *array,
                   am_array **out);

/* Fills `out` as a standard ArrowArray over the array's own buffers (new
 * references, released by out->release). The array must be final, its
 * buffers addressable where the consumer reads them, and its null count
 * known (`null_count`, which the caller has counted). */
int am_array_export(am_err *err, const am_array *array, int64_t null_count, struct ArrowArray *out);

void am_array_free(am_array *array);

/* Moves `dictionary` (an export of the array's dictionary) into `out`, an
 * export am_array_export made: out->dictionary points to it, and out's
 * release callback releases it, exactly once. */
int am_array_export_attach_dictionary(am_err *err, struct ArrowArray *out,
                                      struct ArrowArray *dictionary);

static inline struct am_pending *am_array_pending(const am_array *array) {
  return atomic_load_explicit(&((am_array *)array)->pending, memory_order_acquire);
}

#endif
