/* Strings and binary on a GPU (abi/string_device.h): a string array is its
 * offsets, its data bytes and its validity, each of which is an array of a
 * fixed-width type that every backend already moves. So the moves here are
 * made of the backends' own uploads and downloads of those three views, and
 * no backend learns a string layout for its memory.
 *
 * The views keep the slot offset modulo 8 (the backends' rule), so the
 * offsets and the validity bitmap of a moved array share one offset, as a
 * string array's must. The data bytes move whole from byte 0 to the last
 * offset: the offsets stay as they are, with no rewrite. */
#include "string_device.h"

#include <stdlib.h>
#include <string.h>

#include "core/string_array.h"
#include "route.h"
#include "string_calls.h"

am_device *am_string_home(const am_array *const *arrays, int64_t count) {
  for (int64_t i = 0; i < count; i++)
    if (arrays[i] && !(arrays[i]->device->backend->memory.caps & AM_MEMORY_HOST))
      return arrays[i]->device;
  return NULL;
}

/* A view of one part of `s` as an array of `type` on s's device: `length`
 * slots from `offset` of `data`, owned through `buf` (a new reference). */
static int part(am_err *err, const am_array *s, am_type type, int64_t length, int64_t offset,
                am_buffer *buf, const void *data, am_array **out) {
  *out = am_array_make(s->device, type, length, offset, 0, NULL, NULL, am_buffer_retain(buf), data);
  return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
}

/* The three parts of `s`: offsets (length + 1 slots; for a
 * fixed_size_binary, the bytes of the slots from the byte-aligned slot
 * below its offset), data bytes (var-binary only) and the validity bitmap
 * (NULL when s has no nulls). Each part's slot offset modulo 8 is s's. */
typedef struct parts {
  am_array *offsets, *bytes, *validity;
} parts;

static void parts_free(parts *p) {
  am_array_free(p->offsets);
  am_array_free(p->bytes);
  am_array_free(p->validity);
  memset(p, 0, sizeof *p);
}

static int split(am_err *err, const am_array *s, parts *p) {
  memset(p, 0, sizeof *p);
  int status;
  if (s->type == AM_FIXED_SIZE_BINARY) {
    /* Whole bytes from the slot that starts s's byte of bitmap, so that a
     * move's offset (s->offset % 8 slots) is the bitmap's too. */
    const int64_t base = s->offset & ~(int64_t)7, w = s->byte_width;
    status = part(err, s, AM_UINT8, (s->offset - base + s->length) * w, 0, s->data_buf,
                  (const uint8_t *)s->data + base * w, &p->offsets);
  } else {
    status = part(err, s, am_type_is_large_binary(s->type) ? AM_INT64 : AM_INT32, s->length + 1,
                  s->offset, s->data_buf, s->data, &p->offsets);
    if (status == AM_OK)
      status = part(err, s, AM_UINT8, s->bytes_size, 0, s->bytes_buf, s->bytes, &p->bytes);
  }
  int64_t nulls = atomic_load(&((am_array *)s)->null_count);
  if (status == AM_OK && s->validity && nulls != 0) {
    status =
        part(err, s, AM_BOOL, s->length, s->offset, s->validity_buf, s->validity, &p->validity);
    if (status == AM_OK) atomic_store(&p->validity->null_count, -1);
  }
  if (status != AM_OK) parts_free(p);
  return status;
}

/* The string array of type like `s` on `device` over moved parts `p` (their
 * buffers retained): slot offset `offset`, s's length, nulls and byte size. */
static int join(am_err *err, const am_array *s, am_device *device, const parts *p, int64_t offset,
                am_array **out) {
  const am_array *v = p->validity;
  int64_t nulls = v ? atomic_load(&((am_array *)s)->null_count) : 0;
  am_array *r =
      am_array_make(device, s->type, s->length, offset, nulls,
                    v ? am_buffer_retain(v->data_buf) : NULL, v ? (const uint8_t *)v->data : NULL,
                    am_buffer_retain(p->offsets->data_buf), p->offsets->data);
  if (!r) return am_fail(err, AM_ENOMEM, "out of memory");
  r->byte_width = s->byte_width;
  r->timezone = s->timezone;
  if (p->bytes) {
    r->bytes = p->bytes->data;
    r->bytes_buf = am_buffer_retain(p->bytes->data_buf);
    r->bytes_size = s->bytes_size;
  }
  *out = r;
  return AM_OK;
}

/* Moves each part of `s` with `move` (a backend's upload to `device`, or
 * download to the host) and joins the moved parts on `device`. */
typedef int (*move_fn)(am_err *err, const am_array *part, am_device *device, am_array **out);

static int move_parts(am_err *err, const am_array *s, am_device *device, move_fn move,
                      am_array **out) {
  parts from, to;
  memset(&to, 0, sizeof to);
  int status = split(err, s, &from);
  if (status != AM_OK) return status;
  status = move(err, from.offsets, device, &to.offsets);
  if (status == AM_OK && from.bytes) status = move(err, from.bytes, device, &to.bytes);
  if (status == AM_OK && from.validity) status = move(err, from.validity, device, &to.validity);
  if (status == AM_OK) status = join(err, s, device, &to, s->offset & 7, out);
  parts_free(&from);
  parts_free(&to);
  return status;
}

static int upload(am_err *err, const am_array *part, am_device *device, am_array **out) {
  return device->backend->memory.upload(err, device, part, out);
}

static int download(am_err *err, const am_array *part, am_device *host, am_array **out) {
  return part->device->backend->memory.download(err, part, host, out);
}

int am_string_place(am_err *err, am_array *host, am_device *device, am_array **out) {
  if (am_type_is_view(host->type)) { /* views stay on the host */
    int status = am_view_not_on(err, host->type, device);
    am_array_free(host);
    return status;
  }
  int status = move_parts(err, host, device, upload, out);
  am_array_free(host);
  return status;
}

int am_string_to_host(am_err *err, const am_array *array, am_device *host, am_array **out) {
  return move_parts(err, array, host, download, out);
}

int am_string_import_device(am_err *err, am_device *device, am_type type, int32_t byte_width,
                            struct ArrowDeviceArray *array, am_array **out) {
  const int64_t length = array->array.length;
  const void *bytes = array->array.n_buffers > 2 ? array->array.buffers[2] : NULL;
  if (length == 0) { /* offsets may be absent: an empty array made here */
    array->array.release(&array->array);
    array->array.release = NULL;
    am_array *empty = NULL;
    int status = am_string_alloc(err, am_host_device(), type, byte_width, 0, 0, 0, &empty);
    return status == AM_OK ? am_string_place(err, empty, device, out) : status;
  }
  /* The offsets (or a fixed_size_binary's bytes) arrive as the backend's
   * import of a fixed-width array, which checks where the memory is and
   * keeps the producer's struct until the last reference goes. */
  am_type carrier = type == AM_FIXED_SIZE_BINARY    ? AM_FIXED_SIZE_BINARY
                    : am_type_is_large_binary(type) ? AM_INT64
                                                    : AM_INT32;
  am_array *a = NULL;
  int status = device->backend->memory.import_device(err, device, carrier, array, &a);
  if (status != AM_OK) return status;
  a->type = type;
  a->byte_width = byte_width;
  if (type != AM_FIXED_SIZE_BINARY) {
    a->bytes = bytes;
    a->bytes_buf = am_buffer_retain(a->data_buf);
    status = device->backend->kernels.string_check(err, a, &a->bytes_size);
  }
  if (status != AM_OK) {
    am_array_free(a);
    return status;
  }
  *out = a;
  return AM_OK;
}

int am_string_hosted_begin(am_err *err, const am_array **inputs, int64_t n, am_string_hosted *h) {
  memset(h, 0, sizeof *h);
  h->home = am_string_home(inputs, n);
  if (!h->home) return AM_OK;
  h->n = n;
  if (!(h->copies = calloc((size_t)n, sizeof *h->copies)))
    return am_fail(err, AM_ENOMEM, "out of memory");
  int status = AM_OK;
  for (int64_t i = 0; i < n && status == AM_OK; i++) {
    const am_array *a = inputs[i];
    if (!a || (a->device->backend->memory.caps & AM_MEMORY_HOST)) continue;
    if (!am_type_is_binary(a->type)) status = am_settle(err, a);
    if (status == AM_OK) status = am_to_host(err, a, &h->copies[i]);
    if (status == AM_OK) inputs[i] = h->copies[i];
  }
  return status;
}

int am_string_hosted_end(am_err *err, int status, am_string_hosted *h, am_array **result) {
  for (int64_t i = 0; i < h->n; i++) am_array_free(h->copies[i]);
  free(h->copies);
  if (status == AM_OK && result && *result && h->home) {
    am_array *moved = NULL;
    status = am_move(err, *result, h->home, &moved);
    am_array_free(*result);
    *result = status == AM_OK ? moved : NULL;
  }
  memset(h, 0, sizeof *h);
  return status;
}
